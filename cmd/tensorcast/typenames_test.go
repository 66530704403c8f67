package main

import (
	"io"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/npy"
	"github.com/tensorcast/tensorcast/internal/safetensors"
)

// rawType parses a type as convert does for a raw tensor (-from and -to).
func rawType(s string) (tensorcast.DataType, error) {
	c, err := parseConvertArgs([]string{"-from", s, "-to", s}, io.Discard)
	if err != nil {
		return 0, err
	}
	if c.from != c.to {
		return 0, nil
	}
	return c.from, nil
}

// TestTypeNamesAgree checks that the library and both of convert's parsers
// (the file formats' -to and the raw tensors' -from/-to) read every name of
// tensorcast.TypeNames as the same type, and refuse every ambiguous
// spelling, in any case, with the library's message.
func TestTypeNamesAgree(t *testing.T) {
	names, ambiguous := 0, 0
	for _, n := range tensorcast.TypeNames() {
		variants := []string{n.Name, strings.ToLower(n.Name), strings.ToUpper(n.Name)}
		if len(n.Candidates) == 0 {
			variants = variants[:1] // other cases are the library test's business
		}
		for _, s := range variants {
			lib, libErr := tensorcast.ParseDataType(s)
			file, fileErr := parseFileType(s)
			raw, rawErr := rawType(s)
			switch {
			case len(n.Candidates) > 0:
				if s == "FLOAT" || s == "I8" || s == "U8" {
					continue // the exact capitals are names
				}
				ambiguous++
				if libErr == nil || fileErr == nil || rawErr == nil {
					t.Errorf("%q: ParseDataType %v, %v; parseFileType %v, %v; raw %v, %v; want all refused", s, lib, libErr, file, fileErr, raw, rawErr)
					continue
				}
				want := strings.TrimPrefix(libErr.Error(), "tensorcast: ")
				if !strings.Contains(want, "is ambiguous") || fileErr.Error() != want || rawErr.Error() != "convert: -from: "+want {
					t.Errorf("%q: messages differ:\n lib  %v\n file %v\n raw  %v", s, libErr, fileErr, rawErr)
				}
			case !n.Type.Castable():
				names++
				if libErr != nil || lib != n.Type || fileErr == nil || rawErr == nil ||
					!strings.Contains(fileErr.Error(), "not a type Cast supports") || !strings.Contains(rawErr.Error(), "not a type Cast supports") {
					t.Errorf("%q: ParseDataType %v, %v; parseFileType %v, %v; raw %v, %v; want %v, refused by convert", s, lib, libErr, file, fileErr, raw, rawErr, n.Type)
				}
			default:
				names++
				if libErr != nil || fileErr != nil || rawErr != nil || lib != n.Type || file != n.Type || raw != n.Type {
					t.Errorf("%q: ParseDataType %v, %v; parseFileType %v, %v; raw %v, %v; want %v", s, lib, libErr, file, fileErr, raw, rawErr, n.Type)
				}
			}
		}
	}
	t.Logf("%d names agree, %d ambiguous spellings refused by all three parsers", names, ambiguous)
}

// TestTypeNamesFormats checks the table against the format packages: every
// safetensors dtype name and every numpy descriptor tensorcast reads parse
// to the type the format package gives them.
func TestTypeNamesFormats(t *testing.T) {
	for _, name := range safetensors.Names() {
		want, _ := safetensors.DataType(name)
		if got, err := parseFileType(name); err != nil || got != want {
			t.Errorf("safetensors %q: parseFileType %v, %v; want %v", name, got, err, want)
		}
	}
	for _, ty := range tensorcast.AllTypes() {
		d, err := npy.Descr(ty)
		if err != nil {
			continue
		}
		code := d[1:]
		for _, order := range []string{"<", "|", ">", "="} {
			s := order + code
			nt, big, nerr := npy.ParseDescr(s)
			got, err := tensorcast.ParseDataType(s)
			switch {
			case nerr != nil || order == ">" || order == "=":
				// numpy refuses it, or it is not little-endian: refused here too.
				if err == nil {
					t.Errorf("%q: ParseDataType %v; npy.ParseDescr %v, %v, %v; want refused", s, got, nt, big, nerr)
				}
			case err != nil || got != nt:
				t.Errorf("%q: ParseDataType %v, %v; npy.ParseDescr %v", s, got, err, nt)
			}
		}
		if name := npy.NumpyName(ty); name != "" {
			if got, err := tensorcast.ParseDataType(name); err != nil || got != ty {
				t.Errorf("numpy name %q: %v, %v; want %v", name, got, err, ty)
			}
		}
	}
}

func TestTypesListsNames(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "types")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, names, ok := strings.Cut(out, "\nNAMES ")
	if !ok {
		t.Fatalf("no NAMES section:\n%s", out)
	}
	for _, n := range tensorcast.TypeNames() {
		var line string
		for l := range strings.SplitSeq(names, "\n") {
			if len(n.Candidates) > 0 && strings.HasPrefix(l, n.Name+" ") ||
				len(n.Candidates) == 0 && strings.HasPrefix(l, n.Type.String()+" ") {
				line = l
				break
			}
		}
		if !strings.Contains(" "+line+" ", " "+n.Name+" ") {
			t.Errorf("types: %q (%v) is not on its line %q", n.Name, n.Type, line)
		}
		if len(n.Candidates) > 0 && !strings.Contains(line, n.Hint) {
			t.Errorf("types: the line of ambiguous %q lacks its hint: %q", n.Name, line)
		}
	}
}
