package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorcast/tensorcast"
)

// The writers of matrix mode: markdown summary, CSV, SVG heatmap.

// mxThresholds are the ratio thresholds the summary counts (issue 9's
// targets: ≥ 1× for single-stage pairs, ≥ 0.5× on AVX-512, ≥ 0.3× on AVX2).
var mxThresholds = []float64{1, 0.5, 0.3, 0.25}

// distinct returns the pairs with from ≠ to; same those with from = to.
func (r *mxRun) distinct() (distinct, same []*mxPair) {
	for _, p := range r.pairs {
		if p.from == p.to {
			same = append(same, p)
		} else {
			distinct = append(distinct, p)
		}
	}
	return distinct, same
}

// routeString is a route's steps joined by " ⇒ ", tiersString its tiers by "+".
func routeString(rt tensorcast.Route) string { return strings.Join(rt.Steps, " ⇒ ") }
func tiersString(rt tensorcast.Route) string { return strings.Join(rt.Tiers, "+") }

// summaryLine returns the counts at each threshold, the median and the range
// of the ratios of ps, and their median throughput.
func (r *mxRun) summaryRow(name string, ps []*mxPair) string {
	if len(ps) == 0 {
		return ""
	}
	var rs, es []float64
	for _, p := range ps {
		rs = append(rs, p.ratio)
		es = append(es, p.elemPerNs(r.n))
	}
	s := fmt.Sprintf("| %s | %d |", name, len(ps))
	for _, t := range mxThresholds {
		c := 0
		for _, v := range rs {
			if v >= t {
				c++
			}
		}
		s += fmt.Sprintf(" %d |", c)
	}
	return s + fmt.Sprintf(" %s | %s | %s | %s |", mxRatio(median(rs)), mxRatio(slices.Min(rs)), mxRatio(slices.Max(rs)), num(median(es)))
}

