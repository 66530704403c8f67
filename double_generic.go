package tensorcast

import (
	"math"
	"sync"
	"unsafe"
)

// DOUBLE → FLOAT16 and DOUBLE → BFLOAT16 for the portable tier, rounded
// once from the DOUBLE (the composed plan rounds to odd at float32 first,
// then to the target: the same result, in two passes over the data). Each
// element looks its sign and exponent up in a table (as f32ToF16Table does
// for float32) that gives the target's sign and exponent less the implicit
// bit, and how many of the 53 significand bits to drop; rounding to nearest
// even at that point and adding carries into the exponent where the
// significand overflows (up to ±Inf). NaN keeps the sign and the top
// payload bits, quieted, as the float32 route gives it (README, rule 4).
// They serve the generic tier only (registerTierStage): the SIMD tiers have
// their own plans.

// f64Narrow is the table of one target, indexed by the top 12 bits of a
// DOUBLE (sign and exponent field): the target's sign and exponent less the
// implicit bit (base), the significand bits to drop (shift) and the
// rounding bias 2^(shift-1) - 1 (half), kept in the table so that the loop
// computes no shifted constant.
type f64Narrow [4096]struct {
	half  uint64
	base  uint16
	shift uint8
}

// makeF64Narrow builds the table of a target with mbits significand bits,
// exponent bias and infinity bits inf.
func makeF64Narrow(mbits, bias int, inf uint16) *f64Narrow {
	t := new(f64Narrow)
	for i := range t {
		sign := uint16(i>>11) << 15
		e := i&0x7FF - 1023 // the unbiased exponent; -1023 for zero and subnormals
		base, shift := sign, 63
		switch {
		case i&0x7FF == 0x7FF || e > bias: // ±Inf (NaN apart), and beyond the range
			base |= inf
		case e >= 1-bias: // normal
			base |= uint16(e+bias-1) << mbits
			shift = 52 - mbits
		case e >= -bias-mbits && i&0x7FF != 0: // subnormal, or rounding up to the smallest
			shift = 52 - mbits + (1 - bias - e)
		}
		t[i].base, t[i].shift, t[i].half = base, uint8(shift), 1<<(shift-1)-1
	}
	return t
}

var (
	f64ToF16Table  = makeF64Narrow(10, 15, 0x7C00)
	f64ToBF16Table = makeF64Narrow(7, 127, 0x7F80)
)

// float64ToHalf converts DOUBLE bits to the 16-bit float of table t. A NaN
// becomes the sign, the bits nan, and its top payload bits masked by
// payload (FLOAT16 keeps ten, BFLOAT16 none). A function of its own, not a
// closure of init: the compiler inlines less into closures built there
// (measured 3x slower).
func float64ToHalf(d []uint16, s []uint64, t *f64Narrow, nan, payload uint16) {
	d = d[:len(s)]
	for i, x := range s {
		e := &t[x>>52]
		m := x&(1<<52-1) | 1<<52
		sh := uint64(e.shift) & 63
		h := e.base + uint16((m+e.half+(m>>sh)&1)>>sh)
		if x&^(1<<63) > 0x7FF0000000000000 {
			h = uint16(x>>48)&0x8000 | nan | uint16(x>>42)&payload
		}
		d[i] = h
	}
}

// f64ToBF16Rounded is float64ToHalf for BFLOAT16 with a fast case
// (f64Rounded8's): four DOUBLEs of magnitude 0 or in [2^-126, 2^120)
// (BFLOAT16's normal range, and what overflows) are rounded to 8
// significant bits by veltkamp, the exact result's float32 is
// BFLOAT16's bits in its top half. Other groups (NaN, ±Inf, subnormals,
// 2^120 and up) take float64ToHalf. Zen 3, in L1: 0.32-0.37 → 0.36-0.42
// elements/ns. The same for FLOAT16 (scaled by 2^-112 so that the
// float32's exponent field is FLOAT16's) measured no faster than
// float64ToHalf's table (0.29-0.33 against 0.32-0.35).
//
// The groups are indexed, not resliced (a masked pointer step per slice
// each round), and the inner loop breaks out to the call for the other
// groups: with the call in its body the compiler spilled and reloaded the
// slices' lengths every round. 0.70 → 0.82 elements/ns (Zen 3, in L2).
func f64ToBF16Rounded(d []uint16, s []uint64) {
	d = d[:len(s)]
	const neg, span = 1<<64 - (1023-126)<<53, (1023+120)<<53 - (1023-126)<<53 // [2^-126, 2^120), for inRange
	code := func(x uint64) uint16 {
		return uint16(math.Float32bits(float32(veltkamp(math.Float64frombits(x), 0x1p45+1))) >> 16)
	}
	i := 0
	for i+4 <= len(s) {
		for ; i+4 <= len(s); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
			q, o := s[i:i+4:i+4], d[i:i+4:i+4]
			if !(inRange(q[0], neg, span) && inRange(q[1], neg, span) && inRange(q[2], neg, span) && inRange(q[3], neg, span)) {
				break
			}
			o[0], o[1], o[2], o[3] = code(q[0]), code(q[1]), code(q[2]), code(q[3])
		}
		if i+4 <= len(s) {
			float64ToHalf(d[i:i+4], s[i:i+4], f64ToBF16Table, 0x7FC0, 0)
			i += 4
		}
	}
	float64ToHalf(d[i:], s[i:], f64ToBF16Table, 0x7FC0, 0)
}

