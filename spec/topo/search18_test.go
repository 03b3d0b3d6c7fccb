package topo

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// The topology parameters of the releases before 2.20.3, chained backward
// from 2.22.3 as spec's Release values chain them.
func params2_21_5() Params {
	p := Params2_22_3()
	Apply2_21_5(&p)
	p.Release = nccl.V2_21_5
	return p
}

func params2_20_5() Params {
	p := params2_21_5()
	Apply2_20_5(&p)
	p.Release = nccl.V2_20_5
	return p
}

func params2_18_6() Params {
	p := Params2_19_1()
	Apply2_18_6(&p)
	p.Release = nccl.V2_18_6
	return p
}

func params2_18_3() Params {
	p := params2_18_6()
	Apply2_18_3(&p)
	p.Release = nccl.V2_18_3
	return p
}

func params2_18_1() Params {
	p := params2_18_3()
	Apply2_18_1(&p)
	p.Release = nccl.V2_18_1
	return p
}

// ncclTopoCompareGraphs up to 2.19.4: target = 1 − (ref.crossNic −
// crossNic)·0.15 multiplies the best graph's nChannels·bwIntra. Worked by
// hand from v2.19.4-1 src/graph/search.cc.
func TestCrossNicBonusCompare(t *testing.T) {
	tests := []struct {
		name           string
		g, ref         sgraph
		bonus, noBonus bool
	}{
		// 8·48 = 384 against 7·48·1.15 = 386.4: the crossNic ring loses.
		{"crossNic ring must win by 15 %", sgraph{nChannels: 8, bwIntra: 48, crossNic: 1}, sgraph{nChannels: 7, bwIntra: 48}, false, true},
		// 8·48 = 384 against 6·48·1.15 = 331.2.
		{"crossNic ring 33 % better", sgraph{nChannels: 8, bwIntra: 48, crossNic: 1}, sgraph{nChannels: 6, bwIntra: 48}, true, true},
		// 6·48 = 288 against 7·48·0.85 = 285.6: the graph without crossNic wins.
		{"no crossNic may be 15 % slower", sgraph{nChannels: 6, bwIntra: 48}, sgraph{nChannels: 7, bwIntra: 48, crossNic: 1}, true, false},
		// 5·48 = 240 against 285.6.
		{"no crossNic 29 % slower", sgraph{nChannels: 5, bwIntra: 48}, sgraph{nChannels: 7, bwIntra: 48, crossNic: 1}, false, false},
		// Same crossNic: target 1.
		{"same crossNic", sgraph{nChannels: 8, bwIntra: 45}, sgraph{nChannels: 7, bwIntra: 48}, true, true},
	}
	x := &searcher{s: &System{}, ps: &pathState{}}
	for _, tc := range tests {
		for _, bonus := range []bool{true, false} {
			x.ps.p = Params2_22_3()
			x.ps.p.CrossNicBonus = bonus
			tc.g.minChannels = 1
			want := tc.noBonus
			if bonus {
				want = tc.bonus
			}
			if got := x.better(&tc.g, &tc.ref); got != want {
				t.Errorf("%s (bonus %v): better = %v, want %v", tc.name, bonus, got, want)
			}
		}
	}
}

// Two DGX H100s: at 48 GB/s the ring search without crossNic finds 7
// channels (type PXN); the crossNic retry finds 8 at 48, which 2.20.3
// keeps (384 > 336) and 2.19.4 does not (384 < 386.4); 2.19.4 then finds
// 8 channels at 45 GB/s without crossNic (360 > 336), so its ring is not
// above 45 GB/s and ncclTopoPostset does not double its 16 channels.
func TestCrossNicBonusSearch(t *testing.T) {
	h100 := nTimes(mustPreset(t, "dgx-h100"), 2)
	tests := []struct {
		p          Params
		nChannels  int
		bw         float32
		crossNic   int
		typeInter  PathType
		nChannelsC int
	}{
		{params2_20_5(), 8, 48, 1, PathPIX, 16},
		{Params2_19_4(), 8, 45, 0, PathPXN, 16},
	}
	for _, tc := range tests {
		r := search(t, h100, tc.p, DefaultOptions())
		g := r.Graphs[GraphRing]
		if g.NChannels != tc.nChannels || g.BwIntra != tc.bw || g.CrossNic != tc.crossNic || g.TypeInter != tc.typeInter || r.NChannels != tc.nChannelsC {
			t.Errorf("%s: ring %d × %v GB/s crossNic %d typeInter %v, %d channels; want %d × %v crossNic %d %v, %d",
				tc.p.Release, g.NChannels, g.BwIntra, g.CrossNic, g.TypeInter, r.NChannels, tc.nChannels, tc.bw, tc.crossNic, tc.typeInter, tc.nChannelsC)
		}
	}
}

