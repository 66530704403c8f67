package arm64

import "fmt"

// This file encodes the Advanced SIMD instructions that Go's arm64 assembler
// does not accept. Each instruction class of the Arm architecture manual
// gets one function that assembles its bit fields; each instruction is a
// thin function that fixes the class's opcode fields and returns the word
// with its disassembly, which the generator prints as
//
//	WORD $0x0e216800 // FCVTN V0.4H, V0.4S
//
// encoding_test.go checks every instruction against words produced by GNU
// as (aarch64-linux-gnu-as).

// V is a vector register, V0 to V31.
type V uint8

func (v V) String() string { return fmt.Sprintf("V%d", v) }

// Arr is a vector arrangement: the element size and whether the whole
// 128-bit register (Q) or its low 64 bits are used.
type Arr uint8

const (
	B8 Arr = iota
	B16
	H4
	H8
	S2
	S4
	D1
	D2
)

// size is the "size" field: log2 of the element size in bytes.
func (a Arr) size() uint32 { return uint32(a) >> 1 }

// q is the Q bit: 1 for the 128-bit arrangements.
func (a Arr) q() uint32 { return uint32(a) & 1 }

// bits is the element size in bits.
func (a Arr) bits() uint32 { return 8 << a.size() }

// goName is the arrangement as Go's assembler spells it (V1.S4).
func (a Arr) goName() string { return [...]string{"B8", "B16", "H4", "H8", "S2", "S4", "D1", "D2"}[a] }

// armName is the arrangement as the Arm manual spells it (V1.4S).
func (a Arr) armName() string { return [...]string{"8B", "16B", "4H", "8H", "2S", "4S", "1D", "2D"}[a] }

// arm formats a register with an arrangement in Arm syntax.
func arm(v V, a Arr) string { return fmt.Sprintf("V%d.%s", v, a.armName()) }

// Word is one encoded instruction and its Arm-syntax disassembly.
type Word struct {
	Bits uint32
	Text string
}

// The instruction classes, as the Arm Architecture Reference Manual (DDI
// 0487) names them under "Advanced SIMD". Every field is passed unshifted.

// threeSame: 0 Q U 01110 size 1 Rm opcode 1 Rn Rd.
func threeSame(q, u, size, opcode uint32, d, n, m V) uint32 {
	return q<<30 | u<<29 | 0b01110<<24 | size<<22 | 1<<21 | uint32(m)<<16 | opcode<<11 | 1<<10 | uint32(n)<<5 | uint32(d)
}

// threeDifferent: 0 Q U 01110 size 1 Rm opcode 00 Rn Rd.
func threeDifferent(q, u, size, opcode uint32, d, n, m V) uint32 {
	return q<<30 | u<<29 | 0b01110<<24 | size<<22 | 1<<21 | uint32(m)<<16 | opcode<<12 | uint32(n)<<5 | uint32(d)
}

// twoRegMisc: 0 Q U 01110 size 10000 opcode 10 Rn Rd.
func twoRegMisc(q, u, size, opcode uint32, d, n V) uint32 {
	return q<<30 | u<<29 | 0b01110<<24 | size<<22 | 0b10000<<17 | opcode<<12 | 0b10<<10 | uint32(n)<<5 | uint32(d)
}

// shiftImm: 0 Q U 011110 immh:immb opcode 1 Rn Rd (immh ≠ 0).
func shiftImm(q, u, immhb, opcode uint32, d, n V) uint32 {
	return q<<30 | u<<29 | 0b011110<<23 | immhb<<16 | opcode<<11 | 1<<10 | uint32(n)<<5 | uint32(d)
}

// Integer three-same instructions: Vd.T = op(Vn.T, Vm.T).

func intThreeSame(name string, u, opcode uint32) func(a Arr, d, n, m V) Word {
	return func(a Arr, d, n, m V) Word {
		return Word{threeSame(a.q(), u, a.size(), opcode, d, n, m),
			fmt.Sprintf("%s %s, %s, %s", name, arm(d, a), arm(n, a), arm(m, a))}
	}
}

