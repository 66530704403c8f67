package amd64

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ISA is the instruction-set family a kernel is written for.
type ISA int

const (
	AVX2   ISA = iota // 256-bit VEX and 16 vector registers: AVX2 and F16C
	AVX512            // 512-bit EVEX, 32 vector registers and k masks: F, BW, VL, and BMI2 for tail masks
)

func (i ISA) String() string { return [...]string{"AVX2", "AVX512"}[i] }

// Asm wraps the avo build context with the helpers the kernels share. One Asm
// builds every function of the file; isa is the family of the function being
// built.
type Asm struct {
	*build.Context
	isa  ISA
	data map[string][]uint32 // data symbols already emitted, so kernels can share them by name

	labels int      // labels made by NewLabel in the current function
	later  []func() // out-of-line blocks, emitted after the function's RET

	name  string              // the current function
	funcs map[string]ISA      // the family of every function
	needs map[string][]string // extensions beyond the family's, by function

	lanes map[string]int // Loop.Lanes of every function (wrappers.go)

	nt    bool // building the streaming variant (WithNT)
	count int  // index of its result, the number of elements converted
}

// WithNT runs def, which defines one kernel (Func, then a loop built with
// Stream), twice: as written, then as its streaming variant. In the second
// run Func appends "NT" to the name and an int result (the number of elements
// converted) to the signature, and Stream emits the streaming loop (see
// Loop): the kernel's algorithm is written once for both.
func (a *Asm) WithNT(def func()) {
	def()
	a.nt = true
	defer func() { a.nt = false }()
	def()
}

// Needs declares that the current function uses these extensions beyond its
// family's (avo's names, e.g. "AVX512VBMI"); its Go wrapper must check them.
func (a *Asm) Needs(isa ...string) { a.needs[a.name] = append(a.needs[a.name], isa...) }

// NewLabel returns a label name unique in the current function.
func (a *Asm) NewLabel(prefix string) string {
	a.labels++
	return fmt.Sprintf("%s%d", prefix, a.labels)
}

// OutOfLine emits f after the function's RET (see Stream), for code off the
// hot path; f must end with a jump back.
func (a *Asm) OutOfLine(f func()) { a.later = append(a.later, f) }

// Lanes32 is the number of 32-bit lanes in one vector of the current ISA.
func (a *Asm) Lanes32() int {
	if a.isa == AVX512 {
		return 16
	}
	return 8
}

// Vec allocates a full-width vector register (ZMM or YMM).
func (a *Asm) Vec() VecVirtual {
	if a.isa == AVX512 {
		return a.ZMM()
	}
	return a.YMM()
}

// Half returns the register of half the width of v (YMM of a ZMM, XMM of a
// YMM), for results of narrowing instructions.
func Half(v VecVirtual) VecVirtual {
	switch v.Size() {
	case 64:
		return v.AsY().(VecVirtual)
	case 32:
		return v.AsX().(VecVirtual)
	}
	panic("no half of an XMM register")
}

// Func starts a NOSPLIT function with the given Go signature and a
// go:noescape stub.
func (a *Asm) Func(name string, isa ISA, sig string, doc ...string) {
	if a.nt {
		name += "NT"
		sig, a.count = withCount(sig)
		doc = append(doc, "It converts with non-temporal stores the longest prefix of whole blocks",
			"of elements that fill whole 64-byte lines of dst, and returns its length",
			"(a multiple of the block); dst must be 64-byte aligned.")
	}
	a.isa = isa
	a.labels = 0
	a.name = name
	a.funcs[name] = isa
	a.Function(name)
	a.Attributes(attr.NOSPLIT)
	a.SignatureExpr(sig)
	a.Pragma("noescape")
	a.Doc(doc...)
}

// withCount appends an int result to the Go signature sig (with no result
// or one unnamed result) and returns its index.
func withCount(sig string) (string, int) {
	if strings.HasSuffix(sig, ")") && strings.Count(sig, "(") == 1 {
		return sig + " int", 0
	}
	if i := strings.LastIndex(sig, ") "); i >= 0 && !strings.ContainsAny(sig[i+2:], "(), ") {
		return sig[:i+2] + "(" + sig[i+2:] + ", int)", 1
	}
	panic("cannot add a result to " + sig)
}

