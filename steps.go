package tensorcast

import (
	"math"
	"math/bits"
	"runtime"
	"sync"
)

// The steps that plans are made of (plan.go). Each constructor returns the
// step of one conversion: a kernel of the kernel table where one exists, a
// SIMD stage of the registry (stage.go) for the classic pairs, or a portable
// Go loop below.

// copyStep copies same-type data bit for bit (clearing a packed last byte's
// padding); BOOL → BOOL normalises to 0/1 instead.
func copyStep(t DataType) *step {
	if t == Bool {
		return classicStep(Bool, Bool)
	}
	return &step{
		name: t.String() + " bits (copy)",
		run: func(_ *kernelSet, dst, src []byte, n int, _ Options) {
			copy(dst[:t.Size(n)], src[:t.Size(n)])
			clearPadding(dst, t, n)
		},
		tier: func(*kernelSet) string { return "copy" },
	}
}

// hotPair reports whether the kernel table has a kernel for from → to.
func hotPair(from, to DataType) bool {
	switch from {
	case Float:
		switch to {
		case Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1, Int4, Uint4:
			return true
		}
	case Float16, BFloat16:
		switch to {
		case Float, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
			return true
		}
	case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1:
		return to == Float
	case Int8, Uint8:
		return to == Int4 || to == Uint4
	case Int4, Uint4:
		return to == Int8 || to == Uint8
	}
	return false
}

// hotStep is the kernel-table step of a hot pair (castHot in route.go).
func hotStep(from, to DataType) *step {
	return &step{
		name: from.String() + " -> " + to.String(),
		run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
			castHot(k, dst, to, src, from, n, opt)
		},
		tier: func(k *kernelSet) string { return hotTier(k, from, to) },
	}
}

// hotTier names the tier of the kernel that castHot uses for from → to.
func hotTier(k *kernelSet, from, to DataType) string {
	switch from {
	case Float:
		switch to {
		case Float16:
			return k.f32ToF16.tier
		case BFloat16:
			return k.f32ToBF16.tier
		case Float8E8M0:
			return k.f32ToE8M0.tier
		case Float4E2M1:
			return k.f32ToF4.tier
		case Int4, Uint4:
			return k.f32ToI4.tier
		}
		return k.f32ToF8.tier
	case Float16:
		if to == Float {
			return k.f16ToF32.tier
		}
		return k.f16ToF8.tier
	case BFloat16:
		if to == Float {
			return k.bf16ToF32.tier
		}
		return k.bf16ToF8.tier
	case Float4E2M1:
		return k.f4ToF32.tier
	case Int8, Uint8:
		return k.i8ToI4.tier
	case Int4:
		return k.i4ToI8.tier
	case Uint4:
		return k.u4ToU8.tier
	}
	return k.f8ToF32.tier
}

// tieredStage is a registered SIMD stage and the tier that provides it.
type tieredStage struct {
	fn   stageFunc
	tier string
}

// stageTable holds, for one kernel table, the best registered stage of each
// pair (direct) and each round-to-odd source (odd).
type stageTable struct {
	direct [numTypes][numTypes]tieredStage
	odd    [numTypes]tieredStage
	// useTable: the pair converts by its table step on this tier, as a
	// step of its composed plan would run as portable Go.
	useTable [numTypes][numTypes]bool
	// usePivot: the pair converts by its route through FLOAT on this tier
	// (plan.pivot), as its table kernel is slow here.
	usePivot [numTypes][numTypes]bool
}

