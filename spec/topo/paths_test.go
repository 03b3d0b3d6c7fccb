package topo

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// pathsOf builds spec for release p and computes its paths as the first
// ncclTopoComputePaths of init does (before trimming).
func pathsOf(t *testing.T, spec NodeSpec, p Params, o Options) *System {
	t.Helper()
	s0 := mustSynth(t, spec)
	s, err := s0.ForRelease(p)
	if err != nil {
		t.Fatal(err)
	}
	ps := &pathState{p: p, o: o}
	if err := ps.computePaths(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// pathSummary is "hops/bw/type" as printNodePaths shows a path.
func pathSummary(s *System, from NodeType, i int, to NodeType, j int) string {
	p := &s.Nodes[from][i].Paths[to][j]
	return fmt.Sprintf("%d/%.1f/%s", p.Count(), float64(p.Bw), p.Type)
}

func TestPaths(t *testing.T) {
	def := DefaultOptions()
	with := func(f func(*Options)) Options {
		o := DefaultOptions()
		f(&o)
		return o
	}
	ring4 := func() NodeSpec {
		// Four A100s with NVLinks 0-1, 1-2, 2-3, 3-0 only, behind one switch.
		s := NodeSpec{Name: "ring4", CPUArch: "x86_64", CPUVendor: "AMD", Sockets: 1,
			Switches: []SwitchSpec{{NUMA: 0, PCIGen: 4, Parent: -1}}}
		for d := 0; d < 4; d++ {
			s.GPUs = append(s.GPUs, GPUSpec{Dev: d, SM: 80, PCIGen: 4, PCIWidth: 16, Switch: 0, Peers: map[int]int{(d + 1) % 4: 4}})
		}
		return s
	}
	pcie2 := NodeSpec{Name: "pcie2", CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "skl", Sockets: 1,
		Switches: []SwitchSpec{{NUMA: 0, PCIGen: 4, Parent: -1}},
		GPUs:     []GPUSpec{{Dev: 0, SM: 89, PCIGen: 4, PCIWidth: 16, Switch: 0}, {Dev: 1, SM: 89, PCIGen: 4, PCIWidth: 16, Switch: 0}}}
	noNVMLP2P := with(func(o *Options) { o.P2PNotSupported = true })
	h200 := PresetHGXH200()
	tests := []struct {
		name     string
		spec     NodeSpec
		p        Params
		o        Options
		from     NodeType
		i        int
		to       NodeType
		j        int
		want     string
		describe string
	}{
		{"NVSwitch GPU pair", h200, Params2_28_9(), def, GPU, 0, GPU, 1, "2/370.8/NVL", "through the NVS node, not NVB"},
		{"GPU to own NIC", h200, Params2_28_9(), def, GPU, 0, NET, 0, "3/48.0/PIX", "GPU-switch-NIC-NET, one switch"},
		{"GPU to CPU", h200, Params2_28_9(), def, GPU, 0, CPU, 0, "2/48.0/PHB", ""},
		{"GPU to CPU across sockets", h200, Params2_28_9(), def, GPU, 0, CPU, 1, "3/22.0/SYS", "SPR inter-socket 22"},
		{"PXN to a neighbour's NIC", h200, Params2_28_9(), def, GPU, 0, NET, 1, "5/48.0/PXN", "own path PHB > PXN: relay through GPU1"},
		{"PXN across sockets", h200, Params2_28_9(), def, GPU, 0, NET, 5, "5/48.0/PXN", ""},
		{"no PXN", h200, Params2_28_9(), with(func(o *Options) { o.PXNDisable = true }), GPU, 0, NET, 1, "5/48.0/PHB", ""},
		{"no PXN across sockets", h200, Params2_28_9(), with(func(o *Options) { o.PXNDisable = true }), GPU, 0, NET, 5, "6/22.0/SYS", ""},
		{"2.22.3 PXN when own path worse than PXB", h200, Params2_22_3(), def, GPU, 0, NET, 1, "5/48.0/PXN", ""},
		{"NIC to GPU never PXN", h200, Params2_28_9(), def, NET, 1, GPU, 0, "5/48.0/PHB", "PXN is GPU→NIC only"},
		{"P2P disabled", h200, Params2_28_9(), with(func(o *Options) { o.P2PDisable = true }), GPU, 0, GPU, 1, "4/48.0/PHB", "through the CPU of the destination"},
		{"P2P disabled across sockets", h200, Params2_28_9(), with(func(o *Options) { o.P2PDisable = true }), GPU, 0, GPU, 4, "5/22.0/NET", "SHM refused: each GPU's NIC (48) beats the socket link (22)"},
		{"P2P level LOC", h200, Params2_28_9(), with(func(o *Options) { o.P2PLevelSet, o.P2PLevel = true, PathLOC }), GPU, 0, GPU, 1, "4/48.0/PHB", ""},
		{"GDR level LOC", h200, Params2_28_9(), with(func(o *Options) { o.NetGdrLevelSet, o.NetGdrLevel = true, PathLOC }), GPU, 0, NET, 0, "5/48.0/PHB", "no GDR: through the CPU"},
		{"GDR level LOC, NIC side", h200, Params2_28_9(), with(func(o *Options) { o.NetGdrLevelSet, o.NetGdrLevel = true, PathLOC }), NET, 0, GPU, 0, "5/48.0/PHB", ""},
		{"PCIe pair under one switch", pcie2, Params2_22_3(), def, GPU, 0, GPU, 1, "2/24.0/PIX", "P2P: PIX is within Intel's PXB level"},
		{"NVML P2P not supported", pcie2, Params2_22_3(), noNVMLP2P, GPU, 0, GPU, 1, "4/24.0/PHB", "GeForce: through the CPU although the level allows PIX"},
		{"2.18 keeps P2P NVML reports disabled", pcie2, params2_18_6(), noNVMLP2P, GPU, 0, GPU, 1, "2/24.0/PIX", "v2.18.6-1 ncclTopoCheckP2p: an INFO, P2P stays"},
		{"NVML P2P not supported keeps NVLink", ring4(), Params2_28_9(), noNVMLP2P, GPU, 0, GPU, 1, "1/80.0/NVL", "NVLink pairs are not rerouted (NCCL fails init there)"},
		{"V100 NV2 pair", PresetV100x4(), Params2_28_9(), def, GPU, 0, GPU, 1, "1/40.0/NVL", "2 links × 20 GB/s"},
		{"NVB through a peer", ring4(), Params2_28_9(), def, GPU, 0, GPU, 2, "2/80.0/NVB", "GPU0-GPU1-GPU2"},
		{"no NVB", ring4(), Params2_28_9(), with(func(o *Options) { o.NVBDisable = true }), GPU, 0, GPU, 2, "2/24.0/PIX", "PCIe switch instead"},
		{"GB200 GPU to NIC is P2C", PresetGB200(), Params2_28_9(), def, GPU, 0, NET, 0, "3/48.0/P2C", "C2C to Grace, then PCIe"},
		{"GB200 in 2.22.3 is PHB", PresetGB200(), Params2_22_3(), def, GPU, 0, NET, 0, "3/48.0/PHB", "no C2C path types"},
		{"GB200 GPU to Grace", PresetGB200(), Params2_28_9(), def, GPU, 0, CPU, 0, "1/450.0/C2C", ""},
		{"GB200 GPUs of one Grace", PresetGB200(), Params2_28_9(), def, GPU, 0, GPU, 1, "2/721.8/NVL", "NVSwitch beats C2C"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := pathsOf(t, tc.spec, tc.p, tc.o)
			if got := pathSummary(s, tc.from, tc.i, tc.to, tc.j); got != tc.want {
				t.Errorf("%s %d -> %s %d: %s, want %s (%s)", tc.from, tc.i, tc.to, tc.j, got, tc.want, tc.describe)
			}
		})
	}
}

// Each NET's local GPU (ncclTopoGetLocalGpu): on HGX boards the GPU behind
// the same switch.
func TestLocalGPU(t *testing.T) {
	s := pathsOf(t, PresetHGXH200(), Params2_28_9(), DefaultOptions())
	for i, n := range s.Nodes[NET] {
		if n.LocalGPU != i {
			t.Errorf("NET %d local GPU %d, want %d", i, n.LocalGPU, i)
		}
	}
	// ncclTopoGetLocalNet mirrors the dev bits when the NIC count is a power of two.
	ps := &pathState{p: Params2_28_9(), o: DefaultOptions()}
	for g, want := range map[int]int{0: 0, 3: 3} {
		n, err := ps.localNet(s, s.Nodes[GPU][g], 0)
		if err != nil {
			t.Fatal(err)
		}
		if n.Index != want {
			t.Errorf("GPU %d channel 0 NET %d, want %d", g, n.Index, want)
		}
	}
}

// Trimming: GPUs that can use neither P2P nor SHM end up in their own NCCL
// node (ncclTopoTrimSystem); the network is faster than a slow inter-socket
// link (ncclTopoCheckNet) so P2P and SHM are refused.
func TestTrimDomains(t *testing.T) {
	h200 := mustPreset(t, "hgx-h200")
	pcie := NodeSpec{Name: "pcie2", CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "skl", Sockets: 2,
		Switches: []SwitchSpec{{NUMA: 0, PCIGen: 4, Parent: -1}, {NUMA: 1, PCIGen: 4, Parent: -1}},
		GPUs: []GPUSpec{{Dev: 0, SM: 80, PCIGen: 4, PCIWidth: 16, NUMA: 0, Switch: 0},
			{Dev: 1, SM: 80, PCIGen: 4, PCIWidth: 16, NUMA: 1, Switch: 1}},
		NICs: []NICSpec{{SpeedMbps: 200000, NUMA: 0, Switch: 0, GDR: true, PCIGen: 4}, {SpeedMbps: 200000, NUMA: 1, Switch: 1, GDR: true, PCIGen: 4}}}
	tests := []struct {
		name   string
		s      *System
		mod    func(*Options)
		nNodes int
	}{
		{"HGX", h200, func(o *Options) {}, 1},
		{"HGX no SHM", h200, func(o *Options) { o.SHMDisable = true }, 1},
		{"HGX no P2P: the sockets split", h200, func(o *Options) { o.P2PDisable = true }, 2},
		{"HGX no P2P no SHM", h200, func(o *Options) { o.P2PDisable, o.SHMDisable = true, true }, 8},
		{"PCIe across sockets with local NICs", mustSynth(t, pcie), func(o *Options) {}, 2},
		{"... unless NCCL_NET_DISABLE_INTRA", mustSynth(t, pcie), func(o *Options) { o.NetDisableIntra = true }, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.NvlsEnable = 0
			tc.mod(&o)
			r, err := Search([]*System{tc.s}, Params2_28_9(), o)
			if err != nil {
				t.Fatal(err)
			}
			if r.NNodes != tc.nNodes {
				t.Errorf("nNodes %d, want %d", r.NNodes, tc.nNodes)
			}
		})
	}
}

