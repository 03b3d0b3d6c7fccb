package spec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/google/go-cmp/cmp"
)

// dualPortSystem is two hosts of two A100s, each GPU behind its own PCIe
// switch, and one dual-port 100 Gb/s NIC (two PCI functions of one device)
// beside GPU 0: the system a user describes with bus_id.
func dualPortSystem(busIDs ...string) *System {
	nd := Node{Host: "node", CPU: CPU{Arch: "x86_64", Vendor: "Intel", Model: "skl", Sockets: 1},
		GPUs:         []GPU{{Name: "A100", Dev: 0, SM: 80}, {Name: "A100", Dev: 1, SM: 80}},
		IPInterfaces: []string{"eth0"},
		Driver:       Driver{Verbs: true, CuMem: true, CUDA: 12080}}
	for i, b := range busIDs {
		nd.NICs = append(nd.NICs, NIC{Name: fmt.Sprintf("mlx5_%d", i), Port: 1, LinkLayer: "RoCE", SpeedMbps: 100000,
			Active: true, GDR: true, NearGPU: 0, BusID: b})
	}
	sys := &System{Name: "dual-port"}
	for i := range 2 {
		n := nd
		n.Host = fmt.Sprintf("node%d", i)
		sys.Nodes = append(sys.Nodes, n)
	}
	return sys
}

// TestDualPortNICFusion: the two ports of one NIC are one NET device in
// every release that fuses them (G-TOPO-VNIC-1): the IB network's own
// merge (2.20.3–2.23.4, device 0), a virtual NIC under a made-up PCI device
// beside the two functions 2.24.3–2.26.6 discover, and one in the NIC's
// own <nic> from 2.27.3 (device 2, after the ports). Two NICs of their own
// stay two NETs, renumbered 2.24.3–2.26.6.
func TestDualPortNICFusion(t *testing.T) {
	dual := dualPortSystem("0000:16:00.0", "0000:16:00.1")
	apart := dualPortSystem("0000:16:00.0", "0000:17:00.0")
	for _, tc := range []struct {
		v    Version
		sys  *System
		want []string
	}{
		{V2_19_4, dual, []string{"0 12.5", "1 12.5"}},
		{V2_22_3, dual, []string{"0 25"}},
		{V2_23_4, dual, []string{"0 25"}},
		{V2_25_1, dual, []string{"2 25"}},
		{V2_26_6, dual, []string{"2 25"}},
		{V2_27_3, dual, []string{"2 25"}},
		{V2_30_4, dual, []string{"2 25"}},
		{V2_30_7, dual, []string{"2 25"}},
		{V2_22_3, apart, []string{"0 12.5", "1 12.5"}},
		{V2_25_1, apart, []string{"2 12.5", "3 12.5"}},
		{V2_28_9, apart, []string{"0 12.5", "1 12.5"}},
	} {
		c, err := Init(MustLoad(tc.v), tc.sys, Env{})
		if err != nil || c.Err != nil {
			t.Fatalf("%s: %v %v", tc.v, err, c.Err)
		}
		var got []string
		for _, n := range c.Topo.Nodes[0].System.NETs() {
			got = append(got, fmt.Sprintf("%d %g", n.NetDev, n.Bw))
		}
		name := "dual-port"
		if tc.sys == apart {
			name = "two NICs"
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s %s: NETs (dev, GB/s) (-want +got):\n%s", tc.v, name, d)
		}
	}
	// NCCL_NET_MERGE_LEVEL=LOC keeps the ports apart.
	c, err := Init(MustLoad(V2_30_7), dual, Env{"NCCL_NET_MERGE_LEVEL": "LOC"})
	if err != nil || c.Err != nil {
		t.Fatal(err, c.Err)
	}
	if n := len(c.Topo.Nodes[0].System.NETs()); n != 2 {
		t.Errorf("2.30.7 NCCL_NET_MERGE_LEVEL=LOC: %d NETs, want the two ports", n)
	}
	// a wrong NCCL_NET_FORCE_MERGE fails init.
	c, err = Init(MustLoad(V2_30_7), dual, Env{"NCCL_NET_FORCE_MERGE": "mlx5_0,mlx5_7"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Err == nil || c.Err.Result != nccl.InvalidUsage || !strings.Contains(c.Err.Message, "Only matched 1 devices, 2 requested") {
		t.Errorf("2.30.7 NCCL_NET_FORCE_MERGE=mlx5_0,mlx5_7: init error %v, want NCCL's \"Only matched\"", c.Err)
	}
}

// TestNICBusIDLimits: a NIC's bus_id is checked where the system comes in.
func TestNICBusIDLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  []string
		err  string
	}{
		{"not an address", []string{"16:00.0"}, "expected a PCI function address"},
		{"function 8", []string{"0000:16:00.8"}, "expected a PCI function address"},
		{"twice", []string{"0000:16:00.0", "0000:16:00.0"}, "is nic 0's too"},
	} {
		err := dualPortSystem(tc.ids...).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.err)
		}
	}
	sys := dualPortSystem("0000:16:00.0", "0000:16:00.1")
	sys.Nodes[0].NICs[1].NearGPU = 1
	if err := sys.Validate(); err == nil || !strings.Contains(err.Error(), "a port of nic 0's device") {
		t.Errorf("ports of one device beside different GPUs: %v, want an error", err)
	}
	if err := dualPortSystem("0000:16:00.0", "0000:16:00.1").Validate(); err != nil {
		t.Errorf("a dual-port NIC: %v", err)
	}
	if _, err := topo.NICDevice("0000:16:00.3"); err != nil {
		t.Error(err)
	}
}

