package amd64

import (
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The packed 4-bit types: two elements per byte, the first in the low
// nibble. The packing kernels count pairs as elements (the Go wrappers
// convert an odd last element), the unpacking ones count source bytes.

// packQB collects the low byte of each 64-bit lane of v, in order, into the
// low bytes of the XMM register it returns.
func (a *Asm) packQB(v VecVirtual) VecVirtual {
	x := v.AsX().(VecVirtual)
	if a.isa == AVX512 {
		a.VPMOVQB(v, x)
		return x
	}
	ctl := a.DataBytes("packqb", []byte{
		0, 8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		0x80, 0x80, 0, 8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	})
	hi := a.XMM()
	a.VPSHUFB(ctl, v, v)
	a.VEXTRACTI128(U8(1), v, hi)
	a.VPOR(hi, x, x)
	return x
}

// nibblePairs turns 64-bit lanes holding two nibbles (the first in bits
// 0..3, the second in bits 32..35, other bits of each 32-bit half arbitrary)
// into bytes second<<4 | first, and stores them.
func (a *Asm) nibblePairs(s *Step, v VecVirtual, c0F, cF0 Op) {
	t := a.Vec()
	a.VPSRLQ(U8(28), v, t)
	if a.isa == AVX512 {
		a.VPTERNLOGD(Tern(func(v, t, m uint8) uint8 { return v&m | t&^m }), c0F, t, v)
	} else {
		a.And(c0F, v, v)
		a.And(cF0, t, t)
		a.Or(t, v, v)
	}
	b := a.packQB(v)
	s.StoreLow(b, s.Lanes, s.Dst, 8, s.M(1, 0))
}

// f32ToF4 narrows float32 to FLOAT4E2M1 with float4Params (kernel_generic.go)
// in narrowMag, then the sign (bit 3) except for NaN, which gives 0x8.
//
// AVX2 rounds to odd at FLOAT16 instead and takes FLOAT16's codes by keys
// (fused.go's halfF4KeyCodes, as halfToF4AVX2), 32 elements a step: a
// float32 with its bits below FLOAT16's precision or'ed into bit 13 (their
// sum with 0x1FFF carries there) and truncated by VCVTPS2PH (imm8 3:
// toward zero) is x rounded to odd at FLOAT16's 11 bits wherever the
// result is a normal FLOAT16, ≥ 2^-14; FLOAT4E2M1 rounds at 2 bits, so
// that one rounding gives x's (the odd bit stands for the dropped ones).
// Below 2^-14 (FLOAT16 subnormals, where the truncation drops more) every
// value is far below 0.25 and gives the code 0 either way; above 65504
// truncation gives 65504, NaN stays NaN and ±Inf stays ±Inf, each above 6
// as the value is. 0.29× → 0.31× copy() at 64 Ki (Zen 4), and all 2^32
// inputs equal to the portable kernel (TestSweepFloat32Narrowing).
func f32ToF4(a *Asm) {
	f32ToF4AVX2(a)
	for _, isa := range []ISA{AVX512} {
		a.Func("f32ToF4"+isa.String(), isa, "func(dst *uint8, src *float32, n int)",
			"n counts pairs of source elements.")
		dst, src, n := a.Args()
		adj := uint32(126<<1) << 22
		bias := 1<<21 - 1 - adj // wraps, as in loadF8
		c := &f8Consts{
			cnt: U8(22), lsb: a.Splat(1 << 22), bias: a.Splat(bias), minNormal: a.Const32(127 << 23),
			magic: a.Splat(math.Float32bits(0x1p22)), overflow: a.Splat(7), nan: a.Splat(8),
			abs: a.Splat(0x7FFFFFFF), inf: a.Splat(0x7F800000),
		}
		eight, c0F, cF0 := a.Splat(8), a.Splat(0x0F), a.Splat(0xF0)
		a.Stream(Loop{SrcSize: 8, DstSize: 1, Lanes: a.Lanes32() / 2, Unroll: 4}, dst, src, n, Each(a.Lanes32()/2, func(s *Step) {
			x, sgn := a.Vec(), a.Vec()
			a.VLoad(x, s.Src, 32, s.M(2, 0))
			ab, r := a.narrowMag(c, x)
			a.VPSRLD(U8(28), x, sgn)
			a.And(eight, sgn, sgn)
			a.Or(sgn, r, r)
			a.pickGT(ab, c.inf, c.nan, r)
			a.nibblePairs(s, r, c0F, cF0)
		}))
	}
	f32ToF4VBMI(a)
}

// f32ToF4VBMI is f32ToF4 on AVX-512 with VBMI, and f64ToF4AVX512VBMI the
// same from DOUBLE: AVX2's round to odd at FLOAT16 (see f32ToF4 and
// f32ToF4AVX2), then FLOAT16's codes in bytes (fused.go's
// halfF4ByteCodes, as halfToF4Bytes), 64 elements a step. Where any bit
// below FLOAT16's precision is set (VPTESTMD, VPTESTMQ), a masked VPORD
// sets the float32's bit 13 and VCVTPS2PH truncates; a DOUBLE gets bit 42
// set alike, and VCVTPD2PS toward zero ({rz-sae}) keeps it, dropping only
// bits below it, so the same truncation follows (a DOUBLE beyond float32's
// range gives ±MaxFloat32, as ±Inf beyond 6; one below 2^-126 gives a
// float32 far below 0.25: either way the code of the value). Against the
// 16-bit-lane float8 algorithm with float4Params (float8w.go's, which these
// replace): FLOAT 0.60-0.66 → 0.73-0.77× copy(), DOUBLE 0.65-0.70 →
// 0.92-0.98× (Zen 4, 64 Ki, three runs each way side by side). AVX2's
// three-instruction or in place of the mask measured 8.4 elements/ns
// against 10.2 for FLOAT, and oddF64ClearAVX512 at bit 42 with an exact
// VCVTPD2PS 4.1 against 4.8 for DOUBLE (three runs side by side each).
func f32ToF4VBMI(a *Asm) {
	for _, double := range []bool{false, true} {
		name, typ, size := "f32ToF4AVX512VBMI", "float32", 4
		if double {
			name, typ, size = "f64ToF4AVX512VBMI", "uint64", 8
		}
		a.Func(name, AVX512, "func(dst *uint8, src *"+typ+", n int)", "n counts pairs of source elements.")
		dst, src, n := a.Args()
		low, bit := a.Splat(0x1FFF), a.Splat(0x2000) // float32: bit 13
		if double {
			low, bit = a.splat64(1<<42-1), a.splat64(1<<42)
		}
		// load returns the j-th 16 elements of a step as float32 rounded to
		// odd at FLOAT16's precision, where that is a normal FLOAT16.
		load := func(s *Step, j int) VecVirtual {
			x := a.Vec()
			if double {
				var ys [2]VecVirtual
				for h := range ys {
					a.VLoad(x, s.Src.Offset(128*j+64*h), 64, s.M(2, 16*j+8*h))
					sticky := a.K()
					a.VPTESTMQ(low, x, sticky)
					a.VPORQ(bit, x, sticky, x)
					ys[h] = a.YMM()
					a.VCVTPD2PS_RZ_SAE(x, ys[h])
				}
				t := ys[0].AsZ().(VecVirtual)
				a.VINSERTF64X4(U8(1), ys[1], t, t)
				return t
			}
			a.VLoad(x, s.Src.Offset(64*j), 32, s.M(2, 16*j))
			sticky := a.K()
			a.VPTESTMD(low, x, sticky)
			a.VPORD(bit, x, sticky, x)
			return x
		}
		f4 := a.halfF4ByteCodes(false)
		a.Stream(Loop{SrcSize: 2 * size, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
			var hs [2]VecVirtual // 32 FLOAT16 words each
			for j := range 4 {
				t := load(s, j)
				a.VCVTPS2PH(U8(3), t, Half(t)) // toward zero
				if j%2 == 0 {
					hs[j/2] = t
				} else {
					a.VINSERTI64X4(U8(1), Half(t), hs[j/2], hs[j/2])
				}
			}
			s.StoreLow(f4(hs[0], hs[1]), 32, s.Dst, 8, s.M(1, 0))
		})
	}
}

// f32ToF4AVX2 is f32ToF4 on AVX2 (see there), and f64ToF4AVX2 the same
// from DOUBLE: or'ing the bits below FLOAT16's precision into its last bit
// (double bit 42) and clearing them leaves a value that VCVTPD2PS converts
// exactly wherever float32 has normal numbers (oddF64Clear, drop 42), and
// VCVTPS2PH's truncation then is x rounded to odd at FLOAT16 as above; a
// DOUBLE of 2^128 or more converts to ±Inf, which FLOAT4E2M1 saturates
// like the value, and below 2^-126 every value gives the code 0 (with its
// sign) either way. One pass instead of the route through a round-to-odd
// FLOAT block: 0.26 → 0.40–0.46× copy() (Zen 4, three runs). 32 elements
// a step, packed by pairPacker (fused.go): FLOAT → FLOAT4E2M1 0.34 → 0.33-0.37×,
// DOUBLE 0.42-0.44 → 0.42-0.50× (Zen 3, three runs each way side by side).
// FLOAT16's codes by keys (halfF4KeyCodes) in place of the 16-bit lanes
// (halfF4Codes): FLOAT 0.34-0.38 → 0.40-0.41×, DOUBLE 0.50 → 0.52-0.54×
// (Zen 4, 64 Ki, three runs each way side by side).
func f32ToF4AVX2(a *Asm) {
	for _, double := range []bool{false, true} {
		name, typ, size := "f32ToF4AVX2", "float32", 4
		if double {
			name, typ, size = "f64ToF4AVX2", "uint64", 8
		}
		a.Func(name, AVX2, "func(dst *uint8, src *"+typ+", n int)",
			"n counts pairs of source elements (a multiple of 16).")
		dst, src, n := a.Args()
		var low, bit13 Op
		var load64 func(m Mem, x VecVirtual)
		if double {
			load64 = oddF64Clear(a, 42)
		} else {
			low, bit13 = a.Splat(0x1FFF), a.Splat(0x2000)
		}
		f4 := a.halfF4KeyCodes(false)
		// load returns the j-th 8 elements of a step as float32 whose bits
		// below FLOAT16's precision are or'ed into bit 13.
		load := func(s *Step, j int) VecVirtual {
			x := a.YMM()
			if double {
				load64(s.Src.Offset(64*j), x)
				return x
			}
			t := a.YMM()
			a.VMOVDQU(s.Src.Offset(32*j), x)
			a.VPAND(low, x, t)
			a.VPADDD(low, t, t)
			a.VPAND(bit13, t, t)
			a.VPOR(t, x, x)
			return x
		}
		a.Stream(Loop{SrcSize: 2 * size, DstSize: 1, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
			var hs [2]VecVirtual
			for g := range hs {
				h := a.YMM()
				for j := range 2 {
					x := load(s, 2*g+j)
					if j == 0 {
						a.VCVTPS2PH(U8(3), x, h.AsX())
					} else {
						u := a.XMM()
						a.VCVTPS2PH(U8(3), x, u)
						a.VINSERTI128(U8(1), u, h, h)
					}
				}
				hs[g] = h // 16 FLOAT16 words
			}
			s.Store(f4(hs), s.Dst, 8, nil)
		}))
	}
}

