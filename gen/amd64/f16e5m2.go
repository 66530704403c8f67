package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f16ToE5M2 emits FLOAT16 → FLOAT8E5M2 and → FLOAT8E5M2FNUZ on 16-bit
// lanes, in integer arithmetic only (no widening to float32, which the
// other float8 types need).
//
// FLOAT8E5M2 has FLOAT16's exponent (5 bits, bias 15) and the top 2 of its
// 10 mantissa bits, and the same subnormals scaled: its code is the FLOAT16
// magnitude a rounded to nearest even at bit 8, x = a, code = round(x/256).
//
// FLOAT8E5M2FNUZ has bias 16: a normal FLOAT16 (a ≥ 0x400) gains one in the
// exponent field, x = a + 0x400; a subnormal one, m·2^-24, is m·2^-25·2 in
// the code's units of 2^-17/256, x = 2a, whether it lands on a FNUZ normal
// (a ≥ 512, exponent field 1) or subnormal. Both are x = a + min(a, 0x400).
//
// Rounding is f32ToF8W's: VPAVGW(x, lsb | 0x7E) = (x + 0x7F + lsb) >> 1,
// then min with (overflow << 7) | 0x7F (which also takes ±Inf, x ≥ 0x7C00,
// to the overflow byte of p), then << 1 puts the code in the high byte of
// each word (AVX2: >> 7 in the low byte). NaN (a > 0x7C00) takes p's nan
// byte; the sign is or'ed in (FNUZ: only where the code is not 0, as that
// type has no -0; its NaN 0x80 has the sign bit set anyway): AVX2 on words
// where a > 0x40, AVX-512 on bytes after the gather.
func f16ToE5M2(a *Asm) {
	for _, fnuz := range []bool{false, true} {
		for _, isa := range []ISA{AVX2, AVX512} {
			name := "f16ToE5M2"
			if fnuz {
				name += "FNUZ"
			}
			doc := "converts n FLOAT16 to FLOAT8E5M2 with p's overflow and nan bytes."
			if fnuz {
				doc = "converts n FLOAT16 to FLOAT8E5M2FNUZ with p's overflow and nan bytes."
			}
			if isa == AVX2 {
				doc += " n is a multiple of 32."
			}
			a.Func(name+isa.String(), isa, "func(dst *uint8, src *uint16, n int, p *[8]uint32)", doc)
			if isa == AVX512 {
				a.Needs("AVX512VBMI") // VPERMT2B
			}
			a.f16ToE5M2Body(fnuz)
		}
	}
}

