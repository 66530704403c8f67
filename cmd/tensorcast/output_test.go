//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tensorcast/tensorcast/internal/npy"
)

// The tests of how convert writes OUT (output.go): devices, FIFOs, sockets
// and symbolic links, OUT that is IN, modes, errors, and signals.

// outCase is a conversion in one of the three modes, with its expected
// output.
type outCase struct {
	mode string
	in   string
	args []string // convert's flags, without IN and OUT
	want []byte   // the output, from a conversion to a new regular file
}

func (c outCase) cmd(extra ...string) []string {
	return append(append([]string{"convert", "-q"}, c.args...), extra...)
}

// outCases writes a small input of each mode into dir and converts each
// once to a regular file for the expected output.
func outCases(t *testing.T, dir string) []outCase {
	t.Helper()
	data := float32Bytes(fp16Values(3000)...)
	cases := []outCase{
		{"raw", writeFile(t, dir, "in.f32", data), []string{"-from", "FLOAT", "-to", "FLOAT16"}, nil},
		{"safetensors", writeFile(t, dir, "in.safetensors", encodeST([][2]string{{"k", "v"}},
			[]genTensor{gen("w", "F32", 3000), gen("ids", "I64", 5)}, nil, true)), []string{"-to", "BF16"}, nil},
		{"npy", writeFile(t, dir, "in.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (3000,), }", data)), []string{"-to", "float16"}, nil},
	}
	for i, c := range cases {
		ref := filepath.Join(dir, "ref")
		if code, _, stderr := runCmd(t, nil, c.cmd(c.in, ref)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.mode, code, stderr)
		}
		cases[i].want = readFile(t, ref)
		os.Remove(ref)
	}
	return cases
}

// assertNoTemp checks that no temporary file is left in the directories.
func assertNoTemp(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("temporary file %s left in %s", e.Name(), d)
				os.Remove(filepath.Join(d, e.Name())) // so the next case starts clean
			}
		}
	}
}

// assertError checks a failed run: exit 1, one stderr line naming OUT (as
// given) and containing want, never a temporary file's name.
func assertError(t *testing.T, what string, code int, stderr, out, want string) {
	t.Helper()
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, out) || !strings.Contains(stderr, want) || strings.Contains(stderr, ".tmp-") {
		t.Errorf("%s: exit %d, stderr %q\nwant exit 1 and one line naming %s with %q", what, code, stderr, out, want)
	}
}

func TestConvertOutCharDevice(t *testing.T) {
	dir := t.TempDir()
	cases := outCases(t, dir)
	if os.Geteuid() != 0 {
		// /dev/full: written directly, so the write fails with ENOSPC,
		// named. Only when not root: a regression would then fail to
		// create its temporary file in /dev rather than replace /dev/full.
		if _, err := os.Stat("/dev/full"); err == nil {
			for _, c := range cases {
				code, _, stderr := runCmd(t, nil, c.cmd(c.in, "/dev/full")...)
				assertError(t, c.mode+" to /dev/full", code, stderr, "write /dev/full", "no space left on device")
			}
		}
		t.Skip("not root: mknod of a character device is not allowed")
	}
	// Nodes of /dev/null (1, 3) and /dev/full (1, 7) in the temporary
	// directory; the real /dev is not touched.
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	for _, n := range []struct {
		path  string
		minor int
	}{{null, 3}, {full, 7}} {
		if err := syscall.Mknod(n.path, syscall.S_IFCHR|0o666, 1<<8|n.minor); err != nil {
			t.Skipf("mknod: %v", err)
		}
	}
	for _, c := range cases {
		if code, _, stderr := runCmd(t, nil, c.cmd(c.in, null)...); code != 0 {
			t.Errorf("%s to a null device: exit %d: %s", c.mode, code, stderr)
		}
		code, _, stderr := runCmd(t, nil, c.cmd(c.in, full)...)
		assertError(t, c.mode+" to a full device", code, stderr, "write "+full, "no space left on device")
		for _, p := range []string{null, full} {
			st, err := os.Lstat(p)
			if err != nil || st.Mode()&fs.ModeCharDevice == 0 || st.Sys().(*syscall.Stat_t).Rdev != uint64(1<<8|map[string]int{null: 3, full: 7}[p]) {
				t.Fatalf("%s: %s is no longer the character device: %v, %v", c.mode, p, st.Mode(), err)
			}
		}
		assertNoTemp(t, dir)
	}
}

