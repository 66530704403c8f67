//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"math"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Dispatch glue for the generated AVX2 and AVX-512 kernels (gen/amd64,
// kernel_amd64.s). Each wrapper declares the memory the assembly touches to
// the race detector and finishes what the assembly leaves: the AVX2 kernels
// convert whole steps only (avx2Lanes… elements at a time) and the generic
// code converts the remaining elements; the AVX-512 kernels mask their tail.

// Elements per step of the AVX2 kernels (Loop.Lanes in gen/amd64): the
// wrappers pass n rounded down to a multiple and convert the rest in Go.
const (
	avx2Lanes   = 8  // the kernels on 32-bit lanes
	avx2Lanes16 = 16 // bf16ToF32AVX2
	avx2Pairs   = 4  // f32ToF4, f32ToI4 (in pairs), f4ToF32 (in source bytes)
	avx2Bytes   = 16 // i8ToI4 (in pairs), i4ToI8 and u4ToU8 (in source bytes)
)

// The assembly reads float8Params and e8m0Params as arrays of uint32 at
// fixed offsets; these fail to compile if the layouts change.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(float8Params{})-32]
	_ = [1]struct{}{}[unsafe.Offsetof(float8Params{}.signedZero)-28]
	_ = [1]struct{}{}[unsafe.Sizeof(e8m0Params{})-16]
)

func f8p(p *float8Params) *[8]uint32 { return (*[8]uint32)(unsafe.Pointer(p)) }
func e8p(p *e8m0Params) *[4]uint32   { return (*[4]uint32)(unsafe.Pointer(p)) }

// asmFloat8Params reports whether the float8 parameter sets meet what the
// narrowing kernels assume: overflow is maxBits (saturating) or maxBits+1,
// so that min(r, overflow) replaces every r > maxBits.
func asmFloat8Params() bool {
	for _, ps := range float8Table {
		for _, p := range ps {
			if p.overflow != p.maxBits && p.overflow != p.maxBits+1 {
				return false
			}
		}
	}
	return true
}

// asmE8M0Params reports whether the FLOAT8E8M0 parameter sets are of the
// two kinds the kernels' clamp handles: underflow 0, or underflow and
// overflow both 0xFF.
func asmE8M0Params() bool {
	for _, ps := range e8m0Table {
		for _, p := range ps {
			if p.underflow != 0 && (p.underflow != 0xFF || p.overflow != 0xFF) {
				return false
			}
		}
	}
	return true
}

