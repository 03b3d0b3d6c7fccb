package spec

import "fmt"

// Decisions of a whole group: every operation goes through the
// per-operation gates (Select), then the group is planned as ncclGroupEnd
// plans it (ChooseGroup: the size sorter, aggregation, getAlgoInfo per
// aggregate, buffer registration, the channel partition of
// scheduleCollTasksToPlan). A group of one operation decides exactly as
// the operation alone.

// groupPlanRule and regIPCRule are the group-planning rules SelectGroup
// reports in each operation's trace.
var (
	groupPlanRule = groupRule{"G-GROUP-PLAN-1", "a group is planned together",
		`ncclGroupEnd plans all collectives of the group at once: tasks are sorted by size, binned by (function, reduction, datatype), aggregated within 4× of the smallest traffic of a bin, and each aggregate gets one cost-table choice on its summed size with numPipeOps = the aggregate's length; scheduleCollTasksToPlan then splits each kind's channels between the tasks in proportion to their traffic, so an operation of a group runs on a range of channels, not on all of them.`,
		Ref{"v2.28.9-1", "src/enqueue.cc", "ncclPrepareTasks, scheduleCollTasksToPlan"},
		[]string{"%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}"}}
	regIPCRule = groupRule{"G-REG-IPC-1", "user buffers registered over IPC",
		`From 2.28.3, a Ring or Tree task on Simple whose buffers are captured into a CUDA graph (NCCL_GRAPH_REGISTER, default 1) or registered with ncclCommRegister (NCCL_LOCAL_REGISTER, default 1) is registered over IPC when the node's peers are direct P2P (not ReduceScatter, not Reduce or in-place AllReduce on Ring, not in-place Tree); on one node such a task with 16 < nMaxChannels ≤ 24 runs on 16 channels.`,
		Ref{"v2.28.9-1", "src/register/coll_reg.cc", "ncclRegisterCollBuffers"}, nil}
)

func init() { GroupRules = append(GroupRules, groupPlanRule, regIPCRule) }

// GroupDecision is NCCL's decision for every operation of one group.
type GroupDecision struct {
	Launch Launch `json:"launch"`
	// Ops are the decisions in call order (the group expanded by Agg).
	Ops []*Decision `json:"ops"`
	// Choices are the tuning model's per-operation plans (channel ranges,
	// aggregates, registration), nil when the model did not run.
	Choices []OpChoice `json:"choices,omitempty"`
	// Lines are the per-operation lines rank 0 prints, in order.
	Lines []string `json:"lines,omitempty"`
	// Err is what ncclGroupEnd returns (the first bin without an
	// algorithm fails the whole group).
	Err *NCCLError `json:"error,omitempty"`
	// Plans is the number of kernel plans the collectives filled.
	Plans int `json:"plans"`
	// Traces holds each operation's gate trace (Select's) followed by the
	// group verdicts.
	Traces []Trace `json:"-"`
}

