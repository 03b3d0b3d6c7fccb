package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// simHeadline runs sim --json and returns its top-level headline figures
// and the result's (operation 0's run).
func simHeadline(t *testing.T, args ...string) (us, busbw, resultUs float64, out string) {
	t.Helper()
	code, out, errs := runSimCLI(append([]string{"sim", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("sim %v: exit %d: %s", args, code, errs)
	}
	var rep struct {
		TimeUs float64 `json:"time_us"`
		BusBw  float64 `json:"busbw"`
		Result struct {
			TimeUs float64 `json:"time_us"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("sim %v: %v", args, err)
	}
	return rep.TimeUs, rep.BusBw, rep.Result.TimeUs, out
}

// whatifSimUs runs whatif --json on one point and returns its sim_us.
func whatifSimUs(t *testing.T, args ...string) float64 {
	t.Helper()
	code, out, errs := runSimCLI(append([]string{"whatif", "--json", "--no-progress"}, args...)...)
	if code != 0 {
		t.Fatalf("whatif %v: exit %d: %s", args, code, errs)
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("whatif %v: %v", args, err)
	}
	var found []float64
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if f, ok := e.(float64); ok && k == "sim_us" {
					found = append(found, f)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	if len(found) != 1 {
		t.Fatalf("whatif %v: %d sim_us values, want 1:\n%.2000s", args, len(found), out)
	}
	return found[0]
}

// TestSimHeadlineIsWhatifs: sim --json's top-level time_us is the
// headline, nccl-tests' time per operation, and whatif's simulated time
// of the same point: alone, in a group (--agg, where result stays
// operation 0's run), from a CUDA graph, a lone AllToAll whose works fill
// two kernel plans (NCCL_WORK_ARGS_BYTES=256: G-SCHED-P2P-1, the second
// plan's kernel after the first), an empty SendRecv (a kernel all the
// same) and a one-rank send/recv group.
func TestSimHeadlineIsWhatifs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sim   []string // sim's flags; whatif's are the same with --sizes for --bytes
		bytes string
		plans bool // the operation spans kernel plans: the headline is not result's
	}{
		{"alone", []string{"--system", "h200x2", "--coll", "allreduce"}, "1MiB", false},
		{"agg 4", []string{"--system", "h200x2", "--coll", "allreduce", "--agg", "4"}, "1MiB", true},
		{"cudagraph", []string{"--system", "h200x2", "--coll", "allreduce", "--cudagraph"}, "1MiB", false},
		{"sendrecv agg 4 cudagraph", []string{"--system", "h200x2", "--coll", "sendrecv", "--agg", "4", "--cudagraph"}, "1MiB", true},
		{"alltoall in two plans", []string{"--system", "dgx-h100", "--env", "NCCL_NVLS_ENABLE=0", "--env", "NCCL_WORK_ARGS_BYTES=256", "--coll", "alltoall"}, "256KiB", true},
		{"sendrecv 0 B", []string{"--system", "h200x2", "--coll", "sendrecv"}, "0", false},
		{"one rank agg 2", []string{"--system", "h200x2", "--gpus", "1", "--coll", "sendrecv", "--agg", "2"}, "1MiB", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			us, _, res, _ := simHeadline(t, append(tc.sim, "--bytes", tc.bytes)...)
			w := whatifSimUs(t, append(tc.sim, "--sizes", tc.bytes)...)
			// whatif rounds to the nanosecond
			if us <= 0 || math.Abs(us-w) > 0.001+1e-6*us {
				t.Errorf("sim's time_us %g, whatif's sim_us %g: expected one figure", us, w)
			}
			if tc.plans == (math.Abs(us-res) < 1e-9) {
				t.Errorf("time_us %g, result's %g: expected them %s", us, res, map[bool]string{true: "to differ", false: "equal"}[tc.plans])
			}
			_, text, _ := runSimCLI(append([]string{"sim"}, append(tc.sim, "--bytes", tc.bytes)...)...)
			line := ""
			for l := range strings.SplitSeq(text, "\n") {
				if strings.HasPrefix(l, "  simulated time") {
					line = l
				}
			}
			if want := fmt.Sprintf("%.2f µs", us); !strings.Contains(line, want) || strings.Contains(text, "spans the 0 p2p channels") {
				t.Errorf("headline %q for time_us %g:\n%.1500s", line, us, text)
			}
		})
	}
}

// TestSimOneRankP2PGroup: a one-rank communicator's send/recv is a task
// like any (p2pTaskAppend: the self copy; only collectives go to
// ncclLaunchOneRank), so a group of them plans and simulates as one.
func TestSimOneRankP2PGroup(t *testing.T) {
	for _, coll := range []string{"sendrecv", "alltoall"} {
		for _, agg := range []string{"1", "2", "8"} {
			us, _, _, out := simHeadline(t, "--system", "h200x2", "--gpus", "1", "--coll", coll, "--agg", agg)
			if us <= 0 || agg != "1" && !strings.Contains(out, `"per_op_time_us"`) {
				t.Errorf("%s --agg %s on one GPU: time %g µs\n%.800s", coll, agg, us, out)
			}
		}
	}
}
