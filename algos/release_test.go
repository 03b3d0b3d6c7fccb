package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestParamsFollowReleases: every modelled release has its own schedule
// constants, read from the release itself, so the release and the
// schedule cannot drift apart.
func TestParamsFollowReleases(t *testing.T) {
	for _, v := range spec.Releases {
		p, err := ParamsFor(v)
		if err != nil {
			t.Fatal(err)
		}
		if p.Release != v {
			t.Errorf("%s: schedule constants are %s's; every modelled release needs its own", v, p.Release)
		}
		rs := spec.MustLoad(v)
		k := rs.Consts
		if p.MaxChannels != k.MaxChannels || p.HasPAT != k.HasPAT || p.FP8 != k.HasFP8 || p.Sched.NumAlgos != rs.Tuning.NumAlgos {
			t.Errorf("%s: schedule MaxChannels %d HasPAT %v FP8 %v, release %d %v %v",
				v, p.MaxChannels, p.HasPAT, p.FP8, k.MaxChannels, k.HasPAT, k.HasFP8)
		}
	}
}

// TestScheduleFactsArrive pins each release-dependent schedule fact on both
// sides of the release it arrived in, as NCCL's source has it.
func TestScheduleFactsArrive(t *testing.T) {
	for _, tc := range []struct {
		fact          string
		before, since spec.Version
		get           func(Params) any
		old, new      any
	}{
		{"NVLS last chunk alignment", spec.V2_22_3, spec.V2_23_4, func(p Params) any { return p.NVLSLastChunkAlign }, 16, 16384},
		{"PAT", spec.V2_22_3, spec.V2_23_4, func(p Params) any { return p.HasPAT }, false, true},
		{"fp8", spec.V2_23_4, spec.V2_24_3, func(p Params) any { return p.FP8 }, false, true},
		{"MAXCHANNELS", spec.V2_24_3, spec.V2_25_1, func(p Params) any { return p.MaxChannels }, 32, 64},
		{"NVLS AllGather/ReduceScatter across nodes", spec.V2_26_6, spec.V2_27_3, func(p Params) any { return p.NVLSNetGatherScatter }, false, true},
		{"NVLS across nodes on min(nvlsChannels, nChannels)", spec.V2_27_7, spec.V2_28_3, func(p Params) any { return p.NVLSNetMinChannels }, false, true},
		{"p2p channel base reversed", spec.V2_27_7, spec.V2_28_3, func(p Params) any { return p.P2P.BaseReversed }, false, true},
		{"p2p schedule groups", spec.V2_28_3, spec.V2_28_7, func(p Params) any { return p.P2P.GroupSchedule }, false, true},
		{"p2p batch epochs", spec.V2_28_3, spec.V2_28_7, func(p Params) any { return p.P2P.BatchRoundEpoch }, false, true},
	} {
		for _, side := range []struct {
			v    spec.Version
			want any
		}{{tc.before, tc.old}, {tc.since, tc.new}, {spec.V2_18_1, tc.old}, {spec.V2_30_7, tc.new}} {
			p, err := ParamsFor(side.v)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.get(p); got != side.want {
				t.Errorf("%s at %s: %v, want %v", tc.fact, side.v, got, side.want)
			}
		}
	}
}
