package tensorcast

// Row rounding: the table of UINT8 to a float8 type rounds each byte m to
// the target's significand, to nearest even. Within a row
// of 16 bytes, h = m>>4 ≥ 1, every value lies in one binade, so the
// code is an affine function of m's rounding at one bit position:
//
//	y = m·mul[h]                      (m scaled so the position is bit shift; y < 2^8)
//	q = y / 2^shift, to nearest even  ((y + 2^(shift-1) - 1 + (y>>shift)&1) >> shift)
//	code = base[h] + q                (a carry out of the significand is the next binade's code)
//
// Row 0 spans several binades: its codes come from low[m] (mul and base
// are 0 there, so q is 0). Overflow (UINT8 → FLOAT8E4M3FNUZ: 248 and up
// round to 256) is min(code, limit), the saturation or NaN code. With
// GFNI that is 14 or 15 instructions per 32 bytes (gen/amd64/round8.go);
// without, the product and the byte shifts took 22, and class8.go's lookup
// tree (18) replaced it. roundShape finds the description and checks it on
// all 256 bytes.

//
// INT8 (signed): the same on the magnitude m = |x| (0..128; VPABSB gives
// 128 for -128), the sign bit of x or'ed into the code, where the table is
// so (every float8 type's code of -v is its code of v with the sign bit:
// no integer but 0 rounds to zero), with no limit (128 overflows no float8
// type): 17 instructions. The tables take it only where class8.go's INT8
// loop needs the parity bit (useOrm: the E5M2 types, 21 instructions):
// INT8 → E5M2/E5M2FNUZ 19 → 21 elements/ns, where for the E4M3 types
// class8's 19 ran 7-9% faster than this kernel (AVX2 on a Zen 4, A/B,
// three rounds; for UINT8, class8's 18 ran 11-19% slower than its 14).

// roundShape returns the row-rounding description of the table t of
// UINT8 (INT8 if signed) to an 8-bit target, or nil where there is none.
func roundShape(t []uint8, signed bool) *roundParams {
	maxM := 255
	want := func(m int) uint8 { return t[m] }
	limits := []uint8{0xFF, 0} // 0xFF: none
	if signed {
		maxM, limits = 128, limits[:1]
		want = func(m int) uint8 { return t[m] &^ 0x80 } // t[0x80] is -128's code
		for x := 1; x < 128; x++ {
			if t[256-x] != t[x]|0x80 {
				return nil
			}
		}
		if t[0x80]&0x80 == 0 {
			return nil
		}
	}
	for m := range maxM + 1 {
		limits[len(limits)-1] = max(limits[len(limits)-1], want(m))
	}
	for shift := uint8(2); shift <= 6; shift++ {
		for _, limit := range limits {
			p := &roundParams{shift: shift, half: 1<<(shift-1) - 2, mask: 0xFF >> (shift - 1), limit: limit}
			if signed {
				p.signed = 1
			}
			for m := range 16 {
				p.low[m] = want(m)
			}
			ok := true
			for h := 1; h <= maxM>>4 && ok; h++ {
				ok = false
				top := min(16*h+15, maxM)
				for mul := 1; mul <= 1<<shift && top*mul < 256 && !ok; mul *= 2 {
					p.mul[h], p.base[h] = uint8(mul), want(16*h)-p.round(uint8(16*h*mul))
					ok = true
					for m := 16 * h; m <= top; m++ {
						if p.mag(uint8(m)) != want(m) {
							ok = false
							break
						}
					}
				}
			}
			if ok && p.covers(t) {
				return p
			}
		}
	}
	return nil
}

// round is q: y/2^shift rounded to nearest even, as the kernel computes it
// (VPAVGB adds half + lsb + 1 and halves; the shift by shift-1 ends it).
func (p *roundParams) round(y uint8) uint8 {
	lsb := y >> p.shift & 1
	return uint8((int(y)+int(p.half|lsb)+1)>>1) >> (p.shift - 1) & p.mask
}

// at is the description's value for the byte x.
func (p *roundParams) at(x uint8) uint8 {
	if p.signed == 0 {
		return p.mag(x)
	}
	m := x
	if x >= 0x80 {
		m = -x // |x| as VPABSB gives it: 0x80 stays 0x80
	}
	return p.mag(m) | x&0x80
}

// mag is the description's code of the magnitude m (UINT8: the byte).
func (p *roundParams) mag(m uint8) uint8 {
	h := m >> 4
	c := p.base[h] + p.round(m*p.mul[h])
	if m < 16 {
		c += p.low[m]
	}
	return min(c, p.limit)
}

// covers reports whether p gives t on every byte.
func (p *roundParams) covers(t []uint8) bool { return covers(p, t) }

// roundGeneric is the portable row-rounding kernel (the AVX2 wrapper's
// rest).
func roundGeneric(dst []uint8, src []uint8, p *roundParams) { mapBytes(dst, src, p) }

// byteShape is a description of a table of 8-bit sources (roundParams,
// finer8Params): at is its value for the byte x, as its kernel computes it.
type byteShape interface{ at(x uint8) uint8 }

// covers reports whether the description p gives t on every byte.
func covers(p byteShape, t []uint8) bool {
	for x := range 256 {
		if p.at(uint8(x)) != t[x] {
			return false
		}
	}
	return true
}

// mapBytes sets dst[i] to p's value of src[i].
func mapBytes(dst, src []uint8, p byteShape) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = p.at(x)
	}
}
