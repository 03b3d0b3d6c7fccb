package topo

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

var update = flag.Bool("update", false, "rewrite golden files")

func search(t testing.TB, hosts []*System, p Params, o Options) *Result {
	t.Helper()
	r, err := Search(hosts, p, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func nTimes(s *System, n int) []*System {
	out := make([]*System, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// The project's 2×H200 captures (NCCL 2.28.9; values recorded in
// the project's notes on NCCL's tuning, §6.3, §6.7, §6.8; captures ran
// with NVLS off).
func TestCapturedH200x2(t *testing.T) {
	s := mustPreset(t, "h200x2")
	base := DefaultOptions()
	base.NvlsEnable = 0
	tests := []struct {
		name      string
		mod       func(*Options)
		ring      string // the [GRAPH] header of the ring, "" to skip
		tree      string
		nChannels int
		maxBw     string
	}{
		{"baseline", func(o *Options) {},
			"Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1",
			"Pattern 1, crossNic 0, nChannels 12, bw 60.000000/60.000000, type NVL/PIX, sameChannels 0", 24, "370.8"},
		{"p2p_off", func(o *Options) { o.P2PDisable = true }, "", "", 4, "48.0"},
		{"net_socket", func(o *Options) { o.P2PDisable, o.SHMDisable = true, true }, "", "", 2, "1.2"},
		{"maxch2", func(o *Options) { o.MaxNChannels = 2 }, "", "", 2, "370.8"},
		{"minch16", func(o *Options) { o.MinNChannels = 16 }, "", "", 24, "370.8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.mod(&o)
			r := search(t, []*System{s}, Params2_28_9(), o)
			if tc.ring != "" && r.Log[0] != tc.ring {
				t.Errorf("ring\n got %s\nwant %s", r.Log[0], tc.ring)
			}
			if tc.tree != "" {
				if i := 1 + r.Graphs[GraphRing].NChannels; r.Log[i] != tc.tree {
					t.Errorf("tree\n got %s\nwant %s", r.Log[i], tc.tree)
				}
			}
			if r.NChannels != tc.nChannels {
				t.Errorf("nChannels %d, want %d", r.NChannels, tc.nChannels)
			}
			if got := fmt.Sprintf("%2.1f", r.Nodes[0].System.MaxBw); got != tc.maxBw {
				t.Errorf("maxBw %s, want %s", got, tc.maxBw)
			}
		})
	}
	// "P2P disabled → 2 → 4" and "NET/Socket 1 → 2": the graph halves.
	o := base
	o.P2PDisable = true
	if r := search(t, []*System{s}, Params2_28_9(), o); r.NChannelsSearched != 2 {
		t.Errorf("p2p_off searched %d channels, want 2", r.NChannelsSearched)
	}
	o.SHMDisable = true
	if r := search(t, []*System{s}, Params2_28_9(), o); r.NChannelsSearched != 1 || r.NNodes != 2 {
		t.Errorf("net_socket searched %d channels on %d nodes, want 1 on 2", r.NChannelsSearched, r.NNodes)
	}
}

// NVIDIA/nccl#892: 8×H800 (NV8) on one host, NVLS unsupported:
// "16 coll channels, 0 nvls channels, 16 p2p channels, 16 p2p channels per peer".
func TestPublicH800Channels(t *testing.T) {
	spec := PresetDGXH100()
	for i := range spec.GPUs {
		spec.GPUs[i].NVLinks = 8
	}
	o := DefaultOptions()
	o.NvlsMulticast = MulticastNo
	for _, p := range releases() {
		r := search(t, []*System{mustSynth(t, spec)}, p, o)
		if r.NChannels != 16 || r.NvlsChannels != 0 || r.P2PNChannels != 16 || r.P2PNChannelsPerPeer != 16 {
			t.Errorf("%s: %s; want 16 coll, 0 nvls, 16 p2p, 16 per peer", p.Release, r.Summary)
		}
	}
}

// NVIDIA/nccl#1410: 8×H100 SXM on one host, "Channel xx/24".
func TestPublicH100Channels(t *testing.T) {
	for _, p := range releases() {
		r := search(t, []*System{mustPreset(t, "dgx-h100")}, p, DefaultOptions())
		if r.NChannels != 24 {
			t.Errorf("%s: %d channels, want 24", p.Release, r.NChannels)
		}
	}
}

// The bare-metal H200 dump of NVIDIA/nccl-tests#256 (socket 0).
func TestPublicH200Dump(t *testing.T) {
	data, err := os.ReadFile("testdata/public/nccl-tests-256-hgx-h200-socket0.xml")
	if err != nil {
		t.Fatal(err)
	}
	x, err := ParseTopologyXML("nccl-tests-256.xml", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p     Params
		model CPUModel
	}{{Params2_22_3(), ModelIntelSKL}, {Params2_28_3(), ModelIntelERP}, {Params2_28_9(), ModelIntelERP}} {
		s, err := BuildSystem("nccl-tests-256.xml", x, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Nodes[GPU]) != 3 || len(s.Nodes[NET]) != 3 || len(s.Nodes[NVS]) != 1 {
			t.Fatalf("%d GPUs %d NETs %d NVS, want 3 3 1", len(s.Nodes[GPU]), len(s.Nodes[NET]), len(s.Nodes[NVS]))
		}
		if _, _, m := s.CPUType(); m != tc.model {
			t.Errorf("%s: model %d, want %d", tc.p.Release, m, tc.model)
		}
		if got := fmt.Sprintf("%2.1f/%2.1f/%2.1f", linkBw(s, GPU, LinkNVL, NVS), linkBw(s, GPU, LinkPCI, PCI), linkBw(s, NIC, LinkNET, NET)); got != "370.8/48.0/50.0" {
			t.Errorf("NVL/PCI/NET bw %s", got)
		}
		ps := &pathState{p: tc.p, o: DefaultOptions()}
		if err := ps.computePaths(s); err != nil {
			t.Fatal(err)
		}
		if got := pathSummary(s, GPU, 0, NET, 0); got != "3/48.0/PIX" {
			t.Errorf("GPU0→mlx5_0 %s, want 3/48.0/PIX", got)
		}
	}
}

func TestPublicNDv5Hint(t *testing.T) {
	data, err := os.ReadFile("testdata/public/azure-ndv5-topo.xml")
	if err != nil {
		t.Fatal(err)
	}
	x, err := ParseTopologyXML("ndv5-topo.xml", data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = BuildSystem("ndv5-topo.xml", x, Params2_28_9())
	if err == nil || !strings.Contains(err.Error(), "hint file") {
		t.Fatalf("building a hint file: %v, want the no-GPU hint-file error", err)
	}
}

// Channel counts after ncclTopoPostset and ncclNvlsInit, per release.
func TestChannelCounts(t *testing.T) {
	h100 := mustPreset(t, "dgx-h100")
	h200x2 := mustPreset(t, "h200x2")
	gb200 := mustPreset(t, "gb200")
	tests := []struct {
		name                       string
		hosts                      []*System
		p                          Params
		mod                        func(*Options)
		nChannels, nvls, p2p, peer int
	}{
		{"H100 one node", nTimes(h100, 1), Params2_28_9(), func(o *Options) {}, 24, 16, 32, 32},
		{"H100 two nodes", nTimes(h100, 2), Params2_28_9(), func(o *Options) {}, 16, 16, 16, 2},
		{"2.28.9 NVLS on two GPUs", nTimes(h200x2, 1), Params2_28_9(), func(o *Options) {}, 24, 16, 32, 32},
		{"2.28.3 needs three GPUs for NVLS", nTimes(h200x2, 1), Params2_28_3(), func(o *Options) {}, 24, 0, 32, 32},
		{"GB200 tray: 24 NVLS channels", nTimes(gb200, 1), Params2_28_9(), func(o *Options) {}, 32, 24, 32, 32},
		{"GB200 two trays: 32 NVLS channels", nTimes(gb200, 2), Params2_28_9(), func(o *Options) {}, 16, 32, 16, 2},
		{"NCCL_NVLS_NCHANNELS", nTimes(h100, 1), Params2_28_9(), func(o *Options) { o.NvlsChannels = 4 }, 24, 4, 32, 32},
		{"NCCL_MAX_CTAS caps NVLS too", nTimes(h100, 1), Params2_28_9(), func(o *Options) { o.MaxCTAs = 8 }, 8, 8, 8, 8},
		{"NCCL_MAX_NCHANNELS", nTimes(h100, 1), Params2_28_9(), func(o *Options) { o.MaxNChannels = 3 }, 3, 16, 4, 4},
		{"NCCL_MIN_NCHANNELS", nTimes(h100, 1), Params2_28_9(), func(o *Options) { o.MinNChannels = 40 }, 40, 16, 64, 64},
		{"2.22.3 caps at 32", nTimes(h100, 1), Params2_22_3(), func(o *Options) { o.MinNChannels = 40 }, 32, 16, 32, 32},
		{"2.22.3 NVLS raises the channels", nTimes(h100, 1), Params2_22_3(), func(o *Options) { o.MaxNChannels = 2 }, 16, 16, 16, 16},
		{"2.28 NVLS does not", nTimes(h100, 1), Params2_28_9(), func(o *Options) { o.MaxNChannels = 2 }, 2, 16, 2, 2},
		{"P2P channels cap", nTimes(h100, 1), Params2_28_9(), func(o *Options) { o.MaxP2PNChannels = 8 }, 24, 16, 8, 8},
		// By default 2.19.4's two-node ring is 8 × 45 GB/s (the crossNic
		// bonus of TestCrossNicBonus), not above 45: no doubling.
		{"2.19.4 two nodes", nTimes(h100, 2), Params2_19_4(), func(o *Options) {}, 16, 16, 16, 2},
		{"2.19.4 doubles 16 channels to 32", nTimes(h100, 2), Params2_19_4(), func(o *Options) { o.CrossNic = 1 }, 32, 16, 32, 2},
		{"2.19.4 NVLS does not raise the channels", nTimes(h100, 1), Params2_19_4(), func(o *Options) { o.MaxNChannels = 2 }, 2, 16, 2, 2},
		{"2.19.4 two p2p channels per network peer", nTimes(h100, 2), Params2_19_4(), func(o *Options) { o.MaxNChannels = 4 }, 4, 16, 4, 2},
		// NCCL_NCHANNELS_PER_NET_PEER as each release reads it: 2.19.4
		// leaves a peer with a negative count out of the minimum (the
		// NVLink peers' 36 leave the 16 p2p channels), 2.20.3 to 2.27.7
		// take -1 as the NIC rule and 0 as a minimum of 0, 2.28.3 ignores
		// any value <= 0.
		{"2.19.4 -1 leaves the network peers out", nTimes(h100, 2), Params2_19_4(), netPeer(-1), 16, 16, 16, 16},
		{"2.19.4 0 is one channel per peer", nTimes(h100, 2), Params2_19_4(), netPeer(0), 16, 16, 16, 1},
		{"2.19.4 4 per network peer", nTimes(h100, 2), Params2_19_4(), netPeer(4), 16, 16, 16, 4},
		{"2.22.3 -1 is the NIC rule", nTimes(h100, 2), Params2_22_3(), netPeer(-1), 16, 16, 16, 2},
		{"2.22.3 -2 leaves the network peers out", nTimes(h100, 2), Params2_22_3(), netPeer(-2), 16, 16, 16, 16},
		{"2.22.3 0 is one channel per peer", nTimes(h100, 2), Params2_22_3(), netPeer(0), 16, 16, 16, 1},
		{"2.28.9 0 is too low: the NIC rule", nTimes(h100, 2), Params2_28_9(), netPeer(0), 16, 16, 16, 2},
		{"2.28.9 -2 is too low: the NIC rule", nTimes(h100, 2), Params2_28_9(), netPeer(-2), 16, 16, 16, 2},
		{"2.28.9 4 per network peer", nTimes(h100, 2), Params2_28_9(), netPeer(4), 16, 16, 16, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			tc.mod(&o)
			r := search(t, tc.hosts, tc.p, o)
			if r.NChannels != tc.nChannels || r.NvlsChannels != tc.nvls || r.P2PNChannels != tc.p2p || r.P2PNChannelsPerPeer != tc.peer {
				t.Errorf("%s\nwant %d coll, %d nvls, %d p2p, %d per peer", r.Summary, tc.nChannels, tc.nvls, tc.p2p, tc.peer)
			}
		})
	}
}

// netPeer sets NCCL_NCHANNELS_PER_NET_PEER.
func netPeer(n int) func(*Options) {
	return func(o *Options) { o.NChannelsPerNetPeer, o.NChannelsPerNetPeerSet = n, true }
}

// The "4 compute channels per search channel" doubling of ncclTopoPostset:
// minCompCap >= 90 from 2.24, == 90 in 2.22.3 (sm100 then misses it).
func TestComputeChannelsRule(t *testing.T) {
	gb200 := mustPreset(t, "gb200")
	o := DefaultOptions()
	o.NvlsEnable = 0
	r22 := search(t, nTimes(gb200, 2), Params2_22_3(), o)
	r28 := search(t, nTimes(gb200, 2), Params2_28_9(), o)
	t.Logf("2.22.3: searched %d, ring bwIntra %v → %d; 2.28.9: searched %d, bwIntra %v → %d",
		r22.NChannelsSearched, r22.Graphs[GraphRing].BwIntra, r22.NChannels, r28.NChannelsSearched, r28.Graphs[GraphRing].BwIntra, r28.NChannels)
	for _, r := range []*Result{r22, r28} {
		doubled := 2 * r.NChannelsSearched
		rule := r.Graphs[GraphRing].BwIntra > 45 && doubled < 16
		sm90plus := r.Release != "2.22.3" // the GPUs are sm100
		want := doubled
		if rule && sm90plus {
			want *= 2
		}
		if r.NChannels != want {
			t.Errorf("%s: %d channels, want %d", r.Release, r.NChannels, want)
		}
	}
}

// The GPU order behind an NVSwitch: 2.19.1 follows the score order, 2.19.3
// to 2.20.5 try the index neighbours first, then the rest, 2.21.5 on only
// the neighbours. On an NVSwitch host all three find the same channels at
// the same bandwidth; 2.19.1's rings visit the GPUs in another order.
// NCCL_CROSS_NIC=1 keeps the crossNic bonus of 2.19.x out of the way.
func TestNVSOrder(t *testing.T) {
	h100 := nTimes(mustPreset(t, "dgx-h100"), 2)
	first := Params2_19_4() // NVSOrderFirst from Apply2_20_5
	none := Params2_19_1()
	only := Params2_22_3()
	if first.NVSOrder != NVSOrderFirst || none.NVSOrder != NVSOrderNone || only.NVSOrder != NVSOrderOnly {
		t.Fatalf("NVSOrder: 2.19.4 %v, 2.19.1 %v, 2.22.3 %v", first.NVSOrder, none.NVSOrder, only.NVSOrder)
	}
	var rings [3][][]int
	for i, p := range []Params{only, first, none} {
		o := DefaultOptions()
		o.CrossNic = 1
		r := search(t, h100, p, o)
		g := r.Graphs[GraphRing]
		if g.NChannels != 8 || g.BwIntra != 48 {
			t.Errorf("%s (%v): ring %d channels at %v GB/s, want 8 at 48", p.Release, p.NVSOrder, g.NChannels, g.BwIntra)
		}
		rings[i] = g.Intra
	}
	if cmp.Equal(rings[1], rings[2]) {
		t.Errorf("2.19.1 (no NVSwitch rule) and 2.19.4 (neighbours first) give the same rings %v", rings[1])
	}
}

// Identical hosts are searched once; the same hosts passed as separate
// values give the same answer.
func TestIdenticalHostsShareTheSearch(t *testing.T) {
	a := mustPreset(t, "dgx-h100")
	b := mustPreset(t, "dgx-h100") // same XML, another pointer
	for _, p := range releases() {
		r1 := search(t, []*System{a, a, a}, p, DefaultOptions())
		r2 := search(t, []*System{a, b, a}, p, DefaultOptions())
		if d := cmp.Diff(r1.Log, r2.Log); d != "" {
			t.Errorf("%s log (-shared +copies):\n%s", p.Release, d)
		}
		if r1.NChannels != r2.NChannels || r1.NNodes != 3 {
			t.Errorf("%s: %d vs %d channels, %d nodes", p.Release, r1.NChannels, r2.NChannels, r1.NNodes)
		}
		if r1.Nodes[0].model != r1.Nodes[2].model {
			t.Errorf("%s: identical hosts were searched twice", p.Release)
		}
		g := r1.Nodes[2].Graphs()
		if g[GraphRing].Intra[0][0] != 16 {
			t.Errorf("%s: node 2's ring starts at rank %d, want 16", p.Release, g[GraphRing].Intra[0][0])
		}
	}
}

// NCCL_GRAPH_FILE: the graphs NCCL dumped replace the searches.
func TestGraphFileOverride(t *testing.T) {
	hosts := nTimes(mustPreset(t, "dgx-h100"), 2)
	for _, p := range releases() {
		r := search(t, hosts, p, DefaultOptions())
		var b strings.Builder
		if err := r.WriteGraphXML(&b, 0); err != nil {
			t.Fatal(err)
		}
		graphs, err := ParseGraphXML("graph.xml", []byte(b.String()))
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		o := DefaultOptions()
		o.GraphFile = graphs
		r2 := search(t, hosts, p, o)
		want := fmt.Sprintf("Search 0 : %d channels loaded from XML graph", r.Graphs[GraphRing].NChannels)
		if r2.Log[0] != want {
			t.Errorf("%s: first line %q, want %q", p.Release, r2.Log[0], want)
		}
		strip := func(log []string) []string {
			var out []string
			for _, l := range log {
				if !strings.HasPrefix(l, "Search ") {
					out = append(out, l)
				}
			}
			return out
		}
		if d := cmp.Diff(strip(r.Log), strip(r2.Log)); d != "" {
			t.Errorf("%s: loaded graphs differ from the searched ones (-searched +loaded):\n%s", p.Release, d)
		}
	}
}

func TestGraphXMLWriteFormat(t *testing.T) {
	r := search(t, []*System{mustPreset(t, "h200x2")}, Params2_28_9(), DefaultOptions())
	var b strings.Builder
	if err := r.WriteGraphXML(&b, 0); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	want := []string{
		`<graphs version="1">`,
		`  <graph id="0" pattern="4" crossnic="0" nchannels="12" speedintra="30" speedinter="30" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="1">`,
		`    <channel>`,
		`      <gpu dev="0"/>`,
		`      <gpu dev="0x1"/>`,
		`    </channel>`,
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d\n got %s\nwant %s", i, lines[i], w)
		}
	}
}

func TestParseGraphXMLErrors(t *testing.T) {
	g := func(attrs, body string) string {
		return "<graphs version=\"1\">\n<graph " + attrs + ">" + body + "</graph>\n</graphs>"
	}
	full := `id="0" pattern="4" crossnic="0" nchannels="1" speedintra="20" speedinter="20" typeintra="NVL" typeinter="PIX" samechannels="1"`
	tests := []struct{ name, in, want string }{
		{"no graphs", "<system version=\"1\"/>", `g.xml:1: no <graphs> element`},
		{"version", "<graphs version=\"3\"/>", `g.xml:1: <graphs version="3">: NCCL needs version="1"`},
		{"no id", g(`pattern="4"`, ""), `g.xml:2: <graph> without id attribute`},
		{"bad type", g(strings.Replace(full, `typeintra="NVL"`, `typeintra="XYZ"`, 1), ""), `g.xml:2: <graph typeintra="XYZ">: expected one of LOC NVL NVB PIX PXB P2C PXN PHB SYS`},
		{"bad speed", g(strings.Replace(full, `speedintra="20"`, `speedintra="fast"`, 1), ""), `g.xml:2: <graph speedintra="fast">`},
		{"gpu without dev", g(full, "<channel><gpu/></channel>"), `g.xml:2: <gpu> without dev attribute: expected dev="0x0"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGraphXML("g.xml", []byte(tc.in))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
	// An unknown GPU dev is an error at search time, naming the graph.
	graphs, err := ParseGraphXML("g.xml", []byte(g(full, `<channel><gpu dev="0x7"/></channel>`)))
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.GraphFile = graphs
	_, err = Search([]*System{mustPreset(t, "h200x2")}, Params2_28_9(), o)
	if err == nil || !strings.Contains(err.Error(), "GPU dev 0x7 not found") {
		t.Errorf("error %v, want the unknown-dev error", err)
	}
}

func FuzzParseGraphXML(f *testing.F) {
	r, err := Search(nTimes(mustPreset(f, "dgx-h100"), 2), Params2_28_9(), DefaultOptions())
	if err != nil {
		f.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteGraphXML(&b, 0); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(b.String()))
	f.Add([]byte(`<graphs version="1"><graph id="1" pattern="1" crossnic="0" nchannels="2" speedintra="60" speedinter="60" latencyinter="0" typeintra="NVL" typeinter="PIX" samechannels="0"><channel><gpu dev="0"/><gpu dev="0x1"/></channel></graph></graphs>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		graphs, err := ParseGraphXML("fuzz.xml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.xml:") {
				t.Fatalf("error without file and line: %v", err)
			}
			return
		}
		for _, g := range graphs {
			if g.Channels == nil && g.NChannels < 0 {
				continue
			}
		}
	})
}

// Properties over random hosts: the search always answers, within NCCL's
// bounds, deterministically, and gives every link its bandwidth back.
func TestSearchProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := genNodeSpec(t)
		s, err := Synthesize(spec)
		if err != nil {
			t.Fatal(err)
		}
		p := rapid.SampledFrom(releases()).Draw(t, "release")
		nodes := rapid.IntRange(1, 3).Draw(t, "nodes")
		o := DefaultOptions()
		o.P2PDisable = rapid.Bool().Draw(t, "p2pdisable")
		o.CrossNic = rapid.IntRange(0, 2).Draw(t, "crossnic")
		r, err := Search(nTimes(s, nodes), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.NChannels < 1 || r.NChannels > p.MaxChannels {
			t.Fatalf("nChannels %d outside [1, %d]", r.NChannels, p.MaxChannels)
		}
		ring, tree := r.Graphs[GraphRing], r.Graphs[GraphTree]
		if ring.NChannels < 1 || ring.NChannels != tree.NChannels {
			t.Fatalf("ring %d / tree %d channels", ring.NChannels, tree.NChannels)
		}
		if !strings.HasPrefix(r.Log[len(r.Log)-1], fmt.Sprintf("%d coll channels", r.NChannels)) {
			t.Fatalf("summary %q", r.Log[len(r.Log)-1])
		}
		if r.NNodes < nodes {
			t.Fatalf("%d NCCL nodes from %d hosts", r.NNodes, nodes)
		}
		// Every node's ring visits each of its ranks once per channel.
		for _, n := range r.Nodes {
			g := n.Graphs()[GraphRing]
			for c, row := range g.Intra {
				seen := map[int]bool{}
				for _, rank := range row {
					seen[rank] = true
				}
				if len(seen) != len(n.Ranks) {
					t.Fatalf("node ring channel %d visits %v, ranks %v", c, row, n.Ranks)
				}
			}
		}
		// Searches give link bandwidth back, to SUB_ROUND's 1e-3 (NET port
		// bandwidth may leak,
		// as NCCL's does on the paths that "continue").
		fresh, err := BuildSystem(s.Name, s.Source, p)
		if err != nil {
			t.Fatal(err)
		}
		type key struct {
			ft, tt NodeType
			from   int64
			lt     LinkType
			to     int64
		}
		before := map[key]float32{}
		for ty := range fresh.Nodes {
			for _, node := range fresh.Nodes[ty] {
				for _, l := range node.Links {
					before[key{node.Type, l.Remote.Type, node.ID, l.Type, l.Remote.ID}] = l.Bw
				}
			}
		}
		for _, n := range r.Nodes {
			for ty := range n.System.Nodes {
				for _, node := range n.System.Nodes[ty] {
					for _, l := range node.Links {
						k := key{node.Type, l.Remote.Type, node.ID, l.Type, l.Remote.ID}
						// SUB_ROUND leaves the bandwidth on a 1e-3 grid, as in
						// NCCL. At LOC_BW (5000, a NIC without a PCI path) float32
						// cannot hold that grid and each take/give-back may land a
						// step off: NCCL drifts the same way (subRound is
						// bit-identical to gcc's SUB_ROUND); drifts of several
						// GB/s after a long search are expected and harmless there.
						// The drift grows with the search's length: a 2.22.3
						// search over three hosts of three PCI-less NICs with
						// NCCL_CROSS_NIC=2 drifted 50.7 GB/s (1.01 %) at 5000.
						tol := 1e-3
						if bw := before[k]; bw >= 1000 {
							tol = 2e-2 * float64(bw)
						}
						if bw, ok := before[k]; ok && math.Abs(float64(bw-l.Bw)) > tol {
							t.Fatalf("%s -%s-> %s: bw %v after the search, %v before", node.Name(), l.Type, l.Remote.Name(), l.Bw, bw)
						}
					}
				}
			}
		}
		r2, err := Search(nTimes(s, nodes), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(r.Log, r2.Log); d != "" {
			t.Fatalf("not deterministic:\n%s", d)
		}
	})
}