var (
	cmgt = intThreeSame("CMGT", 0, 0b00110) // signed >
	cmge = intThreeSame("CMGE", 0, 0b00111) // signed ≥
	cmhi = intThreeSame("CMHI", 1, 0b00110) // unsigned >
	cmhs = intThreeSame("CMHS", 1, 0b00111) // unsigned ≥
	sshl = intThreeSame("SSHL", 0, 0b01000) // shift by signed register amount (negative: arithmetic right)
	ushl = intThreeSame("USHL", 1, 0b01000) // shift by signed register amount (negative: logical right)
	smax = intThreeSame("SMAX", 0, 0b01100)
	smin = intThreeSame("SMIN", 0, 0b01101)
)

// Bitwise three-same instructions: the size field selects the operation,
// the arrangement is 8B or 16B.

func logical(name string, u, size uint32) func(d, n, m V) Word {
	return func(d, n, m V) Word {
		return Word{threeSame(1, u, size, 0b00011, d, n, m),
			fmt.Sprintf("%s %s, %s, %s", name, arm(d, B16), arm(n, B16), arm(m, B16))}
	}
}

var (
	bic = logical("BIC", 0, 0b01) // Vn AND NOT Vm
	orn = logical("ORN", 0, 0b11) // Vn OR NOT Vm
	bsl = logical("BSL", 1, 0b01) // Vd ? Vn : Vm, bit by bit
	bit = logical("BIT", 1, 0b10) // insert Vn where Vm is set
	bif = logical("BIF", 1, 0b11) // insert Vn where Vm is clear
)

// Floating-point three-same instructions: size = op:sz, where sz is 0 for
// single and 1 for double precision.

func fpThreeSame(name string, u, op, opcode uint32) func(a Arr, d, n, m V) Word {
	return func(a Arr, d, n, m V) Word {
		sz := a.size() - 2 // S → 0, D → 1
		return Word{threeSame(a.q(), u, op<<1|sz, opcode, d, n, m),
			fmt.Sprintf("%s %s, %s, %s", name, arm(d, a), arm(n, a), arm(m, a))}
	}
}

var (
	fadd  = fpThreeSame("FADD", 0, 0, 0b11010)
	fsub  = fpThreeSame("FSUB", 0, 1, 0b11010)
	fmul  = fpThreeSame("FMUL", 1, 0, 0b11011)
	fcmeq = fpThreeSame("FCMEQ", 0, 0, 0b11100)
	fcmge = fpThreeSame("FCMGE", 1, 0, 0b11100)
	fcmgt = fpThreeSame("FCMGT", 1, 1, 0b11100)
)

// Narrowing three-different instructions: Vd.Tb = high half of (Vn.Ta op
// Vm.Ta); dst is the narrow arrangement (4H or 8H for the "2" form, which
// writes the upper half of Vd and keeps the lower).

func highNarrow(name string, u, opcode uint32) func(dst Arr, d, n, m V) Word {
	return func(dst Arr, d, n, m V) Word {
		return Word{threeDifferent(dst.q(), u, dst.size(), opcode, d, n, m),
			fmt.Sprintf("%s%s %s, %s, %s", name, two(dst), arm(d, dst), arm(n, widened(dst)), arm(m, widened(dst)))}
	}
}

var (
	addhn = highNarrow("ADDHN", 0, 0b0100)
	subhn = highNarrow("SUBHN", 0, 0b0110)
)

// two is the "2" suffix of instructions writing or reading the upper half.
func two(a Arr) string {
	if a.q() == 1 {
		return "2"
	}
	return ""
}

// Two-register miscellaneous instructions of one arrangement.

func intMisc(name string, u, opcode uint32) func(a Arr, d, n V) Word {
	return func(a Arr, d, n V) Word {
		return Word{twoRegMisc(a.q(), u, a.size(), opcode, d, n),
			fmt.Sprintf("%s %s, %s", name, arm(d, a), arm(n, a))}
	}
}

var (
	neg = intMisc("NEG", 1, 0b01011)
	abs = intMisc("ABS", 0, 0b01011)
)

