package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/tensorcast/tensorcast"
)

// Matrix mode (-matrix): tensorcast.Cast on every ordered pair of numeric
// types, each against copy() of the larger side's bytes measured in the same
// rounds, so that a pair's ratio says how close it runs to memory speed
// whatever else the machine is doing. It measures whatever plans the library
// has when run (tensorcast.Routes names them), so the same command tracks the
// planner as stages are added.
//
// Per pair: Cast and copy are each calibrated to a batch of about -batch;
// then -reps rounds each visit every pair in turn and run one batch of
// each, alternating which goes first. A round's ratio is copy's time per
// call ÷ Cast's time per call in that round, and the pair's ratio is the
// median of its rounds' ratios: the two batches of a round run back to
// back, so load that comes and goes on a shared machine falls on both, and
// a pair's rounds are spread over the whole run, so a burst of a noisy
// neighbour's load (seconds, on the machines of 2026-12-07, where the
// pairs' rounds ran back to back and a burst took 20-50 neighbouring pairs
// down together) reaches one or two of them, which the median drops.

// mxConfig is one matrix run.
type mxConfig struct {
	n        int // elements per call
	reps     int
	batch    time.Duration
	tier     string // tensorcast.UseTier name; "" = the dispatched one
	types    []tensorcast.DataType
	seed     uint64
	thread   bool
	progress func(format string, args ...any)
}

// mxPair is the measurement of one ordered pair.
type mxPair struct {
	from, to tensorcast.DataType
	ratios   []float64 // copy ÷ Cast time per call, one per round
	ratio    float64   // median of ratios
	castNs   float64   // median ns per Cast call
	copyNs   float64   // median ns per copy call
	copyB    int       // bytes copied per call: the larger side
	allocs   float64   // heap allocations per Cast call
	route    tensorcast.Route
	// mismatch counts the elements whose bits differ from the generic
	// tier's result on call 0's input; -1 when not compared (the generic
	// tier itself).
	mismatch int
}

// elemPerNs is Cast's throughput in elements per nanosecond.
func (p *mxPair) elemPerNs(n int) float64 { return float64(n) / p.castNs }

// mxRun is everything a matrix run measured, for the writers.
type mxRun struct {
	header []string
	cpu    string
	tier   string // the tier in use (KernelName after UseTier)
	n      int
	reps   int
	batch  time.Duration
	thread bool
	types  []tensorcast.DataType
	pairs  []*mxPair // row-major: from, then to
	elapsd time.Duration
}

// matrixTypes returns the numeric types Cast converts between, in enum
// order: AllTypes minus UNDEFINED, STRING and the complex types.
func matrixTypes() []tensorcast.DataType {
	var ts []tensorcast.DataType
	for _, t := range tensorcast.AllTypes() {
		if t.Castable() && t != tensorcast.String {
			ts = append(ts, t)
		}
	}
	return ts
}

// mxAlign is the granularity of window offsets, in elements: 256 elements
// are whole bytes (and 64-byte multiples) for every type, 2-bit ones
// included, so every window starts on a 64-byte boundary.
const mxAlign = 256

// mxData holds, per type, a pool of 2n elements of realistic values and a
// destination of n elements.
type mxData struct {
	n, span int
	pool    map[tensorcast.DataType][]byte
	dst     map[tensorcast.DataType][]byte
	copyDst []byte
}

// window returns the bytes of call i's n source elements of type t.
func (d *mxData) window(t tensorcast.DataType, i int) []byte {
	slots := d.span / mxAlign
	o := (i * 4099 % slots) * mxAlign // 4099 is prime: consecutive calls land far apart
	b := t.Size(o)
	return d.pool[t][b : b+t.Size(d.n)]
}

// newMxData generates the pools: n elements per call, windows over 2n.
func newMxData(n int, seed uint64) *mxData {
	n = (n + mxAlign - 1) / mxAlign * mxAlign
	d := &mxData{n: n, span: n, pool: map[tensorcast.DataType][]byte{}, dst: map[tensorcast.DataType][]byte{}}
	m := n + d.span
	for _, t := range matrixTypes() {
		d.pool[t] = genTyped(t, m, seed)
		d.dst[t] = make([]byte, t.Size(n))
	}
	d.copyDst = make([]byte, 8*n)
	return d
}

