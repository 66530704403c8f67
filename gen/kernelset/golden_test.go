package kernelset

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGolden checks that the committed kernelset.go is what Table produces.
func TestGolden(t *testing.T) {
	want, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", Output))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./...", Output)
	}
}

// TestListedSlotsAreKernels checks Build's rule that a listed slot without
// a tier expression is a kernel, so that its tier field exists.
func TestListedSlotsAreKernels(t *testing.T) {
	saved := Table
	defer func() { Table = saved }()
	Table = []group{{nil, []slot{{"unpack", "[2][4]kernel[unpackFunc]", "packed", "", nil}}}}
	if _, err := Build(); err == nil {
		t.Error("Build accepted a listed array slot without a tier expression")
	}
}