// A single-host communicator keeps its NETs in 2.28.9 (system->inter = 0)
// and loses them before.
func TestTrimNETs(t *testing.T) {
	s := mustPreset(t, "hgx-h200")
	for _, tc := range []struct {
		p     Params
		nets  int
		inter bool
	}{{Params2_22_3(), 0, false}, {Params2_28_3(), 0, false}, {Params2_28_9(), 8, false}} {
		r, err := Search([]*System{s}, tc.p, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		sys := r.Nodes[0].System
		if len(sys.Nodes[NET]) != tc.nets || sys.Inter != tc.inter {
			t.Errorf("%s: %d NETs inter %v, want %d, %v", tc.p.Release, len(sys.Nodes[NET]), sys.Inter, tc.nets, tc.inter)
		}
	}
}

func TestSystemLines(t *testing.T) {
	r, err := Search([]*System{mustPreset(t, "hgx-h200"), mustPreset(t, "hgx-h200")}, Params2_28_9(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	lines := r.Nodes[0].System.SystemLines()
	// The layout of NCCL's printout, as in the H20 log of NVIDIA/nccl#1189
	// and the H200 log of NVIDIA/nccl-tests#256.
	want := []string{
		"=== System : maxBw 48.0 totalBw 370.8 ===",
		"CPU/0-0 (1/1/3)",
		"+ PCI[48.0] - PCI/0-10000 (1000c0301000100b)",
		"              + PCI[48.0] - GPU/0-90000 (0)",
		"                            + NVL[370.8] - NVS/0-0",
		"              + PCI[48.0] - NIC/0-110000",
		"                            + NET[50.0] - NET/0-0 (0/a088c20300000000/1/50.000000)",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d\n got %q\nwant %q", i, lines[i], w)
		}
	}
}

// TestSystemLinesLoneGPU: one GPU without a NET (a one-rank communicator),
// printed as 2.19.x-2.20.x print it (raw ids, "%f" path bandwidths, totalBw
// 0: the [GRAPH] lines of the public 2.19.3 one-rank case in golden/testdata/public) and as 2.21.5+
// do; the search finds the same 16 channels either way.
func TestSystemLinesLoneGPU(t *testing.T) {
	const x = `<system version="1">
  <cpu numaid="1" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85">
    <pci busid="0000:af:00.0" class="0x020000" vendor="0x15b3" device="0x1019" link_speed="8.0 GT/s PCIe" link_width="16">
      <nic><net name="roce0" dev="0" speed="100000" port="1" guid="0x1" maxconn="262144" gdr="0"/></nic>
    </pci>
    <pci busid="0000:d8:00.0" class="0x030000" vendor="0x10de" device="0x1fb1" link_speed="8.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="75" rank="0" gdr="1"/>
    </pci>
  </cpu>
</system>`
	for _, tc := range []struct {
		name string
		p    Params
		want []string
	}{
		{"2.19.4", Params2_19_4(), []string{
			"=== System : maxBw 5000.0 totalBw 0.0 ===",
			"CPU/1 (1/1/2)",
			"+ PCI[12.0] - NIC/AF000",
			"+ PCI[12.0] - GPU/D8000 (0)",
			"==========================================",
			"GPU/D8000 :GPU/D8000 (0/5000.000000/LOC) CPU/1 (1/12.000000/PHB) ",
		}},
		{"2.22.3", Params2_22_3(), []string{
			"=== System : maxBw 5000.0 totalBw 5000.0 ===",
			"CPU/0-1 (1/1/2)",
			"+ PCI[12.0] - NIC/0-af000",
			"+ PCI[12.0] - GPU/0-d8000 (0)",
			"==========================================",
			"GPU/D8000 :GPU/0-d8000 (0/5000.0/LOC) CPU/0-1 (1/12.0/PHB) ",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys, err := LoadSystem("t.xml", []byte(x))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Search([]*System{sys}, tc.p, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			lines := r.Nodes[0].System.SystemLines()
			if len(lines) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tc.want), strings.Join(lines, "\n"))
			}
			for i, w := range tc.want {
				if lines[i] != w {
					t.Errorf("line %d\n got %q\nwant %q", i, lines[i], w)
				}
			}
			if got := r.Nodes[0].Log(); len(got) == 0 || !strings.HasPrefix(got[0], "Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, type LOC/PIX") {
				t.Errorf("ring graph %q", got)
			}
		})
	}
}

