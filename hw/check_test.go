package hw

import (
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
func TestCheckOneRankCaptures(t *testing.T) {
	caps, err := ReadCaptureSet(filepath.Join("..", "golden", "testdata", "onegpu", "h200x1-2.28.9"))
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 3 {
		t.Fatalf("%d captures, want 3", len(caps))
	}
	cache := spec.NewCache(0)
	for _, c := range caps {
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

// TestCheckComparesSymmetricLines: hw check compares a [Symmetric] line
// with the kernel predicted for the same task on window buffers. The
// repository holds no capture with such a line: one built from NCCL's
// format string (v2.28.9-1 src/scheduler/symmetric_sched.cc
// ncclSymmetricTaskScheduler) is appended to the 2.28.9 baseline's log;
// AllGather of 16 MiB float on this host runs AllGather_ST on 9 blocks
// (golden/testdata/groups/2.28.9.txt, "window alone").
func TestCheckComparesSymmetricLines(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		agree  bool
	}{{"AllGather_ST", true}, {"AllGather_LL", false}} {
		c, err := ReadCapture(filepath.Join("..", "golden", "testdata", "captured", "h200x2-2.28.9", "baseline"))
		if err != nil {
			t.Fatal(err)
		}
		before, err := diagnose.CheckCapture(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		name := c.LogNames()[0]
		line := "vm:1:1 [0] NCCL INFO AllGather [Symmetric]: 16777216 Bytes -> Kernel " + tc.kernel + " nchannels 9 nthreads 512 nWorks 1\n"
		c.Logs[name] = append(append([]byte(nil), c.Logs[name]...), line...)
		rep, err := diagnose.CheckCapture(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Ops.Total != before.Ops.Total+1 {
			t.Fatalf("%s: %d lines compared, want %d", tc.kernel, rep.Ops.Total, before.Ops.Total+1)
		}
		agreed := rep.Ops.Agree == before.Ops.Agree+1
		if agreed != tc.agree {
			t.Errorf("%s: agree %d of %d (before %d of %d), want the line to agree: %v", tc.kernel, rep.Ops.Agree, rep.Ops.Total, before.Ops.Agree, before.Ops.Total, tc.agree)
		}
		found := false
		for _, r := range rep.Rows {
			if strings.Contains(r.What, "[Symmetric]") {
				found = !r.Agree && r.Observed == "kernel AllGather_LL nchannels 9" && r.Predicted == "kernel AllGather_ST nchannels 9"
			}
		}
		if found == tc.agree {
			t.Errorf("%s: rows %+v", tc.kernel, rep.Rows)
		}
	}
}
