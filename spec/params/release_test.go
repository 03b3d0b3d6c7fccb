package params

import (
	"fmt"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestReleasesAgreeWithRulesets: every modelled release has a table, and
// the registry's facts agree with the ruleset where both know the fact.
func TestReleasesAgreeWithRulesets(t *testing.T) {
	for i, r := range factChanges {
		if i > 0 && r.Version <= factChanges[i-1].Version {
			t.Errorf("factChanges not in order: %s after %s", r.Version, factChanges[i-1].Version)
		}
		if i > 0 {
			prev := factChanges[i-1]
			prev.Version = r.Version
			if prev == r {
				t.Errorf("factChanges: %s changes no fact of %s", r.Version, factChanges[i-1].Version)
			}
		}
		if !spec.Supported(r.Version) {
			t.Errorf("factChanges: %s is no modelled release", r.Version)
		}
	}
	for _, v := range Versions {
		r, _ := ReleaseOf(v)
		if r.IBQPFile == "" {
			t.Errorf("%s: a source location is empty: %+v", r.Version, r)
		}
		// The MNNVL check exists from 2.20.3 (NCCL_MNNVL, then
		// NCCL_MNNVL_ENABLE); a release that reads either names its place.
		reg, err := Load(r.Version)
		if err != nil {
			t.Fatal(err)
		}
		_, old := reg.Lookup("NCCL_MNNVL")
		_, cur := reg.Lookup("NCCL_MNNVL_ENABLE")
		if hasMNNVL := old || cur; hasMNNVL != (r.MNNVLFile != "" && r.MNNVLFunc != "") {
			t.Errorf("%s: reads an MNNVL parameter: %v, MNNVL source location %q %q", r.Version, hasMNNVL, r.MNNVLFile, r.MNNVLFunc)
		}
	}
	for _, v := range spec.Releases {
		r, ok := ReleaseOf(v)
		if !ok {
			t.Errorf("modelled release %s has no parameter table", v)
			continue
		}
		rs := spec.MustLoad(v)
		_, perFunc := rs.Rule("G-SEL-PARSE-2")
		if r.PerFunctionAlgo != perFunc {
			t.Errorf("%s: PerFunctionAlgo %v, ruleset has G-SEL-PARSE-2: %v", v, r.PerFunctionAlgo, perFunc)
		}
	}
}

// TestScheduleParamsAgreeWithTuning: the parameters the schedules before
// 2.22.3 read exist exactly where the release's tuning constants use them,
// with the registry's default: NCCL_AGG_CHANNEL_SIZE (2.18.1–2.19.4, the
// aggregation's bytes per channel) and NCCL_WORK_FIFO_DEPTH (2.18.1–2.21.5,
// the kernel plan's work budget).
func TestScheduleParamsAgreeWithTuning(t *testing.T) {
	for _, v := range spec.Releases {
		reg, err := Load(v)
		if err != nil {
			t.Fatal(err)
		}
		c := spec.MustLoad(v).Tuning
		for _, p := range []struct {
			name   string
			used   bool
			def    int64
			reader string
		}{
			{"NCCL_AGG_CHANNEL_SIZE", c.Schedule == spec.TuningScheduleR18, c.AggChannelSizeDefault, "ncclParamAggChannelSize"},
			{"NCCL_WORK_FIFO_DEPTH", c.WorkFifoDepth != 0, c.WorkFifoDepth, "ncclParamWorkFifoDepth"},
		} {
			param, ok := reg.Lookup(p.name)
			if ok != p.used {
				t.Errorf("%s: the registry has %s: %v; the schedule reads it: %v", v, p.name, ok, p.used)
				continue
			}
			if !ok {
				continue
			}
			row, isInt := param.IntParam()
			if !isInt || row.Symbol != p.reader || row.Default != fmt.Sprint(p.def) {
				t.Errorf("%s: %s is %+v, want NCCL_PARAM %s with default %d", v, p.name, row, p.reader, p.def)
			}
		}
	}
}