// The exit NET of a crossNic ring's odd channel: from 2.20.3 it must be
// the NET the previous channel started from; up to 2.19.4 any NET
// (v2.19.4-1 ncclTopoSearchRecGpu has only the asic/port test).
func TestCrossNicUnpaired(t *testing.T) {
	netA := &Node{Type: NET, ID: 0x10, Asic: 1}
	netB := &Node{Type: NET, ID: 0x20, Asic: 2}
	g := &sgraph{pattern: PatternRing, crossNic: 1, nChannels: 1, inter: []int64{0x10, 0x10, 0x20, 0}}
	for _, tc := range []struct {
		unpaired bool
		net      *Node
		want     bool
	}{
		{false, netA, true}, {false, netB, false},
		{true, netA, true}, {true, netB, true},
	} {
		x := &searcher{ps: &pathState{p: Params2_22_3()}}
		x.ps.p.CrossNicUnpaired = tc.unpaired
		if got := x.netAllowed(g, netB, tc.net, 7); got != tc.want {
			t.Errorf("unpaired %v, exit NET %#x after a channel that started at %#x: allowed %v, want %v", tc.unpaired, tc.net.ID, g.inter[0], got, tc.want)
		}
	}
}

// ncclTopoDupChannels (2.18.3+) against 2.18.1's rule in ncclTopoCompute.
func TestDupRule18(t *testing.T) {
	tests := []struct {
		ccMin     int
		bw        float32
		nChannels int
		dup, dup1 bool // 2.18.3+, 2.18.1
	}{
		{90, 40, 4, true, false}, // 2.18.1 needs 50 GB/s on sm90
		{90, 60, 8, true, true},
		{90, 45, 8, false, false}, // > 4 channels under 50 GB/s
		{80, 40, 8, true, true},
		{80, 20, 2, false, false},
		{100, 60, 2, true, false}, // 2.18.1 never duplicates above sm90
	}
	for _, tc := range tests {
		for _, old := range []bool{false, true} {
			g := &sgraph{pattern: PatternRing, nChannels: tc.nChannels, maxChannels: 16, bwIntra: tc.bw, bwInter: tc.bw,
				intra: make([]int, 16*2), inter: make([]int64, 32)}
			dupChannels(g, tc.ccMin, 2, old)
			want := tc.dup
			if old {
				want = tc.dup1
			}
			if got := g.nChannels == 2*tc.nChannels; got != want {
				t.Errorf("sm%d %v GB/s × %d (2.18.1 rule %v): %d channels, duplicated %v, want %v", tc.ccMin, tc.bw, tc.nChannels, old, g.nChannels, got, want)
			}
		}
	}
}

// The graphs of two DGX H100s where the releases before 2.19.1 search
// differently. The tree: 2.18.3+ retries a balanced tree as a TREE on sm90
// and keeps 8 channels at 48 GB/s; 2.18.1 has only the SPLIT_TREE retry
// and relaxes the path types instead. NVLS: 2.19.1 raises bwInter in a
// third pass, 2.18 tries bwIntra as for trees (and fails) instead.
func TestSearch18Graphs(t *testing.T) {
	h100 := nTimes(mustPreset(t, "dgx-h100"), 2)
	type want struct {
		pattern          Pattern
		nChannels        int
		bwInter, bwIntra float32
		typeInter        PathType
	}
	tests := []struct {
		p          Params
		tree, nvls want
	}{
		{Params2_19_1(), want{PatternTree, 8, 48, 48, PathPIX}, want{PatternNVLS, 8, 48, 40, PathPIX}},
		{params2_18_6(), want{PatternTree, 8, 48, 48, PathPIX}, want{PatternNVLS, 8, 40, 40, PathPIX}},
		{params2_18_1(), want{PatternBalancedTree, 8, 42, 42, PathPXN}, want{PatternNVLS, 8, 40, 40, PathPIX}},
	}
	for _, tc := range tests {
		r := search(t, h100, tc.p, DefaultOptions())
		for _, c := range []struct {
			name string
			g    Graph
			w    want
		}{{"tree", r.Graphs[GraphTree], tc.tree}, {"nvls", r.Graphs[GraphNVLS], tc.nvls}} {
			got := want{c.g.Pattern, c.g.NChannels, c.g.BwInter, c.g.BwIntra, c.g.TypeInter}
			if got != c.w {
				t.Errorf("%s %s: %+v, want %+v", tc.p.Release, c.name, got, c.w)
			}
		}
	}
}

