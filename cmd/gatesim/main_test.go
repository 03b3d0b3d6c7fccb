package main

import (
	"os"
	"testing"

	"github.com/gatesim/gatesim/tuner"
)

// TestMain lets the test binary stand in for gatesim: as the child that
// hosts a --tuner plugin, or as main itself (GATESIM_TEST_MAIN=1) for tests
// that need a whole process.
func TestMain(m *testing.M) {
	tuner.ServeIfChild()
	if os.Getenv("GATESIM_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
