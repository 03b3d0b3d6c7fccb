package topo

import (
	"github.com/gatesim/gatesim/nccl"
	"strings"
	"testing"
)

// mloPartXML is the preset's topology with the <gpu> of the first GPU
// <pci> replaced by one <gpu> per entry of parts (its mlopart attribute;
// "" leaves it out), each a copy with the same dev and links.
func mloPartXML(t *testing.T, ns NodeSpec, bus string, parts ...string) *XMLNode {
	t.Helper()
	x, err := SynthesizeXML(ns)
	if err != nil {
		t.Fatal(err)
	}
	var pci *XMLNode
	var walk func(n *XMLNode)
	walk = func(n *XMLNode) {
		for _, c := range n.Subs {
			if c.Name == "pci" && c.Sub("gpu") != nil && pci == nil {
				pci = c
			}
			walk(c)
		}
	}
	walk(x)
	if pci == nil {
		t.Fatal("no GPU <pci> in the preset")
	}
	if bus != "" {
		pci.SetAttr("busid", bus)
	}
	gpu := pci.Sub("gpu")
	pci.Subs = nil
	for _, part := range parts {
		g := gpu.Clone()
		g.parent = pci
		if part != "" {
			g.SetAttr("mlopart", part)
		}
		pci.Subs = append(pci.Subs, g)
	}
	return x
}

// buildMLOPart builds a DGX B200 whose first GPU is mloPartXML's, with
// release's rules and the options o.
func buildMLOPart(t *testing.T, release, bus string, parts []string, o Options) (*System, error) {
	t.Helper()
	p, ok := chainParams(release)
	if !ok {
		t.Fatalf("no release %s", release)
	}
	p.Release = mustVersion(t, release)
	return buildSystem("topo.xml", mloPartXML(t, PresetDGXB200(), bus, parts...), p, o)
}

func mloLinkBw(from, to *Node, lt LinkType) float32 {
	for _, l := range from.Links {
		if l.Remote == to && l.Type == lt {
			return l.Bw
		}
	}
	return 0
}

