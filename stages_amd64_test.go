//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"sort"
	"testing"
	"time"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// The numeric stages (stages_amd64.go, generated from gen/amd64/numeric.go)
// against internal/ref, bit for bit, at every tier this CPU has: every input
// of the 8- and 16-bit sources; for the 32- and 64-bit sources a structured
// set (boundaries of every target, powers of two and their neighbours, ties
// and near-ties of FLOAT and DOUBLE, NaN payloads, subnormals) plus random
// bits; every length 0..300 with the bytes around dst and all of src
// checked; and guard pages on both sides. scalarStage (the AVX2 tails) is
// tested as one more tier.

type stageTier struct {
	name   string
	stages map[pairKey]stageFunc
}

// stageTiers returns the registered tiers, in a fixed order, plus
// scalarStage for every classic pair that has a stage (the last tier lists
// every pair with a stage, a nil function for the others).
func stageTiers(t *testing.T) []stageTier {
	var names []string
	for name := range simdStages {
		names = append(names, name)
	}
	sort.Strings(names)
	var ts []stageTier
	all := map[pairKey]stageFunc{}
	for _, name := range names {
		ts = append(ts, stageTier{name, simdStages[name]})
		for k := range simdStages[name] {
			k := k
			if !classic(k.from) || !classic(k.to) {
				all[k] = nil // listed, but scalarStage knows the classic types only
				continue
			}
			all[k] = func(dst, src []byte, n int) { scalarStage(dst, k.to, src, k.from, n) }
		}
	}
	if len(ts) == 0 {
		t.Skip("no SIMD stage on this CPU")
	}
	return append(ts, stageTier{"scalar", all})
}

// sortedPairs returns the keys of m in a fixed order.
func sortedPairs(m map[pairKey]stageFunc) []pairKey {
	var ks []pairKey
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].from != ks[j].from {
			return ks[i].from < ks[j].from
		}
		return ks[i].to < ks[j].to
	})
	return ks
}

// TestStagesTable checks that both tiers provide the 111 pairs, where the
// CPU has them: a tier with any classic stage has them all (a tier may
// register other stages, e.g. f8int_amd64.go's, on CPUs without the
// extensions the classic ones need, such as AVX512DQ turned off).
func TestStagesTable(t *testing.T) {
	classics := []DataType{Float, Double, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64, Bool}
	for name, m := range simdStages {
		if name != "avx2" && name != "avx512" {
			continue
		}
		any := false
		for k := range m {
			any = any || classic(k.from) && classic(k.to)
		}
		if !any {
			continue
		}
		for _, from := range classics {
			for _, to := range classics {
				if from == to && from != Bool {
					continue
				}
				if m[pairKey{from, to}] == nil {
					t.Errorf("%s: no stage %v → %v", name, from, to)
				}
			}
		}
		nc := 0 // the classic pairs; the others are fused stages (gen/amd64/fused.go)
		for k := range m {
			if classic(k.from) && classic(k.to) {
				nc++
			}
		}
		if nc != 111 {
			t.Errorf("%s: %d classic stages, want 111", name, nc)
		}
	}
}

// stageInputs returns n elements of from: for 8- and 16-bit types every bit
// pattern (n is ignored), otherwise the structured values first, then random
// values of random magnitudes, random bits and structured values again.
func stageInputs(rng *rand.Rand, from DataType, n int) []byte {
	size := from.Size(1)
	if size <= 2 {
		m := 1 << (8 * size)
		b := make([]byte, size*m)
		for i := range m {
			if size == 1 {
				b[i] = byte(i)
			} else {
				binary.LittleEndian.PutUint16(b[2*i:], uint16(i))
			}
		}
		return b
	}
	special := structuredBits(from)
	b := make([]byte, size*n)
	for i := range n {
		var v uint64
		switch {
		case i < len(special):
			v = special[i]
		case i%4 == 0:
			v = special[rng.IntN(len(special))]
		case i%4 == 1:
			v = rng.Uint64()
		default: // random magnitudes
			switch from {
			case Float:
				v = uint64(math.Float32bits(float32(math.Ldexp(rng.Float64(), rng.IntN(140)-40)) * sign(rng)))
			case Double:
				v = math.Float64bits(math.Ldexp(rng.Float64(), rng.IntN(140)-40) * float64(sign(rng)))
			default:
				v = rng.Uint64() >> rng.IntN(64)
				if rng.IntN(2) == 0 {
					v = -v
				}
			}
		}
		if size == 4 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		} else {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
	}
	return b
}

func sign(rng *rand.Rand) float32 {
	if rng.IntN(2) == 0 {
		return -1
	}
	return 1
}

