// Package tensorcast implements ONNX's Cast and CastLike operators (opsets
// 1–25) between every ONNX element type: FLOAT, DOUBLE, FLOAT16, BFLOAT16,
// the four float8 types, FLOAT8E8M0, FLOAT4E2M1, the 2-, 4-, 8-, 16-, 32- and
// 64-bit integers, BOOL and STRING, with ONNX's saturate and round_mode
// attributes.
//
// Results are bit-exact: every conversion rounds the exact source value once,
// to nearest even, and follows the rules in the README's semantics table
// (which also records where ONNX's own documents disagree and why). A
// readable reference implementation (internal/ref) defines those rules; the
// portable kernels and the AVX-512, AVX2 and NEON kernels are tested against
// it on every input where the input space allows (all 2^32 float32 patterns).
//
// Two ways in:
//
//   - The typed entry points (Float32ToFloat16, Float16ToFloat32,
//     Float32ToBFloat16, BFloat16ToFloat32, Float32ToFloat8, Float8ToFloat32)
//     convert Go slices with the fastest kernel the CPU supports.
//   - Cast converts raw tensor bytes (ONNX TensorProto.raw_data layout)
//     between any two types; CastFromStrings and CastToStrings handle STRING.
//   - Convert is Cast on typed Go slices ([]float32, []int64,
//     []float16.Float16, a user's own ~uint16 type, ...) for every numeric
//     pair; Bytes and View convert between such slices and raw bytes
//     without copying.
//
// CastLike is Cast with the target type taken from the second input.
// ParseDataType reads the type names of ONNX, safetensors and numpy from one
// table (TypeNames) and refuses ambiguous spellings such as "i8" and "float".
//
// The kernel tier is chosen at init from the CPU's features (see KernelName,
// Kernels and Tiers); GODEBUG=cpu.avx512f=off or cpu.avx2=off lowers it, and
// the build tags purego or noasm leave out all assembly.
package tensorcast
