//go:build linux

// Command ntstore measures what non-temporal (streaming) stores would give
// tensorcast's widest kernels: FLOAT → FLOAT16 and FLOAT16 → FLOAT written
// with ordinary stores and with VMOVNTDQ/VMOVNTPS (+ SFENCE), next to copy()
// of the float32 side, over sizes around the last-level cache. The kernels
// here are prototypes (kernels_amd64.s), not the library's: the numbers say
// where the library should switch to streaming stores.
//
//	cd bench && go run ./ntstore
//	cd bench && go run ./ntstore -sizes 1Mi,4Mi,64Mi -reps 15
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
)

func f32ToF16Store512(dst *uint16, src *float32, n int)
func f32ToF16NT512(dst *uint16, src *float32, n int)
func f16ToF32Store512(dst *float32, src *uint16, n int)
func f16ToF32NT512(dst *float32, src *uint16, n int)
func f32ToF16Store256(dst *uint16, src *float32, n int)
func f32ToF16NT256(dst *uint16, src *float32, n int)

func main() {
	sizes := flag.String("sizes", "256Ki,1Mi,2Mi,4Mi,8Mi,16Mi,64Mi", "element counts")
	reps := flag.Int("reps", 9, "interleaved rounds (median reported)")
	wall := flag.Bool("wall", false, "wall-clock time instead of the thread's CPU time")
	flag.Parse()
	if !cpu.X86.HasAVX2 || !cpu.X86.HasF16C {
		fmt.Println("ntstore needs AVX2 and F16C")
		return
	}
	has512 := cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL
	runtime.LockOSThread()
	now := threadNanos
	if *wall {
		now = func() int64 { return time.Now().UnixNano() }
	}
	llc := cpuid.CPU.Cache.L3
	fmt.Printf("%s, L3 %d MiB as cpuid reports; %s clock; median of %d rounds; Gelem/s and ratios\n\n",
		cpuid.CPU.BrandName, llc>>20, map[bool]string{true: "wall", false: "thread CPU"}[*wall], *reps)
	fmt.Println("| elements | traffic f32↔f16 ÷ L3 | copy(4N) | f32→f16 store | f32→f16 NT | NT ÷ store | f16→f32 store | f16→f32 NT | NT ÷ store | AVX2 f32→f16 NT ÷ store |")
	fmt.Println("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := parseSize(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		n = (n + 31) &^ 31
		f32 := alignedF32(n)
		f16 := alignedU16(n)
		out32 := alignedF32(n)
		for i := range f32 {
			f32[i] = float32(i%1000)*0.37 - 150
		}
		imps := []func(){
			func() { copy(out32, f32) },
			func() {
				if has512 {
					f32ToF16Store512(&f16[0], &f32[0], n)
				}
			},
			func() {
				if has512 {
					f32ToF16NT512(&f16[0], &f32[0], n)
				}
			},
			func() {
				if has512 {
					f16ToF32Store512(&out32[0], &f16[0], n)
				}
			},
			func() {
				if has512 {
					f16ToF32NT512(&out32[0], &f16[0], n)
				}
			},
			func() { f32ToF16Store256(&f16[0], &f32[0], n) },
			func() { f32ToF16NT256(&f16[0], &f32[0], n) },
		}
		iters := max(1, (256<<20)/(6*n)) // about 256 MiB of traffic per batch
		med := make([]float64, len(imps))
		samples := make([][]float64, len(imps))
		for _, f := range imps {
			f()
		}
		for r := 0; r < *reps; r++ {
			for k := range imps {
				j := (k + r) % len(imps)
				t := now()
				for it := 0; it < iters; it++ {
					imps[j]()
				}
				samples[j] = append(samples[j], float64(now()-t)/float64(iters*n))
			}
		}
		for k := range imps {
			med[k] = median(samples[k])
		}
		g := func(k int) string { return strconv.FormatFloat(1/med[k], 'f', 2, 64) }
		rt := func(a, b int) string { return strconv.FormatFloat(med[b]/med[a], 'f', 2, 64) + "×" }
		if !has512 {
			fmt.Printf("| %s | %.2f | %s | – | – | – | – | – | – | %s |\n", s, float64(6*n)/float64(llc), g(0), rt(6, 5))
			continue
		}
		fmt.Printf("| %s | %.2f | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, float64(6*n)/float64(llc),
			g(0), g(1), g(2), rt(2, 1), g(3), g(4), rt(4, 3), rt(6, 5))
	}
}

func threadNanos() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// alignedF32 and alignedU16 return slices whose first element is 64-byte
// aligned, as the NT stores require.
func alignedF32(n int) []float32 {
	b := make([]float32, n+16)
	o := int(uintptr(unsafe.Pointer(&b[0]))%64) / 4
	return b[(16-o)%16:][:n]
}

func alignedU16(n int) []uint16 {
	b := make([]uint16, n+32)
	o := int(uintptr(unsafe.Pointer(&b[0]))%64) / 2
	return b[(32-o)%32:][:n]
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

func parseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	m := 1
	switch {
	case strings.HasSuffix(s, "Ki"):
		s, m = strings.TrimSuffix(s, "Ki"), 1<<10
	case strings.HasSuffix(s, "Mi"):
		s, m = strings.TrimSuffix(s, "Mi"), 1<<20
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * m, nil
}
