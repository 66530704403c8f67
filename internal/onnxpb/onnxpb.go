// Package onnxpb is a small decoder for the parts of ONNX's protobuf files
// that tensorcast needs: a ModelProto's single-operator graph (op type, opset,
// attributes, the element types of the graph inputs and outputs) and a
// TensorProto (dims, data type, element data).
//
// It reads the wire format directly with
// google.golang.org/protobuf/encoding/protowire, so it needs no generated
// code. Field numbers are those of onnx/onnx.proto. Unknown fields are
// skipped. Repeated scalar fields are accepted packed and unpacked, as proto2
// allows.
//
// Tensor element data is always returned in the raw_data layout: fixed-width
// little-endian elements, 2- and 4-bit types packed with the first element in
// the low bits. When a file stores the elements in a typed field instead
// (float_data, int32_data, int64_data, double_data, uint64_data), ReadTensor
// converts them to that layout. STRING tensors are returned as string_data.
package onnxpb

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// ONNX TensorProto.DataType values used by the decoder (the numbering is the
// same as tensorcast.DataType).
const (
	typeFloat      = 1
	typeInt64      = 7
	typeString     = 8
	typeDouble     = 11
	typeUint32     = 12
	typeUint64     = 13
	typeComplex64  = 14
	typeComplex128 = 15
)

// AttributeProto.AttributeType values.
const (
	AttrFloat  = 1
	AttrInt    = 2
	AttrString = 3
	AttrTensor = 4
	AttrFloats = 6
	AttrInts   = 7
	AttrStrs   = 8
)

// Model is the decoded part of an ONNX ModelProto.
type Model struct {
	IRVersion    int64
	ProducerName string
	// Opsets maps each opset_import domain to its version; the default
	// (ai.onnx) domain is "".
	Opsets  map[string]int64
	Nodes   []Node      // graph.node, in order
	Inputs  []ValueInfo // graph.input
	Outputs []ValueInfo // graph.output
}

// Opset returns the version of the default ONNX domain ("" or "ai.onnx"),
// or 0 when the model does not import it.
func (m Model) Opset() int {
	if v, ok := m.Opsets[""]; ok {
		return int(v)
	}
	return int(m.Opsets["ai.onnx"])
}

// Node returns the graph's only node, or an error if the graph does not hold
// exactly one.
func (m Model) Node() (Node, error) {
	if len(m.Nodes) != 1 {
		return Node{}, fmt.Errorf("onnxpb: graph has %d nodes, want 1", len(m.Nodes))
	}
	return m.Nodes[0], nil
}

// Node is an ONNX NodeProto.
type Node struct {
	OpType  string
	Domain  string
	Name    string
	Inputs  []string
	Outputs []string
	Attrs   []Attribute
}

// Attr returns the attribute called name.
func (n Node) Attr(name string) (Attribute, bool) {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a, true
		}
	}
	return Attribute{}, false
}

// Attribute is an ONNX AttributeProto (scalar and list values; tensor and
// graph values are not decoded).
type Attribute struct {
	Name    string
	Type    int32 // AttributeProto.AttributeType (AttrInt, AttrString, ...); 0 in very old files
	F       float32
	I       int64
	S       []byte
	Floats  []float32
	Ints    []int64
	Strings [][]byte
	hasI    bool
	hasS    bool
}

// IsInt reports whether the attribute holds an int: its type says INT, or,
// in files without a type, the i field is set.
func (a Attribute) IsInt() bool { return a.Type == AttrInt || (a.Type == 0 && a.hasI) }

// IsString reports whether the attribute holds a string (type STRING, or no
// type and the s field set).
func (a Attribute) IsString() bool { return a.Type == AttrString || (a.Type == 0 && a.hasS) }

// CastAttrs are the attributes of ONNX Cast and CastLike with ONNX's
// defaults applied.
type CastAttrs struct {
	// To is the `to` attribute as a DataType number (Cast-6 and later).
	// It is 0 when `to` is absent (CastLike) or given as a name.
	To int32
	// ToName is the `to` attribute of Cast-1, a DataType name such as
	// "FLOAT"; empty otherwise.
	ToName string
	// Saturate is the saturate attribute; true (ONNX's default) when absent.
	Saturate bool
	// RoundMode is the round_mode attribute; "up" (ONNX's default) when absent.
	RoundMode string
}

