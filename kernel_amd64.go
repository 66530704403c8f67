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
// wrappers pass n rounded down to a multiple.
const avx2Lanes = 8

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
	m := n &^ (avx2Lanes - 1)
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