// betterPath's two rules (G-TOPO-PATHS-1) on one node's current path
// "2 hops, 24 GB/s, PIX": up to 2.30.4 only a strictly faster path over no
// more hops replaces it; from 2.30.7 a better type replaces it whatever its
// bandwidth and length, a same-type one by bandwidth, then by fewer hops.
// Ref: v2.28.9-1, v2.30.4-1, v2.30.7-1 src/graph/paths.cc ncclTopoSetPaths.
func TestBetterPath(t *testing.T) {
	cur := Path{Links: make([]*Link, 2), Bw: 24, Type: PathPIX}
	for _, tc := range []struct {
		name         string
		t            PathType
		bw           float32
		hops         int
		old, type1st bool
	}{
		{"better type, slower", PathNVB, 20, 2, false, true},
		{"better type, slower, longer", PathNVL, 20, 5, false, true},
		{"worse type, faster", PathPHB, 48, 2, true, false},
		{"worse type, faster, fewer hops", PathPHB, 48, 1, true, false},
		{"same type, faster, longer", PathPIX, 48, 3, false, true},
		{"same type, faster, fewer hops", PathPIX, 48, 1, true, true},
		{"same type and bw, fewer hops", PathPIX, 24, 1, false, true},
		{"same type and bw, same hops", PathPIX, 24, 2, false, false},
		{"same type, slower, fewer hops", PathPIX, 12, 1, false, false},
	} {
		for _, typeFirst := range []bool{false, true} {
			ps := &pathState{p: Params{PathTypeFirst: typeFirst}}
			want := tc.old
			if typeFirst {
				want = tc.type1st
			}
			if got := ps.betterPath(&cur, tc.t, tc.bw, tc.hops); got != want {
				t.Errorf("%s (PathTypeFirst %v): %v, want %v", tc.name, typeFirst, got, want)
			}
		}
	}
	// A node not reached yet (PATH_DIS, no bandwidth) takes any path.
	for _, typeFirst := range []bool{false, true} {
		ps := &pathState{p: Params{PathTypeFirst: typeFirst}}
		if !ps.betterPath(&Path{Type: PathDIS}, PathSYS, 1, 7) {
			t.Errorf("PathTypeFirst %v: an unset path is not replaced", typeFirst)
		}
	}
}