// writeMarkdown writes the header, the summary, the slowest pairs, a
// breakdown by the tiers of the route's steps, and the whole matrix.
func (r *mxRun) writeMarkdown(w io.Writer, slowest int) {
	for _, h := range r.header {
		fmt.Fprintln(w, h+"  ")
	}
	distinct, same := r.distinct()
	fmt.Fprintf(w, "\nEach pair: `tensorcast.Cast` of %s elements against `copy()` of the larger side's bytes, interleaved in %d rounds of about %v per batch; "+
		"ratio = time(copy) ÷ time(Cast), the median of the rounds' ratios (≥ 1× means faster than copy). Elements/ns is Cast's median throughput.\n",
		sizeName(r.n), r.reps, r.batch)

	fmt.Fprintf(w, "\n#### Summary\n\n| pairs | count |")
	for _, t := range mxThresholds {
		fmt.Fprintf(w, " ≥ %s× |", strconv.FormatFloat(t, 'g', -1, 64))
	}
	fmt.Fprintf(w, " median ratio | min | max | median elements/ns |\n|---|--:|")
	for range mxThresholds {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w, "--:|--:|--:|--:|")
	fmt.Fprintln(w, r.summaryRow("distinct (from ≠ to)", distinct))
	fmt.Fprintln(w, r.summaryRow("same type (a copy)", same))

	// By the tiers that serve the route's steps.
	groups := map[string][]*mxPair{}
	var keys []string
	for _, p := range distinct {
		k := fmt.Sprintf("%d step(s): %s", len(p.route.Steps), tiersString(p.route))
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	slices.SortFunc(keys, func(a, b string) int { return len(groups[b]) - len(groups[a]) })
	fmt.Fprintf(w, "\n#### Distinct pairs by the tiers of their route's steps\n\n| route | count |")
	for _, t := range mxThresholds {
		fmt.Fprintf(w, " ≥ %s× |", strconv.FormatFloat(t, 'g', -1, 64))
	}
	fmt.Fprintf(w, " median ratio | min | max | median elements/ns |\n|---|--:|")
	for range mxThresholds {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w, "--:|--:|--:|--:|")
	for _, k := range keys {
		fmt.Fprintln(w, r.summaryRow(k, groups[k]))
	}

	r.writeSteps(w, distinct)

	slow := slices.Clone(distinct)
	slices.SortStableFunc(slow, func(a, b *mxPair) int { return cmpFloat(a.ratio, b.ratio) })
	slow = slow[:min(slowest, len(slow))]
	fmt.Fprintf(w, "\n#### The %d slowest distinct pairs\n\n| from | to | ratio | elements/ns | steps | tiers |\n|---|---|--:|--:|---|---|\n", len(slow))
	for _, p := range slow {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", p.from, p.to, mxRatio(p.ratio), num(p.elemPerNs(r.n)),
			routeString(p.route), tiersString(p.route))
	}

	var bad []string
	for _, p := range r.pairs {
		if p.mismatch > 0 {
			bad = append(bad, fmt.Sprintf("%v → %v: %d", p.from, p.to, p.mismatch))
		}
	}

	fmt.Fprintf(w, "\n#### Ratio to copy(), every pair (rows: from, columns: to)\n\n| from \\ to |")
	for _, t := range r.types {
		fmt.Fprintf(w, " %s |", shortType(t))
	}
	fmt.Fprint(w, "\n|---|")
	for range r.types {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w)
	for i, from := range r.types {
		fmt.Fprintf(w, "| **%s** |", shortType(from))
		for j := range r.types {
			fmt.Fprintf(w, " %s |", cellStr(r.pairs[i*len(r.types)+j].ratio))
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "\n#### Notes\n\n")
	clk := "wall-clock time"
	if r.thread {
		clk = "CPU time of the measuring thread (CLOCK_THREAD_CPUTIME_ID): waiting for a CPU on the shared machine does not count; others' use of caches and memory bandwidth still does"
	}
	notes := []string{
		"Clock: " + clk + ".",
		fmt.Sprintf("Inputs (%s elements per call, each call a different 64-byte-aligned window of a pool of twice that): floats normally distributed (σ = 1, 10%% scaled by 100), all finite, rounded with saturation to the narrower float types (FLOAT8E8M0 from their magnitudes); integers uniformly random over their whole range (packed ones too); BOOL 0 or 1. The copy of a pair reads the windows of its larger type's pool.", sizeName(r.n)),
		r.typesNote(),
		"Routes and tiers are tensorcast.Routes() for the tier in use: the steps of the pair's plan and the tier serving each.",
	}
	if r.tier == "generic" {
		notes = append(notes, "Bits: this is the generic tier, the one the other tiers are compared with, so no comparison here.")
	} else if len(bad) == 0 {
		notes = append(notes, fmt.Sprintf("Bits: every pair's output (call 0, %s elements) is equal bit for bit to the generic tier's, which the package's tests check against the reference.", sizeName(r.n)))
	} else {
		notes = append(notes, "Bits: outputs that differ from the generic tier's (elements): "+strings.Join(bad, "; ")+".")
	}
	allocs := 0
	for _, p := range r.pairs {
		if p.allocs > 0 {
			allocs++
		}
	}
	notes = append(notes, fmt.Sprintf("Allocations: %d of %d pairs allocate on the heap in Cast (runtime.MemStats, the smaller of two runs of 10 calls).", allocs, len(r.pairs)),
		fmt.Sprintf("The run took %v.", r.elapsd.Round(100e6)))
	for _, s := range notes {
		fmt.Fprintf(w, "- %s\n", s)
	}
}

// writeSteps lists every step that the portable Go code serves (tier
// "generic") with the number of distinct pairs whose route uses it: where a
// SIMD stage would lift the most pairs.
func (r *mxRun) writeSteps(w io.Writer, distinct []*mxPair) {
	users := map[string][]*mxPair{}
	var steps []string
	for _, p := range distinct {
		for k, st := range p.route.Steps {
			if p.route.Tiers[k] != "generic" {
				continue
			}
			if _, ok := users[st]; !ok {
				steps = append(steps, st)
			}
			users[st] = append(users[st], p)
		}
	}
	if len(steps) == 0 {
		return
	}
	slices.SortStableFunc(steps, func(a, b string) int { return len(users[b]) - len(users[a]) })
	fmt.Fprintf(w, "\n#### Steps served by portable Go (tier generic), by the number of distinct pairs whose route uses them\n\n"+
		"| step | pairs | their median ratio | their median elements/ns |\n|---|--:|--:|--:|\n")
	for _, st := range steps {
		var rs, es []float64
		for _, p := range users[st] {
			rs = append(rs, p.ratio)
			es = append(es, p.elemPerNs(r.n))
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s |\n", st, len(users[st]), mxRatio(median(rs)), num(median(es)))
	}
}

// mxRatio formats a ratio for the tables: three significant digits below 1.
func mxRatio(v float64) string {
	if v < 1 && !math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', 3, 64) + "×"
	}
	return ratioStr(v)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// shortType abbreviates a type name for the grid's columns.
func shortType(t tensorcast.DataType) string {
	s := t.String()
	s = strings.Replace(s, "FLOAT8", "F8", 1)
	s = strings.Replace(s, "FLOAT4", "F4", 1)
	s = strings.Replace(s, "BFLOAT", "BF", 1)
	s = strings.Replace(s, "FLOAT16", "F16", 1)
	switch s {
	case "FLOAT":
		return "F32"
	case "DOUBLE":
		return "F64"
	}
	return s
}

// cellStr formats a ratio with two significant digits.
func cellStr(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 0.995:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 0.0995:
		return strings.TrimPrefix(strconv.FormatFloat(v, 'f', 2, 64), "0")
	}
	return strings.TrimPrefix(strconv.FormatFloat(v, 'f', 3, 64), "0")
}

func (r *mxRun) typesNote() string {
	if len(r.types) == len(matrixTypes()) {
		return fmt.Sprintf("Types: the %d numeric types of tensorcast.AllTypes() (UNDEFINED, STRING, COMPLEX64 and COMPLEX128 left out): %d ordered pairs, %d distinct.",
			len(r.types), len(r.pairs), len(r.pairs)-len(r.types))
	}
	var ns []string
	for _, t := range r.types {
		ns = append(ns, t.String())
	}
	return fmt.Sprintf("Types: %s only (-matrix-types).", strings.Join(ns, ", "))
}

// writeCSV writes one row per pair.
func (r *mxRun) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"from", "to", "ratio", "elem_per_ns", "route", "tiers",
		"elements", "tier", "cast_ns_per_call", "copy_ns_per_call", "copy_bytes", "ratio_min", "ratio_max", "rounds",
		"allocs_per_call", "mismatches_vs_generic"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, p := range r.pairs {
		lo, hi := math.NaN(), math.NaN()
		if len(p.ratios) > 0 {
			lo, hi = slices.Min(p.ratios), slices.Max(p.ratios)
		}
		cw.Write([]string{p.from.String(), p.to.String(), f(p.ratio), f(p.elemPerNs(r.n)),
			strings.Join(p.route.Steps, " => "), tiersString(p.route),
			strconv.Itoa(r.n), r.tier, f(p.castNs), f(p.copyNs), strconv.Itoa(p.copyB), f(lo), f(hi), strconv.Itoa(len(p.ratios)),
			f(p.allocs), strconv.Itoa(p.mismatch)})
	}
	cw.Flush()
	return cw.Error()
}

