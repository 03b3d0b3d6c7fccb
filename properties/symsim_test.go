package properties

import (
	"testing"

	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// windowGroup is a drawn group of collectives on window buffers.
type windowGroup struct {
	Case
	Ops    []spec.GroupOp
	Launch spec.Launch
}

// windowReleases are the releases with ncclCommWindowRegister.
func windowReleases() []spec.Version {
	var out []spec.Version
	for _, v := range spec.Releases {
		if ruleset(v).Tuning.Symmetric {
			out = append(out, v)
		}
	}
	return out
}

// windowGroupGen draws a group on a release with windows. Half the draws
// go anywhere: any machine, node count and environment, any operations,
// about one in four on user buffers. The other half go where NCCL takes
// its symmetric kernels, which the first half reaches in few draws: one
// node of a preset (every preset's GPUs are NVLink peers), no
// perturbation or environment, window buffers, AllGather or a float sum
// of AllReduce or ReduceScatter of a positive count, and one operation
// issued once where the release tries a symmetric kernel only for a lone
// collective (before 2.28.3, G-SEL-SIDE-1; Launch.Agg repeats the group).
func windowGroupGen(windowed []spec.Version) *rapid.Generator[windowGroup] {
	return rapid.Custom(func(t *rapid.T) windowGroup {
		v := rapid.SampledFrom(windowed).Draw(t, "release")
		var w windowGroup
		if rapid.Bool().Draw(t, "symmetric-leaning") {
			sys, err := spec.Preset(rapid.SampledFrom(spec.PresetNames()).Draw(t, "preset"), spec.PresetOptions{Nodes: 1})
			if err != nil {
				t.Fatalf("preset: %v", err)
			}
			w.Case = Case{Release: v, System: sys}
			n, agg := 1, 1
			if ruleset(v).Tuning.SymGrouped {
				n, agg = rapid.IntRange(1, 8).Draw(t, "nOps"), rapid.IntRange(1, 3).Draw(t, "agg")
			}
			w.Launch = spec.Launch{Agg: agg}
			for range n {
				f := rapid.SampledFrom([]spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter}).Draw(t, "func")
				op := spec.Op{Func: f, Count: rapid.Int64Range(1, 1<<24).Draw(t, "count"), RedOp: spec.Sum,
					DataType: rapid.SampledFrom([]spec.DataType{spec.Float32, spec.Float16, spec.Bfloat16}).Draw(t, "dtype")}
				w.Ops = append(w.Ops, spec.GroupOp{Op: op, InPlace: rapid.Bool().Draw(t, "inplace"), Buffers: spec.BuffersWindow})
			}
		} else {
			w.Case = Case{Release: v, System: System().Draw(t, "system")}
			if rapid.Bool().Draw(t, "env") {
				w.Env = Env().Draw(t, "vars")
			}
			w.Ops = make([]spec.GroupOp, rapid.IntRange(1, 8).Draw(t, "nOps"))
			for i := range w.Ops {
				w.Ops[i] = spec.GroupOp{Op: Op(v, w.System.NRanks()).Draw(t, "op"), InPlace: rapid.Bool().Draw(t, "inplace"), Buffers: spec.BuffersWindow}
				if rapid.IntRange(0, 3).Draw(t, "user") == 0 {
					w.Ops[i].Buffers = spec.BuffersUser
				}
			}
			w.Launch = spec.Launch{Agg: rapid.IntRange(1, 3).Draw(t, "agg")}
		}
		return w
	})
}

// symmetricOps selects w's group and maps each plan that runs a symmetric
// kernel (or the copy engines) to its operations; ok is false where the
// communicator or the group fails (nothing is planned).
func symmetricOps(w windowGroup) (comm *spec.Comm, g *spec.GroupDecision, want map[int][]int, ok bool, err error) {
	comm, err = topoCache.Init(ruleset(w.Release), w.System, w.Env)
	if err != nil || comm.Err != nil || comm.Model == nil {
		return comm, nil, nil, false, err
	}
	g, err = comm.SelectGroup(w.Ops, w.Launch)
	if err != nil || g.Err != nil {
		return comm, g, nil, false, nil
	}
	want = map[int][]int{}
	for i, d := range g.Ops {
		if d.Kernel != "" && d.Err == nil {
			want[d.Plan] = append(want[d.Plan], i)
		}
	}
	return comm, g, want, true, nil
}

// Every plan NCCL runs on a symmetric kernel or the copy engines in a
// drawn group (window buffers, any machine, release and node count) is
// timed: one simulation per plan, holding exactly the plan's operations
// (a plan of several works is one kernel launch), a positive time, and
// network bytes only across nodes (the GIN kernels and the hierarchical
// copy engines). TestWindowGroupsShare holds the draws to plans of that
// kind often enough.
func TestWindowGroupsSimulate(t *testing.T) {
	gen := windowGroupGen(windowReleases())
	rapid.Check(t, func(t *rapid.T) {
		w := gen.Draw(t, "group")
		c, ops := w.Case, w.Ops
		comm, g, want, ok, err := symmetricOps(w)
		if err != nil {
			t.Fatalf("%s: init: %v", c, err)
		}
		if !ok {
			return
		}
		pc, err := plan.New(c.System, comm)
		if err != nil {
			return // no layout or machine for this system: nothing is simulated
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

// TestWindowGroupsShare: at least 40 % of TestWindowGroupsSimulate's
// draws give spec a plan on a symmetric kernel or the copy engines to
// time (the anywhere half alone reaches one in about 8 % of draws). Over
// fixed seeds, so the share is the same on every run.
func TestWindowGroupsShare(t *testing.T) {
	const draws = 200
	gen := windowGroupGen(windowReleases())
	sym := 0
	for seed := range draws {
		w := gen.Example(seed + 1)
		_, _, want, ok, err := symmetricOps(w)
		if err != nil {
			t.Fatalf("%s: init: %v", w.Case, err)
		}
		if ok && len(want) > 0 {
			sym++
		}
	}
	t.Logf("%d of %d draws plan a symmetric kernel or the copy engines", sym, draws)
	if sym*100 < 40*draws {
		t.Errorf("%d of %d draws plan a symmetric kernel or the copy engines, want at least 40 %%", sym, draws)
	}
}
