package tensorcast

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
	"github.com/x448/float16"
)

// The exhaustive sweep: every float32 bit pattern through every float32 → X
// kernel of every tier this machine has (tiers), compared bit for bit with
// the reference. The reference decodes each input once per chunk and
// encodes it once per mode, and every tier is compared against that one
// result, so adding a tier costs only the kernel's own time. Under -short
// the sweep takes a sample (every 1021st pattern plus the patterns at the
// edges of 2^13-aligned blocks, where exponent boundaries and ties live).
//
// The float targets' reference results of a whole chunk come from far fewer
// than its 2^16 encodings (expectSteps): a chunk is one binade of one sign,
// where the reference's result is a step function of the magnitude, so
// where two patterns give the same result every pattern between them does.
// Every 16th chunk also encodes every pattern and counts where the two
// disagree (they must not), which keeps that argument tested; the kernels
// are still run and compared on every pattern. On a 2-core Zen 3 the sweep
// took 27 minutes with an encoding per pattern and mode, 7 this way.

// narrowMode is one float32 → X conversion: a reference target, and how to
// run the kernel of a tier on a chunk, writing one byte per output byte.
type narrowMode struct {
	name   string
	to     ref.Kind
	opt    ref.Options
	packed bool // 4-bit target: two elements per byte
	width  int  // output bytes per element (ignored when packed or bits2)
	bits2  bool // 2-bit target: four elements per byte
	// sampled: in the full run, only every 16th chunk of 2^16 patterns (a
	// stratified 2^28: every exponent, sign and leading-significand range)
	// — the plans of FLOAT to the classic types, whose full sweep on every
	// tier (against the portable stage, itself checked here) is
	// TestStagesFloatSweep, run with TENSORCAST_STAGE_SWEEP=1; or all 2^32
	// with TENSORCAST_SWEEP_ALL=1.
	sampled bool
	run     func(k *kernelSet, dst []byte, src []float32)
	tier    func(k *kernelSet) string
	// table, if set, runs the mode's table route (tables.go: round to odd
	// at BFLOAT16's precision, then look up), swept like one more tier.
	table func(dst []byte, src []float32)
}

func narrowModes() []narrowMode {
	ms := []narrowMode{
		{name: "FLOAT16", to: ref.Float16, width: 2,
			run:  func(k *kernelSet, d []byte, s []float32) { k.f32ToF16.fn(view[uint16](d, len(s)), s) },
			tier: func(k *kernelSet) string { return k.f32ToF16.tier }},
		{name: "BFLOAT16", to: ref.BFloat16, width: 2,
			run:  func(k *kernelSet, d []byte, s []float32) { k.f32ToBF16.fn(view[uint16](d, len(s)), s) },
			tier: func(k *kernelSet) string { return k.f32ToBF16.tier }},
		{name: "FLOAT4E2M1", to: ref.Float4E2M1, packed: true,
			run:   func(k *kernelSet, d []byte, s []float32) { k.f32ToF4.fn(d[:(len(s)+1)/2], s) },
			tier:  func(k *kernelSet) string { return k.f32ToF4.tier },
			table: tableRoute(Float4E2M1, Options{})},
		{name: "INT4", to: ref.Int4, packed: true,
			run:  func(k *kernelSet, d []byte, s []float32) { k.f32ToI4.fn(d[:(len(s)+1)/2], s) },
			tier: func(k *kernelSet) string { return k.f32ToI4.tier }},
	}
	for _, t := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ} {
		for _, sat := range []bool{true, false} {
			p := float8ParamsFor(t, Options{NoSaturate: !sat})
			ms = append(ms, narrowMode{name: fmt.Sprintf("%v sat=%v", t, sat), to: ref.Kind(t), opt: ref.Options{Saturate: sat}, width: 1,
				run:   func(k *kernelSet, d []byte, s []float32) { k.f32ToF8.fn(d[:len(s)], s, p) },
				tier:  func(k *kernelSet) string { return k.f32ToF8.tier },
				table: tableRoute(t, Options{NoSaturate: !sat})})
		}
	}
	for _, rm := range []RoundMode{RoundUp, RoundDown, RoundNearest} {
		for _, sat := range []bool{true, false} {
			p := e8m0ParamsFor(Options{NoSaturate: !sat, RoundMode: rm})
			ms = append(ms, narrowMode{name: fmt.Sprintf("FLOAT8E8M0 %v sat=%v", rm, sat), to: ref.Float8E8M0,
				opt: ref.Options{Saturate: sat, Round: ref.RoundMode(rm)}, width: 1,
				run:   func(k *kernelSet, d []byte, s []float32) { k.f32ToE8M0.fn(d[:len(s)], s, p) },
				tier:  func(k *kernelSet) string { return k.f32ToE8M0.tier },
				table: tableRoute(Float8E8M0, Options{NoSaturate: !sat, RoundMode: rm})})
		}
	}
	// FLOAT to the classic types and the 2-bit integers, through the plans
	// (plan.go): the SIMD stages of each tier, or the portable loops.
	for _, t := range []DataType{Double, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64, Bool, Int2, Uint2} {
		m := narrowMode{name: t.String(), to: ref.Kind(t), opt: ref.Options{Saturate: true}, width: t.BitSize() / 8, bits2: t.BitSize() == 2, sampled: true,
			run: func(k *kernelSet, d []byte, s []float32) {
				castBytesWith(k, d, t, byteSlice(s), Float, len(s), Options{})
			},
			tier: func(k *kernelSet) string { return routeOf(k, Float, t).Tiers[0] }}
		ms = append(ms, m)
	}
	return ms
}

