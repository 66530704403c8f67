//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"

	"golang.org/x/sys/cpu"
)

// extraLutKernels adds the AVX-512 kernels the tiers leave out here: the
// integer FLOAT16 -> BFLOAT16 kernel where VCVTNE2PS2BF16 serves, and the
// table kernels for CPUs without VBMI where the VPERMI2B ones serve.
func extraLutKernels() (l8 []lut8Kernel, l16 []lut16Kernel, fb, bf []u16Kernel) {
	if hasAVX512() && cpu.X86.HasAVX512BF16 {
		fb = append(fb, u16Kernel{"avx512 integer", avx512F16ToBF16})
	}
	if hasAVX512() && cpu.X86.HasAVX512VBMI {
		l8 = append(l8, lut8Kernel{"avx512 without VBMI", avx512BWLut8})
		l16 = append(l16, lut16Kernel{"avx512 without VBMI", avx512BWLut16})
	}
	return
}

// TestExtraLutKernelsGuardPages runs the kernels of extraLutKernels (which
// TestKernelsGuardPages does not reach) on every length 0..1024 with src and
// dst flush against a guard page, after and then before them.
func TestExtraLutKernelsGuardPages(t *testing.T) {
	l8, l16, fb, _ := extraLutKernels()
	if len(fb)+len(l8)+len(l16) == 0 {
		t.Skip("no kernel outside the tiers here")
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	const maxN = 1024
	sg, dg := newGuarded(t, 2*maxN), newGuarded(t, 2*maxN)
	in := make([]uint16, maxN)
	for i := range in {
		in[i] = uint16(i*40503 + 7)
	}
	rng := rand.New(rand.NewPCG(5, 9))
	t8, t16 := lutTables(rng)
	for _, k := range l8 {
		for n := 0; n <= maxN; n++ {
			want := make([]uint8, n)
			for _, atEnd := range []bool{true, false} {
				s, d := sg.atStart(n), dg.atStart(n)
				if atEnd {
					s, d = sg.atEnd(n), dg.atEnd(n)
				}
				copy(s, lutTestSource(rand.New(rand.NewPCG(uint64(n), 1)), n))
				lut8Generic(want, s, t8[4])
				k.fn(d, s, t8[4])
				if !slices.Equal(d, want) {
					t.Fatalf("lut8 %s n=%d atEnd=%v: got %x, want %x", k.name, n, atEnd, d, want)
				}
			}
		}
	}
	for _, k := range l16 {
		for n := 0; n <= maxN; n++ {
			want := make([]uint16, n)
			for _, atEnd := range []bool{true, false} {
				s, d := sg.atStart(n), dg.atStart(2*n)
				if atEnd {
					s, d = sg.atEnd(n), dg.atEnd(2*n)
				}
				copy(s, lutTestSource(rand.New(rand.NewPCG(uint64(n), 2)), n))
				lut16Generic(want, s, t16[4])
				dst := view[uint16](d, n)
				k.fn(dst, s, t16[4])
				if !slices.Equal(dst, want) {
					t.Fatalf("lut16 %s n=%d atEnd=%v: got %x, want %x", k.name, n, atEnd, dst, want)
				}
			}
		}
	}
	for _, k := range fb {
		for n := 0; n <= maxN; n++ {
			want := make([]uint16, n)
			float16ToBFloat16Generic(want, in[:n])
			for _, atEnd := range []bool{true, false} {
				s, d := sg.atStart(2*n), dg.atStart(2*n)
				if atEnd {
					s, d = sg.atEnd(2*n), dg.atEnd(2*n)
				}
				src, dst := view[uint16](s, n), view[uint16](d, n)
				copy(src, in)
				k.fn(dst, src)
				if !slices.Equal(dst, want) {
					t.Fatalf("%s n=%d atEnd=%v: got %04x, want %04x", k.name, n, atEnd, dst, want)
				}
			}
		}
	}
}
