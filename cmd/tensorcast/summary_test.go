package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
)

// TestConvertSummaryReasons checks that the summary line says why each
// tensor was copied unchanged, and never "already BF16" for a tensor that
// is not BF16.
func TestConvertSummaryReasons(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.safetensors")
	ids := writeFile(t, dir, "ids.safetensors", encodeST(nil, []genTensor{gen("ids", "I64", 4)}, nil, true))
	mixed := writeFile(t, dir, "mixed.safetensors", encodeST(nil, []genTensor{
		gen("a.w", "F32", 4), gen("a.b", "BF16", 4), gen("b.w", "F32", 4), gen("b.norm", "F32", 4),
		gen("ids", "I64", 4), gen("mask", "BOOL", 4), gen("c", "C64", 2),
	}, nil, true))
	var ten []genTensor
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		ten = append(ten, gen(n, "F32", 2))
	}
	many := writeFile(t, dir, "ten.safetensors", encodeST(nil, ten, nil, true))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "BF16", ids}, "1 tensor left as is (I64, not a float type)"},
		{[]string{"--to", "BF16", "--only", "nomatch*", many}, "10 tensors not selected by -only"},
		{[]string{"--to", "BF16", "--skip", "*", many}, "10 tensors skipped by -skip"},
		{[]string{"--to", "F32", many}, "10 tensors copied unchanged (already F32)"},
		{[]string{"--to", "BF16", "--only", "a.*,b.*", "--skip", "*norm", mixed},
			`2 tensors converted to BF16, 1 already BF16, 2 left as is (I64, BOOL: not float types), 1 skipped by -skip, 1 left as is (C64, a dtype tensorcast does not know)`},
		{[]string{"--to", "F16", "--only", "b.*", mixed},
			`2 tensors converted to F16, 2 left as is (I64, BOOL: not float types), 2 not selected by -only, 1 left as is (C64, a dtype tensorcast does not know)`},
	} {
		code, _, stderr := runCmd(t, nil, append(append([]string{"convert"}, c.args...), out)...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		last := lines[len(lines)-1]
		if code != 0 || !strings.HasPrefix(last, out+": "+c.want+"; read ") {
			t.Errorf("%q: exit %d, summary %q\nwant %q", c.args, code, last, c.want)
		}
		if strings.Contains(last, "already") && !strings.Contains(c.want, "already") {
			t.Errorf("%q: summary %q says already", c.args, last)
		}
	}
}

// TestConvertNpyByContent checks that convert, like inspect, takes a file
// that starts with the .npy magic for a .npy file whatever its name.
func TestConvertNpyByContent(t *testing.T) {
	dir := t.TempDir()
	data := float32Bytes(fp16Values(100)...)
	file := npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }", data)
	named := writeFile(t, dir, "a.npy", file)
	plain := writeFile(t, dir, "a.bin", file)
	outNamed, outPlain := filepath.Join(dir, "o.npy"), filepath.Join(dir, "o.bin")
	for _, io := range [][2]string{{named, outNamed}, {plain, outPlain}} {
		if code, _, stderr := runCmd(t, nil, "convert", "-q", "-to", "float16", io[0], io[1]); code != 0 {
			t.Fatalf("%s: exit %d: %s", io[0], code, stderr)
		}
	}
	if !bytes.Equal(readFile(t, outNamed), readFile(t, outPlain)) {
		t.Error("a .npy file named a.bin converts differently from a.npy")
	}
	// -format raw still reads it as raw bytes.
	code, stdout, stderr := runCmd(t, nil, "convert", "-format", "raw", "-from", "UINT8", "-to", "UINT8", plain)
	if code != 0 || stdout != string(file) {
		t.Errorf("-format raw: exit %d: %s", code, stderr)
	}
	// -from on it is the usual file-format error.
	code, _, stderr = runCmd(t, nil, "convert", "-from", "FLOAT", "-to", "FLOAT16", plain, outPlain)
	if code != 2 || !strings.Contains(stderr, "-from is for raw tensors: a .npy file says its own dtype") {
		t.Errorf("-from: exit %d, stderr %q", code, stderr)
	}
	// A raw file without the magic is still raw.
	raw := writeFile(t, dir, "r.bin", data)
	code, stdout, stderr = runCmd(t, nil, "convert", "-from", "FLOAT", "-to", "FLOAT16", raw)
	if code != 0 || stdout != string(castAll(t, data, tensorcast.Float, tensorcast.Float16, tensorcast.Options{})) {
		t.Errorf("raw: exit %d: %s", code, stderr)
	}
}

// TestInspectGoesOn checks that inspect reports each bad file on stderr,
// lists the good ones, and exits 1.
func TestInspectGoesOn(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "m.safetensors", encodeST(nil, []genTensor{gen("w", "F32", 4)}, nil, true))
	bad := writeFile(t, dir, "bad.safetensors", stRaw(`{"w":{"dtype":"F32","shape":[25],"data_offsets":[0,100]}}`, 64))
	np := writeFile(t, dir, "a.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", make([]byte, 8)))
	missing := filepath.Join(dir, "missing.npy")
	code, stdout, stderr := runCmd(t, nil, "inspect", bad, good, missing, np)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	wantErr := "tensorcast: " + bad + `: tensor "w": data_offsets [0, 100] outside the 64-byte buffer` + "\n" +
		"tensorcast: open " + missing + ": no such file or directory\n"
	if stderr != wantErr {
		t.Errorf("stderr %q\nwant   %q", stderr, wantErr)
	}
	re := regexp.MustCompile(`(?s)^` + regexp.QuoteMeta(good) + `: safetensors, 1 tensor, .*\n\n` + regexp.QuoteMeta(np) + `: npy 1\.0, C order, .*\n$`)
	if !re.MatchString(stdout) {
		t.Errorf("stdout lacks the two good files, separated by one blank line:\n%s", stdout)
	}
}
