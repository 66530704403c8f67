//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"fmt"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestRoundKernel runs round8GFNIAVX2 (where the CPU has GFNI) on the
// descriptions of every UINT8 and INT8 → float8 table in every mode (its
// three loops: UINT8 with and without a limit, INT8) against the tables: all 256 bytes in every
// position of a vector, every length 0..300, and against guard pages at
// both ends.
func TestRoundKernel(t *testing.T) {
	if !cpu.X86.HasAVX2 || !hasGFNI() {
		t.Skip("no AVX2 with GFNI")
	}
	g := newGuarded(t, 4096)
	src := everyByte(300)
	loops := map[string]bool{}
	forEachTable([]DataType{Uint8, Int8}, float8Targets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt).b8
		p := roundShape(tab, from == Int8)
		if p == nil {
			t.Fatalf("%s: no description", name)
		}
		loops[fmt.Sprintf("signed=%d limited=%v", p.signed, p.limit != 0xFF)] = true
		g.tableKernel(t, name+" round8GFNIAVX2", src, func(d, s []byte) { avx2Round8GFNI(d, s, p) }, tab)
	})
	if len(loops) != 3 {
		t.Errorf("the tables ran %d of the kernel's 3 loops: %v", len(loops), loops)
	}
}
