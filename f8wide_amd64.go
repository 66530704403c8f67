//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// setFusedF8AVX512 installs the kernels of gen/amd64/float8w.go beyond
// FLOAT, FLOAT16, BFLOAT16 → float8: FLOAT → FLOAT4E2M1 (VBMI), and the
// fused kernels of INT16, UINT16, INT32, UINT32, INT64, UINT64 and DOUBLE
// → the float8 types (VBMI and DQ), and the stages of INT32, UINT32, INT64
// and UINT64 → FLOAT4E2M1 (the same kernels with float4Params).
func setFusedF8AVX512(k *kernelSet) {
	if !asmFloat8WParams() || !cpu.X86.HasAVX512VBMI {
		return
	}
	k.f32ToF4 = kernel[func([]uint8, []float32)]{avx512WF32ToF4, k.tier}
	if !cpu.X86.HasAVX512DQ {
		return
	}
	k.toF8[Int16] = kernel[fusedF8Func]{avx512FusedF8(i16ToF8AVX512W), k.tier}
	k.toF8[Uint16] = kernel[fusedF8Func]{avx512FusedF8(u16ToF8AVX512W), k.tier}
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
	}
	registerStage(k.tier, Int32, Float4E2M1, fusedF4(i32ToF4AVX512W, func(v uint32) float32 { return float32(int32(v)) }))
	registerStage(k.tier, Uint32, Float4E2M1, fusedF4(u32ToF4AVX512W, func(v uint32) float32 { return float32(v) }))
	registerStage(k.tier, Int64, Float4E2M1, fusedF4(i64ToF4AVX512W, func(v uint64) float32 { return float32(int64(v)) }))
	registerStage(k.tier, Uint64, Float4E2M1, fusedF4(u64ToF4AVX512W, func(v uint64) float32 { return float32(v) }))
}

// fusedF4 is the stage of an integer source → FLOAT4E2M1 with the fused
// kernel fn (pairs of elements; gen/amd64/float8w.go); an odd last element
// converts through near, the nearest float32 (Go's conversion: one
// rounding on amd64), which FLOAT4E2M1 then rounds exactly (plan.go,
// below2p24).
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
			var v S
			for i := range size {
				v |= S(src[(n-1)*size+i]) << (8 * i)
			}
			dst[n/2] = f32ToF4(math.Float32bits(near(v)))
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
	}
	if !asmFloat8Params() {
		return
	}
	k.toF8[Int16] = kernel[fusedF8Func]{avx2FusedF8(i16ToF8AVX2, i16ToF8AVX2Lanes, func(v uint16) float32 { return float32(int16(v)) }), k.tier}
	k.toF8[Uint16] = kernel[fusedF8Func]{avx2FusedF8(u16ToF8AVX2, u16ToF8AVX2Lanes, func(v uint16) float32 { return float32(v) }), k.tier}
	k.toF8[Int32] = kernel[fusedF8Func]{avx2FusedF8(i32ToF8AVX2, i32ToF8AVX2Lanes, func(v uint32) float32 { return float32(int32(v)) }), k.tier}
	k.toF8[Uint32] = kernel[fusedF8Func]{avx2FusedF8(u32ToF8AVX2, u32ToF8AVX2Lanes, func(v uint32) float32 { return float32(v) }), k.tier}
}

// avx2FusedE8 wraps an AVX2 fused E8M0 kernel (gen/amd64/e8m0.go), which
// converts multiples of lanes (at most 32); the rest goes through f32, the
// float32 the kernel computes (exact), and the portable FLOAT → E8M0
// kernel.
func avx2FusedE8[S uint16](fn func(dst *uint8, src *S, n int, p *[4]uint32), lanes int, f32 func(S) uint32) fusedE8Func {
	return func(dst, src []byte, p *e8m0Params) {
		var s S
		size := int(unsafe.Sizeof(s))
		n := len(dst)
		src = src[:n*size]
		raceRead(src)
		raceWrite(dst)
		m := n &^ (lanes - 1)
		if m > 0 {
			fn(&dst[0], (*S)(unsafe.Pointer(&src[0])), m, e8p(p))
		}
		var tail [32]float32
		for i := m; i < n; i++ {
			var v S
			for j := range size {
				v |= S(src[i*size+j]) << (8 * j)
			}
			tail[i-m] = math.Float32frombits(f32(v))
		}
		float32ToE8M0Generic(dst[m:], tail[:n-m], p)
	}
}

// avx2FusedF8 wraps an AVX2 fused float8 kernel, which converts multiples of
// lanes (at most 32); the rest converts through near, the nearest float32
// (exact, or beyond every float8 type's range like the value: plan.go,
// below2p24), and the portable FLOAT → float8 kernel.
func avx2FusedF8[S uint16 | uint32](fn func(dst *uint8, src *S, n int, p *[8]uint32), lanes int, near func(S) float32) fusedF8Func {
	return func(dst, src []byte, p *float8Params) {
		var s S
		size := int(unsafe.Sizeof(s))
		n := len(dst)
		src = src[:n*size]
		raceRead(src)
		raceWrite(dst)
		m := n &^ (lanes - 1)
		if m > 0 {
			fn(&dst[0], (*S)(unsafe.Pointer(&src[0])), m, f8p(p))
		}
		var tail [32]float32
		for i := m; i < n; i++ {
			var v S
			for j := range size {
				v |= S(src[i*size+j]) << (8 * j)
			}
			tail[i-m] = near(v)
		}
		float32ToFloat8Generic(dst[m:], tail[:n-m], p)
	}
}

// avx512FusedE8 wraps a fused E8M0 kernel (gen/amd64/e8m0.go); the kernel
// masks its tail.
func avx512FusedE8[S uint16 | uint32](fn func(dst *uint8, src *S, n int, p *[4]uint32)) fusedE8Func {
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

// avx512WF32ToF4 is FLOAT → FLOAT4E2M1 on the 16-bit-lane float8 kernel
// (gen/amd64/float8w.go) with float4Params; it needs VBMI.
func avx512WF32ToF4(dst []uint8, src []float32) {
	n := len(src)
	dst = dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	f32ToF4AVX512W(unsafe.SliceData(dst), unsafe.SliceData(src), n/2, f8p(&float4Params))
	if n%2 == 1 {
		dst[n/2] = f32ToF4(math.Float32bits(src[n-1]))
	}
}
