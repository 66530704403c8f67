// Command ort compares tensorcast.Cast with ONNX Runtime's CPU Cast kernel on
// every ordered pair of numeric types both support: one thread, the same
// input and output buffers, one process, interleaved rounds and medians
// (bench's method), and the output bits of both.
//
// ONNX Runtime's shared library comes from the npm package onnxruntime-node
// and Go reaches it through github.com/yalue/onnxruntime_go (cgo, dlopen at
// run time), which is why this is a module of its own: neither the library's
// go.mod nor bench's carries it.
//
//	mkdir -p /tmp/ort && cd /tmp/ort && npm install --ignore-scripts onnxruntime-node
//	cd bench/ort && go run . -md ../../docs/ort.md -csv ../../docs/ort.csv
//
// See ../README.md ("ONNX Runtime") for the method.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"
	ort "github.com/yalue/onnxruntime_go"
	"golang.org/x/sys/unix"

	"github.com/tensorcast/tensorcast"
)

func main() {
	var (
		lib     = flag.String("lib", "", "path of libonnxruntime.so (default: $ORT_LIB, else /tmp/ort/node_modules/onnxruntime-node/bin/napi-v*/linux/x64/libonnxruntime.so.1)")
		n       = flag.Int("n", 1<<16, "elements per call")
		reps    = flag.Int("reps", 7, "interleaved rounds per pair (the median is reported)")
		batch   = flag.Duration("batch", 3*time.Millisecond, "target duration of one timed batch of calls")
		tier    = flag.String("tier", "", "tensorcast tier to use (default: the dispatched one): "+strings.Join(tensorcast.Tiers(), ", "))
		types   = flag.String("types", "", "comma-separated types to include (default every numeric type)")
		seed    = flag.Uint64("seed", 1, "seed of the input generator")
		mdPath  = flag.String("md", "", "write the markdown report to this file (it is always printed)")
		csvPath = flag.String("csv", "", "write CSV to this file")
	)
	flag.Parse()
	if *lib == "" {
		*lib = findLib()
	}
	if *tier != "" {
		if err := tensorcast.UseTier(*tier); err != nil {
			fatal(err)
		}
	}
	ts := matrixTypes()
	if *types != "" {
		ts = nil
		for _, s := range strings.Split(*types, ",") {
			t, err := tensorcast.ParseDataType(s)
			if err != nil {
				fatal(err)
			}
			ts = append(ts, t)
		}
	}
	load := loadAvg()
	h, err := newHarness(*lib)
	if err != nil {
		fatal(fmt.Errorf("ONNX Runtime from %s: %w", *lib, err))
	}
	cfg := &config{n: *n, reps: max(1, *reps), batch: *batch, seed: *seed}
	r := h.run(cfg, ts)
	r.header = []string{
		fmt.Sprintf("CPU: %s (family %d model %d), %d logical cores; %s/%s, %s", cpuName(), cpuid.CPU.Family, cpuid.CPU.Model,
			cpuid.CPU.LogicalCores, runtime.GOOS, runtime.GOARCH, runtime.Version()),
		fmt.Sprintf("ONNX Runtime %s (%s, from npm onnxruntime-node) through github.com/yalue/onnxruntime_go; models: IR %d, opset %d (lower opsets where a pair needs them: see the CSV)",
			ort.GetVersion(), filepath.Base(*lib), h.ir, h.opset),
		fmt.Sprintf("tensorcast tier: **%s** (of %s)", tensorcast.KernelName(), strings.Join(tensorcast.Tiers(), ", ")),
		fmt.Sprintf("Command: `cd bench/ort && go run .%s` (%s UTC, %d rounds of %v batches per pair, thread CPU clock; load average before the run%s, after%s)",
			argString(), time.Now().UTC().Format("2006-01-02 15:04"), cfg.reps, cfg.batch,
			strings.TrimPrefix(load, ", load average"), strings.TrimPrefix(loadAvg(), ", load average")),
	}
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
}

// findLib returns $ORT_LIB or the library of an npm install in /tmp/ort.
func findLib() string {
	if p := os.Getenv("ORT_LIB"); p != "" {
		return p
	}
	m, _ := filepath.Glob("/tmp/ort/node_modules/onnxruntime-node/bin/napi-v*/linux/x64/libonnxruntime.so.1")
	if len(m) == 0 {
		fatal(fmt.Errorf("no libonnxruntime.so.1: run `mkdir -p /tmp/ort && cd /tmp/ort && npm install --ignore-scripts onnxruntime-node`, or pass -lib"))
	}
	slices.Sort(m)
	return m[len(m)-1]
}