// TestMLOPartSplit: from 2.30.7 each <gpu mlopart=n> of a PCI device is a
// device of its own (ncclTopoAddGpuSub): a DEV node with one GPU, joined
// to its sibling DEV by LOC links at MLOPART_LOC_BW, the NVLink bandwidth
// split between the partitions (ncclTopoAddNvLinks); 2.30.4 reads no
// mlopart and builds two <gpu> on one device as ranks sharing one DEV node
// (G-TOPO-DEV-1), as 2.30.7 does with two whole GPUs or one partition
// twice, and takes a lone <gpu mlopart=0> for a whole GPU. Every GPU of
// 2.30.x is under a DEV node. Bad indices and bus ids are NCCL's errors.
// Ref: v2.30.7-1 src/graph/topo.cc ncclTopoAddGpuSub, ncclTopoAddNvLinks,
// ncclTopoCheckMloPartBusId
func TestMLOPartSplit(t *testing.T) {
	nvs := float32(18) * 40.1 // a B200's NVLinks to the NVSwitch, whole
	for _, tc := range []struct {
		name, release, bus string
		parts              []string
		err                string
		gpus               int     // GPU nodes built
		mlo                []int   // MLOPart of the first device's GPU nodes
		nvsBw              float32 // each one's (its device's) NVLink bandwidth to the NVSwitch
		devs               []int64 // the DEV node of each of the first GPU nodes
		ndevs              int     // DEV nodes built
	}{
		{"split", "2.30.7", "", []string{"0", "1"}, "", 9, []int{0, 1}, nvs / 2, []int64{0x90001, 0x90003}, 9},
		{"no split before 2.30.7", "2.30.3", "", []string{"0", "1"}, "", 9, []int{-1, -1}, nvs, []int64{0x90000, 0x90000}, 8},
		{"two whole gpus", "2.30.7", "", []string{"", ""}, "", 9, []int{-1, -1}, nvs, []int64{0x90000, 0x90000}, 8},
		{"partition twice", "2.30.7", "", []string{"1", "1"}, "", 9, []int{1, 1}, nvs, []int64{0x90003, 0x90003}, 8},
		{"lone partition", "2.30.7", "", []string{"0"}, "", 8, []int{0}, nvs, []int64{0x90001}, 8},
		{"attribute ignored", "2.30.3", "", []string{"0"}, "", 8, []int{-1}, nvs, []int64{0x90000}, 8},
		{"whole", "2.30.7", "", []string{"-1"}, "", 8, []int{-1}, nvs, []int64{0x90000}, 8},
		{"index out of range", "2.30.7", "", []string{"2"}, "MLOPart index 2 out of range (max 1)", 0, nil, 0, nil, 0},
		{"index below -1", "2.30.7", "", []string{"-2"}, "<gpu mlopart=-2>: expected -1", 0, nil, 0, nil, 0},
		{"bus id bits", "2.30.7", "0000:90:00.1", []string{""}, "BusId 0x90001 has non-zero bits in MLOPart mask 0x3", 0, nil, 0, nil, 0},
		{"bus id bits before", "2.30.3", "0000:90:00.1", []string{""}, "", 8, []int{-1}, nvs, []int64{0x90001}, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := buildMLOPart(t, tc.release, tc.bus, tc.parts, DefaultOptions())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s.Nodes[GPU]); got != tc.gpus {
				t.Fatalf("%d GPU nodes, want %d", got, tc.gpus)
			}
			if len(s.Nodes[DEV]) != tc.ndevs || s.deviceCount() != tc.ndevs {
				t.Errorf("%d DEV nodes, %d devices: want %d", len(s.Nodes[DEV]), s.deviceCount(), tc.ndevs)
			}
			first := s.Nodes[GPU][:len(tc.mlo)]
			onDev := map[int64]int64{} // GPUs already seen on each DEV
			for i, g := range first {
				if g.MLOPart != tc.mlo[i] {
					t.Errorf("GPU %s: MLOPart %d, want %d", g.Name(), g.MLOPart, tc.mlo[i])
				}
				d := g.DevNode()
				if got := mloLinkBw(d, s.Nodes[NVS][0], LinkNVL); got != tc.nvsBw {
					t.Errorf("GPU %s: NVLink to the NVSwitch %.2f, want %.2f", g.Name(), got, tc.nvsBw)
				}
				if got := mloLinkBw(s.Nodes[NVS][0], d, LinkNVL); got != tc.nvsBw {
					t.Errorf("NVSwitch to GPU %s: %.2f, want %.2f", g.Name(), got, tc.nvsBw)
				}
				// NCCL_TOPO_GPU_LOCAL_ID: the rank's index on the device above bit 40
				dev := tc.devs[i]
				if g.Parent == nil || g.Parent.Type != DEV || g.Parent.LocalID() != dev || g.LocalID() != onDev[dev]<<40|dev || mloLinkBw(g, g.Parent, LinkLOC) != locBw || mloLinkBw(g.Parent, g, LinkLOC) != locBw {
					t.Errorf("GPU %s: parent %v, want DEV/0-%x joined by LOC at %v both ways", g.Name(), g.Parent, dev, locBw)
				}
				onDev[dev]++
			}
			if len(first) == 2 && tc.devs[0] != tc.devs[1] {
				a, b := first[0], first[1]
				if a.MLOPart == -1 || a.DeviceID() != 0x90000 || b.DeviceID() != 0x90000 || a.Dev != b.Dev {
					t.Errorf("partitions dev %d/%d, device %x/%x: want one dev and device 90000", a.Dev, b.Dev, a.DeviceID(), b.DeviceID())
				}
				da, db := a.Parent, b.Parent
				if mloLinkBw(da, db, LinkLOC) != mloPartLocBw || mloLinkBw(db, da, LinkLOC) != mloPartLocBw {
					t.Errorf("LOC links %v/%v between the partitions' DEVs, want %v both ways", mloLinkBw(da, db, LinkLOC), mloLinkBw(db, da, LinkLOC), mloPartLocBw)
				}
			}
		})
	}
}

