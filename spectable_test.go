package tensorcast_test

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/tensorcast/tensorcast"
)

// Table tests taken from the ONNX Cast-24 specification (the float8 tables
// for saturate=1 and saturate=0, the FLOAT8E8M0 table, the spec's examples)
// and from tensorcast's semantics rules 1-8. Every row asserts exact bits,
// through the public API, from every source type that holds the row's value
// exactly: FLOAT, DOUBLE, FLOAT16 and BFLOAT16.

type (
	DT   = tensorcast.DataType
	Opts = tensorcast.Options
)

const (
	fltMax = math.MaxFloat32
	e4m3fn = tensorcast.Float8E4M3FN
	e4m3uz = tensorcast.Float8E4M3FNUZ
	e5m2   = tensorcast.Float8E5M2
	e5m2uz = tensorcast.Float8E5M2FNUZ
)

var (
	specNaN     = math.Float64frombits(0x7FF8000000000000)
	specNegNaN  = math.Float64frombits(0xFFF8000000000000)
	specInf     = math.Inf(1)
	specNegInf  = math.Inf(-1)
	specNegZero = math.Copysign(0, -1)

	float8Types = [4]DT{e4m3fn, e4m3uz, e5m2, e5m2uz}
	floatSrcs   = []DT{tensorcast.Float, tensorcast.Double, tensorcast.Float16, tensorcast.BFloat16}
	satOpts     = []Opts{{}, {NoSaturate: true}}
)

func pow2(e int) float64 { return math.Ldexp(1, e) }

// encodeFloat returns the bits of x in the float type dt, and false when dt
// cannot hold x exactly. NaN becomes the type's canonical quiet NaN with x's
// sign.
func encodeFloat(x float64, dt DT) (uint64, bool) {
	sign := uint64(0)
	if math.Signbit(x) {
		sign = 1
	}
	isNaN := math.IsNaN(x)
	switch dt {
	case tensorcast.Double:
		if isNaN {
			return sign<<63 | 0x7FF8000000000000, true
		}
		return math.Float64bits(x), true
	case tensorcast.Float, tensorcast.BFloat16:
		var b uint32
		if isNaN {
			b = uint32(sign)<<31 | 0x7FC00000
		} else {
			f := float32(x)
			if float64(f) != x && !math.IsInf(x, 0) {
				return 0, false
			}
			b = math.Float32bits(f)
		}
		if dt == tensorcast.Float {
			return uint64(b), true
		}
		if b&0xFFFF != 0 {
			return 0, false
		}
		return uint64(b >> 16), true
	case tensorcast.Float16:
		a := math.Abs(x)
		switch {
		case isNaN:
			return sign<<15 | 0x7E00, true
		case math.IsInf(x, 0):
			return sign<<15 | 0x7C00, true
		case a < pow2(-14): // zero or subnormal: a multiple of 2^-24
			m := a * pow2(24)
			if m != math.Trunc(m) {
				return 0, false
			}
			return sign<<15 | uint64(m), true
		case a > 65504:
			return 0, false
		}
		_, exp := math.Frexp(a) // a = f × 2^exp, f in [0.5, 1)
		e := exp - 1
		m := (a/pow2(e) - 1) * 1024
		if m != math.Trunc(m) {
			return 0, false
		}
		return sign<<15 | uint64(e+15)<<10 | uint64(m), true
	}
	panic("encodeFloat: not a wide float type: " + dt.String())
}

// putElement writes bits v as element i of a raw tensor of type dt.
func putElement(raw []byte, dt DT, i int, v uint64) {
	switch bits := dt.BitSize(); bits {
	case 2:
		raw[i/4] = raw[i/4]&^(3<<(2*(i%4))) | byte(v&3)<<(2*(i%4))
	case 4:
		raw[i/2] = raw[i/2]&^(15<<(4*(i%2))) | byte(v&15)<<(4*(i%2))
	default:
		w := bits / 8
		for j := range w {
			raw[i*w+j] = byte(v >> (8 * j))
		}
	}
}

// castRow is one line of a spec table: a label, the source bits and the
// expected target bits.
type castRow struct {
	label string
	src   uint64
	want  uint64
}

