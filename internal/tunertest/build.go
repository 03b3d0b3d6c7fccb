// Package tunertest builds the project's test tuner plugins
// (tuner/testdata/tuners) with the C compiler cgo uses, for tests.
package tunertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Modes are the behaviours a test tuner is built with (MODE_* of
// tuner/testdata/tuners/modes.h).
var Modes = map[string]int{"identity": 0, "force": 1, "edit": 2, "illegal": 3, "initfail": 4, "crash": 5, "hang": 6, "chunkcrash": 7, "chunkfail": 8}

// Versions are the ABI versions there is a test tuner for.
var Versions = []int{2, 3, 4, 5, 6}

// Source is the directory of the test tuners' C sources.
func Source() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "tuner", "testdata", "tuners")
}

// Build compiles the test tuner of an ABI version with a mode into dir and
// returns the .so's path. It fails the test when the sources or the
// compiler are missing.
func Build(t testing.TB, dir string, version int, mode string) string {
	t.Helper()
	m, ok := Modes[mode]
	if !ok {
		t.Fatalf("unknown test tuner mode %q", mode)
	}
	src := filepath.Join(Source(), "tuner_v"+itoa(version)+".c")
	if _, err := os.Stat(src); err != nil {
		t.Fatalf("test tuner source: %v", err)
	}
	out := filepath.Join(dir, "libnccl-tuner-v"+itoa(version)+"-"+mode+".so")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	cc := "cc"
	if b, err := exec.Command("go", "env", "CC").Output(); err == nil && strings.TrimSpace(string(b)) != "" {
		cc = strings.TrimSpace(string(b))
	}
	cmd := exec.Command(cc, "-shared", "-fPIC", "-O1", "-Wall", "-DMODE="+itoa(m), "-o", out, src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, b)
	}
	return out
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
