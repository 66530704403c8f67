//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// setFusedF8AVX512 installs the kernels of gen/amd64/float8w.go beyond
// FLOAT, FLOAT16, BFLOAT16 → float8: the fused kernels of INT16, UINT16,
// INT32, UINT32, INT64, UINT64 and DOUBLE → the float8 types (VBMI and
// DQ), the stages of INT64 and UINT64 → FLOAT4E2M1 (the same kernels with
// float4Params) and of DOUBLE → FLOAT4E2M1 (gen/amd64/packed.go's
// f64ToF4AVX512VBMI: round to odd at FLOAT16, then its byte codes).
func setFusedF8AVX512(k *kernelSet) {
	if !asmFloat8WParams() || !cpu.X86.HasAVX512VBMI {
		return
	}
	if !cpu.X86.HasAVX512DQ {
		return
	}
	k.toF8[Int16] = kernel[fusedF8Func]{avx512Int16F8(i16ToE4M3AVX512, avx512FusedF8(i16ToE5M2AVX512)), k.tier}
	k.toF8[Uint16] = kernel[fusedF8Func]{avx512Int16F8(u16ToE4M3AVX512, avx512FusedF8(u16ToE5M2AVX512)), k.tier}
	k.toF8[Int32] = kernel[fusedF8Func]{avx512FusedF8(i32ToF8AVX512W), k.tier}
	k.toF8[Uint32] = kernel[fusedF8Func]{avx512FusedF8(u32ToF8AVX512W), k.tier}
	k.toF8[Int64] = kernel[fusedF8Func]{avx512FusedF8(i64ToF8AVX512W), k.tier}
	k.toF8[Uint64] = kernel[fusedF8Func]{avx512FusedF8(u64ToF8AVX512W), k.tier}
	k.toF8[Double] = kernel[fusedF8Func]{avx512FusedF8(f64ToF8AVX512W), k.tier}
	if asmE8M0Params() {
		k.toE8[Float16] = kernel[fusedE8Func]{avx512FusedE8(f16ToE8M0AVX512), k.tier}
		k.toE8[BFloat16] = kernel[fusedE8Func]{avx512FusedE8(bf16ToE8M0AVX512), k.tier}
		k.toE8[Int16] = kernel[fusedE8Func]{avx512FusedE8(i16ToE8M0AVX512), k.tier}
		k.toE8[Uint16] = kernel[fusedE8Func]{avx512FusedE8(u16ToE8M0AVX512), k.tier}
		k.toE8[Int32] = kernel[fusedE8Func]{avx512FusedE8(i32ToE8M0AVX512), k.tier}
		k.toE8[Uint32] = kernel[fusedE8Func]{avx512FusedE8(u32ToE8M0AVX512), k.tier}
		k.toE8[Double] = kernel[fusedE8Func]{avx512FusedE8(f64ToE8M0AVX512), k.tier}
		k.toE8[Int64] = kernel[fusedE8Func]{avx512FusedE8(i64ToE8M0AVX512), k.tier}
		k.toE8[Uint64] = kernel[fusedE8Func]{avx512FusedE8(u64ToE8M0AVX512), k.tier}
	}
	// INT32, UINT32 → FLOAT4E2M1: AVX2's stages (inherit_amd64.go).
	registerStage(k.tier, Int64, Float4E2M1, fusedF4(i64ToF4AVX512W, func(v uint64) float32 { return float32(int64(v)) }))
	registerStage(k.tier, Uint64, Float4E2M1, fusedF4(u64ToF4AVX512W, func(v uint64) float32 { return float32(v) }))
	registerStage(k.tier, Double, Float4E2M1, fusedF4(func(dst *uint8, src *uint64, n int, _ *[8]uint32) { f64ToF4AVX512VBMI(dst, src, n) },
		func(v uint64) float32 { return math.Float32frombits(f64ToF32Odd(v)) }))
}

// fusedF4 is the stage of a 32- or 64-bit source → FLOAT4E2M1 with the
// fused kernel fn (pairs of elements; gen/amd64/float8w.go); an odd last
// element converts through near, a float32 that FLOAT4E2M1 rounds as it
// rounds the element: an integer's nearest float32 (Go's conversion: one
// rounding on amd64; plan.go, below2p24), or a DOUBLE's round to odd.
func fusedF4[S uint32 | uint64](fn func(dst *uint8, src *S, n int, p *[8]uint32), near func(S) float32) stageFunc {
	return func(dst, src []byte, n int) {
		var s S
		size := int(unsafe.Sizeof(s))
		src, dst = src[:n*size], dst[:(n+1)/2]
		raceRead(src)
		raceWrite(dst)
		if n >= 2 {
			fn(&dst[0], (*S)(unsafe.Pointer(&src[0])), n/2, f8p(&float4Params))
		}
		if n%2 == 1 {
			dst[n/2] = f32ToF4(math.Float32bits(near(loadLE[S](src[(n-1)*size:]))))
		}
	}
}

