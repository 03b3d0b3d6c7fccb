package spec

import (
	"strings"
	"testing"
)

// TestRMAGates: G-RMA-OP-1 at each form, one case per gate, from
// rmaTaskAppend and scheduleRmaTasksToPlan at the tags.
// Ref: v2.29.2-1 src/enqueue.cc rmaTaskAppend; src/rma/rma.cc
// scheduleRmaTasksToPlan; v2.29.7-1 and v2.30.3-1 rmaTaskAppend
func TestRMAGates(t *testing.T) {
	put := func(peer int, bytes int64) GroupOp {
		return GroupOp{Op: Op{Func: SendRecv, Count: bytes, DataType: Int8}, Buffers: BuffersWindow, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{peer}}}
	}
	v2307 := MakeVersion(2, 30, 7)
	cases := []struct {
		name   string
		v      Version
		preset string
		nodes  int
		env    Env
		driver int // CUDA driver of every node (0: the preset's)
		op     GroupOp
		want   string // the error's message prefix, or the path's Cell
	}{
		{"put to a node peer on the copy engines, 1 GiB tasks", V2_29_2, "h200x2", 1, nil, 0, put(1, 3<<30+1), "RMA plan 0: CE [1] 1 GiB ×3, CE [1] 1 B"},
		{"put to another node through the proxy", V2_29_2, "dgx-h100", 2, nil, 0, put(9, 4096), "RMA plan 0: proxy [9] 4 KiB"},
		{"no symmetric support (2.29.2)", V2_29_2, "h200x2", 1, Env{"NCCL_WIN_ENABLE": "0"}, 0, put(1, 4096), "One sided RMA: symmetric registration"},
		{"no symmetric support (2.29.7: hostRmaSupport)", V2_29_7, "h200x2", 1, Env{"NCCL_WIN_ENABLE": "0"}, 0, put(1, 4096), "One sided RMA: host RMA"},
		{"across nodes without GIN", V2_29_2, "dgx-h100", 2, Env{"NCCL_IB_DISABLE": "1"}, 0, put(9, 4096), "One sided RMA: symmetric registration"},
		{"source outside a window", V2_29_2, "h200x2", 1, nil, 0, GroupOp{Op: Op{Func: SendRecv, Count: 8, DataType: Int8}, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{1}}}, "ncclPutSignal: srcWinHost"},
		{"NULL peer window", V2_29_2, "h200x2", 1, nil, 0, GroupOp{Op: Op{Func: SendRecv, Count: 8, DataType: Int8}, Buffers: BuffersWindow, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{1}, NoPeerWin: true}}, "ncclPutSignal: peerWin is NULL"},
		{"ctx 1", V2_29_2, "h200x2", 1, nil, 0, GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMASignal, Peers: []int{1}, Ctx: 1}}, "Context 1 is invalid"},
		{"flags", V2_29_2, "h200x2", 1, nil, 0, GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMASignal, Peers: []int{1}, Flags: 2}}, "Flags 2 is invalid"},
		{"wait opCnt 0", V2_29_2, "h200x2", 1, nil, 0, GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMAWaitSignal, Peers: []int{1}}}, "ncclWaitSignal: descriptor 0 has invalid opCnt 0"},
		{"wait sigIdx 1", V2_29_2, "h200x2", 1, nil, 0, GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMAWaitSignal, Peers: []int{1}, OpCnt: 1, SigIdx: 1}}, "ncclWaitSignal: descriptor 0 has invalid sigIdx 1"},
		{"wait splits CE and proxy", V2_29_7, "dgx-h100", 2, nil, 0, GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMAWaitSignal, Peers: []int{3, 12, 1}, OpCnt: 1}}, "RMA plan 0: CE [3 1], proxy [12]"},
		{"driver 12.4 passes 2.29.7", V2_29_7, "h200x2", 1, nil, 12040, put(1, 4096), "RMA plan 0: CE [1] 4 KiB"},
		{"driver 12.4 refused from 2.30.3", V2_30_3, "h200x2", 1, nil, 12040, put(1, 4096), "One-sided RMA requires CUDA driver 12.5 or later (found 12.4)."},
		{"host window put refused from 2.30.3", V2_30_3, "h200x2", 1, nil, 0, GroupOp{Op: Op{Func: SendRecv, Count: 8, DataType: Int8}, Buffers: BuffersWindow, Alloc: AllocCuMemHost, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{1}}}, "ncclPutSignal currently does not support VAs with host-backed"},
		{"NCCL_NUM_RMA_CTX=0 passes 2.30.4", V2_30_4, "h200x2", 1, Env{"NCCL_NUM_RMA_CTX": "0"}, 0, put(1, 4096), "RMA plan 0: CE [1] 4 KiB"},
		{"NCCL_NUM_RMA_CTX=0 refused at 2.30.7", v2307, "h200x2", 1, Env{"NCCL_NUM_RMA_CTX": "0"}, 0, put(1, 4096), "One sided RMA: host RMA"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sys, err := Preset(tc.preset, PresetOptions{Nodes: tc.nodes})
			if err != nil {
				t.Fatal(err)
			}
			for i := range sys.Nodes {
				if tc.driver != 0 {
					sys.Nodes[i].Driver.CUDA = tc.driver
				}
			}
			env := tc.env
			if env == nil {
				env = Env{}
			}
			c, err := Init(MustLoad(tc.v), sys, env)
			if err != nil || c.Err != nil {
				t.Fatal(err, c.Err)
			}
			g, err := c.SelectGroup([]GroupOp{tc.op}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			d := g.Ops[0]
			if d.DecidedBy != "G-RMA-OP-1" {
				t.Errorf("decided by %q, want G-RMA-OP-1", d.DecidedBy)
			}
			got := ""
			switch {
			case d.Err != nil:
				got = d.Err.Message
				if g.Err == nil {
					t.Error("the call's error does not fail ncclGroupEnd")
				}
			case d.RMA != nil:
				got = d.RMA.Cell()
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q…", got, tc.want)
			}
		})
	}
}

