package tensorcast

import (
	"fmt"
	"strconv"
	"strings"
)

// TypeName is one entry of the table of type names that ParseDataType, the
// tensorcast command line (convert -from/-to, tensorcast types) and the
// README share: a spelling and the type it names, or a spelling refused as
// ambiguous.
type TypeName struct {
	// Name is the spelling as the convention writes it: "FLOAT16",
	// "tensor(float16)", "10", "F16", "<f2", "float16", "fp16".
	Name string
	// Type is the type Name parses to; Undefined for an ambiguous spelling.
	Type DataType
	// Source is the convention: "ONNX" (enum names, type strings, enum
	// numbers), "safetensors", "numpy" (dtype strings and names), "other"
	// (ml_dtypes and PyTorch names, common aliases) or "ambiguous".
	Source string
	// Candidates are the types an ambiguous spelling may mean, and Hint
	// says why and what to write instead; both are empty otherwise.
	Candidates []DataType
	Hint       string
}

// The naming conventions of TypeName.Source.
const (
	srcONNX        = "ONNX"
	srcSafetensors = "safetensors"
	srcNumpy       = "numpy"
	srcOther       = "other"
	srcAmbiguous   = "ambiguous"
)

// Ambiguous spellings are those that two conventions in common use read as
// two different types tensorcast has; they are refused in any case, with a
// message naming the candidates, rather than quietly picking one. A bare
// numpy code counts bytes where other conventions count bits (numpy's i8 is
// int64, Rust's and safetensors' I8 is int8; numpy's f4 is float32,
// safetensors' F4 is FLOAT4E2M1), and `float` is float32 in ONNX, C and
// PyTorch but float64 in numpy and Python. Spellings one convention reads as
// a type tensorcast lacks are not ambiguous: numpy's 'f16' is float128, so
// f16 is FLOAT16. The exact spellings FLOAT (ONNX's enum name), I8 and U8
// (safetensors' names) are not ambiguous either: no other convention writes
// them in capitals.
var ambiguousNames = []TypeName{
	{Name: "i8", Candidates: []DataType{Int64, Int8}, Hint: "numpy's i8 is INT64 and safetensors' I8 is INT8; write '<i8' or I8"},
	{Name: "u8", Candidates: []DataType{Uint64, Uint8}, Hint: "numpy's u8 is UINT64 and safetensors' U8 is UINT8; write '<u8' or U8"},
	{Name: "i4", Candidates: []DataType{Int32, Int4}, Hint: "numpy's i4 is INT32 and a 4-bit i4 is INT4; write '<i4' or INT4"},
	{Name: "u4", Candidates: []DataType{Uint32, Uint4}, Hint: "numpy's u4 is UINT32 and a 4-bit u4 is UINT4; write '<u4' or UINT4"},
	{Name: "i2", Candidates: []DataType{Int16, Int2}, Hint: "numpy's i2 is INT16 and a 2-bit i2 is INT2; write '<i2' or INT2"},
	{Name: "u2", Candidates: []DataType{Uint16, Uint2}, Hint: "numpy's u2 is UINT16 and a 2-bit u2 is UINT2; write '<u2' or UINT2"},
	{Name: "f4", Candidates: []DataType{Float, Float4E2M1}, Hint: "numpy's f4 is FLOAT (float32) and safetensors' F4 is FLOAT4E2M1; write '<f4' or FLOAT4E2M1"},
	{Name: "f8", Candidates: []DataType{Double, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0},
		Hint: "numpy's f8 is DOUBLE (float64) and an 8-bit f8 is one of FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT8E8M0; write '<f8' or F8_E4M3, F8_E5M2, F8_E8M0, FLOAT8E4M3FNUZ, FLOAT8E5M2FNUZ"},
	{Name: "fp8", Candidates: []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0},
		Hint: "it may be any of five 8-bit float types, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT8E8M0; write F8_E4M3, FLOAT8E4M3FNUZ, F8_E5M2, FLOAT8E5M2FNUZ or F8_E8M0"},
	{Name: "float8", Candidates: []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0},
		Hint: "it may be any of five 8-bit float types, FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT8E8M0; write F8_E4M3, FLOAT8E4M3FNUZ, F8_E5M2, FLOAT8E5M2FNUZ or F8_E8M0"},
	{Name: "float", Candidates: []DataType{Float, Double}, Hint: "ONNX's, C's and PyTorch's float is FLOAT (32-bit) and numpy's and Python's float is DOUBLE (64-bit); write float32 or float64 (FLOAT in capitals is ONNX's name for float32)"},
	{Name: "int", Candidates: []DataType{Int32, Int64}, Hint: "C's and PyTorch's int is INT32 and numpy's int is INT64; write int32 or int64"},
	{Name: "uint", Candidates: []DataType{Uint32, Uint64}, Hint: "C's unsigned int is UINT32 and numpy's uint is UINT64; write uint32 or uint64"},
}