// resolveStages gives every kernel table of `tiers` (and its streaming twin)
// the stages registered at or below its tier. It runs once, after every
// init has registered its stages.
var resolveStages = sync.OnceFunc(func() {
	for i, k := range tiers {
		t := new(stageTable)
		for _, lower := range tiers[:i+1] {
			for p, fn := range simdStages[lower.tier] {
				t.direct[p.from][p.to] = tieredStage{fn, lower.tier}
			}
			for from, fn := range simdOddStages[lower.tier] {
				t.odd[from] = tieredStage{fn, lower.tier}
			}
		}
		for p, fn := range simdTierStages[k.tier] {
			if t.direct[p.from][p.to].fn == nil || t.direct[p.from][p.to].tier != k.tier {
				t.direct[p.from][p.to] = tieredStage{fn, k.tier}
			}
		}
		for _, lower := range tiers[:i] {
			for p, fn := range simdTierStages[lower.tier] {
				if sharesTierStage(k, lower.tier, p) {
					t.direct[p.from][p.to] = tieredStage{fn, lower.tier}
				}
			}
		}
		k.stages = t
		// Two passes: a two-step plan's tier depends on the one-step plans
		// it runs (planStep), decided in the first pass.
		for range 2 {
			for from := range plans {
				for to, p := range plans[from] {
					if p == nil || p.table == nil || p.direct && t.direct[from][to].fn != nil {
						continue
					}
					steps := p
					if p.pivot != nil && p.a.tier(k) == "" { // no fused kernel here: the route through FLOAT runs
						steps = p.pivot
					}
					t.useTable[from][to] = steps.a.tier(k) == "generic" || steps.b != nil && steps.b.tier(k) == "generic"
				}
			}
		}
		for from := range plans {
			for to, p := range plans[from] {
				if p != nil && p.pivot != nil && !t.useTable[from][to] {
					simd := p.pivot.a.tier(k) != "generic" && p.pivot.b.tier(k) != "generic"
					// No kernel for the step; a table kernel slower than the
					// pivot; or a portable fused kernel on a SIMD tier.
					t.usePivot[from][to] = p.a.tier(k) == "" || simd && (slowLut(k, DataType(from), DataType(to)) ||
						p.a.tier(k) == "generic" && k.tier != "generic")
				}
			}
		}
		if s := streamingSets[k]; s != nil {
			s.stages = t
		}
	}
})

// slowLut reports whether k's table kernel for from → to is slower than the
// route through FLOAT: on AVX2, a 256-entry 16-bit lookup is two trees of 16
// VPSHUFB and 15 blends (0.13× copy at 64 Ki, AMD EPYC Zen 4), slower than
// the pivot except for the tables its wrapper computes instead of looking
// up (INT8, UINT8, FLOAT8E4M3FN, FLOAT8E5M2 → FLOAT16, BFLOAT16: 0.3-1.1×).
// For 8-bit targets the one tree (0.13×) beats every pivot (0.05-0.13×, the
// same run: the float8 narrowing kernels cost most there). Two-valued
// tables (BOOL's) run select16, not the tree.
func slowLut(k *kernelSet, from, to DataType) bool {
	if to.BitSize() == 8 || k.sel16.fn != nil && tableFor(from, to, Options{}).sel != nil { // two-valued: select16
		return false
	}
	computed := (from == Int8 || from == Uint8 || from == Float8E4M3FN || from == Float8E5M2) && (to == Float16 || to == BFloat16)
	return k.lut16.tier == "avx2" && !computed
}

// classicStep converts between two classic types: the best registered stage
// of k's tier (classic_generic.go registers a portable one for every pair).
func classicStep(from, to DataType) *step {
	return &step{
		name: from.String() + " -> " + to.String(),
		run: func(k *kernelSet, dst, src []byte, n int, _ Options) {
			if t := k.stages; t != nil {
				if s := t.direct[from][to].fn; s != nil {
					s(dst, src, n)
					return
				}
			}
			simdStages["generic"][pairKey{from, to}](dst, src, n) // a kernel table outside `tiers`
		},
		tier: func(k *kernelSet) string {
			if t := k.stages; t != nil && t.direct[from][to].fn != nil {
				return t.direct[from][to].tier
			}
			return "generic"
		},
	}
}

