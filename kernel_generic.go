package tensorcast

import (
	"encoding/binary"
	"math"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The portable kernels: plain Go, branch-light (the selects below compile to
// conditional moves), and the fallback for every tier. Each mirrors the
// algorithm its assembly counterparts use, so a reader can check one against
// the other.

func genericKernels() *kernelSet {
	const t = "generic"
	return &kernelSet{
		tier:      t,
		f32ToF16:  kernel[func([]uint16, []float32)]{float32ToFloat16Generic, t},
		f16ToF32:  kernel[func([]float32, []uint16)]{float16ToFloat32Generic, t},
		f32ToBF16: kernel[func([]uint16, []float32)]{float32ToBFloat16Generic, t},
		bf16ToF32: kernel[func([]float32, []uint16)]{bfloat16ToFloat32Generic, t},
		f32ToF8:   kernel[func([]uint8, []float32, *float8Params)]{float32ToFloat8Generic, t},
		f8ToF32:   kernel[func([]float32, []uint8, *[256]uint32)]{float8ToFloat32Generic, t},
		f16ToF8:   kernel[func([]uint8, []uint16, *float8Params)]{float16ToFloat8Generic, t},
		bf16ToF8:  kernel[func([]uint8, []uint16, *float8Params)]{bfloat16ToFloat8Generic, t},
		f32ToE8M0: kernel[func([]uint8, []float32, *e8m0Params)]{float32ToE8M0Generic, t},
		f32ToF4:   kernel[func([]uint8, []float32)]{float32ToFloat4Generic, t},
		f4ToF32:   kernel[func([]float32, []uint8)]{float4ToFloat32Generic, t},
		i8ToI4:    kernel[func([]uint8, []uint8)]{int8ToInt4Generic, t},
		i4ToI8:    kernel[func([]uint8, []uint8)]{int4ToInt8Generic, t},
		u4ToU8:    kernel[func([]uint8, []uint8)]{uint4ToUint8Generic, t},
		f32ToI4:   kernel[func([]uint8, []float32)]{float32ToInt4Generic, t},
		i8ToI2:    kernel[func([]uint8, []uint8)]{int8ToInt2Generic, t},
		lut8:      kernel[func([]uint8, []uint8, *[256]uint8)]{lut8Generic, t},
		lut16:     kernel[func([]uint16, []uint8, *[256]uint16)]{lut16Generic, t},
		f16ToBF16: kernel[func([]uint16, []uint16)]{float16ToBFloat16Generic, t},
		bf16ToF16: kernel[func([]uint16, []uint16)]{bfloat16ToFloat16Generic, t},
		unpack:    genericUnpack(t),
		toE8:      genericToE8(t),
		toF8:      genericToF8(t),
		map4:      kernel[map4Func]{map4Generic, t},
		map4Pack:  kernel[map4Func]{map4PackGeneric, t},
	}
}

// genericToE8 holds the portable fused kernels to FLOAT8E8M0 (wide_generic.go).
func genericToE8(t string) (k [numTypes]kernel[fusedE8Func]) {
	k[Int32] = kernel[fusedE8Func]{intToE8M0[int32], t}
	k[Uint32] = kernel[fusedE8Func]{intToE8M0[uint32], t}
	k[Int64] = kernel[fusedE8Func]{intToE8M0[int64], t}
	k[Uint64] = kernel[fusedE8Func]{intToE8M0[uint64], t}
	k[Double] = kernel[fusedE8Func]{float64ToE8M0Generic, t}
	return k
}

// f32ToF16 rounds a float32 (as bits) to FLOAT16, to nearest even, with
// subnormals and overflow to ±Inf; NaN keeps its sign and top payload bits
// and is quieted (as VCVTPS2PH and FCVTN do).
func f32ToF16(x uint32) uint16 {
	a := x & 0x7FFFFFFF
	// Every candidate is computed, then selected: the selects compile to
	// conditional moves, so random data costs no branch mispredictions.
	h := (a+0xFFF+(a>>13)&1)>>13 - 112<<10                             // normal: round the 13 dropped bits, rebias 127 → 15
	tiny := math.Float32bits(math.Float32frombits(a)+0.5) - 0x3F000000 // below 2^-14: the FPU rounds onto the 2^-24 grid
	if a < 0x38800000 {
		h = tiny
	}
	if a >= 0x477FF000 { // 65520 and up (and Inf): ±Inf
		h = 0x7C00
	}
	if a > 0x7F800000 { // NaN: quiet, top payload bits kept
		h = 0x7E00 | a>>13&0x3FF
	}
	return uint16(x>>16&0x8000 | h)
}

// f16ToF32 widens FLOAT16 bits exactly; NaN is quieted, payload kept.
func f16ToF32(h uint16) uint32 {
	a := uint32(h & 0x7FFF)
	f := a<<13 + 112<<23                                               // normal: rebias 15 → 127
	tiny := math.Float32bits(math.Float32frombits(0x3F000000|a) - 0.5) // (0.5 + m·2^-24) - 0.5 is exact
	if a < 0x0400 {                                                    // zero or subnormal
		f = tiny
	}
	if a >= 0x7C00 {
		f = a<<13 | 0x7F800000
	}
	if a > 0x7C00 {
		f |= 0x400000 // quiet the NaN
	}
	return uint32(h&0x8000)<<16 | f
}

// f32ToBF16 rounds float32 bits to BFLOAT16, to nearest even (overflow
// reaches ±Inf by itself); NaN becomes 0x7FC0 with its sign.
func f32ToBF16(x uint32) uint16 {
	r := uint16((x + 0x7FFF + (x>>16)&1) >> 16)
	if x&0x7FFFFFFF > 0x7F800000 {
		r = uint16(x>>16)&0x8000 | 0x7FC0
	}
	return r
}

// bf16ToF32 widens BFLOAT16 bits exactly; NaN is quieted, payload kept.
func bf16ToF32(b uint16) uint32 {
	f := uint32(b) << 16
	if b&0x7FFF > 0x7F80 {
		f |= 0x400000
	}
	return f
}

// narrowMagnitude is the float8Params algorithm without the sign: it returns
// the target's bits for a = |x| (float32 bits, NaN included).
func narrowMagnitude(a uint32, p *float8Params) uint32 {
	normal := (a+(1<<(p.shift-1))-1+(a>>p.shift)&1)>>p.shift - p.expAdjust
	tiny := math.Float32bits(math.Float32frombits(a)+math.Float32frombits(p.magic)) - p.magic
	r := normal
	if a < p.minNormal {
		r = tiny
	}
	if r > p.maxBits || a >= 0x7F800000 { // overflow (the subtraction may wrap), ±Inf
		r = p.overflow
	}
	if a > 0x7F800000 {
		r = p.nan
	}
	return r
}

// f32ToF8 converts one float32 (bits) to a float8 type described by p.
func f32ToF8(x uint32, p *float8Params) uint8 {
	r := narrowMagnitude(x&0x7FFFFFFF, p)
	sign := x >> 24 & 0x80
	if r == 0 {
		sign &= p.signedZero
	}
	return uint8(r | sign)
}

func float32ToFloat16Generic(dst []uint16, src []float32) {
	bits := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(src))), len(src))
	dst = dst[:len(bits)]
	// The groups indexed, not resliced (a masked pointer step per slice
	// each round): 0.56 → 0.61 elements/ns (Zen 3, in L2, the median of
	// 15 paired runs).
	i := 0
	for ; i+4 <= len(bits); i += 4 { // unrolled, as intToInt (classic_generic.go) says why
		d, s := dst[i:i+4:i+4], bits[i:i+4:i+4]
		// Two pairs in the halves of two words, the first in the low half:
		// on a little-endian machine the compiler loads each with one
		// 64-bit load, and on any other the words are still in this order
		// (the typed API passes slices in the machine's byte order).
		w0, w1 := uint64(s[0])|uint64(s[1])<<32, uint64(s[2])|uint64(s[3])<<32
		if f16Normal2x2(w0, w1) {
			h01, h23 := f32ToF16Normal2(w0), f32ToF16Normal2(w1)
			d[0], d[1], d[2], d[3] = uint16(h01), uint16(h01>>32), uint16(h23), uint16(h23>>32)
		} else {
			d[0], d[1] = f32ToF16Table(uint32(w0)), f32ToF16Table(uint32(w0>>32))
			d[2], d[3] = f32ToF16Table(uint32(w1)), f32ToF16Table(uint32(w1>>32))
		}
	}
	for ; i < len(bits); i++ {
		dst[i] = f32ToF16Table(bits[i])
	}
}

