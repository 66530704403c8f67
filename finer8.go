package tensorcast

// Finer float8: the table of a float8 type to one with more significand
// bits and a smaller exponent range (FLOAT8E5M2 or FLOAT8E5M2FNUZ →
// FLOAT8E4M3FN or FLOAT8E4M3FNUZ) is an affine map of the magnitude
// between two ends. With m = x & 0x7F (exponent field e and two significand
// bits f, m = 4e + f):
//
//   - where both types have normal values, the target's code is its
//     exponent field, e less the difference of the biases, and f with a
//     zero appended: 2·(m - sub) for a constant sub;
//   - below, the source's values land on the target's subnormal grid and
//     round there: 16 magnitudes at most give a code other than 0 (four
//     binades of four values; anything smaller is at most half the
//     smallest subnormal), looked up in low[m - base];
//   - above, everything overflows: min(…, limit), the saturation or NaN
//     code.
//
// So that, for every byte x,
//
//	code = max(low[m - base] (0 where m < base), min(2·max(m - sub, 0), limit))
//	NaN inputs (m > nanAbove; the byte 0x80 where nanByte is 1): code = nan
//	the sign x & 0x80 or'ed in (signZero 0: only where code is not 0)
//
// where the max works because low's codes are below the normal ones and
// 2·max(m - sub, 0) is below low's codes where those apply; finerShape
// finds the description and checks it on all 256 bytes. FLOAT8E8M0 → the
// four float8 types is the same with m = x (no sign; NaN: 0xFF) and
// 4·max(m - sub, 0) or 8·… (a power of two has no significand bits: the
// target's exponent field alone moves). On AVX2 that is 9 to 13
// instructions per 32 bytes (gen/amd64/finer8.go), where the
// general 256-entry lookup takes sixteen VPSHUFB and fifteen VPBLENDVB.
// (Low's lookup is VPSHUFB, which gives 0 for an index with bit 7 set: m <
// base; for m ≥ base + 16 it reads low[(m - base) & 15], which the max must
// hide, and finerShape checks that it does.)

// finerShape returns the finer-float8 description of the table t of an
// 8-bit source, or nil where there is none. sub comes from the first
// magnitude whose code is clearly normal (16 or more: past low's), base
// from the first whose code is not 0; every variant is checked on all 256
// bytes. whole says the source is FLOAT8E8M0 (see finer8Params).
func finerShape(t []uint8, whole bool) *finer8Params {
	top := 128 // magnitudes
	if whole {
		top = 256
	}
	first := func(ok func(c uint8) bool) int {
		for m := range top {
			if ok(t[m]) {
				return m
			}
		}
		return -1
	}
	m0, m1 := first(func(c uint8) bool { return c >= 16 && c < 0x7F }), first(func(c uint8) bool { return c != 0 })
	if m0 < 0 || m1 < 0 {
		return nil
	}
	shifts := []uint8{1}
	if whole {
		shifts = []uint8{2, 3}
	}
	for _, shift := range shifts {
		sub := m0 - int(t[m0]>>shift)
		if sub < 0 {
			continue
		}
		for _, v := range finerVariants(whole) {
			p := v
			p.sub, p.shift, p.nan = uint8(sub), shift, 0
			if nanIn := p.nanInput(); nanIn >= 0 {
				p.nan = t[nanIn] &^ v.nan
			}
			for m := sub; m < top; m++ {
				if !p.isNaN(uint8(m)) {
					p.limit = max(p.limit, t[m])
				}
			}
			pre := (int(p.limit) + 1<<shift - 1) >> shift
			if pre<<shift > 0xFF { // the kernel's word shift would carry into the next byte
				continue
			}
			p.pre = uint8(pre)
			for base := max(0, m1-15); base <= m1; base++ {
				p.base = uint8(base)
				for i := range 16 {
					p.low[i] = t[(base+i)&0xFF]
				}
				if p.covers(t) {
					return &p
				}
			}
		}
	}
	return nil
}

// finerVariants lists the NaN and sign rules finerShape tries (nan holds
// the bits to clear from the NaN input's code: 0x80 for "the code with the
// sign cleared").
func finerVariants(whole bool) []finer8Params {
	if whole {
		return []finer8Params{{whole: 1}}
	}
	var vs []finer8Params
	for _, nanByte := range []uint8{0, 1} {
		for _, nanAbove := range []uint8{0x7C, 0x7F} {
			for _, signZero := range []uint8{0, 1} {
				for _, nan := range []uint8{0, 0x80} {
					vs = append(vs, finer8Params{nanAbove: nanAbove, nanByte: nanByte, signZero: signZero, nan: nan})
				}
			}
		}
	}
	return vs
}

// nanInput is a byte that is a NaN input of p, or -1 if there is none.
func (p *finer8Params) nanInput() int {
	switch {
	case p.whole == 1:
		return 0xFF
	case p.nanByte == 1:
		return 0x80
	case p.nanAbove < 0x7F:
		return int(p.nanAbove) + 1
	}
	return -1
}

// finerTypes reports whether from → to may have a finer-float8
// description: the target is a float8 type with a sign bit, and so is the
// source, or it is FLOAT8E8M0.
func finerTypes(from, to DataType) bool {
	f8 := func(t DataType) bool {
		switch t {
		case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
			return true
		}
		return false
	}
	return (f8(from) || from == Float8E8M0) && f8(to)
}

// isNaN reports whether the byte x is a NaN input of the description.
func (p *finer8Params) isNaN(x uint8) bool {
	if p.whole == 1 {
		return x == 0xFF
	}
	return x&0x7F > p.nanAbove || p.nanByte == 1 && x == 0x80
}

// at is the description's value for the byte x, in the kernel's order.
func (p *finer8Params) at(x uint8) uint8 {
	m := x & 0x7F
	if p.whole == 1 {
		m = x
	}
	var lo uint8
	if i := m - p.base; i&0x80 == 0 {
		lo = p.low[i&15]
	}
	h := m - min(m, p.sub)
	if p.whole == 1 {
		h = min(h, p.pre)
	}
	c := max(lo, min(h<<p.shift, p.limit))
	if p.isNaN(x) {
		c = p.nan
	}
	if p.whole == 0 && (p.signZero == 1 || c != 0) {
		c |= x & 0x80
	}
	return c
}

// covers reports whether p gives t on every byte.
func (p *finer8Params) covers(t []uint8) bool { return covers(p, t) }

// finerGeneric is the portable finer-float8 kernel (the AVX2 wrapper's
// rest).
func finerGeneric(dst []uint8, src []uint8, p *finer8Params) { mapBytes(dst, src, p) }
