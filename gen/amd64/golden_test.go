package amd64

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite kernel_amd64.s and kernel_amd64_stubs.go in the repository root")

// TestGolden checks that the committed outputs are what the generator
// produces now (and that it produces the same bytes twice); with -update it
// writes them instead, without touching the arm64 outputs.
func TestGolden(t *testing.T) {
	asm, stubs, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	asm2, stubs2, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(asm, asm2) || !bytes.Equal(stubs, stubs2) {
		t.Fatal("two runs of the generator differ")
	}
	root := filepath.Join("..", "..")
	if *update {
		if err := Generate(root); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, want := range map[string][]byte{"kernel_amd64.s": asm, "kernel_amd64_stubs.go": stubs} {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./... (or go test ./amd64 -update in gen)", name)
		}
	}
}
