package tensorcast

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/x448/float16"
)

// testBF16 is a user's own BFLOAT16 type, as Convert's documentation
// promises to accept.
type testBF16 uint16

// convertDS runs Convert on typed copies of dstB and srcB and copies the
// typed dst back into dstB, so that the result can be compared byte for byte
// with Cast on the same bytes.
func convertDS[D, S Element](dstB []byte, to DataType, srcB []byte, from DataType, opt Options) error {
	var zd D
	var zs S
	src := make([]S, len(srcB)/int(unsafe.Sizeof(zs)))
	fromLE(Bytes(src), srcB, int(unsafe.Sizeof(zs)))
	dst := make([]D, len(dstB)/int(unsafe.Sizeof(zd)))
	fromLE(Bytes(dst), dstB, int(unsafe.Sizeof(zd)))
	err := Convert(dst, to, src, from, opt)
	fromLE(dstB, Bytes(dst), int(unsafe.Sizeof(zd)))
	return err
}

// fromLE copies little-endian elements of size bytes between raw bytes and
// the memory of a typed slice: a copy, or on a big-endian machine a copy
// that reverses each element's bytes (the same operation both ways).
func fromLE(dst, src []byte, size int) {
	if hostLittleEndian || size == 1 {
		copy(dst, src)
		return
	}
	swapBytes(dst, src, size)
}

// convertS picks dst's Go element type for `to`: the natural one (float32
// for FLOAT, int64 for INT64, x448's Float16 for FLOAT16, a user-defined
// type for BFLOAT16, bool for BOOL, uint8 for the 8-bit floats, int8 for
// the signed packed types and uint8 for the other packed ones).
func convertS[S Element](dstB []byte, to DataType, srcB []byte, from DataType, opt Options) error {
	switch to {
	case Float:
		return convertDS[float32, S](dstB, to, srcB, from, opt)
	case Double:
		return convertDS[float64, S](dstB, to, srcB, from, opt)
	case Int8, Int4, Int2:
		return convertDS[int8, S](dstB, to, srcB, from, opt)
	case Int16:
		return convertDS[int16, S](dstB, to, srcB, from, opt)
	case Int32:
		return convertDS[int32, S](dstB, to, srcB, from, opt)
	case Int64:
		return convertDS[int64, S](dstB, to, srcB, from, opt)
	case Uint16:
		return convertDS[uint16, S](dstB, to, srcB, from, opt)
	case Uint32:
		return convertDS[uint32, S](dstB, to, srcB, from, opt)
	case Uint64:
		return convertDS[uint64, S](dstB, to, srcB, from, opt)
	case Bool:
		return convertDS[bool, S](dstB, to, srcB, from, opt)
	case Float16:
		return convertDS[float16.Float16, S](dstB, to, srcB, from, opt)
	case BFloat16:
		return convertDS[testBF16, S](dstB, to, srcB, from, opt)
	}
	return convertDS[uint8, S](dstB, to, srcB, from, opt)
}

// convertBytes is Convert with the natural Go element types on both sides.
func convertBytes(dstB []byte, to DataType, srcB []byte, from DataType, opt Options) error {
	switch from {
	case Float:
		return convertS[float32](dstB, to, srcB, from, opt)
	case Double:
		return convertS[float64](dstB, to, srcB, from, opt)
	case Int8, Int4, Int2:
		return convertS[int8](dstB, to, srcB, from, opt)
	case Int16:
		return convertS[int16](dstB, to, srcB, from, opt)
	case Int32:
		return convertS[int32](dstB, to, srcB, from, opt)
	case Int64:
		return convertS[int64](dstB, to, srcB, from, opt)
	case Uint16:
		return convertS[uint16](dstB, to, srcB, from, opt)
	case Uint32:
		return convertS[uint32](dstB, to, srcB, from, opt)
	case Uint64:
		return convertS[uint64](dstB, to, srcB, from, opt)
	case Bool:
		return convertS[bool](dstB, to, srcB, from, opt)
	case Float16:
		return convertS[float16.Float16](dstB, to, srcB, from, opt)
	case BFloat16:
		return convertS[testBF16](dstB, to, srcB, from, opt)
	}
	return convertS[uint8](dstB, to, srcB, from, opt)
}