// f16Normal2x2 reports whether the four float32s (bits) in the halves of
// x and y all have magnitudes in [2^-14, 2^16), where f32ToF16Normal2
// converts them. In both halves at once: the magnitude (below 2^31) plus
// 2^31 - lo has bit 31 set exactly when it is lo or more, and no carry
// leaves the half; the same with hi. Two loads and fewer instructions than
// four compares: FLOAT → FLOAT16 0.64 → 0.71 elements/ns (Zen 3).
func f16Normal2x2(x, y uint64) bool {
	const lo, hi, l, top = 0x38800000, 0x47800000, 0x0000_0001_0000_0001, 0x80000000_80000000
	const abs = 0x7FFFFFFF_7FFFFFFF
	a, b := x&abs, y&abs
	in := (a + (1<<31-lo)*l) &^ (a + (1<<31-hi)*l) & (b + (1<<31-lo)*l) &^ (b + (1<<31-hi)*l)
	return in&top == top
}

// f32ToF16Normal2 is f32ToF16 for two float32s (bits) in the halves of x
// whose magnitudes lie in [2^-14, 2^16), FLOAT16's normal range and the
// binade above it: rebiased by 127 - 15 and rounded to nearest even at bit
// 13 in both halves at once (no borrow or carry crosses a half: the
// rebiased magnitude is at least 2^23 and at most 0x0F800FFF after the
// rounding, whose carry may reach the exponent and from 65520 gives Inf,
// 0x7C00). Returns the two FLOAT16 in the low 16 bits of each half. About
// half of f32ToF16Table's instructions per element: FLOAT → FLOAT16 ran at
// 0.35 → 0.45-0.6 elements/ns in L1 (Zen 3).
func f32ToF16Normal2(x uint64) uint64 {
	const lo = 0x0000_0001_0000_0001 // the low bit of each half
	const bias, half, low16, sign = (127 - 15) << 23 * lo, 0xFFF * lo, 0xFFFF * lo, 0x8000 * lo
	a := x & 0x7FFFFFFF_7FFFFFFF
	h := (a - bias + half + a>>13&lo) >> 13
	return h&low16 | x>>16&sign
}

