//go:build amd64 && gc && !purego && !noasm && (linux || darwin)

package tensorcast

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The streaming (non-temporal store) variants of the AVX2 and AVX-512
// kernels, with the threshold forced to 0 so that every call streams: bit
// for bit equal to the generic kernels at every length and dst offset, next
// to guard pages, and never writing a byte outside the result.

// withStreamMin sets streamMinBytes for the test and counts, in the returned
// counter, the elements the streaming kernels convert.
func withStreamMin(t testing.TB, v int) *atomic.Int64 {
	oldMin, oldHook := streamMinBytes, streamHook
	var count atomic.Int64
	streamMinBytes = v
	streamHook = func(n int) { count.Add(int64(n)) }
	t.Cleanup(func() { streamMinBytes, streamHook = oldMin, oldHook })
	return &count
}

// streams reports whether kernel case c has a streaming variant in tier k.
func streams(c kernelCase, k *kernelSet) bool {
	if k.tier == "generic" || c.tier(k) == "generic" {
		return false
	}
	for _, p := range []string{"FLOAT->FLOAT16", "FLOAT16->FLOAT", "FLOAT->BFLOAT16", "BFLOAT16->FLOAT", "FLOAT->FLOAT8", "FLOAT16->FLOAT8", "BFLOAT16->FLOAT8"} {
		if c.name == p || strings.HasPrefix(c.name, p+"E") {
			return true
		}
	}
	return strings.HasPrefix(c.name, "FLOAT8") && strings.HasSuffix(c.name, "->FLOAT")
}

// TestStreamingKernels runs every streaming kernel of every tier at every
// length 0..2000 with dst at every offset 0..63 bytes from a 64-byte
// boundary (src at another offset), with dst and src flush against guard
// pages, and checks the result and the bytes around it.
func TestStreamingKernels(t *testing.T) {
	maxN, offStep, nStep := 2000, 1, 1
	if testing.Short() {
		maxN, offStep, nStep = 700, 5, 3
	}
	count := withStreamMin(t, 0)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	rng := rand.New(rand.NewPCG(41, 43))
	const pad = 64 // canary bytes checked on each side of dst
	for _, c := range kernelCases() {
		for _, k := range tiers {
			if !streams(c, k) {
				continue
			}
			srcAll := tierInputs(rng, c.from, maxN)
			if c.from == Float || c.from == Float16 || c.from == BFloat16 {
				// The first half with few specials, for the kernels whose
				// fast paths take blocks without them (kernel_sparse_test.go).
				copy(srcAll, sparseSpecials(rng, c.from, maxN/2))
			}
			wantAll := make([]byte, c.to.Size(maxN))
			c.run(tiers[0], wantAll, srcAll, maxN)
			sg := newGuarded(t, c.from.Size(maxN)+64)
			dg := newGuarded(t, c.to.Size(maxN)+64+2*pad)
			before, aligned := count.Load(), int64(0)
			check := func(where string, n int, d, s, area []byte) {
				dsz := c.to.Size(n)
				if uintptr(unsafe.Pointer(unsafe.SliceData(d)))%uintptr(c.to.Size(1)) == 0 {
					aligned += int64(n)
				}
				for i := range area {
					area[i] = 0xA5
				}
				c.run(k, d, s, n)
				if !bytes.Equal(d[:dsz], wantAll[:dsz]) {
					i := 0
					for d[i] == wantAll[i] {
						i++
					}
					t.Fatalf("%s [%s streaming] n=%d %s: byte %d is %#02x, want %#02x", c.name, c.tier(k), n, where, i, d[i], wantAll[i])
				}
				at := int(uintptr(unsafe.Pointer(unsafe.SliceData(d))) - uintptr(unsafe.Pointer(unsafe.SliceData(area))))
				if touched(area[:at]) || touched(area[at+dsz:]) {
					t.Fatalf("%s [%s streaming] n=%d %s: wrote outside the result", c.name, c.tier(k), n, where)
				}
			}
			for off := 0; off < 64; off += offStep {
				soff := (off * 7) % 64
				s := sg.at(soff, c.from.Size(maxN))
				copy(s, srcAll)
				for n := 0; n <= maxN; n += nStep {
					area := dg.at(off, c.to.Size(n)+2*pad)
					check(fmt.Sprintf("dst offset %d", off), n, area[pad:], s, area)
				}
			}
			for n := 0; n <= maxN; n += nStep {
				ssz, dsz := c.from.Size(n), c.to.Size(n)
				s := sg.atEnd(ssz)
				copy(s, srcAll[:ssz])
				area := dg.atEnd(dsz + pad)
				check("flush before the upper guard", n, area[pad:], s, area)
				s = sg.atStart(ssz)
				copy(s, srcAll[:ssz])
				area = dg.atStart(dsz + pad)
				check("flush after the lower guard", n, area, s, area)
			}
			// Most of each call whose dst is aligned to its element size goes
			// through the streaming kernel: all but the elements before the
			// first 64-byte line and after the last whole block.
			streamed := count.Load() - before
			if streamed < aligned/2 {
				t.Errorf("%s [%s]: %d of %d elements streamed", c.name, c.tier(k), streamed, aligned)
			}
		}
	}
}

