package amd64

import (
	"bytes"
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// intToPacked emits the AVX2 kernels of the 16-, 32- and 64-bit integers (and
// FLOAT → the 2-bit types) → the packed integer types in one pass, where
// the plan took two (the low bytes stored as INT8, then packed): an
// integer target keeps the low bits of the value (as INT8's wrapping, whose
// low bits they are; FLOAT's truncation first), so each lane is masked to
// them, 32-bit lanes are narrowed to 16-bit ones in order
// (packedLoader), and the 16-bit lanes are packed into bytes by VPACKUSWB
// and multiply-adds:
//
//	i16ToI4AVX2, i32ToI4AVX2: 32 elements a step: two vectors masked to
//	0x000F and packed as pairPacker (fused.go) packs FLOAT4E2M1 codes.
//	i16ToI2AVX2, i32ToI2AVX2: 64 elements a step: four vectors masked to
//	0x0003, two VPACKUSWB, VPMADDUBSW by 1, 4 (each pair's nibble in a
//	word), VPACKUSWB, VPMADDUBSW by 1, 16 (each quad's byte in a word),
//	VPACKUSWB; the 128-bit lanes then hold the 4-byte runs of each vector
//	alternately (low lane elements 0-7 of each, high lane 8-15), and a
//	VPUNPCKLWD of the two lanes puts them in order.
//
// Zen 3, 64 Ki elements, two runs side by side: INT16/UINT16 → the packed
// types 0.34-0.43 → 1.0-1.6× copy(); INT32/UINT32 0.59-0.91 → 1.4-1.7×;
// INT64/UINT64 0.75-1.10 → 1.65-1.97×; FLOAT → INT2/UINT2 0.32-0.55 →
// 1.16-1.29×.
// toPackedGlue registers them as the AVX2 tier's stages of their 26 pairs
// (avx2IntPackedStage, topacked_amd64.go, converts the last elements).
func intToPacked(a *Asm) {
	for _, src := range packedSources {
		name, size := src.name, src.size
		if !src.float {
			a.Func(name+"ToI4AVX2", AVX2, "func(dst *uint8, src *uint8, n int)",
				"n counts pairs of source elements (a multiple of 16).")
			dst, src, n := a.Args()
			load := packedLoader(a, name, size, 0xF)
			pack := a.pairPacker()
			a.Stream(Loop{SrcSize: 2 * size, DstSize: 1, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
				cs := [2]VecVirtual{load(s, 0), load(s, 1)}
				s.Store(pack(cs), s.Dst, 8, nil)
			}))
		}

		a.Func(name+"ToI2AVX2", AVX2, "func(dst *uint8, src *uint8, n int)",
			"n counts quads of source elements (a multiple of 16).")
		dst, src, n := a.Args()
		w14, w116 := a.Splat(0x04010401), a.Splat(0x1001_1001)
		load := packedLoader(a, name, size, 0x3)
		a.Stream(Loop{SrcSize: 4 * size, DstSize: 1, Lanes: 16, Unroll: 1}, dst, src, n, Each(16, func(s *Step) {
			var vs [4]VecVirtual
			for h := range vs {
				vs[h] = load(s, h)
			}
			a.VPACKUSWB(vs[1], vs[0], vs[0])
			a.VPACKUSWB(vs[3], vs[2], vs[2])
			a.VPMADDUBSW(w14, vs[0], vs[0])
			a.VPMADDUBSW(w14, vs[2], vs[2])
			a.VPACKUSWB(vs[2], vs[0], vs[0])
			a.VPMADDUBSW(w116, vs[0], vs[0])
			a.VPACKUSWB(vs[0], vs[0], vs[0])
			hi := a.XMM()
			a.VEXTRACTI128(U8(1), vs[0], hi)
			lo := vs[0].AsX().(VecVirtual)
			a.VPUNPCKLWD(hi, lo, lo)
			s.Store(lo, s.Dst, 8, nil)
		}))
	}
}

// packedSources are intToPacked's sources: their kernels' name prefix,
// element size, and whether they are FLOAT (truncated by VCVTTPS2DQ first,
// which gives 0x80000000 where the value is out of range, NaN or ±Inf:
// zero low bits, as the reference's results there; a float32 from 2^31 up
// is a multiple of 2^8, whose low bits are 0 too). FLOAT → INT4/UINT4 has
// f32ToI4 (packed.go).
var packedSources = []struct {
	name  string
	size  int
	float bool
}{{"i16", 2, false}, {"i32", 4, false}, {"i64", 8, false}, {"f32", 4, true}}

