package calibrate

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// TestGroupOpPairs: the share k = (N·T_N − T_1) / ((N − 1)·T_1) of each
// pair of floors, logging's cost taken off both, and only the rows that
// time the host's launch alone pair, within one set of runs: shared-GPU
// runs on a stream, user buffers, one process, at most 4 KiB.
func TestGroupOpPairs(t *testing.T) {
	row := func(agg int, us float64, mod func(*Row)) Row {
		r := Row{File: "set/run/results.json", SharedGPU: true, Release: spec.V2_28_9, Func: spec.AllReduce, Bytes: 8, TimeUs: us,
			Launch: sim.Launch{Launch: spec.Launch{Agg: agg}}}
		if mod != nil {
			mod(&r)
		}
		return r
	}
	logged := func(r *Row) { r.Launch.Logged = true }
	for _, c := range []struct {
		name  string
		rows  []Row
		ratio float64 // 0: no estimate
	}{
		{"one pair", []Row{row(0, 20, nil), row(8, 5, nil)}, (8*5 - 20) / (7 * 20.0)},
		{"logged", []Row{row(0, 21, logged), row(8, 6, logged)}, (8*5 - 20) / (7 * 20.0)},
		{"median of a set's rows", []Row{row(0, 20, nil), row(0, 20, func(r *Row) { r.Bytes = 64 }), row(0, 90, nil), row(8, 5, nil)}, (8*5 - 20) / (7 * 20.0)},
		{"no group", []Row{row(0, 20, nil)}, 0},
		{"not on one GPU", []Row{row(0, 20, func(r *Row) { r.SharedGPU = false }), row(8, 5, nil)}, 0},
		{"graph", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.Launch.Mode = spec.LaunchGraph })}, 0},
		{"past the floor", []Row{row(0, 20, func(r *Row) { r.Bytes = 1 << 20 }), row(8, 5, func(r *Row) { r.Bytes = 1 << 20 })}, 0},
		{"window buffers", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.Buffers = "window" })}, 0},
		{"a process per rank", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.Procs = 2 })}, 0},
		{"a logged floor under logging's cost", []Row{row(0, 21, logged), row(8, 0.5, logged)}, 0},
		{"other sets", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.File = "other/run/results.json" })}, 0},
	} {
		e := estimateGroupOp(c.rows, 1)
		if e != nil && len(e.HeldOutErrors()) != 0 {
			t.Errorf("%s: one set of runs has %d held-out errors: no other set predicts it", c.name, len(e.HeldOutErrors()))
		}
		switch {
		case c.ratio == 0 && e != nil:
			t.Errorf("%s: estimate %+v, want none", c.name, e)
		case c.ratio != 0 && (e == nil || math.Abs(e.Ratio-c.ratio) > 1e-9):
			t.Errorf("%s: estimate %+v, want share %.4f", c.name, e, c.ratio)
		}
	}
}

// TestGroupOpFromSharedGPU: the runs of two ranks on one H200 (2.30.3,
// 2.30.4 and 2.30.7 at -m 8, logged; 2.30.7 at -m 2 to 64 in three sets,
// not logged) pair each set's -m N floors with its -m 1 floors; the share
// of one set predicts the others' -m N floors from their -m 1 floors
// within 15 % (median; the host's cost per operation of a group moves
// with its state, as the floor does, and its p90 is the doc's to report);
// and the docs' calibration puts launch.group_op at that share of its launch.stream,
// calibrated, saying where it comes from.
func TestGroupOpFromSharedGPU(t *testing.T) {
	rows, err := Load([]string{filepath.Join("..", "hw", "testdata", "device", "multirank"), filepath.Join("..", "hw", "testdata", "device", "groupop")})
	if err != nil {
		t.Fatal(err)
	}
	e := estimateGroupOp(rows, 0.13)
	if e == nil || len(e.releases()) != 3 || len(e.Pairs) < 20 {
		t.Fatalf("estimate %+v: want pairs at 3 releases", e)
	}
	sets := map[string]bool{}
	for _, p := range e.Pairs {
		sets[p.Set] = true
	}
	if len(sets) != 7 {
		t.Errorf("%d sets of runs, want 7 (3 multirank releases, 3 groupop repeats and its logged pair)", len(sets))
	}
	errs := e.HeldOutErrors()
	if m := quantile(errs, 0.5); m > 0.15 {
		t.Errorf("leave one set out: median |error| %.1f %%, want ≤ 15 %%", 100*m)
	}
	if e.Ratio < 0.05 || e.Ratio > 0.2 {
		t.Errorf("share %.3f: want 0.05–0.2 (1–3 µs of a 14–22 µs floor per further operation)", e.Ratio)
	}
	rep := docsReport(t)
	p := rep.Profile
	stream, g := p.Value("launch.stream"), p.Value("launch.group_op")
	if rep.GroupOp == nil || p.Source("launch.group_op") != "calibrated" || math.Abs(g-round4(rep.GroupOp.Ratio*stream)) > 1e-9 || g <= 0 {
		t.Fatalf("launch.group_op %v (%s), launch.stream %v, estimate %+v: want the share of launch.stream, calibrated", g, p.Source("launch.group_op"), stream, rep.GroupOp)
	}
	if from := p.Params["launch.group_op"].From; !strings.Contains(from, "two ranks on one H200") || !strings.Contains(from, "hw/testdata/device") {
		t.Errorf("launch.group_op from %q: want the captures named", from)
	}
}
