package tensorcast

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
)

// The table kernels (lut8, lut16) and FLOAT16 <-> BFLOAT16 of every tier
// against the generic kernels, exhaustively: lut8 and lut16 with random
// tables (and a few structured ones) on every length 0..300 at odd offsets,
// each length holding every byte value it has room for; FLOAT16 <-> BFLOAT16
// on all 65536 inputs, and on every length 0..300 with a sentinel after dst.
// extraLutKernels (per architecture) adds kernels that exist but that no tier
// uses on this machine.

// lutTables returns the tables the tests use: random ones, the identity and
// its complement, and one with every entry alike.
func lutTables(rng *rand.Rand) (t8 []*[256]uint8, t16 []*[256]uint16) {
	for i := range 6 {
		a, b := new([256]uint8), new([256]uint16)
		for j := range a {
			switch i {
			case 0:
				a[j], b[j] = uint8(j), uint16(j)*0x0101
			case 1:
				a[j], b[j] = ^uint8(j), ^uint16(j)
			case 2:
				a[j], b[j] = 0x5A, 0x8001
			default:
				a[j], b[j] = uint8(rng.Uint32()), uint16(rng.Uint32())
			}
		}
		t8, t16 = append(t8, a), append(t16, b)
	}
	// The conversions' own tables, which some kernels recognise and compute.
	for _, p := range [][2]DataType{
		{Int8, Float16}, {Uint8, Float16}, {Int8, BFloat16}, {Uint8, BFloat16},
		{Float8E4M3FN, Float16}, {Float8E4M3FN, BFloat16}, {Float8E5M2, Float16}, {Float8E5M2, BFloat16}, {Bool, Float16},
	} {
		t16 = append(t16, (*[256]uint16)(tableFor(p[0], p[1], Options{}).b16))
	}
	for _, p := range [][2]DataType{{Int8, Uint8}, {Float8E4M3FN, Float8E5M2}} {
		t8 = append(t8, (*[256]uint8)(tableFor(p[0], p[1], Options{NoSaturate: true}).b8))
	}
	return t8, t16
}

// lutTestSource returns n bytes holding every byte value that fits (each of
// 0..255 once per 256 elements, in a random order per block).
func lutTestSource(rng *rand.Rand, n int) []byte {
	s := make([]byte, n)
	var perm [256]byte
	for i := range perm {
		perm[i] = byte(i)
	}
	for i := range s {
		if i%256 == 0 {
			rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		}
		s[i] = perm[i%256]
	}
	return s
}

type lut8Kernel struct {
	name string
	fn   func([]uint8, []uint8, *[256]uint8)
}
type lut16Kernel struct {
	name string
	fn   func([]uint16, []uint8, *[256]uint16)
}
type u16Kernel struct {
	name string
	fn   func([]uint16, []uint16)
}

// lutKernels lists every tier's kernels and the extra ones.
func lutKernels() (l8 []lut8Kernel, l16 []lut16Kernel, fb, bf []u16Kernel) {
	for _, k := range tiers[1:] {
		l8 = append(l8, lut8Kernel{k.tier + "/" + k.lut8.tier, k.lut8.fn})
		l16 = append(l16, lut16Kernel{k.tier + "/" + k.lut16.tier, k.lut16.fn})
		fb = append(fb, u16Kernel{k.tier + "/" + k.f16ToBF16.tier, k.f16ToBF16.fn})
		bf = append(bf, u16Kernel{k.tier + "/" + k.bf16ToF16.tier, k.bf16ToF16.fn})
	}
	e8, e16, efb, ebf := extraLutKernels()
	return append(l8, e8...), append(l16, e16...), append(fb, efb...), append(bf, ebf...)
}