// otherNames are the spellings of the conventions other than ONNX's.
var otherNames = []TypeName{
	{Name: "BOOL", Type: Bool, Source: srcSafetensors},
	{Name: "U8", Type: Uint8, Source: srcSafetensors},
	{Name: "I8", Type: Int8, Source: srcSafetensors},
	{Name: "I16", Type: Int16, Source: srcSafetensors},
	{Name: "U16", Type: Uint16, Source: srcSafetensors},
	{Name: "I32", Type: Int32, Source: srcSafetensors},
	{Name: "U32", Type: Uint32, Source: srcSafetensors},
	{Name: "I64", Type: Int64, Source: srcSafetensors},
	{Name: "U64", Type: Uint64, Source: srcSafetensors},
	{Name: "F16", Type: Float16, Source: srcSafetensors},
	{Name: "BF16", Type: BFloat16, Source: srcSafetensors},
	{Name: "F32", Type: Float, Source: srcSafetensors},
	{Name: "F64", Type: Double, Source: srcSafetensors},
	{Name: "F8_E4M3", Type: Float8E4M3FN, Source: srcSafetensors},
	{Name: "F8_E5M2", Type: Float8E5M2, Source: srcSafetensors},
	{Name: "F8_E8M0", Type: Float8E8M0, Source: srcSafetensors},

	// numpy: dtype strings as .npy headers write them (little-endian or,
	// for one-byte types, '|'; '<' is accepted there too), bare codes that
	// are not ambiguous, and dtype names.
	{Name: "|b1", Type: Bool, Source: srcNumpy},
	{Name: "<b1", Type: Bool, Source: srcNumpy},
	{Name: "b1", Type: Bool, Source: srcNumpy},
	{Name: "bool", Type: Bool, Source: srcNumpy},
	{Name: "bool_", Type: Bool, Source: srcNumpy},
	{Name: "|i1", Type: Int8, Source: srcNumpy},
	{Name: "<i1", Type: Int8, Source: srcNumpy},
	{Name: "i1", Type: Int8, Source: srcNumpy},
	{Name: "int8", Type: Int8, Source: srcNumpy},
	{Name: "|u1", Type: Uint8, Source: srcNumpy},
	{Name: "<u1", Type: Uint8, Source: srcNumpy},
	{Name: "u1", Type: Uint8, Source: srcNumpy},
	{Name: "uint8", Type: Uint8, Source: srcNumpy},
	{Name: "<i2", Type: Int16, Source: srcNumpy},
	{Name: "int16", Type: Int16, Source: srcNumpy},
	{Name: "<u2", Type: Uint16, Source: srcNumpy},
	{Name: "uint16", Type: Uint16, Source: srcNumpy},
	{Name: "<i4", Type: Int32, Source: srcNumpy},
	{Name: "int32", Type: Int32, Source: srcNumpy},
	{Name: "<u4", Type: Uint32, Source: srcNumpy},
	{Name: "uint32", Type: Uint32, Source: srcNumpy},
	{Name: "<i8", Type: Int64, Source: srcNumpy},
	{Name: "int64", Type: Int64, Source: srcNumpy},
	{Name: "<u8", Type: Uint64, Source: srcNumpy},
	{Name: "uint64", Type: Uint64, Source: srcNumpy},
	{Name: "<f2", Type: Float16, Source: srcNumpy},
	{Name: "f2", Type: Float16, Source: srcNumpy},
	{Name: "float16", Type: Float16, Source: srcNumpy},
	{Name: "half", Type: Float16, Source: srcNumpy},
	{Name: "<f4", Type: Float, Source: srcNumpy},
	{Name: "float32", Type: Float, Source: srcNumpy},
	{Name: "single", Type: Float, Source: srcNumpy},
	{Name: "<f8", Type: Double, Source: srcNumpy},
	{Name: "float64", Type: Double, Source: srcNumpy},
	{Name: "double", Type: Double, Source: srcNumpy},

	// ml_dtypes' and PyTorch's names, and common aliases (Rust-style i16,
	// f32 ... match the safetensors names, as case does not matter).
	{Name: "fp16", Type: Float16, Source: srcOther},
	{Name: "bfloat16", Type: BFloat16, Source: srcOther},
	{Name: "fp32", Type: Float, Source: srcOther},
	{Name: "fp64", Type: Double, Source: srcOther},
	{Name: "float8_e4m3fn", Type: Float8E4M3FN, Source: srcOther},
	{Name: "float8_e4m3fnuz", Type: Float8E4M3FNUZ, Source: srcOther},
	{Name: "float8_e5m2", Type: Float8E5M2, Source: srcOther},
	{Name: "float8_e5m2fnuz", Type: Float8E5M2FNUZ, Source: srcOther},
	{Name: "float8_e8m0fnu", Type: Float8E8M0, Source: srcOther},
	{Name: "float8e8m0fnu", Type: Float8E8M0, Source: srcOther},
	{Name: "float4_e2m1fn", Type: Float4E2M1, Source: srcOther},
	{Name: "float4e2m1fn", Type: Float4E2M1, Source: srcOther},
	{Name: "fp4", Type: Float4E2M1, Source: srcOther},
}