// packedLoader returns the loader of intToPacked's kernels: the j-th 16
// elements of a step, each masked to its low bits (low, set up in a
// register), as 16-bit lanes in order; 32-bit elements narrowed by
// VPACKUSDW (the masked values fit) and VPERMQ; 64-bit ones by three
// VPACKUSDW (a masked quadword is a dword and a zero one) and a VPERMD of
// the dwords 0 4 1 5 2 6 3 7.
func packedLoader(a *Asm, name string, size int, low uint32) func(s *Step, j int) VecVirtual {
	mask := a.Const32(low)
	switch size {
	case 2:
		mask = a.Const32(low<<16 | low)
	case 8:
		mask = a.Vec()
		a.VPBROADCASTQ(a.Data(fmt.Sprintf("low64_%x", low), []uint32{low, 0}), mask)
		order := a.ConstTable("order04152637", []uint32{0, 4, 1, 5, 2, 6, 3, 7})
		return func(s *Step, j int) VecVirtual {
			var vs [4]VecVirtual
			for i := range vs {
				vs[i] = a.Vec()
				a.VPAND(s.Src.Offset(128*j+32*i), mask, vs[i])
			}
			a.VPACKUSDW(vs[1], vs[0], vs[0])
			a.VPACKUSDW(vs[3], vs[2], vs[2])
			a.VPACKUSDW(vs[2], vs[0], vs[0])
			a.VPERMD(vs[0], order, vs[0])
			return vs[0]
		}
	}
	load := func(m Mem, v VecVirtual) {
		if name == "f32" {
			a.VCVTTPS2DQ(m, v)
			a.VPAND(mask, v, v)
			return
		}
		a.VPAND(m, mask, v)
	}
	return func(s *Step, j int) VecVirtual {
		v := a.Vec()
		if size == 2 {
			load(s.Src.Offset(32*j), v)
			return v
		}
		t := a.Vec()
		load(s.Src.Offset(64*j), v)
		load(s.Src.Offset(64*j+32), t)
		a.VPACKUSDW(t, v, v)
		a.VPERMQ(U8(0b11_01_10_00), v, v)
		return v
	}
}

// toPackedGlue writes the Go side of intToPacked's kernels: their
// registration as AVX2 tier stages.
func toPackedGlue(b *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("// The one-pass AVX2 stages of the 16-, 32- and 64-bit integers, FLOAT and\n")
	p("// BOOL → the packed types (gen/amd64/topacked.go), for the AVX2 tier only.\n\n")
	p("func init() {\n\tif %s {\n", avx2Cond())
	for _, from := range []struct{ name, fn string }{{"Int16", "i16"}, {"Uint16", "i16"}, {"Int32", "i32"}, {"Uint32", "i32"}, {"Int64", "i64"}, {"Uint64", "i64"}, {"Float", "f32"}} {
		for _, t := range []struct{ to, fn string }{{"Int4", "ToI4AVX2"}, {"Uint4", "ToI4AVX2"}, {"Int2", "ToI2AVX2"}, {"Uint2", "ToI2AVX2"}} {
			if from.name == "Float" && t.fn == "ToI4AVX2" {
				continue // f32ToI4
			}
			p("\t\tregisterTierStage(%q, %s, %s, avx2IntPackedStage(%s, %s, %s))\n", "avx2", from.name, t.to, from.name, t.to, from.fn+t.fn)
		}
	}
	for _, t := range boolPackedTargets {
		p("\t\tregisterTierStage(%q, Bool, %s, avx2BoolPackedStage(%s, boolToI%dAVX2, %d))\n", "avx2", t.to, t.to, t.bits, t.code)
	}
	p("\t}\n}\n")
}

// boolPacked emits the AVX2 kernels of BOOL → the packed types, whose
// tables are two-valued (0 for a zero byte, code for any other: 1 for the
// integers, 2 for FLOAT4E2M1's 1.0): a VPCMPEQB with zero and a VPANDN of
// the code per 32 bytes, packed by packConsts (packed.go), where the plan
// looked each byte up (select8) and packed the block after.
// boolPackedGlue registers them as the AVX2 tier's stages of the five
// pairs (avx2BoolPackedStage, topacked_amd64.go, converts the last
// elements). Zen 3, 64 Ki elements, two runs side by side: 0.32-0.34 →
// 0.59-0.79× copy().
func boolPacked(a *Asm) {
	for _, bits := range []int{4, 2} {
		a.Func(fmt.Sprintf("boolToI%dAVX2", bits), AVX2, "func(dst *uint8, src *uint8, n int, code uint8)",
			"sets each element of dst to code where its source byte is not 0, else 0; n counts bytes of dst (a multiple of 32).")
		dst, src, n := a.Args()
		g := a.GP32()
		a.Context.Load(a.Param("code"), g)
		code := a.Vec()
		a.VMOVD(g, code.AsX())
		a.VPBROADCASTB(code.AsX(), code)
		zero := a.Vec()
		a.VPXOR(zero, zero, zero)
		pk := a.packConsts(bits)
		a.Stream(Loop{SrcSize: 8 / bits, DstSize: 1, Lanes: 32, Unroll: 1}, dst, src, n, func(s *Step) {
			s.Store(pk.pack(func(i int) VecVirtual {
				m := a.Vec()
				a.VPCMPEQB(s.Src.Offset(32*i), zero, m) // 0xFF where false
				a.VPANDN(code, m, m)
				return m
			}), s.Dst, 8, nil)
		})
	}
}

// boolPackedTargets are boolPacked's pairs: the target, its bits and the
// code of true.
var boolPackedTargets = []struct {
	to         string
	bits, code int
}{{"Int4", 4, 1}, {"Uint4", 4, 1}, {"Float4E2M1", 4, 2}, {"Int2", 2, 1}, {"Uint2", 2, 1}}