// Const32 returns a vector register holding v in every 32-bit lane.
func (a *Asm) Const32(v uint32) VecVirtual {
	g := a.GP32()
	a.MOVL(U32(v), g)
	return a.Broadcast32(g)
}

// Broadcast32 returns a vector register holding the general register g's
// low 32 bits in every 32-bit lane (AVX2 has no broadcast from a general
// register: through the low lane).
func (a *Asm) Broadcast32(g GPVirtual) VecVirtual {
	x := a.Vec()
	if a.isa == AVX512 {
		a.VPBROADCASTD(g, x)
	} else {
		a.VMOVD(g, x.AsX())
		a.VPBROADCASTD(x.AsX(), x)
	}
	return x
}

// Broadcast64 is Broadcast32 for a 64-bit g and 64-bit lanes.
func (a *Asm) Broadcast64(g GPVirtual) VecVirtual {
	x := a.Vec()
	if a.isa == AVX512 {
		a.VPBROADCASTQ(g, x)
	} else {
		a.VMOVQ(g, x.AsX())
		a.VPBROADCASTQ(x.AsX(), x)
	}
	return x
}

// signedPair calls f for the signed and the unsigned kernel of a pair of
// integer sources, named signedName and unsignedName.
func signedPair(signedName, unsignedName string, f func(name string, signed bool)) {
	f(signedName, true)
	f(unsignedName, false)
}

// Const16 returns a vector register holding v in every 16-bit lane.
func (a *Asm) Const16(v uint16) VecVirtual { return a.Const32(uint32(v) | uint32(v)<<16) }

// Const8 returns a vector register holding v in every byte.
func (a *Asm) Const8(v uint8) VecVirtual { return a.Const16(uint16(v) | uint16(v)<<8) }

// Splat32 returns a vector register holding the 32-bit value at m in every
// lane.
func (a *Asm) Splat32(m Mem) VecVirtual {
	x := a.Vec()
	a.VPBROADCASTD(m, x)
	return x
}

// ConstTable returns a vector register loaded with the given 32-bit words
// (one per lane), emitted as a read-only data symbol.
func (a *Asm) ConstTable(name string, words []uint32) VecVirtual {
	m := a.Data(name, words)
	x := a.Vec()
	if a.isa == AVX512 {
		a.VMOVDQU32(m, x)
	} else {
		a.VMOVDQU(m, x)
	}
	return x
}

