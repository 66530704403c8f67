package tensorcast

import (
	"math/rand/v2"
	"testing"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// Many kernels take a short path for a block of ordinary inputs and send a
// block with anything else (subnormals, NaN, ±Inf, values out of an
// integer's range; zero in some) to a complete path out of line (`divert`
// in gen/amd64): FLOAT → E8M0 and the integers, FLOAT16 ↔ BFLOAT16, the
// subnormal results of FLOAT16/BFLOAT16 → float8, among others.
// tierInputs puts a special into nearly every block, and the sweeps walk
// consecutive patterns, so a zero there always sits among subnormals: here
// every block is ordinary but for at most one or two specials (a zero, a
// subnormal, NaN, ±Inf, the largest and smallest normal) placed at every
// position, plus blocks with no special at all and blocks that are all zero.

// sparseSpecials returns n elements of from (FLOAT, FLOAT16 or BFLOAT16),
// in blocks of 64 of ordinary normal values; by the block's number mod 4
// it holds no special, one at a position that moves from block to block,
// two at random positions, or zeros (some, or all of it).
func sparseSpecials(rng *rand.Rand, from DataType, n int) []byte {
	var specials []uint64
	normal := func() uint64 { return 0 }
	switch from {
	case Float:
		specials = []uint64{0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF}
		normal = func() uint64 { // every exponent of E8M0's and the float8 types' ranges and beyond
			return uint64(rng.Uint32()&0x807FFFFF | uint32(1+rng.IntN(254))<<23)
		}
	case Float16:
		specials = []uint64{0, 0x8000, 1, 0x83FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFFFF}
		normal = func() uint64 { return uint64(rng.Uint32()&0x83FF | uint32(1+rng.IntN(30))<<10) }
	case BFloat16:
		specials = []uint64{0, 0x8000, 1, 0x807F, 0x0080, 0x7F7F, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFFF}
		normal = func() uint64 { return uint64(rng.Uint32()&0x807F | uint32(1+rng.IntN(254))<<7) }
	default:
		panic("sparseSpecials: " + from.String())
	}
	k := ref.Kind(from)
	b := make([]byte, from.Size(n))
	for i := range n {
		ref.Put(k, b, i, normal())
	}
	for blk := 0; blk*64 < n; blk++ {
		switch blk % 4 {
		case 0: // ordinary values only
		case 1: // one special at position blk/4 % 64
			i := blk*64 + blk/4%64
			if i < n {
				ref.Put(k, b, i, specials[blk/4%len(specials)])
			}
		case 2: // two, at random positions
			for range 2 {
				if i := blk*64 + rng.IntN(64); i < n {
					ref.Put(k, b, i, specials[rng.IntN(len(specials))])
				}
			}
		case 3: // zeros of both signs, or a whole block of zero
			for j := range 64 {
				if i := blk*64 + j; i < n && (blk%8 == 3 || rng.IntN(8) == 0) {
					ref.Put(k, b, i, specials[rng.IntN(2)])
				}
			}
		}
	}
	return b
}

func TestTiersSparseSpecials(t *testing.T) {
	if len(tiers) == 1 {
		t.Skip("only the generic tier on this machine")
	}
	// The blocks of one special each (every fourth) pair the 11 specials
	// with the 64 positions in a cycle of 704; -short covers each position.
	n := 4*704*64 + 37
	if testing.Short() {
		n = 4*64*64 + 37
	}
	rng := rand.New(rand.NewPCG(23, 29))
	for _, c := range kernelCases() {
		if c.from != Float && c.from != Float16 && c.from != BFloat16 {
			continue
		}
		checkKernelTiers(t, c, sparseSpecials(rng, c.from, n), n)
	}
}

// TestPlansSparseFloat is TestTiersSparseSpecials for the plans of FLOAT to
// every numeric type, in every mode, against the reference: the 8- and
// 16-bit sources have TestPlansIsolatedPatterns.
func TestPlansSparseFloat(t *testing.T) {
	n := 4*704*64 + 37
	if testing.Short() {
		n = 4*64*64 + 37
	}
	src := sparseSpecials(rand.New(rand.NewPCG(31, 37)), Float, n)
	for _, to := range numericTypeList() {
		for _, opt := range castModes(to) {
			want := make([]byte, to.Size(n))
			ref.Cast(want, ref.Kind(to), src, ref.Float, n, refOptions(opt))
			if to == Float {
				copy(want, src) // a same-type Cast copies the bits, NaN payloads too
			}
			checkAllTiers(t, want, src, Float, to, n, opt)
		}
	}
}
