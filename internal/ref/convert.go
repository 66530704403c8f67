package ref

import "fmt"

// Decode returns the exact value of one element of kind k stored in the low
// bits of b (integers as two's complement of the kind's width, BOOL as one
// byte where any nonzero byte is true).
func Decode(k Kind, b uint64) Value {
	if f := formatOf(k); f != nil {
		return f.decode(b)
	}
	switch {
	case k == Bool:
		if b&0xFF != 0 {
			return FromUint(1, false)
		}
		return Value{Class: Zero}
	case k.Signed():
		w := uint(64 - k.Bits())
		return FromInt(int64(b<<w) >> w) // sign-extend
	case k.IsInt():
		return FromUint(b&mask(k), false)
	}
	panic(fmt.Sprintf("ref: Decode of unsupported kind %d", k))
}

// Encode converts v to kind k, rounding once (floats), or truncating toward
// zero and wrapping (integers); see the package doc and the README table.
func Encode(k Kind, v Value, opt Options) uint64 {
	if f := formatOf(k); f != nil {
		return f.encode(k, v, opt)
	}
	switch {
	case k == Bool:
		if v.Class == Zero {
			return 0
		}
		return 1 // nonzero, Inf and NaN are all true
	case k.IsInt():
		return encodeInt(k, v)
	}
	panic(fmt.Sprintf("ref: Encode to unsupported kind %d", k))
}

// encodeInt truncates toward zero and wraps modulo 2^width. NaN, ±Inf and
// values whose truncation lies outside [-2^63, 2^64) give 0.
func encodeInt(k Kind, v Value) uint64 {
	if v.Class == NaN || v.Class == Inf {
		return 0
	}
	u, ok := v.truncate()
	if !ok || (v.Neg && u > 1<<63) {
		return 0
	}
	if v.Neg {
		u = -u
	}
	return u & mask(k)
}

func mask(k Kind) uint64 {
	if k.Bits() == 64 {
		return ^uint64(0)
	}
	return 1<<uint(k.Bits()) - 1
}

// Convert converts one element from kind `from` to kind `to`.
func Convert(to, from Kind, b uint64, opt Options) uint64 {
	return Encode(to, Decode(from, b), opt)
}

// Get reads element i of a raw little-endian tensor of kind k (2- and 4-bit
// kinds packed, first element in the low bits).
func Get(k Kind, src []byte, i int) uint64 {
	switch k.Bits() {
	case 2:
		return uint64(src[i/4]>>(uint(i%4)*2)) & 3
	case 4:
		return uint64(src[i/2]>>(uint(i%2)*4)) & 15
	}
	w := k.Bits() / 8
	var b uint64
	for j := w - 1; j >= 0; j-- {
		b = b<<8 | uint64(src[i*w+j])
	}
	return b
}

// Put writes element i of a raw tensor of kind k, leaving the other elements
// packed in the same byte unchanged.
func Put(k Kind, dst []byte, i int, b uint64) {
	switch k.Bits() {
	case 2:
		s := uint(i%4) * 2
		dst[i/4] = dst[i/4]&^(3<<s) | byte(b&3)<<s
		return
	case 4:
		s := uint(i%2) * 4
		dst[i/2] = dst[i/2]&^(15<<s) | byte(b&15)<<s
		return
	}
	w := k.Bits() / 8
	for j := 0; j < w; j++ {
		dst[i*w+j] = byte(b >> (8 * uint(j)))
	}
}

// Size is the number of bytes that hold n elements of kind k.
func Size(k Kind, n int) int { return (n*k.Bits() + 7) / 8 }

// Cast converts n elements of raw tensor data, element by element. The
// padding bits of a partly filled last byte of a 2- or 4-bit target are zero.
// It panics on unsupported kinds or short slices: it is a test oracle, and
// tensorcast.Cast does the checking.
func Cast(dst []byte, to Kind, src []byte, from Kind, n int, opt Options) {
	if to.Bits() < 8 {
		clear(dst[:Size(to, n)])
	}
	for i := 0; i < n; i++ {
		Put(to, dst, i, Convert(to, from, Get(from, src, i), opt))
	}
}

// formatOf returns the float format of k, or nil if k is not a float kind.
func formatOf(k Kind) *format {
	if k < 0 || int(k) >= len(formats) {
		return nil
	}
	return formats[k]
}
