package amd64

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f32ToF8W is the AVX-512 (with VBMI) FLOAT → float8 kernel: it computes on
// 16-bit lanes, 32 per instruction, where narrowToF8 computes on 32-bit
// lanes. For each block of 64 float32 x (four vectors, two pairs):
//
//  1. Round to odd to a bfloat16 h of 8 exponent and 7 significand bits:
//     VPERMI2B gathers the high halves hi and the low halves lo of two
//     vectors (wordperm.go), h = hi | (lo != 0) (VPMINUW lo, 1). Every
//     float8 keeps at most 3 significand bits and 7 ≥ 3+2, so rounding h
//     to nearest even is exactly the single rounding of x (the odd bit
//     stands for every bit dropped); a NaN stays a NaN (its payload or the odd bit), ±Inf stays
//     ±Inf, and float8 normal and overflow edges lie far inside bfloat16's
//     exponent range.
//  2. Normal results, on a = h & 0x7FFF, with s = 7 - mantissa bits (4 or
//     5, one loop each so every shift is an immediate):
//     r = (a - E<<s + (1<<s>>1) - 1 + (a>>s)&1) >> s, E = expAdjust. VPAVGW
//     does the addition and the first bit of the shift: avg(a, q) =
//     (a + q + 1) >> 1 with q = (a>>s)&1 | K, K = (1<<s>>1) - 2 - E<<s
//     (mod 2^16; bit 0 of K is clear, so the OR is an addition). The 17-bit
//     sum of avg exceeds 2^16 for every a ≥ minNormal (a > E<<s), which
//     leaves a constant 2^15 in the result; the clamp below allows for it
//     and the final shift left drops it.
//  3. Overflow: min(y, 2^15 + overflow<<(s-1) + (1<<(s-1)) - 1), unsigned,
//     so r ≤ overflow and every larger r (Inf included) becomes overflow.
//  4. W = y << (9 - s) puts r in the high byte of each word (the low byte is
//     don't-care); NaN lanes (a > 0x7F80) take nan << 8 (VPCMPUW, merge).
//  5. Subnormal results (a < minNormal, the high half of minNormal, whose
//     low half is zero): f = x + 1.5·magic in float32, where magic =
//     2^23·unit (float8Params.magic) and unit is the smallest float8
//     subnormal. The sum stays in the binade of 1.5·magic, whose ulp is
//     unit, so the FPU rounds x to the subnormal grid (to nearest even:
//     1.5·2^23 is even) and bits(f) - bits(1.5·magic) = ±k, the subnormal
//     count with the sign of x, k ≤ 8: the low byte of f is ±k in two's
//     complement. VPERMI2B moves that byte into the high byte of each word
//     and VPABSB makes it k; those lanes take it (merge).
//     The integer sources (INT32 to UINT64) skip this step: their only
//     value below every smallest normal is 0, whose lanes take 0.
//  6. The sign: W | hi & 0x8000. For the FNUZ types (no negative zero) it
//     is applied before steps 4-5 instead, and the subnormal byte is made
//     sign-magnitude from its two's complement (|b| | b & 0x80), which is
//     0x00 for -0 since -0 = 0; normal results are never zero, and NaN and
//     overflow there are 0x80 with or without the sign.
//  7. VPERMT2B gathers the high bytes of two W into 64 result bytes.
//
// About 18 instructions per 32 elements against about 30 on 32-bit lanes,
// and only two k-mask writes (VPCMPUW) per 32 elements. For the E5M2 types
// steps 4 and 5 run out of line, for the blocks that need them
// (f8WDiverted): 12 instructions per 32 elements for the others.
//
// f16ToF8AVX512W widens its input to float32 first (VCVTPH2PS, exact), then
// runs the same steps. BFLOAT16 has a kernel on bytes (bf16f8.go).
func f32ToF8W(a *Asm) {
	for _, from := range []struct {
		name, typ string
		size      int
	}{{"f32ToF8", "float32", 4}, {"f16ToF8", "uint16", 2}} {
		f8W(a, from.name, from.typ, from.size)
	}
	// The fused kernels of the other sources that reach float8 through
	// FLOAT (plan.go): INT32, UINT32, INT64 and UINT64 convert to the
	// nearest float32 (nearestIntAVX512); DOUBLE rounds to odd at 24 bits
	// first (odd.go's algorithm), and step 1's round to odd at 8 bits of
	// that is the round to odd at 8 bits of the value itself (the sticky
	// bit survives), so the one rounding of step 2 stays exact.
	for _, from := range []struct {
		name string
		t    num
	}{{"i32ToF8", tI32}, {"u32ToF8", tU32}, {"i64ToF8", tI64}, {"u64ToF8", tU64}, {"f64ToF8", tF64}} {
		f8W(a, from.name, "uint"+fmt.Sprint(from.t.bits), from.t.bytes())
	}
	// The 64-bit integer sources to FLOAT4E2M1 (float4Params: one
	// significand bit, so s = 6) by the same algorithm on the same words,
	// through the nearest float32 (nearestIntAVX512; every FLOAT4E2M1
	// value is below 2^24): its NaN is 0x80 in the high byte and the sign
	// 0x80 too, and each result byte b becomes the code b&7 | b>>4&8 before
	// two codes are packed to a byte (n counts pairs). INT32 and UINT32 ran
	// faster through AVX2's stages, which the AVX-512 tier takes
	// (inherit_amd64.go); FLOAT and DOUBLE run faster through FLOAT16's
	// byte codes (packed.go, f32ToF4VBMI: 0.61 → 0.80× and 0.65 → 0.96×
	// copy(), Zen 4, 64 Ki, three runs side by side).
	for _, from := range []struct {
		name string
		t    num
	}{{"i64ToF4", tI64}, {"u64ToF4", tU64}} {
		f8W(a, from.name, "uint"+fmt.Sprint(from.t.bits), from.t.bytes())
	}
}