// TestRMAInGroup: the one-sided calls of a group take RMA plans in call
// order (consecutive puts and signals share one, a wait has its own),
// and the group's collectives decide as they do without them.
func TestRMAInGroup(t *testing.T) {
	c, err := initConfig(t, V2_29_2, "h200x2", 1, false, "", nil)
	if err != nil || c.Err != nil {
		t.Fatal(err, c.Err)
	}
	ar := GroupOp{Op: Op{Func: AllReduce, Count: 1 << 18, DataType: Float32, RedOp: Sum}}
	sig := GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMASignal, Peers: []int{1}}}
	wait := GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMAWaitSignal, Peers: []int{1}, OpCnt: 1}}
	g, err := c.SelectGroup([]GroupOp{sig, ar, sig, wait, sig}, Launch{})
	if err != nil || g.Err != nil {
		t.Fatal(err, g.Err)
	}
	plans := []int{}
	for _, i := range []int{0, 2, 3, 4} {
		plans = append(plans, g.Ops[i].RMA.Plan)
	}
	if want := []int{0, 0, 1, 2}; !equalInts(plans, want) {
		t.Errorf("RMA plans %v, want %v", plans, want)
	}
	alone, err := c.SelectGroup([]GroupOp{ar}, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := alone.Ops[0], g.Ops[1]; a.Algo != b.Algo || a.Proto != b.Proto || a.NChannels != b.NChannels {
		t.Errorf("the AllReduce beside one-sided calls decides %s/%s on %d, alone %s/%s on %d", b.Algo, b.Proto, b.NChannels, a.Algo, a.Proto, a.NChannels)
	}
	if _, err := c.SelectGroup([]GroupOp{{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMASignal, Peers: []int{2}}}}, Launch{}); err == nil {
		t.Error("a peer outside the communicator is accepted")
	}
	old, err := initConfig(t, V2_28_9, "h200x2", 1, false, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.SelectGroup([]GroupOp{sig}, Launch{}); err == nil || !strings.Contains(err.Error(), "no one-sided calls") {
		t.Errorf("2.28.9: %v, want the input refused", err)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestParseCallsRMA: the call script's one-sided calls and their bounds.
func TestParseCallsRMA(t *testing.T) {
	calls, err := ParseCalls("s", []byte("putSignal c0 1MiB peer=1 buffers=window\nsignal c0 peer=2 ctx=1\nwaitSignal c0 peer=1,3 opcnt=2\nallgather c0 1MiB buffers=window alloc=cumem-host\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := calls[0].RMA; r == nil || r.Kind != RMAPutSignal || calls[0].Op.Bytes() != 1<<20 || calls[0].Buffers != BuffersWindow {
		t.Errorf("put: %+v %+v", calls[0], r)
	}
	if r := calls[1].RMA; r == nil || r.Kind != RMASignal || r.Ctx != 1 || calls[1].Op.Count != 0 {
		t.Errorf("signal: %+v", r)
	}
	if r := calls[2].RMA; r == nil || r.OpCnt != 2 || !equalInts(r.Peers, []int{1, 3}) {
		t.Errorf("wait: %+v", r)
	}
	if calls[3].Alloc != AllocCuMemHost {
		t.Errorf("alloc: %v", calls[3].Alloc)
	}
	for _, bad := range []string{
		"putSignal c0 1MiB peer=1,2",         // one peer
		"signal c0",                          // no peer
		"waitSignal c0 peer=1 flags=1",       // a wait takes no flags
		"signal c0 peer=1 opcnt=2",           // opCnt is a wait's
		"putSignal c0 1MiB peer=-1",          // negative peer
		"allreduce c0 1MiB alloc=cumem-host", // host memory outside a window
		"signal c0 peer=1 float32",           // a signal moves no data
	} {
		if _, err := ParseCalls("s", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "s:1: ") {
			t.Errorf("%q: %v, want an error naming s:1", bad, err)
		}
	}
}

// TestHierCEAndHostWindows: 2.30.7's hierarchical copy-engine collective
// (ncclHierCeAvailable) and 2.30.3's windows in host memory (taskAppend's
// ncclDevrWindowHasSysmemSegment).
func TestHierCEAndHostWindows(t *testing.T) {
	ag := Op{Func: AllGather, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	zero := Env{"NCCL_CTA_POLICY": "2"}
	cases := []struct {
		name   string
		v      Version
		preset string
		nodes  int
		env    Env
		op     GroupOp
		kernel string // the decision's Kernel; "error" for an error
	}{
		{"2.30.7 two nodes under ZERO", MakeVersion(2, 30, 7), "dgx-h100", 2, zero, GroupOp{Op: ag, Buffers: BuffersWindow}, "hierarchical-ce"},
		{"2.30.4 two nodes under ZERO: a GIN kernel", V2_30_4, "dgx-h100", 2, zero, GroupOp{Op: ag, Buffers: BuffersWindow}, "AllGather_RailRing_LsaSTMC"},
		{"2.30.7 without an RMA context", MakeVersion(2, 30, 7), "dgx-h100", 2, Env{"NCCL_CTA_POLICY": "2", "NCCL_NUM_RMA_CTX": "0"}, GroupOp{Op: ag, Buffers: BuffersWindow}, "AllGather_RailRing_LsaSTMC"},
		{"2.30.7 without CTA policy ZERO", MakeVersion(2, 30, 7), "dgx-h100", 2, nil, GroupOp{Op: ag, Buffers: BuffersWindow}, "AllGather_RailRing_LsaSTMC"},
		{"2.30.7 one node: the plain copy engines", MakeVersion(2, 30, 7), "h200x2", 1, zero, GroupOp{Op: ag, Buffers: BuffersWindow}, "copy-engine"},
		{"2.30.3 host window: the cost table", V2_30_3, "h200x2", 1, zero, GroupOp{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemHost}, ""},
		{"2.30.3 host window, NCCL_ELASTIC_BUFFER_REGISTER=0", V2_30_3, "h200x2", 1, Env{"NCCL_ELASTIC_BUFFER_REGISTER": "0"}, GroupOp{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemHost}, "error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := initConfig(t, tc.v, tc.preset, tc.nodes, false, "", tc.env)
			if err != nil || c.Err != nil {
				t.Fatal(err, c.Err)
			}
			g, err := c.SelectGroup([]GroupOp{tc.op}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			got := g.Ops[0].Kernel
			if g.Ops[0].Err != nil {
				got = "error"
			}
			if got != tc.kernel {
				t.Errorf("kernel %q, want %q", got, tc.kernel)
			}
		})
	}
	c, err := initConfig(t, V2_29_7, "h200x2", 1, false, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SelectGroup([]GroupOp{{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemHost}}, Launch{}); err == nil {
		t.Error("2.29.7: a window in host memory is not refused as not modelled")
	}
}

// TestRMAConfigNumCtx: a communicator's own ncclConfig_t numRmaCtx,
// beside NCCL_NUM_RMA_CTX. parseCommConfig refuses 0 up to 2.30.4 and takes
// it from 2.30.7, where comm->hostRmaSupport needs a context, so the
// one-sided call fails as the variable makes it fail; a set variable at
// least ConfigRmaCtxEnvMin still wins over the field.
// Ref: v2.29.2-1, v2.30.7-1 src/init.cc parseCommConfig, envConfigOverride,
// initTransportsRank
func TestRMAConfigNumCtx(t *testing.T) {
	put := GroupOp{Op: Op{Func: SendRecv, Count: 4096, DataType: Int8}, Buffers: BuffersWindow, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{1}}}
	v2307 := MakeVersion(2, 30, 7)
	cases := []struct {
		name    string
		v       Version
		cfg     string
		env     Env
		initErr string // the communicator's error, or ""
		want    string // the call's error prefix, or its path's Cell
	}{
		{"numRmaCtx=0 refused at 2.29.2", V2_29_2, "numRmaCtx=0", nil, "Invalid config numRmaCtx attribute value 0", ""},
		{"numRmaCtx=0 refused at 2.30.4", V2_30_4, "numRmaCtx=0", nil, "Invalid config numRmaCtx attribute value 0", ""},
		{"numRmaCtx=2 at 2.29.7", V2_29_7, "numRmaCtx=2", nil, "", "RMA plan 0: CE [1] 4 KiB"},
		{"numRmaCtx=0 at 2.30.7: no host RMA", v2307, "numRmaCtx=0", nil, "", "One sided RMA: host RMA"},
		{"numRmaCtx=0 at 2.30.7, NCCL_NUM_RMA_CTX=1 wins", v2307, "numRmaCtx=0", Env{"NCCL_NUM_RMA_CTX": "1"}, "", "RMA plan 0: CE [1] 4 KiB"},
		{"numRmaCtx=1 at 2.30.7, NCCL_NUM_RMA_CTX=0 wins", v2307, "numRmaCtx=1", Env{"NCCL_NUM_RMA_CTX": "0"}, "", "One sided RMA: host RMA"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := initConfig(t, tc.v, "h200x2", 1, false, tc.cfg, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			if tc.initErr != "" {
				if c.Err == nil || c.Err.Message != tc.initErr {
					t.Fatalf("init error %v, want %q", c.Err, tc.initErr)
				}
				return
			}
			if c.Err != nil {
				t.Fatal(c.Err)
			}
			g, err := c.SelectGroup([]GroupOp{put}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if d := g.Ops[0]; d.Err != nil {
				got = d.Err.Message
			} else if d.RMA != nil {
				got = d.RMA.Cell()
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q…", got, tc.want)
			}
		})
	}
}

// TestRMAPlanOrder: ncclLaunchPrepare queues a group's RMA plans before
// its copy-engine, symmetric and kernel plans at every tag with one-sided
// calls, so the group's plans have one numbering in launch order: with R
// RMA plans the first copy-engine plan is plan R. Under CTA policy ZERO
// on 2 × H200 the window AllGather runs on the copy engines, the window
// AllReduce on a symmetric kernel, the user-buffer collectives in one
// kernel plan.
func TestRMAPlanOrder(t *testing.T) {
	put := GroupOp{Op: Op{Func: SendRecv, Count: 4096, DataType: Int8}, Buffers: BuffersWindow, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{1}}}
	sig := GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMASignal, Peers: []int{1}}}
	wait := GroupOp{Op: Op{Func: SendRecv}, RMA: &RMACall{Kind: RMAWaitSignal, Peers: []int{1}, OpCnt: 1}}
	ar := GroupOp{Op: Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}}
	arWin := GroupOp{Op: Op{Func: AllReduce, Count: 1 << 18, DataType: Bfloat16, RedOp: Sum}, Buffers: BuffersWindow}
	agWin := GroupOp{Op: Op{Func: AllGather, Count: 8 << 20, DataType: Float32}, Buffers: BuffersWindow}
	ag := GroupOp{Op: Op{Func: AllGather, Count: 8 << 20, DataType: Float32}}
	group := []GroupOp{put, ar, wait, agWin, arWin, sig, ag}
	cases := []struct {
		v     Version
		plans []int // per operation, in call order
		n     int   // the group's plans
	}{
		// RMA plans 0 (put), 1 (wait), 2 (signal); copy engines 3;
		// symmetric 4; the kernel plan of both user-buffer collectives 5
		{V2_29_2, []int{0, 5, 1, 3, 4, 2, 5}, 6},
		{V2_29_7, []int{0, 5, 1, 3, 4, 2, 5}, 6},
		{V2_30_3, []int{0, 5, 1, 3, 4, 2, 5}, 6},
		{V2_30_7, []int{0, 5, 1, 3, 4, 2, 5}, 6},
	}
	for _, tc := range cases {
		t.Run(tc.v.String(), func(t *testing.T) {
			c := h200x2Comm(t, tc.v, Env{"NCCL_CTA_POLICY": "2"})
			g, err := c.SelectGroup(group, Launch{})
			if err != nil || g.Err != nil {
				t.Fatal(err, g.Err)
			}
			got := make([]int, len(group))
			for i, d := range g.Ops {
				got[i] = d.Plan
				if d.RMA != nil && d.RMA.Plan != d.Plan {
					t.Errorf("op %d: RMA plan %d, decision plan %d", i, d.RMA.Plan, d.Plan)
				}
			}
			if !equalInts(got, tc.plans) || g.Plans != tc.n {
				t.Errorf("plans %v of %d, want %v of %d", got, g.Plans, tc.plans, tc.n)
			}
			for _, u := range g.Budget {
				if u.Plan != tc.plans[1] {
					t.Errorf("budget lists plan %d, want the kernel plan %d", u.Plan, tc.plans[1])
				}
			}
			if d := g.Ops[3]; d.Kernel != "copy-engine" {
				t.Errorf("window AllGather on %q, want copy-engine", d.Kernel)
			}
			if d := g.Ops[4]; g.Choices[4].SidePath != "symmetric" {
				t.Errorf("window AllReduce on %q (%s), want a symmetric kernel", g.Choices[4].SidePath, d.Kernel)
			}
		})
	}
}
