package arm64

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"
)

// The emitter. A kernel is written as operations on Vecs: a Vec is a list
// of vector registers, and every operation applies lane-wise to all of them,
// one instruction per register, so an algorithm written once runs on as many
// vectors as a loop iteration holds and its independent instructions come
// out interleaved. A Vec of length one used as a source is broadcast (the
// constants).
//
// Methods are named after the Arm instructions and take their operands in
// Arm order (destination first); the emitter prints Go's reversed syntax for
// the instructions Go's assembler knows and a WORD (encode.go) for the
// others.

// Vec is a list of vector registers.
type Vec []V

// Even returns the registers at even positions (0, 2, 4, ...).
func (v Vec) Even() Vec { return v.stride(0) }

// Odd returns the registers at odd positions.
func (v Vec) Odd() Vec { return v.stride(1) }

func (v Vec) stride(start int) Vec {
	var r Vec
	for i := start; i < len(v); i += 2 {
		r = append(r, v[i])
	}
	return r
}

// Func is one assembly function being written.
type Func struct {
	Name string
	Args string // the Go parameter list, e.g. "dst *uint16, src *float32, n int"
	Doc  string // the stub's doc comment

	argSize int
	unit    int // elements per step of Stream: n is a multiple of it
	buf     bytes.Buffer
	used    uint32 // allocated vector registers
	labels  map[string]bool
}

func newFunc(name, args, doc string) *Func {
	f := &Func{Name: name, Args: args, Doc: doc, labels: map[string]bool{}}
	f.argSize = 8 * len(strings.Split(args, ","))
	return f
}

// emit writes one instruction line.
func (f *Func) emit(op string, operands ...string) {
	if len(operands) == 0 {
		fmt.Fprintf(&f.buf, "\t%s\n", op)
		return
	}
	fmt.Fprintf(&f.buf, "\t%s\t%s\n", op, strings.Join(operands, ", "))
}

// comment writes a comment line.
func (f *Func) comment(format string, args ...any) {
	fmt.Fprintf(&f.buf, "\n\t// %s\n", fmt.Sprintf(format, args...))
}

func (f *Func) word(w Word) { fmt.Fprintf(&f.buf, "\tWORD\t$0x%08x\t// %s\n", w.Bits, w.Text) }

func (f *Func) label(name string) {
	if f.labels[name] {
		panic(f.Name + ": duplicate label " + name)
	}
	f.labels[name] = true
	fmt.Fprintf(&f.buf, "%s:\n", name)
}

// Registers.

// Alloc returns n free registers, consecutive where possible (VLD1 and
// VST1 move up to four consecutive registers in one instruction).
func (f *Func) Alloc(n int) Vec {
	for start := 0; start+n <= 32; start++ {
		mask := uint32(1<<n-1) << start
		if n == 32 {
			mask = ^uint32(0)
		}
		if f.used&mask == 0 {
			f.used |= mask
			v := make(Vec, n)
			for i := range v {
				v[i] = V(start + i)
			}
			return v
		}
	}
	if bits.OnesCount32(^f.used) < n {
		panic(fmt.Sprintf("%s: out of vector registers (need %d, %d free)", f.Name, n, bits.OnesCount32(^f.used)))
	}
	v := make(Vec, 0, n)
	for r := 0; len(v) < n; r++ {
		if f.used&(1<<r) == 0 {
			f.used |= 1 << r
			v = append(v, V(r))
		}
	}
	return v
}

// Free returns registers to the pool.
func (f *Func) Free(vs ...Vec) {
	for _, v := range vs {
		for _, r := range v {
			if f.used&(1<<r) == 0 {
				panic(fmt.Sprintf("%s: V%d freed twice", f.Name, r))
			}
			f.used &^= 1 << r
		}
	}
}

// Constants live in registers for the whole function.

// Dup32 returns a register holding x in every 32-bit lane.
func (f *Func) Dup32(x uint32) Vec { return f.dup(fmt.Sprintf("$0x%x", x), S4) }

// Dup16 returns a register holding x in every 16-bit lane.
func (f *Func) Dup16(x uint16) Vec { return f.dup(fmt.Sprintf("$0x%x", x), H8) }

