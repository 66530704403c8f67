package text

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// tableKinds are the kinds formatted through a table: every pattern is
// checked.
var tableKinds = []ref.Kind{ref.Float16, ref.BFloat16, ref.Float8E4M3FN, ref.Float8E4M3FNUZ,
	ref.Float8E5M2, ref.Float8E5M2FNUZ, ref.Float8E8M0, ref.Float4E2M1,
	ref.Bool, ref.Uint8, ref.Int8, ref.Uint4, ref.Int4, ref.Uint2, ref.Int2}

// TestFormatTablesExhaustive: every pattern of every kind of at most 16 bits,
// through Format and through ToStrings (one tensor of all patterns), equals
// ref.Format.
func TestFormatTablesExhaustive(t *testing.T) {
	for _, k := range tableKinds {
		n := 1 << uint(k.Bits())
		src := make([]byte, ref.Size(k, n))
		for b := range n {
			ref.Put(k, src, b, uint64(b))
		}
		got := make([]string, n)
		ToStrings(got, k, src, n)
		mismatches := 0
		for b := range n {
			want := ref.Format(k, uint64(b))
			if g := Format(k, uint64(b)); g != want || got[b] != want {
				if mismatches < 10 {
					t.Errorf("kind %d pattern %#x: Format %q, ToStrings %q, ref %q", k, b, g, got[b], want)
				}
				mismatches++
			}
		}
		// Bits above the kind's width are ignored, as by ref.
		for b := range 64 {
			x := uint64(b)*0x9E3779B97F4A7C15 | 1<<63
			if g, w := Format(k, x), ref.Format(k, x); g != w {
				t.Errorf("kind %d pattern %#x: Format %q, ref %q", k, x, g, w)
			}
		}
		t.Logf("kind %d: %d patterns, %d mismatches", k, n, mismatches)
	}
}

// TestTable16Size pins the memory numbers given in table16's comment.
func TestTable16Size(t *testing.T) {
	for _, c := range []struct {
		k         ref.Kind
		off, blob int
	}{{ref.Float16, 0x7C02, 234046}, {ref.BFloat16, 0x7F82, 303972}} {
		tb := tableOf16(c.k)
		if len(tb.off) != c.off || len(tb.blob) != c.blob {
			t.Errorf("kind %d: %d offsets, %d blob bytes; the comment says %d and %d", c.k, len(tb.off), len(tb.blob), c.off, c.blob)
		}
	}
}

// floatEdges are float64 values around the layout's and the types'
// boundaries.
func floatEdges() []float64 {
	var xs []float64
	for e := -330; e <= 310; e++ {
		p := math.Pow10(e)
		xs = append(xs, p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), 1.5*p, 9.5*p, 123456789*p)
	}
	xs = append(xs, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 2.225073858507201e-308,
		math.MaxFloat32, math.SmallestNonzeroFloat32, 1.1754943508222875e-38,
		1<<53, 1<<53+2, 1<<63, 1<<64, 9999999999999998, 1e16, 0.0001, 0.00009999999999999999, 1e-5)
	return xs
}

// TestFormatFloatDouble compares FLOAT and DOUBLE with ref.Format on edge
// values and random bit patterns (uniform, and with small exponents for the
// subnormals), through Format and ToStrings.
func TestFormatFloatDouble(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 400_000
	if testing.Short() {
		n = 100_000
	}
	var f32 []uint32
	var f64 []uint64
	for _, x := range floatEdges() {
		f64 = append(f64, math.Float64bits(x), math.Float64bits(-x))
		f32 = append(f32, math.Float32bits(float32(x)), math.Float32bits(-float32(x)))
	}
	for i := range n {
		a, b := r.Uint32(), r.Uint64()
		if i%8 == 0 {
			a &= 0x80FFFFFF // subnormals and the smallest normals
			b &= 0x801FFFFFFFFFFFFF
		}
		f32 = append(f32, a)
		f64 = append(f64, b)
	}
	check := func(k ref.Kind, bits []uint64) {
		w := k.Bits() / 8
		src := make([]byte, len(bits)*w)
		for i, b := range bits {
			if w == 4 {
				binary.LittleEndian.PutUint32(src[4*i:], uint32(b))
			} else {
				binary.LittleEndian.PutUint64(src[8*i:], b)
			}
		}
		got := make([]string, len(bits))
		ToStrings(got, k, src, len(bits))
		mismatches := 0
		for i, b := range bits {
			want := ref.Format(k, b)
			if g := Format(k, b); g != want || got[i] != want {
				if mismatches < 10 {
					t.Errorf("kind %d %#x: Format %q, ToStrings %q, ref %q", k, b, g, got[i], want)
				}
				mismatches++
			}
		}
		t.Logf("kind %d: %d values, %d mismatches", k, len(bits), mismatches)
	}
	b32 := make([]uint64, len(f32))
	for i, a := range f32 {
		b32[i] = uint64(a)
	}
	check(ref.Float, b32)
	check(ref.Double, f64)
}

