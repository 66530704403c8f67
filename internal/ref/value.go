package ref

import "math/bits"

// Class classifies a Value.
type Class uint8

// The classes of values.
const (
	Zero Class = iota
	Finite
	Inf
	NaN
)

// Value is an exact number (or ±0, ±Inf, NaN) on its way from one type to
// another.
//
// A Finite value is Mant × 2^Exp, with Mant normalised so that bit 63 is set;
// when Sticky is true the exact value is strictly between Mant × 2^Exp and
// (Mant+1) × 2^Exp (only decimal strings produce such values).
//
// A NaN keeps its sign and, for the IEEE source types, its payload: Payload
// holds the stored significand bits below the quiet bit, left-aligned so that
// the bit just below the quiet bit is bit 63.
type Value struct {
	Class   Class
	Neg     bool
	Mant    uint64
	Exp     int
	Sticky  bool
	Payload uint64
}

// FromUint returns the exact value of an unsigned integer.
func FromUint(u uint64, neg bool) Value {
	if u == 0 {
		return Value{Class: Zero, Neg: neg}
	}
	s := bits.LeadingZeros64(u)
	return Value{Class: Finite, Neg: neg, Mant: u << s, Exp: -s}
}

// FromInt returns the exact value of a signed integer.
func FromInt(i int64) Value {
	if i < 0 {
		return FromUint(uint64(-i), true) // -MinInt64 wraps to 2^63 as a uint64: exact
	}
	return FromUint(uint64(i), false)
}

// ilog2 is floor(log2 |v|) for a Finite value.
func (v Value) ilog2() int { return v.Exp + 63 }

// truncate returns the integer part of |v| and whether it fits in a uint64.
func (v Value) truncate() (uint64, bool) {
	switch v.Class {
	case Zero:
		return 0, true
	case Finite:
		if v.Exp >= 1 { // ≥ 2^64
			return 0, false
		}
		if v.Exp <= -64 {
			return 0, true
		}
		return v.Mant >> uint(-v.Exp), true
	}
	return 0, false
}

// roundToInt returns |v| / 2^q rounded to the nearest integer, ties to even,
// as an exact uint64 (callers keep the result below 2^63).
func (v Value) roundToInt(q int) uint64 {
	shift := q - v.Exp // v.Mant / 2^shift
	if shift <= 0 {
		return v.Mant << uint(-shift) // exact; callers guarantee no overflow
	}
	if shift > 64 {
		return 0 // below a quarter of a unit: rounds to 0
	}
	var kept, rem uint64
	var half uint64
	if shift == 64 {
		kept, rem, half = 0, v.Mant, 1<<63
	} else {
		kept = v.Mant >> uint(shift)
		rem = v.Mant & (1<<uint(shift) - 1)
		half = 1 << uint(shift-1)
	}
	switch {
	case rem > half, rem == half && v.Sticky:
		kept++
	case rem == half && kept&1 == 1:
		kept++
	}
	return kept
}
