package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f16ToE4M3 emits the AVX-512 (VBMI) FLOAT16 → FLOAT8E4M3FN and →
// FLOAT8E4M3FNUZ kernel on 16-bit lanes, 32 per instruction, with no
// widening to float32 (f16ToF8AVX512W's route, about 23 instructions per 32
// elements against 18 here).
//
// Normal results: f32ToF8W's steps 2-4 on the FLOAT16 magnitude a itself,
// with s = 10 - 3 = 7 and the exponent adjustment E = (15 - bias) << 3
// (expAdjust less 112 << 3): r = (a - E<<7 + 63 + (a>>7)&1) >> 7 by VPAVGW,
// the clamp to overflow (±Inf included), and r in the high byte of each
// word; NaN (a > 0x7C00) takes p's nan byte.
//
// Subnormal results (a below the smallest normal, FLOAT16 bits mn: 2^-6 or
// 2^-7): only the four FLOAT16 binades below mn can give a non-zero code
// (anything below 2^-4·mn is at most half the smallest subnormal), so
// t = a - (mn - 0x1000), saturated at 0, has 12 bits. The rounding of such
// a value to the float8 subnormal grid (2^8 FLOAT16 units or more there)
// needs t>>5 rounded to odd, 7 bits: 8t puts t>>5 in the high byte of each
// word and t&0x1F in the low one, adding 0xFF carries into the high byte
// exactly when the low one is not zero, and that carry's flip of bit 8 is
// or'ed in (one VPADDW and one VPTERNLOGD, where a VPTESTMW and a masked
// add cost a k-mask write, of which this kernel already has two). The
// high byte indexes a 128-entry table of codes (VPERMI2B), computed here
// from the format's definition.
//
// The sign is or'ed in last (FLOAT8E4M3FN: NaN becomes 0xFF, as the
// reference has it); FLOAT8E4M3FNUZ has no negative zero, so its normal
// codes take the sign before the merges, NaN (0x80) needs none, and its
// table holds each non-zero code with bit 7 set, kept where the element
// is negative: code & (sign | 0x7F).
func f16ToE4M3(a *Asm) {
	a.Func("f16ToE4M3AVX512", AVX512, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
		"converts n FLOAT16 to FLOAT8E4M3FN or FLOAT8E4M3FNUZ (p.signedZero = 0) with p's overflow and nan bytes.")
	a.Needs("AVX512VBMI") // VPERMI2B, VPERMT2B
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	word := a.WordOf
	k := word(func(r GPVirtual) { // 62 - E<<7
		a.MOVL(Mem{Base: p, Disp: f8ExpAdjust}, r)
		a.SUBL(U32(112<<3), r)
		a.SHLL(U8(7), r)
		a.NEGL(r)
		a.ADDL(U8(62), r)
	})
	limit := word(func(r GPVirtual) {
		a.MOVL(Mem{Base: p, Disp: f8Overflow}, r)
		a.SHLL(U8(6), r)
		a.ADDL(U32(0x8000+63), r)
	})
	nan := word(func(r GPVirtual) {
		a.MOVL(Mem{Base: p, Disp: f8NaN}, r)
		a.SHLL(U8(8), r)
	})
	mn := word(func(r GPVirtual) { // the smallest normal as FLOAT16 bits
		a.MOVL(Mem{Base: p, Disp: f8MinNormal}, r)
		a.SHRL(U8(23), r)
		a.SUBL(U8(112), r)
		a.SHLL(U8(10), r)
	})
	base := a.Vec() // mn - 0x1000
	a.VPSUBW(a.Const16(0x1000), mn, base)
	abs, one, sgn, inf := a.Const16(0x7FFF), a.Const16(1), a.Const16(0x8000), a.Const16(0x7C00)
	lowByte, bit8 := a.Const16(0xFF), a.Const16(0x100)
	highs := a.ConstBytes("oddbytes", seq8(1, 2, 64))

	a.CMPL(Mem{Base: p, Disp: f8SignedZero}, U8(0))
	a.JE(LabelRef("fnuz"))
	for _, fnuz := range []bool{false, true} {
		label := ""
		bias := 7
		if fnuz {
			a.Label("fnuz")
			label, bias = "fnuz_", 8
		}
		tab := e4m3SubnormalTable(bias, fnuz)
		t0, t1 := a.ConstBytes(tab.name, tab.bytes[:64]), a.ConstBytes(tab.name+"hi", tab.bytes[64:])
		a.StreamNamed(label, Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
			var ws [2]VecVirtual
			for h := range 2 {
				x, ab := a.Vec(), a.Vec()
				a.VLoad(x, st.Src.Offset(64*h), 16, st.M(1, 32*h))
				a.VPANDD(abs, x, ab)
				// Normal results.
				y := a.Vec()
				a.VPSRLW(U8(7), ab, y)
				a.VPTERNLOGD(Tern(func(t, o, k uint8) uint8 { return t&o | k }), k, one, y)
				a.VPAVGW(y, ab, y)
				a.VPMINUW(limit, y, y)
				a.VPSLLW(U8(2), y, y)
				isNaN, isSub := a.K(), a.K()
				a.VPCMPUW(U8(cmpGT), inf, ab, isNaN)
				a.VPCMPUW(U8(cmpLT), mn, ab, isSub)
				signed := Tern(func(w, h, m uint8) uint8 { return w | h&m })
				if fnuz {
					a.VPTERNLOGD(signed, sgn, x, y)
				}
				a.VMOVDQU16(nan, isNaN, y)
				// Subnormal results: the table's code in the high byte.
				c, c2 := a.Vec(), a.Vec()
				a.VPSUBUSW(base, ab, c) // t
				a.VPSLLW(U8(3), c, c)   // t>>5 in the high byte, t&0x1F in the low
				a.VPADDW(lowByte, c, c2)
				// Round to odd: the carry out of a non-zero low byte flips bit 8.
				a.VPTERNLOGD(Tern(func(c, c2, m uint8) uint8 { return c | (c2^c)&m }), bit8, c2, c)
				a.VPERMI2B(t1, t0, c)
				if fnuz {
					a.VPTERNLOGD(Tern(func(c, h, m uint8) uint8 { return c & (h | m) }), abs, x, c)
				}
				a.VMOVDQU16(c, isSub, y)
				if !fnuz {
					a.VPTERNLOGD(signed, sgn, x, y)
				}
				ws[h] = y
			}
			a.VPERMT2B(ws[1], highs, ws[0])
			st.Store(ws[0], st.Dst, 8, st.M(1, 0))
		})
	}
}

