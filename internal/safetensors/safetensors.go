// Package safetensors reads and writes the header of a .safetensors file and
// maps its dtype names to tensorcast types. It never reads tensor data: the
// caller streams that with the offsets the header gives.
//
// The format (https://github.com/huggingface/safetensors): an 8-byte
// little-endian unsigned length N, then N bytes of UTF-8 JSON (padded with
// spaces), then the byte buffer. The JSON object maps each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end]}, offsets relative to the
// start of the buffer; the optional "__metadata__" entry maps strings to
// strings. Like the reference implementation, ReadHeader requires the tensors
// to cover the buffer exactly: contiguous, no gaps, no overlaps, no trailing
// bytes, each one's byte length equal to its shape's element count times its
// dtype's size.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/shape"
)

// MaxHeaderSize is the largest JSON header accepted, as in the reference
// implementation (100 MB).
const MaxHeaderSize = 100_000_000

// MetadataKey is the reserved name of the metadata entry.
const MetadataKey = "__metadata__"

// dtypes maps the safetensors dtype names tensorcast converts.
var dtypes = []struct {
	name string
	t    tensorcast.DataType
}{
	{"BOOL", tensorcast.Bool},
	{"U8", tensorcast.Uint8},
	{"I8", tensorcast.Int8},
	{"I16", tensorcast.Int16},
	{"U16", tensorcast.Uint16},
	{"I32", tensorcast.Int32},
	{"U32", tensorcast.Uint32},
	{"I64", tensorcast.Int64},
	{"U64", tensorcast.Uint64},
	{"F16", tensorcast.Float16},
	{"BF16", tensorcast.BFloat16},
	{"F32", tensorcast.Float},
	{"F64", tensorcast.Double},
	{"F8_E4M3", tensorcast.Float8E4M3FN},
	{"F8_E5M2", tensorcast.Float8E5M2},
	{"F8_E8M0", tensorcast.Float8E8M0},
}

// DataType returns the tensorcast type of a safetensors dtype name (exact,
// case-sensitive, as the format spells it), and false for a name tensorcast
// does not know (F4, F6_E2M3, C64, ...).
func DataType(name string) (tensorcast.DataType, bool) {
	for _, d := range dtypes {
		if d.name == name {
			return d.t, true
		}
	}
	return tensorcast.Undefined, false
}

// Name returns the safetensors dtype name of t, and false when safetensors
// has none (FLOAT8E4M3FNUZ, FLOAT8E5M2FNUZ, the 2- and 4-bit types, STRING).
func Name(t tensorcast.DataType) (string, bool) {
	for _, d := range dtypes {
		if d.t == t {
			return d.name, true
		}
	}
	return "", false
}

// Names lists the dtype names Name and DataType know, in the format's order.
func Names() []string {
	s := make([]string, len(dtypes))
	for i, d := range dtypes {
		s[i] = d.name
	}
	return s
}

// Tensor is one entry of the header.
type Tensor struct {
	Name  string
	DType string              // the dtype as the file names it
	Type  tensorcast.DataType // its tensorcast type; Undefined when unknown
	Shape []int64             // non-nil; empty for a scalar
	Begin int64               // data_offsets, relative to the byte buffer
	End   int64
}

// Known reports whether tensorcast knows the tensor's dtype.
func (t *Tensor) Known() bool { return t.Type != tensorcast.Undefined }

// Size is the tensor's byte length, End-Begin.
func (t *Tensor) Size() int64 { return t.End - t.Begin }

// Elements is the product of the shape (1 for a scalar).
func (t *Tensor) Elements() int64 {
	n, _ := shape.Elements(t.Shape)
	return n
}

// MetaEntry is one __metadata__ key and value.
type MetaEntry struct{ Key, Value string }

// Header is a parsed safetensors header.
type Header struct {
	// Tensors in the order of their data (by begin offset; tensors of zero
	// bytes at the same offset keep the order of the JSON).
	Tensors []Tensor
	// Metadata in the order of the JSON; HasMetadata tells whether the
	// entry was present (it may be an empty object).
	Metadata    []MetaEntry
	HasMetadata bool
	// HeaderSize is the JSON length N (padding included); the buffer starts
	// at file offset DataOffset = 8+N and holds DataSize bytes.
	HeaderSize int64
	DataOffset int64
	DataSize   int64
}

// ReadHeader reads and validates the header of a safetensors file of size
// bytes read through r. Errors are one line, without the file name.
func ReadHeader(r io.ReaderAt, size int64) (*Header, error) {
	if size < 8 {
		return nil, fmt.Errorf("file is %d bytes, too short for the 8-byte header length of a safetensors file", size)
	}
	var lb [8]byte
	if _, err := r.ReadAt(lb[:], 0); err != nil {
		return nil, fmt.Errorf("reading the header length: %v", err)
	}
	n := binary.LittleEndian.Uint64(lb[:])
	if n > uint64(size-8) {
		return nil, fmt.Errorf("header length %d is beyond the end of the %d-byte file (truncated, or not a safetensors file)", n, size)
	}
	if n > MaxHeaderSize {
		return nil, fmt.Errorf("header length %d is over the %d-byte limit", n, MaxHeaderSize)
	}
	js := make([]byte, n)
	if _, err := r.ReadAt(js, 8); err != nil {
		return nil, fmt.Errorf("reading the %d-byte header: %v", n, err)
	}
	return ParseHeader(js, size-8-int64(n))
}

