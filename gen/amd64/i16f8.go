package amd64

import (
	"bytes"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// i16F8Target is one pair of float8 types that i16ToF8Words converts to:
// the types share their significand width and differ in bias by one (the
// FNUZ type's is one more).
type i16F8Target struct {
	name  string // the kernels' infix: i16To<name>AVX2
	mbits int    // significand bits
	bias  int    // the exponent bias of the type with -0
	clamp bool   // the magnitude is clamped to 511 (E4M3: it overflows from 464)
}

// i16ToF8Words emits the AVX2 INT16 and UINT16 → FLOAT8E4M3FN/FNUZ and
// FLOAT8E5M2/FNUZ kernels (i16ToE4M3AVX2, i16ToE5M2AVX2, and the u16
// ones), which read the float8Params p of either type of the pair:
// i16ToE5M2's algorithm (below) with shifts for VPMULTISHIFTQB. The
// magnitudes (INT16: VPABSW, 32768 included; the E4M3 types: at most 511,
// which keeps every code, as every value from 464 on overflows both) are
// split into 32-bit lanes, the even words zero-extended (VPBLENDW) and the
// odd ones shifted down, converted exactly and rounded to 1 + mbits
// significant bits by the fused Veltkamp split (s = 23 - mbits):
//
//	c = x·(2^s+1)·2^-(127-bias) rounded,  r = c - x·2^s·2^-(127-bias)
//
// so r is 2^-(127-bias) times x rounded to nearest even, a normal float32
// whose exponent field is e + bias (e = ⌊log2 x⌋ after rounding): at most
// 32 (UINT16 to FLOAT8E5M2FNUZ) or 17 (the E4M3 types, clamped), so r >> s
// is the code's magnitude with nothing above it (at most 0x88). The even lanes' codes
// (r >> s) and the odd lanes' (r >> (s - 8): r has no bits below s) or'ed
// make each lane's low word the two codes in order; VPACKUSDW of two
// vectors puts 32 codes in the order of VPACKSSWB of the source words
// (INT16's signs, bit 7 of each byte), the minimum with p's overflow byte
// saturates or makes NaN of what overflows (INT16 to the E5M2 types never
// does), the signs are or'ed in (FLOAT8E4M3FN's NaN becomes 0xFF, FNUZ's
// 0x80 stays, as the reference has them) and one VPERMQ orders the bytes.
// About 25 (UINT16 → E5M2) to 31 (INT16 → E4M3) instructions per 32
// elements, where the routes through FLOAT16 (VCVTPS2PH, then the high
// bytes, or the rounding on 16-bit lanes) took 36 or more.
func i16ToF8Words(a *Asm) {
	for _, t := range []i16F8Target{{"E4M3", 3, 7, true}, {"E5M2", 2, 15, false}} {
		signedPair("i16To"+t.name+"AVX2", "u16To"+t.name+"AVX2", func(name string, signed bool) {
			a.Func(name, AVX2, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
				"converts n elements to FLOAT8"+t.name+" or its FNUZ type as p describes (gen/amd64/i16f8.go).")
			a.Needs("FMA3")
			i16ToF8WordsBody(a, t, signed)
		})
	}
}

// i16ToF8WordsBody emits the body of one of i16ToF8Words' kernels.
func i16ToF8WordsBody(a *Asm, t i16F8Target, signed bool) {
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	s := 23 - t.mbits
	scale := -(127 - t.bias)
	split := fnuzDoubled(a, p, float32(math.Ldexp(float64(int(1)<<s+1), scale)))
	shift := fnuzDoubled(a, p, float32(math.Ldexp(1, s+scale)))
	var limit VecVirtual
	if t.clamp || !signed {
		limit = a.paramByte(Mem{Base: p, Disp: f8Overflow})
	}
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(st *Step) {
		var rs [2]VecVirtual
		for h := range rs {
			m := a.Vec()
			if signed {
				a.VPABSW(st.Src.Offset(32*h), m)
			} else {
				a.VMOVDQU(st.Src.Offset(32*h), m)
			}
			if t.clamp {
				a.VPMINUW(a.Splat(511*0x10001), m, m)
			}
			halves := [2]VecVirtual{a.Vec(), a.Vec()}
			a.VPBLENDW(U8(0xAA), zero, m, halves[0])
			a.VPSRLD(U8(16), m, halves[1])
			for i, v := range halves {
				c := a.Vec()
				a.VCVTDQ2PS(v, v)
				a.VMULPS(split, v, c)
				a.VFNMADD231PS(shift, v, c) // 2^scale·x to 1 + mbits significant bits
				halves[i] = c
			}
			e, o := halves[0], halves[1]
			a.VPSRLD(U8(s), e, e)
			a.VPSRLD(U8(s-8), o, o)
			a.VPOR(o, e, e)
			rs[h] = e
		}
		a.VPACKUSDW(rs[1], rs[0], rs[0])
		if limit != nil {
			a.VPMINUB(limit, rs[0], rs[0])
		}
		if signed {
			x0, sg := a.Vec(), a.Vec()
			a.VMOVDQU(st.Src, x0)
			a.VPACKSSWB(st.Src.Offset(32), x0, sg)
			a.VPAND(a.Splat(0x80808080), sg, sg)
			a.VPOR(sg, rs[0], rs[0])
		}
		a.VPERMQ(U8(0b11_01_10_00), rs[0], rs[0])
		st.Store(rs[0], st.Dst, 8, nil)
	}))
}

// fnuzDoubled returns v in every 32-bit lane, doubled for the FNUZ types
// (p's signedZero 0, not 0x80): (signedZero ^ 0x80) << 16 is 1 in the
// exponent field. An FNUZ type's bias is one more than its pair's, so
// doubled split constants add 1 to the exponent of every rounded value.
func fnuzDoubled(a *Asm, p GPVirtual, v float32) VecVirtual {
	r := a.GP32()
	a.MOVL(Mem{Base: p, Disp: f8SignedZero}, r)
	a.XORL(U32(0x80), r)
	a.SHLL(U8(16), r)
	a.ADDL(U32(math.Float32bits(v)), r)
	return a.Broadcast32(r)
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
	signedPair("i16ToE5M2AVX512", "u16ToE5M2AVX512", func(name string, signed bool) {
		a.Func(name, AVX512, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
			"converts n elements to FLOAT8E5M2 or FLOAT8E5M2FNUZ as p describes (gen/amd64/i16f8.go).")
		a.Needs("AVX512VBMI") // VPMULTISHIFTQB, VPERMT2B
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		split, shift := fnuzDoubled(a, p, 1<<21+1), fnuzDoubled(a, p, 1<<21)
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
	})
}
