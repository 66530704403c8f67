package arm64

import (
	"fmt"
	"math"
	"strings"
)

// The stages: one NEON function for every ordered pair of the classic
// element types (FLOAT, DOUBLE, the 8- to 64-bit integers and BOOL), each
// converting bit for bit as internal/ref does with Options{Saturate: true}
// (saturation only matters for the float8 targets, which are not here),
// and the round-to-odd stages DOUBLE, INT32, UINT32, INT64, UINT64 → FLOAT
// that the planner's pivots through FLOAT start with (plan.go).
//
// A stage is a chain of steps (the table `stages` below). A step converts
// the lanes of a list of registers, kept in memory order, from one lane
// layout to the next: widening steps double the number of registers
// (SXTL/UXTL/FCVTL write the low and high halves of each source register
// into two), narrowing steps halve it (UZP1/FCVTN pack two registers into
// one). The generator checks each chain (the lane widths and kinds must
// meet, a BOOL source is normalised first, a BOOL target is written as
// 0/1 last) and derives from it everything the Go side needs: the unit (the
// elements of one register at the narrowest layout of the chain), the
// unrolling, the Go wrapper with its tail and race annotations, and the
// registration (stagesGo).

// laneKind is what the lanes of a register hold between steps.
type laneKind uint8

const (
	intLane   laneKind = iota // two's complement or unsigned integers (a step that cares says which)
	floatLane                 // IEEE binary32 or binary64
	maskLane                  // all ones where true, zero where false
)

func (k laneKind) String() string { return [...]string{"int", "float", "mask"}[k] }

// lane is a lane layout: its width in bits and its kind.
type lane struct {
	bits int
	kind laneKind
}

func (l lane) String() string { return fmt.Sprintf("%s%d", l.kind, l.bits) }

// arr is the 128-bit arrangement of l's width.
func (l lane) arr() Arr { return fullArr(l.bits) }

func fullArr(bits int) Arr {
	switch bits {
	case 8:
		return B16
	case 16:
		return H8
	case 32:
		return S4
	case 64:
		return D2
	}
	panic(fmt.Sprintf("no arrangement of %d-bit lanes", bits))
}

// lowArr is the 64-bit arrangement of bits-wide lanes (the source of the
// non-"2" widening forms).
func lowArr(bits int) Arr { return fullArr(bits) - 1 }

// elemType is a tensorcast DataType as the stages see it.
type elemType struct {
	goName string // the DataType constant in package tensorcast
	onnx   string // its ONNX name, for the docs
	short  string // for function names
	bits   int
	kind   laneKind // BOOL: intLane (any nonzero byte is true)
	signed bool
}

var (
	tFloat  = elemType{"Float", "FLOAT", "F32", 32, floatLane, true}
	tDouble = elemType{"Double", "DOUBLE", "F64", 64, floatLane, true}
	tInt8   = elemType{"Int8", "INT8", "I8", 8, intLane, true}
	tUint8  = elemType{"Uint8", "UINT8", "U8", 8, intLane, false}
	tInt16  = elemType{"Int16", "INT16", "I16", 16, intLane, true}
	tUint16 = elemType{"Uint16", "UINT16", "U16", 16, intLane, false}
	tInt32  = elemType{"Int32", "INT32", "I32", 32, intLane, true}
	tUint32 = elemType{"Uint32", "UINT32", "U32", 32, intLane, false}
	tInt64  = elemType{"Int64", "INT64", "I64", 64, intLane, true}
	tUint64 = elemType{"Uint64", "UINT64", "U64", 64, intLane, false}
	tBool   = elemType{"Bool", "BOOL", "Bool", 8, intLane, false}
)

func (t elemType) lane() lane { return lane{t.bits, t.kind} }

// step is one conversion of a stage's chain.
type step struct {
	name string // the instructions, for the docs
	// next returns the layout after the step, or an error if the step does
	// not accept l.
	next func(l lane) (lane, error)
	// consts loads the step's constants into registers before the loop.
	consts func(f *Func, l lane) []Vec
	// apply converts x (len(x) registers of layout l) and returns the
	// result, freeing the registers of x it does not return.
	apply func(f *Func, c []Vec, l lane, x Vec) Vec
}

func accept(name string, ok func(lane) bool, to func(lane) lane) func(lane) (lane, error) {
	return func(l lane) (lane, error) {
		if !ok(l) {
			return l, fmt.Errorf("%s does not accept %s lanes", name, l)
		}
		return to(l), nil
	}
}

