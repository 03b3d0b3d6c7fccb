package spec

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/topo"
)

// graphLine is the first channel line of a graph pattern in node 0's
// [GRAPH] log, and the "Pattern" line above it.
func graphLine(t *testing.T, c *Comm, pattern int) (head, ch0 string) {
	t.Helper()
	log := c.Topo.Nodes[0].Log()
	for i, l := range log {
		if strings.HasPrefix(l, "Pattern "+string(rune('0'+pattern))+",") && i+1 < len(log) {
			return l, log[i+1]
		}
	}
	t.Fatalf("%s: no Pattern %d in the graph log", c.rs.Version, pattern)
	return "", ""
}

// TestSM100SpeedArraysPerRelease: the sm100 inter-node speed array starts at
// 48.0 in 2.25.1–2.26.6, 47.9 in 2.27.3, 48.0/45.1 in 2.27.5 and 96.0 from
// 2.27.6 (src/graph/search.cc sm100SpeedArrayInter). On two DGX B200s the
// ring at 47.9 GB/s (8 × 47.9) loses to 16 channels at 24 GB/s
// (ncclTopoCompareGraphs compares nChannels × bw), where 8 × 48 ties and
// keeps the first; from 2.27.6 the tree's intra speed reaches 96.
func TestSM100SpeedArraysPerRelease(t *testing.T) {
	for _, tc := range []struct {
		v          Version
		ring, tree string
	}{
		{V2_25_1, "nChannels 8, bw 48.000000/48.000000", "nChannels 8, bw 48.000000/48.000000"},
		{V2_26_6, "nChannels 8, bw 48.000000/48.000000", "nChannels 8, bw 48.000000/48.000000"},
		{V2_27_3, "nChannels 16, bw 24.000000/24.000000", "nChannels 16, bw 47.900002/24.000000"},
		{V2_27_5, "nChannels 8, bw 48.000000/48.000000", "nChannels 8, bw 48.000000/48.000000"},
		{V2_27_6, "nChannels 8, bw 48.000000/48.000000", "nChannels 8, bw 96.000000/48.000000"},
	} {
		c := initPreset(t, tc.v, "dgx-b200", 2, nil)
		if head, _ := graphLine(t, c, int(topo.PatternRing)); !strings.Contains(head, tc.ring) {
			t.Errorf("%s dgx-b200 x2 ring graph: %q, want %q", tc.v, head, tc.ring)
		}
		if head, _ := graphLine(t, c, int(topo.PatternTree)); !strings.Contains(head, tc.tree) {
			t.Errorf("%s dgx-b200 x2 tree graph: %q, want %q", tc.v, head, tc.tree)
		}
	}
}

// TestGraphPrintIDsPerRelease: ncclTopoPrintGraph prints NETs as
// "NET/<sys>-<local>" from 2.23.4 (2.23.4 with the first NET's local id
// for the second, fixed in 2.24.3) and GPUs as "GPU/<sys>-<local>" from
// 2.27.5; before, the raw NET id and the rank. From 2.24.3 to 2.26.6 the
// internal IB's eight ports are virtual NICs of one, numbered 8 to 15
// after the physical devices (G-TOPO-VNIC-1); 2.27.3 keeps the ports.
func TestGraphPrintIDsPerRelease(t *testing.T) {
	for _, tc := range []struct {
		v   Version
		ch0 string
	}{
		{V2_22_3, " 0 : NET/0 GPU/0 GPU/7 GPU/6 GPU/5 GPU/4 GPU/3 GPU/2 GPU/1 NET/1"},
		{V2_23_4, " 0 : NET/0-0 GPU/0 GPU/7 GPU/6 GPU/5 GPU/4 GPU/3 GPU/2 GPU/1 NET/0-0"},
		{V2_24_3, " 0 : NET/0-8 GPU/0 GPU/7 GPU/6 GPU/5 GPU/4 GPU/3 GPU/2 GPU/1 NET/0-9"},
		{V2_26_6, " 0 : NET/0-8 GPU/0 GPU/7 GPU/6 GPU/5 GPU/4 GPU/3 GPU/2 GPU/1 NET/0-9"},
		{V2_27_3, " 0 : NET/0-0 GPU/0 GPU/7 GPU/6 GPU/5 GPU/4 GPU/3 GPU/2 GPU/1 NET/0-1"},
	} {
		c := initPreset(t, tc.v, "dgx-h100", 2, nil)
		if _, ch0 := graphLine(t, c, int(topo.PatternRing)); ch0 != tc.ch0 {
			t.Errorf("%s dgx-h100 x2 ring channel 0:\n got %q\nwant %q", tc.v, ch0, tc.ch0)
		}
	}
	c := initPreset(t, V2_27_5, "dgx-h100", 2, nil)
	if _, ch0 := graphLine(t, c, int(topo.PatternRing)); !strings.HasPrefix(ch0, " 0 : NET/0-0 GPU/0-") {
		t.Errorf("2.27.5 dgx-h100 x2 ring channel 0: %q, want GPU ids", ch0)
	}
}

