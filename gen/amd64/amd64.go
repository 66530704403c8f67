// Package amd64 generates tensorcast's AVX2 and AVX-512 kernels with avo.
//
// Each conversion is one function below (half.go, float8.go, …) that writes
// its algorithm for one step of a Stream (stream.go) once per ISA family;
// the loop, the unrolling and the tail handling are shared. Generate
// compiles them all into kernel_amd64.s and kernel_amd64_stubs.go, and
// writes stages_amd64.go, the Go side of the numeric stages (numeric.go's
// table, glue.go) and of the round-to-odd stages (odd.go).
package amd64

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// kernels lists the generators in output order; those marked streaming also
// emit the streaming variant of each of their functions (see WithNT), after
// them.
var kernels = []struct {
	gen       func(a *Asm)
	streaming bool
}{
	{f32ToF16, true},
	{f16ToF32, true},
	{f32ToBF16, true},
	{f32ToBF16BF16, false}, // the AVX-512 tier streams with the integer kernel (kernel_amd64.go)
	{bf16ToF32, true},
	{narrowToF8, true},
	{half8, true}, // half8.go: BFLOAT16 → float8, FLOAT16 → E4M3 on AVX2's 16-bit lanes
	{f32ToF8W, true},
	{f16ToE5M2, true},
	{f16ToE4M3, true},
	{bf16ToF8Bytes, true},
	{i16ToE4M3, false},
	{i16ToF8Words, false}, // AVX2 INT16/UINT16 → the float8 types (i16f8.go)
	{i16ToE5M2, false},    // AVX-512 INT16/UINT16 → the E5M2 types by Veltkamp's split and VPMULTISHIFTQB (i16f8.go)
	{f8ToF32, true},
	{f8ToInt, false},
	{widenF8, true},
	{f8Half, false},     // 8-bit floats → FLOAT16, BFLOAT16 on AVX2 (f8half.go)
	{e8m0Packed, false}, // window8.go: 8-bit sources by VPSHUFB windows on AVX2
	{int8F4, false},
	{e8m0F4, false},
	{f8F4, false}, // f8f4.go: the float8 types → FLOAT4E2M1 on AVX2
	{f32ToE8M0, true},
	{e8m0Fused, false},
	{f64ToE8M0, false},       // DOUBLE → FLOAT8E8M0 off the DOUBLE's fields (e8m0wide.go)
	{i64ToE8M0, false},       // AVX2 INT64/UINT64 → FLOAT8E8M0 (e8m0wide.go)
	{i64ToE8M0AVX512, false}, // the same on AVX-512
	{f32ToF4, false},
	{f4ToF32, false},
	{i8ToI4, false},
	{unpack4, false},
	{f32ToI4, false},
	{numericFuncs, false}, // the classic-type stages (numeric.go), with their Go glue (glue.go)
	{lut, false},
	{round8, false}, // round8.go: UINT8 → float8 on AVX2 with GFNI
	{class8, false}, // class8.go: INT8/UINT8 → float8 on AVX2
	{finer8, false}, // finer8.go: E5M2/E5M2FNUZ → E4M3FN/E4M3FNUZ on AVX2
	{f16BF16, false},
	{oddFuncs, false}, // the round-to-odd stages (odd.go), with their Go glue
	{i8ToI2, false},
	{intToPacked, false},  // 16-, 32-bit integers, FLOAT → the packed integers on AVX2 (topacked.go)
	{boolPacked, false},   // BOOL → the packed types on AVX2 (topacked.go)
	{unpackTables, false}, // packed sources through 16-entry tables (unpacktab.go)
	{lut8Pack, false},     // 8-bit sources to packed targets (lut.go)
	{selects, false},      // two-valued tables (select.go)
	{split, false},        // nibble-split tables (split.go)
	{fusedFuncs, false},   // the fused stages (fused.go), with their Go glue
}

