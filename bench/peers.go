package main

import (
	"math"

	"github.com/tphakala/simd/f16"
	"github.com/x448/float16"
)

// The Go peers: what a user would pick instead of tensorcast. go-highway is
// added by peer_highway.go when the build has GOEXPERIMENT=simd.

// extraPeers is filled by build-constrained files, keyed by conversion id.
var extraPeers = map[string][]impl{}

// highwayStatus says whether go-highway is part of this build, and why not.
var highwayStatus string

func peersF32ToF16() []impl {
	return append([]impl{
		{id: "x448", fresh: true, name: "x448/float16 Fromfloat32 loop", kind: kPeer,
			note: "github.com/x448/float16 v0.8.4, one Fromfloat32 call per element",
			bind: func(e *env) func(int) {
				return func(i int) {
					d := e.d16
					for j, v := range e.srcF32(i) {
						d[j] = uint16(float16.Fromfloat32(v))
					}
				}
			}, out: func(e *env) []byte { return u16Bytes(e.d16) }},
		{id: "tphakala", name: "tphakala/simd f16.FromFloat32Slice", kind: kPeer,
			note: "github.com/tphakala/simd v1.8.0: F16C VCVTPS2PH, 8 elements per iteration, Go tail",
			bind: func(e *env) func(int) {
				return func(i int) { f16.FromFloat32Slice(e.d16, e.srcF32(i)) }
			}, out: func(e *env) []byte { return u16Bytes(e.d16) }},
	}, extraPeers["f32-f16"]...)
}

func peersF16ToF32() []impl {
	return append([]impl{
		{id: "x448", fresh: true, name: "x448/float16 Float32 loop", kind: kPeer,
			note: "github.com/x448/float16 v0.8.4, one Float32 call per element",
			bind: func(e *env) func(int) {
				return func(i int) {
					d := e.dF32
					for j, v := range e.srcF16(i) {
						d[j] = float16.Float16(v).Float32()
					}
				}
			}, out: func(e *env) []byte { return f32Bytes(e.dF32) }},
		{id: "tphakala", name: "tphakala/simd f16.ToFloat32Slice", kind: kPeer,
			note: "github.com/tphakala/simd v1.8.0: F16C VCVTPH2PS, 8 elements per iteration, Go tail",
			bind: func(e *env) func(int) {
				return func(i int) { f16.ToFloat32Slice(e.dF32, e.srcF16(i)) }
			}, out: func(e *env) []byte { return f32Bytes(e.dF32) }},
	}, extraPeers["f16-f32"]...)
}

func peersF32ToBF16() []impl {
	return append([]impl{
		{id: "bf16trunc", fresh: true, name: "scalar truncating loop (bits >> 16)", kind: kPeer,
			note: "what several Go projects ship: drops the low 16 bits, so about half of all values round the wrong way",
			bind: func(e *env) func(int) {
				return func(i int) { bf16Trunc(e.d16, e.srcF32(i)) }
			}, out: func(e *env) []byte { return u16Bytes(e.d16) }},
		{id: "bf16rne", fresh: true, name: "scalar round-to-nearest-even loop", kind: kPeer,
			note: "a correct scalar loop: RNE with the +0x7FFF+lsb trick, NaN → quiet NaN 0x7FC0 with the sign",
			bind: func(e *env) func(int) {
				return func(i int) { bf16RNE(e.d16, e.srcF32(i)) }
			}, out: func(e *env) []byte { return u16Bytes(e.d16) }},
	}, extraPeers["f32-bf16"]...)
}

func peersBF16ToF32() []impl {
	return append([]impl{
		{id: "bf16shift", fresh: true, name: "scalar shift loop (bits << 16)", kind: kPeer,
			note: "the usual widening loop: exact, but keeps signalling NaNs signalling",
			bind: func(e *env) func(int) {
				return func(i int) { bf16Widen(e.dF32, e.srcBF16(i)) }
			}, out: func(e *env) []byte { return f32Bytes(e.dF32) }},
	}, extraPeers["bf16-f32"]...)
}

// bf16Trunc narrows by dropping the low 16 bits.
func bf16Trunc(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for j, v := range src {
		dst[j] = uint16(math.Float32bits(v) >> 16)
	}
}

// bf16RNE narrows with round to nearest, ties to even, keeping subnormals;
// overflow gives ±Inf and NaN gives 0x7FC0 with the sign (tensorcast's
// semantics, so the exactness check compares it as well).
func bf16RNE(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for j, v := range src {
		b := math.Float32bits(v)
		if b&0x7FFFFFFF > 0x7F800000 {
			dst[j] = uint16(b>>16)&0x8000 | 0x7FC0
			continue
		}
		dst[j] = uint16((b + 0x7FFF + (b>>16)&1) >> 16)
	}
}

// bf16Widen widens by shifting.
func bf16Widen(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	for j, v := range src {
		dst[j] = math.Float32frombits(uint32(v) << 16)
	}
}
