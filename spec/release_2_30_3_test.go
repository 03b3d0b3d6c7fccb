package spec

import (
	"strconv"
	"testing"
)

// TestNVLSTuningSM100: from 2.30.3 ncclNvlsTuning gives an sm100
// communicator of more than two nodes whose NICs reach 48 GB/s (but not 96)
// 24 NVLS channels instead of 32; two nodes keep 32, one node its 24 of
// one NVLink domain, and NCCL_NVLS_NCHANNELS still overrides. On four DGX
// B200 nodes a 64 MiB AllReduce runs NVLSTree/Simple on those channels.
// It also sets the NVLS chunk (128 KiB on these 48 GB/s NICs) and the
// NVLSTree cap: 64 KiB across nodes (the GPUs' NICs sit behind their PCIe
// switches), the chunk on one node; before 2.30.3 the schedule's release
// rule sizes them (0 here).
func TestNVLSTuningSM100(t *testing.T) {
	const k = 1 << 10
	cases := []struct {
		name           string
		v              Version
		nodes          int
		env            Env
		nvls           int
		chunk, treeMax int
		arAlgo         string // the 64 MiB AllReduce, "" when not checked
	}{
		{"2.29.7 four nodes", V2_29_7, 4, nil, 32, 0, 0, ""},
		{"2.30.3 four nodes", V2_30_3, 4, nil, 24, 128 * k, 64 * k, "NVLSTree/Simple 24"},
		{"2.30.3 two nodes", V2_30_3, 2, nil, 32, 128 * k, 64 * k, ""},
		{"2.30.3 one node", V2_30_3, 1, nil, 24, 128 * k, 128 * k, ""},
		{"2.30.7 two nodes", V2_30_7, 2, nil, 32, 128 * k, 64 * k, ""},
		{"2.30.3 four nodes NCCL_NVLS_NCHANNELS=16", V2_30_3, 4, Env{"NCCL_NVLS_NCHANNELS": "16"}, 16, 128 * k, 64 * k, "NVLSTree/Simple 16"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := initPreset(t, tc.v, "dgx-b200", tc.nodes, tc.env)
			if c.NVLSChannels != tc.nvls || c.Topo.NvlsChannels != tc.nvls {
				t.Errorf("nvlsChannels %d (topology line %d), want %d", c.NVLSChannels, c.Topo.NvlsChannels, tc.nvls)
			}
			if c.Topo.NvlsChunkSize != tc.chunk || c.Topo.NvlsTreeMaxChunkSize != tc.treeMax {
				t.Errorf("nvlsChunkSize %d, nvlsTreeMaxChunkSize %d; want %d, %d", c.Topo.NvlsChunkSize, c.Topo.NvlsTreeMaxChunkSize, tc.chunk, tc.treeMax)
			}
			if tc.arAlgo == "" {
				return
			}
			d, _, err := c.Select(Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum})
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Algo.String() + "/" + d.Proto.String() + " " + strconv.Itoa(d.NChannels); got != tc.arAlgo {
				t.Errorf("64 MiB AllReduce: %s, want %s", got, tc.arAlgo)
			}
		})
	}
}

// TestP2PMaxPeers: from 2.30.3 the per-peer p2p channels across nodes
// halve until rounds of 8 out of p2pMaxPeers peers fit the p2p channels,
// p2pMaxPeers being NCCL_P2P_MAX_PEERS capped to nRanks (nRanks unset, a
// value <= 0 ignored). Eight DGX H100 nodes (64 ranks, 16 p2p channels,
// 4 channels per NIC peer by bandwidth): 8 rounds halve to 2 per peer; 16
// peers are 2 rounds and keep 4; 2.29.7 reads no such variable.
// Ref: v2.30.3-1 src/graph/paths.cc ncclTopoComputeP2pChannelsPerPeer, ncclTopoComputeP2pChannels; src/init.cc envConfigOverride
func TestP2PMaxPeers(t *testing.T) {
	cases := []struct {
		name string
		v    Version
		env  Env
		want int // p2pnChannelsPerPeer
	}{
		{"2.29.7 NCCL_P2P_MAX_PEERS=16 not read", V2_29_7, Env{"NCCL_P2P_MAX_PEERS": "16"}, 2},
		{"2.30.3 unset: nRanks", V2_30_3, nil, 2},
		{"2.30.3 16 peers", V2_30_3, Env{"NCCL_P2P_MAX_PEERS": "16"}, 4},
		{"2.30.7 16 peers", V2_30_7, Env{"NCCL_P2P_MAX_PEERS": "16"}, 4},
		{"2.30.3 one peer", V2_30_3, Env{"NCCL_P2P_MAX_PEERS": "1"}, 4},
		{"2.30.3 0 ignored", V2_30_3, Env{"NCCL_P2P_MAX_PEERS": "0"}, 2},
		{"2.30.3 above nRanks capped", V2_30_3, Env{"NCCL_P2P_MAX_PEERS": "1000"}, 2},
		{"2.30.3 set per net peer: no halving", V2_30_3, Env{"NCCL_P2P_MAX_PEERS": "64", "NCCL_NCHANNELS_PER_NET_PEER": "8"}, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := initPreset(t, tc.v, "dgx-h100", 8, tc.env)
			if c.Topo.P2PNChannels != 16 || c.Topo.P2PNChannelsPerPeer != tc.want {
				t.Errorf("%d p2p channels, %d per peer; want 16, %d (%s)", c.Topo.P2PNChannels, c.Topo.P2PNChannelsPerPeer, tc.want, c.Topo.Summary)
			}
		})
	}
}
