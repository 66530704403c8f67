package npy

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
)

// Headers written by numpy 1.24 (np.save and format._write_array_header).
var numpyHeaders = []struct {
	descr   string
	fortran bool
	shape   []int64
	want    string
}{
	{"<f4", false, []int64{3, 5}, "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }                                                          \n"},
	{"<f8", true, []int64{4, 3}, "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': True, 'shape': (4, 3), }                                                           \n"},
	{"<f2", false, []int64{}, "\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': False, 'shape': (), }                                                              \n"},
	{"|b1", false, []int64{0}, "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (0,), }                                                            \n"},
	{"<i8", false, []int64{12345678901234, 2}, "\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (12345678901234, 2), }                                             \n"},
}

func TestEncodeMatchesNumpy(t *testing.T) {
	for _, c := range numpyHeaders {
		got := string(Encode(c.descr, c.fortran, c.shape))
		if got != c.want {
			t.Errorf("Encode(%s, %v, %v):\n got %q\nwant %q", c.descr, c.fortran, c.shape, got, c.want)
		}
	}
	// 30000 dimensions do not fit version 1.0's 16-bit length: numpy writes
	// version 2.0, 90112 bytes in all.
	shape := make([]int64, 30000)
	for i := range shape {
		shape[i] = 1
	}
	b := Encode("<f4", false, shape)
	if len(b) != 90112 || !bytes.HasPrefix(b, []byte("\x93NUMPY\x02\x00")) || binary.LittleEndian.Uint32(b[8:]) != 90100 {
		t.Errorf("long header: %d bytes, prefix %q", len(b), b[:12])
	}
}

// file builds a .npy file from a header prefix and data.
func file(prefix string, data int) *bytes.Reader {
	return bytes.NewReader(append([]byte(prefix), make([]byte, data)...))
}

// v1 wraps a dict literal in a version 1.0 prefix.
func v1(dict string) string {
	var b [2]byte
	binary.LittleEndian.PutUint16(b[:], uint16(len(dict)))
	return Magic + "\x01\x00" + string(b[:]) + dict
}

func v(major byte, dict string) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(len(dict)))
	return Magic + string([]byte{major, 0}) + string(b[:]) + dict
}

func TestReadHeader(t *testing.T) {
	for _, c := range numpyHeaders[:4] {
		h, err := ReadHeader(file(c.want, 0), int64(len(c.want))+must(t, c.descr, c.shape))
		if err != nil {
			t.Errorf("%q: %v", c.want, err)
			continue
		}
		if h.Descr != c.descr || h.FortranOrder != c.fortran || !slices.Equal(h.Shape, c.shape) || h.DataOffset != 128 || h.Major != 1 {
			t.Errorf("%q: got %+v", c.want, h)
		}
	}
	cases := []struct {
		prefix string
		data   int
		typ    tensorcast.DataType
		big    bool
		shape  []int64
		major  int
	}{
		// Any key order and spacing, double quotes, a list shape, no trailing comma, Python 2 longs.
		{v1(`{"shape":[2,3L],"fortran_order":False,"descr":">f8"}` + "\n"), 48, tensorcast.Double, true, []int64{2, 3}, 1},
		{v1("{'descr': '>u1', 'fortran_order': False, 'shape': (5,), }"), 5, tensorcast.Uint8, false, []int64{5}, 1},
		{v(2, "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }\n"), 8, tensorcast.Int16, false, []int64{2, 2}, 2},
		{v(3, "{'descr': '<u4', 'fortran_order': False, 'shape': (), }  \n"), 4, tensorcast.Uint32, false, []int64{}, 3},
		{v1("{'descr': '|i1', 'fortran_order': True, 'shape': (0, 7), }"), 0, tensorcast.Int8, false, []int64{0, 7}, 1},
	}
	for _, c := range cases {
		h, err := ReadHeader(file(c.prefix, c.data), int64(len(c.prefix)+c.data))
		if err != nil {
			t.Errorf("%q: %v", c.prefix, err)
			continue
		}
		if h.Type != c.typ || h.BigEndian != c.big || !slices.Equal(h.Shape, c.shape) || h.Major != c.major || h.DataOffset != int64(len(c.prefix)) || h.DataSize() != int64(c.data) {
			t.Errorf("%q: got %+v", c.prefix, h)
		}
	}
}

func must(t *testing.T, descr string, shape []int64) int64 {
	typ, _, err := ParseDescr(descr)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(typ.BitSize() / 8)
	for _, d := range shape {
		n *= d
	}
	return n
}

