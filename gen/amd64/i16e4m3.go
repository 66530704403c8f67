package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// i16ToE4M3 emits the AVX-512 (VBMI) INT16 and UINT16 → FLOAT8E4M3FN and
// FLOAT8E4M3FNUZ kernels: two 128-entry tables of codes, looked up with
// VPERMI2B on 16-bit lanes, instead of a route through float32 lanes (two
// conversions and two word permutes per 32 elements before the float8
// algorithm).
//
// The magnitude m = |v| (UINT16: v) is clamped to 511: every value from
// 464 on overflows both types, so the clamp keeps the code. An integer is
// never below the smallest normal, and FLOAT8E4M3FN and FLOAT8E4M3FNUZ keep
// three significand bits, so below 128 (t[0:128], indexed by m) the code is
// exact per entry, and from 128 on the grid is 16 or more: the index
// j = m>>2 rounded to odd (or'ed with whether m&3 is not zero) keeps two
// bits below the grid, and round to nearest even of that is the rounding
// of m (the odd bit stands for the dropped ones; plan.go's argument), so
// t[128+j] is the code of 4j. The indices sit in the high byte of each
// word (m<<8, and m<<6 with the sticky bit carried into bit 8 by adding
// 0xFF to the low byte), the words with m > 127 take
// the second lookup, and INT16's sign is or'ed into bit 15: a negative
// integer's code is never zero, and every code with the sign is the
// reference's (overflow of FLOAT8E4M3FN to NaN becomes 0xFF; FNUZ's NaN
// 0x80 stays 0x80). The Go side (f8int16_amd64.go) builds t for each
// Options mode from the portable FLOAT kernel and uses the kernels for
// these two targets only.
func i16ToE4M3(a *Asm) {
	for _, signed := range []bool{true, false} {
		name := "u16ToE4M3AVX512"
		if signed {
			name = "i16ToE4M3AVX512"
		}
		a.Func(name, AVX512, "func(dst *uint8, src *uint16, n int, t *[256]uint8)",
			"converts n elements to FLOAT8E4M3FN or FLOAT8E4M3FNUZ codes by the two tables t (gen/amd64/i16e4m3.go).")
		a.Needs("AVX512VBMI") // VPERMI2B, VPERMT2B
		dst, src, n := a.Args()
		tp := a.GP64()
		a.Context.Load(a.Param("t"), tp)
		var tab [4]VecVirtual
		for i := range tab {
			tab[i] = a.Vec()
			a.VMOVDQU64(Mem{Base: tp, Disp: 64 * i}, tab[i])
		}
		most, lowByte, bit8, small, sgn := a.Const16(511), a.Const16(0xFF), a.Const16(0x100), a.Const16(127), a.Const16(0x8000)
		highs := a.ConstBytes("oddbytes", seq8(1, 2, 64))
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
			var ws [2]VecVirtual
			for h := range ws {
				v, m := a.Vec(), a.Vec()
				a.VLoad(v, st.Src.Offset(64*h), 16, st.M(1, 32*h))
				if signed {
					a.VPABSW(v, m)
					a.VPMINUW(most, m, m)
				} else {
					a.VPMINUW(most, v, m)
				}
				lo, hi := a.Vec(), a.Vec()
				a.VPSLLW(U8(8), m, lo)
				a.VPERMI2B(tab[1], tab[0], lo) // t[m] in the high byte, for m < 128
				a.VPSLLW(U8(6), m, hi)         // m>>2 in the high byte, m&3 in bits 6-7
				c := a.Vec()
				a.VPADDW(lowByte, hi, c)
				// Round to odd: the carry out of a non-zero low byte flips bit 8.
				a.VPTERNLOGD(Tern(func(h, c, b uint8) uint8 { return h | (c^h)&b }), bit8, c, hi)
				a.VPERMI2B(tab[3], tab[2], hi)
				big := a.K()
				a.VPCMPUW(U8(cmpGT), small, m, big)
				a.VMOVDQU16(hi, big, lo)
				if signed {
					a.VPTERNLOGD(Tern(func(w, v, s uint8) uint8 { return w | v&s }), sgn, v, lo)
				}
				ws[h] = lo
			}
			a.VPERMT2B(ws[1], highs, ws[0])
			st.Store(ws[0], st.Dst, 8, st.M(1, 0))
		})
	}
}

