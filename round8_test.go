package tensorcast

import "testing"

// TestRoundShapes checks that roundShape describes every table of UINT8
// to the float8 types in every mode (the tables the AVX2 round8 kernel
// serves, whose 256-entry lookup is its slowest), that its descriptions
// give the table's byte for all 256 sources, and that it declines tables
// that are no rounding (FLOAT8E5M2 → FLOAT8E4M3FN, INT8's, a scrambled
// one).
func TestRoundShapes(t *testing.T) {
	forEachTable([]DataType{Uint8}, float8Targets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt)
		p := roundShape(tab.b8)
		if p == nil {
			t.Fatalf("%s: roundShape gave nil", name)
		}
		if tab.round == nil {
			t.Errorf("%s: the table has no round description", name)
		}
		checkByteShape(t, name, p, func(d, s []uint8) { roundGeneric(d, s, p) }, tab.b8)
	})
	if p := roundShape(tableFor(Float8E5M2, Float8E4M3FN, Options{}).b8); p != nil {
		t.Errorf("FLOAT8E5M2 -> FLOAT8E4M3FN: roundShape gave %+v, want nil", p)
	}
	odd := make([]uint8, 256)
	for x := range odd {
		odd[x] = uint8(x * 37 % 251)
	}
	if p := roundShape(tableFor(Int8, Float8E4M3FN, Options{}).b8); p != nil {
		t.Errorf("INT8 -> FLOAT8E4M3FN: roundShape gave %+v, want nil", p)
	}
	if p := roundShape(odd); p != nil {
		t.Errorf("a scrambled table: roundShape gave %+v, want nil", p)
	}
}
