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
//   - the same → BFLOAT16: a DOUBLE that rounds as the integer does
//     (exact, or rounded to odd at 2^11 beyond 2^53: i64ToF64Odd,
//     u64ToF64Odd; from 2^20, four at a time, divided by 2^11 too:
//     bf16OfOdd), rounded at BFLOAT16's 8 bits by Veltkamp's split
//     (bf16OfIntF64). → FLOAT8E8M0: intToE8M0.
//   - FLOAT16, BFLOAT16 → INT32, UINT32, INT64, UINT64, DOUBLE: the exact
//     float32 (FLOAT16 by widenF16Table, built on first use), then
//     f32ToInt's element or the DOUBLE, in one loop.
//
//   - UINT32, UINT64 → FLOAT4E2M1: the value clamped to 8 looks its code
//     up in a 16-entry table (uintToFloat4). For INT32 and INT64 the
//     magnitude, the clamp and the sign cost as much as the route through
//     FLOAT (INT64 0.58 against 0.77 elements/ns, Zen 4); their DOUBLE's
//     top bits index DOUBLE's table instead (intToFloat4).
//
// The wide sources to the float8 types go through the round-to-odd
// BFLOAT16 table route (tables.go, oddBF16Indices): a one-pass loop here
// (the integer clamped to ±2^24, converted, rounded to odd, looked up)
// measured no faster than the two passes (INT32 → E4M3FN 0.49–0.62
// against 0.75–0.84 elements/ns, Zen 4), as the two loops' instructions
// add up either way. DOUBLE → the narrow floats is in double_generic.go.

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
	regWide(Uint32, Float4E2M1, uintToFloat4[uint32])
	regWide(Uint64, Float4E2M1, uintToFloat4[uint64])
	regWide(Int32, Float4E2M1, intToFloat4[int32])
	regWide(Int64, Float4E2M1, intToFloat4[int64])
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
	for len(src) >= 4 { // unrolled, as intToInt (classic_generic.go) says why
		d, q := dst[:4:4], src[:4:4]
		d[0], d[1] = halfOfIntByTable(q[0], t), halfOfIntByTable(q[1], t)
		d[2], d[3] = halfOfIntByTable(q[2], t), halfOfIntByTable(q[3], t)
		dst, src = dst[4:], src[4:]
	}
	for i, v := range src {
		dst[i] = halfOfIntByTable(v, t)
	}
}

