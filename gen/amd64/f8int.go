package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f8ToInt emits the AVX-512 kernels from the 8-bit float types (the float8
// types and FLOAT8E8M0) to 32- and 64-bit integers: f8ToF32's lookup, whose
// table (f8int_amd64.go builds it from the reference) holds each result as
// a float32, then VCVTTPS2DQ or VCVTTPS2QQ. The results are exact: a
// truncated float8 value has at most 4 significant bits and a power of two
// one, so each result (wrapped as the reference wraps it, read as a signed
// integer) is a float32 with a zero low half, which f8ToF32's planes hold,
// and the truncating conversion gives back its bits. It replaces the route
// through a FLOAT block (0.47-0.84× copy() of the target on the Zen 4 at
// hand).
func f8ToInt(a *Asm) {
	f8Widen(a, "f8ToI32AVX512", "uint8", 4, nil, func(s *Step, d VecVirtual, j int) {
		a.VCVTTPS2DQ(d, d)
		s.Store(d, s.Dst.Offset(64*j), 32, s.M(1, 16*j))
	})
	f8Widen(a, "f8ToI64AVX512", "uint8", 8, []string{"AVX512DQ"}, func(s *Step, d VecVirtual, j int) { // VCVTTPS2QQ
		for h := range 2 {
			x, q := Half(d), a.Vec()
			if h == 1 {
				x = a.YMM()
				a.VEXTRACTF64X4(U8(1), d, x)
			}
			a.VCVTTPS2QQ(x, q)
			s.Store(q, s.Dst.Offset(128*j+64*h), 64, s.M(1, 16*j+8*h))
		}
	})
}
