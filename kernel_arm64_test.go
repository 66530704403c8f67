//go:build arm64 && gc && !purego && !noasm

package tensorcast

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// These tests compare every NEON kernel of every arm64 tier with the generic
// kernel bit for bit: all 2^16 / 2^8 inputs of the 16-bit and 8-bit
// sources, a spread sample of 2^24 float32 inputs (2^20 with -short, all
// 2^32 with -neon.full) plus
// every exponent's rounding boundaries, and every length 0..300 at several
// alignments with the bytes after the result checked untouched. Run them
// under qemu-aarch64-static with -cpu max (BF16) and -cpu cortex-a72 (no
// BF16) to cover both tiers.

var neonFull = flag.Bool("neon.full", false, "TestNEONAllInputs: every float32 bit pattern instead of a 2^24 sample")

// neonCase is one kernel with fixed parameters, on raw bytes.
type neonCase struct {
	name    string
	src     int // source element bits: 32, 16, 8 or 4 (packed)
	dst     int // destination element bits
	convert func(k *kernelSet, dst, src []byte, n int)
}

func bytesFor(bits, n int) int { return (n*bits + 7) / 8 }

func neonCases() []neonCase {
	cs := []neonCase{
		{"FLOAT->FLOAT16", 32, 16, func(k *kernelSet, d, s []byte, n int) {
			k.f32ToF16.fn(view[uint16](d, n), view[float32](s, n))
		}},
		{"FLOAT16->FLOAT", 16, 32, func(k *kernelSet, d, s []byte, n int) {
			k.f16ToF32.fn(view[float32](d, n), view[uint16](s, n))
		}},
		{"FLOAT->BFLOAT16", 32, 16, func(k *kernelSet, d, s []byte, n int) {
			k.f32ToBF16.fn(view[uint16](d, n), view[float32](s, n))
		}},
		{"BFLOAT16->FLOAT", 16, 32, func(k *kernelSet, d, s []byte, n int) {
			k.bf16ToF32.fn(view[float32](d, n), view[uint16](s, n))
		}},
		{"FLOAT->FLOAT4E2M1", 32, 4, func(k *kernelSet, d, s []byte, n int) {
			k.f32ToF4.fn(d[:bytesFor(4, n)], view[float32](s, n))
		}},
		{"FLOAT4E2M1->FLOAT", 4, 32, func(k *kernelSet, d, s []byte, n int) {
			k.f4ToF32.fn(view[float32](d, n), s[:bytesFor(4, n)])
		}},
		{"INT8->INT4", 8, 4, func(k *kernelSet, d, s []byte, n int) {
			k.i8ToI4.fn(d[:bytesFor(4, n)], s[:n])
		}},
		{"INT4->INT8", 4, 8, func(k *kernelSet, d, s []byte, n int) {
			k.i4ToI8.fn(d[:n], s[:bytesFor(4, n)])
		}},
		{"UINT4->UINT8", 4, 8, func(k *kernelSet, d, s []byte, n int) {
			k.u4ToU8.fn(d[:n], s[:bytesFor(4, n)])
		}},
		{"FLOAT->INT4", 32, 4, func(k *kernelSet, d, s []byte, n int) {
			k.f32ToI4.fn(d[:bytesFor(4, n)], view[float32](s, n))
		}},
	}
	f8names := []string{"E4M3FN", "E4M3FNUZ", "E5M2", "E5M2FNUZ"}
	for i, name := range f8names {
		for sat := range 2 {
			p := &float8Table[i][sat]
			suffix := fmt.Sprintf("FLOAT8%s sat=%d", name, sat)
			cs = append(cs,
				neonCase{"FLOAT->" + suffix, 32, 8, func(k *kernelSet, d, s []byte, n int) {
					k.f32ToF8.fn(d[:n], view[float32](s, n), p)
				}},
				neonCase{"FLOAT16->" + suffix, 16, 8, func(k *kernelSet, d, s []byte, n int) {
					k.f16ToF8.fn(d[:n], view[uint16](s, n), p)
				}},
				neonCase{"BFLOAT16->" + suffix, 16, 8, func(k *kernelSet, d, s []byte, n int) {
					k.bf16ToF8.fn(d[:n], view[uint16](s, n), p)
				}})
		}
	}
	for _, t := range []DataType{Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0} {
		table := widenTable(t)
		cs = append(cs, neonCase{t.String() + "->FLOAT", 8, 32, func(k *kernelSet, d, s []byte, n int) {
			k.f8ToF32.fn(view[float32](d, n), s[:n], table)
		}})
	}
	// A table the assembly does not know takes the generic path.
	var odd [256]uint32
	for i := range odd {
		odd[i] = uint32(i) * 0x01010101
	}
	cs = append(cs, neonCase{"unknown table->FLOAT", 8, 32, func(k *kernelSet, d, s []byte, n int) {
		k.f8ToF32.fn(view[float32](d, n), s[:n], &odd)
	}})
	for mode := range 3 {
		for sat := range 2 {
			p := &e8m0Table[mode][sat]
			cs = append(cs, neonCase{fmt.Sprintf("FLOAT->FLOAT8E8M0 mode=%d sat=%d", mode, sat), 32, 8,
				func(k *kernelSet, d, s []byte, n int) { k.f32ToE8M0.fn(d[:n], view[float32](s, n), p) }})
		}
	}
	return append(cs, packedNEONCases()...)
}

