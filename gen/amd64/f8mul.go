package amd64

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// f8Mul is widenF8To's kernel of a float8 type → INT16/UINT16 (bits 16),
// INT8/UINT8 (bits 8), or INT4/UINT4 and INT2/UINT2 (bits 4, 2: the bytes'
// low bits, packed in registers) in 16-bit integer arithmetic, without float
// conversions. The reference truncates toward zero and wraps (the bits of
// the signed and unsigned targets are the same). With S = 2^M + m the
// significand of a normal value and i an index derived from its exponent E,
// the value is S·2^(i+c) and its truncation the high half of a 16×16-bit
// product:
//
//	t = VPMULHUW(A, P[i]),  A = S << s,  P[i] = 2^(i+c+16-s)
//
// floored as truncation wants, with P[i] = 0 where the value is below 1
// (subnormals included). VPSHUFB looks both bytes of P up by i and the byte
// S << (s-8) up by the low nibble of the magnitude, and VPSIGNW (VPSIGNB for
// bytes) gives t the sign of the source byte.
//
//   - E4M3FN, E4M3FNUZ (M 3, bias b 7 or 8): i = E, c = -b-3, s = 8: P ≤ 2^13
//     and t ≤ 480.
//   - E5M2, E5M2FNUZ (M 2, b 15 or 16): i = E - b, 0..15 for every value of
//     at least 1 (0x70 added with saturation puts i < 0 and E5M2's Inf and
//     NaN, i = 16, at or above 0x80, where VPSHUFB reads 0); c = -2,
//     s = 13, so P = 2^(i+1). i = 15, t = A, would need P = 2^16: a third
//     table marks it and a blend takes A. For bytes, P = 0 from i = 10 on
//     (t is then a multiple of 256).
//
// The NaN bytes give 0, as the integer targets want: E4M3FN's magnitude
// 0x7F is cleared first; the FNUZ types' 0x80 has magnitude 0. Bytes take
// t & 0xFF packed with VPACKUSWB. About 11 instructions per 16 elements
// where the FLOAT16 route (VCVTPH2PS, VCVTTPS2DQ) takes 15 costlier ones.
//
// Measured and dropped (Zen 3, 2026-11-28): for the packed targets, a byte
// product instead, a = S and pow[E] = 2^(E-b) ≤ 2^7 by VPSHUFB, the even
// and odd bytes by two VPMADDUBSW, t = lo>>M | hi<<(8-M), VPSIGNB: 14
// instructions per 32 bytes for the E4M3 types (16 for E5M2, whose 5-bit
// exponent needs a clamp and a subtraction) against 20, but only 1.00-1.06×
// this kernel's rate for E4M3FN → INT4/INT2 (best of three, 64 Ki) and
// 0.55-0.75× f8Windows' for E5M2 → INT4: the multiplies and shuffles share
// ports, so the count is not the cost.
func f8Mul(a *Asm, typ string, bits int, dst, src, n GPVirtual) {
	f, mp := f8MulPlan(typ, bits)
	e5 := f.m == 2
	var plo, phi, top, mant [32]byte
	for i := range 16 {
		plo[i], plo[16+i] = byte(mp.p[i]), byte(mp.p[i])
		phi[i], phi[16+i] = byte(mp.p[i]>>8), byte(mp.p[i]>>8)
		top[i], top[16+i] = mp.top[i], mp.top[i]
		mant[i], mant[16+i] = mp.sig[i], mp.sig[i]
	}
	name := fmt.Sprintf("%s_mul%d_", typ, bits)
	pLo, pHi := a.ConstBytes(name+"plo", plo[:]), a.ConstBytes(name+"phi", phi[:])
	mt := a.ConstBytes(name+"sig", mant[:])
	var tp VecVirtual
	if e5 && bits == 16 {
		tp = a.ConstBytes(name+"top", top[:])
	}
	zero := a.Vec()
	a.VPXOR(zero, zero, zero)
	b7f := a.Const8(0x7F)
	expMask, push, bias, low := a.Splat(0x0F0F0F0F), a.Splat(0x70707070), a.Splat(uint32(f.bias)*0x01010101), a.Splat(0x00FF00FF)
	var pk packConsts
	if bits < 8 {
		pk = a.packConsts(bits)
	}
	if e5 {
		expMask = a.Splat(0x1F1F1F1F)
	}
	// Steps of widen8Targets' lanes (16 for I16, in XMM registers; 32 for
	// I8), two at a time for I16 in YMM ones; the packed targets take 32
	// bytes of dst a step (64 or 128 source bytes).
	loop := Loop{SrcSize: 1, DstSize: 2, Lanes: 16, Unroll: 2}
	switch bits {
	case 8:
		loop = Loop{SrcSize: 1, DstSize: 1, Lanes: 32, Unroll: 4}
	case 4, 2:
		loop = Loop{SrcSize: 8 / bits, DstSize: 1, Lanes: 32, Unroll: 1}
	}
	a.Stream(loop, dst, src, n, func(st *Step) {
		c := func(v VecVirtual) VecVirtual { return v }
		if st.Lanes == 16 {
			c = func(v VecVirtual) VecVirtual { return v.AsX().(VecVirtual) }
		}
		core := func(m Mem) (x VecVirtual, ts []VecVirtual) {
			x, mg, i := a.Vec(), a.Vec(), a.Vec()
			switch {
			case st.Lanes == 16 || bits <= 8: // bytes: unpacking and packing lane by lane keeps the order
				a.VMOVDQU(m, c(x))
			default:
				a.VPERMQ(U8(0b11_01_10_00), m, x) // unpacking lane by lane then gives elements 0..15, 16..31
			}
			a.VPAND(c(b7f), c(x), c(mg))
			if typ == "e4m3fn" && !mp.keepNaN {
				nan := a.Vec()
				a.VPCMPEQB(c(b7f), c(mg), c(nan))
				a.VPANDN(c(mg), c(nan), c(mg)) // NaN: magnitude 0, so E = 0 and P = 0
			}
			a.VPSRLW(U8(f.m), c(mg), c(i))
			a.VPAND(expMask, c(i), c(i)) // E
			if e5 {
				a.VPSUBB(bias, c(i), c(i))
				a.VPADDUSB(push, c(i), c(i))
			}
			pl, ph, mt2 := a.Vec(), a.Vec(), a.Vec()
			a.VPSHUFB(c(i), c(pLo), c(pl))
			a.VPSHUFB(c(i), c(pHi), c(ph))
			a.VPSHUFB(c(mg), c(mt), c(mt2)) // mg < 0x80: VPSHUFB reads its low nibble
			var tm VecVirtual
			if tp != nil {
				tm = a.Vec()
				a.VPSHUFB(c(i), c(tp), c(tm))
			}
			for h := range 2 {
				unpack := a.VPUNPCKLBW
				if h == 1 {
					unpack = a.VPUNPCKHBW
				}
				p, am, t := a.Vec(), a.Vec(), a.Vec()
				unpack(c(ph), c(pl), c(p))     // P: low byte pl, high byte ph
				unpack(c(mt2), c(zero), c(am)) // A = S << s
				a.VPMULHUW(c(p), c(am), c(t))
				if tm != nil {
					k := a.Vec()
					unpack(c(tm), c(tm), c(k))
					a.VPBLENDVB(c(k), c(am), c(t), c(t)) // i = 15: A
				}
				ts = append(ts, t)
			}
			return x, ts
		}
		// bytes returns the 32 results of the bytes at m, each the truncation
		// modulo 2^8 (the packed targets read its low bits).
		bytes := func(m Mem) VecVirtual {
			x, ts := core(m)
			if !mp.bytes {
				for _, t := range ts {
					a.VPAND(low, t, t)
				}
			}
			a.VPACKUSWB(ts[1], ts[0], ts[0])
			a.VPSIGNB(x, ts[0], ts[0])
			return ts[0]
		}
		switch bits {
		case 16:
			x, ts := core(st.Src)
			for h, t := range ts {
				unpack := a.VPUNPCKLBW
				if h == 1 {
					unpack = a.VPUNPCKHBW
				}
				sg := a.Vec()
				unpack(c(x), c(x), c(sg))    // the source byte twice: its sign is the word's
				a.VPSIGNW(c(sg), c(t), c(t)) // x = 0 has t = 0; -0 negates 0
				st.Store(c(t), st.Dst.Offset(st.Lanes*h), 16, nil)
			}
		case 8: // unrolled: four steps of 32 bytes
			for i := 0; i < st.Lanes; i += 32 {
				p := st.Part(i, 32)
				p.Store(bytes(p.Src), p.Dst, 8, nil)
			}
		default:
			st.Store(pk.pack(func(i int) VecVirtual { return bytes(st.Src.Offset(32 * i)) }), st.Dst, 8, nil)
		}
	})
}

