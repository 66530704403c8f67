package amd64

import (
	"fmt"
	"strings"
)

// The AVX2 and AVX-512 tiers' kernel tables (wrappers_amd64.go:
// setAVX2Kernels, setAVX512Kernels, and their streaming twins
// setAVX2Streams, setAVX512Streams), from tierKernels. kernel_amd64.go's
// init copies the tier below, calls these, and adds what does not follow
// the rule (the unpack and fused kernels' installers, which build their
// wrappers in loops). The AVX-512 tier starts as a copy of the AVX2 one,
// so its streaming twin takes the AVX2 rows' streaming kernels first, then
// its own: every AVX-512 row that replaces a streamed slot must name its
// own (checked here).

// tierKernel is one assignment: slot = fn, of the tier (its name with the
// suffix tier), where when holds.
type tierKernel struct {
	isa  ISA
	slot string // the kernelSet field, indexed where it is an array
	fn   string // a wrapper, or an expression of wrappers; "" empties the slot
	when string // "" or a Go condition on the CPU or the parameter tables
	tier string // "" or a suffix of the tier's name ("+bf16")
	nt   string // "" or the streaming twin's kernel (always streams)
	why  string // "" or a comment for the line
}

const (
	float8Asm  = "asmFloat8Params()"
	e8m0Asm    = "asmE8M0Params()"
	float8WAsm = "asmFloat8WParams() && cpu.X86.HasAVX512VBMI"
	vbmi       = "cpu.X86.HasAVX512VBMI"
)

// stream returns the streaming twin of a wrapper with a streaming variant
// (streamWrappers): its …Store wrapper below the streaming threshold is
// never taken, the NT kernel always.
func stream(isa ISA, name, nt string, param bool) string {
	prefix := tierNames[isa]
	if param {
		return fmt.Sprintf("ntAlwaysP(%s%sStore, %s)", prefix, name, nt)
	}
	return fmt.Sprintf("ntAlways(%s%sStore, %s)", prefix, name, nt)
}

