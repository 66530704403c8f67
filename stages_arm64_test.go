//go:build arm64 && gc && !purego && !noasm && (linux || darwin)

package tensorcast

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"testing"
	"time"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// These tests (Linux and macOS: the guard pages need mmap) compare every
// registered NEON stage (stages_arm64.go, from the table in
// gen/arm64/stages.go) with ref.Cast bit for bit: every input of the 8- and
// 16-bit sources; for the 32- and 64-bit sources a structured
// set (zeros, ±1, powers of two and their neighbours, the integer types'
// limits, ±2^31, ±2^32, ±2^53±1, ±2^63, 2^64, ±Inf, NaN payloads of both
// signs, subnormals, the ties and near-ties of every narrower target, for
// floats one unit in the last place either side of each) topped up with
// random bits to 200k inputs under -short and 2M otherwise; every length
// 0..300 at several alignments with the bytes after the result checked
// untouched; and guard pages on both sides. TestNEONOddStages does the same
// for the round-to-odd stages against a definition written here. Run them
// under qemu:
//
//	GOARCH=arm64 go test -c -o /tmp/arm64.test . && qemu-aarch64-static -cpu max /tmp/arm64.test -test.run 'NEONStage|NEONOdd' -test.short

var neonStageCount = flag.Int("neon.stage.inputs", 0, "TestNEONStageInputs: inputs per 32- and 64-bit source (default 2M, 200k with -short)")

// neonClassicTypes are the types the NEON stages serve.
var neonClassicTypes = []DataType{Float, Double, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64, Bool}

// neonStageList returns the registered NEON stages in a fixed order.
func neonStageList() []pairKey {
	var keys []pairKey
	for k := range simdStages["neon"] {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].from != keys[j].from {
			return keys[i].from < keys[j].from
		}
		return keys[i].to < keys[j].to
	})
	return keys
}

// TestNEONStagesCoverAllPairs checks that the table covers every ordered
// pair of distinct classic types and BOOL → BOOL, and nothing else.
func TestNEONStagesCoverAllPairs(t *testing.T) {
	m := simdStages["neon"]
	for _, from := range neonClassicTypes {
		for _, to := range neonClassicTypes {
			if from == to && from != Bool {
				continue
			}
			if m[pairKey{from, to}] == nil {
				t.Errorf("no NEON stage for %v → %v", from, to)
			}
		}
	}
	if want := len(neonClassicTypes)*(len(neonClassicTypes)-1) + 1; len(m) != want {
		t.Errorf("%d NEON stages registered, want %d", len(m), want)
	}
}

// neonStageInputs returns raw source elements of t: every bit pattern for
// sources of up to 16 bits, else the structured set topped up with random
// bits to count elements.
func neonStageInputs(t DataType, count int) []byte {
	bits := 8 * t.Size(1)
	var vals []uint64
	if bits <= 16 {
		for v := range uint64(1) << bits {
			vals = append(vals, v)
		}
	} else {
		vals = neonStructuredInputs(t)
		rng := rand.New(rand.NewPCG(uint64(t), 99))
		for len(vals) < count {
			vals = append(vals, neonRandomInput(rng, t))
		}
	}
	size := t.Size(1)
	src := make([]byte, size*len(vals))
	for i, v := range vals {
		for j := range size {
			src[i*size+j] = byte(v >> (8 * j))
		}
	}
	return src
}

