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

	// sel describes the table of an 8-bit source to an 8- or 16-bit target
	// if it is two-valued (select.go), else nil.
	sel *selectParams

	// split describes the table of an 8-bit source to a target of at most
	// 8 bits as two nibble lookups, a row mask and a few corrections
	// (split.go), or is nil. For a packed target only the low 2 or 4 bits
	// of its bytes are the table's codes.
	split *splitParams

	// round describes the table of UINT8 to an 8-bit type that
	// neither sel nor split describe as a rounding per row (round8.go), or
	// is nil; lookup8 prefers it to class where the tier has GFNI.
	round *roundParams

	// class describes the table of INT8 or UINT8 to an 8-bit type that
	// neither sel nor split describe as a lookup tree of row tables
	// (class8.go), or is nil.
	class *classParams

	// finer describes the table of a float8 type to one with more
	// significand bits that sel does not describe (finer8.go), or is nil;
	// lookup8 prefers it to split.
	finer *finer8Params
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
	if from.BitSize() == 8 {
		switch {
		case t.b8 != nil:
			t.sel = selectShape(t.b8)
			if t.sel == nil {
				t.split = splitShape(t.b8, uint8(1<<to.BitSize()-1))
			}
			if t.sel == nil && t.split == nil && to.BitSize() == 8 {
				if from == Int8 || from == Uint8 {
					t.class = classShape(t.b8, from == Uint8)
					if from == Uint8 || t.class != nil && t.class.useOrm != 0 {
						t.round = roundShape(t.b8, from == Int8) // round8.go says where
					}
				}
			}
			if t.sel == nil && finerTypes(from, to) {
				t.finer = finerShape(t.b8, from == Float8E8M0)
			}
		case t.b16 != nil:
			t.sel = selectShape(t.b16)
		}
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
	case 16: // 64 Ki entries: only to targets of at most 16 bits (INT16, UINT16: the float ones)
		return to.BitSize() <= 16 && (from == Float16 || from == BFloat16 || !to.IsInteger())
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
		packLookup(dst, s, to.BitSize(), t.b8)
	case t.b16 != nil:
		gather(view[uint16](dst, n), s, t.b16)
	case t.b32 != nil:
		gather(view[uint32](dst, n), s, t.b32)
	default:
		gather(view[uint64](dst, n), s, t.b64)
	}
}

// gather sets d[i] = t[s[i]]. The table is taken as a fixed-size array
// (256 or 65536 entries: tableFor's table of an 8- or 16-bit source), so an
// index of the source's width needs no bounds check.
func gather[D any, S uint8 | uint16](d []D, s []S, t []D) {
	switch s := any(s).(type) {
	case []uint8:
		gather8(d, s, (*[256]D)(t))
	case []uint16:
		gather16(d, s, (*[65536]D)(t))
	}
}

// gather8 and gather16 look up four elements per iteration, with one
// bounds check per four, so the independent loads overlap.
func gather8[D any](d []D, s []uint8, t *[256]D) {
	d = d[:len(s)]
	i := 0
	for ; i+4 <= len(s); i += 4 {
		s4, d4 := s[i:i+4:i+4], d[i:i+4:i+4]
		d4[0], d4[1], d4[2], d4[3] = t[s4[0]], t[s4[1]], t[s4[2]], t[s4[3]]
	}
	for ; i < len(s); i++ {
		d[i] = t[s[i]]
	}
}

func gather16[D any](d []D, s []uint16, t *[65536]D) {
	d = d[:len(s)]
	i := 0
	for ; i+4 <= len(s); i += 4 {
		s4, d4 := s[i:i+4:i+4], d[i:i+4:i+4]
		d4[0], d4[1], d4[2], d4[3] = t[s4[0]], t[s4[1]], t[s4[2]], t[s4[3]]
	}
	for ; i < len(s); i++ {
		d[i] = t[s[i]]
	}
}

// packLookup packs the w-bit (4 or 2) codes t[s[i]] into dst, element i in
// bits [w·(i%per), w·(i%per)+w) of byte i/per (per = 8/w); the codes in t
// are below 2^w, so they need no mask.
func packLookup[S uint8 | uint16](dst []byte, s []S, w int, t []uint8) {
	switch s := any(s).(type) {
	case []uint8:
		packLookup8(dst, s, w, (*[256]uint8)(t))
	case []uint16:
		packLookup16(dst, s, w, (*[65536]uint8)(t))
	}
}

// packLookup8 and packLookup16 are packLookup with the table as an array,
// so the index needs no bounds check (Go cannot index a type parameter
// ranging over arrays of two lengths). Byte by byte: each byte's lookups
// are independent of the others', where assembling a 64-bit word would
// chain its ors.
func packLookup8(dst []byte, s []uint8, w int, t *[256]uint8) {
	n := len(s)
	d := dst[:(n*w+7)/8]
	j := 0
	if w == 4 {
		for ; 2*j+2 <= n; j++ {
			e := s[2*j : 2*j+2 : 2*j+2]
			d[j] = t[e[0]] | t[e[1]]<<4
		}
	} else {
		for ; 4*j+4 <= n; j++ {
			e := s[4*j : 4*j+4 : 4*j+4]
			d[j] = t[e[0]] | t[e[1]]<<2 | t[e[2]]<<4 | t[e[3]]<<6
		}
	}
	if j < len(d) { // the partly used last byte
		var b uint8
		for i, sh := j*8/w, 0; i < n; i, sh = i+1, sh+w {
			b |= t[s[i]] << uint(sh)
		}
		d[j] = b
	}
}

func packLookup16(dst []byte, s []uint16, w int, t *[65536]uint8) {
	n := len(s)
	d := dst[:(n*w+7)/8]
	j := 0
	if w == 4 {
		for ; 2*j+2 <= n; j++ {
			e := s[2*j : 2*j+2 : 2*j+2]
			d[j] = t[e[0]] | t[e[1]]<<4
		}
	} else {
		for ; 4*j+4 <= n; j++ {
			e := s[4*j : 4*j+4 : 4*j+4]
			d[j] = t[e[0]] | t[e[1]]<<2 | t[e[2]]<<4 | t[e[3]]<<6
		}
	}
	if j < len(d) { // the partly used last byte
		var b uint8
		for i, sh := j*8/w, 0; i < n; i, sh = i+1, sh+w {
			b |= t[s[i]] << uint(sh)
		}
		d[j] = b
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
	if to.BitSize() == 8 {
		oddGather(dst, s, (*[65536]uint8)(t.b8))
		return
	}
	oddGatherPack4(dst, s, (*[65536]uint8)(t.b8)) // FLOAT4E2M1: two codes per byte
}

// oddBF16 rounds float32 bits to odd at BFLOAT16's precision, without a
// branch: the low half, plus 0xFFFF, carries into bit 16 iff it is not 0.
func oddBF16(x uint32) uint16 {
	return uint16(x>>16) | uint16((x&0xFFFF+0xFFFF)>>16)
}
