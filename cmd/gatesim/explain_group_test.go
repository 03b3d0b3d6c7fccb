package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExplainGroupFlags: explain's --cudagraph, --agg, --buffers and
// --alloc reach the decision. On 2 × H200 (NVLS off, 2.28.9) a captured
// 64 MiB AllReduce is registered over IPC and runs on channels 0..15
// (0..23 on a stream, or on cudaMalloc buffers); 60 window AllReduces of 64 KiB at 2.28.3 run as two
// symmetric plans, the second (ops 58, 59) on its own 3 blocks of 43
// cells each.
func TestExplainGroupFlags(t *testing.T) {
	type op struct {
		Kernel    string `json:"kernel"`
		NChannels int    `json:"nchannels"`
		ChannelHi int    `json:"channel_hi"`
		CTABytes  int64  `json:"cta_bytes"`
	}
	type answer struct {
		Releases []struct {
			Decision op `json:"decision"`
			Group    *struct {
				Launch struct {
					Mode string `json:"mode"`
					Agg  int    `json:"agg"`
				} `json:"launch"`
				Ops []op `json:"ops"`
			} `json:"group"`
		} `json:"releases"`
	}
	explain := func(args ...string) answer {
		t.Helper()
		code, out, errs := runSimCLI(append([]string{"explain", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var a answer
		if err := json.Unmarshal([]byte(out), &a); err != nil || len(a.Releases) != 1 {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
		return a
	}
	if d := explain("--nccl", "2.28.9", "--bytes", "64MiB").Releases[0].Decision; d.ChannelHi != 23 {
		t.Errorf("on a stream: channels ..%d, want ..23", d.ChannelHi)
	}
	a := explain("--nccl", "2.28.9", "--bytes", "64MiB", "--cudagraph").Releases[0]
	if a.Decision.ChannelHi != 15 || a.Group == nil || a.Group.Launch.Mode != "graph" {
		t.Errorf("--cudagraph: channels ..%d, group %+v; want ..15 in a graph", a.Decision.ChannelHi, a.Group)
	}
	// cudaMalloc buffers go over legacy CUDA IPC only under NCCL_LEGACY_CUDA_REGISTER=1
	if d := explain("--nccl", "2.28.9", "--bytes", "64MiB", "--cudagraph", "--alloc", "cudamalloc").Releases[0].Decision; d.ChannelHi != 23 {
		t.Errorf("--cudagraph --alloc cudamalloc: channels ..%d, want ..23", d.ChannelHi)
	}
	g := explain("--nccl", "2.28.3", "--bytes", "64KiB", "--agg", "60", "--buffers", "window").Releases[0].Group
	if g == nil || len(g.Ops) != 60 || g.Launch.Agg != 60 {
		t.Fatalf("--agg 60 --buffers window: group %+v", g)
	}
	for i, want := range map[int]op{0: {"AllReduce_RSxLD_AGxST", 7, 0, 531 << 10}, 59: {"AllReduce_RSxLD_AGxST", 3, 2, 43 << 10}} {
		if got := g.Ops[i]; got != want {
			t.Errorf("op %d: %+v, want %+v", i, got, want)
		}
	}
}

// TestExplainInvalidAtOneRelease: window buffers at 2.22.3 and 2.28.9, in
// either order, explain 2.28.9 and say why 2.22.3 refuses them (exit 0:
// the release that takes the request runs it); at 2.22.3 alone they are
// bad input (exit 2).
func TestExplainInvalidAtOneRelease(t *testing.T) {
	for _, nccl := range []string{"2.22.3,2.28.9", "2.28.9,2.22.3"} {
		code, out, errs := runCLI(t, "explain", "--nccl", nccl, "--system", "dgx-h100", "--buffers", "window", "--bytes", "1MiB")
		if code != 0 {
			t.Fatalf("--nccl %s: exit %d: %s", nccl, code, errs)
		}
		for _, want := range []string{"NCCL 2.22.3: invalid: buffers window at NCCL 2.22.3", "NCCL 2.28.9: symmetric kernel", "the operation's plan", "gate verdicts: --full prints them"} {
			if !strings.Contains(out, want) {
				t.Errorf("--nccl %s: output lacks %q:\n%s", nccl, want, out)
			}
		}
	}
	if code, _, errs := runCLI(t, "explain", "--nccl", "2.22.3", "--system", "dgx-h100", "--buffers", "window", "--bytes", "1MiB"); code != 2 || !strings.Contains(errs, "no ncclCommWindowRegister") {
		t.Errorf("--nccl 2.22.3 alone: exit %d: %s; want 2 and the refusal", code, errs)
	}
}

// TestLoneOpReadsAsTheOperation: one operation planned as NCCL plans a
// lone call (captured into a graph, on window buffers) is the operation
// in explain's and sim's reports, never "op 0 of 1" of a group.
func TestLoneOpReadsAsTheOperation(t *testing.T) {
	for _, args := range [][]string{
		{"explain", "--system", "dgx-h100", "--cudagraph", "--bytes", "1MiB", "--full"},
		{"explain", "--system", "dgx-h100", "--buffers", "window", "--nccl", "2.29.7", "--nodes", "2", "--bytes", "64MiB", "--full"},
		{"sim", "--system", "dgx-h100", "--cudagraph", "--bytes", "1MiB"},
		{"sim", "--system", "dgx-h100", "--buffers", "window", "--nccl", "2.29.7", "--nodes", "2", "--bytes", "64MiB"},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		for _, bad := range []string{" of 1:", "operation 0 of 1", "op 0 ", "group of 1 ", "1 operation(s)", "over 1)"} {
			if strings.Contains(out, bad) {
				t.Errorf("%v: %q names the lone operation as a group member:\n%s", args, bad, out)
			}
		}
		want := "the operation"
		if !strings.Contains(out, want) {
			t.Errorf("%v: output lacks %q:\n%s", args, want, out)
		}
	}
	// a group of two still names its members
	if _, out, _ := runCLI(t, "explain", "--system", "dgx-h100", "--agg", "2", "--bytes", "1MiB"); !strings.Contains(out, "op 0 of 2:") || !strings.Contains(out, "group of 2 operation(s)") {
		t.Errorf("--agg 2: members unnamed:\n%s", out)
	}
}

// TestExplainLargeGroupBounded: nccl-tests' largest group (-m 4096) prints
// a summary of a few KB, not every operation (it was ~500 KB), and still
// says the plans each run of operations is in.
func TestExplainLargeGroupBounded(t *testing.T) {
	code, out, errs := runCLI(t, "explain", "--system", "dgx-h100", "--agg", "4096", "--bytes", "1MiB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if len(out) > 20<<10 {
		t.Errorf("explain --agg 4096: %d bytes, want under 20 KiB", len(out))
	}
	for _, want := range []string{"group of 4096 operation(s)", "decided with ops [0..4095]", "| 0..1016 ", "plan 0 |", "| 4068..4095 ", "plan 4 |", "63×0..0, 0..1, 63×1..1"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --agg 4096: output lacks %q:\n%s", want, out)
		}
	}
}