// NCCL_CROSS_NIC=1 in 2.18 sets crossNic 1 on every graph, on one node
// (no NET) too; from 2.19.1 only rings and trees across several NICs get
// it. Across nodes 2.18 drops it again once the speed goes down: the NVLS
// graph, found at 40 GB/s, has crossNic 0 in both.
func TestCrossNicAnyPattern(t *testing.T) {
	h100 := mustPreset(t, "dgx-h100")
	o := DefaultOptions()
	o.CrossNic = 1
	for _, tc := range []struct {
		p                Params
		nodes            int
		ring, tree, nvls int
	}{
		{Params2_19_1(), 1, 0, 0, 0},
		{params2_18_6(), 1, 1, 1, 1},
		{Params2_19_1(), 2, 1, 1, 0},
		{params2_18_6(), 2, 1, 1, 0},
	} {
		r := search(t, nTimes(h100, tc.nodes), tc.p, o)
		g := r.Graphs
		if g[GraphRing].CrossNic != tc.ring || g[GraphTree].CrossNic != tc.tree || g[GraphNVLS].CrossNic != tc.nvls {
			t.Errorf("%s on %d node(s): crossNic ring %d tree %d NVLS %d, want %d %d %d", tc.p.Release, tc.nodes,
				g[GraphRing].CrossNic, g[GraphTree].CrossNic, g[GraphNVLS].CrossNic, tc.ring, tc.tree, tc.nvls)
		}
	}
}

// Before 2.22.3 there is no COLLNET_DIRECT search: CollNetDirect runs on
// the TREE-pattern CollNet graph with the ring's channels, so its heads
// are that graph's first GPUs.
func TestCollNetDirectIsChain(t *testing.T) {
	spec := PresetDGXH100()
	for i := range spec.NICs {
		spec.NICs[i].Coll = true
	}
	hosts := nTimes(mustSynth(t, spec), 2)
	o := DefaultOptions()
	o.CollNetEnable = true
	for _, tc := range []struct {
		p           Params
		pattern     Pattern
		sameAsChain bool
	}{{Params2_22_3(), PatternCollNetDirect, false}, {params2_21_5(), PatternTree, true}} {
		r := search(t, hosts, tc.p, o)
		d, c := r.Graphs[GraphCollNetDirect], r.Graphs[GraphCollNetChain]
		if d.Pattern != tc.pattern || (d.NChannels == c.NChannels && d.Pattern == c.Pattern && d.BwIntra == c.BwIntra) != tc.sameAsChain {
			t.Errorf("%s: CollNetDirect pattern %d, %d channels at %v/%v; CollNetChain pattern %d, %d at %v/%v",
				tc.p.Release, d.Pattern, d.NChannels, d.BwInter, d.BwIntra, c.Pattern, c.NChannels, c.BwInter, c.BwIntra)
		}
		if d.NChannels == 0 {
			t.Errorf("%s: no CollNetDirect channels", tc.p.Release)
		}
	}
}

// connectCollNet's heads: 2.18.1 takes every CollNet channel's first GPU,
// duplicates included; 2.18.3 counts each GPU once. Eight A100s with one
// 800G CollNet NIC behind GPU 0: the CollNet graph (as many channels as
// the ring) has two channels, both starting at GPU 0: 2 heads in 2.18.1,
// 1 in 2.18.3.
func TestCollNetHeads18(t *testing.T) {
	spec := hgxH100Like("one-800g-nic")
	spec.NICs = spec.NICs[:1]
	spec.NICs[0].SpeedMbps = 800000
	spec.NICs[0].Coll = true
	for i := range spec.GPUs {
		spec.GPUs[i].SM, spec.GPUs[i].NVLinks = 80, 12
	}
	hosts := nTimes(mustSynth(t, spec), 2)
	o := DefaultOptions()
	o.CollNetEnable = true
	for _, tc := range []struct {
		p     Params
		heads int
	}{{params2_18_3(), 1}, {params2_18_1(), 2}} {
		r := search(t, hosts, tc.p, o)
		var first []int
		for _, c := range r.Graphs[GraphCollNetDirect].Intra {
			first = append(first, c[0])
		}
		if r.CollNetDirectHeads != tc.heads || !slices.Equal(first, []int{0, 0}) {
			t.Errorf("%s: %d CollNetDirect heads, channels start at %v; want %d, [0 0]", tc.p.Release, r.CollNetDirectHeads, first, tc.heads)
		}
	}
}