// CastAttrs reads the node's Cast/CastLike attributes. It returns an error
// for an attribute of the wrong type.
func (n Node) CastAttrs() (CastAttrs, error) {
	c := CastAttrs{Saturate: true, RoundMode: "up"}
	if a, ok := n.Attr("to"); ok {
		switch {
		case a.IsInt():
			if a.I <= 0 || a.I > math.MaxInt32 {
				return c, fmt.Errorf("onnxpb: %s: attribute to=%d is not a data type", n.OpType, a.I)
			}
			c.To = int32(a.I)
		case a.IsString():
			c.ToName = string(a.S)
		default:
			return c, fmt.Errorf("onnxpb: %s: attribute to has type %d, want INT or STRING", n.OpType, a.Type)
		}
	}
	if a, ok := n.Attr("saturate"); ok {
		if !a.IsInt() {
			return c, fmt.Errorf("onnxpb: %s: attribute saturate has type %d, want INT", n.OpType, a.Type)
		}
		c.Saturate = a.I != 0
	}
	if a, ok := n.Attr("round_mode"); ok {
		if !a.IsString() {
			return c, fmt.Errorf("onnxpb: %s: attribute round_mode has type %d, want STRING", n.OpType, a.Type)
		}
		c.RoundMode = string(a.S)
	}
	return c, nil
}

// ValueInfo is a graph input or output: its name, tensor element type and
// shape.
type ValueInfo struct {
	Name     string
	ElemType int32 // TensorProto.DataType; 0 if not a tensor or unknown
	// Dims are the dimensions, -1 for a symbolic or unknown one. Dims is
	// nil, and HasShape false, when the shape is not given.
	Dims     []int64
	HasShape bool
}

// Tensor is a decoded ONNX TensorProto.
type Tensor struct {
	Name     string
	Dims     []int64
	DataType int32 // TensorProto.DataType
	// Raw holds the elements in the raw_data layout (little-endian, 2- and
	// 4-bit types packed, BOOL one byte each). It is nil for STRING tensors.
	Raw []byte
	// Strings holds string_data, one entry per element of a STRING tensor.
	Strings [][]byte
}

// NumElements is the product of Dims (1 for a scalar with no dims).
func (t Tensor) NumElements() int {
	n := 1
	for _, d := range t.Dims {
		n *= int(d)
	}
	return n
}

