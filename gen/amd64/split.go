package amd64

import (
	"fmt"

	"github.com/tensorcast/tensorcast/gen/layout"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Offsets of the splitParams fields, from its declaration in params.go.
var (
	splitHi      = layout.Offset("splitParams", "hi")
	splitLo      = layout.Offset("splitParams", "lo")
	splitRows    = layout.Offset("splitParams", "rows")
	splitFix     = layout.Offset("splitParams", "fix")
	splitStart   = layout.Offset("splitParams", "start")
	splitWindows = layout.Offset("splitParams", "windows")
	splitMasked  = layout.Offset("splitParams", "masked")
	// maxWindows is the length of splitParams.start (one byte per window),
	// splitSize the size of the struct (masked is its last byte).
	maxWindows = splitWindows - splitStart
	splitSize  = splitMasked + 1
)

// split emits split8AVX2, the AVX2 lookup of an 8-bit source in a table
// that splitShape (split.go) describes as hi[x>>4] + lo[x&15] (lo only in
// the rows where rows[x>>4] is 0) plus at most maxWindows windows of
// corrections, fix[w][x - start[w]] for x - start[w] < 16:
//
//	r = VPSHUFB(hi, x>>4 & 15) + VPSHUFB(lo, x&15 | VPSHUFB(rows, x>>4 & 15))
//	per window: j = x - start (wrapping), then j + 0x70 saturated, which
//	keeps 0..15 below 0x80 and moves every other j to 0x80 or above,
//	where VPSHUFB reads 0; r += VPSHUFB(fix, j)
//
// Seven instructions per 32 bytes, two more with the row mask (the
// VPSHUFB of rows and a VPOR) and four more per window, one loop for each
// combination. AVX-512 keeps the 256-entry lookup: two VPERMI2B and a blend
// per 64 bytes are fewer.
func split(a *Asm) {
	a.Func("split8AVX2", AVX2, fmt.Sprintf("func(dst *uint8, src *uint8, n int, p *[%d]uint8)", splitSize),
		"sets dst[i] to the value p describes for src[i], for i < n (a multiple of Lanes).")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	table := func(off int) VecVirtual {
		v := a.Vec()
		a.VBROADCASTI128(Mem{Base: p, Disp: off}, v)
		return v
	}
	hi, lo, rows := table(splitHi), table(splitLo), table(splitRows)
	fix, start := make([]VecVirtual, maxWindows), make([]VecVirtual, maxWindows)
	for w := range maxWindows {
		fix[w] = table(splitFix + 16*w)
		start[w] = a.Vec()
		a.VPBROADCASTB(Mem{Base: p, Disp: splitStart + w}, start[w])
	}
	// In memory: with four windows and the row mask, the tables and starts
	// take 13 of the 16 registers.
	nib, push := a.Splat(0x0F0F0F0F), a.Splat(0x70707070)
	// The loop for windows w and mask m is labeled w<w>m<m>: index 2w + m.
	sel := a.GP32()
	a.MOVBLZX(Mem{Base: p, Disp: splitWindows}, sel)
	a.ADDL(sel, sel)
	m := a.GP32()
	a.MOVBLZX(Mem{Base: p, Disp: splitMasked}, m)
	a.ADDL(m, sel)
	label := func(windows, masked int) string { return fmt.Sprintf("w%dm%d", windows, masked) }
	for i := range 2*maxWindows + 1 {
		a.CMPL(sel, U8(i))
		a.JE(LabelRef(label(i/2, i%2)))
	}
	for i := 2*maxWindows + 1; i >= 0; i-- {
		windows, masked := i/2, i%2
		name := label(windows, masked)
		if i < 2*maxWindows+1 {
			a.Label(name)
		}
		a.StreamNamed(name+"_", Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			x, h, l := a.Vec(), a.Vec(), a.Vec()
			a.VMOVDQU(s.Src, x)
			a.VPSRLW(U8(4), x, h)
			a.VPAND(nib, h, h)
			a.VPAND(nib, x, l)
			if masked == 1 {
				r := a.Vec()
				a.VPSHUFB(h, rows, r)
				a.VPOR(r, l, l)
			}
			a.VPSHUFB(h, hi, h)
			a.VPSHUFB(l, lo, l)
			a.VPADDB(l, h, h)
			for w := range windows {
				j := a.Vec()
				a.VPSUBB(start[w], x, j)
				a.VPADDUSB(push, j, j)
				a.VPSHUFB(j, fix[w], j)
				a.VPADDB(j, h, h)
			}
			s.Store(h, s.Dst, 8, nil)
		}))
	}
}
