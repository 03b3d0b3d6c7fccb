package spec

import (
	"strings"
	"testing"
)

// TestDevCommCreate: G-DEVCOMM-1 per release, one case per check of
// ncclDevCommCreate and ncclDevrCommCreateInternal at the tags, and the
// GIN connections and contexts ncclGinConnectOnce gives.
// Ref: v2.28.3-1, v2.28.7-1, v2.29.2-1, v2.29.7-1, v2.30.3-1, v2.30.7-1
// src/dev_runtime.cc ncclDevrCommCreateInternal; src/gin/gin_host.cc
// ncclGinConnectOnce (2.30.3+ ncclGinDevCommSetup)
func TestDevCommCreate(t *testing.T) {
	n := func(v int) *int { return &v }
	v2307 := MakeVersion(2, 30, 7)
	cases := []struct {
		name   string
		v      Version
		preset string
		nodes  int
		env    Env
		reqs   DevCommReqs
		want   string // the error's message, "input: " and the input error's start, or the result's Cell
	}{
		{"none before 2.28.3", V2_27_7, "h200x2", 1, nil, DevCommReqs{}, "input: group op 0: NCCL 2.27.7 has no ncclDevCommCreate"},
		{"LSA barriers at 2.28.3", V2_28_3, "h200x2", 1, nil, DevCommReqs{LSABarrierCount: 2}, "devComm: GIN none"},
		{"GIN fields refused at 2.28.3", V2_28_3, "h200x2", 1, nil, DevCommReqs{GinSignalCount: 1}, "input: group op 0: ncclDevCommRequirements ginSignalCount: this release's struct has no such field (it appears in 2.28.7)"},
		{"no symmetric support", V2_28_3, "h200x2", 1, Env{"NCCL_WIN_ENABLE": "0"}, DevCommReqs{}, "Communicator does not support symmetric memory!"},
		{"2 GPUs: no multimem at 2.28.3", V2_28_3, "h200x2", 1, nil, DevCommReqs{LSAMultimem: true}, "Multicast support requested for team but none available on system."},
		{"2 GPUs: multimem at 2.28.7", V2_28_7, "h200x2", 1, nil, DevCommReqs{LSAMultimem: true}, "devComm: GIN none, LSA multimem"},
		{"GIN asked without a GIN object (2.28.7)", V2_28_7, "h200x2", 1, nil, DevCommReqs{GinSignalCount: 1}, "GIN not supported."},
		{"GIN on one node (2.28.7)", V2_28_7, "dgx-h100", 1, nil, DevCommReqs{GinForceEnable: true}, "devComm: GIN full, 4 connection(s), 4 context(s)"},
		{"NCCL_GIN_NCONTEXTS=2 (2.28.7)", V2_28_7, "dgx-h100", 1, Env{"NCCL_GIN_NCONTEXTS": "2"}, DevCommReqs{GinCounterCount: 8}, "devComm: GIN full, 2 connection(s), 2 context(s)"},
		{"NCCL_GIN_ENABLE=0 (2.28.7)", V2_28_7, "dgx-h100", 1, Env{"NCCL_GIN_ENABLE": "0"}, DevCommReqs{GinSignalCount: 1}, ginDisabledWarn},
		{"several nodes: no symmetric memory (2.28.9)", V2_28_9, "dgx-h100", 2, nil, DevCommReqs{}, "Communicator does not support symmetric memory!"},
		{"GIN across nodes (2.29.2)", V2_29_2, "dgx-h100", 2, nil, DevCommReqs{GinSignalCount: 1}, "devComm: GIN full, 4 connection(s), 4 context(s)"},
		{"no ginSupport: no GIN, no error (2.29.2)", V2_29_2, "dgx-h100", 1, Env{"NCCL_CROSS_NIC": "0"}, DevCommReqs{GinSignalCount: 1}, "devComm: GIN none"},
		{"resources without a connection (2.29.7)", V2_29_7, "dgx-h100", 2, nil, DevCommReqs{BarrierCount: 1}, "User requested GIN resources but did not request GIN to be enabled!"},
		{"full connection (2.29.7)", V2_29_7, "dgx-h100", 2, nil, DevCommReqs{GinConnectionType: GinConnFull, GinSignalCount: 1}, "devComm: GIN full, 1 connection(s), 4 context(s)"},
		{"full where rail only (2.29.7)", V2_29_7, "dgx-h100", 2, Env{"NCCL_CROSS_NIC": "0"}, DevCommReqs{GinForceEnable: true}, "User requested GIN connection type NCCL_GIN_CONNECTION_FULL but the communicator supports only NCCL_GIN_CONNECTION_RAIL"},
		{"rail (2.29.7)", V2_29_7, "dgx-h100", 2, Env{"NCCL_CROSS_NIC": "0"}, DevCommReqs{GinConnectionType: GinConnRail}, "devComm: GIN rail, 1 connection(s), 4 context(s)"},
		{"NCCL_GIN_ENABLE=0: no GIN type (2.29.7)", V2_29_7, "dgx-h100", 2, Env{"NCCL_GIN_ENABLE": "0"}, DevCommReqs{GinConnectionType: GinConnFull}, "Communicator does not support symmetric memory!"},
		{"NCCL_GIN_ENABLE=0 on one node (2.29.7)", V2_29_7, "dgx-h100", 1, Env{"NCCL_GIN_ENABLE": "0"}, DevCommReqs{GinConnectionType: GinConnFull}, "User requested GIN but not all ranks in the communicator support GIN"},
		{"exclusive contexts within NCCL_GIN_NCONTEXTS (2.29.7)", V2_29_7, "dgx-h100", 2, nil, DevCommReqs{GinConnectionType: GinConnFull, GinContextCount: n(8), GinExclusiveContexts: true}, "devComm: GIN full, 1 connection(s), 8 context(s) exclusive"},
		{"exclusive contexts beyond NCCL_GIN_NCONTEXTS (2.29.7)", V2_29_7, "dgx-h100", 2, Env{"NCCL_GIN_NCONTEXTS": "2"}, DevCommReqs{GinConnectionType: GinConnFull, GinExclusiveContexts: true}, "Requested number of exclusive GIN contexts (4) exceeds the unallocated count (2). Use NCCL_GIN_NCONTEXTS to increase the limit"},
		{"shared contexts capped (2.29.7)", V2_29_7, "dgx-h100", 2, Env{"NCCL_GIN_NCONTEXTS": "2"}, DevCommReqs{GinConnectionType: GinConnFull, GinContextCount: n(6)}, "devComm: GIN full, 1 connection(s), 2 context(s)"},
		{"no shared context asked (2.29.7)", V2_29_7, "dgx-h100", 2, nil, DevCommReqs{GinConnectionType: GinConnFull, GinContextCount: n(0)}, "No shared contexts are available (0 requested)"},
		{"NCCL_GIN_NCONNECTIONS=4 (2.30.3)", V2_30_3, "dgx-h100", 2, Env{"NCCL_GIN_NCONNECTIONS": "4"}, DevCommReqs{GinConnectionType: GinConnFull, GinContextCount: n(6)}, "devComm: GIN full, 4 connection(s), 6 context(s)"},
		{"contexts asked (2.30.3)", V2_30_3, "dgx-h100", 2, Env{"NCCL_GIN_NCONTEXTS": "2"}, DevCommReqs{GinConnectionType: GinConnFull, GinContextCount: n(6)}, "devComm: GIN full, 1 connection(s), 6 context(s)"},
		{"world GIN barrier on rail (2.30.3)", V2_30_3, "dgx-h100", 2, Env{"NCCL_CROSS_NIC": "0"}, DevCommReqs{GinConnectionType: GinConnRail, WorldGinBarrierCount: 1}, "devComm: GIN rail, 1 connection(s), 4 context(s)"},
		{"world GIN barrier on rail (2.30.7)", v2307, "dgx-h100", 2, Env{"NCCL_CROSS_NIC": "0"}, DevCommReqs{GinConnectionType: GinConnRail, WorldGinBarrierCount: 1}, "Cannot create worldGinBarrier with NCCL_GIN_CONNECTION_RAIL."},
		{"NCCL_GIN_ENABLE=0 at connect (2.30.7)", v2307, "dgx-h100", 2, Env{"NCCL_GIN_ENABLE": "0", "NCCL_SYM_GIN_KERNELS_ENABLE": "0"}, DevCommReqs{GinConnectionType: GinConnFull}, ginDisabledWarn},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := devCommCase{v: tc.v, preset: tc.preset, nodes: tc.nodes, env: tc.env}.comm(t)
			reqs := tc.reqs
			g, err := c.SelectGroup([]GroupOp{{Op: Op{Func: SendRecv}, DevComm: &reqs}}, Launch{})
			got := ""
			switch {
			case err != nil:
				got = "input: " + err.Error()
			case g.Ops[0].Err != nil:
				got = g.Ops[0].Err.Message
				if g.Err == nil {
					t.Error("the call's error does not fail ncclGroupEnd")
				}
			case g.Ops[0].DevComm != nil:
				got = g.Ops[0].DevComm.Cell()
			}
			if err == nil && g.Ops[0].DecidedBy != "G-DEVCOMM-1" {
				t.Errorf("decided by %q, want G-DEVCOMM-1", g.Ops[0].DecidedBy)
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q…", got, tc.want)
			}
		})
	}
}

