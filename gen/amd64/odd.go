package amd64

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The round-to-odd stages: DOUBLE, INT32, UINT32, INT64 and UINT64 → the
// float32 bits of the value truncated toward zero to 24 significant bits,
// with the last significand bit set when anything was dropped (plan.go says
// why the planner's second rounding is then exact). f64ToF32Odd and
// intToF32Odd (steps.go) define the result, edges included: DOUBLE
// magnitudes ≥ 2^128 (and ±Inf) give ±Inf, those in (MaxFloat32, 2^128)
// ±MaxFloat32, nonzero ones below 2^-149 ±2^-149; subnormal results are
// truncated on the subnormal grid; a NaN keeps its sign and the top 22
// payload bits, quieted; -0 stays -0.
//
// oddStages is their table, in the style of numericStages: an entry names
// the source; the algorithm is written once per family below, and glue
// (oddGlue) emits the Go wrappers and the registerOddStage calls.
//
// AVX-512 truncates with the conversions' embedded rounding ({rz-sae}, which
// leaves MXCSR alone), converts the result back exactly (a float32 converts
// exactly to DOUBLE, and a truncation toward zero of an integer converts
// back to an integer of the same type without overflow) and sets the last
// bit where the round trip differs (an ordered comparison for DOUBLE, so a
// NaN, which the conversion already quiets keeping its top payload bits, is
// left alone). DOUBLE's truncation of a finite |x| ≥ 2^128 is ±MaxFloat32,
// odd; adding 1 to it where |x| ≥ 2^128 and the round trip differs gives
// ±Inf (±Inf itself converts exactly).
//
// AVX2 has no embedded rounding, and MXCSR is not ours to change: DOUBLE
// and INT32 start from the conversion to nearest even and step back where it
// rounded away from zero (oddF64AVX2, oddI32AVX2); UINT32, INT64 and UINT64,
// which AVX2 cannot convert, compute with integers (oddIntAVX2).

// cmpGTOQ is VCMPPD's ordered greater-than (numeric.go has the others).
const cmpGTOQ = 0x1E

// oddStage is one entry of the table.
type oddStage struct{ from num }

// oddStages is the table: every source the planner rounds to odd.
func oddStages() []oddStage {
	return []oddStage{{tF64}, {tI32}, {tU32}, {tI64}, {tU64}}
}

// Lanes is the number of elements per vector step (lanes of the source).
func (s oddStage) Lanes(isa ISA) int {
	if isa == AVX512 {
		return 512 / s.from.bits
	}
	return 256 / s.from.bits
}

// Name is the assembly function's name.
func (s oddStage) Name(isa ISA) string { return "odd" + s.from.short + "ToF32" + isa.String() }

// wrapper is the name of the Go wrapper (oddGlue).
func (s oddStage) wrapper(isa ISA) string { return "stageOdd" + s.from.short + "ToF32" + isa.String() }

func oddNames() map[string]ISA {
	m := map[string]ISA{}
	for _, isa := range []ISA{AVX512, AVX2} {
		for _, st := range oddStages() {
			m[st.Name(isa)] = isa
		}
	}
	return m
}

// oddFuncs emits the assembly of every round-to-odd stage, AVX-512 then
// AVX2.
func oddFuncs(a *Asm) {
	for _, isa := range []ISA{AVX512, AVX2} {
		for _, st := range oddStages() {
			st.emit(a, isa)
		}
	}
}

func (st oddStage) emit(a *Asm, isa ISA) {
	lanes := st.Lanes(isa)
	a.Func(st.Name(isa), isa, "func(dst, src *byte, n int)",
		fmt.Sprintf("%s rounds n %s elements at src to float32 bits at dst by round-to-odd (gen/amd64 oddStages; %d lanes).",
			st.Name(isa), strings.ToUpper(st.from.goName), lanes))
	if isa == AVX512 {
		a.Needs("AVX512DQ")
	}
	dst, src, n := a.Args()
	var conv func(x VecVirtual) VecVirtual
	switch {
	case isa == AVX512 && st.from == tF64:
		conv = oddF64AVX512(a)
	case isa == AVX512:
		conv = st.oddIntAVX512(a)
	case st.from == tF64:
		conv = oddF64AVX2(a)
	default:
		conv = st.oddIntAVX2(a)
	}
	srcBytes, dstBytes := lanes*st.from.bytes(), lanes*4
	a.Stream(Loop{SrcSize: st.from.bytes(), DstSize: 4, Lanes: lanes, Unroll: 4}, dst, src, n, Each(lanes, func(s *Step) {
		x := a.vecBytes(srcBytes)
		a.loadLow(x, srcBytes, s.Src, st.from.bits, s.M(1, 0))
		s.StoreLow(conv(x), dstBytes, s.Dst, 32, s.M(1, 0))
	}))
}