func init() {
	if !(cpu.X86.HasAVX2 && cpu.X86.HasF16C) {
		return
	}
	k := *tiers[len(tiers)-1]
	const t2 = "avx2"
	k.tier = t2
	k.f32ToF16 = kernel[func([]uint16, []float32)]{avx2F32ToF16, t2}
	k.f16ToF32 = kernel[func([]float32, []uint16)]{avx2F16ToF32, t2}
	k.f32ToBF16 = kernel[func([]uint16, []float32)]{avx2F32ToBF16, t2}
	k.bf16ToF32 = kernel[func([]float32, []uint16)]{avx2BF16ToF32, t2}
	if asmFloat8Params() {
		k.f32ToF8 = kernel[func([]uint8, []float32, *float8Params)]{avx2F32ToF8, t2}
		k.f16ToF8 = kernel[func([]uint8, []uint16, *float8Params)]{avx2F16ToF8, t2}
		k.bf16ToF8 = kernel[func([]uint8, []uint16, *float8Params)]{avx2BF16ToF8, t2}
	}
	if asmE8M0Params() {
		k.f32ToE8M0 = kernel[func([]uint8, []float32, *e8m0Params)]{avx2F32ToE8M0, t2}
	}
	k.f32ToF4 = kernel[func([]uint8, []float32)]{avx2F32ToF4, t2}
	k.f4ToF32 = kernel[func([]float32, []uint8)]{avx2F4ToF32, t2}
	k.i8ToI4 = kernel[func([]uint8, []uint8)]{avx2I8ToI4, t2}
	k.i4ToI8 = kernel[func([]uint8, []uint8)]{avx2I4ToI8, t2}
	k.u4ToU8 = kernel[func([]uint8, []uint8)]{avx2U4ToU8, t2}
	k.f32ToI4 = kernel[func([]uint8, []float32)]{avx2F32ToI4, t2}
	tiers = append(tiers, &k)

	if !(cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2) {
		active = tiers[len(tiers)-1]
		return
	}
	k5 := k
	const t5 = "avx512"
	k5.tier = t5
	k5.f32ToF16 = kernel[func([]uint16, []float32)]{avx512F32ToF16, t5}
	k5.f16ToF32 = kernel[func([]float32, []uint16)]{avx512F16ToF32, t5}
	k5.f32ToBF16 = kernel[func([]uint16, []float32)]{avx512F32ToBF16, t5}
	k5.bf16ToF32 = kernel[func([]float32, []uint16)]{avx512BF16ToF32, t5}
	if asmFloat8Params() {
		k5.f32ToF8 = kernel[func([]uint8, []float32, *float8Params)]{avx512F32ToF8, t5}
		k5.f16ToF8 = kernel[func([]uint8, []uint16, *float8Params)]{avx512F16ToF8, t5}
		k5.bf16ToF8 = kernel[func([]uint8, []uint16, *float8Params)]{avx512BF16ToF8, t5}
	}
	if cpu.X86.HasAVX512VBMI {
		k5.f8ToF32 = kernel[func([]float32, []uint8, *[256]uint32)]{avx512F8ToF32, t5}
	}
	if asmE8M0Params() {
		k5.f32ToE8M0 = kernel[func([]uint8, []float32, *e8m0Params)]{avx512F32ToE8M0, t5}
	}
	k5.f32ToF4 = kernel[func([]uint8, []float32)]{avx512F32ToF4, t5}
	k5.f4ToF32 = kernel[func([]float32, []uint8)]{avx512F4ToF32, t5}
	k5.i8ToI4 = kernel[func([]uint8, []uint8)]{avx512I8ToI4, t5}
	k5.i4ToI8 = kernel[func([]uint8, []uint8)]{avx512I4ToI8, t5}
	k5.u4ToU8 = kernel[func([]uint8, []uint8)]{avx512U4ToU8, t5}
	k5.f32ToI4 = kernel[func([]uint8, []float32)]{avx512F32ToI4, t5}
	// VCVTNE2PS2BF16 serves FLOAT -> BFLOAT16 where the CPU has it (its
	// tier reads "avx512+bf16"); GODEBUG=cpu.avx512bf16=off selects the
	// integer kernel, which kernel_amd64_test.go also tests directly.
	if cpu.X86.HasAVX512BF16 && cpu.X86.HasAVX512DQ {
		k5.f32ToBF16 = kernel[func([]uint16, []float32)]{avx512BF16F32ToBF16, t5 + "+bf16"}
	}
	tiers = append(tiers, &k5)
	active = tiers[len(tiers)-1]
}

func avx2F32ToF16(dst []uint16, src []float32) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes - 1)
	if m > 0 {
		f32ToF16AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	for i := m; i < n; i++ {
		dst[i] = f32ToF16(math.Float32bits(src[i]))
	}
}

func avx512F32ToF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	f32ToF16AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src))
}

func avx2F16ToF32(dst []float32, src []uint16) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes - 1)
	if m > 0 {
		f16ToF32AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	for i := m; i < n; i++ {
		dst[i] = math.Float32frombits(f16ToF32(src[i]))
	}
}

func avx512F16ToF32(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	f16ToF32AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src))
}

func avx2F32ToBF16(dst []uint16, src []float32) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes - 1)
	if m > 0 {
		f32ToBF16AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	for i := m; i < n; i++ {
		dst[i] = f32ToBF16(math.Float32bits(src[i]))
	}
}

func avx512F32ToBF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	f32ToBF16AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src))
}

func avx2BF16ToF32(dst []float32, src []uint16) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes16 - 1)
	if m > 0 {
		bf16ToF32AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	for i := m; i < n; i++ {
		dst[i] = math.Float32frombits(bf16ToF32(src[i]))
	}
}

func avx512BF16ToF32(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	bf16ToF32AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src))
}

func avx2F32ToF8(dst []uint8, src []float32, p *float8Params) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes - 1)
	if m > 0 {
		f32ToF8AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m, f8p(p))
	}
	for i := m; i < n; i++ {
		dst[i] = f32ToF8(math.Float32bits(src[i]), p)
	}
}

func avx512F32ToF8(dst []uint8, src []float32, p *float8Params) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	f32ToF8AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src), f8p(p))
}

func avx2F16ToF8(dst []uint8, src []uint16, p *float8Params) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes - 1)
	if m > 0 {
		f16ToF8AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m, f8p(p))
	}
	for i := m; i < n; i++ {
		dst[i] = f32ToF8(f16ToF32(src[i]), p)
	}
}

func avx512F16ToF8(dst []uint8, src []uint16, p *float8Params) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	f16ToF8AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src), f8p(p))
}

func avx2BF16ToF8(dst []uint8, src []uint16, p *float8Params) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes - 1)
	if m > 0 {
		bf16ToF8AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m, f8p(p))
	}
	for i := m; i < n; i++ {
		dst[i] = f32ToF8(bf16ToF32(src[i]), p)
	}
}

