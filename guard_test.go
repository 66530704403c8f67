//go:build (linux || darwin) && (amd64 || arm64)

package tensorcast

import (
	"bytes"
	"math/rand/v2"
	"runtime/debug"
	"syscall"
	"testing"
	"unsafe"

	"github.com/tensorcast/tensorcast/internal/ref"
)

// guarded is a mapping whose pages are readable and writable except for one
// inaccessible guard page before the data area and one after it, so a kernel
// that reads or writes a byte outside its slices faults.
type guarded struct {
	mem         []byte
	data        []byte // the accessible pages between the guards
	page, pages int
}

func newGuarded(t *testing.T, size int) *guarded {
	page := syscall.Getpagesize()
	pages := (size + page - 1) / page
	mem, err := syscall.Mmap(-1, 0, (pages+2)*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[(pages+1)*page:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return &guarded{mem: mem, data: mem[page : (pages+1)*page], page: page, pages: pages}
}

// atEnd returns size bytes whose last byte is just before the upper guard;
// atStart returns size bytes whose first byte is just after the lower guard;
// at returns size bytes starting off bytes into the area.
func (g *guarded) atEnd(size int) []byte   { return g.data[len(g.data)-size : len(g.data) : len(g.data)] }
func (g *guarded) atStart(size int) []byte { return g.data[:size:size] }
func (g *guarded) at(off, size int) []byte { return g.data[off : off+size : off+size] }

// TestKernelsGuardPages runs every kernel of every tier on every length
// 0..1024 with src and dst flush against a guard page (after, then before)
// and at every start offset 0..63, and checks the result against the
// reference and that no byte of dst beyond the result changed.
func TestKernelsGuardPages(t *testing.T) {
	maxN, offsets := 1024, 64
	if testing.Short() {
		maxN, offsets = 130, 8
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a fault fails the test with its case
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range kernelCases() {
		srcAll := randomTensor(rng, c.from, maxN)
		// want[n] would differ from a prefix of the full result only in a
		// packed last byte; compute the full result and patch per n.
		wantAll := make([]byte, c.to.Size(maxN))
		ref.Cast(wantAll, ref.Kind(c.to), srcAll, ref.Kind(c.from), maxN, refOptions(c.opt))
		src := newGuarded(t, c.from.Size(maxN)+offsets)
		dst := newGuarded(t, c.to.Size(maxN)+offsets+8)
		for _, k := range tiers {
			for n := 0; n <= maxN; n++ {
				ssz, dsz := c.from.Size(n), c.to.Size(n)
				want := append([]byte(nil), wantAll[:dsz]...)
				clearPadding(want, c.to, n)
				check := func(where string, d, s []byte, canary []byte) {
					copy(s, srcAll[:ssz])
					for i := range canary {
						canary[i] = 0xA5
					}
					c.run(k, d, s, n)
					if !bytes.Equal(d[:dsz], want) {
						t.Fatalf("%s [%s] n=%d %s: got % x, want % x", c.name, c.tier(k), n, where, d[:dsz], want)
					}
					for i, b := range canary[dsz:] {
						if b != 0xA5 {
							t.Fatalf("%s [%s] n=%d %s: wrote dst byte %d beyond the result", c.name, c.tier(k), n, where, dsz+i)
						}
					}
				}
				d := dst.atEnd(dsz)
				check("flush before the upper guard", d, src.atEnd(ssz), d)
				d = dst.atStart(dsz + 8)
				check("flush after the lower guard", d, src.atStart(ssz), d)
				for off := 1; off < offsets; off++ {
					d := dst.at(off, dsz+8)
					check("at an offset", d, src.at(off, ssz), d)
				}
			}
		}
	}
}

// TestGuardPagesFault proves the guard pages are armed: touching the byte
// after the data area faults.
func TestGuardPagesFault(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	g := newGuarded(t, 100)
	end := g.atEnd(1)
	defer func() {
		if recover() == nil {
			t.Fatal("reading past the guarded area did not fault")
		}
	}()
	p := (*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(end)), 1))
	guardSink = *p
	t.Fatal("unreachable")
}

var guardSink byte

// byteMaps runs the byte-to-byte kernel run on src's first n bytes for n =
// 32, 64, 96 (src flush against the start of the guarded region, dst
// against its end) and 1024 (the other way round), and checks every byte
// against want.
func (g *guarded) byteMaps(t *testing.T, name string, src []byte, run func(dst, src []byte), want func(x byte) byte) {
	t.Helper()
	for _, n := range []int{32, 64, 96, 1024} {
		s, d := g.atStart(n), g.atEnd(n)
		if n == 1024 {
			s, d = g.atEnd(n), g.atStart(n)
		}
		copy(s, src)
		run(d, s)
		for i := range n {
			if w := want(s[i]); d[i] != w {
				t.Fatalf("%s guarded n=%d: byte %d: got %#02x, want %#02x", name, n, i, d[i], w)
			}
		}
	}
}

// everyByte returns n source bytes for tableKernel: i·7 mod 256, every
// byte, in a different lane each pass of 256.
func everyByte(n int) []uint8 {
	src := make([]uint8, n)
	for i := range src {
		src[i] = uint8(i * 7)
	}
	return src
}

// tableKernel checks the byte-to-byte kernel run against the table tab:
// on src's first n bytes for every n up to len(src) (src holding every byte
// in several lanes), then with byteMaps against guard pages.
func (g *guarded) tableKernel(t *testing.T, name string, src []byte, run func(dst, src []byte), tab []uint8) {
	t.Helper()
	for n := 0; n <= len(src); n++ {
		got, want := make([]uint8, n), make([]uint8, n)
		run(got, src[:n])
		for i, x := range src[:n] {
			want[i] = tab[x]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s n=%d: got %x, want %x", name, n, got, want)
		}
	}
	g.byteMaps(t, name, src, run, func(x byte) byte { return tab[x] })
}