// f64ToF16Rounded is float64ToHalf for FLOAT16 with a fast case: four
// DOUBLEs of magnitude in [2^-14, 2^16) (FLOAT16's normal range, and what
// rounds to ±Inf from 65520 up) are rounded on their own bits
// (f64ToF16Normal); other groups take the table, whose variable shift,
// NaN test and payload took more instructions: 0.50 → 0.59 elements/ns
// (Zen 3). The loop is f64ToBF16Rounded's.
func f64ToF16Rounded(d []uint16, s []uint64) {
	d = d[:len(s)]
	// [2^-14, 2^16) on the bits shifted left once, the sign dropped
	const lo, span = (1023 - 14) << 53, (1023+16)<<53 - (1023-14)<<53
	i := 0
	for i+4 <= len(s) {
		for ; i+4 <= len(s); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
			q, o := s[i:i+4:i+4], d[i:i+4:i+4]
			if !(q[0]<<1-lo < span && q[1]<<1-lo < span && q[2]<<1-lo < span && q[3]<<1-lo < span) {
				break
			}
			o[0], o[1], o[2], o[3] = f64ToF16Normal(q[0]), f64ToF16Normal(q[1]), f64ToF16Normal(q[2]), f64ToF16Normal(q[3])
		}
		if i+4 <= len(s) {
			float64ToHalf(d[i:i+4], s[i:i+4], f64ToF16Table, 0x7E00, 0x3FF) // quiet, top payload bits
			i += 4
		}
	}
	float64ToHalf(d[i:], s[i:], f64ToF16Table, 0x7E00, 0x3FF)
}

// f64ToF16Normal rounds the DOUBLE bits x, of magnitude in [2^-14, 2^16),
// to FLOAT16: to nearest even at 42 dropped bits, with the carry into the
// exponent (to ±Inf from 65520 up), rebiased by the same add. The sign is
// left in place: the magnitude less the bias 1023 - 15 is positive and
// below 2^57, so nothing reaches bit 63, and after the shift the sign sits
// at bit 21 over six zero bits, whence one more shift puts it at bit 15.
// Two operations fewer than clearing the sign and or-ing it back in, with
// the groups indexed (f64ToF16Rounded): DOUBLE → FLOAT16 0.60 → 0.85
// elements/ns (Zen 3, in L2).
func f64ToF16Normal(x uint64) uint16 {
	r := (x + (1<<64 + 1<<41 - 1 - (1023-15)<<52) + x>>42&1) >> 42
	return uint16(r) | uint16(r>>6)&0x8000
}

// inRange reports whether the DOUBLE x is ±0 or its magnitude's bits lie in
// [lo, lo + span), given neg = -2lo (modulo 2^64) and span doubled: on the
// bits shifted left once, which drops the sign, x·2 - 2lo takes LEAs
// alone, and zero is where that equals neg, which needs no copy of x·2. Where
// clearing the sign, a subtraction and a test of the magnitude took two
// more: DOUBLE → BFLOAT16 1.16×, → FLOAT8E4M3FN 1.08× (Zen 3, in L2,
// medians of 15 paired runs).
func inRange(x, neg, span2 uint64) bool {
	t := x<<1 + neg
	return t < span2 || t == neg
}

func init() {
	registerTierStage("generic", Double, Float16, func(dst, src []byte, n int) {
		f64ToF16Rounded(view[uint16](dst, n), view[uint64](src, n))
	})
	registerTierStage("generic", Double, BFloat16, func(dst, src []byte, n int) {
		f64ToBF16Rounded(view[uint16](dst, n), view[uint64](src, n))
	})
	registerTierStage("generic", Double, Float4E2M1, float64ToFloat4Generic)
}

