package calibrate

import (
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// The NVL72 rack's figure runs as NCCL 2.26.2 runs it (docs/calibration.md
// "What the model runs at 72 ranks"): NVLS on 32 channels with 32 heads of
// the 72 ranks (NCCL_MAX_NVLS_ARITY; v2.26.2-1 src/graph/search.cc
// ncclTopoCompute), so a head's busiest NVLink direction carries the
// buffer and its 1/32 share, S·(1 + 1/32).
func TestNVL72RunsAsNCCL(t *testing.T) {
	var f Figure
	for _, x := range Figures() {
		if x.System == "gb200-nvl72" && x.Nodes == 18 {
			f = x
		}
	}
	if f.Release != spec.V2_26_2 {
		t.Fatalf("the rack's figure: %+v", f)
	}
	rs, err := spec.Load(f.Release)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.Preset(f.System, spec.PresetOptions{Nodes: f.Nodes})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := plan.Build(rs, sys, f.Env, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Layout.NNodes != 1 || pc.Layout.LocalRanks != 72 || len(pc.Layout.NVLSHeads) != 32 {
		t.Fatalf("%d node(s) of %d ranks with %d NVLS heads, want 1 of 72 with 32", pc.Layout.NNodes, pc.Layout.LocalRanks, len(pc.Layout.NVLSHeads))
	}
	d, _, err := pc.Decide(spec.Op{Func: f.Func, Count: f.Bytes / 4, DataType: spec.Float32, RedOp: spec.Sum})
	if err != nil || d.Err != nil {
		t.Fatalf("decide: %v %v", err, d.Err)
	}
	if d.Algo != spec.NVLS || d.Proto != spec.Simple || d.NChannels != 32 {
		t.Fatalf("NCCL runs %s/%s on %d channels, want NVLS/Simple on 32", d.Algo, d.Proto, d.NChannels)
	}
	o, sel, cfg, err := pc.Decided(d)
	if err != nil {
		t.Fatal(err)
	}
	s, err := algos.Build(o, sel, pc.Layout, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.MaxLinkBytes["nvlink"], f.Bytes+f.Bytes/32; got != want {
		t.Errorf("busiest NVLink carries %d bytes, want S·(1 + 1/32) = %d", got, want)
	}
}
