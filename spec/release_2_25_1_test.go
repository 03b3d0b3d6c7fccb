package spec

import (
	"slices"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// initPreset builds a communicator of a preset at a release, failing the
// test on any init error.
func initPreset(t *testing.T, v Version, preset string, nodes int, env Env) *Comm {
	t.Helper()
	sys, err := Preset(preset, PresetOptions{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	if env == nil {
		env = Env{}
	}
	c, err := Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err != nil || c.Model == nil {
		t.Fatalf("%s %s x%d: init failed: %v", v, preset, nodes, c.Err)
	}
	return c
}

// TestNVLSAllGatherRanksBoundary: 2.25.1–2.26.6 prune NVLS AllGather and
// ReduceScatter on more than NCCL_MAX_NVLS_ARITY (32) ranks even on one
// node (updateCollCostTable); 2.27.3 prunes on local ranks instead, NVLS and
// NVLSTree alike. Nine GB200 trays are one 36-GPU MNNVL node: AllGather
// keeps NVLS at 32 ranks and loses it at 36, in the gates and in the tuning
// model's cost table alike; AllReduce keeps it.
func TestNVLSAllGatherRanksBoundary(t *testing.T) {
	cases := []struct {
		v     Version
		nodes int
		f     Func
		nvls  bool // NVLS/Simple is a legal cell
		why   tuning.CostReason
	}{
		{V2_25_1, 8, AllGather, true, tuning.CostOK},
		{V2_25_1, 9, AllGather, false, tuning.CostP6},
		{V2_25_1, 9, ReduceScatter, false, tuning.CostP6},
		{V2_25_1, 9, AllReduce, true, tuning.CostOK},
		{V2_26_6, 9, AllGather, false, tuning.CostP6},
		{V2_26_6, 8, ReduceScatter, true, tuning.CostOK},
		{V2_27_3, 9, AllGather, false, tuning.CostP4Arity},
		{V2_27_3, 8, AllGather, true, tuning.CostOK},
	}
	for _, tc := range cases {
		c := initPreset(t, tc.v, "gb200-nvl72", tc.nodes, nil)
		op := Op{Func: tc.f, Count: 16 << 20, DataType: Float32, RedOp: Sum}
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Contains(d.Candidates, AlgoProto{Algo: NVLS, Proto: Simple})
		if got != tc.nvls {
			t.Errorf("%s %d ranks %s: NVLS/Simple legal %v, want %v (candidates %v)", tc.v, c.NRanks, tc.f, got, tc.nvls, d.Candidates)
		}
		ch, err := tuning.ChooseOp(c.Model, tuning.Call{Op: op, NVLSOK: true})
		if err != nil {
			t.Fatal(err)
		}
		if r := ch.Reason[NVLS][Simple]; r != tc.why {
			t.Errorf("%s %d ranks %s: the model's NVLS/Simple reason %v, want %v", tc.v, c.NRanks, tc.f, r, tc.why)
		}
	}
}

// TestLL128BlackwellBoundary: 2.25.1 adds sm100 and sm120 to LL128's
// default list (ncclTopoTuneModel); 2.24.3 keeps it off on a DGX B200, and
// the gates and the model agree on the cell.
func TestLL128BlackwellBoundary(t *testing.T) {
	for _, tc := range []struct {
		v  Version
		on bool
	}{{V2_24_3, false}, {V2_25_1, true}, {V2_26_6, true}, {V2_27_3, true}} {
		c := initPreset(t, tc.v, "dgx-b200", 2, nil)
		if got := c.Model.Bandwidths[AllReduce][Ring][LL128] > 0; got != tc.on {
			t.Errorf("%s dgx-b200 x2: the model's Ring/LL128 AllReduce bandwidth > 0 is %v, want %v", tc.v, got, tc.on)
		}
		if got := c.Enabled[AllReduce][Ring][LL128]; got != tc.on {
			t.Errorf("%s dgx-b200 x2: the gates' Ring/LL128 AllReduce enabled is %v, want %v", tc.v, got, tc.on)
		}
	}
}

// TestLL128P2COrderBoundary: 2.27.3 numbers PATH_P2C (7) above PATH_PXN (6)
// and bounds LL128's typeInter on sm90+ by PXN without NCCL_LL128_C2C;
// 2.27.5 moves P2C below PXN and bounds it by PXB then (ncclTopoTuneModel).
// Two DGX B200s run their ring over PXN: with NCCL_LL128_C2C=0 Ring/LL128
// stays on at 2.27.3 and goes off at 2.27.5, in the gates and the model.
func TestLL128P2COrderBoundary(t *testing.T) {
	for _, tc := range []struct {
		v   Version
		env Env
		on  bool
	}{
		{V2_27_3, Env{"NCCL_LL128_C2C": "0"}, true},
		{V2_27_5, Env{"NCCL_LL128_C2C": "0"}, false},
		{V2_27_3, Env{}, true},
		{V2_27_5, Env{}, true},
	} {
		c := initPreset(t, tc.v, "dgx-b200", 2, tc.env)
		if c.Graphs.Ring.TypeInter != "PXN" {
			t.Fatalf("%s dgx-b200 x2: ring typeInter %s, want PXN", tc.v, c.Graphs.Ring.TypeInter)
		}
		if got := c.Model.Bandwidths[AllReduce][Ring][LL128] > 0; got != tc.on {
			t.Errorf("%s %v: the model's Ring/LL128 bandwidth > 0 is %v, want %v", tc.v, tc.env, got, tc.on)
		}
		if got := c.Enabled[AllReduce][Ring][LL128]; got != tc.on {
			t.Errorf("%s %v: the gates' Ring/LL128 enabled is %v, want %v", tc.v, tc.env, got, tc.on)
		}
	}
}