// TestConvertAllPairsMatchCast converts random and special data between
// every pair of numeric types (AllTypes without STRING, UNDEFINED and the
// complex types) through Convert on typed slices and through Cast on the
// same bytes, and compares every byte of dst, including the bytes past the
// converted elements. It covers each of Convert's element-count rules: n
// from src, from dst (packed src, unpacked dst) and from src's bytes (both
// packed), with dst exactly as long as needed and longer.
func TestConvertAllPairsMatchCast(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	opts := []Options{{}, {NoSaturate: true}, {RoundMode: RoundDown}, {NoSaturate: true, RoundMode: RoundNearest}}
	pairs, calls, elems, mismatches := 0, 0, 0, 0
	for _, from := range numericTypes() {
		for _, to := range numericTypes() {
			pairs++
			srcPacked, dstPacked := from.BitSize() < 8, to.BitSize() < 8
			for _, m := range []int{0, 1, 3, 33, 301} {
				for _, extra := range []int{0, 5} {
					var n, srcBytes, dstBytes int
					switch {
					case !srcPacked: // n = len(src); dst may be longer
						n = m
						srcBytes, dstBytes = from.Size(n), to.Size(n+extra)
					case !dstPacked: // n = len(dst); src may be longer
						n = m + extra
						srcBytes, dstBytes = from.Size(n)+extra, to.Size(n)
					default: // n = every element of src's bytes; dst may be longer
						n = m * (8 / from.BitSize())
						srcBytes, dstBytes = m, to.Size(n)+extra
					}
					opt := opts[rng.IntN(len(opts))]
					src := randomTensor(rng, from, srcBytes*8/from.BitSize())[:srcBytes]
					if from == Bool { // []bool must hold 0 or 1
						for i := range src {
							src[i] &= 1
						}
					}
					orig := bytes.Clone(src)
					fill := byte(0xA5)
					if to == Bool {
						fill = 1
					}
					want := bytes.Repeat([]byte{fill}, dstBytes)
					got := bytes.Clone(want)
					if err := Cast(want, to, src, from, n, opt); err != nil {
						t.Fatalf("Cast %v -> %v n=%d: %v", from, to, n, err)
					}
					if err := convertBytes(got, to, src, from, opt); err != nil {
						t.Fatalf("Convert %v -> %v n=%d: %v", from, to, n, err)
					}
					calls++
					elems += n
					if !bytes.Equal(src, orig) {
						t.Fatalf("Convert %v -> %v: src modified", from, to)
					}
					if !bytes.Equal(got, want) {
						mismatches++
						t.Errorf("Convert %v -> %v n=%d opt=%+v:\n got % x\nwant % x", from, to, n, opt, got, want)
					}
				}
			}
		}
	}
	logCount(t, "%d pairs, %d calls, %d elements, %d mismatches", pairs, calls, elems, mismatches)
}