// f8WSources maps the fused kernels' names to their source types.
var f8WSources = map[string]num{"i32ToF8": tI32, "u32ToF8": tU32, "i64ToF8": tI64, "u64ToF8": tU64, "f64ToF8": tF64,
	"i64ToF4": tI64, "u64ToF4": tU64}

// f8WLoad returns the loader of the j-th 16 elements of a step as float32
// (rounded to odd where the source is wider), for the sources of
// f8WSources; its constants are set up here, before the loop.
func f8WLoad(a *Asm, name string, per int) func(st *Step, j int) VecVirtual {
	from := f8WSources[name]
	var conv func(x VecVirtual) VecVirtual
	switch from {
	case tF64:
		conv = oddF64ClearAVX512(a)
	case tI32, tU32, tI64, tU64:
		conv = nearestIntAVX512(a, from)
	}
	// per: mask bits per element of the loop (2 where it counts pairs)
	return func(st *Step, j int) VecVirtual {
		m := st.Src.Offset(16 * from.bytes() * j)
		x := a.Vec()
		switch from.bits {
		case 32:
			a.VLoad(x, m, 32, st.M(per, 16*j))
			x = conv(x)
		case 64:
			var halves [2]VecVirtual
			for h := range 2 {
				y := a.Vec()
				a.VLoad(y, m.Offset(64*h), 64, st.M(per, 16*j+8*h))
				halves[h] = conv(y)
			}
			a.VINSERTI64X4(U8(1), halves[1], halves[0].AsZ(), x)
		}
		return x
	}
}

// oddF64ClearAVX512 rounds 8 DOUBLE to odd at float32 precision for the
// float8 and FLOAT4E2M1 kernels: bit 29 (the float32's last significand
// bit) or'ed with the 29 bits below it, which are cleared, and an exact
// VCVTPD2PS (float8.go's oddF64Clear has the argument, edges included; the
// values where it differs from odd.go's round to odd lie below 2^-125,
// where every target of these kernels gives its signed zero). Four
// instructions and no k-mask write, against seven and two for
// oddF64AVX512's truncating conversion and its round trip.
func oddF64ClearAVX512(a *Asm) func(x VecVirtual) VecVirtual {
	low, high := a.splat64(1<<29-1), a.splat64(^uint64(1<<29-1))
	return func(x VecVirtual) VecVirtual {
		u, y := a.Vec(), a.YMM()
		a.VPANDQ(low, x, u)
		a.VPADDQ(low, u, u) // bit 29: some dropped bit is set
		a.VPTERNLOGD(Tern(func(x, u, h uint8) uint8 { return (x | u) & h }), high, u, x)
		a.VCVTPD2PS(x, y)
		return y
	}
}

