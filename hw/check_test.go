package hw

import (
	"path/filepath"
	"testing"

	"github.com/gatesim/gatesim/conformance"
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
			rep, err := conformance.Check(c, cache)
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
	rep, err := conformance.Check(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Disagreements() == 0 || rep.Ops.Agree == rep.Ops.Total || rep.Table.Agree == rep.Table.Total {
		t.Errorf("a wrong environment agrees: %d differences, ops %d/%d, table %d/%d", rep.Disagreements(), rep.Ops.Agree, rep.Ops.Total, rep.Table.Agree, rep.Table.Total)
	}
}
