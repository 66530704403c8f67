package tensorcast

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// exactOnly are the table's spellings that parse only as written: in any
// other case they are ambiguous.
var exactOnly = []string{"FLOAT", "I8", "U8"}

func TestTypeNamesParse(t *testing.T) {
	names := TypeNames()
	parsed := 0
	for _, n := range names {
		if n.Source == "ambiguous" {
			continue
		}
		if got, err := ParseDataType(n.Name); err != nil || got != n.Type {
			t.Errorf("ParseDataType(%q) = %v, %v; want %v (%s)", n.Name, got, err, n.Type, n.Source)
		}
		if got, err := ParseDataType(" " + n.Name + "\t"); err != nil || got != n.Type {
			t.Errorf("ParseDataType(%q) with space = %v, %v; want %v", n.Name, got, err, n.Type)
		}
		parsed += 2
		for _, v := range []string{strings.ToLower(n.Name), strings.ToUpper(n.Name), strings.ToUpper(n.Name[:1]) + strings.ToLower(n.Name[1:])} {
			if v == n.Name {
				continue
			}
			got, err := ParseDataType(v)
			parsed++
			if slices.Contains(exactOnly, n.Name) {
				if err == nil || !strings.Contains(err.Error(), "ambiguous") {
					t.Errorf("ParseDataType(%q) = %v, %v; want it refused as ambiguous (only %q parses)", v, got, err, n.Name)
				}
			} else if err != nil || got != n.Type {
				t.Errorf("ParseDataType(%q) = %v, %v; want %v (names match in any case)", v, got, err, n.Type)
			}
		}
	}
	// Every type has its ONNX name, type string and number in the table.
	for _, ty := range AllTypes() {
		for _, want := range []string{ty.String(), "tensor(" + strings.ToLower(ty.String()) + ")", itoa(int(ty))} {
			if ty == Undefined && strings.HasPrefix(want, "tensor(") {
				continue
			}
			if !slices.ContainsFunc(names, func(n TypeName) bool { return n.Name == want && n.Type == ty && n.Source == "ONNX" }) {
				t.Errorf("the table lacks ONNX's %q for %v", want, ty)
			}
		}
	}
	logCount(t, "%d names, %d spellings parsed, %d ambiguous", len(names), parsed, len(ambiguousNames))
}

func TestTypeNamesAmbiguous(t *testing.T) {
	folded := map[string]DataType{}
	for _, n := range TypeNames() {
		if n.Source == "ambiguous" {
			if n.Type != Undefined || len(n.Candidates) < 2 || n.Hint == "" {
				t.Errorf("ambiguous %q: type %v, candidates %v, hint %q", n.Name, n.Type, n.Candidates, n.Hint)
			}
			continue
		}
		if len(n.Candidates) > 0 || n.Hint != "" {
			t.Errorf("%q: candidates or hint on a name that is not ambiguous", n.Name)
		}
		// Names that differ only in case name the same type.
		up := strings.ToUpper(n.Name)
		if prev, ok := folded[up]; ok && prev != n.Type {
			t.Errorf("%q names %v, and in another case %v", n.Name, n.Type, prev)
		}
		folded[up] = n.Type
	}
	for _, a := range ambiguousNames {
		// Refused in any case; the table's own spellings in other cases
		// are only the exact ones.
		if ty, ok := folded[strings.ToUpper(a.Name)]; ok && !slices.Contains(exactOnly, strings.ToUpper(a.Name)) {
			t.Errorf("ambiguous %q is also a name of %v", a.Name, ty)
		}
		for _, v := range []string{a.Name, strings.ToUpper(a.Name), " " + a.Name + " ", strings.ToUpper(a.Name[:1]) + a.Name[1:]} {
			if slices.Contains(exactOnly, v) {
				continue
			}
			_, err := ParseDataType(v)
			if err == nil {
				t.Errorf("ParseDataType(%q) succeeded; want it refused as ambiguous", v)
				continue
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "tensorcast: \""+strings.TrimSpace(v)+"\" is ambiguous: ") {
				t.Errorf("ParseDataType(%q): %q", v, msg)
			}
			for _, c := range a.Candidates {
				if !strings.Contains(msg, c.String()) {
					t.Errorf("ParseDataType(%q): %q does not name candidate %v", v, msg, c)
				}
			}
		}
		// The spellings the hint suggests ("; write X or Y, Z") parse, to
		// candidates, and reach every candidate.
		_, sugg, ok := strings.Cut(a.Hint, "; write ")
		if !ok {
			t.Errorf("%q: hint %q suggests nothing", a.Name, a.Hint)
			continue
		}
		sugg, _, _ = strings.Cut(sugg, " (")
		reached := map[DataType]bool{}
		for _, w := range strings.FieldsFunc(strings.ReplaceAll(sugg, " or ", ","), func(r rune) bool { return r == ',' }) {
			w = strings.Trim(strings.TrimSpace(w), "'")
			ty, err := ParseDataType(w)
			if err != nil || !slices.Contains(a.Candidates, ty) {
				t.Errorf("%q: the hint's %q parses to %v, %v; want one of %v", a.Name, w, ty, err, a.Candidates)
			}
			reached[ty] = true
		}
		for _, c := range a.Candidates {
			if !reached[c] {
				t.Errorf("%q: the hint %q suggests no spelling of %v", a.Name, a.Hint, c)
			}
		}
	}
}

