//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
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
	forEachTable([]DataType{Int8, Uint8}, float8Targets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt).b8
		p := classShape(tab, from == Uint8)
		if p == nil {
			t.Fatalf("%s: no description", name)
		}
		loops[[2]uint8{p.unsigned, p.useOrm}] = true
		g.tableKernel(t, name+" class8AVX2", src, func(d, s []byte) { avx2Class8(d, s, p) }, tab)
	})
	if len(loops) != 3 {
		t.Errorf("the tables ran %d of the kernel's 3 loops", len(loops))
	}
}