// Outputs are the files Generate writes, by name.
var Outputs = []string{"kernel_amd64.s", "kernel_amd64_stubs.go", "stages_amd64.go", "wrappers_amd64.go"}

// Generate writes the Outputs into dir.
func Generate(dir string) error {
	files, err := Build()
	if err != nil {
		return err
	}
	for i, name := range Outputs {
		if err := os.WriteFile(filepath.Join(dir, name), files[i], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Build returns the contents of the Outputs, in order.
func Build() ([][]byte, error) {
	a := &Asm{Context: build.NewContext(), data: map[string][]uint32{}, funcs: map[string]ISA{}, needs: map[string][]string{}, lanes: map[string]int{}}
	a.ConstraintExpr("amd64,gc,!purego,!noasm")
	for _, k := range kernels {
		if k.streaming {
			a.WithNT(func() { k.gen(a) })
		} else {
			k.gen(a)
		}
	}
	f, err := a.Result()
	if err != nil {
		return nil, err
	}
	cfg := printer.Config{Argv: []string{"go", "run", "-C", "gen", ".", "-out", ".."}, Pkg: "tensorcast"}
	var asmOut, stubOut buffer
	used, oddUsed, fusedUsed := stageISA{}, stageISA{}, funcISA{}
	err = pass.Concat(
		pass.Compile,
		pass.FunctionPass(a.checkISA),
		pass.FunctionPass(used.pass(stageNames())),
		pass.FunctionPass(oddUsed.pass(oddNames())),
		pass.FunctionPass(fusedUsed.pass(fusedNames())),
		pass.FunctionPass(expandRaw),
		&pass.Output{Writer: &asmOut, Printer: printer.NewGoAsm(cfg)},
		&pass.Output{Writer: &stubOut, Printer: printer.NewStubs(cfg)},
	).Execute(f)
	if err != nil {
		return nil, err
	}
	glueOut, err := glue(used, oddUsed, fusedUsed)
	if err != nil {
		return nil, err
	}
	wrapOut, err := wrapperGlue(a)
	if err != nil {
		return nil, err
	}
	return [][]byte{asmOut.Bytes(), stubOut.Bytes(), glueOut, wrapOut}, nil
}

type buffer struct{ bytes.Buffer }

func (*buffer) Close() error { return nil }

// The extensions each family may use without saying so: the Go side checks
// exactly these for a tier (kernel_amd64.go), plus the ones a function
// declares with Needs. ("MMX+" is avo's name for the extension of SFENCE,
// which every x86-64 CPU has.)
var baseISA = map[ISA][]string{
	AVX2:   {"AVX", "AVX2", "F16C", "MMX+"},
	AVX512: {"AVX", "AVX2", "F16C", "AVX512F", "AVX512BW", "AVX512VL", "BMI2", "MMX+"},
}

// checkISA makes sure a function uses no extension beyond its family's and
// those it declared, and that an AVX2 function uses no vector register
// above 15 (which only EVEX can encode) and no mask register.
func (a *Asm) checkISA(fn *ir.Function) error {
	isa := a.funcs[fn.Name]
	for _, x := range fn.ISA {
		if !slices.Contains(baseISA[isa], x) && !slices.Contains(a.needs[fn.Name], x) {
			return fmt.Errorf("%s (%v) requires %s, which it does not declare", fn.Name, isa, x)
		}
	}
	if isa != AVX2 {
		return nil
	}
	for _, i := range fn.Instructions() {
		for _, r := range i.Registers() {
			if p := reg.ToPhysical(r); p != nil && p.Kind() == reg.KindVector && p.PhysicalIndex() >= 16 {
				return fmt.Errorf("%s: %s uses %s", fn.Name, i.Opcode, p.Asm())
			}
			if r.Kind() == reg.KindOpmask {
				return fmt.Errorf("%s: %s uses a mask register", fn.Name, i.Opcode)
			}
		}
	}
	return nil
}