// packedNEONCases are the unpack and nibble-map kernels on source bytes
// (an "element" is one source byte and everything it unpacks to), with
// tables of pseudo-random bytes, so that every byte of every entry is
// distinct in general and a misplaced byte shows; map4Pack's values are
// below 16, as nibbleTables makes them.
func packedNEONCases() []neonCase {
	rng := rand.New(rand.NewPCG(3, 4))
	codes := new(codeTable)
	for i := range codes {
		codes[i] = byte(rng.Uint32())
	}
	var nib, nib4 [32]uint8
	for i := range nib {
		nib[i], nib4[i] = byte(rng.Uint32()), byte(rng.Uint32()&15)
	}
	var cs []neonCase
	for b, width := range []int{4, 2} {
		for w := range 4 {
			out := 8 / width << w // bytes per source byte
			cs = append(cs, neonCase{fmt.Sprintf("unpack %d-bit -> %d-bit", width, 8<<w), 8, 8 * out,
				func(k *kernelSet, d, s []byte, n int) { k.unpack[b][w].fn(d[:n*out], s[:n], codes) }})
		}
	}
	return append(cs,
		neonCase{"map4", 8, 8, func(k *kernelSet, d, s []byte, n int) { k.map4.fn(d[:n], s[:n], &nib) }},
		neonCase{"map4Pack", 8, 4, func(k *kernelSet, d, s []byte, n int) { k.map4Pack.fn(d[:bytesFor(4, n)], s[:n], &nib4) }})
}

// neonTiers returns the tiers other than generic.
func neonTiers(t *testing.T) []*kernelSet {
	var ks []*kernelSet
	for _, k := range tiers {
		if k.tier != "generic" {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		t.Fatal("no NEON tier registered")
	}
	return ks
}

func TestNEONTiers(t *testing.T) {
	var names []string
	for _, k := range tiers {
		names = append(names, k.tier)
	}
	want := []string{"generic", "neon"}
	if hasBF16() {
		want = append(want, "neon+bf16")
	}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("tiers = %v, want %v", names, want)
	}
	if active != tiers[len(tiers)-1] {
		t.Errorf("active tier is %q, want the best, %q", active.tier, tiers[len(tiers)-1].tier)
	}
	if KernelName() != "neon" {
		t.Errorf("KernelName() = %q, want neon", KernelName())
	}
	for _, k := range tiers[1:] {
		for _, info := range k.list() {
			bf16 := info.Conversion == "FLOAT -> BFLOAT16" || info.Conversion == "FLOAT16 -> BFLOAT16"
			// INT8 -> INT2 packing has no NEON kernel yet (portable Go).
			if info.Kernel != "neon" && !(bf16 && info.Kernel == k.tier) && !(info.Conversion == "INT8/UINT8 -> INT2/UINT2" && info.Kernel == "generic") {
				t.Errorf("tier %s: %s served by %q", k.tier, info.Conversion, info.Kernel)
			}
		}
	}
	t.Logf("tiers %v (BF16: %v)", names, hasBF16())
}

