package ref

// format describes a binary floating-point type: a sign bit (except E8M0), an
// exponent field and a significand field, plus how the type spells NaN, Inf
// and overflow. The type-specific rules are ONNX's (see the package README
// table in the repository root for the reasons behind each choice).
type format struct {
	ebits, mbits int
	bias         int
	style        style
	maxBits      uint64 // bit pattern of the largest finite magnitude
}

type style uint8

const (
	ieee style = iota // all-ones exponent: Inf (zero significand) or NaN
	fn                // E4M3FN: no Inf; S.1111.111 is NaN
	fnuz              // FNUZ: no Inf, no -0; 0x80 is the only NaN
	fp4               // E2M1: no Inf, no NaN
	e8m0              // E8M0: exponent only, no sign; 0xFF is NaN
)

var formats = [...]*format{
	Double:         {11, 52, 1023, ieee, 0x7FEFFFFFFFFFFFFF},
	Float:          {8, 23, 127, ieee, 0x7F7FFFFF},
	Float16:        {5, 10, 15, ieee, 0x7BFF},
	BFloat16:       {8, 7, 127, ieee, 0x7F7F},
	Float8E4M3FN:   {4, 3, 7, fn, 0x7E},
	Float8E4M3FNUZ: {4, 3, 8, fnuz, 0x7F},
	Float8E5M2:     {5, 2, 15, ieee, 0x7B},
	Float8E5M2FNUZ: {5, 2, 16, fnuz, 0x7F},
	Float4E2M1:     {2, 1, 1, fp4, 0x7},
	Float8E8M0:     {8, 0, 127, e8m0, 0xFE},
}

func (f *format) signBit() uint64 {
	if f.style == e8m0 {
		return 0
	}
	return 1 << uint(f.ebits+f.mbits)
}

func (f *format) expMax() uint64 { return 1<<uint(f.ebits) - 1 }

// decode returns the exact value of the bit pattern b.
func (f *format) decode(b uint64) Value {
	neg := b&f.signBit() != 0
	e := (b >> uint(f.mbits)) & f.expMax()
	m := b & (1<<uint(f.mbits) - 1)
	switch f.style {
	case ieee:
		if e == f.expMax() {
			if m == 0 {
				return Value{Class: Inf, Neg: neg}
			}
			if f.ebits+f.mbits < 8 { // E5M2: widening gives the canonical NaN (rule 3)
				return Value{Class: NaN, Neg: neg}
			}
			return Value{Class: NaN, Neg: neg, Payload: m << uint(64-f.mbits+1)}
		}
	case fn:
		if e == f.expMax() && m == 1<<uint(f.mbits)-1 {
			return Value{Class: NaN, Neg: neg}
		}
	case fnuz:
		if b == 0x80 {
			return Value{Class: NaN, Neg: true}
		}
	case e8m0:
		if b == 0xFF {
			return Value{Class: NaN}
		}
		return Value{Class: Finite, Mant: 1 << 63, Exp: int(e) - f.bias - 63}
	}
	if e == 0 { // zero or subnormal: m × 2^(1-bias-mbits)
		v := FromUint(m, neg)
		v.Exp += 1 - f.bias - f.mbits
		return v
	}
	v := FromUint(m|1<<uint(f.mbits), neg)
	v.Exp += int(e) - f.bias - f.mbits
	return v
}

// nan returns the target's NaN for a NaN value.
func (f *format) nan(k Kind, v Value) uint64 {
	sign := uint64(0)
	if v.Neg {
		sign = f.signBit()
	}
	switch k {
	case Float, Double, Float16:
		// A quiet NaN keeping the sign and the top payload bits, as x86
		// (CVTSD2SS, VCVTPS2PH) and ARM (FCVT, FCVTN) do.
		quiet := uint64(1) << uint(f.mbits-1)
		return sign | f.expMax()<<uint(f.mbits) | quiet | v.Payload>>uint(64-f.mbits+1)
	case BFloat16:
		return sign | 0x7FC0
	case Float8E4M3FN:
		return sign | 0x7F
	case Float8E5M2:
		return sign | 0x7E
	case Float4E2M1:
		return 0x8 // ONNX's data; see README: ONNX's float4 note says 6
	}
	return 0x80 // FNUZ; E8M0 handles NaN itself
}

