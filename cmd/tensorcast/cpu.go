package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/klauspost/cpuid/v2"

	"github.com/tensorcast/tensorcast"
)

func init() {
	register(&command{
		name:    "cpu",
		summary: "show the CPU, its SIMD features, and the kernel that serves each hot conversion\n(--routes: the steps and tiers of every ordered pair of numeric types)",
		run: func(args []string, _ io.Reader, stdout, _ io.Writer) error {
			if len(args) == 1 && (args[0] == "--routes" || args[0] == "-routes") {
				return printRoutes(stdout)
			}
			if err := noArgs("cpu", args, stdout); err != nil {
				return err
			}
			return printCPU(stdout)
		},
	})
}

// feature is one CPU feature as the processor reports it (cpuid) and as
// golang.org/x/sys/cpu has it after applying GODEBUG.
type feature struct {
	name    string
	hw      bool   // reported by the CPU (github.com/klauspost/cpuid/v2)
	enabled *bool  // golang.org/x/sys/cpu after GODEBUG; nil if it has no such field
	godebug string // the GODEBUG option that turns it off in x/sys/cpu, or ""
}

func printCPU(w io.Writer) error {
	c := &cpuid.CPU
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CPU")
	fmt.Fprintf(tw, "  brand\t%s\n", orUnknown(c.BrandName))
	fmt.Fprintf(tw, "  vendor\t%s (%v)\n", orUnknown(c.VendorString), c.VendorID)
	fmt.Fprintf(tw, "  family/model\t%d / %d, stepping %d\n", c.Family, c.Model, c.Stepping)
	fmt.Fprintf(tw, "  logical cores\t%d (physical %d, %d threads per core; Go sees %d)\n",
		c.LogicalCores, c.PhysicalCores, c.ThreadsPerCore, runtime.NumCPU())
	fmt.Fprintf(tw, "  caches\tL1d %s, L2 %s, L3 %s, line %s\n",
		size(c.Cache.L1D), size(c.Cache.L2), size(c.Cache.L3), size(c.CacheLine))
	fmt.Fprintf(tw, "  GOOS/GOARCH\t%s/%s, %s\n", runtime.GOOS, runtime.GOARCH, runtime.Version())
	godebug := os.Getenv("GODEBUG")
	if godebug == "" {
		godebug = "(unset)"
	}
	fmt.Fprintf(tw, "  GODEBUG\t%s\n", godebug)
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w)
	feats := cpuFeatures()
	if len(feats) == 0 {
		fmt.Fprintf(w, "Features: none that tensorcast uses on %s\n", runtime.GOARCH)
	} else {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FEATURE\tCPU\tENABLED\tGODEBUG OPTION")
		for _, f := range feats {
			en, opt := "?", "-"
			if f.enabled != nil {
				en = yesNo(*f.enabled)
			}
			if f.godebug != "" {
				opt = "cpu." + f.godebug + "=off"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.name, yesNo(f.hw), en, opt)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, "CPU: detected by github.com/klauspost/cpuid/v2; ENABLED: golang.org/x/sys/cpu, which")
		fmt.Fprintln(w, "honours GODEBUG options such as cpu.avx512f=off (\"?\": x/sys/cpu has no flag for it).")
	}

	fmt.Fprintf(w, "\nKernels: %s (tensorcast.KernelName)\n", tensorcast.KernelName())
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONVERSION\tKERNEL")
	for _, k := range tensorcast.Kernels() {
		fmt.Fprintf(tw, "%s\t%s\n", k.Conversion, k.Kernel)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "These are the shared kernels; every pair's plan, with the stages and tiers it runs, is in `tensorcast cpu --routes`.")
	return err
}

// printRoutes lists how Cast converts every ordered pair on this machine.
func printRoutes(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FROM\tTO\tSTEPS\tTIERS")
	for _, r := range tensorcast.Routes() {
		fmt.Fprintf(tw, "%v\t%v\t%s\t%s\n", r.From, r.To, strings.Join(r.Steps, " | "), strings.Join(r.Tiers, " | "))
	}
	return tw.Flush()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// size formats a byte count; cpuid reports -1 or 0 when it does not know.
func size(b int) string {
	switch {
	case b <= 0:
		return "unknown"
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}

func ptr(b bool) *bool { return &b }
