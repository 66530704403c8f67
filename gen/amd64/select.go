package amd64

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
	"github.com/tensorcast/tensorcast/gen/layout"
)

// Offsets of the selectParams fields, from its declaration in params.go.
var (
	selMask  = layout.Offset("selectParams", "mask")
	selZero  = layout.Offset("selectParams", "zero")
	selOther = layout.Offset("selectParams", "other")
)

// selects emits select8 and select16 on AVX2 and AVX-512: the lookup of an
// 8-bit source in a two-valued table (tables.go, selectShape), dst[i] =
// zero where src[i]&mask == 0 and other elsewhere. BOOL to any 8- or 16-bit
// target has such a table (mask 0xFF), and so have the float8 types to BOOL
// (mask 0x7F for the signed zeros of E4M3FN and E5M2, 0xFF for the FNUZ
// types; E8M0 is always true, mask 0). A test and a blend per vector where
// the table kernels take sixteen VPSHUFB (AVX2) or two VPERMI2B (AVX-512).
func selects(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		selectKernel(a, isa, false)
		selectKernel(a, isa, true)
	}
}

func selectKernel(a *Asm, isa ISA, wide bool) {
	name, typ, dsize, laneBits := "select8", "uint8", 1, 8
	if wide {
		name, typ, dsize, laneBits = "select16", "uint16", 2, 16
	}
	a.Func(name+isa.String(), isa, "func(dst *"+typ+", src *uint8, n int, p *[3]uint32)",
		"sets dst[i] to p.zero where src[i]&p.mask == 0 and to p.other elsewhere, for i < n"+
			map[ISA]string{AVX2: " (a multiple of Lanes)", AVX512: ""}[isa]+".")
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	mask := a.Splat32(Mem{Base: p, Disp: selMask})
	zero := a.Splat32(Mem{Base: p, Disp: selZero})
	other := a.Splat32(Mem{Base: p, Disp: selOther})
	var nothing VecVirtual
	if isa == AVX2 {
		nothing = a.Vec()
		a.VPXOR(nothing, nothing, nothing)
	}
	lanes := 32 // bytes of a vector; for select16, words
	if isa == AVX512 {
		lanes = 64
	}
	if wide {
		lanes /= 2
	}
	a.Stream(Loop{SrcSize: 1, DstSize: dsize, Lanes: lanes, Unroll: 2}, dst, src, n, Each(lanes, func(s *Step) {
		x, r := a.Vec(), a.Vec()
		if wide {
			a.VLoad(Half(x), s.Src, 8, s.M(1, 0))
			a.VPMOVZXBW(Half(x), x)
		} else {
			a.VLoad(x, s.Src, 8, s.M(1, 0))
		}
		if isa == AVX512 {
			k := a.K()
			if wide {
				a.VPTESTMW(mask, x, k)
				a.VPBLENDMW(other, zero, k, r)
			} else {
				a.VPTESTMB(mask, x, k)
				a.VPBLENDMB(other, zero, k, r)
			}
		} else {
			a.VPAND(mask, x, x)
			if wide {
				a.VPCMPEQW(nothing, x, x)
			} else {
				a.VPCMPEQB(nothing, x, x)
			}
			a.VPBLENDVB(x, zero, other, r)
		}
		s.Store(r, s.Dst, laneBits, s.M(1, 0))
	}))
}
