package amd64

import (
	"fmt"

	"github.com/tensorcast/tensorcast/gen/layout"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Offsets of the classParams fields, from its declaration in params.go.
var (
	classCls    = layout.Offset("classParams", "cls")
	classBase   = layout.Offset("classParams", "base")
	classRows   = layout.Offset("classParams", "rows")
	classUseOrm = layout.Offset("classParams", "useOrm")
	classSize   = classUseOrm + 1
)

// class8 emits class8AVX2, the AVX2 lookup of the INT8 tables to the float8
// types that classShape (class8.go) describes, 32 bytes a step:
//
//	m = VPABSB(x); h = m>>4; c = VPSHUFB(cls, h)
//	j = m | c&1 (orm loop only); r_i = VPSHUFB(rows[i], j), i < 4
//	r = VPBLENDVB(c+c, VPBLENDVB(c, r0, r1), VPBLENDVB(c, r2, r3))
//	code = (r + VPSHUFB(base, h)) | x & 0x80
//
// 19 instructions, 21 with the parity bit (orm): two loops, chosen by
// useOrm.
func class8(a *Asm) {
	a.Func("class8AVX2", AVX2, fmt.Sprintf("func(dst *uint8, src *uint8, n int, p *[%d]uint8)", classSize),
		"sets dst[i] to the value p describes for src[i], for i < n (a multiple of Lanes).")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	table := func(off int) VecVirtual { return a.paramTable16(Mem{Base: p, Disp: off}) }
	cls, base := table(classCls), table(classBase)
	var rows [4]VecVirtual
	for i := range rows {
		rows[i] = table(classRows + 16*i)
	}
	b8 := func(v uint8) Op { return a.Splat(uint32(v) * 0x01010101) }
	sel := a.GP32()
	a.MOVBLZX(Mem{Base: p, Disp: classUseOrm}, sel)
	a.CMPL(sel, U8(0))
	a.JNE(LabelRef("orm"))
	for _, loop := range []string{"plain", "orm"} {
		if loop == "orm" {
			a.Label(loop)
		}
		a.StreamNamed(loop+"_", Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			x, m, h := a.Vec(), a.Vec(), a.Vec()
			a.VMOVDQU(s.Src, x)
			a.VPABSB(x, m) // -128 gives 0x80: 128, whose lookups read 0
			a.VPSRLW(U8(4), m, h)
			a.VPAND(b8(0x0F), h, h)
			c := a.Vec()
			a.VPSHUFB(h, cls, c)
			if loop == "orm" { // the parity bit by an AND: a VPSHUFB of a table of its own ran 2% slower
				o := a.Vec()
				a.VPAND(b8(1), c, o)
				a.VPOR(o, m, m)
			}
			var r [4]VecVirtual
			for i := range r {
				r[i] = a.Vec()
				a.VPSHUFB(m, rows[i], r[i])
			}
			a.VPBLENDVB(c, r[1], r[0], r[0]) // bit 7: the odd class
			a.VPBLENDVB(c, r[3], r[2], r[2])
			a.VPADDB(c, c, c)
			a.VPBLENDVB(c, r[2], r[0], r[0]) // bit 6: classes 2 and 3
			a.VPSHUFB(h, base, h)
			a.VPADDB(h, r[0], r[0])
			a.VPAND(b8(0x80), x, x)
			a.VPOR(x, r[0], r[0])
			s.Store(r[0], s.Dst, 8, nil)
		}))
	}
}
