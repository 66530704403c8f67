package tensorcast

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkEverydayPairs times Cast on the pairs users convert every day
// (issue 9's list) at 64 Ki elements, each with copy() of its larger side in
// the same benchmark: the ratio metric is time(copy)/time(Cast), ≥ 1 meaning
// faster than copying. bench/ -matrix measures every pair.
func BenchmarkEverydayPairs(b *testing.B) {
	const n = 64 << 10
	pairs := [][2]DataType{
		{BFloat16, Float16}, {Float16, BFloat16}, {Float8E4M3FN, BFloat16}, {Float8E4M3FN, Float16},
		{Double, Float}, {Float, Double}, {Int64, Int32}, {Int32, Int64}, {Float, Int32}, {Float, Int64},
		{Uint8, Float}, {Int8, Float}, {Bool, Float}, {Float, Bool}, {Int4, Float16}, {Uint4, BFloat16},
		{Double, Float16}, {Int64, Float}, {Double, Float8E4M3FN}, {Int32, Float},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range pairs {
		from, to := p[0], p[1]
		src := randomTensor(rng, from, n)
		dst := make([]byte, to.Size(n))
		big := max(from.Size(n), to.Size(n))
		cs, cd := make([]byte, big), make([]byte, big)
		b.Run(fmt.Sprintf("%v->%v", from, to), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(from.Size(n) + to.Size(n)))
			var tc, tk int64
			for i := 0; i < b.N; i++ {
				t0 := nanotime()
				copy(cd, cs)
				t1 := nanotime()
				Cast(dst, to, src, from, n, Options{})
				t2 := nanotime()
				tc += t1 - t0
				tk += t2 - t1
			}
			b.ReportMetric(float64(tc)/float64(tk), "x-copy")
			b.ReportMetric(float64(n)*float64(b.N)/float64(tk), "elem/ns")
		})
	}
}

func nanotime() int64 { return time.Now().UnixNano() }
