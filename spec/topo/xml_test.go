package topo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestParseTopologyErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `t.xml:1: no <system> element: expected the file to start with <system version="1">`},
		{"text", "hello", `t.xml:1: unexpected text 'h': expected '<'`},
		{"declaration", "<?xml version=\"1.0\"?>\n<system version=\"1\"/>", `t.xml:1: <?...> declarations are not accepted by NCCL's XML parser`},
		{"unclosed", "<system version=\"1\">\n<cpu numaid=\"0\">\n</system>", `t.xml:3: </system> closes <cpu> opened at line 2: expected </cpu>`},
		{"never closed", "<system version=\"1\">\n  <cpu numaid=\"0\">", `t.xml:2: <cpu> is never closed: expected </cpu>`},
		{"no version", "<system>\n</system>", `t.xml:1: <system> without version attribute: expected version="1"`},
		{"wrong version", "<system version=\"2\"/>", `t.xml:1: <system version="2">: NCCL needs version="1"`},
		{"unquoted", "<system version=1/>", `t.xml:1: <system> attribute version: expected a quoted value`},
		{"comment", "<!-- never ends", `t.xml:1: unterminated comment: expected -->`},
		{"stray close", "</system>", `t.xml:1: closing tag </system> without an opening tag`},
		{"two systems", "<system version=\"1\"/>\n<system version=\"1\"/>", `t.xml:2: second <system> element`},
		{"long value", "<system version=\"" + strings.Repeat("1", 300) + "\"/>", `t.xml:1: <system> attribute version: value too long`},
		{"missing equals", "<system version/>", `t.xml:1: <system> attribute version: expected '='`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTopologyXML("t.xml", []byte(tc.in))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error\n got %q\nwant prefix %q", err, tc.want)
			}
		})
	}
}

func TestParseTopologyIgnoresWhatNCCLIgnores(t *testing.T) {
	in := `<system version="1">
  <!-- a comment -->
  <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD">
    <foo bar="1"><pci busid="0000:01:00.0"/></foo>
    <pci busid='0000:18:00.0' class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="90" rank="0" gdr="1">
        <unknown/>
        <nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/>
      </gpu>
    </pci>
  </cpu>
  <gpu dev="9"/>
</system>
`
	d, err := ParseTopologyDoc("t.xml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t.xml:4: <foo>", "t.xml:7: <unknown>", "t.xml:12: <gpu>"}
	if strings.Join(d.Ignored, ",") != strings.Join(want, ",") {
		t.Errorf("ignored %q, want %q", d.Ignored, want)
	}
	cpu := d.Root.Subs[0]
	if len(d.Root.Subs) != 1 || len(cpu.Subs) != 1 || cpu.Subs[0].Sub("gpu").Subs[0].Name != "nvlink" {
		t.Fatalf("kept tree:\n%s", d.Root)
	}
	if v, _ := cpu.Subs[0].Attr("busid"); v != "0000:18:00.0" {
		t.Errorf("single-quoted value read as %q", v)
	}
}

