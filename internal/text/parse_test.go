package text

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// allOptions are the saturate × round_mode combinations.
var allOptions = []ref.Options{
	{Saturate: true, Round: ref.RoundUp}, {Saturate: true, Round: ref.RoundDown}, {Saturate: true, Round: ref.RoundNearest},
	{Saturate: false, Round: ref.RoundUp}, {Saturate: false, Round: ref.RoundDown}, {Saturate: false, Round: ref.RoundNearest},
}

// allKinds are every kind number ref knows and a few it does not (errors).
func allKinds() []ref.Kind {
	var ks []ref.Kind
	for k := ref.Kind(-1); k <= 28; k++ {
		ks = append(ks, k)
	}
	return ks
}

// same compares Parse with ref.Parse: the same bits, or the same error text.
func same(t *testing.T, k ref.Kind, s string, opt ref.Options) bool {
	t.Helper()
	got, err := Parse(k, s, opt)
	want, werr := ref.Parse(k, s, opt)
	if (err == nil) != (werr == nil) || (err != nil && err.Error() != werr.Error()) || (err == nil && got != want) {
		t.Errorf("Parse(%d, %.90q (%d bytes), %+v) = %#x, %v; ref %#x, %v", k, s, len(s), opt, got, err, want, werr)
		return false
	}
	return true
}

// spellings are the hand-picked strings: the grammar's corners, the
// boundaries of every type, huge and tiny exponents, and malformed text.
func spellings() []string {
	long := strings.Repeat("9", 850)
	return []string{
		// Grammar.
		"0", "-0", "+0", "0.0", "-0.0", "00000", "0e0", "0e999999999", "-0e-999999999", "+0.0e+10",
		".5", "-.5", "+.5e+3", "5.", "-5.e-1", "5.e", "1e", "1e+", "1e-", "e5", ".", "+", "-", "..5", "5..",
		"1.2.3", "--1", "+-1", "1 2", "1_000", "0x10", "0x1p-2", "0X1P4", "1e5.5", "1d5", "1,5",
		"1E8", "1e-0005", "0001.2500", "1e+0400", "1E-0400", "9e+", "1ee5", "1e--5",
		" 1.5 ", "\t-2\n", "\v3\f", "\u00a01\u00a0", "\u20281.25\u2029", "\u00851\u0085", "1\x00", "\x001", "١", "1\u00a0", " ", "",
		"inf", "-Infinity", "+INF", "INFINITY", "infinit", "inf inity", "Inf ", " -inf", "nan", "+NaN", "-nan",
		"NaN(1)", "nan1", "infinity1", "true", "FALSE", " True ", "+true", "yes", "t",
		// Extremes.
		"1e400", "-1e400", "1e-400", "-1e-400", "1e308", "1.8e308", "-1.7976931348623157e308",
		"1.7976931348623158e308", "1.7976931348623159e308", "1e999999999", "-1e99999999999999999999",
		// Exponents past the clamp (which overflow an int32 while read: the
		// fast path reads them as ref does on every platform).
		"1e2147483648", "1e4294967296", "1e-4294967296", "1e3000000000", "1e9999999999", "-1e-9999999999",
		"0.0001e2147483650", "1e4294967297", "1e-4294967295", "12345e-4294967300",
		"4.9e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "2.470328229206232720882e-324",
		"2.2250738585072011e-308", "2.2250738585072014e-308", "2.2250738585072012e-308",
		// float32 subnormal boundaries: 2^-150 (half the smallest), 2^-149, 2^-126.
		"7.006492321624085e-46", "7.0064923216240853546186479164495806564013097093825788587853414194e-46",
		"7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015625e-46",
		"7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015626e-46",
		"1.401298464324817e-45", "1.1754943508222875e-38", "1.1754942e-38", "3.4028235e38", "3.4028236e38",
		"340282356779733661637539395458142568448", "340282356779733661637539395458142568447",
		// float16: 2^-25, 2^-24, the smallest normal, the overflow point 65520.
		"2.98023223876953125e-8", "2.98023223876953125000001e-8", "2.98023223876953124999999e-8",
		"5.9604644775390625e-8", "6.103515625e-05", "6.1035156e-05", "65504", "65519.999", "65520",
		"65520.0000000000000000001", "65519.9999999999999999999", "65536", "-65520",
		// bfloat16 and float8 ties.
		"1.00390625", "1.00390625000000001", "1.00390624999999999", "1.0625", "1.0625000000000001",
		"464", "464.00000000000000000001", "463.99999999999999999999", "240", "248", "57344", "61440", "6", "7", "5",
		// Integers at the edges of exactness.
		"9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740993", "9007199254740993.0",
		"9223372036854775807", "9223372036854775808", "9223372036854775809", "-9223372036854775808",
		"-9223372036854775809", "9223372036854775807.999", "-9223372036854775808.999",
		"18446744073709551615", "18446744073709551616", "18446744073709551617", "-18446744073709551615",
		"1.8446744073709551615e19", "1.8446744073709551616e19", "9999999999999999999", "10000000000000000000",
		"99999999999999999999", "1e19", "1e18", "1e20", "123456789012345678901234567890", "0.99999999999999999999",
		"-0.9", "100.5", "-100.9", "255.99", "256", "-129", "1e3", "1.5", "1.5e1", "15e-1", "0.15e2",
		// Long digit strings.
		long, "0." + long, long + "e-850", "1." + strings.Repeat("0", 900) + "1", "1." + strings.Repeat("0", 900),
		"0." + strings.Repeat("0", 500) + "1e500", strings.Repeat("0", 1000) + "1",
		"1.000000000000000000000000000", "1.0000000000000000000000000001", "0.1000000000000000055511151231257827",
		"0.30000000000000004", "3.14159265358979323846264338327950288",
	}
}

