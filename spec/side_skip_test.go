package spec

import (
	"fmt"
	"testing"
)

// TestSideAndCTAPolicyNeverSkipWhereNCCLActs: over every release, window,
// registered and user buffers, stream and graph launches, CTA policies
// unset, EFFICIENCY and ZERO, on one node with NVLS (dgx-h100) and without
// (h200x2): whenever an operation left the cost table (a symmetric
// kernel, the copy engines) G-SEL-SIDE-1 says pass, and whenever the CTA
// policy moved it to NVLS G-SEL-CTAPOL-1 says pass; window buffers that
// stay in the cost table get a failing G-SEL-SIDE-1 that says why, and a
// registered AllGather/ReduceScatter under EFFICIENCY that keeps its pick
// a failing G-SEL-CTAPOL-1. "skip" is left for operations NCCL does not
// look at twice (user buffers, another policy).
func TestSideAndCTAPolicyNeverSkipWhereNCCLActs(t *testing.T) {
	systems := map[string]*System{}
	for _, name := range []string{"h200x2", "dgx-h100"} {
		sys, err := Preset(name, PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		systems[name] = sys
	}
	ops := []Op{
		{Func: AllReduce, Count: 1 << 10, DataType: Float32, RedOp: Sum},
		{Func: AllReduce, Count: 16 << 20, DataType: Bfloat16, RedOp: Sum},
		{Func: AllGather, Count: 16 << 20, DataType: Float32},
		{Func: ReduceScatter, Count: 1 << 20, DataType: Float16, RedOp: Sum},
		{Func: AllReduce, Count: 1 << 20, DataType: Int32, RedOp: Max},
	}
	acted := map[RuleID]int{}
	for _, v := range Releases {
		for name, sys := range systems {
			for _, pol := range []string{"", "1", "2"} {
				env := Env{}
				if name == "h200x2" {
					env["NCCL_NVLS_ENABLE"] = "0"
				}
				if pol != "" {
					env["NCCL_CTA_POLICY"] = pol
				}
				c, err := Init(MustLoad(v), sys, env)
				if err != nil {
					t.Fatal(err)
				}
				for _, buf := range []Buffers{BuffersUser, BuffersRegistered, BuffersWindow} {
					for _, mode := range []LaunchMode{LaunchStream, LaunchGraph} {
						for _, op := range ops {
							g, err := c.SelectGroup([]GroupOp{{Op: op, Buffers: buf}}, Launch{Mode: mode})
							if buf == BuffersWindow && !c.Model.Tuning.Symmetric {
								// no ncclCommWindowRegister at this release: refused
								if err == nil {
									t.Fatalf("%s %s: a window op accepted at a release without windows", v, name)
								}
								continue
							}
							if err != nil {
								t.Fatal(err)
							}
							d, tr := g.Ops[0], g.Traces[0]
							where := fmt.Sprintf("%s %s policy %q %s %s %v %d", v, name, pol, buf, mode, op.Func, op.Count)
							side, hasSide := tr.Find("G-SEL-SIDE-1")
							if d.DecidedBy == "G-SEL-SIDE-1" {
								acted["G-SEL-SIDE-1"]++
								if !hasSide || side.Outcome == Skip {
									t.Errorf("%s: decided by G-SEL-SIDE-1 (%s) but its verdict is %+v", where, d.Kernel, side)
								}
							}
							if hasSide && buf == BuffersWindow && side.Outcome == Skip {
								t.Errorf("%s: window buffers, G-SEL-SIDE-1 skips: %s", where, side.Why)
							}
							pv, hasPol := tr.Find("G-SEL-CTAPOL-1")
							if d.DecidedBy == "G-SEL-CTAPOL-1" {
								acted["G-SEL-CTAPOL-1"]++
								if !hasPol || pv.Outcome != Pass {
									t.Errorf("%s: decided by G-SEL-CTAPOL-1 but its verdict is %+v", where, pv)
								}
							}
							if hasPol && pol == "1" && buf != BuffersWindow && (op.Func == AllGather || op.Func == ReduceScatter) && pv.Outcome == Skip {
								t.Errorf("%s: CTA policy EFFICIENCY on %v: G-SEL-CTAPOL-1 skips: %s", where, op.Func, pv.Why)
							}
						}
					}
				}
			}
		}
	}
	// the table above must reach both paths, or it proves nothing
	if acted["G-SEL-SIDE-1"] == 0 || acted["G-SEL-CTAPOL-1"] == 0 {
		t.Errorf("decisions by the side paths %d, by the CTA policy %d: want both", acted["G-SEL-SIDE-1"], acted["G-SEL-CTAPOL-1"])
	}
}