var tierKernels = []tierKernel{
	{isa: AVX2, slot: "f32ToF16", fn: "avx2F32ToF16", nt: stream(AVX2, "F32ToF16", "f32ToF16AVX2NT", false)},
	{isa: AVX2, slot: "f16ToF32", fn: "avx2F16ToF32", nt: stream(AVX2, "F16ToF32", "f16ToF32AVX2NT", false)},
	{isa: AVX2, slot: "f32ToBF16", fn: "avx2F32ToBF16", nt: stream(AVX2, "F32ToBF16", "f32ToBF16AVX2NT", false)},
	{isa: AVX2, slot: "bf16ToF32", fn: "avx2BF16ToF32", nt: stream(AVX2, "BF16ToF32", "bf16ToF32AVX2NT", false)},
	{isa: AVX2, slot: "f32ToF8", fn: "avx2F32ToF8", when: float8Asm, nt: stream(AVX2, "F32ToF8", "ntF32ToF8AVX2", true)},
	{isa: AVX2, slot: "f16ToF8", when: float8Asm,
		fn: "withHalfLanes(avx2F16ToE4M3, avx2F16ToE4M3, avx2F16ToE5M2, avx2F16ToE5M2FNUZ)",
		nt: "withHalfLanes(" + strings.Join([]string{stream(AVX2, "F16ToE4M3", "ntF16ToE4M3AVX2", true), stream(AVX2, "F16ToE4M3", "ntF16ToE4M3AVX2", true),
			stream(AVX2, "F16ToE5M2", "ntF16ToE5M2AVX2", true), stream(AVX2, "F16ToE5M2FNUZ", "ntF16ToE5M2FNUZAVX2", true)}, ", ") + ")"},
	{isa: AVX2, slot: "bf16ToF8", fn: "avx2BF16ToF8", when: float8Asm, nt: stream(AVX2, "BF16ToF8", "ntBF16ToF8AVX2", true)},
	{isa: AVX2, slot: "f32ToE8M0", fn: "avx2F32ToE8M0", when: e8m0Asm, nt: stream(AVX2, "F32ToE8M0", "ntF32ToE8M0AVX2", true)},
	{isa: AVX2, slot: "f8ToF32", fn: "avx2F8ToF32", nt: stream(AVX2, "F8ToF32", "ntF8ToF32AVX2", true)},
	{isa: AVX2, slot: "f32ToF4", fn: "avx2F32ToF4"},
	{isa: AVX2, slot: "f4ToF32", fn: "avx2F4ToF32"},
	{isa: AVX2, slot: "i8ToI4", fn: "avx2I8ToI4"},
	{isa: AVX2, slot: "i8ToI2", fn: "avx2I8ToI2"},
	{isa: AVX2, slot: "i4ToI8", fn: "avx2I4ToI8"},
	{isa: AVX2, slot: "u4ToU8", fn: "avx2U4ToU8"},
	{isa: AVX2, slot: "f32ToI4", fn: "avx2F32ToI4"},
	{isa: AVX2, slot: "lut8", fn: "avx2Lut8"},
	{isa: AVX2, slot: "lut16", fn: "avx2Lut16"},
	{isa: AVX2, slot: "sel8", fn: "avx2Select8"},
	{isa: AVX2, slot: "sel16", fn: "avx2Select16"},
	{isa: AVX2, slot: "split8", fn: "avx2Split8"},
	{isa: AVX2, slot: "round8", fn: "avx2Round8GFNI", when: "hasGFNI()"},
	{isa: AVX2, slot: "class8", fn: "avx2Class8"},
	{isa: AVX2, slot: "finer8", fn: "avx2Finer8"},
	{isa: AVX2, slot: "splitPack[0]", fn: "avx2SplitPack4"},
	{isa: AVX2, slot: "splitPack[1]", fn: "avx2SplitPack2"},
	{isa: AVX2, slot: "f16ToBF16", fn: "avx2F16ToBF16"},
	{isa: AVX2, slot: "bf16ToF16", fn: "avx2BF16ToF16"},

	{isa: AVX512, slot: "f32ToF16", fn: "avx512F32ToF16", nt: stream(AVX512, "F32ToF16", "f32ToF16AVX512NT", false)},
	{isa: AVX512, slot: "f16ToF32", fn: "avx512F16ToF32", nt: stream(AVX512, "F16ToF32", "f16ToF32AVX512NT", false)},
	{isa: AVX512, slot: "f32ToBF16", fn: "avx512F32ToBF16", nt: stream(AVX512, "F32ToBF16", "f32ToBF16AVX512NT", false)},
	{isa: AVX512, slot: "bf16ToF32", fn: "avx512BF16ToF32", nt: stream(AVX512, "BF16ToF32", "bf16ToF32AVX512NT", false)},
	{isa: AVX512, slot: "f32ToF8", fn: "avx512F32ToF8", when: float8Asm, nt: stream(AVX512, "F32ToF8", "ntF32ToF8AVX512", true)},
	// FLOAT16, BFLOAT16 → float8 without VBMI: AVX2's kernels on 16-bit
	// lanes (half8, f16e4m3, f16e5m2), where widening to 32-bit lanes
	// (narrowToF8 on AVX-512) ran at 0.18–0.20× copy() against their
	// 0.33–0.53× (Zen 4 as Skylake-SP, GODEBUG=cpu.avx512vbmi=off, …).
	{isa: AVX512, slot: "f32ToF8", fn: "avx512WF32ToF8", when: float8WAsm, nt: stream(AVX512, "WF32ToF8", "ntF32ToF8AVX512W", true)},
	{isa: AVX512, slot: "f16ToF8", when: float8WAsm,
		fn: "withHalfLanes(avx512WF16ToF8, avx512F16ToE4M3, avx512F16ToE5M2, avx512F16ToE5M2FNUZ)",
		nt: "withHalfLanes(" + strings.Join([]string{stream(AVX512, "WF16ToF8", "ntF16ToF8AVX512W", true), stream(AVX512, "F16ToE4M3", "ntF16ToE4M3AVX512", true),
			stream(AVX512, "F16ToE5M2", "ntF16ToE5M2AVX512", true), stream(AVX512, "F16ToE5M2FNUZ", "ntF16ToE5M2FNUZAVX512", true)}, ", ") + ")"},
	{isa: AVX512, slot: "bf16ToF8", fn: "avx512BF16ToF8Bytes", when: float8WAsm, nt: stream(AVX512, "BF16ToF8Bytes", "ntBF16ToF8BytesAVX512", true)},
	{isa: AVX512, slot: "f8ToF32", fn: "avx512F8ToF32", when: vbmi, nt: stream(AVX512, "F8ToF32", "ntF8ToF32AVX512", true)},
	{isa: AVX512, slot: "f32ToE8M0", fn: "avx512F32ToE8M0", when: e8m0Asm, nt: stream(AVX512, "F32ToE8M0", "ntF32ToE8M0AVX512", true)},
	{isa: AVX512, slot: "f32ToF4", fn: "avx512F32ToF4"},
	{isa: AVX512, slot: "f32ToF4", fn: "avx512VBMIF32ToF4", when: vbmi},
	{isa: AVX512, slot: "f4ToF32", fn: "avx512F4ToF32"},
	{isa: AVX512, slot: "i8ToI4", fn: "avx512I8ToI4"},
	{isa: AVX512, slot: "i8ToI2", fn: "avx512I8ToI2"},
	{isa: AVX512, slot: "i4ToI8", fn: "avx512I4ToI8"},
	{isa: AVX512, slot: "u4ToU8", fn: "avx512U4ToU8"},
	{isa: AVX512, slot: "f32ToI4", fn: "avx512F32ToI4"},
	{isa: AVX512, slot: "lut8", fn: "avx512BWLut8"},
	{isa: AVX512, slot: "lut16", fn: "avx512BWLut16"},
	{isa: AVX512, slot: "lut8", fn: "avx512Lut8", when: vbmi},
	{isa: AVX512, slot: "lut16", fn: "avx512Lut16", when: vbmi},
	{isa: AVX512, slot: "sel8", fn: "avx512Select8"},
	{isa: AVX512, slot: "sel16", fn: "avx512Select16"},
	// Without VBMI the 8-bit tables keep AVX2's specialised kernels: the
	// 64-byte lookup tree (lut8AVX512BW) ran the float8 and E8M0 targets of
	// the 8-bit sources at 0.13–0.15× copy() against their 0.39–0.61×
	// (Zen 4 as Skylake-SP, GODEBUG=cpu.avx512vbmi=off, …).
	{isa: AVX512, slot: "split8", when: vbmi, why: "lut8's VPERMI2B is faster"},
	{isa: AVX512, slot: "splitPack[0]", when: vbmi, why: "lut8's VPERMI2B is faster"},
	{isa: AVX512, slot: "splitPack[1]", when: vbmi, why: "lut8's VPERMI2B is faster"},
	{isa: AVX512, slot: "round8", when: vbmi, why: "lut8's VPERMI2B is faster"},
	{isa: AVX512, slot: "class8", when: vbmi, why: "AVX2 code, not measured against VPERMI2B"},
	{isa: AVX512, slot: "finer8", when: vbmi, why: "AVX2 code: 0.90–0.96× against VPERMI2B's 0.56–0.68× (Zen 4)"},
	{isa: AVX512, slot: "f16ToBF16", fn: "avx512F16ToBF16"},
	{isa: AVX512, slot: "f16ToBF16", fn: "avx512BF16F16ToBF16", when: "cpu.X86.HasAVX512BF16", tier: "+bf16"},
	{isa: AVX512, slot: "bf16ToF16", fn: "avx512BF16ToF16"},
	// VCVTNE2PS2BF16 serves FLOAT -> BFLOAT16 where the CPU has it (the
	// tier reads "avx512+bf16"); GODEBUG=cpu.avx512bf16=off selects the
	// integer kernel, which kernel_amd64_test.go also tests directly. It
	// streams with the integer kernel (avx512BF16F32ToBF16).
	{isa: AVX512, slot: "f32ToBF16", fn: "avx512BF16F32ToBF16", when: "cpu.X86.HasAVX512BF16 && cpu.X86.HasAVX512DQ", tier: "+bf16",
		nt: stream(AVX512, "BF16F32ToBF16", "f32ToBF16AVX512NT", false)},
}