// DOUBLE → the float8 types and FLOAT8E8M0 for the portable tier, in one
// pass where the composed plan takes two (DOUBLE → float32 rounded to odd,
// stored; then FLOAT's table route; FLOAT4E2M1 has f64ToF4, below): each
// element is rounded to odd at BFLOAT16's precision straight from its bits
// (f64OddBF16) and looked up in the 64 KiB table of codes that the FLOAT
// kernels use for long inputs (kernel_generic.go, oddTable). That is the
// composed plan's index: round to odd at 24 bits and then at 8 is round to
// odd at 8 (the odd last bit keeps every dropped bit's trace), and 8 bits
// are at least two more than any of these targets keeps, so the lookup is
// the one rounding of the DOUBLE (plan.go's argument, tables.go's for the
// BFLOAT16 index). The edges are the composed plan's too: magnitudes of
// 2^128 and more become ±Inf, magnitudes below BFLOAT16's smallest
// subnormal its odd 2^-133, NaN a NaN. Short inputs (under oddTableMin)
// take the element code instead, so that no call builds a table for a few
// elements. Integer operations only: the float32 route's comparisons
// compiled to branches here, which random data mispredicts (0.10 against
// 0.35 elements/ns for the two passes).

// f64OddEntry describes, for one exponent field of a DOUBLE, how its
// BFLOAT16 rounded to odd is formed: base (the exponent field less the
// implicit bit, or Inf's) plus the significand (with its implicit bit,
// masked by keep) shifted right by shift, or-ed with 1 where the shift drops
// a set bit (those bits, shifted left by 64 - shift, are not zero).
type f64OddEntry struct {
	keep        uint64
	base        uint16
	shift, left uint8
}

// f64OddBF16Table is indexed by the exponent field of a DOUBLE.
var f64OddBF16Table = func() (t [2048]f64OddEntry) {
	const frac, implicit = 1<<52 - 1, 1 << 52
	for f := range t {
		e := f - 1023 // unbiased
		switch {
		case f == 0x7FF: // Inf, NaN: the top payload bits, and the sticky bit, keep a NaN a NaN
			t[f] = f64OddEntry{keep: frac, base: 0x7F80, shift: 45}
		case e > 127: // beyond BFLOAT16 (and float32): Inf
			t[f] = f64OddEntry{keep: 0, base: 0x7F80, shift: 63}
		case e >= -126: // normal
			t[f] = f64OddEntry{keep: frac | implicit, base: uint16(e+126) << 7, shift: 45}
		case f == 0: // zero or a DOUBLE subnormal: 0, or the odd 2^-133
			t[f] = f64OddEntry{keep: frac, base: 0, shift: 63}
		default: // a BFLOAT16 subnormal, in units of 2^-133
			t[f] = f64OddEntry{keep: frac | implicit, base: 0, shift: uint8(min(-e-81, 63))}
		}
		t[f].left = 64 - t[f].shift
	}
	return t
}()

// f64OddBF16 rounds DOUBLE bits to odd at BFLOAT16's precision.
func f64OddBF16(x uint64) uint16 {
	t := &f64OddBF16Table[x>>52&0x7FF]
	m := (x | 1<<52) & t.keep
	lo := m << (t.left & 63) // the dropped bits
	return uint16(x>>48)&0x8000 | (t.base + uint16(m>>(t.shift&63)) | uint16((lo|-lo)>>63))
}

// genericToF8 holds the portable fused kernels to the float8 types.
func genericToF8(t string) (k [numTypes]kernel[fusedF8Func]) {
	k[Double] = kernel[fusedF8Func]{float64ToFloat8Generic, t}
	k[Int32] = kernel[fusedF8Func]{intToFloat8Generic[int32], t}
	k[Uint32] = kernel[fusedF8Func]{intToFloat8Generic[uint32], t}
	k[Int64] = kernel[fusedF8Func]{intToFloat8Generic[int64], t}
	k[Uint64] = kernel[fusedF8Func]{intToFloat8Generic[uint64], t}
	return k
}

