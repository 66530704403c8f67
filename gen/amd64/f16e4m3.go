package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f16ToE4M3 emits the AVX-512 (VBMI) FLOAT16 → FLOAT8E4M3FN and →
// FLOAT8E4M3FNUZ kernel on bytes, 64 per instruction. Each word x of the
// input is shifted left by one (the sign leaves it), and two VPERMT2B
// gather, for 64 elements, H = the high byte of x<<1 (FLOAT16's 5 exponent
// bits and the top 3 mantissa bits: the float8 code's own layout with
// FLOAT16's bias) and L = the low byte (the 7 mantissa bits below, shifted
// left by one); a third gathers the raw high bytes for the sign. About 24
// instructions per 64 elements, where the kernel on 16-bit lanes took 36.
//
// Normal results (H at or above the smallest normal's Hmn = 8(16 - bias)):
// code = H - 8(15 - bias) + inc, where inc rounds to nearest even:
// L + 0x7F + (H&1) carries out of the byte. VPAVGB(L, 0x7E | H&1) holds
// that carry in bit 7 (its 9-bit sum, halved), VPMOVB2M takes it to a
// mask, and the subtraction, saturated at 0, is of 8(15 - bias) or one
// less where the mask is set; VPMINUB clamps to p's overflow byte (±Inf,
// H = 0xF8 and L = 0, too).
//
// Subnormal results (H in [Hmn - 32, Hmn), the four FLOAT16 binades that
// can give a code other than 0; below them the saturated subtraction gives
// 0): the grid of the float8 subnormals is 2^6 or more FLOAT16 units, at
// least one bit of H, so the code depends only on H and whether L is not
// zero, nz: a 64-entry table indexed by 2H + nz (VPERMB reads its low six
// bits, which are distinct over the window), merged where H - (Hmn - 32) is
// below 32. e4m3SubnormalTable builds it from the format's definition and
// checks it against every FLOAT16 of the window.
//
// NaN (H > 0xF8, or H = 0xF8 and nz: H + nz > 0xF8) takes p's nan byte,
// in the loops where it is not the overflow byte (saturate = 1); where it
// is, the clamp gives it already.
//
// The sign is or'ed in last (FLOAT8E4M3FN: NaN becomes 0xFF, as the
// reference has it); FLOAT8E4M3FNUZ has no negative zero, so its codes 0
// are cleared after (VPTESTMB, a zeroing move); its NaN 0x80 has the sign
// bit already. f16ToE4M3BytesAVX2 is the same algorithm on AVX2.
func f16ToE4M3(a *Asm) {
	a.Func("f16ToE4M3AVX512", AVX512, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
		"converts n FLOAT16 to FLOAT8E4M3FN or FLOAT8E4M3FNUZ (p.signedZero = 0) with p's overflow and nan bytes.")
	f16ToE4M3BytesAVX512(a)
	a.Func("f16ToE4M3AVX2", AVX2, "func(dst *uint8, src *uint16, n int, p *[8]uint32)",
		"converts n FLOAT16 to FLOAT8E4M3FN or FLOAT8E4M3FNUZ as p describes. n is a multiple of 32.")
	f16ToE4M3BytesAVX2(a)
}