// setFusedF8AVX2 installs the AVX2 fused kernels of FLOAT16, BFLOAT16,
// INT16 and UINT16 → FLOAT8E8M0 (gen/amd64/e8m0.go), and of INT16, UINT16,
// INT32 and UINT32 → the float8 types (gen/amd64/float8.go, narrowToF8);
// the AVX-512 tier replaces them with its own.
func setFusedF8AVX2(k *kernelSet) {
	if asmE8M0Params() {
		k.toE8[Float16] = kernel[fusedE8Func]{avx2FusedE8(f16ToE8M0AVX2, f16ToE8M0AVX2Lanes, f16ToF32), k.tier}
		k.toE8[BFloat16] = kernel[fusedE8Func]{avx2FusedE8(bf16ToE8M0AVX2, bf16ToE8M0AVX2Lanes, func(v uint16) uint32 { return uint32(v) << 16 }), k.tier}
		k.toE8[Int16] = kernel[fusedE8Func]{avx2FusedE8(i16ToE8M0AVX2, i16ToE8M0AVX2Lanes, func(v uint16) uint32 { return math.Float32bits(float32(int16(v))) }), k.tier}
		k.toE8[Uint16] = kernel[fusedE8Func]{avx2FusedE8(u16ToE8M0AVX2, u16ToE8M0AVX2Lanes, func(v uint16) uint32 { return math.Float32bits(float32(v)) }), k.tier}
		k.toE8[Int32] = kernel[fusedE8Func]{avx2IntToE8[int32](i32ToE8M0AVX2, i32ToE8M0AVX2Lanes), k.tier}
		k.toE8[Uint32] = kernel[fusedE8Func]{avx2IntToE8[uint32](u32ToE8M0AVX2, u32ToE8M0AVX2Lanes), k.tier}
		// The tails through the round to odd, the pivot's float32.
		k.toE8[Double] = kernel[fusedE8Func]{avx2FusedE8(f64ToE8M0AVX2, f64ToE8M0AVX2Lanes, f64ToF32Odd), k.tier}
		k.toE8[Int64] = kernel[fusedE8Func]{avx2FusedE8(i64ToE8M0AVX2, i64ToE8M0AVX2Lanes, func(v uint64) uint32 { return intToF32Odd(v, true) }), k.tier}
		k.toE8[Uint64] = kernel[fusedE8Func]{avx2FusedE8(u64ToE8M0AVX2, u64ToE8M0AVX2Lanes, func(v uint64) uint32 { return intToF32Odd(v, false) }), k.tier}
	}
	if !asmFloat8Params() {
		return
	}
	i16 := func(v uint16) float32 { return float32(int16(v)) }
	u16 := func(v uint16) float32 { return float32(v) }
	// The 16-bit integer kernels round with a fused multiply-add
	// (gen/amd64/i16f8.go); without FMA these pairs take their route
	// through FLOAT.
	if cpu.X86.HasFMA {
		k.toF8[Int16] = kernel[fusedF8Func]{avx2Int16F8(avx2FusedF8(i16ToE4M3AVX2, i16ToE4M3AVX2Lanes, i16), avx2FusedF8(i16ToE5M2AVX2, i16ToE5M2AVX2Lanes, i16)), k.tier}
		k.toF8[Uint16] = kernel[fusedF8Func]{avx2Int16F8(avx2FusedF8(u16ToE4M3AVX2, u16ToE4M3AVX2Lanes, u16), avx2FusedF8(u16ToE5M2AVX2, u16ToE5M2AVX2Lanes, u16)), k.tier}
	}
	k.toF8[Int32] = kernel[fusedF8Func]{avx2FusedF8(i32ToF8AVX2, i32ToF8AVX2Lanes, func(v uint32) float32 { return float32(int32(v)) }), k.tier}
	k.toF8[Uint32] = kernel[fusedF8Func]{avx2FusedF8(u32ToF8AVX2, u32ToF8AVX2Lanes, func(v uint32) float32 { return float32(v) }), k.tier}
	// The 64-bit integers to the nearest float32 for the rest, as the
	// kernels' clamp (below2p24): both are exact below 2^24 and overflow
	// every float8 type above.
	k.toF8[Int64] = kernel[fusedF8Func]{avx2FusedF8(i64ToF8AVX2, i64ToF8AVX2Lanes, func(v uint64) float32 { return float32(int64(v)) }), k.tier}
	k.toF8[Uint64] = kernel[fusedF8Func]{avx2FusedF8(u64ToF8AVX2, u64ToF8AVX2Lanes, func(v uint64) float32 { return float32(v) }), k.tier}
	// DOUBLE rounds to odd at float32 in the kernel (oddF64Clear) and in
	// the tail, the pivot's argument (plan.go).
	k.toF8[Double] = kernel[fusedF8Func]{avx2FusedF8(f64ToF8AVX2, f64ToF8AVX2Lanes, func(v uint64) float32 { return math.Float32frombits(f64ToF32Odd(v)) }), k.tier}
	registerStage(k.tier, Double, Float4E2M1, avx2F64ToF4)
}

