package amd64

import (
	"fmt"

	"github.com/tensorcast/tensorcast/gen/layout"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Offsets of the finer8Params fields, from its declaration in params.go.
var (
	finerLow      = layout.Offset("finer8Params", "low")
	finerBase     = layout.Offset("finer8Params", "base")
	finerSub      = layout.Offset("finer8Params", "sub")
	finerLimit    = layout.Offset("finer8Params", "limit")
	finerNaNAbove = layout.Offset("finer8Params", "nanAbove")
	finerNaNByte  = layout.Offset("finer8Params", "nanByte")
	finerNaN      = layout.Offset("finer8Params", "nan")
	finerSignZero = layout.Offset("finer8Params", "signZero")
	finerWhole    = layout.Offset("finer8Params", "whole")
	finerShift    = layout.Offset("finer8Params", "shift")
	finerPre      = layout.Offset("finer8Params", "pre")
	finerSize     = layout.Size("finer8Params")
)

// finer8 emits finer8AVX2, the AVX2 lookup of the tables of a float8 type
// to one with more significand bits that finerShape (finer8.go) describes,
// 32 bytes a step:
//
//	m = x & 0x7F
//	c = max(VPSHUFB(low, m - base), min(2·(m - sub, saturated), limit))
//	NaN inputs (m > nanAbove, signed compare; or x = 0x80): c = nan
//	c |= x & 0x80 (signZero 0: only where c is not 0, VPSIGNB)
//
// 11 or 12 instructions; one loop for each of the four combinations of the
// NaN test (above, or the byte 0x80) and the sign rule. A fifth loop takes
// FLOAT8E8M0 (whole: the byte is the magnitude, 0xFF the NaN, no sign), whose
// normal codes are (m - sub) << shift, 2 or 3: the difference is clamped
// at pre first (pre << shift < 256, so VPSLLW moves no bit out of its
// byte), 9 instructions.
func finer8(a *Asm) {
	a.Func("finer8AVX2", AVX2, fmt.Sprintf("func(dst *uint8, src *uint8, n int, p *[%d]uint8)", finerSize),
		"sets dst[i] to the value p describes for src[i], for i < n (a multiple of Lanes).")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	byteOf := func(off int) VecVirtual { return a.paramByte(Mem{Base: p, Disp: off}) }
	low := a.paramTable16(Mem{Base: p, Disp: finerLow})
	base, sub, limit := byteOf(finerBase), byteOf(finerSub), byteOf(finerLimit)
	nanAbove, nan := byteOf(finerNaNAbove), byteOf(finerNaN)
	b8 := a.splat8
	sel := a.GP32()
	a.MOVBLZX(Mem{Base: p, Disp: finerWhole}, sel)
	a.CMPL(sel, U8(0))
	a.JNE(LabelRef("whole"))
	a.MOVBLZX(Mem{Base: p, Disp: finerNaNByte}, sel)
	a.CMPL(sel, U8(0))
	a.JNE(LabelRef("nanbyte"))
	a.MOVBLZX(Mem{Base: p, Disp: finerSignZero}, sel)
	a.CMPL(sel, U8(0))
	a.JE(LabelRef("above_nz"))
	a.JMP(LabelRef("above_all"))
	a.Label("nanbyte")
	a.MOVBLZX(Mem{Base: p, Disp: finerSignZero}, sel)
	a.CMPL(sel, U8(0))
	a.JE(LabelRef("byte_nz"))
	for _, loop := range []string{"byte_all", "above_all", "above_nz", "byte_nz"} {
		if loop != "byte_all" {
			a.Label(loop)
		}
		byNaNByte, signAll := loop[:4] == "byte", loop[len(loop)-3:] == "all"
		a.StreamNamed(loop+"_", Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			x, m := a.Vec(), a.Vec()
			a.VMOVDQU(s.Src, x)
			a.VPAND(b8(0x7F), x, m)
			lo, hi, k := a.Vec(), a.Vec(), a.Vec()
			a.VPSUBB(base, m, lo)
			a.VPSHUFB(lo, low, lo) // 0 where m < base: bit 7 of the index
			a.VPSUBUSB(sub, m, hi)
			a.VPADDB(hi, hi, hi)
			a.VPMINUB(limit, hi, hi)
			a.VPMAXUB(lo, hi, hi)
			if byNaNByte {
				a.VPCMPEQB(b8(0x80), x, k)
			} else {
				a.VPCMPGTB(nanAbove, m, k) // m ≤ 0x7F: signed is unsigned
			}
			a.VPBLENDVB(k, nan, hi, hi)
			sg := a.Vec()
			a.VPAND(b8(0x80), x, sg)
			if !signAll {
				a.VPSIGNB(hi, sg, sg) // the sign where c is not 0 (-0x80 = 0x80)
			}
			a.VPOR(sg, hi, hi)
			s.Store(hi, s.Dst, 8, nil)
		}))
	}

	a.Label("whole")
	pre, cnt := byteOf(finerPre), a.XMM()
	a.MOVBLZX(Mem{Base: p, Disp: finerShift}, sel)
	a.VMOVD(sel, cnt)
	a.StreamNamed("whole_", Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
		x, lo, hi, k := a.Vec(), a.Vec(), a.Vec(), a.Vec()
		a.VMOVDQU(s.Src, x)
		a.VPSUBB(base, x, lo)
		a.VPSHUFB(lo, low, lo) // 0 where bit 7 of the index is set
		a.VPSUBUSB(sub, x, hi)
		a.VPMINUB(pre, hi, hi)
		a.VPSLLW(cnt, hi, hi)
		a.VPMINUB(limit, hi, hi)
		a.VPMAXUB(lo, hi, hi)
		a.VPCMPEQB(b8(0xFF), x, k)
		a.VPBLENDVB(k, nan, hi, hi)
		s.Store(hi, s.Dst, 8, nil)
	}))
}