// TestMLOPartPaths: between the partitions of one GPU the path is
// GPU–DEV–DEV–GPU, LOC at MLOPART_LOC_BW, which P2P takes at any P2P
// level; an MLOPart GPU has no GPU Direct RDMA unless
// NCCL_NET_GDR_MLOPART=1, a whole GPU keeps it; the system print shows
// each partition's DEV node with its GPU and its sibling as LOC links (a
// GPU is printed only as a LOC link's target, so "[MLOPart n]" never is).
// Ref: v2.30.7-1 src/graph/paths.cc ncclTopoSetPaths, ncclTopoCheckGdr;
// src/graph/topo.cc ncclTopoPrintRec
func TestMLOPartPaths(t *testing.T) {
	p, _ := chainParams("2.30.7")
	p.Release = mustVersion(t, "2.30.7")
	s, err := BuildSystem("topo.xml", mloPartXML(t, PresetDGXB200(), "", "0", "1"), p)
	if err != nil {
		t.Fatal(err)
	}
	ps := &pathState{p: p, o: DefaultOptions()}
	if err := ps.computePaths(s); err != nil {
		t.Fatal(err)
	}
	a, b, whole := s.Nodes[GPU][0], s.Nodes[GPU][1], s.Nodes[GPU][2]
	if pa := a.Paths[GPU][b.Index]; pa.Type != PathLOC || pa.Bw != mloPartLocBw || pa.Count() != 3 {
		t.Errorf("path between partitions %s/%v/%d hops, want LOC/2618/3", pa.Type, pa.Bw, pa.Count())
	}
	if ok, _ := ps.checkP2P(s, a, b); !ok {
		t.Error("no P2P between partitions")
	}
	net := s.Nodes[NET][0]
	for _, tc := range []struct {
		gpu  *Node
		opt  bool
		want bool
	}{{a, false, false}, {b, false, false}, {a, true, true}, {whole, false, true}} {
		ps.o.NetGdrMLOPart = tc.opt
		// the NIC's own PCI path decides for the ones that may
		gpuPath := tc.gpu.Paths[NET][net.Index].Type
		ps.o.NetGdrLevel, ps.o.NetGdrLevelSet = max(gpuPath, PathPXB), true
		got, err := ps.checkGDR(s, tc.gpu, net)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("GDR %s (MLOPart %d) NCCL_NET_GDR_MLOPART=%v: %v, want %v", tc.gpu.Name(), tc.gpu.MLOPart, tc.opt, got, tc.want)
		}
	}
	text := strings.Join(s.SystemLines(), "\n")
	for _, want := range []string{"- DEV/0-90001 (10de294100000000)\n", "+ LOC[5000.0] - GPU/0-90001\n", "+ LOC[2618.0] - DEV/0-90003\n",
		"- DEV/0-90003 (10de294100000000)\n", "+ LOC[5000.0] - GPU/0-90003\n", "+ LOC[2618.0] - DEV/0-90001\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("system print lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "MLOPart") {
		t.Errorf("system print names a partition:\n%s", text)
	}
}

// TestMLOPartC2C: the partitions of a C2C-attached GPU reach the CPU
// through one CXB bridge node that holds the C2C bandwidth once; a lone
// partition links to the CPU directly.
// Ref: v2.30.7-1 src/graph/topo.cc ncclTopoAddC2c
func TestMLOPartC2C(t *testing.T) {
	p, _ := chainParams("2.30.7")
	p.Release = mustVersion(t, "2.30.7")
	c2c := float32(10 * 45000 / 1000.0)
	for _, parts := range [][]string{{"0", "1"}, {"0"}} {
		s, err := BuildSystem("topo.xml", mloPartXML(t, PresetGB200(), "", parts...), p)
		if err != nil {
			t.Fatal(err)
		}
		dev := s.Nodes[GPU][0].DevNode()
		cpu := findLocalCPU(dev, nil)
		if len(parts) == 1 {
			if len(s.Nodes[CXB]) != 0 || mloLinkBw(dev, cpu, LinkC2C) != c2c {
				t.Errorf("lone partition: %d CXB, C2C %v: want none and %v to the CPU", len(s.Nodes[CXB]), mloLinkBw(dev, cpu, LinkC2C), c2c)
			}
			continue
		}
		if len(s.Nodes[CXB]) != 1 {
			t.Fatalf("%d CXB nodes, want 1", len(s.Nodes[CXB]))
		}
		x := s.Nodes[CXB][0]
		if x.LocalID() != 0x10000 || mloLinkBw(x, cpu, LinkC2C) != c2c || mloLinkBw(cpu, x, LinkC2C) != c2c {
			t.Errorf("CXB %x: C2C %v/%v with the CPU, want id 10000 and %v", x.LocalID(), mloLinkBw(x, cpu, LinkC2C), mloLinkBw(cpu, x, LinkC2C), c2c)
		}
		for _, g := range s.Nodes[GPU][:2] {
			g := g.DevNode() // the partition's DEV holds its C2C
			if mloLinkBw(g, x, LinkC2C) != c2c || mloLinkBw(x, g, LinkC2C) != c2c || mloLinkBw(g, cpu, LinkC2C) != 0 {
				t.Errorf("%s: C2C %v to the CXB, %v to the CPU: want %v and none", g.Name(), mloLinkBw(g, x, LinkC2C), mloLinkBw(g, cpu, LinkC2C), c2c)
			}
		}
	}
}

