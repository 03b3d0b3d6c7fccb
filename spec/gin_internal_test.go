package spec

import (
	"slices"
	"strings"
	"testing"
)

// TestInternalGin: the internal IB GIN's backend (GDAKI or the proxy) and
// RMA object per release, from NCCL_GIN_TYPE, the NICs' verbs provider,
// the peer-memory module and DMA-BUF, with the lines NCCL prints.
func TestInternalGin(t *testing.T) {
	type nodeEdit func(*Node)
	other := func(n *Node) {
		for i := range n.NICs {
			n.NICs[i].Provider = ProviderOther
		}
	}
	noPeerMem := func(n *Node) { n.Driver.PeerMem = PeerMemNone }
	legacy := func(n *Node) { n.Driver.PeerMem = PeerMemLegacy }
	dmaBuf := func(n *Node) {
		n.Driver.PeerMem = PeerMemNone
		for i := range n.NICs {
			n.NICs[i].DMABuf = true
		}
	}
	cases := []struct {
		name  string
		v     Version
		edit  nodeEdit
		env   Env
		rule  RuleID
		gin   int
		rma   string
		logs  []string
		crash bool
	}{
		{name: "mlx5, unset", v: V2_28_9, gin: ginTypeGDAKI, logs: []string{"Assigned GIN plugin GIN_IB_GDAKI to comm"}},
		{name: "mlx5, proxy forced", v: V2_28_9, env: Env{"NCCL_GIN_TYPE": "2"}, gin: ginTypeProxy, logs: []string{"Assigned GIN plugin GIN_IB_PROXY to comm"}},
		{name: "no mlx5: NCCL's placeholder", v: V2_28_9, edit: other, crash: true},
		{name: "no mlx5, GDAKI forced", v: V2_28_9, edit: other, env: Env{"NCCL_GIN_TYPE": "3"}},
		{name: "unknown type", v: V2_28_7, env: Env{"NCCL_GIN_TYPE": "1"}},
		{name: "IB disabled: Socket network", v: V2_28_9, env: Env{"NCCL_IB_DISABLE": "1"}},
		{name: "no mlx5: proxy and RMA", v: V2_29_2, edit: other, gin: ginTypeProxy, rma: "GIN_IB_PROXY",
			logs: []string{"Assigned GIN plugin GIN_IB_PROXY to comm", "Assigned RMA plugin GIN_IB_PROXY to comm"}},
		{name: "GDAKI and RMA", v: V2_29_7, gin: ginTypeGDAKI, rma: "GIN_IB_PROXY",
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", "Assigned GIN plugin GIN_IB_GDAKI to comm", "Assigned RMA plugin GIN_IB_PROXY to comm"}},
		{name: "nv_peer_mem: GDAKI refused, the proxy", v: V2_29_7, edit: legacy, gin: ginTypeProxy, rma: "GIN_IB_PROXY",
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", ginIBNoGDR, "Assigned GIN plugin GIN_IB_PROXY to comm", "Assigned RMA plugin GIN_IB_PROXY to comm"}},
		{name: "DMA-BUF serves GDAKI", v: V2_30_3, edit: dmaBuf, gin: ginTypeGDAKI, rma: "GIN_IB_PROXY"},
		{name: "no GPUDirect RDMA at all", v: V2_29_7, edit: noPeerMem,
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", ginIBNoGDR, ginIBNoGDR, "Failed to initialize any GIN plugin"}},
		{name: "type 5", v: V2_29_7, env: Env{"NCCL_GIN_TYPE": "5"},
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", "NET_IB: no support for GIN type 5", "Failed to initialize any GIN plugin"}},
		{name: "GIN_ENABLE=0: assigned, type none", v: V2_30_3, env: Env{"NCCL_GIN_ENABLE": "0"}, gin: ginTypeNone, rma: "GIN_IB_PROXY"},
		{name: "2.30.7 GDAKI", v: V2_30_7, gin: ginTypeGDAKI, rma: "RMA_IB_PROXY",
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", "GIN/Plugin: Failed to load external plugin libnccl-gin.so, dlHandle: (nil), ncclGin: (nil)", "GIN/Plugin: Assigned plugin GIN_IB_GDAKI type 3 to comm"}},
		// 2.30.7 reads NCCL_IB_HCA as name:port:rail:plane for GIN's ports
		// as for the network's: an empty port matches mlx5_0's port 1
		{name: "2.30.7 NCCL_IB_HCA with a rail and no port", v: V2_30_7, env: Env{"NCCL_IB_HCA": "mlx5_0::3"}, gin: ginTypeGDAKI, rma: "RMA_IB_PROXY"},
		{name: "2.30.7 GIN_ENABLE=0 is read at connect only", v: V2_30_7, env: Env{"NCCL_GIN_ENABLE": "0"}, gin: ginTypeGDAKI, rma: "RMA_IB_PROXY"},
		{name: "2.30.7 no mlx5: proxy over RMA", v: V2_30_7, edit: other, gin: ginTypeProxy, rma: "RMA_IB_PROXY",
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", "GIN/Plugin: Failed to load external plugin libnccl-gin.so, dlHandle: (nil), ncclGin: (nil)", "GIN/Plugin: Assigned plugin RMA_IB_PROXY type 2 to comm"}},
		{name: "2.30.7 GDAKI forced, no mlx5: the proxy skipped", v: V2_30_7, edit: other, env: Env{"NCCL_GIN_TYPE": "3"}, rma: "RMA_IB_PROXY",
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", "GIN/Plugin: Failed to load external plugin libnccl-gin.so, dlHandle: (nil), ncclGin: (nil)",
				"GIN/Plugin: Skipping plugin RMA_IB_PROXY index 2 type 2: NCCL_GIN_TYPE=3 requested", "GIN/Plugin: Failed to initialize any GIN plugin"}},
		{name: "2.30.7 RMA without GPUDirect RDMA", v: V2_30_7, edit: noPeerMem, rule: "G-RMA-1",
			logs: []string{"RMA/Plugin: Could not find: libnccl-rma.so", "RMA/Plugin: Failed to load external plugin libnccl-rma.so, dlHandle: (nil), ncclRma: (nil)", ginIBNoGDR, "RMA/Plugin: Failed to initialize any plugin"}},
	}
	for _, c := range cases {
		t.Run(c.v.String()+"/"+c.name, func(t *testing.T) {
			sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
			if err != nil {
				t.Fatal(err)
			}
			for i := range sys.Nodes {
				if c.edit != nil {
					sys.Nodes[i].NICs = slices.Clone(sys.Nodes[i].NICs)
					c.edit(&sys.Nodes[i])
				}
			}
			comm, err := Init(MustLoad(c.v), sys, c.env)
			if err != nil {
				t.Fatal(err)
			}
			g := comm.GIN()
			if g.Type != c.gin || g.RMA != c.rma {
				t.Errorf("gin %s, rma %q; want %s, %q", ginTypeName(g.Type), g.RMA, ginTypeName(c.gin), c.rma)
			}
			rule := c.rule
			if rule == "" {
				rule = "G-GIN-1"
			}
			i := slices.IndexFunc(comm.Trace, func(x Verdict) bool { return x.Rule == rule })
			if i < 0 {
				t.Fatalf("%s not in the trace", rule)
			}
			v := comm.Trace[i]
			if c.crash != strings.Contains(v.Why, "crashes") {
				t.Errorf("crash %v: %s", c.crash, v.Why)
			}
			if c.logs != nil && !slices.Equal(v.Log, c.logs) {
				t.Errorf("lines\n%s\nwant\n%s", strings.Join(v.Log, "\n"), strings.Join(c.logs, "\n"))
			}
		})
	}
}

// TestSystemGinFactsChecked: the GIN facts of a system file are checked
// at the edge.
func TestSystemGinFactsChecked(t *testing.T) {
	for _, c := range []struct {
		edit func(*Node)
		want string
	}{
		{func(n *Node) { n.NICs[0].Provider = "bnxt" }, `provider "bnxt": expected mlx5 or other`},
		{func(n *Node) { n.Driver.PeerMem = "yes" }, `peermem "yes": expected nvidia_peermem, nv_peer_mem or none`},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sys.Nodes[0].NICs = slices.Clone(sys.Nodes[0].NICs)
		c.edit(&sys.Nodes[0])
		if err := sys.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v, want %q", err, c.want)
		}
	}
}
