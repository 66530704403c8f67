package amd64

import (
	"fmt"
	"math"

	"github.com/tensorcast/tensorcast/gen/layout"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The float8 conversions. Narrowing follows the float8Params algorithm of
// params.go lane by lane (integer round-to-nearest-even for normal results,
// the FPU's own rounding for subnormal ones); widening looks the bytes up in
// the type's 256-entry table on AVX-512 and computes them on AVX2
// (widen8.go).

// Offsets of the float8Params fields, from its declaration in params.go.
// maxBits is not read: see narrowMag.
var (
	f8Shift      = layout.Offset("float8Params", "shift")
	f8ExpAdjust  = layout.Offset("float8Params", "expAdjust")
	f8MinNormal  = layout.Offset("float8Params", "minNormal")
	f8Magic      = layout.Offset("float8Params", "magic")
	f8Overflow   = layout.Offset("float8Params", "overflow")
	f8NaN        = layout.Offset("float8Params", "nan")
	f8SignedZero = layout.Offset("float8Params", "signedZero")
)

// VPCMPUD/VPCMPD predicates.
const (
	cmpLT = 1
	cmpGE = 5 // not less
	cmpGT = 6 // not less or equal
)

// f8Consts holds what narrowMag needs, loaded once before the loop.
type f8Consts struct {
	cnt                             Op // the shift: an XMM count or an immediate
	lsb                             Op // 1 << shift: the lowest kept bit
	bias                            Op // (1<<shift>>1) - 1 - expAdjust<<shift
	minNormal, magic, overflow, nan Op
	abs, inf                        Op // fixed constants
}

// loadF8 reads *p (a *float8Params) into registers.
func (a *Asm) loadF8(p GPVirtual) *f8Consts {
	c := &f8Consts{abs: a.Splat(0x7FFFFFFF), inf: a.Splat(0x7F800000)}
	field := func(off int) VecVirtual { return a.Splat32(Mem{Base: p, Disp: off}) }
	cnt := a.XMM()
	a.VMOVD(Mem{Base: p, Disp: f8Shift}, cnt)
	c.cnt = cnt
	c.minNormal, c.magic, c.overflow, c.nan = field(f8MinNormal), field(f8Magic), field(f8Overflow), field(f8NaN)
	ones, lsb, bias := a.AllOnes(), a.Vec(), a.Vec()
	a.VPSRLD(U8(31), ones, lsb)
	a.VPSLLD(cnt, lsb, lsb) // 1 << shift
	a.VPSRLD(U8(1), lsb, bias)
	a.VPADDD(ones, bias, bias) // (1 << shift >> 1) - 1
	adj := field(f8ExpAdjust)
	a.VPSLLD(cnt, adj, adj)
	a.VPSUBD(adj, bias, bias)
	c.lsb, c.bias = lsb, bias
	return c
}

// narrowMag is the float8Params algorithm of params.go on |x|, without the
// NaN case (which the callers order differently with the sign):
//
//	a = |x|
//	r = (a + (1<<shift>>1) - 1 + (a>>shift)&1) >> shift - expAdjust
//	a < minNormal:  r = bits(float32(a) + float32(magic)) - magic
//	r > maxBits:    r = overflow
//
// Folding expAdjust<<shift into the rounding bias saves the subtraction
// (it only wraps for a < minNormal, whose lanes the next line replaces). The
// last line is min(r, overflow): every parameter set has overflow = maxBits
// or maxBits+1 (kernel_amd64.go checks), and r is unsigned. The rounding bit
// is added as (a & lsb) >> shift: on this Zen 5, adding it through a k mask
// from VPTESTMD is slower, as the instructions that write k masks issue
// about once per cycle.
func (a *Asm) narrowMag(c *f8Consts, x VecVirtual) (ab, r VecVirtual) {
	ab, r = a.Vec(), a.Vec()
	a.And(c.abs, x, ab)
	if a.isa == AVX512 {
		sub, t := a.K(), a.Vec()
		a.VPANDD(c.lsb, ab, t)
		a.VPSRLD(c.cnt, t, t)
		a.VPADDD(c.bias, ab, r)
		a.VPADDD(t, r, r)
		a.VPSRLD(c.cnt, r, r)
		a.VPCMPUD(U8(cmpLT), c.minNormal, ab, sub)
		a.VADDPS(c.magic, ab, sub, r)
		a.VPSUBD(c.magic, r, sub, r)
	} else {
		t, m, f := a.Vec(), a.Vec(), a.Vec()
		a.And(c.lsb, ab, t)
		a.VPSRLD(c.cnt, t, t)
		a.VPADDD(c.bias, ab, r)
		a.VPADDD(t, r, r)
		a.VPSRLD(c.cnt, r, r)
		a.VPCMPGTD(ab, c.minNormal, m) // a < 2^31: a signed compare does
		a.VADDPS(c.magic, ab, f)
		a.VPSUBD(c.magic, f, f)
		a.VPBLENDVB(m, f, r, r)
	}
	a.VPMINUD(c.overflow, r, r)
	return ab, r
}

// narrowMagInt is narrowMag on AVX2 for the float32 lanes of integers
// (narrowToF8's INT32, UINT32, INT64, UINT64 sources): no NaN, no ±Inf,
// and no value between 0 and 1, below every float8 type's smallest normal.
// The rounding's sum is then negative for 0 alone (the bias less the
// exponent adjustment), which an arithmetic shift keeps and VPMAXSD with
// zero clears: 0's code, where narrowMag blends in the subnormal codes
// (four instructions) and pickGT the NaN code (two). Unsigned sources skip
// the absolute value too. Zen 3, 64 Ki elements, two runs side by side:
// INT32, UINT32, INT64, UINT64 → the float8 types 0.35-0.44 → 0.46-0.70×
// copy().
func (a *Asm) narrowMagInt(c *f8Consts, x VecVirtual, unsigned bool, zero VecVirtual) VecVirtual {
	ab, r, t := x, a.Vec(), a.Vec()
	if !unsigned {
		ab = a.Vec()
		a.And(c.abs, x, ab)
	}
	a.And(c.lsb, ab, t)
	a.VPSRLD(c.cnt, t, t)
	a.VPADDD(c.bias, ab, r)
	a.VPADDD(t, r, r)
	a.VPSRAD(c.cnt, r, r)
	a.VPMAXSD(zero, r, r)
	a.VPMINUD(c.overflow, r, r)
	return r
}

// signF8 adds the sign of x (bit 31) to the float8 bits in r (bit 7): a FNUZ
// type has no negative zero, so there a zero result stays 0x00 (its NaN and
// its non-saturated overflow are 0x80 with or without the sign).
func (a *Asm) signF8(x, r VecVirtual, fnuz bool, eighty Op) {
	s := a.Vec()
	a.VPSRLD(U8(24), x, s)
	if a.isa == AVX512 {
		or := Tern(func(r, s, k uint8) uint8 { return r | s&k })
		if fnuz {
			nz := a.K()
			a.VPTESTMD(r, r, nz)
			a.VPTERNLOGD(or, eighty, s, nz, r)
		} else {
			a.VPTERNLOGD(or, eighty, s, r)
		}
		return
	}
	a.And(eighty, s, s)
	if fnuz {
		a.VPSIGND(r, s, s) // a FNUZ zero takes no sign (s is 0 or 0x80, r at least 0)
	}
	a.Or(s, r, r)
}

// signPacker puts the signs of an AVX2 step of two or four vectors into its
// codes after they are packed to bytes as packDB4 packs them (before the
// VPERMD of packOrder or packOrder2): VPACKSSDW and VPACKSSWB of the float32 sources
// keep each one's sign in bit 7 of its byte (signed saturation keeps the
// sign), in the places VPACKUSDW and VPACKUSWB give its code; one VPAND and
// one VPOR per step add them, where signF8 takes three instructions per
// vector (four for the FNUZ types, whose zero codes keep no sign: a
// VPSIGNB per step here). Codes and signs are packed in pairs
// as they come, which keeps the register count of signF8's loop.
type signPacker struct {
	a *Asm
	// unsigned: the sources are never negative; only the codes are packed.
	unsigned bool
	// mem, if not nil, addresses the i-th vector of 32-bit sources, whose
	// sign bits are the float32 lanes' (FLOAT, INT32): the signs are
	// packed from memory at the end instead of held in registers.
	mem          func(i int) Mem
	codes, signs []VecVirtual // packed pairs
	r, x         VecVirtual   // the first of a pair, waiting
}

// add takes the codes r of the float32 lanes x; it returns r, which the
// packing overwrites.
func (p *signPacker) add(x, r VecVirtual) VecVirtual {
	if p.r == nil {
		p.r, p.x = r, x
		return r
	}
	p.a.VPACKUSDW(r, p.r, p.r)
	p.codes = append(p.codes, p.r)
	if !p.unsigned && p.mem == nil {
		p.a.VPACKSSDW(x, p.x, p.x)
		p.signs = append(p.signs, p.x)
	}
	p.r, p.x = nil, nil
	return r
}

// bytes returns the signed codes, in packDB4's order before its VPERMD
// (for two vectors, packOrder2's).
func (p *signPacker) bytes(fnuz bool) VecVirtual {
	a := p.a
	if p.mem != nil {
		for j := range p.codes {
			sg := a.Vec()
			a.VMOVDQU(p.mem(2*j), sg)
			a.VPACKSSDW(p.mem(2*j+1), sg, sg)
			p.signs = append(p.signs, sg)
		}
	}
	c := p.codes[0]
	if len(p.codes) == 2 {
		a.VPACKUSWB(p.codes[1], c, c)
	} else {
		a.VPACKUSWB(c, c, c)
	}
	if p.unsigned {
		return c
	}
	sg := p.signs[0]
	if len(p.signs) == 2 {
		a.VPACKSSWB(p.signs[1], sg, sg)
	} else {
		a.VPACKSSWB(sg, sg, sg)
	}
	a.And(a.Splat(0x80808080), sg, sg)
	if fnuz {
		a.VPSIGNB(c, sg, sg) // none where the code is 0 (no -0); NaN's 0x80 reads as negative, and -0x80 = 0x80
	}
	a.Or(sg, c, c)
	return c
}

// pickGT sets the lanes of dst where x > y to v: an unsigned comparison on
// AVX-512, a signed one on AVX2 (the kernels only compare values below
// 2^31 with it). x must be a register.
func (a *Asm) pickGT(x VecVirtual, y, v Op, dst VecVirtual) {
	if a.isa == AVX512 {
		k := a.K()
		a.VPCMPUD(U8(cmpGT), y, x, k)
		a.VMOVDQA32(v, k, dst)
		return
	}
	m := a.Vec()
	a.VPCMPGTD(y, x, m)
	a.VPBLENDVB(m, v, dst, dst)
}

// packDB narrows the 32-bit lanes of r (each < 256) to bytes, in order, in
// the low bytes of the XMM register it returns.
func (a *Asm) packDB(r VecVirtual) VecVirtual {
	x := r.AsX().(VecVirtual)
	if a.isa == AVX512 {
		a.VPMOVDB(r, x)
		return x
	}
	hi := a.XMM()
	a.VEXTRACTI128(U8(1), r, hi)
	a.VPACKUSDW(hi, x, x)
	a.VPACKUSWB(x, x, x)
	return x
}

// packOrder2 is the VPERMD index that puts in order the bytes of two AVX2
// vectors of 32-bit lanes packed by VPACKUSDW and VPACKUSWB (signPacker),
// which leave each vector's four lanes of a 128-bit lane in one dword: it
// takes dwords 0, 4, 1, 5 into the low 16 bytes. Loaded before the loop.
func (a *Asm) packOrder2() VecVirtual {
	return a.ConstTable("packdb2", []uint32{0, 4, 1, 5, 0, 4, 1, 5})
}

// packDB4 narrows four vectors of 32-bit lanes (each < 256) to bytes, in
// order, in the register it returns (r[0], overwritten): two VPACKUSDW and a
// VPACKUSWB interleave 4-lane groups within each 128-bit lane, and one
// VPERMD puts the groups in order.
func (a *Asm) packDB4(r []VecVirtual, order VecVirtual) VecVirtual {
	a.VPACKUSDW(r[1], r[0], r[0])
	a.VPACKUSDW(r[3], r[2], r[2])
	a.VPACKUSWB(r[2], r[0], r[0])
	a.VPERMD(r[0], order, r[0])
	return r[0]
}

// packOrder is the VPERMD index for packDB4: the group of four results at
// dword d = 4·lane + vector belongs at 4·vector + lane.
func (a *Asm) packOrder() VecVirtual {
	lanes := a.Lanes32() / 4
	idx := make([]uint32, 4*lanes)
	for v := range 4 {
		for l := range lanes {
			idx[lanes*v+l] = uint32(4*l + v)
		}
	}
	return a.ConstTable(fmt.Sprintf("packdb4_%d", lanes), idx)
}

// narrowToF8 emits the float8 narrowing kernels on float32 lanes from
// float32 (AVX2 and AVX-512). Each has two loops, for the FNUZ types
// (p.signedZero = 0) and the others, so the sign costs no test where zero
// may be negative. With VBMI the AVX-512 tier uses f32ToF8W (float8w.go),
// which computes on 16-bit lanes and runs about 1.5-2x faster. The 16-bit
// floats have 16-bit-lane kernels (half8.go, f16e4m3.go, f16e5m2.go), which
// also serve AVX-512 CPUs without VBMI: widened to float32 lanes here they
// ran at half their speed.
//
// On AVX2 the same loops also serve INT32 and UINT32 in one pass (AVX-512
// has f32ToF8W's fused kernels; INT16 and UINT16 have their own, i16f8.go):
// each converts to the nearest
// float32, which is exact or, like the integer, beyond every float8 type's
// range (plan.go, below2p24); UINT32 is first clamped to 2^31-1, which
// keeps every value from 2^24 up beyond the range (float8 values are below
// 2^16), so the signed conversion serves. INT64 and UINT64 are clamped to
// ±2^24 and narrowed to 32 bits first (clamp64), two vectors a step.
func narrowToF8(a *Asm) {
	both, avx2 := []ISA{AVX2, AVX512}, []ISA{AVX2}
	for _, from := range []struct {
		name, typ string
		size      int
		isas      []ISA
	}{{"f32ToF8", "float32", 4, both},
		{"i32ToF8", "uint32", 4, avx2}, {"u32ToF8", "uint32", 4, avx2},
		{"i64ToF8", "uint64", 8, avx2}, {"u64ToF8", "uint64", 8, avx2}, {"f64ToF8", "uint64", 8, avx2}} {
		for _, isa := range from.isas {
			a.Func(from.name+isa.String(), isa, "func(dst *uint8, src *"+from.typ+", n int, p *[8]uint32)")
			dst, src, n := a.Args()
			p := a.GP64()
			a.Context.Load(a.Param("p"), p)
			c := a.loadF8(p)
			var maxInt Op
			if from.name == "u32ToF8" {
				maxInt = a.Splat(math.MaxInt32)
			}
			var load64 func(m Mem, x VecVirtual)
			switch from.name {
			case "i64ToF8", "u64ToF8":
				load64 = clamp64(a, from.name == "i64ToF8")
			case "f64ToF8":
				load64 = oddF64Clear(a, 29)
			}
			eighty := a.Splat(0x80)
			// UINT32 and UINT64 convert to float32 lanes that are never
			// negative: no sign to add.
			unsigned := from.name == "u32ToF8" || from.name == "u64ToF8"
			intSource := from.name == "i32ToF8" || unsigned || from.name == "i64ToF8"
			var zero VecVirtual
			if isa == AVX2 && intSource {
				zero = a.Vec()
				a.VPXOR(zero, zero, zero)
			}
			order := a.packOrder()
			var order2 VecVirtual
			if from.size == 8 {
				order2 = a.packOrder2()
			}
			lanes := a.Lanes32()
			a.CMPL(Mem{Base: p, Disp: f8SignedZero}, U8(0))
			a.JE(LabelRef("fnuz"))
			for _, fnuz := range []bool{false, true} {
				name := ""
				if fnuz {
					a.Label("fnuz")
					name = "fnuz_"
				}
				unroll := 4
				if from.size == 8 { // the clamp's registers leave room for two
					unroll = 2
				}
				a.StreamNamed(name, Loop{SrcSize: from.size, DstSize: 1, Lanes: lanes, Unroll: unroll}, dst, src, n, func(s *Step) {
					var rs []VecVirtual
					// AVX2 steps of several vectors take the signs by packing
					// the sources as the codes are packed (signPacker), not
					// per vector; FLOAT and INT32 read them from memory
					// again, which costs no register.
					var signs *signPacker
					if isa == AVX2 && s.Lanes > lanes {
						signs = &signPacker{a: a, unsigned: unsigned}
						if from.size == 4 {
							signs.mem = func(i int) Mem { return s.Src.Offset(32 * i) }
						}
					}
					for i := 0; i < s.Lanes; i += lanes {
						p := s.Part(i, lanes)
						x := a.Vec()
						switch from.size {
						case 8:
							load64(p.Src, x)
						case 4:
							a.VLoad(x, p.Src, 32, p.M(1, 0))
						}
						switch from.name {
						case "i32ToF8", "i64ToF8", "u64ToF8": // f64ToF8's loader converts
							a.VCVTDQ2PS(x, x)
						case "u32ToF8":
							a.VPMINUD(maxInt, x, x)
							a.VCVTDQ2PS(x, x)
						}
						var r VecVirtual
						if isa == AVX2 && intSource {
							r = a.narrowMagInt(c, x, unsigned, zero)
						} else {
							var ab VecVirtual
							ab, r = a.narrowMag(c, x)
							a.pickGT(ab, c.inf, c.nan, r)
						}
						switch {
						case signs != nil:
							r = signs.add(x, r)
						case !unsigned:
							a.signF8(x, r, fnuz, eighty)
						}
						rs = append(rs, r)
					}
					if signs != nil {
						b := signs.bytes(fnuz)
						if len(rs) == 4 {
							a.VPERMD(b, order, b)
							s.Store(b, s.Dst, 8, nil)
						} else {
							a.VPERMD(b, order2, b)
							s.StoreLow(b, 2*lanes, s.Dst, 8, nil)
						}
						return
					}
					switch len(rs) {
					case 4: // AVX-512 (without VBMI), whose steps take no signPacker
						s.Store(a.packDB4(rs, order), s.Dst, 8, nil)
					case 1:
						s.StoreLow(a.packDB(rs[0]), lanes, s.Dst, 8, s.M(1, 0))
					default:
						panic(fmt.Sprintf("narrowToF8 %s: a step of %d vectors without a signPacker", from.name, len(rs)))
					}
				})
			}
		}
	}
}

// f8ToF32 widens bytes through a 256-entry table of float32 bit patterns.
//
// AVX-512 (with VBMI): the low 16 bits of every entry of the five 8-bit float
// tables are zero, so the kernel looks up only bytes 2 and 3 of each entry,
// from two 256-byte planes built in registers at the start (VPERMT2W takes
// the high halves of the entries, VPERMI2B splits them into bytes). A
// lookup is two VPERMI2B on the low 7 bits (each a 128-byte table) and a
// blend on the top bit; unpacking the two planes with zeros yields the
// float32 lanes. A VPERMD first transposes the input's 4-byte groups so the
// in-lane unpacks come out in order. The kernel checks the zero low halves
// and reports false, converting nothing, if a table has others.
//
// AVX2 has no such permute, and a gather is no faster than the generic
// loop: its kernels compute each type's values instead (widen8.go).
func f8ToF32(a *Asm) {
	f8Widen(a, "f8ToF32AVX512", "float32", 4, nil, func(s *Step, d VecVirtual, j int) {
		s.Store(d, s.Dst.Offset(64*j), 32, s.M(1, 16*j))
	})
}

// f8Widen emits f8ToF32's lookup as the kernel name, which also needs the
// extensions extra; finish stores the j-th vector of 16 float32 lanes of a
// step (j < 4), converting it first where the kernel's target is not
// float32 (f8int.go).
func f8Widen(a *Asm, name, dstType string, dstSize int, extra []string, finish func(s *Step, d VecVirtual, j int)) {
	a.Func(name, AVX512, "func(dst *"+dstType+", src *uint8, n int, table *[256]uint32) bool")
	a.Needs(append([]string{"AVX512VBMI"}, extra...)...) // VPERMI2B
	dst, src, n := a.Args()
	tab := a.GP64()
	a.Context.Load(a.Param("table"), tab)

	// Check the low halves: OR all entries, test the low 16 bits.
	t := make([]VecVirtual, 16)
	for c := range t {
		t[c] = a.Vec()
		a.VMOVDQU32(Mem{Base: tab, Disp: 64 * c}, t[c])
	}
	acc := a.Vec()
	a.VPORD(t[1], t[0], acc)
	for c := 2; c < 16; c += 2 {
		a.VPTERNLOGD(Tern(func(x, y, z uint8) uint8 { return x | y | z }), t[c+1], t[c], acc)
	}
	low, bad := a.Const32(0xFFFF), a.K()
	a.VPTESTMD(low, acc, bad)
	a.KORTESTW(bad, bad)
	a.JNZ(LabelRef("fail"))

	// Planes: p2[j], p3[j] hold bytes 2 and 3 of entries 64j .. 64j+63.
	odd := a.ConstWords("oddwords", seq(1, 2, 1, 32))
	even8, odd8 := a.ConstBytes("evenbytes", seq8(0, 2, 64)), a.ConstBytes("oddbytes", seq8(1, 2, 64))
	p2, p3 := make([]VecVirtual, 4), make([]VecVirtual, 4)
	for j := range 4 {
		lo, hi := t[4*j], t[4*j+2]
		a.VPERMT2W(t[4*j+1], odd, lo) // high halves of entries 64j .. 64j+31
		a.VPERMT2W(t[4*j+3], odd, hi) // and 64j+32 .. 64j+63
		p2[j], p3[j] = a.Vec(), a.Vec()
		a.VMOVDQA64(even8, p2[j])
		a.VPERMI2B(hi, lo, p2[j])
		a.VMOVDQA64(odd8, p3[j])
		a.VPERMI2B(hi, lo, p3[j])
	}
	order := a.ConstTable("transpose4x4", []uint32{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15})
	zero := a.Vec()
	a.VPXORD(zero, zero, zero)
	ok := a.GP8()
	a.MOVB(U8(1), ok)
	a.Store(ok, a.ReturnIndex(0))

	a.Stream(Loop{SrcSize: 1, DstSize: dstSize, Lanes: 64, Unroll: 1}, dst, src, n, func(s *Step) {
		b, top := a.Vec(), a.K()
		a.VLoad(b, s.Src, 8, s.M(1, 0))
		// b[16L + 4j + i] = input[16j + 4L + i]: after the unpacks below,
		// lane L of output vector j holds inputs 16j + 4L .. 16j + 4L + 3.
		a.VPERMD(b, order, b)
		a.VPMOVB2M(b, top)
		look := func(p []VecVirtual) VecVirtual {
			x, y := a.Vec(), a.Vec()
			a.VMOVDQA64(b, x)
			a.VPERMI2B(p[1], p[0], x) // entries 0..127 by the low 7 bits
			a.VMOVDQA64(b, y)
			a.VPERMI2B(p[3], p[2], y) // entries 128..255
			a.VPBLENDMB(y, x, top, x)
			return x
		}
		b2, b3 := look(p2), look(p3)
		w := []VecVirtual{a.Vec(), a.Vec()}
		a.VPUNPCKLBW(b3, b2, w[0]) // 16-bit high halves: byte 2 | byte 3 << 8
		a.VPUNPCKHBW(b3, b2, w[1])
		for j := range 4 {
			d := a.Vec()
			if j%2 == 0 {
				a.VPUNPCKLWD(w[j/2], zero, d)
			} else {
				a.VPUNPCKHWD(w[j/2], zero, d)
			}
			finish(s, d, j)
		}
	})
	a.Label("fail")
	a.MOVB(U8(0), ok)
	a.Store(ok, a.ReturnIndex(0))
	if a.nt { // the streaming variant converted nothing
		zero := a.GP64()
		a.XORQ(zero, zero)
		a.Store(zero, a.ReturnIndex(1))
	}
	a.VZEROUPPER()
	a.RET()
}

// seq8 is seq for bytes.
func seq8(start, num, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = byte(start + i*num)
	}
	return s
}

