package tensorcast

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tensorcast/tensorcast/internal/ref"
	"github.com/tensorcast/tensorcast/internal/text"
)

// Cast converts n elements of type from in src to type to in dst: ONNX's
// Cast operator with the attributes in opt. CastLike is the same operation
// with `to` taken from the second input's element type (and, unlike ONNX's
// reference implementation, which ignores CastLike's round_mode, tensorcast
// applies opt.RoundMode there too).
//
// src and dst hold the raw little-endian layout of their types, exactly as
// ONNX TensorProto.raw_data: 2- and 4-bit types packed, first element in the
// low bits; BOOL one byte per element. Only the first from.Size(n) bytes of
// src are read and only the first to.Size(n) bytes of dst are written (the
// padding bits of a partly used last byte of a packed target are set to zero).
// src is never modified.
//
// In place: src and dst may be the same memory when both types have the same
// bit size (e.g. INT4 → UINT4, FLOAT16 → BFLOAT16, INT64 → DOUBLE): dst[i]
// is then the conversion of the old src[i], for every pair. Any other
// overlap of the bytes Cast reads and the bytes it writes (dst shifted into
// src, or an in-place conversion between sizes) is an error, since no
// element order could make every such call correct.
//
// Cast returns an error, and writes nothing, for: Undefined, complex or
// unknown types; String on either side (use CastFromStrings and
// CastToStrings); n < 0; an n whose byte size overflows int; src or dst
// shorter than n elements need; overlapping src and dst (see above); an
// invalid Options.RoundMode. It never panics and allocates nothing for
// numeric types.
func Cast(dst []byte, to DataType, src []byte, from DataType, n int, opt Options) error {
	if err := checkCastBytes(dst, to, src, from, n, opt); err != nil {
		return err
	}
	castBytes(dst, to, src, from, n, opt)
	return nil
}

// CastFromStrings parses each string of src into dst as type `to` (ONNX Cast
// from STRING): decimal or scientific numbers, INF/NaN spellings, and for
// BOOL also true/false. Numbers round once, directly to the target type. A
// string that is not a number is an error naming its index; dst may then hold
// the elements before it.
func CastFromStrings(dst []byte, to DataType, src []string, opt Options) error {
	n := len(src)
	if err := checkCast(to, String, n, opt); err != nil {
		return err
	}
	if to == String {
		return fmt.Errorf("tensorcast: CastFromStrings: target STRING: copy the strings instead")
	}
	need, err := sizeOf(to, n, "CastFromStrings", String, to)
	if err != nil {
		return err
	}
	if len(dst) < need {
		return fmt.Errorf("tensorcast: CastFromStrings to %v: dst holds %d bytes, %d elements need %d", to, len(dst), n, need)
	}
	rk, ropt := ref.Kind(to), refOptions(opt)
	if to.BitSize() < 8 && n > 0 {
		clear(dst[:to.Size(n)])
	}
	if i, err := text.FromStrings(dst, rk, src, ropt); err != nil {
		return fmt.Errorf("tensorcast: CastFromStrings to %v: element %d: %w", to, i, err)
	}
	return nil
}

// CastToStrings formats n elements of type from in src as strings into dst
// (ONNX Cast to STRING): the shortest decimal that reads back to the same
// value at the source's precision, "NaN", "INF", "-INF", integers in decimal,
// BOOL as "True"/"False". The strings of one call share their memory: one
// allocation per 512 elements for FLOAT, DOUBLE and the 16- to 64-bit
// integers, none for the other types, whose strings come from tables built
// on first use (about 0.4 MiB each for FLOAT16 and BFLOAT16, a few KiB for
// the 8-bit and narrower types).
func CastToStrings(dst []string, src []byte, from DataType, n int) error {
	if err := checkCast(String, from, n, Options{}); err != nil {
		return err
	}
	if from == String {
		return fmt.Errorf("tensorcast: CastToStrings: source STRING: copy the strings instead")
	}
	need, err := sizeOf(from, n, "CastToStrings", from, String)
	if err != nil {
		return err
	}
	if len(src) < need {
		return fmt.Errorf("tensorcast: CastToStrings from %v: src holds %d bytes, %d elements need %d", from, len(src), n, need)
	}
	if len(dst) < n {
		return fmt.Errorf("tensorcast: CastToStrings from %v: dst holds %d strings, n is %d", from, len(dst), n)
	}
	rk := ref.Kind(from)
	text.ToStrings(dst, rk, src, n)
	return nil
}

// checkCastBytes validates the arguments of Cast and CastParallel.
func checkCastBytes(dst []byte, to DataType, src []byte, from DataType, n int, opt Options) error {
	if err := checkCast(to, from, n, opt); err != nil {
		return err
	}
	if from == String || to == String {
		return fmt.Errorf("tensorcast: Cast %v to %v: STRING tensors are []string, use CastFromStrings or CastToStrings", from, to)
	}
	sb, err := sizeOf(from, n, "Cast", from, to)
	if err != nil {
		return err
	}
	db, err := sizeOf(to, n, "Cast", from, to)
	if err != nil {
		return err
	}
	if len(src) < sb {
		return fmt.Errorf("tensorcast: Cast %v to %v: src holds %d bytes, %d %v elements need %d", from, to, len(src), n, from, sb)
	}
	if len(dst) < db {
		return fmt.Errorf("tensorcast: Cast %v to %v: dst holds %d bytes, %d %v elements need %d", from, to, len(dst), n, to, db)
	}
	if overlap(dst[:db], src[:sb]) && !(sameStart(dst, src) && from.BitSize() == to.BitSize()) {
		return fmt.Errorf("tensorcast: Cast %v to %v: dst and src overlap (only the same slice of a same-size conversion may be converted in place)", from, to)
	}
	return nil
}

// sizeOf returns t.Size(n), or an error naming n and t when it overflows int.
func sizeOf(t DataType, n int, op string, from, to DataType) (int, error) {
	s, ok := t.SizeOK(n)
	if !ok {
		return 0, fmt.Errorf("tensorcast: %s %v to %v: %d elements of %v need more than %d bytes", op, from, to, n, t, math.MaxInt)
	}
	return s, nil
}

// overlap reports whether the memory of a and b intersects.
func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// sameStart reports whether a and b start at the same address.
func sameStart(a, b []byte) bool {
	return unsafe.SliceData(a) == unsafe.SliceData(b)
}

func checkCast(to, from DataType, n int, opt Options) error {
	for _, t := range [2]DataType{from, to} {
		if !t.Castable() {
			return fmt.Errorf("tensorcast: cannot cast %v to %v: %v is not a type Cast supports", from, to, t)
		}
	}
	if n < 0 {
		return fmt.Errorf("tensorcast: Cast %v to %v: negative element count %d", from, to, n)
	}
	return opt.validate()
}

func refOptions(opt Options) ref.Options {
	return ref.Options{Saturate: !opt.NoSaturate, Round: ref.RoundMode(opt.RoundMode)}
}
