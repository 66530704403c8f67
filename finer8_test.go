package tensorcast

import "testing"

// finerTargets lists the float8 types finerShape describes every table of
// from to: FLOAT8E5M2 and FLOAT8E5M2FNUZ to the E4M3 types (two of which
// have no other description for the AVX2 kernels than the 256-entry
// lookup), FLOAT8E8M0 to all four.
func finerTargets(from DataType) []DataType {
	if from == Float8E8M0 {
		return []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ}
	}
	return []DataType{Float8E4M3FN, Float8E4M3FNUZ}
}

// TestFinerShapes checks that finerShape describes every table of
// finerTargets in every mode, that the descriptions give the table's byte for
// all 256 sources, through finerGeneric too, and that it declines tables
// of no finer type (FLOAT8E4M3FN → FLOAT8E5M2, a scrambled table).
func TestFinerShapes(t *testing.T) {
	forEachTable([]DataType{Float8E5M2, Float8E5M2FNUZ, Float8E8M0}, finerTargets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt)
		p := finerShape(tab.b8, from == Float8E8M0)
		if p == nil {
			t.Fatalf("%s: finerShape gave nil", name)
		}
		if tab.finer == nil {
			t.Errorf("%s: the table has no finer description", name)
		}
		checkByteShape(t, name, p, func(d, s []uint8) { finerGeneric(d, s, p) }, tab.b8)
	})
	if p := finerShape(tableFor(Float8E4M3FN, Float8E5M2, Options{}).b8, false); p != nil {
		t.Errorf("FLOAT8E4M3FN -> FLOAT8E5M2: finerShape gave %+v, want nil", p)
	}
	odd := make([]uint8, 256)
	for x := range odd {
		odd[x] = uint8(x * 37 % 251)
	}
	if p := finerShape(odd, false); p != nil {
		t.Errorf("a scrambled table: finerShape gave %+v, want nil", p)
	}
}
