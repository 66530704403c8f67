package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f8Half emits the AVX2 kernels of the 8-bit float types → FLOAT16 and
// BFLOAT16 (f8HalfPairs), on 16-bit lanes in integer arithmetic only: a
// float8 value widens exactly, so its bits are the float8's fields moved
// and rebiased, except where the target has no such field (the float8's
// subnormals, E8M0's extremes, NaN and Inf). The signed types take one
// correction window (f8HalfWindow, f8halfwin.go). FLOAT8E8M0 → BFLOAT16
// takes, for each 16 bytes x (zero-extended to words):
//
//	r = (x + c0) << s            the normal values: s = Mt - M, c0 = (biasT - bias) << M
//	r = sub[sat(x - base)]       where x < limit (VPSHUFB, one table per byte)
//	r = out                      where x meets a special's test
//
// Every parameter is derived from the two formats' definitions
// (f8HalfPlan, f8HalfWindowPlan), and the generator replays each
// algorithm on all 256 bytes against the definitions before it emits a
// kernel, so a kernel that would differ from the reference does not build.
// VCVTPH2PS and VCVTPS2PH, which the kernels they replace used (widen8.go's
// F16/BF16 targets, lut.go's f8ToHalfAVX2), issue about once per two
// cycles on 256-bit registers on this Zen 5; here about 15 one-cycle
// instructions convert 16 elements.
func f8Half(a *Asm) {
	for _, k := range f8HalfPairs() {
		a.Func(k.name(), AVX2, "func(dst *uint8, src *uint8, n int)",
			fmt.Sprintf("n is a multiple of %d (gen/amd64 f8HalfPairs: %s → %s).", k.lanes(), k.f.goName, k.t.goName))
		if k.lanes() == 32 {
			wp, ok := f8HalfWindowPlan(k.f, k.t)
			if !ok {
				panic(fmt.Sprintf("f8Half: %s → %s needs more than one correction window", k.f.goName, k.t.goName))
			}
			f8HalfWindow(a, wp)
			continue
		}
		if k.f.e8m0 && k.t == halfF16 {
			e8m0F16(a)
			continue
		}
		e8m0BF16(a, f8HalfPlan(k.f, k.t))
	}
}

// e8m0BF16 is f8Half's FLOAT8E8M0 → BFLOAT16, 16 elements a step on words:
// x << 7 (c0 = 0), the sub table for x = 0 (2^-127, BFLOAT16's subnormal
// 0x0040) and the specials (0xFF: NaN); no sign.
func e8m0BF16(a *Asm, pl f8HalfParams) {
	if pl.base != 0 {
		panic("e8m0BF16: a table beyond 16 bytes")
	}
	dst, src, n := a.Args()
	// Constants in memory (Splat), which spares the 16 registers.
	w := func(v uint16) Op { return a.Splat(uint32(v) | uint32(v)<<16) }
	c0, below, high := w(uint16(pl.c0)), w(uint16(pl.limit-1)), w(0x8000)
	planes := wordPlanes(a, a.name+"_sub", pl.sub, false)
	type special struct{ at, out Op }
	var specials []special
	for _, sp := range pl.specials {
		specials = append(specials, special{w(sp.at), w(sp.out)})
	}
	a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
		m, r := a.YMM(), a.YMM()
		a.VPMOVZXBW(s.Src, m)
		a.VPADDW(c0, m, r)
		a.VPSLLW(U8(pl.s), r, r)
		// The sub table's entry, where m < limit.
		idx, v, t, ge := a.YMM(), a.YMM(), a.YMM(), a.YMM()
		a.VPOR(high, m, idx) // 0x80 in each high byte: VPSHUFB zeroes it
		switch {
		case planes[0] != nil && planes[1] != nil:
			a.VPSHUFB(idx, planes[0], v)
			a.VPSHUFB(idx, planes[1], t)
			a.VPSLLW(U8(8), t, t)
			a.VPOR(t, v, v)
		case planes[0] != nil:
			a.VPSHUFB(idx, planes[0], v)
		case planes[1] != nil:
			a.VPSHUFB(idx, planes[1], v)
			a.VPSLLW(U8(8), v, v)
		default:
			a.VPXOR(v, v, v)
		}
		a.VPCMPGTW(below, m, ge) // m ≥ limit
		a.VPBLENDVB(ge, r, v, r)
		for i, sp := range pl.specials {
			c := a.YMM()
			if sp.gt {
				a.VPCMPGTW(specials[i].at, m, c)
			} else {
				a.VPCMPEQW(specials[i].at, m, c)
			}
			a.VPBLENDVB(c, specials[i].out, r, r)
		}
		s.Store(r, s.Dst, 16, nil)
	}))
}