// Dup8 returns a register holding x in every byte.
func (f *Func) Dup8(x uint8) Vec { return f.dup(fmt.Sprintf("$0x%x", x), B16) }

// DupReg returns a register holding the low 32 bits of general register r
// in every 32-bit lane.
func (f *Func) DupReg(r string, a Arr) Vec {
	v := f.Alloc(1)
	f.emit("VDUP", r, v1(v[0], a))
	return v
}

func (f *Func) dup(imm string, a Arr) Vec {
	v := f.Alloc(1)
	f.emit("MOVW", imm, "R9")
	f.emit("VDUP", "R9", v1(v[0], a))
	return v
}

// Zero returns a register of zeros.
func (f *Func) Zero() Vec {
	v := f.Alloc(1)
	f.emit("VEOR", v1(v[0], B16), v1(v[0], B16), v1(v[0], B16))
	return v
}

// Quad returns a register holding the 16 bytes b.
func (f *Func) Quad(b [16]byte) Vec {
	var lo, hi uint64
	for i := 7; i >= 0; i-- {
		lo = lo<<8 | uint64(b[i])
		hi = hi<<8 | uint64(b[i+8])
	}
	v := f.Alloc(1)
	f.emit("VMOVQ", fmt.Sprintf("$0x%016x", lo), fmt.Sprintf("$0x%016x", hi), v[0].String()) // low, high
	return v
}

// v1 formats a register in Go syntax.
func v1(r V, a Arr) string { return fmt.Sprintf("V%d.%s", r, a.goName()) }

// at is v[i], or v[0] for a broadcast Vec.
func at(v Vec, i int) V {
	if len(v) == 1 {
		return v[0]
	}
	return v[i]
}

func (f *Func) check(d Vec, srcs ...Vec) {
	for _, s := range srcs {
		if len(s) != 1 && len(s) != len(d) {
			panic(fmt.Sprintf("%s: operand lengths %d and %d", f.Name, len(d), len(s)))
		}
	}
}

// Lane-wise operations in Go's syntax.

// goOp3 prints "OP Vm, Vn, Vd" for each lane of d.
func (f *Func) goOp3(op string, a Arr, d, n, m Vec) {
	f.check(d, n, m)
	for i := range d {
		f.emit(op, v1(at(m, i), a), v1(at(n, i), a), v1(d[i], a))
	}
}

// goShift prints "OP $s, Vn, Vd" for each lane of d.
func (f *Func) goShift(op string, a Arr, d, n Vec, s uint32) {
	f.check(d, n)
	for i := range d {
		f.emit(op, fmt.Sprintf("$%d", s), v1(at(n, i), a), v1(d[i], a))
	}
}

func (f *Func) words3(enc func(Arr, V, V, V) Word, a Arr, d, n, m Vec) {
	f.check(d, n, m)
	for i := range d {
		f.word(enc(a, d[i], at(n, i), at(m, i)))
	}
}

func (f *Func) words2(enc func(Arr, V, V) Word, a Arr, d, n Vec) {
	f.check(d, n)
	for i := range d {
		f.word(enc(a, d[i], at(n, i)))
	}
}

// Bitwise operations on all 128 bits.

func (f *Func) And(d, n, m Vec) { f.goOp3("VAND", B16, d, n, m) }
func (f *Func) Orr(d, n, m Vec) { f.goOp3("VORR", B16, d, n, m) }
func (f *Func) Eor(d, n, m Vec) { f.goOp3("VEOR", B16, d, n, m) }

// Bit inserts n's bits into d where m is set; Bif where m is clear; Bsl
// selects n where d is set and m elsewhere.
func (f *Func) Bit(d, n, m Vec) { f.goOp3("VBIT", B16, d, n, m) }
func (f *Func) Bif(d, n, m Vec) { f.goOp3("VBIF", B16, d, n, m) }
func (f *Func) Bsl(d, n, m Vec) { f.goOp3("VBSL", B16, d, n, m) }

// Bic is n AND NOT m.
func (f *Func) Bic(d, n, m Vec) {
	f.check(d, n, m)
	for i := range d {
		f.word(bic(d[i], at(n, i), at(m, i)))
	}
}

// Integer arithmetic and comparisons (all-ones lanes where true).

