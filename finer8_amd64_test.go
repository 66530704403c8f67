//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"fmt"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestFinerKernel runs finer8AVX2 on the descriptions of every FLOAT8E5M2
// and FLOAT8E5M2FNUZ → FLOAT8E4M3FN and FLOAT8E4M3FNUZ table in every mode
// (its four loops: NaN above a magnitude or the byte 0x80, the sign on every
// code or on those not 0) against the tables: all 256 bytes in every
// position of a vector, every length 0..300, and against guard pages at
// both ends.
func TestFinerKernel(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2")
	}
	g := newGuarded(t, 4096)
	src := everyByte(300)
	loops := map[string]bool{}
	for _, from := range []DataType{Float8E5M2, Float8E5M2FNUZ, Float8E8M0} {
		for _, to := range finerTargets(from) {
			for m := range numModes {
				opt := Options{RoundMode: RoundMode(m / 2), NoSaturate: m%2 == 1}
				tab := tableFor(from, to, opt).b8
				p := finerShape(tab, from == Float8E8M0)
				if p == nil {
					t.Fatalf("%v -> %v %+v: no description", from, to, opt)
				}
				loops[fmt.Sprintf("whole=%d nanByte=%d signZero=%d", p.whole, p.nanByte, p.signZero)] = true
				name := fmt.Sprintf("%v -> %v %+v", from, to, opt)
				g.tableKernel(t, name, src, func(d, s []byte) { avx2Finer8(d, s, p) }, tab)
			}
		}
	}
	if len(loops) != 5 {
		t.Errorf("the tables ran %d of the kernel's 5 loops: %v", len(loops), loops)
	}
}