// neonStructuredInputs returns the boundary cases of a 32- or 64-bit source.
func neonStructuredInputs(t DataType) []uint64 {
	var out []uint64
	add := func(v uint64) { out = append(out, v) }
	switch t {
	case Float:
		f32 := func(f float64) uint32 { return math.Float32bits(float32(f)) }
		var base []uint32
		for _, v := range neonBoundaryValues() {
			base = append(base, f32(v), f32(-v))
		}
		for e := -149; e <= 127; e++ {
			base = append(base, f32(math.Ldexp(1, e)), f32(-math.Ldexp(1, e)))
		}
		base = append(base, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0xFF7FFFFF, 1, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000)
		for _, p := range []uint32{1, 2, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFF, 0x155555, 0x2AAAAA} {
			base = append(base, 0x7F800000|p, 0xFF800000|p)
		}
		for _, b := range base {
			add(uint64(b))
			add(uint64(b + 1))
			add(uint64(b - 1))
		}
	case Double:
		var base []uint64
		for _, v := range neonBoundaryValues() {
			base = append(base, math.Float64bits(v), math.Float64bits(-v))
		}
		for e := -1074; e <= 1023; e++ {
			base = append(base, math.Float64bits(math.Ldexp(1, e)), math.Float64bits(-math.Ldexp(1, e)))
		}
		// float32 rounding: every float32 power of two and largest value,
		// the midpoints to their neighbours (ties) and the float32
		// subnormal range's edges.
		for e := -150; e <= 128; e++ {
			for _, m := range []float64{1, 1 + 0x1p-24, 1 + 0x1p-23, 1 + 3*0x1p-24, 2 - 0x1p-24, 2 - 0x1p-23, 1.5} {
				v := math.Ldexp(m, e)
				base = append(base, math.Float64bits(v), math.Float64bits(-v))
			}
		}
		base = append(base, math.Float64bits(math.MaxFloat32), math.Float64bits(math.MaxFloat32+math.Ldexp(1, 103)),
			math.Float64bits(math.SmallestNonzeroFloat32), math.Float64bits(math.SmallestNonzeroFloat32/2))
		base = append(base, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FEFFFFFFFFFFFFF, 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000)
		for _, p := range []uint64{1, 2, 0x7FFFFFFF, 0x80000000, 0x1FFFFFFF, 0x20000000, 0x20000001, 0x7FFFFFFFFFFFF, 0x8000000000000, 0x8000000000001, 0xFFFFFFFFFFFFF, 0x5555555555555} {
			base = append(base, 0x7FF0000000000000|p, 0xFFF0000000000000|p)
		}
		for _, b := range base {
			add(b)
			add(b + 1)
			add(b - 1)
			add(b ^ 1<<63)
		}
	default: // integers of 32 or 64 bits
		var base []uint64
		for k := range 64 {
			p := uint64(1) << k
			base = append(base, p, p-1, p+1, -p, -p-1, -p+1)
		}
		base = append(base, 0, math.MaxInt64, 1<<63, math.MaxUint64, math.MaxInt32, 1<<31, math.MaxUint32, 1<<53+1, math.MaxUint64-1<<53)
		// float32 ties: m·2^s ± half a float32 ulp, ± 1, for 24-bit m.
		rng := rand.New(rand.NewPCG(7, 7))
		for s := 1; s <= 40; s++ {
			for range 40 {
				m := rng.Uint64()&(1<<24-1) | 1<<23
				v := m << s
				h := uint64(1) << (s - 1)
				for _, x := range []uint64{v, v + h, v + h - 1, v + h + 1, v - 1, v + 1} {
					base = append(base, x, -x)
				}
			}
		}
		// float64 ties for the 64-bit sources: m·2^s ± half a float64 ulp.
		for s := 1; s <= 11; s++ {
			for range 100 {
				m := rng.Uint64()&(1<<53-1) | 1<<52
				v := m << s
				h := uint64(1) << (s - 1)
				for _, x := range []uint64{v, v + h, v + h - 1, v + h + 1} {
					base = append(base, x, -x)
				}
			}
		}
		mask := uint64(math.MaxUint64)
		if t.Size(1) == 4 {
			mask = math.MaxUint32
			// The 64-bit cases truncated, and their high halves.
			n := len(base)
			for _, b := range base[:n] {
				base = append(base, b>>32)
			}
		}
		for _, b := range base {
			add(b & mask)
		}
	}
	return out
}

// neonBoundaryValues are positive float values at which some conversion
// changes: the integer types' limits and the halves around them, ±2^31,
// 2^32, 2^53 ± 1, 2^63, 2^64, small integers and their halves.
func neonBoundaryValues() []float64 {
	var vs []float64
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
		0x1p31 - 1, 0x1p31, 0x1p31 + 1, 0x1p32 - 1, 0x1p32, 0x1p32 + 1, 0x1p53 - 1, 0x1p53, 0x1p53 + 2,
		0x1p55, 0x1p63, 0x1p64, 0x1p65, math.MaxFloat32, math.MaxFloat64} {
		vs = append(vs, v, v+0.5, v-0.5)
	}
	return vs
}

