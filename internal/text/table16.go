package text

import (
	"math"
	"strconv"
	"sync"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// table16 holds the text of every non-negative, non-NaN FLOAT16 or BFLOAT16
// pattern (0 up to +Inf), each stored with a leading '-': the text of a
// pattern a is blob[off[a]+1:off[a+1]] and that of its negative, a|0x8000,
// is blob[off[a]:off[a+1]] (both types are sign-symmetric: Parse("-x") is
// the sign bit or'ed onto Parse("x"), so the shortest digits are the same).
// NaN patterns of either sign are "NaN".
//
// Memory, per type, once built: off is 4 × (inf+2) bytes and blob holds the
// texts — FLOAT16 (inf = 0x7C00): 126,984 + 234,046 bytes, 353 KiB;
// BFLOAT16 (inf = 0x7F80): 130,568 + 303,972 bytes, 424 KiB; 0.76 MiB for
// both (TestTable16Size pins these numbers). Building one takes one exact
// shortest-digit search per pattern, with the fast parser as the reader:
// 15-35 ms on a loaded 2-core EPYC (BenchmarkBuildTable16).
type table16 struct {
	blob string
	off  []uint32
	inf  uint16 // the +Inf pattern; every larger positive pattern is NaN
}

var (
	f16Once, bf16Once   sync.Once
	f16Table, bf16Table *table16
)

// tableOf16 returns FLOAT16's or BFLOAT16's table, building it on first use.
func tableOf16(k ref.Kind) *table16 {
	if k == ref.Float16 {
		f16Once.Do(func() { f16Table = buildTable16(ref.Float16, 0x7C00) })
		return f16Table
	}
	bf16Once.Do(func() { bf16Table = buildTable16(ref.BFloat16, 0x7F80) })
	return bf16Table
}

func buildTable16(k ref.Kind, inf uint16) *table16 {
	off := make([]uint32, int(inf)+2)
	blob := make([]byte, 0, 300_000)
	for a := 0; a <= int(inf); a++ {
		off[a] = uint32(len(blob))
		blob = append(blob, '-')
		blob = appendNarrow(blob, k, uint64(a))
	}
	off[inf+1] = uint32(len(blob))
	return &table16{blob: string(blob), off: off, inf: inf}
}

func (t *table16) lookup(b uint16) string {
	a := b & 0x7FFF
	if a > t.inf {
		return "NaN"
	}
	s := t.blob[t.off[a]:t.off[a+1]]
	if a == b {
		return s[1:]
	}
	return s
}

// roundTrip is ref's reading for Format's round trip: nearest, no
// saturation (see ref.Format).
var roundTrip = ref.Options{Saturate: false, Round: ref.RoundNearest}

// appendNarrow appends ref.Format's text of the pattern b of a binary float
// kind narrower than FLOAT (FLOAT16, BFLOAT16, the float8 types but E8M0,
// FLOAT4E2M1).
func appendNarrow(out []byte, k ref.Kind, b uint64) []byte {
	v := ref.Decode(k, b)
	switch v.Class {
	case ref.NaN:
		return append(out, "NaN"...)
	case ref.Inf:
		if v.Neg {
			return append(out, "-INF"...)
		}
		return append(out, "INF"...)
	case ref.Zero:
		if v.Neg {
			return append(out, "-0.0"...)
		}
		return append(out, "0.0"...)
	}
	var db [20]byte
	digits, exp := shortest(db[:0], k, b, v)
	return render(out, v.Neg, digits, exp)
}

// shortest is ref's shortest, step for step (the same candidates in the same
// order, so the same answer), with Parse (this package's, equal to
// ref.Parse) as the reader. It appends the digits without trailing zeros to
// db and returns them with the decimal exponent of the first digit.
func shortest(db []byte, k ref.Kind, b uint64, v ref.Value) ([]byte, int) {
	x := math.Ldexp(float64(v.Mant), v.Exp)  // exact: at most 11 significant bits
	reads := func(m uint64, e, p int) bool { // m × 10^e, m of p digits
		// Parse's own steps without the text: scanning it would give
		// these fields.
		d := decimal{mant: m, nd: p, mag: e + p, neg: v.Neg}
		if got, ok := decide(k, &d, roundTrip); ok {
			return got == b
		}
		var sb [48]byte
		s := sb[:0]
		if v.Neg {
			s = append(s, '-')
		}
		s = strconv.AppendUint(s, m, 10)
		s = append(s, 'e')
		s = strconv.AppendInt(s, int64(e), 10)
		got, err := Parse(k, string(s), roundTrip)
		return err == nil && got == b
	}
	var fb [32]byte
	for p := 1; p <= 17; p++ {
		// strconv rounds x to p digits correctly: "d.ddde±XX".
		fs := strconv.AppendFloat(fb[:0], x, 'e', p-1, 64)
		var m uint64
		i := 0
		for ; fs[i] != 'e'; i++ {
			if c := fs[i]; c != '.' {
				m = m*10 + uint64(c-'0')
			}
		}
		e := 0
		for _, c := range fs[i+2:] {
			e = e*10 + int(c-'0')
		}
		if fs[i+1] == '-' {
			e = -e
		}
		e -= p - 1 // v ≈ m × 10^e with exactly p digits in m
		lo, hi := pow10u[p-1], pow10u[p]
		if reads(m, e, p) {
			return trimDigits(db, m, e, p)
		}
		// Below m: the next smaller p-digit decimal; 100…0 steps down a decade.
		if m == lo {
			if reads(hi-1, e-1, p) {
				return trimDigits(db, hi-1, e-1, p)
			}
		} else if reads(m-1, e, p) {
			return trimDigits(db, m-1, e, p)
		}
		if m == hi-1 {
			if reads(lo, e+1, p) {
				return trimDigits(db, lo, e+1, p)
			}
		} else if reads(m+1, e, p) {
			return trimDigits(db, m+1, e, p)
		}
	}
	// Unreachable, as in ref (17 digits identify every float64); ref then
	// returns strconv's shortest digits of x, and so does this.
	s := strconv.AppendFloat(fb[:0], x, 'e', -1, 64)
	j := len(s) - 4
	if s[j] != 'e' {
		j--
	}
	e, _ := strconv.Atoi(string(s[j+1:]))
	db = append(db, s[0])
	if j > 1 {
		db = append(db, s[2:j]...)
	}
	for len(db) > 1 && db[len(db)-1] == '0' {
		db = db[:len(db)-1]
	}
	return db, e
}

// trimDigits appends the digits of the p-digit integer m without trailing
// zeros and returns them with the decimal exponent of the first digit of
// m × 10^e.
func trimDigits(db []byte, m uint64, e, p int) ([]byte, int) {
	db = strconv.AppendUint(db, m, 10)
	for len(db) > 1 && db[len(db)-1] == '0' {
		db = db[:len(db)-1]
	}
	return db, e + p - 1
}
