package topo

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// paramsAt chains the topology deltas from 2.22.3 up to the release named
// (outside tests a release's parameters come from its spec.Release).
func paramsAt(t *testing.T, release string) Params {
	t.Helper()
	p, ok := chainParams(release)
	if !ok {
		t.Fatalf("no topology delta named %s", release)
	}
	return p
}

func chainParams(release string) (Params, bool) {
	switch release {
	case "2.19.4":
		return Params2_19_4(), true
	case "2.22.3":
		return Params2_22_3(), true
	}
	p := Params2_22_3()
	steps := []struct {
		v     string
		apply func(*Params)
	}{{"2.23.4", Apply2_23_4}, {"2.24.3", Apply2_24_3}, {"2.25.1", Apply2_25_1}, {"2.26.2", Apply2_26_2},
		{"2.27.3", Apply2_27_3}, {"2.27.5", Apply2_27_5}, {"2.27.6", Apply2_27_6}, {"2.28.3", Apply2_28_3},
		{"2.28.7", Apply2_28_7}, {"2.29.2", Apply2_29_2}, {"2.29.7", Apply2_29_7}, {"2.30.3", Apply2_30_3},
		{"2.30.7", Apply2_30_7}}
	for _, s := range steps {
		s.apply(&p)
		if s.v == release {
			return p, true
		}
	}
	return p, false
}

// fusedNets fuses x for release p and lists the built system's NETs as
// "name dev=D bw=B up=U": the NET's bandwidth and its NIC's link towards
// the CPU (GB/s).
func fusedNets(t *testing.T, x *XMLNode, p Params, o Options) ([]string, error) {
	t.Helper()
	fx, err := FuseNets(x, p, o)
	if err != nil {
		return nil, err
	}
	s, err := BuildSystem("fused.xml", fx, p)
	if err != nil {
		t.Fatal(err)
	}
	names := netNamesByDev(fx)
	out := []string{}
	for _, n := range s.NETs() {
		up := float32(0)
		for _, l := range n.Links {
			if l.Type != LinkNET {
				continue
			}
			for _, u := range l.Remote.Links {
				if u.Type == LinkPCI {
					up = u.Bw
				}
			}
		}
		out = append(out, fmt.Sprintf("%s dev=%d bw=%g up=%g", names[n.NetDev], n.NetDev, n.Bw, up))
	}
	return out, nil
}

const cpuOpen = `<system version="1"><cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="106">`
const gpu0 = `<pci busid="0000:69:00.0" class="0x030200" vendor="0x10de" device="0x20b5" link_speed="16.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="80" rank="0" gdr="1"/></pci>`

func netXMLElem(name string, dev, port int) string {
	return netXMLGUID(name, dev, port, 1)
}

func netXMLGUID(name string, dev, port, guid int) string {
	return fmt.Sprintf(`<net name="%s" dev="%d" latency="0" speed="100000" port="%d" guid="%#x" maxconn="131072" gdr="0"/>`, name, dev, port, guid)
}

func nicPCI(bus string, width int, nets ...string) string {
	return fmt.Sprintf(`<pci busid="%s" class="0x020000" vendor="0x15b3" device="0x101d" link_speed="16.0 GT/s PCIe" link_width="%d"><nic>%s</nic></pci>`,
		bus, width, strings.Join(nets, ""))
}

