package tensorcast

import "testing"

// TestClassShapes checks that classShape describes every table of INT8
// and UINT8 to the float8 types in every mode (the tables the AVX2 class8
// kernel serves), that the description gives the table's
// byte for all 256 sources, that only INT8 → the FLOAT8E5M2 types need
// the or-mask (the kernel's loops: the parity bit; UINT8 has its compare
// instead), and that it declines tables that are no rounding.
func TestClassShapes(t *testing.T) {
	forEachTable([]DataType{Int8, Uint8}, float8Targets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt)
		p := classShape(tab.b8, from == Uint8)
		if p == nil {
			t.Fatalf("%s: classShape gave nil", name)
		}
		if tab.class == nil {
			t.Errorf("%s: the table has no class description", name)
		}
		wantOrm := from == Int8 && (to == Float8E5M2 || to == Float8E5M2FNUZ)
		if (p.useOrm == 1) != wantOrm {
			t.Errorf("%s: useOrm %d, want %v", name, p.useOrm, wantOrm)
		}
		if (p.unsigned == 1) != (from == Uint8) {
			t.Errorf("%s: unsigned %d", name, p.unsigned)
		}
		checkByteShape(t, name, p, func(d, s []uint8) { classGeneric(d, s, p) }, tab.b8)
	})
	for _, c := range []struct {
		name string
		tab  []uint8
	}{
		{"INT8 -> UINT8 (its own bits: one class, wrong for every negative)", tableFor(Int8, Uint8, Options{}).b8},
		{"UINT8 -> FLOAT8E4M3FN read as INT8's (128 has no sign bit)", tableFor(Uint8, Float8E4M3FN, Options{}).b8},
		{"a scrambled table", func() []uint8 {
			s := make([]uint8, 256)
			for x := range s {
				s[x] = uint8(x*37%251) | 0x80
			}
			return s
		}()},
	} {
		if p := classShape(c.tab, false); p != nil {
			t.Errorf("%s: classShape gave %+v, want nil", c.name, p)
		}
	}
}