// On two DGX H100 nodes with 200 Gb/s NICs the NVLS graph is found at
// 24 GB/s. 2.18's pass 2 raises its bwIntra (2.19.1 its bwInter, which
// stays at 24), and only 2.18.1's ranking as rings keeps a raise (2.18.3-
// 2.18.6 rank NVLS graphs by channel count). 2.18 searches up to
// MAXCHANNELS NVLS channels across nodes, not the GPU count: the search
// never stops early for having every channel, so the budget runs out
// after 30 GB/s where a cap at 8 would reach 40.
func TestNVLSPass2_18(t *testing.T) {
	spec := PresetDGXH100()
	for i := range spec.NICs {
		spec.NICs[i].SpeedMbps = 200000
	}
	hosts := nTimes(mustSynth(t, spec), 2)
	capped := params2_18_1()
	capped.NVLSUncapped = false
	for _, tc := range []struct {
		p                Params
		bwInter, bwIntra float32
	}{
		{Params2_19_1(), 24, 24},
		{params2_18_6(), 24, 24},
		{params2_18_1(), 24, 30},
		{capped, 24, 40},
	} {
		g := search(t, hosts, tc.p, DefaultOptions()).Graphs[GraphNVLS]
		if g.NChannels != 8 || g.BwInter != tc.bwInter || g.BwIntra != tc.bwIntra {
			t.Errorf("%s (uncapped %v): NVLS %d × %v/%v, want 8 × %v/%v", tc.p.Release, tc.p.NVLSUncapped, g.NChannels, g.BwInter, g.BwIntra, tc.bwInter, tc.bwIntra)
		}
	}
}

// 2.18.1's ncclTopoFollowPath checks the forward path's type only: on two
// DGX H100s the balanced tree's second GPU reaches its NET over PXN
// (through the first GPU's PCIe switch) while the NET comes back over PHB,
// so 2.18.1 keeps typeInter PXN where the reverse check relaxes it to PHB
// (TreeRevPathUnchecked; 2.18.3 retries the tree as a TREE at PIX first).
func TestTreeRevPath18(t *testing.T) {
	h100 := nTimes(mustPreset(t, "dgx-h100"), 2)
	checked := params2_18_1()
	checked.TreeRevPathUnchecked = false
	for _, tc := range []struct {
		p    Params
		name string
		want PathType
	}{
		{params2_18_1(), "2.18.1", PathPXN},
		{checked, "2.18.1 with the reverse check", PathPHB},
	} {
		g := search(t, h100, tc.p, DefaultOptions()).Graphs[GraphTree]
		if g.Pattern != PatternBalancedTree || g.TypeInter != tc.want {
			t.Errorf("%s: tree %s typeInter %s, want BALANCED_TREE %s", tc.name, g.Pattern, g.TypeInter, tc.want)
		}
	}
}

// 2.18's ncclTopoSearchRecNet tries a NET's closest GPUs in index order,
// those whose PCI link has bandwidth left first; 2.19.1 rotates them by
// the channel number (RecNetGpuOrder18). On two DGX A100s with
// NCCL_CROSS_NIC=1 ring channel 2 starts at GPU 3 in 2.18.x and at GPU 2
// with the rotation.
func TestRecNetGpuOrder18(t *testing.T) {
	a100 := nTimes(mustPreset(t, "dgx-a100"), 2)
	o := DefaultOptions()
	o.CrossNic = 1
	rotated := params2_18_6()
	rotated.RecNetGpuOrder18 = false
	for _, tc := range []struct {
		p    Params
		name string
		want []int
	}{
		{params2_18_6(), "2.18.6", []int{3, 7, 6, 5, 4, 1, 2, 0}},
		{params2_18_1(), "2.18.1", []int{3, 7, 6, 5, 4, 1, 2, 0}},
		{rotated, "2.18.6 with the rotation", []int{2, 7, 6, 5, 4, 1, 0, 3}},
	} {
		g := search(t, a100, tc.p, o).Graphs[GraphRing]
		if g.NChannels < 3 || !slices.Equal(g.Intra[2], tc.want) {
			t.Errorf("%s: ring channel 2 %v, want %v", tc.name, g.Intra, tc.want)
		}
	}
}

