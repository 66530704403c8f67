package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The 16-bit floats. FLOAT16 has hardware conversions on both families
// (F16C, and its EVEX forms); BFLOAT16 narrowing is integer
// round-to-nearest-even, widening a shift.

// cmpUnord is the VCMPPS predicate that selects NaN lanes (x unordered with
// itself).
const cmpUnord = 3

// f32ToF16: VCVTPS2PH with imm8 = 0 rounds to nearest even whatever MXCSR
// says, and quiets NaNs keeping the sign and the top payload bits, as the
// generic kernel does.
func f32ToF16(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f32ToF16"+isa.String(), isa, "func(dst *uint16, src *float32, n int)")
		dst, src, n := a.Args()
		a.Stream(Loop{SrcSize: 4, DstSize: 2, Lanes: a.Lanes32(), Unroll: 4}, dst, src, n, Each(a.Lanes32(), func(s *Step) {
			x := a.Vec()
			a.VLoad(x, s.Src, 32, s.M(1, 0))
			a.VCVTPS2PH(U8(0), x, Half(x))
			s.Store(Half(x), s.Dst, 16, s.M(1, 0))
		}))
	}
}

// f16ToF32: VCVTPH2PS is exact; it quiets NaNs keeping the payload.
func f16ToF32(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f16ToF32"+isa.String(), isa, "func(dst *float32, src *uint16, n int)")
		dst, src, n := a.Args()
		a.Stream(Loop{SrcSize: 2, DstSize: 4, Lanes: a.Lanes32(), Unroll: 8}, dst, src, n, Each(a.Lanes32(), func(s *Step) {
			x := a.Vec()
			if isa == AVX512 { // measured: a separate load is faster there, the folded one on AVX2
				a.VLoad(Half(x), s.Src, 16, s.M(1, 0))
				a.VCVTPH2PS(Half(x), x)
			} else {
				a.VCVTPH2PS(s.Src, x)
			}
			s.Store(x, s.Dst, 32, s.M(1, 0))
		}))
	}
}