// oddF64AVX512: see the top of the file.
func oddF64AVX512(a *Asm) func(x VecVirtual) VecVirtual {
	one := a.Const32(1)
	abs := a.splat64(math.MaxInt64)
	big := a.splat64(math.Float64bits(0x1p128))
	return func(x VecVirtual) VecVirtual {
		t, b, m := a.YMM(), a.ZMM(), a.ZMM()
		kin, kbig := a.K(), a.K()
		a.VCVTPD2PS_RZ_SAE(x, t)
		a.VCVTPS2PD(t, b)
		a.VCMPPD(U8(cmpNEQOQ), b, x, kin) // inexact (never for NaN)
		a.VPANDQ(abs, x, m)
		a.VCMPPD(U8(cmpGEOQ), big, m, kin, kbig) // inexact and |x| ≥ 2^128
		a.VPORD(one.AsY(), t, kin, t)
		a.VPADDD(one.AsY(), t, kbig, t) // ±MaxFloat32 + 1 = ±Inf
		return t
	}
}

// oddIntAVX512: truncate, convert back, set the last bit where it differs.
func (st oddStage) oddIntAVX512(a *Asm) func(x VecVirtual) VecVirtual {
	one := a.Const32(1)
	type ops struct {
		rz, back func(...Op)
		cmp      func(...Op)
		half     bool // the result is a YMM (64-bit sources)
	}
	o := map[num]ops{
		tI32: {a.VCVTDQ2PS_RZ_SAE, a.VCVTTPS2DQ, a.VPCMPD, false},
		tU32: {a.VCVTUDQ2PS_RZ_SAE, a.VCVTTPS2UDQ, a.VPCMPD, false},
		tI64: {a.VCVTQQ2PS_RZ_SAE, a.VCVTTPS2QQ, a.VPCMPQ, true},
		tU64: {a.VCVTUQQ2PS_RZ_SAE, a.VCVTTPS2UQQ, a.VPCMPQ, true},
	}[st.from]
	return func(x VecVirtual) VecVirtual {
		t, b := a.ZMM(), a.ZMM()
		k := a.K()
		var tv VecVirtual = t
		o1 := Op(one)
		if o.half {
			tv, o1 = t.AsY().(VecVirtual), one.AsY()
		}
		o.rz(x, tv)
		o.back(tv, b)
		o.cmp(U8(4), b, x, k) // not equal: inexact
		a.VPORD(o1, tv, k, tv)
		return tv
	}
}

