package tensorcast

import (
	"fmt"
	"math"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// Exhaustive checks of every kernel whose input space is 8 or 16 bits, on
// every tier, against the reference; plus the round-trip property.

var satOpts = ref.Options{Saturate: true}

func TestWidenExhaustive(t *testing.T) {
	src16 := make([]uint16, 1<<16)
	for i := range src16 {
		src16[i] = uint16(i)
	}
	src8 := make([]uint8, 256)
	for i := range src8 {
		src8[i] = uint8(i)
	}
	dst := make([]float32, 1<<17)
	check := func(name, tier string, from ref.Kind, in []uint64, out []float32) {
		t.Helper()
		bad := 0
		for i, b := range in {
			want := uint32(ref.Convert(ref.Float, from, b, satOpts))
			if got := math.Float32bits(out[i]); got != want {
				if bad++; bad <= 3 {
					t.Errorf("%s [%s]: input %#x: got %#08x, want %#08x", name, tier, b, got, want)
				}
			}
		}
		logCount(t, "%-22s [%s]: %d inputs, %d mismatches", name, tier, len(in), bad)
	}
	all16 := make([]uint64, 1<<16)
	for i := range all16 {
		all16[i] = uint64(i)
	}
	for _, k := range tiers {
		k.f16ToF32.fn(dst, src16)
		check("FLOAT16 -> FLOAT", k.f16ToF32.tier, ref.Float16, all16, dst)
		k.bf16ToF32.fn(dst, src16)
		check("BFLOAT16 -> FLOAT", k.bf16ToF32.tier, ref.BFloat16, all16, dst)
		for _, from := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0} {
			k.f8ToF32.fn(dst, src8, widenTable(from))
			check(from.String()+" -> FLOAT", k.f8ToF32.tier, ref.Kind(from), all16[:256], dst)
		}
		// FLOAT4E2M1: every byte holds two elements.
		k.f4ToF32.fn(dst[:512], src8)
		in := make([]uint64, 512)
		for i := range in {
			in[i] = uint64(src8[i/2] >> (4 * uint(i%2)) & 15)
		}
		check("FLOAT4E2M1 -> FLOAT", k.f4ToF32.tier, ref.Float4E2M1, in, dst)
	}
}

func TestFloat16ToFloat8Exhaustive(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	dst := make([]uint8, 1<<16)
	for _, to := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ} {
		for _, sat := range []bool{true, false} {
			p := float8ParamsFor(to, Options{NoSaturate: !sat})
			for _, from := range []DataType{Float16, BFloat16} {
				for _, k := range tiers {
					kn := k.f16ToF8
					if from == BFloat16 {
						kn = k.bf16ToF8
					}
					kn.fn(dst, src, p)
					bad := 0
					for i, b := range src {
						want := uint8(ref.Convert(ref.Kind(to), ref.Kind(from), uint64(b), ref.Options{Saturate: sat}))
						if dst[i] != want {
							if bad++; bad <= 3 {
								t.Errorf("%v -> %v sat=%v [%s]: %#04x: got %#02x, want %#02x", from, to, sat, kn.tier, b, dst[i], want)
							}
						}
					}
					logCount(t, "%v -> %v sat=%v [%s]: 65536 inputs, %d mismatches", from, to, sat, kn.tier, bad)
				}
			}
		}
	}
}

func TestNibbleExhaustive(t *testing.T) {
	// Every pair of bytes packs to the same byte as the reference.
	src := make([]uint8, 1<<17)
	for i := 0; i < 1<<16; i++ {
		src[2*i], src[2*i+1] = uint8(i), uint8(i>>8)
	}
	packed := make([]uint8, 1<<16)
	all := make([]uint8, 256)
	for i := range all {
		all[i] = uint8(i)
	}
	wide := make([]uint8, 512)
	for _, k := range tiers {
		k.i8ToI4.fn(packed, src)
		for i := range packed {
			want := uint8(ref.Convert(ref.Int4, ref.Int8, uint64(src[2*i]), satOpts) | ref.Convert(ref.Int4, ref.Int8, uint64(src[2*i+1]), satOpts)<<4)
			if packed[i] != want {
				t.Fatalf("INT8 -> INT4 [%s]: %#x %#x: got %#x, want %#x", k.i8ToI4.tier, src[2*i], src[2*i+1], packed[i], want)
			}
		}
		for _, c := range []struct {
			kn       kernel[func([]uint8, []uint8)]
			from, to ref.Kind
		}{{k.i4ToI8, ref.Int4, ref.Int8}, {k.u4ToU8, ref.Uint4, ref.Uint8}} {
			c.kn.fn(wide, all)
			for i := range wide {
				want := uint8(ref.Convert(c.to, c.from, uint64(all[i/2]>>(4*uint(i%2))&15), satOpts))
				if wide[i] != want {
					t.Fatalf("%d -> %d [%s]: byte %#x element %d: got %#x, want %#x", c.from, c.to, c.kn.tier, all[i/2], i%2, wide[i], want)
				}
			}
		}
	}
}

// TestRoundTrip8And16 widens every 8- and 16-bit float pattern to FLOAT and
// narrows it back: every non-NaN pattern returns unchanged (widening is
// exact), NaN returns as the type's NaN.
func TestRoundTrip8And16(t *testing.T) {
	for _, from := range []DataType{Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1} {
		n := 1 << from.BitSize()
		src := make([]byte, from.Size(n))
		for i := 0; i < n; i++ {
			ref.Put(ref.Kind(from), src, i, uint64(i))
		}
		mid := make([]byte, 4*n)
		back := make([]byte, len(src))
		if err := Cast(mid, Float, src, from, n, Options{}); err != nil {
			t.Fatal(err)
		}
		if err := Cast(back, from, mid, Float, n, Options{NoSaturate: true, RoundMode: RoundDown}); err != nil {
			t.Fatal(err)
		}
		nans := 0
		for i := 0; i < n; i++ {
			got := ref.Get(ref.Kind(from), back, i)
			if ref.Decode(ref.Kind(from), uint64(i)).Class == ref.NaN {
				nans++
				if ref.Decode(ref.Kind(from), got).Class != ref.NaN {
					t.Errorf("%v NaN %#x came back as %#x", from, i, got)
				}
				continue
			}
			if got != uint64(i) {
				t.Errorf("%v %#x -> FLOAT -> %v gave %#x", from, i, from, got)
			}
		}
		logCount(t, "%v -> FLOAT -> %v: %d patterns, %d NaN, all round trips exact", from, from, n, nans)
	}
}

func ExampleKernels() {
	for _, k := range Kernels()[:1] {
		fmt.Println(k.Conversion)
	}
	// Output: FLOAT -> FLOAT16
}
