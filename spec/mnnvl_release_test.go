package spec

import (
	"strings"
	"testing"
)

// TestMNNVLBefore2_22: two GB200 trays of one NVLink clique, and two DGX
// H100s with NCCL_MNNVL_ENABLE=1 and no NVLink fabric.
//   - ncclNvlsInit of 2.20.x turns NVLS off on any MNNVL communicator;
//     2.21.5 keeps it for a clique of more than 2 GPUs.
//   - checkMNNVL's caller (2.21.5–2.24.3) fails communicator init with
//     ncclSystemError when NCCL_MNNVL_ENABLE=1 finds no MNNVL on several
//     hosts; 2.25.1's ncclMnnvlCheck goes on without MNNVL, and 2.20.x
//     reads NCCL_MNNVL instead.
func TestMNNVLBefore2_22(t *testing.T) {
	for _, tc := range []struct {
		v        Version
		nvlsOn   bool // on the GB200 clique
		forceErr bool // NCCL_MNNVL_ENABLE=1 on DGX H100s
	}{
		{V2_20_3, false, false}, {V2_20_5, false, false},
		{V2_21_5, true, true}, {V2_22_3, true, true}, {V2_24_3, true, true},
		{V2_25_1, true, false},
	} {
		gb, err := Preset("gb200-nvl72", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Init(MustLoad(tc.v), gb, Env{})
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		if !c.MNNVL {
			t.Fatalf("%s: the GB200 trays are not MNNVL", tc.v)
		}
		var early *Verdict
		for i := range c.Trace {
			if c.Trace[i].Rule == "G-NVLS-EARLY-1" {
				early = &c.Trace[i]
				break
			}
		}
		if early == nil {
			t.Fatalf("%s: no G-NVLS-EARLY-1", tc.v)
		}
		if on := early.Outcome == Pass; on != tc.nvlsOn {
			t.Errorf("%s: G-NVLS-EARLY-1 %s (%s), want NVLS kept %v", tc.v, early.Outcome, early.Why, tc.nvlsOn)
		}

		h, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		c, err = Init(MustLoad(tc.v), h, Env{"NCCL_MNNVL_ENABLE": "1"})
		if err != nil {
			t.Fatal(err)
		}
		ne := c.Err
		got := ne != nil && ne.Result == SystemError && ne.Message == "MNNVL is not supported on this system"
		if got != tc.forceErr || (c.Err != nil && !got) {
			t.Errorf("%s: NCCL_MNNVL_ENABLE=1 without a fabric: init error %v, want the MNNVL ncclSystemError %v", tc.v, c.Err, tc.forceErr)
		}
	}
}

// TestMNNVLTuning2_20: ncclTopoTuneModel of 2.20.x disables NVLS (CollNet
// off) on an MNNVL communicator, so on two GB200 trays NCCL_ALGO=NVLS
// leaves Ring, Tree, NVLS and NVLSTree all off and G-TUNE-EN-1's
// hard-set rescue turns Ring and Tree back on: with NCCL_PROTO=LL128 a
// 32 KiB AllReduce runs Tree/LL128. 2.21.5 has no MNNVL disable: its NVLS
// has no LL128 cell, so the Ring restore brings back Ring alone (LL, kept
// in ringbdw).
func TestMNNVLTuning2_20(t *testing.T) {
	for _, tc := range []struct {
		v        Version
		algo     Algo
		proto    Proto
		restored bool
	}{
		{V2_20_3, Tree, LL128, false}, {V2_20_5, Tree, LL128, false}, {V2_21_5, Ring, LL, true},
	} {
		gb, err := Preset("gb200-nvl72", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Init(MustLoad(tc.v), gb, Env{"NCCL_ALGO": "NVLS", "NCCL_PROTO": "LL128"})
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		if !c.MNNVL || c.NNodes != 1 {
			t.Fatalf("%s: MNNVL %v on %d nodes, want one MNNVL node", tc.v, c.MNNVL, c.NNodes)
		}
		op, err := OpFromBytes(AllReduce, 32<<10, Float32, Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		if d.Err != nil || d.Algo != tc.algo || d.Proto != tc.proto {
			t.Errorf("%s: %s/%s (err %v), want %s/%s", tc.v, d.Algo, d.Proto, d.Err, tc.algo, tc.proto)
		}
		restored, rescued := false, false
		for _, vd := range c.Trace {
			restored = restored || (vd.Rule == "G-TUNE-RINGRESTORE-1" && vd.Outcome == Pass)
			if vd.Rule == "G-TUNE-EN-1" {
				rescued = strings.Contains(vd.Why, "NVLS: NVLS is not supported on MNNVL") && strings.Contains(vd.Why, "Ring and Tree re-enabled")
			}
		}
		if restored != tc.restored || rescued == tc.restored {
			t.Errorf("%s: Ring restored %v, MNNVL rescue %v; want restored %v", tc.v, restored, rescued, tc.restored)
		}
	}
}
