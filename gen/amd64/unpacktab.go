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
//
// AVX2 (32 codes per step, the same unpacking) has no word or quadword
// permute by vector: 16-bit targets look up their low and high bytes with
// VPSHUFB and interleave them (a VPERMQ first, so the in-lane unpacks come
// out in order); 32-bit ones look up entries 0-7 and 8-15 with VPERMD and
// pick by bit 3 of the code (VBLENDVPS reads it shifted to the sign); 64-bit
// ones do that for the low and the high halves of the entries (split into
// two planes of 32-bit values before the loop) and interleave them.
var unpackWidths = []int{8, 16, 32, 64}

func unpackTables(a *Asm) {
	for _, bits := range []int{4, 2} {
		for _, w := range unpackWidths {
			unpackTable(a, bits, w)
			unpackTableAVX2(a, bits, w)
		}
	}
	map4(a)
}

// unpackName is the kernel of bits-wide codes to w-bit targets.
func unpackName(bits, w int, isa ISA) string { return fmt.Sprintf("unpack%dTo%d%s", bits, w, isa) }

func unpackTable(a *Asm, bits, w int) {
	per := 8 / bits    // codes per source byte
	size := w / 8      // bytes per target element
	table := 16 * size // bytes of the table
	a.Func(unpackName(bits, w, AVX512), AVX512, "func(dst *uint8, src *uint8, n int, table *uint8)",
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
	a.unpackLoop(bits, w, dst, src, n, func(s *Step, codes VecVirtual) {
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
	})
}

// unpackLoop emits the loop of an unpack kernel: body converts the 64 (AVX2:
// 32) codes of each step, which unpackCodes provides.
func (a *Asm) unpackLoop(bits, w int, dst, src, n GPVirtual, body func(s *Step, codes VecVirtual)) {
	per, size := 8/bits, w/8
	srcBytes := 4 * a.Lanes32() / per // a vector of byte codes
	mask, shifts := a.codeMask(bits)
	unroll := 2
	if w >= 32 {
		unroll = 1
	}
	a.Stream(Loop{SrcSize: 1, DstSize: per * size, Lanes: srcBytes, Unroll: unroll}, dst, src, n, Each(srcBytes, func(s *Step) {
		body(s, a.unpackCodes(s, bits, mask, shifts))
	}))
}

// codeMask returns the mask and the shifts of unpackCodes for bits-wide
// codes (set up before the loop).
func (a *Asm) codeMask(bits int) (Op, []int) {
	if bits == 4 {
		return a.Splat(0x0F0F0F0F), []int{4}
	}
	return a.Splat(0x03030303), []int{6, 12, 18}
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
	var t []VecVirtual
	if bits == 4 {
		a.VPMOVZXBW(src, x)
		t = []VecVirtual{a.Vec()}
		a.VPSLLW(U8(shifts[0]), x, t[0])
	} else {
		a.VPMOVZXBD(src, x)
		for _, sh := range shifts {
			v := a.Vec()
			a.VPSLLD(U8(sh), x, v)
			t = append(t, v)
		}
	}
	if a.isa == AVX2 {
		for _, v := range t {
			a.Or(v, x, x)
		}
		a.And(mask, x, x)
		return x
	}
	if bits == 2 {
		a.VPTERNLOGD(or, t[1], t[0], x)
		t = t[2:]
	}
	a.VPTERNLOGD(orAnd, mask, t[0], x)
	return x
}

func unpackTableAVX2(a *Asm, bits, w int) {
	per := 8 / bits
	srcBytes := 32 / per
	size := w / 8
	a.Func(unpackName(bits, w, AVX2), AVX2, "func(dst *uint8, src *uint8, n int, table *uint8)",
		fmt.Sprintf("sets the %d elements packed in each of n source bytes to their entries", per),
		fmt.Sprintf("in a table of 16 %d-bit values (%d bytes); n is a multiple of %d.", w, 16*size, srcBytes))
	dst, src, n := a.Args()
	tab := a.GP64()
	a.Context.Load(a.Param("table"), tab)
	var t []VecVirtual // the table in registers, by target width (see below)
	switch w {
	case 8: // in both lanes
		t = []VecVirtual{a.Vec()}
		a.VBROADCASTI128(Mem{Base: tab}, t[0])
	case 16: // low bytes of the entries in both lanes, high bytes in both lanes
		x := a.Vec()
		a.VMOVDQU(Mem{Base: tab}, x)
		planes := append(append(append(seq8(0, 2, 8), seq8(1, 2, 8)...), seq8(0, 2, 8)...), seq8(1, 2, 8)...)
		a.VPSHUFB(a.DataBytes("unpackplanes", planes), x, x)
		a.VPERMQ(U8(0xD8), x, x) // low bytes of entries 0-15, high bytes of entries 0-15
		t = []VecVirtual{a.Vec(), a.Vec()}
		a.VPERMQ(U8(0x44), x, t[0])
		a.VPERMQ(U8(0xEE), x, t[1])
	case 32: // entries 0-7, 8-15
		t = []VecVirtual{a.Vec(), a.Vec()}
		a.VMOVDQU(Mem{Base: tab}, t[0])
		a.VMOVDQU(Mem{Base: tab, Disp: 32}, t[1])
	case 64: // low halves of entries 0-7, 8-15, high halves of entries 0-7, 8-15
		t = []VecVirtual{a.Vec(), a.Vec(), a.Vec(), a.Vec()}
		for j := range 2 {
			q0, q1 := a.Vec(), a.Vec()
			a.VMOVDQU(Mem{Base: tab, Disp: 64 * j}, q0)
			a.VMOVDQU(Mem{Base: tab, Disp: 64*j + 32}, q1)
			a.VSHUFPS(U8(0x88), q1, q0, t[j])   // low halves of entries 0 1 4 5 | 2 3 6 7
			a.VSHUFPS(U8(0xDD), q1, q0, t[2+j]) // high halves
			a.VPERMQ(U8(0xD8), t[j], t[j])
			a.VPERMQ(U8(0xD8), t[2+j], t[2+j])
		}
	}
	// lookup32 returns the entries (of the 16 in lo, hi) of the 8 codes in
	// the 32-bit lanes of idx; 2-bit codes only reach lo.
	lookup32 := func(lo, hi, idx VecVirtual) VecVirtual {
		x := a.Vec()
		a.VPERMD(lo, idx, x)
		if bits == 2 {
			return x
		}
		y, m := a.Vec(), a.Vec()
		a.VPERMD(hi, idx, y)
		a.VPSLLD(U8(28), idx, m) // bit 3 of the code to the sign
		a.VBLENDVPS(m, y, x, x)
		return x
	}
	a.unpackLoop(bits, w, dst, src, n, func(s *Step, codes VecVirtual) {
		switch w {
		case 8:
			a.VPSHUFB(codes, t[0], codes)
			s.Store(codes, s.Dst, 8, nil)
			return
		case 16:
			a.VPERMQ(U8(0xD8), codes, codes) // lane 0: codes 0-7, 16-23; lane 1: 8-15, 24-31
			lo, hi := a.Vec(), a.Vec()
			a.VPSHUFB(codes, t[0], lo)
			a.VPSHUFB(codes, t[1], hi)
			a.VPUNPCKLBW(hi, lo, codes)
			a.VPUNPCKHBW(hi, lo, lo)
			s.Store(codes, s.Dst, 16, nil)
			s.Store(lo, s.Dst.Offset(32), 16, nil)
			return
		}
		// Eight codes at a time, from the low 8 bytes of an XMM register.
		high := a.XMM()
		a.VEXTRACTI128(U8(1), codes, high)
		for e := range 4 {
			x := codes.AsX().(VecVirtual)
			if e >= 2 {
				x = high
			}
			if e%2 == 1 {
				y := a.XMM()
				a.VPSHUFD(U8(0xEE), x, y)
				x = y
			}
			idx := a.Vec()
			a.VPMOVZXBD(x, idx)
			if w == 32 {
				s.Store(lookup32(t[0], t[1], idx), s.Dst.Offset(32*e), 32, nil)
				continue
			}
			lo, hi := lookup32(t[0], t[1], idx), lookup32(t[2], t[3], idx)
			q0 := a.Vec()
			a.VPUNPCKLDQ(hi, lo, q0) // entries of codes 0 1 | 4 5
			a.VPUNPCKHDQ(hi, lo, lo) // 2 3 | 6 7
			out := a.Vec()
			a.VPERM2I128(U8(0x20), lo, q0, out)
			s.Store(out, s.Dst.Offset(64*e), 64, nil)
			a.VPERM2I128(U8(0x31), lo, q0, out)
			s.Store(out, s.Dst.Offset(64*e+32), 64, nil)
		}
	})
}

// map4 emits the nibble maps of packed sources to packed targets:
//
//	map4:     dst[i] = lo[src[i]&15] | hi[src[i]>>4]
//	map4Pack: the same, then two results (4-bit values) to a byte, the
//	          first in the low nibble (as i8ToI4 packs)
//
// with lo and hi the 16-byte tables at table[0:16] and table[16:32]. Every
// pair of packed types of 2 and 4 bits is one of them (unpack.go derives
// the tables): two VPSHUFB per vector, which cost the same on every x86
// core, where a 256-entry byte table needs VPERMI2B or a tree of blends.
// map4 counts source bytes; map4Pack counts pairs of them.
func map4(a *Asm) {
	for _, pack := range []bool{false, true} {
		for _, isa := range []ISA{AVX2, AVX512} {
			name, doc := "map4", "n counts source bytes."
			if pack {
				name, doc = "map4Pack", "n counts pairs of source bytes."
			}
			if isa == AVX2 {
				doc += " It converts whole vectors only."
			}
			a.Func(name+isa.String(), isa, "func(dst *uint8, src *uint8, n int, table *[32]uint8)", doc)
			dst, src, n := a.Args()
			tab := a.GP64()
			a.Context.Load(a.Param("table"), tab)
			lo, hi := a.Vec(), a.Vec()
			if isa == AVX512 {
				a.VBROADCASTI32X4(Mem{Base: tab}, lo)
				a.VBROADCASTI32X4(Mem{Base: tab, Disp: 16}, hi)
			} else {
				a.VBROADCASTI128(Mem{Base: tab}, lo)
				a.VBROADCASTI128(Mem{Base: tab, Disp: 16}, hi)
			}
			low := a.Splat(0x0F0F0F0F)
			var nc nibbleConsts
			switch {
			case pack && isa == AVX512:
				nc = nibbleConsts{lo: low} // the same bytes
			case pack:
				nc = a.nibbleConsts()
			}
			lanes, size := 4*a.Lanes32(), 1 // source bytes per vector
			if pack {
				lanes, size = lanes/2, 2
			}
			a.Stream(Loop{SrcSize: size, DstSize: 1, Lanes: lanes, Unroll: 2}, dst, src, n, Each(lanes, func(s *Step) {
				x, h := a.Vec(), a.Vec()
				a.VLoad(x, s.Src, 8, s.M(size, 0))
				a.VPSRLW(U8(4), x, h)
				a.And(low, x, x)
				a.And(low, h, h)
				a.VPSHUFB(x, lo, x)
				a.VPSHUFB(h, hi, h)
				a.Or(h, x, x)
				if !pack {
					s.Store(x, s.Dst, 8, s.M(1, 0))
					return
				}
				s.StoreLow(a.packNibbles(nc, x), lanes, s.Dst, 8, s.M(1, 0))
			}))
		}
	}
}
