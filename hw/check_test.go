package hw

import (
	"fmt"
	"github.com/gatesim/gatesim/conformance"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/diagnose"
	"github.com/gatesim/gatesim/spec"
)

// Every committed capture agrees with spec's prediction from its own
// topology dump: graphs, channel summary, thread thresholds, every table
// cell, every per-operation line and every error.
func TestCheckCommittedCaptures(t *testing.T) {
	cache := spec.NewCache(0)
	for _, set := range []string{"h200x2-2.28.3", "h200x2-2.28.9"} {
		caps, err := ReadCaptureSet(filepath.Join("..", "golden", "testdata", "captured", set))
		if err != nil {
			t.Fatal(err)
		}
		if len(caps) < 15 {
			t.Fatalf("%s: %d captures, want the 16 configurations", set, len(caps))
		}
		for _, c := range caps {
			rep, err := diagnose.CheckCapture(c, cache)
			if err != nil {
				t.Errorf("%s/%s: %v", set, c.Config.Name, err)
				continue
			}
			ops := rep.Ops.Total
			for _, r := range rep.Rows {
				if r.Kind == "op" && r.What != "per-operation lines" {
					ops++ // an operation that returned an error
				}
			}
			if ops == 0 {
				t.Errorf("%s/%s: no operation compared", set, c.Config.Name)
			}
			for _, r := range rep.Rows {
				if !r.Agree {
					t.Errorf("%s/%s: %s %s: predicted %q, observed %q %s", set, c.Config.Name, r.Kind, r.What, r.Predicted, r.Observed, r.Note)
				}
			}
		}
	}
}

// The check can fail: predicting the baseline run with NCCL_PROTO=Simple in
// the environment disagrees with what NCCL printed.
func TestCheckSeesADifferentEnvironment(t *testing.T) {
	c, err := ReadCapture(filepath.Join("..", "golden", "testdata", "captured", "h200x2-2.28.9", "baseline"))
	if err != nil {
		t.Fatal(err)
	}
	c.Result.Env = c.Result.Env.Clone()
	c.Result.Env["NCCL_PROTO"] = "Simple"
	rep, err := diagnose.CheckCapture(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Disagreements() == 0 || rep.Ops.Agree == rep.Ops.Total || rep.Table.Agree == rep.Table.Total {
		t.Errorf("a wrong environment agrees: %d differences, ops %d/%d, table %d/%d", rep.Disagreements(), rep.Ops.Agree, rep.Ops.Total, rep.Table.Agree, rep.Table.Total)
	}
}

// TestCheckOneRankCaptures: one-rank captures (all collectives, -m 4, -G 1)
// agree on every init fact they hold, and say why the rest is not
// comparable: NCCL prints no tuning table and no operation line for one
// rank, which is not a cut log.
// The lent H200 also holds one-rank runs of twelve releases built from their
// tags, 2.19.1 to 2.30.7 (hw/testdata/device/README.md, "Two ranks on one
// GPU under NCCL_MULTI_RANK_GPU_ENABLE"): the same holds at those
// releases, including 2.19.x's channel summary without a collnet count.
func TestCheckOneRankCaptures(t *testing.T) {
	caps, err := ReadCaptureSet(filepath.Join("..", "golden", "testdata", "onegpu", "h200x1-2.28.9"))
	if err != nil {
		t.Fatal(err)
	}
	built, err := ReadCaptureSet(filepath.Join("testdata", "device", "onerank"))
	if err != nil {
		t.Fatal(err)
	}
	releases := map[spec.Version]bool{}
	for _, c := range built {
		if c.Result != nil {
			releases[c.Result.Version] = true
		}
	}
	want := []spec.Version{spec.V2_19_1, spec.V2_19_4, spec.V2_23_4, spec.V2_24_3, spec.V2_25_1, spec.V2_26_3, spec.V2_26_6,
		spec.V2_27_6, spec.V2_28_7, spec.V2_29_3, spec.V2_30_3, spec.V2_30_7}
	if len(caps) != 3 || len(built) != len(want) || len(releases) != len(want) {
		t.Fatalf("%d and %d captures (releases %v), want 3 at 2.28.9 and one each at %v", len(caps), len(built), releases, want)
	}
	for _, v := range want {
		if !releases[v] {
			t.Fatalf("no one-rank capture at %s (releases %v)", v, releases)
		}
	}
	cache := spec.NewCache(0)
	for _, c := range append(caps, built...) {
		rep, err := diagnose.CheckCapture(c, cache)
		if err != nil {
			t.Fatalf("%s: %v", c.Config.Name, err)
		}
		if n := rep.Disagreements(); n != 0 {
			t.Errorf("%s: %d rows differ: %+v", c.Config.Name, n, rep.Rows)
		}
		if rep.Gates.Total == 0 || rep.Gates.Agree != rep.Gates.Total {
			t.Errorf("%s: gates %d/%d", c.Config.Name, rep.Gates.Agree, rep.Gates.Total)
		}
		if len(rep.NotComparable) != 2 || !strings.Contains(strings.Join(rep.NotComparable, "\n"), "one rank") {
			t.Errorf("%s: not comparable %q, want the two one-rank reasons", c.Config.Name, rep.NotComparable)
		}
	}
}

// checkWithLine checks the 2.28.9 baseline capture (edited by edit, when
// given) as it is and with line appended to its log: the reports before
// and after, for tests of a line no capture holds.
func checkWithLine(t *testing.T, edit func(*conformance.Capture), line string) (before, after *conformance.CheckReport) {
	t.Helper()
	c, err := ReadCapture(filepath.Join("..", "golden", "testdata", "captured", "h200x2-2.28.9", "baseline"))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(c)
	}
	if before, err = diagnose.CheckCapture(c, nil); err != nil {
		t.Fatal(err)
	}
	name := c.LogNames()[0]
	c.Logs[name] = append(append([]byte(nil), c.Logs[name]...), line...)
	if after, err = diagnose.CheckCapture(c, nil); err != nil {
		t.Fatal(err)
	}
	return before, after
}