// TestParseSpellings compares every hand-picked string for every kind and
// every option combination.
func TestParseSpellings(t *testing.T) {
	n := 0
	for _, s := range spellings() {
		for _, k := range allKinds() {
			for _, opt := range allOptions {
				same(t, k, s, opt)
				n++
			}
		}
	}
	t.Logf("%d comparisons", n)
}

// decimalOf writes num × 2^e2 exactly as digits × 10^e10, without
// trailing zeros.
func decimalOf(num *big.Int, e2 int) (string, int) {
	d := new(big.Int).Set(num)
	e10 := 0
	if e2 >= 0 {
		d.Lsh(d, uint(e2))
	} else {
		d.Mul(d, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-e2)), nil))
		e10 = e2
	}
	ds := d.String()
	for len(ds) > 1 && ds[len(ds)-1] == '0' { // the shortest exact decimal
		ds = ds[:len(ds)-1]
		e10++
	}
	return ds, e10
}

// spell writes digits × 10^e10 in one of several spellings chosen by style.
func spell(neg bool, digits string, e10, style int) string {
	sign := ""
	if neg {
		sign = "-"
	}
	switch style % 3 {
	case 1: // positional, when not absurdly long
		if e10 >= 0 && e10 < 40 {
			return sign + digits + strings.Repeat("0", e10) + ".0"
		}
		if e10 < 0 && -e10 < len(digits) {
			i := len(digits) + e10
			return sign + digits[:i] + "." + digits[i:]
		}
		if e10 < 0 && -e10 < len(digits)+40 {
			return sign + "0." + strings.Repeat("0", -e10-len(digits)) + digits
		}
	case 2: // one digit before the point, capital E
		return sign + digits[:1] + "." + digits[1:] + "E" + strconv.Itoa(e10+len(digits)-1)
	}
	return sign + digits + "e" + strconv.Itoa(e10)
}

