package tensorcast

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// oddOracleF64 is the branchy f64ToF32Odd that the branch-free one
// replaced, kept as an oracle: it special-cases NaN and the overflow range,
// then steps back from a round-to-nearest that went up.
func oddOracleF64(x uint64) uint32 {
	sign := uint32(x>>32) & 0x80000000
	a := x &^ (1 << 63)
	switch {
	case a > 0x7FF0000000000000:
		return sign | 0x7FC00000 | uint32(a>>29)&0x3FFFFF
	case a >= 0x47F0000000000000:
		return sign | 0x7F800000
	}
	v := math.Float64frombits(a)
	f := float32(v)
	b := math.Float32bits(f)
	if float64(f) == v {
		return sign | b
	}
	if float64(f) > v {
		b--
	}
	return sign | b | 1
}

// oddOracleInt rounds an integer to float32 bits by round-to-odd with
// math/big: truncate to 24 bits, then set the last bit if anything was
// dropped (integers never reach float32's subnormals or overflow).
func oddOracleInt(u uint64, signed bool) uint32 {
	var x big.Float
	if signed {
		x.SetInt64(int64(u))
	} else {
		x.SetUint64(u)
	}
	var t big.Float
	t.SetPrec(24).SetMode(big.ToZero).Set(&x)
	f, _ := t.Float32() // exact: 24 bits
	b := math.Float32bits(f)
	if t.Cmp(&x) != 0 {
		b |= 1
	}
	return b
}

// edgeBits returns 64-bit patterns around every power of two and its
// neighbours (both signs), where shifts and roundings change.
func edgeBits() []uint64 {
	var v []uint64
	for k := 0; k < 64; k++ {
		p := uint64(1) << k
		for _, d := range []uint64{0, 1, 2, 3, ^uint64(0), ^uint64(1), p >> 1, p>>1 + 1, p>>1 - 1} {
			v = append(v, p+d, -(p + d), p-1+d)
		}
	}
	return append(v, 0, 1<<63, 1<<63-1, ^uint64(0))
}

// TestRoundToOddBranchFree checks f64ToF32Odd and intToF32Odd bit for bit:
// DOUBLE against the previous branchy implementation on every exponent with
// random significands and every NaN/Inf/overflow boundary; INT64 and UINT64
// against math/big on edge patterns and random values of every bit length.
func TestRoundToOddBranchFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 7))
	n := 2_000_000
	if testing.Short() {
		n = 300_000
	}
	var doubles []uint64
	for e := uint64(0); e < 2048; e++ {
		for _, m := range []uint64{0, 1, 1 << 28, 1<<28 - 1, 1<<28 + 1, 1<<29 - 1, 1 << 29, 1<<52 - 1, 1 << 51} {
			doubles = append(doubles, e<<52|m, 1<<63|e<<52|m)
		}
	}
	for range n {
		doubles = append(doubles, rng.Uint64())
	}
	doubles = append(doubles, edgeBits()...)
	for _, x := range doubles {
		if got, want := f64ToF32Odd(x), oddOracleF64(x); got != want {
			t.Fatalf("f64ToF32Odd(%#x) = %#x, want %#x", x, got, want)
		}
	}
	ints := edgeBits()
	for range n / 4 {
		ints = append(ints, rng.Uint64()>>rng.IntN(64))
	}
	for _, u := range ints {
		for _, signed := range []bool{false, true} {
			if got, want := intToF32Odd(u, signed), oddOracleInt(u, signed); got != want {
				t.Fatalf("intToF32Odd(%#x, signed=%v) = %#x, want %#x", u, signed, got, want)
			}
		}
	}
	// The steps' loops (the hardware-conversion path where hwIntToFloat).
	src := make([]byte, 8*len(ints))
	for i, u := range ints {
		binary.LittleEndian.PutUint64(src[8*i:], u)
	}
	dst := make([]byte, 4*len(ints))
	for _, from := range []DataType{Int64, Uint64} {
		toFloatOddStep(from).run(genericKernels(), dst, src, len(ints), Options{})
		for i, u := range ints {
			if got, want := binary.LittleEndian.Uint32(dst[4*i:]), oddOracleInt(u, from == Int64); got != want {
				t.Fatalf("%v -> FLOAT (round to odd) of %#x = %#x, want %#x", from, u, got, want)
			}
		}
	}
	t.Logf("%d DOUBLE and %d×2 integer inputs (×2 more through the steps): 0 mismatches", len(doubles), len(ints))
}

