package tensorcast

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// numericTypes are the types Cast converts on raw bytes.
func numericTypes() []DataType {
	var ts []DataType
	for _, t := range AllTypes() {
		if t.Castable() && t != String {
			ts = append(ts, t)
		}
	}
	return ts
}

// specialBits are element patterns worth seeding into every source type:
// zeros, ones, extremes, NaN/Inf patterns of the wider floats.
var specialBits = []uint64{
	0, 1, 2, 0x7F, 0x80, 0xFF, 0x7C00, 0x7E00, 0x8000, 0xFC00, 0x7F80, 0x7FC0, 0x3C00, 0x3F80,
	0x7F800000, 0xFF800000, 0x7FC00001, 0x00000001, 0x80000000, 0x4EFFFFFF, 0x5F000000, 0xDF000000,
	0x3F800000, 0x40C00000, 0x43E00000, 0x47000000, 0x477FF000,
	0x7FF0000000000000, 0x7FF8000000000001, 0x43E0000000000000, 0xC3E0000000000000, 0x3FF0000000000000,
	0x3FF0100000040000, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF,
}

// randomTensor fills n elements of t with a mix of random bits and specials.
func randomTensor(rng *rand.Rand, t DataType, n int) []byte {
	b := make([]byte, t.Size(n))
	k := ref.Kind(t)
	for i := 0; i < n; i++ {
		v := rng.Uint64()
		if rng.IntN(3) == 0 {
			v = specialBits[rng.IntN(len(specialBits))]
		}
		ref.Put(k, b, i, v)
	}
	return b
}

// TestCastAllPairsMatchReference converts random and special data between
// every pair of numeric types and compares the bytes with the reference.
// It also checks that src is unmodified and that dst is not written beyond
// the converted elements.
func TestCastAllPairsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	types := numericTypes()
	opts := []Options{{}, {NoSaturate: true}, {RoundMode: RoundDown}, {NoSaturate: true, RoundMode: RoundNearest}}
	pairs := 0
	for _, from := range types {
		for _, to := range types {
			for _, n := range []int{0, 1, 2, 3, 7, 64, 301} {
				opt := opts[rng.IntN(len(opts))]
				src := randomTensor(rng, from, n)
				orig := bytes.Clone(src)
				want := make([]byte, to.Size(n)+8)
				got := make([]byte, to.Size(n)+8)
				for i := range got {
					got[i], want[i] = 0xA5, 0xA5
				}
				ref.Cast(want, ref.Kind(to), src, ref.Kind(from), n, refOptions(opt))
				if err := Cast(got, to, src, from, n, opt); err != nil {
					t.Fatalf("%v -> %v n=%d: %v", from, to, n, err)
				}
				if !bytes.Equal(src, orig) {
					t.Fatalf("%v -> %v: src modified", from, to)
				}
				if from == to && from != Bool { // same type: an exact copy of the bits (padding cleared)
					copy(want, src)
					clearPadding(want, to, n)
				}
				if !bytes.Equal(got, want) {
					for i := 0; i < n; i++ {
						g, w := ref.Get(ref.Kind(to), got, i), ref.Get(ref.Kind(to), want, i)
						if g != w {
							t.Fatalf("%v -> %v %+v n=%d: element %d (%#x): got %#x, want %#x", from, to, opt, n, i, ref.Get(ref.Kind(from), src, i), g, w)
						}
					}
					t.Fatalf("%v -> %v n=%d: bytes beyond the data differ: got % x, want % x", from, to, n, got[to.Size(n):], want[to.Size(n):])
				}
			}
			pairs++
		}
	}
	t.Logf("%d type pairs × 7 lengths agree with the reference", pairs)
}

