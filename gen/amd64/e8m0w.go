package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
	"github.com/tensorcast/tensorcast/gen/layout"
)

var e8Mode = layout.Offset("e8m0Params", "mode")

// e8m0W emits the AVX-512 (VBMI) kernel of a 16-bit source → FLOAT8E8M0 on
// 16-bit lanes, 32 per instruction, where f32ToE8M0From computes on 32-bit
// lanes (about 16 instructions per 32 elements against 26).
//
// It works on the BFLOAT16 rounded to odd of each element, a = its
// magnitude: BFLOAT16 itself; FLOAT16 widens to float32 exactly
// (VCVTPH2PS), and the high halves with the low halves' sticky bit
// (hi | min(lo, 1), as f32ToF8W gathers them) are that BFLOAT16. (FLOAT16
// takes this route only for blocks with a subnormal, ±Inf or NaN:
// f16E8M0Direct; INT16 and UINT16 have a loop of their own,
// int16ToE8M0.) Round to odd at 8 bits keeps the answer
// of every E8M0 mode, which reads one significand bit and whether any below
// it is set (plan.go). Then, with d = 1 when not saturating (underflow =
// 0xFF) and 0 when saturating:
//
//	e = ((a + add - d<<7) mod 2^16) >> 7    add = roundAdd >> 16: 0x7F up, 0x40 nearest, 0 down
//	r = min(e, 0xFE) + d
//
// For a ≥ 0x80 (normal) e + d is the exponent field rounded by the mode,
// and the clamp gives overflow (0xFE saturating, 0xFF not) from 255 on,
// ±Inf included. Zero wraps to e = 0x1FF when d = 1, so r is the underflow
// code in both modes (0x00 saturating). NaN takes 0xFF (VPCMPUW, merge).
// A BFLOAT16 subnormal (a < 0x80, zero included) is looked up in a
// 128-entry table of its codes (VPERMI2B), one table per mode and
// saturation, computed here as kernel_generic.go's f32ToE8M0 computes
// them; the widened sources have no subnormals and skip it.
func e8m0W(a *Asm, from e8m0Source) {
	a.Func(from.name+"ToE8M0AVX512", AVX512, "func(dst *uint8, src *uint16, n int, p *[4]uint32)")
	a.Needs("AVX512VBMI") // VPERMI2B, VPERMT2B
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	if from.name == "i16" || from.name == "u16" {
		a.int16ToE8M0(from.name == "i16", dst, src, n, p)
		return
	}

	// d and K = add - d<<7 as words.
	d, k := a.e8m0DK(p, 16, 7)
	dW, kW := a.Vec(), a.Vec()
	a.VPBROADCASTW(d, dW)
	a.VPBROADCASTW(k, kW)
	abs, cap, nanT, ff := a.Const16(0x7FFF), a.Const16(0xFE), a.Const16(0x7F80), a.Const16(0xFF)
	bf16 := from.name == "bf16" // else FLOAT16

	var sub0, sub1, subT VecVirtual
	if bf16 {
		// The table of p's mode and saturation: mode·2 + d.
		base, i := a.GP64(), a.GP64()
		a.LEAQ(a.DataBytes("e8m0subnormals", e8m0SubnormalTables()), base)
		a.MOVL(Mem{Base: p, Disp: e8Mode}, i.As32())
		a.LEAQ(Mem{Base: d.As64(), Index: i, Scale: 2}, i)
		a.SHLQ(U8(7), i)
		sub0, sub1 = a.Vec(), a.Vec()
		a.VMOVDQU64(Mem{Base: base, Index: i, Scale: 1}, sub0)
		a.VMOVDQU64(Mem{Base: base, Index: i, Scale: 1, Disp: 64}, sub1)
		subT = a.Const16(0x80)
	}
	var odd, even WordIndex
	var one VecVirtual
	if !bf16 {
		oddW, evenW := make([]uint16, 32), make([]uint16, 32)
		for j := range 32 {
			evenW[j], oddW[j] = uint16(2*j), uint16(2*j+1)
		}
		odd, even, one = a.WordIndex("oddwords", oddW), a.WordIndex("evenwords", evenW), a.Const16(1)
	}
	lows := a.ConstBytes("evenbytes", seq8(0, 2, 64))

	// widened returns the odd-BFLOAT16 magnitudes of the h-th 32 FLOAT16
	// of a step.
	widened := func(st *Step, h int) VecVirtual {
		var x [2]VecVirtual
		for i := range x {
			j := 2*h + i // the j-th 16 elements of the block
			x[i] = a.Vec()
			a.VLoad(Half(x[i]), st.Src.Offset(32*j), 16, st.M(1, 16*j))
			a.VCVTPH2PS(Half(x[i]), x[i])
		}
		hi := a.Gather(x[0], x[1], odd)
		a.GatherT2(x[1], even, x[0])
		a.VPMINUW(one, x[0], x[0])
		a.VPTERNLOGD(Tern(func(l, h, m uint8) uint8 { return (l | h) & m }), abs, hi, x[0])
		return x[0]
	}
	// codes returns the E8M0 codes of the BFLOAT16 magnitudes ab.
	codes := func(ab VecVirtual) VecVirtual {
		e := a.Vec()
		a.VPADDW(kW, ab, e)
		a.VPSRLW(U8(7), e, e)
		a.VPMINUW(cap, e, e)
		a.VPADDW(dW, e, e)
		isNaN := a.K()
		a.VPCMPUW(U8(cmpGT), nanT, ab, isNaN)
		a.VMOVDQU16(ff, isNaN, e)
		if bf16 {
			isSub, c := a.K(), a.Vec()
			a.VPCMPUW(U8(cmpLT), subT, ab, isSub)
			a.VMOVDQA64(ab, c)
			a.VPERMI2B(sub1, sub0, c)
			a.VMOVDQU16(c, isSub, e)
		}
		return e
	}
	var direct func(st *Step, h int) VecVirtual
	var fix func(b VecVirtual)
	if from.name == "f16" {
		direct, fix = f16E8M0Direct(a, p, d, abs, widened, codes)
	}

	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
		var ws [2]VecVirtual
		for h := range 2 {
			if direct != nil { // FLOAT16
				ws[h] = direct(st, h)
				continue
			}
			ab := a.Vec() // BFLOAT16
			a.VLoad(ab, st.Src.Offset(64*h), 16, st.M(1, 32*h))
			a.VPANDD(abs, ab, ab)
			ws[h] = codes(ab)
		}
		a.VPERMT2B(ws[1], lows, ws[0])
		if fix != nil {
			fix(ws[0])
		}
		st.Store(ws[0], st.Dst, 8, st.M(1, 0))
	})
}

