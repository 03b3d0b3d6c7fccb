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

func mloLinkBw(from, to *Node, lt LinkType) float32 {
	for _, l := range from.Links {
		if l.Remote == to && l.Type == lt {
			return l.Bw
		}
	}
	return 0
}

// TestMLOPartSplit: from 2.30.7 each <gpu mlopart=n> of a PCI device is a
// device of its own (ncclTopoAddGpuSub), joined to its sibling by LOC links
// at MLOPART_LOC_BW, the NVLink bandwidth split between the partitions
// (ncclTopoAddNvLinks); 2.30.4 reads no mlopart and builds two <gpu> on
// one device as ranks sharing one DEV node (G-TOPO-DEV-1), as 2.30.7 does
// with two whole GPUs or one partition twice, and takes a lone <gpu
// mlopart=0> for a whole GPU. Bad indices and bus ids are NCCL's errors.
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
		shared             int64   // > 0: the first GPU nodes are ranks of one DEV node of this id
	}{
		{"split", "2.30.7", "", []string{"0", "1"}, "", 9, []int{0, 1}, nvs / 2, 0},
		{"no split before 2.30.7", "2.30.3", "", []string{"0", "1"}, "", 9, []int{-1, -1}, nvs, 0x90000},
		{"two whole gpus", "2.30.7", "", []string{"", ""}, "", 9, []int{-1, -1}, nvs, 0x90000},
		{"partition twice", "2.30.7", "", []string{"1", "1"}, "", 9, []int{1, 1}, nvs, 0x90003},
		{"lone partition", "2.30.7", "", []string{"0"}, "", 8, []int{0}, nvs, 0},
		{"attribute ignored", "2.30.3", "", []string{"0"}, "", 8, []int{-1}, nvs, 0},
		{"whole", "2.30.7", "", []string{"-1"}, "", 8, []int{-1}, nvs, 0},
		{"index out of range", "2.30.7", "", []string{"2"}, "MLOPart index 2 out of range (max 1)", 0, nil, 0, 0},
		{"index below -1", "2.30.7", "", []string{"-2"}, "<gpu mlopart=-2>: expected -1", 0, nil, 0, 0},
		{"bus id bits", "2.30.7", "0000:90:00.1", []string{""}, "BusId 0x90001 has non-zero bits in MLOPart mask 0x3", 0, nil, 0, 0},
		{"bus id bits before", "2.30.3", "0000:90:00.1", []string{""}, "", 8, []int{-1}, nvs, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := chainParams(tc.release)
			if !ok {
				t.Fatalf("no release %s", tc.release)
			}
			p.Release = mustVersion(t, tc.release)
			s, err := BuildSystem("topo.xml", mloPartXML(t, PresetDGXB200(), tc.bus, tc.parts...), p)
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
			first := s.Nodes[GPU][:len(tc.mlo)]
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
				if tc.shared == 0 {
					continue
				}
				// NCCL_TOPO_GPU_LOCAL_ID: the rank's index on the device above bit 40
				if g.Parent == nil || g.Parent.LocalID() != tc.shared || g.LocalID() != int64(i)<<40|tc.shared || mloLinkBw(g, g.Parent, LinkLOC) != locBw || mloLinkBw(g.Parent, g, LinkLOC) != locBw {
					t.Errorf("GPU %s: parent %v, want DEV/0-%x joined by LOC at %v both ways", g.Name(), g.Parent, tc.shared, locBw)
				}
			}
			if tc.shared != 0 && (len(s.Nodes[DEV]) != 1 || s.deviceCount() != 8) {
				t.Errorf("%d DEV nodes, %d devices: want 1 and 8", len(s.Nodes[DEV]), s.deviceCount())
			}
			if len(first) == 2 && tc.shared == 0 {
				a, b := first[0], first[1]
				if a.LocalID() != 0x90001 || b.LocalID() != 0x90003 {
					t.Errorf("partition ids %x, %x: want 90001 and 90003 (NCCL_TOPO_MLOPART_BUSID)", a.LocalID(), b.LocalID())
				}
				if mloLinkBw(a, b, LinkLOC) != mloPartLocBw || mloLinkBw(b, a, LinkLOC) != mloPartLocBw {
					t.Errorf("LOC links %v/%v between the partitions, want %v both ways", mloLinkBw(a, b, LinkLOC), mloLinkBw(b, a, LinkLOC), mloPartLocBw)
				}
				if a.Dev != b.Dev || a.DeviceID() != 0x90000 {
					t.Errorf("partitions dev %d/%d, device %x: want one dev and device 90000", a.Dev, b.Dev, a.DeviceID())
				}
			}
		})
	}
}

// TestMLOPartPaths: between the partitions of one GPU the path is one LOC
// hop at MLOPART_LOC_BW, which P2P takes at any P2P level; an MLOPart GPU
// has no GPU Direct RDMA unless NCCL_NET_GDR_MLOPART=1, a whole GPU keeps
// it; the system print marks partitions "[MLOPart n]".
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
	if pa := a.Paths[GPU][b.Index]; pa.Type != PathLOC || pa.Bw != mloPartLocBw || pa.Count() != 1 {
		t.Errorf("path between partitions %s/%v/%d hops, want LOC/2618/1", pa.Type, pa.Bw, pa.Count())
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
	for _, want := range []string{"GPU/0-90001 (0) [MLOPart 0]", "GPU/0-90003 (1) [MLOPart 1]", "+ LOC[2618.0] - GPU/0-90003"} {
		if !strings.Contains(text, want) {
			t.Errorf("system print lacks %q:\n%s", want, text)
		}
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
		cpu := findLocalCPU(s.Nodes[GPU][0], nil)
		if len(parts) == 1 {
			if len(s.Nodes[CXB]) != 0 || mloLinkBw(s.Nodes[GPU][0], cpu, LinkC2C) != c2c {
				t.Errorf("lone partition: %d CXB, C2C %v: want none and %v to the CPU", len(s.Nodes[CXB]), mloLinkBw(s.Nodes[GPU][0], cpu, LinkC2C), c2c)
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
