package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// half8 emits the AVX2 kernels of BFLOAT16 → the float8 types
// (bf16ToF8AVX2, every type, as p describes) and FLOAT16 → FLOAT8E4M3FN and
// FLOAT8E4M3FNUZ (f16ToE4M3AVX2; the E5M2 types have f16ToE5M2's), on
// 16-bit lanes, 16 per vector, where narrowToF8 widens to float32 lanes for
// everything (8 per vector). With a = |x| (the 16-bit magnitude), d the
// mantissa bits the target drops (BFLOAT16: 7 - m, FLOAT16: 10 - m) and A
// the difference of the exponent biases in a's units:
//
//	normal: r = (a - A + 2^(d-1) - 1 + (a>>d)&1) >> d, at most p's overflow
//	        byte (saturation or the mode's overflow code; ±Inf too)
//	NaN (a above Inf's bits): p's nan byte
//	subnormal (a below the smallest normal's bits): the float32 of a (the
//	        unpacks with zero) plus p's magic rounds to the subnormal grid,
//	        and its bits less the magic's are the code (8: the smallest
//	        normal). FLOAT16 bits shifted left by 13 are its value times
//	        2^-112, and so is the magic there (its exponent less 112), which
//	        rounds the same; a FLOAT16 subnormal is first raised to 2^-14
//	        (VPMAXUW), which keeps its code 0 (both E4M3 types round
//	        everything below 2^-11 to 0) and keeps float32 subnormals, with
//	        their slow paths on some CPUs, out of the addition. VCVTPH2PS
//	        with a VEXTRACTI128 and a VPERMQ measured slower (Zen 4:
//	        0.24–0.27 against 0.29–0.30× copy()).
//
// as f32ToF8 computes them on the float32 lanes of the same values. The
// codes are packed to bytes and the signs added after: VPACKSSWB of the
// source words gives each element's sign in its byte's bit 7 (FNUZ: only
// where the code is not 0; its NaN 0x80 has it anyway).
func half8(a *Asm) {
	a.Func("bf16ToF8AVX2", AVX2, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
		"converts n BFLOAT16 to a float8 type as p describes. n is a multiple of 32.")
	half8Body(a, true)
	a.Func("f16ToE4M3AVX2", AVX2, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
		"converts n FLOAT16 to FLOAT8E4M3FN or FLOAT8E4M3FNUZ as p describes. n is a multiple of 32.")
	half8Body(a, false)
}

func half8Body(a *Asm, bf16 bool) {
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	word := a.WordOf
	limit := word(func(r GPVirtual) { a.MOVL(Mem{Base: p, Disp: f8Overflow}, r) })
	nan := word(func(r GPVirtual) { a.MOVL(Mem{Base: p, Disp: f8NaN}, r) })
	minN := word(func(r GPVirtual) { // the smallest normal's bits in the source format
		a.MOVL(Mem{Base: p, Disp: f8MinNormal}, r)
		if bf16 {
			a.SHRL(U8(16), r)
			return
		}
		a.SHRL(U8(23), r)
		a.SUBL(U8(112), r)
		a.SHLL(U8(10), r)
	})
	magic := a.Splat32(Mem{Base: p, Disp: f8Magic})
	if !bf16 { // the FLOAT16 bits << 13 are the value times 2^-112: so is the magic
		a.VPSUBD(a.Splat(112<<23), magic, magic)
	}
	w16 := func(v uint16) Op { return a.Splat(uint32(v) * 0x00010001) }
	inf := uint16(0x7C00)
	if bf16 {
		inf = 0x7F80
	}
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	// One loop per target mantissa width (BFLOAT16: E4M3 and E5M2; FLOAT16:
	// E4M3 only), each with and without FNUZ's sign rule.
	type variant struct {
		m    int
		fnuz bool
	}
	var vs []variant
	for _, m := range []int{3, 2} {
		if m == 2 && !bf16 {
			continue
		}
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
		drop := 10 - v.m
		if bf16 {
			drop = 7 - v.m
		}
		k := word(func(r GPVirtual) { // 2^(d-1) - 1 - A, A = (127 - bias) << 7 (BFLOAT16) or (15 - bias) << 10
			a.MOVL(Mem{Base: p, Disp: f8ExpAdjust}, r) // (127 - bias) << m
			if bf16 {
				a.SHLL(U8(7-v.m), r)
			} else {
				a.SHRL(U8(v.m), r)
				a.SUBL(U8(112), r)
				a.SHLL(U8(10), r)
			}
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
				// Subnormal results, from the float32 values.
				lo, hi, w := a.Vec(), a.Vec(), ab
				if !bf16 {
					w = a.Vec()
					a.VPMAXUW(w16(0x400), ab, w) // no FLOAT16 subnormal: see half8
				}
				a.VPUNPCKLWD(w, zero, lo) // elements 0-3 and 8-11, in the high halves
				a.VPUNPCKHWD(w, zero, hi) // 4-7 and 12-15
				for _, f := range []VecVirtual{lo, hi} {
					if !bf16 {
						a.VPSRLD(U8(3), f, f)
					}
					a.VADDPS(magic, f, f)
					a.VPSUBD(magic, f, f)
				}
				a.VPACKUSDW(hi, lo, lo) // in order
				a.VPCMPGTW(ab, minN, m)
				a.VPBLENDVB(m, lo, r, r)
				rs[h], xs[h] = r, x
			}
			s.Store(a.packCodes(rs, []Op{xs[0], xs[1]}, v.fnuz), s.Dst, 8, nil)
		})
	}
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
			z := a.Vec()
			a.VPCMPEQB(a.Splat(0), rs[0], z)
			a.VPANDN(sg, z, sg) // no -0
		}
		a.VPOR(sg, rs[0], rs[0])
	}
	a.VPERMQ(U8(0b11_01_10_00), rs[0], rs[0])
	return rs[0]
}
