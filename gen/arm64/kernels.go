package arm64

import (
	"fmt"
	"github.com/tensorcast/tensorcast/gen/layout"
	"math"
)

// The conversion algorithms, one function each, on top of the shared loop
// (Func.Stream) and the shared pieces below (parameter loading, the float8
// narrowing, packing lanes into bytes and nibbles). Each mirrors a function
// of kernel_generic.go, which documents the arithmetic; the comments here
// only say how it maps onto NEON.

type kernelDef struct {
	name, args, doc string
	build           func(f *Func)
}

// The Go signatures. n counts elements (of the unpacked side for the packed
// types) and is a multiple of the kernel's unit: the Go wrappers in
// kernel_arm64.go convert the rest.
const (
	argsF32To16  = "dst *uint16, src *float32, n int"
	args16ToF32  = "dst *float32, src *uint16, n int"
	argsF32ToF8  = "dst *uint8, src *float32, n int, p *float8Params"
	args16ToF8   = "dst *uint8, src *uint16, n int, p *float8Params"
	argsF32To8   = "dst *uint8, src *float32, n int"
	args8To8     = "dst *uint8, src *uint8, n int"
	args4ToF32   = "dst *float32, src *uint8, n int"
	argsTableF32 = "dst *float32, src *uint8, n int, planes *[512]byte"
	argsE8M0     = "dst *uint8, src *float32, n int, p *e8m0Params"
)

var kernels = append([]kernelDef{
	{"f32ToF16NEON", argsF32To16, "converts n float32 to FLOAT16 (n a multiple of 8) with FCVTN.", f32ToF16},
	{"f16ToF32NEON", args16ToF32, "widens n FLOAT16 to float32 (n a multiple of 8) with FCVTL.", f16ToF32},
	{"f32ToBF16NEON", argsF32To16, "rounds n float32 to BFLOAT16 (n a multiple of 8) in integer arithmetic.", f32ToBF16},
	{"f32ToBF16BFCVTN", argsF32To16, "rounds n float32 to BFLOAT16 (n a multiple of 8) with BFCVTN (FEAT_BF16).", f32ToBF16Hardware},
	{"bf16ToF32NEON", args16ToF32, "widens n BFLOAT16 to float32 (n a multiple of 8).", bf16ToF32},
	{"f32ToF8NEON", argsF32ToF8, "narrows n float32 to the float8 type described by p (n a multiple of 16;\np.overflow is p.maxBits or p.maxBits+1).", f32ToF8},
	{"f16ToF8NEON", args16ToF8, "narrows n FLOAT16 to the float8 type described by p, rounding once\n(n a multiple of 16; p.overflow is p.maxBits or p.maxBits+1).", f16ToF8},
	{"bf16ToF8NEON", args16ToF8, "narrows n BFLOAT16 to the float8 type described by p, rounding once\n(n a multiple of 16; p.overflow is p.maxBits or p.maxBits+1).", bf16ToF8},
	{"f8ToF32NEON", argsTableF32, "widens n 8-bit floats (n a multiple of 16) through a widening table\nsplit into byte planes: planes[b] and planes[256+b] are bytes 2 and 3 of\nthe float32 bits of b (bytes 0 and 1 are zero in every table).", f8ToF32},
	{"f32ToE8M0NEON", argsE8M0, "converts n float32 to FLOAT8E8M0 (n a multiple of 16); p is\n{roundAdd, 0xFE, 0x00} or {roundAdd, 0xFF, 0xFF}.", f32ToE8M0},
	{"f32ToF4NEON", argsF32ToF8, "packs n float32 as FLOAT4E2M1 (n a multiple of 32); p is &float4Params.", f32ToF4},
	{"f4ToF32NEON", args4ToF32, "unpacks n FLOAT4E2M1 to float32 (n a multiple of 32).", f4ToF32},
	{"i8ToI4NEON", args8To8, "packs the low nibbles of n bytes (n a multiple of 32).", i8ToI4},
	{"i8ToI2NEON", args8To8, "packs the low 2 bits of n bytes, four to a byte (n a multiple of 64).", i8ToI2},
	{"i4ToI8NEON", args8To8, "unpacks n INT4 with sign extension (n a multiple of 32).", i4ToI8},
	{"u4ToU8NEON", args8To8, "unpacks n UINT4 (n a multiple of 32).", u4ToU8},
	{"f32ToI4NEON", argsF32To8, "truncates n float32 to INT4/UINT4, packed (n a multiple of 32).", f32ToI4},
	{"lut8NEON", argsLut8, docLut8, lut8},
	{"lut16NEON", argsLut16, docLut16, lut16},
	{"f16ToBF16NEON", args16To16, docF16ToBF, f16ToBF16},
	{"f16ToBF16BFCVTN", args16To16, docF16ToBFH, f16ToBF16Hardware},
	{"bf16ToF16NEON", args16To16, docBF16ToF, bf16ToF16},
}, packedKernels()...)