// TestP2CPathsFrom2273: PATH_P2C exists from 2.27.3 (src/graph/paths.cc
// ncclTopoComputePaths); before, a GB200 GPU reaches the NICs behind its
// Grace CPU at PHB, which is beyond LL128's PXN bound, so two NVL72
// cliques run without LL128 at 2.26.6 and with it at 2.27.3. NCCL_PXN_C2C
// defaults to 0 until 2.27.7 and 1 from 2.28.3; it changes the tree
// graph's pattern on such a system.
//
// 2.27.3's own forms: without GDR (NCCL_NET_GDR_C2C=0 leaves the P2C
// distance above PXB) addInterStep routes GPU→NET through the CPU and keeps
// the larger type, PHB, where 2.27.5's mergePathType gives P2C, so LL128 is
// off at 2.27.3 only. With NCCL_PXN_C2C=1 condition (4) of PXN tests the
// GPU's own P2C path against PXB at 2.27.3 (PXN to the other NIC of its
// Grace) and against P2C at 2.27.5 (no PXN there); 2.27.3 numbers that PXN
// path (6) below P2C (7), so every GPU's closest NET is the PXN one: the
// NVLS graph has one channel where 2.27.5 and 2.27.6 have four
// (topo.TestPathOrderP2CSearch); the tree stays balanced in all three.
func TestP2CPathsFrom2273(t *testing.T) {
	for _, tc := range []struct {
		v       Version
		env     Env
		inter   string
		ll128   bool
		pattern int
	}{
		{V2_26_6, nil, "PHB", false, int(topo.PatternBalancedTree)},
		{V2_27_3, nil, "P2C", true, int(topo.PatternBalancedTree)},
		{V2_27_3, Env{"NCCL_PXN_C2C": "1"}, "P2C", true, int(topo.PatternBalancedTree)},
		{V2_27_7, Env{"NCCL_PXN_C2C": "0"}, "P2C", true, int(topo.PatternBalancedTree)},
		{V2_27_3, Env{"NCCL_NET_GDR_C2C": "0"}, "PHB", false, int(topo.PatternBalancedTree)},
		{V2_27_5, Env{"NCCL_NET_GDR_C2C": "0"}, "P2C", true, int(topo.PatternBalancedTree)},
		// 2.27.3 numbers P2C (7) above PXN (6): GDR to a P2C NIC is off
		// under NCCL_NET_GDR_LEVEL=PXN (without the C2C rewrite), so the
		// NIC is reached through the CPU; 2.27.5 numbers P2C below PXN.
		{V2_27_3, Env{"NCCL_NET_GDR_C2C": "0", "NCCL_NET_GDR_LEVEL": "PXN"}, "PHB", false, int(topo.PatternBalancedTree)},
		{V2_27_5, Env{"NCCL_NET_GDR_C2C": "0", "NCCL_NET_GDR_LEVEL": "PXN"}, "P2C", true, int(topo.PatternBalancedTree)},
		{V2_27_3, Env{"NCCL_NET_GDR_C2C": "0", "NCCL_NET_GDR_LEVEL": "P2C"}, "P2C", true, int(topo.PatternBalancedTree)},
		{V2_27_5, Env{"NCCL_PXN_C2C": "1"}, "P2C", true, int(topo.PatternBalancedTree)},
		{V2_27_6, Env{"NCCL_PXN_C2C": "1"}, "P2C", true, int(topo.PatternBalancedTree)},
	} {
		c := initPreset(t, tc.v, "gb200-nvl72", 20, tc.env)
		if got := c.Graphs.Ring.TypeInter; got != tc.inter {
			t.Errorf("%s %v gb200-nvl72 x20: ring typeInter %s, want %s", tc.v, tc.env, got, tc.inter)
		}
		if got := c.Enabled[AllReduce][Ring][LL128]; got != tc.ll128 {
			t.Errorf("%s %v gb200-nvl72 x20: Ring/LL128 enabled %v, want %v", tc.v, tc.env, got, tc.ll128)
		}
		if got := c.Graphs.Tree.Pattern; got != tc.pattern {
			t.Errorf("%s %v gb200-nvl72 x20: tree pattern %d, want %d", tc.v, tc.env, got, tc.pattern)
		}
	}
}

// TestTopoSearchReleaseDefaults: gatesim topo search reads the release's
// NCCL_PXN_C2C default as Init does (0 until 2.27.7, 1 from 2.28.3), so
// leaving it unset searches as setting the default explicitly, and the two
// values search 20 GB200 trays differently (the NVLS graph's channels).
func TestTopoSearchReleaseDefaults(t *testing.T) {
	pattern := func(v Version, env ...string) [2]int {
		res, err := TopoSearch{Release: v.String(), Preset: "gb200", Nodes: 20, Env: env}.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		return [2]int{int(res.Graphs[topo.GraphTree].Pattern), res.Graphs[topo.GraphNVLS].NChannels}
	}
	for _, tc := range []struct {
		v   Version
		def string
	}{{V2_27_3, "0"}, {V2_28_9, "1"}} {
		unset, def := pattern(tc.v), pattern(tc.v, "NCCL_PXN_C2C="+tc.def)
		if unset != def {
			t.Errorf("%s: tree pattern and NVLS channels %v unset, %v with NCCL_PXN_C2C=%s (the release's default)", tc.v, unset, def, tc.def)
		}
	}
	if p0, p1 := pattern(V2_27_3, "NCCL_PXN_C2C=0"), pattern(V2_27_3, "NCCL_PXN_C2C=1"); p0 == p1 {
		t.Errorf("2.27.3: NCCL_PXN_C2C 0 and 1 both give tree pattern and NVLS channels %v: the case shows nothing", p0)
	}
}