func TestWriteXMLFormat(t *testing.T) {
	x := &XMLNode{Name: "system", Attrs: []XMLAttr{{"version", "1"}}}
	c := x.Add("cpu", XMLAttr{"numaid", "0"}, XMLAttr{"arch", "x86_64"})
	c.Add("nic").Add("net", XMLAttr{"name", "eth0"}, XMLAttr{"dev", "0"})
	x.Add("cpu", XMLAttr{"numaid", "1"})
	want := `<system version="1">
  <cpu numaid="0" arch="x86_64">
    <nic>
      <net name="eth0" dev="0"/>
    </nic>
  </cpu>
  <cpu numaid="1"/>
</system>
`
	if got := x.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The extra attributes beyond NCCL's 16 are dropped, as xmlGetNode does.
func TestParseDropsExtraAttributes(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<system version="1"`)
	for i := 0; i < 20; i++ {
		b.WriteString(` a` + string(rune('a'+i)) + `="1"`)
	}
	b.WriteString("/>")
	x, err := ParseTopologyXML("t.xml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Attrs) != xmlMaxAttrs {
		t.Errorf("%d attributes kept, want %d", len(x.Attrs), xmlMaxAttrs)
	}
}

// genNodeSpec draws a small but varied host.
func genNodeSpec(t *rapid.T) NodeSpec {
	sockets := rapid.IntRange(1, 2).Draw(t, "sockets")
	spec := NodeSpec{Name: "gen", Sockets: sockets}
	switch rapid.IntRange(0, 3).Draw(t, "cpu") {
	case 0:
		spec.CPUArch, spec.CPUVendor, spec.CPUModel = "x86_64", "Intel", rapid.SampledFrom([]string{"bdw", "skl", "srp", "erp"}).Draw(t, "model")
	case 1:
		spec.CPUArch, spec.CPUVendor = "x86_64", "AMD"
	case 2:
		spec.CPUArch = "arm64"
	default:
		spec.CPUArch = "ppc64"
	}
	spec.NUMAUnknown = sockets == 1 && rapid.Bool().Draw(t, "numaunknown")
	nsw := rapid.IntRange(0, 4).Draw(t, "switches")
	for i := 0; i < nsw; i++ {
		parent := -1
		if i > 0 && rapid.Bool().Draw(t, "nested") {
			parent = rapid.IntRange(0, i-1).Draw(t, "parent")
		}
		numa := rapid.IntRange(0, sockets-1).Draw(t, "swnuma")
		if parent >= 0 {
			numa = spec.Switches[parent].NUMA
		}
		spec.Switches = append(spec.Switches, SwitchSpec{NUMA: numa, PCIGen: rapid.IntRange(3, 5).Draw(t, "swgen"), Parent: parent})
	}
	ngpu := rapid.IntRange(1, 6).Draw(t, "gpus")
	sm := rapid.SampledFrom([]int{70, 80, 86, 90, 100}).Draw(t, "sm")
	spec.NVSwitch = sm >= 80 && rapid.Bool().Draw(t, "nvswitch")
	for d := 0; d < ngpu; d++ {
		g := GPUSpec{Dev: d, SM: sm, PCIGen: rapid.IntRange(3, 5).Draw(t, "gen"), PCIWidth: rapid.SampledFrom([]int{8, 16}).Draw(t, "width"), Switch: -1}
		if nsw > 0 && rapid.Bool().Draw(t, "onswitch") {
			g.Switch = rapid.IntRange(0, nsw-1).Draw(t, "gpusw")
			g.NUMA = spec.Switches[g.Switch].NUMA
		} else {
			g.NUMA = rapid.IntRange(0, sockets-1).Draw(t, "gpunuma")
		}
		if spec.NVSwitch {
			g.NVLinks = rapid.IntRange(1, 18).Draw(t, "nvlinks")
		} else if d > 0 && rapid.Bool().Draw(t, "peered") {
			g.Peers = map[int]int{rapid.IntRange(0, d-1).Draw(t, "peer"): rapid.IntRange(1, 4).Draw(t, "links")}
		}
		spec.GPUs = append(spec.GPUs, g)
	}
	nnic := rapid.IntRange(0, 3).Draw(t, "nics")
	for i := 0; i < nnic; i++ {
		n := NICSpec{SpeedMbps: rapid.SampledFrom([]int{-1, 10000, 100000, 200000, 400000}).Draw(t, "speed"), GDR: rapid.Bool().Draw(t, "gdr"), Switch: -1}
		if nsw > 0 && rapid.Bool().Draw(t, "nicsw") {
			n.Switch = rapid.IntRange(0, nsw-1).Draw(t, "nicswi")
			n.NUMA = spec.Switches[n.Switch].NUMA
		} else {
			n.NUMA = rapid.IntRange(0, sockets-1).Draw(t, "nicnuma")
			n.NoPCI = rapid.Bool().Draw(t, "nopci")
		}
		n.Socket = rapid.Bool().Draw(t, "socket")
		spec.NICs = append(spec.NICs, n)
	}
	return spec
}

// Writing a parsed tree and parsing it again gives the same tree: what
// gatesim writes, NCCL_TOPO_FILE (and gatesim) read back unchanged.
func TestTopologyXMLRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x, err := SynthesizeXML(genNodeSpec(t))
		if err != nil {
			t.Fatal(err)
		}
		text := x.String()
		y, err := ParseTopologyXML("gen.xml", []byte(text))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if y.String() != text {
			t.Fatalf("round trip changed the XML:\n%s\n---\n%s", text, y.String())
		}
	})
}

func FuzzParseTopologyXML(f *testing.F) {
	for _, name := range PresetNames() {
		x, err := SynthesizeXML(Presets()[name])
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(x.String()))
	}
	files, _ := filepath.Glob("testdata/public/*.xml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="85"><pci busid="0000:01:00.0" class="0x030200" link_speed="" link_width="0"><gpu dev="0" sm="70" rank="0" gdr="0"/></pci></cpu></system>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := ParseTopologyXML("fuzz.xml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.xml:") {
				t.Fatalf("error without file and line: %v", err)
			}
			return
		}
		text := x.String()
		y, err := ParseTopologyXML("fuzz2.xml", []byte(text))
		if err != nil {
			t.Fatalf("written XML does not parse: %v\n%s", err, text)
		}
		if y.String() != text {
			t.Fatalf("round trip changed the XML")
		}
		// The model and its paths must build or fail cleanly. The search is
		// left out: its budgets allow seconds per input, too slow to fuzz.
		for _, p := range []Params{Params2_22_3(), Params2_28_3(), Params2_28_9()} {
			s, err := BuildSystem("fuzz.xml", x, p)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fuzz.xml") {
					t.Fatalf("build error without file name: %v", err)
				}
				continue
			}
			if len(s.Nodes[GPU]) <= 16 && len(s.Nodes[NET]) <= 16 {
				ps := &pathState{p: p, o: DefaultOptions()}
				_ = ps.computePaths(s)
			}
		}
	})
}