// specialFloat32 returns, for both signs and every exponent, the mantissas
// at the ends of the range and around every rounding boundary of the
// narrowing targets (13 dropped bits for FLOAT16, 16 for BFLOAT16, 20 and
// 21 for the float8 types, 22 for FLOAT4E2M1), plus small integers and
// halves for the INT4 truncation.
func specialFloat32() []uint32 {
	var xs []uint32
	mants := []uint32{0, 1, 2, 3, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x400001, 0x3FFFFF, 0x200000, 0x600000}
	for _, s := range []uint32{13, 16, 20, 21, 22} {
		half := uint32(1) << (s - 1)
		top := uint32(0x7FFFFF) >> s
		for _, hi := range []uint32{0, 1, 2, 3, top - 1, top} {
			for _, lo := range []uint32{half - 1, half, half + 1, 2*half - 1} {
				mants = append(mants, hi<<s|lo)
			}
		}
	}
	for sign := uint32(0); sign < 2; sign++ {
		for e := uint32(0); e < 256; e++ {
			for _, m := range mants {
				xs = append(xs, sign<<31|e<<23|m)
			}
		}
	}
	for i := -300; i <= 300; i++ {
		xs = append(xs, math.Float32bits(float32(i)/4))
	}
	return xs
}

// sampleFloat32 fills xs with inputs spread over all 2^32 bit patterns:
// element i of sample chunk c is pattern (c·len + i)·stride plus a
// pseudo-random offset below stride.
func sampleFloat32(xs []uint32, first int, stride uint64) {
	for i := range xs {
		j := uint64(first + i)
		xs[i] = uint32(j*stride + (j*0x9E3779B97F4A7C15>>32)%stride)
	}
}

// encode writes the low bits of xs as elements of the given width.
func encodeElems(bits int, xs []uint32) []byte {
	b := make([]byte, bytesFor(bits, len(xs)))
	for i, x := range xs {
		switch bits {
		case 32:
			binary.LittleEndian.PutUint32(b[4*i:], x)
		case 16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(x))
		case 8:
			b[i] = byte(x)
		case 4:
			b[i/2] |= byte(x&15) << (4 * (i & 1))
		}
	}
	return b
}

// compare runs c on src (n elements) with the generic kernel and with every
// NEON tier, and reports mismatching elements.
func compareNEON(t *testing.T, c neonCase, src []byte, n int) (mismatches int) {
	t.Helper()
	size := bytesFor(c.dst, n)
	want := make([]byte, size)
	c.convert(tiers[0], want, src, n)
	got := make([]byte, size)
	for _, k := range neonTiers(t) {
		clear(got)
		c.convert(k, got, src, n)
		if bytes.Equal(got, want) {
			continue
		}
		ew := max(c.dst/8, 1)
		for i := 0; i < size; i += ew {
			if !bytes.Equal(got[i:i+ew], want[i:i+ew]) {
				if mismatches < 10 {
					t.Errorf("%s tier %s: output byte %d: got %x, want %x (input element %d: % x)",
						c.name, k.tier, i, got[i:i+ew], want[i:i+ew], i*8/c.dst, elem(src, c.src, i*8/c.dst))
				}
				mismatches++
			}
		}
	}
	return mismatches
}

func elem(src []byte, bits, i int) []byte {
	if bits == 4 {
		return src[i/2 : i/2+1]
	}
	b := bits / 8
	if (i+1)*b > len(src) {
		return nil
	}
	return src[i*b : (i+1)*b]
}

