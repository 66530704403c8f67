package tensorcast

// A stage is one vectorized conversion between two element layouts that the
// planner (plan.go) composes into the plan of a pair. This file holds the
// registry that the architecture files (and classic_generic.go, for the
// portable tier) fill with their stages:
//
//   - direct stages for pairs whose result does not depend on Options: the
//     classic pairs (FLOAT, DOUBLE, the 8- to 64-bit integers, BOOL), and
//     any other pair whose target is not a float8 or E8M0 type (e.g.
//     FLOAT16 → BFLOAT16). A registered direct stage replaces the pair's
//     composed plan on that tier and the tiers above it.
//   - round-to-odd stages (registerOddStage): DOUBLE, INT32, UINT32, INT64
//     or UINT64 → float32 rounded to odd, the first step of their plans to
//     the narrow floats (plan.go explains why that is exact).

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
	addStage(simdStages, tier, from, to, fn)
}

// addStage adds fn for from → to at tier to the registry stages.
func addStage(stages map[string]map[pairKey]stageFunc, tier string, from, to DataType, fn stageFunc) {
	m := stages[tier]
	if m == nil {
		m = map[pairKey]stageFunc{}
		stages[tier] = m
	}
	m[pairKey{from, to}] = fn
}

// simdTierStages maps a tier name to direct stages that serve that tier
// only: pairs that a tier above converts better by its own plan (a table
// kernel, say), which an inherited stage would replace.
var simdTierStages = map[string]map[pairKey]stageFunc{}

// registerTierStage adds the stage fn for from → to at the named tier only.
func registerTierStage(tier string, from, to DataType, fn stageFunc) {
	addStage(simdTierStages, tier, from, to, fn)
}

// sharesTierStage reports whether the kernel table k also takes the
// tier-only stage of the lower tier for p, in place of its own plan: where
// the premise of simdTierStages (the tier above converts better) was
// measured wrong. Set by the architecture files (inherit_amd64.go).
var sharesTierStage = func(k *kernelSet, lower string, p pairKey) bool { return false }

// simdOddStages maps a tier name to its round-to-odd stages by source type.
var simdOddStages = map[string]map[DataType]stageFunc{}

// registerOddStage adds the stage that rounds `from` to float32 by
// round-to-odd (plan.go) at the named tier.
func registerOddStage(tier string, from DataType, fn stageFunc) {
	m := simdOddStages[tier]
	if m == nil {
		m = map[DataType]stageFunc{}
		simdOddStages[tier] = m
	}
	m[from] = fn
}
