//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSplitKernelVariants runs every loop of split8AVX2 and of the packing
// kernels split8Pack4AVX2 and split8Pack2AVX2 (each count of windows, with
// and without the row mask) on random descriptions against the portable
// kernels: all 256 bytes in every position of a vector, every length
// 0..300, and against guard pages at both ends.
func TestSplitKernelVariants(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	g := newGuarded(t, 4096)
	for windows := range maxSplitWindows + 1 {
		for masked := range 2 {
			p := new(splitParams)
			for i := range 16 {
				p.hi[i], p.lo[i] = uint8(rng.Uint32()), uint8(rng.Uint32())
				if masked == 1 && rng.IntN(3) == 0 {
					p.rows[i] = 0x80
				}
				for w := range maxSplitWindows {
					p.fix[w][i] = uint8(rng.Uint32())
				}
			}
			for w := range maxSplitWindows {
				p.start[w] = uint8(rng.Uint32())
			}
			p.windows, p.masked = uint8(windows), uint8(masked)
			name := fmt.Sprintf("windows=%d masked=%d", windows, masked)
			src := everyByte(300)
			kernels := []splitKernel{{"split8", 1, avx2Split8, splitGeneric}}
			if windows <= 2 {
				kernels = append(kernels, splitKernel{"pack4", 2, avx2SplitPack4, splitPack4Generic},
					splitKernel{"pack2", 4, avx2SplitPack2, splitPack2Generic})
			}
			for _, k := range kernels {
				for n := 0; n <= 300; n++ {
					size := (n + k.per - 1) / k.per
					got, want := make([]uint8, size), make([]uint8, size)
					k.asm(got, src[:n], p)
					k.ports(want, src[:n], p)
					if !slices.Equal(got, want) {
						t.Fatalf("%s %s n=%d: got %x, want %x", k.name, name, n, got, want)
					}
				}
			}
			g.byteMaps(t, name, src, func(d, s []byte) { avx2Split8(d, s, p) }, p.at)
		}
	}
}

// splitKernel is an AVX2 split kernel and its portable equal; per counts
// elements per dst byte.
type splitKernel struct {
	name       string
	per        int
	asm, ports func(dst, src []uint8, p *splitParams)
}
