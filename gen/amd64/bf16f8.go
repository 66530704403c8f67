package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// bf16ToF8Bytes emits the AVX-512 (VBMI) BFLOAT16 → float8 kernel, every
// float8 type (as p's shift and signedZero tell), on bytes, 64 per
// instruction: three VPERMT2B/VPERMI2B gather, for 64 elements, E = the
// exponent byte (the high byte of x<<1), l = the low byte (BFLOAT16's
// exponent bit 0 and its 7 mantissa bits m7) and the high byte (for the
// sign). With m the target's mantissa bits and bias its exponent bias:
//
//	normal: E' = min(E - eLo, cap), saturated at 0, with cap = 2^(8-m) - 1,
//	        so that S = E'<<m fits a byte (VPSLLW: no bit crosses into the
//	        next byte); G = round(m7 / 2^(7-m)) to nearest even, 0 to 2^m
//	        (a 128-entry VPERMI2B table on l, whose bit 7 it ignores); the
//	        code is min(S + G - adj, overflow), the sum saturated at 255
//	        and the difference at 0, with adj = (127 - bias - eLo)<<m.
//	        eLo is the smallest that keeps every finite exponent of the
//	        target below cap, so E' = cap is overflow (±Inf too).
//	subnormal: the m+1 BFLOAT16 binades below the target's smallest normal
//	        (every smaller value rounds to 0, as the saturated difference
//	        gives): the code depends on E' and t = m7 >> (6-m) rounded to
//	        odd (a second VPERMI2B table), which keeps the rounding bit and
//	        one bit for everything below it; a 64-entry VPERMB table
//	        indexed by 2S + t (distinct in its low six bits over the
//	        window) is merged where E' is in the window.
//	NaN: E = 0xFF and m7 ≠ 0 (VPTESTMB, then a VPCMPEQB under that mask)
//	        take p's nan byte.
//
// The sign is or'ed in last (the FNUZ types: only into codes other than 0,
// by a zeroing move after; their NaN, 0x80, has it anyway).
// bf16F8Targets builds the tables from the formats' definitions and checks
// them against every BFLOAT16 magnitude. About 27 instructions per 64
// elements, where the kernel on 16-bit lanes (f32ToF8W's steps from
// BFLOAT16 words) took about 38.
func bf16ToF8Bytes(a *Asm) {
	a.Func("bf16ToF8BytesAVX512", AVX512, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
		"converts n BFLOAT16 to the float8 type p describes.")
	k := a.f8BytesArgs()
	dst, src, n, p, limit, nanB, sgn, odd, even := k.dst, k.src, k.n, k.p, k.limit, k.nan, k.sgn, k.odd, k.even
	m7, ff := a.Const8(0x7F), a.Const8(0xFF)

	targets := bf16F8Targets()
	label := func(t bf16F8Target) string { return t.name }
	for _, t := range targets[1:] {
		skip := a.NewLabel("next")
		a.CMPL(Mem{Base: p, Disp: f8Shift}, U8(23-t.m))
		a.JNE(LabelRef(skip))
		a.CMPL(Mem{Base: p, Disp: f8SignedZero}, U8(0))
		if t.fnuz {
			a.JE(LabelRef(label(t)))
		} else {
			a.JNE(LabelRef(label(t)))
		}
		a.Label(skip)
	}
	for i, t := range targets {
		if i > 0 {
			a.Label(label(t))
		}
		tab := func(name string, b []byte) (lo, hi VecVirtual) {
			return a.ConstBytes(name, b[:64]), a.ConstBytes(name+"hi", b[64:])
		}
		g0, g1 := tab(fmt.Sprintf("bf16f8round%d", t.m), t.g)
		t0, t1 := tab(fmt.Sprintf("bf16f8odd%d", t.m), t.t)
		sub := a.ConstBytes("bf16"+t.name+"subnormals", t.sub)
		eLo, cap8, adj := a.Const8(uint8(t.eLo)), a.Const8(uint8(t.cap)), a.Const8(uint8(t.adj))
		w0, span := a.Const8(uint8(t.w0)), a.Const8(uint8(t.m+1))
		a.StreamNamed(label(t)+"_", Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
			var xs, ys [2]VecVirtual
			for h := range 2 {
				xs[h], ys[h] = a.Vec(), a.Vec()
				a.VLoad(xs[h], st.Src.Offset(64*h), 16, st.M(1, 32*h))
				a.VPSLLW(U8(1), xs[h], ys[h])
			}
			e, hi, l := ys[0], a.Vec(), xs[0]
			a.VPERMT2B(ys[1], odd, e) // E
			a.VMOVDQA64(odd, hi)
			a.VPERMI2B(xs[1], xs[0], hi) // the sign byte
			a.VPERMT2B(xs[1], even, l)   // l
			// Normal results.
			ep, s, g, c := a.Vec(), a.Vec(), a.Vec(), a.Vec()
			a.VPSUBUSB(eLo, e, ep)
			a.VPMINUB(cap8, ep, ep)
			a.VPSLLW(U8(t.m), ep, s)
			a.VMOVDQA64(l, g)
			a.VPERMI2B(g1, g0, g)
			a.VPADDUSB(g, s, c)
			a.VPSUBUSB(adj, c, c)
			a.VPMINUB(limit, c, c)
			// Subnormal results, out of line: a block without any skips
			// their lookup (Zen 4, 64 Ki elements, normally distributed
			// inputs, three runs side by side: → E5M2/E5M2FNUZ 0.53–0.57 →
			// 0.62–0.67× copy(); → E4M3FN/E4M3FNUZ, where a block in two
			// holds one, 0.53–0.58 → 0.58–0.60×).
			w, inWin := a.Vec(), a.K()
			a.VPSUBB(w0, ep, w)
			a.VPCMPUB(U8(cmpLT), span, w, inWin)
			a.KORTESTQ(inWin, inWin)
			a.divert(func() {}, func() {
				idx := a.Vec()
				a.VMOVDQA64(l, idx)
				a.VPERMI2B(t1, t0, idx) // t
				a.VPADDB(s, idx, idx)
				a.VPADDB(s, idx, idx) // 2S + t
				a.VPERMB(sub, idx, inWin, c)
			})
			// NaN, out of line for a block with ±Inf or NaN (E = 0xFF):
			// 2–4% faster on finite inputs (Zen 4, 64 Ki, three runs).
			top := a.K()
			a.VPCMPEQB(ff, e, top)
			a.KORTESTQ(top, top)
			a.divert(func() {}, func() {
				isNaN := a.K()
				a.VPTESTMB(m7, l, top, isNaN)
				a.VMOVDQU8(nanB, isNaN, c)
			})
			a.signBytes(c, hi, sgn, t.fnuz)
			st.Store(c, st.Dst, 8, st.M(1, 0))
		})
	}
}

