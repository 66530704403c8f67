//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// TestF16ToE5M2Kernels runs the wrappers of the 16-bit-lane FLOAT16 →
// FLOAT8E5M2/E5M2FNUZ kernels on every FLOAT16 pattern, both saturate
// modes, and at every length to 100 from odd offsets, against the
// reference, and checks that nothing is written past the result.
func TestF16ToE5M2Kernels(t *testing.T) {
	type wrapper struct {
		name string
		to   DataType
		fn   f16ToF8Func
	}
	var ws []wrapper
	if cpu.X86.HasAVX2 && cpu.X86.HasF16C {
		ws = append(ws, wrapper{"avx2", Float8E5M2, avx2F16ToE5M2Store}, wrapper{"avx2", Float8E5M2FNUZ, avx2F16ToE5M2FNUZStore})
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2 && cpu.X86.HasAVX512VBMI {
		ws = append(ws, wrapper{"avx512", Float8E5M2, avx512F16ToE5M2Store}, wrapper{"avx512", Float8E5M2FNUZ, avx512F16ToE5M2FNUZStore})
	}
	if len(ws) == 0 {
		t.Skip("no AVX2")
	}
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	for _, w := range ws {
		for _, opt := range []Options{{}, {NoSaturate: true}} {
			want := make([]byte, len(src))
			ref.Cast(want, ref.Kind(w.to), Bytes(src), ref.Float16, len(src), refOptions(opt))
			p := float8ParamsFor(w.to, opt)
			got := make([]byte, len(src))
			w.fn(got, src, p)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s %v %+v: FLOAT16 %#04x: got %#02x, want %#02x", w.name, w.to, opt, src[i], got[i], want[i])
				}
			}
			for n := 0; n <= 100; n++ {
				for _, off := range []int{0, 1, 7, 33} {
					s := src[0x3000+off : 0x3000+off+n]
					d := make([]byte, n+8)
					for i := range d {
						d[i] = 0xA5
					}
					w.fn(d[:n], s, p)
					for i := range n {
						if d[i] != want[0x3000+off+i] {
							t.Fatalf("%s %v n=%d off=%d: element %d: got %#02x, want %#02x", w.name, w.to, n, off, i, d[i], want[0x3000+off+i])
						}
					}
					for i := n; i < len(d); i++ {
						if d[i] != 0xA5 {
							t.Fatalf("%s %v n=%d: wrote byte %d beyond the result", w.name, w.to, n, i)
						}
					}
				}
			}
		}
	}
}
