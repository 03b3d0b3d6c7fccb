package plan

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// RunOptions are what one simulation of an operation asks for beyond the
// operation: a forced algorithm, protocol or channel count (empty and 0:
// NCCL's), the chunk sizer of a tuner plugin, a timeline trace and a
// data-plane verification.
type RunOptions struct {
	// Release names the ruleset in the report; Size is the nccl-tests size
	// the operation was made from (Comm.Op).
	Release     string
	Size        int64
	Algo, Proto string
	Channels    int
	ChunkSize   algos.ChunkSizer
	Describe    func(*spec.Decision) string
	// Trace is the file for the Chrome trace ("" none), of at most
	// MaxTraceEvents slices, one lane per rank of TraceRanks.
	Trace          string
	TraceRanks     string
	MaxTraceEvents int
	Verify         bool
}

// Run is gatesim sim's one simulation: NCCL's choice (or the forced one),
// the schedule algos builds for it, its simulation, the group it was
// issued in, and the optional trace and verification, as one Report.
func (c *Comm) Run(op spec.Op, o RunOptions) (*Report, *Choice, error) {
	ch, err := c.Choose(op, o.Algo, o.Proto, o.Channels, o.Describe)
	if err != nil {
		return nil, nil, err
	}
	if ch.Sym {
		return c.runSym(op, o, ch)
	}
	bo := algos.Options{InPlace: c.Issue.InPlace, ChunkSize: o.ChunkSize}
	var p2pPlans int
	if ch.Decision.P2P != nil && ch.Group != nil {
		// a send/recv group (or an operation in several plans): plan 0 here
		bo.P2PGroup, p2pPlans = c.P2PGroup(ch.Group.Ops, c.Issue.Launch.Mode == spec.LaunchGraph)
		if bo.P2PGroup != nil && o.Verify && p2pPlans > 1 && spansPlans(ch.Decision) {
			return nil, nil, fmt.Errorf("--verify checks one kernel's schedule, and the works of this %s fill %d kernel plans (G-SCHED-P2P-1); verify a smaller group", op.Func, p2pPlans)
		}
	}
	s, err := algos.Build(op, ch.Sel, c.Layout, bo)
	if err != nil {
		return nil, nil, err
	}
	cfg := c.Config(ch.Decision, ch.Sel)
	cfg.Trace, cfg.MaxTraceEvents = o.Trace != "", o.MaxTraceEvents
	sx, err := sim.New(s, cfg)
	if err != nil {
		return nil, nil, err
	}
	res, err := sx.Run()
	if err != nil {
		return nil, nil, err
	}
	selection := ch.Sel.String()
	if ch.Decision.P2P != nil {
		selection = fmt.Sprintf("p2p/%s, up to %d of %d p2p channels per peer", s.Proto, ch.Decision.P2P.NChannelsPerPeer, ch.Decision.P2P.NChannels)
	}
	m := c.Machine
	rep := &Report{Machine: m, NCCL: o.Release, Op: op, Selection: selection, ChosenBy: ch.By, NCCLChoice: ch.NCCL,
		Result: res, ModelTimeUs: ch.ModelUs, ModelNote: ch.Note, Profile: m.Profile.Summary(), Launch: c.Launch}
	switch {
	case ch.Decision.P2P != nil:
		rep.P2PTasks = ch.Decision.P2P.Tasks // the first operation's tasks
		if bo.P2PGroup != nil {
			if rep.Group, err = c.SimulateP2PGroup(ch.Group, bo.P2PGroup, p2pPlans, res, s.Proto); err != nil {
				return nil, nil, err
			}
		}
	case ch.Group != nil:
		if rep.Group, _, err = c.SimulateGroup(ch.Group, res); err != nil {
			return nil, nil, err
		}
	}
	if o.Trace != "" {
		title := fmt.Sprintf("%s %d B %s", op.Func, o.Size, ch.Sel)
		if err := WriteTrace(o.Trace, sx, o.TraceRanks, title, m.Name, o.MaxTraceEvents); err != nil {
			return nil, nil, err
		}
	}
	if o.Verify {
		if rep.Verification, err = Verify(s, o.Size, op.RedOp); err != nil {
			return nil, nil, err
		}
	}
	return rep.setHeadline(), ch, nil
}

// spansPlans says the first operation's send/recv works lie in more than
// one kernel plan.
func spansPlans(d *spec.Decision) bool {
	first := tuning.P2PTasksPlan(d.P2P.Tasks)
	for _, t := range d.P2P.Tasks {
		if !t.Skipped && t.Plan != first {
			return true
		}
	}
	return false
}

