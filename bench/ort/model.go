package main

import "google.golang.org/protobuf/encoding/protowire"

// castModel returns the bytes of an ONNX ModelProto whose graph is one Cast
// node: input "x" of element type from and shape [n], output "y" of type to.
// It is encoded by hand with protowire (the library's internal/onnxpb is
// internal to the root module); the field numbers are those of onnx.proto:
//
//	ModelProto:        ir_version 1, producer_name 2, graph 7, opset_import 8
//	OperatorSetIdProto: domain 1, version 2
//	GraphProto:        node 1, name 2, input 11, output 12
//	NodeProto:         input 1, output 2, name 3, op_type 4, attribute 5
//	AttributeProto:    name 1, i 3, type 20 (INT = 2)
//	ValueInfoProto:    name 1, type 2
//	TypeProto:         tensor_type 1; TypeProto.Tensor: elem_type 1, shape 2
//	TensorShapeProto:  dim 1; Dimension: dim_value 1
//
// No saturate or round_mode attribute: ONNX's defaults (saturate=1,
// round_mode="up") are tensorcast's zero Options.
func castModel(from, to int32, n int64, irVersion, opset int64) []byte {
	msg := func(fields ...func([]byte) []byte) []byte {
		var b []byte
		for _, f := range fields {
			b = f(b)
		}
		return b
	}
	varint := func(num protowire.Number, v uint64) func([]byte) []byte {
		return func(b []byte) []byte {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			return protowire.AppendVarint(b, v)
		}
	}
	bytes := func(num protowire.Number, v []byte) func([]byte) []byte {
		return func(b []byte) []byte {
			b = protowire.AppendTag(b, num, protowire.BytesType)
			return protowire.AppendBytes(b, v)
		}
	}
	str := func(num protowire.Number, s string) func([]byte) []byte { return bytes(num, []byte(s)) }
	valueInfo := func(name string, elem int32) []byte {
		dim := msg(varint(1, uint64(n)))
		shape := msg(bytes(1, dim))
		tensor := msg(varint(1, uint64(elem)), bytes(2, shape))
		typ := msg(bytes(1, tensor))
		return msg(str(1, name), bytes(2, typ))
	}
	attr := msg(str(1, "to"), varint(3, uint64(to)), varint(20, 2))
	node := msg(str(1, "x"), str(2, "y"), str(3, "cast"), str(4, "Cast"), bytes(5, attr))
	graph := msg(bytes(1, node), str(2, "cast"), bytes(11, valueInfo("x", from)), bytes(12, valueInfo("y", to)))
	opsetID := msg(varint(2, uint64(opset)))
	return msg(varint(1, uint64(irVersion)), str(2, "tensorcast-bench"), bytes(7, graph), bytes(8, opsetID))
}
