package spec

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSelectGroupP2P: rank 0's send/recv tasks of a group land on the
// channels NCCL's planner gives them at each tag, after the collectives
// and in their plan. The expected channels are worked out by hand from
// the source: h200x2 has 32 p2p channels, 32 per peer, and nChannelsMin
// 16 (two ranks); 64 MiB takes 16 parts of 4 MiB.
//   - 2.21.5 ncclChannelCompute: the peer's local delta 1, mirrored in 32
//     channels: 16, then one channel per chunk: 16..31.
//   - 2.22.3 ncclP2pChannelForPart: round 1's base 1 plus the bit-reversed
//     part: 1, 17, 9, 25, ...
//   - 2.28.3: the base reversed (16), the parts contiguous: 16..31.
//   - 64 KiB to the peer: LL up to 32 × 16 KiB before 2.29.2, on the LL
//     step (64 KiB, parts of 8 KiB: 8 channels); from 2.29.2 counted on
//     the Simple step first (parts of 64 KiB: 1 channel), then Simple
//     since 64 KiB > 1 × 16 KiB.
//   - across nodes (4 × DGX H100, 2.28.9, groups of 8 local ranks, 16
//     p2p channels, 2 per peer): the receive from rank 31 is round 9,
//     base reverse(1) = 8, over the network: Simple.
func TestSelectGroupP2P(t *testing.T) {
	ar := Op{Func: AllReduce, Count: 1 << 20, DataType: Float32, RedOp: Sum}
	sr := func(bytes int64) Op { return Op{Func: SendRecv, Count: bytes / 4, DataType: Float32} }
	a2a := func(bytes int64) Op { return Op{Func: AllToAll, Count: bytes / 4, DataType: Float32} }
	seq := func(lo, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = lo + i
		}
		return out
	}
	rev22 := []int{1, 17, 9, 25, 5, 21, 13, 29, 3, 19, 11, 27, 7, 23, 15, 31}
	type task struct {
		dir   string
		peer  int
		proto Proto
		round int
		chans []int
	}
	for _, tc := range []struct {
		name   string
		v      Version
		preset string
		nodes  int
		ops    []GroupOp
		op     int // the p2p operation checked
		want   []task
		plan   int
		plans  int
		ref    string // the tag G-SCHED-P2P-1 cites
	}{
		{"2.21.5 chunks", V2_21_5, "h200x2", 1, []GroupOp{{Op: ar}, {Op: sr(64 << 20)}}, 1,
			[]task{{"send", 1, Simple, -1, seq(16, 16)}, {"recv", 1, Simple, -1, seq(16, 16)}}, 0, 1, "v2.21.5-1"},
		{"2.22.3 reversed parts", V2_22_3, "h200x2", 1, []GroupOp{{Op: ar}, {Op: sr(64 << 20)}}, 1,
			[]task{{"send", 1, Simple, 1, rev22}, {"recv", 1, Simple, 1, rev22}}, 0, 1, "v2.22.3-1"},
		{"2.28.3 reversed base", V2_28_3, "h200x2", 1, []GroupOp{{Op: sr(64 << 20)}, {Op: ar}}, 0,
			[]task{{"send", 1, Simple, 1, seq(16, 16)}, {"recv", 1, Simple, 1, seq(16, 16)}}, 0, 1, "v2.28.3-1"},
		{"2.28.9 LL on the LL step", V2_28_9, "h200x2", 1, []GroupOp{{Op: a2a(64 << 10)}}, 0,
			[]task{{"send", 0, Simple, 0, []int{0}}, {"recv", 0, Simple, 0, []int{0}}, {"send", 1, LL, 1, seq(16, 8)}, {"recv", 1, LL, 1, seq(16, 8)}}, 0, 1, "v2.28.7-1"},
		{"2.29.2 channels before protocol", V2_29_2, "h200x2", 1, []GroupOp{{Op: a2a(64 << 10)}}, 0,
			[]task{{"send", 0, Simple, 0, []int{0}}, {"recv", 0, Simple, 0, []int{0}}, {"send", 1, Simple, 1, []int{16}}, {"recv", 1, Simple, 1, []int{16}}}, 0, 1, "v2.28.7-1"},
		// a symmetric plan cannot hold p2p work: the tasks get a plan of their own
		{"2.28.9 after a symmetric plan", V2_28_9, "h200x2", 1, []GroupOp{{Op: ar, Buffers: BuffersWindow}, {Op: sr(8 << 10)}}, 1,
			[]task{{"send", 1, LL, 1, []int{16}}, {"recv", 1, LL, 1, []int{16}}}, 1, 2, "v2.28.7-1"},
		{"2.28.9 across nodes", V2_28_9, "dgx-h100", 4, []GroupOp{{Op: sr(64 << 20)}}, 0,
			[]task{{"send", 1, Simple, 1, []int{0, 1}}, {"recv", 31, Simple, 9, []int{8, 9}}}, 0, 1, "v2.28.7-1"},
	} {
		sys, err := Preset(tc.preset, PresetOptions{Nodes: tc.nodes})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_NVLS_ENABLE": "0"})
		if err != nil {
			t.Fatal(err)
		}
		g, err := c.SelectGroup(tc.ops, Launch{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		d := g.Ops[tc.op]
		if d.P2P == nil || len(d.P2P.Tasks) != len(tc.want) {
			t.Fatalf("%s: p2p path %+v, want %d tasks", tc.name, d.P2P, len(tc.want))
		}
		for k, w := range tc.want {
			got := d.P2P.Tasks[k]
			if got.Dir != w.dir || got.Peer != w.peer || got.Proto != w.proto || got.Round != w.round || !slices.Equal(got.Channels, w.chans) || got.NChannels != len(w.chans) || got.Plan != tc.plan {
				t.Errorf("%s: task %d: %s %d %s round %d channels %v (%d) plan %d; want %s %d %s round %d channels %v plan %d",
					tc.name, k, got.Dir, got.Peer, got.Proto, got.Round, got.Channels, got.NChannels, got.Plan, w.dir, w.peer, w.proto, w.round, w.chans, tc.plan)
			}
		}
		if g.Plans != tc.plans {
			t.Errorf("%s: %d plans, want %d", tc.name, g.Plans, tc.plans)
		}
		v, ok := g.Traces[tc.op].Find("G-SCHED-P2P-1")
		if !ok || v.Ref == nil || v.Ref.Tag != tc.ref {
			t.Errorf("%s: G-SCHED-P2P-1 verdict %+v, want one citing %s", tc.name, v, tc.ref)
		}
		if _, ok := g.Traces[tc.op].Find("G-SCHED-P2P-2"); !ok {
			t.Errorf("%s: no G-SCHED-P2P-2 verdict", tc.name)
		}
		for i, tr := range g.Traces {
			if i == tc.op {
				continue
			}
			if _, ok := tr.Find("G-SCHED-P2P-1"); ok {
				t.Errorf("%s: collective %d carries a send/recv verdict", tc.name, i)
			}
		}
	}
}

// TestSelectGroupP2PPlans: a group's send/recv works fill kernel plans
// against the plan budget (G-SCHED-BUDGET-1 in scheduleP2pTasksToPlan).
//   - One DGX H100 (8 ranks, 32 p2p channels, 32 per peer, nChannelsMin
//     4), 8 AllToAlls of 1 MiB a peer (nccl-tests -m 8): a work takes 4
//     parts (256 KiB each) on 4 channels, so a pass over the 8 rounds
//     opens 32 batches. Before each work NCCL wants room for 32 more
//     batches: after 7 passes (224 batches) 256 × 16 B exceed the 4,064
//     bytes of kernel arguments, so the eighth AllToAll is a second plan.
//   - 32 × DGX H100 (256 ranks, 16 p2p channels, one per peer), 16
//     AllToAlls of 1 MiB: the 8 rounds of a schedule group share one
//     channel and one batch, 32 batches a pass; a plan holds 254 batches,
//     so the eighth AllToAll's 233rd round ends plan 0 (466 of its 512
//     tasks), and the second plan ends in the fifteenth. Up to 2.29.3 the
//     next plan walks from round 0, where each later AllToAll's early
//     rounds come before the previous one's rest: the fifteenth and the
//     sixteenth both put 46 tasks in plan 2. From 2.29.7 the plan resumes
//     at the round that did not fit: the fifteenth stays in plan 1 whole
//     and the sixteenth puts 94 in plan 2.
//
// Ref: v2.28.9-1 src/enqueue.cc scheduleP2pTasksToPlan, addP2pToPlan,
// addWorkBatchToPlan, ncclLaunchPrepare; v2.29.3-1 / v2.29.7-1
// scheduleP2pTasksToPlan (p2pRound)
func TestSelectGroupP2PPlans(t *testing.T) {
	a2a := []GroupOp{{Op: Op{Func: AllToAll, Count: 1 << 18, DataType: Float32}}}
	for _, tc := range []struct {
		name  string
		v     Version
		nodes int
		agg   int
		plans int
		want  map[int]map[int]int // op -> plan -> tasks, for the ops listed
	}{
		{"one node, -m 8", V2_28_9, 1, 8, 2, map[int]map[int]int{0: {0: 16}, 6: {0: 16}, 7: {1: 16}}},
		{"one node, -m 7", V2_28_9, 1, 7, 1, map[int]map[int]int{6: {0: 16}}},
		{"32 nodes, 2.29.3", V2_29_3, 32, 16, 3, map[int]map[int]int{7: {0: 466, 1: 46}, 13: {1: 512}, 14: {1: 466, 2: 46}, 15: {1: 466, 2: 46}}},
		{"32 nodes, 2.29.7", V2_29_7, 32, 16, 3, map[int]map[int]int{7: {0: 466, 1: 46}, 14: {1: 512}, 15: {1: 418, 2: 94}}},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: tc.nodes})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_NVLS_ENABLE": "0"})
		if err != nil {
			t.Fatal(err)
		}
		g, err := c.SelectGroup(a2a, Launch{Agg: tc.agg})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if g.Plans != tc.plans {
			t.Errorf("%s: %d plans, want %d", tc.name, g.Plans, tc.plans)
		}
		for op, want := range tc.want {
			got := map[int]int{}
			for _, tk := range g.Ops[op].P2P.Tasks {
				got[tk.Plan]++
			}
			if !maps.Equal(got, want) {
				t.Errorf("%s: AllToAll %d: tasks per plan %v, want %v", tc.name, op+1, got, want)
			}
		}
	}
}

