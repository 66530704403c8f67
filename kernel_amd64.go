//go:build amd64 && gc && !purego && !noasm

package tensorcast

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// Dispatch glue for the generated AVX2 and AVX-512 kernels (gen/amd64,
// kernel_amd64.s): the tiers in order of CPU features, and the wrappers
// that do not follow the rule of the generated ones (wrappers_amd64.go,
// from gen/amd64/wrappers.go's tables, with the tiers' kernel tables from
// gen/amd64/register.go). Each wrapper
// declares the memory the assembly touches to the race detector and
// finishes what the assembly leaves: the AVX2 kernels convert whole steps
// only (<kernel>Lanes elements at a time, constants generated from each
// kernel's Loop.Lanes) and the generic code converts the remaining
// elements; the AVX-512 kernels mask their tail.

// The assembly reads float8Params as an array of uint32 at fixed offsets
// (its size is checked in wrappers_amd64.go, with the conversions f8p…);
// this fails to compile if the last field moves.
var _ = [1]struct{}{}[unsafe.Offsetof(float8Params{}.signedZero)-28]

// hasGFNI reports whether the AVX2 tier may use GFNI (its VEX forms need
// AVX, which the tier has). golang.org/x/sys/cpu reports GFNI only on
// AVX-512 CPUs (HasAVX512GFNI, which GODEBUG=cpu.avx512gfni=off clears,
// also under cpu.avx512f=off: CI's run of the AVX2 tier without GFNI on an
// AVX-512 machine); on the others cpuid answers, so that AVX2-only CPUs
// with GFNI (Alder Lake and later) have it.
func hasGFNI() bool {
	if cpu.X86.HasAVX512F || cpuid.CPU.Supports(cpuid.AVX512F) {
		return cpu.X86.HasAVX512GFNI
	}
	return cpuid.CPU.Supports(cpuid.GFNI)
}

// asmFloat8Params reports whether the float8 parameter sets meet what the
// narrowing kernels assume: overflow is maxBits (saturating) or maxBits+1,
// so that min(r, overflow) replaces every r > maxBits.
func asmFloat8Params() bool {
	for _, ps := range float8Table {
		for _, p := range ps {
			if p.overflow != p.maxBits && p.overflow != p.maxBits+1 {
				return false
			}
		}
	}
	return true
}

// asmFloat8WParams reports whether the float8 parameter sets also meet
// what f32ToF8AVX512W assumes: 3 or 2 mantissa bits (shift 20 or 21: one
// loop each), and magic (2^23 times the smallest subnormal) a power of two,
// so 1.5·magic has a zero low byte.
func asmFloat8WParams() bool {
	for _, ps := range float8Table {
		for _, p := range ps {
			if p.shift != 20 && p.shift != 21 || p.magic&0x7FFFFF != 0 || p.overflow > 0x80 {
				return false
			}
		}
	}
	return asmFloat8Params()
}

// asmE8M0Params reports whether the FLOAT8E8M0 parameter sets are of the
// two kinds the kernels' clamp handles: underflow 0, or underflow and
// overflow both 0xFF.
func asmE8M0Params() bool {
	for _, ps := range e8m0Table {
		for _, p := range ps {
			if p.underflow != 0 && (p.underflow != 0xFF || p.overflow != 0xFF) {
				return false
			}
		}
	}
	return true
}

func init() {
	// The L3 a core sees (per CCX on AMD); unknown: never stream.
	if l3 := cpuid.CPU.Cache.L3; l3 > 0 {
		streamMinBytes = l3
	}
	if !(cpu.X86.HasAVX2 && cpu.X86.HasF16C) {
		return
	}
	// Each tier starts as a copy of the one below; its table rows
	// (gen/amd64/register.go) and installers replace what it does better.
	k := *tiers[len(tiers)-1]
	k.tier = "avx2"
	setAVX2Kernels(&k)
	setUnpackAVX2(&k)
	setFusedF8AVX2(&k)
	tiers = append(tiers, &k)
	ks := k
	setAVX2Streams(&ks)
	streamingSets[&k] = &ks

	if !(cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL && cpu.X86.HasBMI2) {
		active = tiers[len(tiers)-1]
		return
	}
	k5 := k
	k5.tier = "avx512"
	setAVX512Kernels(&k5)
	setPackedAVX512(&k5)
	setFusedF8AVX512(&k5)
	tiers = append(tiers, &k5)
	active = tiers[len(tiers)-1]
	k5s := k5
	setAVX512Streams(&k5s)
	streamingSets[&k5] = &k5s
}