// float32 ↔ FLOAT16: the hardware conversions round to nearest even (the
// FPCR of a Go program), keep subnormals and quiet NaNs keeping their top
// payload bits, exactly as f32ToF16 and f16ToF32 do. The 16-bit pairs
// (lut.go) compose the same pieces: a widening to float32, then a
// narrowing.

func f32ToF16(f *Func) {
	f.Stream(8, 4, func(k int) { storeFree(f, f.narrowPair(fcvtn, f.Load(2*k))) })
}

func f16ToF32(f *Func) {
	f.Stream(8, 4, func(k int) { storeFree(f, f.widenPair(fcvtl, f.Load(k))) })
}

// storeFree stores v and frees it.
func storeFree(f *Func, v Vec) {
	f.Store(v)
	f.Free(v)
}

// widenBF16 widens the BFLOAT16 vectors h to float32 by interleaving zero
// halves below each value, freeing h.
func widenBF16(f *Func, h, zero Vec) Vec {
	x := f.Alloc(2 * len(h))
	f.Zip1(H8, x.Even(), zero, h)
	f.Zip2(H8, x.Odd(), zero, h)
	f.Free(h)
	return x
}

// float32 → BFLOAT16 in integers: NaN lanes are first replaced by
// sign|0x7FC00000, then ADDHN adds 0x7FFF plus the kept LSB and keeps the
// high halves, which is f32ToBF16's rounding.
func f32ToBF16(f *Func) {
	c := newBF16Rounding(f)
	f.Stream(8, 4, func(k int) { storeFree(f, c.narrow(f, f.Load(2*k))) })
}

// bf16Rounding holds the constants of f32ToBF16's rounding.
type bf16Rounding struct{ sign, qnan, lsb, half Vec }

func newBF16Rounding(f *Func) bf16Rounding {
	return bf16Rounding{f.Dup32(0x80000000), f.Dup32(0x7FC00000), f.Dup32(0x10000), f.Dup32(0x7FFF)}
}

// narrow rounds the float32 vectors x (clobbered, then freed) to half as
// many of BFLOAT16.
func (c bf16Rounding) narrow(f *Func, x Vec) Vec {
	m := f.Alloc(len(x))
	f.Fcmeq(m, x, x) // ones unless NaN
	f.Orr(m, m, c.sign)
	f.Bif(x, c.qnan, m)
	f.Cmtst(S4, m, x, c.lsb) // -1 where the kept LSB is odd
	f.Sub(S4, m, c.half, m)
	h := f.Alloc(len(x) / 2)
	f.Addhn(false, h, x.Even(), m.Even())
	f.Addhn(true, h, x.Odd(), m.Odd())
	f.Free(x, m)
	return h
}

// float32 → BFLOAT16 with BFCVTN, which rounds like f32ToBF16 but keeps NaN
// payloads: NaN results are canonicalised to sign|0x7FC0 afterwards.
func f32ToBF16Hardware(f *Func) {
	c := newBFCVTNRounding(f)
	f.Stream(8, 4, func(k int) { storeFree(f, c.narrow(f, f.Load(2*k))) })
}

// bfcvtnRounding holds the constants of f32ToBF16Hardware's NaN canonicalisation.
type bfcvtnRounding struct{ abs, inf, payload Vec }

func newBFCVTNRounding(f *Func) bfcvtnRounding {
	return bfcvtnRounding{f.Dup16(0x7FFF), f.Dup16(0x7F80), f.Dup16(0x003F)}
}

// narrow rounds the float32 vectors x to half as many of BFLOAT16 with
// BFCVTN and clears the payload bits of NaN results, freeing x.
func (c bfcvtnRounding) narrow(f *Func, x Vec) Vec {
	h := f.narrowPair(bfcvtn, x)
	m := f.Alloc(len(h))
	f.And(m, h, c.abs)
	f.Cmgt(H8, m, m, c.inf)
	f.And(m, m, c.payload)
	f.Bic(h, h, m)
	f.Free(m)
	return h
}

