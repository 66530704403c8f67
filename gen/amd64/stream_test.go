package amd64

import (
	"regexp"
	"strings"
	"testing"
)

// TestStreamingVariants checks the generated streaming variants: each one
// has an ordinary kernel, writes memory only with VMOVNTDQ (and its
// results), and executes SFENCE before a RET that follows its stores.
func TestStreamingVariants(t *testing.T) {
	files, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	asm := files[0]
	funcs := map[string][]string{}
	var order []string
	var cur string
	for _, line := range strings.Split(string(asm), "\n") {
		if strings.HasPrefix(line, "TEXT ·") {
			cur = strings.TrimPrefix(line[:strings.Index(line, "(SB)")], "TEXT ·")
			order = append(order, cur)
			continue
		}
		if cur != "" && strings.HasPrefix(line, "\t") {
			funcs[cur] = append(funcs[cur], strings.TrimSpace(line))
		}
	}
	memDst := regexp.MustCompile(`, (-?\d+)?\([A-Z0-9]+\)$`) // last operand in memory
	nts := 0
	for _, name := range order {
		if !strings.HasSuffix(name, "NT") {
			continue
		}
		nts++
		base := strings.TrimSuffix(name, "NT")
		if _, ok := funcs[base]; !ok {
			t.Errorf("%s: no ordinary kernel %s", name, base)
		}
		stores, fenced := 0, false
		for _, ins := range funcs[name] {
			op := strings.Fields(ins)[0]
			switch {
			case op == "VMOVNTDQ":
				stores++
				fenced = false
			case op == "SFENCE":
				fenced = true
			case op == "RET" && stores > 0 && !fenced:
				t.Errorf("%s: RET after streaming stores without SFENCE", name)
			case memDst.MatchString(ins) && !strings.Contains(ins, "(FP)") && !strings.HasPrefix(op, "CMP") && !strings.HasPrefix(op, "TEST"):
				t.Errorf("%s: %q writes memory with an ordinary store", name, ins)
			}
		}
		if stores == 0 {
			t.Errorf("%s: no streaming store", name)
		}
	}
	if nts == 0 {
		t.Fatal("no streaming variants generated")
	}
}

func TestWithCount(t *testing.T) {
	for _, c := range []struct {
		sig, want string
		index     int
	}{
		{"func(dst *uint16, src *float32, n int)", "func(dst *uint16, src *float32, n int) int", 0},
		{"func(dst *float32, src *uint8, n int, table *[256]uint32) bool", "func(dst *float32, src *uint8, n int, table *[256]uint32) (bool, int)", 1},
	} {
		got, i := withCount(c.sig)
		if got != c.want || i != c.index {
			t.Errorf("withCount(%q) = %q, %d; want %q, %d", c.sig, got, i, c.want, c.index)
		}
	}
}

// TestCheckStored checks the generator's account of a full step's stores:
// exact cover passes, a gap and a store past the step stop generation.
func TestCheckStored(t *testing.T) {
	panics := func(stored []storedRange) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = r.(string)
			}
		}()
		checkStored("k", stored, 64, 1)
		return ""
	}
	for _, c := range []struct {
		stored []storedRange
		want   string
	}{
		{[]storedRange{{0, 64}}, ""},
		{[]storedRange{{0, 16}, {16, 16}, {32, 32}}, ""},
		{[]storedRange{{32, 32}, {0, 32}, {0, 64}}, ""}, // overlapping (a fast path and its out-of-line twin)
		{nil, ""}, // no store through Step: not checked
		{[]storedRange{{0, 16}}, "leaves byte 16 of its 64 dst bytes unwritten"},
		{[]storedRange{{0, 32}, {40, 24}}, "leaves byte 32"},
		{[]storedRange{{0, 64}, {64, 16}}, "stores bytes 64..79 of its 64"},
		{[]storedRange{{-16, 16}, {0, 64}}, "stores bytes -16..-1"},
	} {
		got := panics(c.stored)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%v: got %q, want %q", c.stored, got, c.want)
		}
	}
}
