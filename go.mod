module github.com/tensorcast/tensorcast

go 1.26.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/sys v0.49.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
