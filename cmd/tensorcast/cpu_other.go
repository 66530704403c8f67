//go:build !amd64 && !386 && !arm64

package main

// cpuFeatures is empty where tensorcast has no SIMD kernels.
func cpuFeatures() []feature { return nil }