// nearestIntAVX512 converts 32- or 64-bit integers to the nearest float32
// (a YMM for the 64-bit ones). The float8 kernels need no round to odd for
// them: every float8 value is below 2^24 in magnitude, so the float32 is
// the integer or, like the integer, beyond the target's range (plan.go,
// below2p24).
func nearestIntAVX512(a *Asm, from num) func(x VecVirtual) VecVirtual {
	return func(x VecVirtual) VecVirtual {
		switch from {
		case tI32:
			a.VCVTDQ2PS(x, x)
		case tU32:
			a.VCVTUDQ2PS(x, x)
		case tI64:
			y := a.YMM()
			a.VCVTQQ2PS(x, y)
			return y
		default:
			y := a.YMM()
			a.VCVTUQQ2PS(x, y)
			return y
		}
		return x
	}
}

// f8W emits the kernel of f32ToF8W for one source type.
func f8W(a *Asm, name, typ string, size int) {
	a.Func(name+"AVX512W", AVX512, "func(dst *uint8, src *"+typ+", n int, p *[8]uint32)")
	a.Needs("AVX512VBMI") // VPERMI2B, VPERMT2B
	fp4 := strings.HasSuffix(name, "ToF4")
	var load func(st *Step, j int) VecVirtual
	if _, fused := f8WSources[name]; fused {
		a.Needs("AVX512DQ") // the round-to-odd conversions
		per := 1
		if fp4 {
			per = 2
		}
		load = f8WLoad(a, name, per)
	}
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)

	// Vectors common to both shifts.
	g := a.GP32()
	a.MOVL(Mem{Base: p, Disp: f8Magic}, g)
	a.ADDL(U32(0x400000), g) // 1.5·magic
	magic := a.Vec()
	a.VPBROADCASTD(g, magic)
	word := a.WordOf
	mn := word(func(r GPVirtual) {
		a.MOVL(Mem{Base: p, Disp: f8MinNormal}, r)
		a.SHRL(U8(16), r)
	})
	var nanW VecVirtual
	if fp4 {
		nanW = a.Const16(0x8000)
	} else {
		nanW = word(func(r GPVirtual) {
			a.MOVL(Mem{Base: p, Disp: f8NaN}, r)
			a.SHLL(U8(8), r)
		})
	}
	one, abs, sgn, nanT := a.Const16(1), a.Const16(0x7FFF), a.Const16(0x8000), a.Const16(0x7F80)
	evenW := make([]uint16, 32)
	oddW := make([]uint16, 32)
	lowB := make([]byte, 64)
	for j := range 32 {
		evenW[j], oddW[j] = uint16(2*j), uint16(2*j+1)
		lowB[2*j], lowB[2*j+1] = byte(4*j), byte(4*j)
	}
	// The integer sources have no values below the smallest normal but 0
	// (1 is normal in every float8 type and FLOAT4E2M1), so they skip step
	// 5: their zero lanes take 0 instead (a zeroing shift), and no NaN.
	intSrc := false
	if from, ok := f8WSources[name]; ok && from != tF64 {
		intSrc = true
	}
	even, odd := a.WordIndex("evenwords", evenW), a.WordIndex("oddwords", oddW)
	var low VecVirtual
	if !intSrc {
		low = a.ConstBytes("dwordlowbytes", lowB)
	}
	highs := a.ConstBytes("oddbytes", seq8(1, 2, 64))

	shifts := []int{6}
	if !fp4 {
		shifts = []int{4, 5}
		a.CMPL(Mem{Base: p, Disp: f8Shift}, U8(20))
		a.JNE(LabelRef("s5"))
	}
	per, loop := 1, Loop{SrcSize: size, DstSize: 1, Lanes: 64, Unroll: 1}
	var m7 VecVirtual
	var nc nibbleConsts
	if fp4 {
		per, loop = 2, Loop{SrcSize: 2 * size, DstSize: 1, Lanes: 32, Unroll: 1}
		m7, nc = a.Const8(0x07), a.nibbleConsts()
	}
	for _, s := range shifts {
		if s == 5 {
			a.Label("s5")
		}
		// K and the clamp, from expAdjust and overflow.
		k := word(func(r GPVirtual) {
			a.MOVL(Mem{Base: p, Disp: f8ExpAdjust}, r)
			a.SHLL(U8(s), r)
			a.NEGL(r)
			a.ADDL(U32(1<<s>>1-2), r)
		})
		limit := word(func(r GPVirtual) {
			a.MOVL(Mem{Base: p, Disp: f8Overflow}, r)
			a.SHLL(U8(s-1), r)
			a.ADDL(U32(0x8000+1<<(s-1)-1), r)
		})
		// The E5M2 types (s = 5) take steps 4-5 out of line for the blocks
		// that need them (f8WDiverted); span = 0x7F81 - minNormal's word.
		divertSub := s == 5 && !intSrc && !fp4
		var span VecVirtual
		if divertSub {
			span = word(func(r GPVirtual) {
				a.MOVL(Mem{Base: p, Disp: f8MinNormal}, r)
				a.SHRL(U8(16), r)
				a.NEGL(r)
				a.ADDL(U32(0x7F81), r)
			})
		}
		prefix := fmt.Sprintf("s%d_", s)
		kinds := []bool{false}
		if !fp4 {
			kinds = []bool{false, true}
			a.CMPL(Mem{Base: p, Disp: f8SignedZero}, U8(0))
			a.JE(LabelRef(prefix + "fnuz"))
		}
		for _, fnuz := range kinds {
			label := prefix
			if fnuz {
				a.Label(prefix + "fnuz")
				label += "fnuz_"
			}
			signed := Tern(func(w, h, m uint8) uint8 { return w | h&m })
			// general: steps 2-6 for the h-th 32 elements of a block, from
			// hi and lo (= a) of f32Words; b is step 5's byte (nil for the
			// integer sources).
			general := func(hi, lo, b VecVirtual) VecVirtual {
				y := a.Vec()
				a.VPSRLW(U8(s), hi, y)
				a.VPTERNLOGD(Tern(func(t, o, k uint8) uint8 { return t&o | k }), k, one, y)
				a.VPAVGW(y, lo, y)
				a.VPMINUW(limit, y, y)
				if intSrc { // no NaN, and zero (lo = 0) gives 0; no sign where unsigned
					nz := a.K()
					a.VPTESTMW(lo, lo, nz)
					a.VPSLLW_Z(U8(9-s), y, nz, y)
					if f8WSources[name].class != unsigned {
						a.VPTERNLOGD(signed, sgn, hi, y)
					}
					return y
				}
				isNaN, isSub := a.K(), a.K()
				a.VPCMPUW(U8(cmpGT), nanT, lo, isNaN)
				a.VPCMPUW(U8(cmpLT), mn, lo, isSub)
				a.VPSLLW(U8(9-s), y, y)
				if fnuz {
					a.VPTERNLOGD(signed, sgn, hi, y)
					a.VMOVDQU16(nanW, isNaN, y)
					m := a.Vec()
					a.VPABSB(b, m)
					a.VPTERNLOGD(signed, sgn, b, m)
					a.VMOVDQU16(m, isSub, y)
				} else {
					a.VMOVDQU16(nanW, isNaN, y)
					a.VPABSB(b, b)
					a.VMOVDQU16(b, isSub, y)
					a.VPTERNLOGD(signed, sgn, hi, y)
				}
				return y
			}
			a.StreamNamed(label, loop, dst, src, n, func(st *Step) {
				var ws [2]VecVirtual
				if divertSub && !st.Tail() { // the tail step: its load masks take the k registers
					f8WDiverted(a, st, &ws, func(h int, sub bool) (hi, lo, b VecVirtual) {
						return f32Words(a, st, h, name, size, per, load, magic, low, one, abs, odd, even, sub)
					}, general, func(hi, lo VecVirtual, nz OpmaskVirtual, y VecVirtual) {
						a.VPSRLW(U8(s), hi, y)
						a.VPTERNLOGD(Tern(func(t, o, k uint8) uint8 { return t&o | k }), k, one, y)
						a.VPAVGW(y, lo, y)
						a.VPMINUW(limit, y, y)
						if fnuz { // normal results are never 0; zero lanes take 0x00
							a.VPSLLW(U8(9-s), y, y)
							a.VPTERNLOGD(signed, sgn, hi, y)
							a.VMOVDQU16_Z(y, nz, y)
						} else {
							a.VPSLLW_Z(U8(9-s), y, nz, y)
							a.VPTERNLOGD(signed, sgn, hi, y)
						}
					}, mn, span)
					a.VPERMT2B(ws[1], highs, ws[0])
					st.Store(ws[0], st.Dst, 8, st.M(1, 0))
					return
				}
				for h := range 2 {
					hi, lo, b := f32Words(a, st, h, name, size, per, load, magic, low, one, abs, odd, even, !intSrc)
					ws[h] = general(hi, lo, b)
				}
				a.VPERMT2B(ws[1], highs, ws[0])
				if fp4 {
					t := a.Vec()
					a.VPSRLW(U8(4), ws[0], t)
					a.VPTERNLOGD(Tern(func(b, t, m uint8) uint8 { return b&m | t&^m }), m7, t, ws[0])
					st.StoreLow(a.packNibbles(nc, ws[0]), 32, st.Dst, 8, st.M(1, 0))
					return
				}
				st.Store(ws[0], st.Dst, 8, st.M(1, 0))
			})
		}
	}
}

