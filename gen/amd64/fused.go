package amd64

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The fused stages convert in one pass the option-free pairs whose composed
// plan would run two SIMD steps through a FLOAT block (plan.go): FLOAT16 →
// INT8 and the like. Each loads its source, widens it to float32 lanes in
// registers and finishes with the FLOAT → target algorithm, so the 4 KiB
// intermediate never exists. A registered stage replaces the pair's plan on
// its tier (stage.go); AVX-512 has every pair of the table, AVX2 those it
// can do cheaply (fusedStages).
//
// fusedTable is their one table: a row names a source (its widening
// snippet) and the targets it is fused with (each a narrowing snippet); the
// pairs, the loop shapes, the assembly, the Go wrappers and their
// registration (fusedGlue) are derived from it. Three kinds of pair skip
// the float32 lanes, where measurements showed the detour to be the cost:
// FLOAT4E2M1 to a 16-bit target is one lookup of the target's words
// (f4Words), a 16-bit source to FLOAT4E2M1 computes the codes in the
// source's own 16-bit lanes (fusedSrc.f4, f4Codes16), and so do FLOAT16
// and BFLOAT16 to the packed integers on AVX-512 (halfToIntCodes).
//
// Why a fused stage gives the reference's result: widening every source of
// the table to float32 is exact (FLOAT16, BFLOAT16 and FLOAT4E2M1 values are
// float32 values; INT16 and UINT16 convert exactly with VCVTDQ2PS), so the
// narrowing sees the value the reference rounds, the same argument as the
// two-step plan's. INT32, UINT32, INT64 and UINT64 (to BFLOAT16 only) and
// DOUBLE (to FLOAT16 and BFLOAT16) round to odd at float32 instead, which
// keeps the target's one rounding exact (plan.go), as their two-step plans
// do; on AVX2, INT64, UINT64 and in-range DOUBLE vectors round to the
// target itself, by a DOUBLE (bf16Of64AVX2, widenF64Rounded). The
// narrowing snippets are the algorithms of the one-step FLOAT → target
// kernels (numeric.go's floatToInt,
// packed.go's f32ToI4 and f32ToF4, packed2.go's 2-bit packing, half.go's
// FLOAT16 conversion and BFLOAT16 rounding), NaN rules included: the integer
// targets give 0 and FLOAT4E2M1 gives 0x8 for every NaN,
// whatever its sign and payload.
//
// Packed types: a stage works on groups of g elements, g the number that
// fills a whole byte on the packed side (1, 2 or 4), 16/g groups a vector
// of float32 lanes on AVX-512 (8/g on AVX2). The Go wrapper converts what
// the assembly leaves (AVX-512: a partial last group; AVX2: less than a
// vector) through a zero-padded copy (a zero element converts to 0, the
// padding the reference writes).

// fusedSrc is a source of the table: how a vector's worth of elements
// becomes a vector of float32 lanes (16 on AVX-512, 8 on AVX2).
type fusedSrc struct {
	goName, short string
	bits          int // storage bits per element
	// truncBits: VCVTTPS2DQ gives the reference's truncation modulo 2^w
	// for every value of the source and every w ≤ truncBits. It truncates
	// magnitudes below 2^31 exactly and gives 0x80000000 for the rest and
	// for NaN and ±Inf, where the reference gives 0 modulo 2^w: true for
	// w ≤ 31 if no finite value reaches 2^31 (FLOAT16: 65504), for every w
	// if moreover there is no NaN or ±Inf (FLOAT4E2M1, INT16, UINT16), and
	// for w ≤ 24 for BFLOAT16, whose 8 significant bits make every value of
	// magnitude ≥ 2^31 a multiple of 2^24.
	truncBits int
	// special: some value is NaN or ±Inf.
	special bool
	widen   func(a *Asm) func(s *Step, k Register) VecVirtual
	// f4 is, for the 16-bit sources, their FLOAT4E2M1 codes computed in
	// their own 16-bit lanes, 32 elements a vector: twice the lanes of the
	// float32 route, whose FLOAT → FLOAT4E2M1 algorithm is the cost of the
	// pair (see f4Codes16). Called before the loop; the function maps a
	// vector of source words to a vector of code words.
	f4 func(a *Asm) func(h VecVirtual) VecVirtual
	// avx2: the source has an AVX2 form (see fusedStages).
	avx2 bool
}

// fusedDst is a target: how a vector of float32 lanes becomes target
// elements.
type fusedDst struct {
	goName, short string
	bits          int
	// narrow is called before the loop (it loads its constants) and
	// returns the step: convert x and store to s.Dst under the mask k
	// (laneBits-bit lanes), nil in full steps.
	narrow func(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual, s *Step, k Register)
	// exact is the target's bits of v, a value the target holds exactly
	// or an integer target truncates exactly: the word table of the
	// FLOAT4E2M1 rows (see f4Words); nil for the targets not in one.
	exact func(v float32) uint16
	// block, if not nil, narrows the four vectors of the unrolled main
	// step at once (no masks there); called before the loop, like narrow.
	block func(a *Asm, from fusedSrc, to fusedDst) func(xs []VecVirtual, s *Step)
	// avx2: narrow has an AVX2 form (see fusedStages).
	avx2 bool
}

var (
	fsF16 = fusedSrc{"Float16", "F16", 16, 31, true, widenF16, f4FromHalf(10, 15), true}
	fsBF  = fusedSrc{"BFloat16", "BF16", 16, 24, true, widenBF16, f4FromHalf(7, 127), true}
	fsI16 = fusedSrc{"Int16", "I16", 16, 32, false, widenInt16(true), f4FromInt16(true), true}
	fsU16 = fusedSrc{"Uint16", "U16", 16, 32, false, widenInt16(false), f4FromInt16(false), true}
	fsF4  = fusedSrc{"Float4E2M1", "F4", 4, 32, false, widenF4, nil, true}
	fsI32 = fusedSrc{"Int32", "I32", 32, 0, false, widenOdd32(tI32), nil, true}
	fsU32 = fusedSrc{"Uint32", "U32", 32, 0, false, widenOdd32(tU32), nil, true}
	// INT64 and UINT64 the same way on AVX-512 (widenOdd64); AVX2, whose
	// round to odd of 64-bit integers cost what the two steps do, rounds
	// them to BFLOAT16 by a DOUBLE instead (bf16Of64AVX2).
	fsI64 = fusedSrc{"Int64", "I64", 64, 0, false, widenOdd64(tI64), nil, true}
	fsU64 = fusedSrc{"Uint64", "U64", 64, 0, false, widenOdd64(tU64), nil, true}
	// DOUBLE rounds to odd at float32 too (oddF64AVX512), on AVX-512: to
	// FLOAT16 VCVTPS2PH takes its NaN and subnormal lanes as the two-step
	// plan does; to BFLOAT16 only with AVX512_BF16, by FLOAT's
	// VCVTNE2PS2BF16 kernel's classified conversion (bf16Classified: pairs
	// of vectors with a NaN or a subnormal fixed out of line). Its integer
	// rounding with a NaN fix measured slower (0.64×) than the two steps
	// (0.68–0.71×) there, and is not generated for AVX-512. On AVX2
	// (oddF64AVX2 per half) it is that integer rounding, NaN lanes set by
	// nanBF16, which on a Zen 3 measured 0.29× copy() against the two
	// steps' 0.28× (and FLOAT16 0.35× against 0.24×); its rows below
	// (widenF64Rounded) now take it out of line only.
	fsF64 = fusedSrc{"Double", "F64", 64, 0, true, widenOdd64(tF64), nil, true}
	// DOUBLE → BFLOAT16 and → FLOAT16 round in-range vectors to the
	// target directly on AVX2 (widenF64Rounded), and are fsF64 on AVX-512.
	fsF64BF  = fusedSrc{"Double", "F64", 64, 0, true, widenF64Rounded(8, -126), nil, true}
	fsF64F16 = fusedSrc{"Double", "F64", 64, 0, true, widenF64Rounded(11, -14), nil, true}
	// The same sources to FLOAT16 convert to the nearest float32 instead
	// (plan.go, below2p24); only their rows' targets name the kernels.
	fsI32Near = fusedSrc{"Int32", "I32", 32, 0, false, widenNear32(tI32), nil, true}
	fsU32Near = fusedSrc{"Uint32", "U32", 32, 0, false, widenNear32(tU32), nil, true}
	// INT64 and UINT64 the same way (widenNear64).
	fsI64Near = fusedSrc{"Int64", "I64", 64, 0, false, widenNear64(true), nil, true}
	fsU64Near = fusedSrc{"Uint64", "U64", 64, 0, false, widenNear64(false), nil, true}

	fdI8  = fusedDst{"Int8", "I8", 8, narrowInt(tI8), nil, nil, true}
	fdU8  = fusedDst{"Uint8", "U8", 8, narrowInt(tU8), nil, nil, true}
	fdI16 = fusedDst{"Int16", "I16", 16, narrowInt(tI16), exactInt, nil, true}
	fdU16 = fusedDst{"Uint16", "U16", 16, narrowInt(tU16), exactInt, nil, true}
	fdI32 = fusedDst{"Int32", "I32", 32, narrowInt(tI32), nil, nil, true}
	fdU32 = fusedDst{"Uint32", "U32", 32, narrowInt(tU32), nil, nil, true}
	fdI4  = fusedDst{"Int4", "I4", 4, narrowCodes(codesInt), nil, blockCodes(codesInt), true}
	fdU4  = fusedDst{"Uint4", "U4", 4, narrowCodes(codesInt), nil, blockCodes(codesInt), true}
	fdI2  = fusedDst{"Int2", "I2", 2, narrowCodes(codesInt), nil, blockCodes(codesInt), true}
	fdU2  = fusedDst{"Uint2", "U2", 2, narrowCodes(codesInt), nil, blockCodes(codesInt), true}
	fdF4  = fusedDst{"Float4E2M1", "F4", 4, narrowCodes(codesF4), nil, blockCodes(codesF4), true}
	fdF16 = fusedDst{"Float16", "F16", 16, narrowF16, exactF16, nil, true}
	fdBF  = fusedDst{"BFloat16", "BF16", 16, narrowBF16, exactBF16, blockBF16, true}
	// DOUBLE, on AVX2 only (see fusedStages).
	fdF64 = fusedDst{"Double", "F64", 64, narrowF64, nil, nil, true}
	// INT64, UINT64 from FLOAT16, on AVX2 only (see fusedStages).
	fdI64 = fusedDst{"Int64", "I64", 64, narrowInt64, nil, nil, true}
	fdU64 = fusedDst{"Uint64", "U64", 64, narrowInt64, nil, nil, true}
)

// fusedTable: the sources and the targets each is fused with. Left out:
// pairs that are one step already (FLOAT4E2M1 to 8-bit and packed targets:
// byte tables; INT16/UINT16 to the classic types: numeric.go), the
// integer → packed integer pairs (through INT8, both steps integer and
// cheap), and the float8 and E8M0 targets (their result depends on Options).
// The packed integer sources to 16- and 32-bit targets (portable tables
// today) would fit the FLOAT4E2M1 rows' word tables (f4Words) with their
// own 16 values.
var fusedTable = []struct {
	from fusedSrc
	to   []fusedDst
}{
	{fsF16, []fusedDst{fdI8, fdU8, fdI16, fdU16, fdI32, fdU32, fdI4, fdU4, fdI2, fdU2, fdF4, fdF64, fdI64, fdU64}},
	{fsBF, []fusedDst{fdI8, fdU8, fdI16, fdU16, fdI32, fdU32, fdI4, fdU4, fdI2, fdU2, fdF4, fdF64, fdI64, fdU64}},
	{fsI16, []fusedDst{fdF16, fdBF, fdF4}},
	{fsU16, []fusedDst{fdF16, fdBF, fdF4}},
	{fsF4, []fusedDst{fdI16, fdU16, fdI32, fdF16, fdBF}},
	{fsI32, []fusedDst{fdBF}},
	{fsU32, []fusedDst{fdBF}},
	{fsI64, []fusedDst{fdBF}},
	{fsU64, []fusedDst{fdBF}},
	{fsF64F16, []fusedDst{fdF16}},
	{fsF64BF, []fusedDst{fdBF}},
	{fsI32Near, []fusedDst{fdF16}},
	{fsU32Near, []fusedDst{fdF16}},
	{fsI64Near, []fusedDst{fdF16}},
	{fsU64Near, []fusedDst{fdF16}},
}

// fusedStage is one pair derived from the table, in one family.
type fusedStage struct {
	from fusedSrc
	to   fusedDst
	isa  ISA
	// hwBF16: the BFLOAT16 target rounds by VCVTNE2PS2BF16 (AVX512_BF16),
	// a second stage of the pair registered where the CPU has it (see
	// narrowBF16HW).
	hwBF16 bool
}

