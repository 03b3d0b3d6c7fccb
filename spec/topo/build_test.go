package topo

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func mustSynth(t testing.TB, spec NodeSpec) *System {
	t.Helper()
	s, err := Synthesize(spec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPreset(t testing.TB, name string) *System {
	t.Helper()
	spec, ok := Presets()[name]
	if !ok {
		t.Fatalf("no preset %q", name)
	}
	return mustSynth(t, spec)
}

func releases() []Params { return []Params{Params2_22_3(), Params2_28_3(), Params2_28_9()} }

// linkBw is the bandwidth of the first link of type lt from a node of type
// from to a node of type to.
func linkBw(s *System, from NodeType, lt LinkType, to NodeType) float32 {
	for _, n := range s.Nodes[from] {
		for _, l := range n.Links {
			if l.Type == lt && l.Remote.Type == to {
				return l.Bw
			}
		}
	}
	return -1
}

// The bandwidth constants of src/graph/topo.h and the way
// ncclTopoGetSystemFromXml combines them, per release.
func TestBuildBandwidths(t *testing.T) {
	withNVLinks := func(sm, n int) NodeSpec {
		s := PresetH200x2()
		for i := range s.GPUs {
			s.GPUs[i].SM, s.GPUs[i].NVLinks = sm, n
		}
		return s
	}
	withPCI := func(gen, width int) NodeSpec {
		s := PresetH200x2()
		s.Switches = nil
		for i := range s.GPUs {
			s.GPUs[i].PCIGen, s.GPUs[i].PCIWidth, s.GPUs[i].Switch = gen, width, -1
		}
		return s
	}
	withCPU := func(vendor, model string) NodeSpec {
		s := PresetH200x2()
		s.Sockets, s.NUMAUnknown = 2, false
		s.CPUVendor, s.CPUModel = vendor, model
		return s
	}
	withNIC := func(mbps int) NodeSpec {
		s := PresetH200x2()
		s.NICs[0].SpeedMbps = mbps
		return s
	}
	arm := PresetH200x2()
	arm.CPUArch, arm.Sockets, arm.NUMAUnknown = "arm64", 2, false
	tests := []struct {
		name     string
		spec     NodeSpec
		p        Params
		from     NodeType
		lt       LinkType
		to       NodeType
		want     float32
		wantText string
	}{
		{"sm90 18 NVLinks", withNVLinks(90, 18), Params2_28_9(), GPU, LinkNVL, NVS, 370.8, "370.8"},
		{"sm80 12 NVLinks", withNVLinks(80, 12), Params2_28_9(), GPU, LinkNVL, NVS, 240, "240.0"},
		{"sm86 4 NVLinks", withNVLinks(86, 4), Params2_28_9(), GPU, LinkNVL, NVS, 48, "48.0"},
		{"sm100 18 NVLinks 2.28", withNVLinks(100, 18), Params2_28_9(), GPU, LinkNVL, NVS, 721.8, "721.8"},
		{"sm100 18 NVLinks 2.22.3 has no SM100 rate", withNVLinks(100, 18), Params2_22_3(), GPU, LinkNVL, NVS, 370.8, "370.8"},
		{"PCIe Gen5 x16", withPCI(5, 16), Params2_28_9(), GPU, LinkPCI, CPU, 48, "48.0"},
		{"PCIe Gen4 x16", withPCI(4, 16), Params2_28_9(), GPU, LinkPCI, CPU, 24, "24.0"},
		{"PCIe Gen3 x8", withPCI(3, 8), Params2_28_9(), GPU, LinkPCI, CPU, 6, "6.0"},
		{"PCIe Gen6 x16", withPCI(6, 16), Params2_28_9(), GPU, LinkPCI, CPU, 96, "96.0"},
		{"NDR 400G", withNIC(400000), Params2_28_9(), NIC, LinkNET, NET, 50, "50.0"},
		{"HDR 200G", withNIC(200000), Params2_28_9(), NIC, LinkNET, NET, 25, "25.0"},
		{"speed -1 counts as 10G", withNIC(-1), Params2_28_9(), NIC, LinkNET, NET, 1.25, "1.2"},
		{"Intel SPR 2.28", withCPU("Intel", "srp"), Params2_28_9(), CPU, LinkSYS, CPU, 22, "22.0"},
		{"Intel SPR in 2.22.3 is SKL", withCPU("Intel", "srp"), Params2_22_3(), CPU, LinkSYS, CPU, 10, "10.0"},
		{"Intel ERP 2.28", withCPU("Intel", "erp"), Params2_28_3(), CPU, LinkSYS, CPU, 40, "40.0"},
		{"Intel BDW", withCPU("Intel", "bdw"), Params2_28_9(), CPU, LinkSYS, CPU, 6, "6.0"},
		{"AMD", withCPU("AMD", ""), Params2_28_9(), CPU, LinkSYS, CPU, 16, "16.0"},
		{"ARM", arm, Params2_28_9(), CPU, LinkSYS, CPU, 6, "6.0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s0 := mustSynth(t, tc.spec)
			s, err := s0.ForRelease(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			// NCCL keeps bandwidths in float (18 × 20.6f is 370.80002) and
			// prints them with %2.1f.
			got := linkBw(s, tc.from, tc.lt, tc.to)
			if text := fmt.Sprintf("%2.1f", got); text != tc.wantText || math.Abs(float64(got-tc.want)) > 1e-3 {
				t.Errorf("%s-%s->%s bw %v (%s), want %v (%s)", tc.from, tc.lt, tc.to, got, text, tc.want, tc.wantText)
			}
		})
	}
}

// Several <nvlink> elements to NVSwitches aggregate on one GPU→NVS link, as
// in the HGX H200 dump of NVIDIA/nccl-tests#256 (5+5+4+4 links).
func TestBuildNVSwitchAggregation(t *testing.T) {
	in := `<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">
    <pci busid="0000:18:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="90" rank="0" gdr="1">
        <nvlink target="0000:07:00.0" count="5" tclass="0x068000"/>
        <nvlink target="0000:06:00.0" count="5" tclass="0x068000"/>
        <nvlink target="0000:05:00.0" count="4" tclass="0x068000"/>
        <nvlink target="0000:08:00.0" count="4" tclass="0x068000"/>
      </gpu>
    </pci>
  </cpu>
</system>`
	x, err := ParseTopologyXML("t.xml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	s, err := BuildSystem("t.xml", x, Params2_28_9())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Nodes[NVS]) != 1 {
		t.Fatalf("%d NVS nodes, want one", len(s.Nodes[NVS]))
	}
	// float32 sum of 103 + 103 + 82.4 + 82.4, the way NCCL adds them.
	want := float32(float32(float32(float32(5*20.6)+float32(5*20.6))+float32(4*20.6)) + float32(4*20.6))
	if got := linkBw(s, GPU, LinkNVL, NVS); got != want {
		t.Errorf("GPU→NVS %v, want %v", got, want)
	}
	if _, _, model := s.CPUType(); model != ModelIntelERP {
		t.Errorf("modelid 207 read as model %d, want ERP", model)
	}
}

// Broadcom Gen4 PEX switches that present two levels are flattened into one
// (ncclTopoFlattenBcmSwitches): DGX A100's 12 switch elements become 4.
func TestBuildFlattensBroadcomSwitches(t *testing.T) {
	s := mustPreset(t, "dgx-a100")
	if n := len(s.Source.String()) - len(strings.ReplaceAll(s.Source.String(), `class="0x060400"`, "")); n/len(`class="0x060400"`) != 12 {
		t.Fatalf("preset should write 12 switch elements")
	}
	if got := len(s.Nodes[PCI]); got != 4 {
		t.Errorf("%d PCI switches after flattening, want 4", got)
	}
	for _, sw := range s.Nodes[PCI] {
		if sw.Device&0xffff != 0xffff {
			t.Errorf("switch %s not marked flattened: %x", sw.Name(), sw.Device)
		}
	}
}

// A <c2c> link is LINK_C2C from 2.24 and an NVLink before.
func TestBuildC2CLinkType(t *testing.T) {
	s := mustPreset(t, "gb200")
	for _, tc := range []struct {
		p    Params
		want LinkType
	}{{Params2_22_3(), LinkNVL}, {Params2_28_3(), LinkC2C}, {Params2_28_9(), LinkC2C}} {
		r, err := s.ForRelease(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if bw := linkBw(r, GPU, tc.want, CPU); bw != 450 {
			t.Errorf("%s: GPU-%s->CPU bw %v, want 450 (10 links × 45000 MB/s)", tc.p.Release, tc.want, bw)
		}
	}
}

// After ncclTopoSortSystem the link to the PCI parent comes last.
func TestBuildSortsUpLinkLast(t *testing.T) {
	s := mustPreset(t, "dgx-h100")
	for _, sw := range s.Nodes[PCI] {
		last := sw.Links[len(sw.Links)-1]
		if last.Remote.Type != CPU {
			t.Errorf("switch %s: last link goes to %s, want its CPU", sw.Name(), last.Remote.Name())
		}
	}
}

func TestBuildErrors(t *testing.T) {
	base := func(gpu string) string {
		return `<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD">
    <pci busid="0000:18:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
      ` + gpu + `
    </pci>
  </cpu>
</system>`
	}
	tests := []struct {
		name, in, want string
	}{
		{"gpu without dev", base(`<gpu sm="90" rank="0" gdr="1"/>`), `topo.xml:4: <gpu> without dev attribute: expected dev="N"`},
		{"gpu without sm", base(`<gpu dev="0"/>`), `topo.xml:4: <gpu> without sm attribute: expected sm="90"`},
		{"bad sm", base(`<gpu dev="0" sm="x"/>`), `topo.xml:4: <gpu sm="x">: "x" is not a number`},
		{"nvlink without count", base(`<gpu dev="0" sm="90"><nvlink target="0000:01:00.0" tclass="0x068000"/></gpu>`), `topo.xml:4: <nvlink> without count attribute`},
		{"no cpu", `<system version="1"/>`, `topo.xml:1: <system> has no <cpu> element`},
		{"cpu without numaid", `<system version="1"><cpu arch="x86_64"/></system>`, `topo.xml:1: <cpu> without numaid attribute`},
		{"x86 without vendor", `<system version="1"><cpu numaid="0" arch="x86_64"/></system>`, `topo.xml:1: <cpu> without vendor attribute`},
		{"intel without modelid", `<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6"/></system>`, `topo.xml:1: <cpu> without modelid attribute`},
		{"switch without link width", `<system version="1"><cpu numaid="0" arch="arm64">
<pci busid="0000:19:00.0" class="0x060400" link_speed="32.0 GT/s PCIe"/></cpu></system>`, `topo.xml:2: <pci> without link_width attribute`},
		{"pci without class", `<system version="1"><cpu numaid="0" arch="arm64"><pci busid="0000:19:00.0"/></cpu></system>`, `topo.xml:1: <pci> without class attribute`},
		{"no gpu", `<system version="1"><cpu numaid="0" arch="arm64"><pci busid="0000:01:00.0" class="0x030200" link_speed="" link_width="16"/></cpu></system>`, `topo.xml:1: no GPU`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := ParseTopologyXML("topo.xml", []byte(tc.in))
			if err == nil {
				_, err = BuildSystem("topo.xml", x, Params2_28_9())
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestNodeSpecValidate(t *testing.T) {
	bad := []struct {
		name string
		mod  func(*NodeSpec)
		want string
	}{
		{"arch", func(s *NodeSpec) { s.CPUArch = "riscv" }, `CPUArch "riscv": expected x86_64, arm64 or ppc64`},
		{"vendor", func(s *NodeSpec) { s.CPUVendor = "Via" }, `CPUVendor "Via"`},
		{"model", func(s *NodeSpec) { s.CPUModel = "icl" }, `CPUModel "icl"`},
		{"no gpu", func(s *NodeSpec) { s.GPUs = nil }, `no GPUs`},
		{"sm", func(s *NodeSpec) { s.GPUs[0].SM = 9 }, `SM 9`},
		{"dup dev", func(s *NodeSpec) { s.GPUs[1].Dev = 0 }, `dev 0 used twice`},
		{"numa", func(s *NodeSpec) { s.GPUs[0].NUMA = 3 }, `NUMA 3`},
		{"switch", func(s *NodeSpec) { s.GPUs[0].Switch = 9 }, `switch 9`},
		{"parent", func(s *NodeSpec) { s.Switches[0].Parent = 0 }, `parent 0`},
		{"numa unknown", func(s *NodeSpec) { s.NUMAUnknown = true }, `NUMAUnknown with 2 sockets`},
		{"bus id", func(s *NodeSpec) { s.GPUs[0].BusID = "0000:1b:00" }, `BusID "0000:1b:00"`},
		{"bus id twice", func(s *NodeSpec) { s.GPUs[0].BusID, s.GPUs[1].BusID = "0000:1b:00.0", "0000:1B:00.0" }, `BusID "0000:1B:00.0" used twice`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			s := PresetDGXH100()
			tc.mod(&s)
			_, err := Synthesize(s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// Every preset builds for every release and writes XML that builds the same
// model again.
func TestPresetsBuild(t *testing.T) {
	for _, name := range PresetNames() {
		s := mustPreset(t, name)
		var b strings.Builder
		if err := s.WriteXML(&b); err != nil {
			t.Fatal(err)
		}
		for _, p := range releases() {
			x, err := ParseTopologyXML(name+".xml", []byte(b.String()))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, err := BuildSystem(name, x, p); err != nil {
				t.Errorf("%s %s: %v", name, p.Release, err)
			}
		}
	}
}

// Intel Granite Rapids (family 6, model 0xAD) is newer than Emerald Rapids
// but has a lower model id, so 2.30.3's ncclTopoAddCpu takes it for
// Sapphire Rapids and ncclTopoGetInterCpuBw gives SRP_QPI_BW: the reporter
// of NVIDIA/nccl#2107 saw `SYS[22.0]` between the two sockets at 2.30.3.
// 2.22.3 knew BDW and SKL only: any model from 0x55 is SKL, SKL_QPI_BW 10
// (v2.22.3-1 src/graph/topo.cc ncclTopoAddCpu).
func TestInterCPUBwGraniteRapids(t *testing.T) {
	const in = `<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="173">
    <pci busid="0000:18:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci>
  </cpu>
  <cpu numaid="1" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="173">
    <pci busid="0000:98:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="1" sm="90" rank="1" gdr="1"/></pci>
  </cpu>
</system>`
	for _, tc := range []struct {
		release string
		want    float32
	}{{"2.30.3", srpQpiBw}, {"2.30.7", srpQpiBw}, {"2.22.3", sklQpiBw}} {
		x, err := ParseTopologyXML("t.xml", []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		s, err := BuildSystem("t.xml", x, paramsAt(t, tc.release))
		if err != nil {
			t.Fatal(err)
		}
		if got := linkBw(s, CPU, LinkSYS, CPU); got != tc.want {
			t.Errorf("%s: CPU-SYS->CPU %v, want %v", tc.release, got, tc.want)
		}
	}
}
