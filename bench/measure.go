package main

import (
	"bytes"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/tensorcast/tensorcast"
)

// result is the measurement of one implementation of one conversion at one size.
type result struct {
	conv    *conv
	impl    impl
	n       int
	samples []float64 // ns per element, one per repetition
	median  float64   // ns per element
	allocs  float64   // heap allocations per call
	// mismatch is the number of elements (of checked) whose bits differ
	// from the generic tier; nanOnly is true when every mismatch is at an
	// element where the expected result is a NaN. checked == 0: not compared.
	mismatch, checked int
	nanOnly           bool
}

// gelems is the throughput in elements per nanosecond (10⁹ elements/s).
func (r *result) gelems() float64 { return 1 / r.median }

// gbps is bytes read plus written per nanosecond (GB/s).
func (r *result) gbps() float64 {
	b := float64(r.conv.bytesMoved())
	switch r.impl.id {
	case "copy4N":
		b = 8
	case "copyNarrow":
		b = float64(2 * r.conv.narrow)
	}
	return b / r.median
}

type config struct {
	sizes      []int
	reps       int
	batch      time.Duration // target duration of one timed batch
	poolFactor int
	workers    int
	thread     bool // time with the thread CPU clock (not for CastParallel rows)
	convs      []*conv
	progress   func(format string, args ...any)
}

// bound is one implementation ready to run on one env.
type bound struct {
	impl  impl
	run   func(i int)
	iters int
	res   *result
}

// measure runs every implementation of c at size n in one process:
// calibrate each to a batch of about cfg.batch, then cfg.reps rounds in which
// every implementation runs one timed batch, in an order that rotates and
// reverses from round to round so that no implementation always follows the
// same neighbour. The median of the rounds is reported.
func measure(c *conv, e *env, cfg *config) []*result {
	best := tensorcast.Tiers()[len(tensorcast.Tiers())-1]
	defer tensorcast.UseTier(best)
	im := c.impls(cfg.workers)
	bs := make([]*bound, len(im))
	for k, m := range im {
		selectTier(m.tier, best)
		ee := e
		if m.fresh {
			ee = e.fresh
		}
		b := &bound{impl: m, run: m.bind(ee), res: &result{conv: c, impl: m, n: e.n}}
		b.run(0) // warm up: page in dst, load code
		b.res.allocs = allocsPerCall(b.run, e.n)
		b.iters = calibrate(b.run, cfg.batch)
		bs[k] = b
	}
	checkExact(c, e, bs, best)
	runtime.GC()
	call := 1
	for rep := 0; rep < cfg.reps; rep++ {
		order := make([]*bound, len(bs))
		for k := range bs {
			order[k] = bs[(k+rep)%len(bs)]
		}
		if rep%2 == 1 {
			slices.Reverse(order)
		}
		for _, b := range order {
			selectTier(b.impl.tier, best)
			now := wallNanos
			if cfg.thread && b.impl.kind != kParallel {
				now = threadNanos
			}
			start := now()
			for k := 0; k < b.iters; k++ {
				b.run(call)
				call++
			}
			el := now() - start
			b.res.samples = append(b.res.samples, float64(el)/float64(b.iters*e.n))
		}
	}
	out := make([]*result, len(bs))
	for k, b := range bs {
		b.res.median = median(b.res.samples)
		out[k] = b.res
	}
	return out
}

var epoch = time.Now()

func wallNanos() int64 { return int64(time.Since(epoch)) }

func selectTier(t, best string) {
	if t == "" {
		t = best
	}
	if err := tensorcast.UseTier(t); err != nil {
		panic(err)
	}
}

// calibrate returns how many calls make a batch of about d (at least 1).
func calibrate(run func(int), d time.Duration) int {
	iters := 1
	for {
		start := time.Now()
		for k := 0; k < iters; k++ {
			run(k + 1)
		}
		el := time.Since(start)
		if el >= d/4 || iters >= 1<<24 {
			if el <= 0 {
				return iters
			}
			k := int(float64(iters) * float64(d) / float64(el))
			return max(1, k)
		}
		iters *= 4
	}
}

// allocsPerCall returns the average number of heap allocations per call,
// over enough calls to see one allocation in a hundred (fewer for slow
// calls on large sizes: 10 at 1 Mi, 2 from 16 Mi elements).
func allocsPerCall(run func(int), n int) float64 {
	calls := 100
	if n >= 1<<24 {
		calls = 2
	} else if n >= 1<<20 {
		calls = 10
	}
	// Mallocs counts the whole process; a stray runtime allocation in one
	// measurement does not repeat in the other: report the smaller.
	best := math.Inf(1)
	for range 2 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for k := 0; k < calls; k++ {
			run(k)
		}
		runtime.ReadMemStats(&after)
		best = min(best, float64(after.Mallocs-before.Mallocs)/float64(calls))
		if n >= 1<<24 {
			break
		}
	}
	return best
}

// checkExact runs call 0 of every implementation that has an output and
// compares it with the generic tier's, element by element.
func checkExact(c *conv, e *env, bs []*bound, best string) {
	dst := c.dstBytes(e)
	selectTier("generic", best)
	c.tc(e)(0)
	want := slices.Clone(dst)
	w := 4
	if !c.widening {
		w = c.narrow
	}
	for _, b := range bs {
		if b.impl.out == nil {
			continue
		}
		clear(dst)
		selectTier(b.impl.tier, best)
		b.run(0)
		got := b.impl.out(e)
		b.res.checked = e.n
		b.res.mismatch, b.res.nanOnly = diff(got, want, w, c.to)
	}
}

// diff counts the w-byte elements of type t that differ between got and
// want, and reports whether want is a NaN at every one of them.
func diff(got, want []byte, w int, t tensorcast.DataType) (mismatch int, nanOnly bool) {
	nanOnly = true
	const block = 4096 // a multiple of every element size
	for lo := 0; lo < len(want); lo += block {
		hi := min(lo+block, len(want))
		if bytes.Equal(got[lo:hi], want[lo:hi]) {
			continue
		}
		for j := lo; j < hi; j += w {
			if !bytes.Equal(got[j:j+w], want[j:j+w]) {
				mismatch++
				if !isNaN(want[j:j+w], t) {
					nanOnly = false
				}
			}
		}
	}
	return mismatch, nanOnly
}

// isNaN reports whether the little-endian element b of type t is a NaN.
func isNaN(b []byte, t tensorcast.DataType) bool {
	switch t {
	case tensorcast.Float:
		u := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		return u&0x7FFFFFFF > 0x7F800000
	case tensorcast.Float16:
		u := uint16(b[0]) | uint16(b[1])<<8
		return u&0x7FFF > 0x7C00
	case tensorcast.BFloat16:
		u := uint16(b[0]) | uint16(b[1])<<8
		return u&0x7FFF > 0x7F80
	}
	return false
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