// BFLOAT16 → float32: quiet NaNs (set bit 6 where |b| > 0x7F80), then
// interleave zero halves below each value.
func bf16ToF32(f *Func) {
	abs := f.Dup16(0x7FFF)
	inf := f.Dup16(0x7F80)
	quiet := f.Dup16(0x0040)
	zero := f.Zero()
	f.Stream(8, 4, func(k int) {
		h := f.Load(k)
		m := f.Alloc(k)
		f.And(m, h, abs)
		f.Cmgt(H8, m, m, inf)
		f.And(m, m, quiet)
		f.Orr(h, h, m)
		f.Free(m)
		storeFree(f, widenBF16(f, h, zero))
	})
}

// The float8Params algorithm. float8Consts holds the parameters (R3 points
// to a float8Params) in registers, with two derived: the rounding increment
// (1<<(shift-1)) - 1 - expAdjust<<shift, which folds the rebias into the
// addition (exact for every lane that takes the normal path, the others are
// replaced), and -shift for USHL.
type float8Consts struct {
	abs, lsb, bias, negShift, magic, minNormal, overflow, inf, nan Vec
	top, signedZero                                                Vec // bytes: 0x80, p.signedZero
}

// param is the operand of field of the parameter struct typ (params.go) at
// R3, its offset taken from the Go declaration.
func param(typ, field string) string {
	return fmt.Sprintf("%d(R3)", layout.Offset(typ, field))
}

func loadFloat8Params(f *Func) *float8Consts {
	c := &float8Consts{abs: f.Dup32(0x7FFFFFFF), inf: f.Dup32(0x7F800000), top: f.Dup8(0x80)}
	f.comment("float8Params: shift, expAdjust, minNormal, magic, maxBits, overflow, nan, signedZero")
	f.emit("MOVWU", param("float8Params", "shift"), "R4")
	f.emit("NEG", "R4", "R5")
	c.negShift = f.DupReg("R5", S4)
	f.emit("MOVD", "$1", "R6")
	f.emit("LSL", "R4", "R6", "R6")
	c.lsb = f.DupReg("R6", S4)
	f.emit("LSR", "$1", "R6", "R7")
	f.emit("SUB", "$1", "R7", "R7")
	f.emit("MOVWU", param("float8Params", "expAdjust"), "R8")
	f.emit("LSL", "R4", "R8", "R8")
	f.emit("SUB", "R8", "R7", "R7")
	c.bias = f.DupReg("R7", S4)
	load := func(field string, a Arr) Vec {
		f.emit("MOVWU", param("float8Params", field), "R8")
		return f.DupReg("R8", a)
	}
	c.minNormal = load("minNormal", S4)
	c.magic = load("magic", S4)
	c.overflow = load("overflow", S4)
	c.nan = load("nan", S4)
	c.signedZero = load("signedZero", B16)
	return c
}

// narrowMagnitude returns the target's magnitude bits for each 32-bit lane
// of a = |x|:
//
//	normal:    (a + bias + lsb) >> shift           CMTST gives -1 for an odd LSB
//	subnormal: bits(a + magic) - magic             where a < minNormal
//	overflow:  min(r, overflow)                    overflow is maxBits or maxBits+1
//	NaN:       nan                                 where a > 0x7F800000
func narrowMagnitude(f *Func, c *float8Consts, a Vec) Vec {
	n := len(a)
	r, t, m := f.Alloc(n), f.Alloc(n), f.Alloc(n)
	f.Cmtst(S4, r, a, c.lsb)
	f.Sub(S4, r, a, r)
	f.Add(S4, r, r, c.bias)
	f.Ushl(S4, r, r, c.negShift)
	f.Fadd(t, a, c.magic)
	f.Sub(S4, t, t, c.magic)
	f.Cmhi(S4, m, c.minNormal, a)
	f.Bit(r, t, m)
	f.Umin(S4, r, r, c.overflow)
	f.Cmhi(S4, m, a, c.inf)
	f.Bit(r, c.nan, m)
	f.Free(t, m)
	return r
}