func (a *Asm) f16ToE5M2Body(fnuz bool) {
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	word := func(disp, shift int, add uint32) VecVirtual {
		r := a.GP32()
		a.MOVL(Mem{Base: p, Disp: disp}, r)
		a.SHLL(U8(shift), r)
		if add != 0 {
			a.ADDL(U32(add), r)
		}
		v := a.Vec()
		if a.isa == AVX512 {
			a.VPBROADCASTW(r, v)
		} else {
			x := a.XMM()
			a.VMOVD(r, x)
			a.VPBROADCASTW(x, v)
		}
		return v
	}
	limit := word(f8Overflow, 7, 0x7F)
	nanShift := 8
	if a.isa == AVX2 {
		nanShift = 0
	}
	nan := word(f8NaN, nanShift, 0)
	abs, one, k, inf := a.Const16(0x7FFF), a.Const16(1), a.Const16(0x7E), a.Const16(0x7C00)
	var minN, tiny VecVirtual
	if fnuz {
		minN = a.Const16(0x400)
		if a.isa == AVX2 {
			tiny = a.Const16(0x40)
		}
	}
	// code returns the words of v (FLOAT16) with the result byte in the high
	// byte (AVX-512) or the low byte (AVX2, the high byte zero).
	code := func(h VecVirtual) VecVirtual {
		ab, x, q, y := a.Vec(), a.Vec(), a.Vec(), a.Vec()
		a.And(abs, h, ab)
		x = ab
		if fnuz {
			x = a.Vec()
			a.VPMINUW(minN, ab, x)
			a.VPADDW(ab, x, x)
		}
		a.VPSRLW(U8(8), x, q)
		if a.isa == AVX512 {
			a.VPTERNLOGD(Tern(func(t, o, k uint8) uint8 { return t&o | k }), k, one, q)
		} else {
			a.And(one, q, q)
			a.Or(k, q, q)
		}
		a.VPAVGW(q, x, y)
		a.VPMINUW(limit, y, y)
		if a.isa == AVX512 { // the sign comes after the gather, on bytes
			a.VPSLLW(U8(1), y, y)
			isNaN := a.K()
			a.VPCMPUW(U8(cmpGT), inf, ab, isNaN)
			a.VMOVDQU16(nan, isNaN, y)
			return y
		}
		a.VPSRLW(U8(7), y, y)
		m, s := a.Vec(), a.Vec()
		a.VPCMPGTW(inf, ab, m) // a ≤ 0x7FFF: the signed compare does
		a.VPBLENDVB(m, nan, y, y)
		a.VPSRLW(U8(15), h, s)
		a.VPSLLW(U8(7), s, s)
		if fnuz {
			a.VPCMPGTW(tiny, ab, m)
			a.VPAND(m, s, s)
		}
		a.VPOR(s, y, y)
		return y
	}
	if a.isa == AVX512 {
		// The codes and the high bytes of the input (whose bit 7 is the
		// sign) are gathered into bytes by the same VPERMT2B; the sign is
		// or'ed into the codes there, and for FNUZ only into those that are
		// not 0 (its NaN, 0x80, keeps it anyway): two operations per 64
		// elements, and two more for FNUZ, where on words FNUZ took four
		// per 32. This is the general path (slow below), which runs out of
		// line for the blocks that fast does not take.
		highs, sgn := a.ConstBytes("oddbytes", seq8(1, 2, 64)), a.Const8(0x80)
		or := Tern(func(c, h, s uint8) uint8 { return c | h&s })
		// fast, for a block of 64 whose magnitudes all lie below 0x7B80
		// (61440, where both types' codes reach 0x7C: overflow, ±Inf and
		// NaN go to slow): the rounding keeps the sign, as no carry reaches
		// bit 15 there. With x = h (FNUZ: h + min(a, 0x400), as above,
		// the sign kept too), x + 0x7F + lsb has the signed code in its
		// high byte, no minimum needed (the code is at most 0x7B, FNUZ's
		// 0x7F); it is x - ^(lsb | 0x7E), one VPTERNLOGD and one VPSUBW
		// after the shift that brings lsb down. One gather, no sign
		// step but FNUZ's -0 (a code of 0x80 there is 0x00): about 8
		// cycles per 64 where slow takes about 14 (FNUZ 11 and 18).
		var big, low7 VecVirtual
		if fnuz {
			big, low7 = a.Const16(0x7B80), a.Const8(0x7F)
		} else {
			big = a.Const16(2 * 0x7B80) // compared with 2h: the magnitude, doubled
		}
		fast := func(s *Step, xs [2]VecVirtual) {
			var ys [2]VecVirtual
			for h := range 2 {
				t := a.Vec()
				a.VPSRLW(U8(8), xs[h], t)
				a.VPTERNLOGD(Tern(func(t, o, k uint8) uint8 { return ^(t&o | k) }), k, one, t)
				a.VPSUBW(t, xs[h], t)
				ys[h] = t
			}
			a.VPERMT2B(ys[1], highs, ys[0])
			c := ys[0]
			if fnuz {
				nz := a.K()
				a.VPTESTMB(low7, c, nz)
				a.VMOVDQU8_Z(c, nz, c)
			}
			s.Store(c, s.Dst, 8, s.M(1, 0))
		}
		slow := func(s *Step, vs [2]VecVirtual) {
			var ws [2]VecVirtual
			for h := range 2 {
				ws[h] = code(vs[h])
			}
			a.VPERMT2B(ws[1], highs, ws[0])
			a.VPERMT2B(vs[1], highs, vs[0])
			c := ws[0]
			if fnuz {
				nz, t := a.K(), a.Vec()
				a.VPTESTMB(c, c, nz)
				a.VMOVDQA64(c, t)
				a.VPTERNLOGD(or, sgn, vs[0], t)
				a.VMOVDQU8(t, nz, c)
			} else {
				a.VPTERNLOGD(or, sgn, vs[0], c)
			}
			s.Store(c, s.Dst, 8, s.M(1, 0))
		}
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(s *Step) {
			var vs, xs [2]VecVirtual
			for h := range 2 {
				vs[h] = a.Vec()
				a.VLoad(vs[h], s.Src.Offset(64*h), 16, s.M(1, 32*h))
			}
			hi, m := a.K(), a.Vec()
			if fnuz {
				for h := range 2 {
					xs[h] = a.Vec()
					a.VPANDD(abs, vs[h], xs[h])
				}
				a.VPMAXUW(xs[1], xs[0], m)
				for h := range 2 {
					a.VPMINUW(minN, xs[h], xs[h])
					a.VPADDW(vs[h], xs[h], xs[h])
				}
			} else {
				d := a.Vec()
				a.VPADDW(vs[0], vs[0], m)
				a.VPADDW(vs[1], vs[1], d)
				a.VPMAXUW(d, m, m)
				xs = vs
			}
			a.VPCMPUW(U8(cmpGE), big, m, hi)
			a.KORTESTD(hi, hi)
			a.divert(func() { fast(s, xs) }, func() { slow(s, vs) })
		})
		return
	}
	// AVX2: AVX-512's fast path (above) on two vectors, the code shifted
	// to the low byte of each word, whose bit 7 is then the sign, and
	// packed; x + 0x7F + lsb by two additions; the magnitudes tested
	// together (their signed maximum, one compare and VPTEST); FNUZ's -0
	// (0x80) cleared on the packed bytes. About 17 instructions per 32
	// elements where the general path (code, out of line) takes 28.
	big, b80 := a.Const16(0x7B7F), a.Splat(0x80808080)
	round := a.Const16(0x7F)
	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
		var vs, xs [2]VecVirtual
		for h := range 2 {
			vs[h], xs[h] = a.Vec(), a.Vec()
			a.VMOVDQU(s.Src.Offset(32*h), vs[h])
			a.VPAND(abs, vs[h], xs[h])
		}
		m := a.Vec()
		a.VPMAXSW(xs[1], xs[0], m)
		a.VPCMPGTW(big, m, m) // a ≥ 0x7B80 in some lane
		for h := range 2 {
			if fnuz {
				a.VPMINUW(minN, xs[h], xs[h])
				a.VPADDW(vs[h], xs[h], xs[h])
			} else {
				xs[h] = vs[h]
			}
		}
		r := a.Vec()
		a.VPTEST(m, m)
		a.divert(func() {
			var ys [2]VecVirtual
			for h := range 2 {
				t, y := a.Vec(), a.Vec()
				a.VPSRLW(U8(8), xs[h], t)
				a.VPAND(one, t, t)
				a.VPADDW(round, xs[h], y)
				a.VPADDW(t, y, y)
				a.VPSRLW(U8(8), y, y)
				ys[h] = y
			}
			a.VPACKUSWB(ys[1], ys[0], r)
			if fnuz {
				z := a.Vec()
				a.VPCMPEQB(b80, r, z)
				a.VPANDN(r, z, r)
			}
		}, func() {
			var ws [2]VecVirtual
			for h := range 2 {
				ws[h] = code(vs[h])
			}
			a.VPACKUSWB(ws[1], ws[0], r)
		})
		a.VPERMQ(U8(0b11_01_10_00), r, r)
		s.Store(r, s.Dst, 8, nil)
	}))
}
