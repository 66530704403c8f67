package tensorcast

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docNames returns the quoted names in the doc comment of the declaration
// named decl in kernel.go (a type or a function).
func docNames(t *testing.T, file *ast.File, decl string) []string {
	t.Helper()
	var doc string
	for _, d := range file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == decl && d.Recv == nil {
				doc = d.Doc.Text()
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == decl {
					doc = d.Doc.Text()
				}
			}
		}
	}
	if doc == "" {
		t.Fatalf("kernel.go: no doc comment on %s", decl)
	}
	var names []string
	for _, m := range regexp.MustCompile(`"([a-z0-9+]+)"`).FindAllStringSubmatch(doc, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

// TestTierNamesDocumented checks that every tier name the code produces on
// this machine (Tiers, every tier's Kernels list, KernelName) is one the
// documentation lists, and that the docs list no name the code cannot
// produce (a name is producible if it appears as a literal, or as "avx512"
// plus "+bf16", in the architecture files). CI runs it on amd64, under
// GODEBUG-lowered tiers, and on arm64 under qemu with and without BF16.
func TestTierNamesDocumented(t *testing.T) {
	src, err := os.ReadFile("kernel.go")
	if err != nil {
		t.Skipf("source not available: %v", err)
	}
	file, err := parser.ParseFile(token.NewFileSet(), "kernel.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	kernelNames := docNames(t, file, "KernelInfo")
	tierNames := docNames(t, file, "Tiers")
	bestNames := docNames(t, file, "KernelName")
	t.Logf("KernelInfo %v; Tiers %v; KernelName %v", kernelNames, tierNames, bestNames)
	for _, n := range append(slices.Clone(tierNames), bestNames...) {
		if !slices.Contains(kernelNames, n) {
			t.Errorf("%q is documented for Tiers or KernelName but not in KernelInfo's list", n)
		}
	}
	for _, k := range tiers {
		if !slices.Contains(tierNames, k.tier) {
			t.Errorf("tier %q is not in Tiers' documented list %v", k.tier, tierNames)
		}
		for _, ki := range k.list() {
			if !slices.Contains(kernelNames, ki.Kernel) {
				t.Errorf("tier %s: %s is served by %q, not in KernelInfo's documented list %v", k.tier, ki.Conversion, ki.Kernel, kernelNames)
			}
		}
	}
	for _, n := range Tiers() {
		if !slices.Contains(tierNames, n) {
			t.Errorf("Tiers() returns %q, not documented", n)
		}
	}
	if n := KernelName(); !slices.Contains(bestNames, n) {
		t.Errorf("KernelName() = %q, not documented %v", n, bestNames)
	}
	// No documented name the code cannot produce.
	var code strings.Builder
	for _, f := range []string{"kernel_generic.go", "kernel_amd64.go", "kernel_arm64.go", "wrappers_amd64.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code.Write(b)
	}
	for _, n := range kernelNames {
		lit := `"` + n + `"`
		if base, ok := strings.CutSuffix(n, "+bf16"); ok && strings.Contains(code.String(), `k5.tier = "`+base+`"`) && strings.Contains(code.String(), `k.tier+"+bf16"`) {
			continue
		}
		if !strings.Contains(code.String(), lit) {
			t.Errorf("documented tier %s appears nowhere in the kernel files", lit)
		}
	}
}

func TestCheckOpsetOperatorCase(t *testing.T) {
	for _, op := range []string{"Cast", "cast", "CAST", "CastLike", "castlike", "CASTLIKE", "castLike"} {
		if err := CheckOpset(op, 19, Float, Float8E4M3FN); err != nil {
			t.Errorf("CheckOpset(%q, 19): %v", op, err)
		}
	}
	if err := CheckOpset("castlike", 13, Float, Float16); err == nil || !strings.Contains(err.Error(), "CastLike does not exist before opset 15") {
		t.Errorf("castlike-13: %v", err)
	}
	if err := CheckOpset("CAST", 18, Float, Float8E4M3FN); err == nil || !strings.Contains(err.Error(), "Cast-18 does not accept FLOAT8E4M3FN") {
		t.Errorf("CAST-18: %v", err)
	}
	if err := CheckOpset("Casts", 19, Float, Float); err == nil || !strings.Contains(err.Error(), `unknown operator "Casts"`) {
		t.Errorf("Casts: %v", err)
	}
}
