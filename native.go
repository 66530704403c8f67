package tensorcast

import (
	"encoding/binary"
	"math"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// castNative handles pairs of the classic types (FLOAT, DOUBLE, the 8- to
// 64-bit integers and BOOL) with Go's own conversions wherever those are
// exactly ONNX's rules, in chunks through a stack buffer: float sources
// widen exactly to float64, integer sources to 64-bit integers, and each
// target is then encoded from that. The few elements where Go's conversions
// are not defined the same way on every architecture (NaN payloads, integers
// beyond 2^53 going to float) go through the reference.
func castNative(dst []byte, to DataType, src []byte, from DataType, n int) bool {
	if !isNative(from) || !isNative(to) {
		return false
	}
	const chunk = 256
	var buf [chunk]uint64 // float64 bits or integer bits
	fromFloat := from == Float || from == Double
	for base := 0; base < n; base += chunk {
		m := min(chunk, n-base)
		loadNative(buf[:m], src, from, base)
		if fromFloat {
			storeFromFloat(dst, to, buf[:m], base, src, from)
		} else {
			storeFromInt(dst, to, buf[:m], base, from)
		}
	}
	return true
}

func isNative(t DataType) bool {
	switch t {
	case Float, Double, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Bool:
		return true
	}
	return false
}

// loadNative reads m elements starting at base: floats as float64 bits,
// signed integers sign-extended, unsigned zero-extended, BOOL as 0/1.
func loadNative(buf []uint64, src []byte, from DataType, base int) {
	le := binary.LittleEndian
	for i := range buf {
		j := base + i
		switch from {
		case Float:
			buf[i] = math.Float64bits(float64(math.Float32frombits(le.Uint32(src[4*j:]))))
		case Double, Int64, Uint64:
			buf[i] = le.Uint64(src[8*j:])
		case Int8:
			buf[i] = uint64(int64(int8(src[j])))
		case Uint8:
			buf[i] = uint64(src[j])
		case Bool:
			if src[j] != 0 {
				buf[i] = 1
			} else {
				buf[i] = 0
			}
		case Int16:
			buf[i] = uint64(int64(int16(le.Uint16(src[2*j:]))))
		case Uint16:
			buf[i] = uint64(le.Uint16(src[2*j:]))
		case Int32:
			buf[i] = uint64(int64(int32(le.Uint32(src[4*j:]))))
		case Uint32:
			buf[i] = uint64(le.Uint32(src[4*j:]))
		}
	}
}

// storeInt writes the low bits of an integer (already wrapped by the caller's
// truncation) in the width of `to`.
func storeInt(dst []byte, to DataType, j int, v uint64) {
	le := binary.LittleEndian
	switch to.BitSize() {
	case 8:
		dst[j] = byte(v)
	case 16:
		le.PutUint16(dst[2*j:], uint16(v))
	case 32:
		le.PutUint32(dst[4*j:], uint32(v))
	case 64:
		le.PutUint64(dst[8*j:], v)
	}
}

func storeFromFloat(dst []byte, to DataType, buf []uint64, base int, src []byte, from DataType) {
	le := binary.LittleEndian
	for i, bits := range buf {
		j := base + i
		f := math.Float64frombits(bits)
		switch {
		case f != f: // NaN: payload rules from the reference, identical on every GOARCH
			rf := ref.Kind(from)
			v := ref.Convert(ref.Kind(to), rf, ref.Get(rf, src, j), ref.Options{Saturate: true})
			storeInt(dst, to, j, v)
		case to == Float:
			le.PutUint32(dst[4*j:], math.Float32bits(float32(f)))
		case to == Double:
			le.PutUint64(dst[8*j:], bits)
		case to == Bool:
			storeInt(dst, to, j, b2u(f != 0))
		default:
			storeInt(dst, to, j, truncWrap(f))
		}
	}
}

// truncWrap truncates toward zero and returns the two's complement bits,
// to be wrapped by the store; values outside [-2^63, 2^64), ±Inf give 0.
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

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func storeFromInt(dst []byte, to DataType, buf []uint64, base int, from DataType) {
	le := binary.LittleEndian
	signed := from != Uint64 // narrower unsigned sources were zero-extended: int64 view is exact
	for i, v := range buf {
		j := base + i
		switch to {
		case Float, Double:
			var f float64
			exact := false
			if signed && int64(v) > -1<<53 && int64(v) < 1<<53 {
				f, exact = float64(int64(v)), true
			} else if !signed && v < 1<<53 {
				f, exact = float64(v), true
			}
			if !exact { // one rounding, the same on every GOARCH
				k := ref.Int64
				if !signed {
					k = ref.Uint64
				}
				storeInt(dst, to, j, ref.Convert(ref.Kind(to), k, v, ref.Options{Saturate: true}))
				continue
			}
			if to == Float {
				le.PutUint32(dst[4*j:], math.Float32bits(float32(f)))
			} else {
				le.PutUint64(dst[8*j:], math.Float64bits(f))
			}
		case Bool:
			storeInt(dst, to, j, b2u(v != 0))
		default:
			storeInt(dst, to, j, v)
		}
	}
}
