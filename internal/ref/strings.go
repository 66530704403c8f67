package ref

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Format returns the string form of one element of kind k whose bits are b
// (as Decode takes them), following rule 9 of the README's semantics table:
//
//   - floats: the shortest decimal that reads back (with Parse, rounding to
//     nearest) to the same bits, positional when 1e-4 ≤ |x| < 1e16 with ".0"
//     on integral values ("1.0", "-0.0", "65500.0"), scientific otherwise with
//     at least two exponent digits ("1e-07", "1.5e-05", "1e+16") — Python's
//     repr; NaN is "NaN" and ±Inf is "INF"/"-INF";
//   - integers of every width in decimal (two's complement in the low bits
//     for the signed kinds);
//   - BOOL as "True" or "False".
//
// It panics for kinds that have no numeric value (String, Undefined, the
// complex kinds and unknown numbers): tensorcast checks kinds first.
func Format(k Kind, b uint64) string {
	switch {
	case k == Bool:
		if b&0xFF != 0 {
			return "True"
		}
		return "False"
	case k.Signed():
		w := uint(64 - k.Bits())
		return strconv.FormatInt(int64(b<<w)>>w, 10)
	case k.IsInt():
		return strconv.FormatUint(b&mask(k), 10)
	case k.IsFloat():
		return formatFloat(k, b)
	}
	panic(fmt.Sprintf("ref: Format of unsupported kind %d", k))
}

// roundTrip is the reading under which Format's output must give back the
// source bits: round to nearest (for E8M0 its "nearest" mode), and no
// saturation, so that the decimal lies inside the value's own rounding
// interval rather than merely overflowing onto the maximum. Such a decimal
// reads back to the same bits under saturate=1 as well.
var roundTrip = Options{Saturate: false, Round: RoundNearest}

func formatFloat(k Kind, b uint64) string {
	b &= mask(k)
	v := Decode(k, b)
	switch v.Class {
	case NaN:
		return "NaN"
	case Inf:
		if v.Neg {
			return "-INF"
		}
		return "INF"
	case Zero:
		if v.Neg {
			return "-0.0"
		}
		return "0.0"
	}
	var digits string
	var exp int
	switch k {
	case Float8E8M0:
		// E8M0 holds powers of two: print the value as FLOAT would ("16.0",
		// "0.5", "5.877472e-39"), which reads back under round_mode nearest.
		// The shortest E8M0 round trip ("20.0" for 16) would surprise people.
		return Format(Float, Convert(Float, Float8E8M0, b, Options{}))
	case Float:
		digits, exp = splitE(strconv.FormatFloat(float64(math.Float32frombits(uint32(b))), 'e', -1, 32))
	case Double:
		digits, exp = splitE(strconv.FormatFloat(math.Float64frombits(b), 'e', -1, 64))
	default:
		digits, exp = shortest(k, b, v)
	}
	return render(v.Neg, digits, exp)
}

// shortest finds the fewest significant digits that Parse (under roundTrip)
// turns back into b, for a finite nonzero value v = Decode(k, b). It returns
// the digits without trailing zeros and the decimal exponent of the first
// digit.
//
// At each digit count p it tries the p-digit decimal nearest to v and its two
// p-digit neighbours: the decimals that read back to b form an interval around
// v, so if any p-digit decimal lies in it, one of those three does.
func shortest(k Kind, b uint64, v Value) (string, int) {
	// Every value of the narrow kinds is exact in a float64.
	x := math.Ldexp(float64(v.Mant), v.Exp)
	sign := ""
	if v.Neg {
		sign = "-"
	}
	reads := func(m uint64, e int) bool { // m × 10^e
		got, err := Parse(k, sign+strconv.FormatUint(m, 10)+"e"+strconv.Itoa(e), roundTrip)
		return err == nil && got == b
	}
	for p := 1; p <= 17; p++ {
		// strconv rounds x to p digits correctly: "d.ddde±XX".
		fs := strconv.FormatFloat(x, 'e', p-1, 64)
		i := strings.IndexByte(fs, 'e')
		m, err1 := strconv.ParseUint(strings.Replace(fs[:i], ".", "", 1), 10, 64)
		e, err2 := strconv.Atoi(fs[i+1:])
		if err1 != nil || err2 != nil {
			panic("ref: unexpected strconv output " + fs)
		}
		e -= p - 1 // v ≈ m × 10^e with exactly p digits in m
		lo, hi := pow10u(p-1), pow10u(p)
		if reads(m, e) {
			return trim(m, e, p)
		}
		// Below m: the next smaller p-digit decimal; 100…0 steps down a decade.
		if m == lo {
			if reads(hi-1, e-1) {
				return trim(hi-1, e-1, p)
			}
		} else if reads(m-1, e) {
			return trim(m-1, e, p)
		}
		if m == hi-1 {
			if reads(lo, e+1) {
				return trim(lo, e+1, p)
			}
		} else if reads(m+1, e) {
			return trim(m+1, e, p)
		}
	}
	// Unreachable: 17 digits identify every float64, and Parse rounds once.
	return splitE(strconv.FormatFloat(x, 'e', -1, 64))
}