// narrowToFloat8 finishes a float8 conversion: x holds 4k vectors of float32
// bits (clobbered) and sign the k vectors of their top bytes; it stores k
// vectors of float8 bytes. The sign is kept unless the result is zero and
// the type has no negative zero.
func narrowToFloat8(f *Func, c *float8Consts, x, sign Vec) {
	f.And(x, x, c.abs)
	r := narrowMagnitude(f, c, x)
	b := wordsToBytes(f, r)
	keep := f.Alloc(len(b))
	f.Cmtst(B16, keep, b, b)
	f.Orr(keep, keep, c.signedZero)
	f.And(keep, keep, c.top)
	f.And(sign, sign, keep)
	f.Orr(b, b, sign)
	f.Free(keep)
	f.Store(b)
	f.Free(b)
}

// wordsToBytes packs the low bytes of the 32-bit lanes of 4k vectors (in
// memory order) into k vectors, freeing w.
func wordsToBytes(f *Func, w Vec) Vec {
	h := f.Alloc(len(w) / 2)
	f.Uzp1(H8, h, w.Even(), w.Odd())
	f.Free(w)
	b := f.Alloc(len(h) / 2)
	f.Uzp1(B16, b, h.Even(), h.Odd())
	f.Free(h)
	return b
}

// topBytes returns the top bytes of the 32-bit lanes of 4k vectors.
func topBytes(f *Func, w Vec) Vec {
	h := f.Alloc(len(w) / 2)
	f.Uzp2(H8, h, w.Even(), w.Odd())
	b := f.Alloc(len(h) / 2)
	f.Uzp2(B16, b, h.Even(), h.Odd())
	f.Free(h)
	return b
}

func f32ToF8(f *Func) {
	c := loadFloat8Params(f)
	f.Stream(16, 1, func(k int) {
		x := f.Load(4 * k)
		sign := topBytes(f, x)
		narrowToFloat8(f, c, x, sign)
		f.Free(x, sign)
	})
}

// FLOAT16 and BFLOAT16 → float8: widen exactly to float32 (FCVTL, or zero
// halves below BFLOAT16), then narrow once; the signs are the high bytes of
// the 16-bit inputs.
func f16ToF8(f *Func) {
	c := loadFloat8Params(f)
	f.Stream(16, 1, func(k int) {
		h := f.Load(2 * k)
		sign := f.Alloc(k)
		f.Uzp2(B16, sign, h.Even(), h.Odd())
		x := f.widenPair(fcvtl, h)
		narrowToFloat8(f, c, x, sign)
		f.Free(x, sign)
	})
}

func bf16ToF8(f *Func) {
	c := loadFloat8Params(f)
	zero := f.Zero()
	f.Stream(16, 1, func(k int) {
		h := f.Load(2 * k)
		sign := f.Alloc(k)
		f.Uzp2(B16, sign, h.Even(), h.Odd())
		x := f.Alloc(4 * k)
		f.Zip1(H8, x.Even(), zero, h)
		f.Zip2(H8, x.Odd(), zero, h)
		f.Free(h)
		narrowToFloat8(f, c, x, sign)
		f.Free(x, sign)
	})
}

// 8-bit floats → float32 through the widening table. Every table entry has
// zero low halves, so the result is two byte lookups (TBL over 64-byte
// quarters of each 256-byte plane, TBX for the later quarters; subtracting
// 64 from the indices moves to the next quarter and four subtractions wrap
// back to the original) interleaved above two zero bytes.
func f8ToF32(f *Func) {
	quarter := f.Dup8(64)
	zero := f.Zero()
	f.Stream(16, 8, func(k int) {
		idx := f.Load(k)
		planes := []Vec{f.Alloc(k), f.Alloc(k)}
		f.emit("MOVD", "R3", "R4")
		for p, out := range planes {
			for q := range 4 {
				t := f.Alloc(4)
				f.LoadFrom("R4", t)
				if q == 0 {
					f.Tbl(out, t, idx)
				} else {
					f.Tbx(out, t, idx)
				}
				f.Free(t)
				if p == 0 || q < 3 {
					f.Sub(B16, idx, idx, quarter)
				}
			}
		}
		f.Free(idx)
		for i := range k {
			lo, hi := planes[0][i:i+1], planes[1][i:i+1]
			h := f.Alloc(2)
			f.Zip1(B16, h[:1], lo, hi)
			f.Zip2(B16, h[1:], lo, hi)
			w := f.Alloc(4)
			f.Zip1(H8, w.Even(), zero, h)
			f.Zip2(H8, w.Odd(), zero, h)
			f.Free(h)
			f.Store(w)
			f.Free(w)
		}
		f.Free(planes...)
	})
}

