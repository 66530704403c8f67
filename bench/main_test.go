package main

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tensorcast/tensorcast"
)

// The scalar bf16 peers: the RNE loop must agree with tensorcast bit for
// bit (it is the "correct scalar loop" of the table), the truncating loop
// must not, and the shift loop is exact except for signalling NaNs.
func TestBF16Peers(t *testing.T) {
	src := genFloat32(1<<16, 3)
	for _, b := range []uint32{0x3F818000, 0x3F808000, 0x7F7FFFFF, 0x7F7F8000, 0xFF7F8000, 0x00008000, 0x80018000,
		0x7F800000, 0x7F800001, 0xFFC00001, 0x7FBFFFFF, 0x00000001, 0x80000000} {
		src = append(src, math.Float32frombits(b))
	}
	want := make([]uint16, len(src))
	tensorcast.Float32ToBFloat16(want, src)
	got := make([]uint16, len(src))
	bf16RNE(got, src)
	for i := range src {
		if got[i] != want[i] {
			t.Fatalf("bf16RNE(%#08x) = %#04x, tensorcast %#04x", math.Float32bits(src[i]), got[i], want[i])
		}
	}
	bf16Trunc(got, src)
	if got[len(src)-13] != 0x3F81 || want[len(src)-13] != 0x3F82 {
		t.Fatalf("0x3F818000: truncation %#04x, RNE %#04x; want 0x3F81 and 0x3F82", got[len(src)-13], want[len(src)-13])
	}
	wide := make([]float32, len(want))
	ref := make([]float32, len(want))
	bf16Widen(wide, want)
	tensorcast.BFloat16ToFloat32(ref, want)
	for i := range want {
		if math.Float32bits(wide[i]) != math.Float32bits(ref[i]) {
			t.Fatalf("bf16Widen(%#04x) = %#08x, tensorcast %#08x", want[i], math.Float32bits(wide[i]), math.Float32bits(ref[i]))
		}
	}
}

func TestWindows(t *testing.T) {
	p := newPools(64<<10+minFresh, 64<<10, 1)
	for _, n := range []int{64, 1000, 4096, 64 << 10} {
		e := p.env(n, 1)
		for _, x := range []*env{e, e.fresh} {
			seen := map[int]bool{}
			for i := 0; i < 5000; i++ {
				o := x.off(i)
				if o%64 != 0 || o < 0 || o+n > len(x.f32) || (x.span > 0 && o >= x.span) {
					t.Fatalf("n=%d span=%d: call %d at offset %d, pool %d", n, x.span, i, o, len(x.f32))
				}
				seen[o] = true
			}
			if want := min(5000, x.span/64); len(seen) != want {
				t.Fatalf("n=%d span=%d: %d distinct windows, want %d", n, x.span, len(seen), want)
			}
		}
		if e.fresh.span < minFresh || e.span != spanFor(n, 1) {
			t.Fatalf("n=%d: spans %d and %d", n, e.span, e.fresh.span)
		}
	}
	if spanFor(64<<20, 1) != 0 {
		t.Fatal("64 Mi elements rotate")
	}
}

func TestSizes(t *testing.T) {
	for s, n := range map[string]int{"4096": 4096, "4Ki": 4096, "4k": 4096, "64Mi": 64 << 20, "1M": 1 << 20, " 64Ki": 65536} {
		got, err := parseSize(s)
		if err != nil || got != n {
			t.Fatalf("parseSize(%q) = %d, %v; want %d", s, got, err, n)
		}
	}
	for _, s := range []string{"", "x", "-4", "0", "4Gi"} {
		if _, err := parseSize(s); err == nil {
			t.Fatalf("parseSize(%q) accepted", s)
		}
	}
	if sizeName(4096) != "4 Ki" || sizeName(64<<20) != "64 Mi" || sizeName(1000) != "1000" {
		t.Fatal(sizeName(4096), sizeName(64<<20), sizeName(1000))
	}
}