// trim returns the digits of the p-digit integer m without trailing zeros
// and the decimal exponent of its first digit, for the value m × 10^e.
func trim(m uint64, e, p int) (string, int) {
	s := strings.TrimRight(strconv.FormatUint(m, 10), "0")
	return s, e + p - 1
}

func pow10u(n int) uint64 {
	u := uint64(1)
	for range n {
		u *= 10
	}
	return u
}

// splitE splits strconv's 'e' format ("-1.2345e+06") into the significant
// digits without trailing zeros ("12345") and the exponent of the first
// digit (6). The sign is ignored.
func splitE(s string) (string, int) {
	s = strings.TrimPrefix(s, "-")
	i := strings.IndexByte(s, 'e')
	exp, err := strconv.Atoi(s[i+1:])
	if err != nil {
		panic("ref: unexpected strconv output " + s)
	}
	digits := strings.Replace(s[:i], ".", "", 1)
	if t := strings.TrimRight(digits, "0"); t != "" {
		digits = t
	}
	return digits, exp
}

// render writes ±d.ddd × 10^exp in Python's repr style.
func render(neg bool, digits string, exp int) string {
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	switch {
	case exp < -4 || exp >= 16:
		sb.WriteByte(digits[0])
		if len(digits) > 1 {
			sb.WriteByte('.')
			sb.WriteString(digits[1:])
		}
		sb.WriteByte('e')
		if exp < 0 {
			sb.WriteByte('-')
			exp = -exp
		} else {
			sb.WriteByte('+')
		}
		if exp < 10 {
			sb.WriteByte('0')
		}
		sb.WriteString(strconv.Itoa(exp))
	case exp < 0:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -exp-1))
		sb.WriteString(digits)
	case len(digits) <= exp+1:
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", exp+1-len(digits)))
		sb.WriteString(".0")
	default:
		sb.WriteString(digits[:exp+1])
		sb.WriteByte('.')
		sb.WriteString(digits[exp+1:])
	}
	return sb.String()
}

// Parse converts a string to one element of kind k (bits as Encode returns
// them), following rule 10 of the README's semantics table: optional
// surrounding whitespace, an optional sign, then a plain or scientific decimal
// ("3.14", "1000", ".5", "5.", "1e-5", "1E8", "-0") or, in any case, "INF",
// "INFINITY" or "NaN" (a NaN keeps its sign). BOOL targets also take "true"
// and "false" in any case. The decimal is converted exactly and rounded once,
// directly to k by Encode (integers truncate toward zero and wrap).
//
// A malformed string gives an error quoting it; kinds without a numeric
// value (String, Undefined, the complex kinds) give an error too.
func Parse(k Kind, s string, opt Options) (uint64, error) {
	if k != Bool && !k.IsInt() && !k.IsFloat() {
		return 0, fmt.Errorf("ref: cannot parse a string as kind %d", k)
	}
	t := strings.TrimSpace(s)
	if k == Bool {
		switch {
		case strings.EqualFold(t, "true"):
			return 1, nil
		case strings.EqualFold(t, "false"):
			return 0, nil
		}
	}
	v, ok := parseNumber(t)
	if !ok {
		return 0, fmt.Errorf("invalid number %q", s)
	}
	return Encode(k, v, opt), nil
}
