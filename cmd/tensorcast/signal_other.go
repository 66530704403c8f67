//go:build !unix

package main

import (
	"io/fs"
	"os"
	"syscall"
)

// stopSignals stop a conversion to a file cleanly: the temporary output is
// removed before the process ends.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

var stopSignalNames = map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM"}

// dieBySignal ends the process after a stop signal, with status 1.
func dieBySignal(os.Signal) { os.Exit(1) }

// fileOwner is not used where files have no Unix owner.
func fileOwner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
