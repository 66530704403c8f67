package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tensorcast/tensorcast"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "convert built-in values (ties, subnormals, overflow, NaN, Inf, -0) to every float format",
		run: func(args []string, _ io.Reader, stdout, _ io.Writer) error {
			if err := noArgs("demo", args, stdout); err != nil {
				return err
			}
			return runDemo(stdout)
		},
	})
}

type demoInput struct {
	label string
	v     float32
}

// demoInputs is the built-in tensor: values chosen to show each rule.
var demoInputs = []demoInput{
	{"1", 1},
	{"-2.5", -2.5},
	{"3.14159", 3.14159},
	{"0.1", 0.1},
	{"1e-40 (f32 subnormal)", 1e-40},
	{"2^-24 (min f16 subnormal)", 0x1p-24},
	{"2^-25 (f16 tie -> 0)", 0x1p-25},
	{"1+2^-11 (f16 tie -> 1)", 1 + 0x1p-11},
	{"1+2^-8 (bf16 tie -> 1)", 1 + 0x1p-8},
	{"464 (e4m3fn tie -> 448)", 464},
	{"2.5 (fp4 tie -> 2)", 2.5},
	{"1e5 (f16 overflow)", 1e5},
	{"70000", 70000},
	{"3.4e38 (bf16 overflow)", 3.4e38},
	{"NaN", float32(math.NaN())},
	{"+Inf", float32(math.Inf(1))},
	{"-Inf", float32(math.Inf(-1))},
	{"-0", float32(math.Copysign(0, -1))},
}

// demoVariant is one conversion of the inputs: a target with options.
type demoVariant struct {
	title string // column group title, "" for a single group
	opt   tensorcast.Options
}

// demoBlock is one target format and the option variants shown side by side.
type demoBlock struct {
	to       tensorcast.DataType
	variants []demoVariant
}

var (
	single    = []demoVariant{{"", tensorcast.Options{}}}
	saturates = []demoVariant{
		{"saturate=1 (default)", tensorcast.Options{}},
		{"saturate=0", tensorcast.Options{NoSaturate: true}},
	}
	demoBlocks = []demoBlock{
		{tensorcast.Float16, single},
		{tensorcast.BFloat16, single},
		{tensorcast.Float8E4M3FN, saturates},
		{tensorcast.Float8E4M3FNUZ, saturates},
		{tensorcast.Float8E5M2, saturates},
		{tensorcast.Float8E5M2FNUZ, saturates},
		{tensorcast.Float8E8M0, []demoVariant{
			{"round_mode=up (default)", tensorcast.Options{RoundMode: tensorcast.RoundUp}},
			{"round_mode=down", tensorcast.Options{RoundMode: tensorcast.RoundDown}},
			{"round_mode=nearest", tensorcast.Options{RoundMode: tensorcast.RoundNearest}},
		}},
		{tensorcast.Float4E2M1, single},
	}
)

// demoResult is one converted element.
type demoResult struct {
	bits uint64  // the target's bit pattern
	back float32 // the result converted back to FLOAT
}

// demoConvert converts all inputs to `to` with tensorcast.Cast and back to FLOAT.
func demoConvert(to tensorcast.DataType, opt tensorcast.Options) ([]demoResult, error) {
	n := len(demoInputs)
	src := make([]byte, 4*n)
	for i, in := range demoInputs {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(in.v))
	}
	dst := make([]byte, to.Size(n))
	if err := tensorcast.Cast(dst, to, src, tensorcast.Float, n, opt); err != nil {
		return nil, err
	}
	back := make([]byte, 4*n)
	if err := tensorcast.Cast(back, tensorcast.Float, dst, to, n, tensorcast.Options{}); err != nil {
		return nil, err
	}
	res := make([]demoResult, n)
	for i := range res {
		res[i].back = math.Float32frombits(binary.LittleEndian.Uint32(back[4*i:]))
		switch to.BitSize() {
		case 4:
			res[i].bits = uint64(dst[i/2]>>(4*uint(i%2))) & 0xF
		case 8:
			res[i].bits = uint64(dst[i])
		case 16:
			res[i].bits = uint64(binary.LittleEndian.Uint16(dst[2*i:]))
		}
	}
	return res, nil
}

