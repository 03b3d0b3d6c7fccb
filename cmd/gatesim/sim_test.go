package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
)

func runSimCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestSimCommand(t *testing.T) {
	code, out, errs := runSimCLI("sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "ll", "--bytes", "64KiB", "--verify")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// the whole report, held as a golden file (make golden rewrites it)
	goldenfile.Check(t, filepath.Join("testdata", "sim-ring-ll.txt"), out, *update)
	for _, want := range []string{"Ring/LL", "--algo/--proto", "verification     OK"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NCCL model time  n/a") {
		t.Errorf("Ring/LL is a usable cell: NCCL's time expected:\n%s", out)
	}
}

// Without --algo/--proto sim runs NCCL's own choice, with its channel count
// and cost-model time; on the captured machine (2 × H200, NVLS off) a 2 MiB
// AllReduce is Ring/Simple over 24 channels, as NCCL's log says.
func TestSimRunsNCCLsChoice(t *testing.T) {
	code, out, errs := runSimCLI("sim", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--bytes", "2MiB", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Selection string   `json:"selection"`
		ChosenBy  string   `json:"chosen_by"`
		Model     *float64 `json:"nccl_model_time_us"`
		Result    struct {
			Channels int `json:"channels"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasPrefix(rep.Selection, "Ring/Simple") || rep.Result.Channels != 24 || rep.Model == nil || *rep.Model <= 0 || !strings.Contains(rep.ChosenBy, "tuning model") {
		t.Errorf("selection %q by %q, %d channels, model %v", rep.Selection, rep.ChosenBy, rep.Result.Channels, rep.Model)
	}
	// a cell NCCL would not run is simulated, and says why NCCL has no time
	code, out, _ = runSimCLI("sim", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--algo", "tree", "--proto", "ll128", "--bytes", "64KiB")
	if code != 0 || !strings.Contains(out, "NCCL model time  ") {
		t.Errorf("forced Tree/LL128: exit %d\n%s", code, out)
	}
	// NCCL refuses the operation: exit 1 with NCCL's error
	code, _, errs = runSimCLI("sim", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--env", "NCCL_ALGO=CollNetDirect", "--bytes", "1MiB")
	if code != exitNo || !strings.Contains(errs, "ncclInvalidUsage") {
		t.Errorf("NCCL_ALGO=CollNetDirect: exit %d, %s", code, errs)
	}
}

// sim --agg N simulates each operation of the group on the channels NCCL's
// group plan gives it: eight 512 KiB AllReduces on 2 × H200 run Ring/Simple
// on about 3 channels each (channels 0..2, 2..5, ..., 20..23), where one
// alone runs Ring/LL on 24; nccl-tests' per-operation time is the host's
// issuing of the 8 against the one kernel running them, over 8.
func TestSimAggUsesGroupPlan(t *testing.T) {
	code, out, errs := runSimCLI("sim", "--system", "h200x2", "--bytes", "512KiB", "--agg", "8", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Selection string `json:"selection"`
		ChosenBy  string `json:"chosen_by"`
		Result    struct {
			TimeUs float64 `json:"time_us"`
		} `json:"result"`
		Group *struct {
			Ops []struct {
				Algo      string  `json:"algo"`
				Proto     string  `json:"proto"`
				ChannelLo int     `json:"channel_lo"`
				ChannelHi int     `json:"channel_hi"`
				TimeUs    float64 `json:"time_us"`
			} `json:"ops"`
			PerOpUs float64 `json:"per_op_time_us"`
		} `json:"group"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Selection != "Ring/Simple ch=0..2" || !strings.Contains(rep.ChosenBy, "G-GROUP-PLAN-1") || rep.Group == nil || len(rep.Group.Ops) != 8 {
		t.Fatalf("selection %q by %q, group %+v", rep.Selection, rep.ChosenBy, rep.Group)
	}
	longest, hi := 0.0, -1
	for i, o := range rep.Group.Ops {
		if o.Algo != "Ring" || o.Proto != "Simple" || o.ChannelLo < hi || o.ChannelHi < o.ChannelLo || o.TimeUs <= 0 {
			t.Errorf("op %d: %+v after channel %d", i, o, hi)
		}
		hi, longest = o.ChannelHi, max(longest, o.TimeUs)
	}
	// an operation's time in the group is its time alone; the headline's
	// result is its time per operation of a timed batch, no longer
	if hi != 23 || rep.Group.Ops[0].TimeUs < rep.Result.TimeUs {
		t.Errorf("last channel %d, op 0 %g µs, result %g µs", hi, rep.Group.Ops[0].TimeUs, rep.Result.TimeUs)
	}
	if rep.Group.PerOpUs <= 0 || rep.Group.PerOpUs >= longest {
		t.Errorf("per-operation time %g µs, longest operation %g µs: expected below it (8 operations at once)", rep.Group.PerOpUs, longest)
	}
	// alone, the same operation is Ring/LL on 24 channels
	code, out, errs = runSimCLI("sim", "--system", "h200x2", "--bytes", "512KiB")
	if code != 0 || !strings.Contains(out, "Ring/LL ch=24") || strings.Contains(out, "per operation") {
		t.Errorf("alone: exit %d %s\n%s", code, errs, out)
	}
}

// On 16 DGX H100 nodes with SHARP NCCL picks NVLS with SHARP for AllReduce
// and, from 1 MiB, CollNetDirect for AllGather and ReduceScatter: sim runs
// each choice (with --verify where the buffers fit) and the network
// carries what CollNet's operations imply: S per node for AllReduce and
// ReduceScatter, S/nNodes for AllGather.
func TestSimRunsNCCLsChoiceWithSHARP(t *testing.T) {
	for _, c := range []struct {
		coll, bytes, algo string
		netPerNode        float64
		verify            bool
	}{
		{"allreduce", "1MiB", "NVLS/Simple", 1 << 20, false},
		{"allgather", "16KiB", "NVLS/Simple", 1 << 10, true},
		{"reducescatter", "16KiB", "NVLS/Simple", 16 << 10, true},
		{"allgather", "4MiB", "CollNetDirect/Simple", 256 << 10, false},
		{"reducescatter", "4MiB", "CollNetDirect/Simple", 4 << 20, false},
	} {
		args := []string{"sim", "--system", "dgx-h100", "--nodes", "16", "--sharp", "--env", "NCCL_COLLNET_ENABLE=1", "--coll", c.coll, "--bytes", c.bytes, "--json"}
		if c.verify {
			args = append(args, "--verify")
		}
		code, out, errs := runSimCLI(args...)
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", c.coll, c.bytes, code, errs)
		}
		var rep struct {
			Selection string   `json:"selection"`
			Model     *float64 `json:"nccl_model_time_us"`
			Result    struct {
				TimeUs          float64 `json:"time_us"`
				NetBytesPerNode float64 `json:"net_bytes_per_node"`
			} `json:"result"`
			Verification *struct {
				OK bool `json:"ok"`
			} `json:"verification"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.HasPrefix(rep.Selection, c.algo) || rep.Model == nil || rep.Result.TimeUs <= 0 || rep.Result.NetBytesPerNode != c.netPerNode {
			t.Errorf("%s %s: selection %q, model %v, time %v µs, %v network bytes per node (want %s, %v)", c.coll, c.bytes, rep.Selection, rep.Model, rep.Result.TimeUs, rep.Result.NetBytesPerNode, c.algo, c.netPerNode)
		}
		if c.verify && (rep.Verification == nil || !rep.Verification.OK) {
			t.Errorf("%s %s: verification %+v", c.coll, c.bytes, rep.Verification)
		}
	}
}

func TestSimJSONAndTrace(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.json")
	code, out, errs := runSimCLI("sim", "--system", "dgx-h100", "--nodes", "4", "--sharp", "--env", "NCCL_COLLNET_ENABLE=1", "--algo", "collnetdirect", "--proto", "simple", "--bytes", "64MiB", "--json", "--trace", trace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Result struct {
			Ranks           int     `json:"ranks"`
			NetBytesPerNode float64 `json:"net_bytes_per_node"`
			BusBw           float64 `json:"busbw"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Result.Ranks != 32 || rep.Result.NetBytesPerNode != 64<<20 || rep.Result.BusBw <= 0 {
		t.Errorf("unexpected result %+v", rep.Result)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil || len(tr.TraceEvents) == 0 {
		t.Fatalf("trace file is not Chrome trace JSON with events: %v", err)
	}
}

func TestSimBadInput(t *testing.T) {
	dir := t.TempDir()
	xml := filepath.Join(dir, "topo.xml")
	os.WriteFile(xml, []byte("<system version=\"1\"></system>"), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"nodes": [{"gpus": [{"sm": 9}]}]}`), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring"}, "--algo and --proto go together"},
		{[]string{"sim", "--algo", "ring", "--proto", "ll"}, "no machine"},
		{[]string{"sim", "--system", "nope", "--algo", "ring", "--proto", "ll"}, "nope"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "ll", "--bytes", "12 parsecs"}, "bad size"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "ll", "--bytes", "3", "--dtype", "float32"}, "not a whole number"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "nvlstree", "--proto", "simple"}, "two nodes"},
		{[]string{"sim", "--system", "dgx-h100", "--nodes", "2", "--algo", "collnetdirect", "--proto", "simple"}, "CollNet"},
		{[]string{"sim", "--system", "dgx-h100", "--nodes", "2", "--algo", "nvls", "--proto", "simple"}, "NVLS across nodes needs in-network reduction (CollNet/SHARP)"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "simple", "--verify", "--bytes", "1GiB"}, "--verify holds every rank's buffers"},
		{[]string{"sim", "--topo", xml, "--algo", "ring", "--proto", "simple"}, "topo.xml"},
		{[]string{"sim", "--system-file", bad, "--algo", "ring", "--proto", "simple"}, "bad.json"},
		{[]string{"sim", "--system", "dgx-h100", "--algo", "ring", "--proto", "simple", "--nccl", "1.0"}, "1.0"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K"}, "FROM:TO"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1K"}, "FROM <= TO"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1M:1"}, "at least 2"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1M", "--algo", "ring,bogus"}, "--algo"},
		{[]string{"sim", "--system", "dgx-h100", "--sweep", "4K:1M", "--verify"}, "prints a table"},
		{[]string{"sim", "--system", "h200x2", "--agg", "8", "--algo", "ring", "--proto", "ll"}, "NCCL's plan decides each operation"},
		{[]string{"sim", "--system", "h200x2", "--agg", "0"}, "--agg: 0 operations in one group"},
		{[]string{"sim", "--system", "h200x2", "--buffers", "pinned"}, "--buffers"},
		{[]string{"sim", "--system", "h200x2", "--alloc", "pinned"}, "--alloc"},
		{[]string{"sim", "--system", "h200x2", "--buffers", "window", "--alloc", "cudamalloc"}, "expected alloc cumem"},
		{[]string{"sim", "--system", "dgx-h100", "--coll", "alltoall", "--bytes", "256KiB", "--env", "NCCL_WORK_ARGS_BYTES=256", "--verify"}, "fill 2 kernel plans"},
	}
	for _, tc := range tests {
		code, _, errs := runSimCLI(tc.args...)
		if code != exitBadInput || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestSimP2PGroup: --agg N on SendRecv and AllToAll is nccl-tests' -m N,
// N group calls of the send/recv pattern in one group, planned by spec's
// send/recv planner and timed kernel plan after kernel plan: 2 SendRecvs
// on 2 × H200 share one kernel; 8 AllToAlls of 64 KiB a peer on one DGX
// H100 at 2.28.9 fill two (G-SCHED-P2P-1), the eighth in the second.
func TestSimP2PGroup(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		kernels int
	}{
		{[]string{"--system", "h200x2", "--coll", "sendrecv", "--agg", "2", "--bytes", "1MiB"}, 1},
		{[]string{"--system", "dgx-h100", "--coll", "alltoall", "--agg", "8", "--bytes", "4MiB", "--nccl", "2.28.9"}, 2},
	} {
		code, out, errs := runSimCLI(append([]string{"sim", "--json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errs)
		}
		var rep struct {
			Group *struct {
				Ops     []struct{ Plan int }
				Kernels []struct{ Plan, Ops int }
				PerOpUs float64 `json:"per_op_time_us"`
			}
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		g := rep.Group
		if g == nil || len(g.Kernels) != tc.kernels || len(g.Ops) < 2 || g.PerOpUs <= 0 {
			t.Fatalf("%v: group %+v, want %d kernel(s) and a time per operation", tc.args, g, tc.kernels)
		}
	}
}

// TestSimSweep prints one row pair per runnable algorithm × protocol and
// lists the others with the reason.
func TestSimSweep(t *testing.T) {
	code, out, errs := runSimCLI("sim", "--system", "h200x2", "--sweep", "4KiB:1MiB:4", "--algo", "ring,nvls", "--proto", "all")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"| algorithm | protocol | time | 4K | 16K | 64K | 256K | 1M |", "| NCCL's choice | | |",
		"| Ring | LL | sim |", "| Ring | Simple | NCCL model | ", "| NVLS | Simple | sim |",
		"NVLS/LL: build: NVLS runs only with the Simple protocol"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| NVLS | LL |") || strings.Contains(out, "n/a") {
		t.Errorf("NVLS/LL does not run but has a row, or a model cell is n/a:\n%s", out)
	}
	if got := strings.Count(out, " sim | "); got != 4 {
		t.Errorf("%d simulated rows, want 4 (Ring × 3 protocols, NVLS/Simple):\n%s", got, out)
	}
}

// SendRecv and AllToAll take NCCL's p2p path: no cost table, the
// protocol by size (LL up to 32 channels × 16 KiB per peer on the 2 ×
// H200), verified by the data plane; --algo/--proto have nothing to force.
func TestSimPointToPoint(t *testing.T) {
	for _, c := range []struct{ coll, bytes, proto string }{
		{"sendrecv", "8KiB", "p2p/LL"}, {"sendrecv", "1MiB", "p2p/Simple"},
		{"alltoall", "64KiB", "p2p/LL"}, {"alltoall", "2MiB", "p2p/Simple"},
	} {
		code, out, errs := runSimCLI("sim", "--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0", "--coll", c.coll, "--bytes", c.bytes, "--verify")
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", c.coll, c.bytes, code, errs)
		}
		for _, want := range []string{c.proto, "no cost table", "verification     OK", "NCCL model time  n/a"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s %s: output lacks %q:\n%s", c.coll, c.bytes, want, out)
			}
		}
	}
	if code, _, errs := runSimCLI("sim", "--system", "h200x2", "--coll", "sendrecv", "--algo", "ring", "--proto", "ll", "--bytes", "8KiB"); code != 2 || !strings.Contains(errs, "no algorithm or protocol to force") {
		t.Errorf("--algo with sendrecv: exit %d %s", code, errs)
	}
	if code, _, errs := runSimCLI("sim", "--system", "h200x2", "--coll", "alltoall", "--bytes", "12"); code != 2 || !strings.Contains(errs, "not a whole number") {
		t.Errorf("alltoall of 12 bytes on 2 ranks of float: exit %d %s", code, errs)
	}
}

// TestSimCrossClique: four GB200 trays of one NVL72 rack in two cliques
// are two NCCL nodes; NCCL 2.30.3 with NCCL_MNNVL_CROSS_CLIQUE=1 connects
// the two cliques over CUDA P2P on the rack's NVLink, so a Ring AllGather
// injects nothing into the network and runs faster than with the variable
// unset (the cliques over InfiniBand). Both reports are held as a golden
// file.
func TestSimCrossClique(t *testing.T) {
	var all strings.Builder
	for _, cross := range []string{"0", "1"} {
		code, out, errs := runSimCLI("sim", "--system-file", filepath.Join("testdata", "gb200-2cliques.json"), "--nccl", "2.30.3",
			"--env", "NCCL_MNNVL_CROSS_CLIQUE="+cross, "--coll", "allgather", "--algo", "ring", "--proto", "simple", "--bytes", "256MiB")
		if code != 0 {
			t.Fatalf("NCCL_MNNVL_CROSS_CLIQUE=%s: exit %d: %s", cross, code, errs)
		}
		injected := !strings.Contains(out, "network injected 0 B")
		if injected != (cross == "0") {
			t.Errorf("NCCL_MNNVL_CROSS_CLIQUE=%s: network bytes %v, want %v:\n%s", cross, injected, cross == "0", out)
		}
		all.WriteString("$ NCCL_MNNVL_CROSS_CLIQUE=" + cross + "\n" + out)
	}
	goldenfile.Check(t, filepath.Join("testdata", "sim-crossclique.txt"), all.String(), *update)
}

// TestSimWindow: window AllReduce, AllGather and ReduceScatter on 2 ×
// H200 (NVLS off, as the machine runs) and one DGX H100 at 2.28.9 and
// 2.30.7 run NCCL's symmetric kernels, and sim times them (what each
// kernel moves over NVLink, sim.SimulateSym) instead of refusing; 2.28.9's
// AllGather under NCCL_CTA_POLICY=2 goes to the copy engines. A group of
// window operations (--agg 4) is timed as NCCL's symmetric plan: one
// kernel launch for the 4 works. On two DGX H100 nodes 2.29.7 and 2.30.7
// run the GIN kernels for AllGather and ReduceScatter (timed over NVLink
// and the NICs) and the cost table for AllReduce, as G-SEL-SIDE-1 says;
// 2.30.7 under NCCL_CTA_POLICY=2 runs its hierarchical copy engines. The
// reports are held as a golden file.
func TestSimWindow(t *testing.T) {
	var all strings.Builder
	for _, rel := range []string{"2.28.9", "2.30.7"} {
		for _, sys := range [][]string{{"--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0"}, {"--system", "dgx-h100"}} {
			for _, coll := range []string{"allreduce", "allgather", "reducescatter"} {
				args := append([]string{"sim", "--nccl", rel, "--buffers", "window", "--coll", coll, "--bytes", "64MiB"}, sys...)
				code, out, errs := runSimCLI(args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, errs)
				}
				if !strings.Contains(out, "symmetric model") || !strings.Contains(out, "NCCL's symmetric path") {
					t.Errorf("%v: no symmetric kernel timed:\n%s", args, out)
				}
				all.WriteString("$ gatesim " + strings.Join(args, " ") + "\n" + out)
			}
		}
	}
	args := []string{"sim", "--system", "dgx-h100", "--buffers", "window", "--coll", "allgather", "--bytes", "64MiB", "--env", "NCCL_CTA_POLICY=2"}
	code, out, errs := runSimCLI(args...)
	if code != 0 || !strings.Contains(out, "copy-engine") {
		t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
	}
	all.WriteString("$ gatesim " + strings.Join(args, " ") + "\n" + out)
	for _, sys := range [][]string{{"--system", "h200x2", "--env", "NCCL_NVLS_ENABLE=0"}, {"--system", "dgx-h100"}} {
		args := append([]string{"sim", "--nccl", "2.28.9", "--buffers", "window", "--coll", "allreduce", "--bytes", "16MiB", "--agg", "4"}, sys...)
		code, out, errs := runSimCLI(args...)
		if code != 0 || !strings.Contains(out, "for 4 works in one launch") || !strings.Contains(out, "4 operation(s), window buffers") {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
		}
		all.WriteString("$ gatesim " + strings.Join(args, " ") + "\n" + out)
	}
	for _, rel := range []string{"2.29.7", "2.30.7"} {
		for _, coll := range []string{"allgather", "reducescatter", "allreduce"} {
			args := []string{"sim", "--nccl", rel, "--system", "dgx-h100", "--nodes", "2", "--buffers", "window", "--coll", coll, "--bytes", "64MiB"}
			code, out, errs := runSimCLI(args...)
			gin := strings.Contains(out, "network ") && strings.Contains(out, "NCCL's symmetric path")
			if code != 0 || gin == (coll == "allreduce") || strings.Contains(out, "network injected 0 B") {
				t.Fatalf("%v: exit %d (GIN kernel %v): %s%s", args, code, gin, out, errs)
			}
			all.WriteString("$ gatesim " + strings.Join(args, " ") + "\n" + out)
		}
	}
	// 2.30.7's hierarchical copy engines across nodes (CTA policy ZERO)
	for _, coll := range []string{"allgather", "alltoall"} {
		args := []string{"sim", "--nccl", "2.30.7", "--system", "dgx-h100", "--nodes", "2", "--buffers", "window", "--coll", coll, "--bytes", "64MiB", "--env", "NCCL_CTA_POLICY=2"}
		code, out, errs := runSimCLI(args...)
		if code != 0 || !strings.Contains(out, "hierarchical-ce") || strings.Contains(out, "network injected 0 B") {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, errs)
		}
		all.WriteString("$ gatesim " + strings.Join(args, " ") + "\n" + out)
	}
	goldenfile.Check(t, filepath.Join("testdata", "sim-window.txt"), all.String(), *update)
	// the paths with no schedule of steps refuse what needs one
	for _, extra := range [][]string{{"--verify"}, {"--trace", filepath.Join(t.TempDir(), "t.json")}} {
		a := append([]string{"sim", "--system", "dgx-h100", "--buffers", "window", "--bytes", "1MiB"}, extra...)
		if code, _, errs := runSimCLI(a...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d %s", a, code, errs)
		}
	}
}
