package amd64

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

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
//
// The same widenings, then a conversion in registers, give the integer
// and BOOL targets in one pass (widenF8To).
func widenF8(a *Asm) {
	for _, t := range widen8Types {
		a.Func(t.name+"ToF32AVX2", AVX2, "func(dst *float32, src *uint8, n int)")
		dst, src, n := a.Args()
		widen := t.widen(a)
		a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: 8, Unroll: 4}, dst, src, n, func(s *Step) {
			for i := 0; i < s.Lanes; i += 16 {
				p := s.Part(i, min(16, s.Lanes-i))
				for j, r := range widen(p) {
					s.Store(r, p.Dst.Offset(32*j), 32, nil)
				}
			}
		})
	}
	widenF8To(a)
}

// widen8Type is one 8-bit float type of the AVX2 widenings: widen is called
// before the loop (it sets up its constants) and returns the code that
// widens a step of 8 or 16 bytes into float32 lanes, one YMM per 8.
// toInt, where not nil, replaces widen for the integer targets (widenF8To).
type widen8Type struct {
	name         string
	widen, toInt func(a *Asm) func(p *Step) []VecVirtual
}

var widen8Types = []widen8Type{
	{"e4m3fn", func(a *Asm) func(p *Step) []VecVirtual { return widenE4M3(a, 7, false, false) },
		func(a *Asm) func(p *Step) []VecVirtual { return widenE4M3(a, 7, false, true) }},
	{"e4m3fnuz", func(a *Asm) func(p *Step) []VecVirtual { return widenE4M3(a, 8, true, false) },
		func(a *Asm) func(p *Step) []VecVirtual { return widenE4M3(a, 8, true, true) }},
	{"e5m2fnuz", widenE5M2FNUZ, nil},
	{"e5m2", widenE5M2, nil},
	{"e8m0", widenE8M0, nil},
}

// widenE4M3 widens FLOAT8E4M3FN (bias 7) or FLOAT8E4M3FNUZ (bias 8, fnuz).
// With toInt, for the integer targets, it skips the product: the exponent
// is rebiased in the FLOAT16 bits (+ (15-bias) << 10), which is exact for
// the normal values and turns a subnormal or zero m·2^(-bias-2) into a value
// below 1 (one that truncates to 0, as the subnormal does), and the NaN
// becomes 0 instead, as the integer targets want.
func widenE4M3(a *Asm, bias int, fnuz, toInt bool) func(p *Step) []VecVirtual {
	mask := a.Const16(0xBF80)
	var scale, rebias VecVirtual
	if toInt {
		rebias = a.Const16(uint16(15-bias) << 10)
	} else {
		scale = a.Const32(uint32(127+15-bias) << 23)
	}
	var top, fix VecVirtual
	if fnuz {
		top, fix = a.Const16(0xFF80), a.Const16(0x7E00) // int8(0x80); 0x8000 | 0x7E00 is NaN
	} else {
		top, fix = a.Const16(0xFE00), a.Const16(0x3F80^0x7E00) // the magnitude 0x7F, alone; 0x3F80 to NaN
	}
	return func(p *Step) []VecVirtual {
		x, w, m := a.Vec(), a.Vec(), a.Vec()
		c := func(v VecVirtual) VecVirtual { return v }
		if p.Lanes == 8 {
			c = func(v VecVirtual) VecVirtual { return v.AsX().(VecVirtual) }
		}
		a.VPMOVSXBW(p.Src, c(x))
		a.VPSLLW(U8(7), c(x), c(w))
		a.VPAND(c(mask), c(w), c(w)) // FLOAT16 bits: sign | magnitude << 7
		if toInt {
			if fnuz {
				a.VPCMPEQW(c(top), c(x), c(m))
			} else {
				a.VPSLLW(U8(9), c(x), c(m))
				a.VPCMPEQW(c(top), c(m), c(m))
			}
			a.VPADDW(c(rebias), c(w), c(w))
			a.VPANDN(c(w), c(m), c(w)) // NaN: 0
		} else if fnuz {
			a.VPCMPEQW(c(top), c(x), c(m))
			a.VPAND(c(fix), c(m), c(m))
			a.VPOR(c(m), c(w), c(w))
		} else {
			a.VPSLLW(U8(9), c(x), c(m))
			a.VPCMPEQW(c(top), c(m), c(m))
			a.VPAND(c(fix), c(m), c(m))
			a.VPXOR(c(m), c(w), c(w))
		}
		var rs []VecVirtual
		for j := 0; j < p.Lanes; j += 8 {
			h := w.AsX().(VecVirtual)
			if j > 0 {
				h = a.XMM()
				a.VEXTRACTI128(U8(1), w, h)
			}
			r := a.Vec()
			a.VCVTPH2PS(h, r)
			if !toInt {
				a.VMULPS(scale, r, r)
			}
			rs = append(rs, r)
		}
		return rs
	}
}