// receive waits up to 10 s for what a reader goroutine got.
func receive(t *testing.T, got <-chan []byte) []byte {
	t.Helper()
	select {
	case b := <-got:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("the reader got nothing in 10 s")
	}
	return nil
}

func TestConvertOutFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range outCases(t, dir) {
		got := make(chan []byte)
		go func() {
			f, err := os.Open(fifo) // waits for the writer
			if err != nil {
				got <- []byte(err.Error())
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- b
		}()
		if code, _, stderr := runCmd(t, nil, c.cmd(c.in, fifo)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.mode, code, stderr)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("%s: the FIFO was replaced: %v %v", c.mode, st.Mode(), err)
		}
		if b := receive(t, got); !bytes.Equal(b, c.want) {
			t.Errorf("%s: the FIFO's reader got %d bytes, want the %d of a file", c.mode, len(b), len(c.want))
		}
		assertNoTemp(t, dir)
	}
}

func TestConvertOutSocket(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("listen: %v", err)
	}
	defer l.Close()
	for _, c := range outCases(t, dir) {
		got := make(chan []byte)
		go func() {
			conn, err := l.Accept()
			if err != nil {
				got <- []byte(err.Error())
				return
			}
			b, _ := io.ReadAll(conn)
			conn.Close()
			got <- b
		}()
		if code, _, stderr := runCmd(t, nil, c.cmd(c.in, sock)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.mode, code, stderr)
		}
		if st, err := os.Lstat(sock); err != nil || st.Mode()&fs.ModeSocket == 0 {
			t.Fatalf("%s: the socket was replaced: %v %v", c.mode, st.Mode(), err)
		}
		if b := receive(t, got); !bytes.Equal(b, c.want) {
			t.Errorf("%s: the socket's peer got %d bytes, want %d", c.mode, len(b), len(c.want))
		}
	}
}

func TestConvertOutSymlink(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(b, "target")
	link, chain := filepath.Join(a, "link"), filepath.Join(a, "chain")
	dangling, created := filepath.Join(a, "dangling"), filepath.Join(b, "created")
	// Relative targets: resolved from the link's directory.
	for _, l := range [][2]string{{"../b/target", link}, {"link", chain}, {"../b/created", dangling}, {"../b", filepath.Join(a, "dir")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range outCases(t, root) {
		for _, out := range []string{link, chain} {
			if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := runCmd(t, nil, c.cmd(c.in, out)...); code != 0 {
				t.Fatalf("%s to %s: exit %d: %s", c.mode, out, code, stderr)
			}
			if !bytes.Equal(readFile(t, target), c.want) {
				t.Errorf("%s to %s: the link's target does not hold the output", c.mode, out)
			}
			if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
				t.Errorf("%s to %s: the target's mode became %v, want 0640", c.mode, out, st.Mode())
			}
			for _, l := range [][2]string{{link, "../b/target"}, {chain, "link"}} {
				if got, err := os.Readlink(l[0]); err != nil || got != l[1] {
					t.Errorf("%s to %s: the link %s now reads %q, %v", c.mode, out, l[0], got, err)
				}
			}
			assertNoTemp(t, root, a, b)
		}
		// A dangling link creates its target.
		os.Remove(created)
		if code, _, stderr := runCmd(t, nil, c.cmd(c.in, dangling)...); code != 0 {
			t.Fatalf("%s to a dangling link: exit %d: %s", c.mode, code, stderr)
		}
		if !bytes.Equal(readFile(t, created), c.want) {
			t.Errorf("%s to a dangling link: its target does not hold the output", c.mode)
		}
		if st, err := os.Lstat(dangling); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s to a dangling link: it is no longer a link", c.mode)
		}
		// A link to a directory is a directory.
		code, _, stderr := runCmd(t, nil, c.cmd(c.in, filepath.Join(a, "dir"))...)
		assertError(t, c.mode+" to a link to a directory", code, stderr, filepath.Join(a, "dir"), "is a directory")
		assertNoTemp(t, root, a, b)
	}
	// A loop of links.
	loop := filepath.Join(a, "loop")
	os.Symlink("loop", loop)
	c := outCases(t, t.TempDir())[0]
	code, _, stderr := runCmd(t, nil, c.cmd(c.in, loop)...)
	assertError(t, "a loop of links", code, stderr, loop, "too many levels of symbolic links")
}

