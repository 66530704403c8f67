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
//
// The other e8m0Sources have kernels of their own (e8m0Fused), which
// measured faster than this core after a widening or a round to odd.
func f32ToE8M0(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		f32ToE8M0From(a, e8m0Sources[0], isa)
	}
}

// e8m0Fused emits the AVX-512 and AVX2 kernels of the other e8m0Sources (no
// streaming variants: the fused stages have none): the 16-bit sources on
// 16-bit lanes on AVX-512 (e8m0w.go) and on AVX2 by bf16ToE8M0AVX2,
// f16ToE8M0AVX2 and intToE8M0AVX2, INT32 and UINT32 by e8m0Int's integer
// algorithm on AVX-512 and intToE8M0AVX2 on AVX2 (the round to odd in
// registers followed by the core measured no faster than the two stages on
// AVX2).
func e8m0Fused(a *Asm) {
	for _, src := range e8m0Sources[1:] {
		if src.size == 4 { // the 32-bit integers: e8m0Int
			continue
		}
		e8m0W(a, src)
		switch src.name {
		case "bf16":
			bf16ToE8M0AVX2(a)
		case "f16":
			f16ToE8M0AVX2(a)
		default:
			intToE8M0AVX2(a, src)
		}
	}
	for _, src := range e8m0Sources[1:] {
		if src.size == 4 {
			intToE8M0AVX2(a, src)
		}
	}
	for _, src := range e8m0Sources[1:] {
		if src.size == 4 {
			e8m0Int(a, src)
		}
	}
}

// bf16ToE8M0AVX2 is BFLOAT16 → FLOAT8E8M0 on AVX2 in 16-bit lanes, 32
// elements a step, with e8m0W's clamp on the magnitude a (d = 1 when not
// saturating): e = ((a + add - d<<7) mod 2^16) >> 7 and r = min(e, 0xFE) + d
// (zero wraps to the underflow code, Inf clamps to overflow); NaN lanes
// take 0xFF.
// A subnormal a·2^-133 (a < 0x80) lies below 2^-126 = 128·2^-133: it
// rounds to 2^-126 (code 1) from a = T1, to 2^-127 = 64·2^-133 (code 0)
// from a = T0, and below that underflows, with T0 = 64 - (add >> 2) and
// T1 = 128 - (add >> 1): up (add = 0x7F) 33 and 65, nearest (0x40, ties up
// at 1.5 times a power of two) 48 and 96, down (0) 64 and 128. About 15
// instructions per 16 elements against 26 on the widened float32 lanes.
func bf16ToE8M0AVX2(a *Asm) {
	dst, src, n, p, under := e8m0Words(a, "bf16ToE8M0AVX2")
	word := a.WordOf
	d := word(func(r GPVirtual) {
		a.MOVL(Mem{Base: p, Disp: e8Underflow}, r)
		a.ANDL(U8(1), r)
	})
	k := word(func(r GPVirtual) { // add - d<<7
		t := a.GP32()
		a.MOVL(Mem{Base: p, Disp: e8Underflow}, t)
		a.ANDL(U8(1), t)
		a.SHLL(U8(7), t)
		a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, r)
		a.SHRL(U8(16), r)
		a.SUBL(t, r)
	})
	threshold := func(top, sh uint8) VecVirtual { // top - 1 - (add >> sh)
		return word(func(r GPVirtual) {
			t := a.GP32()
			a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, t)
			a.SHRL(U8(16+sh), t)
			a.MOVL(U32(uint32(top)-1), r)
			a.SUBL(t, r)
		})
	}
	below0, below1 := threshold(64, 2), threshold(128, 1)
	w := func(v uint16) Op { return a.Splat(uint32(v) * 0x10001) }
	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
		var rs [2]VecVirtual
		for h := range 2 {
			x, e := a.roundedField(s.Src.Offset(32*h), k, 7)
			c, v := a.YMM(), a.YMM()
			a.VPMINUW(w(0xFE), e, e)
			a.VPADDW(d, e, e)
			a.VPCMPGTW(w(0x7F80), x, c) // NaN
			a.VPBLENDVB(c, w(0xFF), e, e)
			a.VPCMPGTW(below0, x, c) // a ≥ T0: code 0 (or 1)
			a.VPANDN(under, c, v)
			a.VPCMPGTW(below1, x, c) // a ≥ T1: code 1
			a.VPSUBW(c, v, v)
			a.VPCMPGTW(w(0x7F), x, c) // normal (or Inf, NaN); else subnormal or zero (the underflow code)
			a.VPBLENDVB(c, e, v, e)
			rs[h] = e
		}
		a.VPACKUSWB(rs[1], rs[0], rs[0])
		a.VPERMQ(U8(0b11_01_10_00), rs[0], rs[0])
		s.Store(rs[0], s.Dst, 8, nil)
	})
}