// fromFloatStep converts FLOAT to any numeric type but FLOAT.
func fromFloatStep(to DataType) *step {
	switch {
	case hotPair(Float, to):
		return hotStep(Float, to)
	case classic(to):
		return classicStep(Float, to)
	}
	panic("tensorcast: no FLOAT step to " + to.String()) // INT2, UINT2: planned through INT8
}

// packStep packs bytes whose low bits hold target codes (INT8 or UINT8
// values wrapped, or table codes) into a 4- or 2-bit target.
func packStep(to DataType) *step {
	if to.BitSize() == 4 {
		return &step{name: "bytes -> " + to.String() + " (pack nibbles)",
			run: func(k *kernelSet, dst, src []byte, n int, _ Options) {
				k.i8ToI4.fn(dst[:to.Size(n)], src[:n])
			},
			tier: func(k *kernelSet) string { return k.i8ToI4.tier }}
	}
	return &step{name: "bytes -> " + to.String() + " (pack 2-bit)",
		run: func(k *kernelSet, dst, src []byte, n int, _ Options) {
			k.i8ToI2.fn(dst[:to.Size(n)], src[:n])
		},
		tier: func(k *kernelSet) string { return k.i8ToI2.tier }}
}

// toFloatStep widens a type whose every value is a float32 to FLOAT.
func toFloatStep(from DataType) *step {
	switch {
	case hotPair(from, Float):
		return hotStep(from, Float)
	case classic(from):
		return classicStep(from, Float)
	}
	// INT4, UINT4, INT2, UINT2: the table route (tables.go).
	return tableStep(from, Float)
}

// toFloatOddStep rounds DOUBLE, INT32, UINT32, INT64 or UINT64 to a float32
// by round-to-odd (see plan.go for why the next rounding is then exact).
func toFloatOddStep(from DataType) *step {
	var f func(dst, src []byte, n int)
	switch from {
	case Double:
		f = func(dst, src []byte, n int) {
			d, s := view[uint32](dst, n), view[uint64](src, n)
			d = d[:len(s)]
			for i, v := range s {
				d[i] = uint32(v>>32)&0x80000000 | f64MagToF32Odd(v&^(1<<63))
			}
		}
	case Int64:
		f = func(dst, src []byte, n int) {
			d, s := view[uint32](dst, n), view[uint64](src, n)
			d = d[:len(s)]
			if hwIntToFloat {
				for i, v := range s {
					d[i] = i64ToF32OddHW(int64(v))
				}
				return
			}
			for i, v := range s {
				m := uint64(int64(v) >> 63) // branch-free magnitude: random signs defeat a predictor
				d[i] = uint32(m)&0x80000000 | uintToF32Odd((v^m)-m)
			}
		}
	case Uint64:
		f = func(dst, src []byte, n int) {
			d, s := view[uint32](dst, n), view[uint64](src, n)
			d = d[:len(s)]
			if hwIntToFloat {
				for i, v := range s {
					h := v >> 63 // from 2^63: halve, keeping the dropped bit as a sticky bit
					d[i] = i64ToF32OddHW(int64(v>>h|v&h)) + uint32(h)<<23
				}
				return
			}
			for i, v := range s {
				d[i] = uintToF32Odd(v)
			}
		}
	case Int32:
		f = func(dst, src []byte, n int) {
			d, s := view[uint32](dst, n), view[int32](src, n)
			d = d[:len(s)]
			for i, v := range s {
				d[i] = int32ToF32Odd(int64(v))
			}
		}
	case Uint32:
		f = func(dst, src []byte, n int) {
			d, s := view[uint32](dst, n), view[uint32](src, n)
			d = d[:len(s)]
			for i, v := range s {
				d[i] = int32ToF32Odd(int64(v))
			}
		}
	}
	return &step{
		name: from.String() + " -> FLOAT (round to odd)",
		run: func(k *kernelSet, dst, src []byte, n int, _ Options) {
			if t := k.stages; t != nil {
				if s := t.odd[from].fn; s != nil {
					s(dst, src, n)
					return
				}
			}
			f(dst, src, n)
		},
		tier: func(k *kernelSet) string {
			if t := k.stages; t != nil && t.odd[from].fn != nil {
				return t.odd[from].tier
			}
			return "generic"
		},
	}
}

