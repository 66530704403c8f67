package tensorcast_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tensorcast/tensorcast"
	"github.com/x448/float16"
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

func ExampleConvert() {
	// float32 embeddings to FLOAT16 bits in a []uint16: n is len(src).
	emb := []float32{0.1, -2.5, 1e-7, 70000}
	h := make([]uint16, len(emb))
	if err := tensorcast.Convert(h, tensorcast.Float16, emb, tensorcast.Float, tensorcast.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%#04x\n", h)
	// Output: [0x2e66 0xc100 0x0002 0x7c00]
}

func ExampleConvert_float64() {
	// DOUBLE to FLOAT8E4M3FN, rounded once; saturate=0 turns overflow into NaN.
	src := []float64{0.3, -1e-3, 500}
	f8 := make([]uint8, len(src))
	_ = tensorcast.Convert(f8, tensorcast.Float8E4M3FN, src, tensorcast.Double, tensorcast.Options{})
	fmt.Printf("saturate=1: % x\n", f8)
	_ = tensorcast.Convert(f8, tensorcast.Float8E4M3FN, src, tensorcast.Double, tensorcast.Options{NoSaturate: true})
	fmt.Printf("saturate=0: % x\n", f8)
	// Output:
	// saturate=1: 2a 81 7e
	// saturate=0: 2a 81 7f
}

func ExampleConvert_int64() {
	// INT64 to FLOAT rounds to nearest even; FLOAT to INT64 truncates.
	ids := []int64{1, 1<<24 + 1, -(1 << 40) - 3}
	f := make([]float32, len(ids))
	_ = tensorcast.Convert(f, tensorcast.Float, ids, tensorcast.Int64, tensorcast.Options{})
	fmt.Println(f)
	back := make([]int64, len(f))
	_ = tensorcast.Convert(back, tensorcast.Int64, []float32{2.9, -2.9, 1e30}, tensorcast.Float, tensorcast.Options{})
	fmt.Println(back)
	// Output:
	// [1 1.6777216e+07 -1.0995116e+12]
	// [2 -2 0]
}

func ExampleConvert_x448Float16() {
	// github.com/x448/float16's Float16 is a uint16, so it is an Element.
	src := []float32{1.5, 65504, 65520, -0.0001}
	h := make([]float16.Float16, len(src))
	if err := tensorcast.Convert(h, tensorcast.Float16, src, tensorcast.Float, tensorcast.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range h {
		fmt.Print(v.Float32(), " ")
	}
	fmt.Println()
	// Output: 1.5 65504 +Inf -0.000100016594
}

// BF16 is a user's own bfloat16 type: any named ~uint16 type is an Element.
type BF16 uint16

func (b BF16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }

func ExampleConvert_userType() {
	// FLOAT16 (x448) to BFLOAT16 (BF16): a pair the typed helpers lack,
	// rounded once to nearest even.
	h := []float16.Float16{float16.Fromfloat32(1.0039062), float16.Fromfloat32(65504), float16.Fromfloat32(-3.1415)}
	b := make([]BF16, len(h))
	if err := tensorcast.Convert(b, tensorcast.BFloat16, h, tensorcast.Float16, tensorcast.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range b {
		fmt.Printf("%#04x=%v ", uint16(v), v.Float32())
	}
	fmt.Println()
	// Output: 0x3f80=1 0x4780=65536 0xc049=-3.140625
}

func ExampleConvert_packed() {
	// Packed types travel as bytes. FLOAT to INT4: n is len(src), 3
	// elements fill 2 bytes (first element in the low nibble).
	q := make([]uint8, tensorcast.Int4.Size(3))
	_ = tensorcast.Convert(q, tensorcast.Int4, []float32{1.7, -2, 9}, tensorcast.Float, tensorcast.Options{})
	fmt.Printf("% x\n", q)
	// INT4 back to FLOAT: n is len(dst).
	f := make([]float32, 3)
	_ = tensorcast.Convert(f, tensorcast.Float, q, tensorcast.Int4, tensorcast.Options{})
	fmt.Println(f)
	// Output:
	// e1 09
	// [1 -2 -7]
}

func ExampleConvert_error() {
	err := tensorcast.Convert(make([]float32, 2), tensorcast.Float16, []float32{1, 2}, tensorcast.Float, tensorcast.Options{})
	fmt.Println(err)
	// Output: tensorcast: Convert FLOAT to FLOAT16: dst is []float32, which holds FLOAT values only; FLOAT16 elements need []uint16
}

func ExampleCastLike() {
	// ONNX CastLike(input, target_type): the output takes target_type's
	// element type; its data is not used.
	var input []byte // FLOAT raw_data: 1, 0.333, 1e9, little-endian
	for _, v := range []float32{1, 0.333, 1e9} {
		input = binary.LittleEndian.AppendUint32(input, math.Float32bits(v))
	}
	targetType := tensorcast.BFloat16 // e.g. the element type of the model's second input
	out := make([]byte, targetType.Size(3))
	if err := tensorcast.CastLike(out, targetType, input, tensorcast.Float, 3, tensorcast.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", out)
	// Output: 80 3f aa 3e 6e 4e
}