// overflow returns the target's value for ±Inf and for finite values whose
// rounded magnitude exceeds the largest finite value.
func (f *format) overflow(k Kind, neg bool, saturate bool) uint64 {
	sign := uint64(0)
	if neg {
		sign = f.signBit()
	}
	switch f.style {
	case ieee:
		if saturate && k == Float8E5M2 { // the only IEEE-style type that saturates
			return sign | f.maxBits
		}
		return sign | f.expMax()<<uint(f.mbits) // ±Inf
	case fn:
		if saturate {
			return sign | f.maxBits
		}
		return sign | 0x7F // NaN keeping the sign
	case fnuz:
		if saturate {
			return sign | f.maxBits
		}
		return 0x80
	}
	return sign | f.maxBits // FLOAT4E2M1 always saturates
}

// encode rounds v to the format once, to nearest with ties to even.
func (f *format) encode(k Kind, v Value, opt Options) uint64 {
	if f.style == e8m0 {
		return encodeE8M0(v, opt)
	}
	sign := uint64(0)
	if v.Neg {
		sign = f.signBit()
	}
	switch v.Class {
	case NaN:
		return f.nan(k, v)
	case Inf:
		return f.overflow(k, v.Neg, opt.Saturate || k == Float4E2M1)
	case Zero:
		if f.style == fnuz {
			return 0
		}
		return sign
	}
	emin := 1 - f.bias // exponent of the smallest normal
	q := max(v.ilog2(), emin) - f.mbits
	sig := v.roundToInt(q) // value ≈ sig × 2^q
	if sig == 0 {
		if f.style == fnuz {
			return 0
		}
		return sign
	}
	if sig == 1<<uint(f.mbits+1) { // rounded up into the next binade
		sig >>= 1
		q++
	}
	var bits uint64
	if sig < 1<<uint(f.mbits) {
		bits = sig // subnormal: exponent field 0
	} else {
		e := uint64(q + f.mbits + f.bias)
		if e > f.expMax() {
			return f.overflow(k, v.Neg, opt.Saturate || k == Float4E2M1)
		}
		bits = e<<uint(f.mbits) | (sig - 1<<uint(f.mbits))
	}
	if bits > f.maxBits {
		return f.overflow(k, v.Neg, opt.Saturate || k == Float4E2M1)
	}
	return sign | bits
}

// encodeE8M0 implements ONNX's FLOAT8E8M0 table (Cast-24): the sign is
// ignored, values round to a power of two by opt.Round, and out-of-range
// values give 0xFE/0x00 when saturating and 0xFF (NaN) otherwise.
func encodeE8M0(v Value, opt Options) uint64 {
	const bias = 127
	switch v.Class {
	case NaN:
		return 0xFF
	case Inf:
		if opt.Saturate {
			return 0xFE
		}
		return 0xFF
	case Zero:
		if opt.Saturate {
			return 0x00
		}
		return 0xFF
	}
	e := v.ilog2()
	exact := v.Mant == 1<<63 && !v.Sticky
	switch opt.Round {
	case RoundUp:
		if !exact {
			e++
		}
	case RoundNearest:
		if v.Mant&(1<<62) != 0 { // significand ≥ 1.5: ties go up
			e++
		}
	}
	switch {
	case e > bias:
		if opt.Saturate {
			return 0xFE
		}
		return 0xFF
	case e < -bias:
		if opt.Saturate {
			return 0x00
		}
		return 0xFF
	}
	return uint64(e + bias)
}