// fusedStages derives the stages: every pair of the table on AVX-512 (and
// its BFLOAT16 targets a second time with VCVTNE2PS2BF16, last, so that
// their registration comes after the first's and replaces it where the
// CPU has AVX512_BF16), and on AVX2 (whose tier has the same two-step
// plans) the pairs whose source and target both have an AVX2 form, except
// FLOAT4E2M1 to INT32: AVX2's VPERMD has 8 entries, so its FLOAT4E2M1
// rows are the 16-bit targets' byte tables only (f4BytesAVX2), and FLOAT →
// FLOAT4E2M1 exists there in 16-bit lanes only (f4Codes16).
func fusedStages() []fusedStage {
	var st, hw []fusedStage
	for _, isa := range []ISA{AVX512, AVX2} {
		for _, row := range fusedTable {
			for _, to := range row.to {
				s := fusedStage{from: row.from, to: to, isa: isa}
				if isa == AVX2 && !(row.from.avx2 && to.avx2 && (row.from.short != fsF4.short || s.wordTable())) {
					continue
				}
				// DOUBLE targets were measured on AVX2 only (Zen 3:
				// BFLOAT16 → DOUBLE through FLOAT ran at 0.96× ONNX
				// Runtime's speed); AVX-512 keeps the two steps until its
				// form is measured and swept on an AVX-512 machine.
				if isa == AVX512 && to.bits == 64 {
					continue // and the 64-bit integers, AVX2 only so far
				}
				// A source with NaN goes to BFLOAT16 by the hardware
				// rounding only (bf16Round has no NaN rule), but for
				// DOUBLE on AVX2, whose NaN lanes bf16Round replaces first
				// (nanBF16).
				if !(row.from.special && to.short == fdBF.short) || isa == AVX2 && row.from.short == fsF64.short {
					st = append(st, s)
				}
				if isa == AVX512 && to.short == fdBF.short && !s.wordTable() {
					s.hwBF16 = true
					hw = append(hw, s)
				}
			}
		}
	}
	return append(st, hw...)
}

// group is the number of elements the stage treats as one (see above).
func (st fusedStage) group() int { return max(1, 8/st.from.bits, 8/st.to.bits) }

// Lanes is the number of groups per vector (of float32 lanes).
func (st fusedStage) Lanes() int {
	if st.isa == AVX2 {
		return 8 / st.group()
	}
	return 16 / st.group()
}

func (st fusedStage) srcBytes() int { return st.group() * st.from.bits / 8 } // per group
func (st fusedStage) dstBytes() int { return st.group() * st.to.bits / 8 }

// Name is the assembly function's name; its Go wrapper is "stageFused" +
// the same suffix.
func (st fusedStage) Name() string    { return "fused" + st.suffix() }
func (st fusedStage) Wrapper() string { return "stageFused" + st.suffix() }
func (st fusedStage) suffix() string {
	s := st.from.short + "To" + st.to.short + st.isa.String()
	if st.hwBF16 {
		s += "BF16"
	}
	return s
}

// mask returns the tail mask of a side of st with the given element bits:
// the lanes of that side's elements if they are bytes or wider, else whole
// bytes (one per group), and the lane width.
func (st fusedStage) mask(s *Step, bits int) (Register, int) {
	if bits >= 8 {
		return s.M(st.group(), 0), bits
	}
	return s.M(st.group()*bits/8, 0), 8
}

func fusedNames() map[string]ISA {
	m := map[string]ISA{}
	for _, st := range fusedStages() {
		m[st.Name()] = st.isa
	}
	return m
}

// halfToInt reports whether st converts by halfToIntCodes: FLOAT16 or
// BFLOAT16 to a packed integer type, on AVX-512.
func (st fusedStage) halfToInt() bool {
	return st.isa == AVX512 && (st.from.short == fsF16.short || st.from.short == fsBF.short) &&
		st.to.bits < 8 && st.to.short != fdF4.short
}

// wordTable reports whether st converts by f4Words: a FLOAT4E2M1 source
// and a 16-bit target.
func (st fusedStage) wordTable() bool { return st.from.short == fsF4.short && st.to.bits == 16 }

// fusedFuncs emits the assembly of every stage of the table.
func fusedFuncs(a *Asm) {
	for _, st := range fusedStages() {
		a.Func(st.Name(), st.isa, "func(dst, src *byte, n int)",
			fmt.Sprintf("%s converts n groups of %d %s elements at src to %s at dst (gen/amd64 fusedTable: {%s, %s}).",
				st.Name(), st.group(), strings.ToUpper(st.from.goName), strings.ToUpper(st.to.goName), st.from.short, st.to.short))
		if st.isa == AVX512 {
			a.Needs("AVX512DQ")
		}
		if st.to.short == fdBF.short && veltkampBF16(a, st.from) {
			a.Needs("FMA3") // bf16Round; registered under FMA too (fusedGlue)
		}
		dst, src, n := a.Args()
		if st.wordTable() {
			st.f4Words(a, dst, src, n)
			continue
		}
		if st.to.short == fdF4.short && st.from.f4 != nil {
			st.f4Codes16(a, dst, src, n)
			continue
		}
		if st.halfToInt() {
			halfToIntCodes(a, st.from.short == fsBF.short, st.to.bits, dst, src, n)
			continue
		}
		if st.smallIntBlock() {
			st.halfToSmallInt(a, dst, src, n)
			continue
		}
		if st.isa == AVX2 && st.from.short == fsBF.short && (st.to.short == fdI32.short || st.to.short == fdU32.short) {
			st.bf16ToInt32(a, dst, src, n)
			continue
		}
		widen := st.from.widen(a)
		narrow := st.to.narrow
		blockOf := st.to.block
		if st.hwBF16 {
			narrow, blockOf = narrowBF16HW, blockBF16HW
		}
		var block func(xs []VecVirtual, s *Step)
		if blockOf != nil {
			block = blockOf(a, st.from, st.to) // nil if none in this family
		}
		narrowStep := narrow(a, st.from, st.to)
		lanes := st.Lanes()
		each := Each(lanes, func(s *Step) {
			ks, _ := st.mask(s, st.from.bits)
			x := widen(s, ks)
			kd, _ := st.mask(s, st.to.bits)
			narrowStep(x, s, kd)
		})
		a.Stream(Loop{SrcSize: st.srcBytes(), DstSize: st.dstBytes(), Lanes: st.vecGroups(), Unroll: 4 * lanes / st.vecGroups()}, dst, src, n, func(s *Step) {
			if block == nil || s.Lanes%(4*lanes) != 0 {
				each(s)
				return
			}
			for j := 0; j < s.Lanes; j += 4 * lanes {
				b := s.Part(j, 4*lanes)
				var xs []VecVirtual
				for i := 0; i < b.Lanes; i += lanes {
					xs = append(xs, widen(b.Part(i, lanes), nil))
				}
				block(xs, b)
			}
		})
	}
}

// vectorSteps returns the step of an AVX2 fused kernel on 8 float32 lanes
// at a time: widen, then narrow, for each vector of s (no masks).
func vectorSteps(widen func(s *Step, k Register) VecVirtual, narrow func(x VecVirtual, s *Step, k Register)) func(s *Step) {
	return func(s *Step) {
		for i := 0; i < s.Lanes; i += 8 {
			p := s.Part(i, 8)
			narrow(widen(p, nil), p, nil)
		}
	}
}

// smallIntBlock reports whether the stage is halfToSmallInt's: FLOAT16,
// BFLOAT16 → INT8, UINT8, INT16, UINT16 on AVX2.
func (st fusedStage) smallIntBlock() bool {
	return st.isa == AVX2 && (st.from.short == fsBF.short || st.from.short == fsF16.short) &&
		slices.Contains([]string{fdI8.short, fdU8.short, fdI16.short, fdU16.short}, st.to.short)
}

// halfToSmallInt emits the AVX2 fused kernel of FLOAT16 or BFLOAT16 →
// INT8, UINT8, INT16 or UINT16 whose unrolled step converts 32 elements
// and packs them at once: VCVTTPS2DQ truncates each float32 lane
// (0x80000000 from 2^31 on and for NaN: the reference's 0 once the low bits
// are kept, as every BFLOAT16 of magnitude 2^31 or more is a multiple of
// 2^24, and FLOAT16 stays below 2^16), the low 8 or 16 bits are kept, and
// VPACKUSDW (then VPACKUSWB for bytes) packs them. BFLOAT16 widens by
// VPUNPCKLWD and VPUNPCKHWD with zero, elements 0-3, 8-11 and 4-7, 12-15
// of 16 without a lane crossing, which VPACKUSDW puts back in order (bytes:
// one VPERMQ per 32); FLOAT16 by VCVTPH2PS, in order, which the packs
// interleave by lanes (one VPERMQ per 16 words, or one VPERMD per 32
// bytes). BFLOAT16: 18-19 instructions per 32 elements where the widening
// (VPMOVZXWD) and narrowing (VPSHUFB, VPERMQ) of each vector of 8 took 24,
// eight of them crossing lanes. Single steps are the stage's widen and
// narrow.
func (st fusedStage) halfToSmallInt(a *Asm, dst, src, n GPVirtual) {
	bits, bf16 := st.to.bits, st.from.short == fsBF.short
	widen, narrow := st.from.widen(a), st.to.narrow(a, st.from, st.to)
	zero := a.YMM()
	if bf16 {
		a.VPXOR(zero, zero, zero)
	}
	low := a.Splat(uint32(1)<<bits - 1)
	var order VecVirtual
	if !bf16 && bits == 8 {
		order = a.packOrder() // VPERMD: 0, 4, 1, 5, 2, 6, 3, 7
	}
	each := vectorSteps(widen, narrow)
	a.Stream(Loop{SrcSize: 2, DstSize: bits / 8, Lanes: 8, Unroll: 4}, dst, src, n, func(s *Step) {
		if s.Lanes != 32 {
			each(s)
			return
		}
		var words [2]VecVirtual
		for h := range words {
			var v [2]VecVirtual
			if bf16 {
				x := a.YMM()
				v[0], v[1] = a.YMM(), a.YMM()
				a.VMOVDQU(s.Src.Offset(32*h), x)
				a.VPUNPCKLWD(x, zero, v[0]) // elements 0-3, 8-11: the BFLOAT16 in the high halves
				a.VPUNPCKHWD(x, zero, v[1]) // 4-7, 12-15
			} else {
				v[0], v[1] = widen(s.Part(16*h, 8), nil), widen(s.Part(16*h+8, 8), nil)
			}
			for _, x := range v {
				a.VCVTTPS2DQ(x, x)
				a.VPAND(low, x, x)
			}
			a.VPACKUSDW(v[1], v[0], v[0]) // BFLOAT16: 0-15 in order; FLOAT16: 0-3, 8-11 | 4-7, 12-15
			words[h] = v[0]
		}
		if bits == 16 {
			for h, w := range words {
				if !bf16 {
					a.VPERMQ(U8(0b11_01_10_00), w, w)
				}
				s.Store(w, s.Dst.Offset(32*h), 16, nil)
			}
			return
		}
		b := words[0]
		a.VPACKUSWB(words[1], b, b)
		if bf16 {
			a.VPERMQ(U8(0b11_01_10_00), b, b) // from 0-7, 16-23 | 8-15, 24-31
		} else {
			a.VPERMD(b, order, b) // from groups of 4: 0, 2, 4, 6 | 1, 3, 5, 7
		}
		s.Store(b, s.Dst, 8, nil)
	})
}

// bf16ToInt32 emits the AVX2 fused kernel of BFLOAT16 → INT32/UINT32
// whose unrolled step takes 32 elements by VCVTTPS2DQ alone (exact below
// 2^31 in magnitude, as the reference's bits for both targets) where
// every one of them is below 2^31 in magnitude, which one comparison of the
// larger magnitude of each pair of source words tells (NaN and ±Inf are
// above); a step with another value, and single steps, take narrowInt's
// sequence (floatToInt32: the value modulo 2^32 from 2^31 on, 0 for NaN
// and ±Inf). 22 instructions per 32 elements in line against 40.
func (st fusedStage) bf16ToInt32(a *Asm, dst, src, n GPVirtual) {
	widen, narrow := st.from.widen(a), st.to.narrow(a, st.from, st.to)
	abs, limit := a.Const16(0x7FFF), a.splat16(0x4EFF) // 0x4F00: 2^31
	each := vectorSteps(widen, narrow)
	a.Stream(Loop{SrcSize: 2, DstSize: 4, Lanes: 8, Unroll: 4}, dst, src, n, func(s *Step) {
		if s.Lanes != 32 {
			each(s)
			return
		}
		m, t := a.YMM(), a.YMM()
		a.VPAND(s.Src, abs, m)
		a.VPAND(s.Src.Offset(32), abs, t)
		a.VPMAXUW(t, m, m)
		a.VPCMPGTW(limit, m, m) // 2^31 or more, NaN, ±Inf
		a.VPTEST(m, m)
		a.divert(func() {
			for i := 0; i < 32; i += 8 {
				p := s.Part(i, 8)
				x := widen(p, nil)
				a.VCVTTPS2DQ(x, x)
				p.Store(x, p.Dst, 32, nil)
			}
		}, func() { each(s) })
	})
}