// oddIntAVX2 rounds 32- or 64-bit integers to odd with integer arithmetic,
// on the magnitude u (the sign is put back at the end; |INT_MIN| is read as
// unsigned). The number of bits to drop is s = max(0, msb(u) - 23), where
// msb comes from the exponent of an exact float conversion of u shifted
// right (u>>8 as float32 for 32-bit lanes, u>>12 as DOUBLE by the 2^52
// magic number for 64-bit lanes; exact, and equal to msb(u) - 8 or - 12
// whenever u ≥ 2^24, the only case that drops bits). Then m = u >> s has at
// most 24 bits, gets its last bit set when m << s ≠ u, converts exactly
// (VCVTDQ2PS), and s << 23 added to its bits scales it by 2^s exactly, as
// intToF32Odd does.
func (st oddStage) oddIntAVX2(a *Asm) func(x VecVirtual) VecVirtual {
	zero := a.YMM()
	a.VPXOR(zero, zero, zero)
	signed := st.from.isSigned()
	if st.from == tI32 {
		return oddI32AVX2(a, zero)
	}
	if st.from.bits == 32 {
		c142, one, sgn := a.Splat(127+15), a.Splat(1), a.Splat(0x80000000)
		return func(x VecVirtual) VecVirtual {
			u, h, m, b := x, a.YMM(), a.YMM(), a.YMM()
			var sg VecVirtual
			if signed {
				sg, u = a.YMM(), a.YMM()
				a.VPAND(sgn, x, sg)
				a.VPABSD(x, u)
			}
			a.VPSRLD(U8(8), u, h)
			a.VCVTDQ2PS(h, h)
			a.VPSRLD(U8(23), h, h)
			a.VPSUBD(c142, h, h)
			a.VPMAXSD(zero, h, h) // s
			a.VPSRLVD(h, u, m)
			a.VPSLLVD(h, m, b)
			a.VPCMPEQD(u, b, b)
			a.VPANDN(one, b, b) // 1 where bits were dropped
			a.VPOR(b, m, m)
			a.VCVTDQ2PS(m, m)
			a.VPSLLD(U8(23), h, h)
			a.VPADDD(h, m, m)
			if signed {
				a.VPOR(sg, m, m)
			}
			return m
		}
	}
	magic := a.splat64(math.Float64bits(0x1p52))
	c1034, one, sgn := a.splat64(1023+11), a.splat64(1), a.splat64(0x80000000)
	idx := a.ConstTable("narrow_q2d", []uint32{0, 2, 4, 6, 0, 2, 4, 6})
	return func(x VecVirtual) VecVirtual {
		u, h, m, b := x, a.YMM(), a.YMM(), a.YMM()
		var neg VecVirtual
		if signed {
			neg, u = a.YMM(), a.YMM()
			a.VPCMPGTQ(x, zero, neg) // all ones where x < 0
			a.VPXOR(neg, x, u)
			a.VPSUBQ(neg, u, u) // |x|
		}
		a.VPSRLQ(U8(12), u, h)
		a.VPOR(magic, h, h)
		a.VSUBPD(magic, h, h) // u>>12, exactly
		a.VPSRLQ(U8(52), h, h)
		a.VPSUBD(c1034, h, h) // the low dwords; the high ones stay 0
		a.VPMAXSD(zero, h, h) // s
		a.VPSRLVQ(h, u, m)
		a.VPSLLVQ(h, m, b)
		a.VPCMPEQQ(u, b, b)
		a.VPANDN(one, b, b)
		a.VPOR(b, m, m)   // < 2^24 in the low dword, 0 in the high one
		a.VCVTDQ2PS(m, m) // exact
		a.VPSLLD(U8(23), h, h)
		a.VPADDD(h, m, m)
		if signed {
			a.VPAND(sgn, neg, neg)
			a.VPOR(neg, m, m)
		}
		a.VPERMD(m, idx, m)
		return m
	}
}

// oddI32AVX2 rounds INT32 to odd from VCVTDQ2PS's rounding to nearest
// even (Go's MXCSR): b, the conversion truncated back to an integer, differs
// from x by d = x - b (at most 64 in magnitude, so exact modulo 2^32 even
// where the conversion gives 2^31 and VCVTTPS2DQ 0x80000000 = -2^31); where
// d ≠ 0 the last bit is set, after stepping the float32 bits back by one
// where the rounding went away from zero (d and x of opposite signs): one
// below a rounded-up magnitude is the truncation, across a power of two too.
func oddI32AVX2(a *Asm, zero VecVirtual) func(x VecVirtual) VecVirtual {
	one := a.Splat(1)
	return func(x VecVirtual) VecVirtual {
		f, b, e := a.YMM(), a.YMM(), a.YMM()
		a.VCVTDQ2PS(x, f)
		a.VCVTTPS2DQ(f, b)
		a.VPSUBD(b, x, b) // d
		a.VPCMPEQD(zero, b, e)
		a.VPXOR(x, b, b)
		a.VPSRAD(U8(31), b, b) // -1 where d and x differ in sign
		a.VPANDN(b, e, b)      // … and d ≠ 0: away from zero
		a.VPADDD(b, f, f)
		a.VPANDN(one, e, e)
		a.VPOR(e, f, f)
		return f
	}
}

