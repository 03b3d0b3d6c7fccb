package plan

import (
	"fmt"
	"testing"

	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// openH200 opens 2 × H200 at 2.28.9 with NVLS off and env, issued as is.
func openH200(t *testing.T, is spec.Issue, env ...string) *Session {
	t.Helper()
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := spec.ParseAssignments(append([]string{"NCCL_NVLS_ENABLE=0"}, env...))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(Request{Ruleset: spec.MustLoad(spec.V2_28_9), Sys: sys, Env: e, Issue: is})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRunWindowGroup: a 1 MiB AllReduce issued 8 times on window buffers
// is timed as the symmetric plans NCCL's scheduler makes: under the
// default kernel arguments one kernel runs the 8 works in one launch (the
// report's result is that plan: 8 × the bytes, one launch), and under
// NCCL_WORK_ARGS_BYTES too small for two works each runs alone, 8
// kernels one after another, each after the first adding its launch.
func TestRunWindowGroup(t *testing.T) {
	for _, c := range []struct {
		env     []string
		kernels int
	}{
		{nil, 1},
		{[]string{"NCCL_WORK_ARGS_BYTES=600"}, 8},
	} {
		s := openH200(t, spec.Issue{Buffers: spec.BuffersWindow, Launch: spec.Launch{Agg: 8}}, c.env...)
		op, err := s.Op(spec.AllReduce, spec.Float32, spec.Sum, 1<<20, 0)
		if err != nil {
			t.Fatal(err)
		}
		rep, ch, err := s.Run(op, RunOptions{Release: "2.28.9", Size: 1 << 20, Describe: func(*spec.Decision) string { return "" }})
		if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		g := rep.Group
		if !ch.Sym || g == nil || len(g.Ops) != 8 || len(g.Kernels) != c.kernels || ch.Group.Plans != c.kernels {
			t.Fatalf("%v: sym %v, group %+v (spec's plans %d): want %d kernels of 8 operations", c.env, ch.Sym, g, ch.Group.Plans, c.kernels)
		}
		works := 8 / c.kernels
		if want := map[bool]int{true: works, false: 0}[works > 1]; rep.Sym.Works != want || rep.Result.Bytes != int64(works)<<20 {
			t.Errorf("%v: the report's kernel runs %d works of %d bytes in all", c.env, rep.Sym.Works, rep.Result.Bytes)
		}
		// an operation of a group takes its plan's time alone (sim.Result.Alone)
		if rep.Result.Alone.Micros() != g.Ops[0].TimeUs {
			t.Errorf("%v: the report's result takes %v alone, the group's plan of operation 0 %g µs", c.env, rep.Result.Alone, g.Ops[0].TimeUs)
		}
		for i, o := range g.Ops {
			if o.Kernel != ch.Group.Ops[i].Kernel || o.Plan != ch.Group.Ops[i].Plan || o.TimeUs <= 0 {
				t.Errorf("%v op %d: %+v, spec's kernel %s plan %d", c.env, i, o, ch.Group.Ops[i].Kernel, ch.Group.Ops[i].Plan)
			}
		}
		// the host issues 8 operations, each its share of the group's host
		// part; each kernel pays the device's launch once
		host, dev := rep.Sym.Host.Micros(), (rep.Sym.Launch - rep.Sym.Host).Micros()
		var kernels float64
		for k, kp := range g.Kernels {
			kernels += kp.LongestUs + kp.LaunchUs
			if abs(kp.LaunchUs-dev) > 1e-6 || dev <= 0 {
				t.Errorf("%v: kernel %d adds a launch of %g µs, want the device's %g", c.env, k, kp.LaunchUs, dev)
			}
		}
		if want := sim.BatchTime(8*host, kernels, rep.Launch.Batch()) / 8; abs(g.PerOpUs-want) > 0.01 {
			t.Errorf("%v: per operation %.3f µs, want %.3f", c.env, g.PerOpUs, want)
		}
	}
}

// TestSimulateMixedGroup: a group of window and user buffers, two
// functions, is timed plan by plan as spec plans it: the window
// AllReduces in one symmetric kernel, the window AllGather in another,
// the user AllReduce on the cost table's kernel after them; an operation
// of a symmetric plan takes its plan's time.
func TestSimulateMixedGroup(t *testing.T) {
	s := openH200(t, spec.Issue{})
	ar := spec.Op{Func: spec.AllReduce, Count: 1 << 18, DataType: spec.Float32, RedOp: spec.Sum}
	ag := spec.Op{Func: spec.AllGather, Count: 1 << 17, DataType: spec.Float32, RedOp: spec.Sum}
	ops := []spec.GroupOp{{Op: ar, Buffers: spec.BuffersWindow}, {Op: ar}, {Op: ag, Buffers: spec.BuffersWindow}, {Op: ar, Buffers: spec.BuffersWindow}}
	g, err := s.Comm.Comm.SelectGroup(ops, spec.Launch{})
	if err != nil {
		t.Fatal(err)
	}
	var plans []string
	for _, d := range g.Ops {
		plans = append(plans, fmt.Sprintf("%d:%s%s", d.Plan, d.Kernel, map[bool]string{true: "", false: d.Algo.String()}[d.Kernel != ""]))
	}
	if g.Plans != 3 || g.Ops[0].Plan != g.Ops[3].Plan || g.Ops[0].Kernel == "" || g.Ops[2].Kernel == "" || g.Ops[1].Kernel != "" || g.Ops[1].Plan != 2 {
		t.Fatalf("spec plans %v in %d plans: want the window AllReduces in one symmetric plan, the AllGather in another, the user AllReduce last", plans, g.Plans)
	}
	syms, err := s.SimulateSymPlans(g.Ops, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) != 2 || len(syms[g.Ops[0].Plan].Ops) != 2 || syms[g.Ops[0].Plan].Timing.Works != 2 || len(syms[g.Ops[2].Plan].Ops) != 1 {
		t.Fatalf("symmetric plans %+v: want AllReduce's of 2 works and AllGather's of 1", syms)
	}
	// operation 0 runs on a symmetric kernel: the group needs no result
	// of a schedule for it
	grp, gsyms, err := s.SimulateGroup(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	// the group hands back the plans it simulated, for a caller to report
	// one of them without simulating it again
	for p, sp := range syms {
		if gp := gsyms[p]; gp == nil || fmt.Sprint(gp.Ops) != fmt.Sprint(sp.Ops) || gp.Result.Time != sp.Result.Time || *gp.Timing != *sp.Timing {
			t.Errorf("plan %d: the group's %+v, SimulateSymPlans' %+v", p, gp, sp)
		}
	}
	if len(gsyms) != len(syms) {
		t.Errorf("the group simulated %d symmetric plans, SimulateSymPlans %d", len(gsyms), len(syms))
	}
	if len(grp.Kernels) != 3 || grp.Kernels[0].Ops != 2 || grp.Kernels[1].Ops != 1 || grp.Kernels[2].Ops != 1 {
		t.Errorf("kernels %+v: want the AllReduce plan of 2, the AllGather plan and the cost table's", grp.Kernels)
	}
	for i, o := range grp.Ops {
		d := g.Ops[i]
		if p := syms[d.Plan]; p != nil {
			if o.Kernel != d.Kernel || o.TimeUs != p.Result.Alone.Micros() {
				t.Errorf("op %d: %+v, want kernel %s at its plan's %g µs", i, o, d.Kernel, p.Result.Alone.Micros())
			}
		} else if o.Kernel != "" || o.Algo != d.Algo || o.Proto != d.Proto || o.TimeUs <= 0 {
			t.Errorf("op %d: %+v, want %s/%s timed", i, o, d.Algo, d.Proto)
		}
	}
}
