package tensorcast

import "fmt"

// This file is the dispatch point: every typed entry point and every hot pair
// of Cast calls through the kernel table `active`. A kernel table holds one
// function per hot conversion; the architecture files (kernel_amd64.go,
// kernel_arm64.go) fill `active` at init from the best tier the CPU supports,
// conversion by conversion, falling back to the portable kernels in
// kernel_generic.go.
//
// Kernel contract: n = len(src) elements (for packed sources, len(dst)
// elements); the caller guarantees dst is long enough. A kernel reads only
// src[:n] and writes only the bytes the n results occupy.

// kernel is one implementation of one conversion, with the tier that
// provides it (one of the names KernelInfo.Kernel lists).
type kernel[F any] struct {
	fn   F
	tier string
}

// kernelSet is the table of hot conversions.
type kernelSet struct {
	tier string

	// stages holds the best registered SIMD stage of each classic pair for
	// this tier (stage.go), filled by resolveStages.
	stages *stageTable

	f32ToF16  kernel[func(dst []uint16, src []float32)]
	f16ToF32  kernel[func(dst []float32, src []uint16)]
	f32ToBF16 kernel[func(dst []uint16, src []float32)]
	bf16ToF32 kernel[func(dst []float32, src []uint16)]

	// f32ToF8 narrows to one of the four float8 types in one saturate
	// mode, described by p; f8ToF32 widens any 8-bit float through its
	// 256-entry table of float32 bit patterns.
	f32ToF8 kernel[func(dst []uint8, src []float32, p *float8Params)]
	f8ToF32 kernel[func(dst []float32, src []uint8, table *[256]uint32)]
	// f16ToF8 and bf16ToF8 narrow 16-bit floats to float8 with one rounding.
	f16ToF8  kernel[func(dst []uint8, src []uint16, p *float8Params)]
	bf16ToF8 kernel[func(dst []uint8, src []uint16, p *float8Params)]

	f32ToE8M0 kernel[func(dst []uint8, src []float32, p *e8m0Params)]

	// f32ToF4 packs two FLOAT4E2M1 per byte (len(src) elements); f4ToF32
	// unpacks len(dst) elements.
	f32ToF4 kernel[func(dst []uint8, src []float32)]
	f4ToF32 kernel[func(dst []float32, src []uint8)]

	// Nibble packing: i8ToI4 keeps the low 4 bits of each byte (INT8→INT4
	// and UINT8→UINT4 wrap the same way), packing len(src) elements;
	// i4ToI8 and u4ToU8 unpack len(dst) elements with sign or zero
	// extension; f32ToI4 truncates toward zero and wraps (INT4 and UINT4
	// share bits).
	i8ToI4  kernel[func(dst []uint8, src []uint8)]
	i4ToI8  kernel[func(dst []uint8, src []uint8)]
	u4ToU8  kernel[func(dst []uint8, src []uint8)]
	f32ToI4 kernel[func(dst []uint8, src []float32)]

	// i8ToI2 keeps the low 2 bits of each byte, packing len(src) elements
	// four to a byte (INT2 and UINT2 share bits; padding bits zero).
	i8ToI2 kernel[func(dst []uint8, src []uint8)]

	// Table lookups of 8-bit sources (tables.go builds the tables from the
	// reference, one per pair and Options mode): lut8 sets dst[i] =
	// table[src[i]], lut16 the same with 16-bit entries. They serve every
	// pair from INT8, UINT8, BOOL, the float8 types and E8M0 to an 8- or
	// 16-bit target, in one step.
	lut8  kernel[func(dst []uint8, src []uint8, table *[256]uint8)]
	lut16 kernel[func(dst []uint16, src []uint8, table *[256]uint16)]
	// sel8 and sel16 look up two-valued tables (select.go) instead of lut8
	// and lut16, where the tier has them (nil elsewhere).
	sel8  kernel[func(dst []uint8, src []uint8, p *selectParams)]
	sel16 kernel[func(dst []uint16, src []uint8, p *selectParams)]

	// unpack[b][w]: packed sources (b 0: 4-bit, 1: 2-bit) to targets of
	// 8<<w bits through a 16-entry table (unpack.go).
	unpack [2][4]kernel[unpackFunc]

	// lutPack[b]: 8-bit sources to packed targets (b 0: 4-bit, 1: 2-bit),
	// lut8's lookup and the packing in one kernel; nil where the tier has
	// none (lutPackStep then runs lut8 and i8ToI4 or i8ToI2).
	lutPack [2]kernel[lutPackFunc]

	// map4 sets dst[i] = t[src[i]&15] | t[16+src[i]>>4]; map4Pack packs
	// those values (4 bits each) two to a byte. With the tables of
	// nibbleTables they convert between the packed types.
	map4, map4Pack kernel[map4Func]

	// toF8[from] converts from (INT16, UINT16, INT32, UINT32, INT64,
	// UINT64, DOUBLE) to a float8 type in one kernel, where the tier has
	// one; elsewhere the pair's plan goes through FLOAT (fusedF8Step).
	toF8 [numTypes]kernel[fusedF8Func]
	// toE8[from]: the same for FLOAT8E8M0 (FLOAT16, BFLOAT16, INT16, UINT16,
	// INT32, UINT32; fusedE8Step).
	toE8 [numTypes]kernel[fusedE8Func]

	// FLOAT16 ↔ BFLOAT16, each rounded once (to nearest even; NaN as the
	// FLOAT pivot would give it).
	f16ToBF16 kernel[func(dst []uint16, src []uint16)]
	bf16ToF16 kernel[func(dst []uint16, src []uint16)]
}

