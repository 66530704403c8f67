package amd64

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated amd64 files (Outputs) in the repository root")

// TestGolden checks that the committed outputs are what the generator
// produces now (and that it produces the same bytes twice); with -update it
// writes them instead, without touching the arm64 outputs.
func TestGolden(t *testing.T) {
	files, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	files2, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	for i := range files {
		if !bytes.Equal(files[i], files2[i]) {
			t.Fatal("two runs of the generator differ")
		}
	}
	root := filepath.Join("..", "..")
	if *update {
		if err := Generate(root); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, name := range Outputs {
		want := files[i]
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./... (or go test ./amd64 -update in gen)", name)
		}
	}
}
