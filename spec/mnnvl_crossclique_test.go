package spec

import (
	"slices"
	"strings"
	"testing"
)

// cliqueCache shares the topology searches of these tests.
var cliqueCache = NewCache(0)

// gb200Cliques is n GB200 trays of one NVL72 rack in the given cliques.
func gb200Cliques(t *testing.T, v Version, n, cliques int, env Env) *Comm {
	t.Helper()
	sys, err := Preset("gb200-nvl72", PresetOptions{Nodes: n, Cliques: cliques})
	if err != nil {
		t.Fatal(err)
	}
	if env == nil {
		env = Env{}
	}
	c, err := cliqueCache.Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err != nil || c.Model == nil {
		t.Fatalf("%s gb200×%d in %d cliques: init failed: %v", v, n, cliques, c.Err)
	}
	return c
}

func ruleLogs(c *Comm, id RuleID) []string {
	var out []string
	for _, v := range c.Trace {
		if v.Rule == id {
			out = append(out, v.Log...)
		}
	}
	return out
}

// TestMNNVLCrossClique: four GB200 trays of one fabric cluster in two
// cliques of two trays. Each clique is one NCCL node in every release.
// From 2.30.3 ncclMnnvlCheck counts the NVL domain (16 ranks, clique 8)
// and NCCL_MNNVL_CROSS_CLIQUE other than 0 turns p2pCrossClique on, which
// needs a domain larger than the clique; 2.29.7 has no such parameter.
//
// Ref: v2.30.3-1 src/mnnvl.cc ncclMnnvlCheck; src/init.cc initTransportsRank
func TestMNNVLCrossClique(t *testing.T) {
	on := Env{"NCCL_MNNVL_CROSS_CLIQUE": "1"}
	for _, tc := range []struct {
		v       Version
		cliques int
		env     Env
		cross   bool
		domain  int // NVLDomainSize
		line    string
	}{
		{V2_29_7, 2, nil, false, 0, "MNNVL 1 cliqueId nvl72-rack0 cliqueSize 8 cliqueRank 0"},
		{V2_29_7, 2, on, false, 0, "MNNVL 1 cliqueId nvl72-rack0 cliqueSize 8 cliqueRank 0"},
		{V2_30_3, 2, nil, false, 16, "MNNVL 1 cliqueId nvl72-rack0 cliqueSize 8 cliqueRank 0 nvlDomainSize 16"},
		{V2_30_3, 2, Env{"NCCL_MNNVL_CROSS_CLIQUE": "0"}, false, 16, ""},
		{V2_30_3, 2, on, true, 16, "Cross-clique P2P enabled: nvlDomainSize=16 cliqueSize=8"},
		{V2_30_3, 2, Env{"NCCL_MNNVL_CROSS_CLIQUE": "-1"}, true, 16, ""}, // any value but 0
		{V2_30_7, 2, on, true, 16, "Cross-clique P2P enabled: nvlDomainSize=16 cliqueSize=8"},
		// one clique: the domain is the clique
		{V2_30_3, 1, on, false, 16, "MNNVL 1 cliqueId nvl72-rack0 cliqueSize 16 cliqueRank 0 nvlDomainSize 16"},
	} {
		c := gb200Cliques(t, tc.v, 4, tc.cliques, tc.env)
		if !c.MNNVL || c.CrossClique != tc.cross || c.NVLDomainSize != tc.domain {
			t.Errorf("%s %d clique(s) %v: MNNVL %v cross-clique %v domain %d, want true %v %d",
				tc.v, tc.cliques, tc.env, c.MNNVL, c.CrossClique, c.NVLDomainSize, tc.cross, tc.domain)
		}
		// the cliques stay nodes, cross-clique or not
		if want := tc.cliques; c.NNodes != want {
			t.Errorf("%s %d clique(s) %v: %d NCCL node(s), want %d", tc.v, tc.cliques, tc.env, c.NNodes, want)
		}
		logs := ruleLogs(c, "G-MNNVL-1")
		if tc.line != "" && !slices.Contains(logs, tc.line) {
			t.Errorf("%s %d clique(s) %v: G-MNNVL-1 logs %q, want %q", tc.v, tc.cliques, tc.env, logs, tc.line)
		}
		crossLine := slices.ContainsFunc(logs, func(l string) bool { return strings.HasPrefix(l, "Cross-clique P2P enabled") })
		if crossLine != tc.cross {
			t.Errorf("%s %d clique(s) %v: cross-clique line %v, want %v", tc.v, tc.cliques, tc.env, crossLine, tc.cross)
		}
	}
}