// intToE8M0AVX2 is INT16, UINT16, INT32 or UINT32 → FLOAT8E8M0 on AVX2, 32
// elements a step. The code is the exponent field of an exact float32
// rounded by roundAdd, (bits(f) + roundAdd) >> 23:
//
//   - 16-bit: f = a = |x| widened to 32 bits (VPMOVSXWD, VPABSD: -32768
//     gives 2^15), at most 143, nothing overflows. Five instructions per 8
//     elements (UINT16: four) where the float32 core, with its clamps, took
//     seven (Zen 3: INT16 0.26-0.30 → 0.38× copy(), UINT16 0.27-0.31 →
//     0.46-0.51×).
//   - 32-bit: a = |x| (VPABSD; INT32's minimum stays 2^31, read unsigned)
//     itself below 2^24, else f = (a >> 8) | s with the sticky bit s = 1
//     where a's low byte is not zero, and 8 added to the field. The sticky
//     bit changes no mode's carry: up reads any bit below the leading one,
//     nearest the one right below it, at bit 15 or higher of a >> 8. About
//     14 instructions per 8 elements where e8m0Int's leading-one carry test
//     took 19 (Zen 3: INT32 0.27-0.36 → 0.46-0.48× copy(), UINT32 0.38 →
//     0.46-0.50×).
//
// Zero gives the code 0, the saturating underflow code; a VPBLENDVB on the
// packed bytes puts p's underflow code there, which changes them only when
// not saturating (no other code is 0).
func intToE8M0AVX2(a *Asm, from e8m0Source) {
	a.Func(from.name+"ToE8M0AVX2", AVX2, "func(dst *uint8, src *"+from.typ+", n int, p *[4]uint32)")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	under := a.paramByte(Mem{Base: p, Disp: e8Underflow}) // its low byte
	roundAdd := a.Splat32(Mem{Base: p, Disp: e8RoundAdd})
	order, zero := a.packOrder(), a.YMM()
	a.VPXOR(zero, zero, zero)
	signed := from.name == "i16" || from.name == "i32"
	a.Stream(Loop{SrcSize: from.size, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
		var rs []VecVirtual
		for q := range 4 {
			x := a.YMM()
			var small VecVirtual // 32-bit: the lanes below 2^24
			switch {
			case from.size == 2 && signed:
				a.VPMOVSXWD(s.Src.Offset(16*q), x)
				a.VPABSD(x, x)
			case from.size == 2:
				a.VPMOVZXWD(s.Src.Offset(16*q), x)
			default:
				h, t := a.YMM(), a.YMM()
				small = a.YMM()
				a.VMOVDQU(s.Src.Offset(32*q), x)
				if signed {
					a.VPABSD(x, x)
				}
				a.VPSRLD(U8(8), x, h)
				a.VPAND(a.Splat(0xFF), x, t)
				a.VPMINUD(a.Splat(1), t, t) // the sticky bit
				a.VPOR(t, h, h)
				a.VPSRLD(U8(24), x, small)
				a.VPCMPEQD(zero, small, small)
				a.VPBLENDVB(small, x, h, x)
			}
			a.VCVTDQ2PS(x, x)
			a.VPADDD(roundAdd, x, x)
			a.VPSRLD(U8(23), x, x)
			if small != nil {
				a.VPANDN(a.Splat(8), small, small)
				a.VPADDD(small, x, x)
			}
			rs = append(rs, x)
		}
		c, z := a.packDB4(rs, order), a.YMM()
		a.VPCMPEQB(zero, c, z)
		a.VPBLENDVB(z, under, c, c)
		s.Store(c, s.Dst, 8, nil)
	})
}