// halfOfIntByTable is intToHalfByTable's element for a signed v. Unrolled
// by four: INT32 → FLOAT16 0.44 → 0.88, INT64 0.56 → 0.92 elements/ns
// (Zen 3).
func halfOfIntByTable[S integer](v S, t *[65536]uint16) uint16 {
	m := int64(v) >> 63
	a := uint64((int64(v) ^ m) - m) // |v|; the minimum's is 2^63
	return t[min(a, 0xFFFF)] | uint16(m)&0x8000
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
// Measured and dropped (Zen 3, 2026-11-28): INT64 through Go's float32
// (one rounding where hwIntToFloat), BFLOAT16's rounding of its bits, and
// the exact route only where the float32 lies on a BFLOAT16 tie (low half
// 0x8000, the one place where rounding twice can differ): 0.32-0.47
// against this loop's 0.63-0.65 elements/ns, random INT64 bits at 64 Ki.
func intToBF16[S integer](dst []uint16, src []S) {
	dst = dst[:len(src)]
	var z S
	i := 0
	switch { // one loop per kind, so that each inlines its helpers
	case unsafe.Sizeof(z) <= 4:
		for ; i+4 <= len(src); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
			p, q := dst[i:i+4:i+4], src[i:i+4:i+4]
			p[0], p[1] = bf16OfIntF64(float64(q[0])), bf16OfIntF64(float64(q[1]))
			p[2], p[3] = bf16OfIntF64(float64(q[2])), bf16OfIntF64(float64(q[3]))
		}
		for ; i < len(src); i++ {
			dst[i] = bf16OfIntF64(float64(src[i])) // exact
		}
	case signedInt[S]():
		for ; i+4 <= len(src); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
			p, q := dst[i:i+4:i+4], src[i:i+4:i+4]
			if magFrom(int64(q[0]), 1<<20) && magFrom(int64(q[1]), 1<<20) && magFrom(int64(q[2]), 1<<20) && magFrom(int64(q[3]), 1<<20) {
				p[0], p[1] = bf16OfOdd(int64(q[0])), bf16OfOdd(int64(q[1]))
				p[2], p[3] = bf16OfOdd(int64(q[2])), bf16OfOdd(int64(q[3]))
			} else {
				p[0], p[1] = bf16OfIntF64(i64ToF64Odd(int64(q[0]))), bf16OfIntF64(i64ToF64Odd(int64(q[1])))
				p[2], p[3] = bf16OfIntF64(i64ToF64Odd(int64(q[2]))), bf16OfIntF64(i64ToF64Odd(int64(q[3])))
			}
		}
		for ; i < len(src); i++ {
			dst[i] = bf16OfIntF64(i64ToF64Odd(int64(src[i])))
		}
	default:
		for ; i+4 <= len(src); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
			p, q := dst[i:i+4:i+4], src[i:i+4:i+4]
			if magFrom(uint64(q[0]), 1<<20) && magFrom(uint64(q[1]), 1<<20) && magFrom(uint64(q[2]), 1<<20) && magFrom(uint64(q[3]), 1<<20) {
				p[0], p[1] = bf16OfOdd(uint64(q[0])), bf16OfOdd(uint64(q[1]))
				p[2], p[3] = bf16OfOdd(uint64(q[2])), bf16OfOdd(uint64(q[3]))
			} else {
				p[0], p[1] = bf16OfIntF64(u64ToF64Odd(uint64(q[0]))), bf16OfIntF64(u64ToF64Odd(uint64(q[1])))
				p[2], p[3] = bf16OfIntF64(u64ToF64Odd(uint64(q[2]))), bf16OfIntF64(u64ToF64Odd(uint64(q[3])))
			}
		}
		for ; i < len(src); i++ {
			dst[i] = bf16OfIntF64(u64ToF64Odd(uint64(src[i])))
		}
	}
}

// bf16OfOdd is intToBF16's element for a 64-bit v of 2^20 or more in
// magnitude, four of which take it where all are: v rounded to odd at 2^11
// (as i64ToF64Odd rounds, for a negative v too: the arithmetic shift keeps
// the odd neighbour) and divided by 2^11, whose DOUBLE is exact (below
// 2^53) and keeps every bit that decides (BFLOAT16's rounding point is at
// 2^13 or above, two bits above the sticky one: plan.go's argument),
// rounded by bf16OfIntF64, its exponent raised by 11 on the bits (a normal
// result, far from ±Inf; the sign is bit 15, untouched). No select and no
// product, as u64ToF64Odd has: UINT64 → BFLOAT16 0.45 → 0.57 elements/ns
// (Zen 3). INT64 measured the same as i64ToF64Odd then (0.56); with the
// groups indexed, not resliced (intToE8M0), INT64 0.59 → 0.69 and UINT64
// 0.59 → 0.70 against i64ToF64Odd and the resliced loop (Zen 3, in L2).
// Rounding the DOUBLE's bits in integers instead of bf16OfIntF64 ran
// slower (0.37-0.40).
func bf16OfOdd[S int64 | uint64](v S) uint16 {
	return bf16OfIntF64(float64(int64((v|(v&0x7FF+0x7FF))>>11))) + 11<<7
}

// i64ToF64Odd returns a DOUBLE that every rounding to at most 40
// significant bits (BFLOAT16 has 8) rounds as v itself: v, exact,
// where |v| ≤ 2^53; beyond, v rounded to odd at 2^11 (truncated to a
// multiple of 2^11, then bit 11 set if any dropped bit was: for a negative
// v the truncation is toward -∞, and of the two neighbours only the odd
// one has bit 11 set, so the or picks it either way), a multiple of 2^11
// below 2^64 in magnitude, exact too. The rounding position of 40 bits is
// then 2^13 or above, where a sticky bit at 2^11 decides as all the
// dropped bits did (plan.go's round-to-odd argument). The select compiles
// to a conditional move.
func i64ToF64Odd(v int64) float64 {
	odd := v&^0x7FF | (v&0x7FF+0x7FF)&0x800
	if uint64(v+1<<53) > 1<<54 { // |v| > 2^53
		v = odd
	}
	return float64(v)
}