// genTyped returns n elements of type t as a tensor might hold them, all
// finite: floats from a normal distribution (σ = 1, 10% scaled by 100),
// rounded (with saturation) to the narrower float types; FLOAT8E8M0 from
// their magnitudes; integers uniformly random over their whole range, packed
// ones included; BOOL 0 or 1.
func genTyped(t tensorcast.DataType, n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, uint64(t)))
	normal := func() float64 {
		v := rng.NormFloat64()
		if rng.IntN(10) == 0 {
			v *= 100
		}
		return v
	}
	b := make([]byte, t.Size(n))
	switch t {
	case tensorcast.Double:
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(normal()))
		}
	case tensorcast.Float:
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(normal())))
		}
	case tensorcast.Float16, tensorcast.BFloat16, tensorcast.Float8E4M3FN, tensorcast.Float8E4M3FNUZ,
		tensorcast.Float8E5M2, tensorcast.Float8E5M2FNUZ, tensorcast.Float4E2M1, tensorcast.Float8E8M0:
		f := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			v := float32(normal())
			if t == tensorcast.Float8E8M0 { // unsigned: a negative value would be NaN
				v = float32(math.Abs(float64(v)))
			}
			binary.LittleEndian.PutUint32(f[4*i:], math.Float32bits(v))
		}
		if err := tensorcast.Cast(b, t, f, tensorcast.Float, n, tensorcast.Options{}); err != nil {
			panic(err)
		}
	case tensorcast.Bool:
		for i := range b {
			b[i] = byte(rng.IntN(2))
		}
	default: // integers of every width, packed ones included: random bits
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