// f16Narrow holds, per sign and float32 exponent field (x>>23), how
// f32ToF16Table rounds, packed in one word so that one load fetches it:
// the significand with its implicit bit is rounded to nearest even at
// shift (bits 48..55) dropped bits (half, bits 0..31, = 2^(shift-1) - 1)
// and added to base (bits 32..47), the sign and exponent of the result
// less the implicit bit, so a carry out of the significand steps the
// exponent (up to Inf). Normal FLOAT16 results drop 13 bits; subnormal ones
// 14 to 24; below 2^-25, and from 2^16 (Inf, NaN fixed apart), 31 bits
// drop, leaving base alone.
var f16Narrow = func() (t [512]uint64) {
	for i := range t {
		e := i & 0xFF
		base, shift := uint64(i>>8)<<15, uint64(31)
		switch {
		case e >= 143: // 2^16 and up, Inf, NaN
			base |= 0x7C00
		case e >= 113: // FLOAT16 normal
			base |= uint64(e-113) << 10
			shift = 13
		case e >= 102: // FLOAT16 subnormal
			shift = uint64(126 - e)
		}
		t[i] = shift<<48 | base<<32 | (1<<(shift-1) - 1)
	}
	return t
}()

// f32ToF16Table is f32ToF16 by f16Narrow: about two thirds of the
// operations, as the exponent's case analysis is looked up.
func f32ToF16Table(x uint32) uint16 {
	e := f16Narrow[x>>23]
	m := x&0x7FFFFF | 0x800000
	s := uint32(e>>48) & 31
	h := uint32(e>>32) + (m+uint32(e)+(m>>s)&1)>>s
	if x&0x7FFFFFFF > 0x7F800000 { // NaN: quiet, sign and top payload bits kept
		h = x>>16&0x8000 | 0x7E00 | x>>13&0x3FF
	}
	return uint16(h)
}

