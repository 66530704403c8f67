package tensorcast

import (
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// TestStringsExhaustive: every pattern of every type of at most 16 bits
// through the public API, to text and back: CastToStrings equals ref.Format
// for each, and CastFromStrings of that text equals ref.Parse under both
// saturate modes (round_mode nearest, the reading under which Format's text
// round-trips, and up).
func TestStringsExhaustive(t *testing.T) {
	types := []DataType{Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ,
		Float8E8M0, Float4E2M1, Bool, Uint8, Int8, Uint4, Int4, Uint2, Int2, Uint16, Int16}
	for _, dt := range types {
		k := ref.Kind(dt)
		n := 1 << uint(dt.BitSize())
		src := make([]byte, dt.Size(n))
		for b := range n {
			ref.Put(k, src, b, uint64(b))
		}
		strs := make([]string, n)
		if err := CastToStrings(strs, src, dt, n); err != nil {
			t.Fatal(err)
		}
		mismatches, inputs := 0, 0
		for b := range n {
			inputs++
			if want := ref.Format(k, uint64(b)); strs[b] != want {
				if mismatches < 10 {
					t.Errorf("%v %#x: CastToStrings %q, ref %q", dt, b, strs[b], want)
				}
				mismatches++
			}
		}
		for _, opt := range []Options{{RoundMode: RoundNearest}, {RoundMode: RoundNearest, NoSaturate: true}, {}} {
			back := make([]byte, dt.Size(n))
			if err := CastFromStrings(back, dt, strs, opt); err != nil {
				t.Fatal(err)
			}
			for b := range n {
				inputs++
				want, err := ref.Parse(k, strs[b], refOptions(opt))
				if got := ref.Get(k, back, b); err != nil || got != want {
					if mismatches < 10 {
						t.Errorf("%v %+v: CastFromStrings(%q) = %#x, ref %#x, %v", dt, opt, strs[b], got, want, err)
					}
					mismatches++
				}
			}
		}
		logCount(t, "%v: %d inputs, %d mismatches", dt, inputs, mismatches)
	}
}
