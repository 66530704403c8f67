//go:build race

package tensorcast

import (
	"runtime"
	"unsafe"
)

// raceRead and raceWrite declare the memory an assembly kernel touches to
// the race detector, which cannot see inside assembly.
func raceRead[T any](s []T) {
	if len(s) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(s[0])))
	}
}

func raceWrite[T any](s []T) {
	if len(s) > 0 {
		runtime.RaceWriteRange(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(s[0])))
	}
}

// raceEnabled tells tests whether the race detector is on.
const raceEnabled = true
