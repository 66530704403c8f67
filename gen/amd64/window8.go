package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The AVX2 kernels of 8-bit sources whose table, outside a window of at
// most 16 source bytes, is one constant: a VPSHUFB of 16 entries looks the
// window up, the source byte moved to 0..15 by a subtraction (and a clamp
// where the constant above is not 0), and the bytes outside pushed to
// VPSHUFB's zeroing bit 7 by a saturating addition of 0x70. Three or four
// instructions per 32 bytes where the general 256-entry lookup (lut.go's
// tree) takes 35; widen8Glue registers them as AVX2 tier stages.
// FLOAT8E8M0's integer values 2^(x-127) are such tables, and the
// FLOAT4E2M1 codes of E8M0, INT8 and UINT8.

// e8m0ToInt is widenF8To's kernel of FLOAT8E8M0 → an integer target, with
// no float: the value of a byte x is 2^(x-127), whose truncation is 0 below
// x = 127 and 1 << (x-127) from there, 0 modulo 2^bits from x = 127 + bits
// on (as is every value from 2^64, and NaN, 0xFF, converts to 0):
//
//	8 and 16 bits: VPSHUFB looks 1 << i up for i = x - 127 < 16 (the byte
//	i + 0x70, saturated, has bit 7 set, which VPSHUFB reads as 0, for
//	every other x: below 127 x - 127 wraps to 129..255), in one plane of
//	bytes or, for 16 bits, a low and a high plane unpacked into words;
//	32 bits: VPSLLVD(1, x - 127), which gives 0 for every count beyond 31,
//	the wrapped ones included.
//	64 bits: VPSLLVQ likewise (2^63 gives 1 << 63, the reference's bits
//	for INT64 and UINT64 alike), where the plan went through a FLOAT
//	block: 0.38-0.40 → 1.51-1.54× copy() (Zen 3, two runs side by side).
func e8m0ToInt(a *Asm, tgt widen8Target, dst, src, n GPVirtual) {
	bits := 8 * tgt.bytes
	if bits == 64 {
		one, bias := a.Vec(), a.Vec()
		a.VPBROADCASTQ(a.Data("e8m0one64", []uint32{1, 0}), one)
		a.VPBROADCASTQ(a.Data("e8m0bias64", []uint32{127, 0}), bias)
		a.Stream(Loop{SrcSize: 1, DstSize: 8, Lanes: tgt.lanes, Unroll: 32 / tgt.lanes}, dst, src, n, Each(4, func(s *Step) {
			x, r := a.Vec(), a.Vec()
			a.VPMOVZXBQ(s.Src, x)
			a.VPSUBQ(bias, x, x)
			a.VPSLLVQ(x, one, r)
			s.Store(r, s.Dst, 64, nil)
		}))
		return
	}
	if bits == 32 {
		one, bias := a.Const32(1), a.Splat(127)
		a.Stream(Loop{SrcSize: 1, DstSize: 4, Lanes: tgt.lanes, Unroll: 32 / tgt.lanes}, dst, src, n, Each(8, func(s *Step) {
			x := a.Vec()
			a.VPMOVZXBD(s.Src, x)
			a.VPSUBD(bias, x, x)
			r := a.Vec()
			a.VPSLLVD(x, one, r)
			s.Store(r, s.Dst, 32, nil)
		}))
		return
	}
	var lo, hi [32]byte // 1 << i in bytes 0..15 of each 128-bit lane
	for i := range 16 {
		v := uint16(1) << i
		if bits == 8 {
			v &= 0xFF
		}
		lo[i], lo[16+i] = byte(v), byte(v)
		hi[i], hi[16+i] = byte(v>>8), byte(v>>8)
	}
	loP := a.ConstBytes(fmt.Sprintf("e8m0pow2lo%d", bits), lo[:])
	var hiP VecVirtual
	if bits == 16 {
		hiP = a.ConstBytes("e8m0pow2hi", hi[:])
	}
	b8 := a.splat8
	a.Stream(Loop{SrcSize: 1, DstSize: tgt.bytes, Lanes: tgt.lanes, Unroll: 32 / tgt.lanes}, dst, src, n, Each(tgt.lanes, func(s *Step) {
		x := a.Vec() // 32 bytes, or 16 in the low half for 16-bit targets
		if bits == 8 {
			a.VMOVDQU(s.Src, x)
		} else {
			a.VPMOVZXBW(s.Src, x) // words: their high bytes become 0xF1 below, which VPSHUFB reads as 0
		}
		a.VPSUBB(b8(127), x, x)
		a.VPADDUSB(b8(0x70), x, x)
		if bits == 8 {
			a.VPSHUFB(x, loP, x)
			s.Store(x, s.Dst, 8, nil)
			return
		}
		l, h := a.Vec(), a.Vec()
		a.VPSHUFB(x, loP, l)
		a.VPSHUFB(x, hiP, h)
		a.VPSLLW(U8(8), h, h)
		a.VPOR(h, l, l)
		s.Store(l, s.Dst, 16, nil)
	}))
}