// nearDecimals returns the decimal of num × 2^e2 and its neighbours: one
// digit past it (above and below), and past it after 5 and 20 zeros or
// nines (where the float64 of the string is the point itself, or where the
// string has more than 19 digits), the decimals of the float64s one ulp
// either side of the point, and the point cut to 17 and 18 digits and
// moved by one unit in the last digit.
func nearDecimals(num *big.Int, e2 int) [][2]any {
	ds, e10 := decimalOf(num, e2)
	d := new(big.Int)
	d.SetString(ds, 10)
	var out [][2]any
	add := func(x *big.Int, e int) { out = append(out, [2]any{x.String(), e}) }
	add(d, e10)
	for _, z := range []int{0, 5, 20} {
		scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(z+1)), nil)
		up := new(big.Int).Mul(d, scale)
		add(new(big.Int).Add(up, big.NewInt(1)), e10-z-1)
		add(new(big.Int).Sub(up, big.NewInt(1)), e10-z-1)
	}
	// The float64 neighbours of the point (the fast path decides these):
	// their shortest decimals and their 17-digit ones.
	if mid, acc := new(big.Float).SetMantExp(new(big.Float).SetInt(num), e2).Float64(); acc == big.Exact && mid != 0 {
		for _, dir := range []float64{math.Inf(-1), math.Inf(1)} {
			for _, prec := range []int{-1, 16} {
				fs := strconv.FormatFloat(math.Nextafter(mid, dir), 'e', prec, 64)
				i := strings.IndexByte(fs, 'e')
				digits := strings.Replace(fs[:i], ".", "", 1)
				e, _ := strconv.Atoi(fs[i+1:])
				x, _ := new(big.Int).SetString(digits, 10)
				add(x, e-len(digits)+1)
			}
		}
	}
	for _, l := range []int{17, 18} {
		if len(ds) > l {
			c, _ := new(big.Int).SetString(ds[:l], 10)
			e := e10 + len(ds) - l
			add(c, e)
			add(new(big.Int).Add(c, big.NewInt(1)), e)
		}
	}
	return out
}

func valueInt(v ref.Value) (*big.Int, int) {
	return new(big.Int).SetUint64(v.Mant), v.Exp
}

// midpointOf returns (lo+hi)/2 as num × 2^e2 for two finite values.
func midpointOf(lo, hi ref.Value) (*big.Int, int) {
	hm, he := valueInt(hi)
	if lo.Class == ref.Zero {
		return hm, he - 1
	}
	lm, le := valueInt(lo)
	e0 := min(le, he)
	s := new(big.Int).Lsh(lm, uint(le-e0))
	s.Add(s, new(big.Int).Lsh(hm, uint(he-e0)))
	return s, e0 - 1
}

// TestParseMidpoints: for every positive finite pattern of the 16-, 8- and
// 4-bit float types (every 16th in -short mode) and for sampled FLOAT
// patterns, the decimals at, one digit past, and far past the midpoint to
// the next value up (the overflow point for the largest), both signs, read
// as that type, FLOAT and DOUBLE, saturating and not.
func TestParseMidpoints(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	kinds := []struct {
		k       ref.Kind
		maxBits uint64
	}{
		{ref.Float16, 0x7BFF}, {ref.BFloat16, 0x7F7F}, {ref.Float8E4M3FN, 0x7E}, {ref.Float8E4M3FNUZ, 0x7F},
		{ref.Float8E5M2, 0x7B}, {ref.Float8E5M2FNUZ, 0x7F}, {ref.Float4E2M1, 0x7}, {ref.Float, 0x7F7FFFFF},
	}
	opts := []ref.Options{{Saturate: true, Round: ref.RoundNearest}, {Saturate: false, Round: ref.RoundNearest}}
	for _, kc := range kinds {
		k := kc.k
		step := uint64(1)
		if testing.Short() && k.Bits() == 16 {
			step = 16
		}
		var patterns []uint64
		if k == ref.Float {
			for b := uint64(0); b < 300; b++ {
				patterns = append(patterns, b, kc.maxBits-b, 0x00800000-150+b)
			}
			for range 3000 {
				patterns = append(patterns, uint64(r.Uint32())%kc.maxBits)
			}
		} else {
			for b := uint64(0); b <= kc.maxBits; b += step {
				patterns = append(patterns, b)
			}
			patterns = append(patterns, kc.maxBits)
		}
		n, fallbacks := 0, 0
		for i, b := range patterns {
			lo := ref.Decode(k, b)
			var num *big.Int
			var e2 int
			if b == kc.maxBits { // the overflow point: max + half the last step
				prev := ref.Decode(k, b-1)
				lm, le := valueInt(lo)
				pm, pe := valueInt(prev)
				e0 := min(le, pe)
				hi := new(big.Int).Lsh(lm, uint(le-e0+1))
				hi.Sub(hi, new(big.Int).Lsh(pm, uint(pe-e0))) // 2·max - prev
				hi.Add(hi, new(big.Int).Lsh(lm, uint(le-e0)))
				num, e2 = hi, e0-1
			} else {
				num, e2 = midpointOf(lo, ref.Decode(k, b+1))
			}
			for j, c := range nearDecimals(num, e2) {
				for _, neg := range []bool{false, true} {
					s := spell(neg, c[0].(string), c[1].(int), i+j)
					for _, target := range []ref.Kind{k, ref.Float, ref.Double} {
						for _, opt := range opts {
							if target != k && opt.Saturate {
								continue
							}
							if !same(t, target, s, opt) {
								t.FailNow()
							}
							n++
						}
					}
					if d, ok := scan(s); ok {
						if _, ok := decide(k, &d, opts[0]); !ok {
							fallbacks++
						}
					}
				}
			}
		}
		t.Logf("kind %d: %d patterns, %d comparisons, 0 mismatches; %d strings needed the exact path", k, len(patterns), n, fallbacks)
	}
}

