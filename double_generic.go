package tensorcast

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

func init() {
	registerTierStage("generic", Double, Float16, func(dst, src []byte, n int) {
		float64ToHalf(view[uint16](dst, n), view[uint64](src, n), f64ToF16Table, 0x7E00, 0x3FF) // quiet, top payload bits
	})
	registerTierStage("generic", Double, BFloat16, func(dst, src []byte, n int) {
		float64ToHalf(view[uint16](dst, n), view[uint64](src, n), f64ToBF16Table, 0x7FC0, 0)
	})
}