func avx512BF16ToF8(dst []uint8, src []uint16, p *float8Params) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	bf16ToF8AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src), f8p(p))
}

// avx512F8ToF32 leaves to the generic loop any table whose entries have
// nonzero low halves, which the kernel refuses (none of ours do). The
// kernel builds its lookup planes in about as long as the generic loop takes
// for 16 elements, so it serves every length.
func avx512F8ToF32(dst []float32, src []uint8, table *[256]uint32) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	if !f8ToF32AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n, table) {
		float8ToFloat32Generic(dst, src, table)
	}
}

func avx2F32ToE8M0(dst []uint8, src []float32, p *e8m0Params) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (avx2Lanes - 1)
	if m > 0 {
		f32ToE8M0AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m, e8p(p))
	}
	for i := m; i < n; i++ {
		dst[i] = f32ToE8M0(math.Float32bits(src[i]), p)
	}
}

func avx512F32ToE8M0(dst []uint8, src []float32, p *e8m0Params) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	f32ToE8M0AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), len(src), e8p(p))
}

// The packed kernels: the assembly converts whole pairs (whole source
// bytes when unpacking); an odd last element is converted here.

func avx2F32ToF4(dst []uint8, src []float32) {
	n := len(src)
	dst = dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	m := n / 2 &^ (avx2Pairs - 1)
	if m > 0 {
		f32ToF4AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	float32ToFloat4Generic(dst[m:], src[2*m:])
}

func avx512F32ToF4(dst []uint8, src []float32) {
	n := len(src)
	dst = dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	f32ToF4AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n/2)
	if n%2 == 1 {
		dst[n/2] = f32ToF4(math.Float32bits(src[n-1]))
	}
}

func avx2F32ToI4(dst []uint8, src []float32) {
	n := len(src)
	dst = dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	m := n / 2 &^ (avx2Pairs - 1)
	if m > 0 {
		f32ToI4AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	float32ToInt4Generic(dst[m:], src[2*m:])
}

func avx512F32ToI4(dst []uint8, src []float32) {
	n := len(src)
	dst = dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	f32ToI4AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n/2)
	if n%2 == 1 {
		dst[n/2] = f32ToI4(src[n-1])
	}
}

func avx2F4ToF32(dst []float32, src []uint8) {
	n := len(dst)
	src = src[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	m := n / 2 &^ (avx2Pairs - 1)
	if m > 0 {
		f4ToF32AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	float4ToFloat32Generic(dst[2*m:], src[m:])
}

func avx512F4ToF32(dst []float32, src []uint8) {
	n := len(dst)
	src = src[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	f4ToF32AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n/2)
	if n%2 == 1 {
		dst[n-1] = math.Float32frombits(widenFloat4[src[n/2]&15])
	}
}

func avx2I8ToI4(dst []uint8, src []uint8) {
	n := len(src)
	dst = dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	m := n / 2 &^ (avx2Bytes - 1)
	if m > 0 {
		i8ToI4AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	int8ToInt4Generic(dst[m:], src[2*m:])
}

func avx512I8ToI4(dst []uint8, src []uint8) {
	n := len(src)
	dst = dst[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	i8ToI4AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n/2)
	if n%2 == 1 {
		dst[n/2] = src[n-1] & 15
	}
}

func avx2I4ToI8(dst []uint8, src []uint8) {
	n := len(dst)
	src = src[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	m := n / 2 &^ (avx2Bytes - 1)
	if m > 0 {
		i4ToI8AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	int4ToInt8Generic(dst[2*m:], src[m:])
}

func avx512I4ToI8(dst []uint8, src []uint8) {
	n := len(dst)
	src = src[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	i4ToI8AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n/2)
	if n%2 == 1 {
		dst[n-1] = uint8(int8(src[n/2]<<4) >> 4)
	}
}

func avx2U4ToU8(dst []uint8, src []uint8) {
	n := len(dst)
	src = src[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	m := n / 2 &^ (avx2Bytes - 1)
	if m > 0 {
		u4ToU8AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	uint4ToUint8Generic(dst[2*m:], src[m:])
}

func avx512U4ToU8(dst []uint8, src []uint8) {
	n := len(dst)
	src = src[:(n+1)/2]
	raceRead(src)
	raceWrite(dst)
	u4ToU8AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n/2)
	if n%2 == 1 {
		dst[n-1] = src[n/2] & 15
	}
}

func avx512BF16F32ToBF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	raceRead(src)
	raceWrite(dst)
	f32ToBF16AVX512BF16(unsafe.SliceData(dst), unsafe.SliceData(src), len(src))
}
