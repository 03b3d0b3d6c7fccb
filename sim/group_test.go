package sim

import (
	"testing"

	"pgregory.net/rapid"
)

func TestGroupOpTime(t *testing.T) {
	run := func(time, host, dev Time, plan int) GroupOpRun {
		return GroupOpRun{Time: time, Host: host, Dev: dev, Plan: plan}
	}
	four := []GroupOpRun{run(1000, 100, 100, 0), run(1400, 100, 100, 0), run(900, 100, 100, 0), run(600, 100, 100, 0)}
	slowHost := []GroupOpRun{run(1400, 500, 100, 0), run(1800, 500, 100, 0), run(1300, 500, 100, 0), run(1000, 500, 100, 0)}
	for _, c := range []struct {
		name    string
		ops     []GroupOpRun
		batch   int
		want    Time
		kernels int
		err     bool
	}{
		{"one operation", []GroupOpRun{run(1000, 100, 100, 0)}, 1, 1000, 1, false},
		// alone, one after another in a batch of 20: (1000 + 19 × 900) / 20
		{"one operation, batch", []GroupOpRun{run(1000, 100, 100, 0)}, 20, 905, 1, false},
		// the host's parts added (400), one kernel's device launch (100)
		// and its longest operation after launch (1200), over 4
		{"one plan", four, 1, (400 + 100 + 1200) / 4, 1, false},
		// in a batch the device's 1300 per group binds: (1700 + 19 × 1300) / 20 / 4
		{"one plan, batch", four, 20, 330, 1, false},
		// a slow host binds: (2000 + 1300 + 19 × 2000) / 20 / 4
		{"one plan, batch, host bound", slowHost, 20, 516, 1, false},
		// two kernels one after another, each its device launch and its
		// longest: 100 + 1200, 200 + 600; the host's 400; over 4
		{"two plans", []GroupOpRun{run(1000, 100, 100, 0), run(1400, 100, 100, 0), run(900, 100, 200, 1), run(800, 100, 200, 1)}, 1, (400 + 1300 + 800) / 4, 2, false},
		// plans in plan order whatever the group's order
		{"plans out of order", []GroupOpRun{run(900, 100, 200, 1), run(1400, 100, 100, 0)}, 1, (200 + 1300 + 800) / 2, 2, false},
		// two operations share channel 1, each a third of its elements
		// there: it is busy 50 + 50, the longest operation's 100
		{"split channel", []GroupOpRun{
			{Time: 100, ChannelLo: 0, ChannelHi: 1, OnChannels: true, CountLo: 10, CountHi: 5},
			{Time: 100, ChannelLo: 1, ChannelHi: 2, OnChannels: true, CountLo: 5, CountHi: 10}}, 1, 100 / 2, 1, false},
		// the same on a channel each runs whole: one after another
		{"shared channel", []GroupOpRun{
			{Time: 100, ChannelLo: 0, ChannelHi: 1, OnChannels: true},
			{Time: 100, ChannelLo: 1, ChannelHi: 2, OnChannels: true}}, 1, 200 / 2, 1, false},
		// the links bind: the link bounds added, over 2
		{"shared links", []GroupOpRun{
			{Time: 100, LinkBound: 90, ChannelLo: 0, ChannelHi: 0, OnChannels: true},
			{Time: 100, LinkBound: 90, ChannelLo: 1, ChannelHi: 1, OnChannels: true}}, 1, 180 / 2, 1, false},
		{"no operation", nil, 1, 0, 0, true},
		{"no plan", []GroupOpRun{run(10, 1, 1, -1)}, 1, 0, 0, true},
	} {
		got, plans, err := GroupOpTime(c.ops, c.batch)
		if (err != nil) != c.err || got != c.want || len(plans) != c.kernels {
			t.Errorf("%s: GroupOpTime(%v, %d) = %v, %d kernel(s), %v; want %v, %d kernel(s), error %v", c.name, c.ops, c.batch, got, len(plans), err, c.want, c.kernels, c.err)
		}
	}
}