// The heatmap's colour scale: fixed (so matrices of different tiers and
// machines compare), logarithmic in the ratio, from dark red (1/1000 of copy)
// through orange (0.25×) and yellow (0.5×) to green (≥ 1×).
var mxStops = []struct {
	ratio float64
	rgb   [3]float64
}{
	{0.001, [3]float64{0x67, 0x00, 0x1f}},
	{0.03, [3]float64{0xb2, 0x18, 0x2b}},
	{0.25, [3]float64{0xf4, 0x6d, 0x43}},
	{0.5, [3]float64{0xfe, 0xe0, 0x8b}},
	{1, [3]float64{0xa6, 0xd9, 0x6a}},
	{4, [3]float64{0x1a, 0x98, 0x50}},
}

// mxColor returns the fill of a cell and whether its text should be white.
func mxColor(v float64) (string, bool) {
	if math.IsNaN(v) || v <= 0 {
		return "#dddddd", false
	}
	lv := math.Log(v)
	s := mxStops
	c := s[len(s)-1].rgb
	switch {
	case lv <= math.Log(s[0].ratio):
		c = s[0].rgb
	case lv < math.Log(s[len(s)-1].ratio):
		for k := 1; k < len(s); k++ {
			if lv <= math.Log(s[k].ratio) {
				a, b := math.Log(s[k-1].ratio), math.Log(s[k].ratio)
				f := (lv - a) / (b - a)
				for j := range c {
					c[j] = s[k-1].rgb[j] + f*(s[k].rgb[j]-s[k-1].rgb[j])
				}
				break
			}
		}
	}
	lum := 0.299*c[0] + 0.587*c[1] + 0.114*c[2]
	return fmt.Sprintf("#%02x%02x%02x", int(c[0]+0.5), int(c[1]+0.5), int(c[2]+0.5)), lum < 110
}

