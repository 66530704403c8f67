package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
)

// How convert writes OUT (a path, not stdout):
//
//   - A regular file, new or existing, is written to a temporary file in its
//     directory, synced, and renamed over OUT only once complete: a failed or
//     interrupted conversion leaves OUT untouched. The temporary file is
//     created with mode 0666, so that the kernel applies the umask (and any
//     default ACL) exactly as for a file the user creates; a replaced file's
//     mode (and, where allowed, owner) is copied onto it before the rename.
//   - A symbolic link is followed to its final target: the temporary file
//     and the rename happen there, and the link stays a link. A dangling
//     link creates its target, as a shell redirection does.
//   - Anything else (a character or block device, a FIFO, a Unix socket) is
//     opened and written directly: renaming over it would replace the node
//     itself (as root, "convert ... /dev/null" would replace /dev/null).
//   - OUT that is IN (the same regular file, also through links) is refused
//     unless -in-place: replacing the input is almost always a slip of the
//     command line. With -in-place the rename makes it safe, since the input
//     stays open and readable until the output is complete.
//
// Every error names OUT as the user wrote it, never the temporary file.

// output is a resolved OUT.
type output struct {
	name   string      // OUT as the user wrote it
	path   string      // the file written: name, or the final target of a symbolic link
	direct bool        // not a regular file: opened and written directly
	socket bool        // a Unix socket (connected to, not opened)
	old    fs.FileInfo // the regular file being replaced; nil for a new file
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// openOutput resolves OUT. inName and in are IN as written and its file
// information (in is nil when IN is not a file, e.g. a pipe on stdin).
func openOutput(name, inName string, in fs.FileInfo, inPlace bool) (*output, error) {
	o := &output{name: name, path: name}
	for links := 0; ; links++ {
		fi, err := os.Lstat(o.path)
		if errors.Is(err, fs.ErrNotExist) {
			return o, o.checkDir()
		}
		if err != nil {
			return nil, o.pathError("open", err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if links == maxLinks {
				return nil, fmt.Errorf("%s: too many levels of symbolic links", name)
			}
			target, err := os.Readlink(o.path)
			if err != nil {
				return nil, o.pathError("readlink", err)
			}
			if !filepath.IsAbs(target) {
				// Relative to the link's directory as the system resolves it
				// (a ".." in target follows the directory's own links).
				dir, err := filepath.EvalSymlinks(filepath.Dir(o.path))
				if err != nil {
					return nil, o.pathError("open", err)
				}
				target = filepath.Join(dir, target)
			}
			o.path = target
			continue
		}
		switch {
		case fi.IsDir():
			return nil, fmt.Errorf("%s: is a directory (OUT must name a file)", name)
		case !fi.Mode().IsRegular():
			o.direct = true
			o.socket = fi.Mode()&fs.ModeSocket != 0
		case in != nil && os.SameFile(in, fi) && !inPlace:
			same := "is IN"
			if name != inName {
				same = "is the same file as IN " + inName
			}
			return nil, fmt.Errorf("%s: %s: refusing to replace the input (add -in-place to convert it in place)", name, same)
		default:
			o.old = fi
		}
		return o, nil
	}
}

// checkDir reports a new file's directory that does not exist.
func (o *output) checkDir() error {
	dir := filepath.Dir(o.path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such directory: %s", o.name, dir)
	case err != nil:
		return o.pathError("open", err)
	case !st.IsDir():
		return fmt.Errorf("%s: not a directory: %s", o.name, dir)
	}
	return nil
}

// pathError is err (of a system call on OUT or its temporary file) as an
// error naming OUT as the user wrote it: "write out.bin: no space left on
// device".
func (o *output) pathError(op string, err error) error {
	return &fs.PathError{Op: op, Path: o.name, Err: cause(err)}
}

// cause strips the path (or paths) from an error of the os package.
func cause(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	case errors.As(err, &se):
		return se.Err
	}
	return err
}

// outWriter names OUT in the errors of writes to w.
type outWriter struct {
	w io.Writer
	o *output
}

func (w outWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		err = w.o.pathError("write", err)
	}
	return n, err
}

// write runs fn with a writer to OUT. While it runs, SIGINT, SIGTERM and
// SIGHUP (those not ignored when the process started, so that nohup keeps
// working) remove the temporary file, print one line on stderr and end the
// process by the same signal.
func (o *output) write(stderr io.Writer, fn func(io.Writer) error) error {
	g := guardSignals(stderr, o)
	defer g.release()
	if o.direct {
		return o.writeDirect(fn)
	}
	return o.writeReplace(fn, g)
}