// The widening snippets: 16 source elements at s.Src (under the mask k of
// their 16-bit lanes, or bytes for FLOAT4E2M1) to 16 float32 lanes.

// widenF16: VCVTPH2PS, exact (as f16ToF32; a separate load measured faster
// there).
func widenF16(a *Asm) func(s *Step, k Register) VecVirtual {
	return func(s *Step, k Register) VecVirtual {
		x := a.Vec()
		if a.isa == AVX2 { // the folded load measured faster there
			a.VCVTPH2PS(s.Src, x)
			return x
		}
		a.VLoad(Half(x), s.Src, 16, k)
		a.VCVTPH2PS(Half(x), x)
		return x
	}
}

// widenBF16: zero-extension and a shift by 16; on AVX-512 both at once, by
// VPERMW with a zeroing mask (as bf16ToF32AVX512): one instruction of one
// cycle on Zen 4 for two (BFLOAT16 → INT8, UINT8, INT16, UINT16 0.70 →
// 0.90× copy() at 64 Ki, three runs side by side; the other targets, at
// memory speed or bound elsewhere, unchanged), as many µops on Intel's.
func widenBF16(a *Asm) func(s *Step, k Register) VecVirtual {
	if a.isa == AVX512 {
		idx, odd, g := a.ConstWords("pairwords0", seq(0, 1, 2, 32)), a.K(), a.GP32()
		a.MOVL(U32(0xAAAAAAAA), g)
		a.KMOVD(g, odd)
		return func(s *Step, k Register) VecVirtual {
			x := a.Vec()
			a.VLoad(Half(x), s.Src, 16, k)
			a.VPERMW_Z(x, idx, odd, x)
			return x
		}
	}
	return func(s *Step, k Register) VecVirtual {
		x := a.Vec()
		if k != nil {
			a.VLoad(Half(x), s.Src, 16, k)
			a.VPMOVZXWD(Half(x), x)
		} else {
			a.VPMOVZXWD(s.Src, x)
		}
		a.VPSLLD(U8(16), x, x)
		return x
	}
}

// widenInt16: sign- or zero-extension and VCVTDQ2PS (exact: |v| < 2^24).
func widenInt16(signed bool) func(a *Asm) func(s *Step, k Register) VecVirtual {
	return func(a *Asm) func(s *Step, k Register) VecVirtual {
		ext := a.VPMOVZXWD
		if signed {
			ext = a.VPMOVSXWD
		}
		return func(s *Step, k Register) VecVirtual {
			x := a.Vec()
			if k != nil {
				a.VLoad(Half(x), s.Src, 16, k)
				ext(Half(x), x)
			} else {
				ext(s.Src, x)
			}
			a.VCVTDQ2PS(x, x)
			return x
		}
	}
}

// widenNear32 is not a widening either: INT32 or UINT32 to the nearest
// float32 (VCVTDQ2PS; VCVTUDQ2PS, or on AVX2, which lacks it, VCVTDQ2PS of
// the value clamped to 2^24), which FLOAT16 then rounds exactly: below
// 2^24 the float32 is the integer, above it the integer and the float32
// are both beyond FLOAT16's range (plan.go, below2p24).
func widenNear32(t num) func(a *Asm) func(s *Step, k Register) VecVirtual {
	return func(a *Asm) func(s *Step, k Register) VecVirtual {
		var limit Op
		if t == tU32 && a.isa == AVX2 {
			limit = a.Splat(1 << 24)
		}
		return func(s *Step, k Register) VecVirtual {
			x := a.Vec()
			a.VLoad(x, s.Src, 32, k)
			switch {
			case limit != nil:
				a.VPMINUD(limit, x, x)
				a.VCVTDQ2PS(x, x)
			case t == tU32:
				a.VCVTUDQ2PS(x, x)
			default:
				a.VCVTDQ2PS(x, x)
			}
			return x
		}
	}
}

// widenNear64 is widenNear32 for INT64 and UINT64: on AVX-512 VCVTQQ2PS
// or VCVTUQQ2PS (DQ) of each half; on AVX2, which has no 64-bit integer
// conversion, clamp64's clamp to ±2^24 and narrowing, then VCVTDQ2PS: the
// same float32 below 2^24, and beyond FLOAT16's range above, as the value.
func widenNear64(signed bool) func(a *Asm) func(s *Step, k Register) VecVirtual {
	return func(a *Asm) func(s *Step, k Register) VecVirtual {
		if a.isa == AVX512 {
			return func(s *Step, k Register) VecVirtual {
				var halves [2]VecVirtual
				for h := range halves {
					y, f := a.Vec(), a.YMM()
					var kh Register
					if k != nil {
						kh = s.M(1, 8*h)
					}
					a.VLoad(y, s.Src.Offset(64*h), 64, kh)
					if signed {
						a.VCVTQQ2PS(y, f)
					} else {
						a.VCVTUQQ2PS(y, f)
					}
					halves[h] = f
				}
				x := a.Vec()
				a.VINSERTF64X4(U8(1), halves[1], halves[0].AsZ(), x)
				return x
			}
		}
		load := clamp64(a, signed)
		return func(s *Step, k Register) VecVirtual {
			x := a.Vec()
			load(s.Src, x)
			a.VCVTDQ2PS(x, x)
			return x
		}
	}
}

// widenOdd32 is not a widening: INT32 and UINT32 round to odd at float32
// (odd.go's snippets), after which BFLOAT16's rounding to nearest even is
// the value's one rounding (plan.go), as in their two-step plan.
func widenOdd32(t num) func(a *Asm) func(s *Step, k Register) VecVirtual {
	return func(a *Asm) func(s *Step, k Register) VecVirtual {
		var odd func(x VecVirtual) VecVirtual
		switch {
		case t == tU32 && a.isa == AVX2:
			odd = oddU32Coarse(a)
		case a.isa == AVX512:
			odd = oddStage{t}.oddIntAVX512(a)
		default:
			odd = oddStage{t}.oddIntAVX2(a)
		}
		return func(s *Step, k Register) VecVirtual {
			x := a.Vec()
			a.VLoad(x, s.Src, 32, k)
			return odd(x)
		}
	}
}

// widenOdd64 is widenOdd32 for INT64, UINT64 and DOUBLE on AVX-512: each
// half of 8 elements rounded to odd (oddIntAVX512, oddF64AVX512: {rz-sae}
// conversion, back, odd bit where it differs), the two halves joined. On
// AVX2 DOUBLE takes oddF64AVX2 on each half of 4 (AVX2's steps are full
// vectors), and INT64 and UINT64, whose rows hold BFLOAT16 only, are
// rounded to BFLOAT16 here (bf16Of64AVX2).
func widenOdd64(t num) func(a *Asm) func(s *Step, k Register) VecVirtual {
	return func(a *Asm) func(s *Step, k Register) VecVirtual {
		if a.isa == AVX2 && t != tF64 {
			return bf16Of64AVX2(a, t == tU64)
		}
		if a.isa == AVX2 && t == tF64 {
			odd := oddF64AVX2(a)
			return func(s *Step, k Register) VecVirtual { return halvesAVX2(a, s, k, odd) }
		}
		if a.isa != AVX512 {
			panic("widenOdd64: AVX-512, or DOUBLE on AVX2")
		}
		var odd func(x VecVirtual) VecVirtual
		if t == tF64 {
			odd = oddF64AVX512(a)
		} else {
			odd = oddStage{t}.oddIntAVX512(a)
		}
		return func(s *Step, k Register) VecVirtual {
			var halves [2]VecVirtual
			for h := range halves {
				y := a.Vec()
				var kh Register
				if k != nil {
					kh = s.M(1, 8*h)
				}
				a.VLoad(y, s.Src.Offset(64*h), 64, kh)
				halves[h] = odd(y)
			}
			x := a.Vec()
			a.VINSERTF64X4(U8(1), halves[1], halves[0].AsZ(), x)
			return x
		}
	}
}

// bf16Of64AVX2 is widenOdd64 for INT64 (UINT64 if uns) on AVX2: float32
// lanes that hold the value rounded to BFLOAT16 already, to nearest even,
// so that the target's rounding (bf16Round) leaves them as they are. Each
// half of 4 becomes a DOUBLE d by intToFloatAVX2's toF64 (rounded once,
// to nearest even at 53 bits), then d rounds to 8 significant bits by
// Veltkamp's split (g = d·(2^45+1), g - (g - d): bf16OfIntF64's, correctly
// rounded to nearest even for every d below 2^64, nothing overflowing),
// which VCVTPD2PS converts exactly. Rounding twice gives the one rounding
// of the integer v unless a tie T of BFLOAT16's grid (a DOUBLE of 9
// significant bits) lies between v and d, both included, and v ≠ d: d is
// v's nearest DOUBLE, so no DOUBLE lies strictly between them, and T = d.
// So where d is such a tie (its 45 bits below BFLOAT16's last are 1 and 44
// zeros) and |d| ≥ 2^53 (below, d = v), the group of 8 takes the exact
// DOUBLE out of line: roundable first (the low 12 bits folded to a sticky
// one), which toF64 converts exactly. 16 instructions per 4 elements
// against the 19 that always fold; random 64-bit integers are such ties
// once in 2^44.
func bf16Of64AVX2(a *Asm, uns bool) func(s *Step, k Register) VecVirtual {
	zero := a.YMM()
	a.VPXOR(zero, zero, zero)
	toF64, roundable := int64ToF64AVX2(a, uns, zero)
	split := a.splat64(math.Float64bits(0x1p45 + 1))
	below, tie := a.splat64(1<<45-1), a.splat64(1<<44)
	abs, from53 := a.splat64(math.MaxInt64), a.splat64(math.Float64bits(0x1p53)-1)
	bf16Of := func(d VecVirtual) VecVirtual {
		a.veltkamp(split, d) // to nearest even at 8 bits
		r := a.XMM()
		a.VCVTPD2PSY(d, r) // exact
		return r
	}
	return func(s *Step, k Register) VecVirtual {
		var bad []VecVirtual
		x := halvesAVX2(a, s, k, func(y VecVirtual) VecVirtual {
			d := toF64(y)
			t, m := a.YMM(), a.YMM()
			a.VPAND(below, d, t)
			a.VPCMPEQQ(tie, t, t) // d is a tie of BFLOAT16's grid
			a.VPAND(abs, d, m)
			a.VPCMPGTQ(from53, m, m) // |d| ≥ 2^53: d may not be v
			a.VPAND(m, t, t)
			bad = append(bad, t)
			return bf16Of(d)
		})
		a.VPOR(bad[0], bad[1], bad[0])
		a.VPTEST(bad[0], bad[0]) // ZF: no such lane
		a.divert(func() {}, func() {
			exact := halvesAVX2(a, s, k, func(y VecVirtual) VecVirtual { return bf16Of(toF64(roundable(y))) })
			a.VMOVDQU(exact, x)
		})
		return x
	}
}

// halvesAVX2 converts the 8 64-bit elements of an AVX2 step (AVX2 steps
// are whole: k is nil) four at a time by f, which returns their float32
// in the low 128 bits of a register, and joins the two results.
func halvesAVX2(a *Asm, s *Step, k Register, f func(y VecVirtual) VecVirtual) VecVirtual {
	if k != nil {
		panic("halvesAVX2: AVX2 steps have no mask")
	}
	var halves [2]VecVirtual
	for h := range halves {
		y := a.YMM()
		a.VMOVDQU(s.Src.Offset(32*h), y)
		halves[h] = f(y)
	}
	x := a.YMM()
	a.VINSERTI128(U8(1), halves[1].AsX(), halves[0].AsY(), x)
	return x
}

// veltkamp rounds the DOUBLEs of x in place to nearest even at 53 - s
// significant bits, split holding 2^s + 1 in every lane: Veltkamp's split,
// g = x·split, g - (g - x) (the portable veltkamp's, double_generic.go),
// exact where nothing overflows.
func (a *Asm) veltkamp(split Op, x VecVirtual) {
	g, e := a.YMM(), a.YMM()
	a.VMULPD(split, x, g)
	a.VSUBPD(x, g, e) // g - x
	a.VSUBPD(e, g, x) // g - (g - x)
}

