package tensorcast

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// The planner: every ordered pair of numeric types converts through one plan
// of at most two steps, chosen once at init and looked up per call. A step is
// one vectorized conversion between two element layouts (a kernel of the
// kernel table, a SIMD stage of the registry in stage.go, or a portable Go
// loop in steps.go). A two-step plan runs its steps block by block through an
// L1-sized buffer, so the intermediate never leaves the cache.
//
// Why composition never changes a result (the argument the tests check on
// every ≤16-bit source pattern and on millions of structured wider inputs):
//
//   - Pivot through FLOAT for sources whose every value is a float32 (the
//     ≤16-bit floats, the float8 types, E8M0, FLOAT4E2M1, BOOL and the 2- to
//     16-bit integers): the first step is exact, so the second rounds the
//     same value the reference rounds, once. NaN: every widening keeps the
//     sign and the top payload bits and every narrowing reads only those.
//   - DOUBLE, INT32, UINT32, INT64 and UINT64 to a float of at most 11
//     significant bits (FLOAT16, BFLOAT16, the float8 types, E8M0,
//     FLOAT4E2M1) go through a round-to-odd float32: truncate to 24 bits and
//     set the last bit when anything was dropped. With 24 ≥ p+2 bits, rounding
//     that value to nearest-even at p bits gives what rounding the exact
//     value gives (the odd last bit stands in for every dropped bit: it breaks
//     exact-looking ties and never creates one), and the directed E8M0 modes
//     see the same "exactly a power of two or strictly between two" answer.
//     The edges: magnitudes ≥ 2^128 become ±Inf, which every such target
//     treats as it treats any value beyond its range (the same overflow or
//     saturation code; E8M0 round-down of [2^127, 2^128) stays finite in
//     both); magnitudes below 2^-149 become the odd 2^-149, below half of
//     every target's smallest value, so they round to zero (or to E8M0's
//     2^-127 under round-up) exactly as the tiny exact value does. Subnormal
//     float32 keep at least 24-(149-133) = 8 ≥ 2 extra bits over BFLOAT16's
//     subnormals, and far more over the others.
//   - Except the integer sources to the targets whose values are all below
//     2^24 (FLOAT16, the float8 types but E8M0, FLOAT4E2M1): they go through
//     FLOAT's round-to-nearest-even conversion (see below2p24).
//   - The packed integer targets (INT4, UINT4, INT2, UINT2) from those wide
//     sources go through INT8: truncating then wrapping modulo 2^8 and then
//     modulo 2^4 (or 2^2) is wrapping modulo 2^4; out-of-range values give
//     0 in both steps.
//   - Pairs of the classic types (FLOAT, DOUBLE, 8- to 64-bit integers, BOOL)
//     convert in one step, never through a pivot.

// step is one stage of a plan.
type step struct {
	lookup bool   // the step is already a table lookup (lut8, lut16): no table route beats it
	name   string // the conversion, e.g. "FLOAT16 -> FLOAT"
	run    func(k *kernelSet, dst, src []byte, n int, opt Options)
	tier   func(k *kernelSet) string // which tier serves it in k
}

// plan converts one ordered pair: a alone, or a into the pivot type mid and
// then b.
type plan struct {
	from, to, mid DataType
	a, b          *step
	// direct: a tier may register a stage for the whole pair (stage.go),
	// which then replaces a and b on that tier.
	direct bool
	// table converts by lookup (tables.go); it replaces a and b on the
	// tiers where one of them would run as portable Go (where the fused
	// step a has no kernel: where a step of pivot would). nil if the source
	// has too many values.
	table *step
	// pivot is the route through FLOAT of a pair whose plan is a table
	// kernel (lut8, lut16), taken on the tiers where that kernel is slower
	// than two SIMD steps (AVX2 has no byte permute reaching 256 entries),
	// or a fused kernel (toF8, toE8), taken on the tiers without one.
	pivot *plan
}

const numTypes = int(Int2) + 1

// plans[from][to] is the plan of every ordered pair of castable numeric
// types; nil for the others.
var plans [numTypes][numTypes]*plan

// pivotBlock is the number of elements a two-step plan converts per block: a
// multiple of 4 (so blocks start on whole bytes of packed types) whose
// FLOAT intermediate (4 KiB) and source and destination blocks fit in L1.
const pivotBlock = 1024

// block is the intermediate buffer of a two-step plan (or of an in-place
// conversion).
type block = [pivotBlock * 4]byte

// The blocks: a fixed set, claimed and released with one atomic operation
// each, allocated on first use and kept. Not the stack: the steps are called
// through function values, so a stack buffer would escape to the heap on
// every call; not a sync.Pool, which the garbage collector empties, so that
// calls would allocate again after every collection. More concurrent calls
// than blocks allocate a block each (and drop it).
var (
	blocks    [64]*block
	blockFree atomic.Uint64 // bit i set: blocks[i] is free
)