// avx2F64ToF4 is the AVX2 stage DOUBLE → FLOAT4E2M1: f64ToF4AVX2 (gen/amd64
// packed.go) converts whole steps of pairs, the portable stage the rest.
func avx2F64ToF4(dst, src []byte, n int) {
	src, dst = src[:8*n], dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	m := n / 2 &^ (f64ToF4AVX2Lanes - 1)
	if m > 0 {
		f64ToF4AVX2(&dst[0], (*uint64)(unsafe.Pointer(&src[0])), m)
	}
	float64ToFloat4Generic(dst[m:], src[16*m:], n-2*m)
}

// avx2IntToE8 wraps the AVX2 kernel INT32 or UINT32 → FLOAT8E8M0
// (gen/amd64/e8m0.go, e8m0Int), which converts multiples of lanes; the
// rest converts by the portable intToE8M0, the same algorithm.
func avx2IntToE8[S int32 | uint32](fn func(dst *uint8, src *uint32, n int, p *[4]uint32), lanes int) fusedE8Func {
	return func(dst, src []byte, p *e8m0Params) {
		n := len(dst)
		src = src[:4*n]
		raceRead(src)
		raceWrite(dst)
		m := n &^ (lanes - 1)
		if m > 0 {
			fn(&dst[0], (*uint32)(unsafe.Pointer(&src[0])), m, e8p(p))
		}
		intToE8M0[S](dst[m:], src[4*m:], p)
	}
}

// avx2FusedE8 wraps an AVX2 fused E8M0 kernel (gen/amd64/e8m0.go); f32 is
// the (exact) float32 bits of an element.
func avx2FusedE8[S uint16 | uint64](fn func(dst *uint8, src *S, n int, p *[4]uint32), lanes int, f32 func(S) uint32) fusedE8Func {
	return avx2Fused(fn, lanes, e8p, func(v S) float32 { return math.Float32frombits(f32(v)) }, float32ToE8M0Generic)
}

// avx2FusedF8 wraps an AVX2 fused float8 kernel (gen/amd64/float8.go); near
// is the nearest float32 of an element (exact, or beyond every float8
// type's range like the value: plan.go, below2p24).
func avx2FusedF8[S uint16 | uint32 | uint64](fn func(dst *uint8, src *S, n int, p *[8]uint32), lanes int, near func(S) float32) fusedF8Func {
	return avx2Fused(fn, lanes, f8p, near, float32ToFloat8Generic)
}

// avx2Fused wraps an AVX2 fused kernel fn with parameters P (q(p) as the
// assembly reads them), which converts multiples of lanes (at most 32);
// the rest converts through f32, the float32 fn computes of an element, and
// the portable FLOAT → target kernel rest.
func avx2Fused[S uint16 | uint32 | uint64, P, Q any](fn func(dst *uint8, src *S, n int, q Q), lanes int, q func(P) Q, f32 func(S) float32, rest func([]uint8, []float32, P)) func(dst, src []byte, p P) {
	return func(dst, src []byte, p P) {
		var s S
		size := int(unsafe.Sizeof(s))
		n := len(dst)
		src = src[:n*size]
		raceRead(src)
		raceWrite(dst)
		m := n &^ (lanes - 1)
		if m > 0 {
			fn(&dst[0], (*S)(unsafe.Pointer(&src[0])), m, q(p))
		}
		var tail [32]float32
		for i := m; i < n; i++ {
			tail[i-m] = f32(loadLE[S](src[i*size:]))
		}
		rest(dst[m:], tail[:n-m], p)
	}
}

// loadLE reads an element of type S from the little-endian bytes b.
func loadLE[S uint16 | uint32 | uint64 | int32 | int64](b []byte) S {
	var v S
	for j := range int(unsafe.Sizeof(v)) {
		v |= S(b[j]) << (8 * j)
	}
	return v
}

// avx512FusedE8 wraps a fused E8M0 kernel (gen/amd64/e8m0.go); the kernel
// masks its tail.
func avx512FusedE8[S uint16 | uint32 | uint64](fn func(dst *uint8, src *S, n int, p *[4]uint32)) fusedE8Func {
	return func(dst, src []byte, p *e8m0Params) {
		if len(dst) == 0 {
			return
		}
		var s S
		src = src[:len(dst)*int(unsafe.Sizeof(s))]
		raceRead(src)
		raceWrite(dst)
		fn(&dst[0], (*S)(unsafe.Pointer(&src[0])), len(dst), e8p(p))
	}
}

// avx512FusedF8 wraps a fused float8 kernel; the kernel masks its tail.
func avx512FusedF8[S uint16 | uint32 | uint64](fn func(dst *uint8, src *S, n int, p *[8]uint32)) fusedF8Func {
	return func(dst, src []byte, p *float8Params) {
		if len(dst) == 0 {
			return
		}
		var s S
		src = src[:len(dst)*int(unsafe.Sizeof(s))]
		raceRead(src)
		raceWrite(dst)
		fn(&dst[0], (*S)(unsafe.Pointer(&src[0])), len(dst), f8p(p))
	}
}
