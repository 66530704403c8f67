package arm64

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ../../kernel_arm64.s, ../../kernel_arm64_stubs.go and ../../stages_arm64.go")

// TestGenerated checks that the committed kernel_arm64.s, its stubs and the
// stage wrappers (stages_arm64.go) are what the generator writes now (a
// golden test; `go generate ./...` at the repository root is the normal way
// to refresh them), and that generating twice gives the same bytes.
func TestGenerated(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	again, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if !bytes.Equal(b, again[name]) {
			t.Fatalf("two runs of the generator differ in %s", name)
		}
	}
	dir := filepath.Join("..", "..")
	if *update {
		if err := Generate(dir); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./... at the repository root", name)
		}
	}
}
