package amd64

import (
	"bytes"
	"testing"
)

// TestRawEncodings checks the encoders of the instructions emitted as BYTE
// sequences against GNU as (binutils 2.x): each line is
// `echo 'MNEMONIC OPERANDS' | as -o x.o && objdump -d x.o`, with the AT&T
// operand order, which is Go's.
func TestRawEncodings(t *testing.T) {
	for _, c := range []struct {
		asm  string // as given to GNU as
		op   string
		regs []int // Go operand order
		want []byte
	}{
		{"vcvtne2ps2bf16 %zmm1,%zmm2,%zmm0", "VCVTNE2PS2BF16", []int{1, 2, 0}, []byte{0x62, 0xf2, 0x6f, 0x48, 0x72, 0xc1}},
		{"vcvtne2ps2bf16 %zmm4,%zmm5,%zmm3", "VCVTNE2PS2BF16", []int{4, 5, 3}, []byte{0x62, 0xf2, 0x57, 0x48, 0x72, 0xdc}},
		{"vcvtne2ps2bf16 %zmm17,%zmm25,%zmm9", "VCVTNE2PS2BF16", []int{17, 25, 9}, []byte{0x62, 0x32, 0x37, 0x40, 0x72, 0xc9}},
		{"vcvtne2ps2bf16 %zmm0,%zmm0,%zmm0", "VCVTNE2PS2BF16", []int{0, 0, 0}, []byte{0x62, 0xf2, 0x7f, 0x48, 0x72, 0xc0}},
		{"vcvtne2ps2bf16 %zmm31,%zmm31,%zmm31", "VCVTNE2PS2BF16", []int{31, 31, 31}, []byte{0x62, 0x02, 0x07, 0x40, 0x72, 0xff}},
		{"vcvtne2ps2bf16 %zmm7,%zmm8,%zmm15", "VCVTNE2PS2BF16", []int{7, 8, 15}, []byte{0x62, 0x72, 0x3f, 0x48, 0x72, 0xff}},
		{"vcvtne2ps2bf16 %zmm16,%zmm15,%zmm8", "VCVTNE2PS2BF16", []int{16, 15, 8}, []byte{0x62, 0x32, 0x07, 0x48, 0x72, 0xc0}},
		{"vcvtne2ps2bf16 %zmm24,%zmm3,%zmm19", "VCVTNE2PS2BF16", []int{24, 3, 19}, []byte{0x62, 0x82, 0x67, 0x48, 0x72, 0xd8}},
		{"vcvtne2ps2bf16 %zmm2,%zmm30,%zmm12", "VCVTNE2PS2BF16", []int{2, 30, 12}, []byte{0x62, 0x72, 0x0f, 0x40, 0x72, 0xe2}},
		{"vcvtne2ps2bf16 %zmm13,%zmm21,%zmm27", "VCVTNE2PS2BF16", []int{13, 21, 27}, []byte{0x62, 0x42, 0x57, 0x40, 0x72, 0xdd}},
		{"vcvtneps2bf16 %zmm1,%ymm0", "VCVTNEPS2BF16", []int{1, 0}, []byte{0x62, 0xf2, 0x7e, 0x48, 0x72, 0xc1}},
		{"vcvtneps2bf16 %zmm17,%ymm30", "VCVTNEPS2BF16", []int{17, 30}, []byte{0x62, 0x22, 0x7e, 0x48, 0x72, 0xf1}},
		{"vcvtneps2bf16 %zmm0,%ymm0", "VCVTNEPS2BF16", []int{0, 0}, []byte{0x62, 0xf2, 0x7e, 0x48, 0x72, 0xc0}},
		{"vcvtneps2bf16 %zmm31,%ymm31", "VCVTNEPS2BF16", []int{31, 31}, []byte{0x62, 0x02, 0x7e, 0x48, 0x72, 0xff}},
		{"vcvtneps2bf16 %zmm8,%ymm7", "VCVTNEPS2BF16", []int{8, 7}, []byte{0x62, 0xd2, 0x7e, 0x48, 0x72, 0xf8}},
		{"vcvtneps2bf16 %zmm15,%ymm16", "VCVTNEPS2BF16", []int{15, 16}, []byte{0x62, 0xc2, 0x7e, 0x48, 0x72, 0xc7}},
		{"vcvtneps2bf16 %zmm23,%ymm9", "VCVTNEPS2BF16", []int{23, 9}, []byte{0x62, 0x32, 0x7e, 0x48, 0x72, 0xcf}},
	} {
		if got := rawForms[c.op].encode(c.regs); !bytes.Equal(got, c.want) {
			t.Errorf("%s: got % x, want % x", c.asm, got, c.want)
		}
	}
}

// TestRawExpanded checks that the generated assembly holds no placeholder:
// every raw instruction became BYTEs under its mnemonic.
func TestRawExpanded(t *testing.T) {
	files, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	asm := files[0]
	for _, line := range bytes.Split(asm, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) > 0 {
			if _, ok := rawForms[string(f[0])]; ok {
				t.Errorf("unexpanded raw instruction: %s", line)
			}
		}
	}
}