func f16ToE4M3BytesAVX512(a *Asm) {
	k := a.f8BytesArgs()
	dst, src, n, p, limit, nanB, sgn, odd, even := k.dst, k.src, k.n, k.p, k.limit, k.nan, k.sgn, k.odd, k.even
	one, halfLo := a.Const8(1), a.Const8(0x7E)
	nanT, span := a.Const8(0xF8), a.Const8(32)

	// The constants of both types, before the branches to the four loops
	// (FNUZ or not, and whether NaN needs its own step).
	type consts struct{ t, adj, adj1, lo VecVirtual }
	var cs [2]consts
	for i, e := range e4m3Types {
		cs[i] = consts{a.ConstBytes(e.tableName, e.byH), a.Const8(e.adj), a.Const8(e.adj - 1), a.Const8(e.lo)}
	}
	o, nb := a.GP32(), a.GP32()
	a.MOVBLZX(Mem{Base: p, Disp: f8Overflow}, o)
	a.MOVBLZX(Mem{Base: p, Disp: f8NaN}, nb)
	a.CMPL(Mem{Base: p, Disp: f8SignedZero}, U8(0))
	a.JE(LabelRef("fnuz"))
	a.CMPL(o, nb)
	a.JE(LabelRef("fn_clamped"))
	for i, fnuz := range []bool{false, true} {
		if fnuz {
			a.Label("fnuz")
			a.CMPL(o, nb)
			a.JE(LabelRef("fnuz_clamped"))
		}
		t, adj, adj1, lo := cs[i].t, cs[i].adj, cs[i].adj1, cs[i].lo
		for _, clamped := range []bool{false, true} {
			label := "fn_"
			if fnuz {
				label = "fnuz_"
			}
			if clamped {
				label += "clamped"
				a.Label(label)
				label += "_"
			}
			a.StreamNamed(label, Loop{SrcSize: 2, DstSize: 1, Lanes: 64, Unroll: 1}, dst, src, n, func(st *Step) {
				var xs, ys [2]VecVirtual
				for h := range 2 {
					xs[h], ys[h] = a.Vec(), a.Vec()
					a.VLoad(xs[h], st.Src.Offset(64*h), 16, st.M(1, 32*h))
					a.VPSLLW(U8(1), xs[h], ys[h])
				}
				hi, low := a.Vec(), ys[0]
				a.VMOVDQA64(odd, hi)
				a.VPERMI2B(ys[1], ys[0], hi) // H
				a.VPERMT2B(ys[1], even, low) // L
				sign := xs[0]
				a.VPERMT2B(xs[1], odd, sign) // the raw high bytes
				// Normal results.
				q, g, c, up := a.Vec(), a.Vec(), a.Vec(), a.K()
				a.VMOVDQA64(halfLo, q)
				a.VPTERNLOGD(Tern(func(q, h, o uint8) uint8 { return h&o | q }), one, hi, q)
				a.VPAVGB(q, low, g)
				a.VPMOVB2M(g, up) // inc
				a.VPSUBUSB(adj, hi, c)
				a.VPSUBUSB(adj1, hi, up, c)
				a.VPMINUB(limit, c, c)
				// Subnormal results, out of line where the block has any
				// (as on AVX2 below; here the lookup is three instructions:
				// E4M3FN/E4M3FNUZ 0.57–0.63 → 0.60–0.65× copy(), Zen 4).
				nz, w := a.Vec(), a.Vec()
				a.VPMINUB(one, low, nz)
				a.VPSUBB(lo, hi, w)
				sub := a.K()
				a.VPCMPUB(U8(cmpLT), span, w, sub)
				a.KORTESTQ(sub, sub)
				a.divert(func() {}, func() {
					idx := a.Vec()
					a.VPADDB(hi, hi, idx)
					a.VPORD(nz, idx, idx)
					a.VPERMB(t, idx, sub, c)
				})
				if !clamped {
					// NaN, out of line for a block with ±Inf or NaN (H ≥
					// 0xF8): 6–11% faster on finite inputs (Zen 4, 64 Ki).
					top := a.K()
					a.VPCMPUB(U8(cmpGE), nanT, hi, top)
					a.KORTESTQ(top, top)
					a.divert(func() {}, func() {
						tn, isNaN := a.Vec(), a.K()
						a.VPADDUSB(nz, hi, tn)
						a.VPCMPUB(U8(cmpGT), nanT, tn, isNaN)
						a.VMOVDQU8(nanB, isNaN, c)
					})
				}
				a.signBytes(c, sign, sgn, fnuz)
				st.Store(c, st.Dst, 8, st.M(1, 0))
			})
		}
	}
}

// e4m3Type is one of the two targets of the FLOAT16 → E4M3 byte kernels
// (f16ToE4M3BytesAVX512, f16ToE4M3BytesAVX2), with what both derive from
// its bias.
type e4m3Type struct {
	name      string // "fn" or "fnuz", in labels
	tableName string // the subnormal table's data symbol
	adj       uint8  // 8(15 - bias): H less adj is the normal code
	lo        uint8  // Hmn - 32, Hmn = 8(16 - bias): the subnormal window's first H
	byH       []byte // the subnormal codes by (2H + nz) & 63 (VPERMB's index)
	byW       []byte // the same by 2w + nz, w = H - lo (VPSHUFB's: bit 7 clear)
}

// e4m3Types are FLOAT8E4M3FN (bias 7) and FLOAT8E4M3FNUZ (bias 8).
var e4m3Types = func() (ts [2]e4m3Type) {
	for i, name := range []string{"fn", "fnuz"} {
		bias := 7 + i
		hmn := 8 * (16 - bias)
		t := e4m3Type{name: name, tableName: "e4m3" + name + "subnormals", adj: uint8(8 * (15 - bias)), lo: uint8(hmn - 32)}
		t.byH = e4m3SubnormalTable(bias)
		t.byW = make([]byte, 64)
		for j := range t.byW {
			t.byW[j] = t.byH[(j+2*(hmn-32))&63]
		}
		ts[i] = t
	}
	return ts
}()