// tiers lists every kernel table this machine can run, lowest first, so tests
// can compare each against the reference in one process. Architecture files
// append to it at init.
var tiers = []*kernelSet{genericKernels()}

// active is the table the library uses: the generic one of tiers until an
// architecture file picks a higher tier.
var active = tiers[0]

// KernelName returns the best tier in use: "avx512", "avx2", "neon" or
// "generic" (the tier of the float32 → FLOAT16 kernel; Kernels lists every
// conversion).
func KernelName() string { return active.f32ToF16.tier }

// KernelInfo names the kernel that serves one hot conversion. Kernel is
// the name of the tier that provides it, one of "generic", "avx2",
// "avx512", "avx512+bf16", "neon", "neon+bf16": the names Tiers returns,
// and "avx512+bf16" for the AVX-512 tier's FLOAT -> BFLOAT16 kernel on CPUs
// with AVX512_BF16 (VCVTNE2PS2BF16). `tensorcast cpu` prints them.
type KernelInfo struct {
	Conversion string // e.g. "FLOAT -> FLOAT16"
	Kernel     string // the tier, e.g. "avx512"
}

// Kernels lists, for each hot conversion, which kernel tier serves it on this
// machine. Conversions not listed run the portable element-wise code.
func Kernels() []KernelInfo { return active.list() }

func (s *kernelSet) list() []KernelInfo {
	sel := s.sel8.tier // two-valued tables: select kernels where the tier has them, else lut8
	if sel == "" {
		sel = s.lut8.tier
	}
	return []KernelInfo{
		{"FLOAT -> FLOAT16", s.f32ToF16.tier},
		{"FLOAT16 -> FLOAT", s.f16ToF32.tier},
		{"FLOAT -> BFLOAT16", s.f32ToBF16.tier},
		{"BFLOAT16 -> FLOAT", s.bf16ToF32.tier},
		{"FLOAT -> FLOAT8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ)", s.f32ToF8.tier},
		{"FLOAT8 (all four), FLOAT8E8M0 -> FLOAT", s.f8ToF32.tier},
		{"FLOAT16 -> FLOAT8", s.f16ToF8.tier},
		{"BFLOAT16 -> FLOAT8", s.bf16ToF8.tier},
		{"FLOAT -> FLOAT8E8M0", s.f32ToE8M0.tier},
		{"FLOAT -> FLOAT4E2M1", s.f32ToF4.tier},
		{"FLOAT4E2M1 -> FLOAT", s.f4ToF32.tier},
		{"INT8/UINT8 -> INT4/UINT4", s.i8ToI4.tier},
		{"INT4 -> INT8", s.i4ToI8.tier},
		{"UINT4 -> UINT8", s.u4ToU8.tier},
		{"FLOAT -> INT4/UINT4", s.f32ToI4.tier},
		{"INT8/UINT8 -> INT2/UINT2", s.i8ToI2.tier},
		{"8-bit types -> 8-bit types (256-entry table)", s.lut8.tier},
		{"8-bit types -> 16-bit types (256-entry table)", s.lut16.tier},
		{"BOOL -> 8/16-bit types, FLOAT8 -> BOOL (two-valued table)", sel},
		{"4-bit types -> 8- to 64-bit types (16-entry table)", s.unpack[0][3].tier},
		{"2-bit types -> 8- to 64-bit types (4-entry table)", s.unpack[1][3].tier},
		{"packed types -> packed types (nibble tables)", s.map4.tier},
		{"FLOAT16 -> BFLOAT16", s.f16ToBF16.tier},
		{"BFLOAT16 -> FLOAT16", s.bf16ToF16.tier},
	}
}

// Tiers lists the kernel tiers this machine can run, lowest first:
// "generic", then "avx2" and "avx512" on amd64 (as the CPU allows), or
// "neon" and "neon+bf16" (with FEAT_BF16) on arm64.
func Tiers() []string {
	names := make([]string, len(tiers))
	for i, k := range tiers {
		names[i] = k.tier
	}
	return names
}

// UseTier makes the library use the kernels of the named tier (one of
// Tiers()) instead of the best one, for tests, benchmarks and debugging. It
// must not be called while conversions are running in other goroutines. The
// tiers themselves are chosen at init, so GODEBUG=cpu.avx512f=off (or
// cpu.avx2=off) is the way to disable a tier for a whole process.
func UseTier(name string) error {
	for _, k := range tiers {
		if k.tier == name {
			active = k
			return nil
		}
	}
	return fmt.Errorf("tensorcast: tier %q is not available here (have %v)", name, Tiers())
}
