package amd64

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Instructions Go's assembler does not know (all of AVX512_BF16). A kernel
// adds one as a placeholder instruction that names its register operands,
// so avo allocates registers and computes liveness as for any other; after
// allocation, expandRaw replaces it by its encoding as BYTE directives under
// a comment with the mnemonic. Each instruction form has one encoder, and
// raw_test.go checks them against encodings made by GNU as.

// rawForm is one instruction form Go's assembler lacks.
type rawForm struct {
	isa    string
	encode func(regs []int) []byte // register numbers in Go operand order
}

var rawForms = map[string]rawForm{
	// VCVTNE2PS2BF16 src2, src1, dst (Go order) converts two vectors of 16
	// float32 into one of 32 BFLOAT16: the low half from src2, the high half
	// from src1. EVEX.512.F2.0F38.W0 72 /r.
	"VCVTNE2PS2BF16": {"AVX512_BF16", func(r []int) []byte { return evexRR(0b11, 0x72, r[2], r[1], r[0]) }},
	// VCVTNEPS2BF16 src, dst converts 16 float32 (a ZMM) into 16 BFLOAT16 (a
	// YMM). EVEX.512.F3.0F38.W0 72 /r.
	"VCVTNEPS2BF16": {"AVX512_BF16", func(r []int) []byte { return evexRR(0b10, 0x72, r[1], 0, r[0]) }},
}

// evexRR encodes a 512-bit, W0, unmasked register-to-register instruction
// of opcode map 0F38 with SIMD prefix pp: reg (ModRM.reg) is the
// destination, vvvv the first source (0 when the form has none, which
// encodes as 1111), rm (ModRM.rm) the last source. Register numbers are
// 0..31: bit 3 goes to EVEX.R/B, bit 4 to EVEX.R'/X (for rm) and V' (for
// vvvv), all stored inverted.
func evexRR(pp byte, opcode byte, reg, vvvv, rm int) []byte {
	r, v, b := byte(reg), byte(vvvv), byte(rm)
	inv := func(x byte, bit uint) byte { return ^x >> bit & 1 }
	p0 := inv(r, 3)<<7 | inv(b, 4)<<6 | inv(b, 3)<<5 | inv(r, 4)<<4 | 0b10 // R X B R' 0 0 mm=0F38
	p1 := byte(0)<<7 | (^v&0xF)<<3 | 1<<2 | pp                             // W vvvv 1 pp
	p2 := byte(0b10)<<5 | inv(v, 4)<<3                                     // z L'L=512 b V' aaa=0
	modrm := 0b11<<6 | (r&7)<<3 | b&7
	return []byte{0x62, p0, p1, p2, opcode, modrm}
}

// raw adds a placeholder for the raw instruction op with its operands in Go
// order; the last one is the destination.
func (a *Asm) raw(op string, operands ...VecVirtual) {
	form, ok := rawForms[op]
	if !ok {
		panic("no raw form " + op)
	}
	ops := make([]Op, len(operands))
	for i, o := range operands {
		ops[i] = o
	}
	a.Instruction(&ir.Instruction{
		Opcode:   op,
		Operands: ops,
		Inputs:   ops[:len(ops)-1],
		Outputs:  ops[len(ops)-1:],
		ISA:      []string{form.isa},
	})
}

// VCVTNE2PS2BF16 emits VCVTNE2PS2BF16 src2, src1, dst (see rawForms).
func (a *Asm) VCVTNE2PS2BF16(src2, src1, dst VecVirtual) { a.raw("VCVTNE2PS2BF16", src2, src1, dst) }

// expandRaw replaces the placeholders of raw instructions by their
// encodings, once registers are allocated.
func expandRaw(fn *ir.Function) error {
	var nodes []ir.Node
	for _, n := range fn.Nodes {
		i, ok := n.(*ir.Instruction)
		form, raw := rawForms[opcodeOf(i, ok)]
		if !ok || !raw {
			nodes = append(nodes, n)
			continue
		}
		regs := make([]int, len(i.Operands))
		names := make([]string, len(i.Operands))
		for j, op := range i.Operands {
			p, isReg := op.(Physical)
			if !isReg || p.Kind() != KindVector {
				return fmt.Errorf("%s: %s operand %d is not a vector register", fn.Name, i.Opcode, j)
			}
			regs[j], names[j] = int(p.PhysicalIndex()), p.Asm()
		}
		nodes = append(nodes, ir.NewComment(i.Opcode+" "+strings.Join(names, ", ")))
		for _, b := range form.encode(regs) {
			nodes = append(nodes, &ir.Instruction{Opcode: "BYTE", Operands: []Op{U8(b)}})
		}
	}
	fn.Nodes = nodes
	return nil
}

func opcodeOf(i *ir.Instruction, ok bool) string {
	if !ok {
		return ""
	}
	return i.Opcode
}
