package amd64

import (
	"fmt"

	"github.com/tensorcast/tensorcast/gen/layout"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Offsets of the roundParams fields, from its declaration in params.go.
var (
	roundMul    = layout.Offset("roundParams", "mul")
	roundBase   = layout.Offset("roundParams", "base")
	roundLow    = layout.Offset("roundParams", "low")
	roundShift  = layout.Offset("roundParams", "shift")
	roundHalf   = layout.Offset("roundParams", "half")
	roundMask   = layout.Offset("roundParams", "mask")
	roundLimit  = layout.Offset("roundParams", "limit")
	roundSigned = layout.Offset("roundParams", "signed")
	roundSize   = layout.Size("roundParams")
)

// round8 emits round8GFNIAVX2, the AVX2 + GFNI lookup of the UINT8 tables
// to the float8 types that roundShape (round8.go) describes, 32 bytes a
// step:
//
//	m = x; h = m>>4 (VGF2P8AFFINEQB)
//	M = VPSHUFB(mul, h); y = m·M by one VGF2P8MULB: M is a power of two
//	    and y < 2^8, so the product in GF(2^8) needs no reduction and is
//	    the integer product
//	q = y/2^shift to nearest even: VPAVGB(y, half | (y>>shift)&1) >> (shift-1),
//	    both shifts by VGF2P8AFFINEQB
//	code = min(VPSHUFB(base, h) + q + VPSHUFB(low, m + 0x70 saturated), limit)
//
// (the saturated m + 0x70 is 0x80 or more, where VPSHUFB reads 0, for
// every m from 16 up): 14 instructions with the load and the store, 15
// with the limit (two loops). Without GFNI the product and the shifts took
// eight more, 22 in all, and class8's UINT8 loop (18) ran 1.25-1.42× that kernel's rate (Zen 3), so
// only this one is left; on a CPU with GFNI lookup8 prefers it by its
// count, not measured against class8.
func round8(a *Asm) {
	a.Func("round8GFNIAVX2", AVX2, fmt.Sprintf("func(dst *uint8, src *uint8, n int, p *[%d]uint8)", roundSize),
		"sets dst[i] to the value p describes for src[i], for i < n (a multiple of Lanes).")
	a.Needs("GFNI")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	table := func(off int) VecVirtual { return a.paramTable16(Mem{Base: p, Disp: off}) }
	byteOf := func(off int) VecVirtual { return a.paramByte(Mem{Base: p, Disp: off}) }
	mul, base, low := table(roundMul), table(roundBase), table(roundLow)
	half, limit := byteOf(roundHalf), byteOf(roundLimit)
	// The byte shifts as VGF2P8AFFINEQB matrices (gf2Shift): m>>4,
	// (y>>shift)&1 and y>>(shift-1) (the mask is the shift's own), the
	// last two looked up by shift in tables of eight.
	hi4 := a.splat64(gf2Shift(4, 8))
	var bits, shrs []uint32
	for k := range 8 {
		b, r := gf2Shift(k, 1), gf2Shift(k, 8)
		bits = append(bits, uint32(b), uint32(b>>32))
		shrs = append(shrs, uint32(r), uint32(r>>32))
	}
	g := a.GP64()
	a.MOVBQZX(Mem{Base: p, Disp: roundShift}, g)
	pick := func(name string, tab []uint32, less int) Op {
		m := a.Data(name, tab)
		r := a.GP64()
		a.LEAQ(m, r)
		v := a.Vec()
		a.VPBROADCASTQ(Mem{Base: r, Index: g, Scale: 8, Disp: -8 * less}, v)
		return v
	}
	bitS, shrS1 := pick("gf2bit", bits, 0), pick("gf2shr", shrs, 1)
	b8 := a.splat8
	// Three loops: UINT8 with and without a limit, INT8 (the magnitude, its
	// sign or'ed in; never a limit).
	sel := a.GP32()
	a.CMPB(Mem{Base: p, Disp: roundSigned}, U8(0))
	a.JNE(LabelRef("int8"))
	a.MOVBLZX(Mem{Base: p, Disp: roundLimit}, sel)
	a.CMPL(sel, U8(0xFF))
	a.JNE(LabelRef("limited"))
	for _, loop := range []string{"uint8", "limited", "int8"} {
		limited, signed := loop == "limited", loop == "int8"
		if loop != "uint8" {
			a.Label(loop)
		}
		a.StreamNamed(loop+"_", Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
			m, h, mm, y := a.Vec(), a.Vec(), a.Vec(), a.Vec()
			var x VecVirtual
			if signed {
				x = a.Vec()
				a.VMOVDQU(s.Src, x)
				a.VPABSB(x, m)
			} else {
				a.VMOVDQU(s.Src, m)
			}
			a.VGF2P8AFFINEQB(U8(0), hi4, m, h)
			a.VPSHUFB(h, mul, mm)
			a.VGF2P8MULB(mm, m, y) // y = m·M in every byte
			t, c := a.Vec(), a.Vec()
			a.VGF2P8AFFINEQB(U8(0), bitS, y, t)
			a.VPOR(half, t, t)
			a.VPAVGB(t, y, y)
			a.VGF2P8AFFINEQB(U8(0), shrS1, y, y) // q
			a.VPSHUFB(h, base, c)
			a.VPADDB(y, c, c)
			a.VPADDUSB(b8(0x70), m, t)
			a.VPSHUFB(t, low, t)
			a.VPADDB(t, c, c)
			if limited {
				a.VPMINUB(limit, c, c)
			}
			if signed {
				a.VPAND(b8(0x80), x, x)
				a.VPOR(x, c, c)
			}
			s.Store(c, s.Dst, 8, nil)
		}))
	}
}

// gf2Shift is the VGF2P8AFFINEQB matrix of x >> k keeping the low w bits of
// the result: result bit i is x's bit i+k (i < w, i+k ≤ 7), the parity of
// x and the matrix's byte 7-i.
func gf2Shift(k, w int) uint64 {
	var m uint64
	for i := 0; i < w && i+k <= 7; i++ {
		m |= uint64(1<<(i+k)) << (8 * (7 - i))
	}
	return m
}