func TestLutKernelsExhaustive(t *testing.T) {
	l8, l16, _, _ := lutKernels()
	if len(l8) == 0 {
		t.Skip("only the generic tier on this machine")
	}
	rng := rand.New(rand.NewPCG(41, 43))
	t8, t16 := lutTables(rng)
	const maxN, pad = 300, 9
	for n := 0; n <= maxN; n++ {
		for _, off := range []int{0, 1, 3} {
			src := lutTestSource(rng, n+off)[off:]
			for ti := range t8 {
				want8 := slices.Repeat([]uint8{0xA5}, n+off+pad)
				lut8Generic(want8[off:off+n], src, t8[ti])
				for _, k := range l8 {
					got := slices.Repeat([]uint8{0xA5}, n+off+pad)
					k.fn(got[off:off+n], src, t8[ti])
					if !slices.Equal(got, want8) {
						t.Fatalf("lut8 %s table %d n=%d off=%d: got %x, want %x", k.name, ti, n, off, got, want8)
					}
				}
			}
			for ti := range t16 {
				want16 := slices.Repeat([]uint16{0xA5A5}, n+off+pad)
				lut16Generic(want16[off:off+n], src, t16[ti])
				for _, k := range l16 {
					got := slices.Repeat([]uint16{0xA5A5}, n+off+pad)
					k.fn(got[off:off+n], src, t16[ti])
					if !slices.Equal(got, want16) {
						t.Fatalf("lut16 %s table %d n=%d off=%d: got %x, want %x", k.name, ti, n, off, got, want16)
					}
				}
			}
		}
	}
	t.Logf("%d lut8 and %d lut16 kernels, %d and %d tables, lengths 0..%d at offsets 0, 1, 3: 0 mismatches", len(l8), len(l16), len(t8), len(t16), maxN)

	// No allocation per call (lut16's plane buffers stay on the stack).
	src := lutTestSource(rng, 1000)
	d8, d16 := make([]uint8, len(src)), make([]uint16, len(src))
	for _, k := range l8 {
		if a := testing.AllocsPerRun(10, func() { k.fn(d8, src, t8[3]) }); a != 0 {
			t.Errorf("lut8 %s: %v allocations per call", k.name, a)
		}
	}
	for _, k := range l16 {
		if a := testing.AllocsPerRun(10, func() { k.fn(d16, src, t16[3]) }); a != 0 {
			t.Errorf("lut16 %s: %v allocations per call", k.name, a)
		}
	}
}

func TestFloat16BFloat16Exhaustive(t *testing.T) {
	_, _, fb, bf := lutKernels()
	if len(fb) == 0 {
		t.Skip("only the generic tier on this machine")
	}
	all := make([]uint16, 1<<16)
	for i := range all {
		all[i] = uint16(i)
	}
	for _, c := range []struct {
		name string
		gen  func([]uint16, []uint16)
		ks   []u16Kernel
	}{
		{"FLOAT16->BFLOAT16", float16ToBFloat16Generic, fb},
		{"BFLOAT16->FLOAT16", bfloat16ToFloat16Generic, bf},
	} {
		want := make([]uint16, len(all))
		c.gen(want, all)
		for _, k := range c.ks {
			got := make([]uint16, len(all))
			k.fn(got, all)
			bad := 0
			for i := range got {
				if got[i] != want[i] {
					if bad++; bad <= 5 {
						t.Errorf("%s %s: input %#04x: got %#04x, want %#04x", c.name, k.name, i, got[i], want[i])
					}
				}
			}
			t.Logf("%s %s: 65536 inputs, %d mismatches", c.name, k.name, bad)
			// Every length at odd offsets, from a shuffled copy of all inputs.
			rng := rand.New(rand.NewPCG(uint64(len(k.name)), 47))
			for n := 0; n <= 300; n++ {
				for _, off := range []int{0, 1, 3} {
					src := make([]uint16, n+off)
					for i := range src {
						src[i] = uint16(rng.Uint32())
					}
					src = src[off:]
					w := slices.Repeat([]uint16{0xA5A5}, n+off+9)
					g := slices.Repeat([]uint16{0xA5A5}, n+off+9)
					c.gen(w[off:off+n], src)
					k.fn(g[off:off+n], src)
					if !slices.Equal(g, w) {
						t.Fatalf("%s %s n=%d off=%d: got %x, want %x (src %x)", c.name, k.name, n, off, g, w, src)
					}
				}
			}
		}
	}
}

