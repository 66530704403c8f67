//go:build amd64 && gc && !purego && !noasm && (linux || darwin)

package tensorcast

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"
)

// oddSources are the sources of the round-to-odd stages.
var oddSources = []DataType{Double, Int32, Uint32, Int64, Uint64}

// oddWant is the definition of the round-to-odd stages (steps.go).
func oddWant(from DataType, src []byte, n int) []byte {
	out := make([]byte, 4*n)
	oddTail(out, src, from, n)
	return out
}

// oddEdges returns the inputs of from (raw little-endian values, as
// uint64) on which round-to-odd can go wrong: powers of two and their
// neighbours, 2^24±k, 2^31, 2^32, 2^53±1, 2^63, 2^64-1, values with exactly
// 24 significant bits and one more, and for DOUBLE MaxFloat32 and 2^128 with
// their neighbours, 2^-149 and 2^-150 with theirs, float32 subnormals and
// the midpoints between them, NaN payloads of both signs, ±Inf and ±0.
func oddEdges(from DataType, step uint32) []uint64 {
	var v []uint64
	if from == Double {
		f := func(x float64) { v = append(v, math.Float64bits(x), math.Float64bits(-x)) }
		around := func(b uint64, k int) { // b ± k units in the last place, both signs
			for d := -k; d <= k; d++ {
				u := b + uint64(int64(d))
				v = append(v, u, u|1<<63)
			}
		}
		for e := -1074; e <= 1023; e++ {
			around(math.Float64bits(math.Ldexp(1, e)), 3)
		}
		for _, x := range []float64{0x1p24, 0x1p31, 0x1p32, 0x1p53, 0x1p63, 0x1p64, math.MaxFloat32, 0x1p128, 0x1p-149, 0x1p-150, 0x1p-126, math.MaxFloat64, 0x1p-1074} {
			around(math.Float64bits(x), 40)
		}
		for k := -300; k <= 300; k++ {
			f(0x1p24 + float64(k))
		}
		f(0x1p53 + 2)
		f(0x1p53 - 1)
		f(0x1p64 - 0x1p11)
		// float32's neighbours of MaxFloat32 and the midpoints to 2^128.
		for _, b := range []uint32{0x7F7FFFFF, 0x7F7FFFFE} {
			x := float64(math.Float32frombits(b))
			f(x)
			f(x + 0x1p103)
			around(math.Float64bits(x+0x1p103), 2)
		}
		// Every step-th float32 subnormal and small normal, the midpoints
		// and quarter points between neighbours, ± a unit of the DOUBLE.
		for b := uint32(0); b < 0x01000000; b += step {
			x := float64(math.Float32frombits(b))
			ulp := float64(math.Float32frombits(b+1)) - x
			for _, y := range []float64{x, x + ulp/2, x + ulp/4, x + 3*ulp/4} {
				around(math.Float64bits(y), 1)
			}
		}
		// NaN payloads, quiet and signalling, both signs.
		for _, p := range []uint64{1, 2, 1 << 28, 1 << 29, 1 << 30, 1<<29 - 1, 1<<51 - 1, 1 << 50, 1 << 51, 1<<52 - 1, 0x0005555555555555, 0x000AAAAAAAAAAAAA} {
			v = append(v, 0x7FF0000000000000|p, 0xFFF0000000000000|p)
		}
		around(0x7FF0000000000000, 3) // ±Inf, the largest finite, NaNs
		v = append(v, 0, 1<<63)
		return v
	}
	w := from.BitSize()
	mask := uint64(1)<<uint(w) - 1
	if w == 64 {
		mask = math.MaxUint64
	}
	add := func(u uint64) {
		v = append(v, u&mask)
		v = append(v, -u&mask) // its negation (two's complement)
	}
	for e := 0; e < w; e++ {
		p := uint64(1) << uint(e)
		for d := uint64(0); d <= 4; d++ {
			add(p + d)
			add(p - d)
		}
		// 24 and 25 significant bits at every position.
		if e >= 24 {
			for _, m := range []uint64{1<<24 - 1, 1<<23 + 1, 1<<24 + 1, 1<<25 - 1, 0xAAAAAA} {
				add(m << uint(e-24))
				add(m<<uint(e-24) + 1)
			}
		}
	}
	for k := uint64(0); k <= 300; k++ {
		add(1<<24 + k)
		add(1<<24 - k)
	}
	for _, u := range []uint64{1 << 31, 1<<31 - 1, 1<<31 + 1, 1 << 32, 1<<32 - 1, 1<<53 + 1, 1<<53 - 1, 1 << 63, 1<<63 - 1, 1<<63 + 1, math.MaxUint64, 0} {
		add(u)
	}
	return v
}