// runSym is Run for an operation NCCL runs on a symmetric kernel or the
// copy engines: no schedule of steps, so no trace or verification. In a
// group, the result is the kernel plan the operation is in (its tasks in
// one launch), and the group's plans are timed one after another.
func (c *Comm) runSym(op spec.Op, o RunOptions, ch *Choice) (*Report, *Choice, error) {
	d := ch.Decision
	if o.Trace != "" || o.Verify {
		return nil, nil, fmt.Errorf("--trace and --verify need a schedule of steps, and NCCL runs %s on window buffers outside the cost table (timed as what it moves, sim.SimulateSym)", d.Kernel)
	}
	var res *sim.Result
	var t *sim.SymTiming
	var grp *Group
	if ch.Group != nil && len(ch.Group.Ops) > 1 {
		// the group's simulation times each symmetric plan once; the
		// operation's (operation 0's, so first is not needed) is the result
		var syms map[int]*SymPlan
		var err error
		if grp, syms, err = c.SimulateGroup(ch.Group, nil); err != nil {
			return nil, nil, err
		}
		p := syms[d.Plan]
		res, t = p.Result, p.Timing
	} else {
		var err error
		if res, t, err = c.SimulateSym(d, c.Issue.InPlace, o.Size); err != nil {
			return nil, nil, err
		}
	}
	m := c.Machine
	rep := &Report{Machine: m, NCCL: o.Release, Op: op, Selection: d.Kernel, ChosenBy: ch.By, NCCLChoice: ch.NCCL,
		Result: res, ModelTimeUs: ch.ModelUs, ModelNote: ch.Note, Profile: m.Profile.Summary(), Launch: c.Launch, Sym: t, Group: grp}
	return rep.setHeadline(), ch, nil
}

// SimulateSym times decision d, which NCCL runs alone on a symmetric
// kernel or the copy engines, on the communicator's machine; size is
// nccl-tests' size of the operation.
func (c *Comm) SimulateSym(d *spec.Decision, inPlace bool, size int64) (*sim.Result, *sim.SymTiming, error) {
	s, err := algos.BuildSymPlan([]*spec.Decision{d}, c.SymTeams(d.Kernel), size, inPlace)
	if err != nil {
		return nil, nil, err
	}
	cfg := sim.Config{Machine: c.Machine, Launch: c.Launch, Transport: d.Transport}
	return sim.SimulateSym(s, cfg)
}

// SymTeams is how the communicator's ranks sit for kernel (a symmetric
// kernel's name or "copy-engine"): its LSA teams (every rank on one
// node or NVLink domain, a node's ranks otherwise) and a GIN kernel's
// chunk.
func (c *Comm) SymTeams(kernel string) algos.SymTeams {
	t := algos.SymTeams{Ranks: c.Comm.NRanks, LSA: c.Comm.NRanks}
	m := c.Comm.Model
	if m == nil {
		return t
	}
	if !m.In.OneLSATeam() && m.In.LocalRanks > 0 {
		t.LSA = m.In.LocalRanks
	}
	if k, ok := tuning.ParseSymKernel(kernel); ok && k.Gin() {
		t.GinChunk = m.SymGinChunkBytes(k)
	}
	return t
}

// SymPlan is one symmetric kernel plan or copy-engine collective of a
// group, simulated: the group's operations it runs (indices, in group
// order), its result and how its time is made up.
type SymPlan struct {
	Ops    []int
	Result *sim.Result
	Timing *sim.SymTiming
}

// SimulateSymPlans times every plan of a group's decisions ds that runs
// on a symmetric kernel or the copy engines, by plan index: NCCL's
// symmetric scheduler puts a bin's tasks in one plan, which launches one
// kernel on the plan's blocks for all of them (algos.BuildSymPlan), and
// each copy-engine collective is a plan of its own. The plan's size is
// the nccl-tests size of its operations together.
func (c *Comm) SimulateSymPlans(ds []*spec.Decision, inPlace bool) (map[int]*SymPlan, error) {
	byPlan := map[int][]int{}
	var order []int
	for i, d := range ds {
		if d == nil || d.Kernel == "" || d.Err != nil {
			continue
		}
		if d.Plan < 0 {
			return nil, fmt.Errorf("group operation %d: %s in no kernel plan", i, d.Kernel)
		}
		if _, ok := byPlan[d.Plan]; !ok {
			order = append(order, d.Plan)
		}
		byPlan[d.Plan] = append(byPlan[d.Plan], i)
	}
	out := make(map[int]*SymPlan, len(order))
	for _, p := range order {
		idx := byPlan[p]
		tasks := make([]*spec.Decision, len(idx))
		var size int64
		for k, i := range idx {
			d := ds[i]
			tasks[k] = d
			size += sim.TestBytes(d.Op.Func, d.Op.Count, d.Op.DataType, c.Comm.NRanks)
		}
		s, err := algos.BuildSymPlan(tasks, c.SymTeams(tasks[0].Kernel), size, inPlace)
		if err != nil {
			return nil, fmt.Errorf("group operation %d: %v", idx[0], err)
		}
		res, t, err := sim.SimulateSym(s, sim.Config{Machine: c.Machine, Launch: c.Launch, Transport: tasks[0].Transport})
		if err != nil {
			return nil, fmt.Errorf("group operation %d: %v", idx[0], err)
		}
		out[p] = &SymPlan{Ops: idx, Result: res, Timing: t}
	}
	return out, nil
}