// f32ToBF16 rounds to nearest even in integer arithmetic:
//
//	NaN lanes:  x = x&0x80000000 | 0x7FC00000 (so the rounding below yields sign|0x7FC0)
//	all lanes:  (x + 0x7FFF + (x>>16)&1) >> 16
//
// On AVX-512, VPERMT2W gathers the high halves of two vectors into one: the
// shift and the narrowing in one instruction. (Adding the rounding bit
// through a k mask from VPTESTMD is slower: on this Zen 5 the instructions
// that write k masks issue about once per cycle.) Where the CPU has
// AVX512_BF16, f32ToBF16BF16 below serves instead.
func f32ToBF16(a *Asm) {
	a.Func("f32ToBF16AVX512", AVX512, "func(dst *uint16, src *float32, n int)")
	dst, src, n := a.Args()
	sign, qnan, lsb, bias := a.Const32(0x80000000), a.Const32(0x7FC00000), a.Const32(0x10000), a.Const32(0x7FFF)
	odd := a.ConstWords("oddwords", seq(1, 2, 1, 32))
	a.Stream(Loop{SrcSize: 4, DstSize: 2, Lanes: 16, Unroll: 4}, dst, src, n, func(s *Step) {
		var rs []VecVirtual
		for i := 0; i < s.Lanes; i += 16 {
			p := s.Part(i, 16)
			x, r, t := a.Vec(), a.Vec(), a.Vec()
			nan := a.K()
			a.VLoad(x, p.Src, 32, p.M(1, 0))
			a.VCMPPS(U8(cmpUnord), x, x, nan)
			a.VPTERNLOGD(Tern(func(x, s, q uint8) uint8 { return x&s | q }), qnan, sign, nan, x)
			a.VPANDD(lsb, x, t)
			a.VPSRLD(U8(16), t, t)
			a.VPADDD(bias, x, r)
			a.VPADDD(t, r, r)
			rs = append(rs, r)
		}
		if len(rs) == 1 {
			a.VPERMW(rs[0], odd, rs[0])
			s.Store(Half(rs[0]), s.Dst, 16, s.M(1, 0))
			return
		}
		for i := 0; i < len(rs); i += 2 {
			a.VPERMT2W(rs[i+1], odd, rs[i])
			s.Store(rs[i], s.Dst.Offset(32*i), 16, nil)
		}
	})

	// AVX2: the NaN fix (a compare, a blend and two logic operations per 8
	// elements) runs out of line, for the blocks of 32 that hold a NaN;
	// the others only round (about 36 instructions per 32 elements against
	// 44).
	a.Func("f32ToBF16AVX2", AVX2, "func(dst *uint16, src *float32, n int)")
	dst, src, n = a.Args()
	quiet := a.quietNaNs()
	one, bias2 := a.Splat(1), a.Splat(0x7FFF)
	a.Stream(Loop{SrcSize: 4, DstSize: 2, Lanes: 8, Unroll: 4}, dst, src, n, func(s *Step) {
		var xs, ms []VecVirtual
		for i := 0; i < s.Lanes; i += 8 {
			x, m := a.Vec(), a.Vec()
			a.VLoad(x, s.Part(i, 8).Src, 32, nil)
			a.VCMPPS(U8(cmpUnord), x, x, m)
			xs, ms = append(xs, x), append(ms, m)
		}
		var fix, back string
		if len(xs) > 1 {
			any := a.Vec()
			a.VPOR(ms[1], ms[0], any)
			for _, m := range ms[2:] {
				a.VPOR(m, any, any)
			}
			fix, back = a.NewLabel("nan"), a.NewLabel("quiet")
			a.VPTEST(any, any)
			a.JNZ(LabelRef(fix))
			a.Label(back)
		}
		if fix != "" {
			a.OutOfLine(func() {
				a.Label(fix)
				for i, x := range xs {
					quiet(x, ms[i])
				}
				a.JMP(LabelRef(back))
			})
		} else {
			quiet(xs[0], ms[0])
		}
		var rs []VecVirtual
		for _, x := range xs {
			r := a.Vec()
			a.roundBF16(x, one, bias2, r)
			rs = append(rs, r)
		}
		if len(rs) == 1 {
			a.packDW(rs[0])
			s.Store(Half(rs[0]), s.Dst, 16, nil)
			return
		}
		for i := 0; i < len(rs); i += 2 {
			a.VPACKUSDW(rs[i+1], rs[i], rs[i])        // in each 128-bit lane: 4 of rs[i], then 4 of rs[i+1]
			a.VPERMQ(U8(0b11_01_10_00), rs[i], rs[i]) // qwords 0 2 1 3
			s.Store(rs[i], s.Dst.Offset(16*i), 16, nil)
		}
	})
}

// f32ToBF16BF16 uses VCVTNE2PS2BF16 (AVX512_BF16), which rounds to nearest
// even like the integer kernel but flushes subnormal inputs to zero and
// keeps NaN payloads. Each block of 32 is classified first (VFPCLASSPS); a
// block with a NaN or a subnormal takes an out-of-line path that fixes the
// inputs before converting:
//
//	NaN:       x = x&0x80000000 | 0x7FC00000, which converts to sign|0x7FC0
//	subnormal: x += 0x00800000, which makes it 2^-126 + |x| with the same
//	           rounding position; the result is then 0x0080 too large
//
// On data without such values (most tensors) this is half the work of the
// integer kernel; with them it is about as fast (measured; a branch-free
// version that always fixes up is slower than the integer kernel).
func f32ToBF16BF16(a *Asm) {
	a.Func("f32ToBF16AVX512BF16", AVX512, "func(dst *uint16, src *float32, n int)")
	a.Needs("AVX512DQ", "AVX512_BF16") // VFPCLASSPS, VCVTNE2PS2BF16
	dst, src, n := a.Args()
	conv := a.bf16Classified()
	a.Stream(Loop{SrcSize: 4, DstSize: 2, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
		x0, x1, y := a.Vec(), a.Vec(), a.Vec()
		a.VLoad(x0, s.Src, 32, s.M(1, 0))
		a.VLoad(x1, s.Src.Offset(64), 32, s.M(1, 16))
		conv(x0, x1, y)
		s.Store(y, s.Dst, 16, s.M(1, 0))
	}))
}