// widenF64Rounded is widenOdd64(tF64) but on AVX2, where it takes a
// group of 8 DOUBLEs whose magnitudes are all 0 or in [2^minExp, 2^128)
// (the normal range of a target of sig significant bits whose smallest
// normal is 2^minExp, and beyond: what overflows) to float32 lanes that
// hold them rounded to the target already: Veltkamp's split (g = x·σ,
// g - (g - x), σ = 2^(53-sig) + 1: bf16Of64AVX2's three float operations,
// nothing overflowing or underflowing there) rounds each to sig
// significant bits, to nearest even, and VCVTPD2PS converts that exactly
// (or, from 2^128, to ±Inf, which the target's own overflow gives too).
// The target's rounding (bf16Round, VCVTPS2PH) and nanBF16 leave such
// lanes as they are. A group with a NaN, ±Inf, a magnitude of 2^128 or
// more or a nonzero one below 2^minExp (the target's subnormals, whose
// grid is coarser than sig bits) takes widenOdd64's round to odd out of
// line. The range test: b = |x| - 2^minExp (bits) is negative below and
// greater than span - 1 above, so the sign of b | (b > span - 1) marks
// the lanes out of range, zeros cleared by an ordered comparison. 10
// instructions per 4 elements against the round to odd's 16; on a Zen 3,
// normally distributed values: DOUBLE → BFLOAT16 0.29 → 0.35-0.43× copy()
// (0.91× ONNX Runtime's speed, which rounds twice, before), → FLOAT16
// 0.31-0.33 → 0.45-0.72.
func widenF64Rounded(sig, minExp int) func(a *Asm) func(s *Step, k Register) VecVirtual {
	return func(a *Asm) func(s *Step, k Register) VecVirtual {
		odd := widenOdd64(tF64)(a)
		if a.isa != AVX2 {
			return odd
		}
		lo, hi := uint64(1023+minExp)<<52, uint64(1023+128)<<52
		abs, negLo, spanM1 := a.splat64(math.MaxInt64), a.splat64(-lo), a.splat64(hi-lo-1)
		split := a.splat64(math.Float64bits(math.Ldexp(1, 53-sig) + 1))
		zero := a.YMM()
		a.VXORPD(zero, zero, zero)
		return func(s *Step, k Register) VecVirtual {
			var bad []VecVirtual
			x := halvesAVX2(a, s, k, func(y VecVirtual) VecVirtual {
				b, c, z := a.YMM(), a.YMM(), a.YMM()
				a.VANDPD(abs, y, b)
				a.VPADDQ(negLo, b, b)    // |x| - 2^minExp, bits
				a.VPCMPGTQ(spanM1, b, c) // from 2^128
				a.VPOR(b, c, c)          // sign: out of range
				a.VCMPPD(U8(cmpEQOQ), zero, y, z)
				a.VPANDN(c, z, c) // zeros are in range
				bad = append(bad, c)
				a.veltkamp(split, y) // to nearest even at sig bits
				r := a.XMM()
				a.VCVTPD2PSY(y, r)
				return r
			})
			a.VPOR(bad[0], bad[1], bad[0])
			a.VTESTPD(bad[0], bad[0]) // ZF: no sign bit set
			a.divert(func() {}, func() { a.VMOVDQU(odd(s, nil), x) })
			return x
		}
	}
}

// oddU32Coarse is widenOdd32's UINT32 on AVX2, where the fused stage's
// only target is BFLOAT16 (8 significant bits; a target in fsU32's row
// with more than 14 would need oddIntAVX2, and TestPlansWideSources' near
// ties would show it): a round to odd at any
// position at least two bits below BFLOAT16's last keeps its rounding
// (plan.go's argument), so it need not be float32's. From 2^24 on (the
// leading one at bit 24 or above, BFLOAT16's last bit at 17 or above) the
// value is rounded to odd at bit 8, m = u >> 8 | (u & 0xFF != 0), and
// converted exactly with 8 added to the exponent; below, u converts
// exactly. With b = min(u >> 24, 1), both are one sequence: m = u >> 8b |
// min(u & 0xFF, b), then VCVTDQ2PS and b << 26 added to the bits. Ten
// instructions per 8 elements against oddIntAVX2's 13.
func oddU32Coarse(a *Asm) func(x VecVirtual) VecVirtual {
	one, low := a.Splat(1), a.Splat(0xFF)
	return func(x VecVirtual) VecVirtual {
		b, s, t := a.YMM(), a.YMM(), a.YMM()
		a.VPSRLD(U8(24), x, b)
		a.VPMINUD(one, b, b) // 1 from 2^24
		a.VPSLLD(U8(3), b, s)
		a.VPAND(low, x, t)
		a.VPMINUD(b, t, t) // the sticky bit, where b is 1
		a.VPSRLVD(s, x, x)
		a.VPOR(t, x, x)
		a.VCVTDQ2PS(x, x) // below 2^24: exact
		a.VPSLLD(U8(26), b, b)
		a.VPADDD(b, x, x)
		return x
	}
}

// widenF4: f4ToF32's algorithm, 8 source bytes through the 16-entry table
// by VPERMD.
func widenF4(a *Asm) func(s *Step, k Register) VecVirtual {
	var mags [16]uint32
	for i, v := range []float32{0, 0.5, 1, 1.5, 2, 3, 4, 6} {
		mags[i] = math.Float32bits(v)
		mags[i+8] = math.Float32bits(-v)
	}
	tab := a.ConstTable("float4", mags[:])
	return func(s *Step, k Register) VecVirtual {
		q, t := a.ZMM(), a.ZMM()
		if k != nil {
			a.VLoad(q.AsX().(VecVirtual), s.Src, 8, k)
			a.VPMOVZXBQ(q.AsX(), q)
		} else {
			a.VPMOVZXBQ(s.Src, q)
		}
		a.VPSLLQ(U8(28), q, t) // low nibble in bits 0..3, high in 32..35
		a.VPORD(t, q, q)
		x := a.ZMM()
		a.VPERMD(tab, q, x)
		return x
	}
}

// f4Words is the loop of a FLOAT4E2M1 row with a 16-bit target: there the
// widening and the narrowing compose into one 16-entry table of target
// words (the exact value of each code, see fusedDst.exact), looked up by
// VPERMW 32 elements a vector. Each source byte is zero-extended to a
// dword d; d | d<<12 holds the low nibble in bits 0..3 of the low word and
// the high nibble in bits 0..3 of the high word, and VPERMW reads the low
// five bits of each word, so the table is stored twice (entries i and
// i+16 alike) and the bits above the nibble do not matter.
func (st fusedStage) f4Words(a *Asm, dst, src, n GPVirtual) {
	var w [32]uint16
	for c := range 16 {
		v := float32([]float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}[c&7])
		if c&8 != 0 {
			v = -v
		}
		w[c], w[c+16] = st.to.exact(v), st.to.exact(v)
	}
	if a.isa == AVX2 {
		st.f4BytesAVX2(a, dst, src, n, w[:16])
		return
	}
	tab := a.ConstWords("float4_"+strings.ToLower(st.to.short), w[:])
	a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: 16, Unroll: 4}, dst, src, n, Each(16, func(s *Step) {
		d, t := a.ZMM(), a.ZMM()
		if s.Tail() {
			a.VLoad(d.AsX().(VecVirtual), s.Src, 8, s.M(1, 0))
			a.VPMOVZXBD(d.AsX(), d)
		} else {
			a.VPMOVZXBD(s.Src, d)
		}
		a.VPSLLD(U8(12), d, t)
		a.VPORD(t, d, d)
		a.VPERMW(tab, d, d)
		s.Store(d, s.Dst, 16, s.M(2, 0))
	}))
}

// f4BytesAVX2 is f4Words on AVX2, whose VPSHUFB looks up 16-entry byte
// tables: the low and the high bytes of the words w. Each step widens 8
// source bytes to 16 code bytes in element order (low nibble, high
// nibble: VPUNPCKLBW), zero-extends them to words with 0x80 in the high
// byte (which VPSHUFB maps to 0), and ors the low-byte lookup with the
// high-byte lookup shifted up by 8.
func (st fusedStage) f4BytesAVX2(a *Asm, dst, src, n GPVirtual, w []uint16) {
	lo, hi := make([]byte, 32), make([]byte, 32)
	for i := range 32 {
		lo[i], hi[i] = byte(w[i%16]), byte(w[i%16]>>8)
	}
	name := "float4_" + strings.ToLower(st.to.short)
	tlo, thi := a.ConstBytes(name+"_lo", lo), a.ConstBytes(name+"_hi", hi)
	low, c80 := a.Splat(0x0F0F0F0F), a.Splat(0x80008000)
	lanes := st.vecGroups()
	a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: lanes, Unroll: 4}, dst, src, n, Each(lanes, func(s *Step) {
		b, h, x, r := a.XMM(), a.XMM(), a.YMM(), a.YMM()
		a.VMOVQ(s.Src, b)
		a.VPSRLW(U8(4), b, h)
		a.VPUNPCKLBW(h, b, b)
		a.VPAND(low, b, b)
		a.VPMOVZXBW(b, x)
		a.VPOR(c80, x, x)
		a.VPSHUFB(x, thi, r)
		a.VPSHUFB(x, tlo, x)
		a.VPSLLW(U8(8), r, r)
		a.VPOR(r, x, x)
		s.Store(x, s.Dst, 16, nil)
	}))
}

// f4Codes16 is the loop of a 16-bit source to FLOAT4E2M1: the source's f4
// codes, a vector of them at a time, paired into bytes and narrowed: on
// AVX2, d | d>>12 on each dword of two code words puts the second code in
// bits 4..7 and the narrowing gathers the low bytes; on AVX-512 see below.
func (st fusedStage) f4Codes16(a *Asm, dst, src, n GPVirtual) {
	if _, _, half := halfFields(st.from); half {
		if a.isa == AVX512 {
			halfToF4Bytes(a, st.from.short == fsBF.short, dst, src, n)
		} else {
			halfToF4AVX2(a, st.from.short == fsBF.short, dst, src, n)
		}
		return
	}
	codes := st.from.f4(a)
	if a.isa == AVX512 {
		// Two vectors of 16 pairs at a time: VPMADDWD makes each pair's byte
		// (first + 16·second in its dword), a VPACKUSDW and a VPACKUSWB put
		// the 8 bytes of 128-bit lane l of both vectors in lane l, and a
		// VPERMD of the dwords puts the 32 in order, where a VPSRLD, a VPORD
		// and a VPMOVDB (two micro-ops on Zen 4) per vector did: FLOAT16 and
		// BFLOAT16 → FLOAT4E2M1 0.45 → 0.47–0.52× copy(), INT16 0.91 →
		// 0.95× (Zen 4).
		pair := a.Splat(0x0010_0001)
		order := a.ConstTable("transpose2x4", []uint32{0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0})
		a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			var cs [2]VecVirtual
			for h := range cs {
				x := a.Vec()
				a.VLoad(x, s.Src.Offset(64*h), 16, s.M(2, 32*h))
				cs[h] = codes(x)
				a.VPMADDWD(pair, cs[h], cs[h])
			}
			a.VPACKUSDW(cs[1], cs[0], cs[0])
			a.VPACKUSWB(cs[0], cs[0], cs[0])
			a.VPERMD(cs[0], order, cs[0])
			s.StoreLow(cs[0], 32, s.Dst, 8, s.M(1, 0))
		}))
		return
	}
	pack := a.pairPacker()
	a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
		var cs [2]VecVirtual
		for h := range cs {
			x := a.Vec()
			a.VMOVDQU(s.Src.Offset(32*h), x)
			cs[h] = codes(x)
		}
		s.Store(pack(cs), s.Dst, 8, nil)
	}))
}

// pairPacker returns the AVX2 packing of two vectors of 4-bit codes in
// 16-bit lanes (cs, 32 elements in order) into 16 bytes, the first of each
// pair in the low nibble: a VPACKUSWB of the two, then pairBytes. The
// result is the XMM register of cs[0].
func (a *Asm) pairPacker() func(cs [2]VecVirtual) VecVirtual {
	pairs := a.pairBytes()
	return func(cs [2]VecVirtual) VecVirtual {
		a.VPACKUSWB(cs[1], cs[0], cs[0])
		return pairs(cs[0])
	}
}

// pairBytes returns the AVX2 packing of 32 4-bit codes, one a byte in the
// order of a VPACKUSWB of two vectors of words in element order, into 16
// bytes: a VPMADDUBSW by 1, 16 makes each pair's byte (first + 16·second
// in its word), a second VPACKUSWB and a VPERMD of the dwords 0 4 1 5 put
// them in order (where a VPSRLD, a VPOR, a VPSHUFB and a VPERMD per vector
// did: Zen 3, 64 Ki elements, three runs each way side by side, INT16 →
// FLOAT4E2M1 0.51-0.56 → 0.64-0.66× copy(), UINT16 0.62-0.81 → 0.83-1.0×).
// The result is c's XMM register.
func (a *Asm) pairBytes() func(c VecVirtual) VecVirtual {
	pair := a.Splat(0x1001_1001)
	order := a.ConstTable("order0415", []uint32{0, 4, 1, 5, 0, 0, 0, 0})
	return func(c VecVirtual) VecVirtual {
		a.VPMADDUBSW(pair, c, c)
		a.VPACKUSWB(c, c, c)
		a.VPERMD(c, order, c)
		return c.AsX().(VecVirtual)
	}
}

