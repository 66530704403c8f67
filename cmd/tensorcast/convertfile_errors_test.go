package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/safetensors"
)

// stRaw builds a safetensors file from a header text and data length.
func stRaw(header string, data int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, data)...)
}

// assertFails runs convert on a file holding content and checks: exit 1,
// exactly one stderr line "tensorcast: IN: want...", and no output (nor a
// temporary file) left in the directory; an existing OUT is untouched.
func assertFails(t *testing.T, name string, content []byte, want string, args ...string) {
	t.Helper()
	for _, existing := range []bool{false, true} {
		dir := t.TempDir()
		in := writeFile(t, dir, name, content)
		out := filepath.Join(dir, "out"+filepath.Ext(name))
		if existing {
			writeFile(t, dir, filepath.Base(out), []byte("old"))
		}
		code, stdout, stderr := runCmd(t, nil, append(append([]string{"convert"}, args...), in, out)...)
		wantLine := "tensorcast: " + in + ": " + want
		if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, wantLine) {
			t.Errorf("%s: exit %d, stderr %q\nwant exit 1 and one line starting %q", name, code, stderr, wantLine)
		}
		if existing {
			names := []string{name, filepath.Base(out)}
			slices.Sort(names)
			assertOnly(t, dir, names...)
			if got := string(readFile(t, out)); got != "old" {
				t.Errorf("%s: OUT changed to %q", name, got)
			}
		} else {
			assertOnly(t, dir, name)
		}
	}
}

func TestConvertBadSafetensors(t *testing.T) {
	good := encodeST([][2]string{{"k", "v"}}, []genTensor{gen("a", "F32", 4), gen("w", "F32", 16)}, nil, true)
	w := func(shape, offs string, data int) []byte {
		return stRaw(`{"w":{"dtype":"F32","shape":`+shape+`,"data_offsets":`+offs+`}}`, data)
	}
	cases := []struct {
		name    string
		content []byte
		want    string
	}{
		{"empty", nil, "file is 0 bytes, too short for the 8-byte header length of a safetensors file"},
		{"short", []byte{1, 0, 0}, "file is 3 bytes, too short for the 8-byte header length"},
		{"truncated in the data", good[:len(good)-10], `tensor "w": data_offsets [16, 80] outside the 70-byte buffer`},
		{"truncated in the header", good[:40], "header length "},
		{"header length beyond the file", append(binary.LittleEndian.AppendUint64(nil, 1<<40), "{}"...), "header length 1099511627776 is beyond the end of the 10-byte file"},
		{"malformed JSON", stRaw(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},}`, 4), "malformed JSON header at byte 54: invalid character '}'"},
		{"not JSON", stRaw("hello, world", 0), "header does not start with a JSON object"},
		{"outside the buffer", w("[25]", "[0,100]", 64), `tensor "w": data_offsets [0, 100] outside the 64-byte buffer`},
		{"overlap", stRaw(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"w":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}`, 24), `tensors "a" [0, 16] and "w" [8, 24] overlap`},
		{"gap", stRaw(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, 12), `4 unused bytes between tensors "a" [0, 4] and "w" [8, 12]`},
		{"trailing bytes", w("[1]", "[0,4]", 12), `8 bytes after the last tensor's data`},
		{"shape mismatch", w("[3,4]", "[0,40]", 40), `tensor "w": shape [3, 4] of F32 is 48 bytes, but data_offsets [0, 40] hold 40`},
		{"bad shape", w(`"3"`, "[0,12]", 12), `tensor "w": "shape" has the wrong JSON type (string)`},
		{"bad metadata", stRaw(`{"__metadata__":{"a":["b"]}}`, 0), `__metadata__: the value of "a" is not a string`},
	}
	for _, c := range cases {
		assertFails(t, strings.ReplaceAll(c.name, " ", "_")+".safetensors", c.content, c.want, "--to", "BF16")
	}
}

// npyFile builds a version 1.0 .npy file from a dict literal and data.
func npyFile(dict string, data []byte) []byte {
	b := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(b[8:], uint16(len(dict)+1))
	b = append(b, dict+"\n"...)
	return append(b, data...)
}