// TestPathTypeFirst: four V100s in an NVLink ring of one link each (20 GB/s)
// under one PCIe 4.0 switch (24 GB/s). Between opposite GPUs the switch
// (PIX, 24) and the peer GPU (NVB, 20) tie on hops (4: each GPU's hop to
// its DEV node, G-TOPO-DEV-1, then two); up to 2.30.4 the faster PIX path
// stays, from 2.30.7 the better NVB type wins.
// No preset has such a tie, so none of their paths changes at 2.30.7.
// Ref: v2.30.4-1, v2.30.7-1 src/graph/paths.cc ncclTopoSetPaths.
func TestPathTypeFirst(t *testing.T) {
	ring := NodeSpec{Name: "ring4-v100", CPUArch: "x86_64", CPUVendor: "AMD", Sockets: 1,
		Switches: []SwitchSpec{{NUMA: 0, PCIGen: 4, Parent: -1}}}
	for d := 0; d < 4; d++ {
		ring.GPUs = append(ring.GPUs, GPUSpec{Dev: d, SM: 70, PCIGen: 4, PCIWidth: 16, Switch: 0, Peers: map[int]int{(d + 1) % 4: 1}})
	}
	p2304, _ := chainParams("2.30.3") // 2.30.4 changes nothing in the topology stage
	p2304.Release = mustVersion(t, "2.30.4")
	p2307, _ := chainParams("2.30.7")
	p2307.Release = mustVersion(t, "2.30.7")
	noNVB := DefaultOptions()
	noNVB.NVBDisable = true
	for _, tc := range []struct {
		name string
		p    Params
		o    Options
		want string
	}{
		{"2.30.4 keeps the faster PCIe path", p2304, DefaultOptions(), "4/24.0/PIX"},
		{"2.30.7 takes the better type", p2307, DefaultOptions(), "4/20.0/NVB"},
		{"2.30.7 with NCCL_NVB_DISABLE=1", p2307, noNVB, "4/24.0/PIX"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := pathsOf(t, ring, tc.p, tc.o)
			for _, g := range [][2]int{{0, 2}, {2, 0}, {1, 3}, {3, 1}} {
				if got := pathSummary(s, GPU, g[0], GPU, g[1]); got != tc.want {
					t.Errorf("GPU%d -> GPU%d: %s, want %s", g[0], g[1], got, tc.want)
				}
			}
			if got := pathSummary(s, GPU, 0, GPU, 1); got != "3/20.0/NVL" {
				t.Errorf("GPU0 -> GPU1: %s, want the NVLink 3/20.0/NVL (GPU-DEV-DEV-GPU)", got)
			}
		})
	}
	// The presets: every path the same under both rules at 2.30.7.
	before := p2307
	before.PathTypeFirst = false
	for _, name := range PresetNames() {
		a := pathsOf(t, Presets()[name], p2307, DefaultOptions())
		b := pathsOf(t, Presets()[name], before, DefaultOptions())
		for ft := range a.Nodes {
			for i, n := range a.Nodes[ft] {
				for tt := range n.Paths {
					for j := range n.Paths[tt] {
						x := pathSummary(a, NodeType(ft), i, NodeType(tt), j)
						if y := pathSummary(b, NodeType(ft), i, NodeType(tt), j); x != y {
							t.Errorf("%s: %s %d -> %s %d is %s at 2.30.7, %s by the older rule", name, NodeType(ft), i, NodeType(tt), j, x, y)
						}
					}
				}
			}
		}
	}
}

