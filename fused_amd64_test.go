//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"math/rand/v2"
	"testing"
)

// The fused stages (gen/amd64/fused.go) are registered stages like the
// classic ones, so TestStagesAllInputs (every bit pattern of their 16-bit
// and FLOAT4E2M1 sources against the reference), TestStagesLengths and
// TestStagesGuardPages check their results; the tests here check that the
// planner takes them and that their Go wrappers allocate nothing.

// fusedPairs returns the non-classic pairs registered at the named tier.
func fusedPairs(tier string) []pairKey {
	var ks []pairKey
	for _, k := range sortedPairs(simdStages[tier]) {
		if !classic(k.from) || !classic(k.to) {
			ks = append(ks, k)
		}
	}
	return ks
}

// TestFusedRoutes checks that on each tier with fused stages, every fused
// pair converts in one step served by that tier, replacing its plan through
// FLOAT.
func TestFusedRoutes(t *testing.T) {
	resolveStages()
	checked := 0
	for _, k := range tiers {
		pairs := fusedPairs(k.tier)
		if len(pairs) == 0 {
			continue
		}
		routes := map[pairKey]Route{}
		for _, r := range routesOf(k) {
			routes[pairKey{r.From, r.To}] = r
		}
		for _, p := range pairs {
			r := routes[p]
			if len(r.Steps) != 1 || r.Tiers[0] != k.tier || r.Pivot != Undefined {
				t.Errorf("%s: %v -> %v: route %+v, want the fused stage", k.tier, p.from, p.to, r)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Skip("no fused stage on this CPU")
	}
	t.Logf("%d fused routes", checked)
}

// TestFusedZeroAllocations: the wrappers convert their rest through a
// zero-padded copy on the stack; that copy must not escape.
func TestFusedZeroAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	checked := 0
	for _, tier := range []string{"avx2", "avx512"} {
		for _, p := range fusedPairs(tier) {
			fn := simdStages[tier][p]
			for _, n := range []int{1, 3, 37, 1001} {
				src := randomTensor(rng, p.from, n)
				dst := make([]byte, p.to.Size(n))
				if a := testing.AllocsPerRun(10, func() { fn(dst, src, n) }); a != 0 {
					t.Errorf("%s %v -> %v n=%d: %v allocations", tier, p.from, p.to, n, a)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Skip("no fused stage on this CPU")
	}
}
