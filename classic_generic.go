package tensorcast

import (
	"math"
	"math/bits"
)

// The portable stages of the classic pairs (FLOAT, DOUBLE, the 8- to 64-bit
// integers, BOOL), registered under the "generic" tier: typed loops, one
// instantiation per pair, which the SIMD stages of the architecture files
// replace where they exist. They use Go's conversions only where the Go
// specification defines the result the same way on every architecture and it
// is ONNX's:
//
//   - integer → integer: Go's conversion wraps (two's complement), as ONNX does;
//   - float → integer: Go leaves out-of-range results to the implementation,
//     so truncWrap decides (truncate, wrap inside [-2^63, 2^64), else 0);
//   - integer → float: exact where the value fits the significand; beyond,
//     one rounding computed here (some 32-bit ports round int64 → float32
//     twice);
//   - NaN payloads: DOUBLE ↔ FLOAT NaNs are built bit by bit (some FPUs do not
//     keep payloads, and MIPS quiets NaNs the other way).

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type float interface{ ~float32 | ~float64 }

func init() {
	intTargets[int8](Int8)
	intTargets[uint8](Uint8)
	intTargets[int16](Int16)
	intTargets[uint16](Uint16)
	intTargets[int32](Int32)
	intTargets[uint32](Uint32)
	intTargets[int64](Int64)
	intTargets[uint64](Uint64)
	floatTargets[float32](Float)
	floatTargets[float64](Double)
	regGeneric(Float, Double, f32ToF64Slice)
	regGeneric(Double, Float, f64ToF32Slice)
	regGeneric(Bool, Int8, boolToNum[int8])
	regGeneric(Bool, Uint8, boolToNum[uint8])
	regGeneric(Bool, Int16, boolToNum[int16])
	regGeneric(Bool, Uint16, boolToNum[uint16])
	regGeneric(Bool, Int32, boolToNum[int32])
	regGeneric(Bool, Uint32, boolToNum[uint32])
	regGeneric(Bool, Int64, boolToNum[int64])
	regGeneric(Bool, Uint64, boolToNum[uint64])
	regGeneric(Bool, Float, boolToNum[float32])
	regGeneric(Bool, Double, boolToNum[float64])
	regGeneric(Bool, Bool, boolToNum[uint8])
}

// regGeneric registers the typed loop f as the portable stage from → to.
func regGeneric[D, S any](from, to DataType, f func(dst []D, src []S)) {
	registerStage("generic", from, to, func(dst, src []byte, n int) {
		f(view[D](dst, n), view[S](src, n))
	})
}

// intTargets registers every classic target of the integer source S.
func intTargets[S integer](from DataType) {
	for _, r := range []struct {
		to DataType
		f  func(dst, src []byte, n int)
	}{
		{Int8, typed(intToInt[S, int8])}, {Uint8, typed(intToInt[S, uint8])},
		{Int16, typed(intToInt[S, int16])}, {Uint16, typed(intToInt[S, uint16])},
		{Int32, typed(intToInt[S, int32])}, {Uint32, typed(intToInt[S, uint32])},
		{Int64, typed(intToInt[S, int64])}, {Uint64, typed(intToInt[S, uint64])},
		{Float, typed(intToF32[S])}, {Double, typed(intToF64[S])}, {Bool, typed(numToBool[S])},
	} {
		if r.to != from {
			registerStage("generic", from, r.to, r.f)
		}
	}
}

// floatTargets registers the integer and BOOL targets of the float source S.
func floatTargets[S float](from DataType) {
	for _, r := range []struct {
		to DataType
		f  func(dst, src []byte, n int)
	}{
		{Int8, typed(floatToInt[S, int8])}, {Uint8, typed(floatToInt[S, uint8])},
		{Int16, typed(floatToInt[S, int16])}, {Uint16, typed(floatToInt[S, uint16])},
		{Int32, typed(floatToInt[S, int32])}, {Uint32, typed(floatToInt[S, uint32])},
		{Int64, typed(floatToInt[S, int64])}, {Uint64, typed(floatToInt[S, uint64])},
		{Bool, typed(numToBool[S])},
	} {
		registerStage("generic", from, r.to, r.f)
	}
}

