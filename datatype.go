package tensorcast

import (
	"math"
	"math/bits"
	"strconv"
)

// DataType is an ONNX element type. Its values are those of ONNX's
// TensorProto.DataType enum, so a DataType read from a model can be used as is.
type DataType int32

// The ONNX element types, numbered as in TensorProto.DataType.
const (
	Undefined      DataType = 0
	Float          DataType = 1
	Uint8          DataType = 2
	Int8           DataType = 3
	Uint16         DataType = 4
	Int16          DataType = 5
	Int32          DataType = 6
	Int64          DataType = 7
	String         DataType = 8
	Bool           DataType = 9
	Float16        DataType = 10
	Double         DataType = 11
	Uint32         DataType = 12
	Uint64         DataType = 13
	Complex64      DataType = 14
	Complex128     DataType = 15
	BFloat16       DataType = 16
	Float8E4M3FN   DataType = 17
	Float8E4M3FNUZ DataType = 18
	Float8E5M2     DataType = 19
	Float8E5M2FNUZ DataType = 20
	Uint4          DataType = 21
	Int4           DataType = 22
	Float4E2M1     DataType = 23
	Float8E8M0     DataType = 24
	Uint2          DataType = 25
	Int2           DataType = 26
)

// typeInfo is what the library knows about one element type.
type typeInfo struct {
	name   string // ONNX enum name
	bits   int    // storage bits per element; 0 for String, Undefined
	opset  int    // first Cast opset whose type lists accept the type; 0 if none does
	rng    string // human-readable value range, for `tensorcast types`
	castOK bool   // Cast converts it (false for Undefined and the complex types)
}

var typeInfos = [...]typeInfo{
	Undefined:      {"UNDEFINED", 0, 0, "-", false},
	Float:          {"FLOAT", 32, 1, "±3.4028235e+38, IEEE binary32", true},
	Uint8:          {"UINT8", 8, 1, "0..255", true},
	Int8:           {"INT8", 8, 1, "-128..127", true},
	Uint16:         {"UINT16", 16, 1, "0..65535", true},
	Int16:          {"INT16", 16, 1, "-32768..32767", true},
	Int32:          {"INT32", 32, 1, "-2^31..2^31-1", true},
	Int64:          {"INT64", 64, 1, "-2^63..2^63-1", true},
	String:         {"STRING", 0, 9, "decimal text", true},
	Bool:           {"BOOL", 8, 1, "false/true (one byte)", true},
	Float16:        {"FLOAT16", 16, 1, "±65504, IEEE binary16", true},
	Double:         {"DOUBLE", 64, 1, "±1.7976931348623157e+308, IEEE binary64", true},
	Uint32:         {"UINT32", 32, 1, "0..2^32-1", true},
	Uint64:         {"UINT64", 64, 1, "0..2^64-1", true},
	Complex64:      {"COMPLEX64", 64, 0, "not supported by Cast", false},
	Complex128:     {"COMPLEX128", 128, 0, "not supported by Cast", false},
	BFloat16:       {"BFLOAT16", 16, 13, "±3.3895314e+38, 8 significant bits", true},
	Float8E4M3FN:   {"FLOAT8E4M3FN", 8, 19, "±448, no Inf, NaN 0x7F/0xFF", true},
	Float8E4M3FNUZ: {"FLOAT8E4M3FNUZ", 8, 19, "±240, no Inf, no -0, NaN 0x80", true},
	Float8E5M2:     {"FLOAT8E5M2", 8, 19, "±57344, Inf and NaN", true},
	Float8E5M2FNUZ: {"FLOAT8E5M2FNUZ", 8, 19, "±57344, no Inf, no -0, NaN 0x80", true},
	Uint4:          {"UINT4", 4, 21, "0..15, packed two per byte", true},
	Int4:           {"INT4", 4, 21, "-8..7, packed two per byte", true},
	Float4E2M1:     {"FLOAT4E2M1", 4, 23, "±6, no Inf, no NaN, packed two per byte", true},
	Float8E8M0:     {"FLOAT8E8M0", 8, 24, "2^-127..2^127, unsigned powers of two, NaN 0xFF", true},
	Uint2:          {"UINT2", 2, 25, "0..3, packed four per byte", true},
	Int2:           {"INT2", 2, 25, "-2..1, packed four per byte", true},
}