// TestMNNVLCliqueOfOneTray: trays in cliques of one tray each (four GPUs)
// still turn MNNVL on, whatever the release from 2.21.5: NCCL asks for a
// clique of more than one rank (checkMNNVL, ncclMnnvlCheck), not of more
// than one node. Each tray is its own NCCL node.
func TestMNNVLCliqueOfOneTray(t *testing.T) {
	for _, v := range []Version{V2_22_3, V2_25_1, V2_28_9, V2_29_7, V2_30_3} {
		c := gb200Cliques(t, v, 2, 2, nil)
		if !c.MNNVL || c.NNodes != 2 || c.CrossClique {
			t.Errorf("%s: two one-tray cliques: MNNVL %v, %d node(s), cross-clique %v; want MNNVL on, 2 nodes, no cross-clique", v, c.MNNVL, c.NNodes, c.CrossClique)
		}
	}
	c := gb200Cliques(t, V2_30_3, 2, 2, Env{"NCCL_MNNVL_CROSS_CLIQUE": "1"})
	if !c.CrossClique || c.NVLDomainSize != 8 {
		t.Errorf("2.30.3 two one-tray cliques with NCCL_MNNVL_CROSS_CLIQUE=1: cross-clique %v domain %d, want true 8", c.CrossClique, c.NVLDomainSize)
	}
}

// TestCrossCliqueWindows: with cross-clique P2P over an NVL domain that is
// the whole communicator, the LSA team spans every rank (computeLsaSize),
// so symmetric memory is supported across the two NCCL nodes: a window
// AllGather under CTA policy ZERO runs on the copy engines. Symmetric
// kernels are still skipped (ncclPrepareTasks): a window AllReduce goes to
// the cost table. Without cross-clique the two cliques are two LSA teams
// joined by GIN: symmetric memory still holds (globalGinSupport), the
// copy engines do not (ncclCeAvailable), and the AllGather takes its GIN
// kernel.
//
// Ref: v2.30.3-1 src/dev_runtime.cc computeLsaSize; src/init.cc
// initTransportsRank (symmetricSupport); src/enqueue.cc ncclPrepareTasks,
// taskAppend; src/ce_coll.cc ncclCeAvailable
func TestCrossCliqueWindows(t *testing.T) {
	ag := Op{Func: AllGather, Count: 1 << 20, DataType: Float32}
	ar := Op{Func: AllReduce, Count: 1 << 20, DataType: Float32, RedOp: Sum}
	for _, tc := range []struct {
		env          Env
		symSupport   bool
		agPath, arPa string
	}{
		// two LSA teams over the trays' GIN: symmetric memory, no copy
		// engines (ncclCeAvailable wants one LSA team); the AllGather
		// takes the GIN kernel, the AllReduce has none
		{Env{"NCCL_CTA_POLICY": "2"}, true, "symmetric", ""},
		{Env{"NCCL_CTA_POLICY": "2", "NCCL_MNNVL_CROSS_CLIQUE": "1"}, true, "copy-engine", ""},
		{Env{"NCCL_MNNVL_CROSS_CLIQUE": "1"}, true, "", ""},
	} {
		c := gb200Cliques(t, V2_30_3, 4, 2, tc.env)
		if got := c.Model.In.SymmetricSupport; got != tc.symSupport {
			t.Errorf("%v: symmetricSupport %v, want %v", tc.env, got, tc.symSupport)
		}
		for _, x := range []struct {
			op   Op
			want string
		}{{ag, tc.agPath}, {ar, tc.arPa}} {
			g, err := c.SelectGroup([]GroupOp{{Op: x.op, Buffers: BuffersWindow}}, Launch{})
			if err != nil {
				t.Fatal(err)
			}
			if p := g.Choices[0].SidePath; p != x.want {
				t.Errorf("%v: window %s: side path %q, want %q", tc.env, x.op.Func, p, x.want)
			}
		}
	}
}

