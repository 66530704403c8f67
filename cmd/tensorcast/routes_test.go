package main

import (
	"strings"
	"testing"

	"github.com/tensorcast/tensorcast"
)

// TestCPURoutes: `tensorcast cpu --routes` prints one line per ordered pair
// of numeric types, with the steps and tiers of tensorcast.Routes.
func TestCPURoutes(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "cpu", "--routes")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rs := tensorcast.Routes()
	if len(lines) != len(rs)+1 {
		t.Fatalf("%d lines, want a header and %d routes", len(lines), len(rs))
	}
	for i, r := range rs {
		f := strings.Fields(lines[i+1])
		if f[0] != r.From.String() || f[1] != r.To.String() || !strings.Contains(lines[i+1], r.Tiers[len(r.Tiers)-1]) {
			t.Fatalf("line %q does not show route %+v", lines[i+1], r)
		}
	}
}
