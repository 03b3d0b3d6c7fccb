package spec

import "testing"

// TestNChannelsPerNetPeer2_19_4: on two DGX H100 nodes an explicit
// NCCL_NCHANNELS_PER_NET_PEER=-1 leaves the network peers out of
// 2.19.4's p2p minimum (the NVLink peers' count bounds it at the 16 p2p
// channels), where 2.20.3 and later read -1 as the NIC rule (2 per peer);
// unset, 2.19.4 gives a network peer 2.
func TestNChannelsPerNetPeer2_19_4(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    Version
		env  Env
		peer int
	}{
		{V2_19_4, Env{}, 2},
		{V2_19_4, Env{"NCCL_NCHANNELS_PER_NET_PEER": "-1"}, 16},
		{V2_20_3, Env{"NCCL_NCHANNELS_PER_NET_PEER": "-1"}, 2},
		{V2_22_3, Env{"NCCL_NCHANNELS_PER_NET_PEER": "0"}, 1},
		{V2_28_9, Env{"NCCL_NCHANNELS_PER_NET_PEER": "0"}, 2},
	} {
		c, err := Init(MustLoad(tc.v), sys, tc.env)
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		if got := c.Topo.P2PNChannelsPerPeer; got != tc.peer {
			t.Errorf("%s %v: %d p2p channels per peer, want %d", tc.v, tc.env, got, tc.peer)
		}
	}
}
