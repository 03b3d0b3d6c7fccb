package spec

import (
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// TestMaxDevWorkBatchBytes: ncclMaxDevWorkBatchBytes(cudaArch) is the
// release's table (1 KiB below sm80, 8 KiB below sm90, 16 KiB from sm90,
// src/include/device.h from v2.29.2-1), present exactly where AllGatherV
// reads it, and it is what caps an AllGatherV plan: 24 broadcasts from 24
// roots fill two plans on sm70 (1024/48 = 21 works, fewer than that
// taken) and one on sm90 (16384/48 = 341).
// Ref: v2.29.2-1 src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan
func TestMaxDevWorkBatchBytes(t *testing.T) {
	want := [tuning.NumCompCaps]int{1 << 10, 8 << 10, 16 << 10, 16 << 10}
	for _, v := range Releases {
		tc := MustLoad(v).Tuning
		switch {
		case tc.AllGatherV && tc.MaxDevWorkBatchBytesCC != want:
			t.Errorf("%s: ncclMaxDevWorkBatchBytes %v, want %v", v, tc.MaxDevWorkBatchBytesCC, want)
		case !tc.AllGatherV && tc.MaxDevWorkBatchBytesCC != [tuning.NumCompCaps]int{}:
			t.Errorf("%s: ncclMaxDevWorkBatchBytes %v before the release that has it", v, tc.MaxDevWorkBatchBytesCC)
		}
	}
	for _, tc := range []struct {
		preset string
		nodes  int
		plans  int
	}{
		{"v100x4", 6, 2},
		{"dgx-h100", 3, 1},
	} {
		c := initPreset(t, V2_29_2, tc.preset, tc.nodes, Env{"NCCL_NVLS_ENABLE": "0"})
		var ops []GroupOp
		for r := range 24 {
			ops = append(ops, GroupOp{Op: Op{Func: Broadcast, Count: 4 << 10, DataType: Int8, Root: r}})
		}
		g, err := c.SelectGroup(ops, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		if g.Plans != tc.plans {
			t.Errorf("%s × %d: 24 broadcasts from 24 roots in %d plans, want %d", tc.preset, tc.nodes, g.Plans, tc.plans)
		}
	}
}
