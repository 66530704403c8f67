package text

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// Why the fast path is exact
//
// Let D be the exact value of a decimal string and d = RN64(D) its float64
// rounded to nearest, ties to even, over the whole float64 range (subnormals
// included, ±Inf beyond the largest finite value plus half an ulp). d comes
// from, in order:
//
//   - Clinger's fast path: a mantissa below 2^53 and a power of ten up to
//     10^22 are both exact float64s, so one IEEE multiplication or division
//     rounds their exact product or quotient once;
//   - Eisel-Lemire (eisel.go), which returns RN64 or gives up;
//   - strconv.ParseFloat, which rounds correctly, on the text "<m>e<e>" of
//     the scanned 19-digit-at-most mantissa and exponent (strconv misreads
//     some strings of more than 800 digits, see ref's TestParseTies, so it
//     never sees the original text).
//
// Decimals of magnitude 10^400 or more, or below 10^-400, are ±Inf and ±0
// directly, as ref clamps them (maxMag).
//
// For more than 19 significant digits, D lies strictly between m × 10^e and
// (m+1) × 10^e (m: the first 19 digits); when Eisel-Lemire rounds both
// bounds to the same float64, RN64 being monotone, that is d; otherwise the
// exact reader decides.
//
// ref.Encode, as a function of the exact magnitude |D|, is a step function:
// it is constant on each open interval between consecutive "decision
// points" of the target, and the decision points are
//
//   - for the binary float targets (FLOAT, FLOAT16, BFLOAT16, the float8
//     types, FLOAT4E2M1): the midpoints between consecutive representable
//     magnitudes, including the midpoint between 0 and the smallest
//     subnormal and the one between the largest finite value and the next
//     power of two of the rounding grid (where overflow begins, whatever the
//     type then does on overflow: Inf, NaN or saturation);
//   - for FLOAT8E8M0: the powers of two (round_mode up and down) or the
//     points 1.5 × 2^k (nearest); its range limits are among these points.
//
// Each of these points has at most 25 significant bits and lies between
// 2^-150 and 2^129, so it is a float64 c, and RN64(c) = c. RN64 is monotone,
// so D < c gives d ≤ c and D > c gives d ≥ c. Hence when d is none of the
// decision points, d lies strictly on the same side of every decision point
// as D, in the same open interval, and ref.Encode gives the same result for
// the exact value of d as for D. The sign is the sign of D in both (RN64 is
// odd), and the boundary cases hold too: d = ±Inf only when |D| exceeds
// every target's overflow point, where Encode treats Inf and any finite
// overflow alike; d = 0 only when D = 0 or |D| ≤ 2^-1075, far below every
// target's smallest decision point, where every float target gives the zero
// of D's sign (no sign for the FNUZ types) and FLOAT8E8M0 gives its
// too-small result for zero and tiny values alike.
//
// So the fast path computes d, checks whether d is a decision point of the
// target (for the binary formats: the bits of d's significand below the
// target's last kept bit are exactly one half), and if it is not, narrows d
// exactly. If it is, the decimal may lie on either side of the boundary, and
// only the exact reader (ref.Parse) can tell: that is the fallback. DOUBLE
// needs no check, d is the result.
//
// Integer targets truncate toward zero and wrap; they are decided from the
// decimal digits themselves (the first 19 significant digits and the
// position of the point), never through a float64, and values of 10^19 or
// more (which may lie above 2^63 or 2^64) go to ref.Parse. BOOL is 0 exactly
// when the decimal has no nonzero digit.

// maxMant is how many significant digits scan keeps exactly: 10^19 - 1 fits
// in a uint64.
const maxMant = 19

// expCap clamps a written exponent as ref does: anything past it over- or
// underflows every target anyway.
const expCap = 100_000_000

// decimal is a scanned plain decimal: ±0.d1d2d3… × 10^mag.
type decimal struct {
	mant  uint64 // the first min(nd, maxMant) significant digits as an integer
	nd    int    // significant digits, from the first nonzero one to the end of the mantissa
	mag   int    // the decimal point's position: |value| = 0.d1d2… × 10^mag
	neg   bool
	trunc bool // a nonzero digit beyond the first maxMant was dropped
}

