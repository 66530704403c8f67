//go:build linux

package main

import "golang.org/x/sys/unix"

// threadClockOK reports whether threadNanos works here.
const threadClockOK = true

// threadNanos returns the CPU time of the calling OS thread: it does not
// advance while the thread waits for a CPU, so other processes on a shared
// machine do not inflate it (the caller locks its goroutine to the thread).
func threadNanos() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}
