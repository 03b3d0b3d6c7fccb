package plan

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
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
	// PerOpUs is sim.GroupOpTime: the host's issuing of the group (its
	// operations' host parts) against the device's kernels (each kernel's
	// fixed cost, then its longest operation, or its operations' link
	// bounds added and each channel's operations one after another where
	// longer), overlapped across the timed batch, over the group's size.
	PerOpUs float64 `json:"per_op_time_us"`
	// AlgBw and BusBw are nccl-tests' bandwidths at PerOpUs (GB/s): what
	// it prints for the group, and the headline's.
	AlgBw float64 `json:"algbw"`
	BusBw float64 `json:"busbw"`
}

// setPerOp sets the group's time per operation and its bandwidths, of
// nccl-tests' size of the group's first operation d on nranks ranks (the
// group repeats one operation; a symmetric plan's result is its works
// together, so not its size).
func (g *Group) setPerOp(per sim.Time, d *spec.Decision, nranks int) {
	g.PerOpUs = per.Micros()
	g.AlgBw, g.BusBw = sim.Bandwidth(d.Op.Func, sim.TestBytes(d.Op.Func, d.Op.Count, d.Op.DataType, nranks), nranks, per.Seconds())
}

// GroupOp is one operation of a Group: its algorithm and protocol, or
// the symmetric kernel or copy-engine collective NCCL runs it on (whose
// time is its plan's: the kernel runs the plan's operations at once).
type GroupOp struct {
	Algo      spec.Algo  `json:"algo"`
	Proto     spec.Proto `json:"proto"`
	Kernel    string     `json:"kernel,omitempty"`
	ChannelLo int        `json:"channel_lo"`
	ChannelHi int        `json:"channel_hi"`
	Plan      int        `json:"plan"`
	// TimeUs is the operation timed alone on its channels, its launch
	// (its share of the group's host part) included: what its kernel's
	// time adds up (sim.Result.Alone).
	TimeUs float64 `json:"time_us"`
}

// GroupKernel is one kernel plan of a Group: its plan index, how many of
// the group's operations it runs, the device's fixed cost of its launch
// and its longest operation after launch.
type GroupKernel struct {
	Plan      int     `json:"plan"`
	Ops       int     `json:"ops"`
	LaunchUs  float64 `json:"launch_us"`
	LongestUs float64 `json:"longest_us"`
}

// SimulateGroup simulates every operation of the group g on the channels
// the plan gave it (operations with the same plan once), and times the
// group's kernel plans one after another; first is operation 0's result.
// The operations NCCL runs on a symmetric kernel or the copy engines are
// timed plan by plan (SimulateSymPlans): each takes its plan's time, and
// those plans come back by plan index, so that a caller reporting one
// does not simulate it again. first may be nil where operation 0 runs on
// a symmetric kernel or the copy engines.
func (c *Comm) SimulateGroup(g *spec.GroupDecision, first *sim.Result) (*Group, map[int]*SymPlan, error) {
	out := &Group{Buffers: c.Issue.Buffers, InPlace: c.Issue.InPlace}
	runs := make([]sim.GroupOpRun, len(g.Ops))
	type timed struct{ t, bound, host sim.Time }
	seen := map[string]timed{}
	syms, err := c.SimulateSymPlans(g.Ops, c.Issue.InPlace)
	if err != nil {
		return nil, nil, err
	}
	for i, d := range g.Ops {
		if p := syms[d.Plan]; d.Kernel != "" && p != nil {
			runs[i] = sim.GroupOpRun{Time: p.Result.Alone, Host: p.Timing.Host, Dev: p.Timing.Launch - p.Timing.Host, Plan: d.Plan}
			out.Ops = append(out.Ops, GroupOp{Kernel: d.Kernel, ChannelLo: d.ChannelLo, ChannelHi: d.ChannelHi, Plan: d.Plan, TimeUs: p.Result.Alone.Micros()})
			continue
		}
		op, sel, err := algos.FromDecision(d)
		if err != nil {
			return nil, nil, fmt.Errorf("group operation %d: %v", i, err)
		}
		key := fmt.Sprintf("%+v|%v", op, sel)
		if sel.Part != nil {
			key += fmt.Sprintf("|%+v", *sel.Part)
		}
		tb, ok := seen[key]
		switch {
		case ok:
		case i == 0:
			tb = timed{first.Alone, first.LinkBound, first.Host}
		default:
			res, err := c.Simulate(op, sel, c.Config(d, sel), algos.Options{InPlace: c.Issue.InPlace})
			if err != nil {
				return nil, nil, fmt.Errorf("group operation %d: %v", i, err)
			}
			tb = timed{res.Alone, res.LinkBound, res.Host}
		}
		seen[key] = tb
		t := tb.t
		// the host's part as the simulation charged it (its channels' too)
		_, dev := c.Machine.LaunchParts(sel.Algo, sel.Proto, c.Launch)
		runs[i] = sim.GroupOpRun{Time: t, Host: tb.host, Dev: dev, Plan: d.Plan,
			LinkBound: tb.bound, ChannelLo: d.ChannelLo, ChannelHi: d.ChannelHi, OnChannels: true}
		if p := d.Part; p != nil {
			runs[i].CountLo, runs[i].CountMid, runs[i].CountHi = p.CountLo, p.CountMid, p.CountHi
		}
		out.Ops = append(out.Ops, GroupOp{Algo: d.Algo, Proto: d.Proto, ChannelLo: d.ChannelLo, ChannelHi: d.ChannelHi, Plan: d.Plan, TimeUs: t.Micros()})
	}
	per, kernels, err := sim.GroupOpTime(runs, c.Launch.Batch())
	if err != nil {
		return nil, nil, err
	}
	out.Kernels = groupKernels(kernels)
	out.setPerOp(per, g.Ops[0], c.Comm.NRanks)
	return out, syms, nil
}