// harness holds ONNX Runtime's environment and session options.
type harness struct {
	opts      *ort.SessionOptions
	ir, opset int64 // the newest IR version and opset this ONNX Runtime loads
	overhead  float64
}

func newHarness(lib string) (*harness, error) {
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return nil, err
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	// One thread: Cast runs on the calling thread (whose CPU time the
	// thread clock measures), as tensorcast.Cast does.
	must(opts.SetIntraOpNumThreads(1))
	must(opts.SetInterOpNumThreads(1))
	must(opts.SetExecutionMode(ort.ExecutionModeSequential))
	must(opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"))
	h := &harness{opts: opts}
	// The newest (IR, opset) this runtime accepts, probed with FLOAT -> FLOAT16.
	var first error
	for _, v := range [][2]int64{{13, 26}, {12, 25}, {11, 24}, {11, 23}, {10, 22}, {10, 21}, {9, 19}, {8, 13}} {
		p, err := h.newPair(tensorcast.Float, tensorcast.Float16, 64, v[0], v[1])
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		h.ir, h.opset = v[0], v[1]
		// ONNX Runtime's fixed cost per Run: a 64-element Cast.
		for range 1000 {
			p.sess.Run()
		}
		var t []float64
		for range 9 {
			start := threadNanos()
			for range 1000 {
				p.sess.Run()
			}
			t = append(t, float64(threadNanos()-start)/1000)
		}
		h.overhead = median(t)
		p.destroy()
		return h, nil
	}
	return nil, fmt.Errorf("no IR version and opset load: %v", first)
}

// pair is one Cast session with its input and output tensors, whose bytes
// live outside the Go heap (mmap), so that ONNX Runtime may keep pointers
// to them.
type pair struct {
	in, out   *ort.CustomDataTensor
	sess      *ort.AdvancedSession
	src, dst  []byte
	ir, opset int64
}

func (h *harness) newPair(from, to tensorcast.DataType, n int, ir, opset int64) (*pair, error) {
	p := &pair{ir: ir, opset: opset}
	var err error
	if p.src, err = mmap(from.Size(n)); err != nil {
		return nil, err
	}
	if p.dst, err = mmap(to.Size(n)); err != nil {
		p.destroy()
		return nil, err
	}
	shape := ort.NewShape(int64(n))
	if p.in, err = ort.NewCustomDataTensor(shape, p.src, ort.TensorElementDataType(from)); err != nil {
		p.destroy()
		return nil, err
	}
	if p.out, err = ort.NewCustomDataTensor(shape, p.dst, ort.TensorElementDataType(to)); err != nil {
		p.destroy()
		return nil, err
	}
	model := castModel(int32(from), int32(to), int64(n), ir, opset)
	p.sess, err = ort.NewAdvancedSessionWithONNXData(model, []string{"x"}, []string{"y"},
		[]ort.Value{p.in}, []ort.Value{p.out}, h.opts)
	if err != nil {
		p.destroy()
		return nil, err
	}
	return p, nil
}

func (p *pair) destroy() {
	if p.sess != nil {
		p.sess.Destroy()
	}
	if p.in != nil {
		p.in.Destroy()
	}
	if p.out != nil {
		p.out.Destroy()
	}
	for _, b := range [][]byte{p.src, p.dst} {
		if b != nil {
			unix.Munmap(b)
		}
	}
}

// mmap returns n zeroed bytes outside the Go heap (page-aligned).
func mmap(n int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, max(n, 1), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	return b[:n], nil
}

type config struct {
	n, reps int
	batch   time.Duration
	seed    uint64
}

// result is one pair's comparison.
type result struct {
	from, to tensorcast.DataType
	err      error // ONNX Runtime could not build or run the pair
	ir       int64
	opset    int64
	tcNs     float64   // median ns per tensorcast.Cast call
	ortNs    float64   // median ns per ONNX Runtime Run
	ratios   []float64 // ORT ÷ tensorcast time per call, one per round
	speedup  float64   // median of ratios: > 1 means tensorcast is faster
	mismatch int       // elements whose bits differ
	outRange int       // float → integer: of the mismatches, those whose source is outside the target's range
	nanOnly  bool      // every mismatch is a NaN in both outputs
	example  string    // the first differing element
}

type report struct {
	header   []string
	n        int
	reps     int
	batch    time.Duration
	overhead float64
	results  []*result
	elapsed  time.Duration
}

// run measures every ordered pair of distinct types in ts.
func (h *harness) run(cfg *config, ts []tensorcast.DataType) *report {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := time.Now()
	r := &report{n: cfg.n, reps: cfg.reps, batch: cfg.batch, overhead: h.overhead}
	src := map[tensorcast.DataType][]byte{}
	for _, t := range ts {
		src[t] = make([]byte, t.Size(cfg.n))
		genTyped(src[t], t, cfg.n, cfg.seed)
	}
	for _, from := range ts {
		tr := time.Now()
		for _, to := range ts {
			if from == to {
				continue
			}
			res := h.pair(cfg, from, to, src[from])
			r.results = append(r.results, res)
		}
		fmt.Fprintf(os.Stderr, "%-15s → *: %v\n", from, time.Since(tr).Round(time.Millisecond))
	}
	r.elapsed = time.Since(t0)
	return r
}

// pair builds the session of one pair (trying lower opsets when the newest
// has no kernel for it), compares the outputs and times both.
func (h *harness) pair(cfg *config, from, to tensorcast.DataType, input []byte) *result {
	res := &result{from: from, to: to}
	var p *pair
	for _, v := range [][2]int64{{h.ir, h.opset}, {11, 23}, {10, 21}, {9, 19}, {8, 13}} {
		if v[1] > h.opset || v[1] < int64(max(from.Opset(), to.Opset())) {
			continue
		}
		var err error
		p, err = h.newPair(from, to, cfg.n, v[0], v[1])
		if err == nil {
			break
		}
		if res.err == nil {
			res.err = err
		}
	}
	if p == nil {
		return res
	}
	defer p.destroy()
	res.err, res.ir, res.opset = nil, p.ir, p.opset
	copy(p.src, input)

	// Bits: ONNX Runtime's output against tensorcast's (the reference's)
	// for the same input.
	clear(p.dst)
	if err := p.sess.Run(); err != nil {
		res.err = err
		return res
	}
	got := slices.Clone(p.dst)
	clear(p.dst)
	if err := tensorcast.Cast(p.dst, to, p.src, from, cfg.n, tensorcast.Options{}); err != nil {
		fatal(err)
	}
	res.mismatch, res.nanOnly, res.example = compare(got, p.dst, p.src, from, to, cfg.n)
	if res.mismatch > 0 {
		res.outRange = outOfRange(got, p.dst, p.src, from, to, cfg.n)
	}

	var castErr error
	tc := func() {
		if err := tensorcast.Cast(p.dst, to, p.src, from, cfg.n, tensorcast.Options{}); err != nil {
			castErr = err
		}
	}
	orun := func() {
		if err := p.sess.Run(); err != nil {
			castErr = err
		}
	}
	fns := [2]func(){tc, orun}
	iters := [2]int{calibrate(tc, cfg.batch), calibrate(orun, cfg.batch)}
	var ns [2][]float64
	for rep := 0; rep < cfg.reps; rep++ {
		var per [2]float64
		for k := 0; k < 2; k++ {
			j := k ^ (rep & 1) // alternate which runs first
			start := threadNanos()
			for range iters[j] {
				fns[j]()
			}
			per[j] = float64(threadNanos()-start) / float64(iters[j])
			ns[j] = append(ns[j], per[j])
		}
		if per[0] > 0 && per[1] > 0 {
			res.ratios = append(res.ratios, per[1]/per[0])
		}
	}
	if castErr != nil {
		fatal(castErr)
	}
	res.tcNs, res.ortNs, res.speedup = median(ns[0]), median(ns[1]), median(res.ratios)
	return res
}

// calibrate returns how many calls make a batch of about d (at least 1).
func calibrate(run func(), d time.Duration) int {
	iters := 1
	for {
		start := time.Now()
		for range iters {
			run()
		}
		el := time.Since(start)
		if el >= d/4 || iters >= 1<<24 {
			if el <= 0 {
				return iters
			}
			return max(1, int(float64(iters)*float64(d)/float64(el)))
		}
		iters *= 4
	}
}

// threadNanos is the CPU time of the calling OS thread (the goroutine is
// locked to it): time spent waiting for a CPU on a shared machine does not
// count. ONNX Runtime with one intra-op thread runs Cast on this thread.
func threadNanos() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func cpuName() string {
	s := strings.TrimSpace(cpuid.CPU.BrandName)
	if s == "" {
		s = runtime.GOARCH
	}
	if cpuid.CPU.VendorID == cpuid.AMD {
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

func argString() string {
	s := ""
	for _, a := range os.Args[1:] {
		s += " " + a
	}
	return s
}

func must(err error) {
	if err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "ort:", err)
	os.Exit(1)
}