func TestConvertBadNpy(t *testing.T) {
	f4 := "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	cases := []struct {
		name    string
		content []byte
		want    string
	}{
		{"empty", nil, "not a .npy file: it does not start with the magic"},
		{"bad magic", append([]byte("\x93NUMPZ\x01\x00"), make([]byte, 100)...), "not a .npy file"},
		{"version", append([]byte("\x93NUMPY\x09\x00"), make([]byte, 100)...), "unsupported .npy format version 9.0"},
		{"header beyond the file", npyFile(f4, make([]byte, 24))[:40], "header length 60 is beyond the end of the 40-byte file (truncated?)"},
		{"bad dict", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ", make([]byte, 24)), "malformed header dict: at byte 59: unexpected end of the header"},
		{"missing key", npyFile("{'descr': '<f4', 'shape': (2, 3)}", make([]byte, 24)), "header lacks the key 'fortran_order'"},
		{"short data", npyFile(f4, make([]byte, 20)), "data holds 20 bytes, but shape (2, 3) of '<f4' needs 24 (truncated file?)"},
		{"long data", npyFile(f4, make([]byte, 48)), "data holds 48 bytes, but shape (2, 3) of '<f4' needs 24 (trailing data"},
		{"complex", npyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)), "dtype '<c8' is not supported"},
		{"object", npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)), "dtype '|O' is not supported"},
		{"structured", npyFile("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 8)), "header 'descr' is a list: structured and record dtypes are not supported"},
	}
	for _, c := range cases {
		assertFails(t, strings.ReplaceAll(c.name, " ", "_")+".npy", c.content, c.want, "--to", "float16")
	}
}

// parseNpy reads a .npy file written by the command and checks numpy's
// layout: version 1.0, the data at a multiple of 64, a header ending in
// '\n'. It returns descr, fortran_order, the shape text and the data.
func parseNpy(t *testing.T, b []byte) (descr, fortran, shape string, data []byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("\x93NUMPY\x01\x00")) || len(b) < 10 {
		t.Fatalf("not a version 1.0 .npy file: %q", b[:min(len(b), 10)])
	}
	n := 10 + int(binary.LittleEndian.Uint16(b[8:]))
	if n%64 != 0 || n > len(b) || b[n-1] != '\n' {
		t.Fatalf("header of %d bytes: %q", n, b[:min(n, len(b))])
	}
	h := string(b[10:n])
	m := regexp.MustCompile(`^\{'descr': '([^']*)', 'fortran_order': (True|False), 'shape': \(([0-9, ]*)\), \} *\n$`).FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("header %q", h)
	}
	return m[1], m[2], m[3], b[n:]
}