// The conversions with streaming variants (gen/amd64, WithNT): each
// dispatcher checks wantStream (stream.go) and converts large inputs with
// ntConvert, small ones with the ordinary kernel (its …Store wrapper). The
// AVX-512 …Store wrappers are written to stay within the inlining budget
// (hence the explicit pointer conversions), so that a small call costs a
// comparison more than it did without streaming.

// avx512BF16F32ToBF16 streams with the integer kernel: on data with a few
// NaNs or subnormals (the benchmarks' 0.6%), a sixth of the blocks of 32 take
// the VCVTNE2PS2BF16 kernel's fix-up branch, and at 64 Mi elements the
// integer kernel was measured 1.17× faster with streaming stores (about as
// fast as FLOAT -> FLOAT16).
func avx512BF16F32ToBF16(dst []uint16, src []float32) {
	if wantStream(4*len(src), 2*len(src)) {
		ntConvert(dst, src, avx512BF16F32ToBF16Store, f32ToBF16AVX512NT)
		return
	}
	avx512BF16F32ToBF16Store(dst, src)
}

func avx512BF16F32ToBF16Store(dst []uint16, src []float32) {
	raceRead(src)
	raceWrite(dst[:len(src)])
	f32ToBF16AVX512BF16(unsafe.SliceData(dst), unsafe.SliceData(src), len(src))
}

func avx2F8ToF32(dst []float32, src []uint8, table *[256]uint32) {
	if wantStream(len(src), 4*len(src)) {
		ntConvertP(dst, src, table, avx2F8ToF32Store, ntF8ToF32AVX2)
		return
	}
	avx2F8ToF32Store(dst, src, table)
}

// avx2F8Kernels returns the AVX2 kernels of the type whose widening table is
// table (params.go), or nil for any other table.
func avx2F8Kernels(table *[256]uint32) (fn func(*float32, *uint8, int), nt func(*float32, *uint8, int) int, lanes int) {
	switch table {
	case &widenE4M3FN:
		return e4m3fnToF32AVX2, e4m3fnToF32AVX2NT, e4m3fnToF32AVX2Lanes
	case &widenE4M3FNUZ:
		return e4m3fnuzToF32AVX2, e4m3fnuzToF32AVX2NT, e4m3fnuzToF32AVX2Lanes
	case &widenE5M2:
		return e5m2ToF32AVX2, e5m2ToF32AVX2NT, e5m2ToF32AVX2Lanes
	case &widenE5M2FNUZ:
		return e5m2fnuzToF32AVX2, e5m2fnuzToF32AVX2NT, e5m2fnuzToF32AVX2Lanes
	case &widenE8M0:
		return e8m0ToF32AVX2, e8m0ToF32AVX2NT, e8m0ToF32AVX2Lanes
	}
	return nil, nil, 0
}

// avx2F8ToF32Store converts with the kernel of the table's type (computing
// what the table holds) and leaves other tables to the generic loop.
func avx2F8ToF32Store(dst []float32, src []uint8, table *[256]uint32) {
	n := len(src)
	dst = dst[:n]
	m := 0
	if fn, _, lanes := avx2F8Kernels(table); fn != nil {
		m = n &^ (lanes - 1)
		if m > 0 {
			raceRead(src[:m])
			raceWrite(dst[:m])
			fn(unsafe.SliceData(dst), unsafe.SliceData(src), m)
		}
	}
	float8ToFloat32Generic(dst[m:], src[m:], table)
}