// e4m3SubnormalTable is f16ToE4M3's table for the E4M3 type of the given
// bias: entry (2H + nz) & 63 holds the code (FLOAT8E4M3FN and FNUZ alike:
// the sign comes after) of every FLOAT16 magnitude a with H = a>>7 in the
// window [Hmn - 32, Hmn) and nz = (a & 0x7F != 0), rounded to nearest even
// on the subnormal grid 2^(-2-bias) (the smallest normal's code, 8, where
// it rounds up to it). It panics unless every such a rounds as its entry.
func e4m3SubnormalTable(bias int) []byte {
	hmn := 8 * (16 - bias)
	code := func(a int) byte { return byte(math.RoundToEven(math.Ldexp(f16Value(a), 2+bias))) }
	b := make([]byte, 64)
	for h := hmn - 32; h < hmn; h++ {
		b[(2*h)&63], b[(2*h+1)&63] = code(h<<7), code(h<<7|1)
	}
	for a := (hmn - 32) << 7; a < hmn<<7; a++ {
		h, nz := a>>7, 0
		if a&0x7F != 0 {
			nz = 1
		}
		if j := (2*h + nz) & 63; b[j] != code(a) {
			panic(fmt.Sprintf("e4m3SubnormalTable(%d): %#x rounds to %#x, its entry %d holds %#x", bias, a, code(a), j, b[j]))
		}
	}
	return b
}

// f8Bytes holds what the float8 kernels on bytes (f16ToE4M3,
// bf16ToF8Bytes) set up first: the arguments, p's overflow and nan bytes
// and the sign bit in every byte, and the VPERMT2B indices of the high
// (odd) and low (even) bytes of two vectors of words.
type f8Bytes struct {
	dst, src, n, p             GPVirtual
	limit, nan, sgn, odd, even VecVirtual
}

func (a *Asm) f8BytesArgs() f8Bytes {
	a.Needs("AVX512VBMI") // VPERMB, VPERMI2B, VPERMT2B
	var k f8Bytes
	k.dst, k.src, k.n = a.Args()
	k.p = a.GP64()
	a.Context.Load(a.Param("p"), k.p)
	k.limit = a.paramByte(Mem{Base: k.p, Disp: f8Overflow})
	k.nan = a.paramByte(Mem{Base: k.p, Disp: f8NaN})
	k.sgn = a.Const8(0x80)
	k.odd, k.even = a.ConstBytes("oddbytes", seq8(1, 2, 64)), a.ConstBytes("evenbytes", seq8(0, 2, 64))
	return k
}

// signBytes ors the sign bit of each byte of hi into the code c (sgn: 0x80
// in every byte); with fnuz, codes 0 stay 0 (the FNUZ types have no -0;
// their NaN, 0x80, has the sign bit already).
func (a *Asm) signBytes(c, hi, sgn VecVirtual, fnuz bool) {
	or := Tern(func(c, x, m uint8) uint8 { return c | x&m })
	if !fnuz {
		a.VPTERNLOGD(or, sgn, hi, c)
		return
	}
	nz := a.K()
	a.VPTESTMB(c, c, nz)
	a.VPTERNLOGD(or, sgn, hi, c)
	a.VMOVDQU8_Z(c, nz, c)
}