func mustVersion(t *testing.T, s string) nccl.Version {
	t.Helper()
	v, err := nccl.ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMLOPartNoSplit: under NCCL_TOPO_SPLIT_MLOPART=0 2.30.7 does not use
// the mlopart attribute for the DEV id, so the partitions of a GPU are
// GPUs of one DEV node (ranks sharing a device, G-TOPO-DEV-1) that keep
// their mlopart (printed, and no GDR: G-TOPO-MLOPART-2); the NVLinks and
// C2C are the first <gpu>'s, counted for one device (no CXB); the index
// bound is not checked, the bus id check still runs. 2.30.3–2.30.4 read
// neither the variable nor the attribute.
// Ref: v2.30.7-1 src/graph/topo.cc ncclTopoAddGpuSub,
// ncclTopoGetGpuDevNode, ncclTopoXmlIsPrimaryGpuForDev, ncclTopoAddNvLinks,
// ncclTopoAddC2c
func TestMLOPartNoSplit(t *testing.T) {
	nvs := float32(18) * 40.1 // a B200's NVLinks to the NVSwitch, whole
	o := DefaultOptions()
	o.NoSplitMLOPart = true
	for _, tc := range []struct {
		name, release, bus string
		parts              []string
		err                string
		mlo                []int // MLOPart of the first device's GPU nodes
		dev                int64 // they are GPUs of one DEV node of this id
	}{
		{"partitions on one dev", "2.30.7", "", []string{"0", "1"}, "", []int{0, 1}, 0x90000},
		{"partitions reversed", "2.30.7", "", []string{"1", "0"}, "", []int{1, 0}, 0x90000},
		{"lone partition", "2.30.7", "", []string{"1"}, "", []int{1}, 0x90000},
		{"index unbounded", "2.30.7", "", []string{"2", "3"}, "", []int{2, 3}, 0x90000},
		{"bus id bits", "2.30.7", "0000:90:00.1", []string{"0", "1"}, "BusId 0x90001 has non-zero bits in MLOPart mask 0x3", nil, 0},
		{"not read before 2.30.7", "2.30.3", "", []string{"0", "1"}, "", []int{-1, -1}, 0x90000},
		{"index not read before 2.30.7", "2.30.3", "", []string{"2"}, "", []int{-1}, 0x90000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := buildMLOPart(t, tc.release, tc.bus, tc.parts, o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(s.Nodes[GPU]), 7+len(tc.parts); got != want || s.deviceCount() != 8 || len(s.Nodes[CXB]) != 0 {
				t.Fatalf("%d GPU nodes, %d devices, %d CXB: want %d, 8, none", got, s.deviceCount(), len(s.Nodes[CXB]), want)
			}
			for i, g := range s.Nodes[GPU][:len(tc.mlo)] {
				if g.MLOPart != tc.mlo[i] {
					t.Errorf("GPU %s: MLOPart %d, want %d", g.Name(), g.MLOPart, tc.mlo[i])
				}
				d := g.DevNode()
				// the device's NVLinks, whole: one DEV at both ends
				if got, back := mloLinkBw(d, s.Nodes[NVS][0], LinkNVL), mloLinkBw(s.Nodes[NVS][0], d, LinkNVL); got != nvs || back != nvs {
					t.Errorf("GPU %s: NVLink %v/%v with the NVSwitch, want %v both ways", g.Name(), got, back, nvs)
				}
				if g.Parent == nil || g.Parent.LocalID() != tc.dev || g.Parent.MLOPart != -1 || g.LocalID() != int64(i)<<40|tc.dev || mloLinkBw(g, g.Parent, LinkLOC) != locBw || mloLinkBw(g.Parent, g, LinkLOC) != locBw {
					t.Errorf("GPU %s: parent %v, want DEV/0-%x (no partition) joined by LOC at %v both ways", g.Name(), g.Parent, tc.dev, locBw)
				}
			}
			if len(s.Nodes[DEV]) != 8 {
				t.Errorf("%d DEV nodes, want 8", len(s.Nodes[DEV]))
			}
		})
	}
}

// TestMLOPartNoSplitPaths: the partitions on one DEV node are two LOC
// hops apart at LOC_BW (GPU–DEV–GPU) instead of one hop at
// MLOPART_LOC_BW; each reaches another GPU over the device's whole
// NVLink bandwidth; they still have no GPU Direct RDMA
// (G-TOPO-MLOPART-2); a GB200's C2C is the device's, with no CXB bridge.
// Searched with the option, the system prints the DEV node with both
// partitions as its LOC links (ncclTopoPrintRec prints a LOC link's GPU
// without its rank or partition).
// Ref: v2.30.7-1 src/graph/topo.cc ncclTopoAddGpuSub, ncclTopoAddC2c,
// ncclTopoPrintRec; src/graph/paths.cc ncclTopoSetPaths, ncclTopoCheckGdr
func TestMLOPartNoSplitPaths(t *testing.T) {
	p, _ := chainParams("2.30.7")
	p.Release = mustVersion(t, "2.30.7")
	o := DefaultOptions()
	o.NoSplitMLOPart = true
	s, err := buildSystem("topo.xml", mloPartXML(t, PresetDGXB200(), "", "0", "1"), p, o)
	if err != nil {
		t.Fatal(err)
	}
	ps := &pathState{p: p, o: o}
	if err := ps.computePaths(s); err != nil {
		t.Fatal(err)
	}
	a, b, other := s.Nodes[GPU][0], s.Nodes[GPU][1], s.Nodes[GPU][2]
	if pa := a.Paths[GPU][b.Index]; pa.Type != PathLOC || pa.Bw != locBw || pa.Count() != 2 {
		t.Errorf("path between partitions %s/%v/%d hops, want LOC/%v/2", pa.Type, pa.Bw, pa.Count(), locBw)
	}
	if pa := a.Paths[GPU][other.Index]; pa.Type != PathNVL || pa.Bw != float32(18)*40.1 {
		t.Errorf("path to another GPU %s/%v, want NVL at the device's whole %v", pa.Type, pa.Bw, float32(18)*40.1)
	}
	if ok, _ := ps.checkP2P(s, a, b); !ok {
		t.Error("no P2P between the partitions")
	}
	net := s.Nodes[NET][0]
	ps.o.NetGdrLevel, ps.o.NetGdrLevelSet = PathSYS, true
	for _, g := range []*Node{a, b} {
		if got, err := ps.checkGDR(s, g, net); err != nil || got {
			t.Errorf("GDR %s: %v %v, want none (a partition, NCCL_NET_GDR_MLOPART unset)", g.Name(), got, err)
		}
	}
	c2c := float32(10 * 45000 / 1000.0)
	gb, err := buildSystem("topo.xml", mloPartXML(t, PresetGB200(), "", "0", "1"), p, o)
	if err != nil {
		t.Fatal(err)
	}
	dev := gb.Nodes[GPU][0].DevNode()
	cpu := findLocalCPU(dev, nil)
	if len(gb.Nodes[CXB]) != 0 || mloLinkBw(dev, cpu, LinkC2C) != c2c || mloLinkBw(cpu, dev, LinkC2C) != c2c {
		t.Errorf("GB200: %d CXB, C2C %v/%v between the DEV and its CPU: want none and %v", len(gb.Nodes[CXB]), mloLinkBw(dev, cpu, LinkC2C), mloLinkBw(cpu, dev, LinkC2C), c2c)
	}
	x := mloPartXML(t, PresetDGXB200(), "", "0", "1")
	for _, tc := range []struct {
		o          Options
		want, lack []string
	}{
		{o, []string{"- DEV/0-90000 (10de2941", "+ LOC[5000.0] - GPU/0-90000\n", "+ LOC[5000.0] - GPU/0-10000090000\n"}, []string{"[MLOPart", "LOC[2618.0]"}},
		{DefaultOptions(), []string{"- DEV/0-90001 (10de2941", "- DEV/0-90003 (10de2941", "+ LOC[5000.0] - GPU/0-90001\n", "+ LOC[2618.0] - DEV/0-90003\n"}, []string{"[MLOPart", "DEV/0-90000"}},
	} {
		sys, err := BuildSystem("topo.xml", x, p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Search([]*System{sys}, p, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(res.Nodes[0].System.SystemLines(), "\n")
		for _, want := range tc.want {
			if !strings.Contains(text, want) {
				t.Errorf("NoSplitMLOPart %v: system print lacks %q:\n%s", tc.o.NoSplitMLOPart, want, text)
			}
		}
		for _, bad := range tc.lack {
			if strings.Contains(text, bad) {
				t.Errorf("NoSplitMLOPart %v: system print has %q:\n%s", tc.o.NoSplitMLOPart, bad, text)
			}
		}
	}
}
