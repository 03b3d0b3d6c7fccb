package spec

import "testing"

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
