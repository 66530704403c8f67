package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/npy"
	"github.com/tensorcast/tensorcast/internal/safetensors"
)

// formatOf returns the format of a file named name by its extension:
// formatSafetensors, formatNpy, or formatRaw for anything else.
func formatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".safetensors":
		return formatSafetensors
	case ".npy":
		return formatNpy
	}
	return formatRaw
}

// checkFileArgs finishes parsing a convert command line for a file format.
func (c *convertConfig) checkFileArgs(from, to string) error {
	ext := "." + c.format
	if from != "" {
		return usagef("convert: -from is for raw tensors: a %s file says its own dtype (use -format raw to read it as raw data)", ext)
	}
	if c.format == formatNpy && len(c.only)+len(c.skip) > 0 {
		return usagef("convert: -only and -skip select tensors of a .safetensors file; a .npy file holds one array")
	}
	if to == "" {
		return usagef("convert: -to is required")
	}
	if c.in == "" || c.in == "-" {
		return usagef("convert: a %s input must be a file, not stdin", ext)
	}
	if c.out == "" {
		return usagef("convert: OUT is required for a %s input (\"-\" for stdout)", ext)
	}
	if of := formatOf(c.out); of != formatRaw && of != c.format {
		return usagef("convert: cannot write a %s input as %s: OUT must be of the same format", ext, filepath.Base(c.out))
	}
	t, err := parseFileType(to)
	if err != nil {
		return usagef("convert: -to: %v", err)
	}
	c.to = t
	switch c.format {
	case formatSafetensors:
		name, ok := safetensors.Name(t)
		if !ok {
			return usagef("convert: -to %s: safetensors has no dtype for %v (it names %s)", to, t, strings.Join(safetensors.Names(), ", "))
		}
		c.toName = name
	case formatNpy:
		d, err := npy.Descr(t)
		if err != nil {
			if _, ok := safetensors.Name(t); ok {
				return usagef("convert: -to %s: %v (tensorcast does not write raw bytes under another dtype; use a .safetensors file for it)", to, err)
			}
			return usagef("convert: -to %s: %v, and neither can a .safetensors file (tensorcast does not write raw bytes under another dtype; a raw tensor of it can be written with -from and -to)", to, err)
		}
		c.toName = d
	}
	return nil
}

// parseFileType parses -to for a file format: ONNX names and numbers, the
// library's aliases (safetensors names, fp16, ...) and numpy's spellings:
// type codes with or without '<' or '|' ('<f2', f2, '|u1'), and names
// (float16, int64, bool_, single).
func parseFileType(s string) (tensorcast.DataType, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "i8", "u8":
		return 0, fmt.Errorf("%q is ambiguous: numpy's %s is %v and safetensors' %s is %v; write '<%s' or %s",
			s, s, map[string]tensorcast.DataType{"i8": tensorcast.Int64, "u8": tensorcast.Uint64}[s],
			strings.ToUpper(s), map[string]tensorcast.DataType{"i8": tensorcast.Int8, "u8": tensorcast.Uint8}[s],
			s, strings.ToUpper(s))
	}
	t, err := tensorcast.ParseDataType(s)
	if err == nil {
		if !t.Castable() {
			return 0, fmt.Errorf("%v is not a type Cast supports", t)
		}
		return t, nil
	}
	unknown := fmt.Errorf("unknown data type %q", s)
	switch s {
	case "bool_":
		return tensorcast.Bool, nil
	case "single":
		return tensorcast.Float, nil
	}
	if s == "" {
		return 0, unknown
	}
	switch s[0] {
	case '>', '=':
		return 0, fmt.Errorf("%q: .npy output is always little-endian: write '<%s'", s, s[1:])
	case '<', '|':
		if t, _, err := npy.ParseDescr(s); err == nil {
			return t, nil
		} else if !strings.Contains(err.Error(), "not supported") {
			return 0, err
		}
		return 0, unknown
	}
	// A bare numpy code: b1, i1, i2, i4, u1, u2, u4, f2, f4, f8.
	if t, _, err := npy.ParseDescr("<" + s); err == nil {
		return t, nil
	}
	return 0, unknown
}
