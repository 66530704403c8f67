package tensorcast

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/x448/float16"
)

// Benchmarks of the dispatched kernels against the memory-copy ceiling and
// x448/float16. Every benchmark reports bytes read + written (b.SetBytes)
// and elements/ns. Inputs are normally distributed with a share of
// subnormals and specials, and each iteration reads a different window of a
// large pool, so the branch predictor cannot memorise them. Compare tiers
// with GODEBUG=cpu.avx512f=off, cpu.avx2=off or -tags purego and benchstat.

var benchSizes = []int{4 << 10, 64 << 10, 1 << 20}

const poolSize = 4 << 20

var benchPoolOnce = sync.OnceValue(func() []float32 {
	rng := rand.New(rand.NewPCG(42, 42))
	p := make([]float32, poolSize+(1<<20))
	for i := range p {
		v := float32(rng.NormFloat64())
		switch r := rng.IntN(1000); {
		case r < 5:
			v = math.Float32frombits(rng.Uint32() & 0x807FFFFF) // subnormal
		case r < 7:
			v = float32(math.Inf(1 - 2*(r&1)))
		case r < 8:
			v = float32(math.NaN())
		case r < 100:
			v *= 1000 // some values beyond the float8 ranges
		}
		p[i] = v
	}
	return p
})

// window returns n pool elements starting at a position that moves on every
// call, within the first max(4n, 256 Ki) elements of the pool: small sizes
// stay in L2 (as a tensor just produced would be) while the data is still far
// too large for a branch predictor to learn.
func window(i, n int) []float32 {
	benchPool := benchPoolOnce()
	if n >= poolSize {
		return benchPool[:n]
	}
	region := min(max(4*n, 256<<10), poolSize)
	off := (i * 4099 * 16) % (region - n + 1)
	return benchPool[off : off+n]
}

func benchEach(b *testing.B, bytesPerElem int, f func(b *testing.B, n int)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n * bytesPerElem))
			b.ReportAllocs()
			f(b, n)
			b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "elem/ns")
		})
	}
}

func BenchmarkCopy4N(b *testing.B) {
	benchEach(b, 8, func(b *testing.B, n int) { // 4N read + 4N written
		dst := make([]float32, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			copy(dst, window(i, n))
		}
	})
}

func BenchmarkFloat32ToFloat16(b *testing.B) {
	benchEach(b, 6, func(b *testing.B, n int) {
		dst := make([]uint16, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			Float32ToFloat16(dst, window(i, n))
		}
	})
}

func BenchmarkX448Fromfloat32(b *testing.B) {
	benchEach(b, 6, func(b *testing.B, n int) {
		dst := make([]float16.Float16, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j, v := range window(i, n) {
				dst[j] = float16.Fromfloat32(v)
			}
		}
	})
}

func BenchmarkFloat16ToFloat32(b *testing.B) {
	benchEach(b, 6, func(b *testing.B, n int) {
		src := make([]uint16, 2*n)
		Float32ToFloat16(src, benchPoolOnce()[:2*n])
		dst := make([]float32, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			o := i % 2 * n
			Float16ToFloat32(dst, src[o:o+n])
		}
	})
}

func BenchmarkFloat32ToBFloat16(b *testing.B) {
	benchEach(b, 6, func(b *testing.B, n int) {
		dst := make([]uint16, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			Float32ToBFloat16(dst, window(i, n))
		}
	})
}

func BenchmarkBFloat16ToFloat32(b *testing.B) {
	benchEach(b, 6, func(b *testing.B, n int) {
		src := make([]uint16, 2*n)
		Float32ToBFloat16(src, benchPoolOnce()[:2*n])
		dst := make([]float32, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			o := i % 2 * n
			BFloat16ToFloat32(dst, src[o:o+n])
		}
	})
}

func BenchmarkFloat32ToFloat8(b *testing.B) {
	for _, c := range []struct {
		name string
		to   DataType
		opt  Options
	}{
		{"E4M3FN", Float8E4M3FN, Options{}}, {"E4M3FN-nosat", Float8E4M3FN, Options{NoSaturate: true}},
		{"E4M3FNUZ", Float8E4M3FNUZ, Options{}}, {"E5M2", Float8E5M2, Options{}},
		{"E5M2FNUZ", Float8E5M2FNUZ, Options{}}, {"E8M0-up", Float8E8M0, Options{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchEach(b, 5, func(b *testing.B, n int) {
				dst := make([]uint8, n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					Float32ToFloat8(dst, c.to, window(i, n), c.opt)
				}
			})
		})
	}
}

func BenchmarkFloat8ToFloat32(b *testing.B) {
	benchEach(b, 5, func(b *testing.B, n int) {
		src := make([]uint8, 2*n)
		Float32ToFloat8(src, Float8E4M3FN, benchPoolOnce()[:2*n], Options{})
		dst := make([]float32, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			o := i % 2 * n
			Float8ToFloat32(dst, src[o:o+n], Float8E4M3FN)
		}
	})
}

func BenchmarkCastFloat32ToFloat4(b *testing.B) {
	benchEach(b, 4, func(b *testing.B, n int) { // 4N read + N/2 written, rounded down
		dst := make([]byte, Float4E2M1.Size(n))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			src := window(i, n)
			_ = Cast(dst, Float4E2M1, asBytes(src), Float, n, Options{})
		}
	})
}

func BenchmarkCastInt8ToInt4(b *testing.B) {
	benchEach(b, 1, func(b *testing.B, n int) {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i * 7)
		}
		dst := make([]byte, Int4.Size(n))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			_ = Cast(dst, Int4, src, Int8, n, Options{})
		}
	})
}

func BenchmarkCastDoubleToFloat(b *testing.B) {
	benchEach(b, 12, func(b *testing.B, n int) {
		src := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			v := math.Float64bits(float64(benchPoolOnce()[i]))
			for j := 0; j < 8; j++ {
				src[8*i+j] = byte(v >> (8 * j))
			}
		}
		dst := make([]byte, 4*n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			_ = Cast(dst, Float, src, Double, n, Options{})
		}
	})
}

func asBytes(s []float32) []byte { return byteSlice(s) }

// BenchmarkGenericFloat32ToFloat16 measures the portable kernel on every
// machine (the target: 4× a loop of x448/float16 Fromfloat32 on
// data the branch predictor has not seen).
func BenchmarkGenericFloat32ToFloat16(b *testing.B) {
	f := genericKernels().f32ToF16.fn
	benchEach(b, 6, func(b *testing.B, n int) {
		dst := make([]uint16, n)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			f(dst, window(i, n))
		}
	})
}