// goldenCases are the scenarios whose full output is checked in; the
// expected files are the model's answers (reviewed by hand on -update), not
// truth: truth lives in the Public/Captured tests above.
func goldenCases() []struct {
	name  string
	hosts func(t testing.TB) []*System
	mod   func(*Options)
} {
	type gc = struct {
		name  string
		hosts func(t testing.TB) []*System
		mod   func(*Options)
	}
	preset := func(name string, n int) func(t testing.TB) []*System {
		return func(t testing.TB) []*System { return nTimes(mustPreset(t, name), n) }
	}
	none := func(*Options) {}
	var out []gc
	for _, name := range PresetNames() {
		out = append(out, gc{name + "-1node", preset(name, 1), none})
	}
	for _, name := range []string{"dgx-a100", "dgx-h100", "gb200"} {
		out = append(out, gc{name + "-2nodes", preset(name, 2), none})
	}
	// Single-node NVSwitch hosts of 2, 4 and 8 GPUs on sm80, sm90, sm100.
	for _, sm := range []int{80, 90, 100} {
		for _, n := range []int{2, 4, 8} {
			spec := nvswitchHost(sm, n)
			out = append(out, gc{spec.Name, func(t testing.TB) []*System { return []*System{mustSynth(t, spec)} }, none})
		}
	}
	for _, spec := range []NodeSpec{pcieHost8(), pcieHost4()} {
		out = append(out, gc{spec.Name, func(t testing.TB) []*System { return []*System{mustSynth(t, spec)} }, none})
	}
	out = append(out,
		gc{"h200x2-nvls-off", preset("h200x2", 1), func(o *Options) { o.NvlsEnable = 0 }},
		gc{"h200x2-p2p-off", preset("h200x2", 1), func(o *Options) { o.NvlsEnable, o.P2PDisable = 0, true }},
		gc{"h200x2-net-socket", preset("h200x2", 1), func(o *Options) { o.NvlsEnable, o.P2PDisable, o.SHMDisable = 0, true, true }},
		gc{"dgx-h100-2nodes-crossnic0", preset("dgx-h100", 2), func(o *Options) { o.CrossNic = 0 }},
		gc{"dgx-h100-2nodes-pxn-off", preset("dgx-h100", 2), func(o *Options) { o.PXNDisable = true }},
		gc{"dgx-h100-4nodes-collnet", func(t testing.TB) []*System {
			spec := PresetDGXH100()
			for i := range spec.NICs {
				spec.NICs[i].Coll = true
			}
			return nTimes(mustSynth(t, spec), 4)
		}, func(o *Options) { o.CollNetEnable = true }},
		gc{"gb200-mnnvl-2trays", func(t testing.TB) []*System {
			s, err := SynthesizeMNNVL(PresetGB200(), 2)
			if err != nil {
				t.Fatal(err)
			}
			return []*System{s}
		}, none},
	)
	return out
}