// TestCastUnalignedAndOffsets runs the hot pairs on slices that start at
// every offset 0..7 of an allocation, the way tensors cut out of a file are.
func TestCastUnalignedAndOffsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	hot := [][2]DataType{{Float, Float16}, {Float16, Float}, {Float, BFloat16}, {BFloat16, Float},
		{Float, Float8E4M3FN}, {Float8E5M2, Float}, {Float, Float8E8M0}, {Float, Float4E2M1}, {Float4E2M1, Float},
		{Int8, Int4}, {Int4, Int8}, {Uint4, Uint8}, {Float, Uint4}, {Float16, Float8E5M2FNUZ}, {BFloat16, Float8E4M3FNUZ}}
	for _, p := range hot {
		from, to := p[0], p[1]
		for off := 0; off < 8; off++ {
			n := 97
			src := append(make([]byte, off), randomTensor(rng, from, n)...)[off:]
			dst := make([]byte, to.Size(n)+off)[off:]
			want := make([]byte, to.Size(n))
			ref.Cast(want, ref.Kind(to), src, ref.Kind(from), n, ref.Options{Saturate: true})
			if err := Cast(dst, to, src, from, n, Options{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(dst, want) {
				t.Fatalf("%v -> %v at offset %d: got % x, want % x", from, to, off, dst, want)
			}
		}
	}
}

func TestCastErrors(t *testing.T) {
	buf := make([]byte, 64)
	cases := []struct {
		name     string
		err      error
		contains string
	}{
		{"undefined source", Cast(buf, Float, buf, Undefined, 1, Options{}), "UNDEFINED is not a type Cast supports"},
		{"complex target", Cast(buf, Complex64, buf, Float, 1, Options{}), "COMPLEX64"},
		{"unknown number", Cast(buf, DataType(99), buf, Float, 1, Options{}), "DataType(99)"},
		{"negative n", Cast(buf, Float16, buf, Float, -1, Options{}), "negative element count -1"},
		{"short src", Cast(buf, Float16, buf[:7], Float, 2, Options{}), "src holds 7 bytes, 2 FLOAT elements need 8"},
		{"short dst", Cast(buf[:3], Float16, buf, Float, 2, Options{}), "dst holds 3 bytes, 2 FLOAT16 elements need 4"},
		{"short packed dst", Cast(buf[:1], Int4, buf, Int8, 3, Options{}), "dst holds 1 bytes, 3 INT4 elements need 2"},
		{"string via Cast", Cast(buf, String, buf, Float, 1, Options{}), "use CastFromStrings or CastToStrings"},
		{"bad round mode", Cast(buf, Float8E8M0, buf, Float, 1, Options{RoundMode: 7}), "RoundMode(7)"},
		{"bad string", CastFromStrings(buf, Float, []string{"1", "Hello World!"}, Options{}), `element 1`},
		{"short string dst", CastToStrings(make([]string, 1), buf, Float, 2), "dst holds 1 strings"},
		{"strings to strings", CastFromStrings(buf, String, []string{"a"}, Options{}), "copy the strings"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.contains) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, c.err, c.contains)
		}
	}
	// Nothing is written when an argument is bad.
	dst := make([]byte, 8)
	_ = Cast(dst, Float16, make([]byte, 4), Float, 2, Options{})
	if !bytes.Equal(dst, make([]byte, 8)) {
		t.Errorf("a failed Cast wrote to dst: % x", dst)
	}
}

// TestCastNeverPanics throws random types, lengths and slice sizes at Cast.
func TestCastNeverPanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 20000; i++ {
		from, to := DataType(rng.IntN(30)-1), DataType(rng.IntN(30)-1)
		n := rng.IntN(40) - 3
		src := make([]byte, rng.IntN(200))
		dst := make([]byte, rng.IntN(200))
		for j := range src {
			src[j] = byte(rng.Uint32())
		}
		_ = Cast(dst, to, src, from, n, Options{NoSaturate: rng.IntN(2) == 0, RoundMode: RoundMode(rng.IntN(4))})
	}
}

func TestZeroAllocations(t *testing.T) {
	f32 := make([]float32, 1024)
	for i := range f32 {
		f32[i] = float32(i) * 0.37
	}
	u16 := make([]uint16, 1024)
	u8 := make([]uint8, 1024)
	raw := make([]byte, 8*1024)
	out := make([]byte, 8*1024)
	checks := map[string]func(){
		"Float32ToFloat16":    func() { Float32ToFloat16(u16, f32) },
		"Float16ToFloat32":    func() { Float16ToFloat32(f32, u16) },
		"Float32ToBFloat16":   func() { Float32ToBFloat16(u16, f32) },
		"BFloat16ToFloat32":   func() { BFloat16ToFloat32(f32, u16) },
		"Float32ToFloat8":     func() { Float32ToFloat8(u8, Float8E4M3FN, f32, Options{}) },
		"Float32ToFloat8E8":   func() { Float32ToFloat8(u8, Float8E8M0, f32, Options{RoundMode: RoundNearest}) },
		"Float8ToFloat32":     func() { Float8ToFloat32(f32, u8, Float8E5M2) },
		"Cast FLOAT->BF16":    func() { _ = Cast(out, BFloat16, raw, Float, 1024, Options{}) },
		"Cast FLOAT->INT4":    func() { _ = Cast(out, Int4, raw, Float, 1024, Options{}) },
		"Cast INT64->FLOAT":   func() { _ = Cast(out, Float, raw, Int64, 1024, Options{}) },
		"Cast DOUBLE->INT32":  func() { _ = Cast(out, Int32, raw, Double, 1024, Options{}) },
		"Cast DOUBLE->FP8":    func() { _ = Cast(out, Float8E5M2, raw, Double, 1024, Options{}) },
		"Cast UINT2->FLOAT16": func() { _ = Cast(out, Float16, raw, Uint2, 1024, Options{}) },
	}
	for name, f := range checks {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, a)
		}
	}
}