func TestConvertNpy(t *testing.T) {
	setChunks(t, 40, 1<<16)
	cases := []struct {
		descr   string
		typ     tensorcast.DataType
		fortran string
		shape   string
		n       int
	}{
		{"<f4", tensorcast.Float, "False", "3, 7", 21},
		{">f4", tensorcast.Float, "False", "3, 7", 21},
		{"<f8", tensorcast.Double, "True", "5, 3", 15},
		{">f8", tensorcast.Double, "False", "13,", 13},
		{"<f2", tensorcast.Float16, "False", "", 1},
		{">f2", tensorcast.Float16, "False", "0, 5", 0},
		{"|b1", tensorcast.Bool, "False", "9,", 9},
		{"|i1", tensorcast.Int8, "False", "9,", 9},
		{"|u1", tensorcast.Uint8, "True", "3, 3", 9},
		{">i2", tensorcast.Int16, "False", "9,", 9},
		{"<u2", tensorcast.Uint16, "False", "9,", 9},
		{">i4", tensorcast.Int32, "False", "9,", 9},
		{"<u4", tensorcast.Uint32, "False", "9,", 9},
		{">i8", tensorcast.Int64, "False", "9,", 9},
		{"<u8", tensorcast.Uint64, "False", "9,", 9},
	}
	targets := []struct {
		arg   string
		typ   tensorcast.DataType
		descr string
	}{
		{"float16", tensorcast.Float16, "<f2"}, {"<f4", tensorcast.Float, "<f4"}, {"FLOAT", tensorcast.Float, "<f4"},
		{"float64", tensorcast.Double, "<f8"}, {"int64", tensorcast.Int64, "<i8"}, {"|u1", tensorcast.Uint8, "|u1"},
		{"bool", tensorcast.Bool, "|b1"}, {"I16", tensorcast.Int16, "<i2"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		size := c.typ.BitSize() / 8
		data := randomBytes(c.descr+c.shape, c.n*size)
		shape := "(" + c.shape + ")"
		in := writeFile(t, dir, "in.npy", npyFile(fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", c.descr, c.fortran, shape), data))
		// The little-endian values of the input.
		le := bytes.Clone(data)
		if c.descr[0] == '>' {
			for i := 0; i < len(le); i += size {
				for j, k := i, i+size-1; j < k; j, k = j+1, k-1 {
					le[j], le[k] = le[k], le[j]
				}
			}
		}
		for _, to := range targets {
			out := filepath.Join(dir, "out.npy")
			code, _, stderr := runCmd(t, nil, "convert", "--to", to.arg, in, out)
			if code != 0 {
				t.Fatalf("%s -> %s: exit %d: %s", c.descr, to.arg, code, stderr)
			}
			descr, fortran, gotShape, got := parseNpy(t, readFile(t, out))
			wantShape := strings.TrimSuffix(c.shape, ",")
			if c.n > 1 && !strings.Contains(c.shape, ", ") {
				wantShape = c.shape // (13,)
			}
			if descr != to.descr || fortran != c.fortran || gotShape != wantShape {
				t.Errorf("%s -> %s: header %s %s (%s), want %s %s (%s)", c.descr, to.arg, descr, fortran, gotShape, to.descr, c.fortran, wantShape)
			}
			want := le // the same type: copied
			if c.typ != to.typ || c.typ == tensorcast.Bool {
				// BOOL to BOOL normalises the bytes to 0 and 1, as Cast does.
				want = castAll(t, le, c.typ, to.typ, tensorcast.Options{})
			}
			if c.typ == tensorcast.Bool && to.typ == tensorcast.Bool && bytes.Equal(want, le) {
				t.Errorf("|b1 -> bool: the test input has only 0 and 1 bytes: normalisation not tested")
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s -> %s: data differs from Cast:\n got % x\nwant % x", c.descr, to.arg, got, want)
			}
			verb := "converted to " + to.descr
			switch {
			case c.typ == tensorcast.Bool && to.typ == tensorcast.Bool:
				verb = "copied with BOOL bytes normalised to 0 and 1 (already |b1)"
			case c.typ == to.typ && c.descr[0] != '>':
				verb = "copied unchanged (already " + to.descr + ")"
			}
			if !strings.Contains(stderr, "out.npy: 1 array "+verb+"; read ") {
				t.Errorf("%s -> %s: summary %q", c.descr, to.arg, stderr)
			}
		}
	}
	assertOnly(t, dir, "in.npy", "out.npy")
}

func TestConvertFileArguments(t *testing.T) {
	dir := t.TempDir()
	st := writeFile(t, dir, "m.safetensors", encodeST(nil, []genTensor{gen("w", "F32", 4)}, nil, true))
	np := writeFile(t, dir, "a.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", make([]byte, 8)))
	out := filepath.Join(dir, "out.safetensors")
	outNpy := filepath.Join(dir, "out.npy")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-from", "FLOAT", "-to", "BF16", st, out}, "convert: -from is for raw tensors: a .safetensors file says its own dtype"},
		{[]string{st, out}, "convert: -to is required"},
		{[]string{"--to", "BF16", st}, "convert: OUT is required for a .safetensors input"},
		{[]string{"--to", "BF16", "-format", "safetensors"}, "convert: a .safetensors input must be a file, not stdin"},
		{[]string{"--to", "FLOAT8E4M3FNUZ", st, out}, "convert: -to FLOAT8E4M3FNUZ: safetensors has no dtype for FLOAT8E4M3FNUZ (it names BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, F8_E4M3, F8_E5M2, F8_E8M0)"},
		{[]string{"--to", "INT4", st, out}, "convert: -to INT4: safetensors has no dtype for INT4"},
		{[]string{"--to", "STRING", st, out}, "convert: -to STRING: safetensors has no dtype for STRING"},
		{[]string{"--to", "COMPLEX64", st, out}, "convert: -to: COMPLEX64 is not a type Cast supports"},
		{[]string{"--to", "float17", st, out}, `convert: -to: unknown data type "float17"`},
		{[]string{"--to", "i8", st, out}, `convert: -to: "i8" is ambiguous: numpy's i8 is INT64 and safetensors' I8 is INT8; write '<i8' or I8`},
		{[]string{"--to", ">f4", np, outNpy}, `convert: -to: ">f4": .npy output is always little-endian: write '<f4'`},
		{[]string{"--to", "BF16", np, outNpy}, "convert: -to BF16: numpy has no dtype for BFLOAT16: a .npy file cannot hold it (tensorcast does not write raw bytes under another dtype; use a .safetensors file for it)"},
		{[]string{"--to", "F8_E4M3", np, outNpy}, "convert: -to F8_E4M3: numpy has no dtype for FLOAT8E4M3FN"},
		{[]string{"--to", "INT4", np, outNpy}, "convert: -to INT4: numpy has no dtype for INT4: a .npy file cannot hold it, and neither can a .safetensors file (tensorcast does not write raw bytes under another dtype; a raw tensor of it can be written with -from and -to)"},
		{[]string{"--to", "STRING", np, outNpy}, "convert: -to STRING: numpy has no dtype for STRING: a .npy file cannot hold it, and neither can a .safetensors file"},
		{[]string{"--to", "F16", "--skip", "x", np, outNpy}, "convert: -only and -skip select tensors of a .safetensors file; a .npy file holds one array"},
		{[]string{"--to", "F16", st, outNpy}, "convert: cannot write a .safetensors input as out.npy: OUT must be of the same format"},
		{[]string{"--to", "F16", "-format", "hdf5", st, out}, `convert: -format "hdf5": want safetensors, npy or raw`},
		{[]string{"--to", "F16", "--only", "[", st, out}, `convert: invalid value "[" for flag -only: bad glob "[": syntax error in pattern`},
		{[]string{"--to", "F8_E4M3", "--saturate", "--no-saturate", st, out}, "convert: -saturate and -no-saturate contradict each other"},
		{[]string{"-from", "FLOAT", "-to", "FLOAT16", "--only", "x"}, "convert: -only and -skip select tensors of a .safetensors file, not of a raw tensor"},
		{[]string{"-to", "FLOAT16"}, "convert: -from and -to are both required (for a raw tensor; a .safetensors or .npy IN needs only -to)"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCmd(t, nil, append([]string{"convert"}, c.args...)...)
		if code != 2 || stdout != "" || !strings.HasPrefix(stderr, "tensorcast: "+c.want) || !strings.Contains(stderr, "\nusage: tensorcast convert") {
			t.Errorf("%q: exit %d, stderr %q\nwant exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	assertOnly(t, dir, "a.npy", "m.safetensors")

	// -format raw reads a .safetensors file as raw bytes.
	code, stdout, stderr := runCmd(t, nil, "convert", "-format", "raw", "-from", "UINT8", "-to", "UINT8", st)
	if code != 0 || stdout != string(readFile(t, st)) {
		t.Errorf("-format raw: exit %d: %s", code, stderr)
	}
	// An input that is not a regular file, and one that does not exist.
	code, _, stderr = runCmd(t, nil, "convert", "--to", "BF16", "-format", "safetensors", dir, out)
	if code != 1 || stderr != "tensorcast: "+dir+": not a regular file\n" {
		t.Errorf("directory: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCmd(t, nil, "convert", "--to", "BF16", filepath.Join(dir, "nope.safetensors"), out)
	if code != 1 || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing: exit %d, stderr %q", code, stderr)
	}
	assertOnly(t, dir, "a.npy", "m.safetensors")
}

func TestParseFileType(t *testing.T) {
	cases := map[string]tensorcast.DataType{
		"FLOAT16": tensorcast.Float16, "F16": tensorcast.Float16, "float16": tensorcast.Float16, "<f2": tensorcast.Float16,
		"f2": tensorcast.Float16, "fp16": tensorcast.Float16, "10": tensorcast.Float16, "half": tensorcast.Float16,
		"BF16": tensorcast.BFloat16, "bfloat16": tensorcast.BFloat16,
		"F8_E4M3": tensorcast.Float8E4M3FN, "FLOAT8E4M3FN": tensorcast.Float8E4M3FN, "float8_e4m3fn": tensorcast.Float8E4M3FN,
		"F8_E5M2": tensorcast.Float8E5M2, "F8_E8M0": tensorcast.Float8E8M0,
		"FLOAT": tensorcast.Float, "float32": tensorcast.Float, "<f4": tensorcast.Float, "single": tensorcast.Float, "F32": tensorcast.Float,
		"double": tensorcast.Double, "float64": tensorcast.Double, "<f8": tensorcast.Double,
		"I8": tensorcast.Int8, "int8": tensorcast.Int8, "|i1": tensorcast.Int8, "i1": tensorcast.Int8,
		"U8": tensorcast.Uint8, "uint8": tensorcast.Uint8, "|u1": tensorcast.Uint8, "<u1": tensorcast.Uint8,
		"<i8": tensorcast.Int64, "int64": tensorcast.Int64, "I64": tensorcast.Int64, "<u8": tensorcast.Uint64,
		"<i2": tensorcast.Int16, "<u2": tensorcast.Uint16, "<i4": tensorcast.Int32, "<u4": tensorcast.Uint32,
		"bool": tensorcast.Bool, "BOOL": tensorcast.Bool, "bool_": tensorcast.Bool, "|b1": tensorcast.Bool, "b1": tensorcast.Bool,
		" bf16 ": tensorcast.BFloat16,
	}
	for s, want := range cases {
		if got, err := parseFileType(s); err != nil || got != want {
			t.Errorf("parseFileType(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for s, want := range map[string]string{
		"i8": "ambiguous", "u8": "ambiguous", "f8": "ambiguous", "float": "ambiguous", "i4": "ambiguous", "u4": "ambiguous",
		"i2": "ambiguous", "f4": "ambiguous", "int": "ambiguous", ">f2": "always little-endian", "=f2": "always little-endian",
		"|f4": "byte order '|' on a 4-byte type", "<c8": `unknown data type "<c8"`, "<f16": `unknown data type "<f16"`,
		"": `unknown data type ""`, "UNDEFINED": "not a type Cast supports",
	} {
		if got, err := parseFileType(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseFileType(%q) = %v, %v; want an error containing %q", s, got, err, want)
		}
	}
}

// failingReader fails every read at or beyond byte at.
type failingReader struct {
	r  io.ReaderAt
	at int64
}

func (f failingReader) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.at {
		return 0, errors.New("input/output error")
	}
	return f.r.ReadAt(p, off)
}

// A failure in the middle of the data (a read error, an interruption)
// leaves no output and no temporary file.
func TestConvertFileFailureLeavesNothing(t *testing.T) {
	setChunks(t, 64, 1<<16)
	file := encodeST(nil, []genTensor{gen("a", "F32", 100), gen("b", "I32", 100), gen("c", "F32", 100)}, nil, true)
	h, err := safetensors.ReadHeader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	c := &convertConfig{to: tensorcast.BFloat16, toName: "BF16"}
	p, err := planSafetensors(h, int64(len(file)), c)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	for _, at := range []int64{h.DataOffset + 200, h.DataOffset + 500, int64(len(file)) - 1} {
		r := failingReader{bytes.NewReader(file), at}
		err := writeOut(t, out, func(w io.Writer) error { return p.execute(r, w, c.opt, nil) })
		if err == nil || !strings.Contains(err.Error(), "input/output error") || !strings.HasPrefix(err.Error(), "reading tensor ") {
			t.Errorf("failing at %d: err %v", at, err)
		}
		assertOnly(t, dir)
	}
	// Truncated while converting (the file shrank after its header was read).
	err = writeOut(t, out, func(w io.Writer) error {
		return p.execute(bytes.NewReader(file[:len(file)-5]), w, c.opt, nil)
	})
	if err == nil || !strings.Contains(err.Error(), `reading tensor "c" at byte`) || !strings.Contains(err.Error(), "unexpected EOF (did the file change?)") {
		t.Errorf("shrunk: err %v", err)
	}
	assertOnly(t, dir)
	// (Signals are tested on the command in a subprocess: TestConvertSignals.)
	// And a whole run, for comparison, succeeds.
	if err := writeOut(t, out, func(w io.Writer) error { return p.execute(bytes.NewReader(file), w, c.opt, nil) }); err != nil {
		t.Fatal(err)
	}
	if got := int64(len(readFile(t, out))); got != p.outSize {
		t.Errorf("output %d bytes, plan says %d", got, p.outSize)
	}
}

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	st := writeFile(t, dir, "m.safetensors", encodeST([][2]string{{"format", "pt"}, {"multi\nline", "a\tb"}},
		[]genTensor{gen("embed.weight", "F32", 10, 4), gen("norm", "BF16", 4), gen("ids", "I64"), gen("odd", "F6_E3M2", 4), gen("none", "F16", 0)}, nil, false))
	np := writeFile(t, dir, "a.npy", npyFile("{'descr': '>f8', 'fortran_order': True, 'shape': (3, 2), }", make([]byte, 48)))
	plain := writeFile(t, dir, "a.bin", readFile(t, np)) // found by its magic
	code, out, stderr := runCmd(t, nil, "inspect", st, np, plain)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, re := range []string{
		`(?m)^` + regexp.QuoteMeta(st) + `: safetensors, 5 tensors, 240 B of data, \d+-byte header$`,
		`(?m)^NAME +DTYPE +TYPE +SHAPE +BYTES$`,
		`(?m)^embed\.weight +F32 +FLOAT +\[10, 4\] +160$`,
		`(?m)^norm +BF16 +BFLOAT16 +\[4\] +8$`,
		`(?m)^ids +I64 +INT64 +\[\] +8$`,
		`(?m)^odd +F6_E3M2 +unknown +\[4\] +64$`,
		`(?m)^none +F16 +FLOAT16 +\[0\] +0$`,
		`(?m)^__metadata__: 2 entries$`,
		`(?m)^KEY +VALUE$`,
		`(?m)^format +pt$`,
		`(?m)^"multi\\nline" +"a\\tb"$`,
		`(?m)^` + regexp.QuoteMeta(np) + `: npy 1\.0, Fortran order, 69-byte header$`,
		`(?m)^` + regexp.QuoteMeta(plain) + `: npy 1\.0, Fortran order, 69-byte header$`,
		`(?m)^- +>f8 +DOUBLE +\(3, 2\) +48$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("inspect output lacks %s:\n%s", re, out)
		}
	}
	// The table is aligned: the columns start at the same offset in every row.
	lines := strings.Split(out, "\n")
	col := strings.Index(lines[2], "DTYPE")
	for _, l := range lines[3:8] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row %q not aligned with the DTYPE column at %d", l, col)
		}
	}

	// Errors: a bad file, no file, help.
	bad := writeFile(t, dir, "bad.safetensors", stRaw(`{"w":{"dtype":"F32","shape":[25],"data_offsets":[0,100]}}`, 64))
	code, _, stderr = runCmd(t, nil, "inspect", bad)
	if code != 1 || stderr != "tensorcast: "+bad+`: tensor "w": data_offsets [0, 100] outside the 64-byte buffer`+"\n" {
		t.Errorf("bad file: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCmd(t, nil, "inspect")
	if code != 2 || !strings.HasPrefix(stderr, "tensorcast: inspect: no FILE\nusage: tensorcast inspect FILE...") {
		t.Errorf("no file: exit %d, stderr %q", code, stderr)
	}
	code, out, _ = runCmd(t, nil, "help", "inspect")
	if code != 0 || !strings.HasPrefix(out, "usage: tensorcast inspect FILE...") {
		t.Errorf("help: exit %d, %q", code, out)
	}
}

// TestConvertFileHelp checks that the help documents the file formats.
func TestConvertFileHelp(t *testing.T) {
	code, out, _ := runCmd(t, nil, "convert", "-h")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"-only", "-skip", "-quiet", "-format", "-saturate", "Fortran", "bfloat16", ".safetensors", ".npy", "F8_E8M0"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}