// TestParseE8M0Points: the decimals at and around 2^j and 1.5 × 2^j, the
// decision points of FLOAT8E8M0, under every option.
func TestParseE8M0Points(t *testing.T) {
	n := 0
	for j := -140; j <= 140; j++ {
		for _, m := range []int64{2, 3} { // 2^j = 2·2^(j-1), 1.5·2^j = 3·2^(j-1)
			for i, c := range nearDecimals(big.NewInt(m), j-1) {
				for _, neg := range []bool{false, true} {
					s := spell(neg, c[0].(string), c[1].(int), i+j)
					for _, opt := range allOptions {
						if !same(t, ref.Float8E8M0, s, opt) {
							t.FailNow()
						}
						n++
					}
				}
			}
		}
	}
	t.Logf("%d comparisons, 0 mismatches", n)
}

// TestParseIntegerEdges: 2^53, 2^63, 2^64 and 10^19, ±1 and ±2, in several
// spellings (fractions, exponents, signs), for every kind.
func TestParseIntegerEdges(t *testing.T) {
	var bases []*big.Int
	for _, e := range []int{8, 15, 16, 31, 32, 53, 63, 64} {
		p := new(big.Int).Lsh(big.NewInt(1), uint(e))
		for d := int64(-2); d <= 2; d++ {
			bases = append(bases, new(big.Int).Add(p, big.NewInt(d)))
		}
	}
	for _, e := range []int{18, 19, 20} {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil)
		for d := int64(-1); d <= 1; d++ {
			bases = append(bases, new(big.Int).Add(p, big.NewInt(d)))
		}
	}
	n := 0
	for _, x := range bases {
		ds := x.String()
		forms := []string{ds, ds + ".0", ds + ".5", ds + ".999999999999", ds + "e0", "0." + ds + "e" + strconv.Itoa(len(ds)),
			ds[:1] + "." + ds[1:] + "e" + strconv.Itoa(len(ds)-1), ds + "0e-1", ds + "9e-1", "000" + ds, ds[:len(ds)-1] + "." + ds[len(ds)-1:] + "e1"}
		for _, f := range forms {
			for _, s := range []string{f, "-" + f, "+" + f} {
				for _, k := range allKinds() {
					for _, opt := range allOptions[1:3] {
						same(t, k, s, opt)
						n++
					}
				}
			}
		}
	}
	t.Logf("%d comparisons", n)
}

