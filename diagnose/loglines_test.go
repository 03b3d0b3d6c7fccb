package diagnose

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// diagnoseRule parses a synthetic log, predicts it on sys and returns the
// predicted and observed verdicts of rule and its gate row.
func diagnoseRule(t *testing.T, log string, sys *spec.System, rule spec.RuleID) (pred, obs spec.Verdict, row GateRow) {
	t.Helper()
	l, err := ncclog.Parse(strings.NewReader(log), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Predict(l, 0, sys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := ncclog.Observe(l)
	var ok bool
	if pred, ok = p.Trace.Find(rule); !ok {
		t.Fatalf("no predicted %s", rule)
	}
	if obs, ok = o.Trace.Find(rule); !ok {
		t.Fatalf("no observed %s", rule)
	}
	c := Compare(p, o)
	i := slices.IndexFunc(c.Gates, func(g GateRow) bool { return g.Rule == rule })
	if i < 0 {
		t.Fatalf("no gate row for %s", rule)
	}
	return pred, obs, c.Gates[i]
}

// TestDiagnoseConfigLines (G-ENV-CONFIG-1): a 2.28.9 log whose job set
// maxCTAs and netName in its config, NCCL_MIN_CTAS resetting minCTAs's
// default and NCCL_NET the netName. diagnose reads the config from the
// "set to" lines and the variables from the "reset" lines, predicts the
// same lines, and the gate agrees.
func TestDiagnoseConfigLines(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		"Comm config Max CTAs set to 16",
		"Comm config Net name set to Socket",
		"Comm config minCTAs reset to NCCL_MIN_CTAS=2",
		"Comm config netName reset to NCCL_NET=IB",
	}
	log := "h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	for _, ln := range lines {
		log += "h:1:1 [0] NCCL INFO " + ln + "\nh:1:1 [1] NCCL INFO " + ln + "\n"
	}
	pred, obs, row := diagnoseRule(t, log, sys, "G-ENV-CONFIG-1")
	if !slices.Equal(pred.Log, lines) {
		t.Errorf("predicted lines %q\nwant %q", pred.Log, lines)
	}
	if !slices.Equal(obs.Log, lines) || obs.Outcome != spec.Pass {
		t.Errorf("observed %s %q, want pass with %q", obs.Outcome, obs.Log, lines)
	}
	if row.Agreement != Agree {
		t.Errorf("gate row %+v, want agree", row)
	}
	l, _ := ncclog.Parse(strings.NewReader(log), "t.log")
	if e, ok := l.EnvValue("NCCL_MIN_CTAS"); !ok || e.Value != "2" || e.How != "config" {
		t.Errorf("NCCL_MIN_CTAS from the reset line: %+v %v", e, ok)
	}
	l, _ = ncclog.Parse(strings.NewReader("h:1:1 [0] NCCL INFO Comm config maxP2pPeers reset to NCCL_MAX_P2P_PEERS=64\n"), "t.log")
	if e, ok := l.EnvValue("NCCL_P2P_MAX_PEERS"); !ok || e.Value != "64" {
		t.Errorf("the reset line names NCCL_MAX_P2P_PEERS; NCCL reads NCCL_P2P_MAX_PEERS: %+v %v", l.Env, ok)
	}
}
