// Package kernelset writes kernelset.go: the kernel table type (kernelSet)
// and the listing Kernels returns, both from the one table below, so that a
// kernel slot, its documentation and its line in `tensorcast cpu` are
// written once.
package kernelset

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strings"
)

// slot is one field of kernelSet.
type slot struct {
	name, typ string
	// listed is the conversion Kernels shows for the slot ("" if none);
	// tier is the Go expression of its tier on s (default s.<name>.tier).
	listed, tier string
	more         []listing // further lines, for slots that hold several kernels
}

// listing is one more line of Kernels: a conversion and its tier's Go
// expression on s.
type listing struct{ conv, tier string }

// group is a run of slots under one doc comment (nil: none).
type group struct {
	doc   []string
	slots []slot
}

// Table is kernelSet, in field order.
var Table = []group{
	{nil, []slot{{name: "tier", typ: "string"}}},
	{[]string{
		"stages holds the best registered SIMD stage of each classic pair for",
		"this tier (stage.go), filled by resolveStages.",
	}, []slot{{name: "stages", typ: "*stageTable"}}},
	{nil, []slot{
		{"f32ToF16", "kernel[func(dst []uint16, src []float32)]", "FLOAT -> FLOAT16", "", nil},
		{"f16ToF32", "kernel[func(dst []float32, src []uint16)]", "FLOAT16 -> FLOAT", "", nil},
		{"f32ToBF16", "kernel[func(dst []uint16, src []float32)]", "FLOAT -> BFLOAT16", "", nil},
		{"bf16ToF32", "kernel[func(dst []float32, src []uint16)]", "BFLOAT16 -> FLOAT", "", nil},
	}},
	{[]string{
		"f32ToF8 narrows to one of the four float8 types in one saturate",
		"mode, described by p; f8ToF32 widens any 8-bit float through its",
		"256-entry table of float32 bit patterns.",
	}, []slot{
		{"f32ToF8", "kernel[func(dst []uint8, src []float32, p *float8Params)]", "FLOAT -> FLOAT8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ)", "", nil},
		{"f8ToF32", "kernel[func(dst []float32, src []uint8, table *[256]uint32)]", "FLOAT8 (all four), FLOAT8E8M0 -> FLOAT", "", nil},
	}},
	{[]string{"f16ToF8 and bf16ToF8 narrow 16-bit floats to float8 with one rounding."}, []slot{
		{"f16ToF8", "kernel[func(dst []uint8, src []uint16, p *float8Params)]", "FLOAT16 -> FLOAT8", "", nil},
		{"bf16ToF8", "kernel[func(dst []uint8, src []uint16, p *float8Params)]", "BFLOAT16 -> FLOAT8", "", nil},
	}},
	{nil, []slot{{"f32ToE8M0", "kernel[func(dst []uint8, src []float32, p *e8m0Params)]", "FLOAT -> FLOAT8E8M0", "", nil}}},
	{[]string{
		"f32ToF4 packs two FLOAT4E2M1 per byte (len(src) elements); f4ToF32",
		"unpacks len(dst) elements.",
	}, []slot{
		{"f32ToF4", "kernel[func(dst []uint8, src []float32)]", "FLOAT -> FLOAT4E2M1", "", nil},
		{"f4ToF32", "kernel[func(dst []float32, src []uint8)]", "FLOAT4E2M1 -> FLOAT", "", nil},
	}},
	{[]string{
		"Nibble packing: i8ToI4 keeps the low 4 bits of each byte (INT8→INT4",
		"and UINT8→UINT4 wrap the same way), packing len(src) elements;",
		"i4ToI8 and u4ToU8 unpack len(dst) elements with sign or zero",
		"extension; f32ToI4 truncates toward zero and wraps (INT4 and UINT4",
		"share bits).",
	}, []slot{
		{"i8ToI4", "kernel[func(dst []uint8, src []uint8)]", "INT8/UINT8 -> INT4/UINT4", "", nil},
		{"i4ToI8", "kernel[func(dst []uint8, src []uint8)]", "INT4 -> INT8", "", nil},
		{"u4ToU8", "kernel[func(dst []uint8, src []uint8)]", "UINT4 -> UINT8", "", nil},
		{"f32ToI4", "kernel[func(dst []uint8, src []float32)]", "FLOAT -> INT4/UINT4", "", nil},
	}},
	{[]string{
		"i8ToI2 keeps the low 2 bits of each byte, packing len(src) elements",
		"four to a byte (INT2 and UINT2 share bits; padding bits zero).",
	}, []slot{{"i8ToI2", "kernel[func(dst []uint8, src []uint8)]", "INT8/UINT8 -> INT2/UINT2", "", nil}}},
	{[]string{
		"Table lookups of 8-bit sources (tables.go builds the tables from the",
		"reference, one per pair and Options mode): lut8 sets dst[i] =",
		"table[src[i]], lut16 the same with 16-bit entries. They serve every",
		"pair from INT8, UINT8, BOOL, the float8 types and E8M0 to an 8- or",
		"16-bit target, in one step.",
	}, []slot{
		{"lut8", "kernel[func(dst []uint8, src []uint8, table *[256]uint8)]", "8-bit types -> 8-bit types (256-entry table)", "", nil},
		{"lut16", "kernel[func(dst []uint16, src []uint8, table *[256]uint16)]", "8-bit types -> 16-bit types (256-entry table)", "", nil},
	}},
	{[]string{
		"sel8 and sel16 look up two-valued tables (select.go) instead of lut8",
		"and lut16, where the tier has them (nil elsewhere).",
	}, []slot{
		{"sel8", "kernel[func(dst []uint8, src []uint8, p *selectParams)]",
			"BOOL -> 8/16-bit types, FLOAT8 -> BOOL (two-valued table)", "s.sel8.tierOr(s.lut8.tier)", nil},
		{"sel16", "kernel[func(dst []uint16, src []uint8, p *selectParams)]", "", "", nil},
	}},
	{[]string{
		"split8 looks up the 8-bit tables that splitShape describes (split.go)",
		"instead of lut8, where the tier has it: AVX2, whose lut8 is its",
		"slowest kernel (nil elsewhere).",
	}, []slot{
		{"split8", "kernel[func(dst []uint8, src []uint8, p *splitParams)]",
			"8-bit types -> 8-bit types (nibble-split table)", "s.split8.tierOr(s.lut8.tier)", nil},
	}},
	{[]string{
		"round8 looks up the tables of UINT8 (and INT8 to the E5M2 types) to",
		"the float8 types that roundShape describes (round8.go) instead of",
		"class8 or lut8, where the tier has it: AVX2 with GFNI (nil elsewhere).",
	}, []slot{
		{"round8", "kernel[func(dst []uint8, src []uint8, p *roundParams)]",
			"UINT8, INT8 -> float8 (row rounding, GFNI)", "s.round8.tierOr(s.class8.tierOr(s.lut8.tier))", nil},
	}},
	{[]string{
		"class8 looks up the tables of INT8 and UINT8 to the float8 types that",
		"classShape describes (class8.go) instead of lut8, where the tier has",
		"it: AVX2 (nil elsewhere).",
	}, []slot{
		{"class8", "kernel[func(dst []uint8, src []uint8, p *classParams)]",
			"INT8/UINT8 -> float8 (class rounding)", "s.class8.tierOr(s.lut8.tier)", nil},
	}},
	{[]string{
		"finer8 looks up the tables of a float8 type to one with more",
		"significand bits that finerShape describes (finer8.go) instead of",
		"lut8, where the tier has it: AVX2 (nil elsewhere).",
	}, []slot{
		{"finer8", "kernel[func(dst []uint8, src []uint8, p *finer8Params)]",
			"float8, E8M0 -> finer float8 (affine magnitude)", "s.finer8.tierOr(s.lut8.tier)", nil},
	}},
	{[]string{
		"splitPack[b]: split8 and the packing of lutPack in one kernel (b 0:",
		"4-bit targets, 1: 2-bit), for descriptions of at most two windows;",
		"nil where the tier has none.",
	}, []slot{
		{"splitPack", "[2]kernel[func(dst []uint8, src []uint8, p *splitParams)]", "", "", nil},
	}},
	{[]string{
		"unpack[b][w]: packed sources (b 0: 4-bit, 1: 2-bit) to targets of",
		"8<<w bits through a 16-entry table (unpack.go).",
	}, []slot{{"unpack", "[2][4]kernel[unpackFunc]", "4-bit types -> 8- to 64-bit types (16-entry table)", "s.unpack[0][3].tier",
		[]listing{{"2-bit types -> 8- to 64-bit types (4-entry table)", "s.unpack[1][3].tier"}}}}},
	{[]string{
		"lutPack[b]: 8-bit sources to packed targets (b 0: 4-bit, 1: 2-bit),",
		"lut8's lookup and the packing in one kernel; nil where the tier has",
		"none (lutPackStep then runs lut8 and i8ToI4 or i8ToI2).",
	}, []slot{{"lutPack", "[2]kernel[lutPackFunc]", "", "", nil}}},
	{[]string{
		"map4 sets dst[i] = t[src[i]&15] | t[16+src[i]>>4]; map4Pack packs",
		"those values (4 bits each) two to a byte. With the tables of",
		"nibbleTables they convert between the packed types.",
	}, []slot{
		{"map4", "kernel[map4Func]", "packed types -> packed types (nibble tables)", "", nil},
		{"map4Pack", "kernel[map4Func]", "", "", nil},
	}},
	{[]string{
		"toF8[from] converts from (INT16, UINT16, INT32, UINT32, INT64,",
		"UINT64, DOUBLE) to a float8 type in one kernel, where the tier has",
		"one; elsewhere the pair's plan goes through FLOAT (fusedF8Step).",
	}, []slot{{"toF8", "[numTypes]kernel[fusedF8Func]", "", "", nil}}},
	{[]string{
		"toE8[from]: the same for FLOAT8E8M0 (FLOAT16, BFLOAT16, INT16, UINT16,",
		"INT32, UINT32, INT64, UINT64; fusedE8Step).",
	}, []slot{{"toE8", "[numTypes]kernel[fusedE8Func]", "", "", nil}}},
	{[]string{
		"FLOAT16 ↔ BFLOAT16, each rounded once (to nearest even; NaN as the",
		"FLOAT pivot would give it).",
	}, []slot{
		{"f16ToBF16", "kernel[func(dst []uint16, src []uint16)]", "FLOAT16 -> BFLOAT16", "", nil},
		{"bf16ToF16", "kernel[func(dst []uint16, src []uint16)]", "BFLOAT16 -> FLOAT16", "", nil},
	}},
}