// intToFloat8Generic converts the 32- and 64-bit integers to a float8 type
// in one pass where the composed plan takes two (the integer's float32,
// stored; then FLOAT's table route): Go's conversion to float32 (exact
// below 2^24, beyond every float8 type's range above: plan.go, below2p24),
// then the 64 KiB table of codes by the BFLOAT16 rounded to odd, as
// float32ToFloat8Generic does; short inputs convert element by element.
// Measured at 64 Ki elements on a Zen 3, two runs against the two passes:
// UINT32 → the float8 types 0.38-0.42 → 0.46-0.51 elements/ns, INT64
// 0.42-0.44 → 0.41-0.53, INT32 and UINT64 unchanged (0.46-0.50, 0.26;
// UINT64 faster since by nearF32's clamp). The groups indexed, not
// resliced (intToE8M0): UINT64 0.63 → 0.74, INT32 0.83 → 0.94, UINT32
// 0.82 → 0.97 elements/ns (Zen 3, in L2).
func intToFloat8Generic[S int32 | uint32 | int64 | uint64](dst, src []byte, p *float8Params) {
	s := view[S](src, len(dst))
	dst = dst[:len(s)]
	var t *[65536]uint8
	if len(s) >= oddTableMin {
		t = float8OddTableOf(p)
	}
	if t == nil {
		for i, v := range s {
			dst[i] = f32ToF8(math.Float32bits(nearF32(v)), p)
		}
		return
	}
	i := 0
	for ; i+4 <= len(s); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
		d, q := dst[i:i+4:i+4], s[i:i+4:i+4]
		d[0], d[1] = t[oddBF16(math.Float32bits(nearF32(q[0])))], t[oddBF16(math.Float32bits(nearF32(q[1])))]
		d[2], d[3] = t[oddBF16(math.Float32bits(nearF32(q[2])))], t[oddBF16(math.Float32bits(nearF32(q[3])))]
	}
	for ; i < len(s); i++ {
		dst[i] = t[oddBF16(math.Float32bits(nearF32(s[i])))]
	}
}

// nearF32 is Go's float32(v), but for UINT64 that of min(v, 2^63-1): Go
// compiles float32(uint64) to a branch on the top bit (random bits
// mispredict it: UINT64 → FLOAT8E4M3FN ran at 0.17 elements/ns with it),
// and from 2^63 every float8 type's result is its overflow code, which
// 2^63 (the float32 of 2^63-1) gives too: 0.25 → 0.33-0.41 elements/ns
// (Zen 3, in L1) against the halving conversion (u64ToF32BitsHW's, which
// then took two conversions and a product). The clamp is a select, which compiles
// to a conditional move, where the mask from the sign took five more
// instructions: UINT64 → FLOAT8E4M3FN 0.55 → 0.72 elements/ns (Zen 3).
func nearF32[S int32 | uint32 | int64 | uint64](v S) float32 {
	if unsafe.Sizeof(v) == 8 && !signedInt[S]() {
		x := int64(v)
		if x < 0 { // from 2^63
			x = 1<<63 - 1
		}
		return float32(x)
	}
	return float32(v)
}

func float64ToFloat8Generic(dst, src []byte, p *float8Params) {
	s := view[uint64](src, len(dst))
	if len(s) >= oddTableMin {
		if t := float8OddTableOf(p); t != nil {
			f64Rounded8(dst, s, t, p)
			return
		}
	}
	for i, x := range s {
		dst[i] = f32ToF8(f64ToF32Odd(x), p)
	}
}

// veltkamp rounds f to nearest even at 53 - k significant bits, given
// sigma = 2^k + 1, by Veltkamp's split: g = f·sigma, g - (g - f) (see
// bf16OfIntF64). Exact where nothing overflows or underflows: |f| below
// 2^(1023-k) and, for the rounding to be the target's, at or above the
// target's smallest normal, far above DOUBLE's. The conversions keep the
// compiler from fusing f·sigma - f into one FMA (arm64 would).
func veltkamp(f, sigma float64) float64 {
	g := float64(f * sigma)
	return float64(g - float64(g-f))
}