// nvswitchHost is an HGX-like host of n GPUs of one SM (12 NVLinks on sm80,
// 18 from sm90), one GPU and one NDR NIC per PCIe switch, two sockets.
func nvswitchHost(sm, n int) NodeSpec {
	s := hgxH100Like(fmt.Sprintf("nvswitch-sm%d-%dgpu", sm, n))
	s.GPUs, s.NICs, s.Switches = s.GPUs[:n], s.NICs[:n], s.Switches[:n]
	for i := range s.GPUs {
		s.GPUs[i].SM = sm
		if sm < 90 {
			s.GPUs[i].NVLinks, s.GPUs[i].PCIGen = 12, 4
		}
	}
	return s
}

// pcieHost8 is an 8-GPU PCIe-only host (sm89, no NVLink), each GPU behind
// its own Gen4 bridge, four per Intel Skylake socket: the layout of the
// RTX 4090 host in NVIDIA/nccl-tests#307.
func pcieHost8() NodeSpec {
	s := NodeSpec{Name: "pcie-sm89-8gpu-2socket", CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "skl", Sockets: 2}
	for i := 0; i < 8; i++ {
		s.Switches = append(s.Switches, SwitchSpec{NUMA: i / 4, PCIGen: 4, Parent: -1})
		s.GPUs = append(s.GPUs, GPUSpec{Dev: i, SM: 89, PCIGen: 4, PCIWidth: 16, NUMA: i / 4, Switch: i})
	}
	return s
}

