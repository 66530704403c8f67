package amd64

import (
	"bytes"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// i16ToE5M2F16C emits the AVX2 INT16 and UINT16 → FLOAT8E5M2 and
// FLOAT8E5M2FNUZ kernels (i16ToE5M2AVX2, u16ToE5M2AVX2). Each integer
// becomes a float32 v (exact), rounded to three significant bits, the
// types' precision, by Veltkamp's split (c = v·(2^21+1), v rounded is
// c - (c - v): to nearest even, as the exhaustive tests check for every
// INT16 and UINT16), which VCVTPS2PH then converts exactly (or to ±Inf, from
// 61440 on: beyond both types' range). FLOAT8E5M2 is the high byte of that
// FLOAT16 h: the code is min(|h| >> 8, p's overflow byte) with the sign.
// FLOAT8E5M2FNUZ's bias is one more: its code is 4 more, (|h| + 0x400) >>
// 8, but 0 for 0 (the minimum with |h|, which is 0 or at least 0x3C00), and
// overflow (FLOAT16 ±Inf, 0x7C + 4) reads as 0x80 before the same clamp,
// its NaN where the mode does not saturate. Veltkamp's split rather than
// rounding on the integer bits: the float pipes' three operations measured
// faster than five integer ones here (Zen 4: 0.28–0.30 against 0.27× copy for
// UINT16 → FLOAT8E5M2).
func i16ToE5M2F16C(a *Asm) {
	for _, signed := range []bool{true, false} {
		name := "u16ToE5M2AVX2"
		if signed {
			name = "i16ToE5M2AVX2"
		}
		a.Func(name, AVX2, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
			"converts n elements to FLOAT8E5M2 or FLOAT8E5M2FNUZ as p describes (gen/amd64/i16e5m2.go).")
		a.Needs("FMA3")
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		limit := a.WordOf(func(r GPVirtual) { a.MOVL(Mem{Base: p, Disp: f8Overflow}, r) })
		split, shift := a.Const32(math.Float32bits(1<<21+1)), a.Splat(math.Float32bits(1<<21))
		w16 := func(v uint16) Op { return a.Splat(uint32(v) * 0x00010001) }
		a.CMPL(Mem{Base: p, Disp: f8SignedZero}, U8(0))
		a.JE(LabelRef("fnuz"))
		for _, fnuz := range []bool{false, true} {
			label := ""
			if fnuz {
				a.Label("fnuz")
				label = "fnuz_"
			}
			a.StreamNamed(label, Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
				var rs [2]VecVirtual
				for h := range rs {
					x := a.int16Halves(s.Src.Offset(32*h), signed, func(v VecVirtual) VecVirtual {
						c := a.Vec()
						a.VMULPS(split, v, c)
						a.VFNMADD231PS(shift, v, c) // c - v·2^21: v to three significant bits
						return c
					})
					if signed {
						a.VPAND(w16(0x7FFF), x, x)
					}
					if fnuz { // (|h| + 0x400) >> 8, at most |h|: 0 for 0, and |h| ≥ 0x3C00 otherwise
						c := a.Vec()
						a.VPADDW(w16(0x400), x, c)
						a.VPSRLW(U8(8), c, c)
						a.VPMINUW(x, c, x)
					} else {
						a.VPSRLW(U8(8), x, x)
					}
					a.VPMINUW(limit, x, x)
					rs[h] = x
				}
				s.Store(a.packCodes(rs, a.signedSource(s, signed), false), s.Dst, 8, nil)
			}))
		}
	}
}