func TestTypedEntryPointsPanicOnShortDst(t *testing.T) {
	mustPanic := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil || !strings.Contains(r.(string), want) {
				t.Errorf("%s: panic %v, want one containing %q", name, r, want)
			}
		}()
		f()
	}
	src := make([]float32, 4)
	mustPanic("Float32ToFloat16", "dst has 3 elements, src has 4", func() { Float32ToFloat16(make([]uint16, 3), src) })
	mustPanic("Float16ToFloat32", "dst has 1 elements", func() { Float16ToFloat32(make([]float32, 1), make([]uint16, 2)) })
	mustPanic("Float32ToFloat8 type", "FLOAT16 is not an 8-bit float type", func() { Float32ToFloat8(make([]uint8, 4), Float16, src, Options{}) })
	mustPanic("Float8ToFloat32 type", "INT8 is not an 8-bit float type", func() { Float8ToFloat32(make([]float32, 4), make([]uint8, 4), Int8) })
}

func TestTypedEntryPointsMatchCast(t *testing.T) {
	src := []float32{1, -2.5, 65520, 1e-8, float32(math.NaN()), float32(math.Inf(-1)), 3.3895314e38, 0.1}
	h := make([]uint16, len(src))
	Float32ToFloat16(h, src)
	raw := make([]byte, 4*len(src))
	for i, v := range src {
		ref.Put(ref.Float, raw, i, uint64(math.Float32bits(v)))
	}
	want := make([]byte, 2*len(src))
	if err := Cast(want, Float16, raw, Float, len(src), Options{}); err != nil {
		t.Fatal(err)
	}
	for i := range h {
		if uint64(h[i]) != ref.Get(ref.Float16, want, i) {
			t.Errorf("element %d: typed %#x, Cast %#x", i, h[i], ref.Get(ref.Float16, want, i))
		}
	}
	if h[0] != 0x3C00 || h[2] != 0x7C00 {
		t.Errorf("1.0 → %#x, 65520 → %#x; want 0x3c00, 0x7c00", h[0], h[2])
	}
}

func TestParseDataType(t *testing.T) {
	cases := map[string]DataType{
		"FLOAT": Float, "float8e4m3fn": Float8E4M3FN, "tensor(float16)": Float16, "17": Float8E4M3FN,
		" Tensor(BFLOAT16) ": BFloat16, "bf16": BFloat16, "F8_E4M3": Float8E4M3FN, "int2": Int2, "0": Undefined,
	}
	for s, want := range cases {
		if got, err := ParseDataType(s); err != nil || got != want {
			t.Errorf("ParseDataType(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "FLOAT9", "27", "-1", "tensor()"} {
		if _, err := ParseDataType(s); err == nil {
			t.Errorf("ParseDataType(%q) succeeded", s)
		}
	}
	for _, ty := range AllTypes() {
		if got, err := ParseDataType(ty.String()); err != nil || got != ty {
			t.Errorf("%v does not round-trip through its name", ty)
		}
	}
	sizes := []struct {
		t       DataType
		n, want int
	}{{Float, 3, 12}, {Int4, 3, 2}, {Uint2, 5, 2}, {Bool, 4, 4}, {Double, 1, 8}, {String, 4, 0}, {Float4E2M1, 0, 0}}
	for _, s := range sizes {
		if got := s.t.Size(s.n); got != s.want {
			t.Errorf("%v.Size(%d) = %d, want %d", s.t, s.n, got, s.want)
		}
	}
	if Float8E8M0.BitSize() != 8 || Int2.BitSize() != 2 || String.BitSize() != 0 {
		t.Error("BitSize")
	}
}

func TestCheckOpset(t *testing.T) {
	ok := []struct {
		op       string
		opset    int
		from, to DataType
	}{
		{"Cast", 1, Float, Float16}, {"Cast", 9, String, Float}, {"Cast", 13, BFloat16, Float},
		{"Cast", 19, Float, Float8E5M2}, {"Cast", 21, Int4, Float}, {"Cast", 23, Float, Float4E2M1},
		{"Cast", 24, Float8E8M0, Float}, {"Cast", 25, Float, Int2}, {"CastLike", 15, Float, BFloat16},
	}
	for _, c := range ok {
		if err := CheckOpset(c.op, c.opset, c.from, c.to); err != nil {
			t.Errorf("%s-%d %v->%v: %v", c.op, c.opset, c.from, c.to, err)
		}
	}
	bad := []struct {
		op       string
		opset    int
		from, to DataType
		want     string
	}{
		{"Cast", 8, String, Float, "first accepted at opset 9"},
		{"Cast", 12, Float, BFloat16, "BFLOAT16"},
		{"Cast", 18, Float, Float8E4M3FN, "opset 19"},
		{"Cast", 20, Int4, Float, "opset 21"},
		{"Cast", 22, Float4E2M1, Float, "opset 23"},
		{"Cast", 23, Float8E8M0, Float, "opset 24"},
		{"Cast", 24, Float, Uint2, "opset 25"},
		{"CastLike", 14, Float, Float16, "before opset 15"},
		{"Cast", 26, Float, Float16, "outside 1..25"},
		{"Cast", 25, Complex64, Float, "COMPLEX64"},
		{"Cats", 25, Float, Float, "unknown operator"},
	}
	for _, c := range bad {
		err := CheckOpset(c.op, c.opset, c.from, c.to)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s-%d %v->%v: %v, want error containing %q", c.op, c.opset, c.from, c.to, err, c.want)
		}
	}
}
