package tuner

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	ServeIfChild()
	dir, err := os.MkdirTemp("", "gatesim-tuners-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir // the test tuners live as long as the test binary
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
