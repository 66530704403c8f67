//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"fmt"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// TestF16ToE5M2Kernels runs the 16-bit-lane kernels of withE5M2 on every
// FLOAT16 pattern, both saturate modes, at every length to 100 and odd
// offsets, against the reference.
func TestF16ToE5M2Kernels(t *testing.T) {
	src := make([]uint16, 1<<16)
	for i := range src {
		src[i] = uint16(i)
	}
	var isas []bool
	if cpu.X86.HasAVX2 && cpu.X86.HasF16C {
		isas = append(isas, false)
	}
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2 && cpu.X86.HasAVX512VBMI {
		isas = append(isas, true)
	}
	if len(isas) == 0 {
		t.Skip("no AVX2")
	}
	for _, to := range []DataType{Float8E5M2, Float8E5M2FNUZ} {
		for _, opt := range []Options{{}, {NoSaturate: true}} {
			want := make([]byte, len(src))
			ref.Cast(want, ref.Kind(to), Bytes(src), ref.Float16, len(src), refOptions(opt))
			p := float8ParamsFor(to, opt)
			for _, avx512 := range isas {
				name := fmt.Sprintf("%v %+v avx512=%v", to, opt, avx512)
				called := false
				fn := withE5M2(func(d []uint8, s []uint16, _ *float8Params) {
					called = true
					float16ToFloat8Generic(d, s, p)
				}, avx512)
				got := make([]byte, len(src))
				fn(got, src, p)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s: FLOAT16 %#04x: got %#02x, want %#02x", name, src[i], got[i], want[i])
					}
				}
				if avx512 && called {
					t.Fatalf("%s: the AVX-512 kernel left elements to the fallback", name)
				}
				for n := 0; n <= 100; n++ {
					for _, off := range []int{0, 1, 7, 33} {
						s := src[0x3000+off : 0x3000+off+n]
						d := make([]byte, n+8)
						for i := range d {
							d[i] = 0xA5
						}
						fn(d[:n], s, p)
						for i := range n {
							if d[i] != want[0x3000+off+i] {
								t.Fatalf("%s n=%d off=%d: element %d: got %#02x, want %#02x", name, n, off, i, d[i], want[0x3000+off+i])
							}
						}
						for i := n; i < len(d); i++ {
							if d[i] != 0xA5 {
								t.Fatalf("%s n=%d: wrote byte %d beyond the result", name, n, i)
							}
						}
					}
				}
			}
		}
	}
}