// cmeq0 is CMEQ Vd.T, Vn.T, #0.
func cmeq0(a Arr, d, n V) Word {
	return Word{twoRegMisc(a.q(), 0, a.size(), 0b01001, d, n),
		fmt.Sprintf("CMEQ %s, %s, #0", arm(d, a), arm(n, a))}
}

// not is NOT Vd.16B, Vn.16B.
func not(d, n V) Word {
	return Word{twoRegMisc(1, 1, 0, 0b00101, d, n), fmt.Sprintf("NOT %s, %s", arm(d, B16), arm(n, B16))}
}

func fpMisc(name string, u, op, opcode uint32) func(a Arr, d, n V) Word {
	return func(a Arr, d, n V) Word {
		sz := a.size() - 2
		return Word{twoRegMisc(a.q(), u, op<<1|sz, opcode, d, n),
			fmt.Sprintf("%s %s, %s", name, arm(d, a), arm(n, a))}
	}
}

var (
	fcvtzs = fpMisc("FCVTZS", 0, 1, 0b11011) // toward zero, saturating; NaN → 0
	fcvtzu = fpMisc("FCVTZU", 1, 1, 0b11011)
	scvtf  = fpMisc("SCVTF", 0, 0, 0b11101)
	ucvtf  = fpMisc("UCVTF", 1, 0, 0b11101)
)

// Narrowing two-register miscellaneous instructions: narrow is the
// destination arrangement (its Q bit selects the "2" form, which writes the
// upper half of Vd); the source is the full register of twice the element
// size. The integer forms put the narrow element size in the size field.

func intNarrow(name string, u, opcode uint32) func(narrow Arr, d, n V) Word {
	return func(narrow Arr, d, n V) Word {
		return Word{twoRegMisc(narrow.q(), u, narrow.size(), opcode, d, n),
			fmt.Sprintf("%s%s %s, %s", name, two(narrow), arm(d, narrow), arm(n, widened(narrow)))}
	}
}

var (
	xtn    = intNarrow("XTN", 0, 0b10010)
	sqxtn  = intNarrow("SQXTN", 0, 0b10100)
	uqxtn  = intNarrow("UQXTN", 1, 0b10100)
	sqxtun = intNarrow("SQXTUN", 1, 0b10010)
)

// widened is the 128-bit arrangement of twice narrow's element size.
func widened(narrow Arr) Arr { return Arr(2*(narrow.size()+1) + 1) }

// fcvtn is FCVTN Vd.4H, Vn.4S (upper false) or FCVTN2 Vd.8H, Vn.4S: single
// to half precision (size = 0:sz with sz = 0).
func fcvtn(upper bool, d, n V) Word {
	a := half(upper)
	return Word{twoRegMisc(a.q(), 0, 0b00, 0b10110, d, n),
		fmt.Sprintf("FCVTN%s %s, %s", two(a), arm(d, a), arm(n, S4))}
}

// bfcvtn is BFCVTN Vd.4H, Vn.4S or BFCVTN2 Vd.8H, Vn.4S (FEAT_BF16): FCVTN's
// encoding with size = 10.
func bfcvtn(upper bool, d, n V) Word {
	a := half(upper)
	return Word{twoRegMisc(a.q(), 0, 0b10, 0b10110, d, n),
		fmt.Sprintf("BFCVTN%s %s, %s", two(a), arm(d, a), arm(n, S4))}
}

// fcvtl is FCVTL Vd.4S, Vn.4H (upper false) or FCVTL2 Vd.4S, Vn.8H.
func fcvtl(upper bool, d, n V) Word {
	a := half(upper)
	return Word{twoRegMisc(a.q(), 0, 0b00, 0b10111, d, n),
		fmt.Sprintf("FCVTL%s %s, %s", two(a), arm(d, S4), arm(n, a))}
}

// fcvtnD is FCVTN Vd.2S, Vn.2D (upper false) or FCVTN2 Vd.4S, Vn.2D:
// double to single precision (size = 0:sz with sz = 1).
func fcvtnD(upper bool, d, n V) Word {
	a := single(upper)
	return Word{twoRegMisc(a.q(), 0, 0b01, 0b10110, d, n),
		fmt.Sprintf("FCVTN%s %s, %s", two(a), arm(d, a), arm(n, D2))}
}

