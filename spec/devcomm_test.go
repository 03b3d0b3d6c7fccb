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
			sys, err := Preset(tc.preset, PresetOptions{Nodes: tc.nodes})
			if err != nil {
				t.Fatal(err)
			}
			env := tc.env
			if env == nil {
				env = Env{}
			}
			c, err := Init(MustLoad(tc.v), sys, env)
			if err != nil || c.Err != nil {
				t.Fatal(err, c.Err)
			}
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