func TestConvertOutIsIn(t *testing.T) {
	dir := t.TempDir()
	for _, c := range outCases(t, dir) {
		orig := readFile(t, c.in)
		hard, sym := filepath.Join(dir, "hard"), filepath.Join(dir, "sym")
		if err := os.Link(c.in, hard); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Base(c.in), sym); err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{c.in, hard, sym} {
			code, _, stderr := runCmd(t, nil, c.cmd(c.in, out)...)
			want := "is the same file as IN " + c.in + ": refusing to replace the input (add -in-place"
			if out == c.in {
				want = out + ": is IN: refusing to replace the input (add -in-place to convert it in place)"
			}
			assertError(t, c.mode+": OUT "+out, code, stderr, out, want)
			if !bytes.Equal(readFile(t, c.in), orig) {
				t.Fatalf("%s: OUT %s: the input changed", c.mode, out)
			}
		}
		// Raw data on stdin redirected from OUT.
		if c.mode == "raw" {
			f, err := os.Open(c.in)
			if err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCmd(t, f, c.cmd("-", c.in)...)
			f.Close()
			assertError(t, "stdin from OUT", code, stderr, c.in, "is the same file as IN (stdin)")
		}
		// With -in-place, through the symbolic link: the input is replaced,
		// the link stays; the hard link keeps the old content.
		if code, _, stderr := runCmd(t, nil, c.cmd("-in-place", c.in, sym)...); code != 0 {
			t.Fatalf("%s -in-place: exit %d: %s", c.mode, code, stderr)
		}
		if !bytes.Equal(readFile(t, c.in), c.want) {
			t.Errorf("%s -in-place: the input does not hold the output", c.mode)
		}
		if !bytes.Equal(readFile(t, hard), orig) {
			t.Errorf("%s -in-place: the other hard link changed", c.mode)
		}
		if st, err := os.Lstat(sym); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s -in-place: the link was replaced", c.mode)
		}
		os.Remove(hard)
		os.Remove(sym)
		assertNoTemp(t, dir)
	}
}

func TestConvertOutMode(t *testing.T) {
	dir := t.TempDir()
	cases := outCases(t, dir)
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, c := range cases {
		for _, m := range []struct {
			umask    int
			existing fs.FileMode // 0: a new file
			want     fs.FileMode
		}{
			{0o077, 0, 0o600}, {0o022, 0, 0o644}, {0o002, 0, 0o664}, {0o277, 0, 0o400},
			{0o077, 0o640, 0o640}, {0o022, 0o604, 0o604}, {0o077, 0o755, 0o755},
		} {
			out := filepath.Join(dir, "out")
			os.Remove(out)
			if m.existing != 0 {
				writeFile(t, dir, "out", []byte("old"))
				if err := os.Chmod(out, m.existing); err != nil {
					t.Fatal(err)
				}
			}
			syscall.Umask(m.umask)
			code, _, stderr := runCmd(t, nil, c.cmd(c.in, out)...)
			syscall.Umask(0o022)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", c.mode, code, stderr)
			}
			if st, _ := os.Stat(out); st.Mode().Perm() != m.want {
				t.Errorf("%s, umask %03o, existing %v: mode %v, want %v", c.mode, m.umask, m.existing, st.Mode().Perm(), m.want)
			}
		}
	}
	// A replaced file keeps its owner (root can give it away).
	if os.Geteuid() == 0 {
		c, out := cases[1], filepath.Join(dir, "owned")
		writeFile(t, dir, "owned", []byte("old"))
		if err := os.Chown(out, 1234, 5678); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCmd(t, nil, c.cmd(c.in, out)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		st, _ := os.Stat(out)
		if s := st.Sys().(*syscall.Stat_t); s.Uid != 1234 || s.Gid != 5678 {
			t.Errorf("owner %d:%d, want 1234:5678", s.Uid, s.Gid)
		}
	}
	assertNoTemp(t, dir)
}

func TestConvertOutErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range outCases(t, dir) {
		// A missing directory, named as given (relative here).
		out := filepath.Join(dir, "nope", "out")
		code, _, stderr := runCmd(t, nil, c.cmd(c.in, out)...)
		assertError(t, c.mode+": missing directory", code, stderr, out, "no such directory: "+filepath.Join(dir, "nope"))
		// A directory.
		code, _, stderr = runCmd(t, nil, c.cmd(c.in, dir)...)
		if stderr != "tensorcast: "+dir+": is a directory (OUT must name a file)\n" || code != 1 {
			t.Errorf("%s: OUT a directory: exit %d, stderr %q", c.mode, code, stderr)
		}
		// A file as a directory.
		code, _, stderr = runCmd(t, nil, c.cmd(c.in, filepath.Join(c.in, "x"))...)
		assertError(t, c.mode+": a file as a directory", code, stderr, "open "+filepath.Join(c.in, "x"), "not a directory")
		assertNoTemp(t, dir)
	}
	// A full file system: a 64 KiB tmpfs (root only).
	if os.Geteuid() != 0 {
		t.Skip("not root: no tmpfs for a full file system")
	}
	small := filepath.Join(dir, "small")
	if err := os.Mkdir(small, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", small, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	defer syscall.Unmount(small, 0)
	big := float32Bytes(fp16Values(60000)...) // 234 KiB; 117 KiB as FLOAT16
	cases := []outCase{
		{"raw", writeFile(t, dir, "big.f32", big), []string{"-from", "FLOAT", "-to", "FLOAT16"}, nil},
		{"safetensors", writeFile(t, dir, "big.safetensors", encodeST(nil, []genTensor{gen("w", "F32", 60000)}, nil, true)), []string{"-to", "F16"}, nil},
		{"npy", writeFile(t, dir, "big.npy", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (60000,), }", big)), []string{"-to", "float16"}, nil},
	}
	for _, c := range cases {
		for _, existing := range []bool{false, true} {
			out := filepath.Join(small, "out")
			os.Remove(out)
			if existing {
				writeFile(t, small, "out", []byte("old"))
			}
			code, _, stderr := runCmd(t, nil, c.cmd(c.in, out)...)
			assertError(t, c.mode+": full file system", code, stderr, out, "no space left on device")
			if existing {
				assertOnly(t, small, "out")
				if string(readFile(t, out)) != "old" {
					t.Errorf("%s: full file system: OUT changed", c.mode)
				}
			} else {
				assertOnly(t, small)
			}
		}
	}
}

// sparseInput writes a file of header followed by size bytes of zeros (a
// hole: no disk used).
func sparseInput(t *testing.T, path string, header []byte, size int64) {
	t.Helper()
	if err := os.WriteFile(path, header, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(header))+size); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to 20 s.
func waitFor(cond func() bool) bool {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// hasTemp reports whether dir holds a temporary file.
func hasTemp(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			return true
		}
	}
	return false
}

