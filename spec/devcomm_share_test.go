package spec

import (
	"slices"
	"strings"
	"testing"
)

// devCommCase is a group of ncclDevCommCreate calls on one communicator
// and what each gives: the result's Cell or NCCL's error, and the rule
// that decided it.
type devCommCase struct {
	name   string
	v      Version
	preset string
	nodes  int
	env    Env
	libs   []Library
	// proxyNode1: node 1's NICs are not mlx5 (its internal GIN is the proxy)
	proxyNode1 bool
	reqs       []DevCommReqs
	want       []string // per call: a prefix of the Cell or of the error's message
	by         []RuleID // per call: the deciding rule (empty: G-DEVCOMM-1)
	log        string   // a line some verdict of the group prints
}

func (tc devCommCase) comm(t *testing.T) *Comm {
	t.Helper()
	sys, err := Preset(tc.preset, PresetOptions{Nodes: tc.nodes})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = slices.Clone(tc.libs)
		if tc.proxyNode1 && i == 1 {
			for k := range sys.Nodes[i].NICs {
				sys.Nodes[i].NICs[k].Provider = ProviderOther
			}
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
	return c
}

func (tc devCommCase) run(t *testing.T) {
	c := tc.comm(t)
	ops := make([]GroupOp, len(tc.reqs))
	for i := range tc.reqs {
		ops[i] = GroupOp{Op: Op{Func: SendRecv}, DevComm: &tc.reqs[i]}
	}
	g, err := c.SelectGroup(ops, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	checkDevComms(t, g.Ops, g.Traces, tc.want, tc.by, tc.log)
}

func checkDevComms(t *testing.T, ops []*Decision, traces []Trace, want []string, by []RuleID, log string) {
	t.Helper()
	for i, d := range ops {
		got := ""
		switch {
		case d.Err != nil:
			got = d.Err.Message
		case d.DevComm != nil:
			got = d.DevComm.Cell()
		}
		if !strings.HasPrefix(got, want[i]) {
			t.Errorf("call %d: got %q, want %q…", i, got, want[i])
		}
		wantBy := RuleID("G-DEVCOMM-1")
		if i < len(by) && by[i] != "" {
			wantBy = by[i]
		}
		if d.DecidedBy != wantBy {
			t.Errorf("call %d: decided by %s, want %s", i, d.DecidedBy, wantBy)
		}
	}
	if log == "" {
		return
	}
	for _, tr := range traces {
		for _, v := range tr {
			if slices.Contains(v.Log, log) {
				return
			}
		}
	}
	t.Errorf("no verdict prints %q", log)
}

// TestDevCommQueue: G-DEVCOMM-QUEUE-1 per release: the GDAKI send-queue
// depth and the proxy's queue per peer, and where ginQueueDepth is
// refused or ignored.
// Ref: v2.28.7-1 src/transport/gdaki/gin_host_gdaki.cc
// ncclGinGdakiCreateContext, src/gin/gin_host_proxy.cc
// ncclGinProxyCreateContext; v2.29.7-1 src/gin/gin_host.cc
// ncclGinConnectOnce, src/transport/net_ib/gin.cc ncclGinIbProxyConnect;
// v2.30.3-1 src/gin/gin_host.cc ncclGinDevCommSetup; v2.30.7-1
// src/gin/gin_host_proxy.cc ncclGinProxyCreateContext
func TestDevCommQueue(t *testing.T) {
	full := DevCommReqs{GinConnectionType: GinConnFull}
	deep := DevCommReqs{GinConnectionType: GinConnFull, GinQueueDepth: 32}
	proxy := Env{"NCCL_GIN_TYPE": "2"}
	q := RuleID("G-DEVCOMM-QUEUE-1")
	for _, tc := range []devCommCase{
		{name: "GDAKI: NCCL_GIN_GDAKI_QP_DEPTH's 128 (2.28.7)", v: V2_28_7, preset: "dgx-h100", nodes: 1,
			reqs: []DevCommReqs{{GinForceEnable: true}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s), GDAKI queues of 128"}},
		{name: "NCCL_GIN_GDAKI_QP_DEPTH=64 (2.28.9)", v: V2_28_9, preset: "dgx-h100", nodes: 1, env: Env{"NCCL_GIN_GDAKI_QP_DEPTH": "64"},
			reqs: []DevCommReqs{{GinForceEnable: true}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s), GDAKI queues of 64"}},
		{name: "proxy: 256 per peer (2.28.7)", v: V2_28_7, preset: "dgx-h100", nodes: 1, env: proxy,
			reqs: []DevCommReqs{{GinForceEnable: true}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s), proxy queues of 256"}},
		{name: "NCCL_GIN_PROXY_QUEUE_SIZE=100 not a power of two (2.28.7)", v: V2_28_7, preset: "dgx-h100", nodes: 1, env: Env{"NCCL_GIN_TYPE": "2", "NCCL_GIN_PROXY_QUEUE_SIZE": "100"},
			reqs: []DevCommReqs{{GinForceEnable: true}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s), proxy queues of 256"},
			log: "NCCL_GIN_PROXY_QUEUE_SIZE is not a power of two, using the default/maximum value instead"},
		{name: "NCCL_GIN_PROXY_QUEUE_SIZE=64 (2.29.2)", v: V2_29_2, preset: "dgx-h100", nodes: 2, env: Env{"NCCL_GIN_TYPE": "2", "NCCL_GIN_PROXY_QUEUE_SIZE": "64"},
			reqs: []DevCommReqs{{GinSignalCount: 1}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s), proxy queues of 64"}},
		{name: "NCCL_GIN_PROXY_QUEUE_SIZE=1024 beyond the maximum (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2, env: Env{"NCCL_GIN_TYPE": "2", "NCCL_GIN_PROXY_QUEUE_SIZE": "1024"},
			reqs: []DevCommReqs{full}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), proxy queues of 256"},
			log: "NCCL_GIN_PROXY_QUEUE_SIZE is greater than the maximum outstanding requests in the GIN plugin (256), using the default/maximum value instead"},
		{name: "ginQueueDepth=32 on GDAKI (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{deep}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), GDAKI queues of 32"}},
		{name: "ginQueueDepth=32 refused by the IB proxy (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2, env: proxy,
			reqs: []DevCommReqs{deep}, want: []string{queueProxyWarn}, by: []RuleID{q}},
		{name: "a later device communicator's ginQueueDepth is not read (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2, env: proxy,
			reqs: []DevCommReqs{full, deep}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), proxy queues of 256", "devComm: GIN full, 1 connection(s), 4 context(s), proxy queues of 256, connection reused"}},
		{name: "every device communicator's ginQueueDepth is read (2.30.3)", v: V2_30_3, preset: "dgx-h100", nodes: 2, env: proxy,
			reqs: []DevCommReqs{full, deep}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), proxy queues of 256", queueProxyWarn}, by: []RuleID{"", q}},
		{name: "from 2.30.3 the LSA team's multimem is refused before the queue depth (2.30.3)", v: V2_30_3, preset: "dgx-h100", nodes: 2, env: Env{"NCCL_GIN_TYPE": "2", "NCCL_NVLS_ENABLE": "0"},
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull, GinQueueDepth: 32, LSAMultimem: true}}, want: []string{"Multicast support requested for team but none available on system."}},
		{name: "2.29.7 refuses the queue depth first", v: V2_29_7, preset: "dgx-h100", nodes: 2, env: Env{"NCCL_GIN_TYPE": "2", "NCCL_NVLS_ENABLE": "0"},
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull, GinQueueDepth: 32, LSAMultimem: true}}, want: []string{queueProxyWarn}, by: []RuleID{q}},
		{name: "the GIN proxy over RMA ignores ginQueueDepth (2.30.7)", v: V2_30_7, preset: "dgx-h100", nodes: 2, env: proxy,
			reqs: []DevCommReqs{deep}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), proxy queues of 256"}},
		{name: "ginQueueDepth=32 on GDAKI (2.30.7)", v: V2_30_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{deep}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), GDAKI queues of 32"}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestDevCommGinType: G-DEVCOMM-GINTYPE-1 per release: NCCL_GIN_TYPE
// against the GIN a device communicator connects, and ranks whose types
// differ.
// Ref: v2.28.7-1 src/gin/gin_host.cc ncclGinConnectOnce; v2.29.2-1 the
// same, getGinType; v2.29.7-1 src/transport/net_ib/gin.cc ncclGinIbInit;
// v2.30.7-1 src/plugin/gin.cc ncclGinPluginAssignToComm
func TestDevCommGinType(t *testing.T) {
	ty := RuleID("G-DEVCOMM-GINTYPE-1")
	g12 := ginLib12
	for _, tc := range []devCommCase{
		{name: "an external GIN of type 3 under NCCL_GIN_TYPE=2 (2.28.7)", v: V2_28_7, preset: "dgx-h100", nodes: 1, libs: []Library{netGin}, env: Env{"NCCL_GIN_TYPE": "2"},
			reqs: []DevCommReqs{{GinForceEnable: true}}, want: []string{ginTypeMismatchWarn}, by: []RuleID{ty}},
		{name: "an external GIN of type 3 under NCCL_GIN_TYPE=3 (2.28.9)", v: V2_28_9, preset: "dgx-h100", nodes: 1, libs: []Library{netGin}, env: Env{"NCCL_GIN_TYPE": "3"},
			reqs: []DevCommReqs{{GinForceEnable: true}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s)"}},
		{name: "a later device communicator after the mismatch: no context (2.28.7)", v: V2_28_7, preset: "dgx-h100", nodes: 1, libs: []Library{netGin}, env: Env{"NCCL_GIN_TYPE": "2"},
			reqs: []DevCommReqs{{GinForceEnable: true}, {}}, want: []string{ginTypeMismatchWarn, ginTypeMismatchWarn}, by: []RuleID{ty, ""}},
		{name: "mixed GDAKI and proxy nodes connect without a word (2.29.2)", v: V2_29_2, preset: "dgx-h100", nodes: 2, proxyNode1: true,
			reqs: []DevCommReqs{{GinSignalCount: 1}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s), GDAKI queues of 128"}},
		{name: "mixed GDAKI and proxy nodes: no symmetric memory across nodes (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2, proxyNode1: true,
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull}}, want: []string{"Communicator does not support symmetric memory!"}},
		{name: "an external v12 GIN under NCCL_GIN_TYPE=2 connects (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2, libs: []Library{g12}, env: Env{"NCCL_GIN_PLUGIN": "x", "NCCL_GIN_TYPE": "2"},
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull}}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s)"}},
		{name: "an external GIN skipped for NCCL_GIN_TYPE=2: the proxy connects (2.30.7)", v: V2_30_7, preset: "dgx-h100", nodes: 2, libs: []Library{ginLib13}, env: Env{"NCCL_GIN_TYPE": "2"},
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull}}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), proxy queues of 256"}},
	} {
		t.Run(tc.name, tc.run)
	}
	// where NCCL compares nothing, the verdict says so
	for _, w := range []struct {
		tc   devCommCase
		reqs DevCommReqs
		why  string
	}{
		{devCommCase{v: V2_29_2, preset: "dgx-h100", nodes: 2, proxyNode1: true}, DevCommReqs{GinSignalCount: 1}, "types differ"},
		{devCommCase{v: V2_29_7, preset: "dgx-h100", nodes: 2, libs: []Library{g12}, env: Env{"NCCL_GIN_PLUGIN": "x", "NCCL_GIN_TYPE": "2"}}, DevCommReqs{GinConnectionType: GinConnFull}, "read by the internal IB GIN only"},
	} {
		c := w.tc.comm(t)
		g, err := c.SelectGroup([]GroupOp{{Op: Op{Func: SendRecv}, DevComm: &w.reqs}}, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := g.Traces[0].Find(ty); !ok || v.Outcome != Pass || !strings.Contains(v.Why, w.why) {
			t.Errorf("%s %s: %v %v, want a pass saying %q", w.tc.v, ty, v, ok, w.why)
		}
	}
}