// f64ToF32Odd rounds DOUBLE bits to float32 bits by round-to-odd:
// magnitudes of 2^128 and more (and Inf) give ±Inf, NaN stays NaN with its
// sign and top payload bits (quieted). Branch-free (random exponents would
// defeat a predictor): the FPU rounds to nearest, the exact comparison of
// the result with the input tells whether it was inexact and whether it
// rounded up (then the truncation is one step below), and the selects of
// the special cases compile to conditional moves.
func f64ToF32Odd(x uint64) uint32 {
	return uint32(x>>32)&0x80000000 | f64MagToF32Odd(x&^(1<<63))
}

// f64MagToF32Odd is f64ToF32Odd of a magnitude a (sign bit clear), small
// enough for the compiler to inline into the loops.
func f64MagToF32Odd(a uint64) uint32 {
	v := math.Float64frombits(a)
	f := float32(v) // to nearest even; may be Inf just below 2^128
	r := math.Float32bits(f)
	if float64(f) > v { // rounded up: the truncation is one step below
		r--
	}
	if float64(f) != v { // inexact: odd
		r |= 1
	}
	if a >= 0x47F0000000000000 { // ≥ 2^128, Inf
		r = 0x7F800000
	}
	if a > 0x7FF0000000000000 { // NaN
		r = 0x7FC00000 | uint32(a>>29)&0x3FFFFF
	}
	return r
}

// intToF32Odd rounds a 64-bit integer (two's complement when signed) to
// float32 bits by round-to-odd, without data-dependent branches: keep the
// top 24 significant bits of the magnitude with the dropped ones or-ed into
// the last (a shift of 0 below 2^24), convert that exactly, and scale by the
// dropped power of two in the exponent field.
func intToF32Odd(u uint64, signed bool) uint32 {
	if signed {
		m := uint64(int64(u) >> 63)
		return uint32(m)&0x80000000 | uintToF32Odd((u^m)-m)
	}
	return uintToF32Odd(u)
}

// uintToF32Odd is intToF32Odd of a magnitude, small enough for the
// compiler to inline into the loops.
func uintToF32Odd(u uint64) uint32 {
	s := 40 - bits.LeadingZeros64(u) // bits to drop, so 24 remain
	if s < 0 {
		s = 0
	}
	dropped := u << (64 - uint(s)) // 0 when s == 0: Go's shift by 64 gives 0
	m := u>>uint(s) | (dropped|-dropped)>>63
	return math.Float32bits(float32(int64(m))) + uint32(s)<<23 // m < 2^24: exact
}

// hwIntToFloat is true where Go's int64 → float32 and int64 → float64
// conversions are one hardware instruction that rounds once to nearest even
// (CVTSI2SS/CVTSI2SD, SCVTF); some 32-bit ports round int64 → float32
// twice, so they keep the shift-based code.
const hwIntToFloat = runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"

// i64ToF32OddHW is int32ToF32Odd for every int64, where hwIntToFloat: the
// conversion back is exact below 2^63, and a result of 2^63 can only come
// from rounding up (int64(f) overflows there, so the flags are set apart).
func i64ToF32OddHW(v int64) uint32 {
	f := float32(v)
	d := int64(f) - v                          // the rounding error, exact
	inexact := uint32(uint64(d|-d) >> 63)      // d != 0
	away := inexact & uint32(^uint64(d^v)>>63) // d has v's sign: rounded away from zero
	if f >= 0x1p63 {
		inexact = 1
	}
	if f >= 0x1p63 {
		away = 1
	}
	return (math.Float32bits(f) - away) | inexact
}

