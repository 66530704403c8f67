package main

import (
	"strconv"
	"unsafe"

	"github.com/tensorcast/tensorcast"
)

// kind classifies an implementation for the tables, ratios and chart.
type kind int

const (
	kDispatched kind = iota // tensorcast, the kernels chosen at init
	kTier                   // tensorcast forced to a lower tier with UseTier
	kAPI                    // tensorcast Cast on raw bytes (the dispatched tier)
	kParallel               // tensorcast CastParallel with several goroutines
	kCeiling                // copy()
	kPeer                   // another Go library or a loop Go projects ship
)

// impl is one implementation of one conversion.
type impl struct {
	id   string // stable identifier for CSV and colours: "tensorcast", "tier-avx2", "copy4N", "x448", ...
	name string // for people
	kind kind
	tier string // tensorcast tier to select with UseTier before running ("" = none needed)
	note string // shown under the table, e.g. how a peer rounds
	// fresh marks scalar code with data-dependent branches: it reads from
	// env.fresh, a span the branch predictor cannot learn (see data.go).
	fresh bool
	// bind prepares a call on the windows of e; the returned function runs
	// call i (window i). out, if not nil, returns the bytes call 0 wrote,
	// for the exactness check.
	bind func(e *env) func(i int)
	out  func(e *env) []byte
}

// conv is one hot conversion.
type conv struct {
	id       string // "f32-f16", for -conv and CSV
	name     string // "FLOAT → FLOAT16"
	from, to tensorcast.DataType
	narrow   int // bytes per element of the narrow side
	widening bool
	// tc converts with the typed API (the dispatched tier or whatever
	// UseTier selected): the tensorcast rows.
	tc    func(e *env) func(i int)
	peers []impl
}

// bytesMoved is bytes read plus bytes written per element.
func (c *conv) bytesMoved() int { return 4 + c.narrow }

func (c *conv) srcBytes(e *env, i int) []byte {
	switch c.from {
	case tensorcast.Float:
		return f32Bytes(e.srcF32(i))
	case tensorcast.Float16:
		return u16Bytes(e.srcF16(i))
	case tensorcast.BFloat16:
		return u16Bytes(e.srcBF16(i))
	}
	return e.srcF8(i)
}

func (c *conv) dstBytes(e *env) []byte {
	switch c.narrow {
	case 2:
		if c.widening {
			return f32Bytes(e.dF32)
		}
		return u16Bytes(e.d16)
	}
	if c.widening {
		return f32Bytes(e.dF32)
	}
	return e.d8
}

func f32Bytes(s []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*len(s))
}

func u16Bytes(s []uint16) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 2*len(s))
}