// TestSelectGroupP2PPeers: sends and recvs with their own peers. The
// ring's two calls stated one by one (send to 1, recv from the last rank)
// are placed exactly as nccl-tests' SendRecv; a pipeline pair across
// nodes (4 × DGX H100, 2.28.9) sends to rank 8 of node 1 in round 8 over
// the network (Simple, 2 channels per peer from base reverse(1) = 8); a
// peer outside the communicator is refused before any gate, as ArgsCheck
// refuses it; a send to rank 0 itself with no matching recv fails
// ncclGroupEnd with ncclInvalidUsage (scheduleP2pTasksToPlan).
func TestSelectGroupP2PPeers(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: 4})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Init(MustLoad(V2_28_9), sys, Env{})
	if err != nil {
		t.Fatal(err)
	}
	op := Op{Func: SendRecv, Count: 16 << 20, DataType: Float32}
	send := func(peer int) GroupOp { return GroupOp{Op: op, P2P: &P2PCall{Send: true, Peer: peer}} }
	recv := func(peer int) GroupOp { return GroupOp{Op: op, P2P: &P2PCall{Peer: peer}} }
	ring, err := c.SelectGroup([]GroupOp{{Op: op}}, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	stated, err := c.SelectGroup([]GroupOp{recv(31), send(1)}, Launch{})
	if err != nil || stated.Err != nil {
		t.Fatalf("stated ring: %v %v", err, stated.Err)
	}
	got := append(slices.Clone(stated.Ops[1].P2P.Tasks), stated.Ops[0].P2P.Tasks...)
	if !reflect.DeepEqual(got, ring.Ops[0].P2P.Tasks) {
		t.Errorf("stated ring %+v, want the SendRecv's %+v", got, ring.Ops[0].P2P.Tasks)
	}
	pp, err := c.SelectGroup([]GroupOp{send(8)}, Launch{})
	if err != nil || pp.Err != nil {
		t.Fatalf("pipeline pair: %v %v", err, pp.Err)
	}
	if tk := pp.Ops[0].P2P.Tasks[0]; tk.Peer != 8 || tk.Dir != "send" || tk.Round != 8 || tk.Proto != Simple || !slices.Equal(tk.Channels, []int{8, 9}) {
		t.Errorf("send to 8: %+v, want round 8, Simple on 8..9", tk)
	}
	if _, err := c.SelectGroup([]GroupOp{send(32)}, Launch{}); err == nil || !strings.Contains(err.Error(), "send peer 32: expected a rank in 0..31") {
		t.Errorf("peer 32 of 32 ranks: %v, want the peer refused", err)
	}
	for _, tc := range []struct {
		ops  []GroupOp
		want string
	}{
		{[]GroupOp{send(0)}, "Trying to send to self without a matching recv"},
		{[]GroupOp{send(0), recv(0), recv(0)}, "Trying to recv to self without a matching send"},
		{[]GroupOp{send(0), recv(0)}, ""},
	} {
		g, err := c.SelectGroup(tc.ops, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == "" && g.Err != nil:
			t.Errorf("matched self pair: %v", g.Err)
		case tc.want != "" && (g.Err == nil || g.Err.Result != InvalidUsage || g.Err.Message != tc.want):
			t.Errorf("%d self calls: %v, want ncclInvalidUsage %q", len(tc.ops), g.Err, tc.want)
		case tc.want != "":
			if v, ok := g.Traces[0].Find("G-SCHED-P2P-1"); !ok || v.Outcome != Fail {
				t.Errorf("%d self calls: G-SCHED-P2P-1 %+v, want a failure", len(tc.ops), v)
			}
		}
	}
}