// halfToF4Bytes is FLOAT16 or BFLOAT16 → FLOAT4E2M1 on AVX-512 (VBMI) in
// bytes, 64 elements a step. Every rounding boundary of FLOAT4E2M1 from
// 0.25 up (the ties 0.25, 0.75, 1.25 … 5 and 7, and 8, from which on the
// code is 7) is a value whose significand bits end in at least 8 (FLOAT16)
// or 5 (BFLOAT16) zeros, so a 16-bit float's code is a function of its
// bits above those and whether any of those is set: a key of at most 6
// bits, looked up in a 64-entry table by VPERMB. VPERMI2B and VPERMT2B
// gather the high and the low byte of each element of two vectors (of the
// words rotated left by one for BFLOAT16, VPSHLDW: its exponent is then
// the high byte and its sign bit 0 of the low byte), and after the lookup
// NaN takes 8, the sign goes to bit 3, and VPMADDUBSW and VPERMB pack the
// pairs. The keys (halfF4Key) and the table (halfF4Table, checked against
// f4Code on every finite input) are:
//
//	FLOAT16:  u = 2·(high byte) + (low byte ≠ 0), the sign dropped by the
//	          doubling; key = min(u - 0x68 saturated, 0x28) (0x68: 0.25,
//	          0x28: 8 and up); NaN: u > 0xF8 (Inf's u).
//	BFLOAT16: e = the exponent byte, l = the low byte (m << 1 | sign);
//	          key = min(e - 124 saturated, 7) (0: below 0.25, 7: 16 and
//	          up) | (l & 0x3E ≠ 0) << 3 | (l >> 6) << 4 (the two leading
//	          significand bits); NaN: e = 0xFF and l & 0xFE ≠ 0.
//
// 17 (FLOAT16) and 22 (BFLOAT16) instructions per 64 elements where the
// 16-bit lanes (a 64-entry VPERMI2W table of codes) took 30.
func halfToF4Bytes(a *Asm, bf16 bool, dst, src, n GPVirtual) {
	f4 := a.halfF4ByteCodes(bf16)
	a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
		x0, x1 := a.Vec(), a.Vec()
		a.VLoad(x0, s.Src, 16, s.M(2, 0))
		a.VLoad(x1, s.Src.Offset(64), 16, s.M(2, 32))
		s.StoreLow(f4(x0, x1), 32, s.Dst, 8, s.M(1, 0))
	})
}

// halfF4ByteCodes returns halfToF4Bytes's conversion of two vectors of 32
// FLOAT16 or BFLOAT16 words (in element order, clobbered) to their 64
// FLOAT4E2M1 codes, packed in pairs into the low 32 bytes of the vector it
// returns.
func (a *Asm) halfF4ByteCodes(bf16 bool) func(x0, x1 VecVirtual) VecVirtual {
	a.Needs("AVX512VBMI") // VPERMB, VPERMI2B, VPERMT2B
	name := "f16f4codes"
	if bf16 {
		a.Needs("AVX512VBMI2") // VPSHLDW
		name = "bf16f4codes"
	}
	table := a.ConstBytes(name, halfF4Table(bf16))
	hiIdx, loIdx := a.ConstBytes("oddbytes", seq8(1, 2, 64)), a.ConstBytes("evenbytes", seq8(0, 2, 64))
	eight := a.Const8(8)
	pair := a.Const16(0x1001) // VPMADDUBSW's weights: 1 for the first code, 16 for the second
	// key returns the table index of each byte and sets nan; sg gets the
	// sign at bit 3 of each byte (among other bits).
	var key func(hi, lo VecVirtual, nan Register) (k, sg VecVirtual)
	if !bf16 {
		one, base, top, nanT := a.Const8(1), a.Const8(0x68), a.Const8(0x28), a.Const8(0xF8)
		key = func(hi, lo VecVirtual, nan Register) (k, sg VecVirtual) {
			sticky := a.K()
			a.VPTESTMB(lo, lo, sticky)
			u := a.Vec()
			a.VPADDB(hi, hi, u)
			a.VPADDB(one, u, sticky, u)
			k, sg = a.Vec(), a.Vec()
			a.VPSUBUSB(base, u, k)
			a.VPMINUB(top, k, k)
			a.VPCMPUB(U8(cmpGT), nanT, u, nan)
			a.VPSRLW(U8(4), hi, sg)
			return k, sg
		}
	} else {
		base, top, lead, low5, ff, payload := a.Const8(124), a.Const8(7), a.Const8(0x30), a.Const8(0x3E), a.Const8(0xFF), a.Const8(0xFE)
		key = func(hi, lo VecVirtual, nan Register) (k, sg VecVirtual) {
			k, t := a.Vec(), a.Vec()
			a.VPSUBUSB(base, hi, k)
			a.VPMINUB(top, k, k)
			a.VPSRLW(U8(2), lo, t)
			a.VPTERNLOGD(Tern(func(k, t, m uint8) uint8 { return k | t&m }), lead, t, k)
			sticky, top8 := a.K(), a.K()
			a.VPTESTMB(low5, lo, sticky)
			a.VPADDB(eight, k, sticky, k)
			a.VPCMPUB(U8(0), ff, hi, top8) // equal
			a.VPTESTMB(payload, lo, top8, nan)
			sg = a.Vec()
			a.VPSLLW(U8(3), lo, sg)
			return k, sg
		}
	}
	return func(x0, x1 VecVirtual) VecVirtual {
		hi := a.Vec()
		if bf16 {
			a.VPSHLDW(U8(1), x0, x0, x0) // rotated left by one
			a.VPSHLDW(U8(1), x1, x1, x1)
		}
		a.VMOVDQA64(hiIdx, hi)
		a.VPERMI2B(x1, x0, hi)
		a.VPERMT2B(x1, loIdx, x0) // the low bytes
		nan := a.K()
		k, sg := key(hi, x0, nan)
		c := k
		a.VPERMB(table, k, c)
		a.VMOVDQU8(eight, nan, c)
		a.VPTERNLOGD(Tern(func(c, s, e uint8) uint8 { return c | s&e }), eight, sg, c)
		a.VPMADDUBSW(pair, c, c) // word j: code 2j + 16·code 2j+1
		a.VPERMB(c, loIdx, c)    // their low bytes, in order, in the low half
		return c
	}
}

// halfToF4AVX2 is FLOAT16 or BFLOAT16 → FLOAT4E2M1 on AVX2, 32 elements
// a step (16 pairs; n counts pairs), by the key of halfToF4Bytes's
// FLOAT16 algorithm, k = min(u - lo saturated, 0x28) with u = 2·(the
// magnitude's bits above the last d) + (any of those d ≠ 0): both
// formats' rounding boundaries of FLOAT4E2M1 (0.25, 0.75 … 5) lie at the
// same keys, as each keeps two significand bits above d (FLOAT16 d = 8,
// lo = 0x68; BFLOAT16 d = 5, lo = 0x3E8). FLOAT16's u is a byte: VPSHUFB
// splits each vector of words into its low and high bytes per 128-bit lane
// and VPUNPCKLQDQ/VPUNPCKHQDQ pair them (f16ToE4M3BytesAVX2's order,
// undone by the final VPERMD); BFLOAT16's is a word, (a >> 5) + ((a + 31)
// >> 5), packed to bytes after the clamp. The code then steps up by at most
// one within each group of four keys (f4KeySteps), so it is base[k>>2] -
// (off[k>>2] > k&3): two 16-entry VPSHUFB tables and a signed compare,
// where halfToF4Bytes has a 64-entry VPERMB. NaN takes 8 by a blend; the
// sign goes to bit 3; pairBytes packs the pairs. About 25 (FLOAT16) and 31
// (BFLOAT16) instructions per 32 elements where the 16-bit lanes
// (halfF4Codes and pairPacker) took 41.
func halfToF4AVX2(a *Asm, bf16 bool, dst, src, n GPVirtual) {
	f4 := a.halfF4KeyCodes(bf16)
	a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
		var xs [2]VecVirtual
		for h := range xs {
			xs[h] = a.Vec()
			a.VMOVDQU(s.Src.Offset(32*h), xs[h])
		}
		s.Store(f4(xs), s.Dst, 8, nil)
	}))
}

// halfF4KeyCodes returns halfToF4AVX2's conversion of two vectors of 16
// FLOAT16 or BFLOAT16 words (in element order, clobbered) to their 32
// FLOAT4E2M1 codes, packed in pairs into the 16 bytes it returns.
func (a *Asm) halfF4KeyCodes(bf16 bool) func(xs [2]VecVirtual) VecVirtual {
	codes := halfF4Table(false)[:0x29]
	if bf16 { // the same keys: checked on every finite BFLOAT16 magnitude
		for h := range 0x7F80 {
			k := min(max(h>>5+(h+31)>>5-0x3E8, 0), 0x28)
			if v := math.Float32frombits(uint32(h) << 16); codes[k] != f4Code(float64(v)) {
				panic(fmt.Sprintf("halfToF4AVX2: BFLOAT16 %#04x: key %d", h, k))
			}
		}
	}
	base, off := f4KeySteps(codes)
	b16 := func(name string, t [16]byte) VecVirtual { return a.ConstBytes(name, append(t[:], t[:]...)) }
	baseT, offT := b16("f4keybase", base), b16("f4keyoff", off)
	b8 := a.splat8
	pairs := a.pairBytes()
	var splitT VecVirtual
	if !bf16 {
		var split [32]byte // each 128-bit lane: its 8 low bytes, then its 8 high bytes
		for i := range 8 {
			split[i], split[8+i] = byte(2*i), byte(2*i+1)
		}
		copy(split[16:], split[:16])
		splitT = a.ConstBytes("splitwords", split[:])
	}
	return func(xs [2]VecVirtual) VecVirtual {
		// k: the keys, nan: -1 where NaN, sg: the sign in bit 7 of each byte
		// (other bits besides), all in the order of a VPACKUSWB of xs.
		k, nan, sg := a.Vec(), a.Vec(), a.Vec()
		if bf16 {
			var ks, ns [2]VecVirtual
			for h := range xs {
				ab, t := a.Vec(), a.Vec()
				ks[h], ns[h] = a.Vec(), a.Vec()
				a.VPAND(a.splat16(0x7FFF), xs[h], ab)
				a.VPADDW(a.splat16(31), ab, t)
				a.VPSRLW(U8(5), t, t)
				a.VPSRLW(U8(5), ab, ks[h])
				a.VPADDW(t, ks[h], ks[h])
				a.VPSUBUSW(a.splat16(0x3E8), ks[h], ks[h])
				a.VPMINUW(a.splat16(0x28), ks[h], ks[h])
				a.VPCMPGTW(a.splat16(0x7F80), ab, ns[h]) // ab ≤ 0x7FFF: the signed compare does
			}
			a.VPACKUSWB(ks[1], ks[0], k)
			a.VPACKSSWB(ns[1], ns[0], nan)
			a.VPACKSSWB(xs[1], xs[0], sg)
		} else {
			for h := range xs {
				a.VPSHUFB(splitT, xs[h], xs[h])
			}
			lo, u := a.Vec(), a.Vec()
			a.VPUNPCKHQDQ(xs[1], xs[0], sg) // the high bytes
			a.VPUNPCKLQDQ(xs[1], xs[0], lo)
			a.VPMINUB(b8(1), lo, lo) // low byte ≠ 0
			a.VPADDB(sg, sg, u)
			a.VPADDB(lo, u, u)
			a.VPSUBUSB(b8(0x68), u, k)
			a.VPMINUB(b8(0x28), k, k)
			a.VPMAXUB(b8(0xF9), u, nan)
			a.VPCMPEQB(u, nan, nan) // u > 0xF8: NaN
		}
		g, c, t := a.Vec(), a.Vec(), a.Vec()
		a.VPSRLW(U8(2), k, g)
		a.VPAND(b8(0x3F), g, g)
		a.VPSHUFB(g, offT, t)
		a.VPSHUFB(g, baseT, c)
		a.VPAND(b8(3), k, k)
		a.VPCMPGTB(k, t, t) // off > k&3: -1
		a.VPADDB(t, c, c)
		a.VPBLENDVB(nan, b8(8), c, c)
		a.VPSRLW(U8(4), sg, sg) // the sign to bit 3
		a.VPAND(b8(8), sg, sg)
		a.VPOR(sg, c, c)
		return pairs(c) // the bytes are in the order of a VPACKUSWB of xs
	}
}