// TestCheckComparesSymmetricLines: hw check compares a [Symmetric] line
// with the kernel predicted for its group (nWorks tasks of the line's
// bytes over nWorks) on window buffers, filling the channels the line
// prints. The repository holds no capture with such a line: one built
// from NCCL's format string (v2.28.9-1 src/scheduler/symmetric_sched.cc
// ncclSymmetricTaskScheduler) is appended to the 2.28.9 baseline's log.
// AllGather of 16 MiB float on this host runs AllGather_ST on 9 blocks
// (golden/testdata/groups/2.28.9.txt, "window alone"); 4 KiB fills 2
// channels of AllGather_LL's 3 blocks; three of them in one group run
// AllGather_ST on one channel. A line whose bytes do not divide by its
// nWorks is not compared.
func TestCheckComparesSymmetricLines(t *testing.T) {
	const ag = "vm:1:1 [0] NCCL INFO AllGather [Symmetric]: %d Bytes -> Kernel %s nchannels %d nthreads 512 nWorks %d\n"
	for _, tc := range []struct {
		line     string
		compared bool
		agree    bool
		pred     string
	}{
		{fmt.Sprintf(ag, 16<<20, "AllGather_ST", 9, 1), true, true, ""},
		{fmt.Sprintf(ag, 16<<20, "AllGather_LL", 9, 1), true, false, "kernel AllGather_ST nchannels 9"},
		{fmt.Sprintf(ag, 4<<10, "AllGather_LL", 2, 1), true, true, ""},
		{fmt.Sprintf(ag, 4<<10, "AllGather_LL", 3, 1), true, false, "kernel AllGather_LL nchannels 2"},
		{fmt.Sprintf(ag, 12<<10, "AllGather_ST", 1, 3), true, true, ""},
		{fmt.Sprintf(ag, 12<<10+8, "AllGather_ST", 1, 3), false, false, ""},
	} {
		before, rep := checkWithLine(t, nil, tc.line)
		if !tc.compared {
			if rep.Ops.Total != before.Ops.Total || rep.Disagreements() != before.Disagreements() {
				t.Errorf("%q: compared (%d lines, %d differ; before %d, %d)", tc.line, rep.Ops.Total, rep.Disagreements(), before.Ops.Total, before.Disagreements())
			}
			noted := false
			for _, r := range rep.Rows {
				noted = noted || strings.Contains(r.Note, "not comparable")
			}
			if !noted {
				t.Errorf("%q: no row says the line is not comparable: %+v", tc.line, rep.Rows)
			}
			continue
		}
		if rep.Ops.Total != before.Ops.Total+1 {
			t.Fatalf("%q: %d lines compared, want %d", tc.line, rep.Ops.Total, before.Ops.Total+1)
		}
		agreed := rep.Ops.Agree == before.Ops.Agree+1
		if agreed != tc.agree {
			t.Errorf("%q: agree %d of %d (before %d of %d), want the line to agree: %v", tc.line, rep.Ops.Agree, rep.Ops.Total, before.Ops.Agree, before.Ops.Total, tc.agree)
		}
		for _, r := range rep.Rows {
			if strings.Contains(r.What, "[Symmetric]") && (tc.agree || r.Agree || r.Predicted != tc.pred) {
				t.Errorf("%q: row %+v, want predicted %q", tc.line, r, tc.pred)
			}
		}
	}
}

