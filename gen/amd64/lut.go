package amd64

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Table lookups of 8-bit sources (lut8: dst[i] = table[src[i]] with byte
// entries, lut16 with 16-bit entries) and FLOAT16 ↔ BFLOAT16.
//
// AVX-512 (with VBMI): a 256-byte plane sits in four registers; a lookup is
// two VPERMI2B on the low 7 bits of the index (each a 128-byte table) and a
// blend on the top bit (VPMOVB2M, VPBLENDMB). lut16 splits its table into
// a plane of low bytes and one of high bytes at the start (VPERMI2B with
// even and odd byte indices, as f8ToF32 does) and interleaves the two
// lookups into words; a VPERMQ first orders the input's quadwords so the
// in-lane unpacks come out in order.
//
// AVX2 has no permute that reaches more than 16 bytes: a lookup is sixteen
// VPSHUFB, one per 16-entry row of the table (indexed by the low nibble),
// and a tree of fifteen VPBLENDVB that picks the row by the high nibble, bit
// 4 first (the blends read bit 7 of each byte, so the index shifted left by
// 3, 2, 1 and 0 provides bits 4..7). lut16 builds the two byte planes in a
// 512-byte buffer of the caller's first (VPSHUFB, VPERMQ), and runs both
// trees on the same masks. The same trees on 64 bytes with k-mask blends
// serve CPUs with AVX-512 but without VBMI (Skylake-X, Cascade Lake), where
// a 512-bit VPSHUFB costs what a 256-bit one does and VPBLENDMB one uop to
// VPBLENDVB's two (by the published tables; no such CPU was at hand).
//
// Measured on the AMD EPYC at hand (family 25 model 17: Zen 4, whose 512-bit
// operations are double-pumped), 64 Ki elements: the VPERMI2B kernels run
// at 1.06× copy() (lut8) and 1.33× copy() of the 16-bit side (lut16); the
// AVX2 trees at 0.15× (7.4 and 3.5 elements per ns, 2.8× and 1.4× the
// generic loops), and the 512-bit trees at 0.9× the AVX2 ones (the tier
// never uses them there, as the CPU has VBMI). A VPGATHERDD kernel for
// lut16 was slower than the tree (3.2 elements per ns). So the AVX2 lut16
// wrapper sends the tables of INT8 and UINT8 → FLOAT16 and BFLOAT16 and
// FLOAT8E5M2 → FLOAT16 to kernels that compute their values
// (intToHalfAVX2, f8ToHalfAVX2: 0.37-1.1× copy()).
func lut(a *Asm) {
	lut8AVX512(a)
	lut16AVX512(a)
	for _, isa := range []ISA{AVX2, AVX512} {
		lutTree(a, isa, false)
		lutTree(a, isa, true)
	}
	intToHalfAVX2(a)
	f8ToHalfAVX2(a)
}

// f8ToHalfAVX2 emits the AVX2 kernel that computes the table of
// FLOAT8E5M2 → FLOAT16 (picked by the table's address as in
// intToHalfAVX2): E5M2 is the high byte of its FLOAT16, with NaNs given
// the mantissa 0b10, the quiet NaN without payload. (The other pairs of
// 8-bit floats → FLOAT16 and BFLOAT16 have f8half.go's kernels, registered
// as tier stages.) The tests compare it with the table, which comes from
// the reference.
func f8ToHalfAVX2(a *Asm) {
	a.Func("e5m2ToF16AVX2", AVX2, "func(dst *uint16, src *uint8, n int)", "n is a multiple of 16.")
	dst, src, n := a.Args()
	abs, nanMin, three := a.Const8(0x7F), a.Const8(0x7C), a.Const8(3)
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
		w := a.Vec() // 16 FLOAT16
		b, m, c := a.XMM(), a.XMM(), a.XMM()
		a.VMOVDQU(s.Src, b)
		a.quietE5M2(b, m, c, abs, nanMin, three)
		a.VPERMQ(U8(0b01_01_00_00), b.AsY(), w)
		a.VPUNPCKLBW(w, zero, w) // in each 128-bit lane: bytes 0..7, then 8..15
		s.Store(w, s.Dst, 16, nil)
	}))
}