// touched reports whether some byte of b is not 0xA5.
func touched(b []byte) bool {
	for _, x := range b {
		if x != 0xA5 {
			return true
		}
	}
	return false
}

// TestStreamingThreshold checks the rule of stream.go at its boundary, that
// the threshold can turn streaming off, and that the streaming twins
// (streamingKernels) stream below it.
func TestStreamingThreshold(t *testing.T) {
	if len(tiers) == 1 {
		t.Skip("only the generic tier on this machine")
	}
	k := tiers[len(tiers)-1]
	const n = 4096
	src := make([]float32, n+1)
	for i := range src {
		src[i] = float32(i) - 1000.5
	}
	want := make([]uint16, n+1)
	float32ToFloat16Generic(want, src)
	dst := make([]uint16, n+1+64)
	dst = dst[ntHead(dst, 64):] // 64-byte aligned: every call can stream
	// FLOAT -> FLOAT16 reads 4 and writes 2 bytes per element: with the
	// threshold at 8n bytes, n elements and more stream, fewer do not.
	count := withStreamMin(t, 8*n)
	for _, c := range []struct {
		elems  int
		stream bool
	}{{n - 1, false}, {n, true}, {n + 1, true}} {
		count.Store(0)
		clear(dst)
		k.f32ToF16.fn(dst[:c.elems], src[:c.elems])
		if !slices.Equal(dst[:c.elems], want[:c.elems]) {
			t.Fatalf("%d elements: wrong result", c.elems)
		}
		if got := count.Load() > 0; got != c.stream {
			t.Errorf("%d elements, threshold %d bytes: streamed = %v", c.elems, 8*n, got)
		}
	}
	streamMinBytes = math.MaxInt
	count.Store(0)
	k.f32ToF16.fn(dst[:n], src[:n])
	if count.Load() != 0 {
		t.Error("streamed with the threshold at MaxInt")
	}
	twin := streamingKernels(k)
	if twin == k {
		t.Fatalf("tier %s has no streaming twin", k.tier)
	}
	for _, c := range kernelCases() {
		if !streams(c, k) {
			continue
		}
		srcb := tierInputs(rand.New(rand.NewPCG(1, 2)), c.from, n)
		w := make([]byte, c.to.Size(n)+64)
		g := make([]byte, c.to.Size(n)+64)
		g = g[ntHead(g, 64):][:c.to.Size(n)]
		c.run(tiers[0], w, srcb, n)
		count.Store(0)
		c.run(twin, g, srcb, n)
		if !bytes.Equal(g, w[:len(g)]) {
			t.Errorf("%s [%s twin]: wrong result", c.name, c.tier(twin))
		}
		if count.Load() == 0 {
			t.Errorf("%s [%s twin]: did not stream", c.name, c.tier(twin))
		}
	}
}

// TestStreamingAllocs checks that the streaming paths allocate nothing.
func TestStreamingAllocs(t *testing.T) {
	count := withStreamMin(t, 0)
	const n = 1000
	f32 := make([]float32, n)
	u16 := make([]uint16, n+32)[1:] // dst not 64-byte aligned: a head, a body and a tail
	u8 := make([]uint8, n+64)[3:]
	for i := range f32 {
		f32[i] = float32(i) * 0.37
	}
	for _, c := range []struct {
		name, tier string // tier: the kernel's; the generic kernels do not stream
		f          func()
	}{
		{"Float32ToFloat16", active.f32ToF16.tier, func() { Float32ToFloat16(u16, f32) }},
		{"Float16ToFloat32", active.f16ToF32.tier, func() { Float16ToFloat32(f32, u16[:n]) }},
		{"Float32ToBFloat16", active.f32ToBF16.tier, func() { Float32ToBFloat16(u16, f32) }},
		{"Float32ToFloat8", active.f32ToF8.tier, func() { Float32ToFloat8(u8, Float8E4M3FN, f32, Options{}) }},
		{"Float32ToFloat8 E8M0", active.f32ToE8M0.tier, func() { Float32ToFloat8(u8, Float8E8M0, f32, Options{}) }},
		{"Float8ToFloat32", active.f8ToF32.tier, func() { Float8ToFloat32(f32, u8[:n], Float8E5M2) }},
		{"Cast FLOAT16->FLOAT8", active.f16ToF8.tier, func() {
			Cast(u8, Float8E4M3FN, unsafe.Slice((*byte)(unsafe.Pointer(&u16[0])), 2*n), Float16, n, Options{})
		}},
	} {
		count.Store(0)
		if a := testing.AllocsPerRun(20, c.f); a != 0 {
			t.Errorf("%s: %v allocations per call", c.name, a)
		}
		if streamed := count.Load() > 0; streamed != (c.tier != "generic") {
			t.Errorf("%s [%s]: streamed = %v", c.name, c.tier, streamed)
		}
	}
}

