package tensorcast

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// The plan tests: every pair's plan (plan.go) equals the reference on every
// tier, for every bit pattern of the ≤16-bit sources and for millions of
// structured inputs of the 32- and 64-bit sources, in place too.

// castModes lists the Options that can change a conversion to `to`: both
// saturate modes for the float8 types, every round mode × saturate for E8M0,
// the default for the rest.
func castModes(to DataType) []Options {
	switch to {
	case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ:
		return []Options{{}, {NoSaturate: true}}
	case Float8E8M0:
		var os []Options
		for _, m := range []RoundMode{RoundUp, RoundDown, RoundNearest} {
			os = append(os, Options{RoundMode: m}, Options{RoundMode: m, NoSaturate: true})
		}
		return os
	}
	return []Options{{}}
}

func numericTypeList() []DataType {
	var ts []DataType
	for _, t := range AllTypes() {
		if numeric(t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// allPatterns returns every bit pattern of a type of at most 16 bits, packed.
func allPatterns(t DataType) ([]byte, int) {
	return rotatedPatterns(t, []int{0})
}

// rotatedPatterns returns every bit pattern of t once for each rotation r
// in rots, in order, starting at pattern r: with the rotations 0..63 of
// an 8-bit type every pattern meets every lane of a vector of up to 64
// elements.
func rotatedPatterns(t DataType, rots []int) ([]byte, int) {
	m := 1 << t.BitSize()
	n := m * len(rots)
	b := make([]byte, t.Size(n))
	for k, r := range rots {
		for i := range m {
			ref.Put(ref.Kind(t), b, k*m+i, uint64((i+r)%m))
		}
	}
	return b, n
}

// checkAllTiers converts src (n elements of from) to `to` with every tier's
// kernels and compares the bytes with want.
func checkAllTiers(t *testing.T, want, src []byte, from, to DataType, n int, opt Options) {
	t.Helper()
	got := make([]byte, len(want))
	for _, k := range tiers {
		for i := range got {
			got[i] = 0xA5
		}
		castBytesWith(k, got, to, src, from, n, opt)
		if !bytes.Equal(got, want) {
			for i := 0; i < n; i++ {
				g, w := ref.Get(ref.Kind(to), got, i), ref.Get(ref.Kind(to), want, i)
				if g != w {
					t.Fatalf("%s %v -> %v %+v: element %d (src %#x): got %#x, want %#x (route %v)", k.tier, from, to, opt, i,
						ref.Get(ref.Kind(from), src, i), g, w, routeOf(k, from, to))
				}
			}
			t.Fatalf("%s %v -> %v: padding differs", k.tier, from, to)
		}
	}
}

func routeOf(k *kernelSet, from, to DataType) Route {
	for _, r := range routesOf(k) {
		if r.From == from && r.To == to {
			return r
		}
	}
	return Route{}
}

// TestPlansEveryNarrowSource converts every bit pattern of every source of at
// most 16 bits to every numeric type in every Options mode on every tier:
// the patterns of a source of at most 8 bits in every lane of a vector of
// up to 64 elements (rotations 0..63), those of a 16-bit source in three
// lanes of each.
func TestPlansEveryNarrowSource(t *testing.T) {
	var cases, inputs int
	for _, from := range numericTypeList() {
		if from.BitSize() > 16 {
			continue
		}
		rots := []int{0, 37}
		if from.BitSize() <= 8 {
			rots = make([]int, 64)
			for r := range rots {
				rots[r] = r
			}
		}
		src, n := rotatedPatterns(from, rots)
		for _, to := range numericTypeList() {
			for _, opt := range castModes(to) {
				want := make([]byte, to.Size(n))
				ref.Cast(want, ref.Kind(to), src, ref.Kind(from), n, refOptions(opt))
				if from == to && from != Bool {
					copy(want, src)
				}
				checkAllTiers(t, want, src, from, to, n, opt)
				cases++
				inputs += n
			}
		}
	}
	t.Logf("%d source/target/mode cases, %d inputs in all, on each of %v: 0 mismatches", cases, inputs, Tiers())
	logCount(t, "TestPlansEveryNarrowSource: %d inputs (all patterns × targets × modes) × %d tiers, 0 mismatches", inputs, len(tiers))
}

// TestPlansIsolatedPatterns converts every bit pattern of the 8- and 16-bit
// sources alone among ordinary values (the source's 1): pattern j sits at
// lane j mod 64 of its own block of 64, so a kernel that sends a block
// with a special value (subnormal, Inf, NaN) to another path, or merges
// specials by mask, is checked on each such value without its neighbours
// in the all-patterns order (where an Inf sits among NaNs) doing it for
// it. Every target, the modes taking turns, every tier.
func TestPlansIsolatedPatterns(t *testing.T) {
	const block = 64
	for _, from := range numericTypeList() {
		if from.BitSize() != 8 && from.BitSize() != 16 {
			continue
		}
		t.Run(from.String(), func(t *testing.T) {
			t.Parallel()
			one := make([]byte, from.Size(1))
			if err := Cast(one, from, byteSlice([]float32{1}), Float, 1, Options{}); err != nil {
				t.Fatal(err)
			}
			fill := ref.Get(ref.Kind(from), one, 0)
			m := 1 << from.BitSize()
			step := 1
			if testing.Short() && m > 256 {
				step = 61 // a sample of the 16-bit patterns
			}
			var n int
			src := make([]byte, from.Size(m*block))
			for j := 0; j < m; j += step {
				for i := range block {
					v := fill
					if i == j%block {
						v = uint64(j)
					}
					ref.Put(ref.Kind(from), src, n, v)
					n++
				}
			}
			src = src[:from.Size(n)]
			for ti, to := range numericTypeList() {
				modes := castModes(to)
				opt := modes[ti%len(modes)]
				want := make([]byte, to.Size(n))
				ref.Cast(want, ref.Kind(to), src, ref.Kind(from), n, refOptions(opt))
				if from == to && from != Bool {
					copy(want, src)
				}
				checkAllTiers(t, want, src, from, to, n, opt)
			}
			t.Logf("%v: %d of %d patterns, each alone in a block of %d, to every target on each of %v: 0 mismatches", from, n/block, m, block, Tiers())
		})
	}
}

// structuredInputs returns n inputs of a 32- or 64-bit source type that hit
// the places where conversions go wrong: the values of every narrow float
// target and the midpoints between them (exactly and one unit either side),
// powers of two and the E8M0 ties ×1.5, integer limits, NaN payloads,
// subnormals, and random bits for the rest.
func structuredInputs(from DataType, n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, uint64(from)))
	var vals []uint64
	add := func(v uint64) { vals = append(vals, v) }
	isInt := from.IsInteger()
	w := from.BitSize()
	// Exact values as float64 of the targets' grids and their midpoints.
	var grid []float64
	for _, tt := range []DataType{Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float4E2M1} {
		pats, m := allPatterns(tt)
		for i := 0; i < m; i++ {
			f := math.Float32frombits(uint32(ref.Convert(ref.Float, ref.Kind(tt), ref.Get(ref.Kind(tt), pats, i), ref.Options{Saturate: true})))
			if f == f && !math.IsInf(float64(f), 0) && f >= 0 {
				grid = append(grid, float64(f))
			}
		}
	}
	for e := -1100; e <= 1100; e++ {
		grid = append(grid, math.Ldexp(1, e), math.Ldexp(1.5, e))
	}
	for _, x := range grid {
		// Each value, its successor's midpoint candidates: x·(1+2^-k).
		cands := []float64{x}
		for _, k := range []int{2, 3, 4, 8, 9, 11, 12} {
			cands = append(cands, x+math.Ldexp(x, -k))
		}
		for _, c := range cands {
			for _, s := range []float64{1, -1} {
				v := s * c
				if isInt {
					if math.Abs(v) < 0x1p64 {
						i := int64(math.Trunc(v))
						if v >= 0x1p63 {
							u := uint64(v)
							add(u - 1)
							add(u)
							add(u + 1)
						} else {
							add(uint64(i - 1))
							add(uint64(i))
							add(uint64(i + 1))
						}
					}
					continue
				}
				b := math.Float64bits(v)
				add(b - 1)
				add(b)
				add(b + 1)
			}
		}
	}
	if isInt {
		for e := 0; e < 64; e++ {
			for d := -3; d <= 3; d++ {
				add(uint64(1)<<uint(e) + uint64(d))
				add(-(uint64(1)<<uint(e) + uint64(d)))
			}
		}
	} else {
		for _, b := range []uint64{0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000,
			0x7FF0000000000001, 0xFFF4000000000000, 0x7FFFFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 1, 0x000FFFFFFFFFFFFF,
			math.Float64bits(math.MaxFloat32), math.Float64bits(0x1p128), math.Float64bits(0x1p-149), math.Float64bits(0x1p-150),
			math.Float64bits(0x1p-126), math.Float64bits(0x1p-127), math.Float64bits(0x1p-133), math.Float64bits(0x1p-134)} {
			for d := uint64(0); d < 3; d++ {
				add(b + d)
				add(b - d)
				add(b ^ 1<<63 + d)
			}
		}
		for range 2000 { // NaN payloads
			add(0x7FF0000000000000 | rng.Uint64()&0x800FFFFFFFFFFFFF | 1)
		}
	}
	rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] }) // a short run samples all kinds
	out := make([]byte, from.Size(n))
	sz := w / 8
	for i := 0; i < n; i++ {
		var v uint64
		switch {
		case i < len(vals):
			v = vals[i]
		case i%2 == 0:
			v = vals[rng.IntN(len(vals))] ^ rng.Uint64()&0xF // near a structured value
		default:
			v = rng.Uint64()
		}
		for j := 0; j < sz; j++ {
			out[i*sz+j] = byte(v >> (8 * j))
		}
	}
	return out
}

