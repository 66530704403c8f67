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
		a.Stream(Loop{SrcSize: 4, DstSize: 2, Lanes: a.Lanes32(), Unroll: 4}, dst, src, n, func(s *Step) {
			x := a.Vec()
			a.VLoad(x, s.Src, 32, s.M(1, 0))
			a.VCVTPS2PH(U8(0), x, Half(x))
			a.VStore(Half(x), s.Dst, 16, s.M(1, 0))
		})
	}
}

// f16ToF32: VCVTPH2PS is exact; it quiets NaNs keeping the payload.
func f16ToF32(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f16ToF32"+isa.String(), isa, "func(dst *float32, src *uint16, n int)")
		dst, src, n := a.Args()
		a.Stream(Loop{SrcSize: 2, DstSize: 4, Lanes: a.Lanes32(), Unroll: 4}, dst, src, n, func(s *Step) {
			x := a.Vec()
			if s.Tail() {
				a.VLoad(Half(x), s.Src, 16, s.M(1, 0))
				a.VCVTPH2PS(Half(x), x)
			} else {
				a.VCVTPH2PS(s.Src, x)
			}
			a.VStore(x, s.Dst, 32, s.M(1, 0))
		})
	}
}

// f32ToBF16 rounds to nearest even in integer arithmetic:
//
//	NaN lanes:  x = x&0x80000000 | 0x7FC00000 (so the rounding below yields sign|0x7FC0)
//	all lanes:  (x + 0x7FFF + (x>>16)&1) >> 16
func f32ToBF16(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f32ToBF16"+isa.String(), isa, "func(dst *uint16, src *float32, n int)")
		dst, src, n := a.Args()
		sign, qnan, one, bias := a.Const32(0x80000000), a.Const32(0x7FC00000), a.Const32(1), a.Const32(0x7FFF)
		a.Stream(Loop{SrcSize: 4, DstSize: 2, Lanes: a.Lanes32(), Unroll: 4}, dst, src, n, func(s *Step) {
			x := a.Vec()
			a.VLoad(x, s.Src, 32, s.M(1, 0))
			if a.isa == AVX512 {
				k := a.K()
				a.VCMPPS(U8(cmpUnord), x, x, k)
				a.VPTERNLOGD(U8(0xEA), qnan, sign, k, x) // x = x&sign | qnan
			} else {
				m, q := a.Vec(), a.Vec()
				a.VCMPPS(U8(cmpUnord), x, x, m)
				a.VPAND(sign, x, q)
				a.VPOR(qnan, q, q)
				a.VPBLENDVB(m, q, x, x)
			}
			t, r := a.Vec(), a.Vec()
			a.VPSRLD(U8(16), x, t)
			a.And(one, t, t)
			a.VPADDD(bias, x, r)
			a.VPADDD(t, r, r)
			a.VPSRLD(U8(16), r, r)
			a.packDW(r)
			a.VStore(Half(r), s.Dst, 16, s.M(1, 0))
		})
	}
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

// bf16ToF32 widens with a shift and sets the quiet bit of NaNs.
func bf16ToF32(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("bf16ToF32"+isa.String(), isa, "func(dst *float32, src *uint16, n int)")
		dst, src, n := a.Args()
		quiet := a.Const32(0x00400000)
		a.Stream(Loop{SrcSize: 2, DstSize: 4, Lanes: a.Lanes32(), Unroll: 4}, dst, src, n, func(s *Step) {
			x := a.Vec()
			if s.Tail() {
				a.VLoad(Half(x), s.Src, 16, s.M(1, 0))
				a.VPMOVZXWD(Half(x), x)
			} else {
				a.VPMOVZXWD(s.Src, x)
			}
			a.VPSLLD(U8(16), x, x)
			if a.isa == AVX512 {
				k := a.K()
				a.VCMPPS(U8(cmpUnord), x, x, k)
				a.VPORD(quiet, x, k, x)
			} else {
				m := a.Vec()
				a.VCMPPS(U8(cmpUnord), x, x, m)
				a.VPAND(quiet, m, m)
				a.VPOR(m, x, x)
			}
			a.VStore(x, s.Dst, 32, s.M(1, 0))
		})
	}
}