// intToHalfAVX2 emits the AVX2 kernels that compute, instead of looking up,
// the tables of INT8 and UINT8 → FLOAT16 and BFLOAT16 (kernel_amd64.go's
// lut16 wrapper picks them by the table's address): every 8-bit integer is
// a float32 (VCVTDQ2PS), a FLOAT16 (VCVTPS2PH, exact) and a BFLOAT16 (the
// high half: at most 8 significant bits), so each is exactly the reference's
// value.
func intToHalfAVX2(a *Asm) {
	for _, t := range []struct {
		name   string
		signed bool
		bf16   bool
	}{{"i8ToF16", true, false}, {"u8ToF16", false, false}, {"i8ToBF16", true, true}, {"u8ToBF16", false, true}} {
		a.Func(t.name+"AVX2", AVX2, "func(dst *uint16, src *uint8, n int)", "n is a multiple of 16.")
		dst, src, n := a.Args()
		a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
			var xs []VecVirtual
			for j := range 2 {
				x := a.Vec()
				if t.signed {
					a.VPMOVSXBD(s.Src.Offset(8*j), x)
				} else {
					a.VPMOVZXBD(s.Src.Offset(8*j), x)
				}
				a.VCVTDQ2PS(x, x)
				if !t.bf16 {
					a.VCVTPS2PH(U8(0), x, x.AsX())
					s.Store(x.AsX().(VecVirtual), s.Dst.Offset(16*j), 16, nil)
					continue
				}
				a.VPSRLD(U8(16), x, x)
				xs = append(xs, x)
			}
			if t.bf16 {
				a.VPACKUSDW(xs[1], xs[0], xs[0])
				a.VPERMQ(U8(0b11_01_10_00), xs[0], xs[0])
				s.Store(xs[0], s.Dst, 16, nil)
			}
		}))
	}
}

// look512 returns the bytes of the 256-byte plane p (four registers) at the
// indices b, whose bit 7 top holds; b is clobbered unless keep.
func (a *Asm) look512(p []VecVirtual, b VecVirtual, top Register, keep bool) VecVirtual {
	x := a.Vec()
	a.VMOVDQA64(b, x)
	a.VPERMI2B(p[1], p[0], x) // entries 0..127 by the low 7 bits
	y := b
	if keep {
		y = a.Vec()
		a.VMOVDQA64(b, y)
	}
	a.VPERMI2B(p[3], p[2], y) // entries 128..255
	a.VPBLENDMB(y, x, top, x)
	return x
}

// tablePlanes loads the 256-byte table at tab into four registers, for
// look512.
func (a *Asm) tablePlanes(tab GPVirtual) []VecVirtual {
	p := make([]VecVirtual, 4)
	for c := range p {
		p[c] = a.Vec()
		a.VMOVDQU64(Mem{Base: tab, Disp: 64 * c}, p[c])
	}
	return p
}

func lut8AVX512(a *Asm) {
	a.Func("lut8AVX512", AVX512, "func(dst *uint8, src *uint8, n int, table *[256]uint8)",
		"sets dst[i] = table[src[i]] for i < n.")
	a.Needs("AVX512VBMI") // VPERMI2B
	dst, src, n := a.Args()
	tab := a.GP64()
	a.Context.Load(a.Param("table"), tab)
	p := a.tablePlanes(tab)
	a.Stream(Loop{SrcSize: 1, DstSize: 1, Lanes: 64, Unroll: 4}, dst, src, n, Each(64, func(s *Step) {
		b, top := a.Vec(), a.K()
		a.VLoad(b, s.Src, 8, s.M(1, 0))
		a.VPMOVB2M(b, top)
		x := a.look512(p, b, top, false)
		s.Store(x, s.Dst, 8, s.M(1, 0))
	}))
}