// TestPlansWideSources compares every pair from DOUBLE, INT32, UINT32, INT64
// and UINT64 with the reference on structured inputs (10M per pair in the
// full run), on every tier, the Options modes taking turns by block.
func TestPlansWideSources(t *testing.T) {
	n, chunk := 10_000_000, 1<<16
	if testing.Short() {
		n, chunk = 200_000, 1<<14 // still every Options mode (one per chunk), twice
	}
	type job struct{ from, to DataType }
	var jobs []job
	for _, from := range []DataType{Double, Int32, Uint32, Int64, Uint64} {
		for _, to := range numericTypeList() {
			if to != from {
				jobs = append(jobs, job{from, to})
			}
		}
	}
	srcs := map[DataType][]byte{}
	for _, j := range jobs {
		if srcs[j.from] == nil {
			srcs[j.from] = structuredInputs(j.from, n, 1)
		}
	}
	var mu sync.Mutex
	var failed error
	var wg sync.WaitGroup
	next := make(chan job)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				if err := checkWide(srcs[j.from], j.from, j.to, n, chunk); err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	t.Logf("%d pairs × %d structured inputs on %v: 0 mismatches", len(jobs), n, Tiers())
	logCount(t, "TestPlansWideSources: %d pairs × %d structured inputs × %d tiers, 0 mismatches", len(jobs), n, len(tiers))
}

