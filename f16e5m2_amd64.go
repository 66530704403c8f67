//go:build amd64 && gc && !purego && !noasm

package tensorcast

import "golang.org/x/sys/cpu"

// withE5M2 returns the FLOAT16 → float8 kernel fn with its FLOAT8E5M2 and
// FLOAT8E5M2FNUZ targets sent to the 16-bit-lane kernels of
// gen/amd64/f16e5m2.go (integer arithmetic only: those two types share
// FLOAT16's exponent range or nearly, see there); avx512 selects the
// AVX-512 kernels (which need VBMI), else the AVX2 ones, whose last n mod 32
// elements fn converts.
func withE5M2(fn func([]uint8, []uint16, *float8Params), avx512 bool) func([]uint8, []uint16, *float8Params) {
	if avx512 && !cpu.X86.HasAVX512VBMI {
		return fn
	}
	return func(dst []uint8, src []uint16, p *float8Params) {
		var k func(dst *uint8, src *uint16, n int, p *[8]uint32)
		switch p {
		case &float8Table[Float8E5M2-Float8E4M3FN][0], &float8Table[Float8E5M2-Float8E4M3FN][1]:
			k = f16ToE5M2AVX2
			if avx512 {
				k = f16ToE5M2AVX512
			}
		case &float8Table[Float8E5M2FNUZ-Float8E4M3FN][0], &float8Table[Float8E5M2FNUZ-Float8E4M3FN][1]:
			k = f16ToE5M2FNUZAVX2
			if avx512 {
				k = f16ToE5M2FNUZAVX512
			}
		default:
			fn(dst, src, p)
			return
		}
		n := len(src)
		dst = dst[:n]
		m := n
		if !avx512 {
			m = n &^ 31
		}
		if m > 0 {
			raceRead(src[:m])
			raceWrite(dst[:m])
			k(&dst[0], &src[0], m, f8p(p))
		}
		if m < n {
			fn(dst[m:], src[m:], p)
		}
	}
}