func TestConvertTypedSides(t *testing.T) {
	// A few sides the all-pairs test does not pick: unsigned holders of
	// signed types, a named ~uint8 type, []uint8 for BOOL, and
	// float16.Float16 as BFLOAT16 bits (only the size matters for integers).
	type fp8 uint8
	src := []float32{1, -2, 0.5, 448}
	f8 := make([]fp8, 4)
	if err := Convert(f8, Float8E4M3FN, src, Float, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := Bytes(f8); !bytes.Equal(got, []byte{0x38, 0xC0, 0x30, 0x7E}) {
		t.Errorf("FLOAT -> FLOAT8E4M3FN: % x", got)
	}
	u := make([]uint64, 4)
	if err := Convert(u, Int64, src, Float, Options{}); err != nil {
		t.Fatal(err)
	}
	if int64(u[1]) != -2 || u[3] != 448 {
		t.Errorf("FLOAT -> INT64 in []uint64: %v", u)
	}
	b := make([]uint8, 4)
	if err := Convert(b, Bool, []float64{0, 1, -0.0, 3}, Double, Options{}); err != nil || !bytes.Equal(b, []byte{0, 1, 0, 1}) {
		t.Errorf("DOUBLE -> BOOL in []uint8: % x, %v", b, err)
	}
	h := make([]float16.Float16, 2)
	if err := Convert(h, BFloat16, []float32{1, -2}, Float, Options{}); err != nil || h[0] != 0x3F80 || h[1] != 0xC000 {
		t.Errorf("FLOAT -> BFLOAT16 in []float16.Float16: %#x, %v", h, err)
	}
}

func TestConvertCounts(t *testing.T) {
	// INT4 packed to FLOAT: n is len(dst), 3 elements from 2 bytes.
	f := make([]float32, 3)
	if err := Convert(f, Float, []uint8{0x21, 0xF3}, Int4, Options{}); err != nil {
		t.Fatal(err)
	}
	if f[0] != 1 || f[1] != 2 || f[2] != 3 {
		t.Errorf("INT4 -> FLOAT: %v", f)
	}
	// FLOAT to UINT4: n is len(src); 3 elements fill 2 bytes, the padding nibble is cleared.
	p := []uint8{0xFF, 0xFF, 0xFF}
	if err := Convert(p, Uint4, []float32{1, 2, 15}, Float, Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p, []byte{0x21, 0x0F, 0xFF}) {
		t.Errorf("FLOAT -> UINT4: % x", p)
	}
	// Both packed: every element of src's bytes (4 INT2 per byte -> 2 bytes of INT4).
	q := make([]int8, 2)
	if err := Convert(q, Int4, []uint8{0b11_10_01_00}, Int2, Options{}); err != nil {
		t.Fatal(err)
	}
	if Bytes(q)[0] != 0x10 || Bytes(q)[1] != 0xFE {
		t.Errorf("INT2 -> INT4: % x", Bytes(q))
	}
}

func TestConvertErrors(t *testing.T) {
	f32 := make([]float32, 4)
	cases := []struct {
		err  error
		want string
	}{
		{Convert(make([]uint16, 4), Float16, make([]float32, 5), Float, Options{}), "Convert FLOAT to FLOAT16: dst has 4 elements, src has 5"},
		{Convert(f32, Float16, f32, Float, Options{}), "Convert FLOAT to FLOAT16: dst is []float32, which holds FLOAT values only; FLOAT16 elements need []uint16"},
		{Convert(f32, Float, make([]int32, 4), Int32, Options{}), ""},
		{Convert(f32, Int32, f32, Float, Options{}), "dst is []float32, which holds FLOAT values only; INT32 elements need []int32"},
		{Convert(f32, Float, make([]uint16, 4), Float, Options{}), "src is []uint16 (2-byte elements); FLOAT elements are 4 bytes: use []float32"},
		{Convert(f32, Float, make([]uint16, 4), Int4, Options{}), "src is []uint16; INT4 elements are packed 2 per byte and need a []uint8"},
		{Convert(make([]bool, 4), Uint8, f32, Float, Options{}), "dst is []bool, which holds BOOL values only; UINT8 elements need []uint8"},
		{Convert(make([]float16.Float16, 4), Float8E4M3FN, f32, Float, Options{}), "dst is []float16.Float16 (2-byte elements); FLOAT8E4M3FN elements are 1 bytes: use []uint8"},
		{Convert(make([]uint8, 1), Int4, f32, Float, Options{}), "Convert FLOAT to INT4: dst holds 1 bytes, 4 INT4 elements need 2"},
		{Convert(f32, Float, make([]uint8, 1), Uint4, Options{}), "Convert UINT4 to FLOAT: dst has 4 elements, and src holds 1 bytes where 4 UINT4 elements need 2"},
		{Convert(f32, Float, make([]uint64, 4), Complex64, Options{}), "COMPLEX64 is not a type Cast supports"},
		{Convert(f32, Float, make([]uint64, 4), String, Options{}), "use CastFromStrings or CastToStrings"},
		{Convert(f32, Float, make([]uint64, 4), DataType(99), Options{}), "DataType(99) is not a type Cast supports"},
		{Convert(f32, Float, f32, Float, Options{RoundMode: 7}), "invalid RoundMode(7)"},
	}
	for i, c := range cases {
		switch {
		case c.want == "" && c.err != nil:
			t.Errorf("case %d: %v", i, c.err)
		case c.want != "" && (c.err == nil || !strings.Contains(c.err.Error(), c.want)):
			t.Errorf("case %d: got %v\nwant an error containing %q", i, c.err, c.want)
		}
	}
	// An error writes nothing.
	dst := []uint16{7, 7}
	if err := Convert(dst, Float16, []float32{1, 2, 3}, Float, Options{}); err == nil || dst[0] != 7 || dst[1] != 7 {
		t.Errorf("short dst: %v, dst %v", err, dst)
	}
}

func TestConvertAllocs(t *testing.T) {
	src := make([]float32, 1000)
	for i := range src {
		src[i] = float32(i) * 0.37
	}
	h := make([]float16.Float16, len(src))
	b := make([]testBF16, len(src))
	i64 := make([]int64, len(src))
	f64 := make([]float64, len(src))
	i4 := make([]uint8, Int4.Size(len(src)))
	for name, f := range map[string]func(){
		"FLOAT->FLOAT16":     func() { _ = Convert(h, Float16, src, Float, Options{}) },
		"FLOAT16->BFLOAT16":  func() { _ = Convert(b, BFloat16, h, Float16, Options{}) },
		"FLOAT->INT64":       func() { _ = Convert(i64, Int64, src, Float, Options{}) },
		"INT64->DOUBLE":      func() { _ = Convert(f64, Double, i64, Int64, Options{}) },
		"DOUBLE->INT4":       func() { _ = Convert(i4, Int4, f64, Double, Options{}) },
		"INT4->FLOAT":        func() { _ = Convert(src, Float, i4, Int4, Options{}) },
		"Bytes":              func() { _ = Bytes(src) },
		"View":               func() { _, _ = View[float32](Bytes(src)) },
		"CastLike FLOAT->BF": func() { _ = CastLike(Bytes(b), BFloat16, Bytes(src), Float, len(src), Options{}) },
	} {
		if name == "View" && !hostLittleEndian {
			continue // View refuses multi-byte elements there
		}
		if a := testing.AllocsPerRun(50, f); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, a)
		}
	}
}

