package sim

import (
	"fmt"
	"slices"
)

// GroupOpRun is one operation of a group as the group timing reads it: its
// simulated time on the channels the plan gave it, the launch cost the
// timing charged it (included in Time), and the kernel plan (0-based
// launch) spec's group plan put it in.
//
// LinkBound is the operation's Result.LinkBound, and ChannelLo..ChannelHi
// the channels it runs on when OnChannels (a symmetric kernel's blocks
// are not channels): a plan's operations share
// the GPU's links and run one after another on a channel they share, each
// for its time's share of that channel's elements (CountLo on ChannelLo,
// CountHi on ChannelHi, CountMid on those between, as
// scheduleCollTasksToPlan split it; all 0: its whole time on each).
type GroupOpRun struct {
	Time, Launch               Time
	Plan                       int
	LinkBound                  Time
	ChannelLo, ChannelHi       int
	OnChannels                 bool
	CountLo, CountMid, CountHi int64
}

// channelTime is how long o keeps channel c (within its range) busy: its
// time after launch, scaled by c's share of its largest channel part.
func (o GroupOpRun) channelTime(c int) Time {
	run := o.Time - o.Launch
	most := max(o.CountLo, o.CountMid, o.CountHi)
	if most <= 0 {
		return run
	}
	n := o.CountMid
	switch c {
	case o.ChannelLo:
		n = o.CountLo
	case o.ChannelHi:
		n = o.CountHi
	}
	return Time(float64(run) * float64(n) / float64(most))
}

// KernelPlan is one kernel a group launches: its plan index, the
// operations it runs (indices into the group), the launch cost it adds and
// its longest operation after launch.
type KernelPlan struct {
	Plan    int
	Ops     []int
	Launch  Time
	Longest Time
}

// GroupOpTime is the time nccl-tests reports per operation of a group of
// operations (-m n) that NCCL planned together. The kernel plans spec's
// group plan filled (G-SCHED-BUDGET-1; ncclLaunchPrepare launches them in
// plan order on the stream) run one after another; the operations of one
// plan run at once, each on its channel range, so a plan lasts its
// longest operation after launch, unless the links or a channel bind
// longer: the plan lasts at least the sum of its operations' link bounds
// (they share the links) and each channel's operations one after
// another. The first kernel's launch is the launch
// share every operation's time carries (as one kernel always did); each
// further kernel adds its own launch, the launch cost the timing charges
// its first operation. The result is the first operation's launch share
// plus the kernels' time over the group's size, and the kernels in launch
// order.
func GroupOpTime(ops []GroupOpRun) (Time, []KernelPlan, error) {
	if len(ops) == 0 {
		return 0, nil, fmt.Errorf("group time: no operations: expected at least one")
	}
	plans, err := GroupPlans(ops)
	if err != nil {
		return 0, nil, err
	}
	return ops[0].Launch + kernelsTime(plans)/Time(len(ops)), plans, nil
}

// kernelsTime is the kernels' time one after another: each plan's longest
// operation after launch, and the launch of every kernel after the first.
func kernelsTime(plans []KernelPlan) Time {
	var t Time
	for k, p := range plans {
		t += p.Longest
		if k > 0 {
			t += p.Launch
		}
	}
	return t
}

// P2PGroupOpTime is GroupOpTime for a group of n send/recv operations (a
// SendRecv or AllToAll repeated, nccl-tests -m n), whose works NCCL's
// planner put in kernel plans (G-SCHED-P2P-1): a plan's works of every
// operation run on the p2p channels batch after batch, not each operation
// on channels of its own, so each kernel is timed whole. kernels holds one
// run per plan: the time of its schedule (its launch included) and the
// launch. The result is the first kernel's launch share plus the
// kernels' time over n, and the kernels in launch order.
func P2PGroupOpTime(kernels []GroupOpRun, n int) (Time, []KernelPlan, error) {
	if len(kernels) == 0 || n < 1 {
		return 0, nil, fmt.Errorf("group time: %d kernels of %d operations: expected at least one of each", len(kernels), n)
	}
	plans, err := GroupPlans(kernels)
	if err != nil {
		return 0, nil, err
	}
	if len(plans) != len(kernels) {
		return 0, nil, fmt.Errorf("group time: %d kernels in %d plans: expected one run per plan", len(kernels), len(plans))
	}
	return plans[0].Launch + kernelsTime(plans)/Time(n), plans, nil
}

// GroupPlans groups the operations by kernel plan, in plan order, each
// with its operations in group order, the launch of its first operation
// and its longest operation after launch. Every operation lands in exactly
// one plan.
func GroupPlans(ops []GroupOpRun) ([]KernelPlan, error) {
	var plans []KernelPlan
	for i, o := range ops {
		if o.Plan < 0 {
			return nil, fmt.Errorf("group time: operation %d has no kernel plan (plan %d): expected 0 or more", i, o.Plan)
		}
		k, found := slices.BinarySearchFunc(plans, o.Plan, func(p KernelPlan, plan int) int { return p.Plan - plan })
		if !found {
			plans = slices.Insert(plans, k, KernelPlan{Plan: o.Plan, Launch: o.Launch})
		}
		p := &plans[k]
		p.Ops = append(p.Ops, i)
		p.Longest = max(p.Longest, o.Time-o.Launch)
	}
	for k := range plans {
		plans[k].Longest = max(plans[k].Longest, sharedTime(ops, plans[k].Ops))
	}
	return plans, nil
}

// sharedTime is the least time a plan's operations (indices into ops)
// need together: their link bounds added, as they share the GPU's links,
// and on each channel the operations it runs one after another.
func sharedTime(ops []GroupOpRun, idx []int) Time {
	var links, chans Time
	busy := map[int]Time{}
	for _, i := range idx {
		o := ops[i]
		links += o.LinkBound
		for c := o.ChannelLo; o.OnChannels && c <= o.ChannelHi; c++ {
			busy[c] += o.channelTime(c)
			chans = max(chans, busy[c])
		}
	}
	return max(links, chans)
}
