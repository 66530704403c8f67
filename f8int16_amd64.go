//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"math"
	"unsafe"
)

// int16E4M3Tables holds, for FLOAT8E4M3FN and FLOAT8E4M3FNUZ in each
// saturate mode (float8Table's indices), the two 128-entry tables of the
// AVX-512 INT16/UINT16 kernels (gen/amd64/i16e4m3.go): the codes of the
// integers 0..127, then entry 128+j the code of 4j (the class of the
// kernel's round-to-odd index j ≥ 32; entries below 32 are never read).
// They come from the portable FLOAT kernel, exact for these integers.
var int16E4M3Tables = func() (t [2][2][256]uint8) {
	for ti := range t {
		for s := range t[ti] {
			p := &float8Table[ti][s]
			for i := range 128 {
				t[ti][s][i] = f32ToF8(math.Float32bits(float32(i)), p)
				t[ti][s][128+i] = f32ToF8(math.Float32bits(float32(4*i)), p)
			}
		}
	}
	return t
}()

// int16E4M3Table returns the tables for p, or nil where p is not one of
// the two E4M3 types' parameters.
func int16E4M3Table(p *float8Params) *[256]uint8 {
	for ti := range int16E4M3Tables {
		for s := range int16E4M3Tables[ti] {
			if p == &float8Table[ti][s] {
				return &int16E4M3Tables[ti][s]
			}
		}
	}
	return nil
}

// avx512Int16F8 is the AVX-512 INT16 or UINT16 → float8 kernel: the table
// kernel fn for the E4M3 types, else the fused kernel other.
func avx512Int16F8(fn func(dst *uint8, src *uint16, n int, t *[256]uint8), other fusedF8Func) fusedF8Func {
	return func(dst, src []byte, p *float8Params) {
		t := int16E4M3Table(p)
		if t == nil {
			other(dst, src, p)
			return
		}
		if len(dst) == 0 {
			return
		}
		src = src[:2*len(dst)]
		raceRead(src)
		raceWrite(dst)
		fn(&dst[0], (*uint16)(unsafe.Pointer(&src[0])), len(dst), t)
	}
}

// avx2Int16F8 is the AVX2 INT16 or UINT16 → float8 kernel
// (gen/amd64/i16f8.go): e4m3 for the E4M3 types, e5m2 for the E5M2 ones
// (p is one of float8Table's: a fused float8 kernel serves only those four
// types).
func avx2Int16F8(e4m3, e5m2 fusedF8Func) fusedF8Func {
	return func(dst, src []byte, p *float8Params) {
		if int16E4M3Table(p) != nil {
			e4m3(dst, src, p)
			return
		}
		e5m2(dst, src, p)
	}
}