// f64Rounded8 is the fast case of float64ToFloat8Generic: four DOUBLEs
// of magnitude 0 or in [lo, 2^120) (lo the target's smallest normal) are
// each rounded to the target's significand (veltkamp), whose BFLOAT16 is
// exact, and t's code of that is the code of the value: an exact value
// rounds to itself, and one past the largest finite (below 2^128, so its
// float32 is finite) rounds to the overflow code as the value does. Groups
// with anything else (NaN, ±Inf, 2^120 and up, the target's subnormals)
// go through f64OddBF16; data that mixes many such values in would
// mispredict the one branch per four. DOUBLE → FLOAT8E4M3FN 0.26 →
// 0.34-0.42 elements/ns (Zen 3, in L1); its groups indexed, not resliced
// (f64ToBF16Rounded), 0.61 → 0.74 (Zen 3, in L2).
func f64Rounded8(d []uint8, s []uint64, t *[65536]uint8, p *float8Params) {
	d = d[:len(s)]
	sigma := math.Ldexp(1, 53-(24-int(p.shift))) + 1 // 24 - shift significant bits
	lo := math.Float64bits(float64(math.Float32frombits(p.minNormal)))
	neg, span := -lo<<1, (1023+120)<<53-lo<<1 // [lo, 2^120), for inRange
	code := func(x uint64) uint8 {
		return t[math.Float32bits(float32(veltkamp(math.Float64frombits(x), sigma)))>>16]
	}
	i := 0
	for ; i+4 <= len(s); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
		q, o := s[i:i+4:i+4], d[i:i+4:i+4]
		if inRange(q[0], neg, span) && inRange(q[1], neg, span) && inRange(q[2], neg, span) && inRange(q[3], neg, span) {
			o[0], o[1], o[2], o[3] = code(q[0]), code(q[1]), code(q[2]), code(q[3])
		} else {
			o[0], o[1], o[2], o[3] = t[f64OddBF16(q[0])], t[f64OddBF16(q[1])], t[f64OddBF16(q[2])], t[f64OddBF16(q[3])]
		}
	}
	for ; i < len(s); i++ {
		d[i] = t[f64OddBF16(s[i])]
	}
}

// float64ToE8M0Generic reads E8M0 off the DOUBLE's own fields, as
// f32ToE8M0 does off float32's, with no round to odd in between: the
// rounding add (f32ToE8M0's roundAdd widened to DOUBLE's 52 significand
// bits: up 2^52-1, nearest 2^51, down 0) carries into the exponent exactly
// when the value rounds up to the next power of two, so the exponent less
// 1023-127 is the code of the value itself, which is what the route through
// the round-to-odd float32 gives (it keeps every bit that decides). Below
// 2^-127 after rounding (zero, DOUBLE subnormals included) is underflow, from
// 2^128 (±Inf included) overflow, NaN 0xFF. Branch-free per element
// (f64ToE8M0), where the table route (f64ToCodes) measured 0.36
// elements/ns.
//
// Four at a time where all lie in [2^-127, 2^127) in magnitude, none
// underflows, overflows or is NaN in any rounding mode (2^127 less a bit
// rounds up to 2^127 at most, code 254), so the code is the exponent field
// plus the add's carry less the bias, which e8m0Add folds into the add
// (the field is at least the bias, so nothing borrows from the sign, which
// lands at bit 11 and leaves the byte): three operations where f64ToE8M0
// takes a dozen. DOUBLE → FLOAT8E8M0 0.50 → 0.97 elements/ns (Zen 3, in
// L2, medians of 9 paired runs).
func float64ToE8M0Generic(dst, src []byte, p *e8m0Params) {
	s := view[uint64](src, len(dst))
	dst = dst[:len(s)]
	add := uint64(p.roundAdd)<<29 | uint64(p.roundAdd&1)*(1<<29-1)
	addB, _ := e8m0Add(RoundMode(p.mode), 1023-127)
	under, over := p.underflow, p.overflow
	// [2^-127, 2^127) on the bits shifted left once, the sign dropped
	const lo, span = (1023 - 127) << 53, (1023+127)<<53 - (1023-127)<<53
	i := 0
	for ; i+4 <= len(s); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
		q, d := s[i:i+4:i+4], dst[i:i+4:i+4]
		if q[0]<<1-lo < span && q[1]<<1-lo < span && q[2]<<1-lo < span && q[3]<<1-lo < span {
			d[0], d[1] = uint8((q[0]+addB)>>52), uint8((q[1]+addB)>>52)
			d[2], d[3] = uint8((q[2]+addB)>>52), uint8((q[3]+addB)>>52)
		} else {
			for j, x := range q {
				d[j] = f64ToE8M0(x, add, under, over)
			}
		}
	}
	for ; i < len(s); i++ {
		dst[i] = f64ToE8M0(s[i], add, under, over)
	}
}

// f64ToE8M0 is float64ToE8M0Generic's element for any DOUBLE bits x.
func f64ToE8M0(x, add uint64, under, over uint32) uint8 {
	y := x &^ (1 << 63)
	e := int64((y+add)>>52) - (1023 - 127)
	r := uint32(e)
	if e < 0 {
		r = under
	}
	if e >= 255 {
		r = over
	}
	if y > 0x7FF0000000000000 {
		r = 0xFF
	}
	return uint8(r)
}

