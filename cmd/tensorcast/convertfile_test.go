package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
)

// This file's safetensors and .npy readers and writers are written
// independently of internal/safetensors and internal/npy, from the formats'
// descriptions, so that the command's output is checked against the format
// and not against its own code.

// stTypes are the safetensors dtypes: tensorcast type and bytes per element.
var stTypes = map[string]struct {
	t    tensorcast.DataType
	size int
}{
	"BOOL": {tensorcast.Bool, 1}, "U8": {tensorcast.Uint8, 1}, "I8": {tensorcast.Int8, 1},
	"I16": {tensorcast.Int16, 2}, "U16": {tensorcast.Uint16, 2}, "F16": {tensorcast.Float16, 2},
	"BF16": {tensorcast.BFloat16, 2}, "I32": {tensorcast.Int32, 4}, "U32": {tensorcast.Uint32, 4},
	"F32": {tensorcast.Float, 4}, "I64": {tensorcast.Int64, 8}, "U64": {tensorcast.Uint64, 8},
	"F64": {tensorcast.Double, 8}, "F8_E4M3": {tensorcast.Float8E4M3FN, 1},
	"F8_E5M2": {tensorcast.Float8E5M2, 1}, "F8_E8M0": {tensorcast.Float8E8M0, 1},
}

var stFloats = []string{"F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "F8_E8M0"}

// genTensor is a tensor of a generated safetensors file.
type genTensor struct {
	name  string
	dtype string
	shape []int64
	data  []byte
}

func numElems(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// randomBytes returns n bytes determined by seed: every bit pattern (NaN,
// Inf, subnormals) occurs.
func randomBytes(seed string, n int) []byte {
	h := fnv.New64a()
	h.Write([]byte(seed))
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func gen(name, dtype string, shape ...int64) genTensor {
	size := 16 // an unknown dtype: 16 bytes per element
	if d, ok := stTypes[dtype]; ok {
		size = d.size
	}
	if shape == nil {
		shape = []int64{}
	}
	return genTensor{name, dtype, shape, randomBytes(name, int(numElems(shape))*size)}
}

// stJSONString writes s as a JSON string.
func stJSONString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// encodeST builds a safetensors file: data in the order of tensors; the
// JSON lists the entries in jsonOrder (indices into tensors; -1 is the
// metadata), or in data order with the metadata last when jsonOrder is nil.
// pad pads the header with spaces to a multiple of 8.
func encodeST(meta [][2]string, tensors []genTensor, jsonOrder []int, pad bool) []byte {
	if jsonOrder == nil {
		for i := range tensors {
			jsonOrder = append(jsonOrder, i)
		}
		if meta != nil {
			jsonOrder = append(jsonOrder, -1)
		}
	}
	begins := make([]int, len(tensors))
	var data []byte
	for i, t := range tensors {
		begins[i] = len(data)
		data = append(data, t.data...)
	}
	var js []string
	for _, i := range jsonOrder {
		if i < 0 {
			var kv []string
			for _, m := range meta {
				kv = append(kv, stJSONString(m[0])+": "+stJSONString(m[1]))
			}
			js = append(js, `"__metadata__": {`+strings.Join(kv, ", ")+"}")
			continue
		}
		t := tensors[i]
		dims := make([]string, len(t.shape))
		for k, d := range t.shape {
			dims[k] = strconv.FormatInt(d, 10)
		}
		js = append(js, fmt.Sprintf(`%s: {"data_offsets": [%d, %d], "shape": [%s], "dtype": %q}`,
			stJSONString(t.name), begins[i], begins[i]+len(t.data), strings.Join(dims, ", "), t.dtype))
	}
	header := "{" + strings.Join(js, ", ") + "}"
	if pad {
		for len(header)%8 != 0 {
			header += " "
		}
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, data...)
}

// stEntry and stParsed are a safetensors file as this test reads it.
type stEntry struct {
	Dtype   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Offsets []int64 `json:"data_offsets"`
}

type stParsed struct {
	headerLen int
	keys      []string // the JSON's keys in order, __metadata__ included
	meta      [][2]string
	entries   map[string]stEntry
	data      []byte
}

// parseST reads a safetensors file and checks the format's rules: the header
// length, JSON padded with spaces to a multiple of 8, __metadata__ first,
// the tensors listed in the order of their data, contiguous from 0 to the
// end of the file, no gap or overlap, each as long as its shape and dtype
// need.
func parseST(t *testing.T, b []byte) stParsed {
	t.Helper()
	p := parseSTHeader(t, b, int64(len(b)))
	p.data = b[8+p.headerLen:]
	return p
}

// parseSTHeader is parseST for a file of fileSize bytes of which b holds at
// least the header; it does not set data.
func parseSTHeader(t *testing.T, b []byte, fileSize int64) stParsed {
	t.Helper()
	var p stParsed
	if len(b) < 8 {
		t.Fatalf("output is %d bytes", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8) {
		t.Fatalf("header length %d beyond the %d bytes read", n, len(b))
	}
	p.headerLen = int(n)
	if (8+n)%8 != 0 {
		t.Errorf("data starts at %d, not a multiple of 8", 8+n)
	}
	header := b[8 : 8+n]
	body := bytes.TrimRight(header, " ")
	if len(header)-len(body) >= 8 {
		t.Errorf("header has %d bytes of padding", len(header)-len(body))
	}
	if !bytes.HasPrefix(body, []byte("{")) || !bytes.HasSuffix(body, []byte("}")) {
		t.Fatalf("header is not a JSON object padded with spaces: %q", header)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("header: %v %v", tok, err)
	}
	p.entries = map[string]stEntry{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		p.keys = append(p.keys, k)
		if k == "__metadata__" {
			var m json.RawMessage
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			md := json.NewDecoder(bytes.NewReader(m))
			md.Token()
			for md.More() {
				kt, _ := md.Token()
				vt, _ := md.Token()
				p.meta = append(p.meta, [2]string{kt.(string), vt.(string)})
			}
			continue
		}
		var e stEntry
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("entry %q: %v", k, err)
		}
		p.entries[k] = e
	}
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(p.keys, "__metadata__"); i > 0 {
		t.Errorf("__metadata__ is key %d, not first", i)
	}
	var end int64
	for _, k := range p.tensorNames() {
		e := p.entries[k]
		if e.Shape == nil {
			t.Errorf("tensor %q: shape is not a list", k)
		}
		if len(e.Offsets) != 2 || e.Offsets[0] != end || e.Offsets[1] < e.Offsets[0] {
			t.Errorf("tensor %q: data_offsets %v, want [%d, ...]: listed out of data order, gap or overlap", k, e.Offsets, end)
			continue
		}
		if d, ok := stTypes[e.Dtype]; ok && int64(d.size)*numElems(e.Shape) != e.Offsets[1]-e.Offsets[0] {
			t.Errorf("tensor %q: %s %v in %d bytes", k, e.Dtype, e.Shape, e.Offsets[1]-e.Offsets[0])
		}
		end = e.Offsets[1]
	}
	if dataSize := fileSize - 8 - int64(n); end != dataSize {
		t.Errorf("tensors end at %d, the data at %d", end, dataSize)
	}
	return p
}

func (p *stParsed) tensorNames() []string {
	var s []string
	for _, k := range p.keys {
		if k != "__metadata__" {
			s = append(s, k)
		}
	}
	return s
}

func (p *stParsed) bytesOf(name string) []byte {
	e := p.entries[name]
	return p.data[e.Offsets[0]:e.Offsets[1]]
}

// castAll is the expected conversion of a whole tensor, in one Cast call.
func castAll(t *testing.T, data []byte, from, to tensorcast.DataType, opt tensorcast.Options) []byte {
	t.Helper()
	n := len(data) * 8 / from.BitSize()
	out := make([]byte, to.Size(n))
	if err := tensorcast.Cast(out, to, data, from, n, opt); err != nil {
		t.Fatal(err)
	}
	return out
}

// roundTripTensors covers every dtype, scalars, empty tensors, odd counts,
// an unknown dtype, and names that need escaping.
func roundTripTensors() []genTensor {
	return []genTensor{
		gen("model.embed.weight", "F32", 7, 13),
		gen("model.layers.0.input_norm.weight", "F32", 13),
		gen("model.layers.0.attn.q", "F16", 5, 3),
		gen("model.layers.0.attn.k", "BF16", 3, 3),
		gen("double", "F64", 11),
		gen("fp8.e4m3", "F8_E4M3", 9),
		gen("fp8.e5m2", "F8_E5M2", 4),
		gen("mx.scales", "F8_E8M0", 6),
		gen("scalar", "F32"),
		gen("empty", "F32", 0, 4),
		gen("empty2", "F16", 2, 0, 3),
		gen("position_ids", "I64", 3),
		gen("count", "I32"),
		gen("mask", "BOOL", 5),
		gen("bytes", "U8", 7),
		gen("none", "I8", 0),
		gen("u16", "U16", 3), gen("i16", "I16", 1), gen("u32", "U32", 2), gen("u64", "U64", 2),
		gen("complex", "C64", 2),
		gen(`odd "name" <&> é`, "BF16", 1),
		gen("tail.f32", "F32", 1),
	}
}

var roundTripMeta = [][2]string{{"format", "pt"}, {"note", `<&> "quoted" é`}, {"empty", ""}}

// runST converts in with args and checks the output against Cast, tensor
// by tensor: converted names get target and Cast(opt) of the input; the
// others are copied unchanged. It returns stderr.
func runST(t *testing.T, tensors []genTensor, args []string, target string, opt tensorcast.Options, converted func(genTensor) bool) string {
	t.Helper()
	dir := t.TempDir()
	// The JSON lists the entries in reverse, metadata in the middle: the
	// output must follow the data order.
	var order []int
	for i := len(tensors) - 1; i >= 0; i-- {
		order = append(order, i)
		if i == len(tensors)/2 {
			order = append(order, -1)
		}
	}
	in := writeFile(t, dir, "in.safetensors", encodeST(roundTripMeta, tensors, order, false))
	out := filepath.Join(dir, "out.safetensors")
	code, stdout, stderr := runCmd(t, nil, append(append([]string{"convert"}, args...), in, out)...)
	if code != 0 || stdout != "" {
		t.Fatalf("%q: exit %d, stdout %q, stderr %s", args, code, stdout, stderr)
	}
	assertOnly(t, dir, "in.safetensors", "out.safetensors")
	p := parseST(t, readFile(t, out))
	// The output lists the tensors in the input's data order. Zero-byte
	// tensors at the same offset may come in either order.
	inBegin := map[string]int{}
	var names []string
	for i, g := range tensors {
		names = append(names, g.name)
		inBegin[g.name] = i
		if i > 0 && len(tensors[i-1].data) == 0 && len(g.data) == 0 {
			inBegin[g.name] = inBegin[tensors[i-1].name]
		}
	}
	got := p.tensorNames()
	ok := len(got) == len(names)
	for i := 1; ok && i < len(got); i++ {
		ok = inBegin[got[i-1]] <= inBegin[got[i]] && got[i-1] != got[i]
	}
	if !ok {
		t.Errorf("%q: tensor order %q, want the input's data order %q", args, got, names)
	}
	if !slices.Equal(p.meta, roundTripMeta) {
		t.Errorf("%q: metadata %q, want %q", args, p.meta, roundTripMeta)
	}
	for _, g := range tensors {
		e := p.entries[g.name]
		if !slices.Equal(e.Shape, g.shape) {
			t.Errorf("%q: tensor %q: shape %v, want %v", args, g.name, e.Shape, g.shape)
		}
		want, dtype := g.data, g.dtype
		if converted(g) {
			want, dtype = castAll(t, g.data, stTypes[g.dtype].t, stTypes[target].t, opt), target
		}
		if e.Dtype != dtype {
			t.Errorf("%q: tensor %q: dtype %s, want %s", args, g.name, e.Dtype, dtype)
		}
		if got := p.bytesOf(g.name); !bytes.Equal(got, want) {
			t.Errorf("%q: tensor %q (%s -> %s): bytes differ from Cast:\n got % x\nwant % x", args, g.name, g.dtype, dtype, got, want)
		}
	}
	return stderr
}

func isFloatDtype(d string) bool { return slices.Contains(stFloats, d) }

func TestConvertSafetensorsRoundTrip(t *testing.T) {
	tensors := roundTripTensors()
	// Tiny chunks (tensors span several), and the default.
	for _, cb := range []int{40, 1 << 20} {
		setChunks(t, cb, 1<<16)
		for _, target := range append(slices.Clone(stFloats), "I32", "U8", "BOOL") {
			args := []string{"--to", target}
			stderr := runST(t, tensors, args, target, tensorcast.Options{}, func(g genTensor) bool { return isFloatDtype(g.dtype) })
			// The summary; the unknown dtype's warning.
			conv, same := 0, 0
			var notFloat []string
			for _, g := range tensors {
				switch {
				case isFloatDtype(g.dtype) && g.dtype != target:
					conv++
				case isFloatDtype(g.dtype):
					same++
				case g.dtype != "C64" && !slices.Contains(notFloat, g.dtype):
					notFloat = append(notFloat, g.dtype)
				}
			}
			sameText := ""
			if same > 0 {
				sameText = fmt.Sprintf(" %d already %s,", same, target)
			}
			want := fmt.Sprintf("%c%s: %d tensors converted to %s,%s 9 left as is (%s: not float types), 1 left as is (C64, a dtype tensorcast does not know); read ",
				filepath.Separator, "out.safetensors", conv, target, sameText, strings.Join(notFloat, ", "))
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], `warning: `) || !strings.Contains(lines[0], `1 tensor ("complex") of dtype "C64", unknown to tensorcast, copied unchanged`) ||
				!strings.Contains(lines[1], want) || !strings.HasSuffix(lines[1], "/s)") {
				t.Errorf("%q: stderr\n%s\nwant a warning and a summary starting %q", args, stderr, want)
			}
		}
	}

	// Options pass through: saturate, round mode.
	isFloat := func(g genTensor) bool { return isFloatDtype(g.dtype) }
	runST(t, tensors, []string{"-to", "F8_E4M3", "--no-saturate"}, "F8_E4M3", tensorcast.Options{NoSaturate: true}, isFloat)
	runST(t, tensors, []string{"-to", "F8_E5M2", "--saturate=false"}, "F8_E5M2", tensorcast.Options{NoSaturate: true}, isFloat)
	runST(t, tensors, []string{"-to", "F8_E5M2", "--saturate"}, "F8_E5M2", tensorcast.Options{}, isFloat)
	runST(t, tensors, []string{"-to", "F8_E8M0", "--round-mode", "down", "-no-saturate"}, "F8_E8M0", tensorcast.Options{RoundMode: tensorcast.RoundDown, NoSaturate: true}, isFloat)
	runST(t, tensors, []string{"-to", "FLOAT8E8M0", "--round-mode=nearest"}, "F8_E8M0", tensorcast.Options{RoundMode: tensorcast.RoundNearest}, isFloat)
	// Target spellings.
	for _, to := range []string{"bfloat16", "BFLOAT16", "bf16", "16"} {
		runST(t, tensors, []string{"-q", "--to", to}, "BF16", tensorcast.Options{}, isFloat)
	}
	for _, to := range []string{"FLOAT16", "float16", "<f2", "f2", "fp16", "half"} {
		runST(t, tensors, []string{"-q", "--to", to}, "F16", tensorcast.Options{}, isFloat)
	}
	runST(t, tensors, []string{"-q", "--to", "<i8"}, "I64", tensorcast.Options{}, isFloat)
	runST(t, tensors, []string{"-q", "--to", "I8"}, "I8", tensorcast.Options{}, isFloat)
}

func TestConvertSafetensorsSelect(t *testing.T) {
	tensors := roundTripTensors()
	cases := []struct {
		args []string
		conv []string // the converted tensors
		warn []string // warnings expected, in order
	}{
		{[]string{"--skip", "*norm*"}, []string{"model.embed.weight", "model.layers.0.attn.q", "model.layers.0.attn.k", "double", "fp8.e4m3", "fp8.e5m2", "mx.scales", "scalar", "empty", "empty2", `odd "name" <&> é`, "tail.f32"}, nil},
		{[]string{"--only", "model.*.attn.*,scalar", "-only", "double"}, []string{"model.layers.0.attn.q", "model.layers.0.attn.k", "scalar", "double"}, nil},
		{[]string{"--only", "model.*", "--skip", "*.k", "--skip", "*embed*"}, []string{"model.layers.0.input_norm.weight", "model.layers.0.attn.q"}, nil},
		{[]string{"--only", "position_ids,fp8.*", "--skip", "nothing[0-9]"}, []string{"fp8.e4m3", "fp8.e5m2"},
			[]string{`-only matches 1 tensor ("position_ids") that are not floating-point: copied unchanged`, `-skip "nothing[0-9]" matches no tensor`}},
		{[]string{"--only", "nope"}, nil, []string{`-only "nope" matches no tensor`}},
	}
	for _, c := range cases {
		args := append([]string{"--to", "F16"}, c.args...)
		stderr := runST(t, tensors, args, "F16", tensorcast.Options{}, func(g genTensor) bool {
			return slices.Contains(c.conv, g.name) && g.dtype != "F16"
		})
		var warns []string
		for _, l := range strings.Split(stderr, "\n") {
			if w, ok := strings.CutPrefix(l, "tensorcast: warning: "); ok && !strings.Contains(w, "C64") {
				warns = append(warns, w[strings.Index(w, ": ")+2:])
			}
		}
		if !slices.Equal(warns, c.warn) {
			t.Errorf("%q: warnings %q, want %q", args, warns, c.warn)
		}
	}
	// -quiet silences warnings and the summary.
	if stderr := runST(t, tensors, []string{"--to", "F16", "--quiet", "--only", "nope"}, "F16", tensorcast.Options{}, func(genTensor) bool { return false }); stderr != "" {
		t.Errorf("-quiet: stderr %q", stderr)
	}
}

func TestConvertSafetensorsHeaderPadding(t *testing.T) {
	// Output header lengths of every remainder mod 8: names of growing length.
	for k := range 8 {
		g := gen(strings.Repeat("n", k+1), "F32", 3)
		dir := t.TempDir()
		in := writeFile(t, dir, "in.safetensors", encodeST(nil, []genTensor{g}, nil, true))
		out := filepath.Join(dir, "out.safetensors")
		if code, _, stderr := runCmd(t, nil, "convert", "-q", "--to", "BF16", in, out); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b := readFile(t, out)
		p := parseST(t, b) // checks the alignment and the padding
		if len(p.meta) != 0 || slices.Contains(p.keys, "__metadata__") {
			t.Errorf("metadata appeared: %q", p.keys)
		}
		want := fmt.Sprintf(`{"%s":{"dtype":"BF16","shape":[3],"data_offsets":[0,6]}}`, g.name)
		if got := strings.TrimRight(string(b[8:8+p.headerLen]), " "); got != want {
			t.Errorf("header %q, want %q", got, want)
		}
	}
}

func TestConvertSafetensorsStdoutAndInPlace(t *testing.T) {
	tensors := roundTripTensors()
	dir := t.TempDir()
	in := writeFile(t, dir, "m.safetensors", encodeST(roundTripMeta, tensors, nil, true))
	out := filepath.Join(dir, "o.safetensors")
	if code, _, stderr := runCmd(t, nil, "convert", "-q", "--to", "BF16", in, out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, nil, "convert", "--to", "BF16", in, "-")
	if code != 0 || stdout != string(readFile(t, out)) {
		t.Errorf("to stdout: exit %d, %d bytes, want the file's %d: %s", code, len(stdout), len(readFile(t, out)), stderr)
	}
	if !strings.Contains(stderr, "\nstdout: 11 tensors converted to BF16, 2 already BF16, 9 left as is (I64, I32, BOOL, U8, I8, U16, I16, U32, U64: not float types), 1 left as is (C64, a dtype tensorcast does not know); read ") {
		t.Errorf("summary %q", stderr)
	}
	// IN and OUT the same file, with -in-place: replaced once converted.
	if code, _, stderr := runCmd(t, nil, "convert", "-q", "-in-place", "--to", "BF16", in, in); code != 0 {
		t.Fatalf("in place: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(readFile(t, in), readFile(t, out)) {
		t.Error("in-place conversion differs")
	}
	assertOnly(t, dir, "m.safetensors", "o.safetensors")
	// An explicit -format, for a file without the extension.
	plain := writeFile(t, dir, "model.bin", encodeST(roundTripMeta, tensors, nil, true))
	if code, _, stderr := runCmd(t, nil, "convert", "-q", "-format", "safetensors", "--to", "BF16", plain, filepath.Join(dir, "x.bin")); code != 0 {
		t.Fatalf("-format: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, "x.bin")), readFile(t, out)) {
		t.Error("-format safetensors output differs")
	}
}

func TestConvertProgress(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.safetensors", encodeST(nil, []genTensor{gen("w", "F32", 300000)}, nil, true))
	out := filepath.Join(dir, "out.safetensors")
	setChunks(t, 4096, 1<<16)

	// Not a terminal: just the summary.
	_, _, stderr := runCmd(t, nil, "convert", "--to", "BF16", in, out)
	if strings.Count(stderr, "\n") != 1 || !regexp.MustCompile(`^.*out.safetensors: 1 tensor converted to BF16; read 1.14 MiB, wrote 586.\d\d KiB in \d+\.\d\ds \(.*/s\)\n$`).MatchString(stderr) {
		t.Errorf("not a terminal: stderr %q", stderr)
	}

	old := isTerminal
	isTerminal = func(w io.Writer) bool { return true }
	defer func() { isTerminal = old }()
	_, _, stderr = runCmd(t, nil, "convert", "--to", "BF16", in, out)
	bar, summary, _ := strings.Cut(stderr, out+": ")
	if !strings.Contains(bar, "in.safetensors") || !strings.Contains(bar, "\r") || !strings.Contains(bar, "MiB") || !strings.Contains(bar, "%") {
		t.Errorf("terminal: no progress bar before the summary: %q", bar)
	}
	if !strings.HasPrefix(summary, "1 tensor converted to BF16") {
		t.Errorf("terminal: summary %q", summary)
	}
	_, _, stderr = runCmd(t, nil, "convert", "--to", "BF16", "--quiet", in, out)
	if stderr != "" {
		t.Errorf("terminal, -quiet: stderr %q", stderr)
	}
}