func (f *Func) Add(a Arr, d, n, m Vec)   { f.goOp3("VADD", a, d, n, m) }
func (f *Func) Sub(a Arr, d, n, m Vec)   { f.goOp3("VSUB", a, d, n, m) }
func (f *Func) Umin(a Arr, d, n, m Vec)  { f.goOp3("VUMIN", a, d, n, m) }
func (f *Func) Cmeq(a Arr, d, n, m Vec)  { f.goOp3("VCMEQ", a, d, n, m) }
func (f *Func) Cmtst(a Arr, d, n, m Vec) { f.goOp3("VCMTST", a, d, n, m) }
func (f *Func) Smin(a Arr, d, n, m Vec)  { f.words3(smin, a, d, n, m) }
func (f *Func) Smax(a Arr, d, n, m Vec)  { f.words3(smax, a, d, n, m) }
func (f *Func) Cmgt(a Arr, d, n, m Vec)  { f.words3(cmgt, a, d, n, m) }
func (f *Func) Cmhi(a Arr, d, n, m Vec)  { f.words3(cmhi, a, d, n, m) }

// Ushl shifts each lane of n by the signed amount in m's lane (right when
// negative).
func (f *Func) Ushl(a Arr, d, n, m Vec) { f.words3(ushl, a, d, n, m) }

// Shifts by immediate.

func (f *Func) Ushr(a Arr, d, n Vec, s uint32) { f.goShift("VUSHR", a, d, n, s) }
func (f *Func) Shl(a Arr, d, n Vec, s uint32)  { f.goShift("VSHL", a, d, n, s) }

// Sli shifts n left by s and inserts it into d, keeping d's low s bits.
func (f *Func) Sli(a Arr, d, n Vec, s uint32) { f.goShift("VSLI", a, d, n, s) }

func (f *Func) Sshr(a Arr, d, n Vec, s uint32) {
	f.check(d, n)
	for i := range d {
		f.word(sshr(a, d[i], at(n, i), s))
	}
}

// Permutations.

func (f *Func) Uzp1(a Arr, d, n, m Vec) { f.goOp3("VUZP1", a, d, n, m) }
func (f *Func) Uzp2(a Arr, d, n, m Vec) { f.goOp3("VUZP2", a, d, n, m) }
func (f *Func) Zip1(a Arr, d, n, m Vec) { f.goOp3("VZIP1", a, d, n, m) }
func (f *Func) Zip2(a Arr, d, n, m Vec) { f.goOp3("VZIP2", a, d, n, m) }

// Tbl looks up each byte of idx in the table of len(table) consecutive
// registers (0 for indices beyond it); Tbx leaves those bytes of d unchanged.
func (f *Func) Tbl(d, table, idx Vec) { f.tbl("VTBL", d, table, idx) }
func (f *Func) Tbx(d, table, idx Vec) { f.tbl("VTBX", d, table, idx) }

func (f *Func) tbl(op string, d, table, idx Vec) {
	f.check(d, idx)
	var regs []string
	for i, r := range table {
		if i > 0 && r != table[i-1]+1 {
			panic(f.Name + ": table registers not consecutive")
		}
		regs = append(regs, v1(r, B16))
	}
	list := "[" + strings.Join(regs, ", ") + "]"
	for i := range d {
		f.emit(op, v1(at(idx, i), B16), list, v1(d[i], B16))
	}
}

// Floating point (single precision lanes; the FPCR of a Go program rounds
// to nearest even and keeps subnormals and NaN payloads).

func (f *Func) Fadd(d, n, m Vec)  { f.words3(fadd, S4, d, n, m) }
func (f *Func) Fsub(d, n, m Vec)  { f.words3(fsub, S4, d, n, m) }
func (f *Func) Fmul(d, n, m Vec)  { f.words3(fmul, S4, d, n, m) }
func (f *Func) Fcmeq(d, n, m Vec) { f.words3(fcmeq, S4, d, n, m) }
func (f *Func) Fcvtzs(d, n Vec)   { f.words2(fcvtzs, S4, d, n) }

