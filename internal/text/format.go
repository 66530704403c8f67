package text

import (
	"encoding/binary"
	"math"
	"strconv"
	"sync"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// appendFloat appends ref.Format's text of the float64 f (bitSize 64) or of
// the float32 f (bitSize 32): strconv's shortest digits, which are the digits
// ref.Format takes, laid out as ref's render does.
func appendFloat(out []byte, f float64, bitSize int) []byte {
	switch {
	case f != f:
		return append(out, "NaN"...)
	case math.IsInf(f, 1):
		return append(out, "INF"...)
	case math.IsInf(f, -1):
		return append(out, "-INF"...)
	case f == 0:
		if math.Signbit(f) {
			return append(out, "-0.0"...)
		}
		return append(out, "0.0"...)
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], f, 'e', -1, bitSize) // [-]d[.ddd]e±dd[d]
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	j := len(s) - 4 // the 'e': two or three exponent digits
	if s[j] != 'e' {
		j--
	}
	exp := 0
	for _, c := range s[j+2:] {
		exp = exp*10 + int(c-'0')
	}
	if s[j+1] == '-' {
		exp = -exp
	}
	// The significant digits: s[0], then s[2:j] after the point.
	var db [24]byte
	digits := append(db[:0], s[0])
	if j > 1 {
		digits = append(digits, s[2:j]...)
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return render(out, neg, digits, exp)
}

// render appends ±d.ddd × 10^exp in ref's layout (Python's repr):
// positional for -4 ≤ exp < 16 with ".0" on integral values, scientific
// with at least two exponent digits otherwise. digits has no trailing zero
// (except a lone "0", which is never passed).
func render(out []byte, neg bool, digits []byte, exp int) []byte {
	if neg {
		out = append(out, '-')
	}
	switch {
	case exp < -4 || exp >= 16:
		out = append(out, digits[0])
		if len(digits) > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if exp < 0 {
			out = append(out, '-')
			exp = -exp
		} else {
			out = append(out, '+')
		}
		if exp < 10 {
			out = append(out, '0')
		}
		return strconv.AppendInt(out, int64(exp), 10)
	case exp < 0:
		out = append(out, '0', '.')
		for range -exp - 1 {
			out = append(out, '0')
		}
		return append(out, digits...)
	case len(digits) <= exp+1:
		out = append(out, digits...)
		for range exp + 1 - len(digits) {
			out = append(out, '0')
		}
		return append(out, ".0"...)
	}
	out = append(out, digits[:exp+1]...)
	out = append(out, '.')
	return append(out, digits[exp+1:]...)
}

// Format is ref.Format, fast, for the kinds Format supports (it panics for
// the others, as ref.Format does).
func Format(k ref.Kind, b uint64) string {
	switch k {
	case ref.Float:
		return string(appendFloat(nil, float64(math.Float32frombits(uint32(b))), 32))
	case ref.Double:
		return string(appendFloat(nil, math.Float64frombits(b), 64))
	case ref.Float16, ref.BFloat16:
		return tableOf16(k).lookup(uint16(b))
	}
	if t := smallTable(k); t != nil {
		return t[b&uint64(len(t)-1)]
	}
	return ref.Format(k, b)
}

// chunk is how many elements share one backing string in ToStrings: few
// allocations per call, and little memory held beyond what the strings use.
const chunk = 512

// ToStrings formats n elements of kind k from the raw tensor src into dst
// (the caller has checked the kind and the lengths), as ref.Format would.
// The 8-bit and narrower types and FLOAT16/BFLOAT16 return strings of their
// tables and allocate nothing; the others write a chunk of elements into one
// byte buffer and cut one string per chunk into the elements' strings.
func ToStrings(dst []string, k ref.Kind, src []byte, n int) {
	dst = dst[:n]
	switch k {
	case ref.Float16, ref.BFloat16:
		t := tableOf16(k)
		src = src[:2*n]
		for i := range dst {
			dst[i] = t.lookup(binary.LittleEndian.Uint16(src[2*i:]))
		}
		return
	case ref.Float, ref.Double, ref.Int16, ref.Uint16, ref.Int32, ref.Uint32, ref.Int64, ref.Uint64:
		toStringsChunked(dst, k, src)
		return
	}
	t := smallTable(k)
	if t == nil { // not a number kind: ref.Format panics as documented
		for i := range dst {
			dst[i] = ref.Format(k, ref.Get(k, src, i))
		}
		return
	}
	switch k.Bits() {
	case 8:
		src = src[:n]
		for i := range dst {
			dst[i] = t[src[i]]
		}
	case 4:
		for i := range dst {
			dst[i] = t[src[i/2]>>(uint(i%2)*4)&15]
		}
	case 2:
		for i := range dst {
			dst[i] = t[src[i/4]>>(uint(i%4)*2)&3]
		}
	}
}

// toStringsChunked formats FLOAT, DOUBLE and the 16- to 64-bit integers.
func toStringsChunked(dst []string, k ref.Kind, src []byte) {
	w := k.Bits() / 8
	per := 24 // the longest text of a DOUBLE ("-2.2250738585072014e-308") or an INT64
	if k == ref.Float {
		per = 16
	}
	buf := make([]byte, 0, min(len(dst), chunk)*per)
	var ends [chunk]int
	for base := 0; base < len(dst); base += chunk {
		part := dst[base:min(base+chunk, len(dst))]
		s := src[base*w : (base+len(part))*w]
		buf = buf[:0]
		switch k {
		case ref.Float:
			for i := range part {
				buf = appendFloat(buf, float64(math.Float32frombits(binary.LittleEndian.Uint32(s[4*i:]))), 32)
				ends[i] = len(buf)
			}
		case ref.Double:
			for i := range part {
				buf = appendFloat(buf, math.Float64frombits(binary.LittleEndian.Uint64(s[8*i:])), 64)
				ends[i] = len(buf)
			}
		case ref.Int16:
			for i := range part {
				buf = strconv.AppendInt(buf, int64(int16(binary.LittleEndian.Uint16(s[2*i:]))), 10)
				ends[i] = len(buf)
			}
		case ref.Uint16:
			for i := range part {
				buf = strconv.AppendUint(buf, uint64(binary.LittleEndian.Uint16(s[2*i:])), 10)
				ends[i] = len(buf)
			}
		case ref.Int32:
			for i := range part {
				buf = strconv.AppendInt(buf, int64(int32(binary.LittleEndian.Uint32(s[4*i:]))), 10)
				ends[i] = len(buf)
			}
		case ref.Uint32:
			for i := range part {
				buf = strconv.AppendUint(buf, uint64(binary.LittleEndian.Uint32(s[4*i:])), 10)
				ends[i] = len(buf)
			}
		case ref.Int64:
			for i := range part {
				buf = strconv.AppendInt(buf, int64(binary.LittleEndian.Uint64(s[8*i:])), 10)
				ends[i] = len(buf)
			}
		case ref.Uint64:
			for i := range part {
				buf = strconv.AppendUint(buf, binary.LittleEndian.Uint64(s[8*i:]), 10)
				ends[i] = len(buf)
			}
		}
		all := string(buf) // the chunk's one allocation
		start := 0
		for i := range part {
			part[i] = all[start:ends[i]]
			start = ends[i]
		}
	}
}

// smallTables hold the text of every value of the 8-, 4- and 2-bit kinds,
// indexed by bit pattern, each built on first use (at most 256 strings per
// kind, about 6 KiB per 8-bit kind with their string headers, under 50 KiB
// for all of them). formatSmall builds them; TestFormatTablesExhaustive
// compares every entry with ref.Format.
var (
	smallOnce   [ref.Int2 + 1]sync.Once
	smallTables [ref.Int2 + 1][]string
)

func smallTable(k ref.Kind) []string {
	if k < 0 || int(k) >= len(smallTables) {
		return nil
	}
	var n int
	switch k {
	case ref.Bool, ref.Uint8, ref.Int8, ref.Float8E4M3FN, ref.Float8E4M3FNUZ, ref.Float8E5M2, ref.Float8E5M2FNUZ:
		n = 256
	case ref.Float8E8M0:
		n = 256
	case ref.Uint4, ref.Int4, ref.Float4E2M1:
		n = 16
	case ref.Uint2, ref.Int2:
		n = 4
	default:
		return nil
	}
	smallOnce[k].Do(func() {
		t := make([]string, n)
		for b := range t {
			t[b] = formatSmall(k, uint64(b))
		}
		smallTables[k] = t
	})
	return smallTables[k]
}

// formatSmall is ref.Format for the 8-bit and narrower kinds, with the
// digit search of the binary floats done by shortest (ref's search with a
// fast exact reader) rather than ref's, so that a table costs microseconds.
func formatSmall(k ref.Kind, b uint64) string {
	switch k {
	case ref.Float8E4M3FN, ref.Float8E4M3FNUZ, ref.Float8E5M2, ref.Float8E5M2FNUZ, ref.Float4E2M1:
		return string(appendNarrow(nil, k, b))
	case ref.Float8E8M0:
		// As ref: the value printed as FLOAT would print it.
		return Format(ref.Float, ref.Convert(ref.Float, ref.Float8E8M0, b, ref.Options{}))
	}
	return ref.Format(k, b)
}
