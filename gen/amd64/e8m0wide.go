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
		// The rounding add on 52 significand bits (up 2^52-1, nearest
		// 2^51, down 0), plus 2^62.
		add, top := e8m0Add64(a, p, 29), a.GP64()
		a.MOVQ(U64(1<<62), top)
		a.ADDQ(top, add)
		adds := a.Broadcast64(add)
		lo, overflow := e8m0Clamp(a, p)
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

// i64ToE8M0 emits the AVX2 INT64 and UINT64 → FLOAT8E8M0 kernels
// (i64ToE8M0AVX2, u64ToE8M0AVX2): e8m0Int's algorithm on 64-bit lanes,
// where AVX2 has no conversion of 64-bit integers. With u the magnitude
// (INT64's minimum read as 2^63), its leading one k is the exponent of the
// larger of two exact DOUBLEs, its high half times 2^32 and its low half
// (each or'ed under a magic number's exponent, 2^84 or 2^52, which is then
// subtracted); the bits below it, left-aligned (m = u << (64 - k), 0 for
// k = 0 and for u = 0, as the count is then above 63), carry when the
// mode's add (roundAdd << 41 with its low bit repeated below: up 2^64-1,
// nearest 2^63, down 0) is added, which a signed compare of m and ^add,
// both biased by 2^63, tells. The code is 127 + k plus that carry; u = 0
// gives a negative one, which the clamp turns into the underflow code, and
// nothing overflows. About 14 instructions per 4 elements, where the round
// to odd alone (odd.go) takes 18 before the E8M0 kernel's 10 per 8.
func i64ToE8M0(a *Asm) {
	signedPair("i64ToE8M0AVX2", "u64ToE8M0AVX2", func(name string, signed bool) {
		a.Func(name, AVX2, "func(dst *uint8, src *uint64, n int, p *[4]uint32)")
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		// ^add ^ 2^63, with the rounding add on 64 bits (up 2^64-1,
		// nearest 2^63, down 0).
		add := e8m0Add64(a, p, 41)
		a.NOTQ(add)
		a.BTCQ(U8(63), add)
		notAdd := a.Broadcast64(add)
		lo, overflow := e8m0Clamp(a, p)
		zero := a.Vec()
		a.VPXOR(zero, zero, zero)
		m52, m84 := a.splat64(0x4330000000000000), a.splat64(0x4530000000000000)
		c1087, sign := a.splat64(1087), a.splat64(1<<63)
		c1087r := a.Vec()
		a.VMOVDQU(c1087, c1087r)
		order := a.packOrder()
		a.Stream(Loop{SrcSize: 8, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
			rs := make([]VecVirtual, 4)
			for j := range rs {
				var es [2]VecVirtual
				for h := range es {
					u := a.Vec()
					a.VMOVDQU(s.Src.Offset(64*j+32*h), u)
					if signed {
						neg := a.Vec()
						a.VPCMPGTQ(u, zero, neg) // all ones where x < 0
						a.VPXOR(neg, u, u)
						a.VPSUBQ(neg, u, u) // |x|
					}
					dl, dh := a.Vec(), a.Vec()
					a.VPBLENDD(U8(0xAA), m52, u, dl)
					a.VSUBPD(m52, dl, dl) // the low half
					a.VPSRLQ(U8(32), u, dh)
					a.VPOR(m84, dh, dh)
					a.VSUBPD(m84, dh, dh) // the high half times 2^32
					e := a.Vec()
					a.VMAXPD(dh, dl, e)
					a.VPSRLQ(U8(52), e, e) // 1023 + k, or 0 for u = 0
					cnt := a.Vec()
					a.VPSUBQ(e, c1087r, cnt)
					a.VPSLLVQ(cnt, u, u) // m
					a.VPXOR(sign, u, u)
					a.VPCMPGTQ(notAdd, u, u) // -1 where m + add carries
					a.VPSUBQ(u, e, e)
					es[h] = e
				}
				r := a.Vec()
				a.VSHUFPS(U8(0x88), es[1], es[0], r) // the low halves, per 128-bit lane
				a.VPERMQ(U8(0b11_01_10_00), r, r)
				a.VPSUBD(a.Splat(1023-127), r, r)
				a.VPMAXSD(lo, r, r)
				a.VPMINUD(overflow, r, r)
				rs[j] = r
			}
			s.Store(a.packDB4(rs, order), s.Dst, 8, nil)
		})
	})
}

// i64ToE8M0AVX512 emits the AVX-512 INT64 and UINT64 → FLOAT8E8M0 kernels
// (i64ToE8M0AVX512, u64ToE8M0AVX512; DQ): i64ToE8M0's algorithm, the
// leading one k of the magnitude u read from the exponent of VCVTUQQ2PS
// {rz-sae} (a truncation never reaches the next binade; 0 for u = 0), the
// carry of the bits below it, m = u << (64 - k), by an unsigned compare
// with ^add, added under its mask; u = 0 takes the underflow code, and
// nothing overflows (127 + 64 at most). 16 elements a step, two halves of
// 8. About 10 instructions per 8 elements, where the route through a
// round-to-odd FLOAT block ran 7 and then the E8M0 kernel.
func i64ToE8M0AVX512(a *Asm) {
	signedPair("i64ToE8M0AVX512", "u64ToE8M0AVX512", func(name string, signed bool) {
		a.Func(name, AVX512, "func(dst *uint8, src *uint64, n int, p *[4]uint32)")
		a.Needs("AVX512DQ") // VCVTUQQ2PS
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		add := e8m0Add64(a, p, 41)
		a.NOTQ(add)
		notAdd := a.Broadcast64(add)
		under := a.Splat32(Mem{Base: p, Disp: e8Underflow})
		c191, one := a.splat64(127+64), a.Const32(1)
		a.Stream(Loop{SrcSize: 8, DstSize: 1, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
			var es [2]VecVirtual
			for h := range es {
				u := a.Vec()
				var kh Register
				if s.Tail() {
					kh = s.M(1, 8*h)
				}
				a.VLoad(u, s.Src.Offset(64*h), 64, kh)
				if signed {
					a.VPABSQ(u, u) // INT64's minimum stays 2^63, read unsigned
				}
				e := a.YMM()
				a.VCVTUQQ2PS_RZ_SAE(u, e)
				a.VPSRLD(U8(23), e, e) // 127 + k, or 0 for u = 0
				cnt := a.Vec()
				a.VPMOVZXDQ(e, cnt)
				a.VPSUBQ(cnt, c191, cnt) // 64 - k
				a.VPSLLVQ(cnt, u, cnt)   // m
				carry, zero := a.K(), a.K()
				a.VPCMPUQ(U8(cmpGT), notAdd, cnt, carry)
				a.VPADDD(one.AsY(), e, carry, e)
				a.VPTESTNMQ(u, u, zero)
				a.VMOVDQA32(under.AsY(), zero, e)
				es[h] = e
			}
			x := a.Vec()
			a.VINSERTI64X4(U8(1), es[1], es[0].AsZ(), x)
			b := x.AsX().(VecVirtual)
			a.VPMOVDB(x, b)
			s.StoreLow(b, 16, s.Dst, 8, s.M(1, 0))
		}))
	})
}