// neonRandomInput returns random bits of t, half of them uniform and half
// shaped: floats with an exponent near the integer range, integers of a
// random magnitude and sign.
func neonRandomInput(rng *rand.Rand, t DataType) uint64 {
	u := rng.Uint64()
	if rng.IntN(2) == 0 {
		if t.Size(1) == 4 {
			return u & math.MaxUint32
		}
		return u
	}
	switch t {
	case Float:
		e := uint64(127 - 30 + rng.IntN(100))
		return u&0x807FFFFF | e<<23
	case Double:
		e := uint64(1023 - 60 + rng.IntN(200))
		return u&0x800FFFFFFFFFFFFF | e<<52
	}
	v := u >> rng.IntN(64)
	if rng.IntN(2) == 0 {
		v = -v
	}
	if t.Size(1) == 4 {
		return v & math.MaxUint32
	}
	return v
}

// checkNEONStage runs fn on n elements of src and compares every element with
// ref.Cast, and the dst bytes after the result with their canary.
func checkNEONStage(t *testing.T, k pairKey, fn stageFunc, dst, src []byte, n int, where string) bool {
	t.Helper()
	want := make([]byte, k.to.Size(n))
	ref.Cast(want, ref.Kind(k.to), src, ref.Kind(k.from), n, ref.Options{Saturate: true})
	for i := range dst {
		dst[i] = 0xA5
	}
	fn(dst, src, n)
	got := dst[:len(want)]
	if !bytes.Equal(got, want) {
		fs, ts := k.from.Size(1), k.to.Size(1)
		bad := 0
		for i := range n {
			if !bytes.Equal(got[i*ts:(i+1)*ts], want[i*ts:(i+1)*ts]) {
				if bad++; bad <= 5 {
					t.Errorf("%v → %v %s n=%d: element %d, input %#x: got %#x, want %#x", k.from, k.to, where, n, i,
						neonLE(src[i*fs:(i+1)*fs]), neonLE(got[i*ts:(i+1)*ts]), neonLE(want[i*ts:(i+1)*ts]))
				}
			}
		}
		t.Errorf("%v → %v %s n=%d: %d of %d elements differ", k.from, k.to, where, n, bad, n)
		return false
	}
	for i, b := range dst[len(want):] {
		if b != 0xA5 {
			t.Errorf("%v → %v %s n=%d: wrote dst byte %d beyond the result", k.from, k.to, where, n, len(want)+i)
			return false
		}
	}
	return true
}

func neonLE(b []byte) uint64 {
	var buf [8]byte
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:])
}

// TestNEONStageInputs compares every stage with the reference on all
// inputs of the narrow sources and the structured and random inputs of the
// wide ones.
func TestNEONStageInputs(t *testing.T) {
	count := 2_000_000
	if testing.Short() {
		count = 200_000
	}
	if *neonStageCount > 0 {
		count = *neonStageCount
	}
	inputs := map[DataType][]byte{}
	for _, k := range neonStageList() {
		src := inputs[k.from]
		if src == nil {
			src = neonStageInputs(k.from, count)
			inputs[k.from] = src
		}
		n := len(src) / k.from.Size(1)
		if k.from.Size(1) >= 4 && n < count {
			t.Fatalf("%v: %d inputs, want %d", k.from, n, count)
		}
		dst := make([]byte, k.to.Size(n)+16)
		checkNEONStage(t, k, simdStages["neon"][k], dst, src, n, "all inputs")
	}
}

// TestNEONStageLengths runs every stage on every length 0..300 with src
// and dst at several alignments, so that every tail length of every unit is
// seen after zero or more whole units.
func TestNEONStageLengths(t *testing.T) {
	const maxN = 300
	rng := rand.New(rand.NewPCG(3, 3))
	for _, k := range neonStageList() {
		fn := simdStages["neon"][k]
		fs := k.from.Size(1)
		srcAll := make([]byte, fs*maxN+8)
		for i := 0; i < maxN; i++ {
			v := neonRandomInput(rng, k.from)
			for j := range fs {
				srcAll[i*fs+j] = byte(v >> (8 * j))
			}
		}
		dstAll := make([]byte, k.to.Size(maxN)+32)
	lengths:
		for n := 0; n <= maxN; n++ {
			for _, off := range [][2]int{{0, 0}, {1, 3}, {5, 2}, {7, 7}} {
				src := srcAll[off[0] : off[0]+fs*n]
				dst := dstAll[off[1] : off[1]+k.to.Size(n)+16]
				if !checkNEONStage(t, k, fn, dst, src, n, fmt.Sprintf("offsets %v", off)) {
					break lengths
				}
			}
		}
	}
}

