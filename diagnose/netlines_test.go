package diagnose

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestNetLinesWarnsNameTheirGate: the IB plane WARN (G-NET-IB-PLANE-1) and
// "GIN is disabled." (G-GIN-CONN-1) are observed failures of their gates,
// and the nccl.error finding for each names that gate.
func TestNetLinesWarnsNameTheirGate(t *testing.T) {
	log := "h:1:2 [0] NCCL INFO NCCL version 2.30.7+cuda12.9\n" +
		"h:1:2 [0] NCCL WARN NCCL cannot use a plane ID that is 16384.\n" +
		"h:1:2 [0] NCCL INFO Failed to initialize NET plugin IB\n" +
		"h:1:2 [0] NCCL WARN GIN is disabled.\n"
	r := diagLog(t, log, Options{})
	want := map[string]spec.RuleID{"NCCL cannot use a plane ID that is 16384.": "G-NET-IB-PLANE-1", "GIN is disabled.": "G-GIN-CONN-1"}
	got := map[string]spec.RuleID{}
	for _, f := range r.Findings {
		if f.ID == "nccl.error" && len(f.Evidence) > 0 {
			got[f.Evidence[0].Msg] = f.Rule
		}
	}
	for msg, rule := range want {
		if got[msg] != rule {
			t.Errorf("%q: finding names %q, want %s (findings %+v)", msg, got[msg], rule, got)
		}
	}
	seen := map[spec.RuleID]spec.Outcome{}
	for _, v := range r.Obs.Trace {
		seen[v.Rule] = v.Outcome
	}
	for _, rule := range want {
		if seen[rule] != spec.Fail {
			t.Errorf("observed trace: %s is %v, want fail", rule, seen[rule])
		}
	}
}
