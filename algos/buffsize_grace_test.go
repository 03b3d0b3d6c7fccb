package algos

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestSimpleBuffSizeARM: computeBuffSizes of 2.18.x gives the Simple
// protocol a 1 MiB buffer when the CPU is ARM (DEFAULT_BUFFSIZE_ARM); 2.19.1
// dropped it. A GB200 tray has Grace (arm64) CPUs, a DGX H100 x86 ones;
// NCCL_BUFFSIZE still wins.
func TestSimpleBuffSizeARM(t *testing.T) {
	for _, tc := range []struct {
		preset string
		v      spec.Version
		env    spec.Env
		simple int
	}{
		{"gb200-nvl72", spec.V2_18_1, nil, 1 << 20},
		{"gb200-nvl72", spec.V2_18_6, nil, 1 << 20},
		{"gb200-nvl72", spec.V2_18_6, spec.Env{"NCCL_BUFFSIZE": "2097152"}, 2 << 20},
		{"gb200-nvl72", spec.V2_19_1, nil, 4 << 20},
		{"dgx-h100", spec.V2_18_6, nil, 4 << 20},
	} {
		sys, err := spec.Preset(tc.preset, spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := spec.Init(spec.MustLoad(tc.v), sys, tc.env)
		if err != nil || c.Err != nil {
			t.Fatal(tc.v, err, c.Err)
		}
		l, err := LayoutFromComm(c)
		if err != nil {
			t.Fatal(tc.preset, tc.v, err)
		}
		if got := l.BuffSize[spec.Simple]; got != tc.simple {
			t.Errorf("%s %s %v: Simple buffer %d, want %d", tc.preset, tc.v, tc.env, got, tc.simple)
		}
	}
}
