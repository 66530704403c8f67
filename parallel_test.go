package tensorcast

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"
)

// withMinBytes lowers the per-goroutine threshold so small inputs split.
func withMinBytes(t testing.TB, v int) {
	old := parallelMinBytes
	parallelMinBytes = v
	t.Cleanup(func() { parallelMinBytes = old })
}

// parallelPairs are the hot pairs (every kernel case) plus pairs served by
// the native and element-wise paths, including 2-bit and packed-to-packed.
func parallelPairs() []kernelCase {
	cs := kernelCases()
	for _, p := range [][2]DataType{{Double, Float16}, {Int2, Float}, {Float, Uint2}, {Int4, Uint4},
		{Float4E2M1, Float4E2M1}, {Bool, Int64}, {Int32, Float}, {Float16, BFloat16}} {
		cs = append(cs, kernelCase{name: fmt.Sprintf("%v->%v", p[0], p[1]), from: p[0], to: p[1]})
	}
	return cs
}

// TestCastParallelEqualsCast converts the same random input with Cast and
// with CastParallel for every pair, several sizes (odd counts of packed
// types included), worker counts and dst/src byte offsets, with dst
// prefilled with garbage, and compares the whole dst buffers: results,
// padding bits and the bytes beyond the result must all be equal.
func TestCastParallelEqualsCast(t *testing.T) {
	withMinBytes(t, 64)
	rng := rand.New(rand.NewPCG(3, 5))
	pieces := 0
	for _, c := range parallelPairs() {
		for _, n := range []int{0, 1, 5, 63, 200, 1001, 4099, 12345} {
			src := randomTensor(rng, c.from, n+64)
			for _, w := range []int{1, 2, 3, 4, 7} {
				so, do := rng.IntN(9), rng.IntN(65)
				need := c.to.Size(n) + 70
				want := bytes.Repeat([]byte{0xA5}, need)
				got := bytes.Repeat([]byte{0xA5}, need)
				s := src[so:]
				if err := Cast(want[do:], c.to, s, c.from, n, c.opt); err != nil {
					t.Fatal(err)
				}
				if err := CastParallel(got[do:], c.to, s, c.from, n, c.opt, w); err != nil {
					t.Fatalf("%s n=%d workers=%d: %v", c.name, n, w, err)
				}
				if !bytes.Equal(got, want) {
					i := 0
					for got[i] == want[i] {
						i++
					}
					t.Fatalf("%s n=%d workers=%d dst offset %d src offset %d: byte %d is %#x, Cast wrote %#x",
						c.name, n, w, do, so, i-do, got[i], want[i])
				}
				pieces += max(1, len(splitPoints(got[do:], c.to, c.from, n, w))-1)
			}
		}
	}
	t.Logf("%d pairs, %d pieces", len(parallelPairs()), pieces)
}

// TestCastParallelDefaultThreshold runs a split at the real threshold with
// every tier this machine has.
func TestCastParallelDefaultThreshold(t *testing.T) {
	if testing.Short() {
		t.Skip("8 MiB inputs")
	}
	defer UseTier(Tiers()[len(Tiers())-1])
	rng := rand.New(rand.NewPCG(9, 9))
	n := 1<<20 + 3
	src := randomTensor(rng, Float, n)
	for _, tier := range Tiers() {
		if err := UseTier(tier); err != nil {
			t.Fatal(err)
		}
		for _, to := range []DataType{Float16, BFloat16, Float8E5M2, Float4E2M1} {
			want := make([]byte, to.Size(n))
			got := make([]byte, to.Size(n))
			if err := Cast(want, to, src, Float, n, Options{}); err != nil {
				t.Fatal(err)
			}
			if k := len(splitPoints(got, to, Float, n, 4)) - 1; k < 2 {
				t.Fatalf("%v: %d elements split into %d pieces at the default threshold", to, n, k)
			}
			if err := CastParallel(got, to, src, Float, n, Options{}, 4); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("tier %s FLOAT->%v: CastParallel differs from Cast", tier, to)
			}
		}
	}
}