func widenE5M2FNUZ(a *Asm) func(p *Step) []VecVirtual {
	const sh = 21
	mask := a.Const32(0x80000000 | 0x7F<<sh)
	scale := a.Const32(uint32(127+127-16) << 23)
	nan := a.Const32(0x7FC00000)
	top := a.Const32(0xFFFFFF80) // int8(0x80)
	return func(p *Step) []VecVirtual {
		var rs []VecVirtual
		for j := 0; j < p.Lanes; j += 8 {
			x, r, m := a.Vec(), a.Vec(), a.Vec()
			a.VPMOVSXBD(p.Src.Offset(j), x)
			a.VPSLLD(U8(sh), x, r)
			a.VPAND(mask, r, r)
			a.VPCMPEQD(top, x, m) // 0x80: negative zero, so r = 0x80000000
			a.VPAND(nan, m, m)
			a.VPOR(m, r, r)
			a.VMULPS(scale, r, r)
			rs = append(rs, r)
		}
		return rs
	}
}

// quietE5M2 gives the NaN bytes of the FLOAT8E5M2 bytes b (magnitude above
// nanMin = 0x7C) the low bits 0b10, the quiet NaN without payload, in
// place; m and c are scratch, abs and three the constants 0x7F and 3 in
// every byte.
func (a *Asm) quietE5M2(b, m, c, abs, nanMin, three VecVirtual) {
	a.VPAND(abs.AsX(), b, m)
	a.VPCMPGTB(nanMin.AsX(), m, m) // NaN: 0xFF
	a.VPAND(three.AsX(), m, c)
	a.VPOR(c, b, b)
	a.VPADDB(m, b, b) // low bits 0b11 - 1
}

func widenE5M2(a *Asm) func(p *Step) []VecVirtual {
	abs, nanMin, three := a.Const8(0x7F), a.Const8(0x7C), a.Const8(3)
	zero := a.XMM()
	a.VPXOR(zero, zero, zero)
	return func(p *Step) []VecVirtual {
		b, m, c := a.XMM(), a.XMM(), a.XMM()
		if p.Lanes == 16 {
			a.VMOVDQU(p.Src, b)
		} else {
			a.VMOVQ(p.Src, b)
		}
		a.quietE5M2(b, m, c, abs, nanMin, three)
		var rs []VecVirtual
		for j := 0; j < p.Lanes; j += 8 {
			w, r := a.XMM(), a.Vec()
			if j == 0 {
				a.VPUNPCKLBW(b, zero, w)
			} else {
				a.VPUNPCKHBW(b, zero, w)
			}
			a.VCVTPH2PS(w, r)
			rs = append(rs, r)
		}
		return rs
	}
}

func widenE8M0(a *Asm) func(p *Step) []VecVirtual {
	inf, low := a.Const32(0x7F800000), a.Const32(0x00400000)
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	return func(p *Step) []VecVirtual {
		var rs []VecVirtual
		for j := 0; j < p.Lanes; j += 8 {
			r, m, f := a.Vec(), a.Vec(), a.Vec()
			a.VPMOVZXBD(p.Src.Offset(j), r)
			a.VPSLLD(U8(23), r, r)
			a.VPCMPEQD(zero, r, m)
			a.VPCMPEQD(inf, r, f)
			a.VPOR(f, m, m)
			a.VPAND(low, m, m)
			a.VPOR(m, r, r)
			rs = append(rs, r)
		}
		return rs
	}
}