// 2.18.1's per-NET channel budget (ncclTopoSearchRecNet: a NET whose
// net.maxChannels, the XML's maxconn, is spent is skipped, and each channel
// started at it takes one). testdata/netbudget-a100-1nic.xml is the
// dgx-a100 preset cut to one NIC, an 800 Gb/s port on a Gen5 x32 link
// (room for two 24 GB/s channels), with maxconn="1": two such nodes run
// one ring channel at 2.18.1 and two at 2.18.3, and the same host with
// its plugin's maxconn (131072) runs two at both.
func TestNetChannelBudget18(t *testing.T) {
	data, err := os.ReadFile("testdata/netbudget-a100-1nic.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		maxconn     string
		p           Params
		ring, total int
	}{
		{`maxconn="1"`, params2_18_1(), 1, 2},
		{`maxconn="1"`, params2_18_3(), 2, 4},
		{`maxconn="131072"`, params2_18_1(), 2, 4},
	} {
		src := strings.ReplaceAll(string(data), `maxconn="1"`, tc.maxconn)
		s, err := LoadSystem("netbudget-a100-1nic.xml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		r := search(t, nTimes(s, 2), tc.p, DefaultOptions())
		ring := r.Graphs[GraphRing]
		if ring.NChannels != tc.ring || r.NChannels != tc.total {
			t.Errorf("%s %s: ring %d channels (%d in all), want %d (%d)", tc.p.Release, tc.maxconn, ring.NChannels, r.NChannels, tc.ring, tc.total)
		}
	}
}

// pcieHost4TwoSockets is four PCIe A100s (no NVLink), each behind its own
// Gen4 switch, two per socket, with a 100G NIC per socket.
func pcieHost4TwoSockets(vendor string) NodeSpec {
	s := NodeSpec{Name: "pcie-sm80-4gpu-2socket", CPUArch: "x86_64", CPUVendor: vendor, Sockets: 2}
	if vendor == "Intel" {
		s.CPUModel = "skl"
	}
	for i := 0; i < 4; i++ {
		s.Switches = append(s.Switches, SwitchSpec{NUMA: i / 2, PCIGen: 4, Parent: -1})
		s.GPUs = append(s.GPUs, GPUSpec{Dev: i, SM: 80, PCIGen: 4, PCIWidth: 16, NUMA: i / 2, Switch: i})
	}
	for i := 0; i < 2; i++ {
		s.NICs = append(s.NICs, NICSpec{SpeedMbps: 100000, NUMA: i, Switch: 2 * i, GDR: true, PCIGen: 4})
	}
	return s
}

// From 2.19.1 pass 1 of ncclTopoCompute keeps sameChannels when typeIntra
// is SYS on x86 AMD CPUs; 2.18.x retries without it on every CPU. Across
// two nodes of PCIe GPUs on two AMD sockets the ring crosses the sockets
// (SYS): 2.19.1 (and every later tag) keeps 4 identical channels of
// 4 GB/s, 2.18.6 finds 2 different channels of 12 GB/s. On Intel sockets
// (Skylake, 10 GB/s between them) both take the retry and agree.
func TestSameChannelsAMD(t *testing.T) {
	type ring struct {
		n     int
		bw    float32
		same  bool
		intra PathType
		chans int
	}
	for _, tc := range []struct {
		vendor string
		p      Params
		want   ring
	}{
		{"AMD", Params2_19_1(), ring{4, 4, true, PathSYS, 8}},
		{"AMD", Params2_22_3(), ring{4, 4, true, PathSYS, 8}},
		{"AMD", params2_18_6(), ring{2, 12, false, PathSYS, 4}},
		{"Intel", Params2_19_1(), ring{2, 10, false, PathSYS, 4}},
		{"Intel", params2_18_6(), ring{2, 10, false, PathSYS, 4}},
	} {
		s, err := Synthesize(pcieHost4TwoSockets(tc.vendor))
		if err != nil {
			t.Fatal(err)
		}
		r := search(t, nTimes(s, 2), tc.p, DefaultOptions())
		g := r.Graphs[GraphRing]
		got := ring{g.NChannels, g.BwIntra, g.SameChannels, g.TypeIntra, r.NChannels}
		if got != tc.want {
			t.Errorf("%s %s: ring %+v, want %+v", tc.vendor, tc.p.Release, got, tc.want)
		}
	}
}
