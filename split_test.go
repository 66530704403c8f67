package tensorcast

import "testing"

// TestSplitShapes checks that splitShape describes the tables it is meant
// for, with no more windows than measured to pay (split.go), and that every
// description it returns, for every 8-bit source and target in every mode,
// gives the table's byte for all 256 sources.
func TestSplitShapes(t *testing.T) {
	f8 := []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ}
	want := map[[2]DataType]int{} // pairs and their most windows in any mode
	for _, from := range f8 {
		want[[2]DataType{from, Float8E8M0}] = 2
		want[[2]DataType{Float8E8M0, from}] = 3
		for _, to := range f8 {
			if from != to && (from.String()[:10] == to.String()[:10] || to == Float8E5M2 || to == Float8E5M2FNUZ) {
				want[[2]DataType{from, to}] = 2 // E4M3 → any, E5M2 ↔ E5M2FNUZ
			}
		}
	}
	want[[2]DataType{Int8, Float8E8M0}] = 3
	want[[2]DataType{Uint8, Float8E8M0}] = 1
	sources := []DataType{Int8, Uint8, Bool, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0}
	targets := func(DataType) []DataType {
		return append(sources[:2:2], Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0)
	}
	forEachTable(sources, targets, func(from, to DataType, opt Options, name string) {
		tab := tableFor(from, to, opt).b8
		p := splitShape(tab, 0xFF)
		if w, ok := want[[2]DataType{from, to}]; ok && (p == nil || int(p.windows) > w) {
			t.Errorf("%s: splitShape gave %+v, want at most %d windows", name, p, w)
		}
		if p == nil {
			return
		}
		for x := range 256 {
			if got := p.at(uint8(x)); got != tab[x] {
				t.Fatalf("%s: byte %#02x: description gives %#02x, table %#02x", name, x, got, tab[x])
			}
		}
	})
}
