package spec

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// after2_18 is the release after 2.18.6 in the chain (the one its backward
// delta turns into 2.18.6).
func after2_18(t *testing.T) Version {
	t.Helper()
	i := slices.Index(Releases, V2_18_6)
	if i < 0 || i+1 >= len(Releases) {
		t.Fatal("2.18.6 is not followed by a modelled release")
	}
	return Releases[i+1]
}

// TestPlugins2_18: 2.18.6 accepts a v4-only net plugin that the release
// after it rejects, and never loads a tuner.
func TestPlugins2_18(t *testing.T) {
	next := after2_18(t)
	net := Library{Path: "/opt/old/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{4}, Net: &NetBackend{Name: "Old", Devices: 1}}
	tuner := Library{Path: "/opt/t/libnccl-tuner-t.so", TunerSymbols: []int{1, 2, 3, 4, 5}, Tuner: &tuning.TunerBehaviour{Name: "t"}}
	for _, tc := range []struct {
		v         Version
		netABI    int
		tunerRule bool
	}{{V2_18_6, 4, false}, {V2_18_1, 4, false}, {next, 0, true}} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i := range sys.Nodes {
			sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, net, tuner)
		}
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_TUNER_PLUGIN": tuner.Path})
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if c.NetPlugin != nil {
			got = c.NetPlugin.NetABI
		}
		if got != tc.netABI {
			t.Errorf("%s: net plugin ABI %d, want %d", tc.v, got, tc.netABI)
		}
		tunerSeen := false
		for _, vd := range c.Trace {
			tunerSeen = tunerSeen || strings.HasPrefix(string(vd.Rule), "G-TUNER-")
		}
		if tunerSeen != tc.tunerRule || (c.TunerABI != 0) != tc.tunerRule {
			t.Errorf("%s: tuner rules ran %v, tuner ABI %d; want tuner %v", tc.v, tunerSeen, c.TunerABI, tc.tunerRule)
		}
	}
}

// TestNVLSAllGather2_18: on one NVLS-capable H100 node NVLS is a legal
// AllGather cell from 2.19.1 and never in 2.18.x; AllReduce keeps NVLS in
// both.
func TestNVLSAllGather2_18(t *testing.T) {
	next := after2_18(t)
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	legal := func(v Version, f Func) []string {
		c, err := Init(MustLoad(v), sys, Env{})
		if err != nil || c.Err != nil {
			t.Fatal(err, c.Err)
		}
		op, _ := OpFromBytes(f, 64<<20, Float32, Sum, 0)
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ap := range d.Candidates {
			out = append(out, ap.String())
		}
		return out
	}
	hasNVLS := func(cells []string) bool {
		return slices.ContainsFunc(cells, func(s string) bool { return strings.HasPrefix(s, "NVLS/") })
	}
	for _, v := range []Version{V2_18_1, V2_18_6} {
		if ag := legal(v, AllGather); hasNVLS(ag) || len(ag) == 0 {
			t.Errorf("%s AllGather: legal %v, want Ring cells only", v, ag)
		}
		if ar := legal(v, AllReduce); !hasNVLS(ar) {
			t.Errorf("%s AllReduce: legal %v, want NVLS among them", v, ar)
		}
	}
	if ag := legal(next, AllGather); !hasNVLS(ag) {
		t.Errorf("%s AllGather: legal %v, want NVLS among them", next, ag)
	}
}

// TestCollNetSupport2_18_1: two SHARP nodes where a head on the second
// node refuses float32 sums. From 2.18.3 the matrix agreed at init says
// no, so CollNet is not a candidate; 2.18.1 asks rank 0's own plugin,
// which says yes.
func TestCollNetSupport2_18_1(t *testing.T) {
	for _, tc := range []struct {
		v       Version
		collNet bool
	}{{V2_18_1, true}, {V2_18_3, false}, {V2_18_6, false}} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true})
		if err != nil {
			t.Fatal(err)
		}
		withCollNet(sys, func(c *CollNetBackend) { c.RankReduceSupport = map[int]ReduceSet{8: {"sum": {"float16"}}} })
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_COLLNET_ENABLE": "1"})
		if err != nil || c.Err != nil {
			t.Fatal(err, c.Err)
		}
		if !c.CollNetSupport {
			t.Fatalf("%s: CollNet not set up on two SHARP nodes", tc.v)
		}
		op, _ := OpFromBytes(AllReduce, 64<<20, Float32, Sum, 0)
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(d.Candidates, func(ap AlgoProto) bool { return ap.Algo.IsCollNet() })
		if got != tc.collNet {
			t.Errorf("%s: CollNet among the candidates %v, want %v (%v)", tc.v, got, tc.collNet, d.Candidates)
		}
	}
}

// TestNVLSGraph2_18_1: on two DGX H100 nodes with 200 Gb/s NICs, 2.18.1
// keeps its pass-2 raise of the NVLS graph's bwIntra (30 GB/s, topo's
// TestNVLSPass2_18), and 2.18's NVLSTree bandwidth comes from the graph
// (8 channels × bwIntra × 0.70·2/(2·1)): 168 GB/s at 2.18.1, 134.4 at
// 2.18.3, whose graph stays at 24.
func TestNVLSGraph2_18_1(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		nics := slices.Clone(sys.Nodes[i].NICs)
		for j := range nics {
			nics[j].SpeedMbps = 200000
		}
		sys.Nodes[i].NICs = nics
	}
	for _, tc := range []struct {
		v           Version
		bwIntra, bw float32
	}{{V2_18_1, 30, 168}, {V2_18_3, 24, 134.4}} {
		c, err := Init(MustLoad(tc.v), sys, Env{})
		if err != nil || c.Err != nil || c.Model == nil {
			t.Fatal(tc.v, err, c.Err)
		}
		g := c.Topo.Graphs[topo.GraphNVLS]
		bw := c.Model.Bandwidths[AllReduce][NVLSTree][Simple]
		if g.BwIntra != tc.bwIntra || math.Abs(float64(bw-tc.bw)) > 1e-3 {
			t.Errorf("%s: NVLS graph bwIntra %v, NVLSTree AllReduce %v GB/s; want %v, %v", tc.v, g.BwIntra, bw, tc.bwIntra, tc.bw)
		}
	}
}