// runMatrix measures every ordered pair of cfg.types.
func runMatrix(cfg *mxConfig) (*mxRun, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := tensorcast.Tiers()[len(tensorcast.Tiers())-1]
	defer tensorcast.UseTier(best)
	tier := cfg.tier
	if tier == "" {
		tier = best
	}
	if err := tensorcast.UseTier(tier); err != nil {
		return nil, err
	}
	routes := map[[2]tensorcast.DataType]tensorcast.Route{}
	for _, r := range tensorcast.Routes() {
		routes[[2]tensorcast.DataType{r.From, r.To}] = r
	}
	t0 := time.Now()
	d := newMxData(cfg.n, cfg.seed)
	cfg.progress("matrix: %d types, %d elements per call, tier %s; inputs in %v\n", len(cfg.types), d.n, tier,
		time.Since(t0).Round(time.Millisecond))
	r := &mxRun{cpu: cpuName(), tier: tensorcast.KernelName(), n: d.n, reps: cfg.reps, batch: cfg.batch,
		thread: cfg.thread, types: cfg.types}
	now := wallNanos
	if cfg.thread {
		now = threadNanos
	}
	opt := tensorcast.Options{}
	// meas is a pair's timing state: its two calls (Cast, copy), their
	// batch sizes and times per call, round by round.
	type meas struct {
		p     *mxPair
		fns   [2]func(int)
		iters [2]int
		ns    [2][]float64
	}
	var ms []*meas
	call := 1
	for _, from := range cfg.types {
		for _, to := range cfg.types {
			route, ok := routes[[2]tensorcast.DataType{from, to}]
			if !ok {
				return nil, fmt.Errorf("tensorcast.Routes has no route %v -> %v", from, to)
			}
			p := &mxPair{from: from, to: to, route: route, mismatch: -1}
			big := from
			if to.Size(d.n) > from.Size(d.n) {
				big = to
			}
			p.copyB = big.Size(d.n)
			dst, cdst := d.dst[to], d.copyDst[:p.copyB]
			var castErr error
			cast := func(i int) {
				if err := tensorcast.Cast(dst, to, d.window(from, i), from, d.n, opt); err != nil {
					castErr = err
				}
			}
			cp := func(i int) { copy(cdst, d.window(big, i)) }
			cast(0)
			if castErr != nil {
				return nil, fmt.Errorf("Cast %v -> %v: %w", from, to, castErr)
			}
			if tier != "generic" {
				p.mismatch = mismatchVsGeneric(cast, dst, to, d.n, tier)
			}
			p.allocs = mxAllocs(cast)
			cp(0)
			runtime.GC() // the clone above is garbage: collect it now, not while timing
			ms = append(ms, &meas{p: p, fns: [2]func(int){cast, cp}, iters: [2]int{calibrate(cast, cfg.batch), calibrate(cp, cfg.batch)}})
			r.pairs = append(r.pairs, p)
		}
	}
	cfg.progress("matrix: %d pairs calibrated (%v)\n", len(ms), time.Since(t0).Round(time.Millisecond))
	for rep := 0; rep < cfg.reps; rep++ {
		tr := time.Now()
		for _, m := range ms {
			var per [2]float64
			for k := 0; k < 2; k++ {
				j := k ^ (rep & 1) // alternate which runs first
				start := now()
				for it := 0; it < m.iters[j]; it++ {
					m.fns[j](call)
					call++
				}
				per[j] = float64(now()-start) / float64(m.iters[j])
				m.ns[j] = append(m.ns[j], per[j])
			}
			if per[0] > 0 && per[1] > 0 {
				m.p.ratios = append(m.p.ratios, per[1]/per[0])
			}
		}
		cfg.progress("matrix: round %d of %d (%v)\n", rep+1, cfg.reps, time.Since(tr).Round(time.Millisecond))
	}
	for _, m := range ms {
		m.p.castNs, m.p.copyNs, m.p.ratio = median(m.ns[0]), median(m.ns[1]), median(m.p.ratios)
	}
	for i := 0; i < len(r.pairs); i += len(cfg.types) {
		row := r.pairs[i : i+len(cfg.types)]
		var rs []float64
		for _, p := range row {
			rs = append(rs, p.ratio)
		}
		cfg.progress("%-15s → *: median %s of copy, slowest %s\n", row[0].from, mxRatio(median(rs)), mxRatio(slices.Min(rs)))
	}
	r.elapsd = time.Since(t0)
	return r, nil
}

// mxAllocs returns the heap allocations per call over 20 calls (the
// smaller of two runs of 10, as allocsPerCall does: a stray runtime
// allocation does not repeat), few enough for the slowest pairs.
func mxAllocs(run func(int)) float64 {
	best := math.Inf(1)
	for range 2 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for k := 0; k < 10; k++ {
			run(k)
		}
		runtime.ReadMemStats(&after)
		best = min(best, float64(after.Mallocs-before.Mallocs)/10)
	}
	return best
}

// mismatchVsGeneric runs cast (call 0) on the generic tier and on tier and
// counts the elements of the n-element result of type to whose bits differ.
func mismatchVsGeneric(cast func(int), dst []byte, to tensorcast.DataType, n int, tier string) int {
	must(tensorcast.UseTier("generic"))
	clear(dst)
	cast(0)
	want := slices.Clone(dst)
	must(tensorcast.UseTier(tier))
	clear(dst)
	cast(0)
	return diffElems(dst, want, to.BitSize(), n)
}

// diffElems counts the elements of the given bit size (2, 4, 8, 16, 32 or
// 64) among the first n whose bits differ between got and want.
func diffElems(got, want []byte, bits, n int) int {
	if bytes.Equal(got, want) {
		return 0
	}
	c := 0
	for i := 0; i < n; i++ {
		if bits < 8 {
			per := 8 / bits
			sh := uint(i%per) * uint(bits)
			mask := byte(1)<<uint(bits) - 1
			if (got[i/per]>>sh)&mask != (want[i/per]>>sh)&mask {
				c++
			}
			continue
		}
		w := bits / 8
		if !bytes.Equal(got[i*w:(i+1)*w], want[i*w:(i+1)*w]) {
			c++
		}
	}
	return c
}

