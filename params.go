package tensorcast

import "math"

// float8Params describes one float8 target type in one saturate mode, as the
// narrowing kernels (Go and assembly) consume it. The algorithm, per lane,
// on a = |x| as float32 bits:
//
//	NaN (a > 0x7F800000):   nan
//	a < minNormal:          bits(float32(a) + float32(magic)) - magic   (the FPU rounds the subnormal)
//	otherwise:              (a + (1<<(shift-1)) - 1 + ((a>>shift)&1)) >> shift - expAdjust
//	result > maxBits:       overflow (this also catches ±Inf)
//	then the sign:          result | sign>>24, except that a zero result of a FNUZ type stays 0x00
//	                        (signedZero = 0) and nan/overflow values that already hold 0x80 are unchanged.
//
// The layout is fixed: assembly reads the fields at these offsets.
type float8Params struct {
	shift      uint32 // 23 - mantissa bits of the target
	expAdjust  uint32 // (127 - target bias) << mantissa bits
	minNormal  uint32 // float32 bits of the target's smallest normal value
	magic      uint32 // float32 bits of 2^(1-bias-mbits+23): adding it rounds to the target's subnormal grid
	maxBits    uint32 // the largest finite magnitude
	overflow   uint32 // magnitude byte for overflow and ±Inf (maxBits when saturating)
	nan        uint32 // byte for NaN
	signedZero uint32 // 0x80 if -0 keeps its sign, 0 for the FNUZ types
}

func newFloat8Params(mbits, bias int, maxBits, overflowNoSat, nan uint32, fnuz, saturate bool) float8Params {
	p := float8Params{
		shift:      uint32(23 - mbits),
		expAdjust:  uint32(127-bias) << uint(mbits),
		minNormal:  uint32(1-bias+127) << 23,
		magic:      math.Float32bits(float32(math.Ldexp(1, 1-bias-mbits+23))),
		maxBits:    maxBits,
		overflow:   overflowNoSat,
		nan:        nan,
		signedZero: 0x80,
	}
	if saturate {
		p.overflow = maxBits
	}
	if fnuz {
		p.signedZero = 0
	}
	return p
}

// float8Table holds the parameters of the four float8 types, indexed by
// [type - Float8E4M3FN][saturate].
var float8Table = [4][2]float8Params{
	{newFloat8Params(3, 7, 0x7E, 0x7F, 0x7F, false, false), newFloat8Params(3, 7, 0x7E, 0x7F, 0x7F, false, true)},
	{newFloat8Params(3, 8, 0x7F, 0x80, 0x80, true, false), newFloat8Params(3, 8, 0x7F, 0x80, 0x80, true, true)},
	{newFloat8Params(2, 15, 0x7B, 0x7C, 0x7E, false, false), newFloat8Params(2, 15, 0x7B, 0x7C, 0x7E, false, true)},
	{newFloat8Params(2, 16, 0x7F, 0x80, 0x80, true, false), newFloat8Params(2, 16, 0x7F, 0x80, 0x80, true, true)},
}

func float8ParamsFor(t DataType, opt Options) *float8Params {
	sat := 1
	if opt.NoSaturate {
		sat = 0
	}
	return &float8Table[t-Float8E4M3FN][sat]
}

// e8m0Params describes FLOAT8E8M0 narrowing in one round mode and saturate
// mode. Per lane, on a = |x| as float32 bits (the sign is ignored):
//
//	NaN:                 0xFF
//	a == 0 or subnormal: handled exactly (see float32ToE8M0Generic)
//	otherwise:           e = (a + roundAdd) >> 23, where roundAdd is 0x7FFFFF (up),
//	                     0 (down) or 0x400000 (nearest); Inf and e > 254 give overflow.
type e8m0Params struct {
	roundAdd  uint32
	overflow  uint32 // 0xFE when saturating, 0xFF otherwise
	underflow uint32 // 0x00 when saturating, 0xFF otherwise
	mode      uint32 // the RoundMode
}

var e8m0Table = [3][2]e8m0Params{
	{{0x7FFFFF, 0xFF, 0xFF, 0}, {0x7FFFFF, 0xFE, 0x00, 0}},
	{{0, 0xFF, 0xFF, 1}, {0, 0xFE, 0x00, 1}},
	{{0x400000, 0xFF, 0xFF, 2}, {0x400000, 0xFE, 0x00, 2}},
}

func e8m0ParamsFor(opt Options) *e8m0Params {
	sat := 1
	if opt.NoSaturate {
		sat = 0
	}
	return &e8m0Table[opt.RoundMode][sat]
}

// Widening tables: the float32 bit pattern of every 8-bit float, computed at
// init by widenFloat8 (widening is exact, so a table is a complete kernel).
var (
	widenE4M3FN   [256]uint32
	widenE4M3FNUZ [256]uint32
	widenE5M2     [256]uint32
	widenE5M2FNUZ [256]uint32
	widenE8M0     [256]uint32
)

func widenTable(t DataType) *[256]uint32 {
	switch t {
	case Float8E4M3FN:
		return &widenE4M3FN
	case Float8E4M3FNUZ:
		return &widenE4M3FNUZ
	case Float8E5M2:
		return &widenE5M2
	case Float8E5M2FNUZ:
		return &widenE5M2FNUZ
	case Float8E8M0:
		return &widenE8M0
	}
	return nil
}

