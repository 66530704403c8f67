// Package npy reads and writes the header of a numpy .npy file (format
// versions 1.0, 2.0 and 3.0) and maps numpy type descriptors to tensorcast
// types. It never reads the array data: the caller streams that from
// Header.DataOffset.
//
// The format (numpy.lib.format): the magic "\x93NUMPY", a major and a minor
// version byte, the header length (2 bytes little-endian in version 1.0,
// 4 bytes in 2.0 and 3.0), then the header: a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with
// spaces and ending in '\n' (ASCII in 1.0 and 2.0, UTF-8 in 3.0). The data
// follows: the elements in C (row-major) or, with fortran_order, column-major
// order.
package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/shape"
)

// Magic starts every .npy file.
const Magic = "\x93NUMPY"

// maxHeader bounds the header length read, against a corrupt length field.
const maxHeader = 64 << 20

// align is numpy's ARRAY_ALIGN: the data starts at a multiple of it.
const align = 64

// codes maps numpy type codes (kind and item size) to tensorcast types.
var codes = []struct {
	code string
	t    tensorcast.DataType
	name string // numpy's name
}{
	{"b1", tensorcast.Bool, "bool"},
	{"i1", tensorcast.Int8, "int8"},
	{"u1", tensorcast.Uint8, "uint8"},
	{"i2", tensorcast.Int16, "int16"},
	{"u2", tensorcast.Uint16, "uint16"},
	{"i4", tensorcast.Int32, "int32"},
	{"u4", tensorcast.Uint32, "uint32"},
	{"i8", tensorcast.Int64, "int64"},
	{"u8", tensorcast.Uint64, "uint64"},
	{"f2", tensorcast.Float16, "float16"},
	{"f4", tensorcast.Float, "float32"},
	{"f8", tensorcast.Double, "float64"},
}

// Descr returns the descriptor .npy files use for t, always little-endian:
// '<f4', '|u1', '|b1', ... It is an error for a type numpy has no dtype for
// (BFLOAT16, the float8, float4 and 2/4-bit types, STRING).
func Descr(t tensorcast.DataType) (string, error) {
	for _, c := range codes {
		if c.t == t {
			if t.BitSize() == 8 {
				return "|" + c.code, nil
			}
			return "<" + c.code, nil
		}
	}
	return "", fmt.Errorf("numpy has no dtype for %v: a .npy file cannot hold it", t)
}

// NumpyName returns numpy's name for t ("float16"), or "" when it has none.
func NumpyName(t tensorcast.DataType) string {
	for _, c := range codes {
		if c.t == t {
			return c.name
		}
	}
	return ""
}

// ParseDescr parses a type descriptor: a byte-order character ('<' little,
// '>' big, '|' not applicable, for one-byte types only) and a type code.
// It returns the type and whether the data is big-endian.
func ParseDescr(descr string) (t tensorcast.DataType, bigEndian bool, err error) {
	if descr == "" {
		return 0, false, fmt.Errorf("empty dtype descriptor")
	}
	order, code := descr[0], descr[1:]
	if order != '<' && order != '>' && order != '|' && order != '=' {
		order, code = 0, descr
	}
	for _, c := range codes {
		if c.code != code {
			continue
		}
		size := c.t.BitSize() / 8
		switch {
		case order == '=':
			return 0, false, fmt.Errorf("dtype %s: native byte order '=' does not say which order the data has", pyQuote(descr))
		case order == 0:
			return 0, false, fmt.Errorf("dtype %s has no byte-order character ('<', '>' or '|')", pyQuote(descr))
		case order == '|' && size > 1:
			return 0, false, fmt.Errorf("dtype %s: byte order '|' on a %d-byte type", pyQuote(descr), size)
		}
		return c.t, order == '>' && size > 1, nil
	}
	return 0, false, fmt.Errorf("dtype %s is not supported (tensorcast reads b1, i1-i8, u1-u8, f2, f4, f8)", pyQuote(descr))
}

