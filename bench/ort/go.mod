module github.com/tensorcast/tensorcast/bench/ort

go 1.26.0

replace github.com/tensorcast/tensorcast => ../../

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/tensorcast/tensorcast v0.0.0-00010101000000-000000000000
	github.com/yalue/onnxruntime_go v1.27.0
	golang.org/x/sys v0.49.0
	google.golang.org/protobuf v1.36.12
)