// u64ToF64Odd is i64ToF64Odd for a UINT64, which from 2^53 converts halved
// (exact: the odd value's bit 0 is clear) and doubles back exactly.
func u64ToF64Odd(u uint64) float64 {
	var e uint64
	if odd := (u&^0x7FF | (u&0x7FF+0x7FF)&0x800) >> 1; u > 1<<53 {
		u, e = odd, 1<<52
	}
	return float64(int64(u)) * math.Float64frombits(0x3FF0000000000000+e) // ×1 or ×2
}

// bf16OfIntF64 rounds the DOUBLE f, an integer of magnitude at most 2^64,
// to BFLOAT16, to nearest even, by Veltkamp's split with σ = 2^45 + 1: the
// high part g - (g - f), with g = σf, is f rounded to nearest even at
// 53 - 45 = 8 significant bits (checked exhaustively against exact
// arithmetic for small precisions p, s, s = p - 2 included; nothing
// overflows: |g| < 2^110), so its float32 is exact and BFLOAT16 is the top
// half of its bits (zero gives 0). Three float operations where the
// rounding on the bits took a dozen integer ones (INT32 → BFLOAT16 0.56 →
// 0.9, INT64 0.30-0.42 → 0.8 elements/ns on Zen 5). The conversions to
// float64 keep the compiler from fusing σf - f into one FMA, which would
// round differently.
func bf16OfIntF64(f float64) uint16 {
	g := float64(f * (0x1p45 + 1))
	h := float64(g - f)
	return uint16(math.Float32bits(float32(g-h)) >> 16)
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
		halfToF64(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(d))), len(d)), s, t)
	case []int64:
		halfTo64(d, s, t)
	case []uint64:
		halfTo64(d, s, t)
	case []int32:
		halfTo32(d, s, t)
	case []uint32:
		halfTo32(d, s, t)
	}
}

// halfToF64 widens the 16-bit floats of s (FLOAT16 if t is not nil, else
// BFLOAT16) to DOUBLE bits in b, four at a time where all four are normal
// numbers (normalHalvesToF64): the significand moved to DOUBLE's place,
// the DOUBLE sign and rebiased exponent from a table indexed by the sign
// and exponent bits (halfHighF64). One 64-bit load
// tests all four exponent fields (in each lane: the field plus its lowest
// bit carries to bit 15 only when all ones; plus the field's mask, only
// when not zero). Other groups (zero, subnormal, ±Inf, NaN) take
// f32ToF64Bits per element. Fewer instructions than rebiasing the float32
// bits (BFLOAT16) or converting the float32 of FLOAT16's table (which
// CVTSS2SD serializes: it merges into its destination register): BFLOAT16
// → DOUBLE 0.70 → 0.81, FLOAT16 0.68-0.79 → 0.81 elements/ns (Zen 3).
func halfToF64(b []uint64, s []uint16, t *[65536]uint32) {
	b = b[:len(s)]
	exp := uint64(0x7F80) // BFLOAT16's exponent field
	if t != nil {
		exp = 0x7C00
	}
	// Four per word, the first in the low lane; no words under four
	// elements (checkptr: a *uint64 must not straddle allocations).
	var w []uint64
	if len(s) >= 4 {
		w = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s)/4)
	}
	for i := 0; i < len(w); i++ {
		i += normalHalvesToF64(b[4*i:], w[i:], exp)
		if i == len(w) {
			break
		}
		p, q := b[4*i:4*i+4:4*i+4], s[4*i:4*i+4:4*i+4]
		p[0], p[1] = f32ToF64Bits(widenHalf(q[0], t)), f32ToF64Bits(widenHalf(q[1], t))
		p[2], p[3] = f32ToF64Bits(widenHalf(q[2], t)), f32ToF64Bits(widenHalf(q[3], t))
	}
	for i := 4 * len(w); i < len(s); i++ {
		b[i] = f32ToF64Bits(widenHalf(s[i], t))
	}
}