// sharpV9 is the SHARP plugin library exporting the v9 ABIs, its network
// and CollNet making virtual devices as the flags say.
func sharpV9(netVDev, collVDev bool) Library {
	l := SHARPPlugin()
	l.NetSymbols, l.CollNetSymbols = []int{9}, []int{9}
	n, c := *l.Net, *l.CollNet
	n.MakeVDevice, c.MakeVDevice = netVDev, collVDev
	l.Net, l.CollNet = &n, &c
	return l
}

// TestCollNetFusionDecision (G-TOPO-VNIC-2): two hosts whose one NIC has
// two ports, a v9 SHARP plugin whose network fuses them. A CollNet plugin
// that makes virtual devices too keeps CollNet on the fused NIC in every
// release; one that does not keeps it 2.24.3–2.26.6 through the ports
// left beside the vNic, and loses it from 2.27.3: the CollNet graph finds
// no CollNet NET and CollNet is not chosen.
func TestCollNetFusionDecision(t *testing.T) {
	env := Env{"NCCL_COLLNET_ENABLE": "1"}
	for _, tc := range []struct {
		v        Version
		collVDev bool
		graph    Outcome
		vnics    string
	}{
		{V2_25_1, false, Pass, "net vNic 2 = mlx5_0+mlx5_1"},
		{V2_25_1, true, Pass, "collnet vNic 2 = mlx5_0+mlx5_1, net vNic 2 = mlx5_0+mlx5_1"},
		{V2_27_3, false, Fail, "net vNic 2 = mlx5_0+mlx5_1"},
		{V2_27_3, true, Pass, "collnet vNic 2 = mlx5_0+mlx5_1, net vNic 2 = mlx5_0+mlx5_1"},
		{V2_28_9, false, Fail, "net vNic 2 = mlx5_0+mlx5_1"},
		{V2_28_9, true, Pass, "collnet vNic 2 = mlx5_0+mlx5_1, net vNic 2 = mlx5_0+mlx5_1"},
		{V2_30_7, false, Fail, "net vNic 2 = mlx5_0+mlx5_1"},
		{V2_30_7, true, Pass, "collnet vNic 2 = mlx5_0+mlx5_1, net vNic 2 = mlx5_0+mlx5_1"},
	} {
		sys := dualPortSystem("0000:16:00.0", "0000:16:00.1")
		for i := range sys.Nodes {
			sys.Nodes[i].NICs[0].LinkLayer, sys.Nodes[i].NICs[1].LinkLayer = "IB", "IB"
			sys.Nodes[i].Libs = []Library{sharpV9(true, tc.collVDev)}
		}
		c, err := Init(MustLoad(tc.v), sys, env)
		if err != nil {
			t.Fatalf("%s: %v", tc.v, err)
		}
		if c.Err != nil {
			t.Fatalf("%s: %v", tc.v, c.Err)
		}

		name := fmt.Sprintf("%s collnet makeVDevice=%v", tc.v, tc.collVDev)
		graph, _ := c.Trace.Find("G-COLLNET-GRAPH-1")
		topoV, _ := c.Trace.Find("G-TOPO-1")
		if graph.Outcome != tc.graph {
			t.Errorf("%s: G-COLLNET-GRAPH-1 %v (%s), want %v", name, graph.Outcome, graph.WhyText(), tc.graph)
		}
		if !strings.Contains(topoV.WhyText(), "NIC fusion: "+tc.vnics) {
			t.Errorf("%s: G-TOPO-1 %q, want NIC fusion: %s", name, topoV.WhyText(), tc.vnics)
		}
		lines := strings.Join(c.Topo.Nodes[0].Log(), "\n")
		if !strings.Contains(lines, "TOPO/NET : Made vNic 2") {
			t.Errorf("%s: the node's GRAPH lines lack \"TOPO/NET : Made vNic 2\"", name)
		}
	}
}