// f32ToI4 truncates toward zero and keeps the low four bits: VCVTTPS2DQ
// gives the integer for |x| < 2^31 (a multiple of 16 from 2^27 on) and
// 0x80000000 otherwise, whose low bits are 0 as the generic code requires.
func f32ToI4(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f32ToI4"+isa.String(), isa, "func(dst *uint8, src *float32, n int)",
			"n counts pairs of source elements.")
		dst, src, n := a.Args()
		c0F, cF0 := a.Splat(0x0F), a.Splat(0xF0)
		a.Stream(Loop{SrcSize: 8, DstSize: 1, Lanes: a.Lanes32() / 2, Unroll: 4}, dst, src, n, Each(a.Lanes32()/2, func(s *Step) {
			x := a.Vec()
			a.VLoad(x, s.Src, 32, s.M(2, 0))
			a.VCVTTPS2DQ(x, x)
			a.nibblePairs(s, x, c0F, cF0)
		}))
	}
}

// f4ToF32 widens FLOAT4E2M1 through its 16-entry table with VPERMD; AVX2's
// VPERMD has 8 entries, so it looks up the magnitude and adds the sign.
func f4ToF32(a *Asm) {
	var mags [16]uint32
	for i, v := range []float32{0, 0.5, 1, 1.5, 2, 3, 4, 6} {
		mags[i] = math.Float32bits(v)
		mags[i+8] = math.Float32bits(-v)
	}
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f4ToF32"+isa.String(), isa, "func(dst *float32, src *uint8, n int)",
			"n counts source bytes.")
		dst, src, n := a.Args()
		var tab, sign Op
		if isa == AVX512 {
			tab = a.ConstTable("float4", mags[:])
		} else {
			tab = a.ConstTable("float4mag", mags[:8])
			sign = a.Splat(0x80000000)
		}
		a.Stream(Loop{SrcSize: 1, DstSize: 8, Lanes: a.Lanes32() / 2, Unroll: 4}, dst, src, n, Each(a.Lanes32()/2, func(s *Step) {
			q, t := a.Vec(), a.Vec()
			if s.Tail() {
				a.VLoad(q.AsX().(VecVirtual), s.Src, 8, s.M(1, 0))
				a.VPMOVZXBQ(q.AsX(), q)
			} else {
				a.VPMOVZXBQ(s.Src, q)
			}
			// q | q<<28 holds the byte's low nibble in bits 0..3 and its high
			// nibble in bits 32..35: VPERMD reads the low bits of each index.
			a.VPSLLQ(U8(28), q, t)
			a.Or(t, q, q)
			out := a.Vec()
			a.VPERMD(tab, q, out)
			if isa == AVX2 {
				a.VPSLLD(U8(28), q, q)
				a.And(sign, q, q)
				a.Or(q, out, out)
			}
			s.Store(out, s.Dst, 32, s.M(2, 0))
		}))
	}
}