// typeNames is the whole table: for each type in enum order its ONNX enum
// name, type string (tensor(float16)) and number, then the other
// conventions' names, then the ambiguous spellings.
var typeNames = func() []TypeName {
	var all []TypeName
	for _, t := range AllTypes() {
		all = append(all, TypeName{Name: t.String(), Type: t, Source: srcONNX})
		if t != Undefined {
			all = append(all, TypeName{Name: "tensor(" + strings.ToLower(t.String()) + ")", Type: t, Source: srcONNX})
		}
		all = append(all, TypeName{Name: strconv.Itoa(int(t)), Type: t, Source: srcONNX})
	}
	all = append(all, otherNames...)
	for _, a := range ambiguousNames {
		a.Source = srcAmbiguous
		all = append(all, a)
	}
	return all
}()

// The lookup maps ParseDataType uses, built from typeNames: exact spellings,
// upper-cased spellings, and upper-cased ambiguous spellings.
var exactNames, foldedNames, ambiguousByName = func() (map[string]DataType, map[string]DataType, map[string]*TypeName) {
	exact, folded, amb := map[string]DataType{}, map[string]DataType{}, map[string]*TypeName{}
	for i := range typeNames {
		n := &typeNames[i]
		if n.Source == srcAmbiguous {
			amb[strings.ToUpper(n.Name)] = n
			continue
		}
		exact[n.Name] = n.Type
		folded[strings.ToUpper(n.Name)] = n.Type
	}
	return exact, folded, amb
}()

// TypeNames returns the table of type names ParseDataType reads (a copy):
// every spelling of every convention, and the refused ambiguous ones.
func TypeNames() []TypeName {
	out := make([]TypeName, len(typeNames))
	copy(out, typeNames)
	for i := range out {
		out[i].Candidates = append([]DataType(nil), out[i].Candidates...)
	}
	return out
}

// ParseDataType parses a type name from the table TypeNames lists: ONNX's
// enum names ("FLOAT16", "float8e4m3fn"), type strings ("tensor(float16)")
// and enum numbers ("10"); safetensors' names ("F16", "BF16", "F8_E4M3");
// numpy's dtype strings and names ("<f2", "f2", "float16", "<i8", "int64",
// "|b1", "bool_"); ml_dtypes' and PyTorch's names and common aliases
// ("bfloat16", "float8_e4m3fn", "fp16", "f32"). Surrounding space is
// ignored.
//
// Names match exactly as the table writes them, and otherwise in any case,
// except the ambiguous spellings, which are refused in any case with an
// error that names the candidates: i8 and u8 (numpy's int64/uint64 or the
// 8-bit INT8/UINT8), i4, u4, i2, u2, f4, f8 (numpy's byte counts or bit
// counts), fp8 and float8 (five 8-bit float types), float (FLOAT in ONNX
// and C, float64 in numpy and Python), int and uint. Their exact capital
// spellings FLOAT (ONNX), I8 and U8 (safetensors) are not ambiguous and
// parse. numpy's big-endian ('>f2') and native-order ('=f2') strings are
// refused: tensorcast's tensors are little-endian, as ONNX raw_data and
// safetensors are.
func ParseDataType(s string) (DataType, error) {
	orig := s
	s = strings.TrimSpace(s)
	if t, ok := exactNames[s]; ok {
		return t, nil
	}
	up := strings.ToUpper(s)
	if a, ok := ambiguousByName[up]; ok {
		return Undefined, fmt.Errorf("tensorcast: %q is ambiguous: %s", s, a.Hint)
	}
	if strings.HasPrefix(up, "TENSOR(") && strings.HasSuffix(up, ")") {
		up = "TENSOR(" + strings.TrimSpace(up[len("TENSOR("):len(up)-1]) + ")"
	}
	if t, ok := foldedNames[up]; ok {
		return t, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if _, ok := DataType(n).info(); ok {
			return DataType(n), nil // "017", "+17"
		}
		return Undefined, fmt.Errorf("tensorcast: unknown data type number %d", n)
	}
	if len(s) > 1 && strings.IndexByte("<>=|", s[0]) >= 0 {
		if t, ok := exactNames["<"+s[1:]]; ok {
			switch s[0] {
			case '>':
				return Undefined, fmt.Errorf("tensorcast: %q is big-endian: tensorcast's tensors are little-endian, as ONNX raw_data and safetensors are; write '<%s'", s, s[1:])
			case '=':
				return Undefined, fmt.Errorf("tensorcast: %q: native byte order '=' does not say which order the data has; write '<%s'", s, s[1:])
			case '|':
				return Undefined, fmt.Errorf("tensorcast: %q: byte order '|' on a %d-byte type; write '<%s'", s, t.BitSize()/8, s[1:])
			}
		}
	}
	return Undefined, fmt.Errorf("tensorcast: unknown data type %q", orig)
}