// float32 → FLOAT8E8M0: subnormals are scaled by 2^64 (FMUL, exact) and
// their exponent reduced by 64 afterwards; e = (a + roundAdd) >> 23 - scale.
// Then SMAX with lo and UMIN with hi apply underflow and overflow: with
// saturation lo = 0 and hi = 0xFE; without, lo = INT32_MIN (no effect) and
// hi = 0xFF, which negative e (huge unsigned) and e ≥ 255 both reach. NaN
// lanes are set to all ones.
func f32ToE8M0(f *Func) {
	abs := f.Dup32(0x7FFFFFFF)
	minNormal := f.Dup32(0x00800000)
	scale := f.Dup32(math.Float32bits(0x1p64))
	sixtyFour := f.Dup32(64)
	inf := f.Dup32(0x7F800000)
	f.comment("e8m0Params: roundAdd, overflow, underflow")
	f.emit("MOVWU", param("e8m0Params", "roundAdd"), "R4")
	round := f.DupReg("R4", S4)
	f.emit("MOVWU", param("e8m0Params", "overflow"), "R4")
	hi := f.DupReg("R4", S4)
	f.emit("MOVWU", param("e8m0Params", "underflow"), "R4")
	f.emit("AND", "$0x80", "R4", "R4")
	f.emit("LSL", "$24", "R4", "R4")
	lo := f.DupReg("R4", S4)
	f.Stream(16, 1, func(k int) {
		a := f.Load(4 * k)
		n := len(a)
		m, e := f.Alloc(n), f.Alloc(n)
		f.And(a, a, abs)
		f.Cmhi(S4, m, minNormal, a)
		f.Fmul(e, a, scale)
		f.Bit(a, e, m)
		f.Add(S4, e, a, round)
		f.Ushr(S4, e, e, 23)
		f.And(m, m, sixtyFour)
		f.Sub(S4, e, e, m)
		f.Smax(S4, e, e, lo)
		f.Umin(S4, e, e, hi)
		f.Cmhi(S4, m, a, inf)
		f.Orr(e, e, m)
		f.Free(a, m)
		b := wordsToBytes(f, e)
		f.Store(b)
		f.Free(b)
	})
}

// packNibbles packs 2k byte vectors (in memory order) two per byte, the
// first element in the low nibble.
func packNibbles(f *Func, b Vec) Vec { return packBits(f, b, 4) }

// unpackNibbles interleaves the low-nibble values lo and the high-nibble
// values hi of k vectors into 2k vectors in memory order.
func unpackNibbles(f *Func, lo, hi Vec) Vec {
	out := f.Alloc(2 * len(lo))
	f.Zip1(B16, out.Even(), lo, hi)
	f.Zip2(B16, out.Odd(), lo, hi)
	return out
}

// float32 → FLOAT4E2M1: the float8 algorithm with float4Params (16 lanes at
// a time), the sign bit moved to bit 3 (NaN gives 0x8 either way), then
// packed.
func f32ToF4(f *Func) {
	c := loadFloat8Params(f)
	eight := f.Dup8(0x08)
	f.Stream(32, 1, func(k int) {
		var bs Vec
		for range 2 * k {
			x := f.Load(4)
			sign := topBytes(f, x)
			f.And(x, x, c.abs)
			r := narrowMagnitude(f, c, x)
			f.Free(x)
			b := wordsToBytes(f, r)
			f.Ushr(B16, sign, sign, 4)
			f.And(sign, sign, eight)
			f.Orr(b, b, sign)
			f.Free(sign)
			bs = append(bs, b...)
		}
		out := packNibbles(f, bs)
		f.Free(bs)
		f.Store(out)
		f.Free(out)
	})
}