// registerGlue writes the four functions of the tier tables.
func registerGlue(p func(string, ...any)) error {
	streamed := map[string]bool{} // slots with an AVX2 streaming kernel
	for _, r := range tierKernels {
		other := map[ISA]string{AVX2: "512", AVX512: "avx2"}[r.isa] // a kernel of the other tier
		if strings.Contains(strings.ToLower(r.fn+r.nt), other) {
			return fmt.Errorf("tierKernels: the %v row of %s names another tier's kernel: %s %s", r.isa, r.slot, r.fn, r.nt)
		}
		if r.isa == AVX2 && r.nt != "" {
			streamed[r.slot] = true
		}
		if r.isa == AVX512 && r.fn != "" && streamed[r.slot] && r.nt == "" {
			return fmt.Errorf("tierKernels: the AVX-512 %s replaces a streamed slot without a streaming kernel", r.slot)
		}
	}
	for _, isa := range []ISA{AVX2, AVX512} {
		name := isa.String()
		p("\n// set%sKernels fills the %v tier's slots of k (gen/amd64/register.go).\n", name, isa)
		p("func set%sKernels(k *kernelSet) {\n", name)
		emitRows(p, isa, func(r tierKernel) string {
			line := fmt.Sprintf("k.%s.reset()", r.slot)
			if r.fn != "" {
				tier := "k.tier"
				if r.tier != "" {
					tier += fmt.Sprintf(" + %q", r.tier)
				}
				line = fmt.Sprintf("k.%s.set(%s, %s)", r.slot, r.fn, tier)
			}
			if r.why != "" {
				line += " // " + r.why
			}
			return line
		})
		p("}\n")
		p("\n// set%sStreams gives ks, the streaming twin of the %v tier's k (a copy),\n", name, isa)
		p("// kernels that always stream (gen/amd64/register.go).\n")
		p("func set%sStreams(ks *kernelSet) {\n", name)
		if isa == AVX512 {
			p("\tsetAVX2Streams(ks) // the slots the tier keeps from AVX2; its own rows follow\n")
		}
		emitRows(p, isa, func(r tierKernel) string {
			if r.nt == "" {
				return ""
			}
			return fmt.Sprintf("ks.%s.fn = %s", r.slot, r.nt)
		})
		p("}\n")
	}
	return nil
}

// emitRows writes line(r) for the rows of isa, each run of rows with the
// same condition in one if.
func emitRows(p func(string, ...any), isa ISA, line func(tierKernel) string) {
	open := ""
	for _, r := range tierKernels {
		l := line(r)
		if r.isa != isa || l == "" {
			continue
		}
		if r.when != open {
			if open != "" {
				p("\t}\n")
			}
			if r.when != "" {
				p("\tif %s {\n", r.when)
			}
			open = r.when
		}
		indent := "\t"
		if open != "" {
			indent = "\t\t"
		}
		p("%s%s\n", indent, l)
	}
	if open != "" {
		p("\t}\n")
	}
}