// TestPresetCliques: the clique count is checked where the preset is
// built, and splits each rack's trays into consecutive cliques.
func TestPresetCliques(t *testing.T) {
	for _, tc := range []struct {
		preset  string
		nodes   int
		cliques int
		ids     []uint32 // per node; nil: an error
	}{
		{"gb200-nvl72", 4, 0, []uint32{0, 0, 0, 0}},
		{"gb200-nvl72", 4, 1, []uint32{0, 0, 0, 0}},
		{"gb200-nvl72", 4, 2, []uint32{0, 0, 1, 1}},
		{"gb200-nvl72", 4, 4, []uint32{0, 1, 2, 3}},
		{"gb200-nvl72", 3, 2, []uint32{0, 0, 1}},
		{"gb200-nvl72", 4, 5, nil},
		{"gb200-nvl72", 20, 19, nil},
		{"gb200-nvl72", 4, -1, nil},
		{"dgx-h100", 4, 2, nil},
	} {
		sys, err := Preset(tc.preset, PresetOptions{Nodes: tc.nodes, Cliques: tc.cliques})
		if tc.ids == nil {
			if err == nil || !strings.Contains(err.Error(), "mnnvl_cliques") {
				t.Errorf("%s ×%d in %d cliques: error %v, want one naming mnnvl_cliques", tc.preset, tc.nodes, tc.cliques, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s ×%d in %d cliques: %v", tc.preset, tc.nodes, tc.cliques, err)
		}
		for i, nd := range sys.Nodes {
			if nd.MNNVLCliqueID != tc.ids[i] || nd.MNNVLClique != "nvl72-rack0" {
				t.Errorf("%s ×%d in %d cliques: node %d in %s/%d, want nvl72-rack0/%d", tc.preset, tc.nodes, tc.cliques, i, nd.MNNVLClique, nd.MNNVLCliqueID, tc.ids[i])
			}
		}
	}
	if _, err := ParseSystem("s.json", []byte(`{"preset": "gb200-nvl72", "nodes": 4, "mnnvl_cliques": 9}`)); err == nil || !strings.Contains(err.Error(), "s.json: mnnvl_cliques 9") {
		t.Errorf("a system file with 9 cliques on 4 trays: %v", err)
	}
	sys, err := ParseSystem("s.json", []byte(`{"preset": "gb200-nvl72", "nodes": 4, "mnnvl_cliques": 2}`))
	if err != nil || sys.Nodes[3].MNNVLCliqueID != 1 {
		t.Errorf("a system file with 2 cliques: %v", err)
	}
	bad := System{Nodes: []Node{{GPUs: []GPU{{SM: 90}}, MNNVLCliqueID: 3}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "mnnvl_clique_id 3 without mnnvl_clique") {
		t.Errorf("a clique id without a cluster: %v", err)
	}
}

// TestChannelSetupLines: from 2.30.3 the predicted init trace prints
// ncclNvlsTuning's line on a communicator with NVLS and, across nodes with
// NCCL_NCHANNELS_PER_NET_PEER unset, ncclTopoComputeP2pChannels' line of
// p2pMaxPeers (NCCL_P2P_MAX_PEERS capped to nRanks, nRanks unset), both
// before the channel summary; 2.29.7 prints neither.
//
// Ref: v2.30.3-1 src/transport/nvls.cc ncclNvlsTuning; src/graph/paths.cc
// ncclTopoComputeP2pChannels, ncclTopoComputeP2pChannelsPerPeer
func TestChannelSetupLines(t *testing.T) {
	for _, tc := range []struct {
		v     Version
		nodes int
		env   Env
		want  []string // the lines before the summary
	}{
		{V2_29_7, 2, nil, nil},
		{V2_30_3, 1, nil, []string{"NVLS tuning: nChannels 16 chunkSize 131072 treeMaxChunkSize 131072"}},
		{V2_30_3, 2, nil, []string{"NVLS tuning: nChannels 16 chunkSize 131072 treeMaxChunkSize 131072", "Tuning P2P operations with maxP2pPeers = 16"}},
		{V2_30_3, 2, Env{"NCCL_P2P_MAX_PEERS": "4"}, []string{"NVLS tuning: nChannels 16 chunkSize 131072 treeMaxChunkSize 131072", "Tuning P2P operations with maxP2pPeers = 4"}},
		{V2_30_7, 2, Env{"NCCL_P2P_MAX_PEERS": "64"}, []string{"NVLS tuning: nChannels 16 chunkSize 131072 treeMaxChunkSize 131072", "Tuning P2P operations with maxP2pPeers = 16"}},
		{V2_30_3, 2, Env{"NCCL_NCHANNELS_PER_NET_PEER": "2"}, []string{"NVLS tuning: nChannels 16 chunkSize 131072 treeMaxChunkSize 131072"}},
		{V2_30_3, 2, Env{"NCCL_NVLS_ENABLE": "0"}, []string{"Tuning P2P operations with maxP2pPeers = 16"}},
	} {
		c := initPreset(t, tc.v, "dgx-h100", tc.nodes, tc.env)
		logs := ruleLogs(c, "G-GRAPH-CHANNELS-1")
		if len(logs) == 0 || !strings.Contains(logs[len(logs)-1], " coll channels, ") {
			t.Fatalf("%s ×%d %v: G-GRAPH-CHANNELS-1 logs %q: no channel summary last", tc.v, tc.nodes, tc.env, logs)
		}
		if got := logs[:len(logs)-1]; !slices.Equal(got, tc.want) {
			t.Errorf("%s ×%d %v: lines before the summary %q, want %q", tc.v, tc.nodes, tc.env, got, tc.want)
		}
	}
}
