package arm64

import (
	"fmt"
	"os"
	"testing"
)

func TestDumpCases(t *testing.T) {
	f, _ := os.Create("/tmp/enc/cases.txt")
	defer f.Close()
	for _, w := range sampleWords() {
		fmt.Fprintf(f, "%08x\t%s\n", w.Bits, w.Text)
	}
}

func sampleWords() []Word {
	var ws []Word
	regs := [][3]V{{0, 1, 2}, {31, 17, 9}, {5, 30, 16}}
	arrs := []Arr{B8, B16, H4, H8, S2, S4, D2}
	for _, r := range regs {
		for _, a := range arrs {
			for _, f := range []func(Arr, V, V, V) Word{cmgt, cmge, cmhi, cmhs, sshl, ushl} {
				ws = append(ws, f(a, r[0], r[1], r[2]))
			}
			if a != D2 {
				ws = append(ws, smax(a, r[0], r[1], r[2]), smin(a, r[0], r[1], r[2]))
			}
			ws = append(ws, cmeq0(a, r[0], r[1]), neg(a, r[0], r[1]), abs(a, r[0], r[1]))
			ws = append(ws, sshr(a, r[0], r[1], 1), sshr(a, r[0], r[1], a.bits()), srshr(a, r[0], r[1], 3))
		}
		for _, f := range []func(V, V, V) Word{bic, orn, bsl, bit, bif} {
			ws = append(ws, f(r[0], r[1], r[2]))
		}
		ws = append(ws, not(r[0], r[1]))
		for _, a := range []Arr{S2, S4, D2} {
			for _, f := range []func(Arr, V, V, V) Word{fadd, fsub, fmul, fcmeq, fcmge, fcmgt} {
				ws = append(ws, f(a, r[0], r[1], r[2]))
			}
			for _, f := range []func(Arr, V, V) Word{fcvtzs, fcvtzu, scvtf, ucvtf} {
				ws = append(ws, f(a, r[0], r[1]))
			}
		}
		for _, a := range []Arr{B8, B16, H4, H8, S2, S4} {
			ws = append(ws, addhn(a, r[0], r[1], r[2]), subhn(a, r[0], r[1], r[2]))
			for _, f := range []func(Arr, V, V) Word{xtn, sqxtn, uqxtn, sqxtun, shll} {
				ws = append(ws, f(a, r[0], r[1]))
			}
			ws = append(ws, shrn(a, r[0], r[1], 1), shrn(a, r[0], r[1], a.bits()))
			ws = append(ws, sshll(a, r[0], r[1], 0), sshll(a, r[0], r[1], a.bits()-1))
		}
		for _, up := range []bool{false, true} {
			ws = append(ws, fcvtn(up, r[0], r[1]), fcvtl(up, r[0], r[1]), bfcvtn(up, r[0], r[1]))
		}
	}
	return ws
}