// widen8Target is a target of the one-pass AVX2 kernels from the 8-bit
// float types: the widening above (toInt's where the type has one and the
// target is an integer), then finish on the float32 lanes of a step.
type widen8Target struct {
	suffix string   // kernel name: type name + "To" + suffix + "AVX2"
	goType []string // the target DataTypes (Go names)
	bytes  int      // per element (0: a packed target, packedBits)
	lanes  int      // source elements per step (16 or 32: a whole store; 64, 128 packed)
	toInt  bool     // the target is an integer (toInt's widening allowed)
	types  []string // the source types served; nil: all of widen8Types
	finish func(a *Asm) func(s *Step, rs []VecVirtual)
}

// widen8Targets is the table of those kernels. Why each finish gives the
// reference's bits:
//   - I16, I8: VCVTTPS2DQ truncates every value below 2^31 in magnitude
//     exactly and gives 0x80000000 for the rest (NaN, ±Inf, E8M0's 2^31 and
//     above); the low 16 or 8 bits are the result modulo 2^16 or 2^8, the
//     reference's (0 for those others: 0x80000000 has zero low bits, and
//     every power of two from 2^16 up is 0 modulo 2^16), packed without
//     saturation.
//   - I4, I2: f8Mul's I8 bytes, whose low 4 or 2 bits are the truncation
//     modulo 2^4 or 2^2, the reference's INT4/UINT4 or INT2/UINT2 code
//     (it wraps the same way; f8MulPlan checks all 256 bytes).
//   - I32: the same, with the lanes of |r| ≥ 2^32 or NaN cleared (the
//     reference's 0); E8M0's 2^31 stays 0x80000000, 2^31 modulo 2^32.
//   - I64: I32's lanes sign-extended by VPMOVSXDQ (E8M0, whose values
//     reach 2^127, by e8m0ToInt's shifts).
//
// BOOL has no target here: the float8 types' BOOL tables are two-valued, and
// the select kernels (select.go) look them up at memory speed.
// The 8-bit floats → FLOAT16/BFLOAT16 have kernels of their own: f8half.go's,
// and FLOAT8E5M2 → FLOAT16's in lut.go (f8ToHalfAVX2), which the AVX2 lut16
// wrapper picks.
var widen8Targets = []widen8Target{
	{"I16", []string{"Int16", "Uint16"}, 2, 16, true, nil, finishInt(16)},
	{"I32", []string{"Int32", "Uint32"}, 4, 16, true, nil, finishInt(32)},
	{"I8", []string{"Int8", "Uint8"}, 1, 32, true, nil, finishInt(8)},
	// INT64/UINT64: I32's lanes sign-extended (every finite value of these
	// types is below 2^31; NaN and ±Inf give 0, as the reference's do), where
	// the plan went through a FLOAT block: 0.35-0.63 → 0.82-1.18× copy()
	// (Zen 3, two runs side by side).
	{"I64", []string{"Int64", "Uint64"}, 8, 16, true, nil, finishInt(64)},
	// The packed integers: f8Mul's bytes or f8Windows' codes, packed in
	// registers; E8M0 has e8m0Packed.
	{"I4", []string{"Int4", "Uint4"}, 0, 64, true, []string{"e4m3fn", "e4m3fnuz", "e5m2", "e5m2fnuz"}, nil},
	{"I2", []string{"Int2", "Uint2"}, 0, 128, true, []string{"e4m3fn", "e4m3fnuz", "e5m2", "e5m2fnuz"}, nil},
}

// packedBits gives the bits of widen8Targets' packed targets by suffix.
var packedBits = map[string]int{"I4": 4, "I2": 2}

// widen8GoTypes maps widen8Types' names to their DataTypes' Go names.
var widen8GoTypes = map[string]string{"e4m3fn": "Float8E4M3FN", "e4m3fnuz": "Float8E4M3FNUZ", "e5m2": "Float8E5M2", "e5m2fnuz": "Float8E5M2FNUZ", "e8m0": "Float8E8M0"}

// widen8Kernels lists the (type, target) kernels of widen8Targets.
func widen8Kernels() (out []struct {
	t   widen8Type
	tgt widen8Target
}) {
	for _, tgt := range widen8Targets {
		for _, t := range widen8Types {
			if tgt.types == nil || slices.Contains(tgt.types, t.name) {
				out = append(out, struct {
					t   widen8Type
					tgt widen8Target
				}{t, tgt})
			}
		}
	}
	return out
}