// The machines of the fusion tests, each with one GPU on CPU 0.
var fusionXML = map[string]string{
	// NVIDIA/nccl#2397's layout: one PCI device, two ports in one <nic>
	// (how 2.23.4 and 2.27.3+ dump a dual-port NIC, the ports' PCI
	// functions merged).
	"one-nic": cpuOpen + nicPCI("0000:16:00.0", 8, netXMLElem("mlx5_0", 0, 1), netXMLElem("mlx5_1", 1, 2)) + gpu0 + `</cpu></system>`,
	// three ports of one device, and two of one device with other guids.
	"three-ports": cpuOpen + nicPCI("0000:16:00.0", 16, netXMLElem("mlx5_0", 0, 1), netXMLElem("mlx5_1", 1, 2), netXMLElem("mlx5_2", 2, 3)) + gpu0 + `</cpu></system>`,
	"two-guids":   cpuOpen + nicPCI("0000:16:00.0", 8, netXMLGUID("mlx5_0", 0, 1, 1), netXMLGUID("mlx5_1", 1, 2, 2)) + gpu0 + `</cpu></system>`,
	// the same NIC as 2.24.3–2.26.6 dump it: one PCI device per function.
	"two-functions": cpuOpen + nicPCI("0000:16:00.0", 8, netXMLElem("mlx5_0", 0, 1)) + nicPCI("0000:16:00.1", 8, netXMLElem("mlx5_1", 1, 1)) + gpu0 + `</cpu></system>`,
	// two NICs behind one PCIe switch (PIX from each other).
	"switch": cpuOpen + `<pci busid="0000:15:00.0" class="0x060400" vendor="0x1000" device="0xc030" link_speed="16.0 GT/s PCIe" link_width="16">` +
		nicPCI("0000:16:00.0", 16, netXMLElem("mlx5_0", 0, 1)) + nicPCI("0000:17:00.0", 16, netXMLElem("mlx5_1", 1, 1)) + `</pci>` + gpu0 + `</cpu></system>`,
	// one NIC per CPU (SYS from each other).
	"two-cpus": cpuOpen + nicPCI("0000:16:00.0", 16, netXMLElem("mlx5_0", 0, 1)) + gpu0 + `</cpu>` +
		`<cpu numaid="1" affinity="ff00" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="106">` + nicPCI("0000:96:00.0", 16, netXMLElem("mlx5_1", 1, 1)) + `</cpu></system>`,
}