// e8m0Words starts the AVX2 16-bit-lane E8M0 kernel name: its arguments,
// p, and the underflow code in every word.
func e8m0Words(a *Asm, name string) (dst, src, n, p GPVirtual, under VecVirtual) {
	a.Func(name, AVX2, "func(dst *uint8, src *uint16, n int, p *[4]uint32)")
	dst, src, n = a.Args()
	p = a.GP64()
	a.Context.Load(a.Param("p"), p)
	under = a.WordOf(func(r GPVirtual) {
		a.MOVL(Mem{Base: p, Disp: e8Underflow}, r)
		a.ANDL(U32(0xFF), r)
	})
	return dst, src, n, p, under
}

// roundedField loads 16 words at m (AVX2) and returns their magnitudes x
// and e = (x + add) >> shift: the exponent field rounded by add.
func (a *Asm) roundedField(m Mem, add Op, shift uint8) (x, e VecVirtual) {
	x, e = a.YMM(), a.YMM()
	a.VMOVDQU(m, x)
	a.VPAND(a.Splat(0x7FFF7FFF), x, x)
	a.VPADDW(add, x, e)
	a.VPSRLW(U8(shift), e, e)
	return x, e
}

// f16ToE8M0AVX2 is FLOAT16 → FLOAT8E8M0 on AVX2 in 16-bit lanes, 32
// elements a step, on the FLOAT16 bits (e8m0W's f16E8M0Direct): with a the
// magnitude and add = roundAdd >> 13 (0x3FF up, 0x200 nearest, 0 down),
// a normal a gives ((a + add) >> 10) + 112; ±Inf and NaN (a ≥ 0x7C00)
// min(a - (0x7C00 - 0xFE - d), 0xFF) (Inf: overflow, 0xFE + d; NaN: 0xFF);
// zero the underflow code. A subnormal a·2^-24 (never below E8M0's range)
// is the exponent of its exact float32 rounded by roundAdd, less 24:
// ((bits(float32(a)) + roundAdd) >> 23) - 24, computed out of line for the
// blocks that hold one (rare: below 2^-14). About 15 instructions per 16
// elements against 26 on the widened float32 lanes.
func f16ToE8M0AVX2(a *Asm) {
	dst, src, n, p, under := e8m0Words(a, "f16ToE8M0AVX2")
	word := a.WordOf
	add := word(func(r GPVirtual) {
		a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, r)
		a.SHRL(U8(13), r)
	})
	spec := word(func(r GPVirtual) { // 0x7C00 - 0xFE - d
		t := a.GP32()
		a.MOVL(Mem{Base: p, Disp: e8Underflow}, t)
		a.ANDL(U8(1), t)
		a.MOVL(U32(0x7C00-0xFE), r)
		a.SUBL(t, r)
	})
	roundAdd := a.Splat32(Mem{Base: p, Disp: e8RoundAdd})
	w := func(v uint16) Op { return a.Splat(uint32(v) * 0x10001) }
	zero := a.YMM()
	a.VPXOR(zero, zero, zero)
	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
		var rs, xs, subs [2]VecVirtual
		for h := range 2 {
			x, e := a.roundedField(s.Src.Offset(32*h), add, 10)
			c, v := a.YMM(), a.YMM()
			a.VPADDW(w(112), e, e)
			a.VPCMPGTW(w(0x7BFF), x, c) // Inf, NaN
			a.VPSUBW(spec, x, v)
			a.VPMINUW(w(0xFF), v, v)
			a.VPBLENDVB(c, v, e, e)
			a.VPCMPEQW(zero, x, c)
			a.VPBLENDVB(c, under, e, e)
			sub := a.YMM()
			a.VPADDW(w(0x7C00), x, sub)
			a.VPCMPGTW(w(0x7C00), sub, sub) // a in 1..0x3FF
			rs[h], xs[h], subs[h] = e, x, sub
		}
		any := a.YMM()
		a.VPOR(subs[1], subs[0], any)
		fix, back := a.NewLabel("subnormal"), a.NewLabel("packed")
		a.VPTEST(any, any)
		a.JNZ(LabelRef(fix))
		a.Label(back)
		a.VPACKUSWB(rs[1], rs[0], rs[0])
		a.VPERMQ(U8(0b11_01_10_00), rs[0], rs[0])
		s.Store(rs[0], s.Dst, 8, nil)
		a.OutOfLine(func() {
			a.Label(fix)
			for h := range 2 {
				var ds [2]VecVirtual
				for q := range 2 { // the 8 lanes of each 128-bit half, as float32
					d := a.YMM()
					if q == 0 {
						a.VPMOVZXWD(xs[h].AsX(), d)
					} else {
						t := a.XMM()
						a.VEXTRACTI128(U8(1), xs[h], t)
						a.VPMOVZXWD(t, d)
					}
					a.VCVTDQ2PS(d, d)
					a.VPADDD(roundAdd, d, d)
					a.VPSRLD(U8(23), d, d)
					a.VPSUBD(a.Splat(24), d, d)
					ds[q] = d
				}
				a.VPACKUSDW(ds[1], ds[0], ds[0])
				a.VPERMQ(U8(0b11_01_10_00), ds[0], ds[0])
				a.VPBLENDVB(subs[h], ds[0], rs[h], rs[h])
			}
			a.JMP(LabelRef(back))
		})
	})
}