// ntF8ToF32AVX2 converts nothing for a table of no known type; the rest then
// goes to avx2F8ToF32Store, which falls back to the generic loop.
func ntF8ToF32AVX2(dst *float32, src *uint8, n int, table *[256]uint32) int {
	if _, nt, _ := avx2F8Kernels(table); nt != nil {
		return nt(dst, src, n)
	}
	return 0
}

func avx512F8ToF32(dst []float32, src []uint8, table *[256]uint32) {
	if wantStream(len(src), 4*len(src)) {
		ntConvertP(dst, src, table, avx512F8ToF32Store, ntF8ToF32AVX512)
		return
	}
	avx512F8ToF32Store(dst, src, table)
}

// avx512F8ToF32Store leaves to the generic loop any table whose entries have
// nonzero low halves, which the kernel refuses (none of ours do). The
// kernel builds its lookup planes in about as long as the generic loop takes
// for 16 elements, so it serves every length.
func avx512F8ToF32Store(dst []float32, src []uint8, table *[256]uint32) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	if !f8ToF32AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n, table) {
		float8ToFloat32Generic(dst, src, table)
	}
}

// ntF8ToF32AVX512 converts nothing where the kernel refuses the table; the
// rest then goes to avx512F8ToF32Store, which falls back to the generic loop.
func ntF8ToF32AVX512(dst *float32, src *uint8, n int, table *[256]uint32) int {
	ok, m := f8ToF32AVX512NT(dst, src, n, table)
	if !ok {
		return 0
	}
	return m
}

// ntHead returns the number of elements of dst before its first 64-byte
// line (at most n), or -1 if dst is not aligned to its element size, so that
// no element starts a line.
func ntHead[D any](dst []D, n int) int {
	size := unsafe.Sizeof(*new(D))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(dst)))
	if p%size != 0 {
		return -1
	}
	return min(n, int((-p)&63/size))
}

// streamHook, if set (by tests), receives the number of elements each
// streaming kernel converted.
var streamHook func(elements int)

// ntConvert converts src into dst with streaming stores: nt, a streaming
// kernel, converts the whole blocks from the first 64-byte line of dst on,
// and store, the ordinary kernel, the elements before and after them. Where
// dst is not aligned to its element size, store converts everything.
func ntConvert[D, S any](dst []D, src []S, store func([]D, []S), nt func(*D, *S, int) int) {
	n := len(src)
	dst = dst[:n]
	h := ntHead(dst, n)
	if h < 0 {
		store(dst, src)
		return
	}
	store(dst[:h], src[:h])
	if h < n {
		raceRead(src[h:])
		raceWrite(dst[h:])
		m := nt(&dst[h], &src[h], n-h)
		if streamHook != nil {
			streamHook(m)
		}
		h += m
	}
	store(dst[h:], src[h:])
}

// ntConvertP is ntConvert for the kernels with a parameter.
func ntConvertP[D, S, P any](dst []D, src []S, p P, store func([]D, []S, P), nt func(*D, *S, int, P) int) {
	n := len(src)
	dst = dst[:n]
	h := ntHead(dst, n)
	if h < 0 {
		store(dst, src, p)
		return
	}
	store(dst[:h], src[:h], p)
	if h < n {
		raceRead(src[h:])
		raceWrite(dst[h:])
		m := nt(&dst[h], &src[h], n-h, p)
		if streamHook != nil {
			streamHook(m)
		}
		h += m
	}
	store(dst[h:], src[h:], p)
}

// ntAlways and ntAlwaysP make the kernels of a streaming twin
// (streamingKernels), which stream at every size.
func ntAlways[D, S any](store func([]D, []S), nt func(*D, *S, int) int) func([]D, []S) {
	return func(dst []D, src []S) { ntConvert(dst, src, store, nt) }
}

func ntAlwaysP[D, S, P any](store func([]D, []S, P), nt func(*D, *S, int, P) int) func([]D, []S, P) {
	return func(dst []D, src []S, p P) { ntConvertP(dst, src, p, store, nt) }
}