// i16ToE5M2 emits the AVX-512 (VBMI) INT16 and UINT16 → FLOAT8E5M2 and
// FLOAT8E5M2FNUZ kernels (i16ToE5M2AVX512, u16ToE5M2AVX512), which read
// the float8Params p of either type. A 32-bit lane holds each word scaled
// by 2^16 (the even words shifted up, the odd ones masked in place), which
// VCVTDQ2PS (VCVTUDQ2PS) converts exactly to v = x·2^16. The types keep
// three significant bits; with c = v·(2^21+1) rounded,
//
//	r = c - v·2^21   (one fused multiply-add: exact, as r has three bits)
//
// is v to three significant bits, to nearest even: v has at most 16 bits,
// so v·2^21 has none below c's last place and c's rounding is v's
// (Veltkamp's split with its second subtraction fused; the exhaustive
// tests check every INT16 and UINT16). FLOAT8E5M2FNUZ takes 2c and 2v·2^21,
// that is 2r, one more in the exponent: its bias is one more. r's exponent
// field is then 128 + e + bias (e = ⌊log2 |x|⌋ ≤ 16) and bits 21..28 of r
// are the code's magnitude, e + bias in bits 2..6 over the two significand
// bits (0 for 0); VPMULTISHIFTQB picks them into the high byte of each
// source word, from the even lanes and then, under a mask, from the odd
// ones. UINT16 can overflow from 61440 on: the magnitude then reads 0x7C
// (FLOAT8E5M2's Inf) or 0x80 (FNUZ's NaN) and the minimum with p's overflow
// byte saturates it; INT16 never overflows (|x| ≤ 32768) and takes its sign
// from the source word's bit 15. VPERMT2B packs the high bytes. About 23
// instructions per 64 elements, where the route through float32 lanes
// (f8W) takes 35.
func i16ToE5M2(a *Asm) {
	for _, signed := range []bool{true, false} {
		name := "u16ToE5M2AVX512"
		if signed {
			name = "i16ToE5M2AVX512"
		}
		a.Func(name, AVX512, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
			"converts n elements to FLOAT8E5M2 or FLOAT8E5M2FNUZ as p describes (gen/amd64/i16e5m2.go).")
		a.Needs("AVX512VBMI") // VPMULTISHIFTQB, VPERMT2B
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		// FLOAT8E5M2FNUZ (signedZero 0, not 0x80) doubles both constants:
		// (signedZero ^ 0x80) << 16 is 1 in their exponent field.
		byType := func(fn float32) VecVirtual {
			r := a.GP32()
			a.MOVL(Mem{Base: p, Disp: f8SignedZero}, r)
			a.XORL(U32(0x80), r)
			a.SHLL(U8(16), r)
			a.ADDL(U32(math.Float32bits(fn)), r)
			v := a.Vec()
			a.VPBROADCASTD(r, v)
			return v
		}
		split, shift := byType(1<<21+1), byType(1<<21)
		var limit VecVirtual
		if !signed {
			limit = a.paramByte(Mem{Base: p, Disp: f8Overflow})
		}
		high, sgn := a.Const32(0xFFFF0000), a.Const8(0x80)
		// Bits 21 and 53 of each quadword (its two lanes) into the high
		// bytes of its words: bytes 1 and 5 from the even lanes, 3 and 7
		// from the odd ones.
		ctrl := a.ConstBytes("e5m2ctrl", bytes.Repeat([]byte{0, 21, 0, 21, 0, 53, 0, 53}, 8))
		odd, bits := a.K(), a.GP64()
		a.MOVQ(U64(0x8888888888888888), bits)
		a.KMOVQ(bits, odd)
		highs := a.ConstBytes("oddbytes", seq8(1, 2, 64))
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
			var ws [2]VecVirtual
			for h := range ws {
				x := a.Vec()
				a.VLoad(x, st.Src.Offset(64*h), 16, st.M(1, 32*h))
				w := a.Vec()
				for i, half := range []func(v VecVirtual){
					func(v VecVirtual) { a.VPSLLD(U8(16), x, v) },
					func(v VecVirtual) { a.VPANDD(high, x, v) },
				} {
					v, c := a.Vec(), a.Vec()
					half(v)
					if signed {
						a.VCVTDQ2PS(v, v)
					} else {
						a.VCVTUDQ2PS(v, v)
					}
					a.VMULPS(split, v, c)
					a.VFNMADD231PS(shift, v, c) // c - v·2^21: v to three bits
					if i == 0 {
						a.VPMULTISHIFTQB(c, ctrl, w)
					} else {
						a.VPMULTISHIFTQB(c, ctrl, odd, w)
					}
				}
				if signed {
					a.VPTERNLOGD(Tern(func(w, x, s uint8) uint8 { return w&^s | x&s }), sgn, x, w)
				}
				ws[h] = w
			}
			a.VPERMT2B(ws[1], highs, ws[0])
			if !signed {
				a.VPMINUB(limit, ws[0], ws[0])
			}
			st.Store(ws[0], st.Dst, 8, st.M(1, 0))
		})
	}
}
