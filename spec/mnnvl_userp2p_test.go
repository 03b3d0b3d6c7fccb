package spec

import "testing"

// TestMNNVLUserP2PLevel: from 2.27.3 initTransportsRank checks MNNVL in the
// auto case only when the user P2P level (ncclGetUserP2pLevel) is not LOC:
// NCCL_P2P_DISABLE=1, NCCL_P2P_LEVEL=LOC or the old-style NCCL_P2P_LEVEL=0
// leave two GB200 trays without MNNVL, where 2.26.6 checks and finds it.
// NCCL_MNNVL_ENABLE=1 checks anyway. A LOC level keeps the trays two NCCL
// nodes either way (no P2P between hosts); what MNNVL changes there is
// 2.27.3's sm100 NVLS channel default, 24 on an MNNVL communicator and
// NVLSChannelsSM100Multi (32) on several nodes without it.
func TestMNNVLUserP2PLevel(t *testing.T) {
	for _, tc := range []struct {
		env   Env
		loc   bool // the user P2P level is LOC
		force bool // NCCL_MNNVL_ENABLE=1
	}{
		{Env{"NCCL_P2P_DISABLE": "1"}, true, false},
		{Env{"NCCL_P2P_LEVEL": "LOC"}, true, false},
		{Env{"NCCL_P2P_LEVEL": "0"}, true, false},
		{Env{"NCCL_P2P_DISABLE": "1", "NCCL_P2P_LEVEL": "NVL"}, true, false},
		{Env{"NCCL_P2P_DISABLE": "0", "NCCL_P2P_LEVEL": "NVL"}, false, false},
		{Env{"NCCL_P2P_DISABLE": "2"}, false, false},
		{Env{"NCCL_P2P_LEVEL": "loc"}, false, false}, // names are case-sensitive: unset
		{Env{"NCCL_P2P_DISABLE": "1", "NCCL_MNNVL_ENABLE": "1"}, true, true},
		{Env{}, false, false},
	} {
		for _, r := range []struct {
			v      Version
			gated  bool // the release reads the user P2P level
			nvlsCh int  // NVLS channels when MNNVL is on and off under a LOC level
			nvlsNo int
		}{
			{V2_25_1, false, 32, 32}, {V2_26_6, false, 32, 32}, {V2_27_3, true, 24, 32}, {V2_27_7, true, 24, 32},
			{V2_28_3, true, 24, 32},
		} {
			v := r.v
			c := initPreset(t, v, "gb200-nvl72", 2, tc.env)
			off := tc.loc && !tc.force && r.gated
			var g *Verdict
			for i := range c.Trace {
				if c.Trace[i].Rule == "G-MNNVL-1" {
					g = &c.Trace[i]
				}
			}
			if g == nil {
				t.Fatalf("%s %v: no G-MNNVL-1", v, tc.env)
			}
			if c.MNNVL == off || (g.Outcome == Pass) == off {
				t.Errorf("%s %v: MNNVL %v (%s: %s), want %v", v, tc.env, c.MNNVL, g.Outcome, g.Why, !off)
			}
			if want := map[bool]int{true: 2, false: 1}[tc.loc]; c.NNodes != want {
				t.Errorf("%s %v: %d NCCL node(s), want %d", v, tc.env, c.NNodes, want)
			}
			if !tc.loc {
				continue
			}
			want := r.nvlsCh
			if off {
				want = r.nvlsNo
			}
			if got := c.NVLSChannels; got != want {
				t.Errorf("%s %v: %d NVLS channel(s), want %d", v, tc.env, got, want)
			}
		}
	}
}