func is(k laneKind, widths ...int) func(lane) bool {
	return func(l lane) bool {
		for _, w := range widths {
			if l.kind == k && l.bits == w {
				return true
			}
		}
		return false
	}
}

func either(a, b func(lane) bool) func(lane) bool {
	return func(l lane) bool { return a(l) || b(l) }
}

// Widening and narrowing integers (and masks, whose all-ones lanes
// sign-extend and truncate to all-ones lanes).

// sxtl sign-extends to twice the width.
var sxtl = step{
	name: "SXTL",
	next: accept("SXTL", either(is(intLane, 8, 16, 32), is(maskLane, 8, 16, 32)), func(l lane) lane { return lane{2 * l.bits, l.kind} }),
	apply: func(f *Func, _ []Vec, l lane, x Vec) Vec {
		out := f.Alloc(2 * len(x))
		for i, r := range x {
			f.word(sshll(lowArr(l.bits), out[2*i], r, 0))
			f.word(sshll(fullArr(l.bits), out[2*i+1], r, 0))
		}
		f.Free(x)
		return out
	},
}

// uxtl zero-extends to twice the width.
var uxtl = step{
	name: "UXTL",
	next: accept("UXTL", is(intLane, 8, 16, 32), func(l lane) lane { return lane{2 * l.bits, l.kind} }),
	apply: func(f *Func, _ []Vec, l lane, x Vec) Vec {
		out := f.Alloc(2 * len(x))
		wide := fullArr(2 * l.bits)
		for i, r := range x {
			f.emit("VUXTL", v1(r, lowArr(l.bits)), v1(out[2*i], wide))
			f.emit("VUXTL2", v1(r, fullArr(l.bits)), v1(out[2*i+1], wide))
		}
		f.Free(x)
		return out
	},
}

// narrow keeps the low half of each lane (XTN), two registers at a time
// with UZP1, which takes the even-numbered narrow elements of both.
var narrow = step{
	name: "UZP1",
	next: accept("UZP1", either(is(intLane, 16, 32, 64), is(maskLane, 16, 32, 64)), func(l lane) lane { return lane{l.bits / 2, l.kind} }),
	apply: func(f *Func, _ []Vec, l lane, x Vec) Vec {
		out := f.Alloc(len(x) / 2)
		f.Uzp1(fullArr(l.bits/2), out, x.Even(), x.Odd())
		f.Free(x)
		return out
	},
}

// Integers to floats of the same width: SCVTF and UCVTF round to nearest
// even (the FPCR of a Go program), once, as the reference does.

func intToFloat(name string, enc func(Arr, V, V) Word) step {
	return step{
		name: name,
		next: accept(name, is(intLane, 32, 64), func(l lane) lane { return lane{l.bits, floatLane} }),
		apply: func(f *Func, _ []Vec, l lane, x Vec) Vec {
			f.words2(enc, l.arr(), x, x)
			return x
		},
	}
}

var (
	scvtfStep = intToFloat("SCVTF", scvtf)
	ucvtfStep = intToFloat("UCVTF", ucvtf)
)

// fcvtlStep widens float32 to float64 exactly; NaNs keep their sign and
// payload and become quiet, as the reference's NaN rule says.
var fcvtlStep = step{
	name: "FCVTL",
	next: accept("FCVTL", is(floatLane, 32), func(lane) lane { return lane{64, floatLane} }),
	apply: func(f *Func, _ []Vec, _ lane, x Vec) Vec {
		return f.widenPair(fcvtlD, x)
	},
}

// fcvtnStep narrows float64 to float32, rounding to nearest even once and
// keeping subnormals (a Go program's FPCR has FZ and DN clear); a NaN
// becomes the quiet NaN with its sign and top payload bits, the reference's
// rule (format.nan).
var fcvtnStep = step{
	name: "FCVTN",
	next: accept("FCVTN", is(floatLane, 64), func(lane) lane { return lane{32, floatLane} }),
	apply: func(f *Func, _ []Vec, _ lane, x Vec) Vec {
		return f.narrowPair(fcvtnD, x)
	},
}

// chunks applies fn to x four registers at a time, so that steps needing
// several temporaries per register fit in the register file however many
// registers the stage holds.
func chunks(x Vec, fn func(part Vec)) {
	for i := 0; i < len(x); i += 4 {
		fn(x[i:min(i+4, len(x))])
	}
}

