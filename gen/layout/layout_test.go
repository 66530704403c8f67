package layout

import "testing"

// The offsets of params.go's structs, as the assembly once hard-coded them:
// a change of layout shows here first.
func TestOffsets(t *testing.T) {
	for _, c := range []struct {
		typ, field string
		want       int
	}{
		{"float8Params", "shift", 0}, {"float8Params", "expAdjust", 4}, {"float8Params", "minNormal", 8},
		{"float8Params", "magic", 12}, {"float8Params", "maxBits", 16}, {"float8Params", "overflow", 20},
		{"float8Params", "nan", 24}, {"float8Params", "signedZero", 28},
		{"e8m0Params", "roundAdd", 0}, {"e8m0Params", "overflow", 4}, {"e8m0Params", "underflow", 8},
	} {
		if got := Offset(c.typ, c.field); got != c.want {
			t.Errorf("%s.%s at %d, want %d", c.typ, c.field, got, c.want)
		}
	}
}

// Size is the struct's size: for the byte-only blocks the end of their last
// field (what the kernels' *[N]uint8 parameters cover), for float8Params
// eight 32-bit fields.
func TestSize(t *testing.T) {
	for _, c := range []struct {
		typ  string
		last string // the last field, one byte (""; the size is given)
		want int
	}{
		{"float8Params", "", 32},
		{"splitParams", "masked", 0}, {"roundParams", "signed", 0},
		{"classParams", "unsigned", 0}, {"finer8Params", "pre", 0},
	} {
		want := c.want
		if c.last != "" {
			want = Offset(c.typ, c.last) + 1
		}
		if got := Size(c.typ); got != want {
			t.Errorf("Size(%s) = %d, want %d", c.typ, got, want)
		}
	}
}