// int32ToF32Odd is intToF32Odd for |v| ≤ 2^32, without data-dependent
// branches (random signs would defeat a predictor): round to nearest with
// the FPU, read the error back exactly, step the magnitude back when it
// rounded away from zero, and set the odd bit when inexact.
func int32ToF32Odd(v int64) uint32 {
	f := float32(v)
	b := math.Float32bits(f)
	d := int64(f) - v                          // the rounding error, exact
	inexact := uint32(uint64(d|-d) >> 63)      // d != 0
	away := inexact & uint32(^uint64(d^v)>>63) // d has v's sign: rounded away from zero
	return (b - away) | inexact
}

// lutSource reports whether t is an unpacked 8-bit type, whose conversions
// to 8- and 16-bit targets are one table lookup (kernel lut8, lut16).
func lutSource(t DataType) bool {
	switch t {
	case Int8, Uint8, Bool, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0:
		return true
	}
	return false
}

// lutStep converts an 8-bit source to an 8- or 16-bit target through the
// pair's 256-entry table (tables.go) and the lut kernels.
func lutStep(from, to DataType) *step {
	if to.BitSize() == 8 {
		return &step{name: from.String() + " -> " + to.String() + " (table)", lookup: true,
			run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
				lookup8(k, dst[:n], src[:n], tableFor(from, to, opt))
			},
			tier: func(k *kernelSet) string { return k.lut8.tier }}
	}
	return &step{name: from.String() + " -> " + to.String() + " (table)", lookup: true,
		run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
			t := tableFor(from, to, opt)
			if t.sel != nil && k.sel16.fn != nil {
				k.sel16.fn(view[uint16](dst, n), src[:n], t.sel)
				return
			}
			k.lut16.fn(view[uint16](dst, n), src[:n], (*[256]uint16)(t.b16))
		},
		tier: func(k *kernelSet) string { return k.lut16.tier }}
}

// lookup8 looks the bytes of src up in the table t of 8-bit entries: by
// k.sel8 where the table is two-valued and k has one, by k.finer8 where it
// maps a float8 type to a finer one (finer8.go) and k has one, by k.split8
// where the table splits (split.go) and k has one, by k.round8 (GFNI
// only) or else k.class8 where it rounds per row (round8.go, class8.go)
// and k has one, else by k.lut8.
func lookup8(k *kernelSet, dst, src []byte, t *convTable) {
	if t.sel != nil && k.sel8.fn != nil {
		k.sel8.fn(dst, src, t.sel)
		return
	}
	if t.finer != nil && k.finer8.fn != nil {
		k.finer8.fn(dst, src, t.finer)
		return
	}
	if t.split != nil && k.split8.fn != nil {
		k.split8.fn(dst, src, t.split)
		return
	}
	if t.round != nil && k.round8.fn != nil {
		k.round8.fn(dst, src, t.round)
		return
	}
	if t.class != nil && k.class8.fn != nil {
		k.class8.fn(dst, src, t.class)
		return
	}
	k.lut8.fn(dst, src, (*[256]uint8)(t.b8))
}

// halfStep converts FLOAT16 ↔ BFLOAT16.
func halfStep(from, to DataType) *step {
	if from == Float16 {
		return &step{name: "FLOAT16 -> BFLOAT16",
			run: func(k *kernelSet, dst, src []byte, n int, _ Options) {
				k.f16ToBF16.fn(view[uint16](dst, n), view[uint16](src, n))
			},
			tier: func(k *kernelSet) string { return k.f16ToBF16.tier }}
	}
	return &step{name: "BFLOAT16 -> FLOAT16",
		run: func(k *kernelSet, dst, src []byte, n int, _ Options) {
			k.bf16ToF16.fn(view[uint16](dst, n), view[uint16](src, n))
		},
		tier: func(k *kernelSet) string { return k.bf16ToF16.tier }}
}

// lutPackFunc packs table[src[i]] (a target code in the low 4 or 2 bits)
// for every element of src into dst, two or four to a byte.
type lutPackFunc = func(dst, src []byte, table *[256]uint8)

