package amd64

import (
	"fmt"

	"github.com/tensorcast/tensorcast/gen/layout"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Offsets of the classParams fields, from its declaration in params.go.
var (
	classCls      = layout.Offset("classParams", "cls")
	classBase     = layout.Offset("classParams", "base")
	classOver     = layout.Offset("classParams", "over")
	classRows     = layout.Offset("classParams", "rows")
	classUseOrm   = layout.Offset("classParams", "useOrm")
	classUnsigned = layout.Offset("classParams", "unsigned")
	classSize     = layout.Size("classParams")
)

// class8 emits class8AVX2, the AVX2 lookup of the INT8 and UINT8 tables to
// the float8 types that classShape (class8.go) describes, 32 bytes a step:
//
//	INT8: m = VPABSB(x); UINT8: m = x
//	h = m>>4; c = VPSHUFB(cls, h)
//	j = m | c&1 (orm loop only); r_i = VPSHUFB(rows[i], j), i < 4
//	r = VPBLENDVB(c+c, VPBLENDVB(c, r0, r1), VPBLENDVB(c, r2, r3)) + VPSHUFB(base, h)
//	INT8:  code = r | x & 0x80
//	UINT8: code = r - VPCMPGTB(x, VPSHUFB(over, h))
//
// 19 instructions for INT8, 21 with the parity bit (orm), 18 for UINT8
// (the load and the store included):
// three loops, chosen by 2·unsigned + useOrm.
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
	b8 := a.splat8
	sel, orm := a.GP32(), a.GP32()
	a.MOVBLZX(Mem{Base: p, Disp: classUnsigned}, sel)
	a.MOVBLZX(Mem{Base: p, Disp: classUseOrm}, orm)
	a.SHLL(U8(1), sel)
	a.ORL(orm, sel) // 2·unsigned + useOrm
	loops := []string{"plain", "orm", "unsigned"}
	for i, loop := range loops {
		if i > 0 {
			a.Label(loop)
		}
		if i+1 < len(loops) {
			a.CMPL(sel, U8(i))
			a.JNE(LabelRef(loops[i+1]))
		}
		unsigned, withOrm := loop == "unsigned", loop == "orm"
		var over VecVirtual
		if unsigned {
			over = table(classOver)
		}
		a.StreamNamed(loop+"_", Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			x, m, h := a.Vec(), a.Vec(), a.Vec()
			a.VMOVDQU(s.Src, x)
			if unsigned {
				m = x // from 128 up: bit 7 set, the row lookups read 0
			} else {
				a.VPABSB(x, m) // -128 gives 0x80: 128, whose lookups read 0
			}
			a.VPSRLW(U8(4), m, h)
			a.VPAND(b8(0x0F), h, h)
			c := a.Vec()
			a.VPSHUFB(h, cls, c)
			j := m
			if withOrm { // the parity bit by an AND: a VPSHUFB of a table of its own ran 2% slower
				o := a.Vec()
				j = a.Vec()
				a.VPAND(b8(1), c, o)
				a.VPOR(o, m, j)
			}
			var r [4]VecVirtual
			for i := range r {
				r[i] = a.Vec()
				a.VPSHUFB(j, rows[i], r[i])
			}
			a.VPBLENDVB(c, r[1], r[0], r[0]) // bit 7: the odd class
			a.VPBLENDVB(c, r[3], r[2], r[2])
			a.VPADDB(c, c, c)
			a.VPBLENDVB(c, r[2], r[0], r[0]) // bit 6: classes 2 and 3
			b := a.Vec()
			a.VPSHUFB(h, base, b)
			a.VPADDB(b, r[0], r[0])
			if unsigned {
				a.VPSHUFB(h, over, h)
				a.VPCMPGTB(h, x, h) // x > over[h] as signed bytes: -1
				a.VPSUBB(h, r[0], r[0])
			} else {
				a.VPAND(b8(0x80), x, x)
				a.VPOR(x, r[0], r[0])
			}
			s.Store(r[0], s.Dst, 8, nil)
		}))
	}
}
