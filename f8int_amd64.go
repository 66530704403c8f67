//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"encoding/binary"
	"math"
	"sync/atomic"

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
	if !(cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2 && cpu.X86.HasAVX512VBMI) {
		return
	}
	targets := []DataType{Int32, Uint32}
	if cpu.X86.HasAVX512DQ {
		targets = append(targets, Int64, Uint64)
	}
	for _, from := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0} {
		for _, to := range targets {
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
		lookupInts(dst, src, from, to)
	}
}

// lookupInts converts src to the 16-, 32- or 64-bit integer type to through
// the pair's reference table.
func lookupInts(dst, src []byte, from, to DataType) {
	ref := tableFor(from, to, Options{})
	for i, b := range src {
		switch to.BitSize() {
		case 16:
			binary.LittleEndian.PutUint16(dst[2*i:], ref.b16[b])
		case 32:
			binary.LittleEndian.PutUint32(dst[4*i:], ref.b32[b])
		default:
			binary.LittleEndian.PutUint64(dst[8*i:], ref.b64[b])
		}
	}
}

// On AVX2 the same pairs with 16- and 32-bit targets: widen8.go's kernels
// (widenF8Int), 16 elements a step, the last ones through the reference
// table. For the AVX2 tier only: AVX-512 has lut16 and the kernels above.
func init() {
	if !(cpu.X86.HasAVX2 && cpu.X86.HasF16C) {
		return
	}
	kernels := []struct {
		from     DataType
		i16, i32 func(dst, src *uint8, n int)
	}{
		{Float8E4M3FN, e4m3fnToI16AVX2, e4m3fnToI32AVX2},
		{Float8E4M3FNUZ, e4m3fnuzToI16AVX2, e4m3fnuzToI32AVX2},
		{Float8E5M2, e5m2ToI16AVX2, e5m2ToI32AVX2},
		{Float8E5M2FNUZ, e5m2fnuzToI16AVX2, e5m2fnuzToI32AVX2},
		{Float8E8M0, e8m0ToI16AVX2, e8m0ToI32AVX2},
	}
	for _, k := range kernels {
		for _, to := range []DataType{Int16, Uint16, Int32, Uint32} {
			fn := k.i16
			if to.BitSize() == 32 {
				fn = k.i32
			}
			registerTierStage("avx2", k.from, to, avx2F8IntStage(k.from, to, fn))
		}
	}
}

// avx2F8IntStage is the AVX2 stage of from → to with the kernel fn.
func avx2F8IntStage(from, to DataType, fn func(dst, src *uint8, n int)) stageFunc {
	return func(dst, src []byte, n int) {
		src, dst = src[:n], dst[:to.Size(n)]
		raceRead(src)
		raceWrite(dst)
		m := n &^ (e4m3fnToI16AVX2Lanes - 1)
		if m > 0 {
			fn(&dst[0], &src[0], m)
		}
		lookupInts(dst[to.Size(m):], src[m:], from, to)
	}
}