// widenF8To emits the kernels of widen8Targets; n is a multiple of the
// target's lanes.
func widenF8To(a *Asm) {
	for _, k := range widen8Kernels() {
		t, tgt := k.t, k.tgt
		doc := fmt.Sprintf("n is a multiple of %d (gen/amd64 widen8Targets: %s).", tgt.lanes, tgt.suffix)
		if bits := packedBits[tgt.suffix]; bits != 0 {
			doc = fmt.Sprintf("n counts bytes of dst (groups of %d source bytes), a multiple of 32 (gen/amd64 widen8Targets: %s).", 8/bits, tgt.suffix)
		}
		a.Func(t.name+"To"+tgt.suffix+"AVX2", AVX2, "func(dst *uint8, src *uint8, n int)", doc)
		dst, src, n := a.Args()
		if t.name == "e8m0" && tgt.toInt {
			e8m0ToInt(a, tgt, dst, src, n)
			continue
		}
		if bits := map[string]int{"I8": 8, "I4": 4, "I2": 2}[tgt.suffix]; bits != 0 {
			if p, ok := planF8Windows(t.name, bits); ok {
				f8Windows(a, t.name, p, dst, src, n) // window8.go
				continue
			}
		}
		if bits := packedBits[tgt.suffix]; bits != 0 {
			f8Mul(a, t.name, bits, dst, src, n)
			continue
		}
		if t.name != "e8m0" && (tgt.suffix == "I16" || tgt.suffix == "I8") {
			f8Mul(a, t.name, 8*tgt.bytes, dst, src, n) // f8mul.go
			continue
		}
		widen := t.widen
		if tgt.toInt && t.toInt != nil {
			widen = t.toInt
		}
		w := widen(a)
		finish := tgt.finish(a)
		a.Stream(Loop{SrcSize: 1, DstSize: tgt.bytes, Lanes: tgt.lanes, Unroll: 32 / tgt.lanes}, dst, src, n, Each(tgt.lanes, func(s *Step) {
			var rs []VecVirtual
			for i := 0; i < tgt.lanes; i += 16 {
				rs = append(rs, w(s.Part(i, 16))...)
			}
			finish(s, rs)
		}))
	}
}

// finishInt is the finish of the integer targets of the given bits.
func finishInt(bits int) func(a *Asm) func(s *Step, rs []VecVirtual) {
	return func(a *Asm) func(s *Step, rs []VecVirtual) {
		var low, abs, limit VecVirtual
		switch bits {
		case 8:
			low = a.Const32(0xFF)
		case 16:
			low = a.Const32(0xFFFF)
		case 32:
			abs, limit = a.Const32(0x7FFFFFFF), a.Const32(0x4F800000) // 2^32
		default:
			abs, limit = a.Const32(0x7FFFFFFF), a.Const32(0x4F000000) // 2^31
		}
		var order VecVirtual
		if bits == 8 {
			order = a.Vec()
			a.VPMOVZXBD(a.DataBytes("packorder8", []byte{0, 4, 1, 5, 2, 6, 3, 7}), order)
		}
		return func(s *Step, rs []VecVirtual) {
			for j, r := range rs {
				q := a.Vec()
				a.VCVTTPS2DQ(r, q)
				switch {
				case bits < 32:
					a.VPAND(low, q, q)
				case bits == 32:
					m := a.Vec()
					a.VANDPS(abs, r, m)
					a.VCMPPS(U8(1), limit, m, m) // |r| < 2^32, false for NaN (LT_OS)
					a.VPAND(m, q, q)
					s.Store(q, s.Dst.Offset(32*j), 32, nil)
				default:
					m := a.Vec()
					a.VANDPS(abs, r, m)
					a.VCMPPS(U8(1), limit, m, m) // |r| < 2^31 (finite), false for NaN
					a.VPAND(m, q, q)
					hi, w := a.XMM(), a.Vec()
					a.VEXTRACTI128(U8(1), q, hi)
					a.VPMOVSXDQ(q.AsX(), w)
					s.Store(w, s.Dst.Offset(64*j), 64, nil)
					a.VPMOVSXDQ(hi, w)
					s.Store(w, s.Dst.Offset(64*j+32), 64, nil)
				}
				rs[j] = q
			}
			switch bits {
			case 16:
				a.VPACKUSDW(rs[1], rs[0], rs[0])
				a.VPERMQ(U8(0b11_01_10_00), rs[0], rs[0])
				s.Store(rs[0], s.Dst, 16, nil)
			case 8:
				packBytes4(a, s, rs, order)
			}
		}
	}
}

