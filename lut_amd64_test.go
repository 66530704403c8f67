//go:build amd64 && gc && !purego && !noasm

package tensorcast

import "golang.org/x/sys/cpu"

// extraLutKernels adds the AVX-512 kernels the tiers leave out here: the
// integer FLOAT16 -> BFLOAT16 kernel where VCVTNE2PS2BF16 serves, and the
// AVX-512 table kernels (the AVX2 ones serve where VBMI is missing, so the
// latter never appear: VBMI is required to run them).
func extraLutKernels() (l8 []lut8Kernel, l16 []lut16Kernel, fb, bf []u16Kernel) {
	if hasAVX512() && cpu.X86.HasAVX512BF16 {
		fb = append(fb, u16Kernel{"avx512 integer", avx512F16ToBF16})
	}
	return
}