// structuredBits lists the bit patterns of from worth testing for every
// target: the boundaries of every integer type and of the exact-integer
// ranges of FLOAT and DOUBLE, with their neighbours; ties and near-ties of
// FLOAT (from 64-bit integers and DOUBLE); powers of two ± 1 (ulp); ±Inf,
// NaN payloads of both signs, subnormals.
func structuredBits(from DataType) []uint64 {
	var out []uint64
	switch from {
	case Float, Double:
		add := func(f float64) {
			if from == Float {
				x := math.Float32bits(float32(f))
				for d := -2; d <= 2; d++ {
					out = append(out, uint64(x+uint32(d)), uint64(x^0x80000000+uint32(d)))
				}
				return
			}
			x := math.Float64bits(f)
			for d := -2; d <= 2; d++ {
				out = append(out, x+uint64(d), x^1<<63+uint64(d))
			}
		}
		for e := -160; e <= 130; e++ {
			add(math.Ldexp(1, e))
			add(math.Ldexp(1.5, e))
		}
		for _, f := range []float64{0, 0.5, 1.5, 2.5, 3.5, 127.5, 128.5, 255.5, 256.5, 32767.5, 32768.5, 65535.5, 65536.5,
			0x1p31 - 0.5, 0x1p31 + 0.5, 0x1p32 - 0.5, 0x1p32 + 0.5, 0x1p53 - 1, 0x1p53 + 1, 0x1p63 - 1024, 0x1p63 + 2048,
			0x1p64 - 2048, 0x1p64 + 4096, math.MaxFloat32, math.SmallestNonzeroFloat32, math.Inf(1), 1e10, 3e9, 5e9} {
			add(f)
		}
		if from == Float {
			for _, x := range []uint32{0x7FC00000, 0x7F800001, 0x7FBFFFFF, 0x7FFFFFFF, 0x7FD55555, 0x00000001, 0x007FFFFF, 0x00400000} {
				out = append(out, uint64(x), uint64(x|0x80000000))
			}
			break
		}
		for _, x := range []uint64{0x7FF8000000000000, 0x7FF0000000000001, 0x7FF7FFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF, 0x7FFAAAAA55555555,
			0x7FF80000_20000000, 0x7FF80000_1FFFFFFF, 1, 0x000FFFFFFFFFFFFF, 0x0008000000000000, 0x7FEFFFFFFFFFFFFF} {
			out = append(out, x, x|1<<63)
		}
		// FLOAT ties: doubles halfway between two floats, ±1 ulp, at every
		// float exponent (subnormal targets included)
		for e := -150; e <= 128; e++ {
			for _, m := range []uint64{0, 1, 2, 3, 0x555555, 0xFFFFFE, 0xFFFFFF} {
				base := math.Ldexp(float64(1<<23|m&0x7FFFFF), e-23)
				half := math.Ldexp(1, e-24)
				add(base + half)
			}
		}
	default:
		add := func(v uint64) {
			for d := -2; d <= 2; d++ {
				out = append(out, v+uint64(d), -v+uint64(d))
			}
		}
		for k := 0; k < 64; k++ {
			add(1 << k)
			add(3 << k)
		}
		add(0)
		for _, v := range []uint64{0x7F, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1<<53 - 1, 1<<53 + 1, 1<<63 - 1, 1<<64 - 1} {
			add(v)
		}
		// FLOAT and DOUBLE ties from integers: x = (2m+1)·2^(s-1) for every
		// shift s, ±1
		for s := 1; s < 64; s++ {
			for _, m := range []uint64{1 << 23, 1<<23 + 1, 1<<24 - 1, 1 << 52, 1<<52 + 1, 1<<53 - 1, 0xABCDEF} {
				if bitLen(m)+s >= 64 {
					continue
				}
				add((2*m + 1) << (s - 1))
			}
		}
	}
	return out
}

func bitLen(m uint64) int { return 64 - countLeadingZeros(m) }

func countLeadingZeros(m uint64) int {
	n := 0
	for i := 63; i >= 0 && m>>uint(i)&1 == 0; i-- {
		n++
	}
	return n
}

func refStage(from, to DataType, src []byte, n int) []byte {
	want := make([]byte, to.Size(n))
	ref.Cast(want, ref.Kind(to), src, ref.Kind(from), n, ref.Options{Saturate: true})
	return want
}

// wantPrefix returns the reference result of the first n elements of src,
// given all of them converted: its prefix, except for a packed target whose
// last byte would hold later elements (the reference pads with zero bits).
func wantPrefix(k pairKey, all, src []byte, n int) []byte {
	if k.to.BitSize() >= 8 || n*k.to.BitSize()%8 == 0 {
		return all[:k.to.Size(n)]
	}
	return refStage(k.from, k.to, src[:k.from.Size(n)], n)
}

