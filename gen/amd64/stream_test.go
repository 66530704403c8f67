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
