package tensorcast

import "testing"

// TestRoundShapes checks that roundShape describes every table of UINT8
// and INT8 (on its magnitude, the sign or'ed in) to the float8 types in
// every mode (the tables the AVX2 round8 kernel serves, whose 256-entry
// lookup is its slowest; INT8's only where class8 needs its parity bit),
// that its descriptions give the table's byte for
// all 256 sources, and that it declines tables that are no rounding
// (FLOAT8E5M2 → FLOAT8E4M3FN, INT8's read as UINT8's and UINT8's as
// INT8's, a scrambled one).
func TestRoundShapes(t *testing.T) {
	forEachTable([]DataType{Uint8, Int8}, float8Targets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt)
		p := roundShape(tab.b8, from == Int8)
		if p == nil {
			t.Fatalf("%s: roundShape gave nil", name)
		}
		if want := from == Uint8 || tab.class.useOrm != 0; (tab.round != nil) != want {
			t.Errorf("%s: the table has a round description: %v, want %v", name, tab.round != nil, want)
		}
		if (p.signed != 0) != (from == Int8) {
			t.Errorf("%s: signed = %d", name, p.signed)
		}
		checkByteShape(t, name, p, func(d, s []uint8) { roundGeneric(d, s, p) }, tab.b8)
	})
	if p := roundShape(tableFor(Float8E5M2, Float8E4M3FN, Options{}).b8, false); p != nil {
		t.Errorf("FLOAT8E5M2 -> FLOAT8E4M3FN: roundShape gave %+v, want nil", p)
	}
	odd := make([]uint8, 256)
	for x := range odd {
		odd[x] = uint8(x * 37 % 251)
	}
	if p := roundShape(tableFor(Int8, Float8E4M3FN, Options{}).b8, false); p != nil {
		t.Errorf("INT8 -> FLOAT8E4M3FN read as UINT8: roundShape gave %+v, want nil", p)
	}
	if p := roundShape(tableFor(Uint8, Float8E4M3FN, Options{}).b8, true); p != nil {
		t.Errorf("UINT8 -> FLOAT8E4M3FN read as INT8: roundShape gave %+v, want nil", p)
	}
	for _, signed := range []bool{false, true} {
		if p := roundShape(odd, signed); p != nil {
			t.Errorf("a scrambled table (signed %v): roundShape gave %+v, want nil", signed, p)
		}
	}
}
