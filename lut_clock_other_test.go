//go:build !linux

package tensorcast

import "time"

// lutClock returns a wall clock where there is no thread clock.
func lutClock() (clock func() int64, unlock func()) {
	return func() int64 { return time.Now().UnixNano() }, func() {}
}
