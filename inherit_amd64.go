//go:build amd64 && gc && !purego && !noasm

package tensorcast

import "golang.org/x/sys/cpu"

// The AVX-512 tier also takes some of the AVX2 tier's tier-only stages
// (stage.go, simdTierStages), registered there on the premise that the
// AVX-512 tier's own plan of the pair (a VPERMI2B table, a pivot through
// INT8 bytes) is faster. Measured on a Zen 4, 64 Ki elements, four runs of
// the matrix (bench -matrix-tier avx512,avx2), the premise fails:
//
//   - without VBMI (GODEBUG turning off VBMI, VBMI2, GFNI and BF16, as on
//     Skylake-SP and Cascade Lake), for 108 of the 111 pairs: the 64-byte
//     lookup tree and the two-step plans ran at 0.1–0.8 of the AVX2
//     stages' speed, the other three within 10%; so every one is shared.
//   - with VBMI, for avx2OverAVX512's 33 pairs, at 0.40–0.89 of the AVX2
//     stages' speed in every run: the one-pass packing of the 16- to
//     64-bit integers, FLOAT and BOOL to the 2- and 4-bit integers
//     (topacked.go) against the AVX-512 pivot through INT8 bytes, INT32
//     and UINT32 → FLOAT4E2M1, FLOAT8E8M0 → INT32, INT64, UINT64. The 71
//     others ran faster on AVX-512 (tables by VPERMI2B), 5 within 10%.
func init() {
	sharesTierStage = func(k *kernelSet, lower string, p pairKey) bool {
		return k.tier == "avx512" && lower == "avx2" && (!cpu.X86.HasAVX512VBMI || avx2OverAVX512[p])
	}
}

// avx2OverAVX512 is the pairs of the AVX2 tier's tier-only stages that the
// AVX-512 tier with VBMI takes too (see above).
var avx2OverAVX512 = func() map[pairKey]bool {
	m := map[pairKey]bool{}
	for _, from := range []DataType{Int16, Uint16, Int32, Uint32, Int64, Uint64} {
		for _, to := range []DataType{Int4, Uint4, Int2, Uint2} {
			m[pairKey{from, to}] = true
		}
	}
	for _, p := range []pairKey{{Float, Int2}, {Float, Uint2}, {Bool, Int4}, {Bool, Uint4},
		{Int32, Float4E2M1}, {Uint32, Float4E2M1}, {Float8E8M0, Int32}, {Float8E8M0, Int64}, {Float8E8M0, Uint64}} {
		m[p] = true
	}
	return m
}()
