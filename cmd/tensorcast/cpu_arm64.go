//go:build arm64

package main

import (
	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

func cpuFeatures() []feature {
	has := cpuid.CPU.Supports
	a := &cpu.ARM64
	return []feature{
		{"ASIMD", has(cpuid.ASIMD), ptr(a.HasASIMD), "asimd"},
		{"FPHP", has(cpuid.FPHP), ptr(a.HasFPHP), "fphp"},
		{"ASIMDHP", has(cpuid.ASIMDHP), ptr(a.HasASIMDHP), "asimdhp"},
		{"BF16", has(cpuid.BF16), nil, ""},
	}
}