// avx2Bulk runs an AVX2 kernel on the largest multiple of its lanes (a
// power of two) and the portable kernel on the rest.
func avx2Bulk[D, S any](dst []D, src []S, asm func(*D, *S, int), lanes int, rest func([]D, []S)) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (lanes - 1)
	if m > 0 {
		asm(unsafe.SliceData(dst), unsafe.SliceData(src), m)
	}
	if m < n {
		rest(dst[m:], src[m:])
	}
}

// avx2BulkP is avx2Bulk for kernels with parameters: p for the portable
// kernel, q (the same parameters as the assembly reads them) for asm.
func avx2BulkP[D, S, P, Q any](dst []D, src []S, p P, q Q, asm func(*D, *S, int, Q), lanes int, rest func([]D, []S, P)) {
	n := len(src)
	dst = dst[:n]
	raceRead(src)
	raceWrite(dst)
	m := n &^ (lanes - 1)
	if m > 0 {
		asm(unsafe.SliceData(dst), unsafe.SliceData(src), m, q)
	}
	if m < n {
		rest(dst[m:], src[m:], p)
	}
}

// The wrappers that do more than wrappers_amd64.go's rules (gen/amd64
// plainWrappers, streamWrappers): lut16, whose kernels need a scratch
// buffer and whose AVX2 form sends the tables it can compute to kernels
// that do (lut.go).

// avx512BWLut16 serves AVX-512 CPUs without VBMI (the AVX2 algorithm on 64
// bytes at a time).
func avx512BWLut16(dst []uint16, src []uint8, table *[256]uint16) {
	if fn, _ := avx2IntToHalf(table); fn != nil { // computed: faster than the tree
		avx2Lut16(dst, src, table)
		return
	}
	var planes [512]byte
	raceRead(src)
	raceWrite(dst[:len(src)])
	lut16AVX512BW(unsafe.SliceData(dst), unsafe.SliceData(src), len(src), table, &planes)
}

// avx2Lut16 gives the kernel a buffer on its stack for the table's byte
// planes, which the kernel fills (64 instructions) before its loop. The
// tables of INT8 and UINT8 → FLOAT16 and BFLOAT16 and FLOAT8E5M2 → FLOAT16
// (tables.go builds each once) go to kernels that compute their values,
// several times faster than the lookup (gen/amd64/lut.go, intToHalfAVX2,
// f8ToHalfAVX2).
func avx2Lut16(dst []uint16, src []uint8, table *[256]uint16) {
	n := len(src)
	dst = dst[:n]
	if fn, lanes := avx2IntToHalf(table); fn != nil {
		m := n &^ (lanes - 1)
		if m > 0 {
			raceRead(src[:m])
			raceWrite(dst[:m])
			fn(unsafe.SliceData(dst), unsafe.SliceData(src), m)
		}
		lut16Generic(dst[m:], src[m:], table)
		return
	}
	m := n &^ (lut16AVX2Lanes - 1)
	if m > 0 {
		var planes [512]byte
		raceRead(src[:m])
		raceWrite(dst[:m])
		lut16AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), m, table, &planes)
	}
	lut16Generic(dst[m:], src[m:], table)
}

// avx2IntToHalf returns the kernel that computes table's values, or nil
// (at most eight atomic loads and comparisons).
func avx2IntToHalf(table *[256]uint16) (func(*uint16, *uint8, int), int) {
	is := func(from, to DataType) bool {
		return unsafe.SliceData(tableFor(from, to, Options{}).b16) == &table[0]
	}
	switch {
	case is(Int8, Float16):
		return i8ToF16AVX2, i8ToF16AVX2Lanes
	case is(Uint8, Float16):
		return u8ToF16AVX2, u8ToF16AVX2Lanes
	case is(Int8, BFloat16):
		return i8ToBF16AVX2, i8ToBF16AVX2Lanes
	case is(Uint8, BFloat16):
		return u8ToBF16AVX2, u8ToBF16AVX2Lanes
	case is(Float8E5M2, Float16):
		return e5m2ToF16AVX2, e5m2ToF16AVX2Lanes
	}
	return nil, 0
}
