package onnxpb

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// msg builds a protobuf message from field-appending functions.
func msg(parts ...func([]byte) []byte) []byte {
	var b []byte
	for _, p := range parts {
		b = p(b)
	}
	return b
}

func varintField(num protowire.Number, v uint64) func([]byte) []byte {
	return func(b []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, v)
	}
}

func bytesField(num protowire.Number, v []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, v)
	}
}

func packedVarints(num protowire.Number, vs ...int64) func([]byte) []byte {
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return bytesField(num, p)
}

func fixed32Field(num protowire.Number, v uint32) func([]byte) []byte {
	return func(b []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, v)
	}
}

func TestDecodeTensorTyped(t *testing.T) {
	le32 := func(vs ...uint32) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		return b
	}
	le64 := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		return b
	}
	tests := []struct {
		name string
		pb   []byte
		dims []int64
		dt   int32
		raw  []byte
	}{
		{
			"float_data unpacked, dims unpacked",
			msg(varintField(1, 2), varintField(1, 1), varintField(2, 1),
				fixed32Field(4, math.Float32bits(1.5)), fixed32Field(4, math.Float32bits(-2))),
			[]int64{2, 1}, 1, le32(0x3FC00000, 0xC0000000),
		},
		{
			"float_data packed, dims packed",
			msg(packedVarints(1, 1, 2), varintField(2, 1), bytesField(4, le32(0x7FC00001, 0x00000001))),
			[]int64{1, 2}, 1, le32(0x7FC00001, 0x00000001),
		},
		{
			"int32_data INT8 negative (sign-extended varint)",
			msg(varintField(1, 3), varintField(2, 3), packedVarints(5, -3, 127, -128)),
			[]int64{3}, 3, []byte{0xFD, 0x7F, 0x80},
		},
		{
			"int32_data FLOAT16 bit patterns",
			msg(varintField(1, 2), varintField(2, 10), varintField(5, 0xFC00), varintField(5, 0x3C00)),
			[]int64{2}, 10, []byte{0x00, 0xFC, 0x00, 0x3C},
		},
		{
			"int32_data INT32",
			msg(varintField(1, 1), varintField(2, 6), packedVarints(5, -2)),
			[]int64{1}, 6, le32(0xFFFFFFFE),
		},
		{
			"int32_data INT4 holds packed bytes",
			msg(varintField(1, 3), varintField(2, 22), packedVarints(5, 0x8F, 0x07)),
			[]int64{3}, 22, []byte{0x8F, 0x07},
		},
		{
			"int32_data UINT2 holds packed bytes",
			msg(varintField(1, 5), varintField(2, 25), packedVarints(5, 0xE4, 0x03)),
			[]int64{5}, 25, []byte{0xE4, 0x03},
		},
		{
			"int32_data FLOAT8E8M0",
			msg(varintField(1, 2), varintField(2, 24), packedVarints(5, 0xFF, 0x7F)),
			[]int64{2}, 24, []byte{0xFF, 0x7F},
		},
		{
			"int64_data",
			msg(varintField(1, 2), varintField(2, 7), packedVarints(7, -1, math.MaxInt64)),
			[]int64{2}, 7, le64(math.MaxUint64, math.MaxInt64),
		},
		{
			"double_data",
			msg(varintField(2, 11), bytesField(10, le64(math.Float64bits(0.1)))),
			nil, 11, le64(math.Float64bits(0.1)),
		},
		{
			"uint64_data UINT32 narrows to 4 bytes",
			msg(varintField(1, 2), varintField(2, 12), packedVarints(11, 0xFFFFFFFF, 7)),
			[]int64{2}, 12, le32(0xFFFFFFFF, 7),
		},
		{
			"uint64_data UINT64",
			msg(varintField(1, 1), varintField(2, 13), varintField(11, math.MaxUint64)),
			[]int64{1}, 13, le64(math.MaxUint64),
		},
		{
			"raw_data",
			msg(varintField(1, 3), varintField(2, 23), bytesField(9, []byte{0x21, 0x03})),
			[]int64{3}, 23, []byte{0x21, 0x03},
		},
		{
			"empty tensor",
			msg(varintField(1, 0), varintField(2, 1)),
			[]int64{0}, 1, []byte{},
		},
	}
	for _, tc := range tests {
		got, err := DecodeTensor(tc.pb)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got.Dims, tc.dims) || got.DataType != tc.dt || !bytes.Equal(got.Raw, tc.raw) {
			t.Errorf("%s: got dims %v type %d raw %x, want %v %d %x", tc.name, got.Dims, got.DataType, got.Raw, tc.dims, tc.dt, tc.raw)
		}
	}
}

func TestDecodeTensorStrings(t *testing.T) {
	got, err := DecodeTensor(msg(varintField(1, 2), varintField(2, 8), bytesField(6, []byte("1.5")),
		bytesField(6, []byte("NaN")), bytesField(8, []byte("x"))))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "x" || got.Raw != nil || len(got.Strings) != 2 || string(got.Strings[0]) != "1.5" || string(got.Strings[1]) != "NaN" {
		t.Errorf("got %+v", got)
	}
}

