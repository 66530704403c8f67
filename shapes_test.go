package tensorcast

import (
	"fmt"
	"testing"
)

// checkByteShape checks that the description p of an 8-bit table gives the
// table tab on all 256 bytes, through its at method and through its
// portable kernel generic (the AVX2 wrappers' rest).
func checkByteShape(t *testing.T, name string, p byteShape, generic func(dst, src []uint8), tab []uint8) {
	t.Helper()
	for x := range 256 {
		if got := p.at(uint8(x)); got != tab[x] {
			t.Fatalf("%s: byte %#02x: description gives %#02x, table %#02x", name, x, got, tab[x])
		}
	}
	src, dst := make([]uint8, 256), make([]uint8, 256)
	for i := range src {
		src[i] = uint8(i)
	}
	generic(dst, src)
	for x := range 256 {
		if dst[x] != tab[x] {
			t.Fatalf("%s: the portable kernel gives %#02x for byte %#02x, table %#02x", name, dst[x], x, tab[x])
		}
	}
}

// forEachTable calls f with every pair of a source in froms and a target
// in tos(from), in every mode (saturate × round mode), with the options and
// a name for messages.
func forEachTable(froms []DataType, tos func(from DataType) []DataType, f func(from, to DataType, opt Options, name string)) {
	for _, from := range froms {
		for _, to := range tos(from) {
			for m := range numModes {
				opt := Options{RoundMode: RoundMode(m / 2), NoSaturate: m%2 == 1}
				f(from, to, opt, fmt.Sprintf("%v -> %v %+v", from, to, opt))
			}
		}
	}
}

// float8Targets is the four float8 types, for forEachTable.
func float8Targets(DataType) []DataType {
	return []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ}
}
