package sim

import (
	"testing"

	"pgregory.net/rapid"
)

func TestGroupOpTime(t *testing.T) {
	run := func(time, launch Time, plan int) GroupOpRun {
		return GroupOpRun{Time: time, Launch: launch, Plan: plan}
	}
	for _, c := range []struct {
		name    string
		ops     []GroupOpRun
		want    Time
		kernels int
		err     bool
	}{
		{"one operation", []GroupOpRun{run(10, 2, 0)}, 10, 1, false},
		// the longest operation after launch (12), over 4, and op 0's launch
		{"one plan", []GroupOpRun{run(10, 2, 0), run(14, 2, 0), run(9, 2, 0), run(6, 2, 0)}, 2 + 3, 1, false},
		// two kernels one after another: plan 0's longest (12), plan 1's
		// launch (3) and longest (5), over 4, and op 0's launch
		{"two plans", []GroupOpRun{run(10, 2, 0), run(14, 2, 0), run(9, 3, 1), run(8, 3, 1)}, 2 + (12+3+6)/4, 2, false},
		// plans in plan order whatever the group's order
		{"plans out of order", []GroupOpRun{run(9, 3, 1), run(14, 2, 0)}, 3 + (12+3+6)/2, 2, false},
		// two operations share channel 1, each a third of its elements
		// there: it is busy 50 + 50, the longest operation's 100
		{"split channel", []GroupOpRun{
			{Time: 100, ChannelLo: 0, ChannelHi: 1, OnChannels: true, CountLo: 10, CountHi: 5},
			{Time: 100, ChannelLo: 1, ChannelHi: 2, OnChannels: true, CountLo: 5, CountHi: 10}}, 100 / 2, 1, false},
		// the same on a channel each runs whole: one after another
		{"shared channel", []GroupOpRun{
			{Time: 100, ChannelLo: 0, ChannelHi: 1, OnChannels: true},
			{Time: 100, ChannelLo: 1, ChannelHi: 2, OnChannels: true}}, 200 / 2, 1, false},
		// the links bind: the link bounds added, over 2
		{"shared links", []GroupOpRun{
			{Time: 100, LinkBound: 90, ChannelLo: 0, ChannelHi: 0, OnChannels: true},
			{Time: 100, LinkBound: 90, ChannelLo: 1, ChannelHi: 1, OnChannels: true}}, 180 / 2, 1, false},
		{"no operation", nil, 0, 0, true},
		{"no plan", []GroupOpRun{run(10, 2, -1)}, 0, 0, true},
	} {
		got, plans, err := GroupOpTime(c.ops)
		if (err != nil) != c.err || got != c.want || len(plans) != c.kernels {
			t.Errorf("%s: GroupOpTime(%v) = %v, %d kernel(s), %v; want %v, %d kernel(s), error %v", c.name, c.ops, got, len(plans), err, c.want, c.kernels, c.err)
		}
	}
}

// TestP2PGroupOpTime: a send/recv group's kernels are timed whole, one
// run per plan, over the group's operations.
func TestP2PGroupOpTime(t *testing.T) {
	run := func(time, launch Time, plan int) GroupOpRun {
		return GroupOpRun{Time: time, Launch: launch, Plan: plan}
	}
	for _, c := range []struct {
		name    string
		kernels []GroupOpRun
		n       int
		want    Time
		err     bool
	}{
		// one kernel of 8 operations' works: its time after launch (40)
		// over 8, and the launch share
		{"one kernel", []GroupOpRun{run(42, 2, 0)}, 8, 2 + 5, false},
		// plan 1 adds its launch (3) and its time after launch (5)
		{"two kernels", []GroupOpRun{run(42, 2, 0), run(8, 3, 1)}, 8, 2 + (40+3+5)/8, false},
		{"two runs of one plan", []GroupOpRun{run(42, 2, 0), run(8, 3, 0)}, 8, 0, true},
		{"no operation", []GroupOpRun{run(42, 2, 0)}, 0, 0, true},
		{"no kernel", nil, 8, 0, true},
	} {
		got, plans, err := P2PGroupOpTime(c.kernels, c.n)
		if (err != nil) != c.err || got != c.want || !c.err && len(plans) != len(c.kernels) {
			t.Errorf("%s: P2PGroupOpTime = %v, %d kernel(s), %v; want %v, error %v", c.name, got, len(plans), err, c.want, c.err)
		}
	}
}