// Header is a parsed .npy header.
type Header struct {
	Major, Minor int
	Descr        string // as in the file
	Type         tensorcast.DataType
	BigEndian    bool
	FortranOrder bool
	Shape        []int64 // non-nil; empty for a 0-d array
	DataOffset   int64   // file offset of the first data byte
}

// Elements is the product of the shape (1 for a 0-d array).
func (h *Header) Elements() int64 {
	n, _ := shape.Elements(h.Shape)
	return n
}

// DataSize is the byte length of the data.
func (h *Header) DataSize() int64 {
	return h.Elements() * int64(h.Type.BitSize()/8)
}

// ReadHeader reads and validates the header of a .npy file of size bytes
// read through r, including that the data after it is exactly as long as
// the shape and dtype say. Errors are one line, without the file name.
func ReadHeader(r io.ReaderAt, size int64) (*Header, error) {
	var pre [12]byte
	k, err := r.ReadAt(pre[:min(size, 12)], 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading the header: %v", err)
	}
	if k < len(Magic) || string(pre[:len(Magic)]) != Magic {
		return nil, fmt.Errorf("not a .npy file: it does not start with the magic \\x93NUMPY")
	}
	if k < 10 {
		return nil, fmt.Errorf("file is %d bytes, too short for a .npy header", size)
	}
	h := &Header{Major: int(pre[6]), Minor: int(pre[7])}
	var hlen, start int64
	switch {
	case h.Major == 1 && h.Minor == 0:
		hlen, start = int64(binary.LittleEndian.Uint16(pre[8:])), 10
	case (h.Major == 2 || h.Major == 3) && h.Minor == 0:
		if k < 12 {
			return nil, fmt.Errorf("file is %d bytes, too short for a .npy header", size)
		}
		hlen, start = int64(binary.LittleEndian.Uint32(pre[8:])), 12
	default:
		return nil, fmt.Errorf("unsupported .npy format version %d.%d (tensorcast reads 1.0, 2.0 and 3.0)", h.Major, h.Minor)
	}
	if hlen > size-start {
		return nil, fmt.Errorf("header length %d is beyond the end of the %d-byte file (truncated?)", hlen, size)
	}
	if hlen > maxHeader {
		return nil, fmt.Errorf("header length %d is over the %d-byte limit", hlen, maxHeader)
	}
	text := make([]byte, hlen)
	if _, err := r.ReadAt(text, start); err != nil {
		return nil, fmt.Errorf("reading the %d-byte header: %v", hlen, err)
	}
	h.DataOffset = start + hlen
	// Versions 1.0 and 2.0 are latin-1; non-ASCII bytes can only be in the
	// field names of structured dtypes, which are refused below.
	if h.Major == 3 && !utf8.Valid(text) {
		return nil, fmt.Errorf("header of a version 3.0 file is not UTF-8")
	}
	if err := h.parseDict(string(text)); err != nil {
		return nil, err
	}
	n, ok := shape.Elements(h.Shape)
	item := int64(h.Type.BitSize() / 8)
	if !ok || n > math.MaxInt64/item {
		return nil, fmt.Errorf("shape %s has more elements than an int64 counts", FormatShape(h.Shape))
	}
	have := size - h.DataOffset
	if need := n * item; have != need {
		what := "truncated file?"
		if have > need {
			what = "trailing data: several arrays saved into one file?"
		}
		return nil, fmt.Errorf("data holds %d bytes, but shape %s of %s needs %d (%s)", have, FormatShape(h.Shape), pyQuote(h.Descr), need, what)
	}
	return h, nil
}

