package ref

import "testing"

// TestHugeExponents: exponents past any int32 read as overflow or underflow
// on every platform (a 32-bit int once wrapped "1e2147483648" to 0).
func TestHugeExponents(t *testing.T) {
	for s, want := range map[string]uint64{
		"1e2147483648": 0x7F800000, "1e4294967296": 0x7F800000, "-1e9999999999": 0xFF800000,
		"1e-2147483649": 0, "-1e-4294967296": 0x80000000, "1e400": 0x7F800000,
	} {
		got, err := Parse(Float, s, Options{Saturate: true})
		if err != nil || got != want {
			t.Errorf("Parse(FLOAT, %q) = %#x, %v; want %#x", s, got, err, want)
		}
	}
}