// e8m0F16 is f8Half's FLOAT8E8M0 → FLOAT16: x << 23 is the float32 of
// 2^(x-127) (+0 for x = 0, 2^-127, which FLOAT16 rounds to 0 anyway; +Inf
// for 0xFF, which takes the quiet bit 0x00400000 to be NaN), and VCVTPS2PH
// rounds it as the reference does: to 0 below 2^-24 (2^-25 is a tie, to
// the even 0), subnormals exact, Inf from 2^16, NaN to 0x7E00. Six
// instructions per 8 elements against about 16 per 16 on f8Half's route
// (0.28× copy() there).
func e8m0F16(a *Asm) {
	dst, src, n := a.Args()
	inf, quiet := a.Splat(0x7F800000), a.Splat(0x00400000)
	a.Stream(Loop{SrcSize: 1, DstSize: 2, Lanes: 16, Unroll: 2}, dst, src, n, Each(8, func(s *Step) {
		x, m := a.YMM(), a.YMM()
		a.VPMOVZXBD(s.Src, x)
		a.VPSLLD(U8(23), x, x)
		a.VPCMPEQD(inf, x, m)
		a.VPAND(quiet, m, m)
		a.VPOR(m, x, x)
		a.VCVTPS2PH(U8(0), x, x.AsX())
		s.Store(x.AsX().(VecVirtual), s.Dst, 16, nil)
	}))
}

// wordPlanes loads the low and high bytes of the 16 words t as two
// VPSHUFB tables (each in both 128-bit lanes), named prefix0 and prefix1;
// a plane is nil where all its bytes are zero, unless keep.
func wordPlanes(a *Asm, prefix string, t [16]uint16, keep bool) (planes [2]VecVirtual) {
	for i := range planes {
		var b [32]byte
		used := false
		for j := range 16 {
			b[j] = byte(t[j] >> (8 * i))
			b[16+j] = b[j]
			used = used || b[j] != 0
		}
		if used || keep {
			planes[i] = a.ConstBytes(fmt.Sprintf("%s%d", prefix, i), b[:])
		}
	}
	return planes
}

// f8Format describes an 8-bit float type by its fields: m significand
// bits, the exponent bias, and its special values.
type f8Format struct {
	name, goName string
	m, bias      int
	fnuz         bool // 0x80 is the NaN; no -0, no Inf (E4M3FNUZ, E5M2FNUZ)
	fn           bool // the magnitude 0x7F is NaN; no Inf (E4M3FN)
	ieee         bool // exponent all ones: Inf (significand 0) or NaN (E5M2)
	e8m0         bool // unsigned, no significand: 2^(b-127), 0xFF NaN
}

var f8Formats = []f8Format{
	{name: "e4m3fn", goName: "Float8E4M3FN", m: 3, bias: 7, fn: true},
	{name: "e4m3fnuz", goName: "Float8E4M3FNUZ", m: 3, bias: 8, fnuz: true},
	{name: "e5m2", goName: "Float8E5M2", m: 2, bias: 15, ieee: true},
	{name: "e5m2fnuz", goName: "Float8E5M2FNUZ", m: 2, bias: 16, fnuz: true},
	{name: "e8m0", goName: "Float8E8M0", m: 0, bias: 127, e8m0: true},
}

// f8FormatNamed returns the format of f8Formats named typ.
func f8FormatNamed(typ string) f8Format {
	for _, f := range f8Formats {
		if f.name == typ {
			return f
		}
	}
	panic("no float8 format " + typ)
}

// decode returns the value of the byte b (NaN as math.NaN with b's sign).
func (f f8Format) decode(b byte) float64 {
	if f.e8m0 {
		if b == 0xFF {
			return math.NaN()
		}
		return math.Ldexp(1, int(b)-127)
	}
	neg := b&0x80 != 0
	e, man := int(b&0x7F)>>f.m, int(b)&(1<<f.m-1)
	var v float64
	switch {
	case f.fnuz && b == 0x80, f.fn && b&0x7F == 0x7F, f.ieee && e == 1<<(7-f.m)-1 && man != 0:
		v = math.NaN()
	case f.ieee && e == 1<<(7-f.m)-1:
		v = math.Inf(1)
	case e == 0:
		v = math.Ldexp(float64(man), 1-f.bias-f.m)
	default:
		v = math.Ldexp(float64(1<<f.m|man), e-f.bias-f.m)
	}
	if neg {
		v = math.Copysign(v, -1)
	}
	return v
}

// halfFormat is FLOAT16 or BFLOAT16.
type halfFormat struct {
	suffix, goName string
	m, bias        int
}

var (
	halfF16  = halfFormat{"F16", "Float16", 10, 15}
	halfBF16 = halfFormat{"BF16", "BFloat16", 7, 127}
)