// parseDict parses the header's dict literal into h.
func (h *Header) parseDict(text string) error {
	p := &parser{s: text}
	v, err := p.value()
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = p.errorf("unexpected %q after the dict", p.s[p.i:p.i+1])
		}
	}
	if err != nil {
		return fmt.Errorf("malformed header dict: %v", err)
	}
	d, ok := v.(dict)
	if !ok {
		return fmt.Errorf("malformed header: not a dict literal")
	}
	for k := range d.m {
		if k != "descr" && k != "fortran_order" && k != "shape" {
			return fmt.Errorf("header has the unexpected key %s (want descr, fortran_order, shape)", pyQuote(k))
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if _, ok := d.m[k]; !ok {
			return fmt.Errorf("header lacks the key %s", pyQuote(k))
		}
	}
	descr, ok := d.m["descr"].(string)
	if !ok {
		return fmt.Errorf("header 'descr' is %s: structured and record dtypes are not supported", pyRepr(d.m["descr"]))
	}
	h.Descr = descr
	if h.Type, h.BigEndian, err = ParseDescr(descr); err != nil {
		return err
	}
	if h.FortranOrder, ok = d.m["fortran_order"].(bool); !ok {
		return fmt.Errorf("header 'fortran_order' is %s, not True or False", pyRepr(d.m["fortran_order"]))
	}
	shape, ok := d.m["shape"].(seq)
	if !ok {
		return fmt.Errorf("header 'shape' is %s, not a tuple", pyRepr(d.m["shape"]))
	}
	h.Shape = make([]int64, len(shape.items))
	for i, x := range shape.items {
		v, ok := x.(int64)
		if !ok || v < 0 {
			return fmt.Errorf("header 'shape' dimension %d is %s, not a non-negative integer", i, pyRepr(x))
		}
		h.Shape[i] = v
	}
	return nil
}

// FormatShape renders a shape as Python does: (), (3,), (3, 4).
func FormatShape(shape []int64) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

// Encode returns the file prefix (magic, version, length, header dict) for an
// array, byte for byte as numpy.save writes it: keys sorted, spare spaces for
// growing the shape, padded with spaces and a '\n' so that the data starts at
// a multiple of 64. The version is 1.0 unless the header needs 2.0.
func Encode(descr string, fortranOrder bool, shape []int64) []byte {
	var d strings.Builder
	d.WriteString("{'descr': '" + descr + "', 'fortran_order': ")
	d.WriteString(map[bool]string{true: "True", false: "False"}[fortranOrder])
	d.WriteString(", 'shape': " + FormatShape(shape) + ", }")
	// numpy leaves room for the growing axis to reach 21 digits.
	if len(shape) > 0 {
		axis := shape[0]
		if fortranOrder {
			axis = shape[len(shape)-1]
		}
		d.WriteString(strings.Repeat(" ", max(0, 21-len(strconv.FormatInt(axis, 10)))))
	}
	text := d.String()
	for _, v := range []struct {
		major  byte
		lenLen int
	}{{1, 2}, {2, 4}} {
		hlen := len(text) + 1
		pad := align - (len(Magic)+2+v.lenLen+hlen)%align
		total := hlen + pad
		if v.lenLen == 2 && total > math.MaxUint16 {
			continue
		}
		var b bytes.Buffer
		b.WriteString(Magic)
		b.WriteByte(v.major)
		b.WriteByte(0)
		if v.lenLen == 2 {
			binary.Write(&b, binary.LittleEndian, uint16(total))
		} else {
			binary.Write(&b, binary.LittleEndian, uint32(total))
		}
		b.WriteString(text)
		b.WriteString(strings.Repeat(" ", pad))
		b.WriteByte('\n')
		return b.Bytes()
	}
	panic("unreachable")
}

// Python literal values of a header: string, bool, int64, nil (None), seq
// (tuple or list), dict.
type seq struct {
	items []any
	tuple bool
}

type dict struct{ m map[string]any }

// pyQuote writes s between single quotes, as Python prints a str, with
// control and non-UTF-8 bytes escaped: header text comes from the file, and
// an error message stays on one line.
func pyQuote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

