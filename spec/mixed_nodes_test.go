package spec

import (
	"fmt"
	"strings"
	"testing"
)

// mixedNodeKinds edit one DGX H100 node of a two-node machine: "stock"
// keeps it, "pcie" takes its NVSwitch and NVLinks away (GPU pairs over
// PCIe), "slow" gives it 200 Gb/s NICs (25 GB/s: 2 p2p channels per
// remote peer at 14 GB/s a channel, where 400 Gb/s takes 4), "2nic"
// and "4nic" leave it 2 or 4 NICs (fewer CollNetDirect channels or heads
// than the 8 of 8 NICs).
var mixedNodeKinds = map[string]func(n *Node){
	"stock": func(*Node) {},
	"pcie": func(n *Node) {
		n.NVSwitch = false
		for i := range n.GPUs {
			n.GPUs[i].NVLinks = 0
		}
	},
	"slow": func(n *Node) { n.Reshape(0, 0, 200, 0) },
	"2nic": func(n *Node) { n.Reshape(0, 2, 0, 0) },
	"4nic": func(n *Node) { n.Reshape(0, 4, 0, 0) },
}

// initMixed builds a communicator over two DGX H100 nodes (with the SHARP
// library) of the kinds named, node 0 first.
func initMixed(t *testing.T, v Version, node0, node1 string, env Env) *Comm {
	t.Helper()
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, kind := range []string{node0, node1} {
		edit, ok := mixedNodeKinds[kind]
		if !ok {
			t.Fatalf("no node kind %q", kind)
		}
		edit(&sys.Nodes[i])
	}
	c, err := Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err != nil || c.Topo == nil {
		t.Fatalf("%s %s+%s: init failed: %v", v, node0, node1, c.Err)
	}
	return c
}

// TestP2PChannelsPerPeerMixedNodes: until 2.28.9 every rank works
// p2pnChannelsPerPeer out over its own node's GPUs and keeps it, so rank 0
// of a DGX H100 beside a PCIe node keeps 8 (the user's 8 per network peer,
// 36 per NVSwitch peer) where the PCIe node's ranks keep 2 (PCIe peers); the
// model is rank 0's. From 2.29.2 the ranks all-gather their counts and take
// the least, whichever node is rank 0's; with NCCL_NCHANNELS_PER_NET_PEER
// unset a node of 200 Gb/s NICs lowers every rank to 2.
// Ref: v2.28.9-1 src/graph/paths.cc ncclTopoComputeP2pChannels; v2.29.2-1
// src/graph/paths.cc ncclTopoComputeP2pChannelsPerPeer, src/init.cc
// initTransportsRank (v2.30.7-1 likewise)
func TestP2PChannelsPerPeerMixedNodes(t *testing.T) {
	user := Env{"NCCL_NCHANNELS_PER_NET_PEER": "8", "NCCL_MIN_P2P_NCHANNELS": "32"}
	for _, tc := range []struct {
		v            Version
		node0, node1 string
		env          Env
		want         int
	}{
		{V2_28_9, "stock", "stock", user, 8},
		{V2_28_9, "stock", "pcie", user, 8},
		{V2_28_9, "pcie", "stock", user, 2},
		{V2_29_2, "stock", "stock", user, 8},
		{V2_29_2, "stock", "pcie", user, 2},
		{V2_29_2, "pcie", "stock", user, 2},
		{V2_30_7, "stock", "pcie", user, 2},
		{V2_29_2, "stock", "stock", Env{}, 4},
		{V2_29_2, "stock", "slow", Env{}, 2},
		{V2_29_2, "slow", "stock", Env{}, 2},
		{V2_30_7, "stock", "stock", Env{}, 4},
		{V2_30_7, "stock", "slow", Env{}, 2},
	} {
		c := initMixed(t, tc.v, tc.node0, tc.node1, tc.env)
		if got := c.Topo.P2PNChannelsPerPeer; got != tc.want {
			t.Errorf("%s %s+%s %v: %d p2p channels per peer, want %d", tc.v, tc.node0, tc.node1, tc.env, got, tc.want)
		}
		if !strings.HasSuffix(c.Topo.Summary, fmt.Sprintf("p2p channels, %d p2p channels per peer", tc.want)) {
			t.Errorf("%s %s+%s: summary %q", tc.v, tc.node0, tc.node1, c.Topo.Summary)
		}
	}
}

