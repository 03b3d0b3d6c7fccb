package main

import (
	"io"
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

// run runs one command line without standard input, as the tests do.
func run(args []string, stdout, stderr io.Writer) int {
	return runWithInput(args, nil, stdout, stderr)
}