func pyRepr(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case bool:
		return map[bool]string{true: "True", false: "False"}[v]
	case int64:
		return strconv.FormatInt(v, 10)
	case nil:
		return "None"
	case seq:
		if v.tuple {
			return "a tuple"
		}
		return "a list"
	case dict:
		return "a dict"
	}
	return fmt.Sprint(v)
}

// parser reads the subset of Python literals .npy headers use.
type parser struct {
	s     string
	i     int
	depth int
}

func (p *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *parser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) value() (any, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of the header")
	}
	if p.depth > 32 {
		return nil, p.errorf("nested too deeply")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict()
	case c == '(' || c == '[':
		return p.seq()
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.int()
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		j := p.i
		for j < len(p.s) && (p.s[j] >= 'A' && p.s[j] <= 'Z' || p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] == '_') {
			j++
		}
		word := p.s[p.i:j]
		switch word {
		case "True":
			p.i = j
			return true, nil
		case "False":
			p.i = j
			return false, nil
		case "None":
			p.i = j
			return nil, nil
		}
		return nil, p.errorf("unexpected name %q", word)
	default:
		return nil, p.errorf("unexpected %q", string(c))
	}
}

func (p *parser) dict() (any, error) {
	p.i++ // '{'
	p.depth++
	defer func() { p.depth-- }()
	d := dict{m: map[string]any{}}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		kv, err := p.value()
		if err != nil {
			return nil, err
		}
		k, ok := kv.(string)
		if !ok {
			return nil, p.errorf("dict key %s is not a string", pyRepr(kv))
		}
		if _, dup := d.m[k]; dup {
			return nil, p.errorf("key %s appears twice", pyQuote(k))
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("want ':' after the key %s", pyQuote(k))
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		d.m[k] = v
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		return nil, p.errorf("want ',' or '}' in the dict")
	}
}

func (p *parser) seq() (any, error) {
	open := p.s[p.i]
	closing := map[byte]byte{'(': ')', '[': ']'}[open]
	p.i++
	p.depth++
	defer func() { p.depth-- }()
	s := seq{tuple: open == '(', items: []any{}}
	commas := 0
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == closing {
			p.i++
			// (3) is the integer 3 in Python, not a tuple.
			if s.tuple && len(s.items) == 1 && commas == 0 {
				return s.items[0], nil
			}
			return s, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		s.items = append(s.items, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			commas++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == closing {
			continue
		}
		return nil, p.errorf("want ',' or '%c'", closing)
	}
}

func (p *parser) str() (any, error) {
	q := p.s[p.i]
	var b strings.Builder
	for j := p.i + 1; j < len(p.s); j++ {
		c := p.s[j]
		switch {
		case c == q:
			p.i = j + 1
			return b.String(), nil
		case c == '\\':
			if j+1 >= len(p.s) {
				break
			}
			j++
			switch e := p.s[j]; e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case c == '\n':
			p.i = j
			return nil, p.errorf("newline inside a string")
		default:
			b.WriteByte(c)
		}
	}
	return nil, p.errorf("unterminated string")
}

func (p *parser) int() (any, error) {
	j := p.i
	if p.s[j] == '-' {
		j++
	}
	k := j
	for k < len(p.s) && p.s[k] >= '0' && p.s[k] <= '9' {
		k++
	}
	if k == j {
		return nil, p.errorf("'-' without digits")
	}
	v, err := strconv.ParseInt(p.s[p.i:k], 10, 64)
	if err != nil {
		return nil, p.errorf("integer %s out of range", p.s[p.i:k])
	}
	if k < len(p.s) && (p.s[k] == 'L' || p.s[k] == 'l') { // Python 2 long
		k++
	}
	if k < len(p.s) && (p.s[k] == '.' || p.s[k] == 'e' || p.s[k] == 'E' || p.s[k] == 'j') {
		return nil, p.errorf("only integers are expected, not %q...", p.s[p.i:k+1])
	}
	p.i = k
	return v, nil
}