// typed adapts a typed loop to a stage on raw bytes.
func typed[D, S any](f func(dst []D, src []S)) func(dst, src []byte, n int) {
	return func(dst, src []byte, n int) { f(view[D](dst, n), view[S](src, n)) }
}

func intToInt[S, D integer](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

func numToBool[S integer | float](dst []uint8, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		var b uint8
		if v != 0 { // NaN too; -0.0 is zero
			b = 1
		}
		dst[i] = b
	}
}

func boolToNum[D integer | float](dst []D, src []uint8) {
	dst = dst[:len(src)]
	for i, v := range src {
		var d D
		if v != 0 {
			d = 1
		}
		dst[i] = d
	}
}

func floatToInt[S float, D integer](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(truncWrap(float64(v)))
	}
}

// truncWrap truncates toward zero and returns the two's complement bits,
// to be wrapped by the store; values outside [-2^63, 2^64), ±Inf and NaN
// give 0.
func truncWrap(f float64) uint64 {
	t := math.Trunc(f)
	switch {
	case t >= -0x1p63 && t < 0x1p63:
		return uint64(int64(t))
	case t >= 0x1p63 && t < 0x1p64:
		return uint64(t)
	}
	return 0
}

// signedInt reports whether S is a signed integer type.
func signedInt[S integer]() bool {
	var z S
	return ^z < 0
}

func intToF32[S integer](dst []float32, src []S) {
	dst = dst[:len(src)]
	signed := signedInt[S]()
	for i, v := range src {
		if int64(v) >= -1<<24 && int64(v) <= 1<<24 && (signed || uint64(v) <= 1<<24) {
			dst[i] = float32(int64(v)) // exact
			continue
		}
		u, neg := uint64(v), false
		if signed && int64(v) < 0 {
			u, neg = -u, true
		}
		dst[i] = math.Float32frombits(uint32(roundIntToFloat(u, neg, 24, 23, 0x80000000)))
	}
}

func intToF64[S integer](dst []float64, src []S) {
	dst = dst[:len(src)]
	signed := signedInt[S]()
	for i, v := range src {
		if int64(v) >= -1<<53 && int64(v) <= 1<<53 && (signed || uint64(v) <= 1<<53) {
			dst[i] = float64(int64(v)) // exact
			continue
		}
		u, neg := uint64(v), false
		if signed && int64(v) < 0 {
			u, neg = -u, true
		}
		dst[i] = math.Float64frombits(roundIntToFloat(u, neg, 53, 52, 1<<63))
	}
}

// roundIntToFloat rounds the magnitude u ≥ 2^p to nearest even at p
// significant bits and returns the float bits (mbits stored significand
// bits, the given sign bit): it keeps p+2 bits by round-to-odd, which the
// exact conversion of that small integer then rounds once more — the same
// result as one rounding of u (plan.go gives the argument) — and scales by
// the dropped power of two in the exponent field.
func roundIntToFloat(u uint64, neg bool, p, mbits int, signBit uint64) uint64 {
	s := max(0, 64-bits.LeadingZeros64(u)-(p+2))
	m := u >> uint(s)
	if u&(1<<uint(s)-1) != 0 {
		m |= 1
	}
	var b uint64
	if p == 24 {
		b = uint64(math.Float32bits(float32(m))) // m < 2^26: one rounding
	} else {
		b = math.Float64bits(float64(m)) // m < 2^55: one rounding
	}
	b += uint64(s) << uint(mbits)
	if neg {
		b |= signBit
	}
	return b
}

func f32ToF64Slice(dst []float64, src []float32) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v != v { // quiet, payload and sign kept
			b := uint64(math.Float32bits(v))
			dst[i] = math.Float64frombits(b>>31<<63 | 0x7FF8000000000000 | (b&0x7FFFFF)<<29)
			continue
		}
		dst[i] = float64(v)
	}
}

func f64ToF32Slice(dst []float32, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		if v != v { // quiet, sign and top payload bits kept
			b := math.Float64bits(v)
			dst[i] = math.Float32frombits(uint32(b>>63<<31) | 0x7FC00000 | uint32(b>>29)&0x3FFFFF)
			continue
		}
		dst[i] = float32(v)
	}
}