// TestPropGroupPlansCoverTheGroup: every operation of a group lands in
// exactly one simulated kernel plan, the plans in launch order, each plan
// lasting its longest operation; one plan times as the group always did.
func TestPropGroupPlansCoverTheGroup(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 64).Draw(t, "n")
		ops := make([]GroupOpRun, n)
		for i := range ops {
			l := Time(rapid.IntRange(0, 1000).Draw(t, "launch"))
			ops[i] = GroupOpRun{Launch: l, Time: l + Time(rapid.IntRange(0, 1e6).Draw(t, "run")), Plan: rapid.IntRange(0, 5).Draw(t, "plan")}
		}
		per, plans, err := GroupOpTime(ops)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, n)
		tasks := 0
		for k, p := range plans {
			if k > 0 && p.Plan <= plans[k-1].Plan {
				t.Fatalf("plans out of launch order: %d after %d", p.Plan, plans[k-1].Plan)
			}
			for _, i := range p.Ops {
				seen[i]++
				if ops[i].Plan != p.Plan || ops[i].Time-ops[i].Launch > p.Longest {
					t.Fatalf("op %d (plan %d) in plan %d of longest %v", i, ops[i].Plan, p.Plan, p.Longest)
				}
			}
			tasks += len(p.Ops)
		}
		if tasks != n {
			t.Fatalf("%d operations across the plans, %d in the group", tasks, n)
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("op %d in %d plans", i, c)
			}
		}
		one := make([]GroupOpRun, n)
		for i := range ops {
			one[i] = ops[i]
			one[i].Plan = 0
		}
		single, _, _ := GroupOpTime(one)
		if len(plans) > 1 && per < single {
			t.Fatalf("%d kernels one after another take %v per operation, fewer than one kernel's %v", len(plans), per, single)
		}
	})
}

// TestPropGroupSharesLinks: a group's operations share the GPU's links
// and run one after another on a channel they share, so its time per
// operation times its size is at least their link bounds added (the
// busiest link's bytes at its rate) and every channel's operations.
func TestPropGroupSharesLinks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 64).Draw(t, "n")
		ops := make([]GroupOpRun, n)
		var links Time
		busy := map[int]Time{}
		for i := range ops {
			l := Time(rapid.IntRange(0, 1000).Draw(t, "launch"))
			run := Time(rapid.IntRange(0, 1e6).Draw(t, "run"))
			lo := rapid.IntRange(0, 31).Draw(t, "lo")
			ops[i] = GroupOpRun{Launch: l, Time: l + run, Plan: rapid.IntRange(0, 3).Draw(t, "plan"),
				LinkBound: Time(rapid.IntRange(0, 1e6).Draw(t, "bound")), ChannelLo: lo, ChannelHi: lo + rapid.IntRange(0, 4).Draw(t, "width"), OnChannels: true}
			links += ops[i].LinkBound
			for c := lo; c <= ops[i].ChannelHi; c++ {
				busy[c] += run
			}
		}
		per, _, err := GroupOpTime(ops)
		if err != nil {
			t.Fatal(err)
		}
		// the division over n rounds down by less than one picosecond
		if whole := (per - ops[0].Launch + 1) * Time(n); whole < links {
			t.Fatalf("%v per operation over %d: %v, under the link bounds' %v", per, n, whole, links)
		}
		for c, b := range busy {
			if whole := (per - ops[0].Launch + 1) * Time(n); whole < b {
				t.Fatalf("%v per operation over %d: %v, under channel %d's %v", per, n, whole, c, b)
			}
		}
	})
}