func init() { blockFree.Store(^uint64(0)) }

// getBlock claims a block; putBlock(b, i) releases it.
func getBlock() (*block, int) {
	for {
		f := blockFree.Load()
		if f == 0 {
			return new(block), -1
		}
		i := bits.TrailingZeros64(f)
		if blockFree.CompareAndSwap(f, f&^(1<<uint(i))) {
			if blocks[i] == nil { // slot i is ours alone until released
				blocks[i] = new(block)
			}
			return blocks[i], i
		}
	}
}

func putBlock(i int) {
	if i >= 0 {
		blockFree.Or(1 << uint(i))
	}
}

func init() {
	for _, from := range AllTypes() {
		for _, to := range AllTypes() {
			if numeric(from) && numeric(to) {
				plans[from][to] = makePlan(from, to)
			}
		}
	}
}

func numeric(t DataType) bool { return t.Castable() && t != String }

// run converts n > 0 elements with the kernels of k.
func (p *plan) run(k *kernelSet, dst []byte, src []byte, n int, opt Options) {
	if p.direct {
		if t := k.stages; t != nil {
			if s := t.direct[p.from][p.to].fn; s != nil {
				s(dst, src, n)
				return
			}
		}
	}
	if p.table != nil && k.stages != nil && k.stages.useTable[p.from][p.to] {
		p.table.run(k, dst, src, n, opt)
		return
	}
	if p.pivot != nil && k.stages != nil && k.stages.usePivot[p.from][p.to] {
		p = p.pivot
	}
	if p.b == nil {
		p.a.run(k, dst, src, n, opt)
		return
	}
	bp, bi := getBlock()
	ka := plainKernels(k) // the intermediate stays in cache: no streaming stores
	for i := 0; i < n; i += pivotBlock {
		m := min(pivotBlock, n-i)
		p.a.run(ka, bp[:], src[p.from.Size(i):], m, opt)
		p.b.run(k, dst[p.to.Size(i):], bp[:], m, opt)
	}
	putBlock(bi)
}

// castInPlace converts n elements when dst and src are the same memory of a
// same-size pair: block by block, each source block copied aside first, so
// every plan and step may assume distinct buffers.
func castInPlace(k *kernelSet, buf []byte, to DataType, from DataType, n int, opt Options) {
	bp, bi := getBlock()
	per := len(bp) * 8 / from.BitSize() // elements per block: a multiple of 8
	for i := 0; i < n; i += per {
		m := min(per, n-i)
		off := from.Size(i)
		tmp := bp[:from.Size(m)]
		copy(tmp, buf[off:])
		castDistinct(k, buf[off:], to, tmp, from, m, opt)
	}
	putBlock(bi)
}

// makePlan chooses the plan of one pair; see the argument at the top of this
// file.
func makePlan(from, to DataType) *plan {
	p := &plan{from: from, to: to, direct: from != to && optionFree(to) && !(classic(from) && classic(to))}
	switch {
	case from == to:
		p.a = copyStep(from)
	case from.IsInteger() && to.IsInteger() && from.BitSize() == to.BitSize():
		p.a = copyStep(from) // wrapping to the same width keeps every bit
	case hotPair(from, to):
		p.a = hotStep(from, to)
	case from == Float16 && to == BFloat16 || from == BFloat16 && to == Float16:
		p.a = halfStep(from, to)
	case lutSource(from) && (to.BitSize() == 8 || to.BitSize() == 16) && !(classic(from) && classic(to)):
		p.a = lutStep(from, to)
		p.pivot = &plan{from: from, to: to, mid: Float, a: toFloatStep(from), b: planStep(Float, to)}
	case from.BitSize() < 8 && to.BitSize() < 8:
		p.a = repackStep(from, to) // nibble tables
	case from.BitSize() < 8 && to.BitSize() >= 8:
		p.a = unpackStep(from, to) // a table of the codes
	case (from == Int8 || from == Uint8) && to.BitSize() == 2:
		p.a = packStep(to)
	case lutSource(from) && to.BitSize() < 8: // target codes by table, packed
		p.a = lutPackStep(from, to)
	case classic(from) && classic(to):
		p.a = classicStep(from, to)
	case classic(from) && to.IsInteger(): // to a packed integer: wrap through INT8
		p.mid, p.a, p.b = Int8, classicStep(from, Int8), packStep(to)
	case from == Float:
		p.a = fromFloatStep(to)
	case to == Float && exactInFloat(from):
		p.a = toFloatStep(from)
	case exactInFloat(from):
		p.mid, p.a, p.b = Float, toFloatStep(from), planStep(Float, to)
	case from.IsInteger() && below2p24(to): // exact or beyond the target's range in float32
		p.mid, p.a, p.b = Float, planStep(from, Float), planStep(Float, to)
	default: // wide source to a narrow float: round to odd, then to the target
		p.mid, p.a, p.b = Float, toFloatOddStep(from), planStep(Float, to)
	}
	if tableSource(from, to) && !(p.a.lookup && p.b == nil) {
		p.table = tableStep(from, to)
	}
	if fusedF8Source(from) && !optionFree(to) && to != Float8E8M0 {
		// One kernel where the tier has it, else the plan above.
		p = &plan{from: from, to: to, a: fusedF8Step(from, to, p), pivot: p, table: p.table}
	}
	if fusedE8Source(from) && to == Float8E8M0 {
		p = &plan{from: from, to: to, a: fusedE8Step(from, p), pivot: p, table: p.table}
	}
	return p
}

