// Package ref is the reference implementation of tensorcast: the slow,
// readable definition of every conversion. Every kernel of the library (the
// portable Go kernels and the generated assembly) is tested against it bit for
// bit; nothing on a hot path calls it.
//
// A conversion decodes the source element into an exact Value (sign, a 64-bit
// significand, a binary exponent, and a sticky bit for the rare sources such
// as decimal strings that carry more than 64 significant bits), then encodes
// that Value into the target type, rounding exactly once. Because no source
// but a decimal string has more than 64 significant bits and no target more
// than 53, this rounds every conversion once, correctly.
package ref