// bf16Classified returns f32ToBF16BF16's conversion of two vectors of
// float32 lanes x0, x1 (x0's in the low half of y): VFPCLASSPS finds NaN
// and subnormal lanes, and only a pair with one takes the out-of-line fix
// (x0 and x1 are changed there).
func (a *Asm) bf16Classified() func(x0, x1, y VecVirtual) {
	sign, qnan, min, min16 := a.Const32(0x80000000), a.Const32(0x7FC00000), a.Const32(0x00800000), a.Const16(0x0080)
	const nan, subnormal = 0x81, 0x20 // VFPCLASSPS classes: QNaN|SNaN, denormal
	return func(x0, x1, y VecVirtual) {
		k0, k1 := a.K(), a.K()
		a.VFPCLASSPSZ(U8(nan|subnormal), x0, k0)
		a.VFPCLASSPSZ(U8(nan|subnormal), x1, k1)
		a.KORTESTW(k0, k1)
		a.divert(func() { a.VCVTNE2PS2BF16(x0, x1, y) }, func() {
			n0, n1, s0, s1, sub := a.K(), a.K(), a.K(), a.K(), a.K()
			a.VFPCLASSPSZ(U8(nan), x0, n0)
			a.VFPCLASSPSZ(U8(nan), x1, n1)
			a.VFPCLASSPSZ(U8(subnormal), x0, s0)
			a.VFPCLASSPSZ(U8(subnormal), x1, s1)
			quiet := Tern(func(x, s, q uint8) uint8 { return x&s | q })
			a.VPTERNLOGD(quiet, qnan, sign, n0, x0)
			a.VPTERNLOGD(quiet, qnan, sign, n1, x1)
			a.VPADDD(min, x0, s0, x0)
			a.VPADDD(min, x1, s1, x1)
			a.VCVTNE2PS2BF16(x0, x1, y)
			a.KUNPCKWD(s0, s1, sub) // sub = s1:s0
			a.VPSUBW(min16, y, sub, y)
		})
	}
}

// roundBF16 sets dst to the float32 bits x (not NaN) rounded to nearest
// even at 16 bits, in the low half of each 32-bit lane (AVX2): (x + bias +
// (x>>16)&1) >> 16 with bias 0x7FFF and one 1 in every lane.
func (a *Asm) roundBF16(x VecVirtual, one, bias Op, dst VecVirtual) {
	t := a.Vec()
	a.VPSRLD(U8(16), x, t)
	a.VPAND(one, t, t)
	a.VPADDD(bias, x, dst)
	a.VPADDD(t, dst, dst)
	a.VPSRLD(U8(16), dst, dst)
}

// packDW narrows the 32-bit lanes of r (each < 2^16) to 16 bits, in order,
// into Half(r).
func (a *Asm) packDW(r VecVirtual) {
	if a.isa == AVX512 {
		a.VPMOVDW(r, Half(r))
		return
	}
	hi := a.XMM()
	a.VEXTRACTI128(U8(1), r, hi)
	a.VPACKUSDW(hi, Half(r), Half(r))
}