// TestClassicGenericBranchFree checks the portable classic stages whose
// loops were made branch-free (integer → FLOAT/DOUBLE, FLOAT/DOUBLE →
// integer) against the reference, bit for bit, on every power-of-two edge
// pattern (and, for float sources, those bits as floats: every exponent
// boundary, ±2^63, ±2^64, NaN, Inf) plus random bits.
func TestClassicGenericBranchFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 8))
	vals := edgeBits()
	for e := uint64(0); e < 2048; e++ { // DOUBLE exponents; their top halves cover FLOAT's
		for _, m := range []uint64{0, 1, 1<<52 - 1, 1 << 51, 1<<52 - 1<<29, 1<<29 + 1} {
			vals = append(vals, e<<52|m, 1<<63|e<<52|m)
		}
	}
	for e := uint64(0); e < 256; e++ {
		for _, m := range []uint64{0, 1, 1<<23 - 1, 1 << 22} {
			vals = append(vals, e<<23|m, 1<<31|e<<23|m)
		}
	}
	for range 100_000 {
		vals = append(vals, rng.Uint64())
	}
	n := len(vals)
	var pairs int
	for _, p := range [][2]DataType{
		{Int64, Float}, {Uint64, Float}, {Int32, Float}, {Uint32, Float}, {Int16, Float}, {Uint8, Float},
		{Int64, Double}, {Uint64, Double}, {Int32, Double}, {Uint32, Double},
		{Float, Int64}, {Float, Uint64}, {Float, Int32}, {Float, Uint32}, {Float, Int16}, {Float, Uint8}, {Float, Int8},
		{Double, Int64}, {Double, Uint64}, {Double, Int32}, {Double, Uint32}, {Double, Int16}, {Double, Uint8},
	} {
		from, to := p[0], p[1]
		src := make([]byte, from.Size(n))
		for i, v := range vals {
			for b := 0; b < from.Size(1); b++ {
				src[i*from.Size(1)+b] = byte(v >> (8 * b))
			}
		}
		want, got := make([]byte, to.Size(n)), make([]byte, to.Size(n))
		ref.Cast(want, ref.Kind(to), src, ref.Kind(from), n, refOptions(Options{}))
		simdStages["generic"][pairKey{from, to}](got, src, n)
		for i := 0; i < n; i++ {
			w, g := want[i*to.Size(1):(i+1)*to.Size(1)], got[i*to.Size(1):(i+1)*to.Size(1)]
			if string(w) != string(g) {
				t.Fatalf("%v -> %v of %x: got % x, want % x", from, to, src[i*from.Size(1):(i+1)*from.Size(1)], g, w)
			}
		}
		pairs++
	}
	t.Logf("%d pairs × %d inputs: 0 mismatches", pairs, n)
}

// TestF32ToF16Table checks the table-driven FLOAT → FLOAT16 element code
// against f32ToF16 on every sign and exponent with 4096 significands each
// (the rounding boundaries and random ones).
func TestF32ToF16Table(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 9))
	var n int
	for se := uint32(0); se < 512; se++ {
		for j := uint32(0); j < 4096; j++ {
			m := rng.Uint32() & 0x7FFFFF
			if j < 64 { // ties, one either side, and the ends, at every dropped-bit count
				k := j % 32
				m = []uint32{1 << k >> 1, 1<<k>>1 + 1, 1<<k>>1 - 1, 0x7FFFFF}[j/32*2%4+j%2] & 0x7FFFFF
				m |= (j / 2 % 4) << 21
			}
			x := se<<23 | m
			if got, want := f32ToF16Table(x), f32ToF16(x); got != want {
				t.Fatalf("f32ToF16Table(%#x) = %#x, want %#x", x, got, want)
			}
			n++
		}
	}
	t.Logf("%d inputs: 0 mismatches", n)
}

// TestNarrowLoopsMatchElements checks the loops that write the float8 and
// E8M0 element code out (narrowF8Bits, e8m0Bits) against the element
// functions f32ToF8 and f32ToE8M0, which the assembly mirrors, in every
// parameter set, on every sign and exponent with 512 significands each.
func TestNarrowLoopsMatchElements(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 1))
	var x []uint32
	for se := uint32(0); se < 512; se++ {
		for j := 0; j < 512; j++ {
			m := rng.Uint32() & 0x7FFFFF
			if j < 24 {
				m = 1<<j - 1 // the rounding boundaries
			} else if j < 48 {
				m = 1 << (j - 24)
			}
			x = append(x, se<<23|m)
		}
	}
	got := make([]uint8, len(x))
	for i := range float8Table {
		for j := range float8Table[i] {
			p := &float8Table[i][j]
			narrowF8Bits(got, x, p)
			for k, v := range x {
				if want := f32ToF8(v, p); got[k] != want {
					t.Fatalf("float8 params [%d][%d]: narrowF8Bits(%#x) = %#x, want %#x", i, j, v, got[k], want)
				}
			}
		}
	}
	for i := range e8m0Table {
		for j := range e8m0Table[i] {
			p := &e8m0Table[i][j]
			e8m0Bits(got, x, p)
			for k, v := range x {
				if want := f32ToE8M0(v, p); got[k] != want {
					t.Fatalf("e8m0 params [%d][%d]: e8m0Bits(%#x) = %#x, want %#x", i, j, v, got[k], want)
				}
			}
		}
	}
	t.Logf("%d inputs × 14 parameter sets: 0 mismatches", len(x))
}

// TestF64OddBF16 checks the one-step DOUBLE → BFLOAT16 round to odd of the
// portable fused kernels (double_generic.go) against its definition: round
// to odd at float32 (oddOracleF64), then at BFLOAT16 (the sticky bit of the
// low half). NaN may differ in payload (every NaN has one code in the
// tables) but must stay a NaN of the same sign. Every exponent field with
// edge significands (each side of the dropped bits, both signs), and random
// bits.
func TestF64OddBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 9))
	var xs []uint64
	for e := uint64(0); e < 2048; e++ {
		for _, m := range []uint64{0, 1, 1<<45 - 1, 1 << 45, 1<<45 + 1, 1 << 44, 1<<52 - 1, 1 << 51, 1<<52 - 1<<45, rng.Uint64() & (1<<52 - 1)} {
			xs = append(xs, e<<52|m, 1<<63|e<<52|m)
		}
	}
	xs = append(xs, edgeBits()...)
	for range 1_000_000 {
		xs = append(xs, rng.Uint64())
	}
	for _, x := range xs {
		f := oddOracleF64(x)
		want := uint16(f>>16) | uint16(min(f&0xFFFF, 1))
		got := f64OddBF16(x)
		isNaN := func(h uint16) bool { return h&0x7FFF > 0x7F80 }
		if got != want && !(isNaN(got) && isNaN(want) && got>>15 == want>>15) {
			t.Fatalf("f64OddBF16(%#x) = %#x, want %#x", x, got, want)
		}
	}
	t.Logf("%d DOUBLE inputs: 0 mismatches", len(xs))
}
