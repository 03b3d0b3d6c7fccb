package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// Without a GPU (or with the runtime pointed nowhere, so this holds on GPU
// machines too) every hw command that needs one exits with code 3 and says
// why.
func TestHWRefusesWithoutGPU(t *testing.T) {
	t.Setenv("GATESIM_CUDART_LIB", filepath.Join(t.TempDir(), "libcudart.so.13"))
	for _, args := range [][]string{{"hw", "info"}, {"hw", "run", "-e", "1K"}, {"hw", "selftest"}} {
		code, _, stderr := runCLI(t, args...)
		if code != exitNoDevice {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitNoDevice, stderr)
		}
		if !strings.Contains(stderr, "not available") {
			t.Errorf("%v: stderr %q does not say what is missing", args, stderr)
		}
	}
}

func TestHWRunBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"hw", "run", "-d", "float128"},
		{"hw", "run", "--colls", "allsum"},
		{"hw", "run", "-b", "1Q"},
		{"hw", "run", "-b", "64", "-e", "8"},
		{"hw", "run", "-o", "xor"},
		{"hw", "matrix", "--configs", "nope", "--out", "x"},
		{"hw", "matrix"},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitBadInput, stderr)
		}
	}
}

func TestParseFuncsAll(t *testing.T) {
	got, err := parseFuncs("all,sendrecv,allreduce")
	if err != nil || len(got) != 6 {
		t.Errorf("parseFuncs = %v, %v", got, err)
	}
}

func TestHWCompare(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join("..", "..", "hw", "testdata", "all_reduce_perf.h200x2-2.28.9.txt")
	ours := filepath.Join("..", "..", "hw", "testdata", "gatesim-allreduce.h200x2-2.28.9.json")
	code, out, stderr := runCLI(t, "hw", "compare", "--ours", ours, nt)
	if code != exitNo || !strings.Contains(out, "| AllReduce | 536870912 |") || !strings.Contains(stderr, "2 rows missed") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	bad := filepath.Join(dir, "x.txt")
	os.WriteFile(bad, []byte("8 2 float sum -1 1 2 3 0\n"), 0o644)
	if code, _, stderr := runCLI(t, "hw", "compare", "--ours", ours, bad); code != exitBadInput || !strings.Contains(stderr, "cannot tell which collective") {
		t.Errorf("exit %d %s", code, stderr)
	}
}