func checkWide(src []byte, from, to DataType, n, chunk int) error {
	modes := castModes(to)
	sz := from.BitSize() / 8
	want := make([]byte, to.Size(chunk))
	got := make([]byte, to.Size(chunk))
	for c, lo := 0, 0; lo < n; c, lo = c+1, lo+chunk {
		m := min(chunk, n-lo)
		opt := modes[c%len(modes)]
		s := src[lo*sz : (lo+m)*sz]
		ref.Cast(want, ref.Kind(to), s, ref.Kind(from), m, refOptions(opt))
		for _, k := range tiers {
			castBytesWith(k, got, to, s, from, m, opt)
			if !bytes.Equal(got[:to.Size(m)], want[:to.Size(m)]) {
				for i := 0; i < m; i++ {
					g, w := ref.Get(ref.Kind(to), got, i), ref.Get(ref.Kind(to), want, i)
					if g != w {
						return fmt.Errorf("%s %v -> %v %+v: input %#x: got %#x, want %#x (route %v)", k.tier, from, to, opt,
							ref.Get(ref.Kind(from), s, i), g, w, routeOf(k, from, to))
					}
				}
			}
		}
	}
	return nil
}

// TestRoundToOdd checks the round-to-odd pivot against its definition on
// the edges the plan.go argument names.
func TestRoundToOdd(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want uint32
	}{
		{1, 0x3F800000},
		{1 + 0x1p-30, 0x3F800001},           // dropped bits: odd
		{1 - 0x1p-30, 0x3F7FFFFF},           // truncated toward zero, already odd
		{math.MaxFloat32, 0x7F7FFFFF},       // exact
		{0x1p128 - 0x1p100, 0x7F7FFFFF},     // rounds to Inf under RNE; odd truncation is the max
		{0x1p128, 0x7F800000},               // beyond the exponent range: Inf
		{math.Inf(-1), 0xFF800000},          // Inf
		{0x1p-160, 0x00000001},              // below the smallest subnormal: 2^-149, odd
		{-0x1p-149 * 2.5, 0x80000003},       // subnormal with dropped bits
		{float64(1<<24 + 1), 0x4B800001},    // odd
		{float64(1<<24 + 2), 0x4B800001},    // exact in float32: 2^24+2 = 0x4B800001
		{float64(1<<25 + 2), 0x4C000001},    // dropped bits: 2^25 | odd
		{float64(-(1<<25 + 4)), 0xCC000001}, // exact
	} {
		if got := f64ToF32Odd(math.Float64bits(c.x)); got != c.want {
			t.Errorf("f64ToF32Odd(%g) = %#x, want %#x", c.x, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 9))
	for _, v := range []int64{0, 1, -1, 1 << 24, 1<<24 + 1, -(1<<24 + 3), 1<<31 - 1, -1 << 31, 1<<32 - 1, 1<<31 + 5} {
		if got, want := int32ToF32Odd(v), intToF32Odd(uint64(v), true); got != want {
			t.Fatalf("int32ToF32Odd(%d) = %#x, want %#x", v, got, want)
		}
	}
	for range 1_000_000 {
		v := int64(int32(rng.Uint32()))
		if rng.IntN(2) == 0 {
			v = int64(rng.Uint32())
		}
		if got, want := int32ToF32Odd(v), intToF32Odd(uint64(v), true); got != want {
			t.Fatalf("int32ToF32Odd(%d) = %#x, want %#x", v, got, want)
		}
	}
	for range 1_000_000 {
		u := rng.Uint64() >> uint(rng.IntN(64))
		b := intToF32Odd(u, false)
		if u < 1<<24 {
			if b != math.Float32bits(float32(u)) {
				t.Fatalf("intToF32Odd(%d) = %#x, not exact", u, b)
			}
			continue
		}
		s := 64 - bits.LeadingZeros64(u) - 24 // dropped bits
		exact := bits.TrailingZeros64(u) >= s
		lo := uint64(math.Float32frombits(b &^ 1))
		switch {
		case exact && uint64(math.Float32frombits(b)) != u:
			t.Fatalf("intToF32Odd(%d) = %#x, want the exact value", u, b)
		case !exact && (b&1 == 0 || lo > u || u-lo >= 2<<uint(s)):
			t.Fatalf("intToF32Odd(%d) = %#x: not the odd truncation", u, b)
		}
	}
}

