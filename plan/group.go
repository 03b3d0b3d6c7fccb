package plan

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Group is each operation of a group simulated on the channels NCCL's
// group plan gave it, the kernels its plans launch one after another, and
// the time nccl-tests reports per operation.
type Group struct {
	Buffers spec.Buffers `json:"buffers"`
	InPlace bool         `json:"inplace"`
	Ops     []GroupOp    `json:"ops"`
	// Kernels are the group's kernel plans in launch order (spec's plan,
	// G-SCHED-BUDGET-1): each runs its operations at once, and they run
	// one after another.
	Kernels []GroupKernel `json:"kernels"`
	// PerOpUs is sim.GroupOpTime: the first operation's launch share and
	// the kernels' time (each plan's longest operation, and the launch of
	// every kernel after the first) over the group's size.
	PerOpUs float64 `json:"per_op_time_us"`
}

// GroupOp is one operation of a Group.
type GroupOp struct {
	Algo      spec.Algo  `json:"algo"`
	Proto     spec.Proto `json:"proto"`
	ChannelLo int        `json:"channel_lo"`
	ChannelHi int        `json:"channel_hi"`
	Plan      int        `json:"plan"`
	TimeUs    float64    `json:"time_us"`
}

// GroupKernel is one kernel plan of a Group: its plan index, how many of
// the group's operations it runs, the launch cost it adds (0 for the
// first kernel, whose launch every operation's share carries) and its
// longest operation after launch.
type GroupKernel struct {
	Plan      int     `json:"plan"`
	Ops       int     `json:"ops"`
	LaunchUs  float64 `json:"launch_us"`
	LongestUs float64 `json:"longest_us"`
}

// SimulateGroup simulates every operation of the group g on the channels
// the plan gave it (operations with the same plan once), and times the
// group's kernel plans one after another; first is operation 0's result.
func (c *Comm) SimulateGroup(g *spec.GroupDecision, first *sim.Result) (*Group, error) {
	out := &Group{Buffers: c.Issue.Buffers, InPlace: c.Issue.InPlace}
	runs := make([]sim.GroupOpRun, len(g.Ops))
	seen := map[string]sim.Time{}
	for i, d := range g.Ops {
		op, sel, err := algos.FromDecision(d)
		if err != nil {
			return nil, fmt.Errorf("group operation %d: %v", i, err)
		}
		key := fmt.Sprintf("%+v|%v", op, sel)
		if sel.Part != nil {
			key += fmt.Sprintf("|%+v", *sel.Part)
		}
		t, ok := seen[key]
		switch {
		case ok:
		case i == 0:
			t = first.Time
		default:
			res, err := c.Simulate(op, sel, c.Config(d, sel), algos.Options{InPlace: c.Issue.InPlace})
			if err != nil {
				return nil, fmt.Errorf("group operation %d: %v", i, err)
			}
			t = res.Time
		}
		seen[key] = t
		runs[i] = sim.GroupOpRun{Time: t, Launch: c.Machine.LaunchCost(sel.Algo, sel.Proto, c.Launch), Plan: d.Plan}
		out.Ops = append(out.Ops, GroupOp{Algo: d.Algo, Proto: d.Proto, ChannelLo: d.ChannelLo, ChannelHi: d.ChannelHi, Plan: d.Plan, TimeUs: t.Micros()})
	}
	per, kernels, err := sim.GroupOpTime(runs)
	if err != nil {
		return nil, err
	}
	for k, p := range kernels {
		gk := GroupKernel{Plan: p.Plan, Ops: len(p.Ops), LongestUs: p.Longest.Micros()}
		if k > 0 {
			gk.LaunchUs = p.Launch.Micros()
		}
		out.Kernels = append(out.Kernels, gk)
	}
	out.PerOpUs = per.Micros()
	return out, nil
}