// below2p24 reports whether every finite value of the float type t is below
// 2^24 in magnitude: FLOAT16 (65504), the float8 types but E8M0 (57344 at
// most) and FLOAT4E2M1 (6). An INT32, UINT32, INT64 or UINT64 source
// reaches those through FLOAT's round-to-nearest-even conversion, with no
// round to odd: an integer below 2^24 in magnitude is a float32, and one
// above rounds to a float32 of magnitude ≥ 2^24, so the exact value and the
// float32 are both beyond the target's range, with the same sign, which is
// all its overflow rule (±Inf, NaN or saturation) reads.
func below2p24(t DataType) bool {
	switch t {
	case Float16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float4E2M1:
		return true
	}
	return false
}

// optionFree reports whether conversions to t ignore Options (all but the
// float8 and E8M0 targets).
func optionFree(t DataType) bool {
	switch t {
	case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0:
		return false
	}
	return true
}

// planStep runs the one-step plan of from → to as a step of another plan, so
// that it takes that plan's table route where the tier has one.
func planStep(from, to DataType) *step {
	one := func() *plan { return plans[from][to] } // built before any call
	return &step{
		name: from.String() + " -> " + to.String(),
		run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
			one().run(k, dst, src, n, opt)
		},
		tier: func(k *kernelSet) string {
			p := one()
			if p.table != nil && k.stages != nil && k.stages.useTable[from][to] {
				return p.table.tier(k)
			}
			return p.a.tier(k)
		},
	}
}

// classic reports whether t is one of the types Go has (FLOAT, DOUBLE, the 8-
// to 64-bit integers) or BOOL.
func classic(t DataType) bool {
	switch t {
	case Float, Double, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Bool:
		return true
	}
	return false
}

// exactInFloat reports whether every value of t is a float32.
func exactInFloat(t DataType) bool {
	switch t {
	case Double, Int32, Uint32, Int64, Uint64:
		return false
	}
	return numeric(t)
}

// Route describes how Cast converts one ordered pair on this machine: its
// steps (one, or two through a pivot type) and the tier that serves each.
type Route struct {
	From, To DataType
	Pivot    DataType // Undefined for one-step routes
	Steps    []string // e.g. ["FLOAT16 -> FLOAT", "FLOAT -> FLOAT8E4M3FN"]
	Tiers    []string // per step: "avx512", "avx2", "neon", "generic", …
}

// Routes lists the route of every ordered pair of numeric types (String
// excluded: CastFromStrings and CastToStrings convert those), in type order.
func Routes() []Route { return routesOf(active) }

func routesOf(k *kernelSet) []Route {
	resolveStages()
	var rs []Route
	for _, from := range AllTypes() {
		for _, to := range AllTypes() {
			p := plans[from][to]
			if p == nil {
				continue
			}
			if p.direct && k.stages != nil {
				if s := k.stages.direct[from][to]; s.fn != nil {
					rs = append(rs, Route{From: from, To: to, Steps: []string{from.String() + " -> " + to.String()}, Tiers: []string{s.tier}})
					continue
				}
			}
			if p.table != nil && k.stages != nil && k.stages.useTable[from][to] {
				rs = append(rs, Route{From: from, To: to, Steps: []string{p.table.name}, Tiers: []string{p.table.tier(k)}})
				continue
			}
			if p.pivot != nil && k.stages != nil && k.stages.usePivot[from][to] {
				p = p.pivot
			}
			r := Route{From: from, To: to, Pivot: p.mid}
			for _, s := range []*step{p.a, p.b} {
				if s != nil {
					r.Steps = append(r.Steps, s.name)
					r.Tiers = append(r.Tiers, s.tier(k))
				}
			}
			rs = append(rs, r)
		}
	}
	return rs
}

// plainKernels returns the kernel table whose streaming twin k is, or k.
func plainKernels(k *kernelSet) *kernelSet {
	if p := plainOf()[k]; p != nil {
		return p
	}
	return k
}

var plainOf = sync.OnceValue(func() map[*kernelSet]*kernelSet {
	m := map[*kernelSet]*kernelSet{}
	for plain, s := range streamingSets {
		m[s] = plain
	}
	return m
})