// bf16F8Target is one float8 type as bf16ToF8Bytes computes it: its
// constants and tables (g: m7 → G, t: m7 → t, sub: 2S | t → the
// subnormal code).
type bf16F8Target struct {
	name              string
	m, bias           int
	fnuz              bool
	eLo, cap, adj, w0 int
	g, t, sub         []byte
}

// bf16F8Targets returns the four float8 types (FLOAT8E4M3FN first: the
// kernel's fall-through) with their tables, checked against the rounding
// of every finite BFLOAT16 magnitude (the clamps of overflow and NaN are
// the kernel's, the exhaustive tests' to check).
func bf16F8Targets() []bf16F8Target {
	var ts []bf16F8Target
	for _, f := range []struct {
		name            string
		m, bias, topExp int // topExp: the largest finite exponent field
		maxCode         int // the largest finite magnitude's code
		fnuz            bool
	}{{"e4m3fn", 3, 7, 15, 0x7E, false}, {"e4m3fnuz", 3, 8, 15, 0x7F, true}, {"e5m2", 2, 15, 30, 0x7B, false}, {"e5m2fnuz", 2, 16, 31, 0x7F, true}} {
		t := bf16F8Target{name: f.name, m: f.m, bias: f.bias, fnuz: f.fnuz}
		t.cap = 1<<(8-f.m) - 1
		eTop := f.topExp - f.bias + 127 // BFLOAT16's exponent of the largest finite binade
		t.eLo = eTop + 1 - t.cap
		t.adj = (127 - f.bias - t.eLo) << f.m
		eMin := 128 - f.bias            // the smallest normal's
		t.w0 = eMin - (f.m + 1) - t.eLo // the window's first E'
		if t.w0 < 0 || t.adj < 1<<f.m || t.adj > 255 {
			panic(fmt.Sprintf("bf16F8Targets: %s: eLo %d, adj %d", f.name, t.eLo, t.adj))
		}
		sh := 6 - f.m
		t.g, t.t = make([]byte, 128), make([]byte, 128)
		for m7 := range 128 {
			t.g[m7] = byte(math.RoundToEven(float64(m7) / float64(int(1)<<(7-f.m))))
			v := m7 >> sh
			if m7&(1<<sh-1) != 0 {
				v |= 1
			}
			t.t[m7] = byte(v)
		}
		// The code of every finite magnitude (the kernel's arithmetic for
		// normal ones, the table for the window), against its value rounded.
		t.sub = make([]byte, 64)
		set := make([]bool, 64)
		unit := math.Ldexp(1, 1-f.bias-f.m) // the smallest subnormal
		for e := 1; e < 255; e++ {
			for m7 := range 128 {
				v := math.Ldexp(float64(128+m7), e-127-7)
				want := math.RoundToEven(v / unit) // in subnormal units: the code where below the smallest normal
				ep := min(max(e-t.eLo, 0), t.cap)
				if ep-t.w0 >= 0 && ep-t.w0 < f.m+1 {
					j := (2*(ep<<f.m) | int(t.t[m7])) & 63
					if !set[j] {
						t.sub[j], set[j] = byte(want), true
					}
					if t.sub[j] != byte(want) {
						panic(fmt.Sprintf("bf16F8Targets: %s: e %d m7 %#x rounds to %v, entry %d holds %d", f.name, e, m7, want, j, t.sub[j]))
					}
					continue
				}
				got := max(min((ep<<f.m)+int(t.g[m7]), 255)-t.adj, 0)
				if v >= math.Ldexp(1, 1-f.bias) { // normal: the code from the value
					wantN := (e-127+f.bias)<<f.m + int(t.g[m7]) // the exponent field and G
					if wantN > f.maxCode {
						continue // overflow: the clamp's
					}
					if got != wantN {
						panic(fmt.Sprintf("bf16F8Targets: %s: e %d m7 %#x: code %d, want %d", f.name, e, m7, got, wantN))
					}
					continue
				}
				if got != 0 || want != 0 {
					panic(fmt.Sprintf("bf16F8Targets: %s: e %d m7 %#x below the window: code %d, rounds to %v", f.name, e, m7, got, want))
				}
			}
		}
		ts = append(ts, t)
	}
	return ts
}
