package fuzz

import (
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
	"github.com/tensorcast/tensorcast/internal/text"
)

// FuzzParseFast parses any string as any kind (including kinds that are not
// numbers) under any saturate and round_mode with both the fast parser
// (internal/text, which CastFromStrings uses) and the exact reference, and
// demands the same bits, or the same error text.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{"0.47892547", "NaN", "-nan", "+INF", "-Infinity", "100.5", "1e-5", "1E8", ".5", "5.",
		"-0", "1.00390625", "1.00390625000000001", "1.00390624999999999", "65520", "65519.99999999999999999",
		"464", "1e400", "-1e400", "1e-400", "2.4703282292062328e-324", "7.006492321624085e-46",
		"2.98023223876953125e-8", "9007199254740993", "9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "1.8446744073709551615e19", "123456789012345678901234567890e-10",
		" 3.14 ", "\u00a01", "true", " FALSE", "1.2.3", "0x10", "1_000", "1e", "", "١"} {
		f.Add(s, uint8(ref.Float16), uint8(0))
		f.Add(s, uint8(ref.Float8E8M0), uint8(5))
	}
	f.Fuzz(func(t *testing.T, s string, kb, flags uint8) {
		k := ref.Kind(int(kb%30) - 1)
		opt := ref.Options{Saturate: flags&1 == 0, Round: ref.RoundMode(flags >> 1 % 3)}
		got, err := text.Parse(k, s, opt)
		want, werr := ref.Parse(k, s, opt)
		if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) || (err == nil && got != want) {
			t.Fatalf("kind %d %+v %q: fast %#x, %v; ref %#x, %v", k, opt, s, got, err, want, werr)
		}
	})
}

// FuzzFormatFast formats any bit pattern of any numeric kind with both
// internal/text (which CastToStrings uses) and the reference.
func FuzzFormatFast(f *testing.F) {
	f.Add(uint64(0x3C00), uint8(ref.Float16))
	f.Add(uint64(0x3F800000), uint8(ref.Float))
	f.Add(uint64(1), uint8(ref.Double))
	f.Fuzz(func(t *testing.T, b uint64, kb uint8) {
		k := ref.Kind(kb % 27)
		if k == ref.String || !k.Supported() {
			return
		}
		if got, want := text.Format(k, b), ref.Format(k, b); got != want {
			t.Fatalf("kind %d %#x: fast %q, ref %q", k, b, got, want)
		}
	})
}
