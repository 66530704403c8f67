//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tensorcast/tensorcast"
)

// TestConvertMultiGiBFile writes a 2.5 GiB safetensors file of FLOAT
// tensors, converts it to BF16 with the command in a subprocess, checks
// every output byte against Cast and the header against the format, and
// asserts that the subprocess's peak RSS stayed under 100 MiB.
func TestConvertMultiGiBFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 3.75 GiB; skipped with -short")
	}
	const (
		bigTensors = 20
		bigElems   = 32 << 20 // 128 MiB of FLOAT each
		rssLimit   = 100 << 20
	)
	dir := t.TempDir()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		t.Skipf("statfs %s: %v", dir, err)
	}
	if free := uint64(fs.Bavail) * uint64(fs.Bsize); free < 10<<30 {
		t.Skipf("%s has %.1f GiB free, want 10 GiB", dir, float64(free)/(1<<30))
	}

	// The tensors: 20 big FLOAT ones, a FLOAT norm kept by --skip, an
	// INT64 one copied, an empty one. The data is one genReader stream.
	type spec struct {
		name, dtype string
		shape       []int64
		bytes       int64
	}
	var specs []spec
	for i := range bigTensors {
		specs = append(specs, spec{fmt.Sprintf("model.layers.%d.mlp.weight", i), "F32", []int64{bigElems / 4096, 4096}, 4 * bigElems})
		if i == bigTensors/2 {
			specs = append(specs, spec{"model.norm.weight", "F32", []int64{4096}, 4 * 4096},
				spec{"position_ids", "I64", []int64{1, 2048}, 8 * 2048},
				spec{"empty", "F32", []int64{0}, 0})
		}
	}
	var js []string
	var total int64
	for _, s := range specs {
		dims := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s.shape)), ","), "[]")
		js = append(js, fmt.Sprintf(`%q:{"dtype":%q,"shape":[%s],"data_offsets":[%d,%d]}`, s.name, s.dtype, dims, total, total+s.bytes))
		total += s.bytes
	}
	header := `{"__metadata__":{"format":"pt"},` + strings.Join(js, ",") + "}"
	in := filepath.Join(dir, "big.safetensors")
	out := filepath.Join(dir, "big-bf16.safetensors")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 4<<20)
	binary.Write(bw, binary.LittleEndian, uint64(len(header)))
	bw.WriteString(header)
	start := time.Now()
	if _, err := io.Copy(bw, &genReader{size: total}); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	// Synced, so that the conversion's own fsync does not wait for the
	// input's writeback.
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	inSize := int64(8+len(header)) + total
	t.Logf("wrote %.2f GiB input in %v", float64(inSize)/(1<<30), time.Since(start).Round(time.Millisecond))

	// Convert, in a subprocess: this test binary re-executed as the command.
	cmd := exec.Command(os.Args[0], "convert", "--to", "BF16", "--skip", "*norm*", in, out)
	cmd.Env = append(os.Environ(), "TENSORCAST_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start = time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("convert: %v: %s", err, stderr.String())
	}
	elapsed := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage")
	}
	peak := int64(ru.Maxrss) * 1024 // KiB on Linux
	if runtime.GOOS == "darwin" {
		peak = int64(ru.Maxrss) // bytes
	}
	t.Logf("convert: %s", strings.TrimSpace(stderr.String()))
	t.Logf("%.2f GiB FLOAT -> BF16 in %v: %.0f MiB/s of input; peak RSS %.1f MiB (limit %d MiB)",
		float64(inSize)/(1<<30), elapsed.Round(time.Millisecond), float64(inSize)/(1<<20)/elapsed.Seconds(),
		float64(peak)/(1<<20), rssLimit>>20)
	if peak > rssLimit {
		t.Errorf("peak RSS %d bytes, want < %d", peak, rssLimit)
	}

	// Check the output: header by the test's reader, data against Cast of
	// the regenerated input, tensor by tensor, in chunks.
	of, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close()
	st, err := of.Stat()
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(of, 4<<20)
	var lb [8]byte
	if _, err := io.ReadFull(br, lb[:]); err != nil {
		t.Fatal(err)
	}
	hb := make([]byte, binary.LittleEndian.Uint64(lb[:]))
	if _, err := io.ReadFull(br, hb); err != nil {
		t.Fatal(err)
	}
	p := parseSTHeader(t, append(lb[:], hb...), st.Size())
	if len(p.meta) != 1 || p.meta[0] != [2]string{"format", "pt"} {
		t.Errorf("metadata %q", p.meta)
	}
	gen := &genReader{size: total}
	inBuf := make([]byte, 4<<20)
	want := make([]byte, 2<<20)
	got := make([]byte, 4<<20)
	for i, s := range specs {
		if name := p.tensorNames()[i]; name != s.name {
			t.Fatalf("tensor %d is %q, want %q", i, name, s.name)
		}
		e := p.entries[s.name]
		convert := s.dtype == "F32" && s.name != "model.norm.weight"
		wantDtype := s.dtype
		if convert {
			wantDtype = "BF16"
		}
		if e.Dtype != wantDtype {
			t.Errorf("tensor %q: dtype %s, want %s", s.name, e.Dtype, wantDtype)
		}
		for done := int64(0); done < s.bytes; {
			k := min(s.bytes-done, int64(len(inBuf)))
			if _, err := io.ReadFull(gen, inBuf[:k]); err != nil {
				t.Fatal(err)
			}
			exp := inBuf[:k]
			if convert {
				n := int(k / 4)
				if err := tensorcast.Cast(want, tensorcast.BFloat16, inBuf[:k], tensorcast.Float, n, tensorcast.Options{}); err != nil {
					t.Fatal(err)
				}
				exp = want[:2*n]
			}
			if _, err := io.ReadFull(br, got[:len(exp)]); err != nil {
				t.Fatalf("tensor %q: reading the output: %v", s.name, err)
			}
			if !bytes.Equal(got[:len(exp)], exp) {
				t.Fatalf("tensor %q: output bytes at tensor byte %d differ from Cast", s.name, done)
			}
			done += k
		}
	}
	if n, _ := io.Copy(io.Discard, br); n != 0 {
		t.Errorf("%d bytes after the last tensor", n)
	}
}
