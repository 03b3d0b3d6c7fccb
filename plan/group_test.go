package plan

import (
	"fmt"
	"testing"

	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// runGroup simulates a 512 KiB AllReduce issued agg times in one group on
// 2 × H200 (2.28.9, NVLS off) under NCCL_WORK_ARGS_BYTES args and
// NCCL_WORK_FIFO_BYTES fifo (0: unset), on buffers buf.
func runGroup(t interface {
	Helper()
	Fatal(...any)
}, agg int, args, fifo int, buf spec.Buffers) (*Report, *Choice) {
	t.Helper()
	env := []string{"NCCL_NVLS_ENABLE=0"}
	if args > 0 {
		env = append(env, fmt.Sprintf("NCCL_WORK_ARGS_BYTES=%d", args))
	}
	if fifo > 0 {
		env = append(env, fmt.Sprintf("NCCL_WORK_FIFO_BYTES=%d", fifo))
	}
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := spec.ParseAssignments(env)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(Request{Ruleset: spec.MustLoad(spec.V2_28_9), Sys: sys, Env: e, Issue: spec.Issue{Buffers: buf, Launch: spec.Launch{Agg: agg}}})
	if err != nil {
		t.Fatal(err)
	}
	op, err := c.Op(spec.AllReduce, spec.Float32, spec.Sum, 512<<10, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep, ch, err := c.Run(op, RunOptions{Release: "2.28.9", Size: 512 << 10, Describe: func(*spec.Decision) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return rep, ch
}

// TestGroupKernelPlans: a group the kernel-plan budget splits
// (G-SCHED-BUDGET-1: 8 AllReduces in 480 bytes of kernel arguments and
// 512 of work FIFO take 5 and 3 tasks) simulates as spec's 2 plans, 2
// kernels one after another, each paying the device's launch; under the
// default budget the same group is one kernel.
func TestGroupKernelPlans(t *testing.T) {
	split, ch := runGroup(t, 8, 512, 1024, spec.BuffersUser)
	if ch.Group.Plans != 2 {
		t.Fatalf("spec plans the group in %d kernel plans, want 2", ch.Group.Plans)
	}
	g := split.Group
	if len(g.Kernels) != 2 || g.Kernels[0].Ops != 5 || g.Kernels[1].Ops != 3 {
		t.Fatalf("simulated kernels %+v, want plan 0 of 5 operations and plan 1 of 3", g.Kernels)
	}
	for i, o := range g.Ops {
		if want := ch.Group.Choices[i].Plan; o.Plan != want {
			t.Errorf("op %d simulated in plan %d, spec's plan %d", i, o.Plan, want)
		}
	}
	k0, k1 := g.Kernels[0], g.Kernels[1]
	host, dev := split.Machine.LaunchParts(spec.Ring, spec.Simple, split.Launch)
	if k0.LaunchUs != dev.Micros() || k1.LaunchUs != dev.Micros() || dev <= 0 || k0.LongestUs <= 0 || k1.LongestUs <= 0 {
		t.Errorf("kernels %+v: want each paying the device's launch (%v) once, and both lasting", g.Kernels, dev)
	}
	// the host issues the 8 operations (8 shares of the group's host
	// part, and launch.channel for each channel of each beyond its first)
	// while the device runs the two kernels, over a batch of groups
	hostAll := 8 * host.Micros()
	for _, o := range g.Ops {
		hostAll += float64(o.ChannelHi-o.ChannelLo) * split.Machine.Profile.Value("launch.channel")
	}
	kernels := k0.LaunchUs + k0.LongestUs + k1.LaunchUs + k1.LongestUs
	if want := sim.BatchTime(hostAll, kernels, split.Launch.Batch()) / 8; abs(g.PerOpUs-want) > 0.01 {
		t.Errorf("per operation %.3f µs, want %.3f (host %.3f, kernels %.3f)", g.PerOpUs, want, hostAll, kernels)
	}
	one, ch1 := runGroup(t, 8, 0, 0, spec.BuffersUser)
	if ch1.Group.Plans != 1 || len(one.Group.Kernels) != 1 || one.Group.Kernels[0].Ops != 8 {
		t.Errorf("default budget: %d plans, simulated kernels %+v; want one kernel of 8", ch1.Group.Plans, one.Group.Kernels)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestPropGroupSimulatesSpecPlans: whatever the group's size, its buffers
// (user, or windows that NCCL's symmetric scheduler plans) and the
// kernel-plan budget, the simulated kernels are spec's plans, and the
// operations across them are the group's; on windows each operation
// takes its symmetric plan's one kernel, each kernel paying the device's
// launch once.
func TestPropGroupSimulatesSpecPlans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		agg := rapid.IntRange(2, 24).Draw(t, "agg")
		args := rapid.SampledFrom([]int{0, 256, 384, 512, 600, 1024, 4096}).Draw(t, "NCCL_WORK_ARGS_BYTES")
		fifo := rapid.SampledFrom([]int{0, 512, 1024, 2048}).Draw(t, "NCCL_WORK_FIFO_BYTES")
		buf := rapid.SampledFrom([]spec.Buffers{spec.BuffersUser, spec.BuffersWindow}).Draw(t, "buffers")
		rep, ch := runGroup(t, agg, args, fifo, buf)
		g := rep.Group
		if len(g.Kernels) != ch.Group.Plans {
			t.Fatalf("%d simulated kernels, spec's group has %d plans", len(g.Kernels), ch.Group.Plans)
		}
		tasks := 0
		for _, k := range g.Kernels {
			tasks += k.Ops
		}
		if tasks != len(ch.Group.Ops) || len(g.Ops) != len(ch.Group.Ops) {
			t.Fatalf("%d operations across the simulated kernels, %d simulated, %d in the group", tasks, len(g.Ops), len(ch.Group.Ops))
		}
		if buf != spec.BuffersWindow {
			return
		}
		plans := map[int]float64{}
		for i, o := range g.Ops {
			d := ch.Group.Ops[i]
			if o.Kernel == "" || o.Kernel != d.Kernel || o.Plan != d.Plan {
				t.Fatalf("op %d simulated as %+v, spec's kernel %q plan %d", i, o, d.Kernel, d.Plan)
			}
			if us, ok := plans[o.Plan]; ok && us != o.TimeUs {
				t.Fatalf("op %d: %g µs, another op of plan %d %g µs: a plan is one kernel", i, o.TimeUs, o.Plan, us)
			}
			plans[o.Plan] = o.TimeUs
		}
		if k, dev := g.Kernels, (rep.Sym.Launch - rep.Sym.Host).Micros(); len(k) > 1 && k[1].LaunchUs != dev {
			t.Fatalf("kernel 1 adds %g µs of launch, the kernel's device launch is %g µs", k[1].LaunchUs, dev)
		}
	})
}
