package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// widenF8 emits the AVX2 float8 → float32 kernels, one per type, in
// arithmetic (AVX2 has no byte permute that could hold a 256-entry table,
// and a gather is no faster than the generic loop); kernel_amd64.go picks
// one by the table's address. Each matches the type's widening table of
// params.go bit for bit.
//
// FLOAT8E4M3FN and FLOAT8E4M3FNUZ become FLOAT16 bits, which VCVTPH2PS
// widens exactly, and a product by 2^(15-bias) rebiases the exponent:
//
//	w = int16(int8(b)) << 7 & 0xBF80   (sign | magnitude << 7)
//	r = float32(w) · 2^(15-bias)
//
// A subnormal float8 is a subnormal FLOAT16, and a normal float32 after
// the conversion, so the product never sees a subnormal (which costs a
// microcode assist on some CPUs, and measurably on this Zen 5). The special
// bytes become the FLOAT16 NaN sign|0x7E00 first, whose float32 NaN
// sign|0x7FC00000 the product keeps.
//
// FLOAT8E5M2FNUZ has exponent 31 for finite values, so it cannot pass
// through FLOAT16; the byte's bits are placed as a float32 with the
// float8's exponent and multiplied by 2^(127-bias):
//
//	t = int32(int8(b)) << 21 & 0x8FE00000
//	r = float32(t) · 2^111
//
// A subnormal float8 is then a float32 subnormal m·2^-128 and the product
// m·2^-17 is its value (the bytes with |b| < 4, rare in real data, pay the
// subnormal input's cost there). 0x80, the NaN, is a negative zero here and
// becomes 0xFFC00000 before the product.
//
// FLOAT8E5M2 is the high byte of a FLOAT16: VCVTPH2PS widens it, Inf
// included, after its NaN bytes (magnitude 0x7D…0x7F) are given the
// mantissa 0b10, whose quiet NaN has no payload (0x7FC00000).
//
// FLOAT8E8M0 is the float32 exponent field: b << 23, but 0x00 is 2^-127
// (the subnormal 0x00400000) and 0xFF is NaN (0x7FC00000), both b << 23 |
// 0x00400000.
func widenF8(a *Asm) {
	for _, t := range []struct {
		name string
		bias int
		fnuz bool
	}{{"e4m3fn", 7, false}, {"e4m3fnuz", 8, true}} {
		a.Func(t.name+"ToF32AVX2", AVX2, "func(dst *float32, src *uint8, n int)")
		dst, src, n := a.Args()
		mask := a.Const16(0xBF80)
		scale := a.Const32(uint32(127+15-t.bias) << 23)
		var top, fix VecVirtual
		if t.fnuz {
			top, fix = a.Const16(0xFF80), a.Const16(0x7E00) // int8(0x80); 0x8000 | 0x7E00 is NaN
		} else {
			top, fix = a.Const16(0xFE00), a.Const16(0x3F80^0x7E00) // the magnitude 0x7F, alone; 0x3F80 to NaN
		}
		a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: 8, Unroll: 4}, dst, src, n, func(s *Step) {
			for i := 0; i < s.Lanes; i += 16 {
				p := s.Part(i, min(16, s.Lanes-i))
				x, w, m := a.Vec(), a.Vec(), a.Vec()
				c := func(v VecVirtual) VecVirtual { return v }
				if p.Lanes == 8 {
					c = func(v VecVirtual) VecVirtual { return v.AsX().(VecVirtual) }
				}
				a.VPMOVSXBW(p.Src, c(x))
				a.VPSLLW(U8(7), c(x), c(w))
				a.VPAND(c(mask), c(w), c(w)) // FLOAT16 bits: sign | magnitude << 7
				if t.fnuz {
					a.VPCMPEQW(c(top), c(x), c(m))
					a.VPAND(c(fix), c(m), c(m))
					a.VPOR(c(m), c(w), c(w))
				} else {
					a.VPSLLW(U8(9), c(x), c(m))
					a.VPCMPEQW(c(top), c(m), c(m))
					a.VPAND(c(fix), c(m), c(m))
					a.VPXOR(c(m), c(w), c(w))
				}
				for j := 0; j < p.Lanes; j += 8 {
					h := w.AsX().(VecVirtual)
					if j > 0 {
						h = a.XMM()
						a.VEXTRACTI128(U8(1), w, h)
					}
					r := a.Vec()
					a.VCVTPH2PS(h, r)
					a.VMULPS(scale, r, r)
					s.Store(r, p.Dst.Offset(4*j), 32, nil)
				}
			}
		})
	}

	// FLOAT8E5M2FNUZ
	a.Func("e5m2fnuzToF32AVX2", AVX2, "func(dst *float32, src *uint8, n int)")
	dst, src, n := a.Args()
	const sh = 21
	mask := a.Const32(0x80000000 | 0x7F<<sh)
	scale := a.Const32(uint32(127+127-16) << 23)
	nan := a.Const32(0x7FC00000)
	top := a.Const32(0xFFFFFF80) // int8(0x80)
	a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: 8, Unroll: 4}, dst, src, n, Each(8, func(s *Step) {
		x, r, m := a.Vec(), a.Vec(), a.Vec()
		a.VPMOVSXBD(s.Src, x)
		a.VPSLLD(U8(sh), x, r)
		a.VPAND(mask, r, r)
		a.VPCMPEQD(top, x, m) // 0x80: negative zero, so r = 0x80000000
		a.VPAND(nan, m, m)
		a.VPOR(m, r, r)
		a.VMULPS(scale, r, r)
		s.Store(r, s.Dst, 32, nil)
	}))

	a.Func("e5m2ToF32AVX2", AVX2, "func(dst *float32, src *uint8, n int)")
	dst, src, n = a.Args()
	abs, nanMin, three := a.Const8(0x7F), a.Const8(0x7C), a.Const8(3)
	zero := a.XMM()
	a.VPXOR(zero, zero, zero)
	a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: 8, Unroll: 4}, dst, src, n, func(s *Step) {
		for i := 0; i < s.Lanes; i += 16 {
			p := s.Part(i, min(16, s.Lanes-i))
			b, m, c := a.XMM(), a.XMM(), a.XMM()
			if p.Lanes == 16 {
				a.VMOVDQU(p.Src, b)
			} else {
				a.VMOVQ(p.Src, b)
			}
			a.VPAND(abs.AsX(), b, m)
			a.VPCMPGTB(nanMin.AsX(), m, m) // NaN: 0xFF
			a.VPAND(three.AsX(), m, c)
			a.VPOR(c, b, b)
			a.VPADDB(m, b, b) // low bits 0b11 - 1
			for j := 0; j < p.Lanes; j += 8 {
				w, r := a.XMM(), a.Vec()
				if j == 0 {
					a.VPUNPCKLBW(b, zero, w)
				} else {
					a.VPUNPCKHBW(b, zero, w)
				}
				a.VCVTPH2PS(w, r)
				s.Store(r, p.Dst.Offset(4*j), 32, nil)
			}
		}
	})

	a.Func("e8m0ToF32AVX2", AVX2, "func(dst *float32, src *uint8, n int)")
	dst, src, n = a.Args()
	inf, low := a.Const32(0x7F800000), a.Const32(0x00400000)
	zero = a.Vec()
	a.VPXOR(zero, zero, zero)
	a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: 8, Unroll: 4}, dst, src, n, Each(8, func(s *Step) {
		r, m, f := a.Vec(), a.Vec(), a.Vec()
		a.VPMOVZXBD(s.Src, r)
		a.VPSLLD(U8(23), r, r)
		a.VPCMPEQD(zero, r, m)
		a.VPCMPEQD(inf, r, f)
		a.VPOR(f, m, m)
		a.VPAND(low, m, m)
		a.VPOR(m, r, r)
		s.Store(r, s.Dst, 32, nil)
	}))
}
