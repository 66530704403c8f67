// Package shape holds what the tensor file formats (npy, safetensors) share
// about shapes.
package shape

import (
	"math"
	"math/bits"
)

// Elements returns the product of the dimensions, and false when it
// overflows int64. Dimensions are assumed non-negative (the readers check).
func Elements(dims []int64) (int64, bool) {
	n := uint64(1)
	for _, d := range dims {
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		n = lo
	}
	return int64(n), true
}
