package tensorcast_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tensorcast/tensorcast"
)

func ExampleFloat32ToFloat16() {
	src := []float32{1, 0.1, -2.5, 1e-7, 70000, float32(math.NaN())}
	dst := make([]uint16, len(src))
	tensorcast.Float32ToFloat16(dst, src)
	fmt.Printf("%#04x\n", dst)
	// Output: [0x3c00 0x2e66 0xc100 0x0002 0x7c00 0x7e00]
}

func ExampleFloat32ToFloat8() {
	src := []float32{1, 464, 500, float32(math.Inf(1))}
	sat := make([]uint8, len(src))
	tensorcast.Float32ToFloat8(sat, tensorcast.Float8E4M3FN, src, tensorcast.Options{})
	nosat := make([]uint8, len(src))
	tensorcast.Float32ToFloat8(nosat, tensorcast.Float8E4M3FN, src, tensorcast.Options{NoSaturate: true})
	fmt.Printf("saturate=1: % x\nsaturate=0: % x\n", sat, nosat)
	// Output:
	// saturate=1: 38 7e 7e 7e
	// saturate=0: 38 7e 7f 7f
}

func ExampleCast() {
	// Three DOUBLE values to BFLOAT16, rounded once (not through float32).
	vals := []float64{1 + 0x1p-8 + 0x1p-30, math.Copysign(0, -1), 3.0e38}
	src := make([]byte, tensorcast.Double.Size(len(vals)))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(src[8*i:], math.Float64bits(v))
	}
	dst := make([]byte, tensorcast.BFloat16.Size(len(vals)))
	if err := tensorcast.Cast(dst, tensorcast.BFloat16, src, tensorcast.Double, len(vals), tensorcast.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	for i := range vals {
		fmt.Printf("%#04x ", binary.LittleEndian.Uint16(dst[2*i:]))
	}
	fmt.Println()
	// Output: 0x3f81 0x8000 0x7f62
}

func ExampleCast_error() {
	err := tensorcast.Cast(make([]byte, 2), tensorcast.Float16, make([]byte, 8), tensorcast.Float, 2, tensorcast.Options{})
	fmt.Println(err)
	// Output: tensorcast: Cast FLOAT to FLOAT16: dst holds 2 bytes, 2 FLOAT16 elements need 4
}