// e8m0Packed emits the AVX2 kernels of FLOAT8E8M0 → the packed integers,
// e8m0ToI4AVX2 (INT4, UINT4) and e8m0ToI2AVX2 (INT2, UINT2), which
// e8m0ToInt's lookup of 1 << (x-127) modulo 2^bits gives codes that
// packNibbles or i8ToI2's multiply-adds pack, 32 source bytes a step. (The AVX2 route through the 256-entry table, sixteen
// VPSHUFB and fifteen VPBLENDVB, and the pack ran at 0.08× copy().)
func e8m0Packed(a *Asm) {
	for _, bits := range []int{4, 2} {
		per := 8 / bits // source bytes per result byte
		a.Func(fmt.Sprintf("e8m0ToI%dAVX2", bits), AVX2, "func(dst *uint8, src *uint8, n int)",
			fmt.Sprintf("n counts groups of %d source bytes, a multiple of %d (gen/amd64 e8m0Packed).", per, 32/per))
		dst, src, n := a.Args()
		var codes [32]byte
		for i := range 16 {
			codes[i] = byte((1 << i) & (1<<bits - 1))
			codes[16+i] = codes[i]
		}
		tab := a.ConstBytes(fmt.Sprintf("e8m0codes%d", bits), codes[:])
		b8 := a.splat8
		var nc nibbleConsts
		var w14, w116 Op
		var nw func(x VecVirtual) VecVirtual
		if bits == 4 {
			nc = a.nibbleConsts()
		} else {
			w14, w116 = a.Splat(0x04010401), a.Splat(0x00100001)
			nw = a.narrower(32, 8)
		}
		a.Stream(Loop{SrcSize: per, DstSize: 1, Lanes: 32 / per, Unroll: 2}, dst, src, n, Each(32/per, func(s *Step) {
			x := a.Vec()
			a.VMOVDQU(s.Src, x)
			a.VPSUBB(b8(127), x, x)
			a.VPADDUSB(b8(0x70), x, x)
			a.VPSHUFB(x, tab, x)
			if bits == 4 {
				s.StoreLow(a.packNibbles(nc, x), 16, s.Dst, 8, nil)
				return
			}
			a.VPMADDUBSW(w14, x, x) // as i8ToI2
			a.VPMADDWD(w116, x, x)
			s.StoreLow(nw(x), 8, s.Dst, 8, nil)
		}))
	}
}