// normalHalvesToF64 is halfToF64's loop over the words w while all four
// elements of a word are normal numbers; it returns the number of words
// converted. It calls nothing and takes each word's four elements from the
// word (the first in the low lane: plans run on little-endian machines
// only, directAccess in route.go) with constant shifts, one loop per
// format, so the compiler keeps its values in registers: with the other
// groups' calls in the same loop it reloaded six from the stack per word
// (BFLOAT16 → DOUBLE 0.80 → 1.1-1.25 elements/ns in L1, Zen 4).
func normalHalvesToF64(b []uint64, w []uint64, exp uint64) int {
	const lanes, top = 0x0001_0001_0001_0001, 0x8000_8000_8000_8000
	unit, exps := (0x8000-exp)&exp*lanes, exp*lanes // the field's lowest bit, the fields
	if exp == 0x7F80 {
		for i, x := range w {
			if e := x & exps; ((e+unit)|^(e+exps))&top != 0 {
				return i
			}
			p := b[4*i : 4*i+4 : 4*i+4]
			p[0], p[1], p[2], p[3] = normalHalfToF64(x, 7, &bf16HighF64), normalHalfToF64(x>>16, 7, &bf16HighF64),
				normalHalfToF64(x>>32, 7, &bf16HighF64), normalHalfToF64(x>>48, 7, &bf16HighF64)
		}
		return len(w)
	}
	for i, x := range w {
		if e := x & exps; ((e+unit)|^(e+exps))&top != 0 {
			return i
		}
		p := b[4*i : 4*i+4 : 4*i+4]
		p[0], p[1], p[2], p[3] = normalHalfToF64(x, 10, &f16HighF64), normalHalfToF64(x>>16, 10, &f16HighF64),
			normalHalfToF64(x>>32, 10, &f16HighF64), normalHalfToF64(x>>48, 10, &f16HighF64)
	}
	return len(w)
}

// normalHalfToF64 is the DOUBLE bits of the normal 16-bit float in the low
// 16 bits of h, with mbits significand bits: the significand moved to
// DOUBLE's place, the sign and exponent from tab.
func normalHalfToF64(h uint64, mbits uint, tab *[512]uint64) uint64 {
	return tab[h>>mbits&(1<<(16-mbits)-1)] | (h&(1<<mbits-1))<<(52-mbits)
}

// bf16HighF64 and f16HighF64 hold, by sign and exponent field (a 16-bit
// float's bits above its significand), the DOUBLE sign and exponent of a
// normal number of that field.
var bf16HighF64, f16HighF64 = halfHighF64(8, 127), halfHighF64(5, 15)

func halfHighF64(ebits, bias int) (t [512]uint64) {
	for i := range 2 << ebits {
		t[i] = uint64(i>>ebits)<<63 | uint64(i&(1<<ebits-1)+1023-bias)<<52
	}
	return t
}

// halfTo32 is halfToWideBy for the 32-bit integers.
func halfTo32[D int32 | uint32](d []D, s []uint16, t *[65536]uint32) {
	d = d[:len(s)]
	for len(s) >= 4 { // unrolled, as intToInt (classic_generic.go) says why
		p, q := d[:4:4], s[:4:4]
		p[0], p[1] = D(f32ToLow32(widenHalf(q[0], t))), D(f32ToLow32(widenHalf(q[1], t)))
		p[2], p[3] = D(f32ToLow32(widenHalf(q[2], t))), D(f32ToLow32(widenHalf(q[3], t)))
		d, s = d[4:], s[4:]
	}
	for i, h := range s {
		d[i] = D(f32ToLow32(widenHalf(h, t)))
	}
}

