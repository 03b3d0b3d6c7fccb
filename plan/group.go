package plan

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Group is each operation of a group simulated on the channels NCCL's
// group plan gave it, and the time nccl-tests reports per operation.
type Group struct {
	Buffers spec.Buffers `json:"buffers"`
	InPlace bool         `json:"inplace"`
	Ops     []GroupOp    `json:"ops"`
	// PerOpUs is sim.GroupOpTime: the first operation's launch share and
	// the longest operation over the group's size.
	PerOpUs float64 `json:"per_op_time_us"`
}

// GroupOp is one operation of a Group.
type GroupOp struct {
	Algo      spec.Algo  `json:"algo"`
	Proto     spec.Proto `json:"proto"`
	ChannelLo int        `json:"channel_lo"`
	ChannelHi int        `json:"channel_hi"`
	TimeUs    float64    `json:"time_us"`
}

// SimulateGroup simulates every operation of the group g on the channels
// the plan gave it (operations with the same plan once); first is
// operation 0's result.
func (c *Comm) SimulateGroup(g *spec.GroupDecision, first *sim.Result) (*Group, error) {
	out := &Group{Buffers: c.Issue.Buffers, InPlace: c.Issue.InPlace}
	times, launches := make([]sim.Time, len(g.Ops)), make([]sim.Time, len(g.Ops))
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
		times[i], launches[i] = t, c.Machine.LaunchCost(sel.Algo, sel.Proto, c.Launch)
		out.Ops = append(out.Ops, GroupOp{Algo: d.Algo, Proto: d.Proto, ChannelLo: d.ChannelLo, ChannelHi: d.ChannelHi, TimeUs: t.Micros()})
	}
	per, err := sim.GroupOpTime(times, launches, len(g.Ops))
	if err != nil {
		return nil, err
	}
	out.PerOpUs = per.Micros()
	return out, nil
}