func TestDecodeTensorErrors(t *testing.T) {
	tests := []struct {
		name, want string
		pb         []byte
	}{
		{"raw too short", "raw_data holds 3 bytes", msg(varintField(1, 1), varintField(2, 1), bytesField(9, []byte{1, 2, 3}))},
		{"packed raw too long", "raw_data holds 2 bytes", msg(varintField(1, 1), varintField(2, 22), bytesField(9, []byte{1, 2}))},
		{"wrong typed field", "want field 4", msg(varintField(1, 1), varintField(2, 1), varintField(5, 1))},
		{"too few typed values", "typed field 5 holds 1 values", msg(varintField(1, 2), varintField(2, 6), varintField(5, 1))},
		{"strings count", "1 strings for 2 elements", msg(varintField(1, 2), varintField(2, 8), bytesField(6, nil))},
		{"no data type", "no data_type", msg(varintField(1, 1))},
		{"unknown data type", "unknown data_type 99", msg(varintField(2, 99))},
		{"external", "external data", msg(varintField(2, 1), varintField(14, 1))},
		{"truncated", "TensorProto", []byte{0x0A, 0x05, 0x01}},
	}
	for _, tc := range tests {
		_, err := DecodeTensor(tc.pb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestDecodeModel(t *testing.T) {
	attr := func(parts ...func([]byte) []byte) func([]byte) []byte { return bytesField(5, msg(parts...)) }
	valueInfo := func(name string, elem uint64, dims ...func([]byte) []byte) []byte {
		shape := msg(dims...)
		tensorType := msg(varintField(1, elem), bytesField(2, shape))
		return msg(bytesField(1, []byte(name)), bytesField(2, msg(bytesField(1, tensorType))))
	}
	dimValue := func(v uint64) func([]byte) []byte { return bytesField(1, msg(varintField(1, v))) }
	dimParam := func(p string) func([]byte) []byte { return bytesField(1, msg(bytesField(2, []byte(p)))) }
	node := msg(
		bytesField(1, []byte("input")), bytesField(2, []byte("output")), bytesField(4, []byte("Cast")),
		attr(bytesField(1, []byte("round_mode")), bytesField(4, []byte("nearest")), varintField(20, AttrString)),
		attr(bytesField(1, []byte("saturate")), varintField(3, 0), varintField(20, AttrInt)),
		attr(bytesField(1, []byte("to")), varintField(3, 24), varintField(20, AttrInt)),
	)
	graph := msg(bytesField(1, node), bytesField(2, []byte("g")),
		bytesField(11, valueInfo("input", 1, dimValue(3), dimParam("N"))),
		bytesField(12, valueInfo("output", 24, dimValue(3), dimParam("N"))))
	model := msg(varintField(1, 13), bytesField(2, []byte("test")), bytesField(7, graph),
		bytesField(8, msg(bytesField(1, []byte("")), varintField(2, 25))),
		bytesField(8, msg(bytesField(1, []byte("com.microsoft")), varintField(2, 1))))
	m, err := DecodeModel(model)
	if err != nil {
		t.Fatal(err)
	}
	if m.IRVersion != 13 || m.ProducerName != "test" || m.Opset() != 25 || m.Opsets["com.microsoft"] != 1 {
		t.Errorf("model header: %+v", m)
	}
	n, err := m.Node()
	if err != nil {
		t.Fatal(err)
	}
	if n.OpType != "Cast" || !reflect.DeepEqual(n.Inputs, []string{"input"}) || !reflect.DeepEqual(n.Outputs, []string{"output"}) {
		t.Errorf("node: %+v", n)
	}
	c, err := n.CastAttrs()
	if err != nil {
		t.Fatal(err)
	}
	if c != (CastAttrs{To: 24, Saturate: false, RoundMode: "nearest"}) {
		t.Errorf("CastAttrs = %+v", c)
	}
	wantIn := ValueInfo{Name: "input", ElemType: 1, Dims: []int64{3, -1}, HasShape: true}
	wantOut := ValueInfo{Name: "output", ElemType: 24, Dims: []int64{3, -1}, HasShape: true}
	if len(m.Inputs) != 1 || !reflect.DeepEqual(m.Inputs[0], wantIn) || len(m.Outputs) != 1 || !reflect.DeepEqual(m.Outputs[0], wantOut) {
		t.Errorf("inputs %+v outputs %+v", m.Inputs, m.Outputs)
	}

	// Cast-1 carries `to` as a type name; CastLike has no `to`; defaults apply.
	cast1 := msg(bytesField(4, []byte("Cast")), attr(bytesField(1, []byte("to")), bytesField(4, []byte("FLOAT16")), varintField(20, AttrString)))
	m, err = DecodeModel(msg(bytesField(7, msg(bytesField(1, cast1))), bytesField(8, msg(varintField(2, 1)))))
	if err != nil {
		t.Fatal(err)
	}
	n, _ = m.Node()
	if c, err := n.CastAttrs(); err != nil || c != (CastAttrs{ToName: "FLOAT16", Saturate: true, RoundMode: "up"}) || m.Opset() != 1 {
		t.Errorf("Cast-1: %+v, %v, opset %d", c, err, m.Opset())
	}
	bad := msg(bytesField(4, []byte("Cast")), attr(bytesField(1, []byte("saturate")), bytesField(4, []byte("yes")), varintField(20, AttrString)))
	m, _ = DecodeModel(msg(bytesField(7, msg(bytesField(1, bad)))))
	n, _ = m.Node()
	if _, err := n.CastAttrs(); err == nil {
		t.Error("saturate as a string: no error")
	}
	m, _ = DecodeModel(msg(bytesField(7, msg(bytesField(1, bad), bytesField(1, bad)))))
	if _, err := m.Node(); err == nil {
		t.Error("two nodes: Node() gave no error")
	}
}
