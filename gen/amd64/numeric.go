package amd64

import (
	"fmt"
	"math"
	"strings"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The numeric stages convert between the classic types (FLOAT, DOUBLE, the
// 8- to 64-bit integers and BOOL), whose results do not depend on Options.
// numericStages is their one table: an entry names the pair and the
// algorithm (one of the numAlg generators below, each written once per ISA
// family); everything else (the lanes per vector, the loop, the assembly of
// both families, the Go wrappers with their race annotations and tails, the
// registration under the tiers, the doc comments) is derived from it by
// numericFuncs and glue.go.
//
// Every stage works on lanes of the pair's wider type (lanes =
// vector bits / max(from.bits, to.bits)): it loads one vector's worth of
// source elements, widens them to the lane width (sign- or zero-extension, or
// an exact float conversion), converts, narrows to the target width and
// stores. The semantics are internal/ref's with Saturate (see numAlg).

// num is a classic element type.
type num struct {
	goName string // the DataType constant in package tensorcast
	short  string // in function names
	bits   int    // storage bits (BOOL: 8)
	class  numClass
}

type numClass int

const (
	signed numClass = iota
	unsigned
	float
	boolean
	half // FLOAT16, BFLOAT16: sign and magnitude in 16 bits
)

var (
	tF32  = num{"Float", "F32", 32, float}
	tF64  = num{"Double", "F64", 64, float}
	tI8   = num{"Int8", "I8", 8, signed}
	tU8   = num{"Uint8", "U8", 8, unsigned}
	tI16  = num{"Int16", "I16", 16, signed}
	tU16  = num{"Uint16", "U16", 16, unsigned}
	tI32  = num{"Int32", "I32", 32, signed}
	tU32  = num{"Uint32", "U32", 32, unsigned}
	tI64  = num{"Int64", "I64", 64, signed}
	tU64  = num{"Uint64", "U64", 64, unsigned}
	tBool = num{"Bool", "Bool", 8, boolean}
	// The 16-bit floats are sources of halfToBool only.
	tF16  = num{"Float16", "F16", 16, half}
	tBF16 = num{"BFloat16", "BF16", 16, half}
)

func (t num) bytes() int     { return t.bits / 8 }
func (t num) isInt() bool    { return t.class == signed || t.class == unsigned }
func (t num) isFloat() bool  { return t.class == float }
func (t num) isSigned() bool { return t.class == signed }

// numAlg names the algorithm of a stage; numStage.emit dispatches on it.
type numAlg string

const (
	// intToInt: integers and BOOL among themselves. BOOL sources are first
	// normalised to 0/1 (min(b, 1)); then sign- or zero-extension to the lane
	// width, or truncation to the target width (wrapping modulo 2^width).
	// An integer → BOOL is 1 where the lane is nonzero.
	intToInt numAlg = "intToInt"
	// intToFloat: integers and BOOL → FLOAT/DOUBLE, rounded once to nearest
	// even. AVX-512: VCVT{,U}{DQ,QQ}2P{S,D}, all correctly rounded under
	// Go's MXCSR. AVX2 has only the signed 32-bit conversion; see
	// intToFloatAVX2 for the exact sequences of the others.
	intToFloat numAlg = "intToFloat"
	// floatToFloat: FLOAT ↔ DOUBLE by VCVTPS2PD (exact; a NaN is quieted
	// keeping its payload) and VCVTPD2PS (round to nearest even with
	// subnormals; a NaN is quieted keeping the sign and the top payload
	// bits), which are ref's rules.
	floatToFloat numAlg = "floatToFloat"
	// floatToInt: truncate toward zero; the result wraps modulo 2^width if
	// the truncated value lies in [-2^63, 2^64), and is 0 otherwise (NaN and
	// ±Inf included). See floatToInt64 and floatToInt32.
	floatToInt numAlg = "floatToInt"
	// floatToBool: 1 unless the value is ±0 (NaN and ±Inf are true), by an
	// unordered not-equal comparison with zero.
	floatToBool numAlg = "floatToBool"
	// halfToBool: FLOAT16, BFLOAT16 → BOOL: 1 unless the magnitude (the
	// bits below the sign) is 0, as floatToBool, on the 16-bit lanes
	// themselves: intToInt's INT16 → BOOL after a shift left by one drops
	// the sign. (Through FLOAT lanes, fusedTable's route, it ran at
	// 0.36-0.56× copy() against INT16 → BOOL's 1.04×, Zen 3.)
	halfToBool numAlg = "halfToBool"
)

// numStage is one entry of the table.
type numStage struct {
	from, to num
	alg      numAlg
}

// numericStages is the table: every ordered pair of distinct classic types,
// BOOL → BOOL (which normalises every nonzero byte to 1), and FLOAT16,
// BFLOAT16 → BOOL.
func numericStages() []numStage {
	types := []num{tF32, tF64, tI8, tU8, tI16, tU16, tI32, tU32, tI64, tU64, tBool}
	var st []numStage
	for _, from := range types {
		for _, to := range types {
			if from == to && from != tBool {
				continue
			}
			var alg numAlg
			switch {
			case from.isFloat() && to.isFloat():
				alg = floatToFloat
			case from.isFloat() && to == tBool:
				alg = floatToBool
			case from.isFloat():
				alg = floatToInt
			case to.isFloat():
				alg = intToFloat
			default:
				alg = intToInt
			}
			st = append(st, numStage{from, to, alg})
		}
	}
	return append(st, numStage{tF16, tBool, halfToBool}, numStage{tBF16, tBool, halfToBool})
}

// width is the lane width in bits: that of the wider side, except for
// FLOAT → 64-bit integers on AVX2, which computes in FLOAT's 32-bit lanes
// (see f32ToInt64AVX2).
func (s numStage) width(isa ISA) int {
	if isa == AVX2 && s.alg == floatToInt && s.from == tF32 && s.to.bits == 64 {
		return 32
	}
	return max(s.from.bits, s.to.bits)
}

// Lanes is the number of elements per vector step in the family isa.
func (s numStage) Lanes(isa ISA) int {
	if isa == AVX512 {
		return 512 / s.width(isa)
	}
	return 256 / s.width(isa)
}

// Name is the assembly function's name in the family isa; its Go wrapper
// (glue.go) is "stage" + the same suffix.
func (s numStage) Name(isa ISA) string {
	return "num" + s.suffix(isa)
}

func (s numStage) suffix(isa ISA) string { return s.from.short + "To" + s.to.short + isa.String() }

// numericFuncs emits the assembly of every stage of the table, AVX-512 then
// AVX2.
func numericFuncs(a *Asm) {
	for _, isa := range []ISA{AVX512, AVX2} {
		for _, st := range numericStages() {
			st.emit(a, isa)
		}
	}
}

// splat64 returns an operand holding v in every 64-bit lane: a register on
// AVX-512 (loaded before the loop), a read-only vector in memory on AVX2,
// which spares its 16 registers.
func (a *Asm) splat64(v uint64) Op {
	if a.isa == AVX512 {
		g := a.GP64()
		a.MOVQ(U64(v), g)
		x := a.ZMM()
		a.VPBROADCASTQ(g, x)
		return x
	}
	w := []uint32{uint32(v), uint32(v >> 32)}
	return a.Data(fmt.Sprintf("splat64_%016x", v), append(append(append(w, w...), w...), w...))
}

// vecBytes allocates a register of the current family holding size bytes
// (an XMM for 16 bytes or fewer).
func (a *Asm) vecBytes(size int) VecVirtual {
	switch {
	case size <= 16:
		return a.XMM()
	case size == 32:
		return a.YMM()
	case size == 64 && a.isa == AVX512:
		return a.ZMM()
	}
	panic(fmt.Sprint("no register of ", size, " bytes"))
}

// sized returns the view of the full-width register v with size bytes.
func sized(v VecVirtual, size int) VecVirtual {
	switch {
	case size <= 16:
		return v.AsX().(VecVirtual)
	case size == 32:
		return v.AsY().(VecVirtual)
	}
	return v
}

// loadLow loads size bytes at m into the low bytes of v (with the mask k of
// laneBits lanes in a tail).
func (a *Asm) loadLow(v VecVirtual, size int, m Mem, laneBits int, k Register) {
	switch {
	case k != nil:
		a.VLoad(v, m, laneBits, k)
	case size == 4:
		a.VMOVD(m, v.AsX())
	case size == 8:
		a.VMOVQ(m, v.AsX())
	default:
		a.VLoad(v, m, laneBits, nil)
	}
}

// VCMP predicates.
const (
	cmpEQOQ  = 0x00
	cmpNEQUQ = 0x04
	cmpORDQ  = 0x07
	cmpNEQOQ = 0x0C
	cmpLTOQ  = 0x11
	cmpGEOQ  = 0x1D
)

// VROUND/VREDUCE immediates: the rounding, with the precision exception
// suppressed.
const (
	roundNearest = 0x08
	roundTrunc   = 0x0B
)

// emit writes the function of st for the family isa.
func (st numStage) emit(a *Asm, isa ISA) {
	lanes := st.Lanes(isa)
	a.Func(st.Name(isa), isa, "func(dst, src *byte, n int)",
		fmt.Sprintf("%s converts n %s elements at src to %s at dst (gen/amd64 numericStages: %s → %s, %s; %d lanes).",
			st.Name(isa), strings.ToUpper(st.from.goName), strings.ToUpper(st.to.goName), st.from.goName, st.to.goName, st.alg, lanes))
	if isa == AVX512 {
		a.Needs("AVX512DQ")
	}
	dst, src, n := a.Args()
	if isa == AVX2 && st.from == tI64 && st.to == tF32 {
		// INT64 → FLOAT: the scalar conversion, one element at a time
		// (see i64ToF32Scalar).
		a.Stream(Loop{SrcSize: 8, DstSize: 4, Lanes: lanes, Unroll: 4}, dst, src, n, Each(lanes, i64ToF32Scalar(a)))
		return
	}
	var conv func(x VecVirtual, s *Step) VecVirtual
	switch st.alg {
	case intToInt:
		conv = st.intToInt(a)
	case intToFloat:
		conv = st.intToFloat(a)
	case floatToFloat:
		conv = st.floatToFloat(a)
	case floatToInt:
		conv = st.floatToInt(a)
	case floatToBool:
		conv = st.floatToBool(a)
	case halfToBool:
		toBool := numStage{tI16, tBool, intToInt}.intToInt(a)
		conv = func(x VecVirtual, s *Step) VecVirtual {
			a.VPSLLW(U8(1), x, x) // the magnitude's bits
			return toBool(x, s)
		}
	}
	srcBytes, dstBytes := lanes*st.from.bytes(), lanes*st.to.bytes()
	unroll := 4
	a.Stream(Loop{SrcSize: st.from.bytes(), DstSize: st.to.bytes(), Lanes: lanes, Unroll: unroll}, dst, src, n, Each(lanes, func(s *Step) {
		x := a.vecBytes(srcBytes)
		a.loadLow(x, srcBytes, s.Src, st.from.bits, s.M(1, 0))
		if r := conv(x, s); r != nil { // nil: conv stored the result
			s.StoreLow(r, dstBytes, s.Dst, st.to.bits, s.M(1, 0))
		}
	}))
}

// i64ToF32Scalar is AVX2's INT64 → FLOAT step: VCVTSI2SSQ, the scalar
// conversion (rounded once, to nearest even under Go's MXCSR), straight
// from memory for each element, its upper bits taken from a zeroed
// register so that no conversion waits for the one before, and a 4-byte
// store. About one element a cycle, where intToFloatAVX2's exact DOUBLE
// sequence (19 instructions per 4) ran at the speed of the portable loop
// (1.67 elements/ns on a Zen 3) and below ONNX Runtime's scalar one
// (0.77-1.02×).
func i64ToF32Scalar(a *Asm) func(s *Step) {
	zero := a.XMM()
	a.VXORPS(zero, zero, zero)
	return func(s *Step) {
		for i := range s.Lanes {
			r := a.XMM()
			a.VCVTSI2SSQ(s.Src.Offset(8*i), zero, r)
			s.record(s.Dst.Offset(4*i), 4, nil) // checkStored's account of VMOVSS
			a.VMOVSS(r, s.Dst.Offset(4*i))
		}
	}
}

// extendFrom widens the integer lanes of x (from bits, signed or not) to
// w-bit lanes filling a full register.
func (a *Asm) extendFrom(x VecVirtual, from, w int, signed bool) VecVirtual {
	if from == w {
		return x
	}
	r := a.Vec()
	type k struct{ f, t int }
	sx := map[k]func(...Op){
		{8, 16}: a.VPMOVSXBW, {8, 32}: a.VPMOVSXBD, {8, 64}: a.VPMOVSXBQ,
		{16, 32}: a.VPMOVSXWD, {16, 64}: a.VPMOVSXWQ, {32, 64}: a.VPMOVSXDQ,
	}
	zx := map[k]func(...Op){
		{8, 16}: a.VPMOVZXBW, {8, 32}: a.VPMOVZXBD, {8, 64}: a.VPMOVZXBQ,
		{16, 32}: a.VPMOVZXWD, {16, 64}: a.VPMOVZXWQ, {32, 64}: a.VPMOVZXDQ,
	}
	op := zx[k{from, w}]
	if signed {
		op = sx[k{from, w}]
	}
	op(sized(x, int(r.Size())*from/w), r)
	return r
}

// narrower returns a function that truncates the integer lanes of x (a
// full register of w-bit lanes) to bits each, keeping the low bits; the
// result is in the low bytes of the register it returns. Call it before the
// loop: it loads the constants the AVX2 sequence needs.
func (a *Asm) narrower(w, bits int) func(x VecVirtual) VecVirtual {
	if w == bits {
		return func(x VecVirtual) VecVirtual { return x }
	}
	if a.isa == AVX512 {
		type k struct{ f, t int }
		op := map[k]func(...Op){
			{16, 8}: a.VPMOVWB, {32, 8}: a.VPMOVDB, {64, 8}: a.VPMOVQB,
			{32, 16}: a.VPMOVDW, {64, 16}: a.VPMOVQW, {64, 32}: a.VPMOVQD,
		}[k{w, bits}]
		return func(x VecVirtual) VecVirtual {
			r := a.vecBytes(64 * bits / w)
			op(x, r)
			return r
		}
	}
	// AVX2: gather the low dwords of the qwords into the low 128 bits, then
	// the low bytes of each 128-bit lane by VPSHUFB and the two lanes'
	// results together by VPERMD/VPERMQ.
	if w == 64 {
		idx := a.ConstTable("narrow_q2d", []uint32{0, 2, 4, 6, 0, 2, 4, 6})
		var sh Mem
		if bits < 32 {
			sh = a.shufTable(32, bits)
		}
		return func(x VecVirtual) VecVirtual {
			r := a.YMM()
			a.VPERMD(x, idx, r)
			if bits < 32 { // 4 dwords in the low lane
				a.VPSHUFB(sh, r.AsX(), r.AsX())
			}
			return r
		}
	}
	sh := a.shufTable(w, bits)
	per := 16 * bits / w // bytes each 128-bit lane keeps
	var idx VecVirtual
	if per == 4 {
		idx = a.ConstTable("narrow_lanes_d04", []uint32{0, 4, 0, 4, 0, 4, 0, 4})
	}
	return func(x VecVirtual) VecVirtual {
		r := a.YMM()
		a.VPSHUFB(sh, x, r)
		if per == 8 {
			a.VPERMQ(U8(0b1000), r, r) // qwords 0, 2
		} else {
			a.VPERMD(r, idx, r)
		}
		return r
	}
}

// shufTable returns the VPSHUFB control (in memory, both 128-bit lanes
// alike) that packs the low bits/8 bytes of each w-bit lane of a 128-bit
// lane into its low bytes, zeroing the rest.
func (a *Asm) shufTable(w, bits int) Mem {
	b := make([]byte, 32)
	for i := range b {
		b[i] = 0x80
	}
	j := 0
	for e := 0; e < 128/w; e++ {
		for i := 0; i < bits/8; i++ {
			b[j] = byte(e*w/8 + i)
			b[16+j] = b[j]
			j++
		}
	}
	return a.DataBytes(fmt.Sprintf("narrow_shuf_%d_%d", w, bits), b)
}

// boolFromZero returns a function that turns z, a register whose w-bit
// lanes are all ones where the element is zero (false) and 0 elsewhere, into
// BOOL bytes (AVX2). Call it before the loop.
func (a *Asm) boolFromZero(w int) func(z VecVirtual) VecVirtual {
	nw := a.narrower(w, 8)
	one := a.Data("splat8_01", []uint32{0x01010101, 0x01010101, 0x01010101, 0x01010101, 0x01010101, 0x01010101, 0x01010101, 0x01010101})
	return func(z VecVirtual) VecVirtual {
		r := nw(z)
		a.VPADDB(one, r.AsX(), r.AsX()) // 0xFF + 1 = 0, 0 + 1 = 1
		return r
	}
}

// intToInt: see the constant.
func (st numStage) intToInt(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	w := st.width(a.isa)
	from := st.from.bits
	var one VecVirtual
	var zero VecVirtual
	if st.from == tBool || st.to == tBool {
		one = a.Const8(1)
	}
	var toBool func(VecVirtual) VecVirtual
	if a.isa == AVX2 && st.to == tBool {
		zero = a.YMM()
		a.VPXOR(zero, zero, zero)
		if from > 8 {
			toBool = a.boolFromZero(from)
		}
	}
	nw := a.narrower(w, st.to.bits)
	return func(x VecVirtual, s *Step) VecVirtual {
		if st.from == tBool {
			a.VPMINUB(sized(one, int(x.Size())), x, x)
			if st.to == tBool {
				return x
			}
		}
		if st.to == tBool {
			if a.isa == AVX512 {
				k := a.K()
				map[int]func(...Op){8: a.VPTESTMB, 16: a.VPTESTMW, 32: a.VPTESTMD, 64: a.VPTESTMQ}[from](x, x, k)
				r := a.vecBytes(64 * 8 / w)
				a.VMOVDQU8_Z(sized(one, int(r.Size())), k, r)
				return r
			}
			z := a.YMM()
			z = sized(z, int(x.Size()))
			map[int]func(...Op){8: a.VPCMPEQB, 16: a.VPCMPEQW, 32: a.VPCMPEQD, 64: a.VPCMPEQQ}[from](sized(zero, int(x.Size())), x, z)
			if from == 8 {
				a.VPADDB(sized(one, int(x.Size())), z, z)
				return z
			}
			return toBool(z)
		}
		x = a.extendFrom(x, from, w, st.from.isSigned())
		return nw(x)
	}
}

// floatToFloat: see the constant.
func (st numStage) floatToFloat(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	return func(x VecVirtual, s *Step) VecVirtual {
		if st.from == tF32 {
			r := a.Vec()
			a.VCVTPS2PD(sized(x, int(r.Size())/2), r)
			return r
		}
		r := a.vecBytes(int(x.Size()) / 2)
		if a.isa == AVX512 {
			a.VCVTPD2PS(x, r)
		} else {
			a.VCVTPD2PSY(x, r)
		}
		return r
	}
}

// floatToBool: see the constant.
func (st numStage) floatToBool(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	zero := a.Vec()
	a.Xor(zero, zero, zero)
	cmp := a.VCMPPS
	if st.from == tF64 {
		cmp = a.VCMPPD
	}
	if a.isa == AVX512 {
		one := a.Const8(1)
		return func(x VecVirtual, s *Step) VecVirtual {
			k := a.K()
			cmp(U8(cmpNEQUQ), sized(zero, int(x.Size())), x, k)
			r := a.vecBytes(64 * 8 / st.from.bits)
			a.VMOVDQU8_Z(sized(one, int(r.Size())), k, r)
			return r
		}
	}
	toBool := a.boolFromZero(st.from.bits)
	return func(x VecVirtual, s *Step) VecVirtual {
		z := a.YMM()
		cmp(U8(cmpEQOQ), zero, x, z) // all ones for ±0; NaN compares false
		return toBool(z)
	}
}

// intToFloat: see the constant.
func (st numStage) intToFloat(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	w := st.width(a.isa)
	uns := st.from.class != signed
	var one VecVirtual
	if st.from == tBool {
		one = a.Const8(1)
	}
	norm := func(x VecVirtual) VecVirtual {
		if st.from == tBool {
			a.VPMINUB(sized(one, int(x.Size())), x, x)
		}
		return x
	}
	if a.isa == AVX512 {
		return func(x VecVirtual, s *Step) VecVirtual {
			x = a.extendFrom(norm(x), st.from.bits, w, !uns)
			switch {
			case w == 32:
				r := a.ZMM()
				if uns {
					a.VCVTUDQ2PS(x, r)
				} else {
					a.VCVTDQ2PS(x, r)
				}
				return r
			case st.to == tF32:
				r := a.YMM()
				if uns {
					a.VCVTUQQ2PS(x, r)
				} else {
					a.VCVTQQ2PS(x, r)
				}
				return r
			}
			r := a.ZMM()
			if uns {
				a.VCVTUQQ2PD(x, r)
			} else {
				a.VCVTQQ2PD(x, r)
			}
			return r
		}
	}
	return st.intToFloatAVX2(a, norm)
}

// intToFloatAVX2 converts with AVX2's only integer conversion, VCVTDQ2PS
// (signed 32-bit), and exact sequences otherwise, each rounding once:
//
//   - UINT32 → FLOAT: float(x>>16)·2^16 + float(x&0xFFFF); both terms are
//     exact, so the sum is the one rounding.
//   - 8- to 32-bit → DOUBLE: the 64-bit lane v (sign- or zero-extended) plus
//     the bits of 2^52+2^31 is the double 2^52+2^31+v (v+2^31 < 2^52), from
//     which subtracting 2^52+2^31 leaves v exactly.
//   - INT64/UINT64 → DOUBLE: the high and low parts are made doubles exactly
//     by the magic-number method (2^84 or 3·2^67 for the high part, 2^52 for
//     the low), their difference with the magic sum is exact, and the final
//     addition is the one rounding.
//   - INT64/UINT64 → FLOAT: as for DOUBLE, after replacing x by a value with
//     at most 53 significant bits that rounds to the same FLOAT: where
//     |x| > 2^40, the low 12 bits become 0x800 if any was set (x and the
//     replacement lie strictly between the same multiples of 2^12, and every
//     rounding boundary of FLOAT there is a multiple of 2^15). The DOUBLE is
//     then exact and VCVTPD2PS rounds once. (INT64 → FLOAT itself runs
//     the scalar conversion instead, i64ToF32Scalar; the sequence serves
//     UINT64 and, through int64ToF64AVX2, bf16Of64AVX2.)
func (st numStage) intToFloatAVX2(a *Asm, norm func(VecVirtual) VecVirtual) func(x VecVirtual, s *Step) VecVirtual {
	w := st.width(a.isa)
	uns := st.from.class != signed
	f64 := func(v float64) Op { return a.splat64(math.Float64bits(v)) }
	zero := a.YMM()
	a.VPXOR(zero, zero, zero)
	switch {
	case w == 32 && st.from == tU32:
		lo := a.Splat(0xFFFF)
		scale := a.Splat(f32bits(65536))
		return func(x VecVirtual, s *Step) VecVirtual {
			h, l := a.YMM(), a.YMM()
			a.VPSRLD(U8(16), x, h)
			a.VPAND(lo, x, l)
			a.VCVTDQ2PS(h, h)
			a.VCVTDQ2PS(l, l)
			a.VMULPS(scale, h, h)
			a.VADDPS(l, h, h)
			return h
		}
	case w == 32:
		return func(x VecVirtual, s *Step) VecVirtual {
			x = a.extendFrom(norm(x), st.from.bits, 32, !uns)
			r := a.YMM()
			a.VCVTDQ2PS(x, r)
			return r
		}
	case st.from.bits <= 32:
		magic := 0x1p52 + 0x1p31
		bias := a.splat64(math.Float64bits(magic))
		mf := f64(magic)
		return func(x VecVirtual, s *Step) VecVirtual {
			x = a.extendFrom(norm(x), st.from.bits, 64, !uns)
			a.VPADDQ(bias, x, x)
			a.VSUBPD(mf, x, x)
			return x
		}
	}
	// 64-bit sources
	toF64, roundable := int64ToF64AVX2(a, uns, zero)
	if st.to == tF64 {
		return func(x VecVirtual, s *Step) VecVirtual { return toF64(x) }
	}
	return func(x VecVirtual, s *Step) VecVirtual {
		d := toF64(roundable(x))
		r := a.XMM()
		a.VCVTPD2PSY(d, r)
		return r
	}
}

// int64ToF64AVX2 returns intToFloatAVX2's two steps for INT64 (UINT64 if
// uns) in 64-bit lanes: toF64, the magic-number conversion to DOUBLE
// rounded once, and roundable, the replacement of x by a value of at most
// 53 significant bits (so toF64 converts it exactly) that every target of
// at most 24 significant bits rounds as it rounds x. zero is a zeroed
// register.
func int64ToF64AVX2(a *Asm, uns bool, zero VecVirtual) (toF64, roundable func(x VecVirtual) VecVirtual) {
	f64 := func(v float64) Op { return a.splat64(math.Float64bits(v)) }
	c52 := a.splat64(math.Float64bits(0x1p52))
	var hiMagic, sum Op
	if uns {
		hiMagic, sum = a.splat64(math.Float64bits(0x1p84)), f64(0x1p84+0x1p52)
	} else {
		hiMagic, sum = a.splat64(math.Float64bits(3*0x1p67)), f64(3*0x1p67+0x1p52)
	}
	toF64 = func(x VecVirtual) VecVirtual {
		h, l := a.YMM(), a.YMM()
		if uns {
			a.VPSRLQ(U8(32), x, h)
			a.VPOR(hiMagic, h, h)
			a.VPBLENDW(U8(0xCC), c52, x, l)
		} else {
			a.VPSRAD(U8(16), x, h)
			a.VPBLENDW(U8(0x33), zero, h, h)
			a.VPADDQ(hiMagic, h, h)
			a.VPBLENDW(U8(0x88), c52, x, l)
		}
		a.VSUBPD(sum, h, h)
		a.VADDPD(l, h, h)
		return h
	}
	low12, keep, sticky := a.splat64(0xFFF), a.splat64(^uint64(0xFFF)), a.splat64(0x800)
	limit := a.splat64(1 << 40)
	roundable = func(x VecVirtual) VecVirtual {
		t, j, big := a.YMM(), a.YMM(), a.YMM()
		a.VPAND(low12, x, t)
		a.VPCMPEQQ(zero, t, t)
		a.VPANDN(sticky, t, t) // 0x800 where a low bit is set
		a.VPAND(keep, x, j)
		a.VPOR(t, j, j)
		if uns {
			a.VPSRLQ(U8(40), x, big)
			a.VPCMPEQQ(zero, big, big) // small
			a.VPBLENDVB(big, x, j, j)
		} else {
			a.VPCMPGTQ(x, zero, big) // negative
			a.VPXOR(x, big, big)     // |x| or |x|-1
			a.VPCMPGTQ(limit, big, big)
			a.VPBLENDVB(big, j, x, j)
		}
		return j
	}
	return toF64, roundable
}

// floatToInt: see the constant.
//
// FLOAT → 8- to 32-bit integers (32-bit lanes): only the result modulo 2^32
// matters, and for FLOAT it is ref's even outside [-2^63, 2^64) (every such
// value is a multiple of 2^40, so 0). With y = x·2^-32, d = y - round(y) (to
// nearest) is exact (where round(y) ≠ 0, y and round(y) are within a factor
// of 2) and lies in [-1/2, 1/2]; d·2^32 is congruent to x modulo 2^32 (it is
// x where |x| < 2^31: the fraction stays) within [-2^31, 2^31], which
// VCVTTPS2DQ truncates exactly (2^31 gives 0x80000000, also right modulo
// 2^32). d is VREDUCEPS(y) on AVX-512, y - VROUNDPS(y) on AVX2.
//
// AVX-512 makes y by a product. AVX2 makes it by subtracting 32 from the
// exponent field, so that no lane ever holds a subnormal (on Zen 5 an AVX2
// product with subnormal results runs 4× slower, an AVX-512 one does not;
// and the subtraction measured slower than the product on AVX-512 with
// random bits): for a biased exponent e > 32 that is x·2^-32 exactly; for
// e ≤ 32 (|x| < 2^-94, truncating to 0) it wraps into the sign and gives a
// finite |y| ≥ 2^97, an integer, so d = 0, or (e = 31) ±Inf or NaN; NaN and
// ±Inf x (e = 255) give a finite |y| ≥ 2^96, so d = 0, their answer. d is
// never subnormal either (|d| = |y| ≥ 2^-126, or a multiple of
// ulp(y) ≥ 2^-24).
//
// Where d is NaN (a NaN or infinite y: VREDUCEPS maps ±Inf to 0 or NaN,
// y - round(y) is NaN) the conversion gives 0x80000000, which has zero low
// 16 bits; for a 32-bit target an ordered comparison of d zeroes those lanes.
//
// AVX2, DOUBLE → 8- to 32-bit integers: the same modulo 2^32, on the
// truncated t = VROUNDPD(x, toward zero) (a DOUBLE in [2^31, 2^52) can have a
// fraction, which the reduction would carry across a multiple of 2^32; and
// t·2^-32 is 0 or ≥ 2^-32, never subnormal), after zeroing x outside
// [-2^63, 2^64) (ref's rule, which for DOUBLE is not 0 modulo 2^16) by two
// ordered comparisons (false for NaN). An 8-bit target needs no zeroing:
// every DOUBLE of magnitude ≥ 2^63 is a multiple of 2^11, and NaN converts
// to 0x80000000. A vector whose lanes all truncate within (-2^31, 2^31)
// skips all that: VCVTTPD2DQ alone is exact there, and it says so by giving
// no 0x80000000 (f64ToInt32AVX2; Zen 3, normally distributed values:
// DOUBLE → INT16 at 0.6× copy() and 0.65× ONNX Runtime's speed before).
//
// On AVX-512 a vector whose truncation by VCVTTPS2DQ (32-bit lanes) or
// VCVTT{PS,PD}2QQ (64-bit) has no lane of 0x80…0 is exact as it is and
// skips the sequences here, which run out of line (as on AVX2).
//
// Everything else (64-bit lanes): AVX-512 converts with VCVTT{PS,PD}2QQ where
// x ∈ [-2^63, 2^63) and VCVTT{PS,PD}2UQQ where x ∈ [2^63, 2^64), and zeroes
// the rest (for a narrower target the signed conversion's 0x8000000000000000
// already has zero low bits; for an 8-bit one VCVTTPD2QQ alone is right, as
// above). AVX2 has no 64-bit conversion: the magnitude's integer part is
// m >> (1075-e) | m << (e-1075) (VPSRLVQ/VPSLLVQ give 0 for the negative,
// that is huge, count), negated for x < 0 and zeroed outside [-2^63, 2^64)
// by two ordered comparisons (false for NaN), out of line where a lane of
// VCVTTPD2DQ gives 0x80000000 and VPMOVSXDQ of that truncation otherwise
// (as above: DOUBLE → INT64 1.9 → 3.0-4.3 elements/ns, Zen 3). FLOAT →
// 64-bit integers on AVX2: see f32ToInt64AVX2.
func (st numStage) floatToInt(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	to := st.to.bits
	switch {
	case a.isa == AVX2 && st.from == tF32 && to == 64:
		return st.f32ToInt64AVX2(a)
	case st.width(a.isa) == 32:
		return st.floatToInt32(a)
	}
	nw := a.narrower(64, to)
	if a.isa == AVX512 {
		var lo, mid, hi Op
		cmp := a.VCMPPD
		qq, uqq := a.VCVTTPD2QQ, a.VCVTTPD2UQQ
		qqz := a.VCVTTPD2QQ_Z
		view := func(c Op, x VecVirtual) Op { return c }
		if st.from == tF32 {
			lo, mid, hi = a.Const32(f32bits(-0x1p63)), a.Const32(f32bits(0x1p63)), a.Const32(f32bits(0x1p64))
			cmp = a.VCMPPS
			qq, uqq, qqz = a.VCVTTPS2QQ, a.VCVTTPS2UQQ, a.VCVTTPS2QQ_Z
			view = func(c Op, x VecVirtual) Op { return sized(c.(VecVirtual), int(x.Size())) }
		} else {
			lo, mid, hi = a.splat64(math.Float64bits(-0x1p63)), a.splat64(math.Float64bits(0x1p63)), a.splat64(math.Float64bits(0x1p64))
		}
		indefinite := a.splat64(1 << 63)
		return func(x VecVirtual, s *Step) VecVirtual {
			r := a.ZMM()
			qq(x, r)
			if to == 8 { // VCVTTPD2QQ alone is right modulo 2^8 (see above)
				return nw(r)
			}
			// The truncation alone where no lane gives 0x8000000000000000
			// (NaN, |x| ≥ 2^63, -2^63): the rest out of line. Zen 4, 64 Ki
			// elements, three runs side by side: DOUBLE → INT64/UINT64
			// 0.94 → 0.98–0.99× copy(), FLOAT → INT64/UINT64 1.29 → 1.44×.
			a.divertIndefinite(r, 64, indefinite, func() {}, func() {
				khi := a.K()
				if to == 64 {
					kv := a.K()
					cmp(U8(cmpGEOQ), view(lo, x), x, kv)
					cmp(U8(cmpLTOQ), view(hi, x), x, kv, kv) // x ∈ [-2^63, 2^64)
					cmp(U8(cmpGEOQ), view(mid, x), x, kv, khi)
					qqz(x, kv, r) // 0x8000000000000000 where x ≥ 2^63, replaced next
				} else {
					cmp(U8(cmpGEOQ), view(mid, x), x, khi)
					cmp(U8(cmpLTOQ), view(hi, x), x, khi, khi)
				}
				uqq(x, khi, r)
			})
			return nw(r)
		}
	}
	if st.from == tF64 && to <= 32 {
		return st.f64ToInt32AVX2(a)
	}
	zero := a.YMM()
	a.VPXOR(zero, zero, zero)
	c7ff, mant, impl := a.splat64(0x7FF), a.splat64(1<<52-1), a.splat64(1<<52)
	c1075 := a.splat64(1075)
	lo, hi := a.splat64(math.Float64bits(-0x1p63)), a.splat64(math.Float64bits(0x1p64))
	indefinite := a.Splat(0x80000000)
	return func(x VecVirtual, s *Step) VecVirtual {
		if st.from == tF32 {
			d := a.YMM()
			a.VCVTPS2PD(x.AsX(), d)
			x = d
		}
		t := a.YMM()
		general := func() {
			e, m, ls, rs := a.YMM(), a.YMM(), a.YMM(), a.YMM()
			a.VPSRLQ(U8(52), x, e)
			a.VPAND(c7ff, e, e)
			a.VPAND(mant, x, m)
			a.VPOR(impl, m, m)
			a.VPSUBQ(c1075, e, ls) // e - 1075
			a.VPSUBQ(ls, zero, rs) // 1075 - e
			a.VPSRLVQ(rs, m, t)
			a.VPSLLVQ(ls, m, m)
			a.VPOR(m, t, t)
			sg := a.YMM()
			a.VCMPPD(U8(cmpLTOQ), zero, x, sg)
			a.VPXOR(sg, t, t)
			a.VPSUBQ(sg, t, t)
			v := a.YMM()
			a.VCMPPD(U8(cmpGEOQ), lo, x, v)
			a.VPAND(v, t, t)
			a.VCMPPD(U8(cmpLTOQ), hi, x, v)
			a.VPAND(v, t, t)
		}
		if st.from != tF64 {
			general()
			return nw(t)
		}
		// DOUBLE: where no lane of VCVTTPD2DQ's truncation is 0x80000000
		// (NaN, ±Inf, |x| ≥ 2^31, -2^31) the truncation is exact, and
		// VPMOVSXDQ widens it (as f64ToInt32AVX2); else the sequence
		// above, out of line.
		c := a.XMM()
		a.VCVTTPD2DQY(x, c)
		a.divertIndefinite(c, 32, indefinite, func() { a.VPMOVSXDQ(c, t) }, general)
		return nw(t)
	}
}

// divertIndefinite follows a truncating conversion into r (VCVTT*2DQ:
// laneBits 32; VCVTT*2QQ: 64). Where no lane of r is the integer
// indefinite (indefinite: 1 << (laneBits-1) in every lane), the
// conversion's answer to NaN, ±Inf and magnitudes out of range and also
// the exact truncation of the most negative value, every lane is the exact
// truncation: fast runs in line; else slow, out of line.
func (a *Asm) divertIndefinite(r VecVirtual, laneBits int, indefinite Op, fast, slow func()) {
	if r.Size() == 64 {
		k := a.K()
		if laneBits == 64 {
			a.VPCMPEQQ(indefinite, r, k)
		} else {
			a.VPCMPEQD(indefinite, r, k)
		}
		a.KORTESTW(k, k)
	} else {
		e := a.XMM()
		if r.Size() == 32 {
			e = a.YMM()
		}
		a.VPCMPEQD(indefinite, r, e)
		a.VPTEST(e, e)
	}
	a.divert(fast, slow)
}

// floatToInt32 is floatToInt for FLOAT → 8- to 32-bit integers.
func (st numStage) floatToInt32(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	nw := a.narrower(32, st.to.bits)
	if a.isa == AVX512 {
		down, up := a.Const32(f32bits(0x1p-32)), a.Const32(f32bits(0x1p32))
		indefinite := a.Splat(0x80000000)
		return func(x VecVirtual, s *Step) VecVirtual {
			// As on AVX2 below: the truncation alone where no lane gives
			// 0x80000000, the reduction out of line (Zen 4, 64 Ki:
			// FLOAT16/BFLOAT16 → INT32/UINT32 0.84 → 1.2-1.3× copy(), as
			// AVX2's kernels ran).
			r := a.ZMM()
			a.VCVTTPS2DQ(x, r)
			a.divertIndefinite(r, 32, indefinite, func() {}, func() {
				y := a.ZMM()
				a.VMULPS(down, x, y)
				a.VREDUCEPS(U8(roundNearest), y, y)
				a.VMULPS(up, y, y)
				if st.to.bits < 32 { // 0x80000000 has zero low bits
					a.VCVTTPS2DQ(y, r)
					return
				}
				ok := a.K()
				a.VCMPPS(U8(cmpORDQ), y, y, ok)
				a.VCVTTPS2DQ_Z(y, ok, r)
			})
			return nw(r)
		}
	}
	exp32 := a.Splat(32 << 23) // y = x·2^-32, by the exponent field
	up := a.Splat(f32bits(0x1p32))
	indefinite := a.Splat(0x80000000)
	return func(x VecVirtual, s *Step) VecVirtual {
		// As f64ToInt32AVX2: where no lane of VCVTTPS2DQ's truncation is
		// 0x80000000 (its answer to NaN and |x| ≥ 2^31, and the truncation
		// of -2^31) every |x| < 2^31 and the truncation is the reference's
		// (FLOAT → INT8..UINT32 1.16-1.28× as fast at 8 Ki elements,
		// Zen 3). Else the sequence above, out of line.
		r := a.YMM()
		a.VCVTTPS2DQ(x, r)
		a.divertIndefinite(r, 32, indefinite, func() {}, func() {
			y, ok := a.YMM(), a.YMM()
			a.VPSUBD(exp32, x, y)
			a.VROUNDPS(U8(roundNearest), y, r)
			a.VSUBPS(r, y, y) // NaN for a NaN or ±Inf y
			if st.to.bits == 32 {
				a.VCMPPS(U8(cmpORDQ), y, y, ok)
			}
			a.VMULPS(up, y, y)
			a.VCVTTPS2DQ(y, r)
			if st.to.bits == 32 { // 0x80000000 has zero low bits
				a.VPAND(ok, r, r)
			}
		})
		return nw(r)
	}
}

// f64ToInt32AVX2 is floatToInt for DOUBLE → 8- to 32-bit integers on AVX2.
func (st numStage) f64ToInt32AVX2(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	lo, hi := a.splat64(math.Float64bits(-0x1p63)), a.splat64(math.Float64bits(0x1p64))
	down, up := a.splat64(math.Float64bits(0x1p-32)), a.splat64(math.Float64bits(0x1p32))
	var sh Mem
	if st.to.bits < 32 {
		sh = a.shufTable(32, st.to.bits)
	}
	indefinite := a.Splat(0x80000000)
	return func(x VecVirtual, s *Step) VecVirtual {
		// Where no lane of VCVTTPD2DQ's truncation is 0x80000000 (its
		// answer to NaN and to |x| ≥ 2^31, and the truncation of
		// (-2^31 - 1, -2^31]) every |x| < 2^31 and the truncation is
		// exact: the reference's low bits. Else the general path.
		c := a.XMM()
		a.VCVTTPD2DQY(x, c)
		a.divertIndefinite(c, 32, indefinite, func() {}, func() {
			v, y, r := a.YMM(), a.YMM(), a.YMM()
			x := x
			if st.to.bits > 8 {
				a.VCMPPD(U8(cmpGEOQ), lo, x, v)
				a.VPAND(v, x, y)
				a.VCMPPD(U8(cmpLTOQ), hi, x, v)
				a.VPAND(v, y, y) // x, or 0 outside [-2^63, 2^64)
				x = y
			}
			a.VROUNDPD(U8(roundTrunc), x, y)
			a.VMULPD(down, y, y)
			a.VROUNDPD(U8(roundNearest), y, r)
			a.VSUBPD(r, y, y)
			a.VMULPD(up, y, y)
			a.VCVTTPD2DQY(y, c)
		})
		if st.to.bits < 32 {
			a.VPSHUFB(sh, c, c)
		}
		return c
	}
}

// f32ToInt64AVX2 is floatToInt for FLOAT → INT64/UINT64 on AVX2, eight
// lanes of FLOAT at a time: with t = trunc(x) (VROUNDPS; 0 or |t| ≥ 1, so
// nothing below is subnormal), y = t·2^-32, q = round(y) and d = y - q
// (exact, as in FLOAT → 32-bit), t = q·2^32 + v with v = d·2^32 ∈
// [-2^31, 2^31]. The low half of the result is v modulo 2^32 (VCVTTPS2DQ;
// 2^31 gives 0x80000000), the high half q - [v < 0] modulo 2^32, where q,
// an integer in [-2^31, 2^32), is converted after subtracting 2^32 from
// q ≥ 2^31 (exact: q is then a multiple of 2^8). Lanes with x outside
// [-2^63, 2^64) or NaN are zeroed by two ordered comparisons, and the halves
// are interleaved into 64-bit lanes.
func (st numStage) f32ToInt64AVX2(a *Asm) func(x VecVirtual, s *Step) VecVirtual {
	lo, hi := a.Splat(f32bits(-0x1p63)), a.Splat(f32bits(0x1p64))
	down, up := a.Splat(f32bits(0x1p-32)), a.Splat(f32bits(0x1p32))
	c31 := a.Splat(f32bits(0x1p31))
	zero := a.YMM()
	a.VPXOR(zero, zero, zero)
	indefinite := a.Splat(0x80000000)
	f32ToInt64Wrap := a.f32ToInt64AVX2Wrap(lo, hi, down, up, c31, zero)
	return func(x VecVirtual, s *Step) VecVirtual {
		// Where no lane of VCVTTPS2DQ's truncation is 0x80000000 (NaN,
		// ±Inf, |x| ≥ 2^31, -2^31) every lane is the exact truncation,
		// sign-extended (as floatToInt32 on AVX2); else the sequence
		// above, out of line.
		t := a.YMM()
		a.VCVTTPS2DQ(x, t)
		a.divertIndefinite(t, 32, indefinite, func() { a.storeInt64s(t, s) }, func() { f32ToInt64Wrap(x, s) })
		return nil
	}
}

// f32ToInt64AVX2Wrap returns f32ToInt64AVX2's general sequence (see there).
func (a *Asm) f32ToInt64AVX2Wrap(lo, hi, down, up, c31 Op, zero VecVirtual) func(x VecVirtual, s *Step) {
	return func(x VecVirtual, s *Step) {
		y, q, m, c, h := a.YMM(), a.YMM(), a.YMM(), a.YMM(), a.YMM()
		a.VROUNDPS(U8(roundTrunc), x, y)
		a.VMULPS(down, y, y)
		a.VROUNDPS(U8(roundNearest), y, q)
		a.VSUBPS(q, y, y) // d
		a.VCMPPS(U8(cmpLTOQ), zero, y, m)
		a.VMULPS(up, y, y)
		a.VCVTTPS2DQ(y, c) // low halves
		a.VCMPPS(U8(cmpGEOQ), c31, q, y)
		a.VANDPS(up, y, y)
		a.VSUBPS(y, q, q)
		a.VCVTTPS2DQ(q, h)
		a.VPADDD(m, h, h) // high halves
		a.VCMPPS(U8(cmpGEOQ), lo, x, m)
		a.VCMPPS(U8(cmpLTOQ), hi, x, y)
		a.VPAND(y, m, m)
		a.VPAND(m, c, c)
		a.VPAND(m, h, h)
		a.VPUNPCKLDQ(h, c, y) // elements 0, 1 | 4, 5
		a.VPUNPCKHDQ(h, c, m) // elements 2, 3 | 6, 7
		a.VPERM2I128(U8(0x20), m, y, c)
		a.VPERM2I128(U8(0x31), m, y, h)
		s.Store(c, s.Dst, 64, nil)
		s.Store(h, s.Dst.Offset(32), 64, nil)
	}
}

func f32bits(v float64) uint32 { return math.Float32bits(float32(v)) }