// float16ToFloat32Generic looks long inputs up in a table of f16ToF32's
// results for all 65536 FLOAT16 values (256 KiB, built on first use, so
// the same bits by construction): one load per element instead of about
// twenty operations. Short ones (tails of the SIMD kernels) compute.
func float16ToFloat32Generic(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	if len(src) >= oddTableMin {
		gather16(unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)), src, widenF16Table())
		return
	}
	for i, h := range src {
		dst[i] = math.Float32frombits(f16ToF32(h))
	}
}

var (
	widenF16   atomic.Pointer[[65536]uint32]
	widenF16Mu sync.Mutex
)

func widenF16Table() *[65536]uint32 {
	if t := widenF16.Load(); t != nil {
		return t
	}
	widenF16Mu.Lock()
	defer widenF16Mu.Unlock()
	if t := widenF16.Load(); t != nil {
		return t
	}
	t := new([65536]uint32)
	for h := range t {
		t[h] = f16ToF32(uint16(h))
	}
	widenF16.Store(t)
	return t
}

func float32ToBFloat16Generic(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for len(src) >= 4 { // unrolled, as intToInt (classic_generic.go) says why
		d, s := dst[:4:4], src[:4:4]
		d[0], d[1] = f32ToBF16(math.Float32bits(s[0])), f32ToBF16(math.Float32bits(s[1]))
		d[2], d[3] = f32ToBF16(math.Float32bits(s[2])), f32ToBF16(math.Float32bits(s[3]))
		dst, src = dst[4:], src[4:]
	}
	for i, v := range src {
		dst[i] = f32ToBF16(math.Float32bits(v))
	}
}

func bfloat16ToFloat32Generic(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	for len(src) >= 4 { // unrolled, as intToInt (classic_generic.go) says why
		d, s := dst[:4:4], src[:4:4]
		d[0], d[1] = math.Float32frombits(bf16ToF32(s[0])), math.Float32frombits(bf16ToF32(s[1]))
		d[2], d[3] = math.Float32frombits(bf16ToF32(s[2])), math.Float32frombits(bf16ToF32(s[3]))
		dst, src = dst[4:], src[4:]
	}
	for i, b := range src {
		dst[i] = math.Float32frombits(bf16ToF32(b))
	}
}

func float32ToFloat8Generic(dst []uint8, src []float32, p *float8Params) {
	s := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(src))), len(src))
	if len(s) >= oddTableMin {
		if t := float8OddTableOf(p); t != nil {
			oddGather(dst, s, t)
			return
		}
	}
	narrowF8Bits(dst, s, p)
}

// float8OddTableOf returns the table route's codes for p (built on first
// use), or nil if p is not one of float8Table's parameter sets.
func float8OddTableOf(p *float8Params) *[65536]uint8 {
	i := uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(&float8Table[0][0]))
	if i >= unsafe.Sizeof(float8Table) {
		return nil
	}
	return float8OddTables[i/unsafe.Sizeof(*p)].get(func(x []uint32, d []uint8) { narrowF8Bits(d, x, p) })
}

// e8m0OddTableOf is float8OddTableOf for e8m0Table's parameter sets.
func e8m0OddTableOf(p *e8m0Params) *[65536]uint8 {
	i := uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(&e8m0Table[0][0]))
	if i >= unsafe.Sizeof(e8m0Table) {
		return nil
	}
	return e8m0OddTables[i/unsafe.Sizeof(*p)].get(func(x []uint32, d []uint8) { e8m0Bits(d, x, p) })
}

