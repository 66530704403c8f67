// Command bench measures tensorcast's hot conversions side by side with the
// memory-copy ceiling and the Go libraries a user would pick instead, in one
// process, with interleaved repetitions and medians. It prints a markdown
// table and can write it to a file, as CSV, and as an SVG chart.
//
//	cd bench && go run . -md ../docs/bench.md -csv ../docs/bench.csv -svg ../docs/bench.svg
//	go run -C bench . -quick                       # from the repository root
//	GOEXPERIMENT=simd go run .                     # also measure go-highway
//	GODEBUG=cpu.avx512f=off go run .               # make AVX2 the dispatched tier
//	go run . -clock wall -workers 2 -sizes 64Mi    # CastParallel's speed-up (quiet machine)
//
// See README.md in this directory for the flags and the method.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"
	"github.com/tensorcast/tensorcast"
)

func main() {
	var (
		sizesFlag = flag.String("sizes", "4Ki,64Ki,1Mi,64Mi", "comma-separated element counts (4096, 4Ki, 64Mi, ...)")
		reps      = flag.Int("reps", 11, "interleaved rounds per conversion and size (the median is reported)")
		batch     = flag.Duration("batch", 10*time.Millisecond, "target duration of one timed batch of calls")
		quick     = flag.Bool("quick", false, "short run: -reps 5 -batch 2ms unless those are set")
		convFlag  = flag.String("conv", "", "comma-separated conversion ids to run (default all): "+strings.Join(convIDs(), ","))
		workers   = flag.Int("workers", 0, "also measure CastParallel with this many goroutines (<= 1: off); use with -clock wall on a quiet machine")
		pool      = flag.Int("pool", 1, "rotation span in multiples of the call size, up to 4 Mi elements (0: every call reads the same window)")
		seed      = flag.Uint64("seed", 1, "seed of the input generator")
		clock     = flag.String("clock", "auto", "thread: CPU time of the measuring thread (Linux), which other processes on a busy machine do not inflate (CastParallel rows stay on wall time); wall: elapsed time; auto: thread on Linux, else wall")
		mdPath    = flag.String("md", "", "write the markdown table to this file (it is always printed)")
		csvPath   = flag.String("csv", "", "write CSV to this file")
		svgPath   = flag.String("svg", "", "write an SVG chart to this file")
		matrix    = flag.Bool("matrix", false, "matrix mode: Cast on every ordered pair of numeric types against copy() of the larger side (see matrix.go); -md, -csv, -svg write its table, CSV and heatmap")
		mxTier    = flag.String("matrix-tier", "", "matrix mode on this tensorcast tier, or several comma-separated, one run each (of "+strings.Join(tensorcast.Tiers(), ", ")+"); implies -matrix")
		mxSize    = flag.String("matrix-size", "64Ki", "matrix mode: elements per call")
		mxTypes   = flag.String("matrix-types", "", "matrix mode: comma-separated types to include (default every numeric type)")
	)
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *matrix || *mxTier != "" {
		if !set["reps"] {
			*reps = 7
		}
		if !set["batch"] {
			*batch = 2 * time.Millisecond
		}
	}
	if *quick {
		if !set["reps"] {
			*reps = 5
		}
		if !set["batch"] {
			*batch = 2 * time.Millisecond
		}
	}
	if *clock == "auto" {
		*clock = "wall"
		if threadClockOK {
			*clock = "thread"
		}
	}
	switch *clock {
	case "wall":
	case "thread":
		if !threadClockOK {
			fatal(fmt.Errorf("-clock thread is only available on Linux"))
		}
	default:
		fatal(fmt.Errorf("-clock %q: want wall or thread", *clock))
	}
	if *matrix || *mxTier != "" {
		mainMatrix(*mxSize, *mxTypes, *mxTier, *reps, *batch, *seed, *clock == "thread", *mdPath, *csvPath, *svgPath)
		return
	}
	cfg := &config{reps: max(1, *reps), batch: *batch, poolFactor: *pool, workers: *workers, thread: *clock == "thread",
		progress: func(f string, a ...any) { fmt.Fprintf(os.Stderr, f, a...) }}
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := parseSize(s)
		if err != nil {
			fatal(err)
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	slices.Sort(cfg.sizes)
	cfg.sizes = slices.Compact(cfg.sizes)
	all := conversions()
	if *convFlag == "" {
		cfg.convs = all
	} else {
		for _, id := range strings.Split(*convFlag, ",") {
			i := slices.IndexFunc(all, func(c *conv) bool { return c.id == strings.TrimSpace(id) })
			if i < 0 {
				fatal(fmt.Errorf("unknown conversion %q (have %s)", id, strings.Join(convIDs(), ", ")))
			}
			cfg.convs = append(cfg.convs, all[i])
		}
	}

	r := execute(cfg, *seed)
	r.header = header(cfg)

	var md bytes.Buffer
	r.writeMarkdown(&md)
	os.Stdout.Write(md.Bytes())
	if *mdPath != "" {
		must(os.WriteFile(*mdPath, md.Bytes(), 0o644))
	}
	if *csvPath != "" {
		var b bytes.Buffer
		must(r.writeCSV(&b))
		must(os.WriteFile(*csvPath, b.Bytes(), 0o644))
	}
	if *svgPath != "" {
		var b bytes.Buffer
		must(r.writeSVG(&b, "tensorcast vs copy() and Go peers · "+cpuName()))
		must(os.WriteFile(*svgPath, b.Bytes(), 0o644))
	}
}

// execute generates the inputs and measures every conversion at every size.
func execute(cfg *config, seed uint64) *run {
	runtime.LockOSThread() // one thread for every timed call (and for -clock thread)
	defer runtime.UnlockOSThread()
	maxPool, maxN := 0, slices.Max(cfg.sizes)
	for _, n := range cfg.sizes {
		maxPool = max(maxPool, n+freshSpanFor(n, cfg.poolFactor))
	}
	t0 := time.Now()
	p := newPools(maxPool, maxN, seed)
	cfg.progress("inputs: %d elements in %v\n", maxPool, time.Since(t0).Round(time.Millisecond))
	r := &run{sizes: cfg.sizes, convs: cfg.convs, reps: cfg.reps, thread: cfg.thread}
	for _, n := range cfg.sizes {
		e := p.env(n, cfg.poolFactor)
		for _, c := range cfg.convs {
			t := time.Now()
			res := measure(c, e, cfg)
			r.results = append(r.results, res...)
			tc := res[0]
			cfg.progress("%-32s %6s  tensorcast %7s Gelem/s  copy(4N) %7s  (%v)\n", c.name, sizeName(n),
				num(tc.gelems()), num(r.get(c, "copy4N", n).gelems()), time.Since(t).Round(time.Millisecond))
		}
	}
	return r
}

func clockName(thread bool) string {
	if thread {
		return "thread CPU"
	}
	return "wall"
}

func convIDs() []string {
	var ids []string
	for _, c := range conversions() {
		ids = append(ids, c.id)
	}
	return ids
}

func cpuName() string {
	s := strings.TrimSpace(cpuid.CPU.BrandName)
	if s == "" {
		s = runtime.GOARCH
	}
	if cpuid.CPU.VendorID == cpuid.AMD { // VMs often report only "AMD EPYC"
		switch cpuid.CPU.Family {
		case 0x17:
			s += " (Zen/Zen 2)"
		case 0x19: // Zen 3 has no AVX-512
			if cpuid.CPU.Supports(cpuid.AVX512F) {
				s += " (Zen 4)"
			} else {
				s += " (Zen 3)"
			}
		case 0x1A:
			s += " (Zen 5)"
		}
	}
	return s
}

func header(cfg *config) []string {
	kb := func(b int) string {
		if b <= 0 {
			return "?"
		}
		if b >= 1<<20 {
			return fmt.Sprintf("%d MiB", b>>20)
		}
		return fmt.Sprintf("%d KiB", b>>10)
	}
	c := cpuid.CPU
	exp := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOEXPERIMENT" && s.Value != "" {
				exp = "GOEXPERIMENT=" + s.Value + " "
			}
		}
	}
	if g := os.Getenv("GODEBUG"); g != "" {
		exp += "GODEBUG=" + g + " "
	}
	cmd := "cd bench && " + exp + "go run ."
	for _, a := range os.Args[1:] {
		cmd += " " + a
	}
	var ks []string
	for _, k := range tensorcast.Kernels()[:6] {
		ks = append(ks, k.Conversion+": "+k.Kernel)
	}
	return []string{
		fmt.Sprintf("CPU: %s (family %d model %d), %d logical cores, L1d %s, L2 %s, L3 %s per core/CCX as cpuid reports; %s/%s, %s",
			cpuName(), c.Family, c.Model, c.LogicalCores, kb(c.Cache.L1D), kb(c.Cache.L2), kb(c.Cache.L3),
			runtime.GOOS, runtime.GOARCH, runtime.Version()),
		"tensorcast tiers: " + strings.Join(tensorcast.Tiers(), ", ") + "; kernels: " + strings.Join(ks, "; "),
		fmt.Sprintf("Command: `%s` (%s, %d rounds of %v batches, %s clock%s)", cmd, time.Now().UTC().Format("2006-01-02 15:04 MST"),
			cfg.reps, cfg.batch, clockName(cfg.thread), loadAvg()),
	}
}

// loadAvg returns ", load average …" on Linux, where other processes on a
// shared machine show up.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return ", load average " + strings.Join(f[:3], " ")
}

func must(err error) {
	if err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}