// TestNEONAllInputs covers every input of the 4-, 8- and 16-bit sources
// and the float32 sample.
func TestNEONAllInputs(t *testing.T) {
	sample := 1 << 24
	switch {
	case *neonFull:
		sample = 1 << 32
	case testing.Short():
		sample = 1 << 20
	}
	const chunk = 1 << 16
	special := specialFloat32()
	for _, c := range neonCases() {
		t.Run(c.name, func(t *testing.T) {
			inputs, bad := 0, 0
			switch c.src {
			case 4, 8:
				// Every byte value at every position of a 32-byte block
				// (the largest unit of the kernels on byte sources): block
				// m of 256 bytes starts with value 256-m, so value v sits
				// at position (v-m) mod 32.
				xs := make([]uint32, 256*33)
				for i := range xs {
					xs[i] = uint32(i+i/256) % 256
				}
				n := len(xs)
				if c.src == 4 {
					n = 2 * len(xs)
				}
				bad += compareNEON(t, c, encodeElems(8, xs), n)
				inputs = 256 // bytes: for the 4-bit sources, every pair of nibbles
			case 16:
				xs := make([]uint32, 1<<16)
				for i := range xs {
					xs[i] = uint32(i)
				}
				bad += compareNEON(t, c, encodeElems(16, xs), len(xs))
				inputs = len(xs)
			case 32:
				bad += compareNEON(t, c, encodeElems(32, special), len(special))
				xs := make([]uint32, chunk)
				for first := 0; first < sample; first += chunk {
					sampleFloat32(xs, first, (1<<32)/uint64(sample))
					bad += compareNEON(t, c, encodeElems(32, xs), len(xs))
				}
				inputs = len(special) + sample
			}
			t.Logf("%d inputs, %d mismatches", inputs, bad)
		})
	}
}

// TestNEONLengths converts every length 0..300 at four source and
// destination alignments, with random and special inputs, and checks that
// the bytes after the result (including the unused half of a packed last
// byte's neighbour) are untouched and the source unchanged.
func TestNEONLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := specialFloat32()
	pick := func(bits int) uint32 {
		switch r := rng.Uint32(); {
		case bits == 32 && r%4 == 0:
			return special[rng.IntN(len(special))]
		case bits == 32 && r%4 == 1:
			return math.Float32bits(float32(rng.NormFloat64() * 100))
		default:
			return r
		}
	}
	const canary = 0xA5
	for _, c := range neonCases() {
		bad := 0
		for n := 0; n <= 300 && bad < 10; n++ {
			xs := make([]uint32, n)
			for i := range xs {
				xs[i] = pick(c.src)
			}
			enc := encodeElems(c.src, xs)
			for off := range 4 {
				src := make([]byte, off+len(enc)+16)
				copy(src[off:], enc)
				orig := bytes.Clone(src)
				size := bytesFor(c.dst, n)
				want := make([]byte, size)
				c.convert(tiers[0], want, src[off:], n)
				for _, k := range neonTiers(t) {
					dst := bytes.Repeat([]byte{canary}, off+size+32)
					c.convert(k, dst[off:off+size], src[off:], n)
					if !bytes.Equal(dst[off:off+size], want) {
						t.Errorf("%s tier %s n=%d offset %d: got % x, want % x", c.name, k.tier, n, off, dst[off:off+size], want)
						bad++
					}
					for i, b := range dst {
						if (i < off || i >= off+size) && b != canary {
							t.Errorf("%s tier %s n=%d offset %d: byte %d outside the result written", c.name, k.tier, n, off, i-off)
							bad++
							break
						}
					}
					if !bytes.Equal(src, orig) {
						t.Errorf("%s tier %s n=%d: source modified", c.name, k.tier, n)
						bad++
					}
				}
			}
		}
	}
}

// TestNEONAllocs checks that the wrappers allocate nothing.
func TestNEONAllocs(t *testing.T) {
	src := make([]byte, 4*1000)
	dst := make([]byte, 32*1000) // up to 32 bytes per element (2-bit codes to 64 bits)
	for _, c := range neonCases() {
		for _, k := range neonTiers(t) {
			if a := testing.AllocsPerRun(10, func() { c.convert(k, dst, src, 999) }); a != 0 {
				t.Errorf("%s tier %s: %v allocations per call", c.name, k.tier, a)
			}
		}
	}
}