// checkCast converts each row's source bits from `from` to `to`, one element
// at a time and as one long batch (long enough for the vector kernels and
// their tails), and requires the exact expected bits.
func checkCast(t *testing.T, from, to DT, opt Opts, rows []castRow) {
	t.Helper()
	if len(rows) == 0 {
		return
	}
	for _, r := range rows {
		in := make([]byte, max(1, from.Size(1)))
		putElement(in, from, 0, r.src)
		out := bytes.Repeat([]byte{0xA5}, to.Size(1))
		if err := tensorcast.Cast(out, to, in, from, 1, opt); err != nil {
			t.Errorf("%s: Cast %v → %v: %v", r.label, from, to, err)
			continue
		}
		got := element(out, to, 0)
		if got != r.want {
			t.Errorf("%s: %v %s → %v %+v: got %s, want %s", r.label, from, hexBits(r.src, from), to, opt,
				hexBits(got, to), hexBits(r.want, to))
		}
		if to.BitSize() < 8 && uint64(out[0]) != got {
			t.Errorf("%s: %v → %v: padding bits not zero: byte %#02x", r.label, from, to, out[0])
		}
	}
	const reps = 9 // 9 × the rows: past any vector width, with an odd tail
	n := len(rows) * reps
	in := make([]byte, from.Size(n))
	for i := range n {
		putElement(in, from, i, rows[i%len(rows)].src)
	}
	out := bytes.Repeat([]byte{0xA5}, to.Size(n))
	if err := tensorcast.Cast(out, to, in, from, n, opt); err != nil {
		t.Errorf("batch Cast %v → %v: %v", from, to, err)
		return
	}
	bad := map[int]bool{}
	for i := range n {
		r := rows[i%len(rows)]
		if got := element(out, to, i); got != r.want && !bad[i%len(rows)] {
			bad[i%len(rows)] = true
			t.Errorf("%s: batch of %d, element %d: %v %s → %v %+v: got %s, want %s", r.label, n, i, from,
				hexBits(r.src, from), to, opt, hexBits(got, to), hexBits(r.want, to))
		}
	}
}

// fcase is a table row whose source is a real number (or ±0, ±Inf, NaN).
type fcase struct {
	label string
	x     float64
	want  uint64
}

func caseLabel(c fcase) string {
	if c.label != "" {
		return c.label
	}
	return formatFloat(c.x)
}

