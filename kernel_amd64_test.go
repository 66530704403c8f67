//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Kernels that exist on this machine but that no tier in `tiers` uses:
// where the CPU has AVX512_BF16, the AVX-512 tier converts FLOAT ->
// BFLOAT16 with VCVTNE2PS2BF16, and the integer AVX-512 kernel only runs
// under GODEBUG=cpu.avx512bf16=off. These tests run it directly.

// hasAVX512 reports whether the AVX-512 tier exists (it builds on the AVX2
// tier, so GODEBUG=cpu.avx2=off removes it too).
func hasAVX512() bool {
	return cpu.X86.HasAVX2 && cpu.X86.HasF16C &&
		cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2
}

// TestAVX512IntegerBF16 checks the integer AVX-512 FLOAT -> BFLOAT16 kernel
// against the generic one: every length 0..300, then all 2^32 inputs (a
// sample under -short), then flush against guard pages.
func TestAVX512IntegerBF16(t *testing.T) {
	if !hasAVX512() {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(23, 29))
	for n := 0; n <= 300; n++ {
		src := view[float32](tierInputs(rng, Float, n), n)
		want := make([]uint16, n+4)
		got := make([]uint16, n+4)
		for i := range got {
			got[i], want[i] = 0xA5A5, 0xA5A5
		}
		float32ToBFloat16Generic(want[:n], src)
		avx512F32ToBF16(got[:n], src)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: got %04x, want %04x (input %v)", n, got, want, src)
		}
	}

	const chunk = 1 << 20
	src := make([]float32, chunk)
	want := make([]uint16, chunk)
	got := make([]uint16, chunk)
	step := uint64(1)
	if testing.Short() {
		step = 61 // a prime stride through the 2^32 patterns
	}
	bad, inputs := 0, 0
	for base := uint64(0); base < 1<<32; base += chunk * step {
		for i := range src {
			src[i] = math.Float32frombits(uint32(base + uint64(i)*step))
		}
		float32ToBFloat16Generic(want, src)
		avx512F32ToBF16(got, src)
		inputs += chunk
		for i := range got {
			if got[i] != want[i] {
				if bad++; bad <= 3 {
					t.Errorf("input %#08x: got %#04x, want %#04x", math.Float32bits(src[i]), got[i], want[i])
				}
			}
		}
	}
	t.Logf("FLOAT -> BFLOAT16 [avx512 integer]: %d inputs, %d mismatches", inputs, bad)

	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	maxN := 130
	sg, dg := newGuarded(t, 4*maxN), newGuarded(t, 2*maxN+64)
	in := view[float32](tierInputs(rng, Float, maxN), maxN)
	for n := 0; n <= maxN; n++ {
		w := make([]uint16, n)
		float32ToBFloat16Generic(w, in[:n])
		for _, place := range []struct {
			where string
			s, d  []byte
		}{
			{"before the upper guard", sg.atEnd(4 * n), dg.atEnd(2 * n)},
			{"after the lower guard", sg.atStart(4 * n), dg.atStart(2*n + 64)},
		} {
			copy(view[float32](place.s, n), in[:n])
			for i := range place.d {
				place.d[i] = 0xA5
			}
			avx512F32ToBF16(view[uint16](place.d, n), view[float32](place.s, n))
			if !slices.Equal(view[uint16](place.d, n), w) {
				t.Fatalf("n=%d flush %s: wrong result", n, place.where)
			}
			for i, b := range place.d[2*n:] {
				if b != 0xA5 {
					t.Fatalf("n=%d flush %s: wrote dst byte %d", n, place.where, 2*n+i)
				}
			}
		}
	}
}

// TestAVX512TierChoices checks which kernels the AVX-512 tier installs for
// the optional extensions.
func TestAVX512TierChoices(t *testing.T) {
	if !hasAVX512() {
		t.Skip("no AVX-512")
	}
	k := tiers[len(tiers)-1]
	if k.tier != "avx512" {
		t.Fatalf("best tier %q, want avx512", k.tier)
	}
	wantBF16 := "avx512"
	if cpu.X86.HasAVX512BF16 && cpu.X86.HasAVX512DQ {
		wantBF16 = "avx512+bf16"
	}
	if k.f32ToBF16.tier != wantBF16 {
		t.Errorf("FLOAT -> BFLOAT16 served by %q, want %q", k.f32ToBF16.tier, wantBF16)
	}
	wantF8 := "avx2" // without VBMI the AVX-512 tier keeps the AVX2 widening kernel
	if cpu.X86.HasAVX512VBMI {
		wantF8 = "avx512"
	}
	if k.f8ToF32.tier != wantF8 {
		t.Errorf("FLOAT8 -> FLOAT served by %q, want %q", k.f8ToF32.tier, wantF8)
	}
}

// TestAVX512WidenOtherTable gives the AVX-512 widening kernel a table whose
// entries have nonzero low halves, which its lookup planes cannot hold: the
// kernel must refuse it and the wrapper fall back to the generic loop.
func TestAVX512WidenOtherTable(t *testing.T) {
	if !hasAVX512() || !cpu.X86.HasAVX512VBMI {
		t.Skip("no AVX-512 VBMI")
	}
	var table [256]uint32
	src := make([]uint8, 300)
	for i := range table {
		table[i] = uint32(i) * 0x01010101
	}
	for i := range src {
		src[i] = uint8(i * 7)
	}
	got, want := make([]float32, len(src)), make([]float32, len(src))
	if f8ToF32AVX512(unsafe.SliceData(got), unsafe.SliceData(src), len(src), &table) {
		t.Fatal("the kernel accepted a table with nonzero low halves")
	}
	avx512F8ToF32(got, src, &table)
	float8ToFloat32Generic(want, src, &table)
	if !slices.Equal(view[uint32](byteSlice(got), len(got)), view[uint32](byteSlice(want), len(want))) {
		t.Fatal("fallback differs from the generic kernel")
	}
	table[5] = 0x3F800000 // entries with zero low halves only: accepted
	for i := range table {
		table[i] &^= 0xFFFF
	}
	if !f8ToF32AVX512(unsafe.SliceData(got), unsafe.SliceData(src), len(src), &table) {
		t.Fatal("the kernel refused a table with zero low halves")
	}
	float8ToFloat32Generic(want, src, &table)
	if !slices.Equal(view[uint32](byteSlice(got), len(got)), view[uint32](byteSlice(want), len(want))) {
		t.Fatal("kernel differs from the generic kernel on a custom table")
	}
}
