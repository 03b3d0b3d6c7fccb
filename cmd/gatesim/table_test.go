package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gatesim table on a capture's topology dump prints, line for line, what
// that NCCL printed at init: the tuning table, threadThresholds and the
// channel summary.
func TestTableMatchesCapturedLog(t *testing.T) {
	for _, c := range []struct{ dir, nccl string }{
		{"h200x2-2.28.9/baseline", "2.28.9"},
		{"h200x2-2.28.3/proto-ll128", "2.28.3"},
		{"h200x2-2.28.9/max-nchannels-2", "2.28.9"},
	} {
		dir := filepath.Join("..", "..", "golden", "testdata", "captured", c.dir)
		logData, err := os.ReadFile(filepath.Join(dir, "nccl.log"))
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"table", "--nccl", c.nccl, "--topo", filepath.Join(dir, "topo.xml"), "--env", "NCCL_NVLS_ENABLE=0"}
		cfg, _ := os.ReadFile(filepath.Join(dir, "config.json"))
		for _, kv := range []string{"NCCL_PROTO=LL128", "NCCL_MAX_NCHANNELS=2"} {
			if strings.Contains(string(cfg), strings.Replace(kv, "=", `": "`, 1)) {
				args = append(args, "--env", kv)
			}
		}
		code, out, errs := runCLIIn(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.dir, code, errs)
		}
		// rank 0's message parts, in order
		var want []string
		for _, l := range strings.Split(string(logData), "\n") {
			if _, msg, ok := strings.Cut(l, "[0] NCCL INFO "); ok {
				want = append(want, msg)
			}
		}
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")[1:]
		pos := 0
		for _, l := range lines {
			for pos < len(want) && want[pos] != l {
				pos++
			}
			if pos == len(want) {
				t.Errorf("%s: line %q is not in rank 0's log (in order)", c.dir, l)
				break
			}
		}
	}
}

// Two releases list their differences: the 2.28 NET Tree/Simple latency
// (14 µs, 28 in 2.22.3) shows in the ring Broadcast of two DGX H100.
func TestTableDiffReleases(t *testing.T) {
	code, out, errs := runCLIIn(t, "", "table", "--nccl", "2.22.3,2.28.9", "--system", "dgx-h100", "--nodes", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Broadcast/Ring/Simple", "456.4/384.0", "232.4/384.0", "(no PAT)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runCLIIn(t, "", "table", "--nccl", "2.22.3,2.28.3,2.28.9", "--system", "dgx-h100"); code != 2 {
		t.Errorf("three releases: exit %d, want 2", code)
	}
}
