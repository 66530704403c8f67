package tensorcast

// CastLike is ONNX's CastLike operator: it converts n elements of src, of
// type from, to the element type of a second tensor, like, writing them to
// dst. ONNX's second input supplies only its element type (its data is
// never read), so that is all CastLike takes: pass the second tensor's
// DataType. The result is exactly Cast(dst, like, src, from, n, opt), with
// the same layout rules, errors and Options; ONNX's CastLike has the same
// saturate and round_mode attributes as Cast (from CastLike-19 and -24), and
// tensorcast applies Options.RoundMode there too, although ONNX's reference
// implementation ignores CastLike's round_mode. A STRING like tensor is
// served by CastToStrings, a STRING src by CastFromStrings.
//
// The parameters follow Cast's order (each slice beside its type) rather
// than ONNX's input order, so that a call reads the same as the Cast it
// stands for. For typed slices, Convert with to set to the like tensor's
// type is the same operation.
func CastLike(dst []byte, like DataType, src []byte, from DataType, n int, opt Options) error {
	return Cast(dst, like, src, from, n, opt)
}