// AllTypes lists every DataType value ONNX defines, in enum order.
func AllTypes() []DataType {
	ts := make([]DataType, len(typeInfos))
	for i := range ts {
		ts[i] = DataType(i)
	}
	return ts
}

// info returns the type's entry, or a zero entry for unknown numbers. It
// returns a pointer: the entries are read on every Cast call.
func (t DataType) info() (*typeInfo, bool) {
	if t < 0 || int(t) >= len(typeInfos) {
		return &unknownType, false
	}
	return &typeInfos[t], true
}

var unknownType typeInfo

// String returns the ONNX enum name, e.g. "FLOAT8E4M3FN", or "DataType(N)"
// for a number ONNX does not define.
func (t DataType) String() string {
	if in, ok := t.info(); ok {
		return in.name
	}
	return "DataType(" + strconv.Itoa(int(t)) + ")"
}

// BitSize returns the storage size of one element in bits: 2, 4, 8, 16, 32,
// 64 (128 for Complex128). It is 0 for String, Undefined and unknown values.
func (t DataType) BitSize() int {
	in, _ := t.info()
	return in.bits
}

// Size returns the number of bytes that hold n elements of type t, with 2- and
// 4-bit types packed (rounded up to whole bytes). It returns 0 for String,
// Undefined, unknown types and n <= 0, and math.MaxInt when the byte count
// does not fit in an int (so that a length check against it fails: no slice
// holds MaxInt bytes). Use SizeOK to tell that case apart.
func (t DataType) Size(n int) int {
	s, ok := t.SizeOK(n)
	if !ok {
		return math.MaxInt
	}
	return s
}

// SizeOK returns the number of bytes that hold n elements of type t, and false
// when that number overflows int. It returns 0, true for String, Undefined,
// unknown types and n <= 0.
func (t DataType) SizeOK(n int) (int, bool) {
	b := t.BitSize()
	if n <= 0 || b == 0 {
		return 0, true
	}
	switch b {
	case 2:
		return n/4 + b2i(n%4 != 0), true
	case 4:
		return n/2 + n%2, true
	}
	// b is 8, 16, 32 or 64: a shift, not a division (Cast calls this twice
	// per call, and a 64-bit division cost a third of a 1-element Cast).
	s := uint(bits.TrailingZeros(uint(b)) - 3)
	if n > math.MaxInt>>s {
		return 0, false
	}
	return n << s, true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// IsFloat reports whether t is a floating-point type (including the float8,
// float4 and E8M0 types).
func (t DataType) IsFloat() bool {
	switch t {
	case Float, Double, Float16, BFloat16, Float8E4M3FN, Float8E4M3FNUZ,
		Float8E5M2, Float8E5M2FNUZ, Float4E2M1, Float8E8M0:
		return true
	}
	return false
}

// IsInteger reports whether t is a signed or unsigned integer type of any width.
func (t DataType) IsInteger() bool {
	switch t {
	case Uint8, Int8, Uint16, Int16, Int32, Int64, Uint32, Uint64, Uint4, Int4, Uint2, Int2:
		return true
	}
	return false
}

// Castable reports whether Cast accepts t as a source or target type.
// Undefined, the complex types and unknown numbers are not castable.
func (t DataType) Castable() bool {
	in, ok := t.info()
	return ok && in.castOK
}

// Opset returns the first opset of Cast whose type lists include t, or 0
// when no version of Cast accepts it.
func (t DataType) Opset() int {
	in, _ := t.info()
	return in.opset
}

// Range describes the values t can hold, for people (e.g. `tensorcast types`).
func (t DataType) Range() string {
	in, _ := t.info()
	return in.rng
}