// clamp64 returns the loader of narrowToF8's AVX2 INT64 and UINT64 sources:
// 8 elements clamped to [-2^24, 2^24] (UINT64: to 2^24, compared as signed
// after flipping the top bit) and narrowed to their low dwords, in order,
// for VCVTDQ2PS. Every float8 value is below 2^24, so a clamped element
// overflows the target exactly as the element does (plan.go, below2p24),
// and below 2^24 the conversion is exact. The clamp is what makes the pair
// one pass on AVX2, which has no 64-bit integer conversion: the route
// through FLOAT converts the whole range to the nearest float32 first.
func clamp64(a *Asm, signed bool) func(m Mem, x VecVirtual) {
	const c = 1 << 24
	hi, loMem := a.splat64(c), a.splat64(-c&(1<<64-1))
	var lo VecVirtual // a register: VPCMPGTQ's first operand
	if signed {
		lo = a.Vec()
		a.VMOVDQU(loMem, lo)
	}
	var flip, hiFlipped Op
	if !signed {
		flip, hiFlipped = a.splat64(1<<63), a.splat64(c^1<<63)
	}
	return func(m Mem, x VecVirtual) {
		var v [2]VecVirtual
		for h := range v {
			v[h] = a.Vec()
			a.VMOVDQU(m.Offset(32*h), v[h])
			t := a.Vec()
			if signed {
				a.VPCMPGTQ(hi, v[h], t) // v > 2^24
				a.VPBLENDVB(t, hi, v[h], v[h])
				a.VPCMPGTQ(v[h], lo, t) // v < -2^24
				a.VPBLENDVB(t, loMem, v[h], v[h])
				continue
			}
			a.VPXOR(flip, v[h], t)
			a.VPCMPGTQ(hiFlipped, t, t) // v > 2^24, unsigned
			a.VPBLENDVB(t, hi, v[h], v[h])
		}
		// Dwords 0 and 2 of each 128-bit lane of both: elements 0,1,4,5 |
		// 2,3,6,7; VPERMQ puts them in order.
		a.VSHUFPS(U8(0b10_00_10_00), v[1], v[0], x)
		a.VPERMQ(U8(0b11_01_10_00), x, x)
	}
}