// f16ToE4M3BytesAVX2 is f16ToE4M3's algorithm on AVX2, 32 bytes a vector:
// VPSHUFB splits each vector of words into its low and high bytes per
// 128-bit lane and VPUNPCKLQDQ/VPUNPCKHQDQ pair them (the lanes' order, as
// VPACKSSWB's for the signs, is undone by one VPERMQ at the end); the carry
// of VPAVGB becomes a mask by a signed compare, and the 64-entry subnormal
// table is four 16-entry VPSHUFB tables, picked by bits 4 and 5 of the index
// (moved to bit 7 by word shifts, for VPBLENDVB). NaN and the window are
// unsigned compares by VPMAXUB/VPMINUB and VPCMPEQB.
func f16ToE4M3BytesAVX2(a *Asm) {
	dst, src, n := a.Args()
	p := a.GP64()
	a.Context.Load(a.Param("p"), p)
	b8 := a.splat8
	limit, nanB := a.paramByte(Mem{Base: p, Disp: f8Overflow}), a.paramByte(Mem{Base: p, Disp: f8NaN})
	split := make([]byte, 32)
	for l := range 2 {
		for i := range 8 {
			split[16*l+i], split[16*l+8+i] = byte(2*i), byte(2*i+1)
		}
	}
	splitM := a.DataBytes("splitbytes16", split)
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	o, nb := a.GP32(), a.GP32()
	a.MOVBLZX(Mem{Base: p, Disp: f8Overflow}, o)
	a.MOVBLZX(Mem{Base: p, Disp: f8NaN}, nb)
	a.CMPL(Mem{Base: p, Disp: f8SignedZero}, U8(0))
	a.JE(LabelRef("fnuz"))
	for i, e := range e4m3Types {
		fnuz, name := i == 1, e.name
		if fnuz {
			a.Label("fnuz")
		}
		// The table by 2w + nz (e.byW), four 16-byte VPSHUFB tables.
		var ts [4]VecVirtual
		for j := range ts {
			q := e.byW[16*j : 16*j+16]
			ts[j] = a.ConstBytes(fmt.Sprintf("%s%d", e.tableName, j), append(append([]byte{}, q...), q...))
		}
		adj, lo := b8(e.adj), b8(e.lo)
		a.CMPL(o, nb)
		a.JE(LabelRef(name + "_clamped"))
		for _, clamped := range []bool{false, true} {
			label := name + "_"
			if clamped {
				a.Label(name + "_clamped")
				label = name + "_clamped_"
			}
			a.StreamNamed(label, Loop{SrcSize: 2, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(st *Step) {
				var xs, ys [2]VecVirtual
				for h := range 2 {
					xs[h], ys[h] = a.Vec(), a.Vec()
					a.VMOVDQU(st.Src.Offset(32*h), xs[h])
					a.VPSLLW(U8(1), xs[h], ys[h])
					a.VPSHUFB(splitM, ys[h], ys[h])
				}
				hi, low := a.Vec(), a.Vec()
				a.VPUNPCKHQDQ(ys[1], ys[0], hi)  // H
				a.VPUNPCKLQDQ(ys[1], ys[0], low) // L
				sign := xs[0]
				a.VPACKSSWB(xs[1], xs[0], sign)
				// Normal results.
				q, c := a.Vec(), a.Vec()
				a.VPAND(b8(1), hi, q)
				a.VPOR(b8(0x7E), q, q)
				a.VPAVGB(q, low, q)
				a.VPCMPGTB(q, zero, q) // -1 where the carry (bit 7) is set
				a.VPADDB(adj, q, q)
				a.VPSUBUSB(q, hi, c)
				a.VPMINUB(limit, c, c)
				// NaN (never in the subnormal window, so merged first).
				nz, w, idx := a.Vec(), a.Vec(), a.Vec()
				a.VPMINUB(b8(1), low, nz)
				if !clamped {
					t, isNaN := a.Vec(), a.Vec()
					a.VPADDUSB(nz, hi, t)
					a.VPMAXUB(b8(0xF9), t, isNaN)
					a.VPCMPEQB(t, isNaN, isNaN)
					a.VPBLENDVB(isNaN, nanB, c, c)
				}
				// Subnormal results, out of line: a block without any (zero
				// is not one: the normal step gives it 0) skips their
				// fifteen instructions. Zen 4, 64 Ki elements, normally
				// distributed inputs (a block in three holds one): FLOAT16
				// → E4M3FN/E4M3FNUZ 0.33–0.34 → 0.43–0.44× copy() (AVX2 tier,
				// three runs side by side).
				a.VPSUBB(lo, hi, w)
				win := a.Vec()
				a.VPMINUB(b8(31), w, win)
				a.VPCMPEQB(w, win, win)
				a.VPTEST(win, win)
				a.divert(func() {}, func() {
					a.VPADDB(w, w, idx)
					a.VPADDB(nz, idx, idx)
					s4, r, r1 := a.Vec(), a.Vec(), a.Vec()
					a.VPSLLW(U8(3), idx, s4) // bit 4 to bit 7
					a.VPSHUFB(idx, ts[0], r)
					a.VPSHUFB(idx, ts[1], r1)
					a.VPBLENDVB(s4, r1, r, r)
					r2, r3 := a.Vec(), a.Vec()
					a.VPSHUFB(idx, ts[2], r2)
					a.VPSHUFB(idx, ts[3], r3)
					a.VPBLENDVB(s4, r3, r2, r2)
					a.VPSLLW(U8(2), idx, idx) // bit 5 to bit 7
					a.VPBLENDVB(idx, r2, r, r)
					a.VPBLENDVB(win, r, c, c)
				})
				// The sign.
				a.VPAND(b8(0x80), sign, sign)
				if fnuz {
					a.VPSIGNB(c, sign, sign) // none where c = 0 (no -0); NaN's 0x80 reads as negative, and -0x80 = 0x80
				}
				a.VPOR(sign, c, c)
				a.VPERMQ(U8(0b11_01_10_00), c, c)
				st.Store(c, st.Dst, 8, nil)
			})
		}
	}
}
