package diagnose

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gatesim/gatesim/hw/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// Predicting a captured run from its own topology dump, with the variables
// its log reports, agrees with every gate and operation the log shows.
func TestPredictCaptured(t *testing.T) {
	for _, cfg := range []string{"baseline", "algo-tree", "proto-simple", "net"} {
		dir := filepath.Join("..", "golden", "testdata", "captured", "h200x2-2.28.9", cfg)
		f, err := os.Open(filepath.Join(dir, "nccl.log"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := ncclog.Parse(f, "nccl.log")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		xml, err := os.ReadFile(filepath.Join(dir, "topo.xml"))
		if err != nil {
			t.Fatal(err)
		}
		sys, err := spec.SystemFromTopology("topo.xml", xml, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Predict(l, 0, sys, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		if len(p.Decisions) < 10 {
			t.Fatalf("%s: %d decisions predicted", cfg, len(p.Decisions))
		}
		c := Compare(p, Diagnose(l, Options{}).Obs)
		if n := c.Counts[string(Differ)]; n > 0 {
			for _, r := range c.Ops {
				if r.Agreement == Differ {
					t.Errorf("%s: %s %d: predicted %s, observed %s", cfg, r.Coll, r.Bytes, r.Predicted, r.Observed)
				}
			}
			for _, r := range c.Gates {
				if r.Agreement == Differ {
					t.Errorf("%s: %s: predicted %s, observed %s", cfg, r.Rule, r.Predicted, r.Observed)
				}
			}
		}
		if c.Counts[string(Agree)] < len(p.Decisions) {
			t.Errorf("%s: only %d rows agree", cfg, c.Counts[string(Agree)])
		}
	}
}
