package spec

import "testing"

// TestPATComputeCapabilityFloor: two nodes of one GPU each (PAT's auto
// case) with GPUs below and at compute capability 6.0. ncclPatEnable has
// no floor from 2.23.4 to 2.25.1; from 2.26.2 it turns PAT off below sm60.
func TestPATComputeCapabilityFloor(t *testing.T) {
	for _, tc := range []struct {
		v   Version
		sm  int
		pat bool
	}{
		{V2_23_4, 52, true}, {V2_25_1, 52, true}, {V2_26_2, 52, false}, {V2_28_9, 52, false},
		{V2_23_4, 60, true}, {V2_26_2, 60, true},
	} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i := range sys.Nodes {
			sys.Nodes[i].GPUs = sys.Nodes[i].GPUs[:1]
			sys.Nodes[i].GPUs[0].SM = tc.sm
		}
		c, err := Init(MustLoad(tc.v), sys, Env{})
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		if c.PATEnable != tc.pat {
			t.Errorf("%s sm%d: PATEnable %v, want %v", tc.v, tc.sm, c.PATEnable, tc.pat)
		}
		if m := c.Model; m != nil {
			if on := m.Zeroed[AllGather][PAT][Simple].Rule != "G-PAT-1"; on != tc.pat {
				t.Errorf("%s sm%d: the tuning model keeps PAT AllGather %v, want %v (%v)", tc.v, tc.sm, on, tc.pat, m.Zeroed[AllGather][PAT][Simple])
			}
		}
	}
}
