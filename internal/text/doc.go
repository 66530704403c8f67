// Package text is tensorcast's fast path for STRING tensors: the same
// results as internal/ref's Format and Parse (the definition), bit for bit
// and byte for byte, at strconv's speed.
//
// Formatting (format.go):
//
//   - FLOAT and DOUBLE take their shortest round-trip digits from
//     strconv.AppendFloat (Go's Ryū) exactly as ref.Format does, and lay
//     them out in tensorcast's style ("1.0", "0.0001", "1e-05", "1e+16")
//     without allocating; one call's strings share a few backing strings.
//   - The 8-, 4- and 2-bit types read a table of their strings.
//   - FLOAT16 and BFLOAT16 read a table of the 32768 non-negative patterns,
//     each stored with a leading '-' so that a negative value is the same
//     bytes one further back; built once on first use (see table16).
//   - The wider integers go through strconv.AppendInt/AppendUint.
//
// Parsing (parse.go): one scan checks ref's grammar and collects the first
// 19 significant digits; integer and BOOL targets are decided from those
// digits directly, float targets from the correctly rounded float64 of the
// decimal, narrowed exactly; only where that float64 cannot decide the
// result (it lands exactly on a rounding boundary of the target, or more
// than 19 significant digits matter) does it call ref.Parse, and every
// malformed string goes to ref.Parse too, so the errors are ref's.
package text
