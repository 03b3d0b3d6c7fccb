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

// TestNVLSAllGatherType2_20: on one DGX H100 node an AllGather (enqueued
// with ncclSum and queued as ncclInt8 whatever its datatype, which
// ncclNvlsSupported refuses) is an NVLS candidate at 2.19.4
// (topoGetAlgoInfo exempts AllGather) and from 2.22.3 (nvlsSupport counts
// AllGather in), not at 2.20.3-2.21.5: a float32 AllGather no more than an
// int8 one, as ArgsCheck has made it bytes before nvlsSupport is asked.
// The gates and the tuning model agree on every cell.
func TestNVLSAllGatherType2_20(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v    Version
		dt   DataType
		nvls bool
	}{
		{V2_19_4, Int8, true},
		{V2_20_3, Int8, false},
		{V2_20_5, Int8, false},
		{V2_21_5, Int8, false},
		{V2_22_3, Int8, true},
		{V2_19_4, Float32, true},
		{V2_20_3, Float32, false},
		{V2_21_5, Float32, false},
		{V2_21_5, Bfloat16, false},
		{V2_22_3, Float32, true},
		{V2_21_5, Uint8, false},
	} {
		c, err := Init(MustLoad(tc.v), sys, Env{})
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		op, err := OpFromBytes(AllGather, 64<<20, tc.dt, Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		d, tr, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, ap := range d.Candidates {
			got = got || ap.Algo == NVLS
		}
		if got != tc.nvls {
			t.Errorf("%s %s AllGather: NVLS candidate %v, want %v (%v)", tc.v, tc.dt, got, tc.nvls, d.Candidates)
		}
		for _, vd := range tr.All() {
			for _, f := range vd.Facts {
				if f.Name == "model_disagrees" {
					t.Errorf("%s %s AllGather: %s: %v", tc.v, tc.dt, vd.Rule, f.Value)
				}
			}
		}
	}
}