// float4OddTableOf is the table route's codes of FLOAT4E2M1.
func float4OddTableOf() *[65536]uint8 {
	return float4OddTable.get(func(x []uint32, d []uint8) {
		for i, v := range x {
			d[i] = f32ToF4(v)
		}
	})
}

// Long narrowings to the types of at most 3 significand bits use the table
// route of tables.go inside the kernel: each float32 is rounded to odd at
// BFLOAT16's precision (oddBF16: exact for these targets, see tables.go),
// and a 64 KiB table of the kernel's own results for every BFLOAT16 gives
// the code — one lookup instead of about 25 operations. The tables are
// built on first use from the element code below, per parameter set, so
// they give the same bits by construction. The threshold lets the pivot
// plans' blocks (pivotBlock, 1024 elements) use the tables, while the tails
// of the SIMD kernels (under 64 elements) never build one.
const oddTableMin = 512

// oddTable is one lazily built table of the codes of the 65536 BFLOAT16 bit
// patterns.
type oddTable struct {
	t  atomic.Pointer[[65536]uint8]
	mu sync.Mutex
}

var (
	float8OddTables [len(float8Table) * len(float8Table[0])]oddTable
	e8m0OddTables   [len(e8m0Table) * len(e8m0Table[0])]oddTable
	float4OddTable  oddTable
)