// f16E8M0Direct returns the FLOAT16 path of e8m0W, on the FLOAT16 bits
// themselves where no element is subnormal, infinite or NaN: with a the
// magnitude and add = roundAdd >> 13 (FLOAT16's 10 significand bits: 0x3FF
// up, 0x200 nearest, 0 down),
//
//	normal:  e = ((a + add) >> 10) + 112     (rebias 15 → 127; the carry is the rounding)
//	zero:    e = 0 (a zeroing mask)
//
// A normal FLOAT16 gives 113 to 144, never 0 and far from E8M0's overflow.
// The zero lanes' 0 becomes the underflow code after the gather, on bytes,
// by fix: (b - d) mod 2^8, then + d saturated (d = 1 when not saturating):
// 0 → 0xFF, every other byte unchanged; with d = 0 it changes nothing. The
// widening route's codes pass through it unchanged too (its zero lanes
// already hold the underflow code, and it gives 0 only when d = 0).
// A block of 32 with a nonzero a - 0x400 ≥ 0x7800 (a subnormal, ±Inf or
// NaN: rare in data) is redone out of line by the widening route (widened,
// codes). Per 32 elements this is 8 instructions where the widening route
// takes about 16, and where handling ±Inf, NaN and zero in line took 12.
func f16E8M0Direct(a *Asm, p, d GPVirtual, abs VecVirtual, widened func(*Step, int) VecVirtual, codes func(VecVirtual) VecVirtual) (direct func(st *Step, h int) VecVirtual, fix func(b VecVirtual)) {
	add, negD := a.GP32(), a.GP32()
	a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, add)
	a.SHRL(U8(13), add)
	a.MOVL(d, negD)
	a.NEGL(negD)
	addW, dB, negDB := a.Vec(), a.Vec(), a.Vec()
	a.VPBROADCASTW(add, addW)
	a.VPBROADCASTB(d, dB)
	a.VPBROADCASTB(negD, negDB)
	rebias, low, span := a.Const16(112), a.Const16(0x400), a.Const16(0x7C00-0x400)
	direct = func(st *Step, h int) VecVirtual {
		x, e, t := a.Vec(), a.Vec(), a.Vec()
		a.VLoad(x, st.Src.Offset(64*h), 16, st.M(1, 32*h))
		a.VPANDD(abs, x, x)
		nz, special := a.K(), a.K()
		a.VPTESTMW(x, x, nz)
		a.VPADDW(addW, x, e)
		a.VPSRLW(U8(10), e, e)
		a.VPADDW_Z(rebias, e, nz, e)
		a.VPSUBW(low, x, t)
		a.VPCMPUW(U8(cmpGE), span, t, nz, special)
		a.KORTESTD(special, special)
		a.divert(func() {}, func() { a.VMOVDQA64(codes(widened(st, h)), e) })
		return e
	}
	fix = func(b VecVirtual) {
		a.VPADDB(negDB, b, b)
		a.VPADDUSB(dB, b, b)
	}
	return direct, fix
}