func (o *output) writeDirect(fn func(io.Writer) error) error {
	var w io.WriteCloser
	if o.socket {
		c, err := net.Dial("unix", o.path)
		if err != nil {
			return o.pathError("connect", err)
		}
		w = c
	} else {
		// No O_TRUNC: a device or FIFO has nothing to truncate. Opening a
		// FIFO waits for its reader.
		f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
		if err != nil {
			return o.pathError("open", err)
		}
		w = f
	}
	err := fn(outWriter{w, o})
	if cerr := w.Close(); err == nil && cerr != nil {
		err = o.pathError("close", cerr)
	}
	return err
}

func (o *output) writeReplace(fn func(io.Writer) error, g *signalGuard) (err error) {
	dir := filepath.Dir(o.path)
	// A new file is created as 0666 less the umask, as the final file will
	// be. A replaced file's mode is set at the end; until then the
	// temporary file is 0600, never more open than the file it replaces.
	perm := fs.FileMode(0o666)
	if o.old != nil {
		perm = 0o600
	}
	g.mu.Lock()
	f, err := createTemp(dir, "."+filepath.Base(o.path)+".tmp-", perm)
	if err == nil {
		g.tmp = f.Name()
	}
	g.mu.Unlock()
	if err != nil {
		return o.pathError("create", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			g.mu.Lock()
			os.Remove(f.Name())
			g.tmp = ""
			g.mu.Unlock()
		}
	}()
	if err = fn(outWriter{f, o}); err != nil {
		return err
	}
	if o.old != nil {
		// Keep the replaced file's owner (when allowed: root, or a group
		// of the user's) and mode; chown first, as it clears setuid bits.
		if uid, gid, ok := fileOwner(o.old); ok {
			f.Chown(uid, gid)
		}
		mode := o.old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		if err = f.Chmod(mode); err != nil {
			return o.pathError("chmod", err)
		}
	}
	if err = f.Sync(); err != nil {
		return o.pathError("sync", err)
	}
	if err = f.Close(); err != nil {
		return o.pathError("close", err)
	}
	g.mu.Lock()
	err = os.Rename(f.Name(), o.path)
	if err == nil {
		g.tmp, g.done = "", true
	}
	g.mu.Unlock()
	if err != nil {
		return o.pathError("rename", err)
	}
	syncDir(dir)
	return nil
}

// createTemp creates a new file dir/prefix<random> for writing, with mode
// perm less the umask (os.CreateTemp always uses 0600, which the rename of a
// new file would keep).
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 1000 {
			continue
		}
		return f, err
	}
}

// syncDir makes a rename in dir durable where the system allows it (not on
// Windows, where directories cannot be synced); errors are ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// signalGuard removes the temporary output when a stop signal arrives.
// mu orders the removal with the creation and the rename of the temporary
// file: after a signal, OUT is either untouched or complete.
type signalGuard struct {
	mu   sync.Mutex
	tmp  string // the temporary file to remove; "" when none
	done bool   // OUT is complete (renamed)
	ch   chan os.Signal
	quit chan struct{}
}

func guardSignals(stderr io.Writer, o *output) *signalGuard {
	g := &signalGuard{ch: make(chan os.Signal, 1), quit: make(chan struct{})}
	for _, s := range stopSignals {
		if !signal.Ignored(s) {
			signal.Notify(g.ch, s)
		}
	}
	go func() {
		select {
		case sig := <-g.ch:
			g.mu.Lock() // held until the process ends: no rename after this
			what := o.name + " not written"
			switch {
			case g.tmp != "":
				os.Remove(g.tmp)
			case g.done:
				what = o.name + " was written"
			case o.direct:
				what = o.name + " may be incomplete"
			}
			fmt.Fprintf(stderr, "tensorcast: interrupted by %s: %s\n", signalName(sig), what)
			dieBySignal(sig)
		case <-g.quit:
		}
	}()
	return g
}

// release stops the guard once the output is done.
func (g *signalGuard) release() {
	signal.Stop(g.ch)
	close(g.quit)
}

// signalName is "SIGINT" for syscall.SIGINT.
func signalName(sig os.Signal) string {
	for _, s := range stopSignals {
		if s == sig {
			return stopSignalNames[sig]
		}
	}
	return sig.String()
}
