// Package ref is the reference implementation of tensorcast: the slow,
// readable definition of every conversion. It serves the tests: every kernel,
// stage and plan of the library (the portable Go code and the generated
// assembly) is tested against it bit for bit. No conversion runs through it
// element by element, with two exceptions that are not hot paths: the lookup
// tables of the table steps (tensorcast's tables.go) are computed from it
// once, on first use, and a big-endian machine (or unaligned data where the
// architecture forbids unaligned loads) converts through it, as the kernels
// read elements in place.
//
// A conversion decodes the source element into an exact Value (sign, a 64-bit
// significand, a binary exponent, and a sticky bit for the rare sources such
// as decimal strings that carry more than 64 significant bits), then encodes
// that Value into the target type, rounding exactly once. Because no source
// but a decimal string has more than 64 significant bits and no target more
// than 53, this rounds every conversion once, correctly.
package ref
