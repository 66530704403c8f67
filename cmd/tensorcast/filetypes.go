package main

import (
	"errors"
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

// parseFileType parses -to for a file format with tensorcast.ParseDataType,
// whose table (tensorcast.TypeNames) is the one every command uses: ONNX
// names and numbers, safetensors names, numpy's dtype strings and names, and
// aliases; ambiguous spellings (i8, f8, float, ...) are refused with the
// library's message. Only the wording of a big-endian or native-order numpy
// string ('>f2', '=f2') is the command's own, as it is about the output, and
// types Cast does not convert are refused here.
func parseFileType(s string) (tensorcast.DataType, error) {
	s = strings.TrimSpace(s)
	if len(s) > 1 && (s[0] == '>' || s[0] == '=') {
		if _, err := tensorcast.ParseDataType("<" + s[1:]); err == nil {
			return 0, fmt.Errorf("%q: .npy output is always little-endian: write '<%s'", s, s[1:])
		}
	}
	t, err := tensorcast.ParseDataType(s)
	if err != nil {
		return 0, errors.New(strings.TrimPrefix(err.Error(), "tensorcast: "))
	}
	if !t.Castable() {
		return 0, fmt.Errorf("%v is not a type Cast supports", t)
	}
	return t, nil
}
