package main

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tensorcast/tensorcast"
)

// setChunks lowers the streaming sizes for one test.
func setChunks(t *testing.T, bytes, strs int) {
	t.Helper()
	oldB, oldS := chunkBytes, chunkStrings
	chunkBytes, chunkStrings = bytes, strs
	t.Cleanup(func() { chunkBytes, chunkStrings = oldB, oldS })
}

func float32Bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// fp16Values returns n float32 values that FLOAT16 holds exactly (every
// finite FLOAT16 pattern in turn, subnormals and -0 included).
func fp16Values(n int) []float32 {
	vs := make([]float32, 0, n)
	for h := uint16(0); len(vs) < n; h++ {
		if h&0x7C00 == 0x7C00 { // skip Inf and NaN
			continue
		}
		var f [1]float32
		tensorcast.Float16ToFloat32(f[:], []uint16{h})
		vs = append(vs, f[0])
	}
	return vs
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertOnly checks that dir holds exactly the named files (no temporary
// files left behind).
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func TestConvertRoundTripAcrossChunks(t *testing.T) {
	const n = 5000
	vals := fp16Values(n)
	src := float32Bytes(vals...)
	want16 := make([]byte, 2*n)
	if err := tensorcast.Cast(want16, tensorcast.Float16, src, tensorcast.Float, n, tensorcast.Options{}); err != nil {
		t.Fatal(err)
	}
	// Chunk sizes: tiny, not a multiple of the element size, a few KiB, the default.
	for _, cb := range []int{1, 64, 1000, 4096, 1 << 20} {
		setChunks(t, cb, 1<<16)
		var f16 bytes.Buffer
		// HalfReader makes every Read short, so chunks fill over several reads.
		if err := convertStream(iotest.HalfReader(bytes.NewReader(src)), &f16, tensorcast.Float, tensorcast.Float16, tensorcast.Options{}); err != nil {
			t.Fatalf("chunk %d: FLOAT -> FLOAT16: %v", cb, err)
		}
		if !bytes.Equal(f16.Bytes(), want16) {
			t.Fatalf("chunk %d: FLOAT16 output (%d bytes) differs from one Cast over the whole tensor", cb, f16.Len())
		}
		var back bytes.Buffer
		if err := convertStream(&f16, &back, tensorcast.Float16, tensorcast.Float, tensorcast.Options{}); err != nil {
			t.Fatalf("chunk %d: FLOAT16 -> FLOAT: %v", cb, err)
		}
		if !bytes.Equal(back.Bytes(), src) {
			t.Fatalf("chunk %d: round trip FLOAT -> FLOAT16 -> FLOAT changed the data", cb)
		}
	}
}

func TestConvertFiles(t *testing.T) {
	setChunks(t, 256, 1<<16)
	dir := t.TempDir()
	vals := fp16Values(1000)
	src := float32Bytes(vals...)
	in := writeFile(t, dir, "in.f32", src)
	mid := filepath.Join(dir, "mid.f16")
	out := filepath.Join(dir, "out.f32")
	// Flags after the positional arguments work too; "fp16" and "1" are type spellings.
	if code, _, errOut := runCmd(t, nil, "convert", in, mid, "-from", "1", "-to", "fp16"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := len(readFile(t, mid)); got != 2000 {
		t.Fatalf("FLOAT16 file has %d bytes, want 2000", got)
	}
	if code, _, errOut := runCmd(t, nil, "convert", "-from", "float16", "-to", "FLOAT", mid, out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Equal(readFile(t, out), src) {
		t.Fatal("FLOAT -> FLOAT16 -> FLOAT through files changed the data")
	}
	assertOnly(t, dir, "in.f32", "mid.f16", "out.f32")

	// IN and OUT may be the same file with -in-place: it is replaced once
	// fully converted (TestConvertOutIsIn checks the refusal without it).
	if code, _, errOut := runCmd(t, nil, "convert", "-in-place", "-from", "FLOAT", "-to", "FLOAT16", out, out); code != 0 {
		t.Fatalf("in place: exit %d: %s", code, errOut)
	}
	if !bytes.Equal(readFile(t, out), readFile(t, mid)) {
		t.Error("in-place conversion differs from the FLOAT16 file")
	}
	assertOnly(t, dir, "in.f32", "mid.f16", "out.f32")

	// stdin and stdout: by default and as "-".
	for _, args := range [][]string{
		{"convert", "-from", "FLOAT", "-to", "FLOAT16"},
		{"convert", "-from", "FLOAT", "-to", "FLOAT16", "-", "-"},
		{"convert", "-from", "FLOAT", "-to", "FLOAT16", "--", "-"},
	} {
		code, stdout, errOut := runCmd(t, bytes.NewReader(src), args...)
		if code != 0 || errOut != "" {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		if stdout != string(readFile(t, mid)) {
			t.Errorf("%q: stdout differs from the file output", args)
		}
	}
}

func TestConvertOptions(t *testing.T) {
	src := float32Bytes(1000, float32(math.Inf(1)), 3, 0.75)
	cases := []struct {
		args []string
		want []byte
	}{
		{[]string{"-to", "FLOAT8E4M3FN"}, []byte{0x7E, 0x7E, 0x44, 0x34}},
		{[]string{"-to", "FLOAT8E4M3FN", "-no-saturate"}, []byte{0x7F, 0x7F, 0x44, 0x34}},
		{[]string{"-to", "FLOAT8E8M0"}, []byte{0x89, 0xFE, 0x81, 0x7F}},
		{[]string{"-to", "FLOAT8E8M0", "-round-mode", "down"}, []byte{0x88, 0xFE, 0x80, 0x7E}},
		{[]string{"-to", "FLOAT8E8M0", "-round-mode", "nearest", "-no-saturate"}, []byte{0x89, 0xFF, 0x81, 0x7F}},
	}
	for _, c := range cases {
		args := append([]string{"convert", "-from", "FLOAT"}, c.args...)
		code, out, errOut := runCmd(t, bytes.NewReader(src), args...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
			continue
		}
		if !bytes.Equal([]byte(out), c.want) {
			t.Errorf("%q: got % x, want % x", args, out, c.want)
		}
	}
}

func TestConvertStrings(t *testing.T) {
	setChunks(t, 1<<20, 3) // 3 → 4 elements per chunk: the 9 lines span three chunks
	// CRLF and LF lines, no final newline.
	in := "1\r\n-2.5\n0.1\nINF\n-inf\nNaN\n1e-5\n  7 \n65504"
	lines := strings.Split(strings.ReplaceAll(in, "\r\n", "\n"), "\n")
	want := make([]byte, 4*len(lines))
	if err := tensorcast.CastFromStrings(want, tensorcast.Float, lines, tensorcast.Options{}); err != nil {
		t.Fatalf("CastFromStrings: %v", err)
	}
	if got := binary.LittleEndian.Uint32(want[4:]); got != math.Float32bits(-2.5) {
		t.Fatalf("CastFromStrings(-2.5) = %#x", got)
	}
	code, out, errOut := runCmd(t, strings.NewReader(in), "convert", "-from", "STRING", "-to", "FLOAT")
	if code != 0 {
		t.Fatalf("STRING -> FLOAT: exit %d: %s", code, errOut)
	}
	if out != string(want) {
		t.Fatalf("STRING -> FLOAT: got % x, want % x", out, want)
	}

	// And back: one string per line, in rule 9's spelling.
	code, text, errOut := runCmd(t, strings.NewReader(out), "convert", "-from", "FLOAT", "-to", "STRING")
	if code != 0 {
		t.Fatalf("FLOAT -> STRING: exit %d: %s", code, errOut)
	}
	wantText := "1.0\n-2.5\n0.1\nINF\n-INF\nNaN\n1e-05\n7.0\n65504.0\n"
	if text != wantText {
		t.Errorf("FLOAT -> STRING:\n got %q\nwant %q", text, wantText)
	}

	// STRING -> BOOL and STRING -> STRING (lines copied, CR dropped).
	code, out, errOut = runCmd(t, strings.NewReader("true\nFalse\n0\n2.5\r\n"), "convert", "-from", "STRING", "-to", "BOOL")
	if code != 0 || out != "\x01\x00\x00\x01" {
		t.Errorf("STRING -> BOOL: exit %d, got % x: %s", code, out, errOut)
	}
	code, out, _ = runCmd(t, strings.NewReader("a\r\nb\nc"), "convert", "-from", "STRING", "-to", "STRING")
	if code != 0 || out != "a\nb\nc\n" {
		t.Errorf("STRING -> STRING: exit %d, got %q", code, out)
	}
	// Empty input: empty output.
	code, out, _ = runCmd(t, strings.NewReader(""), "convert", "-from", "STRING", "-to", "FLOAT")
	if code != 0 || out != "" {
		t.Errorf("empty STRING input: exit %d, got %q", code, out)
	}
}

func TestConvertBadString(t *testing.T) {
	setChunks(t, 1<<20, 2) // chunks of 4 lines: the bad line 6 is in the second chunk
	dir := t.TempDir()
	in := writeFile(t, dir, "in.txt", []byte("1\n2\n3\n4\n5\nHello World!\n7\n"))
	out := filepath.Join(dir, "out.bin")
	code, stdout, errOut := runCmd(t, nil, "convert", "-from", "STRING", "-to", "FLOAT16", in, out)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if stdout != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "tensorcast: line 6: ") ||
		!strings.Contains(errOut, `"Hello World!"`) || !strings.Contains(errOut, "FLOAT16") {
		t.Errorf("stderr %q, want one line naming line 6 and the string", errOut)
	}
	assertOnly(t, dir, "in.txt")

	// An existing OUT is left untouched.
	writeFile(t, dir, "out.bin", []byte("old"))
	if code, _, _ := runCmd(t, nil, "convert", "-from", "STRING", "-to", "FLOAT16", in, out); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if got := string(readFile(t, out)); got != "old" {
		t.Errorf("OUT was changed to %q", got)
	}
	assertOnly(t, dir, "in.txt", "out.bin")

	// Empty line (the empty string is not a number), through stdin.
	code, _, errOut = runCmd(t, strings.NewReader("1\n\n3\n"), "convert", "-from", "STRING", "-to", "INT8")
	if code != 1 || !strings.HasPrefix(errOut, "tensorcast: line 2: ") {
		t.Errorf("empty line: exit %d, stderr %q", code, errOut)
	}
}

func TestConvertTruncated(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.f32", make([]byte, 10))
	out := filepath.Join(dir, "out.f16")
	code, stdout, errOut := runCmd(t, nil, "convert", "-from", "FLOAT", "-to", "FLOAT16", in, out)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := "tensorcast: " + in + ": truncated input: 10 bytes is not a whole number of FLOAT elements (4 bytes each): the element at byte offset 8 has only 2 of its 4 bytes\n"
	if errOut != want || stdout != "" {
		t.Errorf("stderr %q\nwant   %q", errOut, want)
	}
	assertOnly(t, dir, "in.f32")

	// Streamed (no size known in advance), over several chunks: the error
	// names the offset, and no output file is left.
	setChunks(t, 16, 1<<16)
	data := make([]byte, 4*25+3)
	err := writeOut(t, out, func(w io.Writer) error {
		return convertStream(bytes.NewReader(data), w, tensorcast.Double, tensorcast.Float, tensorcast.Options{})
	})
	if err == nil || err.Error() != "truncated input: 103 bytes is not a whole number of DOUBLE elements (8 bytes each): the element at byte offset 96 has only 7 of its 8 bytes" {
		t.Errorf("streamed: err = %v", err)
	}
	assertOnly(t, dir, "in.f32")

	// Through stdin: non-zero exit and the one-line error.
	code, _, errOut = runCmd(t, bytes.NewReader(make([]byte, 7)), "convert", "-from", "BFLOAT16", "-to", "FLOAT")
	if code != 1 || errOut != "tensorcast: truncated input: 7 bytes is not a whole number of BFLOAT16 elements (2 bytes each): the element at byte offset 6 has only 1 of its 2 bytes\n" {
		t.Errorf("stdin: exit %d, stderr %q", code, errOut)
	}
}

func TestConvertBadArguments(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-from", "FLOAT", "-to", "FLOAT17"}, `tensorcast: convert: -to: unknown data type "FLOAT17"`},
		{[]string{"-from", "99", "-to", "FLOAT"}, `tensorcast: convert: -from: unknown data type number 99`},
		{[]string{"-from", "COMPLEX64", "-to", "FLOAT"}, "tensorcast: convert: -from: COMPLEX64 is not a type Cast supports"},
		{[]string{"-from", "FLOAT", "-to", "undefined"}, "tensorcast: convert: -to: UNDEFINED is not a type Cast supports"},
		{[]string{"-from", "FLOAT"}, "tensorcast: convert: -from and -to are both required"},
		{[]string{"-from", "FLOAT", "-to", "FLOAT16", "-round-mode", "sideways"}, `tensorcast: convert: -round-mode: unknown round mode "sideways"`},
		{[]string{"-from", "FLOAT", "-to", "FLOAT16", "-bogus"}, "tensorcast: convert: flag provided but not defined: -bogus"},
		{[]string{"-from", "FLOAT", "-to", "FLOAT16", "a", "b", "c"}, `tensorcast: convert: too many arguments`},
	}
	for _, c := range cases {
		code, stdout, errOut := runCmd(t, strings.NewReader("\x00\x00\x80\x3f"), append([]string{"convert"}, c.args...)...)
		if code != 2 || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q; want exit 2 and no output", c.args, code, stdout)
		}
		if !strings.HasPrefix(errOut, c.want) || !strings.Contains(errOut, "\nusage: tensorcast convert") {
			t.Errorf("%q: stderr %q, want it to start with %q and show the usage", c.args, errOut, c.want)
		}
	}
	// A missing input file: exit 1.
	code, _, errOut := runCmd(t, nil, "convert", "-from", "FLOAT", "-to", "FLOAT16", filepath.Join(t.TempDir(), "nope"))
	if code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing input: exit %d, stderr %q", code, errOut)
	}
}

func TestConvertPacked(t *testing.T) {
	setChunks(t, 8, 3) // 4 elements per chunk: 5 elements span two chunks
	// Five INT4 values: an odd count, so the last byte holds one value and zero padding.
	want := []byte{0xE1, 0x87, 0x03} // 1, -2 | 7, -8 | 3, pad
	code, out, errOut := runCmd(t, strings.NewReader("1\n-2\n7\n-8\n3\n"), "convert", "-from", "STRING", "-to", "INT4")
	if code != 0 || out != string(want) {
		t.Errorf("STRING -> INT4: exit %d, got % x, want % x: %s", code, out, want, errOut)
	}
	code, out, errOut = runCmd(t, bytes.NewReader(float32Bytes(1, -2, 7, -8, 3)), "convert", "-from", "FLOAT", "-to", "INT4")
	if code != 0 || out != string(want) {
		t.Errorf("FLOAT -> INT4: exit %d, got % x, want % x: %s", code, out, want, errOut)
	}
	// Packed sources accept any byte count; 3 bytes are 6 elements (the padding reads as 0).
	code, out, errOut = runCmd(t, bytes.NewReader(want), "convert", "-from", "INT4", "-to", "INT8")
	if code != 0 || out != "\x01\xfe\x07\xf8\x03\x00" {
		t.Errorf("INT4 -> INT8: exit %d, got % x: %s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, bytes.NewReader(want), "convert", "-from", "INT4", "-to", "STRING")
	if code != 0 || out != "1\n-2\n7\n-8\n3\n0\n" {
		t.Errorf("INT4 -> STRING: exit %d, got %q: %s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, bytes.NewReader(want), "convert", "-from", "UINT4", "-to", "FLOAT")
	if code != 0 || out != string(float32Bytes(1, 14, 7, 8, 3, 0)) {
		t.Errorf("UINT4 -> FLOAT: exit %d, got % x: %s", code, out, errOut)
	}
	// INT2: four per byte; five values need two bytes.
	code, out, errOut = runCmd(t, bytes.NewReader(float32Bytes(1, -1, -2, 0, 1)), "convert", "-from", "FLOAT", "-to", "INT2")
	if code != 0 || out != "\x2d\x01" { // 01 | 11<<2 | 10<<4 | 00<<6 = 0x2d; then 01
		t.Errorf("FLOAT -> INT2: exit %d, got % x: %s", code, out, errOut)
	}
	// FLOAT4E2M1 over a chunk boundary, odd count.
	code, out, errOut = runCmd(t, bytes.NewReader(float32Bytes(0.5, 1, 1.5, 2, 6)), "convert", "-from", "FLOAT", "-to", "FLOAT4E2M1")
	if code != 0 || out != "\x21\x43\x07" {
		t.Errorf("FLOAT -> FLOAT4E2M1: exit %d, got % x: %s", code, out, errOut)
	}
}

func TestChunkElems(t *testing.T) {
	setChunks(t, 1<<20, 1<<16)
	cases := []struct {
		from, to tensorcast.DataType
		want     int
	}{
		{tensorcast.Float, tensorcast.Float16, 1 << 18},
		{tensorcast.Double, tensorcast.Int4, 1 << 17},
		{tensorcast.Int4, tensorcast.Float, 1 << 21},
		{tensorcast.Uint2, tensorcast.Float, 1 << 22},
		{tensorcast.String, tensorcast.Float, 1 << 16},
		{tensorcast.Float, tensorcast.String, 1 << 16},
	}
	for _, c := range cases {
		if got := chunkElems(c.from, c.to); got != c.want {
			t.Errorf("chunkElems(%v, %v) = %d, want %d", c.from, c.to, got, c.want)
		}
	}
	setChunks(t, 7, 3)
	if got := chunkElems(tensorcast.Float, tensorcast.Int2); got != 4 {
		t.Errorf("tiny chunk: %d elements, want 4", got)
	}
	if got := chunkElems(tensorcast.String, tensorcast.Int4); got != 4 {
		t.Errorf("tiny string chunk: %d elements, want 4", got)
	}
}

// writeOut writes OUT through fn as convert does (temporary file, rename).
func writeOut(t *testing.T, out string, fn func(io.Writer) error) error {
	t.Helper()
	o, err := openOutput(out, "", nil, false)
	if err != nil {
		return err
	}
	return o.write(io.Discard, fn)
}
