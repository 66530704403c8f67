//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"runtime/debug"
	"slices"
	"testing"

	"golang.org/x/sys/cpu"
)

// extraLutKernels adds the AVX-512 kernel the tiers leave out here: the
// integer FLOAT16 -> BFLOAT16 kernel, where VCVTNE2PS2BF16 serves. (The
// AVX-512 table kernels need VBMI; without it the tier keeps the AVX2 ones,
// so no table kernel is ever left out on a machine that can run it.)
func extraLutKernels() (l8 []lut8Kernel, l16 []lut16Kernel, fb, bf []u16Kernel) {
	if hasAVX512() && cpu.X86.HasAVX512BF16 {
		fb = append(fb, u16Kernel{"avx512 integer", avx512F16ToBF16})
	}
	return
}

// TestExtraLutKernelsGuardPages runs the kernels of extraLutKernels (which
// TestKernelsGuardPages does not reach) on every length 0..1024 with src and
// dst flush against a guard page, after and then before them.
func TestExtraLutKernelsGuardPages(t *testing.T) {
	_, _, fb, _ := extraLutKernels()
	if len(fb) == 0 {
		t.Skip("no kernel outside the tiers here")
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	const maxN = 1024
	sg, dg := newGuarded(t, 2*maxN), newGuarded(t, 2*maxN)
	in := make([]uint16, maxN)
	for i := range in {
		in[i] = uint16(i*40503 + 7)
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
