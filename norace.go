//go:build !race

package tensorcast

func raceRead[T any](s []T)  {}
func raceWrite[T any](s []T) {}

// raceEnabled tells tests whether the race detector is on.
const raceEnabled = false
