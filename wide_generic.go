package tensorcast

import (
	"math"
	"math/bits"
	"unsafe"
)

// One-pass portable stages between the 32- and 64-bit types and the narrow
// floats, for the pairs whose two-step plans cost most in Go (a wide
// element converted to float32 and stored, loaded again and narrowed): each
// element goes through the two conversions in registers, and the first is
// the cheaper one that the second allows. They serve the generic tier only
// (registerTierStage): the SIMD tiers have their own plans.
//
//   - INT32, UINT32, INT64, UINT64 → FLOAT16: from 512 elements on, the
//     magnitude clamped to 65535 looks its FLOAT16 up in UINT16's table
//     (intToHalfByTable); shorter calls take Go's nearest float32, then
//     FLOAT16's normal rounding alone. The float32 is exact or, like the
//     integer, beyond FLOAT16's range (below2p24, plan.go), and an integer
//     float32 is 0 or at least 1: no subnormal, no NaN.
//   - the same → BFLOAT16: 32-bit integers are exact in a DOUBLE, which
//     rounds to nearest even at BFLOAT16's 8 bits in one step; INT64
//     rounds to odd at float32 first (plan.go's argument), then to nearest;
//     UINT64, which has no one-instruction conversion, rounds on its bits
//     (bf16OfMag: 0.38 → 0.50 elements/ns; on INT64 the magnitude's sign
//     handling made it slower than the conversion).
//   - FLOAT16, BFLOAT16 → INT32, UINT32, INT64, UINT64, DOUBLE: the exact
//     float32 (FLOAT16 by widenF16Table, built on first use), then
//     f32ToInt's element or the DOUBLE, in one loop.
//
// The wide sources to the float8 types, E8M0 and FLOAT4E2M1 go through the
// round-to-odd BFLOAT16 table route instead (tables.go, oddBF16Indices).

func init() {
	regWide := func(from, to DataType, f stageFunc) { registerTierStage("generic", from, to, f) }
	regWide(Int32, Float16, typed(intToHalf[int32]))
	regWide(Uint32, Float16, typed(intToHalf[uint32]))
	regWide(Int32, BFloat16, typed(intToBF16[int32]))
	regWide(Uint32, BFloat16, typed(intToBF16[uint32]))
	if hwIntToFloat { // elsewhere the plans round 64-bit integers by shifts (intToF32)
		regWide(Int64, Float16, typed(intToHalf[int64]))
		regWide(Uint64, Float16, typed(intToHalf[uint64]))
		regWide(Int64, BFloat16, typed(intToBF16[int64]))
		regWide(Uint64, BFloat16, typed(intToBF16[uint64]))
	}
	for _, from := range []DataType{Float16, BFloat16} {
		bf16 := from == BFloat16
		regWide(from, Int32, halfToWide[int32](bf16))
		regWide(from, Uint32, halfToWide[uint32](bf16))
		regWide(from, Int64, halfToWide[int64](bf16))
		regWide(from, Uint64, halfToWide[uint64](bf16))
		regWide(from, Double, halfToWide[float64](bf16))
	}
}

// intToHalf converts integers to FLOAT16 bits (see the top of the file).
func intToHalf[S integer](dst []uint16, src []S) {
	dst = dst[:len(src)]
	var z S
	if len(src) >= oddTableMin { // by UINT16's table (see intToHalfByTable)
		intToHalfByTable(dst, src, (*[65536]uint16)(tableFor(Uint16, Float16, Options{}).b16))
		return
	}
	switch {
	case unsafe.Sizeof(z) <= 4:
		for i, v := range src {
			dst[i] = halfOfIntF32(math.Float32bits(float32(float64(v))))
		}
	case signedInt[S]():
		for i, v := range src {
			dst[i] = halfOfIntF32(math.Float32bits(float32(int64(v))))
		}
	default: // from 2^24 every value is beyond FLOAT16's range: clamped there, one signed conversion serves
		for i, v := range src {
			dst[i] = halfOfIntF32(math.Float32bits(float32(int64(min(uint64(v), 1<<24)))))
		}
	}
}

// intToHalfByTable converts integers to FLOAT16 bits through t, UINT16's
// FLOAT16 table: every magnitude from 65520 on is ±Inf, as 65535 is, so
// the magnitude clamped to 65535 indexes t, and a negative value takes the
// sign bit (FLOAT16 is symmetric; an integer is never -0). One lookup
// where the conversion and its rounding took about 20 instructions (UINT64
// → FLOAT16 0.48 → 1.5, INT64 0.55 → 0.89 elements/ns on Zen 5).
func intToHalfByTable[S integer](dst []uint16, src []S, t *[65536]uint16) {
	if !signedInt[S]() {
		for i, v := range src {
			dst[i] = t[min(uint64(v), 0xFFFF)]
		}
		return
	}
	for i, v := range src {
		m := int64(v) >> 63
		a := uint64((int64(v) ^ m) - m) // |v|; the minimum's is 2^63
		dst[i] = t[min(a, 0xFFFF)] | uint16(m)&0x8000
	}
}

// halfOfIntF32 rounds the float32 bits x of an integer to FLOAT16: to
// nearest even at 13 dropped bits, rebiased; 65520 and up to ±Inf.
func halfOfIntF32(x uint32) uint16 {
	a := x & 0x7FFFFFFF
	h := (a+0xFFF+(a>>13)&1)>>13 - 112<<10
	if a == 0 {
		h = 0
	}
	if a >= 0x477FF000 {
		h = 0x7C00
	}
	return uint16(x>>16&0x8000 | h)
}