// truncF32 truncates float32 toward zero to the low 32 bits of the integer
// (wrapping modulo 2^32), in integer arithmetic: FCVTZS saturates, and the
// reference wraps. With e the biased exponent, |x| = m · 2^(e-150) where m
// is the significand with its implicit one, so USHL by e-150 (a left shift
// when positive, a truncating right shift when negative) gives |trunc(x)|
// mod 2^32; the sign is applied by (r ^ s) - s with s = x >> 31
// (arithmetic). USHL reads only the low byte of the shift as a signed
// amount and gives 0 for amounts of 32 or more either way, which covers the
// rest:
//   - e-150 ≥ 32 (|x| ≥ 2^55, also ±Inf, NaN and every value beyond the
//     reference's range [-2^63, 2^64)): the low 32 bits of the integer are
//     0, as the reference's are (it gives 0 outside the range, and values
//     within it from 2^55 up are multiples of 2^32);
//   - e-150 ≤ -32, including zeros and subnormals (e = 0: the low byte of
//     -150 is +106, a left shift by 106): |x| < 1 truncates to 0;
//   - the sign bit above the exponent field adds 256 to e, which leaves the
//     low byte unchanged.
var truncF32 = step{
	name: "USHL (truncation in integers)",
	next: accept("truncF32", is(floatLane, 32), func(lane) lane { return lane{32, intLane} }),
	consts: func(f *Func, _ lane) []Vec {
		return []Vec{f.Dup32(150), f.Dup32(0x007FFFFF), f.Dup32(0x00800000)}
	},
	apply: func(f *Func, c []Vec, _ lane, x Vec) Vec {
		bias, frac, one := c[0], c[1], c[2]
		chunks(x, func(x Vec) {
			sh, s := f.Alloc(len(x)), f.Alloc(len(x))
			f.Ushr(S4, sh, x, 23)
			f.Sub(S4, sh, sh, bias)
			f.Sshr(S4, s, x, 31)
			f.And(x, x, frac)
			f.Orr(x, x, one)
			f.Ushl(S4, x, x, sh)
			f.Eor(x, x, s)
			f.Sub(S4, x, x, s)
			f.Free(sh, s)
		})
		return x
	},
}

// truncF64 truncates float64 toward zero to a 64-bit integer, wrapping
// modulo 2^64, and gives 0 outside [-2^63, 2^64), for ±Inf and NaN, as the
// reference does. FCVTZS is exact on [-2^63, 2^63) and FCVTZU on [0, 2^64);
// the sign picks one (BSL) and two comparisons (false for NaN) zero the
// lanes outside the range.
var truncF64 = step{
	name: "FCVTZS, FCVTZU, FCMGE, FCMGT",
	next: accept("truncF64", is(floatLane, 64), func(lane) lane { return lane{64, intLane} }),
	consts: func(f *Func, _ lane) []Vec {
		return []Vec{f.Dup64(math.Float64bits(-0x1p63)), f.Dup64(math.Float64bits(0x1p64))}
	},
	apply: func(f *Func, c []Vec, _ lane, x Vec) Vec {
		lo, hi := c[0], c[1]
		chunks(x, func(x Vec) {
			zs, zu, m := f.Alloc(len(x)), f.Alloc(len(x)), f.Alloc(len(x))
			f.words2(fcvtzs, D2, zs, x)
			f.words2(fcvtzu, D2, zu, x)
			f.Sshr(D2, m, x, 63)
			f.Bsl(m, zs, zu)
			f.words3(fcmge, D2, zs, x, lo)
			f.words3(fcmgt, D2, zu, hi, x)
			f.And(zs, zs, zu)
			f.And(x, m, zs)
			f.Free(zs, zu, m)
		})
		return x
	},
}