// i8ToI4 packs pairs of bytes: second<<4 | first&15.
func i8ToI4(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("i8ToI4"+isa.String(), isa, "func(dst *uint8, src *uint8, n int)",
			"n counts pairs of source bytes.")
		dst, src, n := a.Args()
		lanes := a.Lanes32() * 2 // a vector of source bytes is this many pairs
		c := a.nibbleConsts()
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: lanes, Unroll: 2}, dst, src, n, Each(lanes, func(s *Step) {
			w := a.Vec()
			a.VLoad(w, s.Src, 8, s.M(2, 0))
			s.StoreLow(a.packNibbles(c, w), lanes, s.Dst, 8, s.M(1, 0))
		}))
	}
}

// nibbleConsts holds the constants of packNibbles, set up before a loop.
type nibbleConsts struct{ lo, hi Op }

func (a *Asm) nibbleConsts() nibbleConsts {
	if a.isa == AVX512 {
		return nibbleConsts{lo: a.Const8(0x0F)}
	}
	return nibbleConsts{lo: a.Splat(0x000F000F), hi: a.Splat(0x00F000F0)}
}

// packNibbles packs each pair of bytes of w into one, second<<4 | first&15,
// and returns the half register that holds them (w is overwritten).
func (a *Asm) packNibbles(c nibbleConsts, w VecVirtual) VecVirtual {
	t := a.Vec()
	a.VPSRLW(U8(4), w, t) // each 16-bit lane: first's high nibble, then second's low nibble in bits 4..7
	if a.isa == AVX512 {
		a.VPTERNLOGD(Tern(func(w, t, m uint8) uint8 { return w&m | t&^m }), c.lo, t, w)
		a.VPMOVWB(w, Half(w))
		return Half(w)
	}
	a.And(c.lo, w, w)
	a.And(c.hi, t, t)
	a.Or(t, w, w)
	x := a.XMM()
	a.VEXTRACTI128(U8(1), w, x)
	a.VPACKUSWB(x, Half(w), Half(w))
	return Half(w)
}