// int8F4 emits the AVX2 kernels of INT8 and UINT8 → FLOAT4E2M1
// (i8ToF4AVX2, u8ToF4AVX2): every magnitude from 6 on saturates to 6 (code
// 7), so min(|x|, 7) indexes a VPSHUFB table of the codes of 0..7, computed
// here from the format's grid (0, 0.5, 1, 1.5, 2, 3, 4, 6; to nearest
// even), the sign is bit 3 of the code (an integer is never -0), and
// packNibbles packs the codes; n counts pairs of source bytes, a multiple
// of 16. (The AVX2 route through the 256-entry table ran at 0.08× copy().)
func int8F4(a *Asm) {
	var codes [32]byte
	for v := range 8 {
		codes[v], codes[16+v] = f4Code(float64(v)), f4Code(float64(v))
	}
	for _, from := range int8F4Sources {
		a.Func(from.name+"ToF4AVX2", AVX2, "func(dst *uint8, src *uint8, n int)", "n counts pairs of source elements, a multiple of 16 (gen/amd64 int8F4).")
		dst, src, n := a.Args()
		tab := a.ConstBytes("f4codes", codes[:])
		seven, eight := a.Splat(0x07070707), a.Splat(0x08080808)
		zero := a.Vec()
		a.VPXOR(zero, zero, zero)
		nc := a.nibbleConsts()
		bytes := saturatedBytes(a, from)
		a.Stream(Loop{SrcSize: 2 * from.size, DstSize: 1, Lanes: 16, Unroll: 32 / from.size / 16}, dst, src, n, Each(16, func(s *Step) {
			x, c := bytes(s.Src), a.Vec()
			if from.signed {
				a.VPABSB(x, c) // -128 gives 0x80, above 7 as an unsigned byte
				a.VPMINUB(seven, c, c)
			} else {
				a.VPMINUB(seven, x, c)
			}
			a.VPSHUFB(c, tab, c)
			if from.signed {
				a.VPCMPGTB(x, zero, x) // x < 0
				a.VPAND(eight, x, x)
				a.VPOR(x, c, c)
			}
			s.StoreLow(a.packNibbles(nc, c), 16, s.Dst, 8, nil)
		}))
	}
}

// int8F4Sources are int8F4's sources: the 8-bit integers, and the 32- and
// 64-bit ones, whose codes are those of their values saturated to 8 bits
// (FLOAT4E2M1 saturates at 6, and every integer of magnitude 7 or more
// gives ±6's code).
var int8F4Sources = []int8F4Source{
	{"i8", "Int8", 1, true}, {"u8", "Uint8", 1, false},
	{"i32", "Int32", 4, true}, {"u32", "Uint32", 4, false},
	{"i64", "Int64", 8, true}, {"u64", "Uint64", 8, false},
}

// int8F4Source is a source of int8F4: its names, bytes and signedness.
type int8F4Source struct {
	name, goName string
	size         int
	signed       bool
}

// saturatedBytes returns the loader of 32 elements at m as bytes, in order,
// each saturated to the signed byte range: the 32-bit integers by
// VPACKSSDW and VPACKSSWB, in the lane order that packDB4's VPERMD
// restores; the 64-bit ones clamped to ±2^24 and narrowed to 32 bits first
// (clamp64). 8-bit sources load as is. UINT32 needs no clamp of its own:
// its values from 2^31 saturate to negative bytes, which the unsigned
// sources' VPMINUB with 7 reads as 0x80 or more, like 127, so every value
// from 7 up gives 6's code.
func saturatedBytes(a *Asm, from int8F4Source) func(m Mem) VecVirtual {
	if from.size == 1 {
		return func(m Mem) VecVirtual {
			x := a.Vec()
			a.VMOVDQU(m, x)
			return x
		}
	}
	order := a.packOrder()
	var load64 func(m Mem, x VecVirtual)
	if from.size == 8 {
		load64 = clamp64(a, from.signed)
	}
	return func(m Mem) VecVirtual {
		var v [4]VecVirtual
		for i := range v {
			v[i] = a.Vec()
			if from.size == 8 {
				load64(m.Offset(64*i), v[i])
				continue
			}
			a.VMOVDQU(m.Offset(32*i), v[i])
		}
		a.VPACKSSDW(v[1], v[0], v[0])
		a.VPACKSSDW(v[3], v[2], v[2])
		a.VPACKSSWB(v[2], v[0], v[0])
		a.VPERMD(v[0], order, v[0])
		return v[0]
	}
}