// TestInPlaceEveryPair converts in place (src and dst the same memory) for
// every same-size pair on every tier at lengths 0..4099 (0..300 and a few
// long ones under -short) and compares with the out-of-place result.
func TestInPlaceEveryPair(t *testing.T) {
	lengths := make([]int, 0, 4100)
	for n := 0; n <= 4099; n++ {
		if !testing.Short() || n <= 300 || n%997 == 0 || n == 4099 {
			lengths = append(lengths, n)
		}
	}
	rng := rand.New(rand.NewPCG(2, 4))
	pairs := 0
	for _, from := range numericTypeList() {
		for _, to := range numericTypeList() {
			if from == to || from.BitSize() != to.BitSize() {
				continue
			}
			pairs++
			opt := castModes(to)[rng.IntN(len(castModes(to)))]
			src := randomTensor(rng, from, 4099)
			want := make([]byte, to.Size(4099))
			buf := make([]byte, len(src))
			for _, k := range tiers {
				// Out of place once: every shorter conversion is a prefix of
				// it (but for a packed last byte's padding, cleared below).
				castBytesWith(k, want, to, src, from, 4099, opt)
				for _, n := range lengths {
					copy(buf, src)
					if err := checkCastBytes(buf, to, buf, from, n, opt); err != nil {
						t.Fatalf("%v -> %v n=%d: in place refused: %v", from, to, n, err)
					}
					castBytesWith(k, buf, to, buf, from, n, opt)
					w := bytes.Clone(want[:to.Size(n)])
					clearPadding(w, to, n)
					if !bytes.Equal(buf[:to.Size(n)], w) {
						t.Fatalf("%s %v -> %v n=%d: in place differs from out of place", k.tier, from, to, n)
					}
				}
			}
		}
	}
	t.Logf("%d same-size pairs × %d lengths × %d tiers: in place equals out of place", pairs, len(lengths), len(tiers))
}

// TestOverlapRefused shifts dst into src by every offset that overlaps, for
// every pair: Cast returns an error (never a wrong result with nil), except
// for the same slice of a same-size pair, which must be right.
func TestOverlapRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	const n = 37
	for _, from := range numericTypeList() {
		for _, to := range numericTypeList() {
			src := randomTensor(rng, from, n)
			want := make([]byte, to.Size(n))
			if err := Cast(want, to, src, from, n, Options{}); err != nil {
				t.Fatal(err)
			}
			sb, db := from.Size(n), to.Size(n)
			for shift := -db + 1; shift < sb; shift++ {
				mem := make([]byte, sb+2*db+16)
				base := db + 8
				copy(mem[base:], src)
				s := mem[base : base+sb]
				d := mem[base+shift : base+shift+db]
				err := Cast(d, to, s, from, n, Options{})
				if shift == 0 && from.BitSize() == to.BitSize() {
					if err != nil {
						t.Fatalf("%v -> %v in place: %v", from, to, err)
					}
					if !bytes.Equal(d, want) {
						t.Fatalf("%v -> %v in place: wrong result", from, to)
					}
					continue
				}
				if err == nil {
					t.Fatalf("%v -> %v: dst shifted by %d bytes into src: no error", from, to, shift)
				}
			}
		}
	}
}

