package diagnose

import (
	"os"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// TestInferPlugin: which aws-ofi-nccl a log's own lines name, how, and
// why not (the launcher suffix of Ray logs read too).
func TestInferPlugin(t *testing.T) {
	const pre = "h:1:2 [0] NCCL INFO NET/OFI "
	for _, tc := range []struct {
		name    string
		lines   []string
		guess   string // "": nil
		usable  bool
		how     string
		tunerOf string // the tuner Model the libraries carry
	}{
		{"no OFI lines", []string{"h:1:2 [0] NCCL INFO NCCL version 2.28.9+cuda12.9"}, "", false, "", ""},
		{"version and the tuner's platform", []string{pre + "Initializing aws-ofi-nccl 1.18.0", pre + "NCCL_OFI_TUNER is not available for platform : g7e.8xlarge, Fall back to NCCL's tuner"},
			"aws-ofi-nccl@1.18.0:g7e.8xlarge", true, "version 1.18.0 from line 1, instance type g7e.8xlarge from line 2", ""},
		{"a tuned platform", []string{pre + "Initializing aws-ofi-nccl 1.18.0", pre + "Region base Tuner is chosen for platform: p5en.48xlarge [repeated 7x across cluster]"},
			"aws-ofi-nccl@1.18.0:p5en.48xlarge", true, "instance type p5en.48xlarge from line 2", "aws-ofi-nccl@1.18.0:p5en.48xlarge"},
		{"a tuned platform whose tuner is not modelled", []string{pre + "Initializing aws-ofi-nccl 1.21.0", pre + "Region base Tuner is chosen for platform: p5en.48xlarge"},
			"aws-ofi-nccl@1.21.0:p5en.48xlarge", false, "getChunkSize", ""},
		{"1.7.x prints Using, no platform, no GDR", []string{pre + "Using aws-ofi-nccl 1.7.4-aws", pre + "Could not disable CUDA API usage for HMEM, disabling GDR"},
			"aws-ofi-nccl@1.7.4-aws", true, "no GDR from line 2", ""},
		{"version alone", []string{pre + "Initializing aws-ofi-nccl 1.16.2", pre + "Tuner selected platform: AWS"},
			"aws-ofi-nccl@1.16.2", false, "names neither the instance type", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ncclog.Parse(strings.NewReader(strings.Join(tc.lines, "\n")+"\n"), "t.log")
			if err != nil {
				t.Fatal(err)
			}
			g := InferPlugin(l)
			if tc.guess == "" {
				if g != nil {
					t.Fatalf("guess %+v, want none", g)
				}
				return
			}
			if g == nil || g.Name != tc.guess || (len(g.Libs) > 0) != tc.usable || !strings.Contains(g.How+g.Missing, tc.how) {
				t.Fatalf("guess %+v, want %s usable %v saying %q", g, tc.guess, tc.usable, tc.how)
			}
			if tc.tunerOf != "" && (g.Libs[0].Tuner == nil || g.Libs[0].Tuner.Model != tc.tunerOf) {
				t.Errorf("tuner %+v, want the modelled %s", g.Libs[0].Tuner, tc.tunerOf)
			}
			r := Diagnose(l, Options{})
			id := "net-plugin.logged"
			if !tc.usable {
				id = "net-plugin.logged-partly"
			}
			found := false
			for _, f := range r.Findings {
				found = found || (f.ID == id && strings.Contains(f.Title, tc.guess))
			}
			if !found {
				t.Errorf("no finding %s naming %s in %+v", id, tc.guess, r.Findings)
			}
		})
	}
}

// TestPredictTakesLoggedPlugin: a machine given without a net plugin is
// predicted with the one the log names (the g7e log: Libfabric, the
// plugin's NCCL_PROTO=simple); one given with a plugin keeps its own.
func TestPredictTakesLoggedPlugin(t *testing.T) {
	dir := "../golden/testdata/public/aws-g7e-2nodes-efa-2.29.2/"
	data, err := os.ReadFile(dir + "log.txt")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ncclog.Parse(strings.NewReader(string(data)), "log.txt")
	if err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile("../golden/testdata/public/machines/aws-g7e-8xlarge/topo.xml")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.SystemFromTopology("topo.xml", xml, 2)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Predict(l, 0, sys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Plugin == nil || p.Plugin.Name != "aws-ofi-nccl@1.18.0:g7e.8xlarge" {
		t.Fatalf("prediction's plugin %+v, want the logged aws-ofi-nccl@1.18.0:g7e.8xlarge", p.Plugin)
	}
	net := ""
	for _, v := range p.Trace {
		if v.Rule == "G-NET-STATE-1" || v.Rule == "G-NET-ABI-1" {
			net += v.Why + ";"
		}
	}
	if !strings.Contains(net, "Libfabric") {
		t.Errorf("net gates %q: expected the logged plugin's network Libfabric", net)
	}
	libs, err := spec.OFIPlugin("1.17.0", "g6.8xlarge")
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = libs
	}
	if p, err = Predict(l, 0, sys, nil, nil); err != nil || p.Plugin != nil {
		t.Errorf("a machine with its own plugin: plugin %+v, %v; want it kept", p.Plugin, err)
	}
}