// float64ToFloat4Generic converts n DOUBLE to FLOAT4E2M1 codes, two to a
// byte (the first in the low nibble): from oddTableMin elements on by
// f4Top15, else element by element with f64ToF4.
func float64ToFloat4Generic(dst, src []byte, n int) {
	s := view[uint64](src, n)
	d := dst[:(n+1)/2]
	if n >= oddTableMin {
		t := f4Top15()
		for j := range n / 2 {
			p := s[2*j : 2*j+2 : 2*j+2]
			d[j] = t[f4Index(p[0])] | t[f4Index(p[1])]<<4
		}
		if n%2 == 1 {
			d[n/2] = t[f4Index(s[n-1])]
		}
		return
	}
	for j := range n / 2 {
		p := s[2*j : 2*j+2 : 2*j+2]
		d[j] = f64ToF4(p[0]) | f64ToF4(p[1])<<4
	}
	if n%2 == 1 {
		d[n/2] = f64ToF4(s[n-1])
	}
}

// f4Index is the DOUBLE x's index in f4Top15: its top 15 bits (sign,
// exponent, three significand bits), the last or'ed with whether any bit
// below is set. That is f64ToF4's index (less its constant offset, whose
// bits below 49 are zero and bit 49 clear) with the sign on top, and below
// 2^63 before the shift, so the lookup needs no bounds check, no clamp and
// no sign step: DOUBLE → FLOAT4E2M1 0.48 → 1.01 elements/ns (Zen 3).
func f4Index(x uint64) uint64 { return (x | (x&f4Drop + f4Drop)) >> 49 }

// f4Top15 returns the FLOAT4E2M1 code of every f4Index, built on first
// use: f64ToF4 of the index's own bits, which index f64ToF4's table where
// every DOUBLE of that index does.
var f4Top15 = sync.OnceValue(func() *[1 << 15]uint8 {
	t := new([1 << 15]uint8)
	for j := range t {
		t[j] = f64ToF4(uint64(j) << 49)
	}
	return t
})

// FLOAT4E2M1 straight from a DOUBLE's bits, with no 64 KiB table: only
// magnitudes from 0.25 (bits f4Low) to below 8 need telling apart (0.25
// and below give 0, its tie going to the even code; 5 and above 6, code
// 7, as do ±Inf). The magnitude a less f4Low, clamped at 0 from below,
// counts binades of 2^52 from 0.25; its bits from 49 up are the binade and
// three significand bits, and or'ed with whether any bit below is set, that
// is the value rounded to odd at 3 significand bits, two more than any
// FLOAT4E2M1 binade keeps, so its round to nearest even is the DOUBLE's
// (plan.go's argument). f64ToF4Codes holds the code of every such index,
// up to the NaNs: entries below 40 the code of the one exact value of
// their class, 40 (8.0) to f4Inf (±Inf, no bit dropped) 7, and above that
// (NaN: the exponent is all ones and some bit is set) 0x8, which the sign
// (bit 3 of the code, or'ed in) leaves as it is. With no upper clamp and
// no NaN test the loop has no branch and few live values:
// 0.44 → 0.48 → about 0.6 elements/ns (Zen 4) against BFLOAT16's round
// to odd (f64OddBF16) and the 64 KiB table, which this pair no longer
// builds; the first version, with both clamps, spilled registers.
const (
	f4Low  = 0x3FD0000000000000 // 0.25
	f4Drop = 1<<49 - 1
	f4Inf  = (0x7FF0000000000000 - f4Low) >> 49
)

var f64ToF4Codes = func() (t [(0x7FFFFFFFFFFFFFFF-f4Low)>>49 + 1]uint8) {
	if f4Inf&1 != 0 { // a NaN whose payload is below bit 49 rounds to odd past ±Inf's even index
		panic("tensorcast: f4Inf is odd")
	}
	for j := range t {
		switch {
		case j < 40:
			t[j] = f32ToF4(f64ToF32Odd(f4Low + uint64(j)<<49))
		case j <= f4Inf:
			t[j] = 7
		default:
			t[j] = 0x8
		}
	}
	return t
}()

func f64ToF4(x uint64) uint8 {
	t := int64(x&^(1<<63) - f4Low)
	t &^= t >> 63 // max(t, 0), with no branch: min and max compile to branches here
	return f64ToF4Codes[uint64(t|(t&f4Drop+f4Drop))>>49] | uint8(x>>60)&8
}
