package fuzz

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	tc "github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/ref"
)

// useTier switches to one of the machine's tiers, chosen by a fuzz byte,
// and restores the best tier when the test ends.
func useTier(t *testing.T, sel uint8) string {
	tiers := tc.Tiers()
	name := tiers[int(sel)%len(tiers)]
	if err := tc.UseTier(name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tc.UseTier(tiers[len(tiers)-1]) })
	return name
}

func options(flags uint8) tc.Options {
	return tc.Options{NoSaturate: flags&1 != 0, RoundMode: tc.RoundMode(flags >> 1 & 3 % 3)}
}

func refOptions(o tc.Options) ref.Options {
	return ref.Options{Saturate: !o.NoSaturate, Round: ref.RoundMode(o.RoundMode)}
}

// FuzzCast: any type pair (including invalid ones), any n, any slice sizes
// and offsets, on any tier. Cast must not panic, must fail exactly when the
// documented conditions hold, must equal the reference otherwise, must not
// modify src and must not write dst beyond to.Size(n).
func FuzzCast(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f}, uint8(1), uint8(10), int16(2), uint8(0), uint8(0), uint8(0))
	f.Add(bytes.Repeat([]byte{0xff, 0x7f, 0x80, 0x00}, 40), uint8(1), uint8(17), int16(40), uint8(1), uint8(3), uint8(1))
	f.Add(bytes.Repeat([]byte{0x55}, 100), uint8(22), uint8(1), int16(99), uint8(0), uint8(5), uint8(2))
	f.Add([]byte{1, 2, 3}, uint8(11), uint8(16), int16(-1), uint8(0), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, fromB, toB uint8, n16 int16, flags, off, tierSel uint8) {
		useTier(t, tierSel)
		from, to := tc.DataType(fromB%28), tc.DataType(toB%28)
		n := int(n16)
		opt := options(flags)
		o := int(off % 64)
		src := append(make([]byte, o), data...)[o:]
		orig := bytes.Clone(src)
		dstLen := len(data) * 2
		dst := make([]byte, dstLen+o)[o:]
		for i := range dst {
			dst[i] = 0xA5
		}
		err := tc.Cast(dst, to, src, from, n, opt)
		wantErr := !from.Castable() || !to.Castable() || from == tc.String || to == tc.String ||
			n < 0 || len(src) < from.Size(n) || len(dst) < to.Size(n)
		if (err != nil) != wantErr {
			t.Fatalf("%v -> %v n=%d len(src)=%d len(dst)=%d: err=%v, want error: %v", from, to, n, len(src), len(dst), err, wantErr)
		}
		if !bytes.Equal(src, orig) {
			t.Fatal("src modified")
		}
		if err != nil {
			if !bytes.Equal(dst, bytes.Repeat([]byte{0xA5}, len(dst))) {
				t.Fatal("dst written on error")
			}
			return
		}
		want := bytes.Repeat([]byte{0xA5}, len(dst))
		if from == to && from != tc.Bool {
			copy(want, src[:from.Size(n)])
			if b := from.BitSize(); b < 8 && n%(8/b) != 0 {
				want[to.Size(n)-1] &= byte(1)<<(uint(b)*uint(n%(8/b))) - 1
			}
		} else {
			ref.Cast(want, ref.Kind(to), src, ref.Kind(from), n, refOptions(opt))
		}
		if !bytes.Equal(dst, want) {
			t.Fatalf("%v -> %v n=%d %+v: got % x, want % x", from, to, n, opt, dst[:to.Size(n)], want[:to.Size(n)])
		}
	})
}

