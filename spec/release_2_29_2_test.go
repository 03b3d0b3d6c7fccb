package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/topo"
)

// TestP2PChannelsPerPeerFromNetBw: from 2.29.2 a remote peer's p2p
// channels come from its NICs' bandwidth (one per NCCL_P2P_PER_CHANNEL_NET_BW
// GB/s, default 14, at least one per NIC) and, across nodes, halve only
// until nRanks/8 rounds of peers fit the p2p channels; 2.28.9 gives a
// remote peer 2 (one NIC per GPU) halved while 2 × nRanks > 4 ×
// p2pnChannels. A DGX H100 GPU has one 400 Gb/s NIC behind a Gen5 switch:
// 48 GB/s, 4 channels.
func TestP2PChannelsPerPeerFromNetBw(t *testing.T) {
	cases := []struct {
		name   string
		v      Version
		preset string
		nodes  int
		env    Env
		p2p    int // p2pnChannels
		want   int // p2pnChannelsPerPeer
		err    string
	}{
		{"2.28.9 two nodes", V2_28_9, "dgx-h100", 2, nil, 16, 2, ""},
		{"2.29.2 two nodes", V2_29_2, "dgx-h100", 2, nil, 16, 4, ""},
		{"2.29.2 four nodes: 4 rounds of 4 fit 16", V2_29_2, "dgx-h100", 4, nil, 16, 4, ""},
		{"2.29.2 eight nodes: 8 rounds halve to 2", V2_29_2, "dgx-h100", 8, nil, 16, 2, ""},
		{"2.28.9 eight nodes", V2_28_9, "dgx-h100", 8, nil, 16, 1, ""},
		{"2.29.2 one node: NVLink only", V2_29_2, "dgx-h100", 1, nil, 32, 32, ""},
		{"2.29.2 24 GB/s per channel", V2_29_2, "dgx-h100", 2, Env{"NCCL_P2P_PER_CHANNEL_NET_BW": "24"}, 16, 2, ""},
		{"2.29.2 set per net peer: no halving", V2_29_2, "dgx-h100", 8, Env{"NCCL_NCHANNELS_PER_NET_PEER": "8"}, 16, 8, ""},
		{"2.29.2 zero divides", V2_29_2, "dgx-h100", 2, Env{"NCCL_P2P_PER_CHANNEL_NET_BW": "0"}, 0, 0, "NCCL_P2P_PER_CHANNEL_NET_BW=0"},
		{"2.28.9 ignores the parameter", V2_28_9, "dgx-h100", 2, Env{"NCCL_P2P_PER_CHANNEL_NET_BW": "0"}, 16, 2, ""},
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
			if tc.err != "" {
				msg := ""
				if err != nil {
					msg = err.Error()
				} else if c.Err != nil {
					msg = c.Err.Message
				}
				if !strings.Contains(msg, tc.err) {
					t.Fatalf("got error %q, want one naming %q", msg, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Topo == nil {
				t.Fatalf("no topology result (init error %v)", c.Err)
			}
			if c.Topo.P2PNChannels != tc.p2p || c.Topo.P2PNChannelsPerPeer != tc.want {
				t.Errorf("%d p2p channels, %d per peer; want %d, %d (%s)", c.Topo.P2PNChannels, c.Topo.P2PNChannelsPerPeer, tc.p2p, tc.want, c.Topo.Summary)
			}
		})
	}
}

// TestSimpleOrderNets: on nccl-tests#352's machine (two nodes of four
// A100s with four NICs) up to 2.28.9 the tree search falls back to simple
// order and names NET id 0 at both ends. 2.29.2 lets that search reach SYS
// again, so the fallback is held under 2.28.9's topology rules with only
// the 2.29.2 fallback switched on: the channel enters at the first
// preferred NET of GPU 0 and leaves at that of the last GPU.
func TestSimpleOrderNets(t *testing.T) {
	var probe Probe
	for _, p := range Probes {
		if p.Name == "dgx-a100 4 GPUs 4 NICs x2" {
			probe = p
		}
	}
	sys, err := probe.System()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		on     bool
		inter  string
		logHas string
	}{
		{"2.28.9", false, "[[0 0]]", "falling back to simple order"},
		{"2.28.9 with the 2.29.2 fallback", true, "[[0 3]]", "falling back to simple order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := MustLoad(V2_28_9).clone(V2_28_9)
			rs.TopoParams.SimpleOrderNets = tc.on
			c, err := Init(rs, sys, Env{})
			if err != nil || c.Err != nil || c.Topo == nil {
				t.Fatalf("init: %v %v", err, c.Err)
			}
			g := c.Topo.Graphs[topo.GraphTree]
			if got := fmt.Sprint(g.Inter); got != tc.inter || g.NChannels != 1 {
				t.Errorf("tree graph: %d channels, NETs %s; want 1 channel, NETs %s", g.NChannels, got, tc.inter)
			}
			if !strings.Contains(strings.Join(c.Topo.Log, "\n"), tc.logHas) {
				t.Errorf("the topology log has no %q", tc.logHas)
			}
		})
	}
}

// TestAllGatherVBudgetComm: on 25 DGX H100 nodes with NCCL_MIN_NCHANNELS=64
// (200 ranks, 64 channels) a group broadcasting from every rank runs as
// two AllGatherV plans: roots 0–191 fill the first, whose 64 × 3 work
// batches are all the kernel arguments hold, and roots 192–199 the second.
// Ref: v2.29.2-1 src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan; src/enqueue.cc ncclTestBudget
func TestAllGatherVBudgetComm(t *testing.T) {
	c := initPreset(t, V2_29_2, "dgx-h100", 25, Env{"NCCL_MIN_NCHANNELS": "64"})
	if c.NChannels != 64 || c.NRanks != 200 {
		t.Fatalf("%d ranks on %d channels, want 200 on 64", c.NRanks, c.NChannels)
	}
	ops := make([]GroupOp, 200)
	for r := range ops {
		ops[r] = GroupOp{Op: Op{Func: Broadcast, Count: 1 << 20, DataType: Int8, Root: r}}
	}
	g, err := c.SelectGroup(ops, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Err != nil || g.Plans != 2 {
		t.Fatalf("%d plans (error %v), want 2 AllGatherV plans", g.Plans, g.Err)
	}
	for r, ch := range g.Choices {
		want := 0
		if r >= 192 {
			want = 1
		}
		if ch.SidePath != "allgatherv" || ch.Plan != want {
			t.Errorf("root %d: side path %q in plan %d, want allgatherv in plan %d", r, ch.SidePath, ch.Plan, want)
		}
	}
}