// e8m0F4 emits e8m0ToF4AVX2, FLOAT8E8M0 → FLOAT4E2M1 as e8m0Packed's
// lookups: 2^(x-127) has a code other than 0 and 6's only for x in
// 126..129, so min(x, 130) - 126 indexes a table of 5 codes (the smaller x
// wrap to bytes that VPSHUFB reads as 0); NaN, 0xFF, is FLOAT4E2M1's NaN
// code 0x8 (the reference's -0). n counts pairs of source bytes, a
// multiple of 16.
func e8m0F4(a *Asm) {
	const lo, hi = 126, 130
	var codes [32]byte
	for x := range 255 {
		c := f4Code(math.Ldexp(1, x-127))
		switch {
		case x < lo && c != 0, x > hi && c != 7:
			panic(fmt.Sprintf("e8m0F4: 2^%d has the code %d", x-127, c))
		case x >= lo && x <= hi:
			codes[x-lo], codes[16+x-lo] = c, c
		}
	}
	a.Func("e8m0ToF4AVX2", AVX2, "func(dst *uint8, src *uint8, n int)", "n counts pairs of source bytes, a multiple of 16 (gen/amd64 e8m0F4).")
	dst, src, n := a.Args()
	tab := a.ConstBytes("e8m0f4codes", codes[:])
	b8 := a.splat8
	ones := a.AllOnes()
	nc := a.nibbleConsts()
	a.Stream(Loop{SrcSize: 2, DstSize: 1, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
		x, c := a.Vec(), a.Vec()
		a.VMOVDQU(s.Src, x)
		a.VPMINUB(b8(hi), x, c)
		a.VPSUBB(b8(lo), c, c)
		a.VPADDUSB(b8(0x70), c, c)
		a.VPSHUFB(c, tab, c)
		a.VPCMPEQB(ones, x, x) // NaN
		a.VPBLENDVB(x, b8(0x08), c, c)
		s.StoreLow(a.packNibbles(nc, c), 16, s.Dst, 8, nil)
	}))
}

// f8WindowPlan is f8Windows' description of a float8 type → an integer
// target of bits ≤ 8: the truncations of the magnitudes 0..127 modulo
// 2^bits (NaN, Inf: 0, as the reference has them), which are 0 outside
// [lo, lo + 16·windows). planF8Windows' ok is false where the type's
// negative bytes are not the negated codes of their magnitudes (VPSIGNB's
// rule) or where more windows than maxF8Windows allows would be needed.
type f8WindowPlan struct {
	bits, lo, windows int
	mags              [128]byte
}

// pad is the byte f8Windows adds, with saturation, to a magnitude less lo:
// 0x80 - 16·windows, which puts every magnitude past the windows at 0x80
// or more (VPSHUFB's zero; those below lo wrapped there already) and
// window w at 0x80 - 16·(windows - w): bits 4..6 of the index count the
// windows down from 7.
func (p f8WindowPlan) pad() int { return 0x80 - 16*p.windows }

// maxF8Windows bounds f8Windows' cost, 3 + 2·windows - 1 + ⌈log2
// windows⌉ instructions per 32 bytes before any packing (load, mask,
// subtraction, addition, the lookups, the blends and their shifts; sign,
// store), where it measured faster than f8Mul's 20: three windows for the
// byte targets (E5M2, E5M2FNUZ → INT8/UINT8: 0.36 → 0.47× on Zen 4 with
// the windows or'ed, 15 instructions; blended, 13, 1.03–1.19× that, Zen 3,
// best of four runs at 16 Ki), two for the packed ones (E5M2 → INT4/UINT4).
// Four windows (E4M3FNUZ → INT8, the E4M3 types → INT4) and five (E4M3FN
// → INT8) measured 0.66–0.90× f8Mul's speed blended (Zen 3), three before
// packing (the E4M3 types → INT2) 0.87–1.02×.
func maxF8Windows(bits int) int {
	if bits == 8 {
		return 3
	}
	return 2
}

func planF8Windows(typ string, bits int) (p f8WindowPlan, ok bool) {
	f := f8FormatNamed(typ)
	mask := byte(1<<bits - 1)
	trunc := func(b int) byte {
		v := f.decode(byte(b))
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
		return byte(int64(math.Trunc(v))) & mask
	}
	hi := -1
	p.bits, p.lo = bits, -1
	for m := range 128 {
		p.mags[m] = trunc(m)
		if trunc(m|0x80) != -p.mags[m]&mask {
			return p, false
		}
		if p.mags[m] != 0 {
			if p.lo < 0 {
				p.lo = m
			}
			hi = m
		}
	}
	p.windows = (hi - p.lo + 16) / 16
	if p.lo < 0 || p.windows > maxF8Windows(bits) {
		return p, false
	}
	// Replay the kernel's arithmetic on every byte (as f8MulPlan does): a
	// plan that gives another code stops the generator.
	for b := range 256 {
		var r byte
		k := byte(b&0x7F) - byte(p.lo)                       // VPSUBB
		if idx := min(int(k)+p.pad(), 0xFF); idx&0x80 == 0 { // VPADDUSB, VPSHUFB's zeroing bit
			w := idx>>4 - (8 - p.windows) // the leaf the blends pick
			if m := p.lo + 16*w + idx&15; m < 128 {
				r = p.mags[m]
			}
		}
		if int8(b) < 0 { // VPSIGNB
			r = -r
		}
		if r&mask != trunc(b) {
			panic(fmt.Sprintf("f8Windows %s → %d bits: byte %#02x gives %#x, want %#x", typ, bits, b, r&mask, trunc(b)))
		}
	}
	return p, true
}

