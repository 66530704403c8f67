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
		// per 32.
		highs, sgn := a.ConstBytes("oddbytes", seq8(1, 2, 64)), a.Const8(0x80)
		or := Tern(func(c, h, s uint8) uint8 { return c | h&s })
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(s *Step) {
			var ws, vs [2]VecVirtual
			for h := range 2 {
				vs[h] = a.Vec()
				a.VLoad(vs[h], s.Src.Offset(64*h), 16, s.M(1, 32*h))
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
		})
		return
	}
	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
		var ws [2]VecVirtual
		for h := range 2 {
			v := a.Vec()
			a.VMOVDQU(s.Src.Offset(32*h), v)
			ws[h] = code(v)
		}
		a.VPACKUSWB(ws[1], ws[0], ws[0])
		a.VPERMQ(U8(0b11_01_10_00), ws[0], ws[0])
		s.Store(ws[0], s.Dst, 8, nil)
	}))
}