// TestParseCallsPeer: send and recv take peer=N; another call refuses it.
func TestParseCallsPeer(t *testing.T) {
	calls, err := ParseCalls("s", []byte("groupStart\nsend c0 1MiB peer=3\nrecv c0 4KiB int8 peer=5\nsend c0 1MiB\ngroupEnd\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := calls[1].P2P; p == nil || !p.Send || p.Peer != 3 || calls[1].Op.Func != SendRecv {
		t.Errorf("send peer=3: %+v", calls[1])
	}
	if p := calls[2].P2P; p == nil || p.Send || p.Peer != 5 || calls[2].Op.Bytes() != 4096 {
		t.Errorf("recv peer=5: %+v", calls[2])
	}
	if calls[3].P2P != nil {
		t.Errorf("send without peer= is nccl-tests' ring: %+v", calls[3].P2P)
	}
	for _, bad := range []string{"allreduce c0 1MiB peer=1", "send c0 1MiB peer=-1", "recv c0 1MiB peer=x"} {
		if _, err := ParseCalls("s", []byte(bad)); err == nil || !strings.Contains(err.Error(), "s:1:") {
			t.Errorf("%q: %v, want an error naming s:1", bad, err)
		}
	}
}

// TestP2PRegistered: G-REG-P2P-1 per release, on a 64 MiB send (Simple).
//   - node peer (2 × H200): IPC from 2.24.3 when the launch is captured
//     (NCCL_GRAPH_REGISTER) or the buffer is ncclCommRegister'ed
//     (NCCL_LOCAL_REGISTER); never before 2.24.3, never on LL (8 KiB);
//     a cudaMalloc buffer without NCCL_LEGACY_CUDA_REGISTER is refused.
//   - network peer, one GPU per node: 2.20.3–2.23.4 a ncclCommRegister
//     buffer (not a capture); 2.24.3–2.25.1 refuse with PXN on (isAllNvlink
//     holds for one GPU), register with NCCL_PXN_DISABLE=1; 2.26.2 registers
//     (PXN needs two local ranks); 2.19.4 has no rule.
//   - network peer, 8 GPUs per node (2.28.9): PXN in use refuses,
//     NCCL_PXN_DISABLE=1 registers.
func TestP2PRegistered(t *testing.T) {
	reg := func(c *Comm, g GroupOp, l Launch) string {
		t.Helper()
		d, err := c.SelectGroup([]GroupOp{g}, l)
		if err != nil || d.Err != nil || d.Ops[0].P2P == nil || len(d.Ops[0].P2P.Tasks) != 1 {
			t.Fatalf("%v %v", err, d.Err)
		}
		v, ok := d.Traces[0].Find("G-REG-P2P-1")
		verdict := "none"
		if ok {
			verdict = v.Outcome.String()
		}
		return fmt.Sprintf("%q %s", d.Ops[0].P2P.Tasks[0].Registered, verdict)
	}
	send := func(bytes int64, peer int, b Buffers, a Alloc) GroupOp {
		return GroupOp{Op: Op{Func: SendRecv, Count: bytes, DataType: Int8}, Buffers: b, Alloc: a, P2P: &P2PCall{Send: true, Peer: peer}}
	}
	recv := func(bytes int64, peer int, b Buffers, a Alloc) GroupOp {
		return GroupOp{Op: Op{Func: SendRecv, Count: bytes, DataType: Int8}, Buffers: b, Alloc: a, P2P: &P2PCall{Peer: peer}}
	}
	graph := Launch{Mode: LaunchGraph}
	for _, tc := range []struct {
		v    Version
		gpus int // 0: h200x2; else 2 dgx-h100 nodes of gpus GPUs
		env  Env
		g    GroupOp
		l    Launch
		want string
	}{
		{V2_28_9, 0, nil, send(64<<20, 1, BuffersUser, AllocCuMem), Launch{}, `"" none`},
		{V2_28_9, 0, nil, send(64<<20, 1, BuffersUser, AllocCuMem), graph, `"IPC" pass`},
		{V2_28_9, 0, nil, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"IPC" pass`},
		{V2_28_9, 0, Env{"NCCL_LOCAL_REGISTER": "0"}, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"" none`},
		{V2_28_9, 0, nil, send(8<<10, 1, BuffersRegistered, AllocCuMem), Launch{}, `"" none`},
		{V2_28_9, 0, nil, send(64<<20, 1, BuffersRegistered, AllocCudaMalloc), Launch{}, `"" fail`},
		{V2_24_3, 0, nil, send(64<<20, 1, BuffersUser, AllocCuMem), graph, `"IPC" pass`},
		{V2_23_4, 0, nil, send(64<<20, 1, BuffersRegistered, AllocCuMem), graph, `"" none`},
		{V2_22_3, 1, nil, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"NET" pass`},
		{V2_22_3, 1, nil, send(64<<20, 1, BuffersUser, AllocCuMem), graph, `"" none`},
		{V2_20_3, 1, nil, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"NET" pass`},
		{V2_19_4, 1, nil, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"" none`},
		{V2_25_1, 1, nil, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"" none`},
		{V2_25_1, 1, Env{"NCCL_PXN_DISABLE": "1"}, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"NET" pass`},
		{V2_26_2, 1, nil, send(64<<20, 1, BuffersRegistered, AllocCuMem), Launch{}, `"NET" pass`},
		{V2_26_2, 1, nil, send(64<<20, 1, BuffersUser, AllocCuMem), graph, `"NET" pass`},
		{V2_28_9, 8, nil, send(64<<20, 8, BuffersRegistered, AllocCuMem), Launch{}, `"" none`},
		{V2_28_9, 8, Env{"NCCL_PXN_DISABLE": "1"}, send(64<<20, 8, BuffersRegistered, AllocCuMem), Launch{}, `"NET" pass`},
		// each part's own connector decides (G-NET-CONN-GDR-1): with
		// NCCL_NET_GDR_READ=0 a send's connector reads without GPU Direct
		// RDMA and is not registered, a receive's writes with it and is
		// (the ring's useGdr is off either way)
		{V2_28_9, 8, Env{"NCCL_PXN_DISABLE": "1", "NCCL_NET_GDR_READ": "0"}, send(64<<20, 8, BuffersRegistered, AllocCuMem), Launch{}, `"" none`},
		{V2_28_9, 8, Env{"NCCL_PXN_DISABLE": "1", "NCCL_NET_GDR_READ": "0"}, recv(64<<20, 8, BuffersRegistered, AllocCuMem), Launch{}, `"NET" pass`},
		{V2_28_9, 8, Env{"NCCL_PXN_DISABLE": "1", "NCCL_NET_GDR_LEVEL": "LOC"}, recv(64<<20, 8, BuffersRegistered, AllocCuMem), Launch{}, `"" none`},
	} {
		var c *Comm
		if tc.gpus == 0 {
			env := Env{"NCCL_NVLS_ENABLE": "0"}
			for k, v := range tc.env {
				env[k] = v
			}
			c = initPreset(t, tc.v, "h200x2", 1, env)
		} else {
			c = onePerNode(t, tc.v, 2, tc.gpus, tc.env)
		}
		if got := reg(c, tc.g, tc.l); got != tc.want {
			t.Errorf("%s %d GPU(s) %v %s %s launch %s: got %s, want %s", tc.v, tc.gpus, tc.env, FormatBytes(tc.g.Op.Bytes()), tc.g.Buffers, tc.l.Mode, got, tc.want)
		}
	}
}
