package main

import (
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tensorcast/tensorcast"
)

// elem returns element i of the n-element buffer b of type t as a buffer of
// one element (a packed element in the low bits of one byte).
func elem(b []byte, t tensorcast.DataType, i int) []byte {
	switch bits := t.BitSize(); bits {
	case 2, 4:
		per := 8 / bits
		return []byte{b[i/per] >> (uint(i%per) * uint(bits)) & (1<<uint(bits) - 1)}
	default:
		w := bits / 8
		return b[i*w : (i+1)*w]
	}
}

// hexOf prints a little-endian element as a hex number.
func hexOf(e []byte) string {
	var v uint64
	for k := len(e) - 1; k >= 0; k-- {
		v = v<<8 | uint64(e[k])
	}
	return fmt.Sprintf("0x%0*X", 2*len(e), v)
}

// value widens one element to DOUBLE with tensorcast (exact for every type
// but INT64/UINT64 beyond 2^53).
func value(e []byte, t tensorcast.DataType) float64 {
	var d [8]byte
	if err := tensorcast.Cast(d[:], tensorcast.Double, e, t, 1, tensorcast.Options{}); err != nil {
		return math.NaN()
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(d[:]))
}

// intRange returns the range of an integer type.
func intRange(t tensorcast.DataType) (lo, hi float64) {
	switch t {
	case tensorcast.Uint8:
		return 0, 255
	case tensorcast.Int8:
		return -128, 127
	case tensorcast.Uint16:
		return 0, 65535
	case tensorcast.Int16:
		return -32768, 32767
	case tensorcast.Uint32:
		return 0, math.MaxUint32
	case tensorcast.Int32:
		return math.MinInt32, math.MaxInt32
	case tensorcast.Uint64:
		return 0, math.MaxUint64
	case tensorcast.Int64:
		return math.MinInt64, math.MaxInt64
	case tensorcast.Uint4:
		return 0, 15
	case tensorcast.Int4:
		return -8, 7
	case tensorcast.Uint2:
		return 0, 3
	case tensorcast.Int2:
		return -2, 1
	}
	return math.Inf(-1), math.Inf(1)
}

// compare counts the elements where ONNX Runtime's output got differs from
// tensorcast's want; nanOnly when both are NaN at every one of them; example
// describes the first one (source bits and value, both results).
func compare(got, want, src []byte, from, to tensorcast.DataType, n int) (mismatch int, nanOnly bool, example string) {
	nanOnly = true
	if slices.Equal(got, want) {
		return 0, false, ""
	}
	for i := 0; i < n; i++ {
		g, w := elem(got, to, i), elem(want, to, i)
		if slices.Equal(g, w) {
			continue
		}
		mismatch++
		if !(to.IsFloat() && math.IsNaN(value(g, to)) && math.IsNaN(value(w, to))) {
			nanOnly = false
		}
		if example == "" {
			s := elem(src, from, i)
			example = fmt.Sprintf("%s %s (%g) → ORT %s, tensorcast %s", from, hexOf(s), value(s, from), hexOf(g), hexOf(w))
		}
	}
	return mismatch, nanOnly, example
}

// outOfRange counts, for a float → integer pair, the elements where the
// outputs differ and the source is outside the target's range (ONNX leaves
// their result undefined; tensorcast documents its choice in the README's
// semantics table, rule 7).
func outOfRange(got, want, src []byte, from, to tensorcast.DataType, n int) int {
	if !from.IsFloat() || !to.IsInteger() {
		return 0
	}
	lo, hi := intRange(to)
	c := 0
	for i := 0; i < n; i++ {
		if slices.Equal(elem(got, to, i), elem(want, to, i)) {
			continue
		}
		v := math.Trunc(value(elem(src, from, i), from))
		if math.IsNaN(v) || v < lo || v > hi {
			c++
		}
	}
	return c
}

func ratioStr(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64) + "×"
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64) + "×"
	}
	return strconv.FormatFloat(v, 'g', 2, 64) + "×"
}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// measured returns the pairs ONNX Runtime ran, and those it refused.
func (r *report) split() (ok, refused []*result) {
	for _, x := range r.results {
		if x.err == nil {
			ok = append(ok, x)
		} else {
			refused = append(refused, x)
		}
	}
	return ok, refused
}