// elemBits returns the output bits per element of m.
func (m *narrowMode) elemBits() int {
	switch {
	case m.packed:
		return 4
	case m.bits2:
		return 2
	}
	return 8 * m.width
}

// tableRoute runs FLOAT → to by the table route of tables.go.
func tableRoute(to DataType, opt Options) func(dst []byte, src []float32) {
	t := tableFor(BFloat16, to, opt)
	return func(dst []byte, src []float32) {
		lookupOddBF16(dst, view[uint32](byteSlice(src), len(src)), to, t)
	}
}

// sweepInputs returns the chunk of inputs starting at base (a multiple of
// 2^16): the whole chunk, or under -short a sample of it: every 1021st
// pattern, plus the patterns at the edges of each 2^13-aligned block, where
// exponent boundaries and rounding ties of the narrow types live.
func sweepInputs(buf []float32, base uint32, short bool) []float32 {
	buf = buf[:0]
	if !short {
		for i := uint32(0); i < 1<<16; i++ {
			buf = append(buf, math.Float32frombits(base+i))
		}
		return buf
	}
	for x := base + (1021-base%1021)%1021; x-base < 1<<16; x += 1021 {
		buf = append(buf, math.Float32frombits(x))
	}
	for blk := base; blk-base < 1<<16; blk += 1 << 13 {
		for _, e := range []uint32{0, 1, 0xFFF, 0x1000, 0x1001, 0x1FFF} {
			buf = append(buf, math.Float32frombits(blk+e))
		}
	}
	if len(buf)%2 == 1 { // packed modes compare whole bytes
		buf = buf[:len(buf)-1]
	}
	return buf
}

// sweepFloat32 runs a worker over every 2^16-pattern chunk of the float32
// space (or of its -short sample) on all cores and returns the number of
// inputs. newWorker is called once per goroutine, so each has its own
// buffers.
func sweepFloat32(short bool, newWorker func() func(in []float32)) int64 {
	var next, inputs atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWorker()
			src := make([]float32, 0, 1<<16)
			for c := next.Add(1) - 1; c < 1<<16; c = next.Add(1) - 1 {
				in := sweepInputs(src, uint32(c)<<16, short)
				inputs.Add(int64(len(in)))
				work(in)
			}
		}()
	}
	wg.Wait()
	return inputs.Load()
}

// firstFew keeps the first few mismatch messages of a concurrent sweep.
type firstFew struct {
	mu   sync.Mutex
	msgs []string
}

func (f *firstFew) add(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.msgs) < 12 {
		f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
	}
}

// sweepAll makes the full run sweep every mode on all 2^32 patterns.
var sweepAll = os.Getenv("TENSORCAST_SWEEP_ALL") != ""

