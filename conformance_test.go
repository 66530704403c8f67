package tensorcast_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/onnxpb"
)

// ONNX's own backend node tests for Cast and CastLike, read from the shared
// data folder next to the repository (see its README.md): the protobuf
// files themselves, not a re-encoding.
var conformanceRoot = filepath.Join("..", "shared", "onnx-conformance")

const (
	conformanceCases = 172 // node/: ONNX v1.22.0
	legacyCases      = 6   // legacy-v1.18.0-string/node/: the STRING tests ONNX removed in 1.19
)

func TestConformance(t *testing.T) {
	runConformance(t, filepath.Join(conformanceRoot, "node"), conformanceCases, "bit-exact")
}

func TestConformanceLegacyStrings(t *testing.T) {
	runConformance(t, filepath.Join(conformanceRoot, "legacy-v1.18.0-string", "node"), legacyCases, "exact")
}

// runConformance runs every test directory under dir as a subtest and
// requires exactly want of them.
func runConformance(t *testing.T, dir string, want int, exactWord string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		abs, _ := filepath.Abs(dir)
		if os.Getenv("CI") == "true" {
			t.Fatalf("ONNX conformance data missing at %s (%v); it is required when CI=true", abs, err)
		}
		t.Skipf("skipping: ONNX conformance data not found at %s (%v); put ONNX's Cast node-test data at ../shared/onnx-conformance (next to the repository) to run this test", abs, err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) != want {
		t.Errorf("%s holds %d test directories, want %d", dir, len(cases), want)
	}
	exact := 0
	for _, name := range cases {
		if t.Run(name, func(t *testing.T) { runConformanceCase(t, filepath.Join(dir, name)) }) {
			exact++
		}
	}
	tensorcast.LogCount(t, "%d cases, %d %s", len(cases), exact, exactWord)
}