// FuzzFloat32Kernels drives the typed float32 entry points (the SIMD
// kernels' API) with arbitrary bit patterns, lengths and offsets.
func FuzzFloat32Kernels(f *testing.F) {
	f.Add(bytes.Repeat([]byte{0, 0, 0x80, 0x7f, 1, 0, 0x80, 0x7f, 0, 0x10, 0x72, 0x43}, 11), uint8(0), uint8(0), uint8(0))
	f.Add(bytes.Repeat([]byte{0xff, 0xff, 0x7f, 0x47}, 33), uint8(3), uint8(5), uint8(1))
	f.Add(bytes.Repeat([]byte{0x00, 0x00, 0x00, 0x30}, 17), uint8(9), uint8(2), uint8(2))
	modes := []struct {
		to  tc.DataType
		opt tc.Options
	}{
		{tc.Float16, tc.Options{}}, {tc.BFloat16, tc.Options{}},
		{tc.Float8E4M3FN, tc.Options{}}, {tc.Float8E4M3FN, tc.Options{NoSaturate: true}},
		{tc.Float8E4M3FNUZ, tc.Options{}}, {tc.Float8E4M3FNUZ, tc.Options{NoSaturate: true}},
		{tc.Float8E5M2, tc.Options{}}, {tc.Float8E5M2, tc.Options{NoSaturate: true}},
		{tc.Float8E5M2FNUZ, tc.Options{}}, {tc.Float8E5M2FNUZ, tc.Options{NoSaturate: true}},
		{tc.Float8E8M0, tc.Options{}}, {tc.Float8E8M0, tc.Options{RoundMode: tc.RoundDown, NoSaturate: true}},
		{tc.Float8E8M0, tc.Options{RoundMode: tc.RoundNearest}},
	}
	f.Fuzz(func(t *testing.T, data []byte, modeSel, off, tierSel uint8) {
		tier := useTier(t, tierSel)
		m := modes[int(modeSel)%len(modes)]
		n := len(data) / 4
		o := int(off % 16)
		src := make([]float32, n+o)[o:]
		for i := range src {
			src[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		got := make([]uint64, n)
		switch m.to {
		case tc.Float16, tc.BFloat16:
			d := make([]uint16, n+1)
			d[n] = 0xBEEF
			if m.to == tc.Float16 {
				tc.Float32ToFloat16(d[:n], src)
			} else {
				tc.Float32ToBFloat16(d[:n], src)
			}
			if d[n] != 0xBEEF {
				t.Fatal("wrote beyond dst")
			}
			for i := range got {
				got[i] = uint64(d[i])
			}
		default:
			d := make([]uint8, n+1)
			d[n] = 0xA5
			tc.Float32ToFloat8(d[:n], m.to, src, m.opt)
			if d[n] != 0xA5 {
				t.Fatal("wrote beyond dst")
			}
			w := make([]float32, n)
			tc.Float8ToFloat32(w, d[:n], m.to)
			for i := range got {
				got[i] = uint64(d[i])
				if want := ref.Convert(ref.Float, ref.Kind(m.to), got[i], ref.Options{}); uint64(math.Float32bits(w[i])) != want {
					t.Fatalf("%v -> FLOAT [%s] %#x: got %#08x, want %#08x", m.to, tier, got[i], math.Float32bits(w[i]), want)
				}
			}
		}
		for i, v := range src {
			x := uint64(math.Float32bits(v))
			if want := ref.Convert(ref.Kind(m.to), ref.Float, x, refOptions(m.opt)); got[i] != want {
				t.Fatalf("FLOAT -> %v %+v [%s] element %d %#08x: got %#x, want %#x", m.to, m.opt, tier, i, x, got[i], want)
			}
		}
	})
}

// FuzzStrings: CastFromStrings never panics, fails only with an error that
// names the element, and agrees with the reference parser; numbers written
// by CastToStrings read back to the same bits.
func FuzzStrings(f *testing.F) {
	for _, s := range []string{"1", " -2.5e3 ", "NaN", "+INF", "-infinity", "1e-400", "0x10", "100.5", "", "1.2.3", "true", ".5", "5."} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, toB uint8) {
		to := tc.DataType(toB % 27)
		if !to.Castable() || to == tc.String {
			return
		}
		dst := make([]byte, to.Size(2))
		err := tc.CastFromStrings(dst, to, []string{"0", s}, tc.Options{})
		want, werr := ref.Parse(ref.Kind(to), s, ref.Options{Saturate: true})
		if (err != nil) != (werr != nil) {
			t.Fatalf("%q -> %v: err %v, reference err %v", s, to, err, werr)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "element 1") {
				t.Fatalf("error does not name the element: %v", err)
			}
			return
		}
		if got := ref.Get(ref.Kind(to), dst, 1); got != want {
			t.Fatalf("%q -> %v: got %#x, want %#x", s, to, got, want)
		}
		// Format and parse back: the same bits (any NaN for NaN).
		strs := make([]string, 2)
		if err := tc.CastToStrings(strs, dst, to, 2); err != nil {
			t.Fatal(err)
		}
		back := make([]byte, len(dst))
		// E8M0 values print as FLOAT would, which reads back under round_mode nearest.
		if err := tc.CastFromStrings(back, to, strs, tc.Options{RoundMode: tc.RoundNearest}); err != nil {
			t.Fatalf("%v %#x formatted as %q does not parse: %v", to, want, strs[1], err)
		}
		g := ref.Get(ref.Kind(to), back, 1)
		if g != want && !(ref.Decode(ref.Kind(to), want).Class == ref.NaN && strs[1] == "NaN") {
			t.Fatalf("%v %#x -> %q -> %#x", to, want, strs[1], g)
		}
	})
}
