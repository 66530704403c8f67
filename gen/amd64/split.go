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
	// splitSize the size of the struct.
	maxWindows = splitWindows - splitStart
	splitSize  = layout.Size("splitParams")
)

// packWindows is the most windows the packing kernels' loops take
// (splitPacked); wrappers_amd64.go fails to compile unless split.go's
// splitPackWindows, which lutPackStep reads, is the same.
const packWindows = 2

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
	c := loadSplit(a, maxWindows)
	c.loops(func(windows, masked int) {
		a.StreamNamed(splitLabel(windows, masked)+"_", Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			x := a.Vec()
			a.VMOVDQU(s.Src, x)
			s.Store(c.body(x, windows, masked), s.Dst, 8, nil)
		}))
	})
	splitPacked(a, 4)
	splitPacked(a, 2)
}

// splitPacked emits split8Pack4AVX2 or split8Pack2AVX2: split8's values
// for a packed target (their low bits are the codes: splitShape's mask),
// packed two or four to a byte by packConsts (packed.go), in one pass over
// 32 bytes of dst per step.
//
// Their loops take at most two windows: with more, the constants would not
// leave registers for the values being packed (lutPackStep then runs
// split8 and the packing kernel one after the other).
func splitPacked(a *Asm, bits int) {
	per := 8 / bits
	a.Func(fmt.Sprintf("split8Pack%dAVX2", bits), AVX2, fmt.Sprintf("func(dst *uint8, src *uint8, n int, p *[%d]uint8)", splitSize),
		fmt.Sprintf("packs the codes p describes for src, %d to a byte; n counts bytes of dst (a multiple of Lanes), p has at most two windows.", per))
	dst, src, n := a.Args()
	c := loadSplit(a, packWindows)
	pk := a.packConsts(bits)
	c.loops(func(windows, masked int) {
		a.StreamNamed(splitLabel(windows, masked)+"_", Loop{SrcSize: per, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
			s.Store(pk.pack(func(i int) VecVirtual {
				x := a.Vec()
				a.VMOVDQU(s.Src.Offset(32*i), x)
				return c.body(x, windows, masked)
			}), s.Dst, 8, nil)
		})
	})
}

// splitConsts holds a split kernel's tables, in registers, and the
// parameter register.
type splitConsts struct {
	a            *Asm
	p            GPVirtual
	hi, lo, rows VecVirtual
	fix, start   []VecVirtual
	nib, push    Op
	windows      int // the most windows of the kernel's loops
}

// loadSplit reads *p (a splitParams) into registers, the first windows
// windows' tables among them.
func loadSplit(a *Asm, windows int) *splitConsts {
	c := &splitConsts{a: a, p: a.GP64(), windows: windows}
	a.Context.Load(a.Param("p"), c.p)
	table := func(off int) VecVirtual {
		v := a.Vec()
		a.VBROADCASTI128(Mem{Base: c.p, Disp: off}, v)
		return v
	}
	c.hi, c.lo, c.rows = table(splitHi), table(splitLo), table(splitRows)
	for w := range windows {
		c.fix = append(c.fix, table(splitFix+16*w))
		st := a.Vec()
		a.VPBROADCASTB(Mem{Base: c.p, Disp: splitStart + w}, st)
		c.start = append(c.start, st)
	}
	// In memory: with four windows and the row mask, the tables and starts
	// take 13 of the 16 registers.
	c.nib, c.push = a.Splat(0x0F0F0F0F), a.Splat(0x70707070)
	return c
}

func splitLabel(windows, masked int) string { return fmt.Sprintf("w%dm%d", windows, masked) }

// loops emits the kernel's loops through emit, one per count of windows up
// to c.windows, with and without the row mask, after a jump to the one
// that p selects (loop 2·windows + masked). The parameter register is free
// after this.
func (c *splitConsts) loops(emit func(windows, masked int)) {
	a := c.a
	sel, m := a.GP32(), a.GP32()
	a.MOVBLZX(Mem{Base: c.p, Disp: splitWindows}, sel)
	a.ADDL(sel, sel)
	a.MOVBLZX(Mem{Base: c.p, Disp: splitMasked}, m)
	a.ADDL(m, sel)
	last := 2*c.windows + 1
	for i := range last {
		a.CMPL(sel, U8(i))
		a.JE(LabelRef(splitLabel(i/2, i%2)))
	}
	for i := last; i >= 0; i-- {
		if i < last {
			a.Label(splitLabel(i/2, i%2))
		}
		emit(i/2, i%2)
	}
}

// body returns the value of the bytes x (kept) in a loop of the
// given windows and row mask.
func (c *splitConsts) body(x VecVirtual, windows, masked int) VecVirtual {
	a := c.a
	h, l := a.Vec(), a.Vec()
	a.VPSRLW(U8(4), x, h)
	a.VPAND(c.nib, h, h)
	a.VPAND(c.nib, x, l)
	if masked == 1 {
		r := a.Vec()
		a.VPSHUFB(h, c.rows, r)
		a.VPOR(r, l, l)
	}
	a.VPSHUFB(h, c.hi, h)
	a.VPSHUFB(l, c.lo, l)
	a.VPADDB(l, h, h)
	for w := range windows {
		j := a.Vec()
		a.VPSUBB(c.start[w], x, j)
		a.VPADDUSB(c.push, j, j)
		a.VPSHUFB(j, c.fix[w], j)
		a.VPADDB(j, h, h)
	}
	return h
}
