package tensorcast

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// The STRING benchmarks of issue 10: 4096 values normal × 10^[-6,6), as a
// user would hold them, against strconv doing the same job on the same
// values or strings. Compare within one run, e.g.
//
//	go test -run '^$' -bench 'Strings' -benchtime=200ms -count=3 .
//
// ns/elem is reported so that the ratios read directly.
const stringsBenchN = 4096

func stringsBenchValues() []float64 {
	r := rand.New(rand.NewPCG(42, 10))
	xs := make([]float64, stringsBenchN)
	for i := range xs {
		xs[i] = r.NormFloat64() * math.Pow10(r.IntN(12)-6)
	}
	return xs
}

// stringsBenchTensor returns the values as a raw tensor of type t (rounded
// by Cast from DOUBLE).
func stringsBenchTensor(b *testing.B, t DataType) []byte {
	xs := stringsBenchValues()
	src := make([]byte, 8*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint64(src[8*i:], math.Float64bits(x))
	}
	dst := make([]byte, t.Size(len(xs)))
	if err := Cast(dst, t, src, Double, len(xs), Options{}); err != nil {
		b.Fatal(err)
	}
	return dst
}

func perElem(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/stringsBenchN, "ns/elem")
}

func BenchmarkToStrings(b *testing.B) {
	xs := stringsBenchValues()
	dst := make([]string, stringsBenchN)
	b.Run("strconv-FLOAT", func(b *testing.B) {
		f32 := make([]float32, len(xs))
		for i, x := range xs {
			f32[i] = float32(x)
		}
		for b.Loop() {
			for i, f := range f32 {
				dst[i] = strconv.FormatFloat(float64(f), 'g', -1, 32)
			}
		}
		perElem(b)
	})
	b.Run("strconv-DOUBLE", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = strconv.FormatFloat(x, 'g', -1, 64)
			}
		}
		perElem(b)
	})
	for _, t := range []DataType{Float, Double, Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ,
		Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1, Int32, Int64} {
		src := stringsBenchTensor(b, t)
		b.Run(t.String(), func(b *testing.B) {
			if err := CastToStrings(dst, src, t, stringsBenchN); err != nil { // builds a table on first use
				b.Fatal(err)
			}
			for b.Loop() {
				_ = CastToStrings(dst, src, t, stringsBenchN)
			}
			perElem(b)
		})
	}
}

func BenchmarkFromStrings(b *testing.B) {
	// FLOAT's strings (at most 9 digits) for every target but DOUBLE, which
	// reads DOUBLE's (up to 17 digits).
	f32s := make([]string, stringsBenchN)
	f64s := make([]string, stringsBenchN)
	if err := CastToStrings(f32s, stringsBenchTensor(b, Float), Float, stringsBenchN); err != nil {
		b.Fatal(err)
	}
	if err := CastToStrings(f64s, stringsBenchTensor(b, Double), Double, stringsBenchN); err != nil {
		b.Fatal(err)
	}
	var sink float64
	b.Run("strconv-32", func(b *testing.B) {
		for b.Loop() {
			for _, s := range f32s {
				f, _ := strconv.ParseFloat(s, 32)
				sink += f
			}
		}
		perElem(b)
	})
	b.Run("strconv-64-FLOATstrings", func(b *testing.B) {
		for b.Loop() {
			for _, s := range f32s {
				f, _ := strconv.ParseFloat(s, 64)
				sink += f
			}
		}
		perElem(b)
	})
	b.Run("strconv-64-DOUBLEstrings", func(b *testing.B) {
		for b.Loop() {
			for _, s := range f64s {
				f, _ := strconv.ParseFloat(s, 64)
				sink += f
			}
		}
		perElem(b)
	})
	for _, t := range []DataType{Float, Double, Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ,
		Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1, Int32} {
		strs := f32s
		if t == Double {
			strs = f64s
		}
		dst := make([]byte, t.Size(stringsBenchN))
		b.Run(t.String(), func(b *testing.B) {
			for b.Loop() {
				if err := CastFromStrings(dst, t, strs, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			perElem(b)
		})
	}
	_ = sink
}

// BenchmarkStringsRatios measures every case of issue 10 against its strconv
// baseline interleaved, round after round, keeping each case's fastest
// round: on a loaded machine the ratios are then steadier than those of
// separate benchmarks. Each metric is "case time / baseline time".
func BenchmarkStringsRatios(b *testing.B) {
	xs := stringsBenchValues()
	f32 := make([]float32, len(xs))
	for i, x := range xs {
		f32[i] = float32(x)
	}
	strs := make([]string, stringsBenchN)
	f32s := make([]string, stringsBenchN)
	f64s := make([]string, stringsBenchN)
	if err := CastToStrings(f32s, stringsBenchTensor(b, Float), Float, stringsBenchN); err != nil {
		b.Fatal(err)
	}
	if err := CastToStrings(f64s, stringsBenchTensor(b, Double), Double, stringsBenchN); err != nil {
		b.Fatal(err)
	}
	var sink float64
	type bcase struct {
		name, base string
		run        func()
	}
	cases := []bcase{
		{"strconv.FormatFloat-32", "", func() {
			for i, f := range f32 {
				strs[i] = strconv.FormatFloat(float64(f), 'g', -1, 32)
			}
		}},
		{"strconv.FormatFloat-64", "", func() {
			for i, x := range xs {
				strs[i] = strconv.FormatFloat(x, 'g', -1, 64)
			}
		}},
		{"strconv.ParseFloat-32", "", func() {
			for _, s := range f32s {
				f, _ := strconv.ParseFloat(s, 32)
				sink += f
			}
		}},
		{"strconv.ParseFloat-64", "", func() {
			for _, s := range f32s {
				f, _ := strconv.ParseFloat(s, 64)
				sink += f
			}
		}},
		{"strconv.ParseFloat-64-DOUBLEstrings", "", func() {
			for _, s := range f64s {
				f, _ := strconv.ParseFloat(s, 64)
				sink += f
			}
		}},
	}
	for _, t := range []DataType{Float, Double, Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1} {
		src := stringsBenchTensor(b, t)
		base := "strconv.FormatFloat-32"
		if t == Double {
			base = "strconv.FormatFloat-64"
		}
		cases = append(cases, bcase{"To-" + t.String(), base, func() { _ = CastToStrings(strs, src, t, stringsBenchN) }})
	}
	for _, t := range []DataType{Float, Double, Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1} {
		in, base := f32s, "strconv.ParseFloat-64"
		switch t {
		case Float:
			base = "strconv.ParseFloat-32"
		case Double:
			in, base = f64s, "strconv.ParseFloat-64-DOUBLEstrings"
		}
		dst := make([]byte, t.Size(stringsBenchN))
		cases = append(cases, bcase{"From-" + t.String(), base, func() {
			if err := CastFromStrings(dst, t, in, Options{}); err != nil {
				b.Fatal(err)
			}
		}})
	}
	best := make(map[string]time.Duration)
	for _, c := range cases {
		c.run() // tables
	}
	for b.Loop() {
		for _, c := range cases {
			start := time.Now()
			c.run()
			if d := time.Since(start); best[c.name] == 0 || d < best[c.name] {
				best[c.name] = d
			}
		}
	}
	for _, c := range cases {
		if c.base == "" {
			b.ReportMetric(float64(best[c.name].Nanoseconds())/stringsBenchN, "ns/elem-"+c.name)
			continue
		}
		b.ReportMetric(float64(best[c.name])/float64(best[c.base]), "x-"+c.name)
	}
	_ = sink
}