// TestIBVirtualDeviceLines (G-TOPO-VNIC-1): the internal IB's
// makeVDevice prints "NET/IB : Made virtual device" from 2.24.3: one
// device per port at init, then one per vNic the network's fusion pass
// makes (every group 2.24.3–2.26.6, fused groups from 2.27.3), numbered
// after the ports; 2.30.7 appends the rail and plane (the virtual bit with
// plane index 0 for a fused device). NCCL_IB_MERGE_NICS=0 refuses the
// fused one.
func TestIBVirtualDeviceLines(t *testing.T) {
	dual := dualPortSystem("0000:16:00.0", "0000:16:00.1")
	apart := dualPortSystem("0000:16:00.0", "0000:17:00.0")
	port := func(d int, tail string) string {
		return fmt.Sprintf("NET/IB : Made virtual device [%d] name=mlx5_%d speed=100000 ndevs=1%s", d, d, tail)
	}
	for _, tc := range []struct {
		name string
		v    Version
		sys  *System
		env  Env
		want []string
	}{
		{"no virtual devices before 2.24.3", V2_22_3, dual, nil, nil},
		{"ports, then the fused NIC", V2_25_1, dual, nil,
			[]string{port(0, ""), port(1, ""), "NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2"}},
		{"every group a vNic 2.24.3-2.26.6", V2_25_1, apart, nil,
			[]string{port(0, ""), port(1, ""), "NET/IB : Made virtual device [2] name=mlx5_0 speed=100000 ndevs=1",
				"NET/IB : Made virtual device [3] name=mlx5_1 speed=100000 ndevs=1"}},
		{"groups of one skipped from 2.27.3", V2_28_9, apart, nil, []string{port(0, ""), port(1, "")}},
		{"fused at 2.28.9", V2_28_9, dual, nil,
			[]string{port(0, ""), port(1, ""), "NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2"}},
		{"NCCL_IB_MERGE_NICS=0 refuses the fused one", V2_28_9, dual, Env{"NCCL_IB_MERGE_NICS": "0"}, []string{port(0, ""), port(1, "")}},
		{"rail and plane at 2.30.7", V2_30_7, dual, nil,
			[]string{port(0, " rail=-1 plane=-1"), port(1, " rail=-1 plane=-1"), "NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2 rail=-1 plane=16385"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Init(MustLoad(tc.v), tc.sys, tc.env)
			if err != nil || c.Err != nil {
				t.Fatalf("%v %v", err, c.Err)
			}
			var got []string
			for _, v := range c.Trace {
				for _, l := range append(slices.Clone(v.Log), v.Debug...) {
					if strings.HasPrefix(l, "NET/IB : Made virtual device") && !slices.Contains(got, l) {
						got = append(got, l)
					}
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("lines (-want +got):\n%s", d)
			}
		})
	}
}
