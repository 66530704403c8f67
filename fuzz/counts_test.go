package fuzz

import (
	"bytes"
	"math"
	"math/big"
	"testing"

	tc "github.com/tensorcast/tensorcast"
)

// bytesNeeded computes the bytes n elements of t occupy with big integers,
// independently of DataType.Size, and whether that fits in an int.
func bytesNeeded(t tc.DataType, n int64) (int, bool) {
	if n <= 0 {
		return 0, true
	}
	b := new(big.Int).Mul(big.NewInt(n), big.NewInt(int64(t.BitSize())))
	b.Add(b, big.NewInt(7))
	b.Quo(b, big.NewInt(8))
	if !b.IsInt64() || b.Int64() > math.MaxInt {
		return 0, false
	}
	return int(b.Int64()), true
}

// FuzzCastCounts: element counts over the whole int range (the count read
// from a model file is what a server passes). Cast, CastParallel and
// CastToStrings must not panic, must refuse every count whose byte size
// overflows int or exceeds the slices, and must then leave dst untouched.
func FuzzCastCounts(f *testing.F) {
	f.Add(int64(math.MaxInt64), uint8(1), uint8(11), uint16(64), uint16(64))
	f.Add(int64(1<<61), uint8(11), uint8(7), uint16(64), uint16(64))
	f.Add(int64(1<<62+1), uint8(22), uint8(1), uint16(16), uint16(64))
	f.Add(int64(16), uint8(1), uint8(10), uint16(64), uint16(32))
	f.Add(int64(-5), uint8(1), uint8(10), uint16(64), uint16(32))
	f.Fuzz(func(t *testing.T, n64 int64, fromB, toB uint8, srcLen, dstLen uint16) {
		if n64 > math.MaxInt || n64 < math.MinInt {
			return // not an int here (32-bit platforms)
		}
		n := int(n64)
		from, to := tc.DataType(fromB%28), tc.DataType(toB%28)
		if !from.Castable() || !to.Castable() || from == tc.String || to == tc.String {
			return // FuzzCast covers the type errors
		}
		src := make([]byte, int(srcLen)%4096)
		dst := make([]byte, int(dstLen)%4096)
		sb, okS := bytesNeeded(from, n64)
		db, okD := bytesNeeded(to, n64)
		wantErr := n < 0 || !okS || !okD || len(src) < sb || len(dst) < db
		for _, call := range []struct {
			name string
			f    func() error
		}{
			{"Cast", func() error { return tc.Cast(dst, to, src, from, n, tc.Options{}) }},
			{"CastParallel", func() error { return tc.CastParallel(dst, to, src, from, n, tc.Options{}, 3) }},
		} {
			for i := range dst {
				dst[i] = 0xA5
			}
			err := call.f()
			if (err != nil) != wantErr {
				t.Fatalf("%s %v -> %v n=%d (src %d, dst %d bytes): err=%v, want error: %v", call.name, from, to, n, len(src), len(dst), err, wantErr)
			}
			if err != nil && !bytes.Equal(dst, bytes.Repeat([]byte{0xA5}, len(dst))) {
				t.Fatalf("%s %v -> %v n=%d: dst written on error", call.name, from, to, n)
			}
		}
		strs := make([]string, int(dstLen)%64)
		err := tc.CastToStrings(strs, src, from, n)
		if want := n < 0 || !okS || len(src) < sb || len(strs) < n; (err != nil) != want {
			t.Fatalf("CastToStrings %v n=%d: err=%v, want error: %v", from, n, err, want)
		}
		if s, ok := from.SizeOK(n); ok != okS || ok && s != sb {
			t.Fatalf("%v.SizeOK(%d) = %d, %v; want %d, %v", from, n, s, ok, sb, okS)
		}
	})
}