// bf16ToF32 widens with a shift and sets the quiet bit of NaNs. On AVX-512,
// VPERMW with a zeroing mask places each 16-bit input in the high half of a
// 32-bit lane (the shift and the widening in one instruction), 32 inputs per
// load.
func bf16ToF32(a *Asm) {
	a.Func("bf16ToF32AVX512", AVX512, "func(dst *float32, src *uint16, n int)")
	dst, src, n := a.Args()
	quiet, abs16, c7F := a.Const16(0x0040), a.Const16(0x7FFF), a.Const16(0x007F)
	lo, hi := a.ConstWords("pairwords0", seq(0, 1, 2, 32)), a.ConstWords("pairwords16", seq(16, 1, 2, 32))
	oddLanes, g := a.K(), a.GP32()
	a.MOVL(U32(0xAAAAAAAA), g)
	a.KMOVD(g, oddLanes)
	a.Stream(Loop{SrcSize: 2, DstSize: 4, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
		w, t := a.Vec(), a.Vec()
		a.VLoad(w, s.Src, 16, s.M(1, 0))
		// Quiet NaNs in 16-bit lanes, without k masks: bit 15 of
		// (w & 0x7FFF) + 0x7F is set exactly for NaN, and >> 9 moves it to
		// the quiet bit, 0x40.
		a.VPANDD(abs16, w, t)
		a.VPADDW(c7F, t, t)
		a.VPSRLW(U8(9), t, t)
		a.VPTERNLOGD(Tern(func(w, t, q uint8) uint8 { return w | t&q }), quiet, t, w)
		for j, idx := range []VecVirtual{lo, hi} {
			x := a.Vec()
			a.VPERMW_Z(w, idx, oddLanes, x)
			s.Store(x, s.Dst.Offset(64*j), 32, s.M(1, 16*j))
		}
	}))

	a.Func("bf16ToF32AVX2", AVX2, "func(dst *float32, src *uint16, n int)", "n is a multiple of 16.")
	dst, src, n = a.Args()
	quiet2, abs2, c7F2 := a.Splat(0x00400040), a.Splat(0x7FFF7FFF), a.Splat(0x007F007F)
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	a.Stream(Loop{SrcSize: 2, DstSize: 4, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
		w, t := a.Vec(), a.Vec()
		a.VLoad(w, s.Src, 16, nil)
		a.VPAND(abs2, w, t) // the quiet bit as on AVX-512
		a.VPADDW(c7F2, t, t)
		a.VPSRLW(U8(9), t, t)
		a.VPAND(quiet2, t, t)
		a.VPOR(t, w, w)
		a.VPERMQ(U8(0b11_01_10_00), w, w) // qwords 0 2 1 3: the in-lane unpacks take 0 1, then 2 3
		for j := range 2 {
			x := a.Vec()
			if j == 0 {
				a.VPUNPCKLWD(w, zero, x)
			} else {
				a.VPUNPCKHWD(w, zero, x)
			}
			s.Store(x, s.Dst.Offset(32*j), 32, nil)
		}
	}))
}

// seq returns the n 16-bit values start + i·num/den (integer division):
// seq(1, 2, 1, 32) is the odd numbers 1..63, seq(0, 1, 2, 32) each of 0..15
// twice.
func seq(start, num, den, n int) []uint16 {
	s := make([]uint16, n)
	for i := range s {
		s[i] = uint16(start + i*num/den)
	}
	return s
}

// quietNaNs returns the AVX2 steps that replace the lanes of x that m marks
// (its NaN lanes) by their sign | 0x7FC00000, which the BFLOAT16 rounding
// (adding at most 0x8000) turns into f32ToBF16's NaN, the sign | 0x7FC0:
// f32ToBF16AVX2's out-of-line fix and nanBF16 (fused.go).
func (a *Asm) quietNaNs() func(x, m VecVirtual) {
	sign, qnan := a.Splat(0x80000000), a.Splat(0x7FC00000)
	return func(x, m VecVirtual) {
		q := a.Vec()
		a.VPAND(sign, x, q)
		a.VPOR(qnan, q, q)
		a.VPBLENDVB(m, q, x, x)
	}
}