// e4m3SubnormalTable is f16ToE4M3's table for the E4M3 type of the given
// bias: entry j stands for t = 32j, the FLOAT16 a = mn - 0x1000 + t, and
// holds the code of a's value rounded to nearest even on the subnormal grid
// 2^(-2-bias); FNUZ codes other than 0 have bit 7 set (see f16ToE4M3). The
// kernel's index of t is t>>5 rounded to odd, which keeps 3 bits below the
// grid (2^8 FLOAT16 units or more): every t with the same index rounds
// alike, as the loop below checks for all 2^12.
func e4m3SubnormalTable(bias int, fnuz bool) struct {
	name  string
	bytes []byte
} {
	mn := (16 - bias) << 10 // FLOAT16 bits of 2^(1-bias)
	code := func(t int) byte {
		h := mn - 0x1000 + t
		c := byte(math.RoundToEven(math.Ldexp(f16Value(h), 2+bias)))
		if fnuz && c != 0 {
			c |= 0x80
		}
		return c
	}
	var b []byte
	for j := range 128 {
		b = append(b, code(32*j))
	}
	for t := range 0x1000 {
		j := t >> 5
		if t&31 != 0 {
			j |= 1
		}
		if b[j] != code(t) {
			panic(fmt.Sprintf("e4m3SubnormalTable(%d): t = %#x rounds to %#x, its index %d holds %#x", bias, t, code(t), j, b[j]))
		}
	}
	name := "e4m3fnsubnormals"
	if fnuz {
		name = "e4m3fnuzsubnormals"
	}
	return struct {
		name  string
		bytes []byte
	}{name, b}
}