// int64ToF32 converts 64-bit integers to float32 rounding once. SCVTF and
// UCVTF to float64 are exact below 2^53 in magnitude; from there on the
// integer first gets its low 11 bits folded into bit 11, a sticky bit
// (x | ((x & 0x7FF) + 0x7FF)) &^ 0x7FF: a round to odd at 2^11, which
// keeps the bits from 11 up and sets bit 11 when a lower bit was set. In
// two's complement too: the bits from 11 up are floor(x / 2^11), so a
// negative x also lands on the odd multiple of 2^11 between the even ones
// around it. The result is a multiple of 2^11 of magnitude at most 2^63,
// which float64 holds exactly (53 bits from bit 11 up), and bit 11 lies
// below float32's rounding bit there (bit 29 or higher), so FCVTN's rounding
// to nearest even is the only one. The signed range test |x| ≥ 2^53 is one
// unsigned comparison: x + 2^53 > 2^54 - 1 (wrapping).
//
// With odd set, FCVTXN replaces FCVTN: the result is rounded to odd
// instead (truncated, the last bit set when inexact). The fold is a round to
// odd at bit 11, and rounding to odd twice, at a finer position and then at
// a coarser one, is rounding to odd once: both keep the truncation and the
// inexactness.
func int64ToF32(signed, odd bool) step {
	name, cvt := "UCVTF", ucvtf
	if signed {
		name, cvt = "SCVTF", scvtf
	}
	narrowEnc := fcvtnD
	name += " (after a round to odd at 2^11), FCVTN"
	if odd {
		name, narrowEnc = name[:len(name)-len("FCVTN")]+"FCVTXN", fcvtxnD
	}
	return step{
		name: name,
		next: accept("int64ToF32", is(intLane, 64), func(lane) lane { return lane{32, floatLane} }),
		consts: func(f *Func, _ lane) []Vec {
			if signed {
				return []Vec{f.Dup64(0x7FF), f.Dup64(1 << 53), f.Dup64(1<<54 - 1)}
			}
			return []Vec{f.Dup64(0x7FF), f.Dup64(1<<53 - 1)}
		},
		apply: func(f *Func, c []Vec, _ lane, x Vec) Vec {
			low := c[0]
			chunks(x, func(x Vec) {
				big, t := f.Alloc(len(x)), f.Alloc(len(x))
				if signed {
					f.Add(D2, t, x, c[1])
					f.Cmhi(D2, big, t, c[2])
				} else {
					f.Cmhi(D2, big, x, c[1])
				}
				f.And(t, x, low)
				f.Add(D2, t, t, low)
				f.Orr(t, t, x)
				f.Bic(t, t, low)
				f.Bit(x, t, big)
				f.words2(cvt, D2, x, x)
				f.Free(big, t)
			})
			return f.narrowPair(narrowEnc, x)
		},
	}
}

// Round to odd (the first step of the planner's plans from the wide sources
// to the narrow floats; plan.go says why the second rounding is then
// exact).

// fcvtxnStep narrows float64 to float32 by round to odd with FCVTXN. For
// the exact float64 of an integer (below 2^64) that is the whole
// conversion.
var fcvtxnStep = step{
	name: "FCVTXN",
	next: accept("FCVTXN", is(floatLane, 64), func(lane) lane { return lane{32, floatLane} }),
	apply: func(f *Func, _ []Vec, _ lane, x Vec) Vec {
		return f.narrowPair(fcvtxnD, x)
	},
}

// doubleToOdd rounds DOUBLE to float32 by round to odd as the planner
// defines it (steps.go, f64ToF32Odd): FCVTXN rounds to odd, keeps
// subnormals and turns NaN into the quiet NaN with its sign and top payload
// bits, but round to odd never overflows to infinity: finite magnitudes of
// 2^128 and more give ±0x7F7FFFFF, the largest float32, where the planner
// wants ±Inf. Those lanes (2^128 ≤ |x| < Inf, two integer comparisons of
// |x|'s bits) are found before narrowing, their masks narrowed alike, and
// subtracting the mask (-1) adds 1 to 0x7F7FFFFF, which is 0x7F800000 with
// the sign untouched.
var doubleToOdd = step{
	name: "FCVTXN, +1 where 2^128 ≤ |x| < Inf",
	next: accept("doubleToOdd", is(floatLane, 64), func(lane) lane { return lane{32, floatLane} }),
	consts: func(f *Func, _ lane) []Vec {
		return []Vec{f.Dup64(1<<63 - 1), f.Dup64(math.Float64bits(0x1p128) - 1), f.Dup64(math.Float64bits(math.Inf(1)))}
	},
	apply: func(f *Func, c []Vec, _ lane, x Vec) Vec {
		abs, below, inf := c[0], c[1], c[2]
		out := f.Alloc(len(x) / 2)
		for i := 0; i < len(x); i += 8 {
			x := x[i:min(i+8, len(x))]
			a, m := f.Alloc(len(x)), f.Alloc(len(x))
			f.And(a, x, abs)
			f.Cmgt(D2, m, a, below)
			f.Cmgt(D2, a, inf, a)
			f.And(m, m, a)
			f.Free(a)
			o := out[i/2 : i/2+len(x)/2]
			f.narrowWide(fcvtxnD, false, o, x.Even())
			f.narrowWide(fcvtxnD, true, o, x.Odd())
			mm := f.Alloc(len(o))
			f.Uzp1(S4, mm, m.Even(), m.Odd())
			f.Free(m)
			f.Sub(S4, o, o, mm)
			f.Free(mm)
		}
		f.Free(x)
		return out
	},
}