// packBytes4 stores the low bytes of the dwords of four vectors (each
// dword at most 0xFF), in order: two VPACKUSDW and a VPACKUSWB leave each
// 128-bit lane holding four dwords of each vector, VPERMD orders them.
func packBytes4(a *Asm, s *Step, rs []VecVirtual, order VecVirtual) {
	a.VPACKUSDW(rs[1], rs[0], rs[0])
	a.VPACKUSDW(rs[3], rs[2], rs[2])
	a.VPACKUSWB(rs[2], rs[0], rs[0])
	a.VPERMD(rs[0], order, rs[0])
	s.Store(rs[0], s.Dst, 8, nil)
}

// avx2Cond is the Go condition of the AVX2 family's base extensions, which
// its tier stages are registered under.
func avx2Cond() string {
	var conds []string
	for _, x := range baseISA[AVX2] {
		if x != "MMX+" {
			conds = append(conds, "cpu.X86."+cpuFlags[x])
		}
	}
	return strings.Join(conds, " && ")
}

// widen8Glue writes the Go side of widen8Targets' kernels: their
// registration as AVX2 tier stages (avx2F8Stage, f8int_amd64.go).
func widen8Glue(b *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("// The one-pass AVX2 stages of the 8-bit float sources (gen/amd64/widen8.go,\n")
	p("// widen8Targets), for the AVX2 tier only: AVX-512 has its own table kernels.\n\n")
	p("func init() {\n\tif %s {\n", avx2Cond())
	for _, k := range widen8Kernels() {
		for _, to := range k.tgt.goType {
			from := widen8GoTypes[k.t.name]
			stage := "avx2F8Stage"
			if packedBits[k.tgt.suffix] != 0 {
				stage = "avx2F8PackedStage"
			}
			p("\t\tregisterTierStage(%q, %s, %s, %s(%s, %s, %sTo%sAVX2, %d))\n", "avx2", from, to, stage, from, to, k.t.name, k.tgt.suffix, k.tgt.lanes)
		}
	}
	for _, t := range []struct{ to, fn string }{{"Int4", "e8m0ToI4AVX2"}, {"Uint4", "e8m0ToI4AVX2"}, {"Int2", "e8m0ToI2AVX2"}, {"Uint2", "e8m0ToI2AVX2"}} {
		p("\t\tregisterTierStage(%q, Float8E8M0, %s, avx2F8PackedStage(Float8E8M0, %s, %s, 32))\n", "avx2", t.to, t.to, t.fn)
	}
	p("\t\tregisterTierStage(%q, Float8E8M0, Float4E2M1, avx2F8PackedStage(Float8E8M0, Float4E2M1, e8m0ToF4AVX2, 32))\n", "avx2")
	for _, f := range f8F4Formats() { // f8f4.go
		p("\t\tregisterTierStage(%q, %s, Float4E2M1, avx2F8PackedStage(%s, Float4E2M1, %sToF4AVX2, 64))\n", "avx2", f.goName, f.goName, f.name)
	}
	for _, from := range int8F4Sources { // window8.go
		if from.size == 1 {
			p("\t\tregisterTierStage(%q, %s, Float4E2M1, avx2F8PackedStage(%s, Float4E2M1, %sToF4AVX2, 32))\n", "avx2", from.goName, from.goName, from.name)
			continue
		}
		p("\t\tregisterTierStage(%q, %s, Float4E2M1, avx2IntToF4Stage[%s](%sToF4AVX2))\n", "avx2", from.goName, strings.ToLower(from.goName), from.name)
	}
	for _, k := range f8HalfPairs() { // f8half.go
		p("\t\tregisterTierStage(%q, %s, %s, avx2F8Stage(%s, %s, %s, %d))\n", "avx2", k.f.goName, k.t.goName, k.f.goName, k.t.goName, k.name(), k.lanes())
	}
	p("\t}\n}\n")
}
