package amd64

import (
	"fmt"
	"math/bits"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Every kernel is an element-wise map from src to dst. Loop describes its
// shape; Stream emits the loop structure around the kernel's step function,
// which converts the elements of one Step (the algorithm, written once per
// ISA family):
//
//	main:   while n ≥ Unroll·Lanes: one step of Unroll·Lanes elements
//	single: while n ≥ Lanes:        one step of Lanes elements
//	tail:   AVX-512 only, if n > 0: one step of Lanes elements with k masks
//	        on every load and store (Step.N holds how many are real)
//
// A kernel that converts a vector at a time wraps its function in Each; one
// that gains from seeing the whole unrolled block (to pack several vectors
// into one store) handles Step.Lanes itself.
//
// AVX2 kernels stop before the tail: their Go wrappers pass n rounded down to
// a multiple of Lanes and finish the remaining elements with the generic
// kernel, so no AVX2 instruction ever touches memory outside the slices.
//
// The streaming variant of a kernel (see WithNT) has only the main loop, with
// non-temporal stores (VMOVNTDQ) in place of the step's stores (Step.Store),
// and ends with SFENCE:
//
//	body:   while n ≥ Block: one step of Block elements
//
// where Block is Unroll·Lanes, or a multiple of it whose dst is a whole
// number of 64-byte lines. Its dst must be 64-byte aligned, so that every
// step writes whole, aligned cache lines; it returns the number of elements
// converted (n rounded down to a multiple of Block), and the Go wrapper
// converts the head (up to the first aligned line) and the rest with the
// ordinary kernel.
type Loop struct {
	SrcSize, DstSize int // bytes per element in src and dst (packed kernels count pairs as elements)
	Lanes            int // elements per vector step
	Unroll           int // vector steps per iteration of the main loop
}

// Step is a block of Lanes elements at Src and Dst. In the AVX-512 tail, N
// holds the number of elements left (0 < N < Lanes) and the kernel must use
// M's masks on every memory access.
type Step struct {
	a                *Asm
	Src, Dst         Mem
	Lanes            int
	srcSize, dstSize int
	N                GPVirtual // nil in full steps
	masks            map[[2]int]Register
	nt               bool // stores are non-temporal (the body of a streaming variant)
	// stored records the dst bytes a full step writes through Store and
	// StoreLow (offsets from the step's start; shared by its Parts), which
	// checkStored compares with the bytes the step converts.
	stored *[]storedRange
	base   int // the Disp of the step's dst before any Part
}

// storedRange is a store of size bytes at offset off from a step's dst.
type storedRange struct{ off, size int }

// Part returns the sub-step of lanes elements starting at element i of s
// (a full step: only the tail is masked, and it is never split).
func (s *Step) Part(i, lanes int) *Step {
	if s.N != nil && (i != 0 || lanes != s.Lanes) {
		panic("the tail step cannot be split")
	}
	t := *s
	t.Src = s.Src.Offset(i * s.srcSize)
	t.Dst = s.Dst.Offset(i * s.dstSize)
	t.Lanes = lanes
	return &t
}

// Each adapts a function converting one vector of lanes elements into a
// step function for Stream.
func Each(lanes int, f func(s *Step)) func(s *Step) {
	return func(s *Step) {
		for i := 0; i < s.Lanes; i += lanes {
			f(s.Part(i, lanes))
		}
	}
}

// Store writes v to m, a location in the step's dst; in the tail step k is
// the mask of the lanes to write (laneBits bits each), nil in full steps. In
// a streaming variant it is a non-temporal store of the whole register,
// which must start at a multiple of its size from the loop's dst pointer
// (64-byte aligned there), so the stores of a step fill whole lines.
func (s *Step) Store(v VecVirtual, m Mem, laneBits int, k Register) {
	s.record(m, int(v.Size()), k)
	if !s.nt {
		s.a.VStore(v, m, laneBits, k)
		return
	}
	if k != nil || m.Base != s.Dst.Base || m.Disp%int(v.Size()) != 0 {
		panic(fmt.Sprintf("%s: streaming store of %d bytes at offset %d", s.a.name, v.Size(), m.Disp))
	}
	s.a.VMOVNTDQ(v, m)
}

// StoreLow stores the low size bytes of v to m (see Asm.StoreLow and Store);
// a streaming variant has non-temporal stores of 16, 32 and 64 bytes only.
func (s *Step) StoreLow(v VecVirtual, size int, m Mem, laneBits int, k Register) {
	if !s.nt {
		s.record(m, size, k)
		s.a.StoreLow(v, size, m, laneBits, k)
		return
	}
	switch size {
	case 16:
		s.Store(v.AsX().(VecVirtual), m, laneBits, k)
	case 32:
		s.Store(v.AsY().(VecVirtual), m, laneBits, k)
	case 64:
		s.Store(v, m, laneBits, k)
	default:
		panic(fmt.Sprint("no streaming store of ", size, " bytes"))
	}
}

// record notes a store of size bytes at m in a full step (see stored).
func (s *Step) record(m Mem, size int, k Register) {
	if s.stored == nil || s.N != nil {
		return
	}
	if k != nil || m.Base != s.Dst.Base || m.Index != nil {
		panic(fmt.Sprintf("%s: a store of a full step that is not at a constant offset of dst, unmasked", s.a.name))
	}
	*s.stored = append(*s.stored, storedRange{m.Disp - s.base, size})
}

// checkStored panics unless the stores of a full step of lanes elements
// (each of dstSize bytes, from the step's start) cover exactly its dst
// bytes: a gap leaves output unwritten, a byte outside is a write past the
// step (the next step's, or beyond the slice). A step function that never
// stores through Step (none recorded) is not checked.
func checkStored(name string, stored []storedRange, lanes, dstSize int) {
	if len(stored) == 0 {
		return
	}
	want := lanes * dstSize
	covered := make([]bool, want)
	for _, r := range stored {
		if r.off < 0 || r.off+r.size > want {
			panic(fmt.Sprintf("%s: a step of %d elements stores bytes %d..%d of its %d", name, lanes, r.off, r.off+r.size-1, want))
		}
		for i := r.off; i < r.off+r.size; i++ {
			covered[i] = true
		}
	}
	for i, c := range covered {
		if !c {
			panic(fmt.Sprintf("%s: a step of %d elements leaves byte %d of its %d dst bytes unwritten", name, lanes, i, want))
		}
	}
}

// Tail reports whether this is the masked tail step.
func (s *Step) Tail() bool { return s.N != nil }

// M returns the k mask of the tail step covering perElem mask bits per
// element, shifted right by skip bits (to address the lanes of the skip/perElem-th
// element onwards), or nil in a full step. perElem must be a power of two.
func (s *Step) M(perElem, skip int) Register {
	if s.N == nil {
		return nil
	}
	key := [2]int{perElem, skip}
	if k, ok := s.masks[key]; ok {
		return k
	}
	a := s.a
	cnt := a.GP64()
	a.MOVQ(s.N, cnt)
	if perElem > 1 {
		a.SHLQ(U8(bits.TrailingZeros(uint(perElem))), cnt)
	}
	m := a.GP64()
	a.MOVQ(I32(-1), m)
	a.BZHIQ(cnt, m, m) // low n·perElem bits; BZHI keeps all 64 when the count is ≥ 64
	if skip > 0 {
		a.SHRQ(U8(skip), m)
	}
	k := a.K()
	a.KMOVQ(m, k)
	s.masks[key] = k
	return k
}

// Stream emits the loop structure of l around step and returns. dst, src and
// n are the pointer and element-count registers (consumed).
func (a *Asm) Stream(l Loop, dst, src, n GPVirtual, step func(s *Step)) {
	a.StreamNamed("", l, dst, src, n, step)
}

// StreamNamed is Stream with its labels prefixed by name, for functions
// that choose between several loops.
func (a *Asm) StreamNamed(name string, l Loop, dst, src, n GPVirtual, step func(s *Step)) {
	block := func(lanes int) *Step {
		return &Step{a: a, Src: Mem{Base: src}, Dst: Mem{Base: dst}, Lanes: lanes, srcSize: l.SrcSize, dstSize: l.DstSize}
	}
	if a.nt {
		a.streamNT(name, l, dst, src, n, block, step)
		return
	}
	if m, ok := a.lanes[a.name]; ok && m != l.Lanes {
		panic(fmt.Sprintf("%s: loops of %d and %d lanes", a.name, m, l.Lanes))
	}
	a.lanes[a.name] = l.Lanes
	loop := func(label, next string, lanes int) {
		a.Label(name + label)
		a.CMPQ(n, U32(lanes))
		a.JB(LabelRef(name + next))
		s := block(lanes)
		s.stored, s.base = new([]storedRange), s.Dst.Disp
		step(s)
		checkStored(a.name, *s.stored, lanes, l.DstSize)
		a.ADDQ(U32(lanes*l.SrcSize), src)
		a.ADDQ(U32(lanes*l.DstSize), dst)
		a.SUBQ(U32(lanes), n)
		a.JMP(LabelRef(name + label))
	}
	if l.Unroll > 1 {
		loop("main", "single", l.Unroll*l.Lanes)
	}
	loop("single", "tail", l.Lanes)
	a.Label(name + "tail")
	if a.isa == AVX512 {
		a.TESTQ(n, n)
		a.JZ(LabelRef(name + "done"))
		s := block(l.Lanes)
		s.N = n
		s.masks = map[[2]int]Register{}
		step(s)
	}
	a.Label(name + "done")
	a.VZEROUPPER()
	a.RET()
	a.flushLater()
}

// streamNT emits the loop of a streaming variant (see Loop) and returns the
// number of elements converted in the function's last result.
func (a *Asm) streamNT(name string, l Loop, dst, src, n GPVirtual, block func(lanes int) *Step, step func(s *Step)) {
	lanes := l.Unroll * l.Lanes
	reps := 1
	for lanes*reps*l.DstSize%64 != 0 {
		if reps++; reps > 64 {
			panic(fmt.Sprintf("%s: no whole number of lines in a block of %d elements", a.name, lanes))
		}
	}
	total := a.GP64()
	a.MOVQ(n, total)
	a.Label(name + "body")
	a.CMPQ(n, U32(lanes*reps))
	a.JB(LabelRef(name + "done"))
	for r := range reps {
		s := block(lanes)
		s.Src = s.Src.Offset(r * lanes * l.SrcSize)
		s.Dst = s.Dst.Offset(r * lanes * l.DstSize)
		s.nt = true
		s.stored, s.base = new([]storedRange), s.Dst.Disp
		step(s)
		checkStored(a.name, *s.stored, lanes, l.DstSize)
	}
	a.ADDQ(U32(lanes*reps*l.SrcSize), src)
	a.ADDQ(U32(lanes*reps*l.DstSize), dst)
	a.SUBQ(U32(lanes*reps), n)
	a.JMP(LabelRef(name + "body"))
	a.Label(name + "done")
	a.SFENCE()
	a.SUBQ(n, total)
	a.Store(total, a.ReturnIndex(a.count))
	a.VZEROUPPER()
	a.RET()
	a.flushLater()
}

// VLoad moves a vector from m to v; with a mask k (lanes of laneBits bits),
// only the selected lanes are read and the others are zeroed.
func (a *Asm) VLoad(v VecVirtual, m Mem, laneBits int, k Register) {
	if k == nil {
		if a.isa == AVX512 {
			a.VMOVDQU64(m, v)
		} else {
			a.VMOVDQU(m, v)
		}
		return
	}
	switch laneBits {
	case 8:
		a.VMOVDQU8_Z(m, k, v)
	case 16:
		a.VMOVDQU16_Z(m, k, v)
	case 32:
		a.VMOVDQU32_Z(m, k, v)
	case 64:
		a.VMOVDQU64_Z(m, k, v)
	default:
		panic(fmt.Sprint("lane width ", laneBits))
	}
}

// VStore moves v to m; with a mask k (lanes of laneBits bits), only the
// selected lanes are written.
func (a *Asm) VStore(v VecVirtual, m Mem, laneBits int, k Register) {
	if k == nil {
		if a.isa == AVX512 {
			a.VMOVDQU64(v, m)
		} else {
			a.VMOVDQU(v, m)
		}
		return
	}
	switch laneBits {
	case 8:
		a.VMOVDQU8(v, k, m)
	case 16:
		a.VMOVDQU16(v, k, m)
	case 32:
		a.VMOVDQU32(v, k, m)
	case 64:
		a.VMOVDQU64(v, k, m)
	default:
		panic(fmt.Sprint("lane width ", laneBits))
	}
}

// Args loads the (dst, src, n) arguments shared by every kernel signature.
func (a *Asm) Args() (dst, src, n GPVirtual) {
	dst, src, n = a.GP64(), a.GP64(), a.GP64()
	a.Context.Load(a.Param("dst"), dst)
	a.Context.Load(a.Param("src"), src)
	a.Context.Load(a.Param("n"), n)
	return
}

// flushLater emits the out-of-line blocks after the function's RET,
// including those that out-of-line blocks add themselves (a divert inside
// another's slow path).
func (a *Asm) flushLater() {
	for len(a.later) > 0 {
		fs := a.later
		a.later = nil
		for _, f := range fs {
			f()
		}
	}
}