func runDemo(w io.Writer) error {
	fmt.Fprintf(w, "tensorcast demo: kernel tier in use: %s (run `tensorcast cpu` for the kernel of each conversion)\n", tensorcast.KernelName())
	fmt.Fprintf(w, "%d float32 inputs converted with tensorcast.Cast to each float format; \"value\" is the result converted back to FLOAT,\n", len(demoInputs))
	fmt.Fprintln(w, "\"rel.err\" is |value - input| / |input| (\"exact\" when equal, \"-\" when not finite; FLOAT8E8M0 has no sign: against |input|).")
	for _, b := range demoBlocks {
		results := make([][]demoResult, len(b.variants))
		for j, v := range b.variants {
			r, err := demoConvert(b.to, v.opt)
			if err != nil {
				return err
			}
			results[j] = r
		}
		fmt.Fprintf(w, "\n%v: %s\n", b.to, b.to.Range())
		titles := make([]string, len(b.variants))
		for j, v := range b.variants {
			titles[j] = v.title
		}
		rows := make([][]string, len(demoInputs))
		for i, in := range demoInputs {
			row := []string{in.label}
			for j := range b.variants {
				r := results[j][i]
				row = append(row, hexBits(r.bits, b.to.BitSize()), formatF32(r.back), relErr(in.v, r.back, b.to))
			}
			rows[i] = row
		}
		if err := writeGrouped(w, "input", titles, []string{"bits", "value", "rel.err"}, rows); err != nil {
			return err
		}
	}
	return nil
}

// writeGrouped prints an aligned table: a first column, then one group of
// len(sub) columns per title, groups separated by " | ". A title row is
// printed when any title is non-empty. rows hold 1+len(titles)*len(sub) cells.
func writeGrouped(w io.Writer, first string, titles, sub []string, rows [][]string) error {
	ncol := 1 + len(titles)*len(sub)
	width := make([]int, ncol)
	width[0] = len(first)
	for g := range titles {
		for k, h := range sub {
			width[1+g*len(sub)+k] = len(h)
		}
	}
	for _, r := range rows {
		for c, cell := range r {
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	// Widen a group's last column so that its title fits.
	for g, t := range titles {
		gw := 2 * (len(sub) - 1)
		for k := range sub {
			gw += width[1+g*len(sub)+k]
		}
		if extra := len(t) - gw; extra > 0 {
			width[(g+1)*len(sub)] += extra
		}
	}
	pad := func(s string, n int) string {
		return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
	}
	line := func(cells []string) string {
		var sb strings.Builder
		sb.WriteString(pad(cells[0], width[0]))
		for g := range titles {
			sb.WriteString("  |")
			for k := range sub {
				c := 1 + g*len(sub) + k
				sb.WriteString(" ")
				if k > 0 {
					sb.WriteString(" ")
				}
				sb.WriteString(pad(cells[c], width[c]))
			}
		}
		return strings.TrimRight(sb.String(), " ") + "\n"
	}
	var out strings.Builder
	if slices.ContainsFunc(titles, func(t string) bool { return t != "" }) {
		// A title spans its group's columns.
		var sb strings.Builder
		sb.WriteString(strings.Repeat(" ", width[0]))
		for g, t := range titles {
			gw := 2 * (len(sub) - 1)
			for k := range sub {
				gw += width[1+g*len(sub)+k]
			}
			sb.WriteString("  | ")
			sb.WriteString(pad(t, gw))
		}
		out.WriteString(strings.TrimRight(sb.String(), " ") + "\n")
	}
	header := []string{first}
	for range titles {
		header = append(header, sub...)
	}
	out.WriteString(line(header))
	for _, r := range rows {
		out.WriteString(line(r))
	}
	_, err := io.WriteString(w, out.String())
	return err
}

func hexBits(b uint64, bits int) string {
	return fmt.Sprintf("0x%0*x", (bits+3)/4, b)
}

func formatF32(v float32) string {
	switch {
	case math.IsNaN(float64(v)):
		return "NaN"
	case math.IsInf(float64(v), 1):
		return "+Inf"
	case math.IsInf(float64(v), -1):
		return "-Inf"
	}
	return strconv.FormatFloat(float64(v), 'g', -1, 32)
}

// relErr is |got - want| / |want| (against |want| for the unsigned E8M0).
func relErr(want, got float32, to tensorcast.DataType) string {
	x, y := float64(want), float64(got)
	if to == tensorcast.Float8E8M0 {
		x = math.Abs(x)
	}
	switch {
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0):
		return "-"
	case x == y:
		return "exact"
	case x == 0:
		return "inf"
	}
	return fmt.Sprintf("%.2e", math.Abs(y-x)/math.Abs(x))
}