// pcieHost4 is four PCIe GPUs under one switch (PIX between them) on an AMD
// socket, with one 100G NIC on the same switch.
func pcieHost4() NodeSpec {
	s := NodeSpec{Name: "pcie-sm80-4gpu-1switch", CPUArch: "x86_64", CPUVendor: "AMD", Sockets: 1,
		Switches: []SwitchSpec{{NUMA: 0, PCIGen: 4, Parent: -1}},
		NICs:     []NICSpec{{SpeedMbps: 100000, NUMA: 0, Switch: 0, GDR: true, PCIGen: 4}}}
	for i := 0; i < 4; i++ {
		s.GPUs = append(s.GPUs, GPUSpec{Dev: i, SM: 80, PCIGen: 4, PCIWidth: 16, Switch: 0})
	}
	return s
}

// describe prints a Result as the golden files hold it.
func describe(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# NCCL %s: nRanks %d nNodes %d localRanks %v minCompCap %d maxCompCap %d cpu %s/%s maxTreePattern %d nvs %d allNVLink %v\n",
		r.Release, r.NRanks, r.NNodes, r.LocalRanks, r.MinCompCap, r.MaxCompCap, r.CPUArch, r.CPUVendor, int(r.MaxTreePattern), r.NVSCount, r.AllNVLink)
	fmt.Fprintf(&b, "# channels: searched %d -> %d; nvls %v/%d; collnet %v; p2p %d/%d\n",
		r.NChannelsSearched, r.NChannels, r.NvlsSupport, r.NvlsChannels, r.CollNetSupport, r.P2PNChannels, r.P2PNChannelsPerPeer)
	for i, g := range r.Graphs {
		fmt.Fprintf(&b, "# consensus %s: pattern %d nChannels %d bw %g/%g type %s/%s sameChannels %v crossNic %d\n",
			GraphIndex(i), int(g.Pattern), g.NChannels, g.BwIntra, g.BwInter, g.TypeIntra, g.TypeInter, g.SameChannels, g.CrossNic)
	}
	for _, l := range r.Log {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	for _, gc := range goldenCases() {
		for _, p := range releases() {
			name := gc.name + "-" + p.Release.String()
			t.Run(name, func(t *testing.T) {
				o := DefaultOptions()
				gc.mod(&o)
				got := describe(search(t, gc.hosts(t), p, o))
				goldenfile.Check(t, filepath.Join("testdata", "golden", name+".txt"), got, *update)
			})
		}
	}
}

