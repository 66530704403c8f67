//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"fmt"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestClassKernel runs class8AVX2 on the descriptions of every INT8 and
// UINT8 → float8 table in every mode (all three of its loops: INT8 with
// and without the or-mask, UINT8) against the tables: all 256
// bytes in every position of a vector, every length 0..300, and against
// guard pages at both ends.
func TestClassKernel(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2")
	}
	g := newGuarded(t, 4096)
	src := everyByte(300)
	loops := map[[2]uint8]bool{}
	for _, from := range []DataType{Int8, Uint8} {
		for _, to := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ} {
			for m := range numModes {
				opt := Options{RoundMode: RoundMode(m / 2), NoSaturate: m%2 == 1}
				tab := tableFor(from, to, opt).b8
				p := classShape(tab, from == Uint8)
				if p == nil {
					t.Fatalf("%v -> %v %+v: no description", from, to, opt)
				}
				loops[[2]uint8{p.unsigned, p.useOrm}] = true
				name := fmt.Sprintf("%v -> %v %+v class8AVX2", from, to, opt)
				g.tableKernel(t, name, src, func(d, s []byte) { avx2Class8(d, s, p) }, tab)
			}
		}
	}
	if len(loops) != 3 {
		t.Errorf("the tables ran %d of the kernel's 3 loops", len(loops))
	}
}