// mainMatrix runs matrix mode for main's flags and writes the outputs.
func mainMatrix(size, types, tier string, reps int, batch time.Duration, seed uint64, thread bool, mdPath, csvPath, svgPath string) {
	n, err := parseSize(size)
	if err != nil {
		fatal(err)
	}
	cfg := &mxConfig{n: n, reps: max(1, reps), batch: batch, tier: tier, seed: seed, thread: thread,
		progress: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f, a...) }}
	if types == "" {
		cfg.types = matrixTypes()
	} else {
		for _, s := range strings.Split(types, ",") {
			t, err := tensorcast.ParseDataType(s)
			if err != nil {
				fatal(err)
			}
			if !slices.Contains(matrixTypes(), t) {
				fatal(fmt.Errorf("-matrix-types: %v is not a numeric type Cast converts", t))
			}
			if !slices.Contains(cfg.types, t) {
				cfg.types = append(cfg.types, t)
			}
		}
		slices.Sort(cfg.types)
	}
	// One run per tier: the markdown and CSV of every tier go to one file
	// each (the CSV has a tier column), the heatmap of the first tier to
	// svgPath and of each other tier to svgPath with ".TIER" before ".svg".
	tiers := strings.Split(tier, ",")
	var md, csvb bytes.Buffer
	for k, tr := range tiers {
		cfg.tier = strings.TrimSpace(tr)
		load := loadAvg()
		r, err := runMatrix(cfg)
		if err != nil {
			fatal(err)
		}
		r.header = mxHeader(r, cfg, load)
		if len(tiers) > 1 {
			fmt.Fprintf(&md, "\n## Tier %s\n\n", r.tier)
		}
		r.writeMarkdown(&md, 20)
		var c bytes.Buffer
		must(r.writeCSV(&c))
		if k > 0 { // one header line
			_, rest, _ := bytes.Cut(c.Bytes(), []byte("\n"))
			c = *bytes.NewBuffer(rest)
		}
		csvb.Write(c.Bytes())
		if svgPath != "" {
			p := svgPath
			if k > 0 {
				p = strings.TrimSuffix(svgPath, ".svg") + "." + r.tier + ".svg"
			}
			var b bytes.Buffer
			must(r.writeSVG(&b))
			must(os.WriteFile(p, b.Bytes(), 0o644))
		}
	}
	os.Stdout.Write(md.Bytes())
	if mdPath != "" {
		must(os.WriteFile(mdPath, md.Bytes(), 0o644))
	}
	if csvPath != "" {
		must(os.WriteFile(csvPath, csvb.Bytes(), 0o644))
	}
}

// mxHeader describes machine, build, tier and command; load is the load
// average before the run (the one after it is read here).
func mxHeader(r *mxRun, cfg *mxConfig, load string) []string {
	h := header(&config{reps: cfg.reps, batch: cfg.batch, thread: cfg.thread})
	tags := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" && s.Value != "" {
				tags = " (build tags: " + s.Value + ")"
			}
		}
	}
	h[1] = fmt.Sprintf("tensorcast tiers available: %s; tier measured: **%s**%s", strings.Join(tensorcast.Tiers(), ", "), r.tier, tags)
	cmd := "cd bench && "
	if g := os.Getenv("GODEBUG"); g != "" {
		cmd += "GODEBUG=" + g + " "
	}
	cmd += "go run"
	if tags != "" {
		cmd += " -tags " + strings.TrimSuffix(strings.TrimPrefix(tags, " (build tags: "), ")")
	}
	cmd += " ."
	for _, a := range os.Args[1:] {
		cmd += " " + a
	}
	h[2] = fmt.Sprintf("Command: `%s` (%s UTC, %d rounds of %v batches per pair, %s clock; load average before the run%s, after%s)",
		cmd, time.Now().UTC().Format("2006-01-02 15:04"), cfg.reps, cfg.batch, clockName(cfg.thread),
		strings.TrimPrefix(load, ", load average"), strings.TrimPrefix(loadAvg(), ", load average"))
	return h
}
