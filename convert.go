package tensorcast

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// Element is the set of Go element types Convert, Bytes and View accept: the
// fixed-size integers (and any type defined on them, such as
// github.com/x448/float16's Float16 or a user's `type BF16 uint16`),
// float32, float64 and bool.
//
// The integer types are the containers of bit patterns: any integer slice of
// the right element size may hold any type of that size, so []uint16 holds
// FLOAT16 or BFLOAT16 bits and []uint8 holds float8 bits or packed 4- and
// 2-bit elements. float32, float64 and bool hold values, not bit patterns,
// so they are taken only for their own types (FLOAT, DOUBLE, BOOL) and named
// float or bool types are not in the set. int and uint are left out because
// their size depends on the platform.
type Element interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | float32 | float64 | bool
}

// hostLittleEndian reports whether the machine stores integers little-endian,
// the byte order of ONNX raw_data, safetensors and Cast's byte slices.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// Bytes returns the memory of s as bytes, without copying: len(s) times the
// element size, in the machine's byte order (little-endian on every
// platform tensorcast has kernels for, which is the layout of ONNX
// raw_data and safetensors). Writing to the result writes to s. A nil or
// empty s gives an empty result.
func Bytes[T Element](s []T) []byte {
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// View returns b as a slice of T without copying, the reverse of Bytes: for
// example the raw_data of an ONNX tensor or a tensor of a safetensors file
// viewed as []float32. It is an error when len(b) is not a multiple of T's
// size, when b's address is not aligned for T (Go requires aligned
// elements; copy such data into a fresh slice instead), when T is bool and
// a byte is neither 0 nor 1 (not a valid Go bool; Cast reads any nonzero
// byte as true, so convert such data to BOOL first), or, for types of more
// than one byte, on a big-endian machine (the bytes would be misread).
func View[T Element](b []byte) ([]T, error) {
	var z T
	size := int(unsafe.Sizeof(z))
	switch {
	case len(b)%size != 0:
		return nil, fmt.Errorf("tensorcast: View as []%T: %d bytes are not a whole number of %d-byte elements", z, len(b), size)
	case uintptr(unsafe.Pointer(unsafe.SliceData(b)))%unsafe.Alignof(z) != 0:
		return nil, fmt.Errorf("tensorcast: View as []%T: the bytes are not %d-byte aligned (copy them into a []%T)", z, unsafe.Alignof(z), z)
	case size > 1 && !hostLittleEndian:
		return nil, fmt.Errorf("tensorcast: View as []%T: this machine is big-endian and tensor bytes are little-endian", z)
	}
	if _, ok := any(z).(bool); ok {
		for i, c := range b {
			if c > 1 {
				return nil, fmt.Errorf("tensorcast: View as []bool: byte %d is %#x, not 0 or 1", i, c)
			}
		}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size), nil
}

// Convert converts the elements of src, of type from, to type `to` in dst:
// Cast on typed slices. It reaches every pair Cast converts (STRING
// excepted: use CastFromStrings and CastToStrings), through the same code
// and kernels as Cast on the same bytes, and allocates nothing.
//
// Each slice must fit its type (see Element):
//
//   - 8- to 64-bit types: an element of the same size: []float32 for FLOAT,
//     []float64 for DOUBLE, []bool or []uint8 for BOOL, an integer type of
//     the type's size for everything else ([]int64 or []uint64 for INT64,
//     []uint16 or []float16.Float16 for FLOAT16, []uint8 for FLOAT8E4M3FN).
//   - 4- and 2-bit types (INT4, UINT4, FLOAT4E2M1, INT2, UINT2): a one-byte
//     integer slice holding the packed bytes, as Cast and ONNX raw_data
//     store them (first element in the low bits).
//
// The element count n is the length of the unpacked side: len(src) unless
// src is packed and dst is not, then len(dst). When both sides are packed,
// n is every element src's bytes hold (2 or 4 per byte); for another count
// call Cast, which takes n, on the same slices. dst must hold n elements
// (to.Size(n) bytes when packed) and may be longer: nothing past them is
// written. A packed src must hold from.Size(n) bytes.
//
// Convert returns an error, and writes nothing, when a slice does not fit
// its type or is too short, and for everything Cast refuses. The slices hold
// values in the machine's byte order: on a big-endian machine (s390x,
// ppc64, mips) Convert byte-swaps them through a buffer on the stack, since
// Cast reads and writes little-endian bytes.
func Convert[D, S Element](dst []D, to DataType, src []S, from DataType, opt Options) error {
	var zd D
	var zs S
	dsize, ssize := int(unsafe.Sizeof(zd)), int(unsafe.Sizeof(zs))
	// Sizes and the count are checked here, inline; Cast checks the rest
	// (castable types, Options, overlap). The type switches of valueType
	// are skipped where the DataType alone settles the question, as they
	// cost a few percent of a short conversion.
	bf, bt := from.BitSize(), to.BitSize()
	n, ok := len(src), ssize*8 == bf && dsize*8 == bt && len(dst) >= len(src)
	if !ok && (bf < 8 || bt < 8) {
		n, ok = packedCount(len(dst), dsize, bt, len(src), ssize, bf)
	}
	if ok && (anyHolds(ssize, from) || valueType[S]() == Undefined) && (anyHolds(dsize, to) || valueType[D]() == Undefined) {
		if hostLittleEndian || dsize == 1 && ssize == 1 {
			// Cast's body, without Cast's call frame (a few ns per call).
			d, s := Bytes(dst), Bytes(src)
			if err := checkCastBytes(d, to, s, from, n, opt); err != nil {
				return err
			}
			castBytes(d, to, s, from, n, opt)
			return nil
		}
		return castSwapped(Bytes(dst), dsize, to, Bytes(src), ssize, from, n, opt)
	}
	return convertError(dst, to, src, from, opt)
}

// castSwapped is Convert's Cast on a big-endian machine, where the slices
// hold multi-byte elements in big-endian order and Cast reads and writes
// little-endian bytes: it converts chunks, byte-swapping a multi-byte src
// into a pooled buffer (src is never modified) and a multi-byte dst in
// place after Cast wrote it. The chunks are multiples of 8 elements, so
// that packed chunks start on whole bytes.
func castSwapped(dst []byte, dsize int, to DataType, src []byte, ssize int, from DataType, n int, opt Options) error {
	if err := Cast(dst[:0], to, src[:0], from, 0, opt); err != nil { // the types and Options, before writing
		return err
	}
	buf := swapBufs.Get().(*[swapChunk * 8]byte)
	defer swapBufs.Put(buf)
	for i := 0; i < n; i += swapChunk {
		m := min(swapChunk, n-i)
		s := src[from.Size(i):][:from.Size(m)]
		d := dst[to.Size(i):][:to.Size(m)]
		if ssize > 1 {
			swapBytes(buf[:len(s)], s, ssize)
			s = buf[:len(s)]
		}
		if err := Cast(d, to, s, from, m, opt); err != nil {
			return err
		}
		if dsize > 1 {
			swapBytes(d, d, dsize)
		}
	}
	return nil
}

const swapChunk = 512

// swapBufs holds castSwapped's buffers, so that it allocates nothing once
// warm.
var swapBufs = sync.Pool{New: func() any { return new([swapChunk * 8]byte) }}

// swapBytes copies src to dst reversing the bytes of each size-byte element;
// dst may be src.
func swapBytes(dst, src []byte, size int) {
	for i := 0; i+size <= len(src); i += size {
		for j, k := i, i+size-1; j <= k; j, k = j+1, k-1 {
			dst[j], dst[k] = src[k], src[j]
		}
	}
}

// packedCount returns Convert's element count when a side is packed, for
// slices of dlen and slen elements of dsize and ssize bytes holding types of
// bt and bf bits, and whether the sizes fit the types and the slices are
// long enough. A type without a size (STRING, UNDEFINED, an unknown number)
// has 0 bits and fits nothing. Packed sizes are (n*bits+7)/8, DataType.Size
// for 2 and 4 bits.
func packedCount(dlen, dsize, bt, slen, ssize, bf int) (int, bool) {
	dstPacked := dsize == 1 && bt > 0 && bt < 8
	switch {
	case ssize*8 == bf: // unpacked src: n = len(src)
		return slen, dstPacked && dlen >= (slen*bt+7)/8
	case ssize != 1 || bf <= 0 || bf >= 8:
		return 0, false
	case dsize*8 == bt: // packed src, unpacked dst: n = len(dst)
		return dlen, slen >= (dlen*bf+7)/8
	}
	n := slen * (8 / bf) // both packed: every element of src
	return n, dstPacked && dlen >= (n*bt+7)/8
}

// valueType returns the one type a value Element holds (FLOAT for float32,
// DOUBLE for float64, BOOL for bool), and Undefined for the integer types,
// which hold the bits of any type of their size. The type switch on a nil
// pointer costs neither a call nor an allocation.
func valueType[T Element]() DataType {
	switch any((*T)(nil)).(type) {
	case *float32:
		return Float
	case *float64:
		return Double
	case *bool:
		return Bool
	}
	return Undefined
}

// anyHolds reports whether every Element of size bytes can hold type t: t
// is the value type of its size (a 4-byte Element is float32 or an integer,
// and both hold FLOAT), or no value type has that size.
func anyHolds(size int, t DataType) bool {
	switch size {
	case 1:
		return t == Bool
	case 4:
		return t == Float
	case 8:
		return t == Double
	}
	return true
}

// convertError explains why Convert refused its arguments.
func convertError[D, S Element](dst []D, to DataType, src []S, from DataType, opt Options) error {
	var zd D
	var zs S
	dsize, ssize := int(unsafe.Sizeof(zd)), int(unsafe.Sizeof(zs))
	dstLen, srcLen := len(dst), len(src)
	dv, sv := valueType[D](), valueType[S]()
	pd, ps := any((*D)(nil)), any((*S)(nil))
	if err := checkCast(to, from, 0, opt); err != nil {
		return err
	}
	if from == String || to == String {
		return fmt.Errorf("tensorcast: Convert %v to %v: STRING tensors are []string, use CastFromStrings or CastToStrings", from, to)
	}
	if err := fits("src", ps, sv, ssize, from); err != nil {
		return convertErr(from, to, err)
	}
	if err := fits("dst", pd, dv, dsize, to); err != nil {
		return convertErr(from, to, err)
	}
	srcPacked, dstPacked := from.BitSize() < 8, to.BitSize() < 8
	n := srcLen
	switch {
	case !srcPacked:
	case !dstPacked:
		n = dstLen
		if need := from.Size(n); srcLen < need {
			return fmt.Errorf("tensorcast: Convert %v to %v: dst has %d elements, and src holds %d bytes where %d %v elements need %d", from, to, dstLen, srcLen, n, from, need)
		}
	default:
		n = srcLen * (8 / from.BitSize())
	}
	if dstPacked {
		return fmt.Errorf("tensorcast: Convert %v to %v: dst holds %d bytes, %d %v elements need %d", from, to, dstLen, n, to, to.Size(n))
	}
	return fmt.Errorf("tensorcast: Convert %v to %v: dst has %d elements, src has %d", from, to, dstLen, n)
}

func convertErr(from, to DataType, err error) error {
	return fmt.Errorf("tensorcast: Convert %v to %v: %w", from, to, err)
}

// fits explains whether a slice of *p's element type, holding values of v
// (Undefined for integers) in size bytes, can hold type t (see Convert).
func fits(side string, p any, v DataType, size int, t DataType) error {
	name := strings.TrimPrefix(fmt.Sprintf("%T", p), "*")
	switch bits := t.BitSize(); {
	case v != Undefined && t != v:
		return fmt.Errorf("%s is []%s, which holds %v values only; %v elements need []%s", side, name, v, t, holder(t))
	case bits < 8 && size != 1:
		return fmt.Errorf("%s is []%s; %v elements are packed %d per byte and need a []uint8", side, name, t, 8/bits)
	case bits >= 8 && size*8 != bits:
		return fmt.Errorf("%s is []%s (%d-byte elements); %v elements are %d bytes: use []%s", side, name, size, t, bits/8, holder(t))
	}
	return nil
}

// holder names a Go element type for t, for error messages.
func holder(t DataType) string {
	switch t {
	case Float:
		return "float32"
	case Double:
		return "float64"
	case Bool:
		return "bool or []uint8"
	case Int8, Int16, Int32, Int64, Uint16, Uint32, Uint64:
		return strings.ToLower(t.String())
	}
	switch t.BitSize() {
	case 16:
		return "uint16"
	case 32:
		return "uint32"
	case 64:
		return "uint64"
	}
	return "uint8"
}
