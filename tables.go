package tensorcast

import (
	"sync"
	"sync/atomic"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// Table steps: a source of at most 16 bits has at most 65536 values, so its
// conversion to any target in any Options mode is one lookup per element in
// a table of the target's bits, computed once from the reference on first
// use (sources of 8 bits or fewer: 256 entries; FLOAT16 and BFLOAT16: 65536).
// A plan takes its table step instead of its composed steps on a tier where
// one of those would run as portable Go (steps.go, resolveStages): one
// lookup costs less than two Go conversions.
//
// FLOAT has a table route too, to the targets with at most 3 significand
// bits (the float8 types, E8M0, FLOAT4E2M1): each float32 is first rounded to
// odd at BFLOAT16's 8 bits, r = x>>16 | (x&0xFFFF != 0) — 8 ≥ 3+2 bits, the
// same exponent range, NaN stays NaN and Inf stays Inf, so rounding r once
// more gives the one rounding of x (the argument of plan.go) — and r indexes
// the BFLOAT16 table of the target.

// modeIndex numbers the Options that can change a result: saturate × round
// mode.
func modeIndex(opt Options) int {
	i := int(opt.RoundMode) * 2
	if opt.NoSaturate {
		i++
	}
	return i
}

const numModes = 6

// convTable holds the target bits of every source value, in the narrowest
// slice that fits the target (one of them is set).
type convTable struct {
	b8  []uint8
	b16 []uint16
	b32 []uint32
	b64 []uint64

	// codes holds the same entries as bytes, for the unpack kernels
	// (unpack.go): set for 2- and 4-bit sources to targets of 8 to 64 bits,
	// and for 2-bit sources to 4-bit targets (the two target codes of each
	// pair of source codes). nib holds the map4 tables of the pairs between
	// packed types (unpack.go).
	codes *codeTable
	nib   *[32]uint8
}

var convTables [numTypes][numTypes][numModes]atomic.Pointer[convTable]
var convTableMu sync.Mutex

// tableFor returns the table of from → to in opt's mode, building it on
// first use.
func tableFor(from, to DataType, opt Options) *convTable {
	m := 0
	if !optionFree(to) {
		m = modeIndex(opt)
	}
	slot := &convTables[from][to][m]
	if t := slot.Load(); t != nil {
		return t
	}
	convTableMu.Lock()
	defer convTableMu.Unlock()
	if t := slot.Load(); t != nil {
		return t
	}
	n := 1 << from.BitSize()
	t := new(convTable)
	rf, rt, ro := ref.Kind(from), ref.Kind(to), refOptions(opt)
	bits := func(i int) uint64 { return ref.Convert(rt, rf, uint64(i), ro) }
	switch w := to.BitSize(); {
	case w <= 8:
		t.b8 = make([]uint8, n)
		for i := range t.b8 {
			t.b8[i] = uint8(bits(i))
		}
	case w == 16:
		t.b16 = make([]uint16, n)
		for i := range t.b16 {
			t.b16[i] = uint16(bits(i))
		}
	case w == 32:
		t.b32 = make([]uint32, n)
		for i := range t.b32 {
			t.b32[i] = uint32(bits(i))
		}
	default:
		t.b64 = make([]uint64, n)
		for i := range t.b64 {
			t.b64[i] = bits(i)
		}
	}
	if from.BitSize() < 8 && to.BitSize() >= 8 {
		t.codes = newCodeTable(t, to.Size(1))
	}
	if from.BitSize() < 8 && to.BitSize() < 8 {
		t.nib, t.codes = nibbleTables(t.b8, from.BitSize(), to.BitSize())
	}
	slot.Store(t)
	return t
}

// tableSource reports whether the plan of from → to has a table step.
func tableSource(from, to DataType) bool {
	if from == to || classic(from) && classic(to) {
		return false
	}
	switch from.BitSize() {
	case 2, 4, 8:
		return true
	case 16: // 64 Ki entries: only to targets of at most 16 bits
		return (from == Float16 || from == BFloat16) && to.BitSize() <= 16
	}
	return from == Float && oddBF16Target(to)
}

// oddBF16Target reports whether to has at most 3 significand bits, so that
// FLOAT reaches it exactly through a round-to-odd BFLOAT16.
func oddBF16Target(to DataType) bool {
	switch to {
	case Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0, Float4E2M1:
		return true
	}
	return false
}

// tableStep converts from → to by lookups (see the top of this file).
func tableStep(from, to DataType) *step {
	name := from.String() + " -> " + to.String() + " (table)"
	if from == Float {
		return &step{name: name + " via round-to-odd BFLOAT16", tier: genericTier,
			run: func(_ *kernelSet, dst, src []byte, n int, opt Options) {
				lookupOddBF16(dst, view[uint32](src, n), to, tableFor(BFloat16, to, opt))
			}}
	}
	return &step{name: name, tier: genericTier,
		run: func(_ *kernelSet, dst, src []byte, n int, opt Options) {
			lookup(dst, src, from, to, n, tableFor(from, to, opt))
		}}
}

func genericTier(*kernelSet) string { return "generic" }

// lookup converts n elements of src through t.
func lookup(dst, src []byte, from, to DataType, n int, t *convTable) {
	switch from.BitSize() {
	case 16:
		lookupWhole(dst, view[uint16](src, n), to, t)
		return
	case 8:
		lookupWhole(dst, src[:n], to, t)
		return
	}
	// 2- and 4-bit sources: element i is bits [w·(i%per), w·(i%per)+w) of
	// byte i/per. Whole source bytes first, then the rest.
	w := uint(from.BitSize())
	per := 8 / int(w)
	mask := uint8(1)<<w - 1
	whole := n / per
	elem := func(i int) uint8 { return src[i/per] >> (w * uint(i%per)) & mask }
	if to.BitSize() >= 8 {
		switch {
		case t.b8 != nil:
			unpackLookup(dst[:whole*per], src[:whole], w, t.b8)
		case t.b16 != nil:
			unpackLookup(view[uint16](dst, whole*per), src[:whole], w, t.b16)
		case t.b32 != nil:
			unpackLookup(view[uint32](dst, whole*per), src[:whole], w, t.b32)
		default:
			unpackLookup(view[uint64](dst, whole*per), src[:whole], w, t.b64)
		}
		for i := whole * per; i < n; i++ {
			switch {
			case t.b8 != nil:
				dst[i] = t.b8[elem(i)]
			case t.b16 != nil:
				view[uint16](dst, n)[i] = t.b16[elem(i)]
			case t.b32 != nil:
				view[uint32](dst, n)[i] = t.b32[elem(i)]
			default:
				view[uint64](dst, n)[i] = t.b64[elem(i)]
			}
		}
		return
	}
	packFrom(dst, n, to.BitSize(), func(i int) uint8 { return t.b8[elem(i)] })
}

// unpackLookup sets d[per·i+j] = t[element j of s[i]] for the w-bit elements
// packed in each byte of s.
func unpackLookup[D any](d []D, s []byte, w uint, t []D) {
	if w == 4 {
		d = d[:2*len(s)]
		for i, b := range s {
			d[2*i] = t[b&15]
			d[2*i+1] = t[b>>4]
		}
		return
	}
	d = d[:4*len(s)]
	for i, b := range s {
		d[4*i] = t[b&3]
		d[4*i+1] = t[b>>2&3]
		d[4*i+2] = t[b>>4&3]
		d[4*i+3] = t[b>>6]
	}
}

// lookupWhole converts the elements of s (one per 8- or 16-bit word)
// through t.
func lookupWhole[S uint8 | uint16](dst []byte, s []S, to DataType, t *convTable) {
	n := len(s)
	switch {
	case t.b8 != nil && to.BitSize() == 8:
		gather(dst[:n], s, t.b8)
	case t.b8 != nil:
		packFrom(dst, n, to.BitSize(), func(i int) uint8 { return t.b8[s[i]] })
	case t.b16 != nil:
		gather(view[uint16](dst, n), s, t.b16)
	case t.b32 != nil:
		gather(view[uint32](dst, n), s, t.b32)
	default:
		gather(view[uint64](dst, n), s, t.b64)
	}
}

// gather sets d[i] = t[s[i]].
func gather[D any, S uint8 | uint16](d []D, s []S, t []D) {
	d = d[:len(s)]
	for i, v := range s {
		d[i] = t[v]
	}
}

// packFrom packs n codes of w (2 or 4) bits, code(i), into dst.
func packFrom(dst []byte, n, w int, code func(i int) uint8) {
	per := 8 / w
	for j := 0; j*per < n; j++ {
		var b uint8
		for e := 0; e < per && j*per+e < n; e++ {
			b |= code(j*per+e) << uint(w*e)
		}
		dst[j] = b
	}
}

// lookupOddBF16 converts float32 bits through a BFLOAT16 table, after
// rounding each to odd at BFLOAT16's precision.
func lookupOddBF16(dst []byte, s []uint32, to DataType, t *convTable) {
	odd := func(x uint32) uint16 {
		r := uint16(x >> 16)
		if x&0xFFFF != 0 {
			r |= 1
		}
		return r
	}
	if to.BitSize() == 8 {
		d := dst[:len(s)]
		for i, x := range s {
			d[i] = t.b8[odd(x)]
		}
		return
	}
	// FLOAT4E2M1: two codes per byte.
	whole := len(s) / 2
	d := dst[:whole]
	for i := range d {
		d[i] = t.b8[odd(s[2*i])] | t.b8[odd(s[2*i+1])]<<4
	}
	if len(s)%2 == 1 {
		dst[whole] = t.b8[odd(s[2*whole])]
	}
}