// get returns the table, building it with narrow (codes of float32 bits)
// on first use.
func (o *oddTable) get(narrow func(x []uint32, d []uint8)) *[65536]uint8 {
	if t := o.t.Load(); t != nil {
		return t
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if t := o.t.Load(); t != nil {
		return t
	}
	t := new([65536]uint8)
	var x [256]uint32
	for h := 0; h < len(t); h += len(x) {
		for j := range x {
			x[j] = uint32(h+j) << 16 // the BFLOAT16 as float32 bits (NaN payloads do not matter: every NaN gives one code)
		}
		narrow(x[:], t[h:h+len(x)])
	}
	o.t.Store(t)
	return t
}

// oddGather sets d[i] to t's code of s[i] rounded to odd at BFLOAT16's
// precision.
func oddGather(d []uint8, s []uint32, t *[65536]uint8) {
	d = d[:len(s)]
	i := 0
	for ; i+4 <= len(s); i += 4 {
		s4, d4 := s[i:i+4:i+4], d[i:i+4:i+4]
		d4[0], d4[1], d4[2], d4[3] = t[oddBF16(s4[0])], t[oddBF16(s4[1])], t[oddBF16(s4[2])], t[oddBF16(s4[3])]
	}
	for ; i < len(s); i++ {
		d[i] = t[oddBF16(s[i])]
	}
}

// oddGatherPack4 is oddGather for 4-bit codes, two to a byte (the first in
// the low nibble). Byte by byte: each byte's two lookups are independent of
// the others', where assembling a 64-bit word chains its sixteen ors
// (measured 1.7x slower).
func oddGatherPack4(dst []uint8, s []uint32, t *[65536]uint8) {
	n := len(s)
	d := dst[:(n+1)/2]
	for j := range n / 2 {
		p := s[2*j : 2*j+2 : 2*j+2]
		d[j] = t[oddBF16(p[0])] | t[oddBF16(p[1])]<<4
	}
	if n%2 == 1 {
		d[n/2] = t[oddBF16(s[n-1])]
	}
}

func narrowF8Bits(dst []uint8, src []uint32, p *float8Params) {
	shift := p.shift & 31
	half := uint32(1)<<(shift-1) - 1
	expAdjust, minNormal, magic := p.expAdjust, p.minNormal, p.magic
	magicF := math.Float32frombits(magic)
	maxBits, overflow, nan, signedZero := p.maxBits, p.overflow, p.nan, p.signedZero
	dst = dst[:len(src)]
	for i, x := range src {
		a := x & 0x7FFFFFFF
		r := (a+half+(a>>shift)&1)>>shift - expAdjust
		tiny := math.Float32bits(math.Float32frombits(a)+magicF) - magic
		if a < minNormal {
			r = tiny
		}
		if r > maxBits { // overflow (the subtraction may wrap)
			r = overflow
		}
		if a >= 0x7F800000 { // ±Inf (separate tests: one conditional move each)
			r = overflow
		}
		if a > 0x7F800000 {
			r = nan
		}
		sign := x >> 24 & 0x80
		if r == 0 {
			sign &= signedZero
		}
		dst[i] = uint8(r | sign)
	}
}

func float8ToFloat32Generic(dst []float32, src []uint8, table *[256]uint32) {
	dst = dst[:len(src)]
	for len(src) >= 4 { // unrolled, as intToInt (classic_generic.go) says why
		d, s := dst[:4:4], src[:4:4]
		d[0], d[1] = math.Float32frombits(table[s[0]]), math.Float32frombits(table[s[1]])
		d[2], d[3] = math.Float32frombits(table[s[2]]), math.Float32frombits(table[s[3]])
		dst, src = dst[4:], src[4:]
	}
	for i, b := range src {
		dst[i] = math.Float32frombits(table[b])
	}
}

// float16ToFloat8Generic widens exactly to float32 and narrows once, so the
// value is rounded a single time: 256 elements at a time through a buffer
// on the stack, so that both loops run with their element code inlined.
func float16ToFloat8Generic(dst []uint8, src []uint16, p *float8Params) {
	var buf [256]uint32
	dst = dst[:len(src)]
	for len(src) > 0 {
		k := min(len(src), len(buf))
		for i, h := range src[:k] {
			buf[i] = f16ToF32(h)
		}
		narrowF8Bits(dst[:k], buf[:k], p)
		src, dst = src[k:], dst[k:]
	}
}

func bfloat16ToFloat8Generic(dst []uint8, src []uint16, p *float8Params) {
	var buf [256]uint32
	dst = dst[:len(src)]
	for len(src) > 0 {
		k := min(len(src), len(buf))
		for i, b := range src[:k] {
			buf[i] = bf16ToF32(b)
		}
		narrowF8Bits(dst[:k], buf[:k], p)
		src, dst = src[k:], dst[k:]
	}
}

// f32ToE8M0 implements ONNX's FLOAT8E8M0 rounding on float32 bits: the code
// is the float32 exponent field, rounded up by the significand per mode.
// float32 subnormals are first scaled by 2^64 (exact) to make them normal.
func f32ToE8M0(x uint32, p *e8m0Params) uint8 {
	a := x & 0x7FFFFFFF
	scale := uint32(0)
	if a < 0x00800000 {
		a = math.Float32bits(math.Float32frombits(a) * 0x1p64)
		scale = 64
	}
	e := int32((a+p.roundAdd)>>23) - int32(scale)
	r := uint32(e)
	if e < 0 { // below 2^-127 after rounding (zero included): only scaled subnormals get here
		r = p.underflow
	}
	if e >= 255 {
		r = p.overflow
	}
	if x&0x7FFFFFFF > 0x7F800000 {
		r = 0xFF
	}
	return uint8(r)
}

// float32ToE8M0Generic is f32ToE8M0 written out in the loop (it is over
// the compiler's inlining budget), with p's fields in locals.
func float32ToE8M0Generic(dst []uint8, src []float32, p *e8m0Params) {
	if len(src) >= oddTableMin {
		if t := e8m0OddTableOf(p); t != nil {
			oddGather(dst, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(src))), len(src)), t)
			return
		}
	}
	e8m0Bits(dst, unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(src))), len(src)), p)
}