// ParseHeader parses and validates the JSON header js of a file whose byte
// buffer holds bufSize bytes.
func ParseHeader(js []byte, bufSize int64) (*Header, error) {
	h := &Header{HeaderSize: int64(len(js)), DataOffset: 8 + int64(len(js)), DataSize: bufSize}
	if !utf8.Valid(js) {
		return nil, errors.New("header is not valid UTF-8")
	}
	if len(bytes.TrimLeft(js, " \t\r\n")) == 0 || js[0] != '{' {
		return nil, errors.New("header does not start with a JSON object '{'")
	}
	// A syntax check of the whole text first: its errors give the position.
	var all json.RawMessage
	if err := json.Unmarshal(js, &all); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && strings.HasPrefix(se.Error(), "unexpected end") {
			return nil, fmt.Errorf("malformed JSON header: it ends inside the object (%d bytes)", len(js))
		} else if se != nil {
			return nil, fmt.Errorf("malformed JSON header at byte %d: %v", se.Offset-1, se)
		}
		return nil, fmt.Errorf("malformed JSON header: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // '{'
		return nil, jsonError(js, dec, err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(js, dec, err)
		}
		name := tok.(string) // object keys are strings
		if seen[name] {
			if name == MetadataKey {
				return nil, fmt.Errorf("%s appears twice", MetadataKey)
			}
			return nil, fmt.Errorf("tensor %q appears twice", name)
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonError(js, dec, err)
		}
		if name == MetadataKey {
			if h.Metadata, h.HasMetadata, err = parseMetadata(raw); err != nil {
				return nil, err
			}
			continue
		}
		t, err := parseTensor(name, raw)
		if err != nil {
			return nil, err
		}
		h.Tensors = append(h.Tensors, t)
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, jsonError(js, dec, err)
	}
	if err := h.validate(); err != nil {
		return nil, err
	}
	return h, nil
}

// jsonError turns a decoding error into one line naming the byte offset.
func jsonError(js []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("malformed JSON header at byte %d: %v", se.Offset, se)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("malformed JSON header: it ends at byte %d inside the object", len(js))
	}
	return fmt.Errorf("malformed JSON header near byte %d: %v", dec.InputOffset(), err)
}

func parseMetadata(raw json.RawMessage) ([]MetaEntry, bool, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	bad := fmt.Errorf("%s must be an object of strings", MetadataKey)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false, bad
	}
	meta := []MetaEntry{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false, bad
		}
		k := tok.(string)
		v, err := dec.Token()
		s, ok := v.(string)
		if err != nil || !ok {
			return nil, false, fmt.Errorf("%s: the value of %q is not a string", MetadataKey, k)
		}
		if seen[k] {
			return nil, false, fmt.Errorf("%s: key %q appears twice", MetadataKey, k)
		}
		seen[k] = true
		meta = append(meta, MetaEntry{k, s})
	}
	return meta, true, nil
}