// intToBF16 converts integers to BFLOAT16 bits (see the top of the file).
func intToBF16[S integer](dst []uint16, src []S) {
	dst = dst[:len(src)]
	var z S
	switch {
	case unsafe.Sizeof(z) <= 4:
		for i, v := range src {
			y := math.Float64bits(float64(v)) // exact
			a := y &^ (1 << 63)
			h := uint16((a+1<<44-1+(a>>45)&1)>>45 - (1023-127)<<7) // nearest even at 45 dropped bits, rebiased
			if a == 0 {
				h = 0
			}
			dst[i] = uint16(y>>48)&0x8000 | h
		}
	case signedInt[S]():
		for i, v := range src {
			dst[i] = bf16OfOddF32(i64ToF32OddHW(int64(v)))
		}
	default:
		for i, v := range src {
			dst[i] = bf16OfMag(uint64(v))
		}
	}
}

// bf16OfOddF32 rounds finite float32 bits to BFLOAT16, to nearest even.
func bf16OfOddF32(x uint32) uint16 { return uint16((x + 0x7FFF + (x>>16)&1) >> 16) }

// bf16OfMag rounds a 64-bit magnitude to BFLOAT16, to nearest even, on its
// bits: shifted so that its leading one is bit 63, the top 8 bits are the
// significand, the 56 below are rounded into them, and a carry out of the
// word is the step to the next power of two (significand 0, exponent + 1).
// No float and no round to odd; nothing overflows (2^64 is far below
// BFLOAT16's range).
func bf16OfMag(a uint64) uint16 {
	lz := bits.LeadingZeros64(a)
	m := a << (uint(lz) & 63)
	r, carry := bits.Add64(m, 1<<55-1+(m>>56)&1, 0)
	h := uint16(190-lz+int(carry))<<7 | uint16(r>>56)&0x7F
	if a == 0 {
		h = 0
	}
	return h
}

// halfToWide returns the stage FLOAT16 (or BFLOAT16, if bf16) → D.
func halfToWide[D int32 | uint32 | int64 | uint64 | float64](bf16 bool) stageFunc {
	return func(dst, src []byte, n int) {
		var t *[65536]uint32 // nil: BFLOAT16, whose float32 is its bits shifted
		if !bf16 {
			t = widenF16Table()
		}
		halfToWideBy(view[D](dst, n), view[uint16](src, n), t)
	}
}

// halfToWideBy converts the 16-bit floats of s to D, widened to float32
// bits by widenHalf.
func halfToWideBy[D int32 | uint32 | int64 | uint64 | float64](d []D, s []uint16, t *[65536]uint32) {
	d = d[:len(s)]
	switch d := any(d).(type) {
	case []float64:
		for i, h := range s {
			d[i] = math.Float64frombits(f32ToF64Bits(widenHalf(h, t)))
		}
	case []int64:
		for i, h := range s {
			d[i] = int64(f32ToWideInt(widenHalf(h, t)))
		}
	case []uint64:
		for i, h := range s {
			d[i] = f32ToWideInt(widenHalf(h, t))
		}
	case []int32:
		for i, h := range s {
			d[i] = int32(f32ToNarrowInt(widenHalf(h, t)))
		}
	case []uint32:
		for i, h := range s {
			d[i] = uint32(f32ToNarrowInt(widenHalf(h, t)))
		}
	}
}

// widenHalf returns the float32 bits of the FLOAT16 h by the table t
// (widenF16Table), or of the BFLOAT16 h if t is nil (a NaN unquieted: the
// integer targets read no payload, and f32ToF64Bits quiets).
func widenHalf(h uint16, t *[65536]uint32) uint32 {
	if t == nil {
		return uint32(h) << 16
	}
	return t[h]
}

// f32ToF64Bits widens float32 bits to DOUBLE bits exactly; a NaN is
// quieted with its sign and payload kept, built bit by bit as
// f32ToF64Slice does.
func f32ToF64Bits(x uint32) uint64 {
	r := math.Float64bits(float64(math.Float32frombits(x)))
	if x&0x7FFFFFFF > 0x7F800000 {
		r = uint64(x>>31)<<63 | 0x7FF8000000000000 | uint64(x&0x7FFFFF)<<29
	}
	return r
}

// intToE8M0 is the portable fused kernel of the 32- and 64-bit integers →
// FLOAT8E8M0 (kernelSet.toE8), computed on the exact magnitude a: E8M0
// reads its exponent k = 63 - lz (lz leading zeros) rounded up by the bits
// below the leading one (f32ToE8M0's rule, with no float in between, so no
// round to odd): m = a << (lz+1) holds them left-aligned, and the carry of
// m + add is the rounding (up: add = 2^64-1, any bit; nearest: 2^63, the
// top one; down: 0). Zero gives the underflow code; nothing overflows
// (k < 64).
func intToE8M0[S int32 | uint32 | int64 | uint64](dst, src []byte, p *e8m0Params) {
	var add uint64
	switch RoundMode(p.mode) {
	case RoundUp:
		add = math.MaxUint64
	case RoundNearest:
		add = 1 << 63
	}
	s := view[S](src, len(dst))
	dst = dst[:len(s)]
	under := uint8(p.underflow)
	signed := signedInt[S]()
	for i, v := range s {
		a := uint64(v)
		if signed {
			m := uint64(int64(v) >> 63)
			a = (a ^ m) - m
		}
		lz := bits.LeadingZeros64(a)
		_, carry := bits.Add64(a<<(uint(lz)+1), add, 0)
		r := uint8(127 + 63 - lz + int(carry))
		if a == 0 {
			r = under
		}
		dst[i] = r
	}
}