// lutPackStep converts an 8-bit source to a packed target (INT4, UINT4,
// FLOAT4E2M1, INT2, UINT2): the pair's table gives each element's target
// code, which the tier's lutPack kernel looks up and packs in registers, or
// else lut8 and i8ToI4 or i8ToI2 block by block.
func lutPackStep(from, to DataType) *step {
	b, per := 0, 2
	if to.BitSize() == 2 {
		b, per = 1, 4
	}
	return &step{name: from.String() + " -> " + to.String() + " (table, packed)", lookup: true,
		run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
			t := tableFor(from, to, opt)
			if f := k.lutPack[b].fn; f != nil {
				f(dst[:to.Size(n)], src[:n], (*[256]uint8)(t.b8))
				return
			}
			if f := k.splitPack[b].fn; f != nil && t.split != nil && t.split.windows <= splitPackWindows {
				f(dst[:to.Size(n)], src[:n], t.split)
				return
			}
			bp, bi := getBlock()
			for i := 0; i < n; i += len(bp) {
				c := min(len(bp), n-i)
				lookup8(k, bp[:c], src[i:i+c], t)
				d := dst[i/per : i/per+(c+per-1)/per]
				if b == 0 {
					k.i8ToI4.fn(d, bp[:c])
				} else {
					k.i8ToI2.fn(d, bp[:c])
				}
			}
			putBlock(bi)
		},
		tier: func(k *kernelSet) string {
			if k.lutPack[b].fn != nil {
				return k.lutPack[b].tier
			}
			return k.lut8.tier
		}}
}

// fusedF8Func converts len(dst) elements of src to a float8 type described
// by p.
type fusedF8Func = func(dst, src []byte, p *float8Params)

// fusedF8Source reports whether k.toF8 may hold a kernel of from.
func fusedF8Source(from DataType) bool {
	switch from {
	case Int16, Uint16, Int32, Uint32, Int64, Uint64, Double:
		return true
	}
	return false
}

// fusedF8Step converts from → to (a float8 type) with k.toF8[from]; its
// tier is "" where k has no such kernel, and the plan then takes its route
// through FLOAT (plan.pivot, resolveStages).
func fusedF8Step(from, to DataType, via *plan) *step {
	return fusedStep(from, to, via, func(k *kernelSet) *kernel[fusedF8Func] { return &k.toF8[from] },
		func(opt Options) *float8Params { return float8ParamsFor(to, opt) })
}

// fusedE8Func converts len(dst) elements of src to FLOAT8E8M0 in the mode p
// describes.
type fusedE8Func = func(dst, src []byte, p *e8m0Params)

// fusedE8Source reports whether k.toE8 may hold a kernel of from.
func fusedE8Source(from DataType) bool {
	switch from {
	case Float16, BFloat16, Int16, Uint16, Int32, Uint32, Int64, Uint64, Double:
		return true
	}
	return false
}

// fusedE8Step is fusedF8Step for FLOAT8E8M0 with k.toE8.
func fusedE8Step(from DataType, via *plan) *step {
	return fusedStep(from, Float8E8M0, via, func(k *kernelSet) *kernel[fusedE8Func] { return &k.toE8[from] }, e8m0ParamsFor)
}

// fusedStep converts from → to with the kernel slot gives, with the
// parameters of to in the call's Options; its tier is "" where k has no
// such kernel, and the plan then takes its route through FLOAT (plan.pivot,
// resolveStages).
func fusedStep[P any](from, to DataType, via *plan, slot func(k *kernelSet) *kernel[func(dst, src []byte, p P)], params func(Options) P) *step {
	return &step{name: from.String() + " -> " + to.String() + " (fused)",
		run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
			if f := slot(k).fn; f != nil {
				f(dst[:n], src[:from.Size(n)], params(opt))
				return
			}
			via.run(k, dst, src, n, opt) // a kernel table resolveStages has not seen
		},
		tier: func(k *kernelSet) string { return slot(k).tier }}
}