// oddInputs returns at least n inputs of from: its edges, then
// structuredInputs (plan_test.go), then random bits shifted right by random
// amounts.
func oddInputs(from DataType, n int) []byte {
	sz := from.BitSize() / 8
	var b []byte
	step := uint32(61) // about 6.6M DOUBLE inputs near float32's subnormals
	if testing.Short() {
		step = 487 // about 0.8M
	}
	if raceEnabled {
		step = 4093
	}
	for _, u := range oddEdges(from, step) {
		if sz == 4 {
			b = binary.LittleEndian.AppendUint32(b, uint32(u))
		} else {
			b = binary.LittleEndian.AppendUint64(b, u)
		}
	}
	if !raceEnabled { // slow under the race detector, which checks the annotations, not the values
		b = append(b, structuredInputs(from, n/2, 11)...)
	}
	rng := rand.New(rand.NewPCG(uint64(from), 77))
	for len(b) < n*sz {
		u := rng.Uint64()
		if rng.IntN(2) == 0 {
			u >>= uint(rng.IntN(64))
		}
		if sz == 4 {
			b = binary.LittleEndian.AppendUint32(b, uint32(u))
		} else {
			b = binary.LittleEndian.AppendUint64(b, u)
		}
	}
	return b
}

func oddTiersList() []string {
	var ts []string
	for tier := range simdOddStages {
		ts = append(ts, tier)
	}
	slices.Sort(ts)
	return ts
}

// TestOddStages compares every registered round-to-odd stage (every tier
// the CPU has) with f64ToF32Odd and intToF32Odd, bit for bit, on at least
// 2^20 structured inputs per source (2^22 and about 7M for DOUBLE without
// -short; 2^16 under the race detector).
func TestOddStages(t *testing.T) {
	n := 1 << 22
	if testing.Short() {
		n = 1 << 20
	}
	if raceEnabled {
		n = 1 << 16 // the race run checks the annotations, not the values
	}
	if len(simdOddStages) == 0 {
		t.Skip("no round-to-odd stage on this CPU")
	}
	for _, from := range oddSources {
		src := oddInputs(from, n)
		sz := from.BitSize() / 8
		m := len(src) / sz
		want := oddWant(from, src, m)
		for _, tier := range oddTiersList() {
			fn := simdOddStages[tier][from]
			if fn == nil {
				t.Errorf("%s: no round-to-odd stage for %v", tier, from)
				continue
			}
			got := make([]byte, 4*m)
			fn(got, src, m)
			if !bytes.Equal(got, want) {
				for i := 0; i < m; i++ {
					g, w := binary.LittleEndian.Uint32(got[4*i:]), binary.LittleEndian.Uint32(want[4*i:])
					if g != w {
						var x uint64
						if sz == 4 {
							x = uint64(binary.LittleEndian.Uint32(src[4*i:]))
						} else {
							x = binary.LittleEndian.Uint64(src[8*i:])
						}
						t.Fatalf("%s %v: input %#x: got %#08x, want %#08x", tier, from, x, g, w)
					}
				}
			}
			t.Logf("%s %v: %d inputs, 0 mismatches", tier, from, m)
		}
	}
}