func lut16AVX512(a *Asm) {
	a.Func("lut16AVX512", AVX512, "func(dst *uint16, src *uint8, n int, table *[256]uint16)",
		"sets dst[i] = table[src[i]] for i < n.")
	a.Needs("AVX512VBMI") // VPERMI2B
	dst, src, n := a.Args()
	tab := a.GP64()
	a.Context.Load(a.Param("table"), tab)
	even8, odd8 := a.ConstBytes("evenbytes", seq8(0, 2, 64)), a.ConstBytes("oddbytes", seq8(1, 2, 64))
	lo, hi := make([]VecVirtual, 4), make([]VecVirtual, 4)
	for j := range 4 { // entries 64j .. 64j+63
		t0, t1 := a.Vec(), a.Vec()
		a.VMOVDQU64(Mem{Base: tab, Disp: 128 * j}, t0)
		a.VMOVDQU64(Mem{Base: tab, Disp: 128*j + 64}, t1)
		lo[j], hi[j] = a.Vec(), a.Vec()
		a.VMOVDQA64(even8, lo[j])
		a.VPERMI2B(t1, t0, lo[j])
		a.VMOVDQA64(odd8, hi[j])
		a.VPERMI2B(t1, t0, hi[j])
	}
	// Quadwords 0 4 1 5 2 6 3 7: 128-bit lane L then holds input bytes
	// 8L.. and 32+8L.., which the unpacks turn into words 8L.. of the
	// first and second output vector. (Interleaving with two two-table
	// VPERMI2B instead, one shuffle fewer, measured 0.84× as fast.)
	order := a.Vec()
	a.VPMOVZXBQ(a.DataBytes("lut16order", []byte{0, 4, 1, 5, 2, 6, 3, 7}), order)
	a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 64, Unroll: 2}, dst, src, n, Each(64, func(s *Step) {
		b, top := a.Vec(), a.K()
		a.VLoad(b, s.Src, 8, s.M(1, 0))
		a.VPERMQ(b, order, b)
		a.VPMOVB2M(b, top)
		l := a.look512(lo, b, top, true)
		h := a.look512(hi, b, top, false)
		w0, w1 := a.Vec(), a.Vec()
		a.VPUNPCKLBW(h, l, w0)
		a.VPUNPCKHBW(h, l, w1)
		s.Store(w0, s.Dst, 16, s.M(1, 0))
		s.Store(w1, s.Dst.Offset(64), 16, s.M(1, 32))
	}))
}

