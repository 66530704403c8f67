package main

import (
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tensorcast/tensorcast"
)

func TestTypes(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "types")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	all := tensorcast.AllTypes()
	if len(all) != 27 {
		t.Fatalf("AllTypes has %d types, want 27", len(all))
	}
	rows := 0
	for _, typ := range all {
		bits, opset := "-", "-"
		if typ.BitSize() > 0 {
			bits = strconv.Itoa(typ.BitSize())
		}
		if typ.Opset() > 0 {
			opset = strconv.Itoa(typ.Opset())
		}
		re := regexp.MustCompile(`(?m)^` + typ.String() + ` +` + strconv.Itoa(int(typ)) + ` +` +
			regexp.QuoteMeta(bits) + ` +` + regexp.QuoteMeta(opset) + ` +` + regexp.QuoteMeta(typ.Range()) + `$`)
		if re.MatchString(out) {
			rows++
		} else {
			t.Errorf("no row for %v matching %s", typ, re)
		}
	}
	if rows != 27 {
		t.Errorf("%d of 27 type rows found:\n%s", rows, out)
	}
	for _, want := range []string{
		"FLOAT8E4M3FN    17      8     19",
		"INT4            22      4     21",
		"FLOAT8E8M0      24      8     24",
		"COMPLEX64       14      64    -",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("types output lacks %q:\n%s", want, out)
		}
	}
}

func TestCPU(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "cpu")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"brand", "logical cores", "L1d", "L2", "L3", "GODEBUG",
		"Kernels: " + tensorcast.KernelName()} {
		if !strings.Contains(out, want) {
			t.Errorf("cpu output lacks %q", want)
		}
	}
	for _, k := range tensorcast.Kernels() {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(k.Conversion) + ` +` + regexp.QuoteMeta(k.Kernel) + `$`)
		if !re.MatchString(out) {
			t.Errorf("no kernel row %q -> %q", k.Conversion, k.Kernel)
		}
	}
	var want []string
	switch runtime.GOARCH {
	case "amd64":
		want = []string{"SSE4.1", "AVX", "AVX2", "F16C", "FMA", "AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ", "AVX512VBMI", "AVX512VBMI2", "AVX512BF16", "GFNI"}
	case "arm64":
		want = []string{"ASIMD", "FPHP", "ASIMDHP", "BF16"}
	}
	for _, f := range want {
		if !regexp.MustCompile(`(?m)^` + f + ` +(yes|no) +(yes|no|\?) `).MatchString(out) {
			t.Errorf("no feature row for %s:\n%s", f, out)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// demoBlock returns the lines of the demo block for type name, up to the
// next blank line.
func demoSection(t *testing.T, out, name string) []string {
	t.Helper()
	i := strings.Index(out, "\n"+name+": ")
	if i < 0 {
		t.Fatalf("demo output has no %s block", name)
	}
	block := out[i+1:]
	if j := strings.Index(block, "\n\n"); j >= 0 {
		block = block[:j]
	}
	return strings.Split(block, "\n")
}

// demoRow returns the cells of the row for the input label in a demo block.
func demoRow(t *testing.T, lines []string, label string) string {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, label+" ") {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	t.Fatalf("no row %q in block %q", label, lines[0])
	return ""
}

func TestDemo(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "demo")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(strings.SplitN(out, "\n", 2)[0], "kernel tier in use: "+tensorcast.KernelName()) {
		t.Errorf("first line does not name the kernel tier: %q", strings.SplitN(out, "\n", 2)[0])
	}
	for i, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 140 {
			t.Errorf("line %d is %d columns wide (max 140): %q", i+1, n, l)
		}
	}
	cases := []struct{ block, label, want string }{
		{"FLOAT16", "1", "1 | 0x3c00 1 exact"},
		{"FLOAT16", "NaN", "NaN | 0x7e00 NaN -"},
		{"FLOAT16", "+Inf", "+Inf | 0x7c00 +Inf -"},
		{"FLOAT16", "-Inf", "-Inf | 0xfc00 -Inf -"},
		{"FLOAT16", "-0", "-0 | 0x8000 -0 exact"},
		{"FLOAT16", "2^-24", "| 0x0001 5.9604645e-08 exact"},
		{"FLOAT16", "1e5", "| 0x7c00 +Inf -"},
		{"FLOAT16", "1+2^-11", "| 0x3c00 1 4.88e-04"},
		{"BFLOAT16", "1+2^-8", "| 0x3f80 1 3.89e-03"},
		{"BFLOAT16", "NaN", "| 0x7fc0 NaN -"},
		{"BFLOAT16", "3.4e38", "| 0x7f80 +Inf -"},
		{"FLOAT8E4M3FN", "464", "| 0x7e 448 3.45e-02 | 0x7e 448 3.45e-02"},
		{"FLOAT8E4M3FN", "1e5", "| 0x7e 448 9.96e-01 | 0x7f NaN -"},
		{"FLOAT8E4M3FN", "-Inf", "| 0xfe -448 - | 0xff NaN -"},
		{"FLOAT8E4M3FNUZ", "-0", "| 0x00 0 exact | 0x00 0 exact"},
		{"FLOAT8E4M3FNUZ", "NaN", "| 0x80 NaN - | 0x80 NaN -"},
		{"FLOAT8E5M2", "+Inf", "| 0x7b 57344 - | 0x7c +Inf -"},
		{"FLOAT8E5M2FNUZ", "-Inf", "| 0xff -57344 - | 0x80 NaN -"},
		{"FLOAT8E8M0", "3.14159", "| 0x81 4 2.73e-01 | 0x80 2 3.63e-01 | 0x81 4 2.73e-01"},
		{"FLOAT8E8M0", "NaN", "| 0xff NaN - | 0xff NaN - | 0xff NaN -"},
		{"FLOAT4E2M1", "2.5", "| 0x4 2 2.00e-01"},
		{"FLOAT4E2M1", "-2.5", "| 0xc -2 2.00e-01"},
		{"FLOAT4E2M1", "NaN", "| 0x8 -0 -"},
	}
	for _, c := range cases {
		row := demoRow(t, demoSection(t, out, c.block), c.label)
		if !strings.Contains(row, c.want) {
			t.Errorf("%s row %q = %q, want it to contain %q", c.block, c.label, row, c.want)
		}
	}
	// Every float format has a block.
	for _, b := range []string{"FLOAT16", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
		"FLOAT8E5M2FNUZ", "FLOAT8E8M0", "FLOAT4E2M1"} {
		if lines := demoSection(t, out, b); len(lines) < len(demoInputs)+2 {
			t.Errorf("%s block has %d lines, want at least %d", b, len(lines), len(demoInputs)+2)
		}
	}
}
