package main

import (
	"strings"
	"testing"
)

// TestProcsFlag: --procs per-node reaches the model on explain, and an
// unknown layout is bad input (exit 2) naming what is expected.
func TestProcsFlag(t *testing.T) {
	args := []string{"explain", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--nccl", "2.28.9", "--json"}
	code, out, errs := runCLI(t, append(args, "--procs", "per-node")...)
	if code != 0 || !strings.Contains(out, "P2P/direct pointer") {
		t.Errorf("--procs per-node: exit %d, stderr %q, output without the direct pointer connections:\n%s", code, errs, out)
	}
	code, out, _ = runCLI(t, args...)
	if code != 0 || strings.Contains(out, "P2P/direct pointer") || !strings.Contains(out, "P2P/CUMEM") {
		t.Errorf("default: exit %d, want CUMEM connections:\n%s", code, out)
	}
	code, _, errs = runCLI(t, append(args, "--procs", "per-rack")...)
	if code != 2 || !strings.Contains(errs, "per-gpu, per-node") {
		t.Errorf("--procs per-rack: exit %d, stderr %q: want 2 naming per-gpu, per-node", code, errs)
	}
}