// TestCheckMultiRankCaptures: two ranks on one H200 under
// NCCL_MULTI_RANK_GPU_ENABLE=1, NCCL 2.30.3, 2.30.4 and 2.30.7 built from
// their tags (and groupop's logged -m 1 and -m 8 pair of 2.30.7) (hw/testdata/device/README.md, "Two ranks on one GPU under
// NCCL_MULTI_RANK_GPU_ENABLE"): from each capture's own topology dump (one
// <pci> holding two <gpu>, the ranks on one DEV node) spec predicts every
// gate the log proves, the graphs, the channel summary, every table cell,
// every per-operation line and the result.
// Ref: v2.30.3-1 src/graph/topo.cc ncclTopoAddPci, ncclCheckMultiRank;
// v2.30.7-1 src/init.cc initTransportsRank
func TestCheckMultiRankCaptures(t *testing.T) {
	cache := spec.NewCache(0)
	for _, set := range []struct {
		dir, release string
		n            int
	}{
		{filepath.Join("testdata", "device", "multirank", "2.30.3"), "2.30.3", 3},
		{filepath.Join("testdata", "device", "multirank", "2.30.4"), "2.30.4", 3},
		{filepath.Join("testdata", "device", "multirank", "2.30.7"), "2.30.7", 14},
		// the logged pair of the group-cost captures (-m 1 and -m 8)
		{filepath.Join("testdata", "device", "groupop", "2.30.7", "logged"), "2.30.7", 2},
	} {
		release := set.release
		caps, err := ReadCaptureSet(set.dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(caps) != set.n {
			t.Fatalf("%s: %d captures, want %d", set.dir, len(caps), set.n)
		}
		for _, c := range caps {
			rep, err := diagnose.CheckCapture(c, cache)
			if err != nil {
				t.Fatalf("%s %s: %v", release, c.Config.Name, err)
			}
			if rep.Release.String() != release {
				t.Errorf("%s %s: release %s", release, c.Config.Name, rep.Release)
			}
			if n := rep.Disagreements(); n != 0 {
				t.Errorf("%s %s: %d rows differ: %+v", release, c.Config.Name, n, rep.Rows)
			}
			if rep.Gates.Total == 0 || rep.Gates.Agree != rep.Gates.Total {
				t.Errorf("%s %s: gates %d/%d", release, c.Config.Name, rep.Gates.Agree, rep.Gates.Total)
			}
			// -m 8: every one of the 200 distinct operation lines of its 27
			// groups of eight (nine sizes of three collectives)
			if c.Config.Name == "agg8" && (rep.Ops.Total != 200 || rep.Ops.Agree != rep.Ops.Total || len(rep.NotComparable) > 0) {
				t.Errorf("%s agg8: op lines %d/%d, want 200/200; not comparable: %v", release, rep.Ops.Agree, rep.Ops.Total, rep.NotComparable)
			}
		}
	}
}

// ReadCaptureDirs finds every capture under a folder, however deep its
// sets lie: hw/testdata/device holds 12 one-rank captures in onerank, 20
// multi-rank ones a level deeper in multirank's release folders and 2 two
// levels deeper in groupop (the walk once stopped at one level and checked
// only the 12). A folder with no capture is an error naming it.
func TestReadCaptureDirsFindsEvery(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		want int
	}{
		{filepath.Join("testdata", "device"), 34},
		{filepath.Join("testdata", "device", "multirank"), 20},
		{filepath.Join("testdata", "device", "groupop"), 2},
		{filepath.Join("testdata", "device", "multirank", "2.30.7"), 14},
		{filepath.Join("testdata", "device", "multirank", "2.30.7", "agg8"), 1},
	} {
		caps, err := ReadCaptureDirs([]string{tc.dir})
		if err != nil {
			t.Fatalf("%s: %v", tc.dir, err)
		}
		if len(caps) != tc.want {
			t.Errorf("%s: %d captures, want %d", tc.dir, len(caps), tc.want)
		}
	}
	dir := filepath.Join("testdata", "compare")
	if _, err := ReadCaptureDirs([]string{dir}); err == nil || !strings.Contains(err.Error(), dir+": no capture directories") {
		t.Errorf("%s: %v, want no capture directories naming it", dir, err)
	}
}