// conversions returns the hot conversions in table order.
func conversions() []*conv {
	f8 := func(id, name string, t tensorcast.DataType, opt tensorcast.Options) *conv {
		return &conv{id: id, name: name, from: tensorcast.Float, to: t, narrow: 1,
			tc: func(e *env) func(int) {
				return func(i int) { tensorcast.Float32ToFloat8(e.d8, t, e.srcF32(i), opt) }
			}}
	}
	cs := []*conv{
		{id: "f32-f16", name: "FLOAT → FLOAT16", from: tensorcast.Float, to: tensorcast.Float16, narrow: 2,
			tc: func(e *env) func(int) {
				return func(i int) { tensorcast.Float32ToFloat16(e.d16, e.srcF32(i)) }
			},
			peers: peersF32ToF16()},
		{id: "f16-f32", name: "FLOAT16 → FLOAT", from: tensorcast.Float16, to: tensorcast.Float, narrow: 2, widening: true,
			tc: func(e *env) func(int) {
				return func(i int) { tensorcast.Float16ToFloat32(e.dF32, e.srcF16(i)) }
			},
			peers: peersF16ToF32()},
		{id: "f32-bf16", name: "FLOAT → BFLOAT16", from: tensorcast.Float, to: tensorcast.BFloat16, narrow: 2,
			tc: func(e *env) func(int) {
				return func(i int) { tensorcast.Float32ToBFloat16(e.d16, e.srcF32(i)) }
			},
			peers: peersF32ToBF16()},
		{id: "bf16-f32", name: "BFLOAT16 → FLOAT", from: tensorcast.BFloat16, to: tensorcast.Float, narrow: 2, widening: true,
			tc: func(e *env) func(int) {
				return func(i int) { tensorcast.BFloat16ToFloat32(e.dF32, e.srcBF16(i)) }
			},
			peers: peersBF16ToF32()},
		f8("f32-e4m3fn", "FLOAT → FLOAT8E4M3FN", tensorcast.Float8E4M3FN, tensorcast.Options{}),
		f8("f32-e4m3fnuz", "FLOAT → FLOAT8E4M3FNUZ", tensorcast.Float8E4M3FNUZ, tensorcast.Options{}),
		f8("f32-e5m2", "FLOAT → FLOAT8E5M2", tensorcast.Float8E5M2, tensorcast.Options{}),
		f8("f32-e5m2fnuz", "FLOAT → FLOAT8E5M2FNUZ", tensorcast.Float8E5M2FNUZ, tensorcast.Options{}),
		f8("f32-e8m0", "FLOAT → FLOAT8E8M0 (round up)", tensorcast.Float8E8M0, tensorcast.Options{}),
		{id: "e4m3fn-f32", name: "FLOAT8E4M3FN → FLOAT", from: tensorcast.Float8E4M3FN, to: tensorcast.Float, narrow: 1, widening: true,
			tc: func(e *env) func(int) {
				return func(i int) { tensorcast.Float8ToFloat32(e.dF32, e.srcF8(i), tensorcast.Float8E4M3FN) }
			}},
	}
	return cs
}

// impls lists every implementation measured for c: tensorcast dispatched,
// each lower tier, CastParallel (workers > 1), the two copy() ceilings and
// the peers.
func (c *conv) impls(workers int) []impl {
	tiers := tensorcast.Tiers()
	best := tiers[len(tiers)-1]
	out := func(e *env) []byte { return c.dstBytes(e) }
	list := []impl{{id: "tensorcast", name: "tensorcast (" + best + ", dispatched)", kind: kDispatched,
		tier: best, bind: c.tc, out: out}}
	for j := len(tiers) - 2; j >= 0; j-- {
		list = append(list, impl{id: "tier-" + tiers[j], name: "tensorcast " + tiers[j] + " tier", kind: kTier,
			tier: tiers[j], bind: c.tc, out: out, fresh: tiers[j] == "generic"})
	}
	list = append(list, impl{id: "cast", name: "tensorcast Cast() on raw bytes (" + best + ")", kind: kAPI, tier: best, out: out,
		bind: func(e *env) func(int) {
			dst := c.dstBytes(e)
			return func(i int) {
				if err := tensorcast.Cast(dst, c.to, c.srcBytes(e, i), c.from, e.n, tensorcast.Options{}); err != nil {
					panic(err)
				}
			}
		}})
	if workers > 1 {
		w := workers
		list = append(list, impl{id: "parallel", name: "tensorcast CastParallel, " + strconv.Itoa(w) + " goroutines",
			kind: kParallel, tier: best, out: out,
			bind: func(e *env) func(int) {
				dst := c.dstBytes(e)
				return func(i int) {
					if err := tensorcast.CastParallel(dst, c.to, c.srcBytes(e, i), c.from, e.n, tensorcast.Options{}, w); err != nil {
						panic(err)
					}
				}
			}})
	}
	list = append(list,
		impl{id: "copy4N", name: "copy() of the float32 side (4N bytes)", kind: kCeiling,
			bind: func(e *env) func(int) {
				return func(i int) { copy(e.dF32, e.srcF32(i)) }
			}},
		impl{id: "copyNarrow", name: "copy() of the narrow side (" + strconv.Itoa(c.narrow) + "N bytes)", kind: kCeiling,
			bind: func(e *env) func(int) {
				if c.narrow == 2 {
					return func(i int) { copy(e.d16, e.srcF16(i)) }
				}
				return func(i int) { copy(e.d8, e.srcF8(i)) }
			}},
	)
	for _, p := range c.peers {
		if p.bind != nil {
			list = append(list, p)
		}
	}
	return list
}
