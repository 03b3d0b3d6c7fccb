package sim

import (
	"fmt"
	"slices"
)

// GroupOpRun is one operation of a group as the group timing reads it: its
// simulated time on the channels the plan gave it, the launch cost the
// timing charged it (included in Time), and the kernel plan (0-based
// launch) spec's group plan put it in.
type GroupOpRun struct {
	Time, Launch Time
	Plan         int
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
// longest operation after launch. The first kernel's launch is the launch
// share every operation's time carries (as one kernel always did); each
// further kernel adds its own launch, the launch cost the timing charges
// its first operation. The result is the first operation's launch share
// plus the kernels' time over the group's size, and the kernels in launch
// order. The model gives each operation its channels' links to itself:
// operations of a plan that share a link are not slowed by each other.
func GroupOpTime(ops []GroupOpRun) (Time, []KernelPlan, error) {
	if len(ops) == 0 {
		return 0, nil, fmt.Errorf("group time: no operations: expected at least one")
	}
	plans, err := GroupPlans(ops)
	if err != nil {
		return 0, nil, err
	}
	var kernels Time
	for k, p := range plans {
		kernels += p.Longest
		if k > 0 {
			kernels += p.Launch
		}
	}
	return ops[0].Launch + kernels/Time(len(ops)), plans, nil
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
	return plans, nil
}