// FLOAT4E2M1 → float32: unpack the nibbles, look up the two high bytes of
// each value (16-entry TBLs) and interleave them above two zero bytes.
func f4ToF32(f *Func) {
	var planes [2][16]byte
	for i := range 16 {
		b := math.Float32bits(float4Value(i))
		if b&0xFFFF != 0 {
			panic("FLOAT4E2M1 value with nonzero low half")
		}
		planes[0][i], planes[1][i] = byte(b>>16), byte(b>>24)
	}
	low, high := f.Quad(planes[0]), f.Quad(planes[1])
	nibble := f.Dup8(0x0F)
	zero := f.Zero()
	f.Stream(32, 2, func(k int) {
		x := f.Load(k)
		lo := f.Alloc(k)
		f.And(lo, x, nibble)
		f.Ushr(B16, x, x, 4)
		e := unpackNibbles(f, lo, x)
		f.Free(lo, x)
		b2, b3 := f.Alloc(2*k), f.Alloc(2*k)
		f.Tbl(b2, low, e)
		f.Tbl(b3, high, e)
		f.Free(e)
		h := f.Alloc(4 * k)
		f.Zip1(B16, h.Even(), b2, b3)
		f.Zip2(B16, h.Odd(), b2, b3)
		f.Free(b2, b3)
		for i := 0; i < len(h); i += 2 {
			w := f.Alloc(4)
			f.Zip1(H8, w.Even(), zero, h[i:i+2])
			f.Zip2(H8, w.Odd(), zero, h[i:i+2])
			f.Store(w)
			f.Free(w)
		}
		f.Free(h)
	})
}

// float4Value is FLOAT4E2M1 code i: sign, two exponent bits (bias 1), one
// significand bit.
func float4Value(i int) float32 {
	e, m := i>>1&3, i&1
	v := float32(m) / 2
	if e > 0 {
		v = (1 + float32(m)/2) * float32(int(1)<<(e-1))
	}
	if i&8 != 0 {
		v = -v
	}
	return v
}

func i8ToI4(f *Func) {
	f.Stream(32, 4, func(k int) {
		x := f.Load(2 * k)
		out := packNibbles(f, x)
		f.Free(x)
		f.Store(out)
		f.Free(out)
	})
}

// i8ToI2 packs four bytes' low 2 bits to a byte, the first element in the
// low bits: UZP1/UZP2 split even and odd elements and SLI #2 puts each odd
// one above its even one (SLI keeps the destination's low 2 bits; the
// bits above 4 are don't-care), then the same on those pairs with SLI #4.
func i8ToI2(f *Func) {
	f.Stream(64, 2, func(k int) {
		x := f.Load(4 * k)
		pairs := packBits(f, x, 2)
		f.Free(x)
		out := packBits(f, pairs, 4)
		f.Free(pairs)
		f.Store(out)
		f.Free(out)
	})
}

// packBits returns, for 2k byte vectors in memory order, k vectors whose
// byte j is element 2j with element 2j+1 shifted left by s above it.
func packBits(f *Func, b Vec, s uint32) Vec {
	lo := f.Alloc(len(b) / 2)
	hi := f.Alloc(len(b) / 2)
	f.Uzp1(B16, lo, b.Even(), b.Odd())
	f.Uzp2(B16, hi, b.Even(), b.Odd())
	f.Sli(B16, lo, hi, s)
	f.Free(hi)
	return lo
}

func i4ToI8(f *Func) {
	f.Stream(32, 4, func(k int) {
		x := f.Load(k)
		lo := f.Alloc(k)
		f.Shl(B16, lo, x, 4)
		f.Sshr(B16, lo, lo, 4)
		f.Sshr(B16, x, x, 4)
		out := unpackNibbles(f, lo, x)
		f.Free(lo, x)
		f.Store(out)
		f.Free(out)
	})
}

func u4ToU8(f *Func) {
	nibble := f.Dup8(0x0F)
	f.Stream(32, 4, func(k int) {
		x := f.Load(k)
		lo := f.Alloc(k)
		f.And(lo, x, nibble)
		f.Ushr(B16, x, x, 4)
		out := unpackNibbles(f, lo, x)
		f.Free(lo, x)
		f.Store(out)
		f.Free(out)
	})
}

// float32 → INT4: FCVTZS truncates and saturates (NaN → 0). Only the
// positive saturation 0x7FFFFFFF has a nonzero low nibble where f32ToI4
// gives 0: every other result of magnitude 2^27 or more is a multiple of
// 16, and the largest float32 below 2^31 converts to 0x7FFFFF80, so SMIN
// with that maps 0x7FFFFFFF to a multiple of 16 and changes nothing else.
func f32ToI4(f *Func) {
	limit := f.Dup32(0x7FFFFF80)
	f.Stream(32, 2, func(k int) {
		x := f.Load(8 * k)
		f.Fcvtzs(x, x)
		f.Smin(S4, x, x, limit)
		b := wordsToBytes(f, x)
		out := packNibbles(f, b)
		f.Free(b)
		f.Store(out)
		f.Free(out)
	})
}