// TestOddStagesGuardPages runs every round-to-odd stage at lengths 0..300
// with src and dst flush against a guard page (after, then before) and at
// start offsets 1..7, and checks the result and that nothing beyond it was
// written.
func TestOddStagesGuardPages(t *testing.T) {
	const maxN, offsets = 300, 8
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for _, from := range oddSources {
		edges := oddEdges(from, 4093)
		rng := rand.New(rand.NewPCG(3, uint64(from)))
		sz := from.BitSize() / 8
		// a mix of edges and random bits
		srcAll := make([]byte, maxN*sz)
		for i := 0; i < maxN; i++ {
			u := rng.Uint64()
			if i%2 == 0 {
				u = edges[rng.IntN(len(edges))]
			}
			if sz == 4 {
				binary.LittleEndian.PutUint32(srcAll[4*i:], uint32(u))
			} else {
				binary.LittleEndian.PutUint64(srcAll[8*i:], u)
			}
		}
		wantAll := oddWant(from, srcAll, maxN)
		src := newGuarded(t, maxN*sz+offsets)
		dst := newGuarded(t, 4*maxN+offsets+8)
		for _, tier := range oddTiersList() {
			fn := simdOddStages[tier][from]
			for n := 0; n <= maxN; n++ {
				ssz, dsz := n*sz, 4*n
				check := func(where string, d, s []byte) {
					copy(s, srcAll[:ssz])
					for i := range d {
						d[i] = 0xA5
					}
					fn(d[:dsz], s, n)
					if !bytes.Equal(d[:dsz], wantAll[:dsz]) {
						t.Fatalf("%s %v n=%d %s: wrong result", tier, from, n, where)
					}
					for i, b := range d[dsz:] {
						if b != 0xA5 {
							t.Fatalf("%s %v n=%d %s: wrote dst byte %d beyond the result", tier, from, n, where, dsz+i)
						}
					}
				}
				check("flush before the upper guard", dst.atEnd(dsz), src.atEnd(ssz))
				check("flush after the lower guard", dst.atStart(dsz+8), src.atStart(ssz))
				for off := 1; off < offsets; off++ {
					check(fmt.Sprint("at offset ", off), dst.at(off, dsz+8), src.at(off, ssz))
				}
			}
		}
	}
}

// TestI8ToI2Lengths runs every tier's i8ToI2 kernel at every length
// 0..300, flush against guard pages and at offsets, against
// int8ToInt2Generic: the packed bytes, the zero padding of a partial last
// byte, and no byte written beyond (n+3)/4.
func TestI8ToI2Lengths(t *testing.T) {
	const maxN, offsets = 300, 8
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	rng := rand.New(rand.NewPCG(8, 2))
	srcAll := make([]byte, maxN)
	for i := range srcAll {
		srcAll[i] = byte(rng.Uint32())
	}
	src := newGuarded(t, maxN+offsets)
	dst := newGuarded(t, maxN/4+1+offsets+8)
	for _, k := range tiers {
		for n := 0; n <= maxN; n++ {
			want := make([]byte, (n+3)/4)
			int8ToInt2Generic(want, srcAll[:n])
			dsz := len(want)
			check := func(where string, d, s []byte) {
				copy(s, srcAll[:n])
				for i := range d {
					d[i] = 0xA5
				}
				k.i8ToI2.fn(d[:dsz], s)
				if !bytes.Equal(d[:dsz], want) {
					t.Fatalf("%s n=%d %s: got %x, want %x", k.i8ToI2.tier, n, where, d[:dsz], want)
				}
				for i, b := range d[dsz:] {
					if b != 0xA5 {
						t.Fatalf("%s n=%d %s: wrote dst byte %d beyond the result", k.i8ToI2.tier, n, where, dsz+i)
					}
				}
			}
			check("flush before the upper guard", dst.atEnd(dsz), src.atEnd(n))
			check("flush after the lower guard", dst.atStart(dsz+8), src.atStart(n))
			for off := 1; off < offsets; off++ {
				check(fmt.Sprint("at offset ", off), dst.at(off, dsz+8), src.at(off, n))
			}
		}
	}
}

// TestTruncTables checks that every pair f8int_amd64.go registers has a
// table for its kernels (so the stage never takes its fallback lookup) and
// that each entry truncates to the reference's result.
func TestTruncTables(t *testing.T) {
	for _, from := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0} {
		for _, to := range []DataType{Int32, Uint32, Int64, Uint64} {
			tab := truncTable(from, to)
			if tab == nil {
				t.Fatalf("%v -> %v: no table", from, to)
			}
			ref := tableFor(from, to, Options{})
			for i, b := range tab {
				f := float64(math.Float32frombits(b))
				if to.BitSize() == 32 {
					if got := uint32(int32(f)); got != ref.b32[i] {
						t.Fatalf("%v -> %v, byte %#02x: entry %#08x truncates to %#x, want %#x", from, to, i, b, got, ref.b32[i])
					}
				} else if f != -(1<<63) && uint64(int64(f)) != ref.b64[i] || f == -(1<<63) && ref.b64[i] != 1<<63 {
					t.Fatalf("%v -> %v, byte %#02x: entry %#08x, want %#x", from, to, i, b, ref.b64[i])
				}
			}
		}
	}
}
