//go:build !amd64 || !goexperiment.simd

package main

import "runtime"

func init() {
	highwayStatus = "github.com/ajroetker/go-highway v0.0.12: not in this build; its slice conversions need GOEXPERIMENT=simd (Go 1.26): run `GOEXPERIMENT=simd go run .` to include it"
	if runtime.GOARCH != "amd64" {
		highwayStatus = "github.com/ajroetker/go-highway v0.0.12: not wired on " + runtime.GOARCH + " (the harness uses its amd64 F16C and AVX512_BF16 kernels)"
	}
}