func parseTensor(name string, raw json.RawMessage) (Tensor, error) {
	t := Tensor{Name: name}
	var e struct {
		DType   *string        `json:"dtype"`
		Shape   *[]json.Number `json:"shape"`
		Offsets *[]json.Number `json:"data_offsets"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return t, fmt.Errorf("tensor %q: %q has the wrong JSON type (%s)", name, te.Field, te.Value)
		}
		return t, fmt.Errorf("tensor %q: entry is not a {dtype, shape, data_offsets} object", name)
	}
	switch {
	case e.DType == nil:
		return t, fmt.Errorf("tensor %q: no \"dtype\"", name)
	case e.Shape == nil:
		return t, fmt.Errorf("tensor %q: no \"shape\"", name)
	case e.Offsets == nil:
		return t, fmt.Errorf("tensor %q: no \"data_offsets\"", name)
	}
	t.DType = *e.DType
	t.Type, _ = DataType(t.DType)
	t.Shape = make([]int64, len(*e.Shape))
	for i, d := range *e.Shape {
		v, ok := nonNegative(d)
		if !ok {
			return t, fmt.Errorf("tensor %q: shape dimension %d is %s, not a non-negative integer", name, i, d)
		}
		t.Shape[i] = v
	}
	if len(*e.Offsets) != 2 {
		return t, fmt.Errorf("tensor %q: data_offsets has %d numbers, want [begin, end]", name, len(*e.Offsets))
	}
	var ok bool
	if t.Begin, ok = nonNegative((*e.Offsets)[0]); ok {
		t.End, ok = nonNegative((*e.Offsets)[1])
	}
	if !ok {
		return t, fmt.Errorf("tensor %q: data_offsets [%s, %s] are not non-negative integers", name, (*e.Offsets)[0], (*e.Offsets)[1])
	}
	return t, nil
}

// nonNegative parses a JSON number that must be an integer in [0, 2^63).
func nonNegative(n json.Number) (int64, bool) {
	v, err := strconv.ParseInt(string(n), 10, 64)
	return v, err == nil && v >= 0
}

// FormatShape renders a shape as [2, 3] ([] for a scalar).
func FormatShape(shape []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(d, 10))
	}
	b.WriteByte(']')
	return b.String()
}

// validate sorts the tensors by offset and checks that each lies in the
// buffer with the byte length its shape and dtype need, and that together
// they cover the buffer exactly.
func (h *Header) validate() error {
	slices.SortStableFunc(h.Tensors, func(a, b Tensor) int {
		if a.Begin != b.Begin {
			return cmpInt(a.Begin, b.Begin)
		}
		return cmpInt(a.End, b.End)
	})
	for i := range h.Tensors {
		t := &h.Tensors[i]
		offs := fmt.Sprintf("data_offsets [%d, %d]", t.Begin, t.End)
		if t.End < t.Begin {
			return fmt.Errorf("tensor %q: %s end before they begin", t.Name, offs)
		}
		if t.End > h.DataSize {
			return fmt.Errorf("tensor %q: %s outside the %d-byte buffer", t.Name, offs, h.DataSize)
		}
		n, ok := shape.Elements(t.Shape)
		if !ok {
			return fmt.Errorf("tensor %q: shape %s has more elements than an int64 holds", t.Name, FormatShape(t.Shape))
		}
		if !t.Known() {
			continue
		}
		bitSize := int64(t.Type.BitSize())
		if n > math.MaxInt64/bitSize || n*bitSize/8 != t.Size() {
			need := "more bytes than an int64 counts"
			if n <= math.MaxInt64/bitSize {
				need = strconv.FormatInt(n*bitSize/8, 10) + " bytes"
			}
			return fmt.Errorf("tensor %q: shape %s of %s is %s, but %s hold %d", t.Name, FormatShape(t.Shape), t.DType, need, offs, t.Size())
		}
	}
	var end int64
	for i := range h.Tensors {
		t := &h.Tensors[i]
		switch {
		case t.Begin < end:
			p := &h.Tensors[i-1]
			return fmt.Errorf("tensors %q [%d, %d] and %q [%d, %d] overlap", p.Name, p.Begin, p.End, t.Name, t.Begin, t.End)
		case t.Begin > end && i == 0:
			return fmt.Errorf("%d unused bytes at the start of the buffer, before tensor %q [%d, %d]", t.Begin, t.Name, t.Begin, t.End)
		case t.Begin > end:
			p := &h.Tensors[i-1]
			return fmt.Errorf("%d unused bytes between tensors %q [%d, %d] and %q [%d, %d]", t.Begin-end, p.Name, p.Begin, p.End, t.Name, t.Begin, t.End)
		}
		end = t.End
	}
	if end != h.DataSize {
		if len(h.Tensors) == 0 {
			return fmt.Errorf("the header lists no tensor, but %d bytes follow it", h.DataSize)
		}
		return fmt.Errorf("%d bytes after the last tensor's data (the tensors end at %d, the buffer at %d)", h.DataSize-end, end, h.DataSize)
	}
	return nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Encode returns the file prefix for tensors and metadata: the 8-byte length
// and the JSON header padded with spaces so that the data starts at a multiple
// of 8. The JSON lists __metadata__ first (when hasMeta), then the tensors in
// the order given, each as {"dtype","shape","data_offsets"}. Encode does not
// check the offsets; the caller lays the tensors out.
func Encode(tensors []Tensor, meta []MetaEntry, hasMeta bool) ([]byte, error) {
	var b bytes.Buffer
	b.Write(make([]byte, 8))
	b.WriteByte('{')
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	if hasMeta {
		sep()
		writeString(&b, MetadataKey)
		b.WriteString(":{")
		for i, m := range meta {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, m.Key)
			b.WriteByte(':')
			writeString(&b, m.Value)
		}
		b.WriteByte('}')
	}
	for _, t := range tensors {
		if t.Name == MetadataKey {
			return nil, fmt.Errorf("a tensor cannot be named %s", MetadataKey)
		}
		sep()
		writeString(&b, t.Name)
		b.WriteString(`:{"dtype":`)
		writeString(&b, t.DType)
		b.WriteString(`,"shape":`)
		b.WriteString(strings.ReplaceAll(FormatShape(t.Shape), " ", ""))
		fmt.Fprintf(&b, `,"data_offsets":[%d,%d]}`, t.Begin, t.End)
	}
	b.WriteByte('}')
	for b.Len()%8 != 0 {
		b.WriteByte(' ')
	}
	out := b.Bytes()
	n := len(out) - 8
	if n > MaxHeaderSize {
		return nil, fmt.Errorf("the header would be %d bytes, over the %d-byte limit", n, MaxHeaderSize)
	}
	binary.LittleEndian.PutUint64(out, uint64(n))
	return out, nil
}

// writeString writes s as a JSON string, without Go's HTML escaping.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)           // a string always encodes,
	b.Truncate(b.Len() - 1) // with a newline after it
}
