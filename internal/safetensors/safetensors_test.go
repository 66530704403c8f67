package safetensors

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
)

// build returns a file of header json followed by data bytes of zeros.
func build(json string, data int) []byte {
	b := make([]byte, 8, 8+len(json)+data)
	binary.LittleEndian.PutUint64(b, uint64(len(json)))
	b = append(b, json...)
	return append(b, make([]byte, data)...)
}

func read(b []byte) (*Header, error) {
	return ReadHeader(bytes.NewReader(b), int64(len(b)))
}

func TestReadHeader(t *testing.T) {
	js := `{"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}, "__metadata__":{"z":"1","a":"<&>"},` +
		`"a":{"dtype":"I64","shape":[],"data_offsets":[0,8]},"e2":{"dtype":"F16","shape":[0],"data_offsets":[16,16]},` +
		`"e1":{"dtype":"BF16","shape":[3,0],"data_offsets":[16,16]},"x":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[16,19]}}   `
	h, err := read(build(js, 19))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tn := range h.Tensors {
		names = append(names, tn.Name)
	}
	// By offset; the two empty tensors at 16 keep the JSON's order.
	if strings.Join(names, ",") != "a,b,e2,e1,x" {
		t.Errorf("order %v", names)
	}
	if !h.HasMetadata || !slices.Equal(h.Metadata, []MetaEntry{{"z", "1"}, {"a", "<&>"}}) {
		t.Errorf("metadata %v", h.Metadata)
	}
	if h.HeaderSize != int64(len(js)) || h.DataOffset != 8+int64(len(js)) || h.DataSize != 19 {
		t.Errorf("sizes %+v", h)
	}
	a, x := h.Tensors[0], h.Tensors[4]
	if a.Type != tensorcast.Int64 || len(a.Shape) != 0 || a.Shape == nil || a.Elements() != 1 || a.Size() != 8 {
		t.Errorf("scalar %+v", a)
	}
	if x.Known() || x.DType != "F6_E3M2" || x.Elements() != 4 {
		t.Errorf("unknown dtype %+v", x)
	}

	// No metadata, no tensors.
	h, err = read(build(`{}`, 0))
	if err != nil || h.HasMetadata || len(h.Tensors) != 0 {
		t.Errorf("empty: %+v, %v", h, err)
	}
	h, err = read(build(`{"__metadata__":null}`, 0))
	if err != nil || h.HasMetadata {
		t.Errorf("null metadata: %+v, %v", h, err)
	}
}