// f4KeySteps splits a table of FLOAT4E2M1 codes by key into halfToF4AVX2's
// two 16-entry tables: code(k) = base[k>>2] - (off[k>>2] > k&3), where
// base is the group of four's last code and off the position at which
// the group first reaches it (keys past the table repeat its last code).
// It panics where a group's codes do not fit that form.
func f4KeySteps(codes []byte) (base, off [16]byte) {
	at := func(k int) byte { return codes[min(k, len(codes)-1)] }
	for g := range 16 {
		base[g] = at(4*g + 3)
		for off[g] = 0; at(4*g+int(off[g])) != base[g]; off[g]++ {
		}
		for j := range 4 {
			want := base[g]
			if int(off[g]) > j {
				want--
			}
			if at(4*g+j) != want {
				panic(fmt.Sprintf("f4KeySteps: key %d: code %d, the form gives %d", 4*g+j, at(4*g+j), want))
			}
		}
	}
	return base, off
}

// halfToIntCodes is FLOAT16 or BFLOAT16 → INT4, UINT4, INT2, UINT2 on
// AVX-512 (VBMI) in the source's 16-bit lanes, 64 elements a step, with no
// float32 in between. The target's code is the truncation toward zero
// modulo 2^bits (NaN and ±Inf give 0), so it is the low bits of
// I = M·2^(e-p) shifted, M the significand with its implicit bit (p
// fraction bits: 10 or 7) and e the unbiased exponent: with M placed at
// the top of a word, mv = M << (15-p) (the word shifted left, bit 15 set),
// I mod 2^16 = mv >> (15 - e) by VPSRLVW, whose count 15 - e = 15 + bias -
// field comes from the exponent field, and which gives 0 for every count
// of 16 or more (|x| < 1, zero, FLOAT16 subnormals) and for the negative
// ones, read as large (e ≥ 16: BFLOAT16 values from 2^16 up, multiples of
// 2^9 and so 0 modulo 2^4; the all-ones exponent field of NaN and ±Inf,
// which give 0 as in the reference). A negative x takes -I (VPMOVW2M, a
// masked VPSUBW), whose low bits are the two's complement truncation's.
// VPERMT2B gathers the low bytes of two vectors, multiply-adds pack the
// codes in order (VPMADDUBSW 1, 16; or 1, 4 then VPMADDWD 1, 16), and
// VPERMB picks the packed bytes: 24 instructions per 64 elements where the
// float32 route took 23 with eight conversions (VCVTPH2PS, two micro-ops
// on Zen 4, and VCVTTPS2DQ); 0.55–0.61 → 0.64–0.78× copy() at 64 Ki
// (Zen 4, A/B in one process, three rounds).
func halfToIntCodes(a *Asm, bf16 bool, bits int, dst, src, n GPVirtual) {
	a.Needs("AVX512VBMI") // VPERMT2B, VPERMB
	p, bias := 10, 15
	if bf16 {
		p, bias = 7, 127
	}
	abs, top, count := a.Const16(0x7FFF), a.Const16(0x8000), a.Const16(uint16(15+bias))
	low := a.Const8(1<<bits - 1)
	evens := a.ConstBytes("evenbytes", seq8(0, 2, 64))
	zero := a.Vec()
	a.VPXORD(zero, zero, zero)
	group := 8 / bits // elements a byte
	var w1, w2, pick VecVirtual
	if bits == 4 {
		w1 = a.Const16(0x1001) // VPMADDUBSW's weights: 1 for the first code, 16 for the second
		pick = evens
	} else {
		w1, w2 = a.Const32(0x04010401), a.Const32(0x00100001)
		pick = a.ConstBytes("dwordbytes0", seq8(0, 4, 64))
	}
	// codes returns I (its low bits the codes) of the 32 words of x.
	codes := func(x VecVirtual) VecVirtual {
		t, c, mv := a.Vec(), a.Vec(), a.Vec()
		a.VPANDD(abs, x, t)
		a.VPSRLW(U8(p), t, t)
		a.VPSUBW(t, count, c) // 15 + bias - exponent field
		a.VPSLLW(U8(15-p), x, mv)
		a.VPORD(top, mv, mv)
		a.VPSRLVW(c, mv, mv)
		neg := a.K()
		a.VPMOVW2M(x, neg)
		a.VPSUBW(mv, zero, neg, mv)
		return mv
	}
	a.Stream(Loop{SrcSize: 2 * group, DstSize: 1, Lanes: 64 / group, Unroll: 1}, dst, src, n, func(s *Step) {
		x0, x1 := a.Vec(), a.Vec()
		a.VLoad(x0, s.Src, 16, s.M(group, 0))
		a.VLoad(x1, s.Src.Offset(64), 16, s.M(group, 32))
		c0, c1 := codes(x0), codes(x1)
		a.VPERMT2B(c1, evens, c0) // the low bytes of the 64 words, in order
		a.VPANDD(low, c0, c0)
		a.VPMADDUBSW(w1, c0, c0)
		if bits == 2 {
			a.VPMADDWD(w2, c0, c0)
		}
		a.VPERMB(c0, pick, c0) // the packed bytes, in order, in the low 64/group
		s.StoreLow(c0, 64/group, s.Dst, 8, s.M(1, 0))
	})
}

// halfF4Key is halfToF4Bytes's key of a finite magnitude h of FLOAT16 or
// BFLOAT16, as the kernel computes it.
func halfF4Key(bf16 bool, h int) int {
	if !bf16 {
		u := 2 * (h >> 8)
		if h&0xFF != 0 {
			u++
		}
		return min(max(u-0x68, 0), 0x28)
	}
	e, l := h>>7, h<<1&0xFF
	k := min(max(e-124, 0), 7) | (l>>6)<<4
	if l&0x3E != 0 {
		k |= 8
	}
	return k
}

// f16Value is the value of the finite FLOAT16 magnitude h.
func f16Value(h int) float64 {
	e, m := h>>10, h&0x3FF
	if e == 0 {
		return math.Ldexp(float64(m), -24)
	}
	return math.Ldexp(float64(0x400|m), e-25)
}

// halfF4Table is halfToF4Bytes's table: entry i is the FLOAT4E2M1
// magnitude code of a value with key i (entries no input reaches hold 7).
// It panics unless the kernel's keys give f4Code for every finite magnitude
// of the format.
func halfF4Table(bf16 bool) []byte {
	value := f16Value
	if bf16 {
		value = func(h int) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }
	}
	tab := make([]byte, 64)
	for i := range tab {
		tab[i] = 7
	}
	seen := make([]bool, 64)
	finite := 0x7C00
	if bf16 {
		finite = 0x7F80
	}
	for h := range finite {
		k, want := halfF4Key(bf16, h), f4Code(value(h))
		if seen[k] && tab[k] != want {
			panic(fmt.Sprintf("halfF4Table(%v): %#04x gives code %d, another input of key %d %d", bf16, h, want, k, tab[k]))
		}
		tab[k], seen[k] = want, true
	}
	return tab
}

// f4FromHalf returns the f4 codes of a 16-bit float with mant mantissa bits
// and exponent bias (FLOAT16, BFLOAT16), from the magnitude bits ab:
//
//   - r: ab rounded to nearest even at its top mantissa bit, shifted down
//     to 2e+m (e the biased exponent, m the kept bit), minus 2·bias-2 (so
//     1.0 gives FLOAT4E2M1's code 2), by one arithmetic shift: for
//     magnitudes ≥ 1 this is the code (FLOAT4E2M1's normal numbers have
//     the same one-bit mantissa), and below 1 it is at most the code.
//   - below 1 the code is [ab > 0.25] + [ab ≥ 0.75] (FLOAT4E2M1's
//     subnormal 0.5; the ties 0.25 and 0.75 go to the even codes 0 and 2),
//     at most 2 from 1 on: the code is max(r, that), then at most 7
//     (saturation, ±Inf included), or 8 for NaN (a compare and a blend),
//     with the sign (bit 15 → bit 3) or'ed in (NaN stays 0x8 either way,
//     as f32ToF4 gives).
//
// AVX2 compares with signed VPCMPGTW (ab ≤ 0x7FFF), 18 instructions per 16
// elements where saturating subtractions clamped to 1 took 20; AVX-512
// converts in bytes instead (halfToF4Bytes).
func f4FromHalf(mant, bias int) func(a *Asm) func(h VecVirtual) VecVirtual {
	return func(a *Asm) func(h VecVirtual) VecVirtual { return halfF4Codes(a, mant, bias) }
}

// halfF4Codes is f4FromHalf's code.
func halfF4Codes(a *Asm, mant, bias int) func(h VecVirtual) VecVirtual {
	drop := mant - 1
	bits := func(v float64) uint16 { // v's bits in the format (v a power of two times 1 or 1.5)
		f := math.Float32bits(float32(v))
		e := int(f>>23&0xFF) - 127 + bias
		return uint16(e<<mant) | uint16(f>>(23-mant)&(1<<mant-1))
	}
	inf := uint16((2*bias + 1) << mant)
	add := uint16(1<<(drop-1) - 1 - (2*bias-2)<<drop) // wraps: ab + add is signed
	if a.isa == AVX512 {
		panic("f4FromHalf: AVX-512 converts FLOAT16 and BFLOAT16 in bytes (halfToF4Bytes)")
	}
	abs, lsb, addc := a.splat16(0x7FFF), a.splat16(1), a.splat16(add)
	q, t3 := a.splat16(bits(0.25)), a.splat16(bits(0.75)-1)
	infc, seven, eight := a.splat16(inf), a.splat16(7), a.splat16(8)
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	return func(h VecVirtual) VecVirtual {
		ab, t, r, u, v := a.Vec(), a.Vec(), a.Vec(), a.Vec(), a.Vec()
		a.And(abs, h, ab)
		a.VPSRLW(U8(drop), ab, t)
		a.And(lsb, t, t)
		a.VPADDW(addc, ab, r)
		a.VPADDW(t, r, r)
		a.VPSRAW(U8(drop), r, r)
		// Below 1: (ab > 0.25) + (ab ≥ 0.75) from two signed
		// compares (ab ≤ 0x7FFF), each -1 or 0.
		a.VPCMPGTW(q, ab, u)
		a.VPCMPGTW(t3, ab, v)
		a.VPSUBW(u, zero, u)
		a.VPSUBW(v, u, u)
		a.VPMAXSW(u, r, r)
		a.VPMINSW(seven, r, r) // 6 and up, ±Inf: 7
		a.VPCMPGTW(infc, ab, u)
		a.VPBLENDVB(u, eight, r, r) // NaN: 8
		a.VPSRLW(U8(12), h, t)
		a.signBit3(t, eight, r)
		return r
	}
}

// halfFields returns the mantissa bits and exponent bias of the 16-bit
// float source f (FLOAT16, BFLOAT16), ok false for the others.
func halfFields(f fusedSrc) (mant, bias int, ok bool) {
	switch f.short {
	case fsF16.short:
		return 10, 15, true
	case fsBF.short:
		return 7, 127, true
	}
	return 0, 0, false
}

// f4Code is FLOAT4E2M1's magnitude code of v ≥ 0 from the format's
// definition: the nearest of its values (ties to the even code), 6 (code 7)
// beyond.
func f4Code(v float64) byte {
	vals := []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}
	best := 7
	for c := 6; c >= 0; c-- {
		mid := (vals[c] + vals[c+1]) / 2
		if v < mid || v == mid && c%2 == 0 {
			best = c
		}
	}
	return byte(best)
}

// splat16 is Splat of a 16-bit value.
func (a *Asm) splat16(v uint16) Op { return a.Splat(uint32(v) | uint32(v)<<16) }

// splat8 is Splat of v in every byte.
func (a *Asm) splat8(v uint8) Op { return a.Splat(uint32(v) * 0x01010101) }

// signBit3 ors t&8 (the sign, shifted to bit 3 of each word) into r.
func (a *Asm) signBit3(t VecVirtual, eight Op, r VecVirtual) {
	if a.isa == AVX512 {
		a.VPTERNLOGD(Tern(func(r, t, e uint8) uint8 { return r | t&e }), eight, t, r)
		return
	}
	a.And(eight, t, t)
	a.Or(t, r, r)
}

// f4FromInt16 returns the f4 codes of INT16 or UINT16: the magnitude,
// clamped to 7 (unsigned: INT16's -32768 has magnitude 0x8000), looked up
// in the codes of 0..7 by VPSHUFB (the zero high byte of each word looks up
// entry 0, the code of 0), with the sign as bit 3.
func f4FromInt16(signed bool) func(a *Asm) func(h VecVirtual) VecVirtual {
	return func(a *Asm) func(h VecVirtual) VecVirtual {
		var tab [64]byte
		for i := range tab {
			tab[i] = []byte{0, 2, 4, 5, 6, 6, 7, 7, 0, 0, 0, 0, 0, 0, 0, 0}[i%16]
		}
		codes := a.ConstBytes("f4_int_codes", tab[:])
		seven, eight := a.splat16(7), a.splat16(8)
		return func(h VecVirtual) VecVirtual {
			m, r := a.Vec(), a.Vec()
			if signed {
				a.VPABSW(h, m)
			} else {
				m = h
			}
			a.VPMINUW(seven, m, r)
			a.VPSHUFB(r, codes, r)
			if signed {
				a.VPSRLW(U8(12), h, m)
				a.signBit3(m, eight, r)
			}
			return r
		}
	}
}