// Truth values.

// nonzero: all ones where an integer lane (or a BOOL byte) is nonzero.
var nonzero = step{
	name: "CMTST",
	next: accept("CMTST", is(intLane, 8, 16, 32, 64), func(l lane) lane { return lane{l.bits, maskLane} }),
	apply: func(f *Func, _ []Vec, l lane, x Vec) Vec {
		f.Cmtst(l.arr(), x, x, x)
		return x
	},
}

// floatNonzero: all ones where a float lane is not ±0 (NaN and ±Inf are
// true, as in the reference).
var floatNonzero = step{
	name: "CMTST (magnitude)",
	next: accept("CMTST", is(floatLane, 32, 64), func(l lane) lane { return lane{l.bits, maskLane} }),
	consts: func(f *Func, l lane) []Vec {
		if l.bits == 32 {
			return []Vec{f.Dup32(0x7FFFFFFF)}
		}
		return []Vec{f.Dup64(1<<63 - 1)}
	},
	apply: func(f *Func, c []Vec, l lane, x Vec) Vec {
		f.Cmtst(l.arr(), x, x, c[0])
		return x
	},
}

// one turns a mask into the integers 0 and 1.
var one = step{
	name:   "AND 1",
	next:   accept("AND 1", is(maskLane, 8, 16, 32, 64), func(l lane) lane { return lane{l.bits, intLane} }),
	consts: func(f *Func, l lane) []Vec { return []Vec{f.dupBits(l.bits, 1)} },
	apply: func(f *Func, c []Vec, _ lane, x Vec) Vec {
		f.And(x, x, c[0])
		return x
	},
}

// oneFloat turns a mask into the floats 0.0 and 1.0.
var oneFloat = step{
	name: "AND 1.0",
	next: accept("AND 1.0", is(maskLane, 32, 64), func(l lane) lane { return lane{l.bits, floatLane} }),
	consts: func(f *Func, l lane) []Vec {
		if l.bits == 32 {
			return []Vec{f.Dup32(math.Float32bits(1))}
		}
		return []Vec{f.Dup64(math.Float64bits(1))}
	},
	apply: func(f *Func, c []Vec, _ lane, x Vec) Vec {
		f.And(x, x, c[0])
		return x
	},
}

// Dup64 returns a register holding x in both 64-bit lanes.
func (f *Func) Dup64(x uint64) Vec {
	v := f.Alloc(1)
	f.emit("MOVD", fmt.Sprintf("$0x%x", x), "R9")
	f.emit("VDUP", "R9", v1(v[0], D2))
	return v
}

// dupBits returns a register holding x in every lane of the given width.
func (f *Func) dupBits(bits int, x uint64) Vec {
	switch bits {
	case 8:
		return f.Dup8(uint8(x))
	case 16:
		return f.Dup16(uint16(x))
	case 32:
		return f.Dup32(uint32(x))
	}
	return f.Dup64(x)
}

// stageDef is one entry of the table: a pair and its chain of steps (none
// for the pairs of integers of one width, whose bytes are the same).
type stageDef struct {
	from, to elemType
	steps    []step
	odd      bool // a round-to-odd stage to FLOAT (registerOddStage)
}

func st(from, to elemType, steps ...step) stageDef { return stageDef{from, to, steps, false} }

// odd is a round-to-odd stage from `from` to FLOAT.
func odd(from elemType, steps ...step) stageDef { return stageDef{from, tFloat, steps, true} }