func formatFloat(x float64) string {
	switch {
	case math.IsNaN(x) && math.Signbit(x):
		return "-NaN"
	case math.IsNaN(x):
		return "NaN"
	case x == 0 && math.Signbit(x):
		return "-0"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// checkFloatSources runs the rows from every wide float source type that
// holds their values exactly, and for FLOAT sources with an 8-bit float
// target through Float32ToFloat8 too.
func checkFloatSources(t *testing.T, to DT, opt Opts, cases []fcase) {
	t.Helper()
	for _, from := range floatSrcs {
		var rows []castRow
		for _, c := range cases {
			if b, ok := encodeFloat(c.x, from); ok {
				rows = append(rows, castRow{caseLabel(c), b, c.want})
			}
		}
		checkCast(t, from, to, opt, rows)
	}
	if to.BitSize() != 8 || !to.IsFloat() {
		return
	}
	var src []float32
	var want []uint64
	var labels []string
	for _, c := range cases {
		if b, ok := encodeFloat(c.x, tensorcast.Float); ok {
			src, want, labels = append(src, math.Float32frombits(uint32(b))), append(want, c.want), append(labels, caseLabel(c))
		}
	}
	dst := make([]uint8, len(src))
	tensorcast.Float32ToFloat8(dst, to, src, opt)
	for i := range src {
		if uint64(dst[i]) != want[i] {
			t.Errorf("%s: Float32ToFloat8(%v, %+v) of %#08x: got %#02x, want %#02x", labels[i], to, opt,
				math.Float32bits(src[i]), dst[i], want[i])
		}
	}
}

// f8row is a row of the Cast-24 float8 tables: one expected byte per type,
// in the order E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ.
type f8row struct {
	label string
	x     float64
	want  [4]uint64
}

// The rows the two tables share: zeros, NaNs and the "else" (round to
// nearest even) row, with normals, ties, subnormals and underflow.
var float8Common = []f8row{
	{"", 0, [4]uint64{0x00, 0x00, 0x00, 0x00}},
	{"", specNegZero, [4]uint64{0x80, 0x00, 0x80, 0x00}},
	{"", specNaN, [4]uint64{0x7F, 0x80, 0x7E, 0x80}},
	{"", specNegNaN, [4]uint64{0xFF, 0x80, 0xFE, 0x80}},
	{"", 1, [4]uint64{0x38, 0x40, 0x3C, 0x40}},
	{"", -1, [4]uint64{0xB8, 0xC0, 0xBC, 0xC0}},
	{"", 0.5, [4]uint64{0x30, 0x38, 0x38, 0x3C}},
	{"E4M3 tie to even (down)", 1.0625, [4]uint64{0x38, 0x40, 0x3C, 0x40}},
	{"E4M3 tie to even (up)", 1.1875, [4]uint64{0x3A, 0x42, 0x3D, 0x41}},
	{"E5M2 tie to even (down)", 1.125, [4]uint64{0x39, 0x41, 0x3C, 0x40}},
	{"", 100, [4]uint64{0x6C, 0x74, 0x56, 0x5A}},
	{"", -100, [4]uint64{0xEC, 0xF4, 0xD6, 0xDA}},
	{"", 240, [4]uint64{0x77, 0x7F, 0x5C, 0x60}},
	{"2^-9", pow2(-9), [4]uint64{0x01, 0x02, 0x18, 0x1C}},
	{"2^-10", pow2(-10), [4]uint64{0x00, 0x01, 0x14, 0x18}},
	{"-2^-10", -pow2(-10), [4]uint64{0x80, 0x81, 0x94, 0x98}},
	{"1.5×2^-10", 1.5 * pow2(-10), [4]uint64{0x01, 0x02, 0x16, 0x1A}},
	{"2^-11", pow2(-11), [4]uint64{0x00, 0x00, 0x10, 0x14}},
	{"-2^-11", -pow2(-11), [4]uint64{0x80, 0x00, 0x90, 0x94}},
	{"2^-17", pow2(-17), [4]uint64{0x00, 0x00, 0x00, 0x01}},
	{"-2^-17", -pow2(-17), [4]uint64{0x80, 0x00, 0x80, 0x81}},
	{"-2^-18", -pow2(-18), [4]uint64{0x80, 0x00, 0x80, 0x00}},
	{"", 1e-30, [4]uint64{0x00, 0x00, 0x00, 0x00}},
	{"", -1e-30, [4]uint64{0x80, 0x00, 0x80, 0x00}},
}

// Cast-24, saturate=1: ±Inf and [x] beyond the maximum give ±max.
var float8Saturate = []f8row{
	{"", specInf, [4]uint64{0x7E, 0x7F, 0x7B, 0x7F}},
	{"", specNegInf, [4]uint64{0xFE, 0xFF, 0xFB, 0xFF}},
	{"", 65536, [4]uint64{0x7E, 0x7F, 0x7B, 0x7F}},
	{"", 1e6, [4]uint64{0x7E, 0x7F, 0x7B, 0x7F}},
	{"FLT_MAX", fltMax, [4]uint64{0x7E, 0x7F, 0x7B, 0x7F}},
	{"", 1e300, [4]uint64{0x7E, 0x7F, 0x7B, 0x7F}},
	{"", -65536, [4]uint64{0xFE, 0xFF, 0xFB, 0xFF}},
	{"-FLT_MAX", -fltMax, [4]uint64{0xFE, 0xFF, 0xFB, 0xFF}},
	{"", -1e300, [4]uint64{0xFE, 0xFF, 0xFB, 0xFF}},
}

// Cast-24, saturate=0: ±Inf and overflow give E4M3FN NaN keeping the sign,
// E5M2 ±Inf, FNUZ 0x80.
var float8NoSaturate = []f8row{
	{"", specInf, [4]uint64{0x7F, 0x80, 0x7C, 0x80}},
	{"", specNegInf, [4]uint64{0xFF, 0x80, 0xFC, 0x80}},
	{"", 65536, [4]uint64{0x7F, 0x80, 0x7C, 0x80}},
	{"", 1e6, [4]uint64{0x7F, 0x80, 0x7C, 0x80}},
	{"FLT_MAX", fltMax, [4]uint64{0x7F, 0x80, 0x7C, 0x80}},
	{"", 1e300, [4]uint64{0x7F, 0x80, 0x7C, 0x80}},
	{"", -65536, [4]uint64{0xFF, 0x80, 0xFC, 0x80}},
	{"-FLT_MAX", -fltMax, [4]uint64{0xFF, 0x80, 0xFC, 0x80}},
	{"", -1e300, [4]uint64{0xFF, 0x80, 0xFC, 0x80}},
}

func TestSpecFloat8Tables(t *testing.T) {
	for _, opt := range satOpts {
		extra := float8Saturate
		name := "saturate=1"
		if opt.NoSaturate {
			extra, name = float8NoSaturate, "saturate=0"
		}
		t.Run(name, func(t *testing.T) {
			for k, to := range float8Types {
				t.Run(to.String(), func(t *testing.T) {
					var cases []fcase
					for _, r := range append(append([]f8row{}, float8Common...), extra...) {
						cases = append(cases, fcase{r.label, r.x, r.want[k]})
					}
					checkFloatSources(t, to, opt, cases)
				})
			}
		})
	}
}

// The top of each float8 range: the maximum itself, rounding down onto it,
// the tie just above it (ties go to even: 464 → 448 for E4M3FN, but 248 for
// E4M3FNUZ and 61440 for both E5M2 types round up, past the maximum), and
// the first overflows.
func TestSpecFloat8Maxima(t *testing.T) {
	type maxRow struct {
		x          float64
		sat, noSat uint64
	}
	tables := map[DT][]maxRow{
		e4m3fn: {
			{448, 0x7E, 0x7E}, {-448, 0xFE, 0xFE}, {449, 0x7E, 0x7E}, {464, 0x7E, 0x7E}, {-464, 0xFE, 0xFE},
			{464.25, 0x7E, 0x7F}, {465, 0x7E, 0x7F}, {-465, 0xFE, 0xFF}, {480, 0x7E, 0x7F}, {512, 0x7E, 0x7F},
			{464 + pow2(-30), 0x7E, 0x7F}, // DOUBLE only: float32 would round it to the tie 464
		},
		e4m3uz: {
			{240, 0x7F, 0x7F}, {-240, 0xFF, 0xFF}, {247, 0x7F, 0x7F}, {248, 0x7F, 0x80}, {-248, 0xFF, 0x80},
			{256, 0x7F, 0x80}, {-256, 0xFF, 0x80},
		},
		e5m2: {
			{57344, 0x7B, 0x7B}, {-57344, 0xFB, 0xFB}, {61439, 0x7B, 0x7B}, {61440, 0x7B, 0x7C},
			{-61440, 0xFB, 0xFC}, {65504, 0x7B, 0x7C}, {65536, 0x7B, 0x7C},
		},
		e5m2uz: {
			{57344, 0x7F, 0x7F}, {-57344, 0xFF, 0xFF}, {61439, 0x7F, 0x7F}, {61440, 0x7F, 0x80},
			{-61440, 0xFF, 0x80}, {65504, 0x7F, 0x80},
		},
	}
	for _, to := range float8Types {
		for _, opt := range satOpts {
			t.Run(to.String()+map[bool]string{false: "/saturate=1", true: "/saturate=0"}[opt.NoSaturate], func(t *testing.T) {
				var cases []fcase
				for _, r := range tables[to] {
					want := r.sat
					if opt.NoSaturate {
						want = r.noSat
					}
					cases = append(cases, fcase{"", r.x, want})
				}
				checkFloatSources(t, to, opt, cases)
			})
		}
	}
}

// Rule 3: widening 8-bit floats is exact; NaN becomes the canonical quiet
// NaN with the stored sign bit (so FNUZ 0x80 gives 0xFFC00000).
func TestSpecFloat8Widening(t *testing.T) {
	type wrow struct {
		from DT
		b    uint8
		f32  uint32
	}
	rows := []wrow{
		{e4m3fn, 0x7F, 0x7FC00000}, {e4m3fn, 0xFF, 0xFFC00000}, {e4m3fn, 0x7E, 0x43E00000}, {e4m3fn, 0xFE, 0xC3E00000},
		{e4m3fn, 0x80, 0x80000000}, {e4m3fn, 0x01, 0x3B000000}, {e4m3fn, 0x38, 0x3F800000},
		{e4m3uz, 0x80, 0xFFC00000}, {e4m3uz, 0x7F, 0x43700000}, {e4m3uz, 0xFF, 0xC3700000}, {e4m3uz, 0x01, 0x3A800000},
		{e5m2, 0x7E, 0x7FC00000}, {e5m2, 0xFE, 0xFFC00000}, {e5m2, 0x7D, 0x7FC00000}, {e5m2, 0xFF, 0xFFC00000},
		{e5m2, 0x7C, 0x7F800000}, {e5m2, 0xFC, 0xFF800000}, {e5m2, 0x7B, 0x47600000}, {e5m2, 0x01, 0x37800000},
		{e5m2, 0x80, 0x80000000},
		{e5m2uz, 0x80, 0xFFC00000}, {e5m2uz, 0x7F, 0x47600000}, {e5m2uz, 0x01, 0x37000000},
		{tensorcast.Float8E8M0, 0xFF, 0x7FC00000}, {tensorcast.Float8E8M0, 0x7F, 0x3F800000},
		{tensorcast.Float8E8M0, 0x00, 0x00400000}, {tensorcast.Float8E8M0, 0xFE, 0x7F000000},
	}
	for _, r := range rows {
		dst := make([]float32, 1)
		tensorcast.Float8ToFloat32(dst, []uint8{r.b}, r.from)
		if got := math.Float32bits(dst[0]); got != r.f32 {
			t.Errorf("Float8ToFloat32(%v %#02x) = %#08x, want %#08x", r.from, r.b, got, r.f32)
		}
		// The same value reaches FLOAT through Cast, and DOUBLE and FLOAT16
		// exactly (or as their canonical NaN with the same sign).
		f := math.Float32frombits(r.f32)
		for _, to := range []DT{tensorcast.Float, tensorcast.Double, tensorcast.Float16} {
			want, ok := encodeFloat(float64(f), to)
			if !ok {
				continue // below FLOAT16's range
			}
			checkCast(t, r.from, to, Opts{}, []castRow{{r.from.String() + " widening", uint64(r.b), want}})
		}
	}
}

// e8row is a row of the FLOAT8E8M0 table: the expected byte in the round
// modes up, down, nearest, with saturate=1 and with saturate=0.
type e8row struct {
	label      string
	x          float64
	sat, noSat [3]uint64
}

func TestSpecE8M0Table(t *testing.T) {
	same := func(b uint64) [3]uint64 { return [3]uint64{b, b, b} }
	rows := []e8row{
		{"", specNaN, same(0xFF), same(0xFF)},
		{"", specNegNaN, same(0xFF), same(0xFF)},
		{"", specInf, same(0xFE), same(0xFF)},
		{"-Inf (sign ignored)", specNegInf, same(0xFE), same(0xFF)},
		{"", 0, same(0x00), same(0xFF)},
		{"", specNegZero, same(0x00), same(0xFF)},
		{"", 1, same(0x7F), same(0x7F)},
		{"", -1, same(0x7F), same(0x7F)},
		{"", 2, same(0x80), same(0x80)},
		{"", 3, [3]uint64{0x81, 0x80, 0x81}, [3]uint64{0x81, 0x80, 0x81}},
		{"-3 (sign ignored)", -3, [3]uint64{0x81, 0x80, 0x81}, [3]uint64{0x81, 0x80, 0x81}},
		{"", 5, [3]uint64{0x82, 0x81, 0x81}, [3]uint64{0x82, 0x81, 0x81}},
		{"6 (nearest: 1.5 goes up)", 6, [3]uint64{0x82, 0x81, 0x82}, [3]uint64{0x82, 0x81, 0x82}},
		{"", 0.75, [3]uint64{0x7F, 0x7E, 0x7F}, [3]uint64{0x7F, 0x7E, 0x7F}},
		{"", 1.25, [3]uint64{0x80, 0x7F, 0x7F}, [3]uint64{0x80, 0x7F, 0x7F}},
		{"", 65504, [3]uint64{0x8F, 0x8E, 0x8F}, [3]uint64{0x8F, 0x8E, 0x8F}},
		{"2^-24", pow2(-24), same(0x67), same(0x67)},
		{"2^127", pow2(127), same(0xFE), same(0xFE)},
		{"1.5×2^127", 1.5 * pow2(127), [3]uint64{0xFE, 0xFE, 0xFE}, [3]uint64{0xFF, 0xFE, 0xFF}},
		{"FLT_MAX", fltMax, [3]uint64{0xFE, 0xFE, 0xFE}, [3]uint64{0xFF, 0xFE, 0xFF}},
		{"2^128", pow2(128), same(0xFE), same(0xFF)},
		{"-2^200", -pow2(200), same(0xFE), same(0xFF)},
		{"2^-127", pow2(-127), same(0x00), same(0x00)},
		{"1.75×2^-127", 1.75 * pow2(-127), [3]uint64{0x01, 0x00, 0x01}, [3]uint64{0x01, 0x00, 0x01}},
		{"2^-128", pow2(-128), same(0x00), same(0xFF)},
		{"1.5×2^-128", 1.5 * pow2(-128), same(0x00), [3]uint64{0x00, 0xFF, 0x00}},
		{"1.25×2^-128", 1.25 * pow2(-128), same(0x00), [3]uint64{0x00, 0xFF, 0xFF}},
		{"2^-149", pow2(-149), same(0x00), same(0xFF)},
		{"3×2^-149", 3 * pow2(-149), same(0x00), same(0xFF)},
		{"2^-300", pow2(-300), same(0x00), same(0xFF)},
	}
	modes := []tensorcast.RoundMode{tensorcast.RoundUp, tensorcast.RoundDown, tensorcast.RoundNearest}
	for m, mode := range modes {
		for _, opt := range satOpts {
			opt.RoundMode = mode
			t.Run(mode.String()+map[bool]string{false: "/saturate=1", true: "/saturate=0"}[opt.NoSaturate], func(t *testing.T) {
				var cases []fcase
				for _, r := range rows {
					want := r.sat[m]
					if opt.NoSaturate {
						want = r.noSat[m]
					}
					cases = append(cases, fcase{r.label, r.x, want})
				}
				checkFloatSources(t, tensorcast.Float8E8M0, opt, cases)
			})
		}
	}
}

// Rule 5: FLOAT4E2M1 always saturates to ±6 (saturate does not apply),
// rounds to nearest even, keeps -0, and NaN gives 0x8.
func TestSpecFloat4E2M1(t *testing.T) {
	cases := []fcase{
		{"", 0, 0x0}, {"", specNegZero, 0x8}, {"", specNaN, 0x8}, {"", specNegNaN, 0x8},
		{"", specInf, 0x7}, {"", specNegInf, 0xF}, {"", 6, 0x7}, {"", -6, 0xF}, {"", 7, 0x7}, {"", -7, 0xF},
		{"", 100, 0x7}, {"FLT_MAX", fltMax, 0x7}, {"", -1e300, 0xF},
		{"", 0.5, 0x1}, {"", 1, 0x2}, {"", 1.5, 0x3}, {"", 2, 0x4}, {"", 3, 0x5}, {"", 4, 0x6},
		{"-3.5 (tie to even)", -3.5, 0xE}, {"2.5 (tie to even)", 2.5, 0x4}, {"3.5 (tie to even)", 3.5, 0x6},
		{"5 (tie to even)", 5, 0x6}, {"", 5.5, 0x7}, {"0.25 (tie to even)", 0.25, 0x0},
		{"-0.25 (tie, -0)", -0.25, 0x8}, {"0.75 (tie to even)", 0.75, 0x2}, {"1.25 (tie to even)", 1.25, 0x2},
		{"1.75 (tie to even)", 1.75, 0x4}, {"", 0.3, 0x1}, {"", 0.2, 0x0}, {"", -0.1, 0x8},
	}
	for _, opt := range satOpts {
		checkFloatSources(t, tensorcast.Float4E2M1, opt, cases)
	}
	// Packing: first element in the low nibble, the padding nibble zero.
	src := make([]byte, 12)
	for i, x := range []float32{1, -6, 0.5} {
		putElement(src, tensorcast.Float, i, uint64(math.Float32bits(x)))
	}
	dst := []byte{0xA5, 0xA5}
	if err := tensorcast.Cast(dst, tensorcast.Float4E2M1, src, tensorcast.Float, 3, Opts{}); err != nil {
		t.Fatal(err)
	}
	if dst[0] != 0xF2 || dst[1] != 0x01 {
		t.Errorf("FLOAT [1 -6 0.5] → FLOAT4E2M1 = %x, want f201", dst)
	}
}

// Rule 7: float → integer truncates toward zero, then wraps modulo 2^N;
// NaN, ±Inf and values outside [-2^63, 2^64) give 0.
func TestSpecFloatToInt(t *testing.T) {
	type irow struct {
		label string
		x     float64
		to    DT
		want  uint64
	}
	rows := []irow{
		{"8.0 → INT4 -8", 8, tensorcast.Int4, 0x8},
		{"-1.0 → UINT4 15", -1, tensorcast.Uint4, 0xF},
		{"300.7 → UINT8 44", 300.7, tensorcast.Uint8, 44},
		{"300.75 → UINT8 44", 300.75, tensorcast.Uint8, 44},
		{"", 7.9, tensorcast.Int4, 7},
		{"", -8.5, tensorcast.Int4, 0x8},
		{"", -9, tensorcast.Int4, 7},
		{"", 16, tensorcast.Uint4, 0},
		{"", 17.5, tensorcast.Uint4, 1},
		{"2.0 → INT2 -2", 2, tensorcast.Int2, 0x2},
		{"", -1, tensorcast.Int2, 0x3},
		{"-1.0 → UINT2 3", -1, tensorcast.Uint2, 0x3},
		{"", 5.5, tensorcast.Uint2, 1},
		{"", -1.5, tensorcast.Int8, 0xFF},
		{"", -0.9, tensorcast.Int8, 0},
		{"", 0.9, tensorcast.Uint8, 0},
		{"", 128, tensorcast.Int8, 0x80},
		{"", 255.9, tensorcast.Int8, 0xFF},
		{"", 65535.9, tensorcast.Uint16, 0xFFFF},
		{"", 65536.5, tensorcast.Uint16, 0},
		{"", -32769, tensorcast.Int16, 0x7FFF},
		{"", 1e10, tensorcast.Int32, 0x540BE400},
		{"", -1e10, tensorcast.Int32, 0xABF41C00},
		{"", -1e10, tensorcast.Uint32, 0xABF41C00},
		{"", 4294967295, tensorcast.Uint32, 0xFFFFFFFF},
		{"2^63 → INT64 wraps", pow2(63), tensorcast.Int64, 1 << 63},
		{"-2^63", -pow2(63), tensorcast.Int64, 1 << 63},
		{"-2^63 → UINT64 wraps", -pow2(63), tensorcast.Uint64, 1 << 63},
		{"2^64-2^40", pow2(64) - pow2(40), tensorcast.Uint64, 0xFFFFFF0000000000},
		{"2^64-2048", pow2(64) - 2048, tensorcast.Uint64, 0xFFFFFFFFFFFFF800},
		{"2^64-2048 → INT64", pow2(64) - 2048, tensorcast.Int64, 0xFFFFFFFFFFFFF800},
		{"1e19", 1e19, tensorcast.Uint64, 0x8AC7230489E80000},
		{"2^64 out of range", pow2(64), tensorcast.Uint64, 0},
		{"2^64 out of range", pow2(64), tensorcast.Int64, 0},
		{"2^64 out of range", pow2(64), tensorcast.Int8, 0},
		{"-2^63-4096 out of range", -pow2(63) - 4096, tensorcast.Int64, 0},
		{"", -1e20, tensorcast.Int32, 0},
		{"", 1e300, tensorcast.Uint8, 0},
		{"", fltMax, tensorcast.Int32, 0},
	}
	for _, target := range []DT{tensorcast.Int2, tensorcast.Uint2, tensorcast.Int4, tensorcast.Uint4,
		tensorcast.Int8, tensorcast.Uint8, tensorcast.Int16, tensorcast.Uint16, tensorcast.Int32,
		tensorcast.Uint32, tensorcast.Int64, tensorcast.Uint64} {
		var cases []fcase
		for _, r := range rows {
			if r.to == target {
				cases = append(cases, fcase{r.label, r.x, r.want})
			}
		}
		for _, x := range []float64{specNaN, specNegNaN, specInf, specNegInf, 0, specNegZero, 1e-40, -0.5} {
			cases = append(cases, fcase{"", x, 0})
		}
		checkFloatSources(t, target, Opts{}, cases)
	}
}

// Rule 8: float → BOOL: ±0 → false, anything else (NaN too) → true.
func TestSpecFloatToBool(t *testing.T) {
	cases := []fcase{
		{"", 0, 0}, {"", specNegZero, 0}, {"", specNaN, 1}, {"", specNegNaN, 1}, {"", specInf, 1}, {"", specNegInf, 1},
		{"", 0.1, 1}, {"", -1, 1}, {"2^-149", pow2(-149), 1}, {"-2^-24", -pow2(-24), 1}, {"1e-300", 1e-300, 1},
	}
	checkFloatSources(t, tensorcast.Bool, Opts{}, cases)
}

// The spec's examples and rule 8's integer rows.
func TestSpecExamples(t *testing.T) {
	type erow struct {
		from, to  DT
		src, want uint64
		label     string
	}
	rows := []erow{
		{tensorcast.Int16, tensorcast.Int8, 200, 0xC8, "200 INT16 → -56 INT8"},
		{tensorcast.Int32, tensorcast.Bool, 36, 1, "36 INT32 → true"},
		{tensorcast.Int32, tensorcast.Bool, 0, 0, "0 INT32 → false"},
		{tensorcast.Int64, tensorcast.Bool, 1 << 40, 1, "2^40 INT64 → true"},
		{tensorcast.Int32, tensorcast.Uint8, 0xFFFFFFFF, 0xFF, "-1 INT32 → 255 UINT8"},
		{tensorcast.Int32, tensorcast.Int16, 65541, 5, "65541 INT32 → 5 INT16"},
		{tensorcast.Uint16, tensorcast.Uint8, 300, 44, "300 UINT16 → 44 UINT8"},
		{tensorcast.Int8, tensorcast.Int4, 0xFD, 0xD, "-3 INT8 → -3 INT4"},
		{tensorcast.Int8, tensorcast.Int4, 8, 0x8, "8 INT8 → -8 INT4"},
		{tensorcast.Int4, tensorcast.Int8, 0x8, 0xF8, "-8 INT4 → -8 INT8"},
		{tensorcast.Uint4, tensorcast.Int8, 0xF, 0x0F, "15 UINT4 → 15 INT8"},
		{tensorcast.Int2, tensorcast.Int32, 0x2, 0xFFFFFFFE, "-2 INT2 → -2 INT32"},
		{tensorcast.Int64, tensorcast.Uint64, 1<<64 - 1, 1<<64 - 1, "-1 INT64 → UINT64 max"},
		{tensorcast.Bool, tensorcast.Float, 1, 0x3F800000, "true → 1.0"},
		{tensorcast.Bool, tensorcast.Float, 2, 0x3F800000, "BOOL byte 2 reads as true"},
		{tensorcast.Bool, tensorcast.Bool, 2, 1, "BOOL byte 2 → true (1)"},
		{tensorcast.Bool, tensorcast.Int4, 1, 1, "true → INT4 1"},
		{tensorcast.Int32, tensorcast.Float16, 65519, 0x7BFF, "65519 → FLOAT16 65504"},
		{tensorcast.Int32, tensorcast.Float16, 65520, 0x7C00, "65520 → FLOAT16 +Inf"},
		{tensorcast.Int32, tensorcast.Float16, 70000, 0x7C00, "70000 → FLOAT16 +Inf"},
		{tensorcast.Int64, tensorcast.Float16, uint64(1<<64 - 70000), 0xFC00, "-70000 → FLOAT16 -Inf"},
		{tensorcast.Uint64, tensorcast.Float16, 1<<64 - 1, 0x7C00, "UINT64 max → FLOAT16 +Inf"},
		{tensorcast.Int32, tensorcast.Float16, 2049, 0x6800, "2049 → FLOAT16 2048 (tie to even)"},
		{tensorcast.Int32, tensorcast.Float16, 32785, 0x7801, "32785 → FLOAT16 32800"},
		{tensorcast.Int32, tensorcast.BFloat16, 257, 0x4380, "257 → BFLOAT16 256 (tie to even)"},
		{tensorcast.Int32, tensorcast.Float8E4M3FN, 1000, 0x7E, "1000 → E4M3FN 448 (saturate)"},
		{tensorcast.Int32, tensorcast.Float8E5M2, 0xFFFF0000, 0xFB, "-65536 → E5M2 -57344 (saturate)"},
		{tensorcast.Int32, tensorcast.Float4E2M1, 0xFFFFFFF9, 0xF, "-7 → FLOAT4E2M1 -6"},
		{tensorcast.Int32, tensorcast.Float8E8M0, 3, 0x81, "3 → E8M0 4 (up)"},
	}
	for _, r := range rows {
		checkCast(t, r.from, r.to, Opts{}, []castRow{{r.label, r.src, r.want}})
	}
	noSat := []erow{
		{tensorcast.Int32, tensorcast.Float8E4M3FN, 1000, 0x7F, "1000 → E4M3FN NaN (saturate=0)"},
		{tensorcast.Int32, tensorcast.Float8E5M2, 0xFFFF0000, 0xFC, "-65536 → E5M2 -Inf (saturate=0)"},
		{tensorcast.Int32, tensorcast.Float8E5M2FNUZ, 0xFFFF0000, 0x80, "-65536 → E5M2FNUZ NaN (saturate=0)"},
		{tensorcast.Int32, tensorcast.Float4E2M1, 0xFFFFFFF9, 0xF, "-7 → FLOAT4E2M1 -6 (saturate does not apply)"},
		{tensorcast.Int32, tensorcast.Float8E8M0, 0, 0xFF, "0 → E8M0 NaN (saturate=0)"},
	}
	for _, r := range noSat {
		checkCast(t, r.from, r.to, Opts{NoSaturate: true}, []castRow{{r.label, r.src, r.want}})
	}
}

// Rule 10 and the spec's string examples.
func TestSpecStrings(t *testing.T) {
	type srow struct {
		s    string
		to   DT
		want uint64
	}
	rows := []srow{
		{"100.5", tensorcast.Int32, 100},
		{"1e-5", tensorcast.Float, 0x3727C5AC},
		{"1E8", tensorcast.Float, 0x4CBEBC20},
		{"+INF", tensorcast.Float, 0x7F800000},
		{"-INF", tensorcast.Float, 0xFF800000},
		{"NaN", tensorcast.Float, 0x7FC00000},
		{"1e-5", tensorcast.Double, math.Float64bits(1e-5)},
		{"1E8", tensorcast.Float16, 0x7C00},
		{"-INF", tensorcast.Float8E4M3FN, 0xFE},
	}
	for _, r := range rows {
		dst := bytes.Repeat([]byte{0xA5}, r.to.Size(1))
		if err := tensorcast.CastFromStrings(dst, r.to, []string{r.s}, Opts{}); err != nil {
			t.Errorf("CastFromStrings(%q → %v): %v", r.s, r.to, err)
			continue
		}
		if got := element(dst, r.to, 0); got != r.want {
			t.Errorf("CastFromStrings(%q → %v) = %s, want %s", r.s, r.to, hexBits(got, r.to), hexBits(r.want, r.to))
		}
	}
}

// Rule 1: every conversion rounds the exact source value once. ONNX's
// Python reference goes through float32 for several of these pairs and so
// rounds twice; the comments give what that double rounding would produce.
func TestSpecDoubleRounding(t *testing.T) {
	type drow struct {
		label    string
		from, to DT
		src      uint64
		opt      Opts
		want     uint64
	}
	d := func(x float64) uint64 { return math.Float64bits(x) }
	i := func(x int64) uint64 { return uint64(x) }
	rows := []drow{
		// 1+2^-8 is the tie between BFLOAT16 1.0 and 1.0078125; 2^-30 breaks it.
		{"1+2^-8+2^-30 → BFLOAT16 (twice: 0x3F80)", tensorcast.Double, tensorcast.BFloat16, d(1 + pow2(-8) + pow2(-30)), Opts{}, 0x3F81},
		{"1+2^-11+2^-40 → FLOAT16 (twice: 0x3C00)", tensorcast.Double, tensorcast.Float16, d(1 + pow2(-11) + pow2(-40)), Opts{}, 0x3C01},
		{"1.0625+2^-30 → E4M3FN (twice: 0x38)", tensorcast.Double, e4m3fn, d(1.0625 + pow2(-30)), Opts{}, 0x39},
		{"464+2^-30 → E4M3FN saturate=0 (twice: 0x7E)", tensorcast.Double, e4m3fn, d(464 + pow2(-30)), Opts{NoSaturate: true}, 0x7F},
		{"1.125+2^-30 → E5M2 (twice: 0x3C)", tensorcast.Double, e5m2, d(1.125 + pow2(-30)), Opts{}, 0x3D},
		{"2.5+2^-30 → FLOAT4E2M1 (twice: 0x4)", tensorcast.Double, tensorcast.Float4E2M1, d(2.5 + pow2(-30)), Opts{}, 0x5},
		{"1+2^-40 → E8M0 up (twice: 0x7F)", tensorcast.Double, tensorcast.Float8E8M0, d(1 + pow2(-40)), Opts{}, 0x80},
		{"1.5-2^-40 → E8M0 nearest (twice: 0x80)", tensorcast.Double, tensorcast.Float8E8M0, d(1.5 - pow2(-40)), Opts{RoundMode: tensorcast.RoundNearest}, 0x7F},
		{"2^24+1 → FLOAT (tie to even)", tensorcast.Int64, tensorcast.Float, i(1<<24 + 1), Opts{}, 0x4B800000},
		{"2^53+1 → FLOAT", tensorcast.Int64, tensorcast.Float, i(1<<53 + 1), Opts{}, 0x5A000000},
		{"2^53+2^29+1 → FLOAT (via DOUBLE: 0x5A000000)", tensorcast.Int64, tensorcast.Float, i(1<<53 + 1<<29 + 1), Opts{}, 0x5A000001},
		{"-(2^53+2^29+1) → FLOAT", tensorcast.Int64, tensorcast.Float, i(-(1<<53 + 1<<29 + 1)), Opts{}, 0xDA000001},
		{"2^63+2^39+1 → FLOAT (via DOUBLE: 0x5F000000)", tensorcast.Uint64, tensorcast.Float, 1<<63 + 1<<39 + 1, Opts{}, 0x5F000001},
		{"2^64-1 → FLOAT", tensorcast.Uint64, tensorcast.Float, 1<<64 - 1, Opts{}, 0x5F800000},
		{"2^32+2^24+1 → BFLOAT16 (via FLOAT: 0x4F80)", tensorcast.Int64, tensorcast.BFloat16, i(1<<32 + 1<<24 + 1), Opts{}, 0x4F81},
		{"273 → E4M3FN 288", tensorcast.Int32, e4m3fn, i(1<<8 + 1<<4 + 1), Opts{}, 0x79},
	}
	for _, r := range rows {
		checkCast(t, r.from, r.to, r.opt, []castRow{{r.label, r.src, r.want}})
	}
}
