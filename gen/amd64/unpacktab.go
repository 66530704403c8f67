package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Packed sources (INT4, UINT4, FLOAT4E2M1 four bits to an element, INT2 and
// UINT2 two) to targets of 8 to 64 bits: every element is one of at most 16
// codes, so its conversion in any Options mode is one entry of a 16-entry
// table of target values (tables.go builds it from the reference). These
// kernels unpack 64 codes per step into bytes and look them up in
// registers:
//
//	4-bit: VPMOVZXBW spreads 32 source bytes over 16-bit lanes; b | b<<4,
//	       masked with 0x0F0F, leaves the low code in the even byte and the
//	       high code in the odd one.
//	2-bit: VPMOVZXBD spreads 16 source bytes over 32-bit lanes; b | b<<6 |
//	       b<<12 | b<<18, masked with 0x03030303, puts code j in byte j.
//
// then, by the target's width:
//
//	 8 bits: VPSHUFB, the table in every 128-bit lane;
//	16 bits: VPMOVZXBW of each half of the codes, VPERMW;
//	32 bits: VPMOVZXBD of each quarter, VPERMD;
//	64 bits: VPMOVZXBQ of each eighth, VPERMI2Q over the table's two halves.
//
// Only AVX-512 F/BW/VL instructions: no VBMI, so Skylake-X runs them too.
// n counts whole source bytes; the tail is masked like every AVX-512 kernel.
// The Go side (unpack_amd64.go) converts the elements of a partly used last
// source byte.
var unpackWidths = []int{8, 16, 32, 64}

func unpackTables(a *Asm) {
	for _, bits := range []int{4, 2} {
		for _, w := range unpackWidths {
			unpackTable(a, bits, w)
		}
	}
}

// unpackName is the kernel of bits-wide codes to w-bit targets.
func unpackName(bits, w int) string { return fmt.Sprintf("unpack%dTo%dAVX512", bits, w) }

func unpackTable(a *Asm, bits, w int) {
	per := 8 / bits      // codes per source byte
	srcBytes := 64 / per // source bytes per step of 64 codes
	size := w / 8        // bytes per target element
	table := 16 * size   // bytes of the table
	a.Func(unpackName(bits, w), AVX512, "func(dst *uint8, src *uint8, n int, table *uint8)",
		fmt.Sprintf("sets the %d elements packed in each of n source bytes to their entries", per),
		fmt.Sprintf("in a table of 16 %d-bit values (%d bytes).", w, table))
	dst, src, n := a.Args()
	tab := a.GP64()
	a.Context.Load(a.Param("table"), tab)
	var lo, hi VecVirtual
	switch w {
	case 8:
		lo = a.Vec()
		a.VBROADCASTI32X4(Mem{Base: tab}, lo)
	case 16:
		lo = a.Vec()
		a.VMOVDQU64(Mem{Base: tab}, lo.AsY().(VecVirtual)) // zeroes the upper half
	case 32:
		lo = a.Vec()
		a.VMOVDQU64(Mem{Base: tab}, lo)
	case 64:
		lo, hi = a.Vec(), a.Vec()
		a.VMOVDQU64(Mem{Base: tab}, lo)
		a.VMOVDQU64(Mem{Base: tab, Disp: 64}, hi)
	}
	var mask Op
	var shifts []int
	if bits == 4 {
		mask, shifts = a.Splat(0x0F0F0F0F), []int{4}
	} else {
		mask, shifts = a.Splat(0x03030303), []int{6, 12, 18}
	}
	unroll := 2
	if w >= 32 {
		unroll = 1
	}
	a.Stream(Loop{SrcSize: 1, DstSize: per * size, Lanes: srcBytes, Unroll: unroll}, dst, src, n, Each(srcBytes, func(s *Step) {
		codes := a.unpackCodes(s, bits, mask, shifts)
		switch w {
		case 8:
			out := a.Vec()
			a.VPSHUFB(codes, lo, out)
			s.Store(out, s.Dst, 8, s.M(per, 0))
		case 16:
			for h := range 2 {
				part := codes.AsY().(VecVirtual)
				if h == 1 {
					part = a.Vec().AsY().(VecVirtual)
					a.VEXTRACTI64X4(U8(1), codes, part)
				}
				idx := a.Vec()
				a.VPMOVZXBW(part, idx)
				a.VPERMW(lo, idx, idx)
				s.Store(idx, s.Dst.Offset(64*h), 16, s.M(per, 32*h))
			}
		default:
			for q := range 4 {
				quarter := codes.AsX().(VecVirtual)
				if q > 0 {
					quarter = a.Vec().AsX().(VecVirtual)
					a.VEXTRACTI32X4(U8(q), codes, quarter)
				}
				if w == 32 {
					idx := a.Vec()
					a.VPMOVZXBD(quarter, idx)
					a.VPERMD(lo, idx, idx)
					s.Store(idx, s.Dst.Offset(64*q), 32, s.M(per, 16*q))
					continue
				}
				for h := range 2 {
					part := quarter
					if h == 1 {
						part = a.Vec().AsX().(VecVirtual)
						a.VPSRLDQ(U8(8), quarter, part)
					}
					idx := a.Vec()
					a.VPMOVZXBQ(part, idx)
					a.VPERMI2Q(hi, lo, idx)
					e := 2*q + h
					s.Store(idx, s.Dst.Offset(64*e), 64, s.M(per, 8*e))
				}
			}
		}
	}))
}

// unpackCodes loads the step's source bytes and returns its 64 codes, one
// per byte, in element order.
func (a *Asm) unpackCodes(s *Step, bits int, mask Op, shifts []int) VecVirtual {
	x := a.Vec()
	narrow := Half(x) // 32 source bytes for 4-bit codes
	if bits == 2 {
		narrow = x.AsX().(VecVirtual) // 16 for 2-bit ones
	}
	src := Op(s.Src)
	if s.Tail() {
		a.VLoad(narrow, s.Src, 8, s.M(1, 0))
		src = narrow
	}
	or := Tern(func(x, t, m uint8) uint8 { return x | t | m })
	orAnd := Tern(func(x, t, m uint8) uint8 { return (x | t) & m })
	if bits == 4 {
		a.VPMOVZXBW(src, x)
		t := a.Vec()
		a.VPSLLW(U8(shifts[0]), x, t)
		a.VPTERNLOGD(orAnd, mask, t, x)
		return x
	}
	a.VPMOVZXBD(src, x)
	t := make([]VecVirtual, len(shifts))
	for i, sh := range shifts {
		t[i] = a.Vec()
		a.VPSLLD(U8(sh), x, t[i])
	}
	a.VPTERNLOGD(or, t[1], t[0], x)
	a.VPTERNLOGD(orAnd, mask, t[2], x)
	return x
}
