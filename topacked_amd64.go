//go:build amd64 && gc && !purego && !noasm

package tensorcast

import "encoding/binary"

// packedStage is the AVX2 stage into the packed type `to` with a kernel
// that packs whole steps (multiples of step source elements, of size bytes
// each; kernel counts result bytes); the last elements are packed here,
// code(src, i) giving element i's code in its low bits.
func packedStage(size int, to DataType, step int, kernel func(dst, src *uint8, n int), code func(src []byte, i int) uint8) stageFunc {
	return func(dst, src []byte, n int) {
		src, dst = src[:size*n], dst[:to.Size(n)]
		raceRead(src)
		raceWrite(dst)
		bits := to.BitSize()
		m := n - n%step
		if m > 0 {
			kernel(&dst[0], &src[0], m*bits/8)
		}
		packTail(dst[to.Size(m):], bits, n-m, func(i int) uint8 { return code(src, m+i) })
	}
}

// packTail packs count codes into d, bits each (4 or 2), the first in the
// low bits of d[0]. code(i) is the i-th element's code in its low bits
// (higher bits are dropped).
func packTail(d []byte, bits, count int, code func(i int) uint8) {
	per := 8 / bits
	for i := range count {
		c := code(i) & (1<<bits - 1) << (bits * (i % per))
		if i%per == 0 {
			d[i/per] = c
		} else {
			d[i/per] |= c
		}
	}
}

// avx2IntPackedStage is the AVX2 stage of a 16-, 32- or 64-bit integer type
// or FLOAT `from` → the packed integer type `to` (INT4, UINT4, INT2, UINT2)
// with the kernel fn of gen/amd64's intToPacked, which keeps the low bits of
// each element (of FLOAT's truncation) and packs 16 bytes of them a step;
// the last elements likewise (the low byte of a little-endian element holds
// its low bits; FLOAT's by f32ToLow32).
func avx2IntPackedStage(from, to DataType, fn func(dst, src *uint8, n int)) stageFunc {
	size := from.Size(1)
	return packedStage(size, to, 16*8/to.BitSize(), fn, func(src []byte, i int) uint8 {
		if from == Float {
			return byte(f32ToLow32(binary.LittleEndian.Uint32(src[4*i:])))
		}
		return src[size*i]
	})
}

// avx2BoolPackedStage is the AVX2 stage of BOOL → the packed type `to` with
// the kernel fn of gen/amd64's boolPacked: code where a byte is not 0, else
// 0, 32 bytes of results a step.
func avx2BoolPackedStage(to DataType, fn func(dst, src *uint8, n int, code uint8), code uint8) stageFunc {
	kernel := func(dst, src *uint8, n int) { fn(dst, src, n, code) }
	return packedStage(1, to, 32*8/to.BitSize(), kernel, func(src []byte, i int) uint8 {
		if src[i] != 0 {
			return code
		}
		return 0
	})
}