func TestReadHeaderErrors(t *testing.T) {
	w := func(dtype, shape, offs string) string {
		return `{"w":{"dtype":"` + dtype + `","shape":` + shape + `,"data_offsets":` + offs + `}}`
	}
	cases := []struct {
		file []byte
		want string
	}{
		{[]byte{1, 2, 3}, "file is 3 bytes, too short for the 8-byte header length"},
		{build(`{}`, 0)[:9], "header length 2 is beyond the end of the 9-byte file"},
		{append(binary.LittleEndian.AppendUint64(nil, 1<<62), "{}"...), "header length 4611686018427387904 is beyond the end of the 10-byte file"},
		{build(`[1]`, 0), "header does not start with a JSON object"},
		{build(` {}`, 0), "header does not start with a JSON object"},
		{build(`{"w":{"dtype":"F32",}}`, 0), "malformed JSON header at byte 20: invalid character '}'"},
		{build(`{"w":{"dtype":"F32"`, 0), "malformed JSON header: it ends inside the object (19 bytes)"},
		{build(`{} {}`, 0), `malformed JSON header at byte 3: invalid character '{' after top-level value`},
		{build("{\"\xff\":1}", 0), "header is not valid UTF-8"},
		{build(`{"w":5}`, 0), `tensor "w": entry is not a {dtype, shape, data_offsets} object`},
		{build(`{"w":{"shape":[],"data_offsets":[0,4]}}`, 4), `tensor "w": no "dtype"`},
		{build(`{"w":{"dtype":"F32","data_offsets":[0,4]}}`, 4), `tensor "w": no "shape"`},
		{build(`{"w":{"dtype":"F32","shape":[1]}}`, 4), `tensor "w": no "data_offsets"`},
		{build(`{"w":{"dtype":7,"shape":[1],"data_offsets":[0,4]}}`, 4), `tensor "w": "dtype" has the wrong JSON type (number)`},
		{build(w("F32", "[-1]", "[0,4]"), 4), `tensor "w": shape dimension 0 is -1, not a non-negative integer`},
		{build(w("F32", "[1.5]", "[0,4]"), 4), `shape dimension 0 is 1.5`},
		{build(w("F32", "[1]", "[0,4,8]"), 4), `data_offsets has 3 numbers, want [begin, end]`},
		{build(w("F32", "[1]", "[0,-4]"), 4), `data_offsets [0, -4] are not non-negative integers`},
		{build(w("F32", "[1]", "[4,0]"), 4), `tensor "w": data_offsets [4, 0] end before they begin`},
		{build(w("F32", "[25]", "[0,100]"), 64), `tensor "w": data_offsets [0, 100] outside the 64-byte buffer`},
		{build(w("F32", "[3,4]", "[0,40]"), 40), `tensor "w": shape [3, 4] of F32 is 48 bytes, but data_offsets [0, 40] hold 40`},
		{build(w("F32", "[4294967296,4294967296]", "[0,4]"), 4), `tensor "w": shape [4294967296, 4294967296] has more elements than an int64 holds`},
		{build(w("F64", "[2305843009213693952]", "[0,4]"), 4), `of F64 is more bytes than an int64 counts`},
		{build(w("F32", "[1]", "[4,8]"), 8), `4 unused bytes at the start of the buffer, before tensor "w" [4, 8]`},
		{build(w("F32", "[1]", "[0,4]"), 8), `4 bytes after the last tensor's data (the tensors end at 4, the buffer at 8)`},
		{build(`{}`, 3), `the header lists no tensor, but 3 bytes follow it`},
		{build(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}`, 24), `tensors "a" [0, 16] and "b" [8, 24] overlap`},
		{build(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}}`, 12), `4 unused bytes between tensors "a" [0, 4] and "b" [8, 12]`},
		{build(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"a":{"dtype":"U8","shape":[4],"data_offsets":[4,8]}}`, 8), `tensor "a" appears twice`},
		{build(`{"__metadata__":{"a":1}}`, 0), `__metadata__: the value of "a" is not a string`},
		{build(`{"__metadata__":[]}`, 0), `__metadata__ must be an object of strings`},
	}
	for _, c := range cases {
		_, err := read(c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\nerror %v\nwant  %q", c.file, err, c.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %q is not one line", c.file, err)
		}
	}
	// The 100 MB limit, with a file that does have the bytes (sparse is not
	// needed: a reader that claims the size).
	big := binary.LittleEndian.AppendUint64(nil, MaxHeaderSize+1)
	if _, err := ReadHeader(bytes.NewReader(big), MaxHeaderSize+100); err == nil || !strings.Contains(err.Error(), "over the 100000000-byte limit") {
		t.Errorf("over the limit: %v", err)
	}
}

func TestEncode(t *testing.T) {
	tensors := []Tensor{
		{Name: "b<>", DType: "BF16", Shape: []int64{2, 3}, Begin: 0, End: 12},
		{Name: "s", DType: "F32", Shape: []int64{}, Begin: 12, End: 16},
		{Name: "é\"\\", DType: "F4", Shape: []int64{0}, Begin: 16, End: 16},
	}
	got, err := Encode(tensors, []MetaEntry{{"format", "pt"}, {"k", "<v>"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	js := `{"__metadata__":{"format":"pt","k":"<v>"},"b<>":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},` +
		`"s":{"dtype":"F32","shape":[],"data_offsets":[12,16]},"é\"\\":{"dtype":"F4","shape":[0],"data_offsets":[16,16]}}`
	for len(js)%8 != 0 {
		js += " "
	}
	if want := build(js, 0); !bytes.Equal(got, want) {
		t.Errorf("Encode:\n got %q\nwant %q", got, want)
	}
	// It reads back.
	h, err := read(append(got, make([]byte, 16)...))
	if err != nil || len(h.Tensors) != 3 || h.Tensors[2].Name != "é\"\\" || h.Metadata[1].Value != "<v>" {
		t.Errorf("read back: %+v, %v", h, err)
	}
	// Empty metadata is kept as {}; absent metadata is left out.
	if got, _ := Encode(nil, nil, true); string(got[8:]) != `{"__metadata__":{}}     ` {
		t.Errorf("empty metadata: %q", got[8:])
	}
	if got, _ := Encode(nil, nil, false); string(got[8:]) != `{}      ` {
		t.Errorf("no metadata: %q", got[8:])
	}
	if _, err := Encode([]Tensor{{Name: MetadataKey, DType: "F32", Shape: []int64{}}}, nil, false); err == nil {
		t.Error("a tensor named __metadata__ was encoded")
	}
}

func TestNames(t *testing.T) {
	want := "BOOL U8 I8 I16 U16 I32 U32 I64 U64 F16 BF16 F32 F64 F8_E4M3 F8_E5M2 F8_E8M0"
	if got := strings.Join(Names(), " "); got != want {
		t.Errorf("Names() = %s", got)
	}
	for _, n := range Names() {
		typ, ok := DataType(n)
		back, ok2 := Name(typ)
		if !ok || !ok2 || back != n {
			t.Errorf("%s -> %v -> %s", n, typ, back)
		}
	}
	if typ, _ := DataType("F8_E4M3"); typ != tensorcast.Float8E4M3FN {
		t.Errorf("F8_E4M3 is %v", typ)
	}
	for _, typ := range []tensorcast.DataType{tensorcast.Float8E4M3FNUZ, tensorcast.Float8E5M2FNUZ, tensorcast.Int4, tensorcast.Float4E2M1, tensorcast.String} {
		if n, ok := Name(typ); ok {
			t.Errorf("Name(%v) = %s", typ, n)
		}
	}
	if _, ok := DataType("f32"); ok {
		t.Error("dtype names are case-sensitive")
	}
}

// FuzzReadHeader parses arbitrary files (header and data). The invariant:
// an error of one line, or a header that round-trips: written again with
// Encode in front of the same data, the file parses to the same tensors
// (names, dtypes, shapes, offsets, in the same order), the same metadata
// and the same data bytes.
func FuzzReadHeader(f *testing.F) {
	f.Add(build(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8))
	f.Add(build(`{"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}, "__metadata__":{"z":"1","a":"<&>"},`+
		`"a":{"dtype":"I64","shape":[],"data_offsets":[0,8]},"e2":{"dtype":"F16","shape":[0],"data_offsets":[16,16]},`+
		`"e1":{"dtype":"BF16","shape":[3,0],"data_offsets":[16,16]},"x":{"dtype":"F6_E3M2","shape":[4],"data_offsets":[16,19]}}   `, 19))
	f.Add(build(`{"__metadata__":null}`, 0))
	f.Add(build(`{"__metadata__":{}, "\u00e9\"\\":{"dtype":"U8","shape":[1,1,1],"data_offsets":[0,1]}}`, 1))
	f.Add(build(`{"w":{"dtype":"F32","shape":[25],"data_offsets":[0,100]}}`, 64))
	f.Add(build(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},}`, 4))
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := read(b)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		data := b[h.DataOffset:]
		if int64(len(data)) != h.DataSize {
			t.Fatalf("%d data bytes, header says %d", len(data), h.DataSize)
		}
		prefix, err := Encode(h.Tensors, h.Metadata, h.HasMetadata)
		if err != nil {
			t.Fatalf("Encode of a parsed header: %v", err)
		}
		again := append(prefix, data...)
		h2, err := read(again)
		if err != nil {
			t.Fatalf("re-encoded header does not parse: %v\n%q", err, prefix)
		}
		if h2.DataOffset%8 != 0 {
			t.Errorf("re-encoded data starts at %d, not a multiple of 8", h2.DataOffset)
		}
		if !slices.EqualFunc(h.Tensors, h2.Tensors, func(a, b Tensor) bool {
			return a.Name == b.Name && a.DType == b.DType && a.Type == b.Type && slices.Equal(a.Shape, b.Shape) && a.Begin == b.Begin && a.End == b.End
		}) {
			t.Fatalf("round trip changed the tensors:\n%+v\n%+v", h.Tensors, h2.Tensors)
		}
		if h2.HasMetadata != h.HasMetadata || !slices.Equal(h2.Metadata, h.Metadata) || h2.DataSize != h.DataSize {
			t.Fatalf("round trip changed the metadata: %v %q, then %v %q", h.HasMetadata, h.Metadata, h2.HasMetadata, h2.Metadata)
		}
		if !bytes.Equal(again[h2.DataOffset:], data) {
			t.Fatal("round trip changed the data")
		}
	})
}
