package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// TestCompareSymmetricKernels: a [Symmetric] line is compared with the
// kernel gatesim predicts for the same operation on window buffers: the
// same kernel on the same number of blocks agrees, another kernel or block
// count differs. No capture of a [Symmetric] line exists yet: the lines
// are synthetic, built from NCCL's format strings (v2.27.3-1
// src/enqueue.cc ncclPrepareTasks "%s [Symmetric]: %ld Bytes -> Kernel %s
// nchannels %d nthreads %d"; v2.28.9-1 src/scheduler/symmetric_sched.cc
// ncclSymmetricTaskScheduler, the same with " nWorks %d"). The predicted
// kernels are those of golden/testdata/groups ("window alone": AllGather
// of 16 MiB float on 2 × H200 with NVLS off runs AllGather_ST on 9 blocks
// at 2.27.3 and 2.28.9).
func TestCompareSymmetricKernels(t *testing.T) {
	const ag = "AllGather [Symmetric]: 16777216 Bytes -> Kernel %s nchannels %d nthreads 512"
	for _, tc := range []struct {
		release string
		line    string
		want    Agreement
	}{
		{"2.28.9", fmt.Sprintf(ag, "AllGather_ST", 9) + " nWorks 1", Agree},
		{"2.28.9", fmt.Sprintf(ag, "AllGather_LL", 9) + " nWorks 1", Differ},
		{"2.28.9", fmt.Sprintf(ag, "AllGather_ST", 4) + " nWorks 1", Differ},
		{"2.27.3", fmt.Sprintf(ag, "AllGather_ST", 9), Agree},
		{"2.27.3", fmt.Sprintf(ag, "AllGather_STMC", 2), Differ},
	} {
		log := "vm:1:1 [0] NCCL INFO NCCL version " + tc.release + "+cuda12.9\n" + "vm:1:1 [0] NCCL INFO " + tc.line + "\n"
		l, err := ncclog.Parse(strings.NewReader(log), "sym.log")
		if err != nil {
			t.Fatal(err)
		}
		sys, err := spec.Preset("h200x2", spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		obs := Diagnose(l, Options{}).Obs
		p, err := Predict(l, 0, sys, spec.Env{"NCCL_NVLS_ENABLE": "0"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := Compare(p, obs)
		var rows []OpRow
		for _, r := range c.Ops {
			if r.Coll == spec.AllGather {
				rows = append(rows, r)
			}
		}
		if len(rows) != 1 || rows[0].Agreement != tc.want {
			t.Errorf("%s %q: rows %+v, want one %s", tc.release, tc.line, rows, tc.want)
			continue
		}
		if !strings.Contains(rows[0].Observed, "kernel ") || !strings.Contains(rows[0].Predicted, "kernel AllGather_ST nchannels 9") {
			t.Errorf("%s: row %+v names no kernels", tc.release, rows[0])
		}
	}
}
