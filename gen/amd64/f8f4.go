package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f8F4 emits the AVX2 kernels of the float8 types → FLOAT4E2M1
// (e4m3fnToF4AVX2, …). A float8 code's magnitude m = x & 0x7F orders its
// values, so FLOAT4E2M1's magnitude code c(m) is a step function of m that
// never decreases (NaN, the top magnitudes, gives 8, above ±Inf's and
// 6's 7). Where its steps but two lie in 16 consecutive magnitudes (the
// E5M2 types: 0.25 to 5 spans 18), one VPSHUFB window and two global
// thresholds give it (f8F4Window):
//
//	c = win[min(m -sat lo, 15)] + (m > t1) + (m > t2)
//
// Elsewhere (the E4M3 types: 36 magnitudes), per binade, e = m >> M, it
// takes at most three values, so
//
//	i = min(e - off, 15)   (saturating: the binades up to off share i = 0)
//	c = base[i] + (m > t1[i]) + (m > t2[i])
//
// in three VPSHUFB and two signed byte compares (m < 0x80; a threshold of
// 0x7F is never passed). The code is c | (x >> 4) & 8: the sign in bit 3,
// which NaN's 8 already has, as the reference's NaN code 0x8 wants (the
// FNUZ NaN 0x80: magnitude 0, code 0, and the sign). f8F4Plan finds off and
// the tables from the format's definition and checks all 256 bytes;
// packConsts packs the codes. About 19 instructions per 32 bytes by
// binade, 15 by window (E5M2; 13 with one threshold, E5M2FNUZ), where the
// routes through the 256-entry table (E4M3FN: sixteen VPSHUFB and fifteen
// VPBLENDVB) or split8 with four windows and the packing kernel ran at
// 0.12-0.25× copy() (Zen 4).
func f8F4(a *Asm) {
	for _, f := range f8F4Formats() {
		pl := f8F4Plan(f)
		a.Func(f.name+"ToF4AVX2", AVX2, "func(dst *uint8, src *uint8, n int)",
			"n counts bytes of dst (pairs of source bytes), a multiple of 32 (gen/amd64 f8F4).")
		dst, src, n := a.Args()
		tabs := make([]VecVirtual, 1+pl.thresholds)
		if pl.window {
			tabs = tabs[:1]
		}
		for j := range tabs {
			var b [32]byte
			copy(b[:], pl.tab[j][:])
			copy(b[16:], pl.tab[j][:])
			tabs[j] = a.ConstBytes(fmt.Sprintf("%sf4tab%d", f.name, j), b[:])
		}
		b8 := a.splat8
		pk := a.packConsts(4)
		a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
			s.Store(pk.pack(func(h int) VecVirtual {
				x, m, i := a.Vec(), a.Vec(), a.Vec()
				a.VMOVDQU(s.Src.Offset(32*h), x)
				a.VPAND(b8(0x7F), x, m)
				if pl.window {
					a.VPSUBUSB(b8(uint8(pl.off)), m, i)
					a.VPMINUB(b8(15), i, i)
					c := a.Vec()
					a.VPSHUFB(i, tabs[0], c)
					for _, t := range pl.global[:pl.thresholds] {
						a.VPCMPGTB(b8(t), m, i) // m > t: -1
						a.VPSUBB(i, c, c)
					}
					a.VPSRLW(U8(4), x, x)
					a.VPAND(b8(8), x, x)
					a.VPOR(x, c, c)
					return c
				}
				a.VPSRLW(U8(f.m), m, i)
				a.VPAND(b8(0x7F>>f.m), i, i) // e
				if pl.off > 0 {
					a.VPSUBUSB(b8(uint8(pl.off)), i, i)
				}
				if pl.clamp {
					a.VPMINUB(b8(15), i, i)
				}
				c := a.Vec()
				a.VPSHUFB(i, tabs[0], c)
				for _, t := range tabs[1:] {
					g := a.Vec()
					a.VPSHUFB(i, t, g)
					a.VPCMPGTB(g, m, g) // m > t: -1
					a.VPSUBB(g, c, c)
				}
				a.VPSRLW(U8(4), x, x)
				a.VPAND(b8(8), x, x)
				a.VPOR(x, c, c)
				return c
			}), s.Dst, 8, nil)
		})
	}
}