// e8m0Int emits the AVX-512 INT32 or UINT32 → FLOAT8E8M0 kernel, on the
// magnitude a as an integer, as the portable intToE8M0 does: E8M0 is the
// exponent k of a's leading one, plus 1 where the bits below it,
// left-aligned (m = a << (32-k), 0 for k = 0), carry when the mode's add is
// added (up: 2^32-1, any bit; nearest: 2^31, the top one; down: 0; add =
// roundAdd << 9 with roundAdd's low bit repeated below, which gives those
// three from e8m0Table's). Zero gives the underflow code, and nothing
// overflows. k is the exponent field of a float32 conversion that cannot
// round up into the next power of two ({rz-sae} truncates). No round to odd
// and no float core: about half the operations of the odd stage and the
// E8M0 kernel in sequence. (AVX2: intToE8M0AVX2.)
func e8m0Int(a *Asm, from e8m0Source) {
	a.Func(from.name+"ToE8M0AVX512", AVX512, "func(dst *uint8, src *"+from.typ+", n int, p *[4]uint32)")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	notAdd, t := a.Vec(), a.Vec()
	add := a.Splat32(Mem{Base: p, Disp: e8RoundAdd})
	a.VPSLLD(U8(31), add, t)
	a.VPSRAD(U8(31), t, t)
	a.VPSRLD(U8(23), t, t) // 0x1FF where roundAdd is odd
	a.VPSLLD(U8(9), add, notAdd)
	a.Or(t, notAdd, notAdd)
	a.VPTERNLOGD(U8(0x55), notAdd, notAdd, notAdd) // not
	under := a.Splat32(Mem{Base: p, Disp: e8Underflow})
	c159, one := a.Const32(127+32), a.Splat(1)
	order := a.packOrder()
	lanes := a.Lanes32()
	signed := from.name == "i32"
	a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: lanes, Unroll: 4}, dst, src, n, func(s *Step) {
		var rs []VecVirtual
		for i := 0; i < s.Lanes; i += lanes {
			p := s.Part(i, lanes)
			x, e, cnt, m := a.Vec(), a.Vec(), a.Vec(), a.Vec()
			a.VLoad(x, p.Src, 32, p.M(1, 0))
			if signed {
				a.VPABSD(x, x) // INT32's minimum stays 2^31, read unsigned
			}
			a.VCVTUDQ2PS_RZ_SAE(x, e)
			a.VPSRLD(U8(23), e, e) // 127 + k
			a.VPSUBD(e, c159, cnt) // 32 - k
			a.VPSLLVD(cnt, x, m)
			k, z := a.K(), a.K()
			a.VPCMPUD(U8(cmpGT), notAdd, m, k)
			a.VPADDD(one, e, k, e)
			a.VPTESTNMD(x, x, z)
			a.VMOVDQA32(under, z, e)
			rs = append(rs, e)
		}
		if len(rs) == 4 {
			s.Store(a.packDB4(rs, order), s.Dst, 8, nil)
			return
		}
		s.StoreLow(a.packDB(rs[0]), lanes, s.Dst, 8, s.M(1, 0))
	})
}