// lutTree emits lut8AVX2 or, with wide, lut16AVX2; on AVX512, the same
// algorithm on 64 bytes at a time with k-mask blends (lut8AVX512BW,
// lut16AVX512BW), for CPUs with AVX-512 but without VBMI.
func lutTree(a *Asm, isa ISA, wide bool) {
	name, lanes := "AVX2", 32
	if isa == AVX512 {
		name, lanes = "AVX512BW", 64
	}
	multiple := fmt.Sprintf(" (a multiple of %d)", lanes)
	if isa == AVX512 {
		multiple = ""
	}
	if wide {
		a.Func("lut16"+name, isa, "func(dst *uint16, src *uint8, n int, table *[256]uint16, planes *[512]byte)",
			"sets dst[i] = table[src[i]] for i < n"+multiple+", using planes",
			"as scratch for the table's low and high bytes.")
	} else {
		a.Func("lut8"+name, isa, "func(dst *uint8, src *uint8, n int, table *[256]uint8)",
			"sets dst[i] = table[src[i]] for i < n"+multiple+".")
	}
	dst, src, n := a.Args()
	tab := a.GP64()
	a.Context.Load(a.Param("table"), tab)
	rows := tab // row h of a plane: 16 bytes at rows + 16h (+ 256 for the high bytes)
	if wide {
		rows = a.GP64()
		a.Context.Load(a.Param("planes"), rows)
		// Each 32-byte piece of the table (16 entries): VPSHUFB gathers the
		// low bytes of each 128-bit lane in its low 8 bytes and the high
		// bytes above them, VPERMQ puts the low bytes of both lanes in the
		// low lane.
		split := a.YMM()
		a.VMOVDQU(a.DataBytes("splitwords", []byte{
			0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
			0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15}), split)
		for h := range 16 {
			x, u := a.YMM(), a.XMM()
			a.VMOVDQU(Mem{Base: tab, Disp: 32 * h}, x)
			a.VPSHUFB(split, x, x)
			a.VPERMQ(U8(0b11_01_10_00), x, x)
			a.VMOVDQU(x.AsX(), Mem{Base: rows, Disp: 16 * h})
			a.VEXTRACTI128(U8(1), x, u)
			a.VMOVDQU(u, Mem{Base: rows, Disp: 256 + 16*h})
		}
	}
	low := a.Splat(0x0F0F0F0F)
	var order VecVirtual
	if wide && isa == AVX512 {
		order = a.Vec()
		a.VPMOVZXBQ(a.DataBytes("lut16order", []byte{0, 4, 1, 5, 2, 6, 3, 7}), order)
	}
	dsize := 1
	if wide {
		dsize = 2
	}
	a.Stream(Loop{SrcSize: 1, DstSize: dsize, Lanes: lanes, Unroll: 1}, dst, src, n, func(s *Step) {
		b := a.Vec()
		a.VLoad(b, s.Src, 8, s.M(1, 0))
		if wide { // so that the in-lane unpacks below come out in order (see lut16AVX512)
			if isa == AVX512 {
				a.VPERMQ(b, order, b)
			} else {
				a.VPERMQ(U8(0b11_01_10_00), b, b)
			}
		}
		l := a.Vec()
		a.And(low, b, l)
		// Bit 4+i of each byte in its bit 7: a vector for VPBLENDVB, a k
		// mask for VPBLENDMB.
		var vmasks [4]VecVirtual
		var kmasks [4]Register
		for i := range 4 {
			m := b
			if i < 3 {
				m = a.Vec()
				a.VPSLLW(U8(3-i), b, m)
			}
			if isa == AVX512 {
				kmasks[i] = a.K()
				a.VPMOVB2M(m, kmasks[i])
			} else {
				vmasks[i] = m
			}
		}
		planes := 1
		if wide {
			planes = 2
		}
		type node struct {
			v     VecVirtual
			level int
		}
		stacks := make([][]node, planes)
		for h := range 16 {
			for p := range planes {
				t, v := a.Vec(), a.Vec()
				row := Mem{Base: rows, Disp: 256*p + 16*h}
				if isa == AVX512 {
					a.VBROADCASTI32X4(row, t)
				} else {
					a.VBROADCASTI128(row, t)
				}
				a.VPSHUFB(l, t, v)
				nd := node{v, 0}
				st := stacks[p]
				for len(st) > 0 && st[len(st)-1].level == nd.level {
					under := st[len(st)-1]
					st = st[:len(st)-1]
					if isa == AVX512 {
						a.VPBLENDMB(nd.v, under.v, kmasks[nd.level], under.v)
					} else {
						a.VPBLENDVB(vmasks[nd.level], nd.v, under.v, under.v)
					}
					nd = node{under.v, nd.level + 1}
				}
				stacks[p] = append(st, nd)
			}
		}
		if !wide {
			s.Store(stacks[0][0].v, s.Dst, 8, s.M(1, 0))
			return
		}
		lo, hi := stacks[0][0].v, stacks[1][0].v
		w0, w1 := a.Vec(), a.Vec()
		a.VPUNPCKLBW(hi, lo, w0)
		a.VPUNPCKHBW(hi, lo, w1)
		s.Store(w0, s.Dst, 16, s.M(1, 0))
		s.Store(w1, s.Dst.Offset(lanes), 16, s.M(1, lanes/2))
	})
}

