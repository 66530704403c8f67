//go:build unix

package main

import (
	"io/fs"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopSignals stop a conversion to a file cleanly: the temporary output is
// removed before the process ends.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

var stopSignalNames = map[os.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// dieBySignal ends the process by sig with its default action, so that the
// parent sees what stopped it (a shell running a loop stops on a child
// killed by SIGINT, not on one exiting with a status).
func dieBySignal(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		syscall.Kill(syscall.Getpid(), s)
		time.Sleep(time.Second) // the signal is delivered meanwhile
		os.Exit(128 + int(s))
	}
	os.Exit(1)
}

// fileOwner returns the user and group that own the file of fi.
func fileOwner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