// Output is the file Generate writes.
const Output = "kernelset.go"

// Generate writes Output into dir.
func Generate(dir string) error {
	b, err := Build()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, Output), b, 0o644)
}

// Build returns the contents of Output.
func Build() ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by command: go run -C gen . -out ... DO NOT EDIT.\n\n")
	p("package tensorcast\n\n")
	p("// kernelSet is the table of hot conversions (gen/kernelset, Table).\n")
	p("type kernelSet struct {\n")
	seen := map[string]bool{}
	for i, g := range Table {
		if i > 0 {
			p("\n")
		}
		for _, line := range g.doc {
			p("\t// %s\n", line)
		}
		for _, s := range g.slots {
			if seen[s.name] {
				return nil, fmt.Errorf("kernelset: slot %s twice", s.name)
			}
			seen[s.name] = true
			p("\t%s %s\n", s.name, s.typ)
		}
	}
	p("}\n\n")
	p("// list is what Kernels returns for s: each listed slot's conversion and tier.\n")
	p("func (s *kernelSet) list() []KernelInfo {\n\treturn []KernelInfo{\n")
	for _, g := range Table {
		for _, s := range g.slots {
			if s.listed == "" {
				continue
			}
			tier := s.tier
			if tier == "" {
				if !strings.HasPrefix(s.typ, "kernel[") {
					return nil, fmt.Errorf("kernelset: slot %s is listed but is no kernel: give its tier", s.name)
				}
				tier = "s." + s.name + ".tier"
			}
			p("\t\t{%q, %s},\n", s.listed, tier)
			for _, l := range s.more {
				p("\t\t{%q, %s},\n", l.conv, l.tier)
			}
		}
	}
	p("\t}\n}\n")
	return format.Source(b.Bytes())
}