// stages is THE table: every ordered pair of distinct classic types, and
// BOOL → BOOL (normalising any nonzero byte to 1). The first entries are
// the pairs users convert most.
var stages = []stageDef{
	st(tDouble, tFloat, fcvtnStep),
	st(tFloat, tDouble, fcvtlStep),
	st(tInt64, tInt32, narrow),
	st(tInt32, tInt64, sxtl),
	st(tFloat, tInt32, truncF32),
	st(tInt32, tFloat, scvtfStep),
	st(tFloat, tInt64, fcvtlStep, truncF64),
	st(tInt64, tFloat, int64ToF32(true, false)),
	st(tUint8, tFloat, uxtl, uxtl, ucvtfStep),
	st(tInt8, tFloat, sxtl, sxtl, scvtfStep),
	st(tBool, tFloat, nonzero, sxtl, sxtl, oneFloat),
	st(tFloat, tBool, floatNonzero, narrow, narrow, one),
	st(tInt32, tDouble, sxtl, scvtfStep),
	st(tDouble, tInt32, truncF64, narrow),
	st(tInt64, tDouble, scvtfStep),
	st(tDouble, tInt64, truncF64),

	// FLOAT → the rest.
	st(tFloat, tInt8, truncF32, narrow, narrow),
	st(tFloat, tUint8, truncF32, narrow, narrow),
	st(tFloat, tInt16, truncF32, narrow),
	st(tFloat, tUint16, truncF32, narrow),
	st(tFloat, tUint32, truncF32),
	st(tFloat, tUint64, fcvtlStep, truncF64),

	// DOUBLE → the rest.
	st(tDouble, tInt8, truncF64, narrow, narrow, narrow),
	st(tDouble, tUint8, truncF64, narrow, narrow, narrow),
	st(tDouble, tInt16, truncF64, narrow, narrow),
	st(tDouble, tUint16, truncF64, narrow, narrow),
	st(tDouble, tUint32, truncF64, narrow),
	st(tDouble, tUint64, truncF64),
	st(tDouble, tBool, floatNonzero, narrow, narrow, narrow, one),

	// INT8.
	st(tInt8, tDouble, sxtl, sxtl, scvtfStep, fcvtlStep),
	st(tInt8, tUint8),
	st(tInt8, tInt16, sxtl),
	st(tInt8, tUint16, sxtl),
	st(tInt8, tInt32, sxtl, sxtl),
	st(tInt8, tUint32, sxtl, sxtl),
	st(tInt8, tInt64, sxtl, sxtl, sxtl),
	st(tInt8, tUint64, sxtl, sxtl, sxtl),
	st(tInt8, tBool, nonzero, one),

	// UINT8.
	st(tUint8, tDouble, uxtl, uxtl, ucvtfStep, fcvtlStep),
	st(tUint8, tInt8),
	st(tUint8, tInt16, uxtl),
	st(tUint8, tUint16, uxtl),
	st(tUint8, tInt32, uxtl, uxtl),
	st(tUint8, tUint32, uxtl, uxtl),
	st(tUint8, tInt64, uxtl, uxtl, uxtl),
	st(tUint8, tUint64, uxtl, uxtl, uxtl),
	st(tUint8, tBool, nonzero, one),

	// INT16.
	st(tInt16, tFloat, sxtl, scvtfStep),
	st(tInt16, tDouble, sxtl, scvtfStep, fcvtlStep),
	st(tInt16, tInt8, narrow),
	st(tInt16, tUint8, narrow),
	st(tInt16, tUint16),
	st(tInt16, tInt32, sxtl),
	st(tInt16, tUint32, sxtl),
	st(tInt16, tInt64, sxtl, sxtl),
	st(tInt16, tUint64, sxtl, sxtl),
	st(tInt16, tBool, nonzero, narrow, one),

	// UINT16.
	st(tUint16, tFloat, uxtl, ucvtfStep),
	st(tUint16, tDouble, uxtl, ucvtfStep, fcvtlStep),
	st(tUint16, tInt8, narrow),
	st(tUint16, tUint8, narrow),
	st(tUint16, tInt16),
	st(tUint16, tInt32, uxtl),
	st(tUint16, tUint32, uxtl),
	st(tUint16, tInt64, uxtl, uxtl),
	st(tUint16, tUint64, uxtl, uxtl),
	st(tUint16, tBool, nonzero, narrow, one),

	// INT32.
	st(tInt32, tInt8, narrow, narrow),
	st(tInt32, tUint8, narrow, narrow),
	st(tInt32, tInt16, narrow),
	st(tInt32, tUint16, narrow),
	st(tInt32, tUint32),
	st(tInt32, tUint64, sxtl),
	st(tInt32, tBool, nonzero, narrow, narrow, one),

	// UINT32.
	st(tUint32, tFloat, ucvtfStep),
	st(tUint32, tDouble, uxtl, ucvtfStep),
	st(tUint32, tInt8, narrow, narrow),
	st(tUint32, tUint8, narrow, narrow),
	st(tUint32, tInt16, narrow),
	st(tUint32, tUint16, narrow),
	st(tUint32, tInt32),
	st(tUint32, tInt64, uxtl),
	st(tUint32, tUint64, uxtl),
	st(tUint32, tBool, nonzero, narrow, narrow, one),

	// INT64.
	st(tInt64, tInt8, narrow, narrow, narrow),
	st(tInt64, tUint8, narrow, narrow, narrow),
	st(tInt64, tInt16, narrow, narrow),
	st(tInt64, tUint16, narrow, narrow),
	st(tInt64, tUint32, narrow),
	st(tInt64, tUint64),
	st(tInt64, tBool, nonzero, narrow, narrow, narrow, one),

	// UINT64.
	st(tUint64, tFloat, int64ToF32(false, false)),
	st(tUint64, tDouble, ucvtfStep),
	st(tUint64, tInt8, narrow, narrow, narrow),
	st(tUint64, tUint8, narrow, narrow, narrow),
	st(tUint64, tInt16, narrow, narrow),
	st(tUint64, tUint16, narrow, narrow),
	st(tUint64, tInt32, narrow),
	st(tUint64, tUint32, narrow),
	st(tUint64, tInt64),
	st(tUint64, tBool, nonzero, narrow, narrow, narrow, one),

	// BOOL: any nonzero byte is 1.
	st(tBool, tDouble, nonzero, sxtl, sxtl, sxtl, oneFloat),
	st(tBool, tInt8, nonzero, one),
	st(tBool, tUint8, nonzero, one),
	st(tBool, tInt16, nonzero, one, uxtl),
	st(tBool, tUint16, nonzero, one, uxtl),
	st(tBool, tInt32, nonzero, one, uxtl, uxtl),
	st(tBool, tUint32, nonzero, one, uxtl, uxtl),
	st(tBool, tInt64, nonzero, one, uxtl, uxtl, uxtl),
	st(tBool, tUint64, nonzero, one, uxtl, uxtl, uxtl),
	st(tBool, tBool, nonzero, one),

	// Round to odd, for the planner's pivots through FLOAT.
	odd(tDouble, doubleToOdd),
	odd(tInt64, int64ToF32(true, true)),
	odd(tUint64, int64ToF32(false, true)),
	odd(tInt32, sxtl, scvtfStep, fcvtxnStep),
	odd(tUint32, uxtl, ucvtfStep, fcvtxnStep),
}