// Agreement with the independent Python port behind the project's notes
// on NCCL's tuning, §6.8 (its [SIM] predictions for 2.28.9). Not truth: a second
// implementation of the same source; a disagreement means one of the two
// ports is wrong and the NCCL source decides.
func TestResearchPortAgreement(t *testing.T) {
	h100NICs := func(mbps int, nics int) NodeSpec {
		s := PresetDGXH100()
		s.NICs = nil
		for i := 0; i < nics; i++ {
			sw := i * 8 / nics
			s.NICs = append(s.NICs, NICSpec{SpeedMbps: mbps, NUMA: sw / 4, Switch: sw, GDR: true, PCIGen: 5})
		}
		return s
	}
	four := PresetDGXH100()
	four.GPUs, four.NICs, four.Switches = four.GPUs[:4], nil, four.Switches[:4]
	tests := []struct {
		name       string
		spec       NodeSpec
		nodes      int
		mod        func(*Options)
		ring, tree string
		nChannels  int
	}{
		{"8xH100 one node", PresetDGXH100(), 1, func(o *Options) {},
			"Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1",
			"Pattern 1, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1", 24},
		{"4xH100 one node", four, 1, func(o *Options) {},
			"Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1",
			"Pattern 1, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX, sameChannels 1", 24},
		{"2 nodes 8x400G", h100NICs(400000, 8), 2, func(o *Options) {},
			"Pattern 4, crossNic 2, nChannels 8, bw 48.000000/48.000000, type NVL/PIX, sameChannels 0",
			"Pattern 3, crossNic 0, nChannels 8, bw 48.000000/48.000000, type NVL/PIX, sameChannels 0", 16},
		{"2 nodes NCCL_CROSS_NIC=0", h100NICs(400000, 8), 2, func(o *Options) { o.CrossNic = 0 },
			"Pattern 4, crossNic 0, nChannels 8, bw 45.000000/45.000000, type NVL/PXN, sameChannels 0",
			"Pattern 3, crossNic 0, nChannels 8, bw 48.000000/48.000000, type NVL/PIX, sameChannels 0", 16},
		{"2 nodes PXN disabled", h100NICs(400000, 8), 2, func(o *Options) { o.PXNDisable = true },
			"Pattern 4, crossNic 2, nChannels 8, bw 48.000000/48.000000, type NVL/PIX, sameChannels 0",
			"Pattern 3, crossNic 0, nChannels 8, bw 48.000000/48.000000, type NVL/PIX, sameChannels 0", 16},
		{"2 nodes 8x200G", h100NICs(200000, 8), 2, func(o *Options) {},
			"Pattern 4, crossNic 0, nChannels 8, bw 24.000000/24.000000, type NVL/PXN, sameChannels 0",
			"Pattern 3, crossNic 0, nChannels 8, bw 48.000000/24.000000, type NVL/PIX, sameChannels 0", 16},
		{"2 nodes 4x400G", h100NICs(400000, 4), 2, func(o *Options) {},
			"Pattern 4, crossNic 0, nChannels 8, bw 24.000000/24.000000, type NVL/PXN, sameChannels 0",
			"Pattern 3, crossNic 0, nChannels 8, bw 45.000000/24.000000, type NVL/PIX, sameChannels 0", 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.NvlsEnable = 0
			tc.mod(&o)
			r := search(t, nTimes(mustSynth(t, tc.spec), tc.nodes), Params2_28_9(), o)
			var headers []string
			for _, l := range r.Log {
				if strings.HasPrefix(l, "Pattern") {
					headers = append(headers, l)
				}
			}
			if headers[0] != tc.ring || headers[1] != tc.tree || r.NChannels != tc.nChannels {
				t.Errorf("got\n%s\n%s\n%d channels\nwant\n%s\n%s\n%d channels", headers[0], headers[1], r.NChannels, tc.ring, tc.tree, tc.nChannels)
			}
		})
	}
}
