//go:build amd64 && gc && !purego && !noasm

package tensorcast

// f16ToF8Func is the type of the FLOAT16 → float8 kernels.
type f16ToF8Func = func([]uint8, []uint16, *float8Params)

// withHalfLanes returns the FLOAT16 → float8 kernel fn with the targets
// that have a 16-bit-lane kernel sent to it: FLOAT8E5M2 and FLOAT8E5M2FNUZ
// to e5m2 and e5m2fnuz (gen/amd64/f16e5m2.go: integer arithmetic only,
// those two types share FLOAT16's exponent range, or nearly), FLOAT8E4M3FN
// and FLOAT8E4M3FNUZ to e4m3 (gen/amd64/f16e4m3.go; fn itself on tiers
// without such a kernel).
func withHalfLanes(fn, e4m3, e5m2, e5m2fnuz f16ToF8Func) f16ToF8Func {
	return func(dst []uint8, src []uint16, p *float8Params) {
		switch p {
		case &float8Table[Float8E5M2-Float8E4M3FN][0], &float8Table[Float8E5M2-Float8E4M3FN][1]:
			e5m2(dst, src, p)
		case &float8Table[Float8E5M2FNUZ-Float8E4M3FN][0], &float8Table[Float8E5M2FNUZ-Float8E4M3FN][1]:
			e5m2fnuz(dst, src, p)
		case &float8Table[0][0], &float8Table[0][1], &float8Table[Float8E4M3FNUZ-Float8E4M3FN][0], &float8Table[Float8E4M3FNUZ-Float8E4M3FN][1]:
			e4m3(dst, src, p)
		default:
			fn(dst, src, p)
		}
	}
}

// bf16ViaF16 is the AVX2 BFLOAT16 → float8 kernel: FLOAT8E5M2 goes through
// FLOAT16 block by block (toF16, then e5m2, the 16-bit-lane kernel), the
// other types through fn. The route is exact: BFLOAT16 → FLOAT16 rounds to
// nearest even and changes no value that FLOAT8E5M2 tells apart.
//
//   - From 2^-14 up to 65504, a BFLOAT16 (8 significant bits) is a FLOAT16.
//   - From 65520 up (±Inf included), FLOAT16 gives ±Inf, as far beyond
//     FLOAT8E5M2's largest value (57344; overflow from 61440) as the value
//     itself: the same overflow code.
//   - Below 2^-14, FLOAT16's subnormals step by 2^-24. From 2^-17 up a
//     BFLOAT16 steps by 2^-24 or more, so it is exact. Below 2^-17, half of
//     FLOAT8E5M2's smallest subnormal 2^-16, the value rounds to ±0, and its
//     FLOAT16 is at most 2^-17 (a grid point), which rounds to ±0 too (2^-17
//     itself is a tie, to the even 0).
//   - NaN stays NaN with its sign, the only thing the float8 NaN code reads.
//
// (FLOAT8E5M2FNUZ, whose smallest subnormal is 2^-17, would see the
// FLOAT16 rounding of values just above 2^-18, and stays with fn.) One
// kernel doing both steps per vector measured slower here (Zen 4: 0.25
// against 0.28-0.29× copy()): the two steps each keep their loop simple.
func bf16ViaF16(fn, e5m2 f16ToF8Func, toF16 func(dst, src []uint16)) f16ToF8Func {
	return func(dst []uint8, src []uint16, p *float8Params) {
		if p != &float8Table[Float8E5M2-Float8E4M3FN][0] && p != &float8Table[Float8E5M2-Float8E4M3FN][1] {
			fn(dst, src, p)
			return
		}
		b, bi := getBlock()
		h := view[uint16](b[:], len(b)/2)
		for i := 0; i < len(src); i += len(h) {
			c := min(len(h), len(src)-i)
			toF16(h[:c], src[i:i+c])
			e5m2(dst[i:i+c], h[:c], p)
		}
		putBlock(bi)
	}
}