// runConformanceCase decodes one ONNX node test and requires tensorcast's
// output to equal the expected output bit for bit (string for string).
func runConformanceCase(t *testing.T, dir string) {
	data := filepath.Join(dir, "test_data_set_0")
	model, err := onnxpb.ReadModel(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := model.Node()
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := node.CastAttrs()
	if err != nil {
		t.Fatal(err)
	}
	in, err := onnxpb.ReadTensor(filepath.Join(data, "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := onnxpb.ReadTensor(filepath.Join(data, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	// CastLike's second input only supplies the target type. The
	// _expanded CastLike models hold a Cast node but still declare it.
	like, err := onnxpb.ReadTensor(filepath.Join(data, "input_1.pb"))
	hasLike := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}

	from := tensorcast.DataType(in.DataType)
	var to tensorcast.DataType
	switch node.OpType {
	case "Cast":
		to = tensorcast.DataType(attrs.To)
		if attrs.ToName != "" { // Cast-1 names the type
			if to, err = tensorcast.ParseDataType(attrs.ToName); err != nil {
				t.Fatal(err)
			}
		}
		if to == tensorcast.Undefined {
			t.Fatal("Cast node without a `to` attribute")
		}
		if hasLike && tensorcast.DataType(like.DataType) != to {
			t.Fatalf("expanded CastLike: Cast to=%v but the like input is %v", to, tensorcast.DataType(like.DataType))
		}
	case "CastLike":
		if !hasLike {
			t.Fatal("CastLike test without input_1.pb")
		}
		to = tensorcast.DataType(like.DataType)
	default:
		t.Fatalf("op type %q, want Cast or CastLike", node.OpType)
	}

	// The files must agree with themselves before they can judge the library.
	if len(model.Inputs) == 0 || len(model.Outputs) != 1 {
		t.Fatalf("graph has %d inputs and %d outputs", len(model.Inputs), len(model.Outputs))
	}
	if got := tensorcast.DataType(model.Inputs[0].ElemType); got != from {
		t.Fatalf("graph input is %v, input_0.pb is %v", got, from)
	}
	if got := tensorcast.DataType(model.Outputs[0].ElemType); got != to {
		t.Fatalf("graph output is %v, the cast targets %v", got, to)
	}
	if tensorcast.DataType(out.DataType) != to {
		t.Fatalf("output_0.pb is %v, the cast targets %v", tensorcast.DataType(out.DataType), to)
	}
	if !slices.Equal(in.Dims, out.Dims) {
		t.Fatalf("input dims %v, output dims %v", in.Dims, out.Dims)
	}

	opset := model.Opset()
	if err := tensorcast.CheckOpset(node.OpType, opset, from, to); err != nil {
		t.Errorf("CheckOpset(%q, %d, %v, %v): %v", node.OpType, opset, from, to, err)
	}
	if base := filepath.Base(dir); strings.HasPrefix(base, "test_castlike_") && node.OpType != "CastLike" {
		if err := tensorcast.CheckOpset("CastLike", opset, from, to); err != nil {
			t.Errorf("CheckOpset(\"CastLike\", %d, %v, %v): %v", opset, from, to, err)
		}
	}

	rm, err := tensorcast.ParseRoundMode(attrs.RoundMode)
	if err != nil {
		t.Fatal(err)
	}
	opt := tensorcast.Options{NoSaturate: !attrs.Saturate, RoundMode: rm}
	n := in.NumElements()
	t.Logf("%s-%d %v → %v, %d elements, %+v", node.OpType, opset, from, to, n, opt)

	switch {
	case to == tensorcast.String:
		got := make([]string, n)
		if err := tensorcast.CastToStrings(got, in.Raw, from, n); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if want := string(out.Strings[i]); got[i] != want {
				t.Errorf("element %d: input %s %#x: got %q, want %q", i, from, element(in.Raw, from, i), got[i], want)
			}
		}
	case from == tensorcast.String:
		src := make([]string, n)
		for i, s := range in.Strings {
			src[i] = string(s)
		}
		got := make([]byte, to.Size(n))
		if err := tensorcast.CastFromStrings(got, to, src, opt); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if g, w := element(got, to, i), element(out.Raw, to, i); g != w {
				t.Errorf("element %d: input %q: got %s, want %s", i, src[i], hexBits(g, to), hexBits(w, to))
			}
		}
	default:
		// Garbage in dst and a guard zone after it: Cast must write every
		// byte of the result (padding included) and nothing past it.
		const guard = 16
		size := to.Size(n)
		buf := bytes.Repeat([]byte{0xA5}, size+guard)
		if err := tensorcast.Cast(buf[:size], to, in.Raw, from, n, opt); err != nil {
			t.Fatal(err)
		}
		got := buf[:size]
		for i := range n {
			if g, w := element(got, to, i), element(out.Raw, to, i); g != w {
				t.Errorf("element %d: input %v %s: got %s, want %s", i, from, hexBits(element(in.Raw, from, i), from), hexBits(g, to), hexBits(w, to))
			}
		}
		if !bytes.Equal(got, out.Raw) { // only the padding can differ here
			t.Errorf("raw output %x, want %x", got, out.Raw)
		}
		if !bytes.Equal(buf[size:], bytes.Repeat([]byte{0xA5}, guard)) {
			t.Errorf("Cast wrote past the %d bytes of its output: %x", size, buf[size:])
		}
	}
}

// element returns the bits of element i of a raw tensor of type dt.
func element(raw []byte, dt tensorcast.DataType, i int) uint64 {
	switch bits := dt.BitSize(); bits {
	case 2:
		return uint64(raw[i/4]>>(2*(i%4))) & 3
	case 4:
		return uint64(raw[i/2]>>(4*(i%2))) & 15
	default:
		w := bits / 8
		var v uint64
		for j := w - 1; j >= 0; j-- {
			v = v<<8 | uint64(raw[i*w+j])
		}
		return v
	}
}

// hexBits formats element bits with as many hex digits as the type holds.
func hexBits(v uint64, dt tensorcast.DataType) string {
	const digits = "0123456789abcdef"
	nd := max(1, (dt.BitSize()+3)/4)
	b := make([]byte, 0, nd+2)
	b = append(b, '0', 'x')
	for k := nd - 1; k >= 0; k-- {
		b = append(b, digits[(v>>(4*k))&15])
	}
	return string(b)
}
