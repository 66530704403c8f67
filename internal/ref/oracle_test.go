package ref

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// An independent oracle for the reference's rounding: the representable
// finite magnitudes of each narrow type are listed from the formats' textbook
// definitions with float64 arithmetic (not from decode), and a value rounds
// to the nearest of them, ties to the even bit pattern, with the value beyond
// the largest one counted as overflow when it is at least halfway to the
// next power-of-two step (the step the type would have with one more
// exponent). The test compares Convert from DOUBLE and from FLOAT with it.

type grid struct {
	vals []float64 // ascending positive finite magnitudes, index = bit pattern
	over float64   // magnitudes ≥ over (or > over when maxOdd is false) overflow
	even bool      // the largest value has an even significand (ties at the top stay)
}

// newGrid lists m × 2^(e-bias-mbits) for the given significand bits, bias
// and number of finite bit patterns (sign excluded).
func newGrid(mbits, bias, count int) grid {
	g := grid{}
	for b := 0; b < count; b++ {
		e, m := b>>mbits, b&(1<<mbits-1)
		var v float64
		if e == 0 {
			v = math.Ldexp(float64(m), 1-bias-mbits)
		} else {
			v = math.Ldexp(float64(m|1<<mbits), e-bias-mbits)
		}
		g.vals = append(g.vals, v)
	}
	top := count - 1
	ulp := g.vals[top] - g.vals[top-1]
	g.over = g.vals[top] + ulp/2
	g.even = top%2 == 0
	return g
}

// round returns the index of the nearest grid value, or -1 for overflow.
func (g grid) round(x float64) int {
	if x > g.over || (x == g.over && !g.even) {
		return -1
	}
	i := sort.SearchFloat64s(g.vals, x) // first ≥ x
	if i == len(g.vals) {
		return len(g.vals) - 1
	}
	if i == 0 || g.vals[i] == x {
		return i
	}
	lo, hi := g.vals[i-1], g.vals[i]
	switch {
	case x-lo < hi-x:
		return i - 1
	case x-lo > hi-x:
		return i
	case (i-1)%2 == 0:
		return i - 1
	}
	return i
}

func TestReferenceAgainstGridOracle(t *testing.T) {
	types := []struct {
		k     Kind
		g     grid
		shift int // sign bit position
	}{
		{Float16, newGrid(10, 15, 0x7C00), 15},
		{BFloat16, newGrid(7, 127, 0x7F80), 15},
		{Float8E4M3FN, newGrid(3, 7, 0x7F), 7},
		{Float8E4M3FNUZ, newGrid(3, 8, 0x80), 7},
		{Float8E5M2, newGrid(2, 15, 0x7C), 7},
		{Float8E5M2FNUZ, newGrid(2, 16, 0x80), 7},
		{Float4E2M1, newGrid(1, 1, 8), 3},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	checked := 0
	for _, ty := range types {
		top := ty.g.vals[len(ty.g.vals)-1]
		for i := 0; i < n; i++ {
			var x float64
			switch i % 4 {
			case 0: // any double in the type's range, log-uniform
				x = math.Ldexp(1+rng.Float64(), rng.IntN(int(math.Log2(top))+160)-150)
			case 1: // exact midpoints and their neighbours: the ties
				j := rng.IntN(len(ty.g.vals) - 1)
				x = (ty.g.vals[j] + ty.g.vals[j+1]) / 2
				x = math.Nextafter(x, x+float64(rng.IntN(3)-1))
			case 2: // float32 values (through FLOAT)
				x = float64(float32(math.Ldexp(1+rng.Float64(), rng.IntN(int(math.Log2(top))+160)-150)))
			case 3: // around the top
				x = top * (0.9 + 0.2*rng.Float64())
			}
			neg := rng.IntN(2) == 1
			var got uint64
			if i%4 == 2 {
				f := float32(x)
				if neg {
					f = -f
				}
				got = Convert(ty.k, Float, uint64(math.Float32bits(f)), Options{Saturate: false})
			} else {
				v := x
				if neg {
					v = -v
				}
				got = Convert(ty.k, Double, math.Float64bits(v), Options{Saturate: false})
			}
			idx := ty.g.round(x)
			sign := got >> uint(ty.shift) & 1
			mag := got &^ (1 << uint(ty.shift))
			wantSign := uint64(0)
			if neg && !(idx == 0 && (ty.k == Float8E4M3FNUZ || ty.k == Float8E5M2FNUZ)) {
				wantSign = 1
			}
			checked++
			if idx < 0 { // overflow: the target's overflow pattern without saturation
				want := formats[ty.k].overflow(ty.k, neg, ty.k == Float4E2M1)
				if got != want {
					t.Fatalf("%d: %g (neg=%v) overflows: got %#x, want %#x", ty.k, x, neg, got, want)
				}
				continue
			}
			if int(mag) != idx || sign != wantSign {
				t.Fatalf("kind %d: %v (neg=%v): got %#x, oracle index %#x (%g)", ty.k, x, neg, got, idx, ty.g.vals[idx])
			}
		}
	}
	t.Logf("%d values checked against the grid oracle, 0 mismatches", checked)
}
