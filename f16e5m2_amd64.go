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