// e8m0Bits is float32ToE8M0Generic on float32 bits, without tables.
func e8m0Bits(dst []uint8, src []uint32, p *e8m0Params) {
	roundAdd, overflow, underflow := p.roundAdd, p.overflow, p.underflow
	dst = dst[:len(src)]
	for i, x := range src {
		a := x & 0x7FFFFFFF
		scaled := math.Float32bits(math.Float32frombits(a) * 0x1p64)
		scale := uint32(0)
		if a < 0x00800000 {
			a, scale = scaled, 64
		}
		e := int32((a+roundAdd)>>23) - int32(scale)
		r := uint32(e)
		if e < 0 {
			r = underflow
		}
		if e >= 255 {
			r = overflow
		}
		if x&0x7FFFFFFF > 0x7F800000 {
			r = 0xFF
		}
		dst[i] = uint8(r)
	}
}

// float4Params is the float8Params algorithm set up for FLOAT4E2M1 (one
// significand bit, bias 1, always saturating to ±6, NaN → 0x8).
var float4Params = float8Params{
	shift:      22,
	expAdjust:  126 << 1,
	minNormal:  127 << 23,
	magic:      math.Float32bits(0x1p22),
	maxBits:    0x7,
	overflow:   0x7,
	nan:        0x8,
	signedZero: 0x8,
}

// f32ToF4 is f32ToF8's algorithm with float4Params, written with its
// constants so that the compiler inlines it: the sign goes to bit 3, except
// for NaN (0x8).
func f32ToF4(x uint32) uint8 {
	a := x & 0x7FFFFFFF
	r := (a+1<<21-1+(a>>22)&1)>>22 - 126<<1
	tiny := math.Float32bits(math.Float32frombits(a)+0x1p22) - 0x4A800000 // bits of 2^22 (float4Params.magic)
	if a < 127<<23 {
		r = tiny
	}
	if r > 7 { // overflow (the subtraction may wrap) and ±Inf (which gives 258): saturate
		r = 7
	}
	r |= x >> 28 & 0x8
	if a > 0x7F800000 {
		r = 0x8
	}
	return uint8(r)
}

var widenFloat4 = [16]uint32{
	0x00000000, 0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000, 0x40800000, 0x40C00000,
	0x80000000, 0xBF000000, 0xBF800000, 0xBFC00000, 0xC0000000, 0xC0400000, 0xC0800000, 0xC0C00000,
}

func float32ToFloat4Generic(dst []uint8, src []float32) {
	n := len(src)
	s := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(src))), n)
	if n >= oddTableMin {
		oddGatherPack4(dst, s, float4OddTableOf())
		return
	}
	d := dst[:(n+1)/2]
	for j := range n / 2 {
		p := s[2*j : 2*j+2 : 2*j+2]
		d[j] = f32ToF4(p[0]) | f32ToF4(p[1])<<4
	}
	if n%2 == 1 {
		d[n/2] = f32ToF4(s[n-1])
	}
}

func float4ToFloat32Generic(dst []float32, src []uint8) {
	for i := range dst {
		dst[i] = math.Float32frombits(widenFloat4[src[i/2]>>(uint(i&1)*4)&15])
	}
}

// int8ToInt4Generic packs the low 4 bits of each byte, two to a byte:
// eight bytes at a time as one 64-bit word (SWAR), the nibbles drawn
// together by three shift-or-mask rounds into four bytes.
func int8ToInt4Generic(dst []uint8, src []uint8) {
	n := len(src)
	d := dst[:(n+1)/2]
	le := binary.LittleEndian
	i := 0
	for ; i+8 <= n; i += 8 {
		x := le.Uint64(src[i:i+8:i+8]) & 0x0F0F0F0F0F0F0F0F
		x = (x | x>>4) & 0x00FF00FF00FF00FF
		x = (x | x>>8) & 0x0000FFFF0000FFFF
		x = x | x>>16
		le.PutUint32(d[i/2:i/2+4:i/2+4], uint32(x))
	}
	for ; i+1 < n; i += 2 {
		d[i/2] = src[i]&15 | src[i+1]<<4
	}
	if i < n {
		d[i/2] = src[i] & 15
	}
}