// f16BF16 emits the FLOAT16 ↔ BFLOAT16 kernels. Both widen exactly to
// float32 and round once, as the generic kernels do.
//
// FLOAT16 → BFLOAT16: the widened values are normal float32 (FLOAT16's
// smallest subnormal is 2^-24), so VCVTNE2PS2BF16 (AVX512_BF16), which
// flushes subnormal inputs, rounds every one of them as f32ToBF16 does; it
// keeps NaN payloads, which two minimums then remove (one unsigned, one signed). The integer
// kernels replace NaN inputs by sign|0x7C01 first (the magnitude clamped
// with VPMINUW), which VCVTPH2PS widens to sign|0x7FC02000 and the rounding
// of f32ToBF16 takes to sign|0x7FC0, the generic kernel's NaN, with no NaN
// test; no other value changes.
//
// BFLOAT16 → FLOAT16: the float32 bits are the input shifted left by 16,
// and VCVTPS2PH rounds to nearest even with subnormals and overflow to Inf,
// and quiets NaNs keeping their top payload bits, which is f32ToF16 (the
// generic widening's quieting sets the bit VCVTPS2PH sets).
//
// On a Zen 4 EPYC the AVX-512 kernels are bound by the float conversions
// (VCVTPH2PS, VCVTPS2PH, VCVTNE2PS2BF16: about 2.5 per ns together) and by
// shuffles: at 64 Ki elements FLOAT16 → BFLOAT16 (three conversions per 32
// elements) ran at 0.73–0.77× copy(), BFLOAT16 → FLOAT16 at 0.90×; integer
// rounding in place of VCVTNE2PS2BF16 measured slower, and so did 16-bit
// lanes in integer arithmetic alone, the conversions out of line for the
// inputs they do not take (0.70× and 0.79×). One vector in three on those
// lanes, two on the conversions, gives 0.78× and 1.00×.
func f16BF16(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("f16ToBF16"+isa.String(), isa, "func(dst *uint16, src *uint16, n int)")
		a.f16ToBF16(false)
	}
	a.Func("f16ToBF16AVX512BF16", AVX512, "func(dst *uint16, src *uint16, n int)")
	a.Needs("AVX512_BF16") // VCVTNE2PS2BF16
	a.f16ToBF16(true)

	// BFLOAT16 → FLOAT16 on AVX-512, by conv and fast (mix16).
	a.Func("bf16ToF16AVX512", AVX512, "func(dst *uint16, src *uint16, n int)")
	dst, src, n := a.Args()
	// conv: VPERMW with a zeroing mask places each input in the high half
	// of a 32-bit lane, 16 per vector, in order (as bf16ToF32AVX512 does),
	// and VCVTPS2PH rounds; measured faster than VPMOVZXWD and a shift
	// (0.66×), VPERMQ and two unpacks, or shifts and one VPERMT2W after the
	// conversions (0.88×).
	lo, hi := a.ConstWords("pairwords0", seq(0, 1, 2, 32)), a.ConstWords("pairwords16", seq(16, 1, 2, 32))
	oddLanes, g := a.K(), a.GP32()
	a.MOVL(U32(0xAAAAAAAA), g)
	a.KMOVD(g, oddLanes)
	conv := func(s *Step) {
		w := a.Vec()
		a.VLoad(w, s.Src, 16, s.M(1, 0))
		for j, idx := range []VecVirtual{lo, hi} {
			x := a.Vec()
			a.VPERMW_Z(w, idx, oddLanes, x)
			a.VCVTPS2PH(U8(0), x, Half(x))
			s.Store(Half(x), s.Dst.Offset(32*j), 16, s.M(1, 16*j))
		}
	}
	// fast: the same results on 16-bit lanes in integer arithmetic, for
	// every input but those it sends to conv. With a the magnitude, the
	// FLOAT16 is (min(a, 0x4780) - 0x3800, saturated at 0) << 3 with the
	// sign: exact for a in [0x3880, 0x4780), FLOAT16's normal range, where
	// BFLOAT16's 7 significand bits fit in 10; Inf for a ≥ 0x4780 (2^16 and
	// up, and ±Inf: every BFLOAT16 there rounds to Inf); ±0 for a below
	// 0x3300 (below 2^-25, half FLOAT16's smallest subnormal: they round
	// to ±0). The rest, a in [0x3300, 0x3880) (FLOAT16 subnormals, which
	// round) and NaN (a > 0x7F80), take conv, out of line.
	abs, sign := a.Const16(0x7FFF), a.Const16(0x8000)
	inf, bias, tinyLo := a.Const16(0x4780), a.Const16(0x3800), a.Const16(0x3300)
	tinyN, nanT := a.Const16(0x3880-0x3300), a.Const16(0x7F80)
	fast := func(s *Step) {
		w := a.Vec()
		a.VLoad(w, s.Src, 16, nil)
		m, r, t := a.Vec(), a.Vec(), a.Vec()
		a.VPANDD(abs, w, m)
		a.VPMINUW(inf, m, r)
		a.VPSUBUSW(bias, r, r)
		a.VPSLLW(U8(3), r, r)
		a.VPTERNLOGD(Tern(func(r, w, s uint8) uint8 { return r | w&s }), sign, w, r)
		a.VPSUBW(tinyLo, m, t)
		k0, k1 := a.K(), a.K()
		a.VPCMPUW(U8(cmpLT), tinyN, t, k0)
		a.VPCMPUW(U8(cmpGT), nanT, m, k1)
		a.KORTESTD(k0, k1)
		a.divert(func() { s.Store(r, s.Dst, 16, nil) }, func() { conv(s) })
	}
	// mix16 measured 1.00× copy() at 64 Ki elements where conv alone ran
	// at 0.90×, fast alone at 0.79×, one of each at 0.97× and conv on three
	// of four at 0.99× (Zen 4).
	a.mix16(dst, src, n, conv, fast)

	a.Func("bf16ToF16AVX2", AVX2, "func(dst *uint16, src *uint16, n int)", "n is a multiple of 8.")
	dst, src, n = a.Args()
	a.Stream(Loop{SrcSize: 2, DstSize: 2, Lanes: 8, Unroll: 4}, dst, src, n, Each(8, func(s *Step) {
		x := a.YMM()
		a.VPMOVZXWD(s.Src, x)
		a.VPSLLD(U8(16), x, x)
		a.VCVTPS2PH(U8(0), x, x.AsX())
		s.Store(x.AsX().(VecVirtual), s.Dst, 16, nil)
	}))
}

