package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestP2PChannelHalvingPerRelease: scheduleP2pTasksToPlan with 32 p2p
// channels and 32 per peer. nChannelsMin is halved while nChannelsMin ×
// nRanks > p2pnChannels, nChannelsMax (up to 2.19.4) while nChannelsMax ×
// nRanks > 4 × p2pnChannels: 8 ranks give 4 and 16, 32 ranks 1 and 4.
// 2.18.1 halves on any number of nodes, 2.18.3–2.19.4 on one node only,
// and from 2.20.3 only nChannelsMin, on any number of nodes.
func TestP2PChannelHalvingPerRelease(t *testing.T) {
	for _, tc := range []struct {
		v              spec.Version
		nodes          int
		nChMin, nChMax int
	}{
		{spec.V2_18_1, 1, 4, 16}, {spec.V2_18_1, 4, 1, 4},
		{spec.V2_18_3, 1, 4, 16}, {spec.V2_18_3, 4, 32, 32},
		{spec.V2_19_4, 1, 4, 16}, {spec.V2_19_4, 4, 32, 32},
		{spec.V2_20_3, 1, 4, 32}, {spec.V2_20_3, 4, 1, 32},
		{spec.V2_22_3, 1, 4, 32}, {spec.V2_22_3, 4, 1, 32},
	} {
		l, err := DefaultLayout(tc.v, tc.nodes, 8, 16)
		if err != nil {
			t.Fatal(err)
		}
		l.P2PNChannels, l.P2PNChannelsPerPeer = 32, 32
		s, err := Build(spec.Op{Func: spec.SendRecv, Count: 1 << 20, DataType: spec.Float32}, Selection{}, l, Options{})
		if err != nil {
			t.Fatal(tc.v, err)
		}
		g := s.gen.(*p2pGen)
		if g.nChMin != tc.nChMin || g.nChMax != tc.nChMax {
			t.Errorf("%s, %d node(s) of 8: nChannelsMin %d, nChannelsMax %d; want %d and %d", tc.v, tc.nodes, g.nChMin, g.nChMax, tc.nChMin, tc.nChMax)
		}
	}
}