// narrowPair narrows the vectors x to half as many with enc (fcvtn: to
// FLOAT16; bfcvtn: to BFLOAT16, FEAT_BF16; fcvtnD, fcvtxnD: float64 to
// float32), the even registers into the low halves and the odd ones into
// the high halves (the lanes' memory order), freeing x.
func (f *Func) narrowPair(enc func(bool, V, V) Word, x Vec) Vec {
	out := f.Alloc(len(x) / 2)
	f.narrowWide(enc, false, out, x.Even())
	f.narrowWide(enc, true, out, x.Odd())
	f.Free(x)
	return out
}

// widenPair widens the vectors x to twice as many with enc (fcvtl: FLOAT16
// to float32; fcvtlD: float32 to float64), the low halves into the even
// registers and the high halves into the odd ones, freeing x.
func (f *Func) widenPair(enc func(bool, V, V) Word, x Vec) Vec {
	out := f.Alloc(2 * len(x))
	f.narrowWide(enc, false, out.Even(), x)
	f.narrowWide(enc, true, out.Odd(), x)
	f.Free(x)
	return out
}

func (f *Func) narrowWide(enc func(bool, V, V) Word, upper bool, d, n Vec) {
	f.check(d, n)
	for i := range d {
		f.word(enc(upper, d[i], at(n, i)))
	}
}

// Addhn adds the 32-bit lanes of n and m and keeps the high 16 bits of each
// sum, in the low (upper false) or high half of d.
func (f *Func) Addhn(upper bool, d, n, m Vec) {
	f.check(d, n, m)
	for i := range d {
		f.word(addhn(half(upper), d[i], at(n, i), at(m, i)))
	}
}

// Memory. Loads read from R1 (src) and stores write to R0 (dst), each
// advancing its pointer; runs of consecutive registers share one VLD1/VST1
// of up to four registers.

// Load returns n vectors read from src.
func (f *Func) Load(n int) Vec {
	v := f.Alloc(n)
	f.LoadFrom("R1", v)
	return v
}

// LoadFrom fills v from the address in register ptr, advancing it.
func (f *Func) LoadFrom(ptr string, v Vec) {
	for _, run := range runs(v) {
		f.emit("VLD1.P", fmt.Sprintf("%d(%s)", 16*len(run), ptr), regList(run))
	}
}

// Store writes v to dst.
func (f *Func) Store(v Vec) {
	for _, run := range runs(v) {
		f.emit("VST1.P", regList(run), fmt.Sprintf("%d(R0)", 16*len(run)))
	}
}

// runs splits v into runs of at most four consecutive registers.
func runs(v Vec) []Vec {
	var out []Vec
	for len(v) > 0 {
		n := 1
		for n < len(v) && n < 4 && v[n] == v[n-1]+1 {
			n++
		}
		out = append(out, v[:n])
		v = v[n:]
	}
	return out
}

func regList(v Vec) string {
	var s []string
	for _, r := range v {
		s = append(s, v1(r, B16))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Stream is the loop every kernel shares: R2 counts the elements left (the
// Go caller passes a multiple of unit, so it reaches exactly zero), and
// body(k) converts k units,
// loading from R1 and storing to R0. The main loop converts unroll units at
// a time and a second loop the remaining units one by one; the Go wrapper
// converts the elements after the last whole unit.
func (f *Func) Stream(unit, unroll int, body func(k int)) {
	f.unit = unit
	used := f.used
	check := func() {
		if f.used != used {
			panic(fmt.Sprintf("%s: body leaks registers %032b", f.Name, f.used&^used))
		}
	}
	if unroll > 1 {
		big := unit * unroll
		f.emit("CMP", fmt.Sprintf("$%d", big), "R2")
		f.emit("BLT", "tail")
		f.label("loop")
		body(unroll)
		check()
		f.emit("SUB", fmt.Sprintf("$%d", big), "R2", "R2")
		f.emit("CMP", fmt.Sprintf("$%d", big), "R2")
		f.emit("BGE", "loop")
	}
	f.label("tail")
	f.emit("CBZ", "R2", "done")
	f.label("one")
	body(1)
	check()
	f.emit("SUBS", fmt.Sprintf("$%d", unit), "R2", "R2")
	f.emit("BNE", "one")
	f.label("done")
	f.emit("RET")
}
