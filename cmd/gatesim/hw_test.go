package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/hw"
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

func TestHWCompare(t *testing.T) {
	dir := t.TempDir()
	nt := filepath.Join("..", "..", "hw", "testdata", "all_reduce_perf.h200x2-2.28.9.txt")
	ours := filepath.Join("..", "..", "hw", "testdata", "gatesim-allreduce.h200x2-2.28.9.json")
	code, out, stderr := runCLI(t, "hw", "compare", "--ours", ours, nt)
	if code != exitNo || !strings.Contains(out, "| AllReduce | 536870912 |") || !strings.Contains(stderr, "2 rows missed") {
		t.Errorf("exit %d\n%s\n%s", code, out, stderr)
	}
	bad := filepath.Join(dir, "x.txt")
	os.WriteFile(bad, []byte("8 2 float sum -1 1.00 0.01 0.01 0 1.00 0.01 0.01 0\n"), 0o644)
	if code, _, stderr := runCLI(t, "hw", "compare", "--ours", ours, bad); code != exitBadInput || !strings.Contains(stderr, "cannot tell which collective") {
		t.Errorf("exit %d %s", code, stderr)
	}
}

// TestHWRunNCCLTestsFlags: nccl-tests' flags parse as nccl-tests spells
// them (-c 0, -G 10, -g 2), the bare switches keep working, and the ones
// whose other values do not apply say why.
func TestHWRunNCCLTestsFlags(t *testing.T) {
	cases := []struct {
		args []string
		want map[string]string // flag → parsed value
	}{
		{[]string{"-c", "0", "-G", "10", "-g", "2", "-N", "3"}, map[string]string{"check": "0", "cudagraph": "1", "ngpus": "2", "run_cycles": "3"}},
		{[]string{"-G", "-c"}, map[string]string{"check": "1", "cudagraph": "1"}},
		{[]string{"--check=false", "-G", "0"}, map[string]string{"check": "0", "cudagraph": "0"}},
		{[]string{"-m", "1", "-z", "0", "-a", "1", "-p", "0", "-t", "1", "-b", "8", "-e", "1G", "-f", "2"}, map[string]string{"agg_iters": "1", "maxbytes": "1G"}},
		{nil, map[string]string{"check": "1", "cudagraph": "0", "ngpus": "0", "run_cycles": "1"}},
	}
	for _, c := range cases {
		cmd := newHWRunCmd(&deps{})
		args := hw.NCCLTestsArgs(append([]string{"hw", "run"}, c.args...))[2:]
		if err := cmd.ParseFlags(args); err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if cmd.Flags().NArg() != 0 {
			t.Errorf("%v: stray arguments %v", c.args, cmd.Flags().Args())
		}
		for k, v := range c.want {
			if got := cmd.Flags().Lookup(k).Value.String(); got != v {
				t.Errorf("%v: --%s = %s, want %s", c.args, k, got, v)
			}
		}
	}
	for _, bad := range [][]string{{"-t", "2"}, {"-m", "0"}, {"-z", "1"}, {"-a", "0"}, {"-p", "1"}, {"-N", "0"}, {"-g", "2", "--devices", "0"}} {
		code, _, stderr := runCLI(t, append([]string{"hw", "run"}, bad...)...)
		if code != exitBadInput || !strings.Contains(stderr, bad[0]) {
			t.Errorf("%v: exit %d, %q; want exit 2 naming %s", bad, code, stderr, bad[0])
		}
	}
}
