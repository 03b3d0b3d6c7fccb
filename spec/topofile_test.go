package spec

import (
	"os"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/topo"
)

// The captured machine's topology dump reads back as the machine the
// h200x2 preset describes, and NCCL's choices on it follow.
func TestNodeFromTopologyCaptured(t *testing.T) {
	data, err := os.ReadFile("../golden/testdata/captured/h200x2-2.28.9/baseline/topo.xml")
	if err != nil {
		t.Fatal(err)
	}
	n, err := NodeFromTopology("topo.xml", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.GPUs) != 2 || n.GPUs[0].SM != 90 || !n.NVSwitch || n.GPUs[0].NVLinks != 18 || n.GPUs[1].BusID != "0000:00:07.0" {
		t.Errorf("GPUs %+v NVSwitch %v", n.GPUs, n.NVSwitch)
	}
	if len(n.NICs) != 0 || len(n.IPInterfaces) != 1 || n.IPInterfaces[0] != "eth0" || n.CPU.Vendor != "Intel" || n.CPU.Model != "erp" {
		t.Errorf("NICs %+v IP %v CPU %+v", n.NICs, n.IPInterfaces, n.CPU)
	}
	sys, err := SystemFromTopology("topo.xml", data, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Init(MustLoad(V2_28_9), sys, Env{"NCCL_NVLS_ENABLE": "0"})
	if err != nil {
		t.Fatal(err)
	}
	preset, _ := Preset("h200x2", PresetOptions{})
	c2, err := Init(MustLoad(V2_28_9), preset, Env{"NCCL_NVLS_ENABLE": "0"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Topo.Summary != c2.Topo.Summary || c.NChannels != c2.NChannels {
		t.Errorf("from the dump: %q (%d channels); preset: %q (%d)", c.Topo.Summary, c.NChannels, c2.Topo.Summary, c2.NChannels)
	}
	if _, err := NodeFromTopology("bad.xml", []byte("<system version=\"1\"><cpu")); err == nil {
		t.Error("truncated XML accepted")
	}
}

// NodeFromTopology never panics: bad XML is an error naming the file.
func FuzzNodeFromTopology(f *testing.F) {
	data, err := os.ReadFile("../golden/testdata/captured/h200x2-2.28.9/baseline/topo.xml")
	if err != nil {
		f.Fatalf("committed capture missing: %v", err)
	}
	f.Add(data)
	// hostile inputs: negative or zero link counts and speeds, duplicate
	// and negative GPU devs, an entity, deep nesting
	for _, r := range [][2]string{{`count="18"`, `count="-18"`}, {`count="18"`, `count="0"`}, {`speed="10000"`, `speed="-400000"`},
		{`<gpu dev="1"`, `<gpu dev="0"`}, {`<gpu dev="1"`, `<gpu dev="-1"`}, {`maxconn="65536"`, `maxconn="-1"`}, {`link_width="0"`, `link_width="-16"`}} {
		f.Add([]byte(strings.Replace(string(data), r[0], r[1], 1)))
	}
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><system version="1">&e;</system>`))
	f.Add([]byte(`<system version="1">` + strings.Repeat("<pci>", 200) + `</system>`))
	f.Add([]byte(`<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><system version="1">&c;</system>`))
	f.Add([]byte(`<system version="1"><cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143"><pci busid="0000:01:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="0" sm="90" rank="0" gdr="1"/></pci><nic><net name="eth0" dev="0" speed="10000" port="0" guid="0x0" maxconn="65536" gdr="0"/></nic></cpu></system>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := NodeFromTopology("fuzz.xml", data)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.xml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(n.GPUs) == 0 || n.Topo == nil {
			t.Errorf("accepted a node without GPUs or topology")
		}
	})
}

// NCCL_GRAPH_FILE's graphs replace the searches: node 0's own dumped graphs
// give the same communicator, a ring cut to 2 channels gives fewer.
func TestGraphFileReplacesTheSearch(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := MustLoad(V2_28_9)
	base, err := Init(rs, sys, Env{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := base.Topo.WriteGraphXML(&b, 0); err != nil {
		t.Fatal(err)
	}
	graphs, err := topo.ParseGraphXML("graph.xml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	with := *sys
	with.GraphFile = graphs
	same, err := Init(rs, &with, Env{"NCCL_GRAPH_FILE": "graph.xml"})
	if err != nil {
		t.Fatal(err)
	}
	if same.NChannels != base.NChannels || same.Topo.Summary != base.Topo.Summary {
		t.Errorf("the dumped graphs give %d channels (%q), the search %d (%q)", same.NChannels, same.Topo.Summary, base.NChannels, base.Topo.Summary)
	}
	if v, _ := same.Trace.Find("G-TOPO-1"); !strings.Contains(v.Why, "from NCCL_GRAPH_FILE") {
		t.Errorf("G-TOPO-1 does not say the graphs came from the file: %s", v.Why)
	}
	for i := range graphs {
		if graphs[i].ID == 0 || graphs[i].ID == 1 { // ring and tree: keep 2 channels
			graphs[i].Channels = graphs[i].Channels[:2]
			graphs[i].NChannels = 2
		}
	}
	with.GraphFile = graphs
	cut, err := Init(rs, &with, Env{"NCCL_GRAPH_FILE": "graph.xml"})
	if err != nil {
		t.Fatal(err)
	}
	if cut.NChannels >= base.NChannels {
		t.Errorf("a 2-channel ring and tree give %d communicator channels (search: %d)", cut.NChannels, base.NChannels)
	}
	if v, _ := base.Trace.Find("G-TOPO-1"); strings.Contains(v.Why, "NCCL_GRAPH_FILE") {
		t.Errorf("without the variable G-TOPO-1 mentions it: %s", v.Why)
	}
}
