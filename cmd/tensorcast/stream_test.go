package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
)

// genReader produces size bytes of float32 data: element i has the bit
// pattern i*2654435761 (mod 2^32), so every class of value (NaN, Inf,
// subnormals) appears. It allocates nothing.
type genReader struct {
	pos, size int64
}

func genWord(i int64) uint32 { return uint32(i) * 2654435761 }

func (g *genReader) Read(p []byte) (int, error) {
	if g.pos >= g.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), g.size-g.pos)]
	n := 0
	for n < len(p) {
		if g.pos%4 == 0 && len(p)-n >= 4 {
			binary.LittleEndian.PutUint32(p[n:], genWord(g.pos/4))
			n += 4
			g.pos += 4
			continue
		}
		p[n] = byte(genWord(g.pos/4) >> (8 * uint(g.pos%4)))
		n++
		g.pos++
	}
	return n, nil
}

// checkWriter counts the bytes written and compares the first len(want)
// with want.
type checkWriter struct {
	n    int64
	want []byte
	bad  bool
}

func (w *checkWriter) Write(p []byte) (int, error) {
	if w.n < int64(len(w.want)) {
		k := min(int64(len(p)), int64(len(w.want))-w.n)
		if !bytes.Equal(p[:k], w.want[w.n:w.n+k]) {
			w.bad = true
		}
	}
	w.n += int64(len(p))
	return len(p), nil
}

// procStatusKiB reads a "Name:   123 kB" field of /proc/self/status, or -1.
func procStatusKiB(name string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// TestConvertStreamsFlatMemory streams 1 GiB of FLOAT through convert to
// FLOAT16 and checks that memory does not grow with the input: the bytes
// allocated, the heap obtained from the OS and the peak RSS each grow by less
// than 64 MiB.
func TestConvertStreamsFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 GiB; skipped with -short")
	}
	const size = 1 << 30
	const limit = 64 << 20

	// The expected start of the output, from one Cast.
	head := make([]byte, 1<<16)
	if _, err := (&genReader{size: int64(len(head))}).Read(head); err != nil {
		t.Fatal(err)
	}
	wantHead := make([]byte, len(head)/2)
	if err := tensorcast.Cast(wantHead, tensorcast.Float16, head, tensorcast.Float, len(head)/4, tensorcast.Options{}); err != nil {
		t.Fatal(err)
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// Reset the peak RSS to the current RSS (Linux 4.0+), so VmHWM afterwards
	// is the peak during the conversion.
	resetPeak := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	rssBefore, hwmBefore := procStatusKiB("VmRSS"), procStatusKiB("VmHWM")

	w := &checkWriter{want: wantHead}
	if err := convertStream(&genReader{size: size}, w, tensorcast.Float, tensorcast.Float16, tensorcast.Options{}); err != nil {
		t.Fatal(err)
	}

	runtime.ReadMemStats(&after)
	hwmAfter := procStatusKiB("VmHWM")

	if w.n != size/2 {
		t.Errorf("wrote %d bytes, want %d", w.n, size/2)
	}
	if w.bad {
		t.Errorf("the first %d output bytes differ from tensorcast.Cast", len(wantHead))
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	heapGrowth := int64(after.HeapSys) - int64(before.HeapSys)
	t.Logf("1 GiB FLOAT -> FLOAT16: %.1f MiB allocated, heap from OS grew %.1f MiB",
		float64(alloc)/(1<<20), float64(heapGrowth)/(1<<20))
	if alloc > limit {
		t.Errorf("allocated %d bytes while streaming, want < %d", alloc, limit)
	}
	if heapGrowth > limit {
		t.Errorf("heap grew by %d bytes, want < %d", heapGrowth, limit)
	}
	if hwmAfter < 0 {
		t.Logf("no /proc/self/status here: peak RSS not measured")
		return
	}
	base := hwmBefore
	if !resetPeak {
		base = max(hwmBefore, rssBefore)
	}
	t.Logf("peak RSS during the conversion: %.1f MiB (RSS before %.1f MiB, peak before %.1f MiB, peak reset: %v)",
		float64(hwmAfter)/1024, float64(rssBefore)/1024, float64(hwmBefore)/1024, resetPeak)
	if grow := (hwmAfter - base) * 1024; grow > limit {
		t.Errorf("peak RSS grew by %d bytes while streaming, want < %d", grow, limit)
	}
}
