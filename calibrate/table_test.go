package calibrate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A file's rows are placed in line order whatever order the results come
// in; a pass starts where the size falls, and places do not run across
// files.
func TestSweepPlaces(t *testing.T) {
	res := func(file string, line int, bytes int64) Result {
		return Result{Case: &Case{Row: Row{File: file, Line: line, Bytes: bytes}}}
	}
	for _, tc := range []struct {
		name string
		rs   []Result
		want []sweepPlace
	}{
		{"one pass", []Result{res("a", 1, 8), res("a", 2, 16), res("a", 3, 32)},
			[]sweepPlace{{First: true}, {}, {}}},
		{"passes after a large size", []Result{res("a", 1, 8), res("a", 2, 4<<30), res("a", 3, 8), res("a", 4, 16), res("a", 5, 4<<30), res("a", 6, 8)},
			[]sweepPlace{{First: true}, {}, {Pass: 1, AfterLarge: true}, {Pass: 1}, {Pass: 1}, {Pass: 2, AfterLarge: true}}},
		{"out of order, two files", []Result{res("b", 2, 16), res("a", 2, 8), res("b", 1, 2<<20), res("a", 1, 16)},
			[]sweepPlace{{Pass: 1, AfterLarge: true}, {Pass: 1}, {First: true}, {First: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, sweepPlaces(tc.rs)); d != "" {
				t.Errorf("places (-want +got):\n%s", d)
			}
		})
	}
}

// FloorModes counts a row slow above slowFloor × the 10th percentile of
// the selected floor rows, and selects stream rows of -n ≥ 20 only.
func TestFloorModes(t *testing.T) {
	var rs []Result
	add := func(t float64, iters int) {
		c := &Case{Row: Row{File: "f", Line: len(rs) + 1, Bytes: 8, TimeUs: t, Tool: "nccl-tests"}}
		c.Launch.Iters = iters
		rs = append(rs, Result{Case: c})
	}
	for range 6 {
		add(12, 20)
	}
	for range 4 {
		add(18, 20)
	}
	add(100, 2) // -n 2: not selected
	ms := FloorModes(rs)
	if len(ms) == 0 || ms[0].Property != "collective" || ms[0].Rows != 10 || ms[0].Slow != 4 {
		t.Fatalf("first property: %+v, want 10 rows, 4 slow", ms)
	}
}

// No property a row records predicts the stream floor's mode on the
// repository's captures (docs/calibration.md says so): each value with
// enough rows has between 20 % and 80 % of them in the slow mode. When a
// capture makes one predictive, model it and change the docs.
func TestFloorModeNotPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("the calibration takes minutes")
	}
	rep := docsReport(t)
	ms := FloorModes(rep.Results)
	if len(ms) == 0 {
		t.Fatal("no stream floor rows: the committed captures are missing")
	}
	for _, m := range ms {
		share := float64(m.Slow) / float64(m.Rows)
		t.Logf("%s = %s: %d rows, %.1f %% slow", m.Property, m.Value, m.Rows, 100*share)
		if m.Rows >= 100 && (share < 0.2 || share > 0.8) {
			t.Errorf("%s = %s predicts the floor's mode (%d rows, %.1f %% slow)", m.Property, m.Value, m.Rows, 100*share)
		}
	}
}