// i16ToE4M3F16C emits the AVX2 INT16 and UINT16 → FLOAT8E4M3FN and
// FLOAT8E4M3FNUZ kernels (i16ToE4M3AVX2, u16ToE4M3AVX2), which read the
// float8Params p of either type. They convert each integer to FLOAT16 by
// VCVTDQ2PS and VCVTPS2PH (nearest even), which is exact for every
// magnitude up to 2048 and keeps every larger one at 2048 or more (±Inf
// from 65520 on), beyond both types' range (they overflow from 464): so
// the FLOAT16 h rounds as the integer does. Then, on 16-bit lanes, with a
// = |h| and A = (15 - bias) << 10 (bias from p's expAdjust):
//
//	t = a - A, saturated at 0   (0 stays 0: an integer is 0 or at least 1.0,
//	                             a normal number of either type)
//	r = (t + 63 + (t>>7)&1) >> 7, at most p's overflow byte (saturation,
//	    or NaN where the mode does not saturate)
//
// and INT16's sign is or'ed into bit 7 after the codes are packed to bytes
// (VPACKSSWB of the source words gives each element's sign in its byte's bit
// 7, in the codes' order); FLOAT8E4M3FN's NaN becomes 0xFF, FNUZ's 0x80
// stays, as the reference has them. About 36 instructions per 32 elements
// (31 for UINT16), where the fused route through float32 lanes (narrowToF8)
// takes about 84.
func i16ToE4M3F16C(a *Asm) {
	for _, signed := range []bool{true, false} {
		name := "u16ToE4M3AVX2"
		if signed {
			name = "i16ToE4M3AVX2"
		}
		a.Func(name, AVX2, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
			"converts n elements to FLOAT8E4M3FN or FLOAT8E4M3FNUZ as p describes (gen/amd64/i16e4m3.go).")
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		adj := a.WordOf(func(r GPVirtual) { // (15 - bias) << 10 = ((expAdjust >> 3) - 112) << 10
			a.MOVL(Mem{Base: p, Disp: f8ExpAdjust}, r)
			a.SHRL(U8(3), r)
			a.SUBL(U8(112), r)
			a.SHLL(U8(10), r)
		})
		limit := a.WordOf(func(r GPVirtual) { a.MOVL(Mem{Base: p, Disp: f8Overflow}, r) })
		w16 := func(v uint16) Op { return a.Splat(uint32(v) * 0x00010001) }
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			var rs [2]VecVirtual
			for h := range rs {
				x := a.int16Halves(s.Src.Offset(32*h), signed, nil)
				ab := x
				if signed {
					ab = a.Vec()
					a.VPAND(w16(0x7FFF), x, ab)
				}
				t, l := a.Vec(), a.Vec()
				a.VPSUBUSW(adj, ab, t)
				a.VPSRLW(U8(7), t, l)
				a.VPAND(w16(1), l, l)
				a.VPADDW(w16(63), t, t)
				a.VPADDW(l, t, t)
				a.VPSRLW(U8(7), t, t)
				a.VPMINUW(limit, t, t)
				rs[h] = t
			}
			s.Store(a.packCodes(rs, a.signedSource(s, signed), false), s.Dst, 8, nil)
		}))
	}
}

// int16Halves returns the FLOAT16 of the 16 INT16 (signed) or UINT16
// elements at m, in order: each 8 widened to float32 (VPMOVSXWD or
// VPMOVZXWD, VCVTDQ2PS), replaced by round(v) where round is not nil,
// converted by VCVTPS2PH to nearest even.
func (a *Asm) int16Halves(m Mem, signed bool, round func(v VecVirtual) VecVirtual) VecVirtual {
	var hs [2]VecVirtual
	for q := range hs {
		v := a.Vec()
		if signed {
			a.VPMOVSXWD(m.Offset(16*q), v)
		} else {
			a.VPMOVZXWD(m.Offset(16*q), v)
		}
		a.VCVTDQ2PS(v, v)
		if round != nil {
			v = round(v)
		}
		hs[q] = a.XMM()
		a.VCVTPS2PH(U8(0), v, hs[q])
	}
	x := a.Vec()
	a.VINSERTI128(U8(1), hs[1], hs[0].AsY(), x)
	return x
}

// signedSource returns the step's 32 source words as two vectors for
// packCodes' signs, or nil for an unsigned source.
func (a *Asm) signedSource(s *Step, signed bool) []Op {
	if !signed {
		return nil
	}
	x0 := a.Vec()
	a.VMOVDQU(s.Src, x0)
	return []Op{x0, s.Src.Offset(32)}
}
