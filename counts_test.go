package tensorcast

import (
	"fmt"
	"os"
	"sync"
	"testing"
)

// logCount logs a count line ("N inputs, M mismatches") and, when
// TENSORCAST_COUNTS names a file, appends it there too, so that CI can print
// the counts of a run without -v.
func logCount(t *testing.T, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	if path := os.Getenv("TENSORCAST_COUNTS"); path != "" {
		countsMu.Lock()
		defer countsMu.Unlock()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Errorf("TENSORCAST_COUNTS: %v", err)
			return
		}
		defer f.Close()
		fmt.Fprintf(f, "%s: %s\n", t.Name(), line)
	}
}

var countsMu sync.Mutex

// LogCount exports logCount to the external test package (conformance).
var LogCount = logCount
