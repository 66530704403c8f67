package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
	"github.com/tensorcast/tensorcast/gen/layout"
)

// Offsets of the e8m0Params fields, from its declaration in params.go.
var (
	e8RoundAdd  = layout.Offset("e8m0Params", "roundAdd")
	e8Overflow  = layout.Offset("e8m0Params", "overflow")
	e8Underflow = layout.Offset("e8m0Params", "underflow")
)

// f32ToE8M0 follows f32ToE8M0 of kernel_generic.go:
//
//	a = |x|; a subnormal a is made normal first: a = bits(float32(int32(a))),
//	         which is a·2^149 (exact), and the exponent is corrected by 149
//	         (the generic code scales by 2^64; any exact power of two gives
//	         the same exponent and significand)
//	e = (a + roundAdd) >> 23 - scale
//	e < 0: underflow; e ≥ 255: overflow; NaN: 0xFF
//
// The two range checks are a clamp, min_unsigned(max_signed(e, lo), overflow)
// with lo = int8(underflow): with underflow = 0 (saturating) a negative e
// becomes 0; with underflow = 0xFF, lo = -1 and the unsigned minimum turns
// it into overflow, which is then 0xFF too (kernel_amd64.go checks that the
// parameter sets are of these two kinds). NaN has e ≥ 255, so only the
// saturating mode needs it set apart.
func f32ToE8M0(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f32ToE8M0"+isa.String(), isa, "func(dst *uint8, src *float32, n int, p *[4]uint32)")
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		abs, minNormal, inf := a.Splat(0x7FFFFFFF), a.Const32(0x00800000), a.Splat(0x7F800000)
		scale, ff := a.Splat(149), a.Splat(0xFF)
		roundAdd := a.Splat32(Mem{Base: p, Disp: e8RoundAdd})
		overflow := a.Splat32(Mem{Base: p, Disp: e8Overflow})
		lo := a.Splat32(Mem{Base: p, Disp: e8Underflow})
		a.VPSLLD(U8(24), lo, lo)
		a.VPSRAD(U8(24), lo, lo) // int8(underflow): 0 or -1
		order := a.packOrder()
		lanes := a.Lanes32()
		a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: lanes, Unroll: 4}, dst, src, n, func(s *Step) {
			var rs []VecVirtual
			for i := 0; i < s.Lanes; i += lanes {
				p := s.Part(i, lanes)
				x, ab, e := a.Vec(), a.Vec(), a.Vec()
				a.VLoad(x, p.Src, 32, p.M(1, 0))
				a.And(abs, x, ab)
				if isa == AVX512 {
					sub := a.K()
					a.VPCMPUD(U8(cmpLT), minNormal, ab, sub)
					a.VCVTDQ2PS(ab, sub, ab)
					a.VPADDD(roundAdd, ab, e)
					a.VPSRLD(U8(23), e, e)
					a.VPSUBD(scale, e, sub, e)
				} else {
					m, f := a.Vec(), a.Vec()
					a.VPCMPGTD(ab, minNormal, m)
					a.VCVTDQ2PS(ab, f)
					a.VPBLENDVB(m, f, ab, ab)
					a.VPADDD(roundAdd, ab, e)
					a.VPSRLD(U8(23), e, e)
					a.And(scale, m, m)
					a.VPSUBD(m, e, e)
				}
				a.VPMAXSD(lo, e, e)
				a.VPMINUD(overflow, e, e)
				a.pickGT(ab, inf, ff, e)
				rs = append(rs, e)
			}
			if len(rs) == 4 {
				s.Store(a.packDB4(rs, order), s.Dst, 8, nil)
				return
			}
			s.StoreLow(a.packDB(rs[0]), lanes, s.Dst, 8, s.M(1, 0))
		})
	}
}