// lutBench is one conversion of BenchmarkLutKernels: run converts n
// elements, big is the byte count of its larger side.
type lutBench struct {
	name string
	run  func(k *kernelSet, n int)
	big  int
}

// BenchmarkLutKernels times the kernels of every tier at 64 Ki elements
// against copy() of the larger side, on the thread's CPU clock where there
// is one (lutClock), as the minimum over many alternating repetitions, so
// that a loaded machine inflates neither side: x-copy is time(copy) /
// time(kernel). LUT_BENCH_N sets the number of elements.
func BenchmarkLutKernels(b *testing.B) {
	n := 64 << 10
	if s := os.Getenv("LUT_BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	src8 := make([]uint8, n)
	for i := range src8 {
		src8[i] = uint8(rng.Uint32())
	}
	src16 := make([]uint16, n)
	for i := range src16 {
		src16[i] = uint16(rng.Uint32())&0x7FFF | uint16(rng.Uint32())&0x8000
	}
	d8, d16 := make([]uint8, n), make([]uint16, n)
	e4m3bf := tableFor(Float8E4M3FN, BFloat16, Options{}).b16
	e5m2f := tableFor(Float8E5M2, Float16, Options{}).b16
	i8f := tableFor(Int8, Float16, Options{}).b16
	e4m3e5 := tableFor(Float8E4M3FN, Float8E5M2, Options{}).b8
	cases := []lutBench{
		{"FLOAT8E4M3FN->BFLOAT16", func(k *kernelSet, n int) { k.lut16.fn(d16[:n], src8[:n], (*[256]uint16)(e4m3bf)) }, 2 * n},
		{"FLOAT8E5M2->FLOAT16", func(k *kernelSet, n int) { k.lut16.fn(d16[:n], src8[:n], (*[256]uint16)(e5m2f)) }, 2 * n},
		{"INT8->FLOAT16", func(k *kernelSet, n int) { k.lut16.fn(d16[:n], src8[:n], (*[256]uint16)(i8f)) }, 2 * n},
		{"FLOAT8E4M3FN->FLOAT8E5M2", func(k *kernelSet, n int) { k.lut8.fn(d8[:n], src8[:n], (*[256]uint8)(e4m3e5)) }, n},
		{"BFLOAT16->FLOAT16", func(k *kernelSet, n int) { k.bf16ToF16.fn(d16[:n], src16[:n]) }, 2 * n},
		{"FLOAT16->BFLOAT16", func(k *kernelSet, n int) { k.f16ToBF16.fn(d16[:n], src16[:n]) }, 2 * n},
	}
	cs, cd := make([]byte, 2*n), make([]byte, 2*n)
	for _, c := range cases {
		for _, k := range tiers {
			b.Run(fmt.Sprintf("%s/%s", c.name, k.tier), func(b *testing.B) {
				clock, lock := lutClock()
				defer lock()
				reps := max(1, (1<<18)/n) // calls per clock reading, so the clock's cost is small
				best := func(f func()) int64 {
					t0 := clock()
					for range reps {
						f()
					}
					return clock() - t0
				}
				tc, tk := int64(1<<62), int64(1<<62)
				for i := 0; i < b.N; i++ {
					tc = min(tc, best(func() { copy(cd[:c.big], cs[:c.big]) }))
					tk = min(tk, best(func() { c.run(k, n) }))
				}
				b.ReportMetric(float64(tc)/float64(tk), "x-copy")
				b.ReportMetric(float64(n*reps)/float64(tk), "elem/ns")
			})
		}
	}
}