// TestP2PGroupOpTime: a send/recv group's kernels are timed whole, one
// run per plan, against the host's issuing of the group's operations.
func TestP2PGroupOpTime(t *testing.T) {
	run := func(time, host, dev Time, plan int) GroupOpRun {
		return GroupOpRun{Time: time, Host: host, Dev: dev, Plan: plan}
	}
	for _, c := range []struct {
		name    string
		kernels []GroupOpRun
		n       int
		batch   int
		want    Time
		err     bool
	}{
		// one kernel of 8 operations' works: the host's 8 × 100, the
		// kernel's launch (100) and its time after launch (4000), over 8
		{"one kernel", []GroupOpRun{run(4200, 100, 100, 0)}, 8, 1, (800 + 4100) / 8, false},
		// plan 1 adds its launch (300) and its time after launch (400)
		{"two kernels", []GroupOpRun{run(4200, 100, 100, 0), run(800, 100, 300, 1)}, 8, 1, (800 + 4100 + 700) / 8, false},
		// a batch of 20 groups: (4900 + 19 × 4100) / 20 / 8
		{"one kernel, batch", []GroupOpRun{run(4200, 100, 100, 0)}, 8, 20, 517, false},
		{"two runs of one plan", []GroupOpRun{run(4200, 100, 100, 0), run(800, 100, 300, 0)}, 8, 1, 0, true},
		{"no operation", []GroupOpRun{run(4200, 100, 100, 0)}, 0, 1, 0, true},
		{"no kernel", nil, 8, 1, 0, true},
	} {
		got, plans, err := P2PGroupOpTime(c.kernels, c.n, c.batch)
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
			h, d := Time(rapid.IntRange(0, 1000).Draw(t, "host")), Time(rapid.IntRange(0, 1000).Draw(t, "dev"))
			ops[i] = GroupOpRun{Host: h, Dev: d, Time: h + d + Time(rapid.IntRange(0, 1e6).Draw(t, "run")), Plan: rapid.IntRange(0, 5).Draw(t, "plan")}
		}
		batch := rapid.IntRange(1, 100).Draw(t, "batch")
		per, plans, err := GroupOpTime(ops, batch)
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
				if ops[i].Plan != p.Plan || ops[i].run() > p.Longest {
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
		single, _, _ := GroupOpTime(one, batch)
		if len(plans) > 1 && per < single {
			t.Fatalf("%d kernels one after another take %v per operation, fewer than one kernel's %v", len(plans), per, single)
		}
	})
}

// TestPropGroupSharesLinks: a group's operations share the GPU's links
// and run one after another on a channel they share, so its time per
// operation times its size is at least their link bounds added (the
// busiest link's bytes at its rate) and every channel's operations, and
// at least the host's issuing of them, in a batch of any size.
func TestPropGroupSharesLinks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 64).Draw(t, "n")
		ops := make([]GroupOpRun, n)
		var links, host Time
		busy := map[int]Time{}
		for i := range ops {
			h, d := Time(rapid.IntRange(0, 1000).Draw(t, "host")), Time(rapid.IntRange(0, 1000).Draw(t, "dev"))
			run := Time(rapid.IntRange(0, 1e6).Draw(t, "run"))
			lo := rapid.IntRange(0, 31).Draw(t, "lo")
			host += h
			ops[i] = GroupOpRun{Host: h, Dev: d, Time: h + d + run, Plan: rapid.IntRange(0, 3).Draw(t, "plan"),
				LinkBound: Time(rapid.IntRange(0, 1e6).Draw(t, "bound")), ChannelLo: lo, ChannelHi: lo + rapid.IntRange(0, 4).Draw(t, "width"), OnChannels: true}
			links += ops[i].LinkBound
			for c := lo; c <= ops[i].ChannelHi; c++ {
				busy[c] += run
			}
		}
		batch := rapid.IntRange(1, 100).Draw(t, "batch")
		per, _, err := GroupOpTime(ops, batch)
		if err != nil {
			t.Fatal(err)
		}
		// the divisions round down by less than one picosecond each
		whole := (per + 2) * Time(n)
		if whole < links {
			t.Fatalf("%v per operation over %d: %v, under the link bounds' %v", per, n, whole, links)
		}
		if whole < host {
			t.Fatalf("%v per operation over %d: %v, under the host's %v", per, n, whole, host)
		}
		for c, b := range busy {
			if whole < b {
				t.Fatalf("%v per operation over %d: %v, under channel %d's %v", per, n, whole, c, b)
			}
		}
	})
}
