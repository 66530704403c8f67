//go:build (linux || darwin) && (amd64 || arm64)

package tensorcast

import (
	"bytes"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// TestPlansGuardPages runs the plan of every ordered numeric pair on every
// tier (so every stage, table and Go step a plan uses) with src and dst
// flush against guard pages and at odd offsets, checking the result against
// the reference and that no dst byte beyond the result changed, at every
// length 0..1025 (under -short: a few).
func TestPlansGuardPages(t *testing.T) {
	var lengths []int
	maxN := 1025
	for n := 0; n <= maxN; n++ {
		lengths = append(lengths, n)
	}
	offsets := []int{1, 3, 5, 7, 33}
	if testing.Short() {
		lengths = []int{0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 1025}
		offsets = []int{1, 3}
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a fault fails the test with its case
	rng := rand.New(rand.NewPCG(19, 3))
	types := numericTypeList()
	for _, from := range types {
		srcAll := randomTensor(rng, from, maxN)
		src := newGuarded(t, from.Size(maxN)+64)
		for _, to := range types {
			if from == to {
				continue
			}
			modes := castModes(to)
			opt := modes[rng.IntN(len(modes))]
			wantAll := make([]byte, to.Size(maxN))
			ref.Cast(wantAll, ref.Kind(to), srcAll, ref.Kind(from), maxN, refOptions(opt))
			dst := newGuarded(t, to.Size(maxN)+64+8)
			for _, k := range tiers {
				for _, n := range lengths {
					ssz, dsz := from.Size(n), to.Size(n)
					want := append([]byte(nil), wantAll[:dsz]...)
					clearPadding(want, to, n)
					check := func(where string, d, s []byte) {
						copy(s, srcAll[:ssz])
						for i := range d {
							d[i] = 0xA5
						}
						castBytesWith(k, d, to, s[:ssz], from, n, opt)
						if !bytes.Equal(d[:dsz], want) {
							t.Fatalf("%v -> %v [%s] n=%d %s: got % x, want % x", from, to, k.tier, n, where, d[:dsz], want)
						}
						for i, b := range d[dsz:] {
							if b != 0xA5 {
								t.Fatalf("%v -> %v [%s] n=%d %s: wrote dst byte %d beyond the result", from, to, k.tier, n, where, dsz+i)
							}
						}
					}
					check("flush before the upper guard", dst.atEnd(dsz), src.atEnd(ssz))
					check("flush after the lower guard", dst.atStart(dsz+8), src.atStart(ssz))
					for _, off := range offsets {
						check("at an offset", dst.at(off, dsz+8), src.at(off, ssz))
					}
				}
			}
		}
	}
}
