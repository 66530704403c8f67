package tensorcast

import (
	"runtime"
	"unsafe"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// castBytes converts n ≥ 0 elements of already validated input through the
// plan of the pair (plan.go).
func castBytes(dst []byte, to DataType, src []byte, from DataType, n int, opt Options) {
	castBytesWith(active, dst, to, src, from, n, opt)
}

// castBytesWith is castBytes with the kernels of k (CastParallel passes the
// streaming twin of active, see stream.go). dst and src are either distinct
// or the same memory of a same-size pair (checkCastBytes).
func castBytesWith(k *kernelSet, dst []byte, to DataType, src []byte, from DataType, n int, opt Options) {
	if n == 0 {
		return
	}
	resolveStages()
	if sameStart(dst, src) && from != to {
		castInPlace(k, dst, to, from, n, opt)
		return
	}
	castDistinct(k, dst, to, src, from, n, opt)
}

// castDistinct converts between distinct buffers.
func castDistinct(k *kernelSet, dst []byte, to DataType, src []byte, from DataType, n int, opt Options) {
	if !(directAccess(dst) && directAccess(src)) {
		// Big-endian or strict-alignment targets with unaligned data: the
		// kernels read elements in place, so use the reference.
		castElementwise(dst, to, src, from, n, opt)
		return
	}
	plans[from][to].run(k, dst, src, n, opt)
}

// clearPadding zeroes the unused high bits of a packed last byte.
func clearPadding(dst []byte, t DataType, n int) {
	switch b := t.BitSize(); {
	case b == 4 && n%2 == 1:
		dst[n/2] &= 0x0F
	case b == 2 && n%4 != 0:
		dst[n/4] &= byte(1)<<(2*uint(n%4)) - 1
	}
}

// littleEndian is true on the architectures where the raw ONNX layout is the
// native one; unalignedOK where a []byte at any offset may be read as wider
// elements. Elsewhere the hot kernels are bypassed for the element-wise path.
var (
	littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()
	unalignedOK  = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" || runtime.GOARCH == "386"
)

func directAccess(b []byte) bool {
	return littleEndian && (unalignedOK || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 == 0)
}

// view returns the first n elements of b as []T (the caller guarantees b
// holds them); nil for n == 0, where b may be shorter than one T (a *T into
// it would straddle allocations, which checkptr rejects).
func view[T any](b []byte, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// castHot runs the kernel of a hot pair (hotPair in steps.go). It reports
// false for every other pair.
func castHot(k *kernelSet, dst []byte, to DataType, src []byte, from DataType, n int, opt Options) bool {
	switch from {
	case Float:
		s := view[float32](src, n)
		switch to {
		case Float16:
			k.f32ToF16.fn(view[uint16](dst, n), s)
		case BFloat16:
			k.f32ToBF16.fn(view[uint16](dst, n), s)
		case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
			k.f32ToF8.fn(dst[:n], s, float8ParamsFor(to, opt))
		case Float8E8M0:
			k.f32ToE8M0.fn(dst[:n], s, e8m0ParamsFor(opt))
		case Float4E2M1:
			k.f32ToF4.fn(dst[:to.Size(n)], s)
		case Int4, Uint4:
			k.f32ToI4.fn(dst[:to.Size(n)], s)
		default:
			return false
		}
	case Float16, BFloat16:
		s := view[uint16](src, n)
		switch to {
		case Float:
			if from == Float16 {
				k.f16ToF32.fn(view[float32](dst, n), s)
			} else {
				k.bf16ToF32.fn(view[float32](dst, n), s)
			}
		case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
			if from == Float16 {
				k.f16ToF8.fn(dst[:n], s, float8ParamsFor(to, opt))
			} else {
				k.bf16ToF8.fn(dst[:n], s, float8ParamsFor(to, opt))
			}
		default:
			return false
		}
	case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0:
		if to != Float {
			return false
		}
		k.f8ToF32.fn(view[float32](dst, n), src[:n], widenTable(from))
	case Float4E2M1:
		if to != Float {
			return false
		}
		k.f4ToF32.fn(view[float32](dst, n), src[:from.Size(n)])
	case Int8, Uint8:
		if to != Int4 && to != Uint4 {
			return false
		}
		k.i8ToI4.fn(dst[:to.Size(n)], src[:n])
	case Int4, Uint4:
		switch {
		case to != Int8 && to != Uint8:
			return false
		case from == Int4:
			k.i4ToI8.fn(dst[:n], src[:from.Size(n)])
		default:
			k.u4ToU8.fn(dst[:n], src[:from.Size(n)])
		}
	default:
		return false
	}
	return true
}

// castElementwise converts one element at a time through the reference
// definition: only where the kernels cannot read the data in place (a
// big-endian machine, or unaligned data where that is not allowed).
func castElementwise(dst []byte, to DataType, src []byte, from DataType, n int, opt Options) {
	ref.Cast(dst, ref.Kind(to), src, ref.Kind(from), n, refOptions(opt))
}

// byteSlice returns the bytes of a float32 slice (for tests and benchmarks
// that go through Cast).
func byteSlice(s []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))
}
