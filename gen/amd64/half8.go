package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// half8 emits the AVX2 kernel of BFLOAT16 → the float8 types
// (bf16ToF8AVX2, every type, as p describes) on 16-bit lanes, 16 per
// vector, where narrowToF8 widens to float32 lanes for everything (8 per
// vector). (FLOAT16 → the E4M3 types is on bytes, f16e4m3.go; → the E5M2
// types is f16ToE5M2's.) With a = |x| (the 16-bit magnitude), d = 7 - m the
// mantissa bits the target drops and A the difference of the exponent
// biases in a's units:
//
//	normal: r = (a - A + 2^(d-1) - 1 + (a>>d)&1) >> d, at most p's overflow
//	        byte (saturation or the mode's overflow code; ±Inf too)
//	NaN (a above Inf's bits): p's nan byte
//	subnormal (a below the smallest normal's bits): the float32 of a
//	        plus p's magic rounds to the subnormal grid, and its bits less
//	        the magic's are the code (8: the smallest normal).
//
// as f32ToF8 computes them on the float32 lanes of the same values. The
// codes are packed to bytes and the signs added after: VPACKSSWB of the
// source words gives each element's sign in its byte's bit 7 (FNUZ: only
// where the code is not 0; its NaN 0x80 has it anyway).
func half8(a *Asm) {
	a.Func("bf16ToF8AVX2", AVX2, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
		"converts n BFLOAT16 to a float8 type as p describes. n is a multiple of 32.")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	word := a.WordOf
	limit := word(func(r GPVirtual) { a.MOVL(Mem{Base: p, Disp: f8Overflow}, r) })
	nan := word(func(r GPVirtual) { a.MOVL(Mem{Base: p, Disp: f8NaN}, r) })
	minN := word(func(r GPVirtual) { // the smallest normal's bits in the source format
		a.MOVL(Mem{Base: p, Disp: f8MinNormal}, r)
		a.SHRL(U8(16), r)
	})
	magic := a.Splat32(Mem{Base: p, Disp: f8Magic})
	w16 := func(v uint16) Op { return a.Splat(uint32(v) * 0x00010001) }
	inf := uint16(0x7F80)
	// One loop per target mantissa width (E4M3 and E5M2), each with and
	// without FNUZ's sign rule.
	type variant struct {
		m    int
		fnuz bool
	}
	var vs []variant
	for _, m := range []int{3, 2} {
		for _, fnuz := range []bool{false, true} {
			vs = append(vs, variant{m, fnuz})
		}
	}
	label := func(v variant) string {
		l := fmt.Sprintf("m%d", v.m)
		if v.fnuz {
			l += "fnuz"
		}
		return l
	}
	sel := a.GP32()
	for _, v := range vs[1:] {
		// shift = 23 - m; signedZero = 0 for FNUZ
		a.CMPL(Mem{Base: p, Disp: f8Shift}, U8(23-v.m))
		skip := a.NewLabel("next")
		a.JNE(LabelRef(skip))
		a.MOVL(Mem{Base: p, Disp: f8SignedZero}, sel)
		a.CMPL(sel, U8(0))
		if v.fnuz {
			a.JE(LabelRef(label(v)))
		} else {
			a.JNE(LabelRef(label(v)))
		}
		a.Label(skip)
	}
	for i, v := range vs {
		if i > 0 {
			a.Label(label(v))
		}
		if v.m == 2 {
			half8E5M2(a, v.fnuz, label(v)+"_", dst, src, n, limit, nan, minN, magic)
			continue
		}
		drop := 7 - v.m
		k := word(func(r GPVirtual) { // 2^(d-1) - 1 - A, A = (127 - bias) << 7
			a.MOVL(Mem{Base: p, Disp: f8ExpAdjust}, r) // (127 - bias) << m
			a.SHLL(U8(7-v.m), r)
			a.NEGL(r)
			a.ADDL(U32(1<<(drop-1)-1), r)
		})
		a.StreamNamed(label(v)+"_", Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
			var rs, xs [2]VecVirtual
			for h := range rs {
				x, ab, l, r := a.Vec(), a.Vec(), a.Vec(), a.Vec()
				a.VMOVDQU(s.Src.Offset(32*h), x)
				a.VPAND(w16(0x7FFF), x, ab)
				a.VPSRLW(U8(drop), ab, l)
				a.VPAND(w16(1), l, l)
				a.VPADDW(k, ab, r)
				a.VPADDW(l, r, r)
				a.VPSRLW(U8(drop), r, r)
				a.VPMINUW(limit, r, r)
				m := a.Vec()
				a.VPCMPGTW(w16(inf), ab, m) // a ≤ 0x7FFF: the signed compare does
				a.VPBLENDVB(m, nan, r, r)
				half8Subnormal(a, ab, r, magic, minN)
				rs[h], xs[h] = r, x
			}
			s.Store(a.packCodes(rs, []Op{xs[0], xs[1]}, v.fnuz), s.Dst, 8, nil)
		})
	}
}