// e8m0Clamp returns the bounds of the E8M0 kernels' clamp,
// min_unsigned(max_signed(e, lo), overflow), in every 32-bit lane:
// lo = int8(underflow), 0 when saturating, else -1; overflow as p has it.
func e8m0Clamp(a *Asm, p GPVirtual) (lo, overflow VecVirtual) {
	overflow = a.Splat32(Mem{Base: p, Disp: e8Overflow})
	lo = a.Splat32(Mem{Base: p, Disp: e8Underflow})
	a.VPSLLD(U8(24), lo, lo)
	a.VPSRAD(U8(24), lo, lo)
	return lo, overflow
}

// e8m0Add64 returns in a general register p's roundAdd widened to a
// 64-bit add at a lower bit: roundAdd << shift with roundAdd's low bit
// repeated in the shift bits below (up: all ones, nearest: the top bit of
// what is dropped, down: 0), as e8m0Int widens it to 32 bits.
func e8m0Add64(a *Asm, p GPVirtual, shift uint8) GPVirtual {
	add, low := a.GP64(), a.GP64()
	a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, add.As32())
	a.MOVQ(add, low)
	a.ANDQ(U8(1), low)
	a.NEGQ(low)
	a.SHRQ(U8(64-shift), low)
	a.SHLQ(U8(shift), add)
	a.ORQ(low, add)
	return add
}

// e8m0Source is a source of the E8M0 kernels: its name (the kernel is
// name+"ToE8M0"+ISA), Go element type and size, and how a vector of it
// becomes float32 lanes.
type e8m0Source struct {
	name, typ string
	size      int
	t         num
}

var e8m0Sources = []e8m0Source{
	{"f32", "float32", 4, tF32}, {"f16", "uint16", 2, num{}}, {"bf16", "uint16", 2, num{}},
	{"i16", "uint16", 2, tI16}, {"u16", "uint16", 2, tU16}, {"i32", "uint32", 4, tI32}, {"u32", "uint32", 4, tU32},
}

