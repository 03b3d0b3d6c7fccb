package explain

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

func walk(t *testing.T, preset string, env ...string) Walk {
	t.Helper()
	sys, err := spec.Preset(preset, spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := spec.ParseAssignments(env)
	if err != nil {
		t.Fatal(err)
	}
	op, err := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := One(spec.V2_28_9, sys, e, op, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestDecisionLine: one line per kind of outcome.
func TestDecisionLine(t *testing.T) {
	for _, tc := range []struct {
		d    *spec.Decision
		want string
	}{
		{&spec.Decision{Discarded: true}, "discarded (count 0: nothing runs)"},
		{&spec.Decision{Err: &spec.NCCLError{Result: spec.InvalidUsage, Message: "no"}}, "error ncclInvalidUsage: no"},
		{&spec.Decision{Algo: spec.Ring, Proto: spec.Simple}, "Ring/Simple"},
		{&spec.Decision{Algo: spec.Ring, Proto: spec.Simple, NChannels: 4, ChannelLo: 0, ChannelHi: 3, NThreads: 512, TimeUs: 12.34, Fallback: true},
			"Ring/Simple channels 0..3 nthreads 512 (est. 12.3 µs) (fallback)"},
		{&spec.Decision{Algo: spec.Tree, Proto: spec.ProtoNone}, "Tree (protocol: tuning model)"},
		{&spec.Decision{Algo: spec.AlgoNone, Candidates: []spec.AlgoProto{{Algo: spec.Ring, Proto: spec.LL}}}, "one of Ring/LL (tuning model)"},
		// An in-place send/recv to self alone (2.22.3+): NCCL drops both
		// tasks, so no plan runs it (G-SCHED-P2P-3).
		{&spec.Decision{Plan: -1, P2P: &spec.P2PPath{NChannels: 32, NChannelsPerPeer: 2, Tasks: []tuning.P2PPlaced{
			{Dir: "send", Plan: -1, Skipped: true, SelfInPlace: true}, {Dir: "recv", Plan: -1, Skipped: true, SelfInPlace: true}}}},
			"p2p path (no cost table): 2 send/recv task(s) of rank 0 in no plan (every task dropped by G-SCHED-P2P-3: no kernel runs it) on 0 of 32 p2p channels (0..0), up to 2 per peer"},
	} {
		if got := DecisionLine(tc.d); got != tc.want {
			t.Errorf("DecisionLine = %q, want %q", got, tc.want)
		}
	}
}

// TestWriteText: one release prints its cost table with the choice
// marked; two print the rules whose verdicts differ; a refused
// communicator is the walk's, not an error.
func TestWriteText(t *testing.T) {
	a := walk(t, "h200x2", "NCCL_NVLS_ENABLE=0")
	b := walk(t, "h200x2")
	sys, _ := spec.Preset("h200x2", spec.PresetOptions{})
	for _, tc := range []struct {
		runs []Walk
		o    TextOptions
		want []string
	}{
		{[]Walk{a}, TextOptions{Width: 120}, []string{"cost table for AllReduce of 1 MiB", "*", "gate verdicts: --full prints them"}},
		{[]Walk{a}, TextOptions{Width: 120, Full: true, Verbose: true}, []string{"gates of NCCL 2.28.9", "source"}},
		{[]Walk{a, b}, TextOptions{Width: 120}, []string{"rules whose verdicts differ"}},
	} {
		var buf bytes.Buffer
		if err := WriteText(&buf, sys, spec.Env{}, a.Decision.Op, tc.runs, tc.o); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%d run(s) %+v: output lacks %q:\n%s", len(tc.runs), tc.o, w, buf.String())
			}
		}
	}
	if a.Comm() == nil || a.Version() != spec.V2_28_9 {
		t.Errorf("walk keeps no communicator or release")
	}
}

// TestWriteDemo: the design scenario has a row per case and both releases.
func TestWriteDemo(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteDemo(&buf); err != nil {
		t.Fatal(err)
	}
	for _, c := range demoCases {
		if !strings.Contains(buf.String(), c.name) {
			t.Errorf("demo lacks the case %q", c.name)
		}
	}
	if !strings.Contains(buf.String(), "NCCL 2.22.3") || !strings.Contains(buf.String(), "NCCL 2.28.9") {
		t.Errorf("demo lacks a release:\n%s", buf.String())
	}
}

// TestSummaryNamesPlugins: a profiler NCCL_PROFILER_PLUGIN asked for is
// named in the summary, accepted or refused, per release; with neither a
// library nor the variable the summary says nothing of it.
func TestSummaryNamesPlugins(t *testing.T) {
	op, err := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	prof := spec.Library{Path: "/opt/p/libnccl-profiler-inspector.so", InLoaderPath: true, ProfilerSymbols: []int{5},
		Profiler: &spec.ProfilerBackend{Name: "Inspector"}}
	for _, tc := range []struct {
		v    spec.Version
		lib  bool
		env  []string
		want string // "" : no profiler line
	}{
		{spec.V2_28_9, true, []string{"NCCL_PROFILER_PLUGIN=inspector"}, `profiler plugin: pass at G-PROF-1: ncclProfiler_v5 "Inspector" accepted`},
		{spec.V2_26_2, true, []string{"NCCL_PROFILER_PLUGIN=inspector"}, `profiler plugin: fail at G-PROF-1: /opt/p/libnccl-profiler-inspector.so exports no ncclProfiler symbol of v3,v2,v1`},
		{spec.V2_28_9, false, []string{"NCCL_PROFILER_PLUGIN=inspector"}, "profiler plugin: skip at G-PROF-1: no profiler plugin library"},
		{spec.V2_28_9, false, nil, ""},
		{spec.V2_22_3, true, []string{"NCCL_PROFILER_PLUGIN=inspector"}, ""},
	} {
		sys, err := spec.Preset("h200x2", spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if tc.lib {
			for i := range sys.Nodes {
				sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, prof)
			}
		}
		env, err := spec.ParseAssignments(tc.env)
		if err != nil {
			t.Fatal(err)
		}
		w, err := One(tc.v, sys, env, op, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		WriteSummary(&buf, spec.Summarize(w.Decision, w.Trace, env), 200)
		got := buf.String()
		if tc.want == "" && strings.Contains(got, "profiler plugin") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %v lib %v: want %q in\n%s", tc.v, tc.env, tc.lib, tc.want, got)
		}
	}
}

// TestSummaryChunk: the summary names calcCollChunking's chunk
// (G-SEL-CHUNK-1): a Ring/Simple AllReduce moves stepSize × 4 = 2 MiB
// chunks on every channel, an NCCL_BUFFSIZE of 1 MiB a quarter of that; a
// discarded operation has none.
func TestSummaryChunk(t *testing.T) {
	for _, tc := range []struct {
		env   []string
		bytes int64
		want  string
	}{
		{[]string{"NCCL_ALGO=Ring", "NCCL_PROTO=Simple"}, 1 << 30, "; chunk 2097152 B [G-SEL-CHUNK-1]"},
		{[]string{"NCCL_ALGO=Ring", "NCCL_PROTO=Simple", "NCCL_BUFFSIZE=1048576"}, 1 << 30, "; chunk 524288 B [G-SEL-CHUNK-1]"},
		{nil, 0, ""},
	} {
		sys, err := spec.Preset("dgx-h100", spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		env, err := spec.ParseAssignments(tc.env)
		if err != nil {
			t.Fatal(err)
		}
		op, err := spec.OpFromBytes(spec.AllReduce, tc.bytes, spec.Float32, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := One(spec.V2_28_9, sys, env, op, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		WriteSummary(&buf, spec.Summarize(w.Decision, w.Trace, env), 200)
		got := buf.String()
		if tc.want == "" && strings.Contains(got, "G-SEL-CHUNK-1") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%v %d: want %q in\n%s", tc.env, tc.bytes, tc.want, got)
		}
	}
}

// TestSummaryRegisteredProxy: the summary names the proxy op's steps of
// buffers the network or CollNet registered (G-REG-PROXY-1): a registered
// 64 MiB CollNetDirect AllGather on dgx-h100 × 4 with SHARP, 128 steps on
// one head's loop from 2.24.3; unregistered at 2.23.4, and plain buffers
// never.
func TestSummaryRegisteredProxy(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 4, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	env := spec.Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": "CollNetDirect"}
	op, err := spec.OpFromBytes(spec.AllGather, 64<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    spec.Version
		bufs spec.Buffers
		want string
	}{
		{spec.V2_28_9, spec.BuffersRegistered, "; registered proxy op: 128 step(s) [G-REG-PROXY-1]"},
		{spec.V2_23_4, spec.BuffersRegistered, ""},
		{spec.V2_28_9, spec.BuffersUser, ""},
	} {
		ws, err := Walks([]spec.Version{tc.v}, sys, env, op, nil, spec.Issue{Buffers: tc.bufs})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		WriteSummary(&buf, spec.Summarize(ws[0].Decision, ws[0].Trace, env), 200)
		got := buf.String()
		if tc.want == "" && strings.Contains(got, "G-REG-PROXY-1") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: want %q in\n%s", tc.v, tc.bufs, tc.want, got)
		}
	}
}

// TestWalksP2PTasks: explain of a lone SendRecv plans it as a group of one
// and prints rank 0's send/recv tasks (2 × H200, 2.28.9: a 1 MiB SendRecv
// sends to and receives from rank 1 on Simple over 16..31 in round 1),
// and the summary line names them instead of stopping at the p2p path.
func TestWalksP2PTasks(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	op := spec.Op{Func: spec.SendRecv, Count: 1 << 18, DataType: spec.Float32}
	runs, err := Walks([]spec.Version{spec.V2_28_9}, sys, spec.Env{}, op, nil, spec.Issue{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, sys, spec.Env{}, op, runs, TextOptions{Width: 200}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"p2p path (no cost table): 2 send/recv task(s) of rank 0 in plan 0 on 16 of 32 p2p channels (16..31)",
		"| 0  | send | 1    | 1 MiB | Simple | 1     | 16        | 16..31   | 0    |",
		"| 0  | recv | 1    | 1 MiB | Simple | 1     | 16        | 16..31   | 0    |",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("explain of a lone SendRecv lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestSummaryCollNetPieces: on one rank per node (dgx-h100 × 4 with SHARP
// cut to one GPU a node) a registered 1 GiB CollNetDirect AllReduce has one
// proxy step, which the CollNet proxy re-splits into two plugin
// collectives of 512 MiB from 2.24.3 (G-REG-COLLNET-SPLIT-1); 2.23.4's
// enqueue already cuts it into two steps and names no pieces.
func TestSummaryCollNetPieces(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 4, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].GPUs = sys.Nodes[i].GPUs[:1]
	}
	env := spec.Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": "CollNetDirect"}
	op, err := spec.OpFromBytes(spec.AllReduce, 1<<30, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    spec.Version
		want string
	}{
		{spec.V2_28_9, "; registered proxy op: 1 step(s) [G-REG-PROXY-1], 2 plugin collective(s) of at most 536870912 B [G-REG-COLLNET-SPLIT-1]"},
		{spec.V2_23_4, "; registered proxy op: 2 step(s) [G-REG-PROXY-1]"},
	} {
		ws, err := Walks([]spec.Version{tc.v}, sys, env, op, nil, spec.Issue{Buffers: spec.BuffersRegistered})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		WriteSummary(&buf, spec.Summarize(ws[0].Decision, ws[0].Trace, env), 400)
		got := buf.String()
		if !strings.Contains(got, tc.want) || tc.v == spec.V2_23_4 && strings.Contains(got, "G-REG-COLLNET-SPLIT-1") {
			t.Errorf("%s: want %q in\n%s", tc.v, tc.want, got)
		}
	}
}

// TestWalksInvalidAtOneRelease: a request one of the releases refuses as
// input (window buffers before ncclCommWindowRegister) is walked at the
// other and said invalid at that one, in either order; refused at every
// release it is the error.
func TestWalksInvalidAtOneRelease(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	op, err := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	win := spec.Issue{Buffers: spec.BuffersWindow}
	for _, vs := range [][]spec.Version{{spec.V2_22_3, spec.V2_28_9}, {spec.V2_28_9, spec.V2_22_3}} {
		runs, err := Walks(vs, sys, spec.Env{}, op, nil, win)
		if err != nil {
			t.Fatalf("%v: %v", vs, err)
		}
		if len(runs) != 2 {
			t.Fatalf("%v: %d walks, want 2", vs, len(runs))
		}
		for i, r := range runs {
			bad := vs[i] == spec.V2_22_3
			if r.Release != vs[i].String() || bad != strings.Contains(r.Invalid, "no ncclCommWindowRegister") || bad != (r.Decision == nil) {
				t.Errorf("%v: walk %d: release %s invalid %q decision %v", vs, i, r.Release, r.Invalid, r.Decision)
			}
		}
		if v := Valid(runs); len(v) != 1 || v[0].Release != "2.28.9" || v[0].Group == nil {
			t.Errorf("%v: valid walks %+v, want 2.28.9's group", vs, v)
		}
		if err := Refused(runs); err != nil {
			t.Errorf("%v: Refused = %v: the valid release runs it", vs, err)
		}
		var buf bytes.Buffer
		if err := WriteText(&buf, sys, spec.Env{}, op, runs, TextOptions{Width: 200}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"NCCL 2.22.3: invalid: buffers window at NCCL 2.22.3", "NCCL 2.28.9: symmetric kernel", "the operation's plan"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: output lacks %q:\n%s", vs, want, out)
			}
		}
		if strings.Contains(out, "rules whose verdicts differ") {
			t.Errorf("%v: one valid release laid out side by side:\n%s", vs, out)
		}
	}
	if _, err := Walks([]spec.Version{spec.V2_22_3, spec.V2_23_4}, sys, spec.Env{}, op, nil, win); err == nil || !strings.Contains(err.Error(), "no ncclCommWindowRegister") {
		t.Errorf("window buffers at 2.22.3 and 2.23.4: err %v, want the refusal", err)
	}
}

// TestCollapseOpsKeepsEveryDifference: a group above groupSummaryOps is
// one row per run of operations equal but for their channels, and the
// rows say every operation's own row back: expanding the op range and
// the channel runs gives the rows of each operation, so the operations
// that differ (a larger one, a Broadcast) keep rows of their own.
func TestCollapseOpsKeepsEveryDifference(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	comm, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, spec.Env{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	ops := make([]spec.GroupOp, n)
	for i := range ops {
		fn, bytes := spec.AllReduce, int64(1<<20)
		switch i {
		case 50:
			bytes = 2 << 20
		case 80:
			fn = spec.Broadcast
		}
		op, err := spec.OpFromBytes(fn, bytes, spec.Float32, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		ops[i] = spec.GroupOp{Op: op}
	}
	g, err := comm.SelectGroup(ops, spec.Launch{})
	if err != nil {
		t.Fatal(err)
	}
	rows := groupRows(g)
	got := collapseOps(rows)
	if len(got) >= len(rows)/4 {
		t.Errorf("%d operations collapse to %d rows: expected far fewer", len(rows), len(got))
	}
	// expand: each collapsed row back into the operations' rows
	var back [][]string
	for _, r := range got {
		lo, hi := r[0], r[0]
		if a, b, ok := strings.Cut(r[0], ".."); ok {
			lo, hi = a, b
		}
		first, _ := strconv.Atoi(lo)
		last, _ := strconv.Atoi(hi)
		var chans []string
		for _, c := range strings.Split(r[4], ", ") {
			k := 1
			if a, b, ok := strings.Cut(c, "×"); ok {
				k, _ = strconv.Atoi(a)
				c = b
			}
			for range k {
				chans = append(chans, c)
			}
		}
		if len(chans) != last-first+1 {
			t.Fatalf("row %v: %d channel ranges for ops %d..%d", r, len(chans), first, last)
		}
		for i := first; i <= last; i++ {
			e := slices.Clone(r)
			e[0], e[4] = strconv.Itoa(i), chans[i-first]
			back = append(back, e)
		}
	}
	if !slices.EqualFunc(back, rows, slices.Equal[[]string]) {
		t.Errorf("collapsed rows do not give each operation's row back:\n%v\nwant\n%v", back[:min(len(back), 90)], rows[:90])
	}
	var buf bytes.Buffer
	if err := WriteGroup(&buf, g); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 50 ", "| 2 MiB ", "| 80 ", "| Broadcast ", "200 operations: consecutive ones"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("WriteGroup lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestCollapseOpsSmall: a row of operations on different channels alone
// or with other differences stays as it is; runs count in the ×.
func TestCollapseOpsSmall(t *testing.T) {
	row := func(op, size, ch, note string) []string {
		return []string{op, "AllReduce", size, "Ring/LL", ch, "4", "512", note}
	}
	rows := [][]string{row("0", "1 MiB", "0..0", ""), row("1", "1 MiB", "0..0", ""), row("2", "1 MiB", "1..1", ""), row("3", "2 MiB", "1..1", ""), row("4", "1 MiB", "2..3", "plan 1")}
	want := [][]string{row("0..2", "1 MiB", "2×0..0, 1..1", ""), row("3", "2 MiB", "1..1", ""), row("4", "1 MiB", "2..3", "plan 1")}
	if got := collapseOps(rows); !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Errorf("collapseOps = %v, want %v", got, want)
	}
}

// TestWriteGroupChannelShare: the group table says which number bounds
// the channel ranges. On 2 × H200 (NVLS off, 2.28.9) two captured 8 MiB
// AllReduces registered over IPC have nMaxChannels 16 each, yet their
// ranges (0..11, 11..23) span all 24 channels: scheduleCollTasksToPlan
// spreads the plan's traffic over min(Σ nMaxChannels 32, nChannels 24).
func TestWriteGroupChannelShare(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, spec.Env{"NCCL_NVLS_ENABLE": "0"})
	if err != nil || c.Err != nil {
		t.Fatal(err, c.Err)
	}
	op, err := spec.OpFromBytes(spec.AllReduce, 8<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.SelectGroup([]spec.GroupOp{{Op: op, Buffers: spec.BuffersRegistered}, {Op: op, Buffers: spec.BuffersRegistered}}, spec.Launch{Mode: spec.LaunchGraph})
	if err != nil || g.Err != nil {
		t.Fatal(err, g.Err)
	}
	var buf bytes.Buffer
	if err := WriteGroup(&buf, g); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"its Ring/Tree/PAT tasks share 24 channel(s), min(Σ nMaxCh 32, nChannels 24), 1398101 traffic bytes per channel",
		"| 0..11    | 16     |", "| 11..23   | 16     |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
}