// TestParseRandom compares random decimals (1 to 25 digits, a random point,
// random exponents around every type's range) for every numeric kind.
func TestParseRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	n := 20000
	if testing.Short() {
		n = 4000
	}
	kinds := []ref.Kind{ref.Float, ref.Double, ref.Float16, ref.BFloat16, ref.Float8E4M3FN, ref.Float8E4M3FNUZ,
		ref.Float8E5M2, ref.Float8E5M2FNUZ, ref.Float4E2M1, ref.Float8E8M0, ref.Int8, ref.Uint8, ref.Int16,
		ref.Uint16, ref.Int32, ref.Uint32, ref.Int64, ref.Uint64, ref.Int4, ref.Uint4, ref.Int2, ref.Uint2, ref.Bool}
	var sb strings.Builder
	for i := range n {
		sb.Reset()
		switch r.IntN(3) {
		case 0:
			sb.WriteByte('-')
		case 1:
			sb.WriteByte('+')
		}
		nd := 1 + r.IntN(25)
		dot := r.IntN(nd + 2)
		for j := range nd {
			if j == dot {
				sb.WriteByte('.')
			}
			sb.WriteByte(byte('0' + r.IntN(10)))
		}
		if r.IntN(2) == 0 {
			sb.WriteString("e")
			sb.WriteString(strconv.Itoa(r.IntN(120) - 60 + []int{0, -300, 300, -40, 35}[i%5]))
		}
		s := sb.String()
		for _, k := range kinds {
			same(t, k, s, allOptions[i%len(allOptions)])
		}
	}
}

// TestNarrowMatchesEncode: wherever narrow decides, it gives ref.Encode of
// the float64's exact value (random float64s in and around every type's
// range, under every option).
func TestNarrowMatchesEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	n := 200_000
	if testing.Short() {
		n = 50_000
	}
	decided := 0
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 5e-324, -5e-324, 2.2e-308,
		math.MaxFloat64, -math.MaxFloat64, 0x1p-127, 0x1p-128, 0x1.8p-128, 0x1.8p-129, 0x1p127, 0x1.8p127, 0x1p128, 0x1.fffp127}
	for i := range n {
		var f float64
		switch i % 4 {
		case 0:
			f = math.Float64frombits(r.Uint64())
		case 1:
			f = math.Ldexp(r.Float64()+0.5, r.IntN(320)-170)
		case 2: // on and next to the grid points of the narrow types
			f = math.Ldexp(float64(r.IntN(1<<13)), r.IntN(300)-160)
			f = math.Nextafter(f, []float64{0, f, math.Inf(1)}[r.IntN(3)]*2)
		case 3:
			f = float64(math.Float32frombits(r.Uint32()))
		}
		if i < 6*len(specials) {
			f = specials[i/6]
		}
		if f != f {
			continue
		}
		if i >= 6*len(specials) && r.IntN(2) == 0 {
			f = -f
		}
		opt := allOptions[i%len(allOptions)]
		for _, k := range []ref.Kind{ref.Float16, ref.BFloat16, ref.Float8E4M3FN, ref.Float8E4M3FNUZ, ref.Float8E5M2, ref.Float8E5M2FNUZ, ref.Float4E2M1} {
			got, ok := narrow(narrowFormat(k), f, opt)
			if ok {
				decided++
				if want := ref.Encode(k, valueOf(f), opt); got != want {
					t.Fatalf("narrow(%d, %v, %+v) = %#x, Encode %#x", k, f, opt, got, want)
				}
			}
		}
		if got, ok := narrowE8M0(f, opt); ok {
			if want := ref.Encode(ref.Float8E8M0, valueOf(f), opt); got != want {
				t.Fatalf("narrowE8M0(%v, %+v) = %#x, Encode %#x", f, opt, got, want)
			}
		}
		if !isTie(f, &fmtFloat) {
			if got, want := math.Float32bits(float32(f)), ref.Encode(ref.Float, valueOf(f), opt); uint64(got) != want {
				t.Fatalf("float32(%v) = %#x, Encode %#x", f, got, want)
			}
		}
	}
	t.Logf("%d narrowings decided, 0 mismatches", decided)
}

