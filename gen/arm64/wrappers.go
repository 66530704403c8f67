package arm64

import (
	"bytes"
	"fmt"
	"strings"
)

// The Go side of the NEON kernels (wrappers_arm64.go): for each entry of
// wrappers, the wrapper that converts the longest prefix of whole units
// (the kernel's Stream unit, recorded when it is built) in assembly, tells
// the race detector which memory the assembly touched, and converts the
// rest with the portable kernel; and setNEONKernels, which puts the
// wrappers into the NEON tiers' kernel tables (kernel_arm64.go). What stays
// by hand there is what does not follow the rule: float8 → FLOAT (byte
// planes built from the table on first use), lut16 (a scratch buffer), the
// unpack kernels (one factory for eight kernels).

// wrapper is one NEON kernel's Go wrapper.
type wrapper struct {
	goName   string // the wrapper
	asm      string // the kernel (kernels or packedKernels)
	field    string // its slot in kernelSet
	bf16     bool   // the slot of the "neon+bf16" tier (else "neon")
	dst, src string // Go element types of the slices
	// dstDiv, srcDiv: elements per slice element (2 or 4 for a packed
	// side, 1 otherwise); n counts elements of the unpacked side.
	dstDiv, srcDiv int
	param          string // "" or the type of the parameter passed through
	constArg       string // "" or an argument the wrapper passes itself
	check          string // "" or a condition on p for the kernel to apply
	generic        string // the portable kernel for the rest
}

var wrappers = []wrapper{
	{"float32ToFloat16NEON", "f32ToF16NEON", "f32ToF16", false, "uint16", "float32", 1, 1, "", "", "", "float32ToFloat16Generic"},
	{"float16ToFloat32NEON", "f16ToF32NEON", "f16ToF32", false, "float32", "uint16", 1, 1, "", "", "", "float16ToFloat32Generic"},
	{"float32ToBFloat16NEON", "f32ToBF16NEON", "f32ToBF16", false, "uint16", "float32", 1, 1, "", "", "", "float32ToBFloat16Generic"},
	{"float32ToBFloat16BFCVTN", "f32ToBF16BFCVTN", "f32ToBF16", true, "uint16", "float32", 1, 1, "", "", "", "float32ToBFloat16Generic"},
	{"bfloat16ToFloat32NEON", "bf16ToF32NEON", "bf16ToF32", false, "float32", "uint16", 1, 1, "", "", "", "bfloat16ToFloat32Generic"},
	{"float32ToFloat8NEON", "f32ToF8NEON", "f32ToF8", false, "uint8", "float32", 1, 1, "*float8Params", "", "neonFloat8(p)", "float32ToFloat8Generic"},
	{"float16ToFloat8NEON", "f16ToF8NEON", "f16ToF8", false, "uint8", "uint16", 1, 1, "*float8Params", "", "neonFloat8(p)", "float16ToFloat8Generic"},
	{"bfloat16ToFloat8NEON", "bf16ToF8NEON", "bf16ToF8", false, "uint8", "uint16", 1, 1, "*float8Params", "", "neonFloat8(p)", "bfloat16ToFloat8Generic"},
	{"float32ToE8M0NEON", "f32ToE8M0NEON", "f32ToE8M0", false, "uint8", "float32", 1, 1, "*e8m0Params", "", "neonE8M0(p)", "float32ToE8M0Generic"},
	{"float32ToFloat4NEON", "f32ToF4NEON", "f32ToF4", false, "uint8", "float32", 2, 1, "", "&float4Params", "", "float32ToFloat4Generic"},
	{"float4ToFloat32NEON", "f4ToF32NEON", "f4ToF32", false, "float32", "uint8", 1, 2, "", "", "", "float4ToFloat32Generic"},
	{"int8ToInt4NEON", "i8ToI4NEON", "i8ToI4", false, "uint8", "uint8", 2, 1, "", "", "", "int8ToInt4Generic"},
	{"int8ToInt2NEON", "i8ToI2NEON", "i8ToI2", false, "uint8", "uint8", 4, 1, "", "", "", "int8ToInt2Generic"},
	{"int4ToInt8NEON", "i4ToI8NEON", "i4ToI8", false, "uint8", "uint8", 1, 2, "", "", "", "int4ToInt8Generic"},
	{"uint4ToUint8NEON", "u4ToU8NEON", "u4ToU8", false, "uint8", "uint8", 1, 2, "", "", "", "uint4ToUint8Generic"},
	{"float32ToInt4NEON", "f32ToI4NEON", "f32ToI4", false, "uint8", "float32", 2, 1, "", "", "", "float32ToInt4Generic"},
	{"neonLut8", "lut8NEON", "lut8", false, "uint8", "uint8", 1, 1, "*[256]uint8", "", "", "lut8Generic"},
	{"neonF16ToBF16", "f16ToBF16NEON", "f16ToBF16", false, "uint16", "uint16", 1, 1, "", "", "", "float16ToBFloat16Generic"},
	{"neonBFCVTNF16ToBF16", "f16ToBF16BFCVTN", "f16ToBF16", true, "uint16", "uint16", 1, 1, "", "", "", "float16ToBFloat16Generic"},
	{"neonBF16ToF16", "bf16ToF16NEON", "bf16ToF16", false, "uint16", "uint16", 1, 1, "", "", "", "bfloat16ToFloat16Generic"},
	{"neonMap4", "map4NEON", "map4", false, "byte", "byte", 1, 1, "*[32]uint8", "", "", "map4Generic"},
	{"neonMap4Pack", "map4PackNEON", "map4Pack", false, "byte", "byte", 2, 1, "*[32]uint8", "", "", "map4PackGeneric"},
}