// stageInfo is what the generator derives from a table entry.
type stageInfo struct {
	def      stageDef
	name     string // the table entry, e.g. "DOUBLE → FLOAT"
	asmName  string // the assembly function
	goName   string // its Go wrapper, the registered stageFunc
	unit     int    // elements per register at the narrowest layout: the assembly converts multiples of it
	unroll   int    // units per iteration of the main loop
	srcRegs  int    // registers loaded per unit
	steps    string // the chain, for the docs
	lanes    []lane // the layouts, source first
	maxLanes int
}

// plan checks an entry's chain and derives its numbers.
func (d stageDef) plan() (stageInfo, error) {
	s := stageInfo{def: d,
		asmName: fmt.Sprintf("stage%sTo%sNEON", d.from.short, d.to.short),
		goName:  fmt.Sprintf("neonStage%sTo%s", d.from.short, d.to.short),
	}
	name := d.from.onnx + " → " + d.to.onnx
	if d.odd {
		s.asmName = fmt.Sprintf("stage%sToF32OddNEON", d.from.short)
		s.goName = fmt.Sprintf("neonOddStage%sToF32", d.from.short)
		name += " (round to odd)"
		if d.to != tFloat {
			return s, fmt.Errorf("%s: round-to-odd stages go to FLOAT", name)
		}
	}
	s.name = name
	l := d.from.lane()
	s.lanes = []lane{l}
	var names []string
	for i, st := range d.steps {
		if i == 0 && d.from == tBool && st.name != nonzero.name {
			return s, fmt.Errorf("%s: a BOOL source must be normalised by CMTST first", name)
		}
		next, err := st.next(l)
		if err != nil {
			return s, fmt.Errorf("%s, step %d: %v", name, i+1, err)
		}
		l = next
		s.lanes = append(s.lanes, l)
		names = append(names, st.name)
	}
	switch {
	case l != d.to.lane():
		return s, fmt.Errorf("%s: the chain ends in %s lanes, want %s", name, l, d.to.lane())
	case d.to == tBool && (len(d.steps) == 0 || d.steps[len(d.steps)-1].name != one.name):
		return s, fmt.Errorf("%s: a BOOL target must be written by AND 1 last", name)
	case d.from == tBool && len(d.steps) == 0:
		return s, fmt.Errorf("%s: a BOOL source must be normalised", name)
	}
	minBits, maxBits := 64, 8
	for _, l := range s.lanes {
		minBits, maxBits = min(minBits, l.bits), max(maxBits, l.bits)
	}
	s.unit = 128 / minBits
	s.srcRegs = d.from.bits / minBits
	s.maxLanes = maxBits / minBits // registers per unit at the widest layout
	// Unroll until the widest layout fills four registers (one VLD1/VST1 of
	// 64 bytes), at least once.
	s.unroll = max(1, 4/s.maxLanes)
	if len(names) == 0 {
		names = []string{"copy"}
	}
	s.steps = strings.Join(names, ", ")
	return s, nil
}

