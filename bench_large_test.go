package tensorcast

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/x448/float16"
)

// Benchmarks at 64 Mi elements, far beyond the last-level cache: the DRAM
// point of the size series in bench_test.go (4 Ki, 64 Ki, 1 Mi). They need
// about 1 GB of memory and several seconds each, so they run only when
// TENSORCAST_BENCH_LARGE=1 is set, and `go test -bench .` stays quick:
//
//	TENSORCAST_BENCH_LARGE=1 go test -run '^$' -bench 'Large' -benchtime 10x -count 6 | tee new.txt
//
// Names follow bench_test.go with a Large prefix (BenchmarkLargeFloat32ToFloat16/n=67108864),
// so benchstat compares them across tiers (GODEBUG=cpu.avx512f=off, -tags purego)
// and against copy() of the float32 side, BenchmarkLargeCopy4N.

const largeN = 64 << 20

// largePool is 64 Mi float32 values: the benchmark pool of bench_test.go
// repeated (5 Mi distinct values, normally distributed with subnormals and
// specials — far more than a branch predictor can learn).
var largePool = sync.OnceValue(func() []float32 {
	p := make([]float32, largeN)
	for i := 0; i < len(p); {
		i += copy(p[i:], benchPoolOnce())
	}
	return p
})

func benchLarge(b *testing.B, bytesPerElem int, f func(b *testing.B, n int)) {
	if os.Getenv("TENSORCAST_BENCH_LARGE") == "" {
		b.Skip("set TENSORCAST_BENCH_LARGE=1 to run the 64 Mi-element benchmarks (about 1 GB of memory)")
	}
	n := largeN
	b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
		b.SetBytes(int64(n * bytesPerElem))
		b.ReportAllocs()
		f(b, n)
		b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "elem/ns")
	})
}

func BenchmarkLargeCopy4N(b *testing.B) {
	benchLarge(b, 8, func(b *testing.B, n int) {
		src, dst := largePool(), make([]float32, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			copy(dst, src)
		}
	})
}

func BenchmarkLargeFloat32ToFloat16(b *testing.B) {
	benchLarge(b, 6, func(b *testing.B, n int) {
		src, dst := largePool(), make([]uint16, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			Float32ToFloat16(dst, src)
		}
	})
}

func BenchmarkLargeX448Fromfloat32(b *testing.B) {
	benchLarge(b, 6, func(b *testing.B, n int) {
		src, dst := largePool(), make([]float16.Float16, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j, v := range src {
				dst[j] = float16.Fromfloat32(v)
			}
		}
	})
}

func BenchmarkLargeFloat16ToFloat32(b *testing.B) {
	benchLarge(b, 6, func(b *testing.B, n int) {
		src, dst := make([]uint16, n), make([]float32, n)
		Float32ToFloat16(src, largePool())
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			Float16ToFloat32(dst, src)
		}
	})
}

func BenchmarkLargeFloat32ToBFloat16(b *testing.B) {
	benchLarge(b, 6, func(b *testing.B, n int) {
		src, dst := largePool(), make([]uint16, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			Float32ToBFloat16(dst, src)
		}
	})
}

func BenchmarkLargeBFloat16ToFloat32(b *testing.B) {
	benchLarge(b, 6, func(b *testing.B, n int) {
		src, dst := make([]uint16, n), make([]float32, n)
		Float32ToBFloat16(src, largePool())
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			BFloat16ToFloat32(dst, src)
		}
	})
}

func BenchmarkLargeFloat32ToFloat8(b *testing.B) {
	for _, c := range []struct {
		name string
		to   DataType
	}{{"E4M3FN", Float8E4M3FN}, {"E4M3FNUZ", Float8E4M3FNUZ}, {"E5M2", Float8E5M2}, {"E5M2FNUZ", Float8E5M2FNUZ}, {"E8M0-up", Float8E8M0}} {
		b.Run(c.name, func(b *testing.B) {
			benchLarge(b, 5, func(b *testing.B, n int) {
				src, dst := largePool(), make([]uint8, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					Float32ToFloat8(dst, c.to, src, Options{})
				}
			})
		})
	}
}

func BenchmarkLargeFloat8ToFloat32(b *testing.B) {
	benchLarge(b, 5, func(b *testing.B, n int) {
		src, dst := make([]uint8, n), make([]float32, n)
		Float32ToFloat8(src, Float8E4M3FN, largePool(), Options{})
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			Float8ToFloat32(dst, src, Float8E4M3FN)
		}
	})
}
