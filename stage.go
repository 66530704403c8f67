package tensorcast

// A stage is one vectorized conversion between two element layouts that the
// planner (plan.go) composes into the plan of a pair. This file holds the
// registry that the architecture files fill with their SIMD stages for the
// pairs whose result does not depend on Options (the classic types: FLOAT,
// DOUBLE, the 8- to 64-bit integers and BOOL).

// stageFunc converts n elements of raw little-endian src into dst, bit for
// bit as ref.Cast does. The caller guarantees that src holds from.Size(n)
// bytes and dst to.Size(n); a stage reads and writes nothing beyond them. src
// and dst do not overlap.
type stageFunc func(dst, src []byte, n int)

// pairKey names an ordered pair of element types.
type pairKey struct{ from, to DataType }

// simdStages maps a tier name ("avx2", "avx512", "neon") to the stages it
// provides. The architecture files register at init, only when the CPU
// supports the instructions; the planner uses, for a kernel table of tier T,
// the stage of the highest tier at or below T (in the order of `tiers`).
var simdStages = map[string]map[pairKey]stageFunc{}

// registerStage adds the stage fn for from → to at the named tier.
func registerStage(tier string, from, to DataType, fn stageFunc) {
	m := simdStages[tier]
	if m == nil {
		m = map[pairKey]stageFunc{}
		simdStages[tier] = m
	}
	m[pairKey{from, to}] = fn
}