// half8E5M2 is half8's loop for the E5M2 types (FNUZ: bias 16, else 15),
// with the rare lanes out of line: the normal rule with the bias
// subtracted with saturation, so that every magnitude at or below half
// the smallest subnormal, 2^(-bias-2) (zero included), gives 0 as the
// type does; where a vector holds a NaN or a magnitude between that and
// the smallest normal (the subnormal results, which normally distributed
// data meets about once in 10^4 elements: E5M2's normal range reaches
// 2^-14), both are fixed after as half8 computes them. Thirteen
// instructions per 16 elements in line against eighteen. (The E4M3
// types' subnormal window, from 2^-10 to 2^-6, holds about 1% of such
// data, a branch that would mispredict.)
func half8E5M2(a *Asm, fnuz bool, name string, dst, src, n GPVirtual, limit, nan, minN, magic VecVirtual) {
	const m, drop, inf = 2, 5, 0x7F80
	bias := 15
	if fnuz {
		bias = 16
	}
	w16 := func(v int) Op { return a.Splat(uint32(v) * 0x00010001) }
	bexp := (127 - bias) << 7     // the bias difference, in a's units
	tiny := (127 - bias - m) << 7 // half the smallest subnormal
	a.StreamNamed(name, Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
		var rs, abs [2]VecVirtual
		var x0, bad VecVirtual
		for h := range rs {
			x, ab, l, r := a.Vec(), a.Vec(), a.Vec(), a.Vec()
			a.VMOVDQU(s.Src.Offset(32*h), x)
			if h == 0 {
				x0 = x
			}
			a.VPAND(w16(0x7FFF), x, ab)
			a.VPSRLW(U8(drop), ab, l)
			a.VPAND(w16(1), l, l)
			a.VPADDW(w16(1<<(drop-1)-1), ab, r)
			a.VPADDW(l, r, r)
			a.VPSUBUSW(w16(bexp), r, r) // 0 at and below half the smallest subnormal
			a.VPSRLW(U8(drop), r, r)
			a.VPMINUW(limit, r, r)
			w, t := a.Vec(), a.Vec()
			a.VPCMPGTW(w16(tiny), ab, w)
			a.VPCMPGTW(ab, minN, t)
			a.VPAND(t, w, w)            // the subnormal window
			a.VPCMPGTW(w16(inf), ab, t) // NaN
			a.VPOR(t, w, w)
			if h == 0 {
				bad = w
			} else {
				a.VPOR(w, bad, bad)
			}
			rs[h], abs[h] = r, ab
		}
		a.VPTEST(bad, bad)
		a.divert(func() {}, func() {
			for h, r := range rs {
				ab, t := abs[h], a.Vec()
				a.VPCMPGTW(w16(inf), ab, t)
				a.VPBLENDVB(t, nan, r, r)
				half8Subnormal(a, ab, r, magic, minN)
			}
		})
		s.Store(a.packCodes(rs, []Op{x0, s.Src.Offset(32)}, fnuz), s.Dst, 8, nil)
	})
}

// packCodes packs the codes of two vectors of 16 words (each below 0x100)
// to 32 bytes, in order, and ors in the sign of each source word of xs
// (the first a register; none where xs is nil) as bit 7: VPACKSSWB of the
// words puts each sign in its byte's bit 7, in the codes' order. With
// fnuz, a code 0 takes no sign (the FNUZ types have no -0).
func (a *Asm) packCodes(rs [2]VecVirtual, xs []Op, fnuz bool) VecVirtual {
	a.VPACKUSWB(rs[1], rs[0], rs[0])
	if xs != nil {
		sg := a.Vec()
		a.VPACKSSWB(xs[1], xs[0], sg)
		a.VPAND(a.Splat(0x80808080), sg, sg)
		if fnuz {
			a.VPSIGNB(rs[0], sg, sg) // none where the code is 0 (no -0); NaN's 0x80 reads as negative, and -0x80 = 0x80
		}
		a.VPOR(sg, rs[0], rs[0])
	}
	a.VPERMQ(U8(0b11_01_10_00), rs[0], rs[0])
	return rs[0]
}

// half8Subnormal sets the lanes of r whose magnitude ab is below the
// smallest normal's bits (minN) to their subnormal codes: the float32 of
// ab (the even words shifted into the high halves, the odd ones masked
// there) plus p's magic rounds to the subnormal grid, and as the magic is
// a power of two, the sum's low word is the code. The odd codes shifted up
// and blended over the even ones give the words in place: eight
// instructions, where unpacking, subtracting the magic and packing took
// nine.
func half8Subnormal(a *Asm, ab, r, magic, minN VecVirtual) {
	even, odd, m := a.Vec(), a.Vec(), a.Vec()
	a.VPSLLD(U8(16), ab, even)
	a.VPAND(a.Splat(0xFFFF0000), ab, odd)
	a.VADDPS(magic, even, even)
	a.VADDPS(magic, odd, odd)
	a.VPSLLD(U8(16), odd, odd)
	a.VPBLENDW(U8(0xAA), odd, even, even)
	a.VPCMPGTW(ab, minN, m)
	a.VPBLENDVB(m, even, r, r)
}
