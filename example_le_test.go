//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package tensorcast_test

import (
	"fmt"

	"github.com/tensorcast/tensorcast"
)

// This example prints the bytes of memory, which are little-endian only on
// little-endian machines (those of the build constraint above).

func ExampleBytes() {
	// The little-endian bytes ONNX's TensorProto.raw_data and safetensors
	// store, without a copy (on little-endian machines, which is every
	// platform tensorcast has kernels for).
	raw := tensorcast.Bytes([]float32{1, -2})
	fmt.Printf("% x\n", raw)
	// And back: raw bytes viewed as []float32 (an error if misaligned).
	f, err := tensorcast.View[float32](raw)
	fmt.Println(f, err)
	// Output:
	// 00 00 80 3f 00 00 00 c0
	// [1 -2] <nil>
}
