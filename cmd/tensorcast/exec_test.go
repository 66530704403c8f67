package main

import (
	"os"
	"testing"
)

// TestMain lets tests run the command in a subprocess: with
// TENSORCAST_TEST_MAIN=1 the test binary is the tensorcast command.
func TestMain(m *testing.M) {
	if os.Getenv("TENSORCAST_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}
