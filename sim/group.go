package sim

import (
	"fmt"
	"slices"
)

// GroupOpRun is one operation of a group as the group timing reads it: its
// simulated time timed alone (Result.Alone: its launch, then its steps, on
// the channels the plan gave it), the host's and the device's part of the
// launch in that time (Machine.LaunchParts; the host's part is the
// operation's share of the group's), and the kernel plan (0-based launch)
// spec's group plan put it in.
//
// LinkBound is the operation's Result.LinkBound, and ChannelLo..ChannelHi
// the channels it runs on when OnChannels (a symmetric kernel's blocks
// are not channels): a plan's operations share
// the GPU's links and run one after another on a channel they share, each
// for its time's share of that channel's elements (CountLo on ChannelLo,
// CountHi on ChannelHi, CountMid on those between, as
// scheduleCollTasksToPlan split it; all 0: its whole time on each).
type GroupOpRun struct {
	Time, Host, Dev            Time
	Plan                       int
	LinkBound                  Time
	ChannelLo, ChannelHi       int
	OnChannels                 bool
	CountLo, CountMid, CountHi int64
}

// run is the operation's time after its launch: its steps.
func (o GroupOpRun) run() Time { return max(0, o.Time-o.Host-o.Dev) }

// channelTime is how long o keeps channel c (within its range) busy: its
// time after launch, scaled by c's share of its largest channel part.
func (o GroupOpRun) channelTime(c int) Time {
	run := o.run()
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
// operations it runs (indices into the group), the device's fixed cost of
// its launch (its first operation's) and its longest operation after
// launch.
type KernelPlan struct {
	Plan    int
	Ops     []int
	Launch  Time
	Longest Time
}

// GroupOpTime is the time nccl-tests reports per operation of a group of
// operations (-m n) that NCCL planned together, issued batch groups back
// to back on a stream (nccl-tests -n; 1: the group alone).
//
// The host issues the group: each operation's enqueue, then the group's
// plans (launch.stream for the first operation, launch.group_op for each
// further one: the operations' host parts added). The device runs the
// kernel plans spec's group plan filled (G-SCHED-BUDGET-1;
// ncclLaunchPrepare launches them in plan order on the stream) one after
// another, each paying the device's fixed cost of a launch once, however
// many operations it runs; the operations of one plan run at once, each
// on its channel range, so a plan lasts its longest operation after
// launch, unless the links or a channel bind longer: the plan lasts at
// least the sum of its operations' link bounds (they share the links) and
// each channel's operations one after another. A batch of groups overlaps
// the host's issuing of the next group with the device's running of the
// last (BatchTime). The result is the batch's time per group over the
// group's size, and the kernels in launch order.
func GroupOpTime(ops []GroupOpRun, batch int) (Time, []KernelPlan, error) {
	if len(ops) == 0 {
		return 0, nil, fmt.Errorf("group time: no operations: expected at least one")
	}
	plans, err := GroupPlans(ops)
	if err != nil {
		return 0, nil, err
	}
	var host Time
	for _, o := range ops {
		host += o.Host
	}
	return perOp(host, kernelsTime(plans), batch, len(ops)), plans, nil
}

// perOp is a batch of groups of n operations, each group host on the host
// and dev on the device, per operation.
func perOp(host, dev Time, batch, n int) Time {
	return Time(BatchTime(float64(host), float64(dev), batch) / float64(n))
}

// kernelsTime is the device's time of the kernels one after another:
// each kernel's fixed cost and its longest operation after launch.
func kernelsTime(plans []KernelPlan) Time {
	var t Time
	for _, p := range plans {
		t += p.Launch + p.Longest
	}
	return t
}

// P2PGroupOpTime is GroupOpTime for a group of n send/recv operations (a
// SendRecv or AllToAll repeated, nccl-tests -m n), whose works NCCL's
// planner put in kernel plans (G-SCHED-P2P-1): a plan's works of every
// operation run on the p2p channels batch after batch, not each operation
// on channels of its own, so each kernel is timed whole. kernels holds one
// run per plan: the time of its schedule timed alone (its launch
// included) and the host's and device's part of that launch; the host
// issues the n operations (n times the first kernel's host part, an
// operation's share of the group's). The result is the batch's time per
// group over n, and the kernels in launch order.
func P2PGroupOpTime(kernels []GroupOpRun, n, batch int) (Time, []KernelPlan, error) {
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
	return perOp(Time(n)*kernels[0].Host, kernelsTime(plans), batch, n), plans, nil
}

// GroupPlans groups the operations by kernel plan, in plan order, each
// with its operations in group order, the device's launch of its first
// operation and its longest operation after launch. Every operation lands in exactly
// one plan.
func GroupPlans(ops []GroupOpRun) ([]KernelPlan, error) {
	var plans []KernelPlan
	for i, o := range ops {
		if o.Plan < 0 {
			return nil, fmt.Errorf("group time: operation %d has no kernel plan (plan %d): expected 0 or more", i, o.Plan)
		}
		k, found := slices.BinarySearchFunc(plans, o.Plan, func(p KernelPlan, plan int) int { return p.Plan - plan })
		if !found {
			plans = slices.Insert(plans, k, KernelPlan{Plan: o.Plan, Launch: o.Dev})
		}
		p := &plans[k]
		p.Ops = append(p.Ops, i)
		p.Longest = max(p.Longest, o.run())
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