// TestDevCommShared: G-DEVCOMM-SHARE-1 per release: several device
// communicators on one communicator, in one group and in later launches
// of a call script.
// Ref: v2.28.7-1 src/dev_runtime.cc ncclDevrCommCreateInternal,
// src/gin/gin_host.cc ncclGinAllocSignalsCounters; v2.29.7-1 the same;
// v2.30.3-1 src/gin/gin_host.cc ncclGinDevCommSetup; src/group.cc
// ncclCommGroupRegisterSymmetric
func TestDevCommShared(t *testing.T) {
	n := func(v int) *int { return &v }
	sh := RuleID("G-DEVCOMM-SHARE-1")
	full := DevCommReqs{GinConnectionType: GinConnFull}
	excl := func(k int) DevCommReqs {
		return DevCommReqs{GinConnectionType: GinConnFull, GinContextCount: n(k), GinExclusiveContexts: true}
	}
	for _, tc := range []devCommCase{
		{name: "a later device communicator gets the GIN contexts unasked (2.28.7)", v: V2_28_7, preset: "dgx-h100", nodes: 1,
			reqs: []DevCommReqs{{GinForceEnable: true}, {LSABarrierCount: 1}}, want: []string{"devComm: GIN full, 4 connection(s), 4 context(s), GDAKI queues of 128", "devComm: GIN full, 4 connection(s), 4 context(s), GDAKI queues of 128, connection reused"}},
		{name: "signals beyond the pool (2.28.7)", v: V2_28_7, preset: "dgx-h100", nodes: 1, env: Env{"NCCL_GIN_SIGNAL_POOL_SIZE": "100"},
			reqs: []DevCommReqs{{GinSignalCount: 60}, {GinSignalCount: 60}}, want: []string{"devComm: GIN full", "Allocation failed. No suitable space found to accommodate size=0x3c within limit=0x64"}, by: []RuleID{"", sh}},
		{name: "an invalid pool size takes 64 Ki (2.29.2)", v: V2_29_2, preset: "dgx-h100", nodes: 2, env: Env{"NCCL_GIN_COUNTER_POOL_SIZE": "-5"},
			reqs: []DevCommReqs{{GinCounterCount: 65536}, {GinCounterCount: 1}}, want: []string{"devComm: GIN full", "Allocation failed. No suitable space found to accommodate size=0x1 within limit=0x10000"}, by: []RuleID{"", sh},
			log: "NCCL_GIN_COUNTER_POOL_SIZE has invalid value."},
		{name: "512 Ki pools (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull, GinSignalCount: 300 << 10}, {GinConnectionType: GinConnFull, GinSignalCount: 300 << 10}},
			want: []string{"devComm: GIN full", "Allocation failed. No suitable space found to accommodate size=0x4b000 within limit=0x80000"}, by: []RuleID{"", sh},
			log: "Initialized a devComm with 1 GIN connections, 4 shared contexts (base 0), 307200 signals (base 0), 0 counters (base 0)"},
		{name: "exclusive contexts counted against the pool (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{excl(4), excl(1)}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s) exclusive", "Requested number of exclusive GIN contexts (1) exceeds the unallocated count (0)."}},
		{name: "shared contexts capped by the exclusive ones (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{excl(3), full}, want: []string{"devComm: GIN full, 1 connection(s), 3 context(s) exclusive", "devComm: GIN full, 1 connection(s), 1 context(s), GDAKI queues of 128, connection reused"}},
		{name: "no shared context left (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{excl(4), full}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s) exclusive", "No shared contexts are available (4 requested)"}},
		{name: "FULL after a RAIL connection (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{{GinConnectionType: GinConnRail}, full}, want: []string{"devComm: GIN rail", shareRailWarn}, by: []RuleID{"", sh}},
		{name: "FULL after a RAIL request: the connection is FULL (2.30.3)", v: V2_30_3, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{{GinConnectionType: GinConnRail}, full}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), GDAKI", "devComm: GIN full, 1 connection(s), 4 context(s), GDAKI queues of 128, connection reused"}},
		{name: "RAIL contexts on a FULL connection (2.30.7)", v: V2_30_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{{GinConnectionType: GinConnRail}}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s) on the rail team"}},
		{name: "contexts of its own: no pool (2.30.3)", v: V2_30_3, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{excl(4), excl(4)}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), GDAKI", "devComm: GIN full, 1 connection(s), 4 context(s), GDAKI queues of 128, connection reused"}},
		{name: "ncclGroupEnd stops at the first failure (2.29.7)", v: V2_29_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull, GinContextCount: n(0)}, full}, want: []string{"No shared contexts are available (0 requested)", "No shared contexts are available (0 requested)"}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestDevCommSharedAcrossLaunches: a call script's device communicators
// share their communicator's GIN from one launch to the next, the state a
// failed connection leaves included (devr->ginEnabled stays set).
// Ref: v2.28.7-1 src/dev_runtime.cc ncclDevrCommCreateInternal;
// v2.30.7-1 the same, src/gin/gin_host.cc ncclGinDevCommSetup
func TestDevCommSharedAcrossLaunches(t *testing.T) {
	for _, tc := range []struct {
		devCommCase
		script string
	}{
		{devCommCase{name: "no GIN object: the next one has GIN without contexts (2.28.7)", v: V2_28_7, preset: "h200x2", nodes: 1,
			want: []string{"GIN not supported.", "devComm: GIN full, 0 connection(s), 0 context(s)"}},
			"init c0\ndevCommCreate c0 ginSignalCount=1\ndevCommCreate c0 lsaBarrierCount=1\n"},
		{devCommCase{name: "signals of two launches from one pool (2.28.9)", v: V2_28_9, preset: "dgx-h100", nodes: 1, env: Env{"NCCL_GIN_SIGNAL_POOL_SIZE": "8"},
			want: []string{"devComm: GIN full", "Allocation failed. No suitable space found to accommodate size=0x5 within limit=0x8"}, by: []RuleID{"", "G-DEVCOMM-SHARE-1"}},
			"init c0\ndevCommCreate c0 ginSignalCount=5\ndevCommCreate c0 ginSignalCount=5\n"},
		{devCommCase{name: "a destroy between them gives the signals back (2.28.9)", v: V2_28_9, preset: "dgx-h100", nodes: 1, env: Env{"NCCL_GIN_SIGNAL_POOL_SIZE": "8"},
			want: []string{"devComm: GIN full", "", "devComm: GIN full"}, by: []RuleID{"", "G-DEVCOMM-DESTROY-1"}},
			"init c0\ndevCommCreate c0 ginSignalCount=5\ndevCommDestroy c0 1\ndevCommCreate c0 ginSignalCount=5\n"},
		{devCommCase{name: "GIN disabled: the next one divides by no connection (2.30.7)", v: V2_30_7, preset: "dgx-h100", nodes: 2, env: Env{"NCCL_GIN_ENABLE": "0", "NCCL_SYM_GIN_KERNELS_ENABLE": "0"},
			want: []string{ginDisabledWarn, ""}},
			"init c0\ndevCommCreate c0 ginConnectionType=full\ndevCommCreate c0 ginConnectionType=full\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.comm(t)
			calls, err := ParseCalls("script", []byte(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := CheckGroup(c.rs, calls)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.DecideCalls(calls, res, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			var ops []*Decision
			for i := range calls {
				if calls[i].Op != nil {
					ops = append(ops, got[i])
				}
			}
			checkDevComms(t, ops, nil, tc.want, tc.by, "")
			if d := ops[len(ops)-1]; tc.want[len(tc.want)-1] == "" && (d.Err == nil || d.Err.Result != InternalError) {
				t.Errorf("last call: %v, want ncclInternalError without a WARN", d.Err)
			}
		})
	}
}