// build writes the stage's assembly.
func (s stageInfo) build(f *Func) {
	consts := make([][]Vec, len(s.def.steps))
	for i, st := range s.def.steps {
		if st.consts != nil {
			consts[i] = st.consts(f, s.lanes[i])
		}
	}
	f.Stream(s.unit, s.unroll, func(k int) {
		x := f.Load(k * s.srcRegs)
		for i, st := range s.def.steps {
			x = st.apply(f, consts[i], s.lanes[i], x)
		}
		f.Store(x)
		f.Free(x)
	})
}

const stageArgs = "dst *byte, src *byte, n int"

// stageKernels returns the table as assembly functions.
func stageKernels() ([]kernelDef, []stageInfo, error) {
	var ks []kernelDef
	var infos []stageInfo
	seen := map[string]bool{}
	for _, d := range stages {
		s, err := d.plan()
		if err != nil {
			return nil, nil, err
		}
		if seen[s.asmName] {
			return nil, nil, fmt.Errorf("the table lists %s twice", s.name)
		}
		seen[s.asmName] = true
		what := "converts"
		if d.odd {
			what = "rounds to odd"
		}
		doc := fmt.Sprintf("%s n %s to %s (n a multiple of %d): %s.\nIt is the table entry %s of gen/arm64/stages.go.",
			what, d.from.onnx, d.to.onnx, s.unit, s.steps, s.name)
		ks = append(ks, kernelDef{s.asmName, stageArgs, doc, s.build})
		infos = append(infos, s)
	}
	return ks, infos, nil
}

// stagesGo writes the Go wrappers and their registration.
func stagesGo(infos []stageInfo) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n\npackage tensorcast\n\n", header, buildTag)
	b.WriteString(`// The NEON stages of the classic-type pairs, from the table in
// gen/arm64/stages.go. Each wrapper declares the assembly's memory accesses
// to the race detector and runs it over the whole units; the last partial
// unit goes through a stack buffer of one unit, zero-padded, so that the
// tail takes the same instructions (and gives the same bits) as the bulk and
// the assembly never touches bytes beyond the caller's slices.

func init() {
`)
	for _, s := range infos {
		if s.def.odd {
			fmt.Fprintf(&b, "\tregisterOddStage(\"neon\", %s, %s)\n", s.def.from.goName, s.goName)
		} else {
			fmt.Fprintf(&b, "\tregisterStage(\"neon\", %s, %s, %s)\n", s.def.from.goName, s.def.to.goName, s.goName)
		}
	}
	b.WriteString("}\n")
	for _, s := range infos {
		d := s.def
		fs, ts := d.from.bits/8, d.to.bits/8
		what := "converts"
		if d.odd {
			what = "rounds to odd"
		}
		fmt.Fprintf(&b, `
// %s %s n %s to %s with %s: %s
// (table entry %s in gen/arm64/stages.go).
func %s(dst, src []byte, n int) {
	const unit, fromSize, toSize = %d, %d, %d
	m := n - n%%unit
	if m > 0 {
		raceRead(src[:m*fromSize])
		raceWrite(dst[:m*toSize])
		%s(&dst[0], &src[0], m)
	}
	if r := n - m; r > 0 {
		var s [unit * fromSize]byte
		var d [unit * toSize]byte
		copy(s[:], src[m*fromSize:n*fromSize])
		%s(&d[0], &s[0], unit)
		copy(dst[m*toSize:n*toSize], d[:r*toSize])
	}
}
`, s.goName, what, d.from.onnx, d.to.onnx, s.asmName, s.steps, s.name,
			s.goName, s.unit, fs, ts, s.asmName, s.asmName)
	}
	return []byte(b.String())
}
