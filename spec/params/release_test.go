package params

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestReleasesAgreeWithRulesets: every modelled release has a table, and
// the registry's facts agree with the ruleset where both know the fact.
func TestReleasesAgreeWithRulesets(t *testing.T) {
	for i, r := range releases {
		if i > 0 && r.Version <= releases[i-1].Version {
			t.Errorf("releases not in order: %s after %s", r.Version, releases[i-1].Version)
		}
		if r.MNNVLFile == "" || r.MNNVLFunc == "" || r.IBQPFile == "" {
			t.Errorf("%s: a source location is empty: %+v", r.Version, r)
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