// TestLocalCPUByBw: from 2.30.7 ncclGetLocalCpu takes the CPU of the best
// path (ncclTopoGetLocal: bandwidth, then type), fewest hops among those;
// before, the CPU with the fewest hops. On a GB200 tray the two agree (C2C
// at 450 GB/s). With a C2C link of 1 GB/s, 2.30.7's BFS (PathTypeFirst)
// still reaches the GPU's own Grace over C2C (the better type), at 1 GB/s,
// while the other Grace is 6 GB/s away through PCIe and the link between
// the CPUs: that one becomes the local CPU, so the GPU→NIC paths through
// the own Grace get no P2C shortcut and stay PHB (P2C with the hop rule).
func TestLocalCPUByBw(t *testing.T) {
	p := Params2_28_9()
	for _, apply := range []func(*Params){Apply2_29_2, Apply2_29_7, Apply2_30_3, Apply2_30_7} {
		apply(&p)
	}
	slow := PresetGB200()
	slow.GPUs = slices.Clone(slow.GPUs)
	for i := range slow.GPUs {
		slow.GPUs[i].C2C, slow.GPUs[i].C2CBw = 1, 1000
	}
	for _, tc := range []struct {
		name   string
		spec   NodeSpec
		byBw   bool
		cpu    int      // GPU 0's local CPU
		toNet0 PathType // GPU 0 → NET 0
	}{
		{"gb200", PresetGB200(), true, 0, PathP2C},
		{"gb200", PresetGB200(), false, 0, PathP2C},
		{"gb200 C2C 1 GB/s", slow, true, 1, PathPHB},
		{"gb200 C2C 1 GB/s", slow, false, 0, PathP2C},
	} {
		q := p
		q.LocalCPUByBw = tc.byBw
		r := search(t, nTimes(mustSynth(t, tc.spec), 2), q, DefaultOptions())
		sys := r.Nodes[0].System
		g0 := sys.Nodes[GPU][0]
		ps := &pathState{p: q, o: DefaultOptions()}
		cpu, err := ps.localCPU(sys, g0)
		if err != nil {
			t.Fatal(err)
		}
		if cpu.Index != tc.cpu {
			t.Errorf("%s LocalCPUByBw=%v: GPU 0's local CPU %d, want %d", tc.name, tc.byBw, cpu.Index, tc.cpu)
		}
		if got := g0.Paths[NET][0].Type; got != tc.toNet0 {
			t.Errorf("%s LocalCPUByBw=%v: GPU 0 → NET 0 %s, want %s", tc.name, tc.byBw, got, tc.toNet0)
		}
	}
}