// TestAllNVLinkMixedNodes: comm->isAllNvlink is each rank's own node's
// ncclTopoPathAllNVLink until 2.30.4 (rank 0's in the model) and, from
// 2.30.7, and-ed over every rank; comm->isAllDirectNvlink stays each
// rank's own. NVSCount (ncclTopoGetNvsCount on comm->topo) is rank 0's at
// every release.
// Ref: v2.30.7-1 src/init.cc initTransportsRank; src/graph/paths.cc
// ncclTopoPathAllNVLink, ncclTopoPathAllDirectNVLink
func TestAllNVLinkMixedNodes(t *testing.T) {
	for _, tc := range []struct {
		v                 Version
		node0, node1      string
		allNVLink, direct bool
		nvs               bool
	}{
		{V2_30_4, "stock", "stock", true, true, true},
		{V2_30_4, "stock", "pcie", true, true, true},
		{V2_30_4, "pcie", "stock", false, false, false},
		{V2_30_7, "stock", "stock", true, true, true},
		{V2_30_7, "stock", "pcie", false, true, true},
		{V2_30_7, "pcie", "stock", false, false, false},
	} {
		r := initMixed(t, tc.v, tc.node0, tc.node1, Env{}).Topo
		if r.AllNVLink != tc.allNVLink || r.AllDirectNVLink != tc.direct || (r.NVSCount > 0) != tc.nvs {
			t.Errorf("%s %s+%s: isAllNvlink %v isAllDirectNvlink %v nvsCount %d, want %v %v NVSwitch %v",
				tc.v, tc.node0, tc.node1, r.AllNVLink, r.AllDirectNVLink, r.NVSCount, tc.allNVLink, tc.direct, tc.nvs)
		}
	}
}

// TestNVLSGraphNodeNVSwitch: G-NVLS-GRAPH-1 is a rule of each node, so
// the PCIe node says it has no NVSwitch whichever node is rank 0's.
func TestNVLSGraphNodeNVSwitch(t *testing.T) {
	for _, pair := range [][2]string{{"stock", "pcie"}, {"pcie", "stock"}} {
		c := initMixed(t, V2_28_9, pair[0], pair[1], Env{})
		var got []string
		for _, v := range c.Trace {
			if v.Rule == "G-NVLS-GRAPH-1" {
				got = append(got, v.WhyText())
			}
		}
		pcie := 0
		if pair[1] == "pcie" {
			pcie = 1
		}
		if len(got) != 2 || !strings.HasPrefix(got[pcie], "no NVSwitch in the topology") || !strings.HasPrefix(got[1-pcie], "NVSwitch and sm90") {
			t.Errorf("%s+%s: G-NVLS-GRAPH-1 verdicts %q, want the PCIe node's without an NVSwitch", pair[0], pair[1], got)
		}
	}
}

// TestCollNetDirectHeadsMixedNodes: connectCollNet takes the heads of the
// rank's own CollNetDirect graph over the channel count the ranks agreed
// (2.18.x: that count), so rank 0 of a DGX H100 (8 CollNetDirect
// channels) beside a node of 2 NICs (2 channels at 2.18.1, 4 at 2.22.3)
// has 2, then 4 heads, not its own 8. The 4-NIC node's 8 channels repeat
// 4 heads: as rank 0's node it gives 4, where node 1's ranks have 8 (each
// rank its own). In 2.30.7 the CollNet heads of an NVLS
// communicator are the first minHeadNum of the node's NVLS heads, so the
// 2-NIC node's 2 NVLS heads leave rank 0's CollNetChain heads outside
// them: CollNetChain off.
// Ref: v2.22.3-1 src/graph/connect.cc connectCollNet; v2.18.1-1 src/init.cc
// collNetTrySetup; v2.30.7-1 src/transport/coll_net.cc ncclCollNetSetup,
// isCollNetChainHeadsSubset
func TestCollNetDirectHeadsMixedNodes(t *testing.T) {
	on := Env{"NCCL_COLLNET_ENABLE": "1"}
	for _, tc := range []struct {
		v            Version
		node0, node1 string
		heads        int
		chainOK      bool // read at 2.30.7 only
	}{
		{V2_18_1, "stock", "stock", 8, true},
		{V2_18_1, "stock", "2nic", 2, true},
		{V2_22_3, "stock", "stock", 8, true},
		{V2_22_3, "stock", "2nic", 4, false},
		{V2_22_3, "4nic", "stock", 4, true},
		{V2_22_3, "stock", "4nic", 8, true},
		{V2_28_9, "stock", "2nic", 4, false},
		{V2_30_7, "stock", "stock", 8, true},
		{V2_30_7, "stock", "2nic", 4, false},
	} {
		c := initMixed(t, tc.v, tc.node0, tc.node1, on)
		r := c.Topo
		// isCollNetChainHeadsSubset is 2.30.7's
		if r.CollNetDirectHeads != tc.heads || (tc.v == V2_30_7 && r.CollNetChainHeadsOK != tc.chainOK) {
			t.Errorf("%s %s+%s: %d CollNetDirect heads (agreed channels %d, node 0's %d), chain heads covered %v; want %d %v",
				tc.v, tc.node0, tc.node1, r.CollNetDirectHeads, r.Graphs[3].NChannels, r.Nodes[0].Graph(3).NChannels, r.CollNetChainHeadsOK, tc.heads, tc.chainOK)
		}
		if tc.v == V2_30_7 {
			chainOff := strings.Contains(verdictWhy(c, "G-TUNE-EN-1"), "no CollNet chain head has CollNet resources")
			if chainOff == tc.chainOK {
				t.Errorf("%s %s+%s: G-TUNE-EN-1 %q, want CollNetChain off %v", tc.v, tc.node0, tc.node1, verdictWhy(c, "G-TUNE-EN-1"), !tc.chainOK)
			}
		}
	}
}

func verdictWhy(c *Comm, id RuleID) string {
	for _, v := range c.Trace {
		if v.Rule == id {
			return v.WhyText()
		}
	}
	return ""
}