func TestReadHeaderErrors(t *testing.T) {
	good := "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n"
	cases := []struct {
		file string
		want string
	}{
		{"", "not a .npy file"},
		{"PK\x03\x04 a zip file....", "not a .npy file: it does not start with the magic"},
		{Magic + "\x01", "too short for a .npy header"},
		{Magic + "\x04\x00\x00\x00", "unsupported .npy format version 4.0"},
		{Magic + "\x01\x00\xff\x00{'descr'", "header length 255 is beyond the end of the 18-byte file"},
		{v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), ") + "\x00", "malformed header dict: at byte"},
		{v1("{'descr': '<f4' 'fortran_order': False}"), "malformed header dict: at byte 16: want ',' or '}' in the dict"},
		{v1("{'descr': '<f4', 'fortran_order': false, 'shape': (3,)}"), `unexpected name "false"`},
		{v1("{'descr': '<f4', 'shape': (3,)}"), "header lacks the key 'fortran_order'"},
		{v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}"), "unexpected key 'extra'"},
		{v1("{'descr': '<c8', 'fortran_order': False, 'shape': (3,)}"), "dtype '<c8' is not supported"},
		{v1("{'descr': '<U3', 'fortran_order': False, 'shape': (3,)}"), "dtype '<U3' is not supported"},
		{v1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}"), "structured and record dtypes are not supported"},
		{v1("{'descr': '=f4', 'fortran_order': False, 'shape': (3,)}"), "native byte order '='"},
		{v1("{'descr': '|f4', 'fortran_order': False, 'shape': (3,)}"), "byte order '|' on a 4-byte type"},
		{v1("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}"), "'fortran_order' is 0, not True or False"},
		{v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}"), "'shape' is 3, not a tuple"},
		{v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -1)}"), "dimension 1 is -1"},
		{v1("{'descr': '<f4', 'fortran_order': False, 'shape': (3.0,)}"), "only integers"},
		{v1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999)}"), "more elements than an int64 counts"},
		{v1(good) + "\x00\x00\x00\x00", "data holds 4 bytes, but shape (3,) of '<f4' needs 12 (truncated file?)"},
		{v1(good) + strings.Repeat("\x00", 20), "data holds 20 bytes, but shape (3,) of '<f4' needs 12 (trailing data"},
		{v(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), '\xff': 1}"), "not UTF-8"},
	}
	for _, c := range cases {
		_, err := ReadHeader(strings.NewReader(c.file), int64(len(c.file)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.file, err, c.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %q is not one line", c.file, err)
		}
	}
}

func TestDescr(t *testing.T) {
	for _, c := range []struct {
		t    tensorcast.DataType
		want string
	}{{tensorcast.Bool, "|b1"}, {tensorcast.Uint8, "|u1"}, {tensorcast.Int8, "|i1"}, {tensorcast.Float16, "<f2"},
		{tensorcast.Float, "<f4"}, {tensorcast.Double, "<f8"}, {tensorcast.Int64, "<i8"}, {tensorcast.Uint16, "<u2"}} {
		got, err := Descr(c.t)
		if err != nil || got != c.want {
			t.Errorf("Descr(%v) = %q, %v; want %q", c.t, got, err, c.want)
		}
		back, big, err := ParseDescr(got)
		if err != nil || back != c.t || big {
			t.Errorf("ParseDescr(%q) = %v, %v, %v", got, back, big, err)
		}
	}
	for _, typ := range []tensorcast.DataType{tensorcast.BFloat16, tensorcast.Float8E4M3FN, tensorcast.Int4, tensorcast.String} {
		if d, err := Descr(typ); err == nil || !strings.Contains(err.Error(), "numpy has no dtype for "+typ.String()) {
			t.Errorf("Descr(%v) = %q, %v; want an error", typ, d, err)
		}
	}
	if typ, big, err := ParseDescr(">i4"); err != nil || typ != tensorcast.Int32 || !big {
		t.Errorf("ParseDescr(>i4) = %v, %v, %v", typ, big, err)
	}
	if _, _, err := ParseDescr("f4"); err == nil || !strings.Contains(err.Error(), "no byte-order character") {
		t.Errorf("ParseDescr(f4): %v", err)
	}
}

// FuzzReadHeader parses arbitrary files (header and data). The invariant:
// an error, or a header that round-trips: encoded again with Encode in
// front of the same data, the file parses to the same header fields and
// the same data bytes. It also checks that the data is exactly as long as
// the header says.
func FuzzReadHeader(f *testing.F) {
	for _, c := range numpyHeaders {
		f.Add([]byte(c.want))
	}
	f.Add(append(Encode("<f4", false, []int64{2, 3}), make([]byte, 24)...))
	f.Add(append(Encode(">i2", true, []int64{3}), 1, 2, 3, 4, 5, 6))
	f.Add(append(Encode("|b1", false, []int64{}), 2))
	f.Add([]byte(v(3, "{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }") + "12345678"))
	f.Add([]byte(v(2, "{'shape': (0, 7), 'descr': '<f2', 'fortran_order': True}")))
	f.Add([]byte(v1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }") + "abcd"))
	f.Add([]byte("\x93NUMPY\x01\x00\xff\xff{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ReadHeader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
			return
		}
		data := b[h.DataOffset:]
		if int64(len(data)) != h.DataSize() || h.Shape == nil {
			t.Fatalf("%d data bytes, header says %d (shape %v)", len(data), h.DataSize(), h.Shape)
		}
		again := append(Encode(h.Descr, h.FortranOrder, h.Shape), data...)
		h2, err := ReadHeader(bytes.NewReader(again), int64(len(again)))
		if err != nil {
			t.Fatalf("re-encoded header of %+v does not parse: %v\n%q", h, err, again[:min(len(again), 256)])
		}
		if h2.Descr != h.Descr || h2.Type != h.Type || h2.BigEndian != h.BigEndian || h2.FortranOrder != h.FortranOrder || !slices.Equal(h2.Shape, h.Shape) {
			t.Fatalf("round trip changed the header: %+v, then %+v", h, h2)
		}
		if h2.DataOffset%align != 0 {
			t.Errorf("re-encoded data starts at %d, not a multiple of %d", h2.DataOffset, align)
		}
		if !bytes.Equal(again[h2.DataOffset:], data) {
			t.Fatalf("round trip changed the data")
		}
	})
}
