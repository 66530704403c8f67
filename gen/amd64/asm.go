package amd64

import (
	"fmt"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// ISA is the instruction-set family a kernel is written for.
type ISA int

const (
	AVX2   ISA = iota // 256-bit VEX, 16 vector registers, F16C, BMI2
	AVX512            // 512-bit EVEX, 32 vector registers, k masks (F, BW, VL, and BMI2)
)

func (i ISA) String() string { return [...]string{"AVX2", "AVX512"}[i] }

// Asm wraps the avo build context with the helpers the kernels share. One Asm
// builds every function of the file; isa is the family of the function being
// built.
type Asm struct {
	*build.Context
	isa  ISA
	data map[string][]uint32 // data symbols already emitted, so kernels can share them by name
}

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

// Quarter returns the register of a quarter of the width of v.
func Quarter(v VecVirtual) VecVirtual {
	if v.Size() != 64 {
		panic("quarter of a register narrower than ZMM")
	}
	return v.AsX().(VecVirtual)
}

// Func starts a NOSPLIT function with the given Go signature and a
// go:noescape stub.
func (a *Asm) Func(name string, isa ISA, sig string, doc ...string) {
	a.isa = isa
	a.Function(name)
	a.Attributes(attr.NOSPLIT)
	a.SignatureExpr(sig)
	a.Pragma("noescape")
	a.Doc(doc...)
}

// Const32 returns a vector register holding v in every 32-bit lane.
func (a *Asm) Const32(v uint32) VecVirtual {
	g := a.GP32()
	a.MOVL(U32(v), g)
	x := a.Vec()
	if a.isa == AVX512 {
		a.VPBROADCASTD(g, x)
	} else {
		a.VMOVD(g, x.AsX())
		a.VPBROADCASTD(x.AsX(), x)
	}
	return x
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

// ConstBytes is ConstTable for byte tables.
func (a *Asm) ConstBytes(name string, b []byte) VecVirtual {
	if len(b)%4 != 0 {
		panic("byte table length must be a multiple of 4")
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return a.ConstTable(name, w)
}

// Data emits (once) a read-only symbol holding words and returns its address.
func (a *Asm) Data(name string, words []uint32) Mem {
	name = name + "<>"
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
