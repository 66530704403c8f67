package tensorcast

import (
	"math/bits"
	"unsafe"
)

// Packed sources (INT4, UINT4, FLOAT4E2M1: two elements to a byte; INT2,
// UINT2: four) to targets of 8 to 64 bits. Each element is one of at most 16
// codes, so the pair's conversion in one Options mode is a table of 16
// target values (tables.go builds it from the reference); the unpack kernels
// split the source bytes into codes and look them up. On AVX-512 they run
// 64 codes per step (gen/amd64/unpacktab.go); the portable kernels below
// look up one code at a time.

// Between packed types, every source nibble (one 4-bit code, or two 2-bit
// ones) maps to a few target bits, so each pair is a nibble map (map4, or
// map4Pack for 4-bit to 2-bit) or, for 2-bit to 4-bit, an unpack of
// nibbles into target bytes; nibbleTables derives their tables.

// codeTable holds the target value of each code in w bytes (w the target's
// size), little-endian, at offset w·code; codes a 2-bit source cannot have
// are zero.
type codeTable [16 * 8]byte

// newCodeTable lays out t's entries (one of its slices is set) with w
// bytes each.
func newCodeTable(t *convTable, w int) *codeTable {
	c := new(codeTable)
	put := func(i int, v uint64) {
		for j := range w {
			c[w*i+j] = byte(v >> (8 * j))
		}
	}
	for i, v := range t.b8 {
		put(i, uint64(v))
	}
	for i, v := range t.b16 {
		put(i, uint64(v))
	}
	for i, v := range t.b32 {
		put(i, uint64(v))
	}
	for i, v := range t.b64 {
		put(i, v)
	}
	return c
}

// unpackFunc converts the elements packed in every byte of src (2 or 4 per
// byte) to dst, len(src)·per elements of the target's size, through t.
type unpackFunc = func(dst, src []byte, t *codeTable)

// unpackSlot indexes kernelSet.unpack: [0] 4-bit codes, [1] 2-bit codes;
// then log2 of the target's size in bytes (0 for 8 bits … 3 for 64).
func unpackSlot(from, to DataType) (int, int) {
	b := 0
	if from.BitSize() == 2 {
		b = 1
	}
	return b, bits.TrailingZeros(uint(to.Size(1)))
}

// unpackStep converts a packed source to a target of 8 to 64 bits: the
// kernel takes the whole source bytes, the elements of a partly used last
// byte are looked up here.
func unpackStep(from, to DataType) *step {
	b, w := unpackSlot(from, to)
	size, width := to.Size(1), uint(from.BitSize())
	per := 8 / int(width)
	return &step{name: from.String() + " -> " + to.String() + " (code table)", lookup: true,
		run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
			t := tableFor(from, to, opt).codes
			whole := n / per
			k.unpack[b][w].fn(dst[:whole*per*size], src[:whole], t)
			for i := whole * per; i < n; i++ {
				c := int(src[whole] >> (width * uint(i-whole*per)) & (1<<width - 1))
				copy(dst[i*size:(i+1)*size], t[c*size:])
			}
		},
		tier: func(k *kernelSet) string { return k.unpack[b][w].tier }}
}

// genericUnpack returns the portable unpack kernels.
func genericUnpack(tier string) (u [2][4]kernel[unpackFunc]) {
	for b, width := range []uint{4, 2} {
		u[b] = [4]kernel[unpackFunc]{
			{unpackGeneric[uint8](width), tier}, {unpackGeneric[uint16](width), tier},
			{unpackGeneric[uint32](width), tier}, {unpackGeneric[uint64](width), tier},
		}
	}
	return
}

func unpackGeneric[D uint8 | uint16 | uint32 | uint64](width uint) unpackFunc {
	return func(dst, src []byte, t *codeTable) {
		if len(src) == 0 {
			return
		}
		per := 8 / int(width)
		var zero D
		_ = dst[len(src)*per*int(unsafe.Sizeof(zero))-1]
		unpackLookup(view[D](dst, len(src)*per), src, width, view[D](t[:], 16))
	}
}

// nibbleTables derives, from the target code of each source code (t), the
// tables of a pair of packed types of from and to bits: the map4 (or
// map4Pack) tables lo, hi of each source nibble, or for 2 → 4 bits the
// target byte of each source nibble as a codeTable for unpack[0][0].
func nibbleTables(t []uint8, from, to int) (*[32]uint8, *codeTable) {
	// code of the nibble v: the target bits of its one or two source codes.
	code := func(v int) uint8 {
		if from == 4 {
			return t[v]
		}
		return t[v&3] | t[v>>2]<<uint(to)
	}
	if from == 2 && to == 4 {
		c := new(codeTable)
		for v := range 16 {
			c[v] = code(v)
		}
		return nil, c
	}
	shift := uint(4) // map4: the high nibble's bits go to the high nibble
	if from == 4 && to == 2 {
		shift = 2 // map4Pack: a 4-bit value per source byte
	}
	n := new([32]uint8)
	for v := range 16 {
		n[v] = code(v)
		n[16+v] = code(v) << shift
	}
	return n, nil
}

// map4Func and map4PackFunc: see kernelSet.map4.
type map4Func = func(dst, src []byte, t *[32]uint8)

func map4Generic(dst, src []byte, t *[32]uint8) {
	dst = dst[:len(src)]
	for i, b := range src {
		dst[i] = t[b&15] | t[16+b>>4]
	}
}

func map4PackGeneric(dst, src []byte, t *[32]uint8) {
	m := len(src)
	dst = dst[:(m+1)/2]
	for j := range m / 2 {
		b0, b1 := src[2*j], src[2*j+1]
		dst[j] = t[b0&15] | t[16+b0>>4] | (t[b1&15]|t[16+b1>>4])<<4
	}
	if m%2 == 1 {
		b := src[m-1]
		dst[m/2] = t[b&15] | t[16+b>>4]
	}
}

// repackStep converts between packed types of different codes (see
// nibbleTables); the source's padding bits map to target bits that
// clearPadding clears.
func repackStep(from, to DataType) *step {
	fb, tb := from.BitSize(), to.BitSize()
	name := from.String() + " -> " + to.String() + " (nibble table)"
	if fb == 2 && tb == 4 {
		return &step{name: name, lookup: true,
			run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
				t := tableFor(from, to, opt).codes
				whole := n / 4
				k.unpack[0][0].fn(dst[:2*whole], src[:whole], t)
				if whole*4 < n {
					b := src[whole]
					dst[2*whole] = t[b&15]
					if 2*whole+1 < to.Size(n) {
						dst[2*whole+1] = t[b>>4]
					}
				}
				clearPadding(dst, to, n)
			},
			tier: func(k *kernelSet) string { return k.unpack[0][0].tier }}
	}
	return &step{name: name, lookup: true,
		run: func(k *kernelSet, dst, src []byte, n int, opt Options) {
			t := tableFor(from, to, opt).nib
			m := from.Size(n)
			if fb == tb {
				k.map4.fn(dst[:m], src[:m], t)
			} else {
				k.map4Pack.fn(dst[:to.Size(n)], src[:m], t)
			}
			clearPadding(dst, to, n)
		},
		tier: func(k *kernelSet) string {
			if fb == tb {
				return k.map4.tier
			}
			return k.map4Pack.tier
		}}
}