// TestFromStrings: the bulk entry point writes each width's layout and
// stops at the first malformed string with its index and ref's error.
func TestFromStrings(t *testing.T) {
	src := []string{"1.5", "-2", "0.1", "NaN", "1e-3", "300", "-7"}
	opt := ref.Options{Saturate: true}
	for _, k := range []ref.Kind{ref.Float, ref.Double, ref.Float16, ref.Int64, ref.Int32, ref.Int8, ref.Int4, ref.Uint2, ref.Float4E2M1, ref.Bool} {
		dst := make([]byte, ref.Size(k, len(src)))
		if i, err := FromStrings(dst, k, src, opt); err != nil || i != len(src) {
			t.Fatalf("kind %d: %d, %v", k, i, err)
		}
		want := make([]byte, len(dst))
		for i, s := range src {
			b, _ := ref.Parse(k, s, opt)
			ref.Put(k, want, i, b)
		}
		if string(dst) != string(want) {
			t.Errorf("kind %d: % x, want % x", k, dst, want)
		}
		bad := append(append([]string{}, src[:3]...), "1.2.3", "4")
		i, err := FromStrings(dst, k, bad, opt)
		_, werr := ref.Parse(k, "1.2.3", opt)
		if i != 3 || err == nil || err.Error() != werr.Error() {
			t.Errorf("kind %d: malformed element: %d, %v; want 3, %v", k, i, err, werr)
		}
	}
}

// TestEiselLemire: wherever eiselLemire64 decides, it equals
// strconv.ParseFloat, on random mantissas of 1 to 19 digits (and float64
// midpoints cut to 17-19 digits) with exponents over the whole range.
func TestEiselLemire(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	decided := 0
	for i := range n {
		var man uint64
		var e int
		switch i % 3 {
		case 0:
			man = r.Uint64() >> uint(r.IntN(64))
			if man >= 1e19 {
				man /= 10
			}
			e = r.IntN(pow10Max-pow10Min+1) + pow10Min
		case 1:
			man = r.Uint64N(1e19)
			e = r.IntN(660) - 345
		case 2: // the decimal of a float64 midpoint, cut to 19 digits
			f := math.Float64frombits(r.Uint64() &^ (1 << 63))
			if math.IsInf(f, 0) || f != f {
				continue
			}
			mid := new(big.Float).SetPrec(2000).SetFloat64(f)
			mid.Add(mid, new(big.Float).SetPrec(2000).SetFloat64(math.Nextafter(f, math.Inf(1))))
			mid.Quo(mid, big.NewFloat(2))
			s := mid.Text('e', 18) // 19 significant digits
			digits := strings.Replace(s[:strings.IndexByte(s, 'e')], ".", "", 1)
			man, _ = strconv.ParseUint(digits, 10, 64)
			e, _ = strconv.Atoi(s[strings.IndexByte(s, 'e')+1:])
			e -= 18
			man += uint64(r.IntN(3)) - 1
		}
		neg := i%2 == 0
		got, ok := eiselLemire64(man, e, neg)
		if !ok {
			continue
		}
		decided++
		s := strconv.FormatUint(man, 10) + "e" + strconv.Itoa(e)
		if neg {
			s = "-" + s
		}
		want, _ := strconv.ParseFloat(s, 64)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("eiselLemire64(%d, %d, %v) = %v, strconv %v", man, e, neg, got, want)
		}
	}
	t.Logf("%d inputs, %d decided, 0 mismatches", n, decided)
}

// valueOf returns the exact value of a float64 that is not NaN: what
// narrow and narrowE8M0 must encode as ref.Encode does.
func valueOf(f float64) ref.Value {
	b := math.Float64bits(f)
	neg := b>>63 != 0
	e := int(b >> 52 & 0x7FF)
	m := b & (1<<52 - 1)
	switch {
	case e == 0x7FF:
		return ref.Value{Class: ref.Inf, Neg: neg}
	case e == 0 && m == 0:
		return ref.Value{Class: ref.Zero, Neg: neg}
	case e == 0:
		lz := bits.LeadingZeros64(m)
		return ref.Value{Class: ref.Finite, Neg: neg, Mant: m << uint(lz), Exp: -1074 - lz}
	}
	return ref.Value{Class: ref.Finite, Neg: neg, Mant: (m | 1<<52) << 11, Exp: e - 1075 - 11}
}