func init() {
	for b := range 256 {
		widenE4M3FN[b] = widenFloat8(uint32(b), 3, 7, b&0x7F == 0x7F)
		widenE4M3FNUZ[b] = widenFloat8(uint32(b), 3, 8, b == 0x80)
		widenE5M2[b] = widenFloat8(uint32(b), 2, 15, b&0x7C == 0x7C)
		widenE5M2FNUZ[b] = widenFloat8(uint32(b), 2, 16, b == 0x80)
		widenE8M0[b] = math.Float32bits(float32(math.Ldexp(1, b-127))) // 2^-127 is a float32 subnormal: exact
		if b == 0xFF {
			widenE8M0[b] = 0x7FC00000
		}
	}
	// E5M2 keeps IEEE infinities.
	widenE5M2[0x7C], widenE5M2[0xFC] = 0x7F800000, 0xFF800000
}

// widenFloat8 returns the float32 bits of the sign-magnitude float8 value b
// with mbits significand bits and the given bias; special values become the
// canonical quiet NaN with the stored sign bit.
func widenFloat8(b uint32, mbits, bias int, special bool) uint32 {
	sign := b >> 7 << 31
	if special {
		return sign | 0x7FC00000
	}
	e := int(b>>uint(mbits)) & (1<<uint(7-mbits) - 1)
	m := int(b) & (1<<uint(mbits) - 1)
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-bias-mbits)
	} else {
		v = math.Ldexp(float64(m|1<<uint(mbits)), e-bias-mbits)
	}
	return sign | math.Float32bits(float32(v))
}

// selectParams describes a two-valued table of an 8-bit source (tables.go,
// selectShape) for the select kernels: dst[i] = zero where src[i]&mask == 0,
// else other. Each field holds its byte (mask; the values of 8-bit targets)
// or word (the values of 16-bit targets) repeated to fill 32 bits, as the
// assembly broadcasts it. The layout is fixed: assembly reads the fields at
// these offsets.
type selectParams struct {
	mask  uint32
	zero  uint32
	other uint32
}

// splitParams describes the table t of an 8-bit source to an 8-bit target
// as two 16-entry lookups and at most four corrections (split.go,
// splitShape): for every byte x,
//
//	t[x] = hi[x>>4] + lo[x&15] + fix[0][x-start[0]] + ... + fix[3][x-start[3]]
//
// mod 2^8, where lo counts only where rows[x>>4] is 0 (it is 0x80 in the
// rows that are one constant; masked is 1 if any is), and fix[i][j] counts
// only for j < 16 (x - start[i] taken mod 2^8) and only for i < windows.
// The layout is fixed: assembly reads the fields at these offsets
// (gen/amd64/split.go).
type splitParams struct {
	hi, lo, rows [16]uint8
	fix          [maxSplitWindows][16]uint8
	start        [maxSplitWindows]uint8
	windows      uint8
	masked       uint8
}

// roundParams describes the table of UINT8 to a float8 type as a
// rounding per row of 16 bytes (round8.go, roundShape): with h = x>>4,
//
//	t[x] = min(base[h] + round(x·mul[h]) + low[x] (x < 16 only), limit)
//
// (INT8, signed = 1: the same of m = |x|, with x's sign bit or'ed in)
// where round(y) = ((y + half + (y>>shift)&1 + 1) >> 1 >> (shift-1)) & mask
// is y/2^shift to nearest even (half = 2^(shift-1) - 2, mask = 0xFF >>
// (shift-1)). The layout is fixed: assembly reads the fields at these
// offsets (gen/amd64/round8.go).
type roundParams struct {
	mul, base, low [16]uint8
	shift          uint8
	half           uint8
	mask           uint8
	limit          uint8
	signed         uint8
}

// classParams describes the table of INT8 or UINT8 to a float8 type as a
// lookup tree (class8.go, classShape): for INT8, with m = |x| and h = m>>4,
//
//	t[x] = base[h] + rows[c][(m | cls[h]&1) & 15] | x&0x80
//
// and for UINT8 (unsigned = 1), with h = x>>4,
//
//	t[x] = base[h] + rows[c][(x | cls[h]&1) & 15] + (int8(x) > int8(over[h]))
//
// where c is cls[h]'s bit 7 plus twice its bit 6, and the lookup reads 0
// where the index has bit 7 set (m = 128; x ≥ 128). useOrm is 1 if any
// cls[h]&1 is. The layout is fixed: assembly reads the fields at these
// offsets (gen/amd64/class8.go).
type classParams struct {
	cls, base, over  [16]uint8
	rows             [4][16]uint8
	useOrm, unsigned uint8
}

// finer8Params describes the table of a float8 type to one with more
// significand bits (finer8.go, finerShape). The layout is fixed: assembly
// reads the fields at these offsets (gen/amd64/finer8.go).
type finer8Params struct {
	low                    [16]uint8
	base, sub, limit       uint8
	nanAbove, nanByte, nan uint8
	signZero               uint8
	// whole: the source is FLOAT8E8M0 (the byte is the magnitude, 0xFF its
	// NaN, no sign); its normal codes are (m - sub) << shift (2 or 3), with
	// m - sub clamped at pre first so that the shift stays in the byte.
	// The signed sources have shift 1 and do not read pre.
	whole, shift, pre uint8
}

// maxSplitWindows is the number of correction windows splitParams has room
// for; the AVX2 kernel takes its count from the layout.
const maxSplitWindows = 4