// TestNetFusion: which ports each release fuses, where the virtual NIC
// goes and what it is worth, per machine and environment.
func TestNetFusion(t *testing.T) {
	ib := Options{NetVNics: true}
	level := func(l string) Options { o := ib; o.NetMergeLevel, o.NetMergeLevelSet = l, true; return o }
	force := func(f string) Options { o := ib; o.NetForceMerge = f; return o }
	noMerge := ib
	noMerge.IBMergeNicsOff = true
	apart := []string{"mlx5_0 dev=0 bw=12.5 up=12", "mlx5_1 dev=1 bw=12.5 up=12"}
	cases := []struct {
		name, machine, release string
		o                      Options
		want                   []string
		err                    string
	}{
		{"no fusion before 2.20.3", "one-nic", "2.19.4", ib, apart, ""},
		// 2.20.3–2.23.4: the IB network merges the ports of one PCI device
		// with one guid, two at most, numbering devices in merged order.
		{"IB port merge, 2.22.3", "one-nic", "2.22.3", ib, []string{"mlx5_0+mlx5_1 dev=0 bw=25 up=12"}, ""},
		{"IB port merge, 2.23.4", "one-nic", "2.23.4", ib, []string{"mlx5_0+mlx5_1 dev=0 bw=25 up=12"}, ""},
		{"IB port merge, two at most", "three-ports", "2.23.4", ib, []string{"mlx5_2 dev=1 bw=12.5 up=24", "mlx5_0+mlx5_1 dev=0 bw=25 up=24"}, ""},
		{"IB port merge, other guids", "two-guids", "2.23.4", ib, apart, ""},
		{"IB port merge, IB_MERGE_NICS=0", "one-nic", "2.23.4", noMerge, apart, ""},
		{"IB port merge, two functions", "two-functions", "2.23.4", ib, apart, ""},
		{"three ports, 2.27.3", "three-ports", "2.27.3", ib, []string{"mlx5_0+mlx5_1+mlx5_2 dev=3 bw=37.5 up=24"}, ""},
		{"a network without makeVDevice", "one-nic", "2.30.7", Options{}, apart, ""},
		// 2.24.3–2.26.6: the common <nic> is the parent and gets a <nic>
		// of its own, which ncclTopoAddNic does not read.
		{"ports of one nic, 2.24.3", "one-nic", "2.24.3", ib, []string{}, ""},
		{"ports of one nic, 2.26.2", "one-nic", "2.26.2", ib, []string{}, ""},
		{"ports of one nic, 2.27.3", "one-nic", "2.27.3", ib, []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=12"}, ""},
		{"ports of one nic, 2.30.3", "one-nic", "2.30.3", ib, []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=12"}, ""},
		{"ports of one nic, 2.30.7", "one-nic", "2.30.7", ib, []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=12"}, ""},
		{"merge level LOC", "one-nic", "2.30.7", level("LOC"), apart, ""},
		{"an unknown merge level reads LOC", "one-nic", "2.30.7", level("port"), apart, ""},
		// PCI functions of one device: PORT, the CPU their common parent.
		{"two functions, 2.24.3: under the CPU", "two-functions", "2.24.3", ib, []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=5000"}, ""},
		{"two functions, 2.27.3: under the CPU", "two-functions", "2.27.3", ib, []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=5000"}, ""},
		{"two functions, 2.28.3: a made-up PCI device", "two-functions", "2.28.3", ib, []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=12"}, ""},
		// A port alone is a virtual NIC of one from 2.24.3 to 2.26.6,
		// renumbered after the physical devices.
		{"separate NICs, 2.23.4", "switch", "2.23.4", ib, []string{"mlx5_0 dev=0 bw=12.5 up=24", "mlx5_1 dev=1 bw=12.5 up=24"}, ""},
		{"separate NICs, 2.24.3", "switch", "2.24.3", ib, []string{"mlx5_0 dev=2 bw=12.5 up=24", "mlx5_1 dev=3 bw=12.5 up=24"}, ""},
		{"separate NICs, 2.26.2", "switch", "2.26.2", ib, []string{"mlx5_0 dev=2 bw=12.5 up=24", "mlx5_1 dev=3 bw=12.5 up=24"}, ""},
		{"separate NICs, 2.27.3", "switch", "2.27.3", ib, []string{"mlx5_0 dev=0 bw=12.5 up=24", "mlx5_1 dev=1 bw=12.5 up=24"}, ""},
		// NCCL_NET_MERGE_LEVEL=PIX: a made-up PCI device under the switch;
		// from 2.28.3 the links widen to the ports' 32 lanes.
		{"PIX, 2.27.3", "switch", "2.27.3", level("PIX"), []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=24"}, ""},
		{"PIX, 2.28.3: widened", "switch", "2.28.3", level("PIX"), []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=48"}, ""},
		{"PIX, 2.30.7: widened", "switch", "2.30.7", level("PIX"), []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=48"}, ""},
		{"P2C unknown before 2.27.3", "switch", "2.26.2", level("P2C"), []string{"mlx5_0 dev=2 bw=12.5 up=24", "mlx5_1 dev=3 bw=12.5 up=24"}, ""},
		{"P2C above PIX from 2.27.3", "switch", "2.27.3", level("P2C"), []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=24"}, ""},
		{"PHB does not reach across CPUs", "two-cpus", "2.28.3", level("PHB"), []string{"mlx5_0 dev=0 bw=12.5 up=24", "mlx5_1 dev=1 bw=12.5 up=24"}, ""},
		{"SYS, 2.28.3: the system gets the NIC", "two-cpus", "2.28.3", level("SYS"), []string{}, ""},
		{"SYS, 2.30.7: refused", "two-cpus", "2.30.7", level("SYS"), nil, "different NUMA domains"},
		// NCCL_IB_MERGE_NICS=0: the IB network refuses the pair.
		{"IB_MERGE_NICS=0, 2.24.3: init fails", "one-nic", "2.24.3", noMerge, nil, "NCCL_IB_MERGE_NICS=0"},
		// 2.26.2 retries from i = 0, then i++: device 0 is never placed and
		// loses keep; device 1 alone is a renumbered vNic.
		{"IB_MERGE_NICS=0, 2.26.2", "one-nic", "2.26.2", noMerge, []string{"mlx5_1 dev=2 bw=12.5 up=12"}, ""},
		{"IB_MERGE_NICS=0, 2.27.3", "one-nic", "2.27.3", noMerge, apart, ""},
		// NCCL_NET_FORCE_MERGE names the ports exactly.
		{"force merge", "switch", "2.27.3", force("mlx5_0,mlx5_1"), []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=24"}, ""},
		{"force merge with ports", "one-nic", "2.27.3", force("mlx5_0:1,mlx5_1:2"), []string{"mlx5_0+mlx5_1 dev=2 bw=25 up=12"}, ""},
		{"force merge, a wrong port", "one-nic", "2.27.3", force("mlx5_0:1,mlx5_1:1"), nil, "Only matched 1 devices, 2 requested"},
		{"force merge, a prefix is no match", "switch", "2.27.3", force("mlx5_0,mlx5"), nil, "Only matched 1 devices, 2 requested"},
		{"force merge, an empty group", "switch", "2.27.3", force(","), nil, "loops on the same group forever"},
		{"force merge of one keeps the port, 2.27.3", "one-nic", "2.27.3", force("mlx5_0"), apart, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := mustXML(t, fusionXML[tc.machine])
			before := x.String()
			got, err := fusedNets(t, x, paramsAt(t, tc.release), tc.o)
			if x.String() != before {
				t.Errorf("FuseNets changed its input")
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("NETs (-want +got):\n%s", d)
			}
		})
	}
}

func mustXML(t *testing.T, s string) *XMLNode {
	t.Helper()
	x, err := ParseTopologyXML("test.xml", []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestNetFusionP2PChannels is NVIDIA/nccl#2397's machine over two hosts:
// with the dual-port NIC fused, GPU 0's one local NET reaches it at the
// NIC's 12 GB/s, so ncclTopoGetNchannels gives max(1, divUp(12, 14)) = 1
// channel per remote peer, as the 2.30.4 log prints (the bandwidth rule
// is 2.29.2's); the two ports apart (before 2.24.3, or a network without
// virtual devices) give 2.
func TestNetFusionP2PChannels(t *testing.T) {
	data, err := os.ReadFile("../../golden/testdata/public/machines/a100-pcie-2gpu-cx6dx/topo.xml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadSystem("topo.xml", data)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		release string
		vnics   bool
		want    int
	}{
		{"2.23.4", true, 2},
		{"2.30.3", false, 2},
		{"2.29.2", true, 1},
		{"2.30.3", true, 1},
		{"2.30.7", true, 1},
	}
	for _, tc := range cases {
		o := DefaultOptions()
		o.NetVNics = tc.vnics
		r, err := Search([]*System{s, s}, paramsAt(t, tc.release), o)
		if err != nil {
			t.Fatalf("%s: %v", tc.release, err)
		}
		if r.P2PNChannelsPerPeer != tc.want {
			t.Errorf("%s, virtual NICs %t: %d p2p channels per peer, want %d", tc.release, tc.vnics, r.P2PNChannelsPerPeer, tc.want)
		}
	}
}

// TestParseIfList is parseStringList's reading of interface lists: up
// to 2.30.4 a port of leading digits, from 2.30.7 (IfListRailPlane)
// "name[:port[:rail[:plane]]]" with -1 for an empty or absent field.
func TestParseIfList(t *testing.T) {
	for _, tc := range []struct {
		in        string
		railPlane bool
		want      []NetIf
	}{
		{"", false, nil},
		{"mlx5_0", false, []NetIf{{"mlx5_0", -1, -1, -1}}},
		{"mlx5_0:1,mlx5_1:2", false, []NetIf{{"mlx5_0", 1, -1, -1}, {"mlx5_1", 2, -1, -1}}},
		{"mlx5_0:,:3,,eth", false, []NetIf{{"mlx5_0", 0, -1, -1}, {"eth", -1, -1, -1}}},
		{"ib0:2x", false, []NetIf{{"ib0", 2, -1, -1}}},
		{"mlx5_0:1:3:1", false, []NetIf{{"mlx5_0", 1, -1, -1}}},
		{"mlx5_0:1:3:1", true, []NetIf{{"mlx5_0", 1, 3, 1}}},
		{"mlx5_0::2,mlx5_1:1::0", true, []NetIf{{"mlx5_0", -1, 2, -1}, {"mlx5_1", 1, -1, 0}}},
		{"mlx5_0:,:3,,eth", true, []NetIf{{"mlx5_0", -1, -1, -1}, {"eth", -1, -1, -1}}},
		{"ib0:2x:-1: 7z", true, []NetIf{{"ib0", 2, -1, 7}}},
	} {
		if d := cmp.Diff(tc.want, ParseIfList(tc.in, tc.railPlane)); d != "" {
			t.Errorf("ParseIfList(%q, %v) (-want +got):\n%s", tc.in, tc.railPlane, d)
		}
	}
}

// TestSynthesizeDualPortNIC: NICSpec.BusID writes the ports of one device
// as NCCL's IB network discovers them: one <pci> at function 0 with both
// <net>s (the function zeroed, ports 1 and 2, the first port's guid), or
// one <pci> per function where the release keeps the function.
func TestSynthesizeDualPortNIC(t *testing.T) {
	spec := NodeSpec{Name: "dual", CPUArch: "x86_64", CPUVendor: "Intel", CPUModel: "skl", Sockets: 1,
		GPUs: []GPUSpec{{Dev: 0, SM: 80, PCIGen: 4, Switch: -1}},
		NICs: []NICSpec{{Name: "mlx5_0", SpeedMbps: 100000, Switch: -1, BusID: "0000:16:00.0"},
			{Name: "mlx5_1", SpeedMbps: 100000, Switch: -1, BusID: "0000:16:00.1"}}}
	pcis := func(x *XMLNode) []string {
		var out []string
		var walk func(*XMLNode)
		walk = func(n *XMLNode) {
			if n.Name == "pci" && n.Sub("nic") != nil {
				line, _ := n.Attr("busid")
				for _, net := range n.Sub("nic").Subs {
					name, _ := net.Attr("name")
					port, _ := net.Attr("port")
					guid, _ := net.Attr("guid")
					line += " " + name + ":" + port + ":" + guid
				}
				out = append(out, line)
			}
			for _, c := range n.Subs {
				walk(c)
			}
		}
		walk(x)
		return out
	}
	x, err := SynthesizeXML(spec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0000:16:00.0 mlx5_0:1:0xa088c20300000000 mlx5_1:2:0xa088c20300000000"}
	if d := cmp.Diff(want, pcis(x)); d != "" {
		t.Errorf("one device (-want +got):\n%s", d)
	}
	spec.NICFunctions = true
	if x, err = SynthesizeXML(spec); err != nil {
		t.Fatal(err)
	}
	want = []string{"0000:16:00.0 mlx5_0:1:0xa088c20300000000", "0000:16:00.1 mlx5_1:2:0xa088c20300000000"}
	if d := cmp.Diff(want, pcis(x)); d != "" {
		t.Errorf("one device per function (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		name string
		edit func(*NodeSpec)
		err  string
	}{
		{"bad address", func(s *NodeSpec) { s.NICs[1].BusID = "16:00.1" }, "expected a PCI function address"},
		{"twice", func(s *NodeSpec) { s.NICs[1].BusID = "0000:16:00.0" }, "used twice"},
		{"a GPU's device", func(s *NodeSpec) { s.GPUs[0].BusID = "0000:16:00.0"; s.NICs[0].BusID = "0000:16:00.2" }, "used twice"},
		{"ports apart", func(s *NodeSpec) { s.Sockets = 2; s.NICs[1].NUMA = 1 }, "expected the same NUMA and switch"},
		{"no PCI device", func(s *NodeSpec) { s.NICs[1].NoPCI = true }, "on a NIC without a PCI device"},
	} {
		s := spec
		s.GPUs = append([]GPUSpec(nil), spec.GPUs...)
		s.NICs = append([]NICSpec(nil), spec.NICs...)
		tc.edit(&s)
		if _, err := SynthesizeXML(s); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.err)
		}
	}
}

// FuzzFuseNets: any topology NCCL's grammar accepts fuses, or fails with
// an error, under every fusion variant and merge setting; the input stays
// as it was and the result builds or fails cleanly.
func FuzzFuseNets(f *testing.F) {
	for _, x := range fusionXML {
		f.Add([]byte(x), uint8(0))
	}
	data, err := os.ReadFile("../../golden/testdata/public/machines/a100-pcie-2gpu-cx6dx/topo.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, uint8(7))
	var releases []Params
	for _, v := range []string{"2.19.4", "2.22.3", "2.24.3", "2.26.2", "2.27.3", "2.28.3", "2.30.7"} {
		p, _ := chainParams(v)
		releases = append(releases, p)
	}
	levels := []string{"", "LOC", "PORT", "PIX", "PXB", "P2C", "PHB", "SYS"}
	f.Fuzz(func(t *testing.T, data []byte, knob uint8) {
		x, err := ParseTopologyXML("fuzz.xml", data)
		if err != nil {
			return
		}
		before := x.String()
		o := Options{NetVNics: true, IBMergeNicsOff: knob&0x80 != 0, NetMergeRail: knob&0x40 != 0}
		if l := levels[int(knob)%len(levels)]; l != "" {
			o.NetMergeLevel, o.NetMergeLevelSet = l, true
		}
		if knob&0x20 != 0 {
			o.NetForceMerge = "mlx5_0,mlx5_1"
		}
		for _, p := range releases {
			fx, err := FuseNets(x, p, o)
			if x.String() != before {
				t.Fatalf("FuseNets changed its input")
			}
			if err != nil {
				continue
			}
			if _, err := BuildSystem("fuzz.xml", fx, p); err != nil && !strings.HasPrefix(err.Error(), "fuzz.xml") {
				t.Fatalf("build error without file name: %v", err)
			}
		}
	})
}

// netNamesByDev maps each <net>'s dev attribute to its name.
func netNamesByDev(x *XMLNode) map[int]string {
	names := map[int]string{}
	var walk func(*XMLNode)
	walk = func(n *XMLNode) {
		if n.Name == "net" {
			names[int(netDevAttr(n))], _ = n.Attr("name")
		}
		for _, c := range n.Subs {
			walk(c)
		}
	}
	walk(x)
	return names
}

// collNets lists the built system's NETs as "name dev=D" with " coll"
// where the NET has CollNet support.
func collNets(t *testing.T, x *XMLNode, p Params, o Options) ([]string, []string) {
	t.Helper()
	fx, made, err := FuseNetsLog(x, p, o)
	if err != nil {
		t.Fatal(err)
	}
	s, err := BuildSystem("fused.xml", fx, p)
	if err != nil {
		t.Fatal(err)
	}
	names := netNamesByDev(fx)
	nets := []string{}
	for _, n := range s.NETs() {
		l := fmt.Sprintf("%s dev=%d", names[n.NetDev], n.NetDev)
		if n.CollSupport {
			l += " coll"
		}
		nets = append(nets, l)
	}
	lines := []string{}
	for _, v := range made {
		lines = append(lines, v.Plugin+" "+v.Name()+": "+v.Log())
	}
	return nets, lines
}

// TestCollNetFusion (G-TOPO-VNIC-2): with CollNet enabled NCCL runs the
// fusion pass for the CollNet plugin's devices first, with the plugin's
// makeVDevice, then the network's. A vNic both make is one node with
// CollNet; one only the network made has none, and what becomes of the
// CollNet ports the network fused is the release's: kept beside the vNic
// 2.24.3–2.26.6 (ncclTopoPopulateNics leaves a coll port's keep alone),
// gone from 2.27.3 (ncclTopoMakeVnic; 2.30.7 ncclTopoUpdateVNics marks
// them net="0", no NET), so the CollNet graph has no NET on that NIC.
func TestCollNetFusion(t *testing.T) {
	coll := func(s string) string { return strings.ReplaceAll(s, `gdr="0"/>`, `gdr="0" coll="1"/>`) }
	both := Options{NetVNics: true, CollNetVNics: true}
	netOnly := Options{NetVNics: true}
	collOnly := Options{CollNetVNics: true}
	ports := []string{"mlx5_0 dev=0 coll", "mlx5_1 dev=1 coll"}
	cases := []struct {
		name, machine, release string
		o                      Options
		want, made             []string
	}{
		{"2.23.4: the IB's own merge keeps coll", "one-nic", "2.23.4", netOnly, []string{"mlx5_0+mlx5_1 dev=0 coll"}, []string{}},
		{"2.24.3, CollNet without makeVDevice", "two-functions", "2.24.3", netOnly,
			append(slices.Clone(ports), "mlx5_0+mlx5_1 dev=2"), []string{"net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.26.2, CollNet without makeVDevice", "two-functions", "2.26.2", netOnly,
			append(slices.Clone(ports), "mlx5_0+mlx5_1 dev=2"), []string{"net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.24.3, CollNet with makeVDevice", "two-functions", "2.24.3", both, []string{"mlx5_0+mlx5_1 dev=2 coll"},
			[]string{"collnet mlx5_0+mlx5_1: TOPO/NET : Made vNic 2", "net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.24.3, CollNet alone fuses", "two-functions", "2.24.3", collOnly, []string{"mlx5_0+mlx5_1 dev=2 coll"},
			[]string{"collnet mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.24.3, separate NICs: vNics of one", "switch", "2.24.3", both, []string{"mlx5_0 dev=2 coll", "mlx5_1 dev=3 coll"},
			[]string{"collnet mlx5_0: TOPO/NET : Made vNic 2", "collnet mlx5_1: TOPO/NET : Made vNic 3", "net mlx5_0: TOPO/NET : Made vNic 2", "net mlx5_1: TOPO/NET : Made vNic 3"}},
		{"2.27.3, CollNet without makeVDevice", "one-nic", "2.27.3", netOnly, []string{"mlx5_0+mlx5_1 dev=2"}, []string{"net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.28.3, CollNet without makeVDevice", "two-functions", "2.28.3", netOnly, []string{"mlx5_0+mlx5_1 dev=2"}, []string{"net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.27.3, CollNet with makeVDevice", "one-nic", "2.27.3", both, []string{"mlx5_0+mlx5_1 dev=2 coll"},
			[]string{"collnet mlx5_0+mlx5_1: TOPO/NET : Made vNic 2", "net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.27.3, CollNet alone fuses: ports and vNic", "one-nic", "2.27.3", collOnly,
			append(slices.Clone(ports), "mlx5_0+mlx5_1 dev=2 coll"), []string{"collnet mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.30.3, CollNet without makeVDevice", "one-nic", "2.30.3", netOnly, []string{"mlx5_0+mlx5_1 dev=2"}, []string{"net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.30.7, CollNet without makeVDevice", "one-nic", "2.30.7", netOnly, []string{"mlx5_0+mlx5_1 dev=2"}, []string{"net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.30.7, CollNet with makeVDevice", "one-nic", "2.30.7", both, []string{"mlx5_0+mlx5_1 dev=2 coll"},
			[]string{"collnet mlx5_0+mlx5_1: TOPO/NET : Made vNic 2", "net mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
		{"2.30.7, CollNet alone fuses: ports without CollNet", "one-nic", "2.30.7", collOnly,
			[]string{"mlx5_0 dev=0", "mlx5_1 dev=1"}, []string{"collnet mlx5_0+mlx5_1: TOPO/NET : Made vNic 2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := mustXML(t, coll(fusionXML[tc.machine]))
			got, made := collNets(t, x, paramsAt(t, tc.release), tc.o)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("NETs (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.made, made); d != "" {
				t.Errorf("vNics made (-want +got):\n%s", d)
			}
		})
	}
}
