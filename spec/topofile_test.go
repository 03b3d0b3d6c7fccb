package spec

import (
	"os"
	"testing"
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