// TestNEONStageGuardPages runs every stage on lengths 0..130 (0..1024
// without -short) with src and dst flush against an inaccessible page on
// either side, and at odd offsets, so that a read or write beyond the
// slices faults.
func TestNEONStageGuardPages(t *testing.T) {
	maxN := 1024
	if testing.Short() {
		maxN = 130
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	rng := rand.New(rand.NewPCG(5, 5))
	for _, k := range neonStageList() {
		fn := simdStages["neon"][k]
		fs, ts := k.from.Size(1), k.to.Size(1)
		srcAll := make([]byte, fs*maxN)
		for i := range maxN {
			v := neonRandomInput(rng, k.from)
			for j := range fs {
				srcAll[i*fs+j] = byte(v >> (8 * j))
			}
		}
		src := newGuarded(t, fs*maxN+16)
		dst := newGuarded(t, ts*maxN+16)
		for n := 0; n <= maxN; n++ {
			run := func(where string, d, s []byte) bool {
				copy(s, srcAll[:fs*n])
				return checkNEONStage(t, k, fn, d, s, n, where)
			}
			ok := run("flush before the upper guard", dst.atEnd(ts*n), src.atEnd(fs*n)) &&
				run("flush after the lower guard", dst.atStart(ts*n), src.atStart(fs*n))
			for _, off := range []int{1, 3, 7} {
				ok = ok && run(fmt.Sprintf("at offset %d", off), dst.at(off, ts*n), src.at(off, fs*n))
			}
			if !ok {
				break
			}
		}
	}
}

// TestNEONStagesAllocs checks that a stage call, tail included, does not
// allocate.
func TestNEONStagesAllocs(t *testing.T) {
	for _, k := range neonStageList() {
		fn := simdStages["neon"][k]
		src := make([]byte, k.from.Size(37))
		dst := make([]byte, k.to.Size(37))
		if a := testing.AllocsPerRun(10, func() { fn(dst, src, 37) }); a != 0 {
			t.Errorf("%v → %v: %v allocations per call", k.from, k.to, a)
		}
	}
}

// BenchmarkNEONStages times every stage at 64Ki elements and reports its
// speed as a multiple of copy() of the larger side, timed in the same
// benchmark (x-copy: 1 means the stage runs at copy speed). Run it on arm64
// hardware (under qemu the ratios mean nothing):
//
//	go test -run - -bench NEONStages -benchtime 200ms
func BenchmarkNEONStages(b *testing.B) {
	const n = 1 << 16
	for _, k := range neonStageList() {
		fn := simdStages["neon"][k]
		b.Run(fmt.Sprintf("%v-%v", k.from, k.to), func(b *testing.B) {
			src := make([]byte, k.from.Size(n))
			for in, i := neonStageInputs(k.from, n), 0; i < len(src); i += len(in) {
				copy(src[i:], in)
			}
			dst := make([]byte, k.to.Size(n))
			big := max(len(src), len(dst))
			c1, c2 := make([]byte, big), make([]byte, big)
			b.SetBytes(int64(big))
			b.ResetTimer()
			for range b.N {
				fn(dst, src, n)
			}
			b.StopTimer()
			stage := b.Elapsed()
			start := time.Now()
			for range b.N {
				copy(c1, c2)
			}
			b.ReportMetric(float64(time.Since(start))/float64(stage), "x-copy")
		})
	}
}

// neonOddFloat32 is the round-to-odd float32 of the exact value (-1)^neg · m ·
// 2^e, as the planner defines it (plan.go, steps.go): truncate to float32's
// precision (on the subnormal grid below 2^-126) and set the last bit when
// anything was dropped; magnitudes of 2^128 and more give ±Inf. It is
// written from the definition, independently of both implementations.
func neonOddFloat32(neg bool, m uint64, e int) uint32 {
	var sign uint32
	if neg {
		sign = 0x80000000
	}
	if m == 0 {
		return sign
	}
	ilog := bits.Len64(m) - 1 + e
	if ilog >= 128 {
		return sign | 0x7F800000
	}
	q := max(ilog, -126) - 23 // the exponent of the last kept bit
	var kept uint64
	switch d := q - e; {
	case d <= 0:
		kept = m << uint(-d) // exact
	case d >= 64:
		kept = 1 // all dropped, nonzero
	default:
		kept = m >> uint(d)
		if m&(1<<uint(d)-1) != 0 {
			kept |= 1
		}
	}
	if kept < 1<<23 {
		return sign | uint32(kept) // subnormal (or zero exponent field)
	}
	return sign | uint32(q+23+127)<<23 | uint32(kept-1<<23)
}

// neonOddWant is the round-to-odd float32 of one source element.
func neonOddWant(from DataType, b []byte) uint32 {
	u := neonLE(b)
	switch from {
	case Double:
		neg := u>>63 != 0
		exp := int(u >> 52 & 0x7FF)
		frac := u & (1<<52 - 1)
		switch {
		case exp == 0x7FF && frac != 0: // NaN: quiet, sign and top payload bits
			return uint32(u>>32)&0x80000000 | 0x7FC00000 | uint32(frac>>29)&0x3FFFFF
		case exp == 0x7FF:
			return neonOddFloat32(neg, 1, 200) // ±Inf
		case exp == 0:
			return neonOddFloat32(neg, frac, -1074)
		}
		return neonOddFloat32(neg, frac|1<<52, exp-1075)
	case Int64:
		if int64(u) < 0 {
			return neonOddFloat32(true, -u, 0)
		}
		return neonOddFloat32(false, u, 0)
	case Int32:
		v := int64(int32(u))
		if v < 0 {
			return neonOddFloat32(true, uint64(-v), 0)
		}
		return neonOddFloat32(false, uint64(v), 0)
	}
	return neonOddFloat32(false, u, 0) // UINT32, UINT64
}

// TestNEONOddStages compares the round-to-odd stages with neonOddWant on the
// structured and random inputs, at every length 0..300 and with guard
// pages.
func TestNEONOddStages(t *testing.T) {
	count := 2_000_000
	if testing.Short() {
		count = 200_000
	}
	if *neonStageCount > 0 {
		count = *neonStageCount
	}
	froms := []DataType{Double, Int64, Uint64, Int32, Uint32}
	if len(simdOddStages["neon"]) != len(froms) {
		t.Errorf("%d round-to-odd stages registered, want %d", len(simdOddStages["neon"]), len(froms))
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for _, from := range froms {
		fn := simdOddStages["neon"][from]
		if fn == nil {
			t.Errorf("no round-to-odd stage from %v", from)
			continue
		}
		fs := from.Size(1)
		check := func(dst, src []byte, n int, where string) bool {
			for i := range dst {
				dst[i] = 0xA5
			}
			fn(dst, src, n)
			bad := 0
			for i := range n {
				got := binary.LittleEndian.Uint32(dst[4*i:])
				if want := neonOddWant(from, src[i*fs:(i+1)*fs]); got != want {
					if bad++; bad <= 5 {
						t.Errorf("%v → FLOAT (odd) %s n=%d: element %d, input %#x: got %#08x, want %#08x", from, where, n, i, neonLE(src[i*fs:(i+1)*fs]), got, want)
					}
				}
			}
			for i, b := range dst[4*n:] {
				if b != 0xA5 {
					t.Errorf("%v → FLOAT (odd) %s n=%d: wrote dst byte %d beyond the result", from, where, n, 4*n+i)
					bad++
					break
				}
			}
			return bad == 0
		}
		src := neonStageInputs(from, count)
		n := len(src) / fs
		if !check(make([]byte, 4*n+16), src, n, "all inputs") {
			continue
		}
		maxN := 300
		gs, gd := newGuarded(t, fs*maxN+8), newGuarded(t, 4*maxN+8)
		for n := 0; n <= maxN; n++ {
			ok := true
			for _, off := range []int{-1, 0, 1, 3} {
				var s, d []byte
				switch off {
				case -1:
					s, d = gs.atEnd(fs*n), gd.atEnd(4*n)
				case 0:
					s, d = gs.atStart(fs*n), gd.atStart(4*n)
				default:
					s, d = gs.at(off, fs*n), gd.at(off, 4*n+4)
				}
				copy(s, src[len(src)-fs*n:])
				ok = ok && check(d, s, n, fmt.Sprintf("guarded, offset %d", off))
			}
			if !ok {
				break
			}
		}
	}
}
