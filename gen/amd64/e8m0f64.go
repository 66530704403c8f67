package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f64ToE8M0 emits the DOUBLE → FLOAT8E8M0 kernels (f64ToE8M0AVX2,
// f64ToE8M0AVX512), which read the code off each DOUBLE's own fields as
// float64ToE8M0Generic does, in one pass where the route through FLOAT
// rounds every element to odd first:
//
//	t = x + add + 2^62   (64-bit: add is the mode's rounding add on the 52
//	                      significand bits, which carries into the exponent
//	                      field E exactly when the value rounds up to the
//	                      next power of two; 2^62 flips E's top bit, and the
//	                      carries out of it and out of the sign are dropped)
//	E' = (hi32(t) << 1) >> 21, arithmetic: E - 1024, the sign gone
//	c = E' + 128 = E - 896, clamped: min_unsigned(max_signed(c, lo), overflow)
//
// with f32ToE8M0's clamp (lo = int8(underflow): 0 when saturating, else -1,
// which the unsigned minimum turns into 0xFF): below 2^-127 after rounding
// (zero and DOUBLE subnormals included) underflows, from 2^128 (±Inf
// included) overflows. E' runs over all of -1024..1023, so no exponent
// wraps. NaN alone needs the whole 64 bits: a step with a NaN (VCMPPD
// unordered, two vectors a compare) takes the same code out of line with
// the NaN lanes set to 0xFF. The high halves come together by VPERMT2D
// (AVX-512) or VSHUFPS and VPERMQ (AVX2), and packDB4 narrows. About 11
// instructions per 16 elements on AVX-512 (the route through FLOAT: 12 for
// the round to odd and 6 for the E8M0 kernel, with a store and a load in
// between), 12 per 8 on AVX2.
func f64ToE8M0(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f64ToE8M0"+isa.String(), isa, "func(dst *uint8, src *uint64, n int, p *[4]uint32)")
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		// add = roundAdd << 29 with roundAdd's low bit repeated below (up
		// 2^52-1, nearest 2^51, down 0), plus 2^62.
		add, low, top := a.GP64(), a.GP64(), a.GP64()
		a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, add.As32())
		a.MOVQ(add, low)
		a.ANDQ(U8(1), low)
		a.NEGQ(low)
		a.SHRQ(U8(35), low)
		a.SHLQ(U8(29), add)
		a.ORQ(low, add)
		a.MOVQ(U64(1<<62), top)
		a.ADDQ(top, add)
		adds := a.Vec()
		if isa == AVX512 {
			a.VPBROADCASTQ(add, adds)
		} else {
			a.VMOVQ(add, adds.AsX())
			a.VPBROADCASTQ(adds.AsX(), adds)
		}
		overflow := a.Splat32(Mem{Base: p, Disp: e8Overflow})
		lo := a.Splat32(Mem{Base: p, Disp: e8Underflow})
		a.VPSLLD(U8(24), lo, lo)
		a.VPSRAD(U8(24), lo, lo) // int8(underflow): 0 or -1
		bias, ff := a.Splat(128), a.Splat(0xFF)
		order := a.packOrder()
		lanes := a.Lanes32() // elements per vector of codes
		var highs VecVirtual
		if isa == AVX512 {
			odd := make([]uint32, 16)
			for i := range odd {
				odd[i] = uint32(2*i + 1)
			}
			highs = a.ConstTable("oddlanes32", odd)
		}
		a.Stream(Loop{SrcSize: 8, DstSize: 1, Lanes: 4 * lanes, Unroll: 1}, dst, src, n, func(s *Step) {
			// The step's 4·lanes elements, lanes/2 a vector.
			xs := make([]VecVirtual, 8)
			for i := range xs {
				xs[i] = a.Vec()
				a.VLoad(xs[i], s.Src.Offset(i*4*lanes), 64, s.M(1, i*lanes/2))
			}
			codes := func(nan bool) {
				rs := make([]VecVirtual, 4)
				for j := range rs {
					x0, x1 := xs[2*j], xs[2*j+1]
					t0, t1, h := a.Vec(), a.Vec(), a.Vec()
					a.VPADDQ(adds, x0, t0)
					a.VPADDQ(adds, x1, t1)
					if isa == AVX512 {
						a.VPERMT2D(t1, highs, t0)
						h = t0
					} else {
						a.VSHUFPS(U8(0xDD), t1, t0, h) // per 128-bit lane: x0's two, x1's two
						a.VPERMQ(U8(0b11_01_10_00), h, h)
					}
					a.VPSLLD(U8(1), h, h)
					a.VPSRAD(U8(21), h, h)
					a.VPADDD(bias, h, h)
					a.VPMAXSD(lo, h, h)
					a.VPMINUD(overflow, h, h)
					if nan {
						if isa == AVX512 {
							k0, k1, k := a.K(), a.K(), a.K()
							a.VCMPPD(U8(cmpUnord), x0, x0, k0)
							a.VCMPPD(U8(cmpUnord), x1, x1, k1)
							a.KUNPCKBW(k0, k1, k)
							a.VMOVDQA32(ff, k, h)
						} else {
							m0, m1 := a.Vec(), a.Vec()
							a.VCMPPD(U8(cmpUnord), x0, x0, m0)
							a.VCMPPD(U8(cmpUnord), x1, x1, m1)
							a.VSHUFPS(U8(0xDD), m1, m0, m0)
							a.VPERMQ(U8(0b11_01_10_00), m0, m0)
							a.VPSRLD(U8(24), m0, m0)
							a.VPOR(m0, h, h)
						}
					}
					rs[j] = h
				}
				s.Store(a.packDB4(rs, order), s.Dst, 8, s.M(1, 0))
			}
			// Any NaN in the step: x_i unordered with x_{i+4}.
			if isa == AVX512 {
				var ks [4]Register
				for i := range ks {
					ks[i] = a.K()
					a.VCMPPD(U8(cmpUnord), xs[i+4], xs[i], ks[i])
				}
				a.KORW(ks[1], ks[0], ks[0])
				a.KORW(ks[3], ks[2], ks[2])
				a.KORTESTW(ks[2], ks[0])
			} else {
				var ms [4]VecVirtual
				for i := range ms {
					ms[i] = a.Vec()
					a.VCMPPD(U8(cmpUnord), xs[i+4], xs[i], ms[i])
				}
				a.VORPD(ms[1], ms[0], ms[0])
				a.VORPD(ms[3], ms[2], ms[2])
				a.VORPD(ms[2], ms[0], ms[0])
				a.VTESTPD(ms[0], ms[0])
			}
			a.divert(func() { codes(false) }, func() { codes(true) })
		})
	}
}
