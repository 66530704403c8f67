package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f8HalfWindow is f8Half for the signed float8 types (all but E8M0), 32
// elements a step, by one correction window. With c = b & 0x7F and the sign placed at bit 15 - s of a word
// (VPCMPGTB with zero, and 0x80 >> s, unpacked above c; for s = 8 the
// byte b itself), the normal formula on words keeps the sign in place:
//
//	r = ((sign << (15-s) | c) + c0) << s  =  sign << 15 + ((c + c0) << s)  (mod 2^16)
//
// for every byte, as the shift and the addition are linear modulo 2^16.
// The magnitudes where (c + c0) << s is not the value (zero, the
// subnormals, Inf and NaN) lie in one window of 16 magnitudes from w0
// (modulo 128); their corrections, want(c) - ((c + c0) << s), are two
// 16-entry byte tables looked up by VPSHUFB at j = (c - w0) & 0x7F plus
// 0x70 with saturation (0 outside the window, where j ≥ 16 reaches bit 7),
// unpacked to words and added. The FNUZ types' NaN 0x80, whose magnitude 0
// is also zero's, takes its own correction by a blend. About 19
// instructions per 32 elements (22 for FNUZ) against 23 to 31 for the
// kernel it replaced, which blended each special into the words. f8HalfWindowPlan derives w0 and the tables and
// replays the kernel on all 256 bytes.
func f8HalfWindow(a *Asm, pl f8HalfWindowParams) {
	dst, src, n := a.Args()
	b8 := a.splat8
	zero := a.YMM()
	a.VPXOR(zero, zero, zero)
	// The corrections' low and high bytes (FNUZ: both, for the NaN's blend).
	planes := wordPlanes(a, a.name+"_fix", pl.fix, pl.fnuz)
	c0 := a.Splat(uint32(uint16(pl.c0)) * 0x10001)
	a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 32, Unroll: 1}, dst, src, n, Each(32, func(s *Step) {
		x, c, j := a.YMM(), a.YMM(), a.YMM()
		a.VPERMQ(U8(0b11_01_10_00), s.Src, x) // quadwords 0 2 1 3: the in-lane unpacks come out in order
		a.VPAND(b8(0x7F), x, c)
		a.VPSUBB(b8(uint8(pl.w0)), c, j)
		a.VPAND(b8(0x7F), j, j)
		a.VPADDUSB(b8(0x70), j, j) // the window at 0x70..0x7F, the rest at 0x80 or above
		var fix [2]VecVirtual
		for i, p := range planes {
			fix[i] = zero
			if p != nil {
				fix[i] = a.YMM()
				a.VPSHUFB(j, p, fix[i])
			}
		}
		if pl.fnuz {
			nan := a.YMM()
			a.VPCMPEQB(b8(0x80), x, nan)
			for i := range fix {
				a.VPBLENDVB(nan, b8(uint8(pl.nanFix>>(8*i))), fix[i], fix[i])
			}
		}
		low, high := c, zero // the words' low and high bytes
		if pl.s == 8 {
			low = x // the sign at bit 7 of the word
		} else {
			high = a.YMM()
			a.VPCMPGTB(x, zero, high)
			a.VPAND(b8(uint8(0x80>>pl.s)), high, high)
		}
		for h := range 2 {
			unpack := a.VPUNPCKLBW
			if h == 1 {
				unpack = a.VPUNPCKHBW
			}
			r, f := a.YMM(), a.YMM()
			unpack(high, low, r)
			a.VPADDW(c0, r, r)
			a.VPSLLW(U8(pl.s), r, r)
			unpack(fix[1], fix[0], f)
			a.VPADDW(f, r, r)
			s.Store(r, s.Dst.Offset(32*h), 16, nil)
		}
	}))
}

// f8HalfWindowParams are f8HalfWindow's constants for one pair.
type f8HalfWindowParams struct {
	c0, s  int
	w0     int        // the window's first magnitude
	fix    [16]uint16 // the correction of the magnitude w0 + j (mod 128)
	fnuz   bool
	nanFix uint16 // FNUZ: the correction of 0x80
}

// f8HalfWindowPlan derives f8HalfWindow's parameters of f → t, or reports
// that the corrections do not fit one window, and checks them by replaying
// the kernel on every byte against the definitions (decode, encode).
func f8HalfWindowPlan(f f8Format, t halfFormat) (p f8HalfWindowParams, ok bool) {
	if f.e8m0 {
		return p, false
	}
	want := func(b int) uint16 { return t.encode(f.decode(byte(b))) }
	p = f8HalfWindowParams{c0: (t.bias - f.bias) << f.m, s: t.m - f.m, fnuz: f.fnuz}
	if p.s > 8 {
		return p, false
	}
	normal := func(c int) uint16 { return uint16((c + p.c0) << p.s) }
	// The window: the shortest run (modulo 128) that holds every
	// magnitude whose formula is wrong.
	var bad []int
	for c := range 128 {
		if normal(c) != want(c) {
			bad = append(bad, c)
		}
	}
	found := false
	for w0 := range 128 {
		fits := true
		for _, c := range bad {
			if (c-w0)&0x7F >= 16 {
				fits = false
				break
			}
		}
		if fits {
			p.w0, found = w0, true
			break
		}
	}
	if !found {
		return p, false
	}
	for j := range 16 {
		c := (p.w0 + j) & 0x7F
		p.fix[j] = want(c) - normal(c)
	}
	// Replay the kernel.
	out := func(b int) uint16 {
		c := b & 0x7F
		var hi int
		lo := c
		if p.s == 8 {
			lo = b
		} else if b&0x80 != 0 {
			hi = 0x80 >> p.s
		}
		r := uint16((hi<<8 | lo) + p.c0)
		r <<= p.s
		var fx uint16
		if j := min((c-p.w0)&0x7F+0x70, 0xFF); j < 0x80 {
			fx = p.fix[j&15]
		}
		if p.fnuz && b == 0x80 {
			fx = p.nanFix
		}
		return r + fx
	}
	if p.fnuz {
		p.nanFix = want(0x80) - out(0x80) // out(0x80) is r alone while nanFix is 0
	}
	for b := range 256 {
		if out(b) != want(b) {
			panic(fmt.Sprintf("f8HalfWindow %s → %s: byte %#02x gives %#04x, want %#04x", f.goName, t.goName, b, out(b), want(b)))
		}
	}
	return p, true
}