// f8MulParams are f8Mul's tables (one 16-entry half of each): the powers P
// and the blend mask by i, the high byte of A by the magnitude's low nibble.
// For the packed targets, P is 0 at every i whose results are all
// multiples of 2^bits; then bytes (every t below 2^8) need no mask before
// VPACKUSWB, and FLOAT8E4M3FN's NaN (480, i = 15) needs no clearing where
// P[15] is 0.
type f8MulParams struct {
	p       [16]uint16
	top     [16]byte
	sig     [16]byte
	bytes   bool // every t < 2^8
	keepNaN bool // FLOAT8E4M3FN's magnitude 0x7F needs no clearing
}

// f8MulPlan returns the format of typ and f8Mul's tables for the target
// width bits, after replaying the kernel's arithmetic on all 256 bytes
// against the truncation of each value (decode), wrapped: a wrong table
// stops the generator.
func f8MulPlan(typ string, bits int) (f8Format, f8MulParams) {
	f := f8FormatNamed(typ)
	e5, s := f.m == 2, 8
	if e5 {
		s = 13
	}
	var mp f8MulParams
	for i := range 16 {
		if e5 {
			if i < 15 && (bits == 16 || i < 10) {
				mp.p[i] = 1 << (i + 1)
			}
			if i == 15 && bits == 16 {
				mp.top[i] = 0xFF
			}
		} else if i >= f.bias {
			mp.p[i] = 1 << (i - f.bias - 3 + 16 - s)
		}
		mp.sig[i] = byte((1<<f.m | i&(1<<f.m-1)) << (s - 8))
	}
	mask := uint64(1)<<bits - 1
	product := func(mg, i int) uint64 {
		am := uint64(mp.sig[mg&15]) << 8
		if mp.top[i&15] != 0 {
			return am
		}
		return am * uint64(mp.p[i&15]) >> 16
	}
	if bits < 8 {
		for i := range 16 {
			zero := true
			for mg := range 16 {
				zero = zero && product(mg, i)&mask == 0
			}
			if zero {
				mp.p[i] = 0
			}
		}
		mp.keepNaN = f.fn && mp.p[15] == 0
	}
	mp.bytes = true
	for b := range 256 {
		mg := b & 0x7F
		if f.fn && mg == 0x7F && !mp.keepNaN {
			mg = 0
		}
		i := mg >> f.m
		if e5 {
			i = min(int(uint8(i-f.bias))+0x70, 0xFF) // VPSUBB, VPADDUSB
			if i&0x80 != 0 {
				i = -1 // VPSHUFB's zero
			}
		}
		var t uint64
		if i >= 0 {
			t = product(mg, i)
		}
		mp.bytes = mp.bytes && t < 256
		t &= mask
		if b&0x80 != 0 {
			t = -t & mask
		}
		v := f.decode(byte(b))
		var want uint64
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			want = uint64(int64(math.Trunc(v))) & mask
		}
		if t != want {
			panic(fmt.Sprintf("f8Mul %s → %d bits: byte %#02x gives %#x, want %#x", typ, bits, b, t, want))
		}
	}
	return f, mp
}