// TestSizeOverflow calls every entry point with element counts whose byte
// size overflows int: each returns an error naming n and the type, writes
// nothing and does not panic.
func TestSizeOverflow(t *testing.T) {
	counts := []int{math.MaxInt, math.MaxInt - 1, math.MaxInt/2 + 1}
	for _, c := range []uint64{1 << 61, 1<<62 + 1, 1<<60 + 1} {
		if c <= math.MaxInt { // 64-bit int
			counts = append(counts, int(c))
		}
	}
	dst := make([]byte, 64)
	src := make([]byte, 64)
	for _, typ := range numericTypeList() {
		w := typ.BitSize() / 8
		if w > 1 {
			counts = append(counts, math.MaxInt/w+1) // the smallest n that overflows
			// and the largest that does not
			if s, ok := typ.SizeOK(math.MaxInt / w); !ok || s != math.MaxInt/w*w {
				t.Fatalf("%v.SizeOK(%d) = %d, %v, want %d, true", typ, math.MaxInt/w, s, ok, math.MaxInt/w*w)
			}
		}
	}
	for _, from := range numericTypeList() {
		for _, to := range numericTypeList() {
			for _, n := range counts {
				_, okF := from.SizeOK(n)
				_, okT := to.SizeOK(n)
				if okF && okT {
					continue
				}
				for i := range dst {
					dst[i] = 0x5A
				}
				for _, call := range []func() error{
					func() error { return Cast(dst, to, src, from, n, Options{}) },
					func() error { return CastParallel(dst, to, src, from, n, Options{}, 4) },
					func() error { return CastLike(dst, to, src, from, n, Options{}) },
				} {
					err := call()
					if err == nil {
						t.Fatalf("%v -> %v n=%d: no error", from, to, n)
					}
					if !bytes.Contains([]byte(err.Error()), []byte(fmt.Sprint(n))) {
						t.Fatalf("%v -> %v n=%d: error does not name n: %v", from, to, n, err)
					}
				}
				if bytes.Count(dst, []byte{0x5A}) != len(dst) {
					t.Fatalf("%v -> %v n=%d: dst written", from, to, n)
				}
			}
		}
		for _, n := range counts {
			if _, ok := from.SizeOK(n); ok {
				continue
			}
			if err := CastToStrings(make([]string, 4), src, from, n); err == nil {
				t.Fatalf("CastToStrings %v n=%d: no error", from, n)
			}
			if from.Size(n) != math.MaxInt {
				t.Fatalf("%v.Size(%d) = %d, want MaxInt on overflow", from, n, from.Size(n))
			}
		}
	}
}

// TestRoutes checks that every numeric pair has a route of one or two steps,
// each with a tier, and that the classic pairs never pivot.
func TestRoutes(t *testing.T) {
	rs := Routes()
	types := numericTypeList()
	if len(rs) != len(types)*len(types) {
		t.Fatalf("%d routes, want %d", len(rs), len(types)*len(types))
	}
	for _, r := range rs {
		if len(r.Steps) == 0 || len(r.Steps) > 2 || len(r.Steps) != len(r.Tiers) {
			t.Fatalf("%v -> %v: route %+v", r.From, r.To, r)
		}
		if (len(r.Steps) == 2) != (r.Pivot != Undefined) {
			t.Fatalf("%v -> %v: pivot %v with %d steps", r.From, r.To, r.Pivot, len(r.Steps))
		}
		if classic(r.From) && classic(r.To) && len(r.Steps) != 1 {
			t.Fatalf("%v -> %v: classic pair through a pivot", r.From, r.To)
		}
	}
}

// TestPlansZeroAllocations: a Cast of every pair allocates nothing (after
// the first call warms the block pool).
func TestPlansZeroAllocations(t *testing.T) {
	const n = 3000
	for _, from := range numericTypeList() {
		for _, to := range numericTypeList() {
			src := make([]byte, from.Size(n))
			dst := make([]byte, to.Size(n))
			Cast(dst, to, src, from, n, Options{})
			if a := testing.AllocsPerRun(20, func() { Cast(dst, to, src, from, n, Options{}) }); a != 0 {
				t.Errorf("%v -> %v: %v allocations per Cast", from, to, a)
			}
		}
	}
}
