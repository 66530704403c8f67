package ref

// Kind is an ONNX element type, numbered as ONNX's TensorProto.DataType (and as
// tensorcast.DataType).
type Kind int32

// The ONNX element types.
const (
	Undefined      Kind = 0
	Float          Kind = 1
	Uint8          Kind = 2
	Int8           Kind = 3
	Uint16         Kind = 4
	Int16          Kind = 5
	Int32          Kind = 6
	Int64          Kind = 7
	String         Kind = 8
	Bool           Kind = 9
	Float16        Kind = 10
	Double         Kind = 11
	Uint32         Kind = 12
	Uint64         Kind = 13
	Complex64      Kind = 14
	Complex128     Kind = 15
	BFloat16       Kind = 16
	Float8E4M3FN   Kind = 17
	Float8E4M3FNUZ Kind = 18
	Float8E5M2     Kind = 19
	Float8E5M2FNUZ Kind = 20
	Uint4          Kind = 21
	Int4           Kind = 22
	Float4E2M1     Kind = 23
	Float8E8M0     Kind = 24
	Uint2          Kind = 25
	Int2           Kind = 26
)

// Bits is the storage width of one element, 0 for String and unsupported kinds.
func (k Kind) Bits() int {
	switch k {
	case Uint2, Int2:
		return 2
	case Uint4, Int4, Float4E2M1:
		return 4
	case Uint8, Int8, Bool, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0:
		return 8
	case Uint16, Int16, Float16, BFloat16:
		return 16
	case Float, Int32, Uint32:
		return 32
	case Double, Int64, Uint64:
		return 64
	}
	return 0
}

// Signed reports whether k is a signed integer kind.
func (k Kind) Signed() bool {
	switch k {
	case Int2, Int4, Int8, Int16, Int32, Int64:
		return true
	}
	return false
}

// IsInt reports whether k is an integer kind of any width or signedness.
func (k Kind) IsInt() bool {
	switch k {
	case Uint2, Int2, Uint4, Int4, Uint8, Int8, Uint16, Int16, Uint32, Int32, Uint64, Int64:
		return true
	}
	return false
}

// IsFloat reports whether k is a floating-point kind.
func (k Kind) IsFloat() bool { return formatOf(k) != nil }

// Supported reports whether the reference converts k (every kind but
// Undefined, the complex kinds and unknown numbers). String is supported
// through Format and Parse.
func (k Kind) Supported() bool {
	return k == String || k == Bool || k.IsInt() || k.IsFloat()
}

// RoundMode is ONNX's round_mode for FLOAT8E8M0 targets.
type RoundMode uint8

// The E8M0 round modes, in tensorcast.RoundMode's order.
const (
	RoundUp RoundMode = iota
	RoundDown
	RoundNearest
)

// Options are ONNX Cast's attributes.
type Options struct {
	Saturate bool      // ONNX saturate (default true in ONNX)
	Round    RoundMode // FLOAT8E8M0 targets only
}
