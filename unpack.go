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