// f8WDiverted is a block of f32ToF8W for the float8 types whose subnormal
// results are rare in data (the E5M2 types: below 2^-14, where E4M3's lie
// below 2^-6 and half of the blocks of normally distributed inputs hold
// one): steps 4 and 5 (the NaN code and the subnormal codes, about half of
// the instructions) run out of line, for a block with a lane that is NaN
// or nonzero below the smallest normal (a - minNormal ≥ 0x7F81 -
// minNormal, unsigned, where a ≠ 0: one compare for both). The others take
// fast: steps 2, 3 and 6, zero lanes cleared by a mask, into y. words(h,
// sub) is f32Words; slow loads the block again for step 5's sums.
func f8WDiverted(a *Asm, st *Step, ws *[2]VecVirtual, words func(h int, sub bool) (hi, lo, b VecVirtual),
	slow func(hi, lo, b VecVirtual) VecVirtual, fast func(hi, lo VecVirtual, nz OpmaskVirtual, y VecVirtual), mn, span VecVirtual) {
	var his, los [2]VecVirtual
	var nzs, odd [2]OpmaskVirtual
	for h := range 2 {
		his[h], los[h], _ = words(h, false)
		nzs[h], odd[h] = a.K(), a.K()
		d := a.Vec()
		a.VPTESTMW(los[h], los[h], nzs[h])
		a.VPSUBW(mn, los[h], d)
		a.VPCMPUW(U8(cmpGE), span, d, nzs[h], odd[h])
	}
	a.KORTESTD(odd[0], odd[1])
	for h := range 2 {
		ws[h] = a.Vec()
	}
	a.divert(func() {
		for h := range 2 {
			fast(his[h], los[h], nzs[h], ws[h])
		}
	}, func() {
		for h := range 2 {
			a.VMOVDQA64(slow(words(h, true)), ws[h])
		}
	})
}