// scan reads a trimmed string with exactly ref's grammar for a plain decimal:
// an optional sign, digits with at most one '.', at least one digit, then
// optionally [eE][+-]?digits. It reports false for anything else, the
// special spellings ("inf", "nan") included.
func scan(t string) (d decimal, ok bool) {
	i := 0
	if len(t) > 0 && (t[0] == '+' || t[0] == '-') {
		d.neg = t[0] == '-'
		i = 1
	}
	digit, dot := false, false
	dp := 0
	for ; i < len(t); i++ {
		c := t[i]
		if c-'0' < 10 {
			digit = true
			if c == '0' && d.nd == 0 { // leading zero
				if dot {
					dp--
				}
				continue
			}
			if d.nd < maxMant {
				d.mant = d.mant*10 + uint64(c-'0')
			} else if c != '0' {
				d.trunc = true
			}
			d.nd++
			if !dot {
				dp++
			}
			continue
		}
		if c != '.' || dot {
			break
		}
		dot = true
	}
	if !digit {
		return d, false
	}
	exp := 0
	if i < len(t) {
		if t[i] != 'e' && t[i] != 'E' {
			return d, false
		}
		i++
		eneg := false
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			eneg = t[i] == '-'
			i++
		}
		if i == len(t) {
			return d, false
		}
		for ; i < len(t); i++ {
			c := t[i]
			if c-'0' >= 10 {
				return d, false
			}
			if exp < expCap {
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	d.mag = dp + exp
	return d, true
}

// trim returns s without the surrounding white space ref.Parse removes
// (strings.TrimSpace), looking at both ends first so that the common case
// costs two comparisons.
func trim(s string) string {
	if len(s) > 0 && (isSpaceOrHigh(s[0]) || isSpaceOrHigh(s[len(s)-1])) {
		return strings.TrimSpace(s)
	}
	return s
}

func isSpaceOrHigh(c byte) bool { return c <= ' ' || c >= 0x80 }

// Parse is ref.Parse, fast: the same result and the same error for every
// kind, string and option.
func Parse(k ref.Kind, s string, opt ref.Options) (uint64, error) {
	t := trim(s)
	if d, ok := scan(t); ok {
		if b, ok := decide(k, &d, opt); ok {
			return b, nil
		}
	}
	return ref.Parse(k, s, opt)
}

// decide converts a scanned decimal to kind k, or reports false where only
// ref.Parse can decide (and for kinds that are not numbers).
func decide(k ref.Kind, d *decimal, opt ref.Options) (uint64, bool) {
	switch k {
	case ref.Bool:
		if d.nd == 0 {
			return 0, true
		}
		return 1, true
	case ref.Int8, ref.Uint8, ref.Int16, ref.Uint16, ref.Int32, ref.Uint32, ref.Int64, ref.Uint64,
		ref.Int4, ref.Uint4, ref.Int2, ref.Uint2:
		return decideInt(k, d)
	}
	f, ok := d.float64()
	if !ok {
		return 0, false
	}
	switch k {
	case ref.Double:
		return math.Float64bits(f), true
	case ref.Float:
		if isTie(f, &fmtFloat) {
			return 0, false
		}
		// float32(f) rounds to nearest even with float32's subnormals and
		// Inf beyond its overflow point: ref's encoding of FLOAT exactly.
		return uint64(math.Float32bits(float32(f))), true
	case ref.Float8E8M0:
		return narrowE8M0(f, opt)
	}
	if p := narrowFormat(k); p != nil {
		return narrow(p, f, opt)
	}
	return 0, false
}

// float64 returns RN64 of the decimal, or false where the decimal has more
// significant digits than it keeps and they matter. Everything it uses is
// the scanned mantissa and magnitude, read exactly as ref reads them (the
// same exponent clamping, the same limits ±maxMag = 400), never the text
// again.
func (d *decimal) float64() (float64, bool) {
	switch {
	case d.nd == 0:
		if d.neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	case d.mag > 400: // at least 10^400: ref's Inf, and RN64 too
		if d.neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case d.mag < -400: // below 10^-400: ref's tiny value, RN64's zero
		if d.neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	e := d.mag - min(d.nd, maxMant) // |value| = mant × 10^e, or just above it if trunc
	if d.trunc {
		// The decimal lies strictly between mant × 10^e and (mant+1) ×
		// 10^e; if both round to the same float64, so does it (RN64 is
		// monotone).
		f1, ok1 := eiselLemire64(d.mant, e, d.neg)
		f2, ok2 := eiselLemire64(d.mant+1, e, d.neg)
		return f1, ok1 && ok2 && f1 == f2
	}
	if d.mant < 1<<53 && -22 <= e && e <= 22 {
		// Clinger: both operands exact, one correctly rounded operation.
		f := float64(d.mant)
		if e >= 0 {
			f *= pow10f[e]
		} else {
			f /= pow10f[-e]
		}
		if d.neg {
			f = -f
		}
		return f, true
	}
	if f, ok := eiselLemire64(d.mant, e, d.neg); ok {
		return f, true
	}
	// Subnormal results, and Eisel-Lemire's rare undecided cases: strconv,
	// on the canonical text of mant × 10^e (at most 19 digits).
	var buf [32]byte
	b := buf[:0]
	if d.neg {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, d.mant, 10)
	b = append(b, 'e')
	b = strconv.AppendInt(b, int64(e), 10)
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return f, true
}

var pow10f = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

var pow10u = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// decideInt truncates the decimal toward zero and wraps it to k's width, as
// ref's encodeInt does, from the decimal digits. Magnitudes of 10^19 or more
// go to ref.
func decideInt(k ref.Kind, d *decimal) (uint64, bool) {
	if d.nd == 0 || d.mag <= 0 { // |value| < 1
		return 0, true
	}
	if d.mag > maxMant {
		return 0, false
	}
	// The integer part is the first mag significant digits (mag ≤ 19).
	var u uint64
	if kept := min(d.nd, maxMant); d.mag >= kept {
		u = d.mant * pow10u[d.mag-kept] // mag digits: below 10^19
	} else {
		u = d.mant / pow10u[kept-d.mag]
	}
	if d.neg {
		if u > 1<<63 {
			return 0, true // below -2^63: ref gives 0
		}
		u = -u
	}
	if w := k.Bits(); w < 64 {
		u &= 1<<uint(w) - 1
	}
	return u, true
}

// format is a binary float target: significand bits, bias, the exponent
// field's all-ones value, the largest finite magnitude, the sign bit, what
// an overflow gives (without the sign) saturating and not, and whether a
// zero keeps its sign. The overflow values are ref's (format.overflow):
// Inf for the IEEE types except E5M2 under saturate, the largest finite
// value or NaN for E4M3FN, the largest or the one NaN 0x80 for the FNUZ
// types (0x80 | sign is still 0x80), and always the largest for FLOAT4E2M1.
// TestNarrowMatchesEncode checks every field against ref.Encode.
type format struct {
	mbits            int
	bias             int
	expMax           int
	maxBits          uint64
	sign             uint64
	ovfSat, ovfNoSat uint64
	unsignedZero     bool
}

var (
	fmtFloat    = format{23, 127, 255, 0x7F7FFFFF, 1 << 31, 0x7F800000, 0x7F800000, false}
	fmtFloat16  = format{10, 15, 31, 0x7BFF, 1 << 15, 0x7C00, 0x7C00, false}
	fmtBFloat16 = format{7, 127, 255, 0x7F7F, 1 << 15, 0x7F80, 0x7F80, false}
	fmtE4M3FN   = format{3, 7, 15, 0x7E, 0x80, 0x7E, 0x7F, false}
	fmtE4M3FNUZ = format{3, 8, 15, 0x7F, 0x80, 0x7F, 0x80, true}
	fmtE5M2     = format{2, 15, 31, 0x7B, 0x80, 0x7B, 0x7C, false}
	fmtE5M2FNUZ = format{2, 16, 31, 0x7F, 0x80, 0x7F, 0x80, true}
	fmtE2M1     = format{1, 1, 3, 0x7, 0x8, 0x7, 0x7, false}
)

func (p *format) overflow(sign uint64, opt ref.Options) uint64 {
	if opt.Saturate {
		return sign | p.ovfSat
	}
	return sign | p.ovfNoSat
}

func (p *format) zero(sign uint64) uint64 {
	if p.unsignedZero {
		return 0
	}
	return sign
}

func narrowFormat(k ref.Kind) *format {
	switch k {
	case ref.Float16:
		return &fmtFloat16
	case ref.BFloat16:
		return &fmtBFloat16
	case ref.Float8E4M3FN:
		return &fmtE4M3FN
	case ref.Float8E4M3FNUZ:
		return &fmtE4M3FNUZ
	case ref.Float8E5M2:
		return &fmtE5M2
	case ref.Float8E5M2FNUZ:
		return &fmtE5M2FNUZ
	case ref.Float4E2M1:
		return &fmtE2M1
	}
	return nil
}

// roundPos returns, for a normal nonzero float64 with bits b, its 53-bit
// significand m and how many low bits of m rounding to p drops (as ref's
// encode chooses the unit 2^q: max(ilog2, emin) - mbits), and q.
func roundPos(b uint64, p *format) (m uint64, shift, q int) {
	ilog := int(b>>52&0x7FF) - 1023
	m = b&(1<<52-1) | 1<<52
	q = max(ilog, 1-p.bias) - p.mbits
	return m, q - (ilog - 52), q
}

// isTie reports whether the finite float64 f is a decision point of p: its
// magnitude lies exactly halfway between two consecutive multiples of the
// target's unit at f's exponent (f is then a midpoint between two
// representable values, or between the largest and the overflow point).
func isTie(f float64, p *format) bool {
	b := math.Float64bits(f)
	if e := b >> 52 & 0x7FF; e == 0 || e == 0x7FF {
		return false // ±0, float64 subnormals (far below every midpoint), ±Inf
	}
	m, shift, _ := roundPos(b, p)
	if shift > 53 {
		return false // below half the smallest subnormal
	}
	half := uint64(1) << uint(shift-1)
	return m&(half<<1-1) == half
}

// narrow rounds the float64 f (not NaN) to the format p exactly as
// ref.Encode rounds f's exact value, with ref's steps, or reports false if f
// is a decision point of p.
func narrow(p *format, f float64, opt ref.Options) (uint64, bool) {
	b := math.Float64bits(f)
	sign := uint64(0)
	if b>>63 != 0 {
		sign = p.sign
	}
	switch b >> 52 & 0x7FF {
	case 0x7FF:
		if b&(1<<52-1) != 0 { // NaN: not produced by the callers
			return 0, false
		}
		return p.overflow(sign, opt), true
	case 0: // ±0 and float64 subnormals, far below half the smallest subnormal of p
		return p.zero(sign), true
	}
	m, shift, q := roundPos(b, p)
	if shift > 53 { // below half the smallest subnormal
		return p.zero(sign), true
	}
	half := uint64(1) << uint(shift-1)
	rem := m & (half<<1 - 1)
	if rem == half {
		return 0, false
	}
	sig := m >> uint(shift)
	if rem > half {
		sig++
	}
	if sig == 1<<uint(p.mbits+1) { // rounded up into the next binade
		sig >>= 1
		q++
	}
	bits := sig // subnormal: exponent field 0
	if sig >= 1<<uint(p.mbits) {
		e := q + p.mbits + p.bias
		if e > p.expMax {
			return p.overflow(sign, opt), true
		}
		bits = uint64(e)<<uint(p.mbits) | (sig - 1<<uint(p.mbits))
	}
	if bits > p.maxBits {
		return p.overflow(sign, opt), true
	}
	return sign | bits, true
}

// narrowE8M0 encodes f (not NaN) as FLOAT8E8M0 with ref's rules
// (encodeE8M0) unless f is one of that type's decision points for
// opt.Round: a power of two (up, down) or 1.5 × 2^k (nearest).
func narrowE8M0(f float64, opt ref.Options) (uint64, bool) {
	const bias = 127
	b := math.Float64bits(f)
	e64 := int(b >> 52 & 0x7FF)
	frac := b & (1<<52 - 1)
	switch {
	case e64 == 0x7FF:
		if frac != 0 {
			return 0, false
		}
		if opt.Saturate { // ±Inf: the sign is ignored
			return 0xFE, true
		}
		return 0xFF, true
	case e64 == 0: // ±0 and float64 subnormals: zero or far below 2^-127
		if opt.Saturate {
			return 0x00, true
		}
		return 0xFF, true
	}
	e := e64 - 1023
	if opt.Round == ref.RoundNearest {
		if frac == 1<<51 {
			return 0, false
		}
		if frac > 1<<51 { // significand above 1.5
			e++
		}
	} else {
		if frac == 0 {
			return 0, false
		}
		if opt.Round == ref.RoundUp { // not a power of two: up
			e++
		}
	}
	switch {
	case e > bias:
		if opt.Saturate {
			return 0xFE, true
		}
		return 0xFF, true
	case e < -bias:
		if opt.Saturate {
			return 0x00, true
		}
		return 0xFF, true
	}
	return uint64(e + bias), true
}

// FromStrings parses src into dst as kind k (dst holds k's raw layout and is
// long enough; sub-byte targets must be zeroed by the caller). On a malformed
// string it returns its index and ref.Parse's error; dst then holds the
// elements before it.
func FromStrings(dst []byte, k ref.Kind, src []string, opt ref.Options) (int, error) {
	switch k.Bits() {
	case 8:
		dst = dst[:len(src)]
		for i, s := range src {
			b, err := Parse(k, s, opt)
			if err != nil {
				return i, err
			}
			dst[i] = byte(b)
		}
	case 16:
		dst = dst[:2*len(src)]
		for i, s := range src {
			b, err := Parse(k, s, opt)
			if err != nil {
				return i, err
			}
			binary.LittleEndian.PutUint16(dst[2*i:], uint16(b))
		}
	case 32:
		dst = dst[:4*len(src)]
		for i, s := range src {
			b, err := Parse(k, s, opt)
			if err != nil {
				return i, err
			}
			binary.LittleEndian.PutUint32(dst[4*i:], uint32(b))
		}
	case 64:
		dst = dst[:8*len(src)]
		for i, s := range src {
			b, err := Parse(k, s, opt)
			if err != nil {
				return i, err
			}
			binary.LittleEndian.PutUint64(dst[8*i:], b)
		}
	default:
		for i, s := range src {
			b, err := Parse(k, s, opt)
			if err != nil {
				return i, err
			}
			ref.Put(k, dst, i, b)
		}
	}
	return len(src), nil
}
