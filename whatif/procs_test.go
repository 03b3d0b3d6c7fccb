package whatif

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestSweepProcs: --procs (a sweep's "procs") spreads every machine's
// ranks over processes and names the layout in the label; an unknown
// layout is refused.
func TestSweepProcs(t *testing.T) {
	for _, tc := range []struct {
		procs string
		want  spec.Procs
		label bool
	}{{"", spec.ProcsPerGPU, false}, {"per-node", spec.ProcsPerNode, true}} {
		var sw Sweep
		if err := (Axes{Systems: []string{"h200x2"}, Sizes: "1MiB", Colls: "allreduce", SHARP: "off", Procs: tc.procs}).Apply(&sw); err != nil {
			t.Fatal(err)
		}
		pts, err := Expand(sw)
		if err != nil {
			t.Fatal(err)
		}
		m := pts[0].Machine
		if m.Sys.Procs != tc.want || strings.Contains(m.Label, "per-node") != tc.label {
			t.Errorf("procs %q: system %s, label %q", tc.procs, m.Sys.Procs, m.Label)
		}
	}
	if _, err := Expand(Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "h200x2"}}, Sizes: SizeAxis{List: []string{"1MiB"}}, Procs: "per-rack"}); err == nil || !strings.Contains(err.Error(), "per-gpu, per-node") {
		t.Errorf("procs per-rack: %v", err)
	}
}