func f32ToE8M0From(a *Asm, from e8m0Source, isa ISA) {
	{
		a.Func(from.name+"ToE8M0"+isa.String(), isa, "func(dst *uint8, src *"+from.typ+", n int, p *[4]uint32)")
		dst, src, n := a.Args()
		p := a.GP64()
		a.Context.Load(a.Param("p"), p)
		abs, minNormal, inf := a.Splat(0x7FFFFFFF), a.Const32(0x00800000), a.Splat(0x7F800000)
		scale, ff := a.Splat(149), a.Splat(0xFF)
		roundAdd := a.Splat32(Mem{Base: p, Disp: e8RoundAdd})
		lo, overflow := e8m0Clamp(a, p)
		order := a.packOrder()
		lanes := a.Lanes32()
		// classic converts the elements of s one vector at a time: every
		// input, subnormals and NaN included.
		classic := func(s *Step) {
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
		}
		if isa == AVX2 {
			a.Stream(Loop{SrcSize: from.size, DstSize: 1, Lanes: lanes, Unroll: 4}, dst, src, n, classic)
			return
		}
		fast := e8m0Fast(a, p, order)
		a.Stream(Loop{SrcSize: from.size, DstSize: 1, Lanes: lanes, Unroll: 4}, dst, src, n, func(s *Step) {
			if s.Lanes < 4*lanes {
				classic(s)
				return
			}
			fast(s, func() { classic(s) })
		})
	}
}

// e8m0Fast returns the AVX-512 FLOAT → E8M0 path of a full step of 64
// elements without subnormals or NaN (zero too where p does not saturate):
// a step with any of them runs classic, out of line. With y = x + x (|x|
// shifted up, the sign dropped), e = (|x| + roundAdd) >> 23 is byte 3 of
// y + 2·roundAdd (below 2^32 for every non-NaN x), shifted down and packed
// to bytes as classic packs; the rounding cannot underflow there (every
// normal float32 is at least E8M0's 2^-127) and e ≥ 255 becomes p's
// overflow byte by one VPMINUB. The test, on four vectors at once: the
// largest y above 0xFF000000 (±Inf's) is a NaN; the smallest t = y - z
// below 2^24 - z (2^24 is the smallest normal's y) is a subnormal or, with
// z = 0 (p does not saturate, where 0 underflows to 0xFF), a zero; with
// z = 1 a zero wraps to 2^32 - 1 and converts here (e = 0, as classic's
// clamp gives). About 14 instructions per 64 elements where classic takes
// 38.
func e8m0Fast(a *Asm, p GPVirtual, order VecVirtual) func(s *Step, slow func()) {
	g, z := a.GP32(), a.GP32()
	a.MOVL(Mem{Base: p, Disp: e8Underflow}, z) // 0 when saturating, else 0xFF
	a.SHRL(U8(7), z)
	a.XORL(U8(1), z) // z: 1 when saturating, else 0
	zV := a.Vec()
	a.VPBROADCASTD(z, zV)
	a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, g)
	a.ADDL(g, g)
	a.ADDL(z, g)
	add := a.Vec() // 2·roundAdd + z: t + add = y + 2·roundAdd
	a.VPBROADCASTD(g, add)
	a.MOVL(U32(1<<24), g)
	a.SUBL(z, g)
	below := a.Vec() // 2^24 - z
	a.VPBROADCASTD(g, below)
	nanY := a.Splat(0xFF000000)
	ovB := a.paramByte(Mem{Base: p, Disp: e8Overflow})
	return func(s *Step, slow func()) {
		var fs [4]VecVirtual
		var mx, mn VecVirtual
		for i := range fs {
			y, t := a.Vec(), a.Vec()
			a.VMOVDQU64(s.Src.Offset(64*i), y)
			a.VPADDD(y, y, y)
			a.VPSUBD(zV, y, t)
			fs[i] = a.Vec()
			a.VPADDD(add, t, fs[i])
			if i == 0 {
				mx, mn = y, t
				continue
			}
			a.VPMAXUD(y, mx, mx)
			a.VPMINUD(t, mn, mn)
		}
		nan, sub := a.K(), a.K()
		a.VPCMPUD(U8(cmpGT), nanY, mx, nan)
		a.VPCMPUD(U8(cmpLT), below, mn, sub)
		a.KORTESTW(nan, sub)
		a.divert(func() {
			for _, f := range fs {
				a.VPSRLD(U8(24), f, f)
			}
			r := a.packDB4(fs[:], order)
			a.VPMINUB(ovB, r, r)
			s.Store(r, s.Dst, 8, nil)
		}, slow)
	}
}
