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
	forEachTable([]DataType{Float8E5M2, Float8E5M2FNUZ, Float8E8M0}, finerTargets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt).b8
		p := finerShape(tab, from == Float8E8M0)
		if p == nil {
			t.Fatalf("%s: no description", name)
		}
		loops[fmt.Sprintf("whole=%d nanByte=%d signZero=%d", p.whole, p.nanByte, p.signZero)] = true
		g.tableKernel(t, name, src, func(d, s []byte) { avx2Finer8(d, s, p) }, tab)
	})
	if len(loops) != 5 {
		t.Errorf("the tables ran %d of the kernel's 5 loops: %v", len(loops), loops)
	}
}