func TestSweepFloat32Narrowing(t *testing.T) {
	short := testing.Short()
	modes := narrowModes()
	ks := tiers
	swept := make([]atomic.Int64, len(modes))  // inputs per mode
	mism := make([][]atomic.Int64, len(modes)) // [mode][tier], the table route last
	for i := range mism {
		mism[i] = make([]atomic.Int64, len(ks)+1)
	}
	var first firstFew
	var stepMism, stepChecked atomic.Int64 // expectSteps against per-pattern encodings
	n := sweepFloat32(short, func() func([]float32) {
		vals := make([]ref.Value, 1<<16)
		trunc := make([]uint64, 1<<16) // the reference's 64-bit truncation of each input
		want := make([]byte, 8<<16)    // up to 8 bytes per element (DOUBLE, INT64)
		got := make([]byte, 8<<16)
		steps := make([]uint64, 1<<16) // a float mode's results by expectSteps
		return func(in []float32) {
			for i, v := range in {
				vals[i] = ref.Decode(ref.Float, uint64(math.Float32bits(v)))
			}
			// The sampled modes run on every 16th chunk (all chunks under
			// -short, which samples within each chunk instead).
			base := math.Float32bits(in[0])
			all := short || sweepAll || base>>16%16 == 0
			// A whole chunk of finite patterns (not -short's sample, not
			// the NaN and ±Inf binade) takes its float targets' results
			// from expectSteps.
			stepwise := !short && len(in) == 1<<16 && base>>23&0xFF != 0xFF
			// Every integer target is the reference's truncation wrapped to
			// its width (ref's encodeInt masks one 64-bit result), so it is
			// computed once and masked per mode.
			for i := range in {
				trunc[i] = ref.Encode(ref.Uint64, vals[i], ref.Options{Saturate: true})
			}
			for mi, m := range modes {
				if m.sampled && !all {
					continue
				}
				swept[mi].Add(int64(len(in)))
				eb := m.elemBits()
				size := len(in) * eb / 8
				res := steps[:len(in)] // the reference's result per input
				switch {
				case m.to.IsInt():
					mask := ^uint64(0) >> (64 - m.to.Bits())
					for i, u := range trunc[:len(in)] {
						res[i] = u & mask
					}
				case stepwise:
					expectSteps(res, base, func(x uint32) uint64 {
						return ref.Encode(m.to, ref.Decode(ref.Float, uint64(x)), m.opt)
					})
					if !all {
						break
					}
					stepChecked.Add(int64(len(in)))
					for i, b := range res {
						if e := ref.Encode(m.to, vals[i], m.opt); e != b {
							stepMism.Add(1)
							first.add("%s: input %#08x: expectSteps %#x, reference %#x", m.name, base+uint32(i), b, e)
						}
					}
				default:
					for i := range res {
						res[i] = ref.Encode(m.to, vals[i], m.opt)
					}
				}
				packResults(want, res, eb)
				for ki := 0; ki <= len(ks); ki++ {
					switch {
					case ki < len(ks):
						m.run(ks[ki], got, in)
					case m.table != nil:
						m.table(got, in)
					default:
						continue
					}
					if string(got[:size]) == string(want[:size]) {
						continue
					}
					name := "table"
					if ki < len(ks) {
						name = m.tier(ks[ki])
					}
					per, width := 1, m.width // elements per compared unit, bytes per unit
					if eb < 8 {
						per, width = 8/eb, 1
					}
					for i := 0; i < len(in); i += per {
						lo := i / per * width
						if string(got[lo:lo+width]) != string(want[lo:lo+width]) {
							mism[mi][ki].Add(1)
							first.add("%s [%s]: input %#08x: got % x, want % x",
								m.name, name, math.Float32bits(in[i]), got[lo:lo+width], want[lo:lo+width])
						}
					}
				}
			}
		}
	})
	for mi, m := range modes {
		var parts []string
		for ki, k := range ks {
			parts = append(parts, fmt.Sprintf("%s %d mismatches", m.tier(k), mism[mi][ki].Load()))
		}
		if m.table != nil {
			parts = append(parts, fmt.Sprintf("table route %d mismatches", mism[mi][len(ks)].Load()))
		}
		for ki := range mism[mi] {
			if mism[mi][ki].Load() != 0 {
				t.Fail()
			}
		}
		logCount(t, "FLOAT -> %-28s %d inputs: %s", m.name, swept[mi].Load(), strings.Join(parts, ", "))
	}
	if !short {
		logCount(t, "expectSteps: %d results checked against per-pattern encodings, %d disagree", stepChecked.Load(), stepMism.Load())
		if stepMism.Load() != 0 || stepChecked.Load() < 1<<28 {
			t.Errorf("expectSteps: %d disagreements in %d checked results (want 0 in at least 2^28)", stepMism.Load(), stepChecked.Load())
		}
	}
	for _, f := range first.msgs {
		t.Error(f)
	}
	if !short && n != 1<<32 {
		t.Fatalf("swept %d inputs, want 2^32", n)
	}
}

// expectSteps sets out[i] = enc(base+i) for the 2^16 float32 patterns of the
// chunk at base, one binade of one sign with no NaN or ±Inf, calling enc
// (the reference for one float target) on few of them. There the
// reference's result is a step function of the magnitude that never comes
// back to a result it has left: rounding (to nearest even, up or down) is
// monotone, so are saturation and the overflow to ±Inf, and the results
// out of order (the NaN of an overflow without saturation, FLOAT8E8M0's NaN
// for both underflow and overflow) can only be reached at one end of a
// binade. So where enc gives two patterns the same result, it gives every
// pattern between them that result; between two that differ, the interval
// is split in halves (evaluated directly when short).
func expectSteps(out []uint64, base uint32, enc func(uint32) uint64) {
	var fill func(lo, hi int, a, b uint64) // out[lo] = a, out[hi] = b; fill between
	fill = func(lo, hi int, a, b uint64) {
		switch {
		case a == b:
			for i := lo + 1; i < hi; i++ {
				out[i] = a
			}
		case hi-lo <= 16:
			for i := lo + 1; i < hi; i++ {
				out[i] = enc(base + uint32(i))
			}
		default:
			mid := lo + (hi-lo)/2
			m := enc(base + uint32(mid))
			out[mid] = m
			fill(lo, mid, a, m)
			fill(mid, hi, m, b)
		}
	}
	last := len(out) - 1
	out[0], out[last] = enc(base), enc(base+uint32(last))
	fill(0, last, out[0], out[last])
}

