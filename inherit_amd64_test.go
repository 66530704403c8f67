//go:build amd64 && gc && !purego && !noasm

package tensorcast

import "testing"

// TestSharedTierStages checks that the AVX-512 tier routes every pair that
// sharesTierStage gives it through the AVX2 tier's stage, in one step, and
// no other pair through an AVX2 tier-only stage.
func TestSharedTierStages(t *testing.T) {
	resolveStages()
	var k5 *kernelSet
	for _, k := range tiers {
		if k.tier == "avx512" {
			k5 = k
		}
	}
	if k5 == nil {
		t.Skip("no AVX-512 tier on this CPU")
	}
	routes := map[pairKey]Route{}
	for _, r := range routesOf(k5) {
		routes[pairKey{r.From, r.To}] = r
	}
	shared := 0
	for _, p := range sortedPairs(simdTierStages["avx2"]) {
		r := routes[p]
		want := sharesTierStage(k5, "avx2", p)
		got := len(r.Steps) == 1 && r.Tiers[0] == "avx2"
		if want && !got {
			t.Errorf("%v -> %v: route %+v, want AVX2's stage", p.from, p.to, r)
		}
		if !want && got && simdStages["avx2"][p] == nil {
			t.Errorf("%v -> %v: route %+v takes AVX2's tier-only stage, which sharesTierStage does not give", p.from, p.to, r)
		}
		if want {
			shared++
		}
	}
	for p := range avx2OverAVX512 { // a pair listed there that AVX2 does not register would do nothing
		if simdTierStages["avx2"][p] == nil {
			t.Errorf("avx2OverAVX512 lists %v -> %v, which has no AVX2 tier-only stage", p.from, p.to)
		}
	}
	if shared == 0 {
		t.Errorf("no AVX2 stage shared with the AVX-512 tier (want %d with VBMI, all without)", len(avx2OverAVX512))
	}
	t.Logf("%d of %d AVX2 tier-only stages shared with the AVX-512 tier", shared, len(simdTierStages["avx2"]))
}