// encode returns the bits of v, which is NaN (sign | quiet NaN without
// payload, the reference's widening), ±Inf, or a value that the format
// holds exactly or, for E8M0's powers of two, one beyond its range, which
// rounds to ±0 or ±Inf (2^(emin-m-1), half the smallest subnormal, is a tie
// and rounds to the even 0).
func (h halfFormat) encode(v float64) uint16 {
	var sign uint16
	if math.Signbit(v) {
		sign, v = 0x8000, -v
	}
	inf := uint16(1<<(15-h.m)-1) << h.m
	switch {
	case math.IsNaN(v):
		return sign | inf | 1<<(h.m-1)
	case math.IsInf(v, 0):
		return sign | inf
	case v == 0:
		return sign
	}
	frac, exp := math.Frexp(v) // v = frac · 2^exp, frac ∈ [0.5, 1)
	e := exp - 1 + h.bias      // the biased exponent of a normal result
	switch {
	case e >= int(inf>>h.m):
		return sign | inf
	case e >= 1:
		man := math.Ldexp(frac, h.m+1) - float64(uint(1)<<h.m)
		if man != math.Trunc(man) {
			panic(fmt.Sprint(v, " is not exact in ", h.goName))
		}
		return sign | uint16(e)<<h.m | uint16(man)
	}
	units := math.Ldexp(v, h.bias-1+h.m) // in subnormal units
	if units <= 0.5 {
		return sign
	}
	if units != math.Trunc(units) {
		panic(fmt.Sprint(v, " is not exact in ", h.goName))
	}
	return sign | uint16(units)
}

// f8HalfKernel is one entry of f8HalfPairs.
type f8HalfKernel struct {
	f f8Format
	t halfFormat
}

func (k f8HalfKernel) name() string { return k.f.name + "To" + k.t.suffix + "WAVX2" }

// lanes is 32 for the kernels of f8HalfWindow, else 16.
func (k f8HalfKernel) lanes() int {
	if !k.f.e8m0 {
		return 32
	}
	return 16
}

// f8HalfPairs is the table: every 8-bit float type to both 16-bit ones,
// but FLOAT8E5M2 → FLOAT16, its high byte, whose kernel in lut.go
// (f8ToHalfAVX2) measured faster (0.69× copy() against 0.24× on 16-bit
// lanes).
func f8HalfPairs() (ks []f8HalfKernel) {
	for _, t := range []halfFormat{halfF16, halfBF16} {
		for _, f := range f8Formats {
			if f.name != "e5m2" || t != halfF16 {
				ks = append(ks, f8HalfKernel{f, t})
			}
		}
	}
	return ks
}

// f8HalfParams are e8m0BF16's constants.
type f8HalfParams struct {
	c0, s       int
	limit, base int // sub holds the values of the bytes base..base+15; it serves x < limit
	sub         [16]uint16
	specials    []f8Special
}

// f8Special: where x equals at (exceeds it, if gt), the result is out.
type f8Special struct {
	gt      bool
	at, out uint16
}

// f8HalfPlan derives e8m0BF16's parameters of FLOAT8E8M0 → t and checks
// them by replaying the kernel on every byte against the definitions
// (decode, encode).
func f8HalfPlan(f f8Format, t halfFormat) f8HalfParams {
	if !f.e8m0 {
		panic("f8HalfPlan: " + f.goName + " (the signed types take f8HalfWindowPlan)")
	}
	want := func(b int) uint16 { return t.encode(f.decode(byte(b))) }
	p := f8HalfParams{c0: (t.bias - f.bias) << f.m, s: t.m - f.m}
	inf := uint16(1<<(15-t.m)-1) << t.m
	nan := inf | 1<<(t.m-1) // quiet, no payload
	over := 0xFF            // the first byte beyond the target's range
	for b := 0; b < 0xFF; b++ {
		if want(b) == inf {
			over = b
			break
		}
	}
	if over < 0xFF {
		p.specials = append(p.specials, f8Special{gt: true, at: uint16(over - 1), out: inf})
	}
	p.specials = append(p.specials, f8Special{at: 0xFF, out: nan})
	special := func(x int) bool {
		for _, sp := range p.specials {
			if sp.gt && x > int(sp.at) || !sp.gt && x == int(sp.at) {
				return true
			}
		}
		return false
	}
	// limit: above the largest byte whose normal formula is wrong.
	for x := range 256 {
		if !special(x) && uint16((x+p.c0)<<p.s) != want(x) {
			p.limit = x + 1
		}
	}
	p.base = max(p.limit-16, 0)
	for j := range p.sub {
		if x := p.base + j; x < p.limit { // the rest stay 0: fewer byte planes
			p.sub[j] = want(x)
		}
	}
	// Replay the kernel.
	for x := range 256 {
		r := uint16((x + p.c0) << p.s)
		if x < p.limit {
			r = p.sub[max(x-p.base, 0)]
		}
		if special(x) {
			for _, sp := range p.specials {
				if sp.gt && x > int(sp.at) || !sp.gt && x == int(sp.at) {
					r = sp.out
				}
			}
		}
		if r != want(x) {
			panic(fmt.Sprintf("f8Half %s → %s: byte %#02x gives %#04x, want %#04x", f.goName, t.goName, x, r, want(x)))
		}
	}
	return p
}