// TestSplitPoints checks the piece boundaries: increasing from 0 to n, at
// most `workers` pieces of at least about parallelMinBytes, whole bytes of
// packed types, and starting cache lines of dst when dst is aligned.
func TestSplitPoints(t *testing.T) {
	withMinBytes(t, 1000)
	buf := make([]byte, 1<<20+128)
	base := int(uintptr(unsafe.Pointer(&buf[0])) % 64)
	pairs := [][2]DataType{{Float, Float16}, {Float16, Float}, {Float, Float8E4M3FN}, {Float, Int4},
		{Int4, Int8}, {Uint2, Float}, {Float, Uint2}, {Double, Float}, {Int8, Int4}, {Int64, Int64}}
	for _, p := range pairs {
		from, to := p[0], p[1]
		for _, n := range []int{1, 99, 1000, 4097, 50001, 262143} {
			for _, w := range []int{2, 3, 8} {
				for _, off := range []int{0, 1, 2, 4, 8, 37} {
					d := buf[(64-base)%64+off:]
					b := splitPoints(d, to, from, n, w)
					traffic := n * (from.BitSize() + to.BitSize()) / 8
					if b == nil {
						if traffic >= 2*parallelMinBytes+2*64*8 {
							t.Errorf("%v->%v n=%d w=%d: not split, traffic %d", from, to, n, w, traffic)
						}
						continue
					}
					if b[0] != 0 || b[len(b)-1] != n || len(b)-1 > w {
						t.Fatalf("%v->%v n=%d w=%d: bounds %v", from, to, n, w, b)
					}
					for k := 1; k < len(b)-1; k++ {
						lo := b[k]
						if lo <= b[k-1] {
							t.Fatalf("%v->%v n=%d: bounds %v not increasing", from, to, n, b)
						}
						if lo*from.BitSize()%8 != 0 || lo*to.BitSize()%8 != 0 {
							t.Fatalf("%v->%v: boundary %d splits a byte", from, to, lo)
						}
						// dst aligned to its element size (or packed): lines.
						if eb := max(1, to.BitSize()/8); off%eb == 0 {
							if addr := uintptr(unsafe.Pointer(&d[0])) + uintptr(to.Size(lo)); addr%64 != 0 {
								if srcUnit := max(1, 8/from.BitSize()); (64-off%64)*8/to.BitSize()%srcUnit == 0 {
									t.Fatalf("%v->%v n=%d off=%d: boundary %d at dst address %% 64 = %d", from, to, n, off, lo, addr%64)
								}
							}
						}
					}
					for k := 1; k < len(b); k++ {
						if piece := (b[k] - b[k-1]) * (from.BitSize() + to.BitSize()) / 8; piece < parallelMinBytes/2 {
							t.Fatalf("%v->%v n=%d w=%d: piece %d..%d has %d bytes of traffic", from, to, n, w, b[k-1], b[k], piece)
						}
					}
				}
			}
		}
	}
}

// TestCastParallelErrors checks that CastParallel returns Cast's error for
// every invalid call, and writes nothing then.
func TestCastParallelErrors(t *testing.T) {
	withMinBytes(t, 16)
	src := make([]byte, 4096)
	for _, c := range []struct {
		to, from          DataType
		n, srcLen, dstLen int
		opt               Options
	}{
		{Float16, Float, -1, 4096, 4096, Options{}},
		{Float16, Float, 1000, 3999, 4096, Options{}},
		{Float16, Float, 1000, 4096, 1999, Options{}},
		{Int4, Float, 1001, 4096, 500, Options{}},
		{Float, Uint2, 4096, 1023, 4096, Options{}},
		{String, Float, 10, 4096, 4096, Options{}},
		{Float, String, 10, 4096, 4096, Options{}},
		{Undefined, Float, 10, 4096, 4096, Options{}},
		{Float, Complex64, 10, 4096, 4096, Options{}},
		{DataType(99), Float, 10, 4096, 4096, Options{}},
		{Float8E8M0, Float, 10, 4096, 4096, Options{RoundMode: 7}},
	} {
		want := Cast(make([]byte, c.dstLen), c.to, src[:c.srcLen], c.from, c.n, c.opt)
		if want == nil {
			t.Fatalf("%+v: Cast accepted it", c)
		}
		for _, w := range []int{1, 2, 8} {
			dst := bytes.Repeat([]byte{0x5A}, c.dstLen)
			got := CastParallel(dst, c.to, src[:c.srcLen], c.from, c.n, c.opt, w)
			if got == nil || got.Error() != want.Error() {
				t.Fatalf("%+v workers=%d: error %v, Cast says %v", c, w, got, want)
			}
			if bytes.Count(dst, []byte{0x5A}) != len(dst) {
				t.Fatalf("%+v workers=%d: dst written on error", c, w)
			}
		}
	}
}

// TestCastParallelSmallRunsInline checks that a conversion below the
// threshold is not split (no goroutine).
func TestCastParallelSmallRunsInline(t *testing.T) {
	dst := make([]byte, 2<<10)
	if b := splitPoints(dst, Float16, Float, 1<<10, 8); b != nil {
		t.Fatalf("1 Ki elements split into %v", b)
	}
	src := make([]byte, 4<<10)
	allocs := testing.AllocsPerRun(50, func() {
		if err := CastParallel(dst, Float16, src, Float, 1<<10, Options{}, 8); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("inline CastParallel allocates %v per call", allocs)
	}
}

// BenchmarkLargeCastParallel measures CastParallel at 64 Mi elements with 1
// and 2 workers (set TENSORCAST_BENCH_LARGE=1; see bench_large_test.go).
func BenchmarkLargeCastParallel(b *testing.B) {
	if os.Getenv("TENSORCAST_BENCH_LARGE") == "" {
		b.Skip("set TENSORCAST_BENCH_LARGE=1 to run the 64 Mi-element benchmarks (about 1 GB of memory)")
	}
	n := largeN
	src := byteSlice(largePool())
	for _, c := range []struct {
		name string
		to   DataType
	}{{"FLOAT-FLOAT16", Float16}, {"FLOAT-BFLOAT16", BFloat16}, {"FLOAT-FLOAT8E4M3FN", Float8E4M3FN}} {
		dst := make([]byte, c.to.Size(n))
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d/n=%d", c.name, w, n), func(b *testing.B) {
				b.SetBytes(int64(n * (4 + c.to.BitSize()/8)))
				b.ReportAllocs()
				for b.Loop() {
					if err := CastParallel(dst, c.to, src, Float, n, Options{}, w); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "elem/ns")
			})
		}
	}
}