// SelectGroup decides ops issued in one group as launch says. An error is
// input NCCL's API would refuse before any gate (as Select's).
func (c *Comm) SelectGroup(ops []GroupOp, launch Launch) (*GroupDecision, error) {
	all, err := launch.Expand(ops)
	if err != nil {
		return nil, err
	}
	out := &GroupDecision{Launch: launch, Ops: make([]*Decision, len(all)), Traces: make([]Trace, len(all))}
	for i, g := range all {
		d, tr, err := c.Select(g.Op)
		if err != nil {
			return nil, fmt.Errorf("group op %d: %w", i, err)
		}
		out.Ops[i], out.Traces[i] = d, tr
	}
	if c.Err != nil || c.Model == nil {
		return out, nil
	}
	tops := make([]TuningOp, len(all))
	graph := launch.Mode == LaunchGraph
	for i, g := range all {
		cn, nv := c.opSupport(g.Op)
		graphReg := c.Model.In.GraphRegister == nil || *c.Model.In.GraphRegister != 0
		tops[i] = TuningOp{Op: g.Op, CollNetOK: cn, NVLSOK: nv, InPlace: g.InPlace, Buffers: g.Buffers, Graph: graph,
			RegBuff: g.Buffers == BuffersRegistered || (graph && graphReg)}
	}
	gc, err := ChooseGroup(c.Model, tops)
	if err != nil {
		return nil, err
	}
	out.Choices, out.Lines, out.Err, out.Plans = gc.Ops, gc.Lines, gc.Err, gc.Plans
	for i := range all {
		ch, d := &gc.Ops[i], out.Ops[i]
		if d.Err != nil || d.Discarded || ch.Discarded || ch.OneRank {
			continue
		}
		if ch.SidePath != "" {
			d.Algo, d.Proto, d.Candidates, d.Costs = AlgoNone, ProtoNone, nil, nil
			d.NChannels, d.NThreads, d.ChannelLo, d.ChannelHi, d.TimeUs = 0, 0, 0, 0, 0
			d.DecidedBy = "G-SEL-SIDE-1"
			if ch.SidePath == "allgatherv" {
				d.Undecided = "broadcasts from several roots in one group: one AllGatherV outside the cost table (its channels are not modelled)"
				out.Traces[i] = sideVerdict(out.Traces[i], Verdict{Outcome: Pass, Why: "the group's broadcasts come from several roots: NCCL runs them as one AllGatherV; the cost table is not consulted"})
				continue
			}
			d.Undecided = "window buffers: a " + ch.SidePath + " collective outside the cost table (its kernel and channels are not modelled)"
			out.Traces[i] = sideVerdict(out.Traces[i], Verdict{Outcome: Pass, Why: "window buffers: NCCL runs a " + ch.SidePath + " collective; the cost table is not consulted"})
			continue
		}
		if all[i].Buffers == BuffersWindow {
			out.Traces[i] = sideVerdict(out.Traces[i], Verdict{Outcome: Fail, Why: "window buffers, but no symmetric path takes this operation (symmetric support needs one node, direct P2P, windows and cuMem on; kernels exist for AllGather and float sums of AllReduce/ReduceScatter): the cost table decides"})
		}
		lone := len(all) == 1 && ch.Registered == ""
		if !lone {
			ch.FillDecision(d)
			d.Costs = nil // the lone operation's table does not apply
			if ch.Err == nil {
				d.DecidedBy = groupPlanRule.ID
			}
		} else {
			d.ChannelLo, d.ChannelHi = ch.ChannelLo, ch.ChannelHi
		}
		why := fmt.Sprintf("op %d of %d: %s/%s on channels %d..%d", i, len(all), ch.Algo, ch.Proto, ch.ChannelLo, ch.ChannelHi)
		if len(ch.Aggregate) > 1 {
			why += fmt.Sprintf(", decided with ops %v on %d bytes (numPipeOps %d)", ch.Aggregate, ch.NBytes, ch.NumPipeOps)
		}
		v := Verdict{Rule: groupPlanRule.ID, Layer: LayerGroup, Outcome: Info, Scope: "op", Ref: groupPlanRule.Ref, Why: why}
		if ch.Line != "" {
			v.Log = []string{ch.Line}
		}
		out.Traces[i] = append(out.Traces[i], v)
		rv := Verdict{Rule: regIPCRule.ID, Layer: LayerGroup, Outcome: Skip, Scope: "op", Ref: regIPCRule.Ref, Why: "buffers not registered"}
		if ch.Registered != "" {
			rv.Outcome, rv.Why = Pass, fmt.Sprintf("buffers registered over %s: %d channels", ch.Registered, ch.NChannels)
		}
		out.Traces[i] = append(out.Traces[i], rv)
	}
	return out, nil
}

// DecideCalls decides every collective a call script launches (CheckGroup's
// results), each communicator name standing for comm: every launch — an
// outermost ncclGroupEnd, or a collective outside a group — is planned per
// communicator as one group, in call order. The map is keyed by call index.
func (c *Comm) DecideCalls(calls []Call, res []CallResult, launch Launch) (map[int]*Decision, error) {
	if len(res) != len(calls) {
		return nil, fmt.Errorf("decide calls: %d results for %d calls", len(res), len(calls))
	}
	out := map[int]*Decision{}
	for _, r := range res {
		if len(r.Launched) == 0 {
			continue
		}
		byComm := map[string][]int{}
		var names []string
		for _, i := range r.Launched {
			if i < 0 || i >= len(calls) || calls[i].Op == nil {
				return nil, fmt.Errorf("decide calls: launched call %d is not a collective", i)
			}
			n := calls[i].Comm
			if _, ok := byComm[n]; !ok {
				names = append(names, n)
			}
			byComm[n] = append(byComm[n], i)
		}
		for _, n := range names {
			idx := byComm[n]
			ops := make([]GroupOp, len(idx))
			for k, i := range idx {
				ops[k] = GroupOp{Op: *calls[i].Op}
			}
			g, err := c.SelectGroup(ops, Launch{Mode: launch.Mode})
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", calls[idx[0]].Line, err)
			}
			for k, i := range idx {
				out[i] = g.Ops[k]
			}
		}
	}
	return out, nil
}

// sideVerdict replaces the operation's G-SEL-SIDE-1 verdict (Select knows
// no buffers and answers "skip") with what the group's buffers decide.
func sideVerdict(tr Trace, v Verdict) Trace {
	for i := range tr {
		if tr[i].Rule == "G-SEL-SIDE-1" && tr[i].Scope == "op" {
			v.Rule, v.Layer, v.Ref, v.Scope = tr[i].Rule, tr[i].Layer, tr[i].Ref, "op"
			tr[i] = v
			return tr
		}
	}
	return tr
}