func int4ToInt8Generic(dst []uint8, src []uint8) {
	for i := range dst {
		dst[i] = uint8(int8(src[i/2]<<(4-uint(i&1)*4)) >> 4)
	}
}

func uint4ToUint8Generic(dst []uint8, src []uint8) {
	for i := range dst {
		dst[i] = src[i/2] >> (uint(i&1) * 4) & 15
	}
}

// f32ToI4 truncates toward zero and keeps the low four bits. Every float32
// of magnitude 2^27 or more is a multiple of 16 (or Inf/NaN, or beyond the
// int64 range), so all of those give 0: f32ToLow32's low bits.
func f32ToI4(x uint32) uint8 { return uint8(f32ToLow32(x)) & 15 }

// float32ToInt4Generic packs FLOAT truncated to INT4/UINT4, four elements
// (two bytes) an iteration: 0.50-0.65 → 0.94-1.18 elements/ns (Zen 3, in L1) against
// a test per element and two an iteration.
func float32ToInt4Generic(dst []uint8, src []float32) {
	n := len(src)
	s := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(src))), n)
	i := 0
	for ; i+4 <= n; i += 4 {
		q, d := s[i:i+4:i+4], dst[i/2:i/2+2:i/2+2]
		d[0], d[1] = f32ToI4(q[0])|f32ToI4(q[1])<<4, f32ToI4(q[2])|f32ToI4(q[3])<<4
	}
	for ; i+1 < n; i += 2 {
		dst[i/2] = f32ToI4(s[i]) | f32ToI4(s[i+1])<<4
	}
	if i < n {
		dst[i/2] = f32ToI4(s[i])
	}
}

func lut8Generic(dst []uint8, src []uint8, table *[256]uint8) { lutGeneric(dst, src, table) }

func lut16Generic(dst []uint16, src []uint8, table *[256]uint16) { lutGeneric(dst, src, table) }

// lutGeneric sets dst[i] = table[src[i]], unrolled as intToInt
// (classic_generic.go) says why.
func lutGeneric[D uint8 | uint16](dst []D, src []uint8, table *[256]D) {
	dst = dst[:len(src)]
	for len(src) >= 4 {
		d, s := dst[:4:4], src[:4:4]
		d[0], d[1], d[2], d[3] = table[s[0]], table[s[1]], table[s[2]], table[s[3]]
		dst, src = dst[4:], src[4:]
	}
	for i, b := range src {
		dst[i] = table[b]
	}
}

// float16ToBFloat16Generic widens exactly and rounds once.
func float16ToBFloat16Generic(dst []uint16, src []uint16) {
	dst = dst[:len(src)]
	for i, h := range src {
		dst[i] = f32ToBF16(f16ToF32(h))
	}
}

// bfloat16ToFloat16Generic widens exactly and rounds once.
func bfloat16ToFloat16Generic(dst []uint16, src []uint16) {
	dst = dst[:len(src)]
	for i, b := range src {
		dst[i] = f32ToF16(bf16ToF32(b))
	}
}

// int8ToInt2Generic packs the low 2 bits of each byte, four to a byte:
// eight bytes at a time as one 64-bit word (SWAR) into two bytes.
func int8ToInt2Generic(dst []uint8, src []uint8) {
	n := len(src)
	d := dst[:(n+3)/4]
	le := binary.LittleEndian
	i := 0
	for ; i+8 <= n; i += 8 {
		x := le.Uint64(src[i:i+8:i+8]) & 0x0303030303030303
		x = (x | x>>6) & 0x000F000F000F000F
		x = (x | x>>12) & 0x000000FF000000FF
		x = x | x>>24
		le.PutUint16(d[i/4:i/4+2:i/4+2], uint16(x))
	}
	if r := src[i:]; len(r) > 0 { // under 8 left: whole bytes, then the partly used last one
		for j := 0; j < len(r); j += 4 {
			var b uint8
			for k := j; k < len(r) && k < j+4; k++ {
				b |= r[k] & 3 << (2 * uint(k-j))
			}
			d[(i+j)/4] = b
		}
	}
}