// TestConvertSignals sends SIGINT, SIGTERM and SIGHUP to the command (this
// test binary in a subprocess) while it converts to an existing OUT: a raw
// tensor read from a pipe that the test keeps open (so the conversion waits
// for more input), and 1 GiB .npy and .safetensors files (holes, so nothing
// is written to disk for them), signalled as soon as the temporary file
// appears. The command must end by that signal, say so on stderr, remove
// the temporary file and leave OUT untouched.
func TestConvertSignals(t *testing.T) {
	dir := t.TempDir()
	const n = 1 << 28 // FLOAT elements: 1 GiB
	st := fmt.Sprintf(`{"w":{"dtype":"F32","shape":[%d],"data_offsets":[0,%d]}}`, n, 4*n)
	st += strings.Repeat(" ", (8-len(st)%8)%8)
	stHeader := binary.LittleEndian.AppendUint64(nil, uint64(len(st)))
	sparseInput(t, filepath.Join(dir, "in.safetensors"), append(stHeader, st...), 4*n)
	sparseInput(t, filepath.Join(dir, "in.npy"), npy.Encode("<f4", false, []int64{n}), 4*n)
	modes := []struct {
		mode string
		args []string
	}{
		{"raw", []string{"-from", "FLOAT", "-to", "FLOAT16", "-"}},
		{"safetensors", []string{"-to", "BF16", filepath.Join(dir, "in.safetensors")}},
		{"npy", []string{"-to", "float16", filepath.Join(dir, "in.npy")}},
	}
	for _, m := range modes {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			name := fmt.Sprintf("%s, %v", m.mode, sig)
			if signal.Ignored(sig) {
				// Inherited (e.g. under nohup): the command keeps it
				// ignored, as TestConvertSignalIgnored checks.
				t.Logf("%s: skipped, the signal is ignored in this process", name)
				continue
			}
			out := filepath.Join(dir, "out")
			writeFile(t, dir, "out", []byte("old"))
			cmd := exec.Command(os.Args[0], append(append([]string{"convert"}, m.args...), out)...)
			cmd.Env = append(os.Environ(), "TENSORCAST_TEST_MAIN=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			var stdin io.WriteCloser
			if m.mode == "raw" {
				var err error
				if stdin, err = cmd.StdinPipe(); err != nil {
					t.Fatal(err)
				}
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if stdin != nil {
				stdin.Write(make([]byte, 3<<20)) // three chunks, then wait
			}
			if !waitFor(func() bool { return hasTemp(dir) }) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s: no temporary file appeared: %s", name, stderr.String())
			}
			if m.mode == "raw" {
				// Replacing a file, the temporary file is 0600 until done.
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if info, err := e.Info(); err == nil && strings.Contains(e.Name(), ".tmp-") && info.Mode().Perm() != 0o600 {
						t.Errorf("%s: temporary file of mode %v, want 0600", name, info.Mode().Perm())
					}
				}
			}
			cmd.Process.Signal(sig)
			timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
			err := cmd.Wait()
			timer.Stop()
			if stdin != nil {
				stdin.Close()
			}
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if err == nil || !ws.Signaled() || ws.Signal() != sig {
				t.Errorf("%s: the command ended with %v (%v), want killed by %v", name, err, cmd.ProcessState, sig)
			}
			wantMsg := fmt.Sprintf("tensorcast: interrupted by %v: %s not written\n", map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[sig], out)
			if !strings.HasSuffix(stderr.String(), wantMsg) {
				t.Errorf("%s: stderr %q, want it to end %q", name, stderr.String(), wantMsg)
			}
			assertNoTemp(t, dir)
			if got := string(readFile(t, out)); got != "old" {
				t.Errorf("%s: OUT changed (%d bytes)", name, len(got))
			}
		}
	}
}

// TestConvertSignalIgnored checks that a signal ignored when the command
// starts (SIGHUP under nohup) stays ignored: the conversion goes on.
func TestConvertSignalIgnored(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.f16")
	// The shell ignores SIGHUP and execs the command, which inherits that
	// (execve keeps SIG_IGN). signal.Ignore in this process would not do:
	// signal.Reset after it leaves SIGHUP ignored here for later tests.
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cmd := exec.Command(sh, "-c", `trap "" HUP; exec "$0" "$@"`, os.Args[0], "convert", "-from", "FLOAT", "-to", "FLOAT16", "-", out)
	cmd.Env = append(os.Environ(), "TENSORCAST_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	data := float32Bytes(fp16Values(1 << 18)...)
	stdin.Write(data[:len(data)/2])
	if !waitFor(func() bool { return hasTemp(dir) }) {
		cmd.Process.Kill()
		t.Fatalf("no temporary file appeared: %s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(100 * time.Millisecond)
	stdin.Write(data[len(data)/2:])
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after an ignored SIGHUP: %v: %s", err, stderr.String())
	}
	if got := len(readFile(t, out)); got != len(data)/2 {
		t.Errorf("output %d bytes, want %d", got, len(data)/2)
	}
	assertOnly(t, dir, "out.f16")
}
