//go:build amd64 && gc && !purego && !noasm && (linux || darwin)

package tensorcast

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestCastParallelStreams checks that CastParallel decides on streaming
// stores for the whole tensor: with the threshold between the size of a
// piece and the size of the tensor, the pieces stream; above the tensor's
// size, they do not. Results equal Cast's.
func TestCastParallelStreams(t *testing.T) {
	if len(tiers) == 1 {
		t.Skip("only the generic tier on this machine")
	}
	withMinBytes(t, 64)
	const n = 1 << 14
	src := tierInputs(rand.New(rand.NewPCG(7, 7)), Float, n)
	want := make([]byte, 2*n)
	if err := Cast(want, Float16, src, Float, n, Options{}); err != nil {
		t.Fatal(err)
	}
	traffic := 4*n + 2*2*n // srcBytes + 2·dstBytes of the whole tensor
	for _, c := range []struct {
		min    int
		stream bool
	}{{traffic, true}, {traffic + 1, false}} {
		count := withStreamMin(t, c.min)
		got := make([]byte, 2*n+64)
		got = got[ntHead(got, 64):][:2*n]
		if err := CastParallel(got, Float16, src, Float, n, Options{}, 4); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("threshold %d: CastParallel differs from Cast", c.min)
		}
		if streamed := count.Load() > 0; streamed != c.stream {
			t.Errorf("threshold %d bytes, tensor %d: pieces streamed = %v, want %v", c.min, traffic, streamed, c.stream)
		}
	}
}
