package main

import (
	"math"
	"math/rand/v2"

	"github.com/tensorcast/tensorcast"
)

// Inputs. One set of pools is generated for the largest size and every
// smaller size uses a prefix of it. A call of n elements reads the window
// pool[off : off+n], where off moves by a multiple of 64 elements on every
// call (so every window keeps the same 64-byte alignment) and stays below
// span = poolFactor·n for sizes up to maxRotate elements: the working set of
// a 4 Ki call (pool + dst) stays in L1, of a 64 Ki call in L2, of a 1 Mi call
// in L3. At 64 Mi there is one window: the pool itself, far beyond any
// predictor and cache.
//
// Scalar loops with data-dependent branches (x448/float16, the scalar bf16
// loops, the generic tier) learn a pool of 2·4 Ki elements: on this
// machine x448's Fromfloat32 ran 2–3× faster on it than on data it had not
// seen. They are compute-bound (several ns per element), so where their
// input sits in the caches hardly matters, and they read from a span of at
// least minFresh elements instead ("fresh" data, still L2-resident).

const (
	maxRotate = 4 << 20
	minFresh  = 64 << 10
)

// env holds the pools and destinations of one run.
type env struct {
	n    int // elements per call
	span int // window offsets lie in [0, span), multiples of 64; 0 = no rotation
	// fresh is the same env with a span of at least minFresh, for the
	// branchy scalar implementations (impl.fresh); fresh.fresh == fresh.
	fresh *env

	f32  []float32 // realistic float32 values (see genFloat32)
	f16  []uint16  // FLOAT16 values: f32 rounded, plus subnormals and specials
	bf16 []uint16  // BFLOAT16 values: f32 rounded (keeps f32's subnormals and specials)
	f8   []uint8   // FLOAT8E4M3FN values: f32 rounded, plus random bytes

	dF32 []float32 // destinations, n elements each
	d16  []uint16
	d8   []uint8
}

// spanFor returns the rotation span for n elements.
func spanFor(n, poolFactor int) int {
	if n > maxRotate || poolFactor <= 0 {
		return 0
	}
	s := poolFactor * n / 64 * 64
	if s < 64 {
		s = 64
	}
	return s
}

// freshSpanFor returns the rotation span for the scalar implementations.
func freshSpanFor(n, poolFactor int) int {
	s := spanFor(n, poolFactor)
	if n > maxRotate {
		return s
	}
	return max(s, minFresh)
}

// off returns the window offset of call i: a multiple of 64 below span.
func (e *env) off(i int) int {
	if e.span == 0 {
		return 0
	}
	slots := e.span / 64
	return (i * 4099 % slots) * 64 // 4099 is prime: consecutive calls land far apart
}

func (e *env) srcF32(i int) []float32 { o := e.off(i); return e.f32[o : o+e.n : o+e.n] }
func (e *env) srcF16(i int) []uint16  { o := e.off(i); return e.f16[o : o+e.n : o+e.n] }
func (e *env) srcBF16(i int) []uint16 { o := e.off(i); return e.bf16[o : o+e.n : o+e.n] }
func (e *env) srcF8(i int) []uint8    { o := e.off(i); return e.f8[o : o+e.n : o+e.n] }

// pools are generated once for the largest n and span.
type pools struct {
	f32  []float32
	f16  []uint16
	bf16 []uint16
	f8   []uint8
	dF32 []float32
	d16  []uint16
	d8   []uint8
}

func newPools(elems, dstElems int, seed uint64) *pools {
	p := &pools{
		f32:  genFloat32(elems, seed),
		f16:  make([]uint16, elems),
		bf16: make([]uint16, elems),
		f8:   make([]uint8, elems),
		dF32: make([]float32, dstElems),
		d16:  make([]uint16, dstElems),
		d8:   make([]uint8, dstElems),
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	tensorcast.Float32ToFloat16(p.f16, p.f32)
	for i := range p.f16 {
		switch r := rng.IntN(1000); {
		case r < 5: // FLOAT16 subnormal (the f32 values give almost none)
			p.f16[i] = uint16(rng.Uint32())&0x83FF | 1
		case r < 6:
			p.f16[i] = 0x7C00 | uint16(r&1)<<15 // ±Inf
		case r < 7:
			p.f16[i] = 0x7E00 | uint16(rng.Uint32())&0x81FF // NaN
		}
	}
	tensorcast.Float32ToBFloat16(p.bf16, p.f32)
	tensorcast.Float32ToFloat8(p.f8, tensorcast.Float8E4M3FN, p.f32, tensorcast.Options{})
	for i := range p.f8 {
		if rng.IntN(100) < 5 {
			p.f8[i] = uint8(rng.Uint32())
		}
	}
	return p
}

// env returns the env of size n; the pools must hold n + freshSpanFor(n) elements.
func (p *pools) env(n, poolFactor int) *env {
	mk := func(span int) *env {
		m := n + span
		return &env{n: n, span: span,
			f32: p.f32[:m], f16: p.f16[:m], bf16: p.bf16[:m], f8: p.f8[:m],
			dF32: p.dF32[:n:n], d16: p.d16[:n:n], d8: p.d8[:n:n]}
	}
	e, f := mk(spanFor(n, poolFactor)), mk(freshSpanFor(n, poolFactor))
	e.fresh, f.fresh = f, f
	return e
}

// genFloat32 returns n float32 values as a tensor would hold them: normally
// distributed (σ = 1), 9.2% scaled by 1000 (beyond the float8 ranges), 0.5%
// float32 subnormals, 0.2% ±Inf and 0.1% NaN, in random order. These are the
// proportions of the root package's benchmarks.
func genFloat32(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	p := make([]float32, n)
	for i := range p {
		v := float32(rng.NormFloat64())
		switch r := rng.IntN(1000); {
		case r < 5:
			v = math.Float32frombits(rng.Uint32() & 0x807FFFFF) // subnormal (or ±0)
		case r < 7:
			v = float32(math.Inf(1 - 2*(r&1)))
		case r < 8:
			v = float32(math.NaN())
		case r < 100:
			v *= 1000
		}
		p[i] = v
	}
	return p
}