func (r *report) writeMarkdown(w io.Writer) {
	for _, h := range r.header {
		fmt.Fprintln(w, h+"  ")
	}
	ok, refused := r.split()
	fmt.Fprintf(w, "\nEach pair: `tensorcast.Cast` and ONNX Runtime's `Run` of a one-node Cast model (intra- and inter-op threads 1, sequential), "+
		"%d elements, the same input and output buffers, interleaved in %d rounds of about %v per batch. "+
		"Speed-up = time(ONNX Runtime) ÷ time(tensorcast), the median of the rounds' ratios: above 1× tensorcast is faster. "+
		"ONNX Runtime's time includes its fixed cost per Run, %.2f µs here (a 64-element FLOAT → FLOAT16 session), "+
		"which is what a user of the runtime pays too.\n", r.n, r.reps, r.batch, r.overhead/1000)

	faster, slower := 0, 0
	var sp []float64
	for _, x := range ok {
		sp = append(sp, x.speedup)
		if x.speedup >= 1 {
			faster++
		} else {
			slower++
		}
	}
	fmt.Fprintf(w, "\n#### Summary\n\n")
	fmt.Fprintf(w, "- Pairs both support: **%d** of %d ordered pairs of distinct numeric types; tensorcast faster on **%d**, slower on **%d**.\n",
		len(ok), len(r.results), faster, slower)
	if len(sp) > 0 {
		geo := 0.0
		for _, v := range sp {
			geo += math.Log(v)
		}
		fmt.Fprintf(w, "- Speed-up (ONNX Runtime time ÷ tensorcast time): median %s, geometric mean %s, min %s, max %s.\n",
			ratioStr(median(sp)), ratioStr(math.Exp(geo/float64(len(sp)))), ratioStr(slices.Min(sp)), ratioStr(slices.Max(sp)))
	}
	var differ []*result
	for _, x := range ok {
		if x.mismatch > 0 {
			differ = append(differ, x)
		}
	}
	fmt.Fprintf(w, "- Bits: ONNX Runtime's output differs from tensorcast's (the reference's) on %d of the %d pairs (see below).\n", len(differ), len(ok))
	if len(refused) > 0 {
		reasons := map[string]int{}
		var keys []string
		for _, x := range refused {
			k := shortErr(x.err)
			if _, seen := reasons[k]; !seen {
				keys = append(keys, k)
			}
			reasons[k]++
		}
		fmt.Fprintf(w, "- ONNX Runtime refused %d pairs at every opset tried (the error at the newest):\n", len(refused))
		for _, k := range keys {
			fmt.Fprintf(w, "  - %d (%s): %s\n", reasons[k], typesIn(refused, k), k)
		}
	}

	r.writeByRoute(w, ok)

	if len(differ) > 0 {
		fmt.Fprintf(w, "\n#### Where ONNX Runtime's bits differ\n\n| from | to | elements differing (of %d) | of which the source is outside the target's range (ONNX: undefined) | first difference |\n|---|---|--:|--:|---|\n", r.n)
		for _, x := range differ {
			oor := "–"
			if x.from.IsFloat() && x.to.IsInteger() {
				oor = strconv.Itoa(x.outRange)
			}
			note := x.example
			if x.nanOnly {
				note = "NaN payload/sign only; " + note
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s |\n", x.from, x.to, x.mismatch, oor, note)
		}
	}

	sorted := slices.Clone(ok)
	slices.SortStableFunc(sorted, func(a, b *result) int { return cmpF(a.speedup, b.speedup) })
	fmt.Fprintf(w, "\n#### Every pair, slowest for tensorcast first\n\n| from | to | tensorcast elements/ns | ONNX Runtime elements/ns | speed-up | tensorcast route | bits |\n|---|---|--:|--:|--:|---|---|\n")
	for _, x := range sorted {
		rt := routeOf(x.from, x.to)
		bits := "same"
		if x.mismatch > 0 {
			bits = fmt.Sprintf("%d differ", x.mismatch)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s [%s] | %s |\n", x.from, x.to, num(float64(r.n)/x.tcNs), num(float64(r.n)/x.ortNs),
			ratioStr(x.speedup), strings.Join(rt.Steps, " ⇒ "), strings.Join(rt.Tiers, "+"), bits)
	}
	fmt.Fprintf(w, "\n#### Notes\n\n")
	for _, s := range []string{
		"Clock: CPU time of the measuring thread (CLOCK_THREAD_CPUTIME_ID, goroutine locked to it); with one intra-op thread ONNX Runtime runs the Cast kernel on the calling thread, so both are timed on the same thread. Waiting for a CPU on the shared machine does not count; others' use of caches and memory bandwidth does.",
		"Inputs (bench's matrix generator): floats normally distributed (σ = 1, 10% scaled by 100), finite, rounded with saturation to the narrower float types (FLOAT8E8M0 from their magnitudes); integers uniformly random over their whole range; BOOL 0 or 1. The buffers are mmap'd (outside the Go heap: ONNX Runtime keeps pointers to them) and are the same for both.",
		"Models: built in memory (protowire), one Cast node with no saturate or round_mode attribute (ONNX's defaults, tensorcast's zero Options), static shape [n]. The newest opset this ONNX Runtime loads is tried first, then older ones down to the first opset that has both types.",
		fmt.Sprintf("The run took %.0f s.", r.elapsed.Seconds()),
	} {
		fmt.Fprintf(w, "- %s\n", s)
	}
}

// writeByRoute groups the pairs by the tiers of tensorcast's route.
func (r *report) writeByRoute(w io.Writer, ok []*result) {
	groups := map[string][]*result{}
	var keys []string
	for _, x := range ok {
		rt := routeOf(x.from, x.to)
		k := fmt.Sprintf("%d step(s): %s", len(rt.Steps), strings.Join(rt.Tiers, "+"))
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], x)
	}
	slices.SortStableFunc(keys, func(a, b string) int { return len(groups[b]) - len(groups[a]) })
	fmt.Fprintf(w, "\n#### By the tiers of tensorcast's route\n\n| route | pairs | tensorcast faster | median speed-up | min | max |\n|---|--:|--:|--:|--:|--:|\n")
	for _, k := range keys {
		var sp []float64
		faster := 0
		for _, x := range groups[k] {
			sp = append(sp, x.speedup)
			if x.speedup >= 1 {
				faster++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s |\n", k, len(sp), faster, ratioStr(median(sp)), ratioStr(slices.Min(sp)), ratioStr(slices.Max(sp)))
	}
}

var routes = func() map[[2]tensorcast.DataType]tensorcast.Route {
	m := map[[2]tensorcast.DataType]tensorcast.Route{}
	for _, rt := range tensorcast.Routes() {
		m[[2]tensorcast.DataType{rt.From, rt.To}] = rt
	}
	return m
}

// routeOf returns tensorcast's route of a pair on the tier in use.
func routeOf(from, to tensorcast.DataType) tensorcast.Route {
	return routes()[[2]tensorcast.DataType{from, to}]
}

// shortErr keeps the first line of an error, without the wrappers' prefixes.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "] "); i >= 0 && i < len(s)-2 {
		s = s[i+2:]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// typesIn describes the refused pairs of group k: the pairs themselves when
// few, else the types every one of them involves.
func typesIn(refused []*result, k string) string {
	count := map[tensorcast.DataType]int{}
	var pairs []string
	for _, x := range refused {
		if shortErr(x.err) == k {
			count[x.from]++
			count[x.to]++
			pairs = append(pairs, x.from.String()+" → "+x.to.String())
		}
	}
	if len(pairs) <= 4 {
		return strings.Join(pairs, ", ")
	}
	var common []string
	for _, t := range matrixTypes() {
		if count[t] == len(pairs) {
			common = append(common, t.String())
		}
	}
	if len(common) == 0 {
		return "various types"
	}
	return "every one to or from " + strings.Join(common, " or ")
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (r *report) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"from", "to", "supported", "speedup", "tensorcast_ns_per_call", "ort_ns_per_call", "tensorcast_elem_per_ns",
		"ort_elem_per_ns", "elements", "ir_version", "opset", "mismatches", "out_of_range_sources", "first_difference", "error"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, x := range r.results {
		if x.err != nil {
			cw.Write([]string{x.from.String(), x.to.String(), "no", "", "", "", "", "", strconv.Itoa(r.n), "", "", "", "", "", shortErr(x.err)})
			continue
		}
		cw.Write([]string{x.from.String(), x.to.String(), "yes", f(x.speedup), f(x.tcNs), f(x.ortNs), f(float64(r.n) / x.tcNs),
			f(float64(r.n) / x.ortNs), strconv.Itoa(r.n), strconv.FormatInt(x.ir, 10), strconv.FormatInt(x.opset, 10),
			strconv.Itoa(x.mismatch), strconv.Itoa(x.outRange), x.example, ""})
	}
	cw.Flush()
	return cw.Error()
}
