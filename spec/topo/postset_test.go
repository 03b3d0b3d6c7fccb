package topo

import (
	"slices"
	"testing"
)

// TestPostsetCopies: ncclTopoPostset's counts per release.
func TestPostsetCopies(t *testing.T) {
	p289, p223, p215 := Params2_28_9(), Params2_22_3(), Params2_22_3()
	Apply2_21_5(&p215)
	// unset is NCCL_MIN/MAX_NCHANNELS and the CTA limits at their defaults.
	unset := func(p Params, in postsetIn) postsetIn {
		in.maxChannels, in.minChannels = p.MaxChannels, 1
		return in
	}
	for _, tc := range []struct {
		name string
		p    Params
		in   postsetIn
		want []int
	}{
		{"2.28.9", p289, unset(p289, postsetIn{searched: 8}), []int{16}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 4, computeDouble: true}), []int{8, 16}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 8, computeDouble: true}), []int{16}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 2, collNetExtra: true, computeDouble: true}), []int{4, 6, 12}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 2, computeDouble: true, unpackDouble: true}), []int{4, 8, 16}},
		{"2.22.3", p223, unset(p223, postsetIn{searched: 2, unpackDouble: true}), []int{4, 8}},
		{"2.21.5", p215, unset(p215, postsetIn{searched: 2, unpackDouble: true}), []int{4}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 24}), []int{48}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 40}), []int{64}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 32, collNetExtra: true}), []int{64}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 16, collNetExtra: true}), []int{32, 48}},
		{"2.22.3", p223, unset(p223, postsetIn{searched: 24}), []int{32}},
		{"2.28.9", p289, postsetIn{searched: 8, maxChannels: 4, minChannels: 6}, []int{16, 4, 6}},
		{"2.28.9", p289, postsetIn{searched: 8, maxChannels: 4, minChannels: 2}, []int{16, 4}},
		{"2.28.9", p289, unset(p289, postsetIn{searched: 2, nvlsChannels: 16}), []int{4}},
		{"2.22.3", p223, unset(p223, postsetIn{searched: 2, nvlsChannels: 16}), []int{4, 16}},
	} {
		if got := tc.p.postsetCopies(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%s %+v: %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
}
