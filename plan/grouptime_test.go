package plan

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestGroupSharesLinks: a 256 MiB AllReduce issued agg times in one group
// on 2 × H200 shares the GPU's NVLink however its operations split the
// channels, so no aggregate beats the link: busbw at every agg stays at
// or under the busiest link's bound of the operation alone (its wire
// bytes at the rate the fabric gives), and at or over agg 1's (a group
// pays one launch and one pipeline fill for all its operations), and the
// headline's bandwidth is the group's.
func TestGroupSharesLinks(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const size = 256 << 20
	var one, linkBw, prev float64
	for _, agg := range []int{1, 8, 64, 4096} {
		c, err := Open(Request{Ruleset: spec.MustLoad(spec.V2_28_9), Sys: sys, Issue: spec.Issue{Launch: spec.Launch{Agg: agg}}})
		if err != nil {
			t.Fatal(err)
		}
		op, err := c.Op(spec.AllReduce, spec.Float32, spec.Sum, size, 0)
		if err != nil {
			t.Fatal(err)
		}
		rep, _, err := c.Run(op, RunOptions{Release: "2.28.9", Size: size, Describe: func(*spec.Decision) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		busbw, per := rep.Result.BusBw, rep.Result.TimeUs
		if agg == 1 {
			if rep.Result.LinkBound <= 0 || rep.Result.AlgBw <= 0 {
				t.Fatalf("agg 1: link bound %d ps, algbw %g: no bound to hold the groups to", rep.Result.LinkBound, rep.Result.AlgBw)
			}
			one = busbw
			linkBw = float64(rep.Result.Bytes) / (float64(rep.Result.LinkBound) * 1e-12) / 1e9 * rep.Result.BusBw / rep.Result.AlgBw
		} else {
			if rep.Group == nil {
				t.Fatalf("agg %d: no group", agg)
			}
			busbw, per = rep.Group.BusBw, rep.Group.PerOpUs
		}
		t.Logf("agg %d: %.2f µs per operation, busbw %.2f GB/s (link bound %.2f)", agg, per, busbw, linkBw)
		if busbw > linkBw*1.001 || busbw < one*0.999 {
			t.Errorf("agg %d: busbw %.2f GB/s beats the link-bound %.2f or falls under agg 1's %.2f", agg, busbw, linkBw, one)
		}
		// more operations per group never cost more per operation
		// (beyond 2%: launches and rounding)
		if prev > 0 && per > prev*1.02 {
			t.Errorf("agg %d: %.2f µs per operation, more than the smaller group's %.2f", agg, per, prev)
		}
		prev = per
	}
}

// TestP2PGroupSharesLinks: a send/recv group's kernels share the GPU's
// links as a collective group's operations do, however NCCL's planner
// spreads their works over passes and kernels, so at no agg does an
// AllToAll's or a SendRecv's busbw beat the busiest link's bound of the
// operation alone (its wire bytes at the rate the fabric gives).
func TestP2PGroupSharesLinks(t *testing.T) {
	for _, tc := range []struct {
		system string
		op     spec.Func
		size   int64
	}{
		{"h200x2", spec.AllToAll, 1 << 30},
		{"h200x2", spec.SendRecv, 1 << 30},
		{"dgx-h100", spec.AllToAll, 1 << 30},
		{"dgx-h100", spec.SendRecv, 256 << 20},
		{"h200x2", spec.AllToAll, 3 << 30}, // the closest to the bound: 343.7 GB/s at agg 8
	} {
		sys, err := spec.Preset(tc.system, spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var linkBw float64
		for _, agg := range []int{1, 2, 8, 64} {
			c, err := Open(Request{Ruleset: spec.MustLoad(spec.V2_28_9), Sys: sys, Env: spec.Env{"NCCL_NVLS_ENABLE": "0"},
				Issue: spec.Issue{Launch: spec.Launch{Agg: agg}}})
			if err != nil {
				t.Fatal(err)
			}
			op, err := c.Op(tc.op, spec.Float32, spec.Sum, tc.size, 0)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := c.Run(op, RunOptions{Release: "2.28.9", Size: tc.size, Describe: func(*spec.Decision) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			busbw := rep.Result.BusBw
			if agg == 1 {
				if rep.Result.LinkBound <= 0 || rep.Result.AlgBw <= 0 {
					t.Fatalf("%s %v agg 1: link bound %d ps, algbw %g: no bound to hold the groups to", tc.system, tc.op, rep.Result.LinkBound, rep.Result.AlgBw)
				}
				linkBw = float64(rep.Result.Bytes) / (float64(rep.Result.LinkBound) * 1e-12) / 1e9 * rep.Result.BusBw / rep.Result.AlgBw
			} else {
				if rep.Group == nil {
					t.Fatalf("%s %v agg %d: no group", tc.system, tc.op, agg)
				}
				busbw = rep.Group.BusBw
			}
			t.Logf("%s %v agg %d: busbw %.2f GB/s (link bound %.2f)", tc.system, tc.op, agg, busbw, linkBw)
			if busbw > linkBw*1.001 {
				t.Errorf("%s %v agg %d: busbw %.2f GB/s beats the link bound %.2f", tc.system, tc.op, agg, busbw, linkBw)
			}
		}
	}
}

// TestP2PGroupAggKeepsRate: a larger group of the same AllToAll runs at
// about the rate of a smaller one, also when NCCL's planner splits its
// works over two kernel plans (dgx-h100 at agg 8: the second plan's first
// pass holds the works the first plan left over), and never above the
// busiest link's bound of the operation alone.
func TestP2PGroupAggKeepsRate(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{1 << 30, 4 << 30} {
		run := func(agg int) *Report {
			c, err := Open(Request{Ruleset: spec.MustLoad(spec.V2_28_9), Sys: sys, Issue: spec.Issue{Launch: spec.Launch{Agg: agg}}})
			if err != nil {
				t.Fatal(err)
			}
			op, err := c.Op(spec.AllToAll, spec.Float32, spec.Sum, size, 0)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := c.Run(op, RunOptions{Release: "2.28.9", Size: size, Describe: func(*spec.Decision) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		alone := run(1)
		r := alone.Result
		if r.LinkBound <= 0 || r.AlgBw <= 0 {
			t.Fatalf("%d bytes agg 1: link bound %d ps, algbw %g: no bound", size, r.LinkBound, r.AlgBw)
		}
		linkBw := float64(r.Bytes) / (float64(r.LinkBound) * 1e-12) / 1e9 * r.BusBw / r.AlgBw
		g2, g8 := run(2).Group, run(8).Group
		if g2 == nil || g8 == nil {
			t.Fatalf("%d bytes: no group at agg 2 or 8", size)
		}
		if len(g8.Kernels) < 2 {
			t.Errorf("%d bytes agg 8: %d kernel plan(s); expected the works to fill at least 2", size, len(g8.Kernels))
		}
		t.Logf("%d bytes: busbw agg 2 %.2f, agg 8 %.2f GB/s (link bound %.2f)", size, g2.BusBw, g8.BusBw, linkBw)
		if g8.BusBw < 0.9*g2.BusBw {
			t.Errorf("%d bytes: busbw %.2f GB/s at agg 8, more than 10%% under agg 2's %.2f", size, g8.BusBw, g2.BusBw)
		}
		for agg, bw := range map[int]float64{2: g2.BusBw, 8: g8.BusBw} {
			if bw > linkBw*1.001 {
				t.Errorf("%d bytes agg %d: busbw %.2f GB/s beats the link bound %.2f", size, agg, bw, linkBw)
			}
		}
	}
}
