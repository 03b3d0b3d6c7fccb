package params

import (
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
