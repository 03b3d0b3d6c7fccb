package properties

import (
	"testing"

	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// Every plan NCCL runs on a symmetric kernel or the copy engines in a
// drawn group (window buffers, any machine, release and node count) is
// timed: one simulation per plan, holding exactly the plan's operations
// (a plan of several works is one kernel launch), a positive time, and
// network bytes only across nodes (the GIN kernels and the hierarchical
// copy engines).
func TestWindowGroupsSimulate(t *testing.T) {
	var windowed []spec.Version // the releases with ncclCommWindowRegister
	for _, v := range spec.Releases {
		if ruleset(v).Tuning.Symmetric {
			windowed = append(windowed, v)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		c := Case{Release: rapid.SampledFrom(windowed).Draw(t, "release"), System: System().Draw(t, "system")}
		if rapid.Bool().Draw(t, "env") {
			c.Env = Env().Draw(t, "vars")
		}
		comm, err := topoCache.Init(ruleset(c.Release), c.System, c.Env)
		if err != nil {
			t.Fatalf("%s: init: %v", c, err)
		}
		if comm.Err != nil || comm.Model == nil {
			return
		}
		ops := make([]spec.GroupOp, rapid.IntRange(1, 8).Draw(t, "nOps"))
		for i := range ops {
			ops[i] = spec.GroupOp{Op: Op(c.Release, c.System.NRanks()).Draw(t, "op"), InPlace: rapid.Bool().Draw(t, "inplace"), Buffers: spec.BuffersWindow}
			if rapid.IntRange(0, 3).Draw(t, "user") == 0 {
				ops[i].Buffers = spec.BuffersUser
			}
		}
		l := spec.Launch{Agg: rapid.IntRange(1, 3).Draw(t, "agg")}
		g, err := comm.SelectGroup(ops, l)
		if err != nil || g.Err != nil {
			return
		}
		pc, err := plan.New(c.System, comm)
		if err != nil {
			return // no layout or machine for this system: nothing is simulated
		}
		want := map[int][]int{}
		for i, d := range g.Ops {
			if d.Kernel != "" && d.Err == nil {
				want[d.Plan] = append(want[d.Plan], i)
			}
		}
		syms, err := pc.SimulateSymPlans(g.Ops, false)
		if err != nil {
			t.Fatalf("%s, group %v: %v", c, ops, err)
		}
		if len(syms) != len(want) {
			t.Fatalf("%s: %d symmetric plans simulated, spec has %d", c, len(syms), len(want))
		}
		for p, idx := range want {
			s := syms[p]
			if s == nil || len(s.Ops) != len(idx) || s.Result.Time <= 0 {
				t.Fatalf("%s: plan %d of ops %v simulated as %+v", c, p, idx, s)
			}
			for k, i := range idx {
				if s.Ops[k] != i {
					t.Fatalf("%s: plan %d holds ops %v, spec's %v", c, p, s.Ops, idx)
				}
			}
			if works := s.Timing.Works; len(idx) > 1 && works != len(idx) {
				t.Fatalf("%s: plan %d of %d ops runs %d works", c, p, len(idx), works)
			}
			if (s.Result.NetBytes > 0) != (pc.Machine.Nodes > 1 && s.Timing.NetUs > 0) || s.Result.NetBytes > 0 && pc.Machine.Nodes < 2 {
				t.Fatalf("%s: plan %d injects %d network bytes on %d nodes", c, p, s.Result.NetBytes, pc.Machine.Nodes)
			}
		}
	})
}
