package ref

import (
	"math/big"
	"strings"
)

// Limits of the exact decimal reader.
const (
	// maxDigits is how many significant digits are kept exactly; the rest
	// only set Sticky. Every point where some target's rounding changes (a
	// representable value or a tie between two of them: m × 2^k with
	// m < 2^54 and k ≥ -1075, and the integers) has at most 768 significant
	// decimal digits, so a decimal cut after 800 digits lies strictly between
	// the same two such points as the full decimal, and marking the cut as
	// Sticky rounds exactly like the full decimal would.
	maxDigits = 800
	// maxMag bounds the decimal magnitude: a nonzero decimal d with
	// 10^(mag-1) ≤ |d| < 10^mag is read as ±Inf when mag > maxMag (every
	// target overflows far below 10^400) and as a tiny value far below every
	// subnormal when mag < -maxMag (the smallest positive DOUBLE is ~5e-324).
	maxMag = 400
	// expCap saturates the written exponent so that "1e999999999999999999"
	// cannot overflow an int, even a 32-bit one (expCap·10+9 < 2^31); anything
	// past it is clamped anyway.
	expCap = 100_000_000
)

// tinyValue is |d| for a decimal below 10^-maxMag: it lies below half the
// smallest subnormal of every target, and is inexact (Sticky) so that the
// E8M0 "up" mode treats it as a nonzero value that is not a power of two.
func tinyValue(neg bool) Value {
	return Value{Class: Finite, Neg: neg, Mant: 1 << 63, Exp: -2000, Sticky: true}
}

// parseNumber reads a trimmed string as an exact Value: an optional sign
// followed by a decimal ("3.14", ".5", "5.", "1e-5", "1E8") or,
// case-insensitively, "inf", "infinity" or "nan". It reports false for
// anything else.
func parseNumber(t string) (Value, bool) {
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	switch {
	case strings.EqualFold(t, "inf"), strings.EqualFold(t, "infinity"):
		return Value{Class: Inf, Neg: neg}, true
	case strings.EqualFold(t, "nan"):
		return Value{Class: NaN, Neg: neg}, true
	}
	return parseDecimal(t, neg)
}

// parseDecimal reads an unsigned decimal mantissa with an optional exponent
// and returns its exact value (rounded only below the 64-bit Mant, with
// Sticky recording whether anything nonzero was lost).
func parseDecimal(t string, neg bool) (Value, bool) {
	var (
		ds      []byte // significant digits, leading zeros removed, at most maxDigits
		nd      int    // significant digits seen, including dropped ones
		dp      int    // the value is 0.d1d2d3… × 10^dp
		dropped bool   // a nonzero digit beyond maxDigits was dropped
		digit   bool   // the mantissa has at least one digit
		dot     bool
		i       int
	)
mantissa:
	for ; i < len(t); i++ {
		c := t[i]
		switch {
		case '0' <= c && c <= '9':
			digit = true
			if c == '0' && nd == 0 { // leading zero
				if dot {
					dp--
				}
				continue
			}
			if nd < maxDigits {
				ds = append(ds, c)
			} else if c != '0' {
				dropped = true
			}
			nd++
			if !dot {
				dp++
			}
		case c == '.':
			if dot {
				return Value{}, false
			}
			dot = true
		default:
			break mantissa
		}
	}
	if !digit {
		return Value{}, false
	}
	exp := 0
	if i < len(t) {
		if t[i] != 'e' && t[i] != 'E' {
			return Value{}, false
		}
		i++
		eneg := false
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			eneg = t[i] == '-'
			i++
		}
		if i == len(t) {
			return Value{}, false
		}
		for ; i < len(t); i++ {
			c := t[i]
			if c < '0' || c > '9' {
				return Value{}, false
			}
			if exp < expCap {
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if nd == 0 {
		return Value{Class: Zero, Neg: neg}, true
	}
	mag := dp + exp
	switch {
	case mag > maxMag:
		return Value{Class: Inf, Neg: neg}, true
	case mag < -maxMag:
		return tinyValue(neg), true
	}
	for len(ds) > 1 && ds[len(ds)-1] == '0' {
		ds = ds[:len(ds)-1]
	}
	v := exactValue(ds, mag-len(ds), dropped)
	v.Neg = neg
	return v, true
}

// exactValue returns the Finite value of the digits ds (no leading zero)
// times 10^e10, plus an infinitesimal when sticky is set.
func exactValue(ds []byte, e10 int, sticky bool) Value {
	// Fast path: an integer below 2^64 (most integer literals).
	if e10 >= 0 && len(ds)+e10 <= 19 {
		var u uint64
		for _, c := range ds {
			u = u*10 + uint64(c-'0')
		}
		for range e10 {
			u *= 10
		}
		v := FromUint(u, false)
		v.Sticky = sticky
		return v
	}
	num, _ := new(big.Int).SetString(string(ds), 10)
	den := big.NewInt(1)
	if e10 > 0 {
		num.Mul(num, pow10(e10))
	} else if e10 < 0 {
		den = pow10(-e10)
	}
	// Scale so that 2^64 ≤ num/den < 2^66: num/den ≥ 2^(bn-1-bd).
	s := 65 - num.BitLen() + den.BitLen()
	if s > 0 {
		num.Lsh(num, uint(s))
	} else if s < 0 {
		den.Lsh(den, uint(-s))
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	sh := q.BitLen() - 64 // 1 or 2
	if r.Sign() != 0 || q.TrailingZeroBits() < uint(sh) {
		sticky = true
	}
	q.Rsh(q, uint(sh))
	return Value{Class: Finite, Mant: q.Uint64(), Exp: sh - s, Sticky: sticky}
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}