// TestSweepFloat16Oracle checks the reference's FLOAT16 rounding against an
// independent implementation, github.com/x448/float16, on every float32
// (NaN compared as NaN: x448 keeps payload bits differently).
func TestSweepFloat16Oracle(t *testing.T) {
	var mism atomic.Int64
	var first firstFew
	short := testing.Short()
	n := sweepFloat32(short, func() func([]float32) {
		steps := make([]uint64, 1<<16)
		return func(in []float32) {
			enc := func(x uint32) uint64 {
				return ref.Convert(ref.Float16, ref.Float, uint64(x), ref.Options{Saturate: true})
			}
			// The reference's results of a whole finite chunk by
			// expectSteps, as TestSweepFloat32Narrowing takes them (and
			// checks them there against per-pattern encodings).
			base := math.Float32bits(in[0])
			stepwise := !short && len(in) == 1<<16 && base>>23&0xFF != 0xFF
			if stepwise {
				expectSteps(steps, base, enc)
			}
			for i, v := range in {
				x := math.Float32bits(v)
				var got uint16
				if stepwise {
					got = uint16(steps[i])
				} else {
					got = uint16(enc(x))
				}
				want := uint16(float16.Fromfloat32(v))
				gotNaN := got&0x7C00 == 0x7C00 && got&0x3FF != 0
				if got == want || (v != v && gotNaN && got&0x8000 == want&0x8000) {
					continue
				}
				mism.Add(1)
				first.add("%#08x: ref %#04x, x448 %#04x", x, got, want)
			}
		}
	})
	logCount(t, "FLOAT -> FLOAT16 reference vs x448/float16: %d inputs, %d mismatches", n, mism.Load())
	for _, f := range first.msgs {
		t.Error(f)
	}
}

// packResults stores the results r (eb bits each, little-endian, the
// packed ones low element first) into dst.
func packResults(dst []byte, r []uint64, eb int) {
	le := binary.LittleEndian
	switch eb {
	case 2, 4:
		per := 8 / eb
		for i := 0; i < len(r); i += per {
			var b byte
			for j := 0; j < per && i+j < len(r); j++ {
				b |= byte(r[i+j]) << (eb * j)
			}
			dst[i/per] = b
		}
	case 8:
		for i, v := range r {
			dst[i] = byte(v)
		}
	case 16:
		for i, v := range r {
			le.PutUint16(dst[2*i:], uint16(v))
		}
	case 32:
		for i, v := range r {
			le.PutUint32(dst[4*i:], uint32(v))
		}
	default:
		for i, v := range r {
			le.PutUint64(dst[8*i:], v)
		}
	}
}

// TestExpectSteps compares expectSteps with the reference encoding every
// pattern, in every float mode of the sweep, on the chunks where those
// targets change behaviour: zero and the subnormals, and the binades of
// each target's smallest subnormal, smallest normal and largest finite
// value and their neighbours, both signs (-short: an eighth of them). The
// full sweep checks it on every 16th chunk as well.
func TestExpectSteps(t *testing.T) {
	var chunks []uint32
	for _, sign := range []uint32{0, 1} {
		for _, e := range []uint32{0, 1, 102, 103, 110, 111, 112, 113, 117, 118, 120, 121, 125, 126, 127, 129, 130, 134, 135, 136, 142, 143, 254} {
			for _, top := range []uint32{0, 0x7F} {
				chunks = append(chunks, (sign<<15|e<<7|top)<<16)
			}
		}
	}
	var checked, bad, used int
	got := make([]uint64, 1<<16)
	for ci, base := range chunks {
		if testing.Short() && ci%8 != 0 {
			continue
		}
		used++
		for _, m := range narrowModes() {
			if m.to.IsInt() {
				continue
			}
			enc := func(x uint32) uint64 { return ref.Encode(m.to, ref.Decode(ref.Float, uint64(x)), m.opt) }
			expectSteps(got, base, enc)
			for i, g := range got {
				checked++
				if w := enc(base + uint32(i)); g != w {
					if bad++; bad <= 10 {
						t.Errorf("%s: input %#08x: expectSteps %#x, reference %#x", m.name, base+uint32(i), g, w)
					}
				}
			}
		}
	}
	logCount(t, "%d results of %d chunks, %d disagree", checked, used, bad)
}