// unpack4 widens each nibble to a byte, zero- or sign-extended.
func unpack4(a *Asm) {
	for _, signed := range []bool{true, false} {
		name := "u4ToU8"
		if signed {
			name = "i4ToI8"
		}
		for _, isa := range []ISA{AVX2, AVX512} {
			a.Func(name+isa.String(), isa, "func(dst *uint8, src *uint8, n int)", "n counts source bytes.")
			dst, src, n := a.Args()
			lanes := a.Lanes32() * 2 // source bytes per step: one vector of 16-bit lanes
			low, eight := a.Splat(0x0F0F0F0F), a.Splat(0x08080808)
			a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: lanes, Unroll: 2}, dst, src, n, Each(lanes, func(s *Step) {
				w, t := a.Vec(), a.Vec()
				if s.Tail() {
					a.VLoad(Half(w), s.Src, 8, s.M(1, 0))
					a.VPMOVZXBW(Half(w), w)
				} else {
					a.VPMOVZXBW(s.Src, w)
				}
				a.VPSLLW(U8(4), w, t) // the high nibble to bits 8..11
				if isa == AVX512 {
					a.VPTERNLOGD(Tern(func(w, t, m uint8) uint8 { return (w | t) & m }), low, t, w)
				} else {
					a.Or(t, w, w)
					a.And(low, w, w)
				}
				if signed { // (v ^ 8) - 8
					a.Xor(eight, w, w)
					a.VPSUBB(eight, w, w)
				}
				s.Store(w, s.Dst, 8, s.M(2, 0))
			}))
		}
	}
}