// P2PGroup is what the send/recv schedules of a group's decisions ds (a
// SendRecv or AllToAll issued N times, captured into a CUDA graph when
// graph) need to run plan 0: the operations, the plan budget spec placed
// their works against, and how many kernel plans the works fill. It is
// nil when the group is one operation in one plan (the operation's
// schedule alone is the kernel) or holds other operations.
func (c *Comm) P2PGroup(ds []*spec.Decision, graph bool) (*algos.P2PGroup, int) {
	plans := 0
	for _, d := range ds {
		if d.P2P == nil || d.Op != ds[0].Op {
			return nil, 0
		}
		for _, t := range d.P2P.Tasks {
			if !t.Skipped {
				plans = max(plans, t.Plan+1)
			}
		}
	}
	if len(ds) == 1 && plans <= 1 {
		return nil, plans
	}
	var budget *tuning.P2PBudget
	if m := c.Comm.Model; m != nil {
		budget = m.P2PBudget(graph)
	}
	return &algos.P2PGroup{Ops: len(ds), Budget: budget}, plans
}

// SimulateP2PGroup times the kernel plans of a send/recv group (P2PGroup:
// grp, plans) one after another, each the schedule of its works (plan 0's
// simulated as first, of protocol proto), as sim.P2PGroupOpTime says.
func (c *Comm) SimulateP2PGroup(g *spec.GroupDecision, grp *algos.P2PGroup, plans int, first *sim.Result, proto spec.Proto) (*Group, error) {
	out := &Group{Buffers: c.Issue.Buffers, InPlace: c.Issue.InPlace}
	d := g.Ops[0]
	op, sel, err := algos.FromDecision(d)
	if err != nil {
		return nil, err
	}
	runs := make([]sim.GroupOpRun, plans)
	for k := range plans {
		t, bound, host, pr := first.Alone, first.LinkBound, first.Host, proto
		if k > 0 {
			kg := *grp
			kg.Plan = k
			s, err := algos.Build(op, sel, c.Layout, algos.Options{InPlace: c.Issue.InPlace, P2PGroup: &kg})
			if err != nil {
				return nil, fmt.Errorf("kernel plan %d: %v", k, err)
			}
			res, err := sim.Simulate(s, c.Config(d, sel))
			if err != nil {
				return nil, fmt.Errorf("kernel plan %d: %v", k, err)
			}
			t, bound, host, pr = res.Alone, res.LinkBound, res.Host, s.Proto
		}
		_, dev := c.Machine.LaunchParts(spec.Ring, pr, c.Launch)
		// the link bound as whatif's simulate gives it: a kernel lasts at
		// least its works' busiest link (sim.GroupPlans)
		runs[k] = sim.GroupOpRun{Time: t, Host: host, Dev: dev, Plan: k, LinkBound: bound}
	}
	per, kernels, err := sim.P2PGroupOpTime(runs, len(g.Ops), c.Launch.Batch())
	if err != nil {
		return nil, err
	}
	out.Kernels = groupKernels(kernels)
	out.setPerOp(per, g.Ops[0], c.Comm.NRanks)
	for k := range out.Kernels {
		out.Kernels[k].Ops = 0
	}
	for _, d := range g.Ops {
		// an operation's time is its first kernel's: its works share it
		k := max(0, tuning.P2PTasksPlan(d.P2P.Tasks))
		_, lo, hi := d.P2P.P2PHull()
		out.Ops = append(out.Ops, GroupOp{Algo: d.Algo, Proto: d.Proto, ChannelLo: lo, ChannelHi: hi, Plan: k, TimeUs: runs[k].Time.Micros()})
		var in uint64
		for _, t := range d.P2P.Tasks {
			if !t.Skipped && t.Plan < 64 && in&(1<<t.Plan) == 0 {
				in |= 1 << t.Plan
				out.Kernels[t.Plan].Ops++
			}
		}
	}
	return out, nil
}

// groupKernels is the kernels of a Group: the device's launch of each,
// and its longest operation (a send/recv kernel: its whole time).
func groupKernels(kernels []sim.KernelPlan) []GroupKernel {
	var out []GroupKernel
	for _, p := range kernels {
		out = append(out, GroupKernel{Plan: p.Plan, Ops: len(p.Ops), LaunchUs: p.Launch.Micros(), LongestUs: p.Longest.Micros()})
	}
	return out
}