// wrappersGo returns the contents of wrappers_arm64.go; units holds each
// kernel's Stream unit.
func wrappersGo(units map[string]int) ([]byte, error) {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("%s\n%s\n\npackage tensorcast\n\n", header, buildTag)
	p("// setNEONKernels puts the generated wrappers into the kernel table k of the\n")
	p("// \"neon\" tier or, with bf16, of the \"neon+bf16\" tier, a copy of the first\n")
	p("// that replaces its BFCVTN kernels (gen/arm64/wrappers.go).\n")
	p("func setNEONKernels(k *kernelSet, bf16 bool) {\n")
	for _, bf := range []bool{false, true} {
		p("\tif bf16 == %v {\n", bf)
		for _, w := range wrappers {
			if w.bf16 == bf {
				p("\t\tk.%s = kernel[func(%s)]{%s, k.tier}\n", w.field, w.sig(false), w.goName)
			}
		}
		p("\t}\n")
	}
	p("}\n")
	for _, w := range wrappers {
		unit, ok := units[w.asm]
		if !ok || unit == 0 {
			return nil, fmt.Errorf("wrapper %s: no unit recorded for kernel %s", w.goName, w.asm)
		}
		if unit&(unit-1) != 0 {
			return nil, fmt.Errorf("wrapper %s: unit %d of %s is not a power of two", w.goName, unit, w.asm)
		}
		n := "len(src)" // elements of the unpacked side
		if w.srcDiv > 1 {
			n = "len(dst)"
		}
		p("\n// %s converts whole units of %d elements with %s and the\n", w.goName, unit, w.asm)
		p("// rest with %s.\n", w.generic)
		p("func %s(%s) {\n", w.goName, w.sig(true))
		if w.dstDiv == 1 && w.srcDiv == 1 {
			p("\tdst = dst[:len(src)]\n")
		}
		cond := "n > 0"
		if w.check != "" {
			cond += " && " + w.check
		}
		p("\tif n := %s &^ %d; %s {\n", n, unit-1, cond)
		p("\t\td, s := dst[:%s], src[:%s]\n", div("n", w.dstDiv), div("n", w.srcDiv))
		p("\t\traceRead(s)\n\t\traceWrite(d)\n")
		args := []string{"&d[0]", "&s[0]", "n"}
		if w.param != "" {
			args = append(args, "p")
		}
		if w.constArg != "" {
			args = append(args, w.constArg)
		}
		p("\t\t%s(%s)\n", w.asm, strings.Join(args, ", "))
		p("\t\tdst, src = dst[%s:], src[%s:]\n", div("n", w.dstDiv), div("n", w.srcDiv))
		p("\t}\n")
		rest := "dst, src"
		if w.param != "" {
			rest += ", p"
		}
		p("\t%s(%s)\n}\n", w.generic, rest)
	}
	return b.Bytes(), nil
}

// sig is the wrapper's parameter list, with names or (for the kernel type)
// without.
func (w wrapper) sig(named bool) string {
	parts := []string{"[]" + w.dst, "[]" + w.src}
	if w.param != "" {
		parts = append(parts, w.param)
	}
	if !named {
		return strings.Join(parts, ", ")
	}
	names := []string{"dst", "src", "p"}
	for i := range parts {
		parts[i] = names[i] + " " + parts[i]
	}
	return strings.Join(parts, ", ")
}

func div(n string, d int) string {
	if d == 1 {
		return n
	}
	return fmt.Sprintf("%s/%d", n, d)
}
