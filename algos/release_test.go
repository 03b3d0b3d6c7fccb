package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestParamsAgreeWithReleases: the schedule constants that the release's
// gate constants also hold (MAXCHANNELS, PAT, fp8) agree for every modelled
// release, so the two blocks cannot drift apart.
func TestParamsAgreeWithReleases(t *testing.T) {
	for _, v := range spec.Releases {
		p, err := ParamsFor(v)
		if err != nil {
			t.Fatal(err)
		}
		if p.Release != v {
			t.Errorf("%s: schedule constants are %s's; every modelled release needs its own entry", v, p.Release)
		}
		k := spec.MustLoad(v).Consts
		if p.MaxChannels != k.MaxChannels || p.HasPAT != k.HasPAT || p.FP8 != k.HasFP8 {
			t.Errorf("%s: schedule MaxChannels %d HasPAT %v FP8 %v, release %d %v %v",
				v, p.MaxChannels, p.HasPAT, p.FP8, k.MaxChannels, k.HasPAT, k.HasFP8)
		}
	}
}