// ReadModel reads and decodes an ONNX model file.
func ReadModel(path string) (Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Model{}, err
	}
	m, err := DecodeModel(b)
	if err != nil {
		return Model{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadTensor reads and decodes a TensorProto file (such as an ONNX test's
// input_0.pb).
func ReadTensor(path string) (Tensor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Tensor{}, err
	}
	t, err := DecodeTensor(b)
	if err != nil {
		return Tensor{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// field is one decoded protobuf field: v holds varint, fixed32 and fixed64
// values, b the bytes of a length-delimited one.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// walk calls fn for each field of the message b, in order.
func walk(b []byte, fn func(f field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default: // groups: skip
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// The repeated-scalar readers accept one unpacked element or a packed run.

func (f field) varints(dst []uint64) ([]uint64, error) {
	switch f.typ {
	case protowire.VarintType:
		return append(dst, f.v), nil
	case protowire.BytesType:
		for b := f.b; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return dst, protowire.ParseError(n)
			}
			dst, b = append(dst, v), b[n:]
		}
		return dst, nil
	}
	return dst, fmt.Errorf("field %d: wire type %d, want varint", f.num, f.typ)
}

func (f field) fixed32s(dst []uint32) ([]uint32, error) {
	switch f.typ {
	case protowire.Fixed32Type:
		return append(dst, uint32(f.v)), nil
	case protowire.BytesType:
		if len(f.b)%4 != 0 {
			return dst, fmt.Errorf("field %d: packed length %d is not a multiple of 4", f.num, len(f.b))
		}
		for i := 0; i < len(f.b); i += 4 {
			dst = append(dst, binary.LittleEndian.Uint32(f.b[i:]))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("field %d: wire type %d, want fixed32", f.num, f.typ)
}

func (f field) fixed64s(dst []uint64) ([]uint64, error) {
	switch f.typ {
	case protowire.Fixed64Type:
		return append(dst, f.v), nil
	case protowire.BytesType:
		if len(f.b)%8 != 0 {
			return dst, fmt.Errorf("field %d: packed length %d is not a multiple of 8", f.num, len(f.b))
		}
		for i := 0; i < len(f.b); i += 8 {
			dst = append(dst, binary.LittleEndian.Uint64(f.b[i:]))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("field %d: wire type %d, want fixed64", f.num, f.typ)
}

func (f field) bytes() ([]byte, error) {
	if f.typ != protowire.BytesType {
		return nil, fmt.Errorf("field %d: wire type %d, want length-delimited", f.num, f.typ)
	}
	return f.b, nil
}

func (f field) varint() (uint64, error) {
	if f.typ != protowire.VarintType {
		return 0, fmt.Errorf("field %d: wire type %d, want varint", f.num, f.typ)
	}
	return f.v, nil
}

// DecodeModel decodes a serialized ModelProto.
func DecodeModel(b []byte) (Model, error) {
	m := Model{Opsets: map[string]int64{}}
	err := walk(b, func(f field) (err error) {
		switch f.num {
		case 1: // ir_version
			var v uint64
			v, err = f.varint()
			m.IRVersion = int64(v)
		case 2: // producer_name
			var s []byte
			s, err = f.bytes()
			m.ProducerName = string(s)
		case 7: // graph
			var g []byte
			if g, err = f.bytes(); err == nil {
				err = decodeGraph(g, &m)
			}
		case 8: // opset_import
			var o []byte
			if o, err = f.bytes(); err == nil {
				err = decodeOpset(o, m.Opsets)
			}
		}
		return err
	})
	if err != nil {
		return Model{}, fmt.Errorf("onnxpb: ModelProto: %w", err)
	}
	return m, nil
}

func decodeOpset(b []byte, opsets map[string]int64) error {
	var domain string
	var version int64
	err := walk(b, func(f field) error {
		switch f.num {
		case 1:
			s, err := f.bytes()
			domain = string(s)
			return err
		case 2:
			v, err := f.varint()
			version = int64(v)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("opset_import: %w", err)
	}
	opsets[domain] = version
	return nil
}

func decodeGraph(b []byte, m *Model) error {
	err := walk(b, func(f field) error {
		switch f.num {
		case 1, 11, 12: // node, input, output
			s, err := f.bytes()
			if err != nil {
				return err
			}
			if f.num == 1 {
				n, err := decodeNode(s)
				m.Nodes = append(m.Nodes, n)
				return err
			}
			vi, err := decodeValueInfo(s)
			if f.num == 11 {
				m.Inputs = append(m.Inputs, vi)
			} else {
				m.Outputs = append(m.Outputs, vi)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("graph: %w", err)
	}
	return nil
}

func decodeNode(b []byte) (Node, error) {
	var n Node
	err := walk(b, func(f field) error {
		switch f.num {
		case 1, 2, 3, 4, 5, 7:
		default:
			return nil
		}
		s, err := f.bytes()
		if err != nil {
			return err
		}
		switch f.num {
		case 1:
			n.Inputs = append(n.Inputs, string(s))
		case 2:
			n.Outputs = append(n.Outputs, string(s))
		case 3:
			n.Name = string(s)
		case 4:
			n.OpType = string(s)
		case 7:
			n.Domain = string(s)
		case 5:
			a, err := decodeAttribute(s)
			if err != nil {
				return err
			}
			n.Attrs = append(n.Attrs, a)
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("node: %w", err)
	}
	return n, nil
}

func decodeAttribute(b []byte) (Attribute, error) {
	var a Attribute
	err := walk(b, func(f field) (err error) {
		switch f.num {
		case 1: // name
			var s []byte
			s, err = f.bytes()
			a.Name = string(s)
		case 2: // f
			var v []uint32
			if v, err = f.fixed32s(nil); err == nil && len(v) > 0 {
				a.F = math.Float32frombits(v[len(v)-1])
			}
		case 3: // i
			var v uint64
			v, err = f.varint()
			a.I, a.hasI = int64(v), true
		case 4: // s
			a.S, err = f.bytes()
			a.hasS = true
		case 7: // floats
			var v []uint32
			v, err = f.fixed32s(nil)
			for _, x := range v {
				a.Floats = append(a.Floats, math.Float32frombits(x))
			}
		case 8: // ints
			var v []uint64
			v, err = f.varints(nil)
			for _, x := range v {
				a.Ints = append(a.Ints, int64(x))
			}
		case 9: // strings
			var s []byte
			s, err = f.bytes()
			a.Strings = append(a.Strings, s)
		case 20: // type
			var v uint64
			v, err = f.varint()
			a.Type = int32(v)
		}
		return err
	})
	if err != nil {
		return a, fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	return a, nil
}

// decodeValueInfo reads ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1:
// {elem_type=1, shape=2: {dim=1: {dim_value=1, dim_param=2}}}}}.
func decodeValueInfo(b []byte) (ValueInfo, error) {
	var vi ValueInfo
	err := walk(b, func(f field) error {
		s, err := f.bytes()
		if err != nil {
			return err
		}
		switch f.num {
		case 1:
			vi.Name = string(s)
		case 2:
			return walk(s, func(f field) error {
				if f.num != 1 { // only tensor_type
					return nil
				}
				tt, err := f.bytes()
				if err != nil {
					return err
				}
				return decodeTensorType(tt, &vi)
			})
		}
		return nil
	})
	if err != nil {
		return vi, fmt.Errorf("value_info %q: %w", vi.Name, err)
	}
	return vi, nil
}

func decodeTensorType(b []byte, vi *ValueInfo) error {
	return walk(b, func(f field) error {
		switch f.num {
		case 1:
			v, err := f.varint()
			vi.ElemType = int32(v)
			return err
		case 2:
			shape, err := f.bytes()
			if err != nil {
				return err
			}
			vi.HasShape = true
			vi.Dims = []int64{}
			return walk(shape, func(f field) error {
				if f.num != 1 {
					return nil
				}
				dim, err := f.bytes()
				if err != nil {
					return err
				}
				d := int64(-1)
				err = walk(dim, func(f field) error {
					if f.num == 1 {
						v, err := f.varint()
						d = int64(v)
						return err
					}
					return nil
				})
				vi.Dims = append(vi.Dims, d)
				return err
			})
		}
		return nil
	})
}

// BitSize returns the storage size in bits of one element of ONNX data type
// dt (2, 4, 8, 16, 32, 64, 128), or 0 for STRING, UNDEFINED and unknown types.
func BitSize(dt int32) int {
	switch dt {
	case 25, 26: // UINT2, INT2
		return 2
	case 21, 22, 23: // UINT4, INT4, FLOAT4E2M1
		return 4
	case 2, 3, 9, 17, 18, 19, 20, 24: // UINT8, INT8, BOOL, the float8 types, FLOAT8E8M0
		return 8
	case 4, 5, 10, 16: // UINT16, INT16, FLOAT16, BFLOAT16
		return 16
	case 1, 6, 12: // FLOAT, INT32, UINT32
		return 32
	case 7, 11, 13, 14: // INT64, DOUBLE, UINT64, COMPLEX64
		return 64
	case 15: // COMPLEX128
		return 128
	}
	return 0
}

// DecodeTensor decodes a serialized TensorProto. It checks that the element
// data has exactly the size the dims call for, and converts typed fields to
// the raw_data layout.
func DecodeTensor(b []byte) (Tensor, error) {
	var (
		t                    Tensor
		raw                  []byte
		hasRaw, hasDT        bool
		dims                 []uint64
		f32s                 []uint32 // float_data
		i32s, i64s, u64s     []uint64 // int32_data, int64_data, uint64_data
		f64s                 []uint64 // double_data
		external, segmented  bool
		typedCount, typedNum int
	)
	err := walk(b, func(f field) (err error) {
		switch f.num {
		case 1:
			dims, err = f.varints(dims)
		case 2:
			var v uint64
			v, err = f.varint()
			t.DataType, hasDT = int32(v), true
		case 3:
			segmented = true
		case 4:
			f32s, err = f.fixed32s(f32s)
			typedNum = 4
		case 5:
			i32s, err = f.varints(i32s)
			typedNum = 5
		case 6:
			var s []byte
			s, err = f.bytes()
			t.Strings = append(t.Strings, s)
		case 7:
			i64s, err = f.varints(i64s)
			typedNum = 7
		case 8:
			var s []byte
			s, err = f.bytes()
			t.Name = string(s)
		case 9:
			raw, err = f.bytes()
			hasRaw = true
		case 10:
			f64s, err = f.fixed64s(f64s)
			typedNum = 10
		case 11:
			u64s, err = f.varints(u64s)
			typedNum = 11
		case 14: // data_location: 1 = EXTERNAL
			var v uint64
			v, err = f.varint()
			external = v == 1
		}
		return err
	})
	if err != nil {
		return Tensor{}, fmt.Errorf("onnxpb: TensorProto: %w", err)
	}
	for _, d := range dims {
		if int64(d) < 0 {
			return Tensor{}, fmt.Errorf("onnxpb: tensor %q: negative dimension %d", t.Name, int64(d))
		}
		t.Dims = append(t.Dims, int64(d))
	}
	switch {
	case !hasDT:
		return Tensor{}, fmt.Errorf("onnxpb: tensor %q: no data_type", t.Name)
	case external:
		return Tensor{}, fmt.Errorf("onnxpb: tensor %q: external data is not supported", t.Name)
	case segmented:
		return Tensor{}, fmt.Errorf("onnxpb: tensor %q: segmented tensors are not supported", t.Name)
	}
	n := t.NumElements()
	if t.DataType == typeString {
		if hasRaw || typedNum != 0 {
			return Tensor{}, fmt.Errorf("onnxpb: STRING tensor %q: element data outside string_data", t.Name)
		}
		if len(t.Strings) != n {
			return Tensor{}, fmt.Errorf("onnxpb: STRING tensor %q: %d strings for %d elements", t.Name, len(t.Strings), n)
		}
		return t, nil
	}
	bits := BitSize(t.DataType)
	if bits == 0 {
		return Tensor{}, fmt.Errorf("onnxpb: tensor %q: unknown data_type %d", t.Name, t.DataType)
	}
	size := (n*bits + 7) / 8
	if len(t.Strings) > 0 {
		return Tensor{}, fmt.Errorf("onnxpb: tensor %q of type %d has string_data", t.Name, t.DataType)
	}
	if hasRaw {
		if typedNum != 0 {
			return Tensor{}, fmt.Errorf("onnxpb: tensor %q has both raw_data and typed field %d", t.Name, typedNum)
		}
		if len(raw) != size {
			return Tensor{}, fmt.Errorf("onnxpb: tensor %q: raw_data holds %d bytes, %d elements of %d bits need %d",
				t.Name, len(raw), n, bits, size)
		}
		t.Raw = raw
		return t, nil
	}
	// Typed fields: check the field is the one ONNX specifies for the type,
	// then lay the values out as raw_data would.
	want := 5 // int32_data
	switch t.DataType {
	case typeFloat, typeComplex64:
		want = 4
	case typeDouble, typeComplex128:
		want = 10
	case typeInt64:
		want = 7
	case typeUint32, typeUint64:
		want = 11
	}
	if typedNum != 0 && typedNum != want {
		return Tensor{}, fmt.Errorf("onnxpb: tensor %q of type %d: data in field %d, want field %d", t.Name, t.DataType, typedNum, want)
	}
	raw = make([]byte, 0, size)
	switch want {
	case 4:
		typedCount = len(f32s)
		for _, v := range f32s {
			raw = binary.LittleEndian.AppendUint32(raw, v)
		}
	case 10:
		typedCount = len(f64s)
		for _, v := range f64s {
			raw = binary.LittleEndian.AppendUint64(raw, v)
		}
	case 7:
		typedCount = len(i64s)
		for _, v := range i64s {
			raw = binary.LittleEndian.AppendUint64(raw, v)
		}
	case 11:
		typedCount = len(u64s)
		for _, v := range u64s {
			if bits == 32 {
				raw = binary.LittleEndian.AppendUint32(raw, uint32(v))
			} else {
				raw = binary.LittleEndian.AppendUint64(raw, v)
			}
		}
	case 5:
		// One entry per element holding its bit pattern, except the 2- and
		// 4-bit types, whose entries are already packed bytes.
		typedCount = len(i32s)
		for _, v := range i32s {
			switch {
			case bits <= 8:
				raw = append(raw, byte(v))
			case bits == 16:
				raw = binary.LittleEndian.AppendUint16(raw, uint16(v))
			default:
				raw = binary.LittleEndian.AppendUint32(raw, uint32(v))
			}
		}
	}
	if len(raw) != size {
		return Tensor{}, fmt.Errorf("onnxpb: tensor %q: typed field %d holds %d values (%d bytes), %d elements of %d bits need %d bytes",
			t.Name, want, typedCount, len(raw), n, bits, size)
	}
	t.Raw = raw
	return t, nil
}