// TestWindowSegments: a window over several cuMem segments (G-WIN-SEG-1)
// per release: refused by ncclCommWindowRegister at 2.29.2–2.29.7 (no
// window without symmetric support), registered from 2.30.3 with the
// decision of a one-segment window, and refused by ncclPutSignal (2.29.x:
// no window; 2.30.3+: its own WARN).
// Ref: v2.29.2-1 src/dev_runtime.cc ncclCommWindowRegister,
// ncclDevrWindowRegisterInGroup; v2.30.3-1 the same, symMemoryObtain;
// src/enqueue.cc rmaTaskAppend
func TestWindowSegments(t *testing.T) {
	ag := Op{Func: AllGather, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	put := Op{Func: SendRecv, Count: 4096, DataType: Int8}
	cases := []struct {
		name string
		v    Version
		env  Env
		op   GroupOp
		want string // "input: ", the error's message, or "same" (decided as on a one-segment window, by G-WIN-SEG-1's pass)
	}{
		{"not modelled before 2.29.2", V2_28_9, nil, GroupOp{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemSegments}, "input: group op 0: a window over several cuMem segments"},
		{"refused at 2.29.2", V2_29_2, nil, GroupOp{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemSegments}, winSegWarn},
		{"refused at 2.29.7", V2_29_7, nil, GroupOp{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemSegments}, winSegWarn},
		{"no symmetric support: no window (2.29.7)", V2_29_7, Env{"NCCL_WIN_ENABLE": "0"}, GroupOp{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemSegments}, "same"},
		{"registered at 2.30.3", V2_30_3, nil, GroupOp{Op: ag, Buffers: BuffersWindow, Alloc: AllocCuMemSegments}, "same"},
		{"put finds no window (2.29.2)", V2_29_2, nil, GroupOp{Op: put, Buffers: BuffersWindow, Alloc: AllocCuMemSegments, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{1}}}, "ncclPutSignal: srcWinHost is not in a valid symmetric window"},
		{"put refused (2.30.3)", V2_30_3, nil, GroupOp{Op: put, Buffers: BuffersWindow, Alloc: AllocCuMemSegments, RMA: &RMACall{Kind: RMAPutSignal, Peers: []int{1}}}, "ncclPutSignal currently does not support VAs backed by multiple physical cuMem segments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env
			if env == nil {
				env = Env{}
			}
			c, err := initConfig(t, tc.v, "h200x2", 1, false, "", env)
			if err != nil || c.Err != nil {
				t.Fatal(err, c.Err)
			}
			g, err := c.SelectGroup([]GroupOp{tc.op}, Launch{})
			if strings.HasPrefix(tc.want, "input: ") {
				if err == nil || !strings.HasPrefix("input: "+err.Error(), tc.want) {
					t.Fatalf("got %v, want %q…", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := g.Ops[0]
			if tc.want != "same" {
				if d.Err == nil || !strings.HasPrefix(d.Err.Message, tc.want) {
					t.Fatalf("got %v, want %q", d.Err, tc.want)
				}
				return
			}
			one := tc.op
			one.Alloc = AllocCuMem
			g1, err := c.SelectGroup([]GroupOp{one}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			d1 := g1.Ops[0]
			if d.Err != nil || d.Algo != d1.Algo || d.Proto != d1.Proto || d.Kernel != d1.Kernel || d.NChannels != d1.NChannels {
				t.Errorf("segments: %v %s/%s %q ch %d; one segment: %s/%s %q ch %d", d.Err, d.Algo, d.Proto, d.Kernel, d.NChannels, d1.Algo, d1.Proto, d1.Kernel, d1.NChannels)
			}
			if v, ok := g.Traces[0].Find("G-WIN-SEG-1"); !ok || v.Outcome != Pass {
				t.Errorf("G-WIN-SEG-1 verdict %v, %v: want pass", v, ok)
			}
		})
	}
	if _, _, err := ParseBuffersAlloc("user", "cumem-segments"); err == nil {
		t.Error("memory of several segments outside a window is accepted")
	}
}