func TestBytesView(t *testing.T) {
	f := []float32{1, -2}
	b := Bytes(f)
	if want := binary.NativeEndian.AppendUint32(binary.NativeEndian.AppendUint32(nil, 0x3F800000), 0xC0000000); !bytes.Equal(b, want) {
		t.Fatalf("Bytes: % x, want % x", b, want)
	}
	top := 3 // the byte of the sign and exponent
	if !hostLittleEndian {
		top = 0
	}
	b[top] = 0x40  // a view: writes reach f
	if f[0] != 4 { // 0x40800000
		t.Errorf("Bytes is not a view: %v", f)
	}
	v, err := View[float32](b)
	if !hostLittleEndian {
		if err == nil || !strings.Contains(err.Error(), "big-endian") {
			t.Errorf("View as []float32 on a big-endian machine: %v, %v", v, err)
		}
	} else if err != nil || len(v) != 2 || &v[0] != &f[0] {
		t.Errorf("View: %v, %v", v, err)
	}
	if Bytes[float64](nil) != nil || len(Bytes([]bool{})) != 0 {
		t.Error("Bytes of empty slices")
	}
	if v, err := View[uint8](nil); err != nil || len(v) != 0 {
		t.Errorf("View of nil: %v, %v", v, err)
	}
	if _, err := View[float32](b[:7]); err == nil || !strings.Contains(err.Error(), "7 bytes are not a whole number of 4-byte elements") {
		t.Errorf("View of 7 bytes: %v", err)
	}
	buf := make([]uint64, 2)
	if _, err := View[uint32](Bytes(buf)[2:6]); err == nil || !strings.Contains(err.Error(), "not 4-byte aligned") {
		t.Errorf("misaligned View: %v", err)
	}
	if _, err := View[uint8](Bytes(buf)[1:4]); err != nil {
		t.Errorf("View of bytes as []uint8: %v", err)
	}
	if bs, err := View[bool]([]byte{0, 1, 1}); err != nil || !bs[1] || bs[0] {
		t.Errorf("View as []bool: %v, %v", bs, err)
	}
	if _, err := View[bool]([]byte{0, 2}); err == nil || !strings.Contains(err.Error(), "byte 1 is 0x2") {
		t.Errorf("View of a non-bool byte as []bool: %v", err)
	}
}

