package tensorcast

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// Every tier's kernels against the generic kernels (which mirror the
// reference and are checked against it elsewhere), bit for bit: every length
// 0..300 on random and special inputs, every input pattern of the 4-, 8- and
// 16-bit sources, and a large sample of float32 inputs concentrated where
// the narrow types round.

// tierInputs returns n elements of from: for FLOAT, a mix of random bit
// patterns, values whose exponent falls in or near the ranges of the narrow
// types (with random, halfway and near-halfway significands), and specials;
// for the other types, randomTensor's mix.
func tierInputs(rng *rand.Rand, from DataType, n int) []byte {
	if from != Float {
		return randomTensor(rng, from, n)
	}
	b := make([]byte, 4*n)
	s := view[uint32](b, n)
	for i := range s {
		x := rng.Uint32()
		switch rng.IntN(8) {
		case 0, 1, 2: // exponent 2^-30 .. 2^20: FLOAT16, float8, FLOAT4 and E8M0 territory
			x = x&0x807FFFFF | uint32(97+rng.IntN(51))<<23
		case 3: // ties and neighbours of ties for every target precision
			e := uint32(97 + rng.IntN(51))
			drop := uint(13 + rng.IntN(11)) // bits dropped: 13 (FLOAT16) .. 23
			m := x & 0x7FFFFF &^ (1<<drop - 1)
			m |= 1 << (drop - 1)
			m += uint32(rng.IntN(3)) - 1
			x = x&0x80000000 | e<<23 | m&0x7FFFFF
		case 4: // float32 subnormals and tiny values
			x &= 0x80FFFFFF
		case 5:
			x = uint32(specialBits[rng.IntN(len(specialBits))])
		}
		s[i] = x
	}
	return b
}

func TestTiersMatchGeneric(t *testing.T) {
	if len(tiers) == 1 {
		t.Skip("only the generic tier on this machine")
	}
	const maxN = 300
	rng := rand.New(rand.NewPCG(3, 5))
	gen := tiers[0]
	for _, c := range kernelCases() {
		for _, k := range tiers[1:] {
			for n := 0; n <= maxN; n++ {
				src := tierInputs(rng, c.from, n)
				orig := bytes.Clone(src)
				dsz := c.to.Size(n)
				want := make([]byte, dsz+8)
				got := make([]byte, dsz+8)
				for i := range got {
					got[i], want[i] = 0xA5, 0xA5
				}
				c.run(gen, want, src, n)
				c.run(k, got, src, n)
				if !bytes.Equal(got[:dsz], want[:dsz]) {
					for i := range dsz {
						if got[i] != want[i] {
							t.Fatalf("%s [%s] n=%d: byte %d: got %#02x, want %#02x (src % x)", c.name, c.tier(k), n, i, got[i], want[i], src)
						}
					}
				}
				for i, b := range got[dsz:] {
					if b != 0xA5 {
						t.Fatalf("%s [%s] n=%d: wrote dst byte %d beyond the result", c.name, c.tier(k), n, dsz+i)
					}
				}
				if !bytes.Equal(src, orig) {
					t.Fatalf("%s [%s] n=%d: modified src", c.name, c.tier(k), n)
				}
			}
		}
	}
}

// TestTiersAllNarrowInputs converts every bit pattern of every source type
// narrower than 32 bits (at an odd length, so the tails run too).
func TestTiersAllNarrowInputs(t *testing.T) {
	if len(tiers) == 1 {
		t.Skip("only the generic tier on this machine")
	}
	for _, c := range kernelCases() {
		bits := c.from.BitSize()
		if bits > 16 {
			continue
		}
		n := 1<<bits + 3 // every pattern, and three more to leave a tail
		if bits <= 8 {
			n = 16<<bits + 3 // 4- and 8-bit sources: each pattern at many positions
		}
		src := make([]byte, c.from.Size(n))
		for i := range n {
			putBits(src, c.from, i, uint64(i))
		}
		checkKernelTiers(t, c, src, n)
	}
}

// putBits stores the low bits of v as element i of a tensor of type t
// (4-, 8- or 16-bit).
func putBits(b []byte, t DataType, i int, v uint64) {
	switch t.BitSize() {
	case 4:
		sh := 4 * uint(i%2)
		b[i/2] = b[i/2]&^(15<<sh) | byte(v&15)<<sh
	case 8:
		b[i] = byte(v)
	case 16:
		b[2*i], b[2*i+1] = byte(v), byte(v>>8)
	}
}

// TestTiersFloat32Sample compares the float32 sources on a few million
// inputs per kernel (the exhaustive 2^32 sweep is in sweep_test.go).
func TestTiersFloat32Sample(t *testing.T) {
	if len(tiers) == 1 {
		t.Skip("only the generic tier on this machine")
	}
	n := 1 << 22
	if testing.Short() {
		n = 1 << 17
	}
	rng := rand.New(rand.NewPCG(17, 19))
	src := tierInputs(rng, Float, n)
	for _, c := range kernelCases() {
		if c.from != Float {
			continue
		}
		checkKernelTiers(t, c, src, n)
	}
}

// checkKernelTiers runs kernel case c on n elements of src on the generic
// tier and on every other, and fails at the first byte where they differ.
func checkKernelTiers(t *testing.T, c kernelCase, src []byte, n int) {
	t.Helper()
	want := make([]byte, c.to.Size(n))
	got := make([]byte, c.to.Size(n))
	c.run(tiers[0], want, src, n)
	for _, k := range tiers[1:] {
		clear(got)
		c.run(k, got, src, n)
		if !bytes.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s [%s]: byte %d: got %#02x, want %#02x", c.name, c.tier(k), i, got[i], want[i])
				}
			}
		}
	}
}
