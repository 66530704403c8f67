package tensorcast

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

func TestDispatchConsistent(t *testing.T) {
	names := Tiers()
	if names[0] != "generic" {
		t.Fatalf("Tiers() = %v, want generic first", names)
	}
	// KernelName names the family: the best tier may be a variant of it
	// ("neon+bf16" serves only FLOAT -> BFLOAT16 differently from "neon").
	if best, _, _ := strings.Cut(names[len(names)-1], "+"); KernelName() != best {
		t.Errorf("KernelName() = %q, but the best tier is %q", KernelName(), names[len(names)-1])
	}
	for _, k := range Kernels() {
		base, _, _ := strings.Cut(k.Kernel, "+") // "neon+bf16" belongs to the neon family
		if !slices.Contains(names, k.Kernel) && !slices.Contains(names, base) {
			t.Errorf("%s is served by %q, not one of %v", k.Conversion, k.Kernel, names)
		}
	}
	if err := UseTier("no-such-tier"); err == nil {
		t.Error("UseTier accepted an unknown tier")
	}
	if err := UseTier("generic"); err != nil || KernelName() != "generic" {
		t.Errorf("UseTier(generic): %v, KernelName %q", err, KernelName())
	}
	if err := UseTier(names[len(names)-1]); err != nil {
		t.Fatal(err)
	}
}

// TestPrintKernelName is the child half of TestGODEBUGChangesTier.
func TestPrintKernelName(t *testing.T) {
	if os.Getenv("TENSORCAST_PRINT_KERNEL") == "" {
		t.Skip("run by TestGODEBUGChangesTier")
	}
	os.Stdout.WriteString("kernel=" + KernelName() + "\n")
}

// TestGODEBUGChangesTier runs this test binary again with GODEBUG settings
// that x/sys/cpu honours and checks that the tier follows them.
func TestGODEBUGChangesTier(t *testing.T) {
	if runtime.GOARCH != "amd64" || KernelName() == "generic" {
		t.Skip("needs an amd64 build with assembly and a CPU with AVX2")
	}
	if os.Getenv("GODEBUG") != "" {
		t.Skip("GODEBUG is already set for this run")
	}
	run := func(godebug string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrintKernelName$", "-test.v")
		cmd.Env = append(os.Environ(), "TENSORCAST_PRINT_KERNEL=1", "GODEBUG="+godebug)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GODEBUG=%s: %v\n%s", godebug, err, out)
		}
		_, after, ok := strings.Cut(string(out), "kernel=")
		if !ok {
			t.Fatalf("GODEBUG=%s: no kernel line in\n%s", godebug, out)
		}
		name, _, _ := strings.Cut(after, "\n")
		return name
	}
	want := map[string]string{"": KernelName(), "cpu.avx2=off": "generic"}
	if cpu.X86.HasAVX512F {
		want["cpu.avx512f=off"] = "avx2"
	}
	for godebug, w := range want {
		if got := run(godebug); got != w {
			t.Errorf("GODEBUG=%q: kernel %q, want %q", godebug, got, w)
		}
	}
}