// f8F4Formats are f8F4's sources: the float8 types but E8M0 (window8.go
// has it).
func f8F4Formats() []f8Format {
	var out []f8Format
	for _, f := range f8Formats {
		if f.name != "e8m0" {
			out = append(out, f)
		}
	}
	return out
}

// f8F4Params are f8F4's tables for one format: by binade (window false)
// tab[0] the base code of each index, tab[1:] its thresholds; by window,
// tab[0] the codes of the magnitudes off..off+15 and global the
// thresholds above them.
type f8F4Params struct {
	off        int  // the first binade with an index of its own; the window's first magnitude
	clamp      bool // binades above off+15 share index 15
	window     bool
	thresholds int // 1 or 2 (by window: 0 to 2)
	tab        [3][16]byte
	global     [2]byte
}

// f8F4Code is the reference's FLOAT4E2M1 code of the byte b of f (f4Code
// of its value, sign in bit 3, NaN 0x8).
func f8F4Code(f f8Format, b byte) byte {
	v := f.decode(b)
	if math.IsNaN(v) {
		return 8
	}
	return f4Code(math.Abs(v)) | b>>4&8
}

// f8F4Plan returns f8F4's tables for f: a window where one fits (the
// lowest start, checked on all 256 bytes), else the smallest off that
// leaves every index at most two steps, with the reference's codes
// checked on all 256 bytes.
func f8F4Plan(f f8Format) f8F4Params {
	if p, ok := f8F4Window(f); ok {
		return p
	}
	want := func(b byte) byte { return f8F4Code(f, b) }
	binades := 1 << (7 - f.m)
	for off := range binades {
		var p f8F4Params
		p.off, p.clamp = off, binades-1-off > 15
		index := func(m int) int { return min(max(m>>f.m-off, 0), 15) }
		var steps [16][]int
		for i := range 16 {
			p.tab[0][i] = want(byte(i))           // overwritten below where i has bytes
			p.tab[1][i], p.tab[2][i] = 0x7F, 0x7F // never passed
		}
		seen := [16]bool{}
		ok := true
		for m := range 128 {
			i := index(m)
			c := want(byte(m))
			if !seen[i] {
				seen[i], p.tab[0][i] = true, c
				continue
			}
			prev := want(byte(m - 1))
			if c < prev {
				ok = false // not a step function within the index
				break
			}
			for range c - prev {
				steps[i] = append(steps[i], m-1)
			}
		}
		for i := range 16 {
			if len(steps[i]) > 2 {
				ok = false
				break
			}
			for j, t := range steps[i] {
				p.tab[1+j][i] = byte(t)
			}
			p.thresholds = max(p.thresholds, len(steps[i]))
		}
		if !ok {
			continue
		}
		for b := range 256 {
			m := b & 0x7F
			i := index(m)
			c := p.tab[0][i]
			for j := range p.thresholds {
				if m > int(p.tab[1+j][i]) {
					c++
				}
			}
			if got := c | byte(b)>>4&8; got != want(byte(b)) {
				panic(fmt.Sprintf("f8F4 %s: byte %#02x gives %#x, want %#x", f.name, b, got, want(byte(b))))
			}
		}
		return p
	}
	panic("f8F4: no index offset fits " + f.name)
}

// f8F4Window returns f8F4's window plan for f, the lowest window start lo
// whose magnitudes below hold one code and above lo+15 at most two steps,
// or false where none does.
func f8F4Window(f f8Format) (f8F4Params, bool) {
	want := func(b int) byte { return f8F4Code(f, byte(b)) }
	for lo := range 128 - 15 {
		p := f8F4Params{off: lo, window: true}
		for i := range 16 {
			p.tab[0][i] = want(lo + i)
		}
		ok := true
		for m := lo + 16; m < 128 && ok; m++ {
			d := int(want(m)) - int(want(m-1))
			if ok = d >= 0 && p.thresholds+d <= 2; ok {
				for range d {
					p.global[p.thresholds] = byte(m - 1)
					p.thresholds++
				}
			}
		}
		for b := 0; b < 256 && ok; b++ {
			m := b & 0x7F
			c := p.tab[0][min(max(m-lo, 0), 15)]
			for _, t := range p.global[:p.thresholds] {
				if m > int(t) {
					c++
				}
			}
			if c|byte(b)>>4&8 != want(b) {
				ok = false
			}
		}
		if ok {
			return p, true
		}
	}
	return f8F4Params{}, false
}
