package tensorcast

import (
	"os"
	"strings"
	"testing"
)

// TestRequiredTier fails when TENSORCAST_REQUIRE_TIER names a tier family
// ("avx512", "avx2", "neon", "generic") other than the one dispatch chose,
// so that CI notices when detection silently falls back to a lower tier.
// Without the variable it only logs the tier.
func TestRequiredTier(t *testing.T) {
	want := os.Getenv("TENSORCAST_REQUIRE_TIER")
	got := KernelName()
	if want == "" {
		t.Logf("dispatched tier %s (set TENSORCAST_REQUIRE_TIER to require one)", got)
		return
	}
	if got != want && !strings.HasPrefix(got, want+"+") {
		t.Fatalf("TENSORCAST_REQUIRE_TIER=%s but the dispatched tier is %s (tiers here: %v)", want, got, Tiers())
	}
}
