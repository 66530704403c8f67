package arm64

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ../../kernel_arm64.s and ../../kernel_arm64_stubs.go")

// TestGenerated checks that the committed kernel_arm64.s and its stubs are
// what the generator writes now (a golden test; `go generate ./...` at the
// repository root is the normal way to refresh them), and that generating
// twice gives the same bytes.
func TestGenerated(t *testing.T) {
	asm, stubs, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	asm2, stubs2, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(asm, asm2) || !bytes.Equal(stubs, stubs2) {
		t.Fatal("two runs of the generator differ")
	}
	dir := filepath.Join("..", "..")
	if *update {
		if err := Generate(dir); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string][]byte{"kernel_arm64.s": asm, "kernel_arm64_stubs.go": stubs} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./... at the repository root", name)
		}
	}
}
