//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// Per-tier benchmarks of every hot kernel at 4096 (L1) and 65536 (L2)
// elements, next to copy() of the float32 side (4N bytes) at the same sizes:
// the ratio copy ns/op ÷ kernel ns/op is the speed relative to copy(4N).
// b.SetBytes counts the bytes read plus written. Filter with
// -bench 'TierKernels/FLOAT->FLOAT16/'.

var tierBenchSizes = []int{4096, 65536}

// tierBenchInput returns n elements of from, converted from normally
// distributed float32 values with a few subnormals, infinities and NaNs (the
// kind of data a model holds), so no branch can be predicted from it.
func tierBenchInput(from DataType, n int) []byte {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	f := make([]float32, n)
	for i := range f {
		v := float32(rng.NormFloat64())
		switch r := rng.IntN(1000); {
		case r < 5:
			v = math.Float32frombits(rng.Uint32() & 0x807FFFFF)
		case r < 7:
			v = float32(math.Inf(1 - 2*(r&1)))
		case r < 8:
			v = float32(math.NaN())
		}
		f[i] = v
	}
	if from == Float {
		return byteSlice(f)
	}
	switch from {
	case Int8, Uint8, Int4, Uint4: // random bits
		b := make([]byte, from.Size(n))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	b := make([]byte, from.Size(n))
	if err := Cast(b, from, byteSlice(f), Float, n, Options{}); err != nil {
		panic(err)
	}
	return b
}

func BenchmarkTierCopy4N(b *testing.B) {
	for _, n := range tierBenchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			src, dst := make([]float32, n), make([]float32, n)
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkTierKernels(b *testing.B) {
	for _, c := range kernelCases() {
		if strings.Contains(c.name, "sat=false") || strings.Contains(c.name, "RoundDown") || strings.Contains(c.name, "RoundNearest") {
			continue // the other modes run the same code with other parameters
		}
		b.Run(c.name, func(b *testing.B) {
			for _, k := range tiers {
				b.Run(c.tier(k), func(b *testing.B) {
					for _, n := range tierBenchSizes {
						b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
							src := tierBenchInput(c.from, n)
							dst := make([]byte, c.to.Size(n))
							b.SetBytes(int64(c.from.Size(n) + c.to.Size(n)))
							for b.Loop() {
								c.run(k, dst, src, n)
							}
						})
					}
				})
			}
		})
	}
}

// BenchmarkLargeStreaming measures the kernels that have streaming variants
// at 64 Mi elements (TENSORCAST_BENCH_LARGE=1, as bench_large_test.go), per
// tier, with ordinary stores ("store", the threshold raised out of reach)
// and with streaming stores ("nt", the threshold at 0); compare with
// BenchmarkLargeCopy4N in the same run:
//
//	TENSORCAST_BENCH_LARGE=1 go test -run '^$' -bench 'Large(Streaming|Copy4N)' -benchtime 10x -count 5
func BenchmarkLargeStreaming(b *testing.B) {
	if os.Getenv("TENSORCAST_BENCH_LARGE") == "" {
		b.Skip("set TENSORCAST_BENCH_LARGE=1 to run the 64 Mi-element benchmarks (about 1 GB of memory)")
	}
	const n = largeN
	measured := []string{"FLOAT->FLOAT16", "FLOAT16->FLOAT", "FLOAT->BFLOAT16", "BFLOAT16->FLOAT",
		"FLOAT->FLOAT8E4M3FN sat=true", "FLOAT->FLOAT8E5M2 sat=true", "FLOAT16->FLOAT8E4M3FN sat=true",
		"FLOAT8E4M3FN->FLOAT", "FLOAT->FLOAT8E8M0 up sat=true"}
	for _, c := range kernelCases() {
		if !slices.Contains(measured, c.name) {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			src := largeInput(c.from)
			dst := make([]byte, c.to.Size(n)+64)
			dst = dst[ntHead(dst, 64):][:c.to.Size(n)]
			for _, k := range tiers {
				if !streams(c, k) {
					continue
				}
				for _, mode := range []struct {
					name string
					min  int
				}{{"store", math.MaxInt}, {"nt", 0}} {
					b.Run(c.tier(k)+"/"+mode.name, func(b *testing.B) {
						old := streamMinBytes
						streamMinBytes = mode.min
						defer func() { streamMinBytes = old }()
						b.SetBytes(int64(c.from.Size(n) + c.to.Size(n)))
						b.ReportAllocs()
						c.run(k, dst, src, n)
						b.ResetTimer()
						for b.Loop() {
							c.run(k, dst, src, n)
						}
						b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "elem/ns")
					})
				}
			}
		})
	}
}

// largeInput returns the 64 Mi-element pool of bench_large_test.go as from.
func largeInput(from DataType) []byte {
	f := largePool()
	if from == Float {
		return byteSlice(f)
	}
	b := make([]byte, from.Size(len(f)))
	if err := Cast(b, from, byteSlice(f), Float, len(f), Options{}); err != nil {
		panic(err)
	}
	return b
}
