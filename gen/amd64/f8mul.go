package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// e4m3ToI16 is widenF8To's kernel of FLOAT8E4M3FN (bias 7) or
// FLOAT8E4M3FNUZ (bias 8, fnuz) → INT16/UINT16 in 16-bit integer
// arithmetic, without float conversions. The truncation of a normal value
// (8+m)·2^(E-bias-3) is the high half of a 16×16-bit product:
//
//	t = VPMULHUW((8+m) << 8, P[E]),  P[E] = 2^(E-bias+5) for E ≥ bias, else 0
//
// since (8+m)·2^8·2^(E-bias+5) / 2^16 = (8+m)·2^(E-bias-3), floored. Below
// E = bias the value is below 1 and truncates to 0 (subnormals included),
// and P ≤ 2^13, t ≤ 480: no wrap. VPSHUFB looks both bytes of P up by E and
// 8+m by the low nibble of the magnitude, and VPSIGNW gives t the sign of
// the source byte. The NaN bytes give 0, as the reference's integer
// targets want: E4M3FN's magnitude 0x7F is cleared first; E4M3FNUZ's 0x80
// has E = 0 already. About 11 instructions per 16 elements where the
// FLOAT16 route takes 15, and cheaper ones (no VCVTPH2PS or VCVTTPS2DQ).
func e4m3ToI16(a *Asm, bias int, fnuz bool, dst, src, n GPVirtual) {
	var plo, phi, mant [32]byte
	for i := range 16 {
		var p uint16
		if i >= bias {
			p = 1 << (i - bias + 5)
		}
		plo[i], plo[16+i] = byte(p), byte(p)
		phi[i], phi[16+i] = byte(p>>8), byte(p>>8)
		mant[i], mant[16+i] = byte(i&7|8), byte(i&7|8)
	}
	pLo := a.ConstBytes("e4m3pow2lo"+map[bool]string{false: "fn", true: "fnuz"}[fnuz], plo[:])
	pHi := a.ConstBytes("e4m3pow2hi"+map[bool]string{false: "fn", true: "fnuz"}[fnuz], phi[:])
	mt := a.ConstBytes("e4m3mant", mant[:])
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	b7f, b0f := a.Const8(0x7F), a.Const8(0x0F)
	// Steps of 16 elements (widen8Targets' lanes for I16) in XMM registers,
	// two at a time in YMM ones.
	a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 16, Unroll: 2}, dst, src, n, func(s *Step) {
		c := func(v VecVirtual) VecVirtual { return v }
		if s.Lanes == 16 {
			c = func(v VecVirtual) VecVirtual { return v.AsX().(VecVirtual) }
		}
		x, mg, e := a.Vec(), a.Vec(), a.Vec()
		if s.Lanes == 16 {
			a.VMOVDQU(s.Src, c(x))
		} else {
			a.VPERMQ(U8(0b11_01_10_00), s.Src, x) // unpacking lane by lane then gives elements 0..15, 16..31
		}
		a.VPAND(c(b7f), c(x), c(mg))
		if !fnuz {
			nan := a.Vec()
			a.VPCMPEQB(c(b7f), c(mg), c(nan))
			a.VPANDN(c(mg), c(nan), c(mg)) // NaN: magnitude 0, so E = 0 and P = 0
		}
		a.VPSRLW(U8(3), c(mg), c(e))
		a.VPAND(c(b0f), c(e), c(e))
		pl, ph, m := a.Vec(), a.Vec(), a.Vec()
		a.VPSHUFB(c(e), c(pLo), c(pl))
		a.VPSHUFB(c(e), c(pHi), c(ph))
		a.VPSHUFB(c(mg), c(mt), c(m)) // mg < 0x80: VPSHUFB reads its low nibble
		for h := range 2 {
			unpack := a.VPUNPCKLBW
			if h == 1 {
				unpack = a.VPUNPCKHBW
			}
			p, am, sg := a.Vec(), a.Vec(), a.Vec()
			unpack(c(ph), c(pl), c(p))   // P: low byte pl, high byte ph
			unpack(c(m), c(zero), c(am)) // (8+m) << 8
			unpack(c(x), c(x), c(sg))    // the source byte twice: its sign is the word's
			a.VPMULHUW(c(p), c(am), c(am))
			a.VPSIGNW(c(sg), c(am), c(am)) // x = 0 has t = 0; -0 negates 0
			s.Store(c(am), s.Dst.Offset(s.Lanes*h), 16, nil)
		}
	})
}

