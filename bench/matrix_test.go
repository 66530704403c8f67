package main

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tensorcast/tensorcast"
)

// The matrix covers every numeric type once and nothing else.
func TestMatrixTypes(t *testing.T) {
	ts := matrixTypes()
	seen := map[tensorcast.DataType]bool{}
	for _, x := range ts {
		if seen[x] || !x.Castable() || x == tensorcast.String || x.BitSize() == 0 {
			t.Fatalf("matrixTypes: %v repeated or not numeric", x)
		}
		seen[x] = true
	}
	for _, x := range tensorcast.AllTypes() {
		if x.Castable() && x != tensorcast.String && !seen[x] {
			t.Fatalf("matrixTypes leaves out %v", x)
		}
	}
	if len(ts) != len(tensorcast.Routes())/len(ts) {
		t.Fatalf("%d types but %d routes", len(ts), len(tensorcast.Routes()))
	}
}

// Inputs: finite floats, FLOAT8E8M0 never NaN, BOOL 0/1, and integer bytes
// that are not constant; every window in bounds and 64-byte aligned.
func TestMatrixData(t *testing.T) {
	d := newMxData(1000, 1) // rounded up to 1024
	if d.n != 1024 || d.span != 1024 {
		t.Fatalf("n %d span %d, want 1024", d.n, d.span)
	}
	for _, typ := range matrixTypes() {
		p := d.pool[typ]
		if len(p) != typ.Size(2*d.n) {
			t.Fatalf("%v: pool %d bytes, want %d", typ, len(p), typ.Size(2*d.n))
		}
		// Finite and in range: widen to FLOAT and look.
		f := make([]byte, 4*2*d.n)
		if typ.IsFloat() {
			if err := tensorcast.Cast(f, tensorcast.Float, p, typ, 2*d.n, tensorcast.Options{}); err != nil {
				t.Fatal(err)
			}
			big := 0
			for i := 0; i < 2*d.n; i++ {
				v := math.Float32frombits(binary.LittleEndian.Uint32(f[4*i:]))
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("%v: element %d is %v", typ, i, v)
				}
				if math.Abs(float64(v)) > 10 {
					big++
				}
			}
			if typ != tensorcast.Float4E2M1 && big == 0 {
				t.Fatalf("%v: no element beyond ±10: the scaled tenth is missing", typ)
			}
		}
		distinct := map[byte]bool{}
		for _, b := range p {
			distinct[b] = true
		}
		switch {
		case typ == tensorcast.Bool:
			if len(distinct) != 2 || !distinct[0] || !distinct[1] {
				t.Fatalf("BOOL bytes %v, want 0 and 1", distinct)
			}
		case len(distinct) < 4:
			t.Fatalf("%v: only %d distinct bytes", typ, len(distinct))
		}
		for i := 0; i < 100; i++ {
			w := d.window(typ, i)
			if len(w) != typ.Size(d.n) {
				t.Fatalf("%v call %d: window of %d bytes", typ, i, len(w))
			}
			off := len(p) - cap(w) // offset of the window in the pool
			if off%64 != 0 && typ.Size(mxAlign)%64 == 0 {
				t.Fatalf("%v call %d: offset %d not 64-byte aligned", typ, i, off)
			}
		}
	}
}

func TestDiffElems(t *testing.T) {
	for _, bits := range []int{2, 4, 8, 16, 32, 64} {
		n := 37
		w := make([]byte, (n*bits+7)/8)
		for i := range w {
			w[i] = byte(i*7 + 1)
		}
		g := bytes.Clone(w)
		if c := diffElems(g, w, bits, n); c != 0 {
			t.Fatalf("bits %d: equal buffers differ in %d", bits, c)
		}
		// Flip one bit in elements 0, 5 and 36.
		for _, e := range []int{0, 5, 36} {
			bit := e*bits + bits - 1
			g[bit/8] ^= 1 << (bit % 8)
		}
		if c := diffElems(g, w, bits, n); c != 3 {
			t.Fatalf("bits %d: %d elements differ, want 3", bits, c)
		}
	}
}