// f16ToBF16Widened is the AVX2 FLOAT16 → BFLOAT16 route for every input
// (f16ToBF16's out-of-line path): the FLOAT16 h (m = its magnitude) with
// NaNs made sign|0x7C01 widens exactly (VCVTPH2PS) and rounds to nearest
// even at 16 bits; it stores the 16 results of s.
func (a *Asm) f16ToBF16Widened(s *Step, h, m VecVirtual, nanMin, sign, one, bias Op) {
	a.VPMINUW(nanMin, m, m)
	a.VPAND(sign, h, h)
	a.VPOR(h, m, m)
	u := a.XMM()
	a.VEXTRACTI128(U8(1), m, u)
	var rs []VecVirtual
	for _, half := range []VecVirtual{m.AsX().(VecVirtual), u} {
		x := a.Vec()
		a.VCVTPH2PS(half, x)
		a.roundBF16(x, one, bias, x)
		rs = append(rs, x)
	}
	a.VPACKUSDW(rs[1], rs[0], rs[0])
	a.VPERMQ(U8(0b11_01_10_00), rs[0], rs[0])
	s.Store(rs[0], s.Dst, 16, nil)
}

// f16ToBF16 emits the body of a FLOAT16 → BFLOAT16 kernel (see f16BF16);
// hw selects VCVTNE2PS2BF16 over the integer rounding.
func (a *Asm) f16ToBF16(hw bool) {
	dst, src, n := a.Args()
	if a.isa == AVX2 {
		abs, nanMin, sign := a.Splat(0x7FFF7FFF), a.Splat(0x7C017C01), a.Splat(0x80008000)
		one, bias := a.Splat(1), a.Splat(0x7FFF)
		w := func(v uint16) Op { return a.Splat(uint32(v) * 0x10001) }
		rebias := a.Const16(0x3800)
		a.Stream(Loop{SrcSize: 2, DstSize: 2, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
			// Fast path, on the FLOAT16 bits (16-bit lanes): with a the
			// magnitude of a normal FLOAT16 or zero, the BFLOAT16 is
			// (a + 3 + (a>>3)&1) >> 3 (nearest even at 3 dropped bits: the
			// average VPAVGW(a, 2 | (a>>3)&1) is the sum over 2, with no
			// overflow) + 0x3800 (rebias 15 → 127; VPSIGNW gives 0 for
			// zero), with the sign. A block of 16 with a subnormal or an
			// Inf or NaN (a - 0x8400 above 0x7C00, or a above 0x7BFF, as
			// signed words) takes the widening route below, out of line.
			h, m := a.Vec(), a.Vec()
			a.VLoad(h, s.Src, 16, nil)
			a.VPAND(abs, h, m)
			q, r, t := a.Vec(), a.Vec(), a.Vec()
			a.VPSRLW(U8(3), m, q)
			a.VPAND(w(1), q, q)
			a.VPOR(w(2), q, q)
			a.VPAVGW(q, m, r)
			a.VPSRLW(U8(2), r, r)
			a.VPSIGNW(m, rebias, t) // 0x3800, or 0 where a = 0
			a.VPADDW(t, r, r)
			a.VPAND(sign, h, t)
			a.VPOR(t, r, r)
			bad := a.Vec()
			a.VPCMPGTW(w(0x7BFF), m, bad) // Inf, NaN
			a.VPADDW(w(0x7C00), m, t)
			a.VPCMPGTW(w(0x7C00), t, t) // subnormal
			a.VPOR(t, bad, bad)
			a.VPTEST(bad, bad)
			a.divert(func() { s.Store(r, s.Dst, 16, nil) }, func() { a.f16ToBF16Widened(s, h, m, nanMin, sign, one, bias) })
		}))
		return
	}
	if hw {
		// VCVTNE2PS2BF16 keeps NaN payloads (quieted): the NaN fix comes
		// after it, so that both conversions read their input from memory
		// (measured faster than fixing the input and splitting it with
		// VEXTRACTI64X4). On the words r, as unsigned, min(r, 0xFFC0) takes
		// the negative NaNs (above 0xFFC0) to 0xFFC0 and leaves every other
		// word; then, as signed, min(r, 0x7FC0) takes the positive NaNs to
		// 0x7FC0 and leaves the rest (every negative word is below it).
		// Two VCVTNEPS2BF16 (ZMM → YMM, each half fixed and stored apart)
		// in place of the one VCVTNE2PS2BF16 measured 0.63–0.70× copy()
		// against 0.73–0.81× (Zen 4, 64 Ki).
		qnan, nqnan := a.Const16(0x7FC0), a.Const16(0xFFC0)
		conv := func(s *Step) {
			x0, x1 := a.Vec(), a.Vec()
			if s.Tail() {
				a.VLoad(Half(x0), s.Src, 16, s.M(1, 0))
				a.VLoad(Half(x1), s.Src.Offset(32), 16, s.M(1, 16))
				a.VCVTPH2PS(Half(x0), x0)
				a.VCVTPH2PS(Half(x1), x1)
			} else {
				a.VCVTPH2PS(s.Src, x0)
				a.VCVTPH2PS(s.Src.Offset(32), x1)
			}
			y := a.Vec()
			a.VCVTNE2PS2BF16(x0, x1, y)
			a.VPMINUW(nqnan, y, y)
			a.VPMINSW(qnan, y, y)
			s.Store(y, s.Dst, 16, s.M(1, 0))
		}
		// fast: AVX2's fast path (f16ToBF16 below) on 32 words, for every
		// input but FLOAT16 subnormals, Inf and NaN, which take conv out of
		// line: with a the magnitude of a normal FLOAT16 or zero, the
		// BFLOAT16 is (a + 3 + (a>>3)&1) >> 3 + 0x3800 (0 where a = 0, a
		// zeroing mask), with the sign; a - 0x400 ≥ 0x7800 (unsigned)
		// where a is not 0 marks the others. The main loop runs conv on two
		// vectors and fast on the third (the units differ): 0.78–0.79×
		// copy() against 0.73–0.76× for conv alone (Zen 4, 64 Ki).
		abs, sign, one, two := a.Const16(0x7FFF), a.Const16(0x8000), a.Const16(1), a.Const16(2)
		rebias, low, span := a.Const16(0x3800), a.Const16(0x400), a.Const16(0x7800)
		fast := func(s *Step) {
			h, m := a.Vec(), a.Vec()
			a.VLoad(h, s.Src, 16, nil)
			a.VPANDD(abs, h, m)
			q, r, t := a.Vec(), a.Vec(), a.Vec()
			a.VPSRLW(U8(3), m, q)
			a.VPTERNLOGD(Tern(func(q, o, k uint8) uint8 { return q&o | k }), two, one, q)
			a.VPAVGW(q, m, r)
			a.VPSRLW(U8(2), r, r)
			nz, bad := a.K(), a.K()
			a.VPTESTMW(m, m, nz)
			a.VPADDW_Z(rebias, r, nz, r)
			a.VPTERNLOGD(Tern(func(r, h, s uint8) uint8 { return r | h&s }), sign, h, r)
			a.VPSUBW(low, m, t)
			a.VPCMPUW(U8(cmpGE), span, t, nz, bad)
			a.KORTESTD(bad, bad)
			a.divert(func() { s.Store(r, s.Dst, 16, nil) }, func() { conv(s) })
		}
		a.mix16(dst, src, n, conv, fast)
		return
	}
	abs, sign := a.Const16(0x7FFF), a.Const16(0x8000)
	nanMin, lsb, bias := a.Const16(0x7C01), a.Const32(0x10000), a.Const32(0x7FFF)
	odd := a.ConstWords("oddwords", seq(1, 2, 1, 32))
	a.Stream(Loop{SrcSize: 2, DstSize: 2, Lanes: 32, Unroll: 2}, dst, src, n, Each(32, func(s *Step) {
		h, m := a.Vec(), a.Vec()
		a.VLoad(h, s.Src, 16, s.M(1, 0))
		a.VPANDD(abs, h, m)
		a.VPMINUW(nanMin, m, m)
		a.VPTERNLOGD(Tern(func(m, h, s uint8) uint8 { return m | h&s }), sign, h, m)
		u := a.YMM()
		a.VEXTRACTI64X4(U8(1), m, u)
		x0, x1 := a.Vec(), a.Vec()
		a.VCVTPH2PS(m.AsY(), x0)
		a.VCVTPH2PS(u, x1)
		for _, x := range []VecVirtual{x0, x1} {
			t := a.Vec()
			a.VPANDD(lsb, x, t)
			a.VPSRLD(U8(16), t, t)
			a.VPADDD(bias, x, x)
			a.VPADDD(t, x, x)
		}
		a.VPERMT2W(x1, odd, x0)
		s.Store(x0, s.Dst, 16, s.M(1, 0))
	}))
}

