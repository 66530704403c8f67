//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"encoding/binary"
	"math"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The 8-bit float sources (the float8 types and FLOAT8E8M0) to INT32,
// UINT32, INT64 and UINT64 on AVX-512 with VBMI (DQ too for the 64-bit
// targets): one lookup kernel per target width (gen/amd64/f8int.go), whose
// table holds each result as the float32 that VCVTTPS2DQ or VCVTTPS2QQ
// truncates back to the result's bits. truncTable builds it from the pair's
// reference table (tableFor) and checks every entry, so the stage gives the
// reference's result by construction; a table that failed the check (none
// of these pairs') would leave the stage to a plain lookup of the reference
// table.
func init() {
	if !(cpu.X86.HasAVX2 && cpu.X86.HasF16C && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2 && cpu.X86.HasAVX512VBMI) {
		return
	}
	targets := []DataType{Int32, Uint32}
	if cpu.X86.HasAVX512DQ {
		targets = append(targets, Int64, Uint64)
	}
	for _, from := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0} {
		for _, to := range targets {
			if from == Float8E8M0 && to != Uint32 {
				continue // AVX2's shifts serve these (inherit_amd64.go)
			}
			registerStage("avx512", from, to, f8IntStage(from, to))
		}
	}
}

// truncTables caches truncTable's tables; an entry holds nil until built,
// and a table of all ones marks a pair whose results do not fit.
var truncTables [numTypes][numTypes]atomic.Pointer[[256]uint32]

// badTable is truncTable's mark for a pair the kernels cannot serve.
var badTable = new([256]uint32)

// truncTable returns the table of float32 bit patterns whose truncation is
// each result of from → to, or nil if some result is not such a float32
// with a zero low half.
func truncTable(from, to DataType) *[256]uint32 {
	slot := &truncTables[from][to]
	if t := slot.Load(); t != nil {
		if t == badTable {
			return nil
		}
		return t
	}
	ref := tableFor(from, to, Options{})
	t := new([256]uint32)
	for i := range t {
		var r int64
		if to.BitSize() == 32 {
			r = int64(int32(ref.b32[i]))
		} else {
			r = int64(ref.b64[i])
		}
		f := float32(r)
		b := math.Float32bits(f)
		// r is exact in float32 and not 2^63 or more in magnitude except
		// -2^63 itself, which VCVTTPS2QQ gives back as 0x8000000000000000.
		if int64(f) != r && !(r == math.MinInt64 && f == -(1<<63)) || b&0xFFFF != 0 {
			slot.Store(badTable)
			return nil
		}
		t[i] = b
	}
	slot.Store(t)
	return t
}

// f8IntStage is the stage of from → to (a 32- or 64-bit integer).
func f8IntStage(from, to DataType) stageFunc {
	return func(dst, src []byte, n int) {
		src, dst = src[:n], dst[:to.Size(n)]
		raceRead(src)
		raceWrite(dst)
		if t := truncTable(from, to); t != nil && n > 0 {
			var ok bool
			if to.BitSize() == 32 {
				ok = f8ToI32AVX512(&dst[0], &src[0], n, t)
			} else {
				ok = f8ToI64AVX512(&dst[0], &src[0], n, t)
			}
			if ok {
				return
			}
		}
		lookupTail(dst, src, from, to)
	}
}

// lookupTail converts the 8-bit src to the 8- to 64-bit type to through the
// pair's reference table.
func lookupTail(dst, src []byte, from, to DataType) {
	ref := tableFor(from, to, Options{})
	for i, b := range src {
		switch to.BitSize() {
		case 8:
			dst[i] = ref.b8[b]
		case 16:
			binary.LittleEndian.PutUint16(dst[2*i:], ref.b16[b])
		case 32:
			binary.LittleEndian.PutUint32(dst[4*i:], ref.b32[b])
		default:
			binary.LittleEndian.PutUint64(dst[8*i:], ref.b64[b])
		}
	}
}

// avx2F8Stage is the AVX2 stage of from → to (an 8-bit float type to an
// integer, BOOL, FLOAT16 or BFLOAT16) with the kernel fn of widen8.go's
// widen8Targets, which converts multiples of lanes; the last elements go
// through the reference table. stages_amd64.go registers them.
func avx2F8Stage(from, to DataType, fn func(dst, src *uint8, n int), lanes int) stageFunc {
	return func(dst, src []byte, n int) {
		src, dst = src[:n], dst[:to.Size(n)]
		raceRead(src)
		raceWrite(dst)
		m := n &^ (lanes - 1)
		if m > 0 {
			fn(&dst[0], &src[0], m)
		}
		lookupTail(dst[to.Size(m):], src[m:], from, to)
	}
}

// avx2F8PackedStage is avx2F8Stage for a packed integer target: fn packs
// multiples of lanes source bytes, counted in groups of one result byte,
// and the last elements are packed from the reference table's codes.
func avx2F8PackedStage(from, to DataType, fn func(dst, src *uint8, n int), lanes int) stageFunc {
	return packedStage(1, to, lanes, fn, func(src []byte, i int) uint8 { return tableFor(from, to, Options{}).b8[src[i]] })
}

// avx2IntToF4Stage is the AVX2 stage of a 32- or 64-bit integer type →
// FLOAT4E2M1 with the kernel fn of gen/amd64's int8F4 (the values saturated
// to bytes, then INT8's codes), which packs multiples of 32 elements; the
// last ones go through their nearest float32 (exact below 2^24, and beyond
// FLOAT4E2M1's saturation above, like the integer) and the portable FLOAT
// kernel.
func avx2IntToF4Stage[S int32 | uint32 | int64 | uint64](fn func(dst, src *uint8, n int)) stageFunc {
	return func(dst, src []byte, n int) {
		var s S
		size := int(unsafe.Sizeof(s))
		src, dst = src[:n*size], dst[:(n+1)/2]
		raceRead(src)
		raceWrite(dst)
		m := n &^ 31
		if m > 0 {
			fn(&dst[0], &src[0], m/2)
		}
		var tail [32]float32
		for i := m; i < n; i++ {
			tail[i-m] = float32(loadLE[S](src[i*size:]))
		}
		float32ToFloat4Generic(dst[m/2:], tail[:n-m])
	}
}