func TestParseDataTypeErrors(t *testing.T) {
	for s, want := range map[string]string{
		"":             `unknown data type ""`,
		"FLOAT9":       `unknown data type "FLOAT9"`,
		"27":           "unknown data type number 27",
		"-1":           "unknown data type number -1",
		"tensor()":     `unknown data type "tensor()"`,
		"tensor(fp16)": `unknown data type "tensor(fp16)"`, // tensor(...) holds ONNX names only
		"<f16":         `unknown data type "<f16"`,
		"<c8":          `unknown data type "<c8"`,
		">f2":          `">f2" is big-endian: tensorcast's tensors are little-endian, as ONNX raw_data and safetensors are; write '<f2'`,
		">i1":          `">i1" is big-endian`,
		"=f4":          `"=f4": native byte order '=' does not say which order the data has; write '<f4'`,
		"|f4":          `"|f4": byte order '|' on a 4-byte type; write '<f4'`,
		"i8":           `"i8" is ambiguous: numpy's i8 is INT64 and safetensors' I8 is INT8; write '<i8' or I8`,
		"Float":        `"Float" is ambiguous`,
	} {
		if got, err := ParseDataType(s); err == nil || err.Error() != "tensorcast: "+want && !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDataType(%q) = %v, %v; want an error with %q", s, got, err, want)
		}
	}
	for s, want := range map[string]DataType{"017": Float8E4M3FN, "+1": Float, " Tensor( BFLOAT16 ) ": BFloat16, "tensor(float)": Float, "TENSOR(DOUBLE)": Double} {
		if got, err := ParseDataType(s); err != nil || got != want {
			t.Errorf("ParseDataType(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
}

// typeNamesMarkdown renders the table as the README shows it.
func typeNamesMarkdown() string {
	var b strings.Builder
	b.WriteString("| Type | ONNX | safetensors | numpy | other |\n|------|------|-------------|-------|-------|\n")
	for _, ty := range AllTypes() {
		cols := map[string][]string{}
		for _, n := range TypeNames() {
			if n.Type == ty && n.Source != "ambiguous" && !(n.Source == "ONNX" && n.Name == ty.String()) {
				// A pipe in a table cell is escaped, even in a code span.
				cols[n.Source] = append(cols[n.Source], "`"+strings.ReplaceAll(n.Name, "|", `\|`)+"`")
			}
		}
		b.WriteString("| " + ty.String())
		for _, src := range []string{"ONNX", "safetensors", "numpy", "other"} {
			b.WriteString(" | " + strings.Join(cols[src], " "))
		}
		b.WriteString(" |\n")
	}
	b.WriteString("\nRefused as ambiguous, in any case:\n\n| Spelling | Could be | Why |\n|----------|----------|-----|\n")
	for _, a := range ambiguousNames {
		var cs []string
		for _, c := range a.Candidates {
			cs = append(cs, c.String())
		}
		b.WriteString("| `" + a.Name + "` | " + strings.Join(cs, ", ") + " | " + a.Hint + " |\n")
	}
	return b.String()
}

// TestREADMETypeNames checks that the README's list of type names is the
// table's (TENSORCAST_WRITE_README=1 rewrites it).
func TestREADMETypeNames(t *testing.T) {
	const begin, end = "<!-- typenames: generated from TypeNames by TestREADMETypeNames -->\n", "<!-- /typenames -->"
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the markers %q and %q", begin, end)
	}
	want := typeNamesMarkdown()
	if got := s[i+len(begin) : j]; got != want {
		if os.Getenv("TENSORCAST_WRITE_README") != "" {
			if err := os.WriteFile("README.md", []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's type names differ from the table; run TENSORCAST_WRITE_README=1 go test -run TestREADMETypeNames . to rewrite them:\n%s", want)
	}
}