// halfTo64 is halfToWideBy for the 64-bit integers: FLOAT16 (t not nil)
// lies below 2^16, where f32ToNarrowInt's rule is f32ToWideInt's in fewer
// steps; BFLOAT16 takes int64(v) for four at a time where all lie within
// ±2^63 (below63F32x4, as f32ToInt does), else f32ToWideInt.
func halfTo64[D int64 | uint64](d []D, s []uint16, t *[65536]uint32) {
	d = d[:len(s)]
	if t != nil {
		for len(s) >= 4 { // unrolled, as intToInt (classic_generic.go) says why
			p, q := d[:4:4], s[:4:4]
			p[0], p[1] = D(f32ToNarrowInt(t[q[0]])), D(f32ToNarrowInt(t[q[1]]))
			p[2], p[3] = D(f32ToNarrowInt(t[q[2]])), D(f32ToNarrowInt(t[q[3]]))
			d, s = d[4:], s[4:]
		}
		for i, h := range s {
			d[i] = D(f32ToNarrowInt(t[h]))
		}
		return
	}
	for len(s) >= 4 {
		p, q := d[:4:4], s[:4:4]
		x0, x1, x2, x3 := widenHalf(q[0], t), widenHalf(q[1], t), widenHalf(q[2], t), widenHalf(q[3], t)
		if below63F32x4(x0, x1, x2, x3) {
			p[0], p[1] = D(int64(math.Float32frombits(x0))), D(int64(math.Float32frombits(x1)))
			p[2], p[3] = D(int64(math.Float32frombits(x2))), D(int64(math.Float32frombits(x3)))
		} else {
			p[0], p[1] = D(f32ToWideInt(x0)), D(f32ToWideInt(x1))
			p[2], p[3] = D(f32ToWideInt(x2)), D(f32ToWideInt(x3))
		}
		d, s = d[4:], s[4:]
	}
	for i, h := range s {
		d[i] = D(f32ToWideInt(widenHalf(h, t)))
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
// FLOAT8E8M0 (kernelSet.toE8). E8M0 reads the exponent of the magnitude,
// rounded up by the bits below the leading one (f32ToE8M0's rule with no
// float32 in between, so no round to odd at 24 bits): the carry of those
// bits + add into the exponent is the rounding (up: any bit; nearest: the
// top one; down: none). Zero gives the underflow code; nothing overflows
// (the exponent is below 64).
//
// 32-bit sources read it from their exact DOUBLE's fields (e8m0OfF64);
// 64-bit ones, four at a time where all are 2^13 or more in magnitude,
// from the DOUBLE of the value rounded to odd at 2^11 and shifted down
// (e8m0OfOdd), else from the integer's bits (e8m0OfMag), which measured
// faster on Zen 5 than the DOUBLE of i64ToF64Odd/u64ToF64Odd (UINT64 100
// µs against 140 per 64 Ki elements, INT64 equal) and slower on 32-bit
// sources (INT32 0.46 against 0.89 elements/ns).
//
// The loops index their groups of four (dst[i:i+4:i+4]) rather than
// reslice dst and s each round, which costs a masked pointer step per
// slice: with e8m0Add's bias folded into the add, INT64 0.56 → 0.86,
// UINT64 0.58 → 0.86 elements/ns (Zen 3, in L2).
func intToE8M0[S int32 | uint32 | int64 | uint64](dst, src []byte, p *e8m0Params) {
	s := view[S](src, len(dst))
	dst = dst[:len(s)]
	under := uint8(p.underflow)
	i := 0
	var z S
	if unsafe.Sizeof(z) <= 4 { // 0.38 → 0.53 elements/ns unrolled (Zen 3, INT32)
		add, _ := e8m0Add(RoundMode(p.mode), 1023-127)
		for ; i+4 <= len(s); i += 4 {
			d, q := dst[i:i+4:i+4], s[i:i+4:i+4]
			d[0], d[1] = e8m0OfF64(float64(q[0]), add, under), e8m0OfF64(float64(q[1]), add, under) // exact
			d[2], d[3] = e8m0OfF64(float64(q[2]), add, under), e8m0OfF64(float64(q[3]), add, under)
		}
		for ; i < len(s); i++ {
			dst[i] = e8m0OfF64(float64(s[i]), add, under)
		}
		return
	}
	add, addMag := e8m0Add(RoundMode(p.mode), 1023-127-11)
	for ; i+4 <= len(s); i += 4 {
		d, q := dst[i:i+4:i+4], s[i:i+4:i+4]
		if magFrom(q[0], 1<<13) && magFrom(q[1], 1<<13) && magFrom(q[2], 1<<13) && magFrom(q[3], 1<<13) {
			d[0], d[1] = e8m0OfOdd(q[0], add), e8m0OfOdd(q[1], add)
			d[2], d[3] = e8m0OfOdd(q[2], add), e8m0OfOdd(q[3], add)
		} else {
			d[0], d[1] = e8m0OfMag(magnitude(q[0]), addMag, under), e8m0OfMag(magnitude(q[1]), addMag, under)
			d[2], d[3] = e8m0OfMag(magnitude(q[2]), addMag, under), e8m0OfMag(magnitude(q[3]), addMag, under)
		}
	}
	for ; i < len(s); i++ {
		dst[i] = e8m0OfMag(magnitude(s[i]), addMag, under)
	}
}

// e8m0Add returns intToE8M0's rounding add on DOUBLE's 52-bit significand
// less bias on the exponent field (e8m0OfOdd, e8m0OfF64), and e8m0OfMag's,
// on the bits below the leading one left-aligned: the same shifted up,
// with its low bit repeated below (up: all ones). A constant in each case
// (bias is one), so that the compiler keeps the biased add in one register
// where a bias subtracted after the switch was added again per element.
func e8m0Add(mode RoundMode, bias uint64) (add, addMag uint64) {
	switch mode {
	case RoundUp:
		return 1<<52 - 1 - bias<<52, 1<<64 - 1
	case RoundNearest:
		return 1<<51 - bias<<52, 1 << 63
	}
	return -bias << 52, 0
}

// magFrom reports whether |v| ≥ lim (a power of two, at most 2^62).
func magFrom[S int32 | uint32 | int64 | uint64](v S, lim uint64) bool {
	if signedInt[S]() {
		return uint64(int64(v))+(lim-1) > 2*lim-2
	}
	return uint64(v) >= lim
}

// e8m0OfOdd is intToE8M0's element from a 64-bit v with |v| ≥ 2^13: v
// rounded to odd at 2^11 (as i64ToF64Odd rounds, for a negative v too) and
// divided by 2^11 is below 2^53 in magnitude, so its DOUBLE is exact, and
// it keeps every bit that decides E8M0's rounding (the leading one is at
// 2^13 or above: up reads any bit below it, the sticky bit included;
// nearest the one just below, 2^12 or above; down none), so its exponent,
// raised by 11, and the add (on DOUBLE's significand) give the code. addB
// is the add less the bias 1023 - 127 - 11 on the exponent field (which is
// at least 1023 + 2, so nothing borrows); the sign lands at bit 11 after
// the shift, which the byte drops. No bit count: bits.LeadingZeros64
// is BSR on GOAMD64=v1, which is slow on Zen 3 (a loop of it alone ran at
// 0.3 elements/ns), and the hardware conversion finds the leading one
// instead: INT64 0.32 → 0.58, UINT64 0.35 → 0.60 elements/ns (Zen 3).
func e8m0OfOdd[S int32 | uint32 | int64 | uint64](v S, addB uint64) uint8 {
	y := math.Float64bits(float64(int64((v | (v&0x7FF + 0x7FF)) >> 11)))
	return uint8((y + addB) >> 52)
}

// magnitude returns |v| as a uint64 (-2^63's is 2^63).
func magnitude[S int32 | uint32 | int64 | uint64](v S) uint64 {
	a := uint64(v)
	if signedInt[S]() {
		m := uint64(int64(v) >> 63)
		a = (a ^ m) - m
	}
	return a
}

// e8m0OfF64 is intToE8M0's element from the DOUBLE f of an integer, with
// addB the add less the bias 1023 - 127 on the exponent field: the sign
// lands at bit 11 after the shift, which the byte drops, in place of
// clearing it; zero (whose field is below the bias) is the underflow code.
// INT32 → FLOAT8E8M0 0.63 → 0.70, UINT32 0.65 → 0.72 elements/ns (Zen 3)
// with the sign shifted out instead of cleared.
func e8m0OfF64(f float64, addB uint64, under uint8) uint8 {
	y := math.Float64bits(f)
	r := uint8((y + addB) >> 52)
	if y == 0 {
		r = under
	}
	return r
}

// e8m0OfMag is intToE8M0's element from a magnitude a, whose lz leading
// zeros put the bits below the leading one at the top of a << (lz+1).
func e8m0OfMag(a, add uint64, under uint8) uint8 {
	lz := bits.LeadingZeros64(a)
	_, carry := bits.Add64(a<<(uint(lz)+1), add, 0)
	r := uint8(127 + 63 - lz + int(carry))
	if a == 0 {
		r = under
	}
	return r
}

// minU is min(a, b) without a branch: Go's min compiles to one when b is
// a constant, which random data mispredicts.
func minU(a, b uint64) uint64 {
	_, borrow := bits.Sub64(b, a, 0) // a > b
	m := -borrow
	return a&^m | b&m
}

// f4OfSmall holds the FLOAT4E2M1 codes of the integers 0..8 (the entries
// past 8 are never read: the index is clamped, the mask only spares a
// bounds check). 5 rounds to 4 (the tie between 4 and 6 goes to the even
// code) and every integer from 6 up to 6, so the value clamped to 8 gives
// any unsigned integer's code.
var f4OfSmall = func() (t [16]uint8) {
	for i := range 9 {
		t[i] = f32ToF4(math.Float32bits(float32(i)))
	}
	return t
}()

// uintToFloat4 converts UINT32 and UINT64 to FLOAT4E2M1 codes, two to a
// byte (the first in the low nibble), by f4OfSmall.
func uintToFloat4[S uint32 | uint64](dst, src []byte, n int) {
	s := view[S](src, n)
	d := dst[:(n+1)/2]
	for j := range n / 2 {
		p := s[2*j : 2*j+2 : 2*j+2]
		d[j] = f4OfSmall[minU(uint64(p[0]), 8)&15] | f4OfSmall[minU(uint64(p[1]), 8)&15]<<4
	}
	if n%2 == 1 {
		d[n/2] = f4OfSmall[minU(uint64(s[n-1]), 8)&15]
	}
}

// intToFloat4 converts INT32 and INT64 to FLOAT4E2M1 codes, two to a byte
// (the first in the low nibble), by the top 15 bits of their DOUBLE in
// f4Top15 (DOUBLE's table, double_generic.go) from oddTableMin elements on,
// else by f64ToF4. No sticky bit: an integer below 8 in magnitude has at
// most three significant bits, all in the index, and any other's DOUBLE
// (rounded, beyond 2^53) is 8 or more, code 7 with its sign. The
// conversion, a shift and a load, where the route through FLOAT stored
// and reloaded its float32: INT64 0.58 → 1.00, INT32 0.57 → 1.17
// elements/ns (Zen 3).
func intToFloat4[S int32 | int64](dst, src []byte, n int) {
	s := view[S](src, n)
	d := dst[:(n+1)/2]
	if n < oddTableMin {
		for i, v := range s {
			c := f64ToF4(math.Float64bits(float64(v)))
			if i%2 == 0 {
				d[i/2] = c
			} else {
				d[i/2] |= c << 4
			}
		}
		return
	}
	t := f4Top15()
	for j := range n / 2 {
		p := s[2*j : 2*j+2 : 2*j+2]
		d[j] = t[math.Float64bits(float64(p[0]))>>49] | t[math.Float64bits(float64(p[1]))>>49]<<4
	}
	if n%2 == 1 {
		d[n/2] = t[math.Float64bits(float64(s[n-1]))>>49]
	}
}