// fcvtlD is FCVTL Vd.2D, Vn.2S (upper false) or FCVTL2 Vd.2D, Vn.4S:
// single to double precision, exact.
func fcvtlD(upper bool, d, n V) Word {
	a := single(upper)
	return Word{twoRegMisc(a.q(), 0, 0b01, 0b10111, d, n),
		fmt.Sprintf("FCVTL%s %s, %s", two(a), arm(d, D2), arm(n, a))}
}

// fcvtxnD is FCVTXN Vd.2S, Vn.2D or FCVTXN2 Vd.4S, Vn.2D: double to single
// precision rounding to odd (FCVTN's encoding with U = 1).
func fcvtxnD(upper bool, d, n V) Word {
	a := single(upper)
	return Word{twoRegMisc(a.q(), 1, 0b01, 0b10110, d, n),
		fmt.Sprintf("FCVTXN%s %s, %s", two(a), arm(d, a), arm(n, D2))}
}

func single(upper bool) Arr {
	if upper {
		return S4
	}
	return S2
}

// shll is SHLL Vd.Ta, Vn.Tb, #esize (shift left long by the element size).
func shll(narrow Arr, d, n V) Word {
	wide := widened(narrow)
	return Word{twoRegMisc(narrow.q(), 1, narrow.size(), 0b10011, d, n),
		fmt.Sprintf("SHLL%s %s, %s, #%d", two(narrow), arm(d, wide), arm(n, narrow), narrow.bits())}
}

func half(upper bool) Arr {
	if upper {
		return H8
	}
	return H4
}

// Shifts by immediate. Right shifts encode immh:immb = 2·esize − shift,
// left shifts esize + shift; the position of immh's leading one gives the
// element size.

func rightShift(name string, u, opcode uint32) func(a Arr, d, n V, shift uint32) Word {
	return func(a Arr, d, n V, shift uint32) Word {
		if shift < 1 || shift > a.bits() {
			panic(fmt.Sprintf("%s: shift %d out of range for %s", name, shift, a.armName()))
		}
		return Word{shiftImm(a.q(), u, 2*a.bits()-shift, opcode, d, n),
			fmt.Sprintf("%s %s, %s, #%d", name, arm(d, a), arm(n, a), shift)}
	}
}

var (
	sshr  = rightShift("SSHR", 0, 0b00000)
	srshr = rightShift("SRSHR", 0, 0b00100)
)

// shrn is SHRN(2) Vd.Tb, Vn.Ta, #shift: shift each wide element right and
// keep its low half.
func shrn(narrow Arr, d, n V, shift uint32) Word {
	wide := widened(narrow)
	if shift < 1 || shift > narrow.bits() {
		panic(fmt.Sprintf("SHRN: shift %d out of range", shift))
	}
	return Word{shiftImm(narrow.q(), 0, 2*narrow.bits()-shift, 0b10000, d, n),
		fmt.Sprintf("SHRN%s %s, %s, #%d", two(narrow), arm(d, narrow), arm(n, wide), shift)}
}

// sshll is SSHLL(2) Vd.Ta, Vn.Tb, #shift; with shift 0 it is SXTL(2).
func sshll(narrow Arr, d, n V, shift uint32) Word {
	wide := widened(narrow)
	if shift >= narrow.bits() {
		panic(fmt.Sprintf("SSHLL: shift %d out of range", shift))
	}
	w := Word{Bits: shiftImm(narrow.q(), 0, narrow.bits()+shift, 0b10100, d, n)}
	if shift == 0 {
		w.Text = fmt.Sprintf("SXTL%s %s, %s", two(narrow), arm(d, wide), arm(n, narrow))
	} else {
		w.Text = fmt.Sprintf("SSHLL%s %s, %s, #%d", two(narrow), arm(d, wide), arm(n, narrow), shift)
	}
	return w
}