func TestCastLike(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, from := range numericTypes() {
		for _, like := range numericTypes() {
			src := randomTensor(rng, from, 17)
			want := make([]byte, like.Size(17))
			got := make([]byte, like.Size(17))
			opt := Options{NoSaturate: rng.IntN(2) == 0, RoundMode: RoundMode(rng.IntN(3))}
			errW := Cast(want, like, src, from, 17, opt)
			errG := CastLike(got, like, src, from, 17, opt)
			if (errW == nil) != (errG == nil) || !bytes.Equal(got, want) {
				t.Errorf("CastLike %v like %v: % x, %v; Cast: % x, %v", from, like, got, errG, want, errW)
			}
		}
	}
	if err := CastLike(make([]byte, 4), String, make([]byte, 4), Float, 1, Options{}); err == nil {
		t.Error("CastLike to STRING succeeded")
	}
}

func itoa(n int) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}

// BenchmarkConvertCastRatio measures Convert and Cast on the same data in
// short alternating batches (each about 50 µs, the order swapped every
// batch) and reports the median of the per-batch ratios of Convert's time
// over Cast's ("ratio"): on a shared, loaded machine an interruption spoils
// single batches, which the median ignores, rather than one side's total.
func BenchmarkConvertCastRatio(b *testing.B) {
	for _, n := range []int{16, 256, 4096, 65536} {
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(i)*0.37 - 100
		}
		h := make([]float16.Float16, n)
		f64 := make([]float64, n)
		i8 := make([]int8, n)
		i4 := make([]uint8, Int4.Size(n))
		srcB, hB, f64B, i8B, i4B := Bytes(src), Bytes(h), Bytes(f64), Bytes(i8), Bytes(i4)
		_ = Convert(f64, Double, src, Float, Options{})
		pairs := []struct {
			name          string
			convert, cast func() error
		}{
			{"FLOAT-FLOAT16", func() error { return Convert(h, Float16, src, Float, Options{}) },
				func() error { return Cast(hB, Float16, srcB, Float, n, Options{}) }},
			{"DOUBLE-INT8", func() error { return Convert(i8, Int8, f64, Double, Options{}) },
				func() error { return Cast(i8B, Int8, f64B, Double, n, Options{}) }},
			{"FLOAT-INT4", func() error { return Convert(i4, Int4, src, Float, Options{}) },
				func() error { return Cast(i4B, Int4, srcB, Float, n, Options{}) }},
		}
		for _, p := range pairs {
			b.Run(p.name+"/n="+itoa(n), func(b *testing.B) {
				// Size the batch to about 50 µs of Cast (the clock here ticks in µs).
				for range 100 { // warm up: page faults, caches, branch predictors
					_, _ = p.cast(), p.convert()
				}
				batch := 1
				for {
					t0 := time.Now()
					for range batch {
						_ = p.cast()
					}
					if time.Since(t0) > 50*time.Microsecond || batch >= 1<<20 {
						break
					}
					batch *= 2
				}
				run := func(f func() error) time.Duration {
					t0 := time.Now()
					for range batch {
						_ = f()
					}
					return time.Since(t0)
				}
				var ratios []float64
				var tCast, tConvert time.Duration
				i := 0
				for b.Loop() {
					var c, v time.Duration
					if i++; i%2 == 0 {
						c, v = run(p.cast), run(p.convert)
					} else {
						v, c = run(p.convert), run(p.cast)
					}
					tCast += c
					tConvert += v
					ratios = append(ratios, float64(v)/float64(c))
				}
				slices.Sort(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "ratio")
				b.ReportMetric(float64(tCast.Nanoseconds())/float64(b.N*batch), "cast-ns/op")
				b.ReportMetric(float64(tConvert.Nanoseconds())/float64(b.N*batch), "convert-ns/op")
			})
		}
	}
}