// f8Windows emits a float8 type → INT8/UINT8 kernel, or → the packed
// integers (f8Mul's contract: 32 bytes of dst a step, packed by
// packConsts), by e8m0ToInt's windows, several of them, on the magnitude:
// each window of 16 magnitudes is one VPSHUFB table, all indexed by the
// magnitude less the first window's start plus pad (a wrapping
// subtraction, then an addition with saturation), which pushes the bytes
// outside every window to VPSHUFB's zeroing bit 7 and leaves the window in
// bits 4..6; VPBLENDVB picks among the windows' lookups by those bits (a
// tree, one level a bit, each bit shifted to bit 7 by VPSLLW; one blend
// fewer than windows), and VPSIGNB negates the result where the source
// byte is negative (two's complement modulo 2^bits is the wrapped
// truncation of the negated value). The E5M2 types need three windows to
// INT8 (their values from 1 to below 2^10, whose truncation is not 0
// modulo 256): 13 instructions per 32 bytes against f8Mul's 20.
func f8Windows(a *Asm, typ string, p f8WindowPlan, dst, src, n GPVirtual) {
	b8 := a.splat8
	tabs := make([]VecVirtual, p.windows)
	for w := range tabs {
		var t [32]byte
		for j := range 16 {
			if m := p.lo + 16*w + j; m < 128 {
				t[j], t[16+j] = p.mags[m], p.mags[m]
			}
		}
		tabs[w] = a.ConstBytes(fmt.Sprintf("%s_win%d_%d", typ, p.bits, w), t[:])
	}
	codes := func(m Mem) VecVirtual {
		x, k := a.Vec(), a.Vec()
		a.VMOVDQU(m, x)
		a.VPAND(b8(0x7F), x, k)
		a.VPSUBB(b8(uint8(p.lo)), k, k)
		if pad := p.pad(); pad > 0 {
			a.VPADDUSB(b8(uint8(pad)), k, k)
		}
		// leaves[i] is the lookup of the indexes whose bits 4..6 are i: the
		// window i - (8 - windows), for the top windows leaves; each level
		// of blends halves them by one bit of the index, moved to bit 7.
		leaves := make([]VecVirtual, 8)
		for w, t := range tabs {
			r := a.Vec()
			a.VPSHUFB(k, t, r)
			leaves[8-p.windows+w] = r
		}
		for bit := 4; len(leaves) > 1; bit++ {
			var sel VecVirtual
			next := make([]VecVirtual, len(leaves)/2)
			for i := range next {
				lo, hi := leaves[2*i], leaves[2*i+1]
				if lo == nil { // the unused leaves are the low ones
					next[i] = hi
					continue
				}
				if sel == nil {
					sel = a.Vec()
					a.VPSLLW(U8(7-bit), k, sel) // bit 7 of each byte: the index's bit
				}
				a.VPBLENDVB(sel, hi, lo, lo)
				next[i] = lo
			}
			leaves = next
		}
		r := leaves[0]
		a.VPSIGNB(x, r, r)
		return r
	}
	if p.bits == 8 {
		a.Stream(Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(st *Step) {
			st.Store(codes(st.Src), st.Dst, 8, nil)
		})
		return
	}
	pk := a.packConsts(p.bits)
	a.Stream(Loop{SrcSize: 8 / p.bits, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(st *Step) {
		st.Store(pk.pack(func(i int) VecVirtual { return codes(st.Src.Offset(32 * i)) }), st.Dst, 8, nil)
	})
}
