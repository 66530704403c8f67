package amd64

import (
	"bytes"
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// i16Packed emits the AVX2 kernels of INT16 and UINT16 → the packed integer
// types in one pass, where the plan took two (the low bytes stored as INT8,
// then packed): an integer target keeps the low bits of the value (as
// INT8's wrapping, whose low bits they are), so each 16-bit lane is masked
// to them and the lanes are packed into bytes by VPACKUSWB and multiply-adds:
//
//	i16ToI4AVX2: 32 elements a step: two vectors masked to 0x000F and
//	packed as pairPacker (fused.go) packs FLOAT4E2M1 codes.
//	i16ToI2AVX2: 64 elements a step: four vectors masked to 0x0003, two
//	VPACKUSWB, VPMADDUBSW by 1, 4 (each pair's nibble in a word), VPACKUSWB,
//	VPMADDUBSW by 1, 16 (each quad's byte in a word), VPACKUSWB; the 128-bit
//	lanes then hold the 4-byte runs of each vector alternately (low lane
//	elements 0-7 of each, high lane 8-15), and a VPUNPCKLWD of the two
//	lanes puts them in order.
//
// i16PackedGlue registers them as the AVX2 tier's stages of the eight pairs
// (avx2Int16PackedStage, packed16_amd64.go, converts the last elements).
func i16Packed(a *Asm) {
	a.Func("i16ToI4AVX2", AVX2, "func(dst *uint8, src *uint8, n int)",
		"n counts pairs of source elements (a multiple of 16).")
	dst, src, n := a.Args()
	low4 := a.Const32(0x000F000F)
	pack := a.pairPacker(false)
	a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: 16, Unroll: 2}, dst, src, n, Each(16, func(s *Step) {
		var cs [2]VecVirtual
		for h := range cs {
			cs[h] = a.Vec()
			a.VPAND(s.Src.Offset(32*h), low4, cs[h])
		}
		s.Store(pack(cs, cs), s.Dst, 8, nil)
	}))

	a.Func("i16ToI2AVX2", AVX2, "func(dst *uint8, src *uint8, n int)",
		"n counts quads of source elements (a multiple of 16).")
	dst, src, n = a.Args()
	low2, w14, w116 := a.Const32(0x00030003), a.Splat(0x04010401), a.Splat(0x1001_1001)
	a.Stream(Loop{SrcSize: 8, DstSize: 1, Lanes: 16, Unroll: 1}, dst, src, n, Each(16, func(s *Step) {
		var vs [4]VecVirtual
		for h := range vs {
			vs[h] = a.Vec()
			a.VPAND(s.Src.Offset(32*h), low2, vs[h])
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

// i16PackedGlue writes the Go side of i16Packed's kernels: their
// registration as AVX2 tier stages.
func i16PackedGlue(b *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	var conds []string
	for _, x := range baseISA[AVX2] {
		if x != "MMX+" {
			conds = append(conds, "cpu.X86."+cpuFlags[x])
		}
	}
	p("// The one-pass AVX2 stages of INT16 and UINT16 → the packed integer types\n")
	p("// (gen/amd64/packed16.go), for the AVX2 tier only.\n\n")
	p("func init() {\n\tif %s {\n", strings.Join(conds, " && "))
	for _, from := range []string{"Int16", "Uint16"} {
		for _, t := range []struct{ to, fn string }{{"Int4", "i16ToI4AVX2"}, {"Uint4", "i16ToI4AVX2"}, {"Int2", "i16ToI2AVX2"}, {"Uint2", "i16ToI2AVX2"}} {
			p("\t\tregisterTierStage(%q, %s, %s, avx2Int16PackedStage(%s, %s))\n", "avx2", from, t.to, t.to, t.fn)
		}
	}
	p("\t}\n}\n")
}
