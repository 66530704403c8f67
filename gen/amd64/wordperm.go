package amd64

import (
	"slices"

	. "github.com/mmcloughlin/avo/reg"
)

// Gathers of 16-bit lanes from two vectors. A kernel that has VBMI runs
// them as VPERMI2B/VPERMT2B on the byte pairs of the same index: Intel's
// cores issue VPERMI2W and VPERMT2W as three µops, two of them on port 5,
// and the byte forms as one (uops.info; llvm-mca 14's Ice Lake model puts
// f32ToF8AVX512W's loop at 17.1 cycles per 64 elements this way, 20.1 with
// the word forms). On Zen 4 both run alike: the pairs whose kernels changed
// (FLOAT, FLOAT16, DOUBLE and the integers → float8, FLOAT4E2M1 and E8M0)
// measured 0.97–1.02× of before, geometric mean 0.997, at 64 Ki (three
// matrix runs side by side).

// WordIndex is the index register of a two-vector 16-bit gather.
type WordIndex struct {
	reg   VecVirtual
	bytes bool // reg holds the byte index (VBMI)
}

// WordIndex loads the gather index w (entry i: the 16-bit lane of the
// result's lane i, 0-31 from the first table, 32-63 from the second) as a
// read-only data symbol. Call it after the kernel's Needs.
func (a *Asm) WordIndex(name string, w []uint16) WordIndex {
	if !slices.Contains(a.needs[a.name], "AVX512VBMI") {
		return WordIndex{reg: a.ConstWords(name, w)}
	}
	b := make([]byte, 2*len(w))
	for i, v := range w {
		b[2*i], b[2*i+1] = byte(2*v), byte(2*v+1)
	}
	return WordIndex{reg: a.ConstBytes(name+"_b", b), bytes: true}
}

// GatherT2 gathers the lanes of idx from t1 (overwritten with the result)
// and t2.
func (a *Asm) GatherT2(t2 VecVirtual, idx WordIndex, t1 VecVirtual) {
	if idx.bytes {
		a.VPERMT2B(t2, idx.reg, t1)
	} else {
		a.VPERMT2W(t2, idx.reg, t1)
	}
}

// Gather returns the lanes of idx from t1 and t2 in a new register; both
// tables are kept.
func (a *Asm) Gather(t1, t2 VecVirtual, idx WordIndex) VecVirtual {
	r := a.Vec()
	a.VMOVDQA64(idx.reg, r)
	if idx.bytes {
		a.VPERMI2B(t2, t1, r)
	} else {
		a.VPERMI2W(t2, t1, r)
	}
	return r
}