// TestFormatIntegers compares the 16- to 64-bit integers with ref.Format on
// edges and random patterns, through ToStrings (which cuts chunks).
func TestFormatIntegers(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range []ref.Kind{ref.Int16, ref.Uint16, ref.Int32, ref.Uint32, ref.Int64, ref.Uint64} {
		n := 3000
		vals := []uint64{0, 1, 1<<63 - 1, 1 << 63, 1<<64 - 1, 1<<15 - 1, 1 << 15, 1<<31 - 1, 1 << 31}
		for len(vals) < n {
			vals = append(vals, r.Uint64()>>uint(r.IntN(64)))
		}
		src := make([]byte, ref.Size(k, n))
		for i, v := range vals {
			ref.Put(k, src, i, v)
		}
		got := make([]string, n)
		ToStrings(got, k, src, n)
		for i := range n {
			if want := ref.Format(k, ref.Get(k, src, i)); got[i] != want {
				t.Fatalf("kind %d element %d: %q, ref %q", k, i, got[i], want)
			}
		}
	}
}

// TestToStringsLengths covers the chunk boundaries: n of 0, 1, chunk-1,
// chunk, chunk+1 and more, with dst longer than n (only n strings written).
func TestToStringsLengths(t *testing.T) {
	for _, k := range []ref.Kind{ref.Float, ref.Double, ref.Int32, ref.Float16, ref.Int4, ref.Uint2, ref.Float8E5M2} {
		for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 3*chunk + 7} {
			src := make([]byte, ref.Size(k, n))
			for i := range src {
				src[i] = byte(i*37 + 11)
			}
			dst := make([]string, n+2)
			dst[n], dst[n+1] = "keep", "keep"
			ToStrings(dst, k, src, n)
			for i := range n {
				if want := ref.Format(k, ref.Get(k, src, i)); dst[i] != want {
					t.Fatalf("kind %d n %d element %d: %q, ref %q", k, n, i, dst[i], want)
				}
			}
			if dst[n] != "keep" || dst[n+1] != "keep" {
				t.Fatalf("kind %d n %d: wrote beyond n", k, n)
			}
		}
	}
}

func TestToStringsAllocations(t *testing.T) {
	src := make([]byte, 4*1024)
	dst := make([]string, 1024)
	for _, c := range []struct {
		k    ref.Kind
		want float64
	}{{ref.Float16, 0}, {ref.Float8E4M3FN, 0}, {ref.Float, 1 + 1024/chunk}, {ref.Int32, 1 + 1024/chunk}} {
		ToStrings(dst, c.k, src, 1024) // builds the table
		if got := testing.AllocsPerRun(10, func() { ToStrings(dst, c.k, src, 1024) }); got > c.want {
			t.Errorf("kind %d: %v allocations per call of 1024 elements, want at most %v", c.k, got, c.want)
		}
	}
}

func BenchmarkBuildTable16(b *testing.B) {
	for _, c := range []struct {
		name string
		k    ref.Kind
		inf  uint16
	}{{"FLOAT16", ref.Float16, 0x7C00}, {"BFLOAT16", ref.BFloat16, 0x7F80}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				buildTable16(c.k, c.inf)
			}
		})
	}
}