// lut8Pack emits lut8Pack4AVX512 and lut8Pack2AVX512: lut8's lookup of an
// 8-bit source into the target codes of a packed type (the low 4 or 2 bits
// of each table entry, the rest zero), packed in registers as i8ToI4 and
// i8ToI2 pack them, so the codes never go through memory.
func lut8Pack(a *Asm) {
	for _, bits := range []int{4, 2} {
		per := 8 / bits
		a.Func(fmt.Sprintf("lut8Pack%dAVX512", bits), AVX512, "func(dst *uint8, src *uint8, n int, table *[256]uint8)",
			fmt.Sprintf("packs table[src[i]] for i < %d·n, %d to a byte; n counts groups of %d source bytes.", per, per, per))
		a.Needs("AVX512VBMI") // VPERMI2B
		dst, src, n := a.Args()
		tab := a.GP64()
		a.Context.Load(a.Param("table"), tab)
		p := a.tablePlanes(tab)
		var nc nibbleConsts
		var w14, w116 Op
		if bits == 4 {
			nc = a.nibbleConsts()
		} else {
			w14, w116 = a.Splat(0x04010401), a.Splat(0x00100001)
		}
		lanes := 64 / per // groups per vector of source bytes
		a.Stream(Loop{SrcSize: per, DstSize: 1, Lanes: lanes, Unroll: 2}, dst, src, n, Each(lanes, func(s *Step) {
			b, top := a.Vec(), a.K()
			a.VLoad(b, s.Src, 8, s.M(per, 0))
			a.VPMOVB2M(b, top)
			x := a.look512(p, b, top, false)
			if bits == 4 { // as i8ToI4
				s.StoreLow(a.packNibbles(nc, x), lanes, s.Dst, 8, s.M(1, 0))
				return
			}
			a.VPMADDUBSW(w14, x, x) // as i8ToI2
			a.VPMADDWD(w116, x, x)
			a.VPMOVDB(x, x.AsX())
			s.StoreLow(x.AsX().(VecVirtual), lanes, s.Dst, 8, s.M(1, 0))
		}))
	}
}