// exactF16 is the FLOAT16 of v, a normal FLOAT16 value or ±0.
func exactF16(v float32) uint16 {
	b := math.Float32bits(v)
	h := uint16(b>>16) & 0x8000
	if b&0x7FFFFFFF == 0 {
		return h
	}
	return h | uint16((b>>23&0xFF)-127+15)<<10 | uint16(b>>13&0x3FF)
}

// exactBF16 is the BFLOAT16 of v, a value with at most 8 significant bits.
func exactBF16(v float32) uint16 { return uint16(math.Float32bits(v) >> 16) }

// exactInt is v truncated toward zero, modulo 2^16.
func exactInt(v float32) uint16 { return uint16(int16(v)) }

// blockCodesAVX2 is blockCodes on AVX2: after packGroups, 128-bit lane L
// holds, at bytes 4j.., the packed bytes (1 for 2-bit, 2 for 4-bit: the
// low bytes of its dword, or of its two words) of the elements 4L..4L+3 of
// vector j, which go to unit 2j+L of the output. One VPSHUFB puts each
// lane's units at their output places (the other lane's places zero), and
// the two lanes are or'ed together.
func blockCodesAVX2(a *Asm, code func(x VecVirtual) VecVirtual, to fusedDst, w1, w2 VecVirtual) func(xs []VecVirtual, s *Step) {
	u := 1 // bytes per unit
	if to.bits == 4 {
		u = 2
	}
	ctl := make([]byte, 32)
	for i := range ctl {
		ctl[i] = 0x80
	}
	for l := range 2 {
		for j := range 4 {
			for k := range u {
				ctl[16*l+(2*j+l)*u+k] = byte(4*j + 2*k)
			}
		}
	}
	shuf := a.DataBytes(fmt.Sprintf("fused_units_%d", to.bits), ctl)
	return func(xs []VecVirtual, s *Step) {
		b := packGroups(a, xs, code, to, w1, w2)
		a.VPSHUFB(shuf, b, b)
		hi := a.XMM()
		a.VEXTRACTI128(U8(1), b, hi)
		a.VPOR(hi, b.AsX(), b.AsX())
		s.StoreLow(b.AsX().(VecVirtual), 8*u, s.Dst, 8, nil)
	}
}

// The narrowing snippets.

// narrowInt: VCVTTPS2DQ alone where the source's truncBits allow it (see
// there), else numeric.go's floatToInt (FLOAT → 8- to 32-bit integers).
func narrowInt(t num) func(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual, s *Step, k Register) {
	return func(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual, s *Step, k Register) {
		size := a.Lanes32() * t.bytes()
		if t.bits > from.truncBits {
			conv := numStage{tF32, t, floatToInt}.floatToInt32(a)
			return func(x VecVirtual, s *Step, k Register) {
				s.StoreLow(conv(x, s), size, s.Dst, t.bits, k)
			}
		}
		nw := a.narrower(32, t.bits)
		return func(x VecVirtual, s *Step, k Register) {
			a.VCVTTPS2DQ(x, x)
			s.StoreLow(nw(x), size, s.Dst, t.bits, k)
		}
	}
}

// narrowInt64 is FLOAT16, BFLOAT16 → INT64/UINT64 on AVX2. Every FLOAT16
// value truncates into 32 bits (below 2^16 in magnitude), so VCVTTPS2DQ,
// with the NaN and ±Inf lanes cleared (the reference's 0), sign-extended
// by VPMOVSXDQ, where the plan went through a FLOAT block: 0.41-0.54 →
// 1.13-1.25× copy() (Zen 3). BFLOAT16 reaches 2^31 and beyond: FLOAT →
// INT64's kernel (f32ToInt64AVX2, the same in line where no lane does),
// where the plan stored a FLOAT block between the two: 1.9 → 4.5
// elements/ns (Zen 3).
func narrowInt64(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual, s *Step, k Register) {
	if a.isa != AVX2 {
		panic("narrowInt64: AVX2 only")
	}
	if from.truncBits < 31 { // BFLOAT16
		t := tI64
		if to.short == "U64" {
			t = tU64
		}
		conv := numStage{tF32, t, floatToInt}.f32ToInt64AVX2(a)
		return func(x VecVirtual, s *Step, k Register) { conv(x, s) }
	}
	abs, limit := a.Splat(0x7FFFFFFF), a.Splat(0x4F000000) // 2^31
	return func(x VecVirtual, s *Step, k Register) {
		m, q := a.YMM(), a.YMM()
		a.VANDPS(abs, x, m)
		a.VCMPPS(U8(1), limit, m, m) // |x| < 2^31: false for NaN, ±Inf
		a.VCVTTPS2DQ(x, q)
		a.VPAND(m, q, q)
		a.storeInt64s(q, s)
	}
}

// storeInt64s stores the 8 INT32 lanes of q at s.Dst sign-extended to
// INT64 (AVX2).
func (a *Asm) storeInt64s(q VecVirtual, s *Step) {
	hi, w0, w1 := a.XMM(), a.YMM(), a.YMM()
	a.VEXTRACTI128(U8(1), q, hi)
	a.VPMOVSXDQ(q.AsX(), w0)
	a.VPMOVSXDQ(hi, w1)
	s.Store(w0, s.Dst, 64, nil)
	s.Store(w1, s.Dst.Offset(32), 64, nil)
}

// The packed targets produce codes: one 32-bit lane per element holding its
// target bits (and nothing above them), packed into bytes per vector by
// packCodes, or, in the unrolled main step, four vectors at a time by
// packBlock.

// codesInt: f32ToI4's VCVTTPS2DQ (the low bits of 0x80000000, given for
// magnitudes ≥ 2^31 and NaN, are the reference's: every float32 of
// magnitude ≥ 2^31 is a multiple of 2^8, and NaN gives 0), keeping the low
// bits.
func codesInt(a *Asm, _ fusedSrc, to fusedDst) func(x VecVirtual) VecVirtual {
	low := a.Const32(1<<to.bits - 1)
	return func(x VecVirtual) VecVirtual {
		a.VCVTTPS2DQ(x, x)
		a.And(low, x, x)
		return x
	}
}

// codesF4: f32ToF4's algorithm (narrowMag with float4Params, then the
// sign, and 0x8 for NaN).
func codesF4(a *Asm, _ fusedSrc, _ fusedDst) func(x VecVirtual) VecVirtual {
	adj := uint32(126<<1) << 22
	bias := 1<<21 - 1 - adj // wraps, as in loadF8
	c := &f8Consts{
		cnt: U8(22), lsb: a.Splat(1 << 22), bias: a.Splat(bias), minNormal: a.Const32(127 << 23),
		magic: a.Splat(math.Float32bits(0x1p22)), overflow: a.Splat(7), nan: a.Splat(8),
		abs: a.Splat(0x7FFFFFFF), inf: a.Splat(0x7F800000),
	}
	eight := a.Splat(8)
	return func(x VecVirtual) VecVirtual {
		sgn := a.ZMM()
		ab, r := a.narrowMag(c, x)
		a.VPSRLD(U8(28), x, sgn)
		a.And(eight, sgn, sgn)
		a.Or(sgn, r, r)
		a.pickGT(ab, c.inf, c.nan, r)
		return r
	}
}

// narrowCodes returns the narrowing of a packed target: its codes, packed
// by nibblePairs (4-bit) or, for 2 bits, by i8ToI2's multiply-adds on the
// 16 code bytes.
func narrowCodes(codes func(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual) VecVirtual) func(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual, s *Step, k Register) {
	return func(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual, s *Step, k Register) {
		code := codes(a, from, to)
		if to.bits == 4 {
			c0F, cF0 := a.Splat(0x0F), a.Splat(0xF0)
			return func(x VecVirtual, s *Step, k Register) {
				a.nibblePairs(s, code(x), c0F, cF0)
			}
		}
		w14, w116 := a.Splat(0x04010401), a.Splat(0x00100001)
		return func(x VecVirtual, s *Step, k Register) {
			x = code(x)
			b := x.AsX().(VecVirtual)
			a.VPMOVDB(x, b)
			a.VPMADDUBSW(sized(w14.(VecVirtual), 16), b, b)
			a.VPMADDWD(sized(w116.(VecVirtual), 16), b, b)
			a.VPMOVDB(b, b)
			s.StoreLow(b, 4, s.Dst, 8, k)
		}
	}
}

// packGroups replaces the four vectors xs by their codes and packs them to
// bytes by VPACKUSDW and VPACKUSWB (no saturation: codes are below 16),
// which leaves 128-bit lane L holding the elements 4L..4L+3 of each vector
// in turn, then combines the bytes of a group (2 or 4) by multiply-adds
// (weights w1 = 1, 16; or w1 = 1, 4, then w2 = 1, 16) into the low bytes
// of its word or dword.
func packGroups(a *Asm, xs []VecVirtual, code func(x VecVirtual) VecVirtual, to fusedDst, w1, w2 VecVirtual) VecVirtual {
	for i := range xs {
		xs[i] = code(xs[i])
	}
	p0, p1, b := a.Vec(), a.Vec(), a.Vec()
	a.VPACKUSDW(xs[1], xs[0], p0)
	a.VPACKUSDW(xs[3], xs[2], p1)
	a.VPACKUSWB(p1, p0, b)
	a.VPMADDUBSW(w1, b, b)
	if to.bits == 2 {
		a.VPMADDWD(w2, b, b)
	}
	return b
}

// blockCodes returns the narrowing of a packed target for the unrolled main
// step, four vectors xs of 16 elements at once: their codes in groups
// (packGroups), the dwords transposed back into element order by VPERMD,
// and narrowed (VPMOVWB, VPMOVDB) into one store.
func blockCodes(codes func(a *Asm, from fusedSrc, to fusedDst) func(x VecVirtual) VecVirtual) func(a *Asm, from fusedSrc, to fusedDst) func(xs []VecVirtual, s *Step) {
	return func(a *Asm, from fusedSrc, to fusedDst) func(xs []VecVirtual, s *Step) {
		code := codes(a, from, to)
		var w1, w2 VecVirtual
		if to.bits == 4 {
			w1 = a.Const32(0x10011001)
		} else {
			w1, w2 = a.Const32(0x04010401), a.Const32(0x00100001)
		}
		var idx [16]uint32
		for l := range 4 {
			for j := range 4 {
				idx[4*j+l] = uint32(4*l + j)
			}
		}
		if a.isa == AVX2 {
			return blockCodesAVX2(a, code, to, w1, w2)
		}
		perm := a.ConstTable("fused_transpose", idx[:])
		return func(xs []VecVirtual, s *Step) {
			b := packGroups(a, xs, code, to, w1, w2)
			a.VPERMD(b, perm, b)
			if to.bits == 4 {
				a.VPMOVWB(b, Half(b))
				s.Store(Half(b), s.Dst, 8, nil)
			} else {
				a.VPMOVDB(b, b.AsX())
				s.Store(b.AsX().(VecVirtual), s.Dst, 8, nil)
			}
		}
	}
}

// narrowF16: VCVTPS2PH, round to nearest even (as f32ToF16).
func narrowF16(a *Asm, _ fusedSrc, _ fusedDst) func(x VecVirtual, s *Step, k Register) {
	return func(x VecVirtual, s *Step, k Register) {
		a.VCVTPS2PH(U8(0), x, Half(x))
		s.StoreLow(Half(x), 2*a.Lanes32(), s.Dst, 16, k)
	}
}

// narrowF64: VCVTPS2PD of each half (exact; a NaN is quieted with its
// sign and payload kept, as FLOAT → DOUBLE does, so a source whose widening
// leaves a NaN unquieted gives the two-step plan's bits). AVX2 only, whose
// steps are full vectors (k is nil).
func narrowF64(a *Asm, _ fusedSrc, _ fusedDst) func(x VecVirtual, s *Step, k Register) {
	if a.isa != AVX2 {
		panic("narrowF64: AVX2 only (fusedStages)")
	}
	return func(x VecVirtual, s *Step, k Register) {
		if k != nil {
			panic("narrowF64: AVX2 steps have no mask")
		}
		lo, hi, h := a.YMM(), a.YMM(), a.XMM()
		a.VCVTPS2PD(Half(x), lo)
		a.VEXTRACTF128(U8(1), x, h)
		a.VCVTPS2PD(h, hi)
		s.StoreLow(lo, 32, s.Dst, 64, nil)
		s.StoreLow(hi, 32, s.Dst.Offset(32), 64, nil)
	}
}