// TestStreamingFloat32Sample compares the streaming kernels with float32
// sources against the generic ones on a few million inputs concentrated
// where the narrow types round (as TestTiersFloat32Sample does for the
// ordinary kernels).
func TestStreamingFloat32Sample(t *testing.T) {
	n := 1 << 22
	if testing.Short() {
		n = 1 << 17
	}
	count := withStreamMin(t, 0)
	src := tierInputs(rand.New(rand.NewPCG(47, 53)), Float, n)
	for _, c := range kernelCases() {
		if c.from != Float {
			continue
		}
		want := make([]byte, c.to.Size(n))
		c.run(tiers[0], want, src, n)
		got := make([]byte, c.to.Size(n)+64)
		got = got[ntHead(got, 64)+c.to.Size(1):][:c.to.Size(n)] // a head, a body and a tail
		for _, k := range tiers[1:] {
			if !streams(c, k) {
				continue
			}
			count.Store(0)
			clear(got)
			c.run(k, got, src, n)
			if !bytes.Equal(got, want) {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Fatalf("%s [%s streaming]: byte %d is %#02x, want %#02x", c.name, c.tier(k), i, got[i], want[i])
			}
			if count.Load() < int64(n)/2 {
				t.Errorf("%s [%s]: %d of %d elements streamed", c.name, c.tier(k), count.Load(), n)
			}
		}
	}
}

// TestStreamingWidenOtherTable runs the streaming AVX-512 widening kernel on
// a table it must refuse (see TestAVX512WidenOtherTable): the wrapper falls
// back to the generic loop for every part.
func TestStreamingWidenOtherTable(t *testing.T) {
	if !hasAVX512() || !cpu.X86.HasAVX512VBMI {
		t.Skip("no AVX-512 VBMI")
	}
	count := withStreamMin(t, 0)
	var table [256]uint32
	for i := range table {
		table[i] = uint32(i) * 0x01010101
	}
	src := make([]uint8, 1000)
	for i := range src {
		src[i] = uint8(i * 7)
	}
	got, want := make([]float32, len(src)+16), make([]float32, len(src))
	got = got[ntHead(got, 64)+1:][:len(src)]
	float8ToFloat32Generic(want, src, &table)
	avx512F8ToF32(got, src, &table)
	if !slices.Equal(view[uint32](byteSlice(got), len(got)), view[uint32](byteSlice(want), len(want))) {
		t.Fatal("differs from the generic kernel")
	}
	if count.Load() != 0 {
		t.Errorf("the streaming kernel converted %d elements with a refused table", count.Load())
	}
	for i := range table { // zero low halves: accepted, and streamed
		table[i] &^= 0xFFFF
	}
	float8ToFloat32Generic(want, src, &table)
	avx512F8ToF32(got, src, &table)
	if !slices.Equal(view[uint32](byteSlice(got), len(got)), view[uint32](byteSlice(want), len(want))) {
		t.Fatal("differs from the generic kernel on a custom table")
	}
	if count.Load() == 0 {
		t.Error("did not stream")
	}
}

// TestStreamingAllNarrowInputs converts every bit pattern of the 8- and
// 16-bit sources with the streaming kernels (as TestTiersAllNarrowInputs
// does with the ordinary ones).
func TestStreamingAllNarrowInputs(t *testing.T) {
	count := withStreamMin(t, 0)
	for _, c := range kernelCases() {
		bits := c.from.BitSize()
		if bits != 8 && bits != 16 {
			continue
		}
		n := 1<<bits + 3
		if bits == 8 {
			n = 64<<bits + 3 // each pattern at many positions
		}
		src := make([]byte, c.from.Size(n))
		for i := range n {
			putBits(src, c.from, i, uint64(i))
		}
		want := make([]byte, c.to.Size(n))
		c.run(tiers[0], want, src, n)
		got := make([]byte, c.to.Size(n)+64)
		got = got[ntHead(got, 64)+c.to.Size(1):][:c.to.Size(n)]
		for _, k := range tiers[1:] {
			if !streams(c, k) {
				continue
			}
			count.Store(0)
			clear(got)
			c.run(k, got, src, n)
			if !bytes.Equal(got, want) {
				i := 0
				for got[i] == want[i] {
					i++
				}
				t.Fatalf("%s [%s streaming]: byte %d is %#02x, want %#02x", c.name, c.tier(k), i, got[i], want[i])
			}
			if count.Load() < int64(n)/2 {
				t.Errorf("%s [%s]: %d of %d elements streamed", c.name, c.tier(k), count.Load(), n)
			}
		}
	}
}
