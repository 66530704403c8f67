package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// i16ToE4M3 emits the AVX-512 (VBMI) INT16 and UINT16 → FLOAT8E4M3FN and
// FLOAT8E4M3FNUZ kernels: two 128-entry tables of codes, looked up with
// VPERMI2B on 16-bit lanes, instead of a route through float32 lanes (two
// conversions and two word permutes per 32 elements before the float8
// algorithm).
//
// The magnitude m = |v| (UINT16: v) is clamped to 511: every value from
// 464 on overflows both types, so the clamp keeps the code. An integer is
// never below the smallest normal, and FLOAT8E4M3FN and FLOAT8E4M3FNUZ keep
// three significand bits, so below 128 (t[0:128], indexed by m) the code is
// exact per entry, and from 128 on the grid is 16 or more: the index
// j = m>>2 rounded to odd (or'ed with whether m&3 is not zero) keeps two
// bits below the grid, and round to nearest even of that is the rounding
// of m (the odd bit stands for the dropped ones; plan.go's argument), so
// t[128+j] is the code of 4j. The indices sit in the high byte of each
// word (m<<8, and m<<6 with the sticky bit carried into bit 8 by adding
// 0xFF to the low byte), the words with m > 127 take
// the second lookup, and INT16's sign is or'ed into bit 15: a negative
// integer's code is never zero, and every code with the sign is the
// reference's (overflow of FLOAT8E4M3FN to NaN becomes 0xFF; FNUZ's NaN
// 0x80 stays 0x80). The Go side (f8int16_amd64.go) builds t for each
// Options mode from the portable FLOAT kernel and uses the kernels for
// these two targets only.
func i16ToE4M3(a *Asm) {
	signedPair("i16ToE4M3AVX512", "u16ToE4M3AVX512", func(name string, signed bool) {
		a.Func(name, AVX512, "func(dst *uint8, src *uint16, n int, t *[256]uint8)",
			"converts n elements to FLOAT8E4M3FN or FLOAT8E4M3FNUZ codes by the two tables t (gen/amd64/i16e4m3.go).")
		a.Needs("AVX512VBMI") // VPERMI2B, VPERMT2B
		dst, src, n := a.Args()
		tp := a.GP64()
		a.Context.Load(a.Param("t"), tp)
		var tab [4]VecVirtual
		for i := range tab {
			tab[i] = a.Vec()
			a.VMOVDQU64(Mem{Base: tp, Disp: 64 * i}, tab[i])
		}
		most, lowByte, bit8, small, sgn := a.Const16(511), a.Const16(0xFF), a.Const16(0x100), a.Const16(127), a.Const16(0x8000)
		highs := a.ConstBytes("oddbytes", seq8(1, 2, 64))
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
			var ws [2]VecVirtual
			for h := range ws {
				v, m := a.Vec(), a.Vec()
				a.VLoad(v, st.Src.Offset(64*h), 16, st.M(1, 32*h))
				if signed {
					a.VPABSW(v, m)
					a.VPMINUW(most, m, m)
				} else {
					a.VPMINUW(most, v, m)
				}
				lo, hi := a.Vec(), a.Vec()
				a.VPSLLW(U8(8), m, lo)
				a.VPERMI2B(tab[1], tab[0], lo) // t[m] in the high byte, for m < 128
				a.VPSLLW(U8(6), m, hi)         // m>>2 in the high byte, m&3 in bits 6-7
				c := a.Vec()
				a.VPADDW(lowByte, hi, c)
				// Round to odd: the carry out of a non-zero low byte flips bit 8.
				a.VPTERNLOGD(Tern(func(h, c, b uint8) uint8 { return h | (c^h)&b }), bit8, c, hi)
				a.VPERMI2B(tab[3], tab[2], hi)
				big := a.K()
				a.VPCMPUW(U8(cmpGT), small, m, big)
				a.VMOVDQU16(hi, big, lo)
				if signed {
					a.VPTERNLOGD(Tern(func(w, v, s uint8) uint8 { return w | v&s }), sgn, v, lo)
				}
				ws[h] = lo
			}
			a.VPERMT2B(ws[1], highs, ws[0])
			st.Store(ws[0], st.Dst, 8, st.M(1, 0))
		})
	})
}
