package spec

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/topo"
)

// TestMLOPartRefused: from 2.30.7 NCCL reads a <gpu>'s mlopart attribute
// (the "MLOPart<n>" of an MLOPart-partitioned GPU's CUDA name) and splits
// the GPU into DEV nodes; gatesim does not model the split, so such a
// topology is refused at 2.30.7 and accepted, as NCCL ignores the
// attribute, at 2.30.4. mlopart="-1", what 2.30.7 writes for every other
// GPU, is accepted.
// Ref: v2.30.7-1 src/graph/topo.cc ncclTopoAddGpuSub, ncclTopoGetSystem; src/init.cc fillInfo
func TestMLOPartRefused(t *testing.T) {
	s, err := topo.Synthesize(topo.PresetDGXB200())
	if err != nil {
		t.Fatal(err)
	}
	withPart := func(part string) *topo.XMLNode {
		x := s.Source.Clone()
		var gpu *topo.XMLNode
		var walk func(n *topo.XMLNode)
		walk = func(n *topo.XMLNode) {
			for _, c := range n.Subs {
				if c.Name == "gpu" && gpu == nil {
					gpu = c
				}
				walk(c)
			}
		}
		walk(x)
		if gpu == nil {
			t.Fatal("the DGX B200 topology has no <gpu>")
		}
		gpu.SetAttr("mlopart", part)
		return x
	}
	for _, tc := range []struct {
		v    Version
		part string
		err  string
	}{
		{V2_30_7, "0", `<gpu mlopart=0>: an MLOPart partition, which NCCL 2.30.7 splits`},
		{V2_30_7, "1", `<gpu mlopart=1>: an MLOPart partition`},
		{V2_30_7, "-1", ""},
		{V2_30_4, "0", ""},
	} {
		p, err := TopoParamsFor(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		_, err = topo.BuildSystem("topo.xml", withPart(tc.part), p)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s mlopart=%s: %v, want the topology built", tc.v, tc.part, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s mlopart=%s: error %v, want one naming %q", tc.v, tc.part, err, tc.err)
		}
	}
	// the message names the release the rules are of, not a constant: a
	// later release that keeps the rule inherits it
	p, err := TopoParamsFor(V2_30_7)
	if err != nil {
		t.Fatal(err)
	}
	p.Release = V2_30_4 // any other value
	if _, err := topo.BuildSystem("topo.xml", withPart("0"), p); err == nil || !strings.Contains(err.Error(), "NCCL 2.30.4 splits") {
		t.Errorf("rules of release 2.30.4: %v", err)
	}
}