func TestDiff(t *testing.T) {
	want := []byte{0x00, 0x3C, 0x01, 0x7E, 0x00, 0x7C, 0xFF, 0xFF}
	got := []byte{0x00, 0x3C, 0x00, 0x7E, 0x00, 0x7C, 0xFF, 0xFF}
	if m, nan := diff(got, want, 2, tensorcast.Float16); m != 1 || !nan {
		t.Fatalf("NaN payload: %d mismatches, nanOnly %v", m, nan)
	}
	got[4] = 1
	if m, nan := diff(got, want, 2, tensorcast.Float16); m != 2 || nan {
		t.Fatalf("NaN and Inf: %d mismatches, nanOnly %v", m, nan)
	}
	big := make([]byte, 3*4096+8)
	other := bytes.Clone(big)
	other[5000], other[9000], other[len(big)-1] = 1, 2, 3
	if m, _ := diff(other, big, 4, tensorcast.Float); m != 3 {
		t.Fatalf("%d mismatches across blocks, want 3", m)
	}
}

// TestRun measures every conversion at two small sizes and checks what the
// writers produce from it.
func TestRun(t *testing.T) {
	cfg := &config{sizes: []int{256, 4096}, reps: 2, batch: 100 * time.Microsecond, poolFactor: 1, workers: 2,
		thread: threadClockOK, convs: conversions(), progress: func(string, ...any) {}}
	r := execute(cfg, 7)
	if len(r.results) == 0 {
		t.Fatal("no results")
	}
	for _, x := range r.results {
		if !(x.median > 0) || math.IsInf(x.median, 0) || len(x.samples) != cfg.reps {
			t.Fatalf("%s %s n=%d: median %v from %d samples", x.conv.id, x.impl.id, x.n, x.median, len(x.samples))
		}
		if x.impl.kind != kParallel && x.allocs != 0 {
			t.Errorf("%s %s n=%d: %v allocations per call", x.conv.id, x.impl.id, x.n, x.allocs)
		}
		switch {
		case x.impl.kind == kCeiling:
			if x.checked != 0 {
				t.Errorf("%s: copy compared", x.impl.id)
			}
		case x.impl.id == "bf16trunc":
			if x.mismatch < x.n/4 || x.nanOnly {
				t.Errorf("truncation: %d of %d differ (nanOnly %v)", x.mismatch, x.n, x.nanOnly)
			}
		case x.impl.kind != kPeer || x.impl.id == "bf16rne" || x.impl.id == "tphakala":
			if x.checked != x.n || x.mismatch != 0 {
				t.Errorf("%s %s n=%d: %d of %d differ from the generic tier", x.conv.id, x.impl.id, x.n, x.mismatch, x.checked)
			}
		}
	}
	f16 := r.conv("f32-f16")
	if ids := r.implsOf(f16); len(ids) < 7 || ids[0].kind != kDispatched {
		t.Fatalf("FLOAT → FLOAT16 implementations: %v", ids)
	}
	if v := r.ratio(f16, "tensorcast", "x448", 4096); !(v > 1) {
		t.Errorf("tensorcast ÷ x448 = %v", v)
	}

	var md bytes.Buffer
	r.writeMarkdown(&md)
	for _, c := range r.convs {
		if !strings.Contains(md.String(), "#### "+c.name+"\n") {
			t.Errorf("markdown lacks a table for %s", c.name)
		}
	}
	for _, s := range []string{"| *tensorcast ÷ copy(4N)* |", "| *tensorcast ÷ x448/float16* |", "#### Targets", "| 4 Ki |"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("markdown lacks %q", s)
		}
	}

	var c bytes.Buffer
	if err := r.writeCSV(&c); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(r.results)+1 || rows[0][0] != "conversion" || len(rows[1]) != len(rows[0]) {
		t.Fatalf("CSV: %d rows for %d results", len(rows), len(r.results))
	}

	var s bytes.Buffer
	if err := r.writeSVG(&s, "test <chart>"); err != nil {
		t.Fatal(err)
	}
	lines, panels := 0, 0
	d := xml.NewDecoder(&s)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "polyline":
				lines++
			case "g":
				panels++
			}
		}
	}
	want := 0
	for _, c := range r.convs {
		want += len(r.implsOf(c))
	}
	if lines != want || panels != len(r.convs) {
		t.Fatalf("SVG: %d lines in %d panels, want %d in %d", lines, panels, want, len(r.convs))
	}
}
