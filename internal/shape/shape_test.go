package shape

import (
	"math"
	"testing"
)

func TestElements(t *testing.T) {
	cases := []struct {
		dims []int64
		n    int64
		ok   bool
	}{
		{nil, 1, true},
		{[]int64{3, 4}, 12, true},
		{[]int64{0, 1 << 40}, 0, true},
		{[]int64{math.MaxInt64}, math.MaxInt64, true},
		{[]int64{1 << 32, 1 << 31}, 0, false},
		{[]int64{1 << 62, 2}, 0, false},
	}
	for _, c := range cases {
		if n, ok := Elements(c.dims); n != c.n || ok != c.ok {
			t.Errorf("Elements(%v) = %d, %v; want %d, %v", c.dims, n, ok, c.n, c.ok)
		}
	}
}