// f32Words loads the h-th 32 elements of a block of f32ToF8W as float32 and
// returns hi (their high halves, rounded to odd), a = hi & 0x7FFF, and b
// (the low byte of x + 1.5·magic in the high byte of each word; nil unless
// sub, for sources with no subnormal results).
func f32Words(a *Asm, st *Step, h int, name string, size, per int, load func(*Step, int) VecVirtual, magic, low, one, abs VecVirtual, odd, even WordIndex, sub bool) (hi, lo, b VecVirtual) {
	x0, x1 := a.Vec(), a.Vec()
	for i, x := range []*VecVirtual{&x0, &x1} {
		j := 2*h + i // the j-th 16 elements of the block
		m := st.Src.Offset(16 * size * j)
		switch name {
		case "f32ToF8":
			a.VLoad(*x, m, 32, st.M(per, 16*j))
		case "f16ToF8":
			a.VLoad(Half(*x), m, 16, st.M(1, 16*j))
			a.VCVTPH2PS(Half(*x), *x)
		default:
			*x = load(st, j)
		}
	}
	var f0, f1 VecVirtual
	if sub {
		f0, f1 = a.Vec(), a.Vec()
		a.VADDPS(magic, x0, f0)
		a.VADDPS(magic, x1, f1)
	}
	hi = a.Gather(x0, x1, odd)
	a.GatherT2(x1, even, x0)
	lo = x0
	if sub {
		a.VPERMT2B(f1, low, f0)
		b = f0
	}
	// a = (hi | (lo != 0)) & 0x7FFF, in lo.
	a.VPMINUW(one, lo, lo)
	a.VPTERNLOGD(Tern(func(l, h, m uint8) uint8 { return (l | h) & m }), abs, hi, lo)
	return hi, lo, b
}
