package tensorcast

import "testing"

// TestSelectShapes checks that tableFor finds the two-valued tables the
// select kernels serve (a missed shape would only be slower, so nothing
// else would notice), with the masks select.go names, and no others.
func TestSelectShapes(t *testing.T) {
	float8s := []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0}
	wantMask := map[DataType]uint32{Float8E4M3FN: 0x7F7F7F7F, Float8E5M2: 0x7F7F7F7F,
		Float8E4M3FNUZ: 0xFFFFFFFF, Float8E5M2FNUZ: 0xFFFFFFFF, Float8E8M0: 0}
	for _, from := range float8s {
		sel := tableFor(from, Bool, Options{}).sel
		if sel == nil || sel.mask != wantMask[from] || sel.other != 0x01010101 {
			t.Errorf("%v -> BOOL: select %+v, want mask %#x and other 0x01010101", from, sel, wantMask[from])
		}
	}
	for _, to := range append(float8s, Float16, BFloat16) {
		for _, opt := range []Options{{}, {NoSaturate: true}} {
			sel := tableFor(Bool, to, opt).sel
			if sel == nil || sel.mask != 0xFFFFFFFF {
				t.Errorf("BOOL -> %v %+v: select %+v, want mask 0xFFFFFFFF", to, opt, sel)
			}
		}
	}
	for _, p := range [][2]DataType{{Float8E4M3FN, Float8E5M2}, {Int8, Float8E4M3FN}, {Float8E5M2, Float16}} {
		if sel := tableFor(p[0], p[1], Options{}).sel; sel != nil {
			t.Errorf("%v -> %v: select %+v, want none (many values)", p[0], p[1], sel)
		}
	}
}

// TestSelectKernels runs each tier's select kernels against the portable
// ones on every byte value, at lengths 0..200 from odd offsets, and checks
// that nothing past dst[n] is written.
func TestSelectKernels(t *testing.T) {
	params := []selectParams{{0xFFFFFFFF, 0x3C3C3C3C, 0x01010101}, {0x7F7F7F7F, 0, 0x01010101}, {0, 0x38383838, 0x7E7E7E7E}}
	src := make([]byte, 256+512)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	for _, k := range tiers {
		if k.sel8.fn == nil {
			continue
		}
		for _, p := range params {
			p16 := selectParams{p.mask, p.zero&0xFF*0x00010001 | 0x3C003C00, p.other&0xFF*0x00010001 | 0x80008000}
			for n := range 201 {
				for _, off := range []int{0, 1, 3} {
					s := src[off : off+n]
					want, got := make([]byte, n), make([]byte, n+8)
					selectGeneric(want, s, &p)
					k.sel8.fn(got[:n], s, &p)
					if string(got[:n]) != string(want) || string(got[n:]) != "\x00\x00\x00\x00\x00\x00\x00\x00" {
						t.Fatalf("%s sel8 %+v n=%d off=%d: got %x, want %x", k.tier, p, n, off, got, want)
					}
					w16, g16 := make([]uint16, n), make([]uint16, n+4)
					selectGeneric(w16, s, &p16)
					k.sel16.fn(g16[:n], s, &p16)
					for i := range n {
						if g16[i] != w16[i] {
							t.Fatalf("%s sel16 %+v n=%d off=%d: element %d is %#x, want %#x", k.tier, p16, n, off, i, g16[i], w16[i])
						}
					}
					if g16[n]|g16[n+1]|g16[n+2]|g16[n+3] != 0 {
						t.Fatalf("%s sel16 n=%d: wrote past the end", k.tier, n)
					}
				}
			}
		}
	}
}