// oddF64Clear returns the loader of narrowToF8's AVX2 DOUBLE source: 8
// elements rounded to odd at float32 precision, in order (drop = 29;
// f64ToF4AVX2 rounds to odd at FLOAT16's precision, drop = 42). It sets
// double bit drop, the last significand bit kept, where any of the drop
// bits below it is set, clears those bits and converts: the cleared double
// is a float32 value wherever float32 has normal numbers of its exponent,
// so VCVTPD2PS is exact there and the result is f64ToF32Odd's (MaxFloat32
// from (MaxFloat32, 2^128), ±Inf from 2^128 up; a NaN stays a NaN, as its
// set bit keeps the significand non-zero). Below 2^-126 the conversion
// rounds on the subnormal grid where f64ToF32Odd truncates to odd: both
// are below 2^-125, far under half of every float8 type's smallest value
// (and FLOAT4E2M1's), so both give the same signed zero code. About half
// the instructions of odd.go's oddF64AVX2, which must also be exact on
// float32's subnormals: DOUBLE → float8 0.28–0.29× → 0.34–0.43× copy()
// (Zen 4, three runs) against the route through FLOAT.
func oddF64Clear(a *Asm, drop int) func(m Mem, x VecVirtual) {
	low, high := a.splat64(1<<drop-1), a.splat64(^uint64(1<<drop-1))
	return func(m Mem, x VecVirtual) {
		var f [2]VecVirtual
		for h := range f {
			v, u := a.Vec(), a.Vec()
			a.VMOVDQU(m.Offset(32*h), v)
			a.VPAND(low, v, u)
			a.VPADDQ(low, u, u) // bit drop: some dropped bit is set
			a.VPOR(u, v, v)
			a.VPAND(high, v, v)
			f[h] = a.XMM()
			a.VCVTPD2PSY(v, f[h])
		}
		a.VINSERTI128(U8(1), f[1], f[0].AsY(), x)
	}
}