// DataBytes is Data for byte tables.
func (a *Asm) DataBytes(name string, b []byte) Mem {
	if len(b)%4 != 0 {
		panic("byte table length must be a multiple of 4")
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return a.Data(name, w)
}

// Data emits (once) a read-only symbol holding words and returns its address.
func (a *Asm) Data(name string, words []uint32) Mem {

	if old, ok := a.data[name]; ok {
		if fmt.Sprint(old) != fmt.Sprint(words) {
			panic("data symbol " + name + " redefined with other contents")
		}
		return NewDataAddr(Symbol{Name: name, Static: true}, 0)
	}
	a.data[name] = words
	m := a.StaticGlobal(name)
	a.DataAttributes(attr.RODATA | attr.NOPTR)
	for i, w := range words {
		a.AddDatum(4*i, U32(w))
	}
	return m
}

// And, Or and Xor are the bitwise operations of the current family
// (VPAND/VPOR/VPXOR have no EVEX form; VPANDD/VPORD/VPXORD no VEX form).
func (a *Asm) And(x, y, dst Op) {
	if a.isa == AVX512 {
		a.VPANDD(x, y, dst)
	} else {
		a.VPAND(x, y, dst)
	}
}

// Or is the bitwise or; see And.
func (a *Asm) Or(x, y, dst Op) {
	if a.isa == AVX512 {
		a.VPORD(x, y, dst)
	} else {
		a.VPOR(x, y, dst)
	}
}

// Xor is the bitwise exclusive or; see And.
func (a *Asm) Xor(x, y, dst Op) {
	if a.isa == AVX512 {
		a.VPXORD(x, y, dst)
	} else {
		a.VPXOR(x, y, dst)
	}
}

// Tern returns the VPTERNLOGD immediate of the bitwise function f of the
// destination (A) and the two sources (B, C): VPTERNLOGD imm, C, B, A.
func Tern(f func(a, b, c uint8) uint8) U8 { return U8(f(0xF0, 0xCC, 0xAA)) }

// Splat returns an operand holding v in every 32-bit lane, for use as the
// second source of a vector instruction: on AVX-512 a register (emit it
// before the loop), on AVX2 a 32-byte read-only vector in memory, which
// spares the 16 registers.
func (a *Asm) Splat(v uint32) Op {
	if a.isa == AVX512 {
		return a.Const32(v)
	}
	return a.Data(fmt.Sprintf("splat32_%08x", v), []uint32{v, v, v, v, v, v, v, v})
}

// StoreLow stores the low size bytes of v to m (with a mask k of laneBits
// lanes in a tail).
func (a *Asm) StoreLow(v VecVirtual, size int, m Mem, laneBits int, k Register) {
	if k != nil {
		a.VStore(v, m, laneBits, k)
		return
	}
	switch size {
	case 4:
		a.VMOVD(v.AsX(), m)
	case 8:
		a.VMOVQ(v.AsX(), m)
	case 16:
		a.VStore(v.AsX().(VecVirtual), m, laneBits, nil)
	case 32:
		a.VStore(v.AsY().(VecVirtual), m, laneBits, nil)
	case 64:
		a.VStore(v, m, laneBits, nil)
	default:
		panic(fmt.Sprint("store of ", size, " bytes"))
	}
}

// AllOnes returns a vector register with every bit set.
func (a *Asm) AllOnes() VecVirtual {
	v := a.Vec()
	if a.isa == AVX512 {
		a.VPTERNLOGD(U8(0xFF), v, v, v)
	} else {
		a.VPCMPEQD(v, v, v)
	}
	return v
}

// ConstWords loads a vector register with 16-bit values (a read-only data
// symbol).
func (a *Asm) ConstWords(name string, w []uint16) VecVirtual {
	b := make([]byte, 2*len(w))
	for i, v := range w {
		b[2*i], b[2*i+1] = byte(v), byte(v>>8)
	}
	return a.ConstBytes(name, b)
}

// ConstBytes loads a vector register with bytes (a read-only data symbol).
func (a *Asm) ConstBytes(name string, b []byte) VecVirtual {
	x := a.Vec()
	a.VLoad(x, a.DataBytes(name, b), 8, nil)
	return x
}

// WordOf returns a vector holding, in every 16-bit lane, the low 16 bits of
// the 32-bit general register that set computes (from the kernel's
// parameters, before the loop).
func (a *Asm) WordOf(set func(r GPVirtual)) VecVirtual {
	r := a.GP32()
	set(r)
	v := a.Vec()
	if a.isa == AVX2 { // VPBROADCASTW from a general register is AVX-512
		a.VMOVD(r, v.AsX())
		a.VPBROADCASTW(v.AsX(), v)
		return v
	}
	a.VPBROADCASTW(r, v)
	return v
}

// paramByte broadcasts the byte at m (a parameter struct's field) to every
// byte of a vector.
func (a *Asm) paramByte(m Mem) VecVirtual {
	v := a.Vec()
	a.VPBROADCASTB(m, v)
	return v
}

// paramTable16 broadcasts the 16 bytes at m (a parameter struct's VPSHUFB
// table) to every 128-bit lane of a vector.
func (a *Asm) paramTable16(m Mem) VecVirtual {
	v := a.Vec()
	if a.isa == AVX512 {
		a.VBROADCASTI32X4(m, v)
	} else {
		a.VBROADCASTI128(m, v)
	}
	return v
}
