//go:build amd64 && goexperiment.simd

package main

import (
	"github.com/ajroetker/go-highway/hwy/asm"
	"golang.org/x/sys/cpu"
)

// go-highway's slice conversions need GOEXPERIMENT=simd (its amd64 wrappers
// carry that build constraint). Its AVX-512 FLOAT16 kernels use AVX512-FP16
// (VCVTPS2PHX), which few CPUs have, so the FLOAT16 rows use its F16C
// kernels; the BFLOAT16 rows use its AVX512_BF16 kernels (VCVTNEPS2BF16,
// which flushes float32 subnormals to zero).
func init() {
	const mod = "github.com/ajroetker/go-highway v0.0.12"
	highwayStatus = mod + ": included (built with GOEXPERIMENT=simd)"
	if !cpu.X86.HasAVX2 || !cpu.X86.HasF16C {
		highwayStatus = mod + ": built, but this CPU lacks F16C/AVX2, so it is not measured"
		return
	}
	extraPeers["f32-f16"] = append(extraPeers["f32-f16"], impl{id: "highway", name: "go-highway asm.DemoteF32ToF16F16C", kind: kPeer,
		note: mod + ": F16C VCVTPS2PH from C compiled with GoAT, 32 elements per iteration",
		bind: func(e *env) func(int) {
			return func(i int) { asm.DemoteF32ToF16F16C(e.srcF32(i), e.d16) }
		}, out: func(e *env) []byte { return u16Bytes(e.d16) }})
	extraPeers["f16-f32"] = append(extraPeers["f16-f32"], impl{id: "highway", name: "go-highway asm.PromoteF16ToF32F16C", kind: kPeer,
		note: mod + ": F16C VCVTPH2PS from C compiled with GoAT, 32 elements per iteration",
		bind: func(e *env) func(int) {
			return func(i int) { asm.PromoteF16ToF32F16C(e.srcF16(i), e.dF32) }
		}, out: func(e *env) []byte { return f32Bytes(e.dF32) }})
	if !cpu.X86.HasAVX512BF16 {
		highwayStatus += "; its BFLOAT16 kernels need AVX512_BF16, which this CPU lacks"
		return
	}
	extraPeers["f32-bf16"] = append(extraPeers["f32-bf16"], impl{id: "highway", name: "go-highway asm.DemoteF32ToBF16AVX512", kind: kPeer,
		note: mod + ": AVX512_BF16 VCVTNEPS2BF16, which flushes float32 subnormals to zero",
		bind: func(e *env) func(int) {
			return func(i int) { asm.DemoteF32ToBF16AVX512(e.srcF32(i), e.d16) }
		}, out: func(e *env) []byte { return u16Bytes(e.d16) }})
	// Not measured: asm.PromoteBF16ToF32AVX512 faults (SIGSEGV, a general
	// protection fault) at its first constant load, `vmovdqa LCPI2_0(%rip)`,
	// which GoAT emitted as raw bytes with the displacement of the C object
	// file, for any input of 32 elements or more.
	highwayStatus += "; its BFLOAT16 → FLOAT kernel asm.PromoteBF16ToF32AVX512 is left out: in v0.0.12 it crashes (SIGSEGV) at its first constant load, a `vmovdqa LCPI2_0(%rip)` that GoAT emitted as raw bytes with the C object's displacement, for 32 elements or more"
}
