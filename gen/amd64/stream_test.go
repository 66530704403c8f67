package amd64

import (
	"strings"
	"testing"
)

// TestCheckStored checks the generator's account of a full step's stores:
// exact cover passes, a gap and a store past the step stop generation.
func TestCheckStored(t *testing.T) {
	panics := func(stored []storedRange) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = r.(string)
			}
		}()
		checkStored("k", stored, 64, 1)
		return ""
	}
	for _, c := range []struct {
		stored []storedRange
		want   string
	}{
		{[]storedRange{{0, 64}}, ""},
		{[]storedRange{{0, 16}, {16, 16}, {32, 32}}, ""},
		{[]storedRange{{32, 32}, {0, 32}, {0, 64}}, ""}, // overlapping (a fast path and its out-of-line twin)
		{nil, ""}, // no store through Step: not checked
		{[]storedRange{{0, 16}}, "leaves byte 16 of its 64 dst bytes unwritten"},
		{[]storedRange{{0, 32}, {40, 24}}, "leaves byte 32"},
		{[]storedRange{{0, 64}, {64, 16}}, "stores bytes 64..79 of its 64"},
		{[]storedRange{{-16, 16}, {0, 64}}, "stores bytes -16..-1"},
	} {
		got := panics(c.stored)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%v: got %q, want %q", c.stored, got, c.want)
		}
	}
}
