module github.com/tensorcast/tensorcast/bench

go 1.26.0

require (
	github.com/ajroetker/go-highway v0.0.12
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/tensorcast/tensorcast v0.0.0-00010101000000-000000000000
	github.com/tphakala/simd v1.8.0
	github.com/x448/float16 v0.8.4
	golang.org/x/sys v0.49.0
)

replace github.com/tensorcast/tensorcast => ../