// A small matrix end to end: every pair measured with a positive ratio and
// time, a route from tensorcast.Routes, equal bits to the generic tier, no
// allocations, and writers whose outputs parse.
func TestMatrixRun(t *testing.T) {
	types := []tensorcast.DataType{tensorcast.Float, tensorcast.Float16, tensorcast.Int4, tensorcast.Double, tensorcast.Uint2}
	tiers := tensorcast.Tiers()
	for _, tier := range []string{"", tiers[0]} {
		cfg := &mxConfig{n: 4096, reps: 2, batch: 100 * time.Microsecond, tier: tier, types: types, seed: 1,
			thread: threadClockOK, progress: func(string, ...any) {}}
		r, err := runMatrix(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if tensorcast.KernelName() != tiers[len(tiers)-1] {
			t.Fatalf("runMatrix left tier %s active", tensorcast.KernelName())
		}
		if len(r.pairs) != len(types)*len(types) {
			t.Fatalf("%d pairs", len(r.pairs))
		}
		for k, p := range r.pairs {
			if p.from != types[k/len(types)] || p.to != types[k%len(types)] {
				t.Fatalf("pair %d is %v -> %v", k, p.from, p.to)
			}
			if !(p.ratio > 0) || !(p.castNs > 0) || !(p.copyNs > 0) || len(p.ratios) != 2 {
				t.Fatalf("%v -> %v: ratio %v cast %v copy %v rounds %d", p.from, p.to, p.ratio, p.castNs, p.copyNs, len(p.ratios))
			}
			if p.route.From != p.from || p.route.To != p.to || len(p.route.Steps) == 0 || len(p.route.Steps) != len(p.route.Tiers) {
				t.Fatalf("%v -> %v: route %+v", p.from, p.to, p.route)
			}
			want := max(p.from.Size(r.n), p.to.Size(r.n))
			if p.copyB != want {
				t.Fatalf("%v -> %v: copies %d bytes, want %d", p.from, p.to, p.copyB, want)
			}
			if p.mismatch > 0 {
				t.Fatalf("%v -> %v: %d elements differ from the generic tier", p.from, p.to, p.mismatch)
			}
			if (r.tier == "generic") != (p.mismatch == -1) {
				t.Fatalf("%v -> %v on %s: mismatch %d", p.from, p.to, r.tier, p.mismatch)
			}
			if p.allocs != 0 {
				t.Fatalf("%v -> %v: %v allocations per call", p.from, p.to, p.allocs)
			}
		}
		r.header = []string{"cpu", "tiers", "Command: `x` (date, load)"}

		var md bytes.Buffer
		r.writeMarkdown(&md, 20)
		s := md.String()
		for _, want := range []string{"| distinct (from ≠ to) | 20 |", "| same type (a copy) | 5 |", "The 20 slowest distinct pairs", "| **F16** |"} {
			if !strings.Contains(s, want) {
				t.Fatalf("markdown lacks %q:\n%s", want, s)
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
		if len(rows) != 1+len(r.pairs) || strings.Join(rows[0][:6], ",") != "from,to,ratio,elem_per_ns,route,tiers" {
			t.Fatalf("CSV: %d rows, header %v", len(rows), rows[0])
		}

		var sv bytes.Buffer
		if err := r.writeSVG(&sv); err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(&sv)
		cells := 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("SVG does not parse: %v", err)
			}
			if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "title" {
				cells++
			}
		}
		if cells != len(r.pairs) {
			t.Fatalf("SVG has %d cells, want %d", cells, len(r.pairs))
		}
	}
}

func TestMxColor(t *testing.T) {
	prev := ""
	for _, v := range []float64{0.0001, 0.001, 0.01, 0.1, 0.25, 0.5, 1, 2, 4, 100} {
		c, _ := mxColor(v)
		if len(c) != 7 || c[0] != '#' {
			t.Fatalf("mxColor(%v) = %q", v, c)
		}
		if c == prev && v > 0.001 && v <= 4 {
			t.Fatalf("mxColor(%v) = mxColor of the previous value", v)
		}
		prev = c
	}
	if c, _ := mxColor(math.NaN()); c != "#dddddd" {
		t.Fatalf("NaN colour %q", c)
	}
}
