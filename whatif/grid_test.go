package whatif

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
)

// TestRunGrid: every runnable algorithm × protocol has a simulated and a
// model cell per size, the others are listed with the reason, and a size
// that is no whole operation is a dash.
func TestRunGrid(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := plan.Build(spec.MustLoad(spec.V2_28_9), sys, spec.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := RunGrid(c, GridOptions{Func: spec.AllGather, DataType: spec.Float32, RedOp: spec.Sum, Sizes: []int64{4, 4 << 10, 1 << 20},
		Algos: []spec.Algo{spec.Ring, spec.NVLS}, Protos: []spec.Proto{spec.LL, spec.LL128, spec.Simple}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Choice) != 3 || g.Choice[0] != "—" || g.Choice[2] == "—" {
		t.Errorf("choices %v: want a dash for 4 B (not 2 float32) and a choice for 1 MiB", g.Choice)
	}
	var names []string
	for _, r := range g.Rows {
		names = append(names, r.Algo.String()+"/"+r.Proto.String())
		if len(r.Sim) != 3 || len(r.Model) != 3 || r.Sim[0] != "—" || r.Sim[2] == "—" {
			t.Errorf("%s/%s: sim %v model %v", r.Algo, r.Proto, r.Sim, r.Model)
		}
	}
	if strings.Join(names, " ") != "Ring/LL Ring/LL128 Ring/Simple NVLS/Simple" {
		t.Errorf("rows %v", names)
	}
	if len(g.Skipped) != 2 || !strings.Contains(g.Skipped[0], "NVLS/LL:") {
		t.Errorf("skipped %v", g.Skipped)
	}
}
