package spec

import (
	"maps"
	"slices"
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
