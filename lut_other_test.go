//go:build !(amd64 && gc && !purego && !noasm)

package tensorcast

// extraLutKernels: every kernel of this architecture is in a tier.
func extraLutKernels() (l8 []lut8Kernel, l16 []lut16Kernel, fb, bf []u16Kernel) { return }