// divert runs fast in line, or slow out of line (after the function's RET)
// where the flags the caller just set are not zero (JNZ): the 16-bit
// kernels' integer paths, which send the inputs they do not take to the
// conversions.
func (a *Asm) divert(fast, slow func()) {
	out, back := a.NewLabel("special"), a.NewLabel("back")
	a.JNZ(LabelRef(out))
	fast()
	a.Label(back)
	a.OutOfLine(func() {
		a.Label(out)
		slow()
		a.JMP(LabelRef(back))
	})
}

// mix16 streams an AVX-512 kernel of 32 16-bit elements a vector whose
// main loop runs conv on two vectors and fast on the third, and conv
// elsewhere (fast reads full vectors only). The conversions and the
// integer operations use different units: f16BF16's kernels run faster so
// than on either alone. A vector where fast meets an input it does not
// take costs both.
func (a *Asm) mix16(dst, src, n GPVirtual, conv, fast func(s *Step)) {
	a.Stream(Loop{SrcSize: 2, DstSize: 2, Lanes: 32, Unroll: 3}, dst, src, n, func(s *Step) {
		if s.Lanes == 32 {
			conv(s)
			return
		}
		conv(s.Part(0, 32))
		conv(s.Part(32, 32))
		fast(s.Part(64, 32))
	})
}
