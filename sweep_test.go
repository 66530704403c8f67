package tensorcast

import (
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
	n := sweepFloat32(short, func() func([]float32) {
		vals := make([]ref.Value, 1<<16)
		trunc := make([]uint64, 1<<16) // the reference's 64-bit truncation of each input
		want := make([]byte, 8<<16)    // up to 8 bytes per element (DOUBLE, INT64)
		got := make([]byte, 8<<16)
		return func(in []float32) {
			for i, v := range in {
				vals[i] = ref.Decode(ref.Float, uint64(math.Float32bits(v)))
			}
			// The sampled modes run on every 16th chunk (all chunks under
			// -short, which samples within each chunk instead).
			all := short || sweepAll || math.Float32bits(in[0])>>16%16 == 0
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
				for i := range in {
					var b uint64
					if m.to.IsInt() {
						b = trunc[i] & (1<<uint(m.to.Bits()) - 1)
						if m.to.Bits() == 64 {
							b = trunc[i]
						}
					} else {
						b = ref.Encode(m.to, vals[i], m.opt)
					}
					if eb < 8 {
						per := 8 / eb
						if i%per == 0 {
							want[i/per] = 0
						}
						want[i/per] |= byte(b) << uint(eb*(i%per))
					} else {
						for j := 0; j < m.width; j++ {
							want[i*m.width+j] = byte(b >> (8 * j))
						}
					}
				}
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
	for _, f := range first.msgs {
		t.Error(f)
	}
	if !short && n != 1<<32 {
		t.Fatalf("swept %d inputs, want 2^32", n)
	}
}

// TestSweepFloat16Oracle checks the reference's FLOAT16 rounding against an
// independent implementation, github.com/x448/float16, on every float32
// (NaN compared as NaN: x448 keeps payload bits differently).
func TestSweepFloat16Oracle(t *testing.T) {
	var mism atomic.Int64
	var first firstFew
	n := sweepFloat32(testing.Short(), func() func([]float32) {
		return func(in []float32) {
			for _, v := range in {
				x := math.Float32bits(v)
				got := uint16(ref.Convert(ref.Float16, ref.Float, uint64(x), ref.Options{Saturate: true}))
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
