module github.com/tensorcast/tensorcast

go 1.26.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/x448/float16 v0.8.4
	golang.org/x/sys v0.49.0
	google.golang.org/protobuf v1.36.12
)
