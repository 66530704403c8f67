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
