package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// run is everything one invocation measured, for the writers.
type run struct {
	header  []string // lines describing machine, build and command
	sizes   []int
	convs   []*conv
	results []*result
	reps    int
	thread  bool // timed with the thread CPU clock
}

func (r *run) get(c *conv, id string, n int) *result {
	for _, x := range r.results {
		if x.conv == c && x.impl.id == id && x.n == n {
			return x
		}
	}
	return nil
}

// implsOf returns the implementations measured for c, in measurement order.
func (r *run) implsOf(c *conv) []impl {
	var out []impl
	for _, x := range r.results {
		if x.conv == c && !slices.ContainsFunc(out, func(m impl) bool { return m.id == x.impl.id }) {
			out = append(out, x.impl)
		}
	}
	return out
}

// ratio returns throughput(a) / throughput(b) for conversion c at size n,
// or NaN when either was not measured.
func (r *run) ratio(c *conv, a, b string, n int) float64 {
	x, y := r.get(c, a, n), r.get(c, b, n)
	if x == nil || y == nil {
		return math.NaN()
	}
	return y.median / x.median
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " Mi"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " Ki"
	}
	return strconv.Itoa(n)
}

// parseSize reads 4096, 4Ki, 4k, 64Mi, 1M (binary units).
func parseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	mult := 1
	for _, u := range []struct {
		suf string
		m   int
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"K", 1 << 10}, {"k", 1 << 10}, {"M", 1 << 20}} {
		if strings.HasSuffix(s, u.suf) {
			s, mult = strings.TrimSuffix(s, u.suf), u.m
			break
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mult, nil
}

// num formats a throughput with three significant digits.
func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func ratioStr(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v >= 10 {
		return strconv.FormatFloat(v, 'f', 0, 64) + "×"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "×"
}

// target is one performance target of the issues, as a ratio of
// throughputs measured in the same run.
type target struct {
	conv, impl, vs string // conversion id, implementation id, reference id
	n              int
	min            float64
	issue          string
}

func targets() []target {
	var ts []target
	for _, c := range []string{"f32-f16", "f16-f32", "f32-bf16", "bf16-f32"} {
		ts = append(ts,
			target{c, "tensorcast", "copy4N", 4 << 10, 1.5, "#4"},
			target{c, "tensorcast", "copy4N", 64 << 20, 1.2, "#4, with streaming stores"},
			target{c, "tensorcast", "copy4N", 64 << 10, 1.0, "#3"},
			target{c, "tier-avx2", "copy4N", 4 << 10, 0.85, "#3"})
	}
	for _, c := range []string{"f32-e4m3fn", "f32-e4m3fnuz", "f32-e5m2", "f32-e5m2fnuz"} {
		ts = append(ts,
			target{c, "tensorcast", "copy4N", 4 << 10, 0.75, "#4"},
			target{c, "tensorcast", "copy4N", 64 << 20, 1.1, "#4"})
	}
	ts = append(ts,
		target{"e4m3fn-f32", "tensorcast", "copy4N", 4 << 10, 1.0, "#3"},
		target{"f32-f16", "tensorcast", "x448", 4 << 10, 100, "#4, fresh data"},
		target{"f32-f16", "tier-generic", "x448", 4 << 10, 4, "#3, fresh data"})
	for _, n := range []int{4 << 10, 64 << 10, 1 << 20, 64 << 20} {
		ts = append(ts, target{"f32-f16", "tensorcast", "tphakala", n, 1.0, "#4, every size"})
	}
	return ts
}

func (r *run) conv(id string) *conv {
	for _, c := range r.convs {
		if c.id == id {
			return c
		}
	}
	return nil
}

func implName(id string) string {
	switch id {
	case "tensorcast":
		return "tensorcast"
	case "copy4N":
		return "copy(4N)"
	case "x448":
		return "x448/float16"
	case "tphakala":
		return "tphakala/simd"
	}
	return strings.TrimPrefix(id, "tier-") + " tier"
}

// writeMarkdown writes the README section: header, targets, one table per
// conversion with ratio rows, and notes.
func (r *run) writeMarkdown(w io.Writer) {
	for _, h := range r.header {
		fmt.Fprintln(w, h+"  ")
	}
	fmt.Fprintf(w, "\nThroughput in 10⁹ elements per second (Gelem/s; higher is better), median of %d interleaved rounds. "+
		"Ratio rows divide tensorcast's throughput by the other row's: above 1× tensorcast is faster.\n", r.reps)

	r.writeSummary(w)

	fmt.Fprintf(w, "\n#### Targets\n\n| target | issue | size | measured | met |\n|---|---|--:|--:|:-:|\n")
	for _, t := range targets() {
		c := r.conv(t.conv)
		if c == nil || !slices.Contains(r.sizes, t.n) {
			continue
		}
		v := r.ratio(c, t.impl, t.vs, t.n)
		if math.IsNaN(v) {
			continue
		}
		met := "no"
		if v >= t.min {
			met = "yes"
		}
		fmt.Fprintf(w, "| %s: %s ≥ %s %s | %s | %s | %s | %s |\n", c.name, implName(t.impl),
			strconv.FormatFloat(t.min, 'g', -1, 64)+"×", implName(t.vs), t.issue, sizeName(t.n), ratioStr(v), met)
	}

	for _, c := range r.convs {
		ims := r.implsOf(c)
		if len(ims) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n#### %s\n\n| implementation |", c.name)
		for _, n := range r.sizes {
			fmt.Fprintf(w, " %s |", sizeName(n))
		}
		fmt.Fprintf(w, " bits equal to tensorcast |\n|---|")
		for range r.sizes {
			fmt.Fprint(w, "--:|")
		}
		fmt.Fprintln(w, "---|")
		for _, m := range ims {
			name := m.name
			if m.fresh {
				name += " †"
			}
			if m.kind == kDispatched {
				name = "**" + name + "**"
			}
			fmt.Fprintf(w, "| %s |", name)
			for _, n := range r.sizes {
				x := r.get(c, m.id, n)
				v := math.NaN()
				if x != nil {
					v = x.gelems()
				}
				if m.kind == kDispatched {
					fmt.Fprintf(w, " **%s** |", num(v))
				} else {
					fmt.Fprintf(w, " %s |", num(v))
				}
			}
			fmt.Fprintf(w, " %s |\n", r.exactness(c, m.id))
		}
		for _, m := range ims {
			if m.kind != kCeiling && m.kind != kPeer {
				continue
			}
			fmt.Fprintf(w, "| *tensorcast ÷ %s* |", shortName(m))
			for _, n := range r.sizes {
				fmt.Fprintf(w, " *%s* |", ratioStr(r.ratio(c, "tensorcast", m.id, n)))
			}
			fmt.Fprintln(w, " |")
		}
		var notes []string
		for _, m := range ims {
			if m.note != "" {
				notes = append(notes, m.name+": "+m.note)
			}
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "\n%s.\n", strings.Join(notes, "; "))
		}
	}

	fmt.Fprintf(w, "\n#### Notes\n\n")
	for _, s := range r.notes() {
		fmt.Fprintf(w, "- %s\n", s)
	}
}

// writeSummary writes one row per conversion: tensorcast's throughput and
// its ratio to copy(4N) at each size, and its ratio to the fastest peer.
func (r *run) writeSummary(w io.Writer) {
	fmt.Fprintf(w, "\n#### Summary\n\ntensorcast (dispatched) in Gelem/s, and in parentheses its throughput ÷ copy() of the float32 side (4N bytes).\n\n| conversion |")
	for _, n := range r.sizes {
		fmt.Fprintf(w, " %s |", sizeName(n))
	}
	fmt.Fprintf(w, " tensorcast ÷ the fastest Go peer, per size |\n|---|")
	for range r.sizes {
		fmt.Fprint(w, "--:|")
	}
	fmt.Fprintln(w, "---|")
	for _, c := range r.convs {
		if len(r.implsOf(c)) == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s |", c.name)
		for _, n := range r.sizes {
			x := r.get(c, "tensorcast", n)
			if x == nil {
				fmt.Fprint(w, " – |")
				continue
			}
			fmt.Fprintf(w, " %s (%s) |", num(x.gelems()), ratioStr(r.ratio(c, "tensorcast", "copy4N", n)))
		}
		// The peer with the highest throughput over all sizes (geometric mean).
		var best impl
		bestScore := math.Inf(1)
		for _, m := range r.implsOf(c) {
			if m.kind != kPeer {
				continue
			}
			score, k := 0.0, 0
			for _, n := range r.sizes {
				if x := r.get(c, m.id, n); x != nil {
					score += math.Log(x.median)
					k++
				}
			}
			if k > 0 && score/float64(k) < bestScore {
				best, bestScore = m, score/float64(k)
			}
		}
		if best.id == "" {
			fmt.Fprintln(w, " no Go peer converts it |")
			continue
		}
		var parts []string
		for _, n := range r.sizes {
			parts = append(parts, ratioStr(r.ratio(c, "tensorcast", best.id, n)))
		}
		ex := ""
		if e := r.exactness(c, best.id); !strings.HasPrefix(e, "all") {
			ex = "; its bits: " + e
		}
		fmt.Fprintf(w, " %s: %s%s |\n", shortName(best), strings.Join(parts, ", "), ex)
	}
}

func shortName(m impl) string {
	switch m.id {
	case "copy4N":
		return "copy(4N)"
	case "copyNarrow":
		return "copy(narrow)"
	}
	s := m.name
	if i := strings.IndexByte(s, ' '); i > 0 && (strings.Contains(s[:i], "/") || s[:i] == "go-highway") {
		return s[:i]
	}
	return s
}

// exactness summarises the bit comparison with the generic tier over all sizes.
func (r *run) exactness(c *conv, id string) string {
	mism, checked, nanOnly := 0, 0, true
	for _, x := range r.results {
		if x.conv == c && x.impl.id == id && x.checked > 0 {
			mism += x.mismatch
			checked += x.checked
			nanOnly = nanOnly && (x.mismatch == 0 || x.nanOnly)
		}
	}
	switch {
	case checked == 0:
		return "–"
	case mism == 0:
		return "all " + groupDigits(checked)
	case nanOnly:
		return fmt.Sprintf("NaN bits differ in %s of %s", groupDigits(mism), groupDigits(checked))
	}
	return fmt.Sprintf("%s of %s differ (%.2g%%)", groupDigits(mism), groupDigits(checked), 100*float64(mism)/float64(checked))
}

func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

func (r *run) notes() []string {
	// Allocations, grouped by implementation: the sizes and the largest count.
	type agg struct {
		name  string
		sizes []int
		max   float64
		convs int
	}
	var aggs []*agg
	for _, x := range r.results {
		if x.allocs <= 0 {
			continue
		}
		i := slices.IndexFunc(aggs, func(a *agg) bool { return a.name == x.impl.name })
		if i < 0 {
			aggs = append(aggs, &agg{name: x.impl.name})
			i = len(aggs) - 1
		}
		a := aggs[i]
		if !slices.Contains(a.sizes, x.n) {
			a.sizes = append(a.sizes, x.n)
		}
		a.max = max(a.max, x.allocs)
		a.convs++
	}
	a := "Allocations: 0 heap allocations per call in every measured loop (runtime.MemStats over 2 to 100 calls per implementation and size)."
	if len(aggs) > 0 {
		var parts []string
		for _, g := range aggs {
			var ss []string
			for _, n := range g.sizes {
				ss = append(ss, sizeName(n))
			}
			parts = append(parts, fmt.Sprintf("%s: up to %.2g per call at %s (%d measurements)", g.name, g.max, strings.Join(ss, ", "), g.convs))
		}
		a = "Allocations (runtime.MemStats over 2 to 100 calls per implementation and size): 0 per call in every loop except " + strings.Join(parts, "; ") + "."
	}
	clk := "Times are wall-clock time."
	if r.thread {
		clk = "Times are CPU time of the measuring thread (CLOCK_THREAD_CPUTIME_ID, the goroutine locked to it): time the thread waits while other processes run does not count; their use of caches and memory bandwidth still does. CastParallel rows are wall-clock time (their work runs on several threads), so on a busy machine they include waiting."
	}
	return []string{
		clk,
		a,
		"Bits: call 0 of every implementation is compared element by element with tensorcast's generic tier (pure Go, checked bit for bit against the reference by the package's tests); the last column sums over all sizes.",
		"Inputs: normally distributed float32 (σ = 1) with 9.2% scaled by 1000, 0.5% subnormals, 0.2% ±Inf, 0.1% NaN; the narrow sources are those values rounded, plus 0.5% FLOAT16 subnormals and specials or 5% random float8 bytes. Up to 4 Mi elements every call reads a different 64-byte-aligned window of a pool twice the call's size, so the working set stays in the cache level the size stands for.",
		"† Scalar loops with data-dependent branches read windows of a pool of at least 64 Ki + n elements instead (fresh data, still in L2): a branch predictor learns a pool of 8 Ki elements, which made x448/float16 2–3× faster at 4 Ki than on data it had not seen. They run at several ns per element, so the cache level of their input hardly matters.",
		"The pure-Go reference (internal/ref) is not importable from this module, and tensorcast exports no hook for it, so it has no row; the generic tier is the portable kernel that the reference checks.",
		"copy() is Go's memmove: on amd64 it switches to non-temporal stores at 1 MiB, so copy(4N) at 1 Mi and 64 Mi elements writes around the caches.",
		highwayStatus + ".",
	}
}

// writeCSV writes one row per conversion, size and implementation.
func (r *run) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"conversion", "from", "to", "elements", "impl", "impl_name", "kind", "tier",
		"median_ns_per_elem", "min_ns_per_elem", "max_ns_per_elem", "rounds", "gelem_per_s", "gb_per_s",
		"tensorcast_over_this", "this_over_copy4N", "allocs_per_call", "mismatches", "checked"})
	kinds := map[kind]string{kDispatched: "dispatched", kTier: "tier", kAPI: "cast-api", kParallel: "parallel", kCeiling: "ceiling", kPeer: "peer"}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, x := range r.results {
		lo, hi := slices.Min(x.samples), slices.Max(x.samples)
		cw.Write([]string{x.conv.id, x.conv.from.String(), x.conv.to.String(), strconv.Itoa(x.n), x.impl.id, x.impl.name,
			kinds[x.impl.kind], x.impl.tier, f(x.median), f(lo), f(hi), strconv.Itoa(len(x.samples)), f(x.gelems()), f(x.gbps()),
			f(r.ratio(x.conv, "tensorcast", x.impl.id, x.n)), f(r.ratio(x.conv, x.impl.id, "copy4N", x.n)),
			f(x.allocs), strconv.Itoa(x.mismatch), strconv.Itoa(x.checked)})
	}
	cw.Flush()
	return cw.Error()
}
