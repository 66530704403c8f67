//go:build amd64 || 386

package main

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

func cpuFeatures() []feature {
	has := cpuid.CPU.Supports
	x := &cpu.X86
	return []feature{
		{"SSE4.1", has(cpuid.SSE4), ptr(x.HasSSE41), "sse41"},
		{"AVX", has(cpuid.AVX), ptr(x.HasAVX), "avx"},
		{"AVX2", has(cpuid.AVX2), ptr(x.HasAVX2), "avx2"},
		{"F16C", has(cpuid.F16C), ptr(x.HasF16C), "f16c"},
		{"FMA", has(cpuid.FMA3), ptr(x.HasFMA), "fma"},
		{"AVX512F", has(cpuid.AVX512F), ptr(x.HasAVX512F), "avx512f"},
		{"AVX512BW", has(cpuid.AVX512BW), ptr(x.HasAVX512BW), "avx512bw"},
		{"AVX512VL", has(cpuid.AVX512VL), ptr(x.HasAVX512VL), "avx512vl"},
		{"AVX512DQ", has(cpuid.AVX512DQ), ptr(x.HasAVX512DQ), "avx512dq"},
		{"AVX512VBMI", has(cpuid.AVX512VBMI), ptr(x.HasAVX512VBMI), "avx512vbmi"},
		{"AVX512VBMI2", has(cpuid.AVX512VBMI2), ptr(x.HasAVX512VBMI2), "avx512vbmi2"},
		{"AVX512BF16", has(cpuid.AVX512BF16), ptr(x.HasAVX512BF16), "avx512bf16"},
		// x/sys/cpu reports GFNI only with AVX-512; the AVX2 tier asks
		// cpuid where AVX-512 is off (kernel_amd64.go, hasGFNI).
		{"GFNI", has(cpuid.GFNI), ptr(x.HasAVX512GFNI), "avx512gfni"},
	}
}