// e8m0DK reads d (1 when not saturating, else 0) and K = (roundAdd >>
// addShift) - d<<dShift from the *e8m0Params p: the rounding add and the
// underflow offset of the E8M0 kernels, at the scale of their lanes.
func (a *Asm) e8m0DK(p GPVirtual, addShift, dShift uint8) (d, k GPVirtual) {
	d, k = a.GP32(), a.GP32()
	a.MOVL(Mem{Base: p, Disp: e8Underflow}, d)
	a.ANDL(U8(1), d)
	a.MOVL(Mem{Base: p, Disp: e8RoundAdd}, k)
	if addShift != 0 {
		a.SHRL(U8(addShift), k)
	}
	t := a.GP32()
	a.MOVL(d, t)
	a.SHLL(U8(dShift), t)
	a.SUBL(t, k)
	return d, k
}

// int16ToE8M0 is e8m0W's loop for INT16 and UINT16, on 32-bit lanes: every
// value converts exactly (VPMOVSXWD or VPMOVZXWD, VCVTDQ2PS), and E8M0's
// rounding of a float32 f with magnitude a is (a + roundAdd) >> 23 (no
// subnormal, Inf or NaN can occur). With K = roundAdd - d<<23 (d = 1 when
// not saturating), byte 3 of (f + K) << 1 is that code less d: the shift
// drops the sign bit (a + K < 2^31 does not carry into it). Zero gives
// 0x00 (d = 0: K = roundAdd < 2^23) or 0xFF (d = 1: K < 0), and after
// VPERMT2B gathers the bytes, + d saturated makes every code right and
// zero's the underflow code (0x00 saturating, 0xFF not). 21 instructions
// per 64 elements where the 16-bit lanes' route, through the rounded-to-odd
// BFLOAT16, took about 32.
func (a *Asm) int16ToE8M0(signed bool, dst, src, n, p GPVirtual) {
	d, k := a.e8m0DK(p, 0, 23)
	kD, dB := a.Vec(), a.Vec()
	a.VPBROADCASTD(k, kD)
	a.VPBROADCASTB(d, dB)
	top := make([]byte, 64) // byte 3 of dword i of the pair, for both halves
	for i := range top {
		top[i] = byte(4*(i%32) + 3)
	}
	idx := a.ConstBytes("dwordtopbytes", top)
	widen := a.VPMOVZXWD
	if signed {
		widen = a.VPMOVSXWD
	}
	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
		var xs [4]VecVirtual
		for j := range xs {
			x := a.Vec()
			m := st.Src.Offset(32 * j)
			if st.Tail() {
				a.VLoad(Half(x), m, 16, st.M(1, 16*j))
				widen(Half(x), x)
			} else {
				widen(m, x)
			}
			a.VCVTDQ2PS(x, x)
			a.VPADDD(kD, x, x)
			// x<<1 as x+x: Zen 4 issues two additions a cycle and one
			// shift (INT16/UINT16 → E8M0 0.66 → 0.71× copy(), five runs
			// side by side).
			a.VPADDD(x, x, x)
			xs[j] = x
		}
		a.VPERMT2B(xs[1], idx, xs[0])
		a.VPERMT2B(xs[3], idx, xs[2])
		a.VINSERTI64X4(U8(1), Half(xs[2]), xs[0], xs[0])
		a.VPADDUSB(dB, xs[0], xs[0])
		st.Store(xs[0], st.Dst, 8, st.M(1, 0))
	})
}

// e8m0SubnormalTables returns e8m0W's tables: for each e8m0Table entry
// (mode m, saturation; index 2m + d, d = 1 when not saturating), the code
// of every BFLOAT16 magnitude b below 0x80, b·2^-133, from E8M0's
// definition (not from the kernels' algorithm, which the tests compare
// with the reference): the power of two 2^e at or above (up), at or below
// (down) or nearest (ties up) the value, code e + 127; below 2^-127, and
// zero, the underflow code (0x00 saturating, 0xFF not).
func e8m0SubnormalTables() []byte {
	var out []byte
	for m := range 3 { // up, down, nearest: e8m0Table's order
		for d := range 2 {
			for b := range 128 {
				code := byte(0xFF * d) // underflow
				if b != 0 {
					f, x := math.Frexp(math.Ldexp(float64(b), -133)) // f·2^x, 0.5 ≤ f < 1
					e := x - 1                                       // 2^e ≤ value < 2^(e+1)
					if m == 0 && f > 0.5 || m == 2 && f >= 0.75 {
						e++
					}
					if e >= -127 {
						code = byte(e + 127)
					}
				}
				out = append(out, code)
			}
		}
	}
	if len(out) != 6*128 {
		panic(fmt.Sprint("e8m0 tables: ", len(out), " bytes"))
	}
	return out
}
