//go:build linux

package tensorcast

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// lutClock returns the calling thread's CPU clock, which does not advance
// while the thread waits for a CPU (so other processes on a loaded machine
// do not inflate it), and the function that unlocks the goroutine from the
// thread.
func lutClock() (clock func() int64, unlock func()) {
	runtime.LockOSThread()
	return func() int64 {
		var ts unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
			panic(err)
		}
		return ts.Nano()
	}, runtime.UnlockOSThread
}