// oddF64AVX2 rounds DOUBLE to odd from the conversion to nearest even
// (VCVTPD2PS under Go's MXCSR; never ours to change), converted back
// exactly (VCVTPS2PD): where the round trip differs (an ordered comparison,
// false for NaN, which the conversion already quiets keeping its top
// payload bits) the last bit is set, after stepping the float32 bits back by
// one where the rounding went away from zero (|back| > |x|): one below a
// rounded-up float32 is the truncation, also across a power of two, and from
// ±Inf (finite |x| in (MaxFloat32, 2^128)) to ±MaxFloat32. Lanes with
// |x| ≥ 2^128 (and ±Inf) keep the conversion's ±Inf. Subnormal results are rounded on their grid
// by the conversion and so truncated on it; nonzero |x| < 2^-150 gives ±0,
// inexact, and so the odd 2^-149; (2^-150, 2^-149) rounds away to 2^-149,
// steps back to 0 and becomes 2^-149 again.
func oddF64AVX2(a *Asm) func(x VecVirtual) VecVirtual {
	abs, big, one := a.splat64(math.MaxInt64), a.splat64(math.Float64bits(0x1p128)), a.splat64(1)
	idx := a.ConstTable("narrow_q2d", []uint32{0, 2, 4, 6, 0, 2, 4, 6})
	return func(x VecVirtual) VecVirtual {
		f, bk, ne, ax, aw, bg := a.XMM(), a.YMM(), a.YMM(), a.YMM(), a.YMM(), a.YMM()
		a.VCVTPD2PSY(x, f)
		a.VCVTPS2PD(f, bk)
		a.VCMPPD(U8(cmpNEQOQ), bk, x, ne) // inexact
		a.VANDPD(abs, x, ax)
		a.VANDPD(abs, bk, bk)
		a.VCMPPD(U8(cmpGTOQ), ax, bk, aw) // rounded away from zero
		a.VCMPPD(U8(cmpGEOQ), big, ax, bg)
		a.VPANDN(aw, bg, aw)
		a.VPAND(one, ne, ne)
		a.VPANDN(ne, bg, ne)
		r := a.YMM()
		a.VPMOVZXDQ(f, r)
		a.VPADDQ(aw, r, r) // -1 where away
		a.VPOR(ne, r, r)
		a.VPERMD(r, idx, r)
		return r
	}
}

// oddGlue writes the Go side of the round-to-odd stages into b: their
// registration (under the extensions each family's functions use) and a
// wrapper per stage and family, like glue's.
func oddGlue(b *bytes.Buffer, used stageISA) error {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("// The round-to-odd SIMD stages (gen/amd64/odd.go, oddStages).\n\n")
	p("func init() {\n")
	for _, isa := range []ISA{AVX2, AVX512} {
		cond, err := used.cond(isa)
		if err != nil {
			return fmt.Errorf("no extensions recorded for the %v round-to-odd stages: %w", isa, err)
		}
		p("\tif %s {\n", cond)
		for _, st := range oddStages() {
			p("\t\tregisterOddStage(%q, %s, %s)\n", tierNames[isa], st.from.goName, st.wrapper(isa))
		}
		p("\t}\n")
	}
	p("}\n\n")
	for _, isa := range []ISA{AVX512, AVX2} {
		for _, st := range oddStages() {
			fs, lanes := st.from.bytes(), st.Lanes(isa)
			name := st.wrapper(isa)
			p("// %s rounds %s to float32 by round-to-odd: the stage {%s} of gen/amd64's\n", name, strings.ToUpper(st.from.goName), st.from.goName)
			if isa == AVX512 {
				p("// oddStages, %d elements a vector, the last ones under masks.\n", lanes)
			} else {
				p("// oddStages, %d elements a vector; oddTail converts the last n mod %d.\n", lanes, lanes)
			}
			p("func %s(dst, src []byte, n int) {\n", name)
			p("\tsrc, dst = src[:%d*n], dst[:4*n]\n", fs)
			p("\traceRead(src)\n\traceWrite(dst)\n")
			if isa == AVX512 {
				p("\t%s(unsafe.SliceData(dst), unsafe.SliceData(src), n)\n", st.Name(isa))
			} else {
				p("\tm := n - n%%%d\n", lanes)
				p("\tif m > 0 {\n\t\t%s(unsafe.SliceData(dst), unsafe.SliceData(src), m)\n\t}\n", st.Name(isa))
				p("\tif m < n {\n\t\toddTail(dst[4*m:], src[%d*m:], %s, n-m)\n\t}\n", fs, st.from.goName)
			}
			p("}\n\n")
		}
	}
	b.WriteString(oddTailSource)
	return nil
}

// oddTailSource converts the AVX2 tails by the definitions in steps.go.
const oddTailSource = `// oddTail rounds n elements of from to float32 by round-to-odd, one at a
// time (f64ToF32Odd, intToF32Odd).
func oddTail(dst, src []byte, from DataType, n int) {
	le := binary.LittleEndian
	for i := range n {
		var r uint32
		switch from {
		case Double:
			r = f64ToF32Odd(le.Uint64(src[8*i:]))
		case Int32:
			r = intToF32Odd(uint64(int64(int32(le.Uint32(src[4*i:])))), true)
		case Uint32:
			r = intToF32Odd(uint64(le.Uint32(src[4*i:])), false)
		case Int64:
			r = intToF32Odd(le.Uint64(src[8*i:]), true)
		case Uint64:
			r = intToF32Odd(le.Uint64(src[8*i:]), false)
		}
		le.PutUint32(dst[4*i:], r)
	}
}
`