// bf16Round is f32ToBF16's rounding without its NaN rule, for sources
// without NaN (the table has no other): x + 0x7FFF + (x>>16)&1, whose high
// word is the BFLOAT16 rounded to nearest even. The returned function
// rounds x in place; the high words are then gathered by VPERMW (or, two
// vectors at a time, VPERMT2W) with the odd-word index, as f32ToBF16 does.
func bf16Round(a *Asm, from fusedSrc) (round func(x VecVirtual), odd VecVirtual) {
	nan := func(x VecVirtual) {}
	if a.isa == AVX2 && from.short == fsF64.short {
		nan = nanBF16(a)
	} else {
		noNaN(from)
	}
	if a.isa == AVX2 && (from.short == fsI64.short || from.short == fsU64.short) {
		return func(x VecVirtual) {}, nil // rounded already (bf16Of64AVX2)
	}
	if veltkampBF16(a, from) {
		// The float32 of a 16-bit integer is exact, below 2^16 in
		// magnitude: Veltkamp's split with its second subtraction fused,
		// c = x·(2^16+1), x = c − x·2^16 (VFNMADD231PS, one rounding),
		// rounds it to 24 − 16 = 8 significant bits, to nearest even (as
		// i16f8.go's kernels do at 3 and 4; TestPlansEveryNarrowSource
		// checks all 2^16 inputs), and the shift after takes its high
		// half whole: two instructions where the integer rounding took
		// four. Zen 3, 64 Ki elements, seven runs each way side by side:
		// INT16/UINT16 → BFLOAT16 0.28-0.41 → 0.35-0.41× copy(). Without
		// FMA these pairs take their route through FLOAT.
		sigma, shift := a.Splat(math.Float32bits(0x1p16+1)), a.Splat(math.Float32bits(0x1p16))
		return func(x VecVirtual) {
			c := a.Vec()
			a.VMULPS(sigma, x, c)
			a.VFNMADD132PS(shift, c, x) // x = c − x·2^16
		}, nil
	}
	lsb, bias := a.Splat(1), a.Splat(0x7FFF)
	if a.isa == AVX512 {
		odd = a.ConstWords("oddwords", seq(1, 2, 1, 32))
	}
	return func(x VecVirtual) {
		nan(x)
		t := a.Vec()
		a.VPSRLD(U8(16), x, t)
		a.And(lsb, t, t)
		a.VPADDD(bias, x, x)
		a.VPADDD(t, x, x)
	}, odd
}

// veltkampBF16 reports whether bf16Round rounds by Veltkamp's split (AVX2,
// INT16 and UINT16, which then need FMA).
func veltkampBF16(a *Asm, from fusedSrc) bool {
	return a.isa == AVX2 && (from.short == fsI16.short || from.short == fsU16.short)
}

// nanBF16 replaces the NaN lanes of x (AVX2) by their sign | 0x7FC00000
// (quietNaNs, the steps f32ToBF16AVX2 takes out of line), which bf16Round
// turns into f32ToBF16's NaN.
func nanBF16(a *Asm) func(x VecVirtual) {
	quiet := a.quietNaNs()
	return func(x VecVirtual) {
		m := a.YMM()
		a.VCMPPS(U8(cmpUnord), x, x, m) // NaN
		quiet(x, m)
	}
}

// narrowBF16: bf16Round, one vector (AVX2: the high words by a shift, an
// in-lane VPACKUSDW and VPERMQ).
func narrowBF16(a *Asm, from fusedSrc, _ fusedDst) func(x VecVirtual, s *Step, k Register) {
	round, odd := bf16Round(a, from)
	if a.isa == AVX2 {
		return func(x VecVirtual, s *Step, k Register) {
			round(x)
			a.VPSRLD(U8(16), x, x)
			a.VPACKUSDW(x, x, x)
			a.VPERMQ(U8(0b1000), x, x) // qwords 0, 2
			s.StoreLow(x, 16, s.Dst, 16, nil)
		}
	}
	return func(x VecVirtual, s *Step, k Register) {
		round(x)
		a.VPERMW(x, odd, x)
		s.StoreLow(Half(x), 32, s.Dst, 16, k)
	}
}

// blockBF16: bf16Round, four vectors, gathered in pairs (AVX-512: by
// VPERMT2W; AVX2: the high words shifted down, VPACKUSDW of two vectors
// in-lane, VPERMQ: a 32-byte store where narrowBF16 packs half a vector).
func blockBF16(a *Asm, from fusedSrc, _ fusedDst) func(xs []VecVirtual, s *Step) {
	round, odd := bf16Round(a, from)
	if a.isa == AVX2 {
		return func(xs []VecVirtual, s *Step) {
			for _, x := range xs {
				round(x)
				a.VPSRLD(U8(16), x, x)
			}
			for i := 0; i < len(xs); i += 2 {
				a.VPACKUSDW(xs[i+1], xs[i], xs[i])
				a.VPERMQ(U8(0b11_01_10_00), xs[i], xs[i])
				s.Store(xs[i], s.Dst.Offset(16*i), 16, nil)
			}
		}
	}
	return func(xs []VecVirtual, s *Step) {
		for _, x := range xs {
			round(x)
		}
		for i := 0; i < len(xs); i += 2 {
			a.VPERMT2W(xs[i+1], odd, xs[i])
			s.Store(xs[i], s.Dst.Offset(32*i), 16, nil)
		}
	}
}

// noNaN stops the generator for a source with NaN (or ±Inf) in a
// BFLOAT16 row, which bf16Round and VCVTNE2PS2BF16 would convert wrongly.
func noNaN(from fusedSrc) {
	if from.special {
		panic("fused → BFLOAT16: a source with NaN: " + from.short)
	}
}

// narrowBF16HW is narrowBF16 by VCVTNE2PS2BF16 (AVX512_BF16), and
// blockBF16HW blockBF16, one instruction per two vectors where the integer
// rounding takes four per vector and VPERMT2W gathers. It rounds to
// nearest even whatever MXCSR says, as bf16Round does, but flushes
// float32 subnormals and keeps NaN payloads: the integer sources have
// neither (0 or at least 1, exact or rounded to odd), nor has FLOAT4E2M1
// (its smallest magnitude is 0.5); DOUBLE's round to odd has both, and its
// pairs of vectors are classified (bf16HWConv). Every tier's exhaustive
// tests hold to it.
func narrowBF16HW(a *Asm, from fusedSrc, _ fusedDst) func(x VecVirtual, s *Step, k Register) {
	conv := bf16HWConv(a, from)
	var zero VecVirtual
	if from.special {
		zero = a.Vec()
		a.VPXORD(zero, zero, zero) // the high half: neither NaN nor subnormal
	}
	return func(x VecVirtual, s *Step, k Register) {
		y := a.Vec()
		hi := x
		if zero != nil {
			hi = zero // the fix must not change x twice
		}
		conv(x, hi, y) // x's in the low half
		s.StoreLow(Half(y), 32, s.Dst, 16, k)
	}
}

func blockBF16HW(a *Asm, from fusedSrc, _ fusedDst) func(xs []VecVirtual, s *Step) {
	conv := bf16HWConv(a, from)
	return func(xs []VecVirtual, s *Step) {
		for i := 0; i < len(xs); i += 2 {
			y := a.Vec()
			conv(xs[i], xs[i+1], y) // xs[i] in the low half
			s.Store(y, s.Dst.Offset(32*i), 16, nil)
		}
	}
}

// bf16HWConv returns the VCVTNE2PS2BF16 conversion of two vectors for the
// source from: plain, or classified (bf16Classified) for a source whose
// float32 lanes may be NaN or subnormal.
func bf16HWConv(a *Asm, from fusedSrc) func(x0, x1, y VecVirtual) {
	a.Needs("AVX512_BF16")
	if from.special {
		return a.bf16Classified()
	}
	return func(x0, x1, y VecVirtual) { a.VCVTNE2PS2BF16(x0, x1, y) }
}

// vecGroups is the number of groups a vector step converts: a step of
// the single loop, and what an AVX2 wrapper pads its rest to. AVX2 packs
// 2-bit targets four vectors at a time only (blockCodes).
func (st fusedStage) vecGroups() int {
	if st.isa == AVX2 && st.to.bits == 2 {
		return 4 * st.Lanes()
	}
	if st.to.short == fdF4.short && st.from.f4 != nil && st.isa == AVX2 {
		return 4 * st.Lanes() // f4Codes16: two vectors of pairs a step
	}
	if st.wordTable() || st.to.short == fdF4.short && st.from.f4 != nil {
		return 2 * st.Lanes() // pairs of elements in 16-bit lanes: a vector of float32 lanes holds as many
	}
	return st.Lanes()
}

// fusedGlue writes the Go side of the fused stages into b: their
// registration under the extensions each family's functions use, and a
// wrapper per stage. The assembly converts whole groups (AVX-512, its tail
// masked) or whole vectors (AVX2); the wrapper converts the rest (a partial
// group; on AVX2 up to a vector less one element) by one more call on a
// zero-padded copy of it, whose result it copies out.
// familyBase is the extension every stage of a family is registered under,
// whatever its function uses: the tier's own.
var familyBase = map[ISA]string{AVX2: "AVX2", AVX512: "AVX512F"}

func fusedGlue(b *bytes.Buffer, used funcISA) error {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("// The fused SIMD stages (gen/amd64/fused.go, fusedTable), each under the\n")
	p("// extensions its function uses.\n\n")
	p("func init() {\n")
	for _, isa := range []ISA{AVX2, AVX512} {
		// The hwBF16 stages' blocks come after every other, whose
		// registration of the same pairs they replace.
		for _, hw := range []bool{false, true} {
			var conds []string
			byCond := map[string][]fusedStage{}
			for _, st := range fusedStages() {
				if st.isa != isa || st.hwBF16 != hw {
					continue
				}
				cond, err := extCond(append(slices.Clone(used[st.Name()]), familyBase[isa]))
				if err != nil {
					return fmt.Errorf("fused stage %s: %w", st.Name(), err)
				}
				if _, seen := byCond[cond]; !seen {
					conds = append(conds, cond)
				}
				byCond[cond] = append(byCond[cond], st)
			}
			for _, cond := range conds {
				p("\tif %s {\n", cond)
				for _, st := range byCond[cond] {
					p("\t\tregisterStage(%q, %s, %s, %s)\n", tierNames[isa], st.from.goName, st.to.goName, st.Wrapper())
				}
				p("\t}\n")
			}
		}
	}
	p("}\n\n")
	for _, st := range fusedStages() {
		g := st.group()
		pad := 1 // groups converted from the padded copy
		if st.isa == AVX2 {
			pad = st.vecGroups()
		}
		p("// %s converts %s → %s in one pass: the entry {%s, %s} of gen/amd64's\n", st.Wrapper(), strings.ToUpper(st.from.goName), strings.ToUpper(st.to.goName), st.from.short, st.to.short)
		if st.isa == AVX512 {
			p("// fusedTable on AVX-512, %d elements a vector, the last ones under masks.\n", g*st.vecGroups())
		} else {
			p("// fusedTable on AVX2, %d elements a step, the last ones from a padded copy.\n", g*st.vecGroups())
		}
		p("func %s(dst, src []byte, n int) {\n", st.Wrapper())
		p("\tsrc, dst = src[:%s.Size(n)], dst[:%s.Size(n)]\n", st.from.goName, st.to.goName)
		p("\traceRead(src)\n\traceWrite(dst)\n")
		if g == 1 && pad == 1 {
			p("\t%s(unsafe.SliceData(dst), unsafe.SliceData(src), n)\n", st.Name())
			p("}\n\n")
			continue
		}
		p("\tq := n / %d\n", g*pad*1)
		if pad > 1 {
			p("\tq *= %d // whole vectors' groups\n", pad)
			p("\tif q > 0 {\n\t\t%s(unsafe.SliceData(dst), unsafe.SliceData(src), q)\n\t}\n", st.Name())
		} else {
			p("\t%s(unsafe.SliceData(dst), unsafe.SliceData(src), q)\n", st.Name())
		}
		p("\tif r := n - %d*q; r > 0 { // zero-padded\n", g)
		p("\t\tvar s [%d]byte\n\t\tvar d [%d]byte\n", pad*st.srcBytes(), pad*st.dstBytes())
		p("\t\tcopy(s[:], src[%s.Size(%d*q):])\n", st.from.goName, g)
		p("\t\t%s(&d[0], &s[0], %d)\n", st.Name(), pad)
		p("\t\tcopy(dst[%s.Size(%d*q):], d[:%s.Size(r)])\n", st.to.goName, g, st.to.goName)
		p("\t}\n")
		p("}\n\n")
	}
	return nil
}