// packConsts packs the low 4 or 2 bits of 64 or 128 bytes into 32 (as
// splitPacked does): per vector, VPAND keeps the code, VPMADDUBSW puts
// c0 + 16·c1 in each word (c0 + 4·c1, and VPMADDWD c0 + 4c1 + 16c2 + 64c3
// in each dword); VPACKUSWB and VPERMQ, or packDB4, order the bytes.
type packConsts struct {
	a              *Asm
	bits           int
	low, mul, w116 Op
	order          VecVirtual
}

func (a *Asm) packConsts(bits int) packConsts {
	p := packConsts{a: a, bits: bits, low: a.Splat(0x0F0F0F0F), mul: a.Splat(0x10011001)}
	if bits == 2 {
		p.low, p.mul, p.w116 = a.Splat(0x03030303), a.Splat(0x04010401), a.Splat(0x00100001)
		p.order = a.packOrder()
	}
	return p
}

// pack returns the packed codes of the 8/bits vectors that v gives, in
// order, in one YMM.
func (p packConsts) pack(v func(i int) VecVirtual) VecVirtual {
	a := p.a
	var r []VecVirtual
	for i := range 8 / p.bits {
		x := v(i)
		a.And(p.low, x, x)
		a.VPMADDUBSW(p.mul, x, x)
		if p.bits == 2 {
			a.VPMADDWD(p.w116, x, x)
		}
		r = append(r, x)
	}
	if p.bits == 4 {
		a.VPACKUSWB(r[1], r[0], r[0])
		a.VPERMQ(U8(0xD8), r[0], r[0])
		return r[0]
	}
	return a.packDB4(r, p.order)
}
