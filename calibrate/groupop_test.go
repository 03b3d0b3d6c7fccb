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
// time the host's launch alone pair: shared-GPU runs on a stream, user
// buffers, one process, at most 4 KiB.
func TestGroupOpPairs(t *testing.T) {
	row := func(agg int, us float64, mod func(*Row)) Row {
		r := Row{File: "f", SharedGPU: true, Release: spec.V2_28_9, Func: spec.AllReduce, Bytes: 8, TimeUs: us,
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
		{"median of a size's rows", []Row{row(0, 20, nil), row(0, 20, nil), row(0, 90, nil), row(8, 5, nil)}, (8*5 - 20) / (7 * 20.0)},
		{"no group", []Row{row(0, 20, nil)}, 0},
		{"not on one GPU", []Row{row(0, 20, func(r *Row) { r.SharedGPU = false }), row(8, 5, nil)}, 0},
		{"graph", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.Launch.Mode = spec.LaunchGraph })}, 0},
		{"past the floor", []Row{row(0, 20, func(r *Row) { r.Bytes = 1 << 20 }), row(8, 5, func(r *Row) { r.Bytes = 1 << 20 })}, 0},
		{"window buffers", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.Buffers = "window" })}, 0},
		{"a process per rank", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.Procs = 2 })}, 0},
		{"other sizes", []Row{row(0, 20, nil), row(8, 5, func(r *Row) { r.Bytes = 64 })}, 0},
	} {
		e := estimateGroupOp(c.rows, 1)
		switch {
		case c.ratio == 0 && e != nil:
			t.Errorf("%s: estimate %+v, want none", c.name, e)
		case c.ratio != 0 && (e == nil || math.Abs(e.Ratio-c.ratio) > 1e-9):
			t.Errorf("%s: estimate %+v, want share %.4f", c.name, e, c.ratio)
		}
	}
}

// TestGroupOpFromSharedGPU: the two-ranks-on-one-H200 captures at 2.30.3,
// 2.30.4 and 2.30.7 pair -m 8 with -m 1 floors; the share is one across
// releases whose floors differ by half (14 to 22 µs): each release's -m 8
// floors predicted from its -m 1 floors with the other releases' share
// are within 10 % (median) and 15 % (each); and the docs' calibration
// puts launch.group_op at that share of its launch.stream, calibrated,
// saying where it comes from.
func TestGroupOpFromSharedGPU(t *testing.T) {
	rows, err := Load([]string{filepath.Join("..", "hw", "testdata", "device", "multirank")})
	if err != nil {
		t.Fatal(err)
	}
	e := estimateGroupOp(rows, 0.13)
	if e == nil || len(e.releases()) != 3 || len(e.Pairs) < 9 {
		t.Fatalf("estimate %+v: want pairs at 3 releases", e)
	}
	var errs []float64
	for _, p := range e.Pairs {
		other := median(pairRatios(e.Pairs, func(q GroupOpPair) bool { return q.Release != p.Release }))
		pred := (p.T1 + float64(p.N-1)*other*p.T1) / float64(p.N)
		d := math.Abs(pred-p.TN) / p.TN
		if d > 0.15 {
			t.Errorf("%s %s %d B: -m %d floor %.2f µs, predicted %.2f from its -m 1 floor %.2f and the other releases' share %.3f", p.Release, p.Func, p.Bytes, p.N, p.TN, pred, p.T1, other)
		}
		errs = append(errs, d)
	}
	if m := median(errs); m > 0.10 {
		t.Errorf("leave one release out: median |error| %.1f %%, want ≤ 10 %%", 100*m)
	}
	rep := docsReport(t)
	p := rep.Profile
	stream, g := p.Value("launch.stream"), p.Value("launch.group_op")
	if rep.GroupOp == nil || p.Source("launch.group_op") != "calibrated" || math.Abs(g-round4(rep.GroupOp.Ratio*stream)) > 1e-9 || g <= 0 {
		t.Fatalf("launch.group_op %v (%s), launch.stream %v, estimate %+v: want the share of launch.stream, calibrated", g, p.Source("launch.group_op"), stream, rep.GroupOp)
	}
	if from := p.Params["launch.group_op"].From; !strings.Contains(from, "two ranks on one H200") || !strings.Contains(from, "multirank") {
		t.Errorf("launch.group_op from %q: want the captures named", from)
	}
}