// e5m2ToI16 is widenF8To's kernel of FLOAT8E5M2 (bias 15) or
// FLOAT8E5M2FNUZ (bias 16) → INT16/UINT16, like e4m3ToI16. With
// i = E - bias, a value of at least 1 has 0 ≤ i ≤ 15 and truncates to
// (4+m)·2^(i-2) < 2^16, which is
//
//	t = VPMULHUW(A, 2^(i+1)),  A = (4+m) << 13,  for i ≤ 14
//	t = A                                         for i = 15
//
// (a factor 2^16 has no 16-bit lane), so i = 15 takes A by a blend
// instead, its mask looked up by i like the powers. i is (magnitude >> 2) - bias
// with 0x70 added, saturated: below 0 it wraps to 0x80 or above, where
// VPSHUFB reads 0 (values below 1), and i = 16, FLOAT8E5M2's Inf and NaN,
// reaches 0x80 too: both give 0, as the integer targets want. FNUZ's NaN
// 0x80 has magnitude 0.
func e5m2ToI16(a *Asm, bias int, dst, src, n GPVirtual) {
	var plo, phi, top, mant [32]byte
	for i := range 16 {
		var p uint16
		if i < 15 {
			p = 1 << (i + 1)
		}
		plo[i], plo[16+i] = byte(p), byte(p)
		phi[i], phi[16+i] = byte(p>>8), byte(p>>8)
		if i == 15 {
			top[i], top[16+i] = 0xFF, 0xFF
		}
		mant[i], mant[16+i] = byte((i&3|4)<<5), byte((i&3|4)<<5) // (4+m) << 13, in the high byte
	}
	pLo := a.ConstBytes("e5m2pow2lo", plo[:])
	pHi := a.ConstBytes("e5m2pow2hi", phi[:])
	tp := a.ConstBytes("e5m2top", top[:])
	mt := a.ConstBytes("e5m2mant", mant[:])
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	b7f, b1f := a.Const8(0x7F), a.Const8(0x1F)
	push := a.Splat(0x70707070)
	bs := a.Splat(uint32(bias) * 0x01010101)
	a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 16, Unroll: 2}, dst, src, n, func(s *Step) {
		c := func(v VecVirtual) VecVirtual { return v }
		if s.Lanes == 16 {
			c = func(v VecVirtual) VecVirtual { return v.AsX().(VecVirtual) }
		}
		x, mg, i := a.Vec(), a.Vec(), a.Vec()
		if s.Lanes == 16 {
			a.VMOVDQU(s.Src, c(x))
		} else {
			a.VPERMQ(U8(0b11_01_10_00), s.Src, x)
		}
		a.VPAND(c(b7f), c(x), c(mg))
		a.VPSRLW(U8(2), c(mg), c(i))
		a.VPAND(c(b1f), c(i), c(i))
		a.VPSUBB(bs, c(i), c(i))
		a.VPADDUSB(push, c(i), c(i))
		pl, ph, tm, m := a.Vec(), a.Vec(), a.Vec(), a.Vec()
		a.VPSHUFB(c(i), c(pLo), c(pl))
		a.VPSHUFB(c(i), c(pHi), c(ph))
		a.VPSHUFB(c(i), c(tp), c(tm))
		a.VPSHUFB(c(mg), c(mt), c(m))
		for h := range 2 {
			unpack := a.VPUNPCKLBW
			if h == 1 {
				unpack = a.VPUNPCKHBW
			}
			p, am, k, sg := a.Vec(), a.Vec(), a.Vec(), a.Vec()
			unpack(c(ph), c(pl), c(p))
			unpack(c(m), c(zero), c(am))
			unpack(c(tm), c(tm), c(k))
			unpack(c(x), c(x), c(sg))
			t := a.Vec()
			a.VPMULHUW(c(p), c(am), c(t))
			a.VPBLENDVB(c(k), c(am), c(t), c(am)) // i = 15: A
			a.VPSIGNW(c(sg), c(am), c(am))
			s.Store(c(am), s.Dst.Offset(s.Lanes*h), 16, nil)
		}
	})
}