// TestStagesAllInputs compares every stage of every tier with the reference
// on stageInputs: all bit patterns of the 8- and 16-bit sources, 2^20
// structured and random inputs of the others (2^16 with -short).
func TestStagesAllInputs(t *testing.T) {
	n := 1 << 20
	if testing.Short() {
		n = 1 << 15
	}
	tiers := stageTiers(t)
	for _, tier := range tiers {
		t.Logf("tier %s: %d stages", tier.name, len(tier.stages))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := map[DataType][]byte{}
	for _, k := range sortedPairs(tiers[len(tiers)-1].stages) {
		src := inputs[k.from]
		if src == nil {
			src = stageInputs(rng, k.from, n)
			inputs[k.from] = src
		}
		m := len(src) / k.from.Size(1)
		want := refStage(k.from, k.to, src, m)
		for _, tier := range tiers {
			fn := tier.stages[k]
			if fn == nil {
				continue
			}
			got := make([]byte, len(want))
			fn(got, src, m)
			if !bytes.Equal(got, want) {
				sz, tz := k.from.Size(1), k.to.Size(1)
				bad := 0
				for i := 0; i < m; i++ {
					if !bytes.Equal(got[i*tz:(i+1)*tz], want[i*tz:(i+1)*tz]) {
						if bad < 5 {
							t.Errorf("%s %v→%v: element %d: src % x: got % x, want % x", tier.name, k.from, k.to, i, src[i*sz:(i+1)*sz], got[i*tz:(i+1)*tz], want[i*tz:(i+1)*tz])
						}
						bad++
					}
				}
				t.Errorf("%s %v→%v: %d of %d elements differ", tier.name, k.from, k.to, bad, m)
			}
		}
	}
}

// TestStagesLengths runs every stage at every length 0..300 (every 7th with
// -short) on a dst with margins and checks the result, the untouched margins
// and the unchanged src.
func TestStagesLengths(t *testing.T) {
	const maxN, margin = 300, 64
	step := 1
	if testing.Short() {
		step = 7
	}
	tiers := stageTiers(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range sortedPairs(tiers[len(tiers)-1].stages) {
		src := stageInputs(rng, k.from, maxN)
		if k.from.Size(1) <= 2 { // all the patterns: take random ones instead
			src = randomTensor(rng, k.from, maxN)
		}
		srcCopy := append([]byte(nil), src...)
		wantAll := refStage(k.from, k.to, src, maxN)
		for _, tier := range tiers {
			fn := tier.stages[k]
			if fn == nil {
				continue
			}
			for n := 0; n <= maxN; n += step {
				buf := make([]byte, k.to.Size(n)+2*margin)
				for i := range buf {
					buf[i] = 0xA5
				}
				fn(buf[margin:margin+k.to.Size(n)], src[:k.from.Size(n)], n)
				if !bytes.Equal(buf[margin:margin+k.to.Size(n)], wantPrefix(k, wantAll, src, n)) {
					t.Fatalf("%s %v→%v n=%d: wrong result", tier.name, k.from, k.to, n)
				}
				for i, b := range buf {
					if (i < margin || i >= margin+k.to.Size(n)) && b != 0xA5 {
						t.Fatalf("%s %v→%v n=%d: wrote dst byte %d outside the result", tier.name, k.from, k.to, n, i-margin)
					}
				}
				if !bytes.Equal(src, srcCopy) {
					t.Fatalf("%s %v→%v n=%d: src changed", tier.name, k.from, k.to, n)
				}
			}
		}
	}
}

// TestStagesGuardPages runs every stage with src and dst flush against an
// inaccessible page (after, then before) and at start offsets, at lengths
// 0..200 (0..70 and fewer offsets with -short).
func TestStagesGuardPages(t *testing.T) {
	maxN, offsets := 200, 16
	if testing.Short() {
		maxN, offsets = 70, 3
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	tiers := stageTiers(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, k := range sortedPairs(tiers[len(tiers)-1].stages) {
		srcAll := randomTensor(rng, k.from, maxN)
		wantAll := refStage(k.from, k.to, srcAll, maxN)
		src := newGuarded(t, k.from.Size(maxN)+offsets)
		dst := newGuarded(t, k.to.Size(maxN)+offsets+8)
		for _, tier := range tiers[:len(tiers)-1] {
			fn := tier.stages[k]
			if fn == nil {
				continue
			}
			for n := 0; n <= maxN; n++ {
				ssz, dsz := k.from.Size(n), k.to.Size(n)
				check := func(where string, d, s []byte) {
					copy(s, srcAll[:ssz])
					for i := range d {
						d[i] = 0xA5
					}
					fn(d[:dsz], s, n)
					if !bytes.Equal(d[:dsz], wantPrefix(k, wantAll, srcAll, n)) {
						t.Fatalf("%s %v→%v n=%d %s: wrong result", tier.name, k.from, k.to, n, where)
					}
					for i, b := range d[dsz:] {
						if b != 0xA5 {
							t.Fatalf("%s %v→%v n=%d %s: wrote dst byte %d beyond the result", tier.name, k.from, k.to, n, where, dsz+i)
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

// TestStagesShortIsFast keeps the -short run of these tests within budget.
func TestStagesShortIsFast(t *testing.T) {
	if !testing.Short() {
		t.Skip("times the -short run")
	}
	start := time.Now()
	for _, f := range []func(*testing.T){TestStagesAllInputs, TestStagesLengths, TestStagesGuardPages} {
		f(t)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the -short stage tests took %v, want < 10s", d)
	}
}

// BenchmarkStages times every stage of every tier at 64Ki elements and
// reports, as x-copy, the time of copy() of the larger side's bytes divided
// by the stage's (≥ 1: at least copy speed). The machine is shared, so both
// are timed alternately in short rounds (a few µs each) and the fastest
// round of each counts.
func BenchmarkStages(b *testing.B) {
	const n = 1 << 16
	rng := rand.New(rand.NewPCG(7, 8))
	var names []string
	for name := range simdStages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, k := range sortedPairs(simdStages[name]) {
			fn := simdStages[name][k]
			src := randomTensor(rng, k.from, n)
			dst := make([]byte, k.to.Size(n))
			big := max(len(src), len(dst))
			cs, cd := make([]byte, big), make([]byte, big)
			b.Run(fmt.Sprintf("%s/%v-%v", name, k.from, k.to), func(b *testing.B) {
				b.SetBytes(int64(big))
				for b.Loop() {
					fn(dst, src, n)
				}
				b.StopTimer()
				var tc, ts time.Duration = math.MaxInt64, math.MaxInt64
				for range 100 {
					start := time.Now()
					for range 4 {
						fn(dst, src, n)
					}
					mid := time.Now()
					for range 4 {
						copy(cd, cs)
					}
					ts, tc = min(ts, mid.Sub(start)), min(tc, time.Since(mid))
				}
				b.ReportMetric(float64(tc)/float64(ts), "x-copy")
			})
		}
	}
}

// TestStagesFloatSweep (opt-in: TENSORCAST_STAGE_SWEEP=1 and -timeout 30m,
// about ten minutes of one core; one subtest per target) converts all 2^32 FLOAT bit patterns with every FLOAT
// stage of every tier and compares them with scalarStage, which
// TestStagesAllInputs checks against the reference.
func TestStagesFloatSweep(t *testing.T) {
	if os.Getenv("TENSORCAST_STAGE_SWEEP") == "" {
		t.Skip("set TENSORCAST_STAGE_SWEEP=1 to sweep all 2^32 FLOAT inputs")
	}
	tiers := stageTiers(t)
	tiers = tiers[:len(tiers)-1]
	const chunk = 1 << 20
	src := make([]byte, 4*chunk)
	want := make([]byte, 8*chunk)
	got := make([]byte, 8*chunk)
	for _, to := range []DataType{Double, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64, Bool} {
		t.Run(to.String(), func(t *testing.T) {
			checked := 0
			for base := uint64(0); base < 1<<32; base += chunk {
				for i := range chunk {
					binary.LittleEndian.PutUint32(src[4*i:], uint32(base)+uint32(i))
				}
				w := want[:to.Size(chunk)]
				scalarStage(w, to, src, Float, chunk)
				for _, tier := range tiers {
					fn := tier.stages[pairKey{Float, to}]
					if fn == nil {
						continue
					}
					g := got[:len(w)]
					fn(g, src, chunk)
					if !bytes.Equal(g, w) {
						sz := to.Size(1)
						for i := range chunk {
							if !bytes.Equal(g[i*sz:(i+1)*sz], w[i*sz:(i+1)*sz]) {
								t.Fatalf("%s FLOAT→%v: input %#08x: got % x, want % x", tier.name, to, uint32(base)+uint32(i), g[i*sz:(i+1)*sz], w[i*sz:(i+1)*sz])
							}
						}
					}
					checked += chunk
				}
			}
			t.Logf("FLOAT→%v: %d conversions (all 2^32 inputs × %d tiers), 0 mismatches", to, checked, checked>>32)
		})
	}
}
