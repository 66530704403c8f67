package main

import (
	"os"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tensorcast/tensorcast"
)

// fields decodes one protobuf message into field number → values (varints
// as uint64, length-delimited as []byte).
func fields(t *testing.T, b []byte) map[protowire.Number][]any {
	t.Helper()
	m := map[protowire.Number][]any{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			m[num] = append(m[num], v)
			b = b[n:]
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			m[num] = append(m[num], v)
			b = b[n:]
		default:
			t.Fatalf("field %d: wire type %d", num, typ)
		}
	}
	return m
}

// The model's fields where onnx.proto puts them.
func TestCastModel(t *testing.T) {
	b := castModel(int32(tensorcast.Float), int32(tensorcast.Float8E4M3FN), 4096, 11, 23)
	m := fields(t, b)
	if m[1][0].(uint64) != 11 {
		t.Fatalf("ir_version %v", m[1])
	}
	if op := fields(t, m[8][0].([]byte)); op[2][0].(uint64) != 23 || len(op[1]) != 0 {
		t.Fatalf("opset_import %v", op)
	}
	g := fields(t, m[7][0].([]byte))
	node := fields(t, g[1][0].([]byte))
	if string(node[4][0].([]byte)) != "Cast" || string(node[1][0].([]byte)) != "x" || string(node[2][0].([]byte)) != "y" {
		t.Fatalf("node %v", node)
	}
	attr := fields(t, node[5][0].([]byte))
	if string(attr[1][0].([]byte)) != "to" || attr[3][0].(uint64) != uint64(tensorcast.Float8E4M3FN) || attr[20][0].(uint64) != 2 {
		t.Fatalf("attribute %v", attr)
	}
	for _, c := range []struct {
		field protowire.Number
		name  string
		elem  tensorcast.DataType
	}{{11, "x", tensorcast.Float}, {12, "y", tensorcast.Float8E4M3FN}} {
		vi := fields(t, g[c.field][0].([]byte))
		tensor := fields(t, fields(t, vi[2][0].([]byte))[1][0].([]byte))
		dim := fields(t, fields(t, tensor[2][0].([]byte))[1][0].([]byte))
		if string(vi[1][0].([]byte)) != c.name || tensor[1][0].(uint64) != uint64(c.elem) || dim[1][0].(uint64) != 4096 {
			t.Fatalf("value info %d: %v %v %v", c.field, vi, tensor, dim)
		}
	}
}

// With ONNX Runtime installed (ORT_LIB or /tmp/ort), FLOAT → FLOAT16 runs
// and agrees with tensorcast bit for bit; skipped otherwise.
func TestORTFloat16(t *testing.T) {
	lib := os.Getenv("ORT_LIB")
	if lib == "" {
		m, _ := filepath.Glob("/tmp/ort/node_modules/onnxruntime-node/bin/napi-v*/linux/x64/libonnxruntime.so.1")
		if len(m) == 0 {
			t.Skip("no ONNX Runtime library")
		}
		lib = m[0]
	}
	h, err := newHarness(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer ort.DestroyEnvironment()
	r := h.run(&config{n: 4096, reps: 1, batch: 1e5, seed: 1}, []tensorcast.DataType{tensorcast.Float, tensorcast.Float16})
	if len(r.results) != 2 {
		t.Fatalf("%d results", len(r.results))
	}
	for _, x := range r.results {
		if x.err != nil || x.mismatch != 0 || !(x.speedup > 0) {
			t.Fatalf("%v -> %v: err %v, %d mismatches (%s), speed-up %v", x.from, x.to, x.err, x.mismatch, x.example, x.speedup)
		}
	}
}
