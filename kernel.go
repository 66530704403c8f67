package tensorcast

import "fmt"

// This file is the dispatch point: every typed entry point and every hot pair
// of Cast calls through the kernel table `active`. A kernel table holds one
// function per hot conversion; the architecture files (kernel_amd64.go,
// kernel_arm64.go) fill `active` at init from the best tier the CPU supports,
// conversion by conversion, falling back to the portable kernels in
// kernel_generic.go.
//
// Kernel contract: n = len(src) elements (for packed sources, len(dst)
// elements); the caller guarantees dst is long enough. A kernel reads only
// src[:n] and writes only the bytes the n results occupy.

// kernel is one implementation of one conversion, with the tier that
// provides it (one of the names KernelInfo.Kernel lists).
type kernel[F any] struct {
	fn   F
	tier string
}

// set installs fn, of the named tier, and reset empties the slot; the
// generated tier tables use them (setAVX2Kernels…), so that the slot's type
// is written once, in kernelSet.
func (k *kernel[F]) set(fn F, tier string) { *k = kernel[F]{fn, tier} }
func (k *kernel[F]) reset()                { *k = kernel[F]{} }

// kernelSet, the table of hot conversions, is generated (kernelset.go,
// from gen/kernelset's Table), with the listing Kernels returns.

// tierOr returns k's tier, or other where k has no kernel.
func (k kernel[F]) tierOr(other string) string {
	if k.tier == "" {
		return other
	}
	return k.tier
}

// tiers lists every kernel table this machine can run, lowest first, so tests
// can compare each against the reference in one process. Architecture files
// append to it at init.
var tiers = []*kernelSet{genericKernels()}

// active is the table the library uses: the generic one of tiers until an
// architecture file picks a higher tier.
var active = tiers[0]

// KernelName returns the best tier in use: "avx512", "avx2", "neon" or
// "generic" (the tier of the float32 → FLOAT16 kernel; Kernels lists every
// conversion).
func KernelName() string { return active.f32ToF16.tier }

// KernelInfo names the kernel that serves one hot conversion. Kernel is
// the name of the tier that provides it, one of "generic", "avx2",
// "avx512", "avx512+bf16", "neon", "neon+bf16": the names Tiers returns,
// and "avx512+bf16" for the AVX-512 tier's FLOAT -> BFLOAT16 kernel on CPUs
// with AVX512_BF16 (VCVTNE2PS2BF16). `tensorcast cpu` prints them.
type KernelInfo struct {
	Conversion string // e.g. "FLOAT -> FLOAT16"
	Kernel     string // the tier, e.g. "avx512"
}

// Kernels lists, for each shared kernel (the hot conversions and the
// lookups that many plans use), which tier serves it on this machine. The
// other stages, and which of them each pair's plan runs, are in Routes.
func Kernels() []KernelInfo { return active.list() }

// Tiers lists the kernel tiers this machine can run, lowest first:
// "generic", then "avx2" and "avx512" on amd64 (as the CPU allows), or
// "neon" and "neon+bf16" (with FEAT_BF16) on arm64.
func Tiers() []string {
	names := make([]string, len(tiers))
	for i, k := range tiers {
		names[i] = k.tier
	}
	return names
}

// UseTier makes the library use the kernels of the named tier (one of
// Tiers()) instead of the best one, for tests, benchmarks and debugging. It
// must not be called while conversions are running in other goroutines. The
// tiers themselves are chosen at init, so GODEBUG=cpu.avx512f=off (or
// cpu.avx2=off) is the way to disable a tier for a whole process.
func UseTier(name string) error {
	for _, k := range tiers {
		if k.tier == name {
			active = k
			return nil
		}
	}
	return fmt.Errorf("tensorcast: tier %q is not available here (have %v)", name, Tiers())
}