// writeSVG draws the matrix as a heatmap: from on rows, to on columns, the
// ratio in each cell, a colour legend, and the summary under the title.
func (r *mxRun) writeSVG(w io.Writer) error {
	const (
		cell   = 46.0
		left   = 150.0 // row labels
		top    = 200.0 // title, legend, column labels
		legend = 30.0
	)
	nt := float64(len(r.types))
	width := max(left+nt*cell+20, 1000)
	height := top + nt*cell + 64
	distinct, _ := r.distinct()
	var rs []float64
	counts := make([]int, len(mxThresholds))
	for _, p := range distinct {
		rs = append(rs, p.ratio)
		for k, t := range mxThresholds {
			if p.ratio >= t {
				counts[k]++
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := fmt.Sprintf("tensorcast.Cast ÷ copy() of the larger side, %s elements · %s · tier %s", sizeName(r.n), r.cpu, r.tier)
	fmt.Fprintf(&b, `<text x="%.0f" y="24" font-size="15" font-weight="bold" text-anchor="middle">%s</text>`+"\n", width/2, esc(title))
	if len(rs) > 0 {
		var parts []string
		for k, t := range mxThresholds {
			parts = append(parts, fmt.Sprintf("%d ≥ %s×", counts[k], strconv.FormatFloat(t, 'g', -1, 64)))
		}
		sub := fmt.Sprintf("%d distinct pairs: %s; median %s. Cell: time(copy) ÷ time(Cast), ≥ 1 is faster than copy. Rows: from; columns: to.",
			len(rs), strings.Join(parts, ", "), mxRatio(median(rs)))
		fmt.Fprintf(&b, `<text x="%.0f" y="44" text-anchor="middle" fill="#333">%s</text>`+"\n", width/2, esc(sub))
	}

	// Legend: a colour bar over the fixed scale, log-spaced.
	lx0, lx1, ly := width/2-260, width/2+260, 62.0
	lo, hi := math.Log(mxStops[0].ratio), math.Log(mxStops[len(mxStops)-1].ratio)
	const steps = 104
	for k := 0; k < steps; k++ {
		v := math.Exp(lo + (float64(k)+0.5)/steps*(hi-lo))
		col, _ := mxColor(v)
		x := lx0 + float64(k)/steps*(lx1-lx0)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.2f" height="14" fill="%s"/>`+"\n", x, ly, (lx1-lx0)/steps+0.3, col)
	}
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="14" fill="none" stroke="#888"/>`+"\n", lx0, ly, lx1-lx0)
	for _, v := range []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 1, 2, 4} {
		x := lx0 + (math.Log(v)-lo)/(hi-lo)*(lx1-lx0)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#333"/>`+"\n", x, ly+14, x, ly+18)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s×</text>`+"\n", x, ly+legend, strconv.FormatFloat(v, 'g', -1, 64))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="#555">ratio to copy()</text>`+"\n", lx0-8, ly+11)

	// Column labels (rotated), row labels.
	for j, t := range r.types {
		x := left + (float64(j)+0.5)*cell
		fmt.Fprintf(&b, `<text transform="translate(%.1f %.1f) rotate(-55)" font-size="11">%s</text>`+"\n", x+3, top-6, esc(t.String()))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="12" font-weight="bold" fill="#555">from ↓ to →</text>`+"\n", 8.0, top-6)
	for i, t := range r.types {
		y := top + (float64(i)+0.5)*cell
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, esc(t.String()))
	}
	for i := range r.types {
		for j := range r.types {
			p := r.pairs[i*len(r.types)+j]
			x, y := left+float64(j)*cell, top+float64(i)*cell
			col, white := mxColor(p.ratio)
			tip := fmt.Sprintf("%v → %v: %s of copy, %s elements/ns; %s [%s]", p.from, p.to, mxRatio(p.ratio), num(p.elemPerNs(r.n)),
				routeString(p.route), tiersString(p.route))
			stroke := "white"
			if p.from == p.to {
				stroke = "#444"
			}
			fmt.Fprintf(&b, `<g><title>%s</title><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="%s"/>`, esc(tip), x, y, cell, cell, col, stroke)
			tc := "#111"
			if white {
				tc = "white"
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" fill="%s">%s</text></g>`+"\n", x+cell/2, y+cell/2+4, tc, esc(cellStr(p.ratio)))
		}
	}
	foot := []string{"Diagonal (outlined): same type, a copy. Hover a cell for its route (tensorcast.Routes) and throughput."}
	if len(r.header) > 2 { // the command line, date, clock and load
		h := strings.ReplaceAll(r.header[2], "`", "")
		if i := strings.Index(h, " ("); i > 0 {
			foot = append(foot, h[:i], h[i+1:])
		} else {
			foot = append(foot, h)
		}
	}
	for k, f := range foot {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555" font-size="10">%s</text>`+"\n", 8.0, top+nt*cell+22+16*float64(k), esc(f))
	}
	fmt.Fprintln(&b, `</svg>`)
	_, err := io.WriteString(w, b.String())
	return err
}
