package tensorcast

import (
	"fmt"
	"unsafe"
)

// The typed entry points convert Go slices directly. They are the API the
// SIMD kernels serve; Cast on raw bytes routes the same pairs to the same
// kernels. The 16- and 8-bit sides are generic over ~uint16 and ~uint8 so
// that, for example, []float16.Float16 from github.com/x448/float16 passes
// without a copy. They panic when dst is shorter than src (a programming
// error, like an out-of-range index) and when dst and src overlap (their
// element sizes differ, so no overlap can convert correctly); they never
// allocate.

func checkLen(fn string, dst, src int) {
	if dst < src {
		panic(fmt.Sprintf("tensorcast.%s: dst has %d elements, src has %d", fn, dst, src))
	}
}

// checkArgs is checkLen plus the overlap rule: the typed entry points convert
// between different sizes, so any overlap of the n source elements and the n
// destination elements is a programming error (it would corrupt the result).
func checkArgs[D, S any](fn string, dst []D, src []S) {
	checkLen(fn, len(dst), len(src))
	n := len(src)
	if n == 0 {
		return
	}
	var d D
	var s S
	db := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), n*int(unsafe.Sizeof(d)))
	sb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), n*int(unsafe.Sizeof(s)))
	if overlap(db, sb) {
		panic(fmt.Sprintf("tensorcast.%s: dst and src overlap", fn))
	}
}

func as16[T ~uint16](s []T) []uint16 {
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func as8[T ~uint8](s []T) []uint8 {
	return unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// Float32ToFloat16 rounds each float32 to FLOAT16 (IEEE binary16), to
// nearest even, keeping subnormals; overflow gives ±Inf and NaN stays a
// (quiet) NaN with its sign and top payload bits.
func Float32ToFloat16[D ~uint16](dst []D, src []float32) {
	checkArgs("Float32ToFloat16", dst, src)
	active.f32ToF16.fn(as16(dst), src)
}

// Float16ToFloat32 widens FLOAT16 to float32 exactly (NaN quieted, payload kept).
func Float16ToFloat32[S ~uint16](dst []float32, src []S) {
	checkArgs("Float16ToFloat32", dst, src)
	active.f16ToF32.fn(dst, as16(src))
}

// Float32ToBFloat16 rounds each float32 to BFLOAT16 to nearest even (not by
// truncation), keeping subnormals; overflow gives ±Inf; NaN gives 0x7FC0
// with the sign.
func Float32ToBFloat16[D ~uint16](dst []D, src []float32) {
	checkArgs("Float32ToBFloat16", dst, src)
	active.f32ToBF16.fn(as16(dst), src)
}

// BFloat16ToFloat32 widens BFLOAT16 to float32 exactly (NaN quieted).
func BFloat16ToFloat32[S ~uint16](dst []float32, src []S) {
	checkArgs("BFloat16ToFloat32", dst, src)
	active.bf16ToF32.fn(dst, as16(src))
}

// Float32ToFloat8 rounds each float32 to one of the 8-bit float types:
// Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ (with
// opt.NoSaturate) or Float8E8M0 (with opt.NoSaturate and opt.RoundMode). It
// panics for any other `to` or an invalid round mode.
func Float32ToFloat8[D ~uint8](dst []D, to DataType, src []float32, opt Options) {
	checkArgs("Float32ToFloat8", dst, src)
	if opt.RoundMode > RoundNearest {
		panic(fmt.Sprintf("tensorcast.Float32ToFloat8: invalid %v", opt.RoundMode))
	}
	switch to {
	case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
		active.f32ToF8.fn(as8(dst), src, float8ParamsFor(to, opt))
	case Float8E8M0:
		active.f32ToE8M0.fn(as8(dst), src, e8m0ParamsFor(opt))
	default:
		panic(fmt.Sprintf("tensorcast.Float32ToFloat8: %v is not an 8-bit float type", to))
	}
}

// Float8ToFloat32 widens 8-bit floats (the four float8 types or
// Float8E8M0) to float32 exactly; NaN becomes the quiet NaN 0x7FC00000 with
// the stored sign bit. It panics for any other `from`.
func Float8ToFloat32[S ~uint8](dst []float32, src []S, from DataType) {
	checkArgs("Float8ToFloat32", dst, src)
	t := widenTable(from)
	if t == nil {
		panic(fmt.Sprintf("tensorcast.Float8ToFloat32: %v is not an 8-bit float type", from))
	}
	active.f8ToF32.fn(dst, as8(src), t)
}
