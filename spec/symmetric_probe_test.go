package spec

import (
	"strings"
	"testing"
)

// TestSymmetricProbeRegBuff: the ncclGetAlgoInfo that
// ncclMakeSymmetricTaskList makes before it keeps an unforced LL kernel
// (2.29.2+) reads the task's regBuff like any other: buffers registered
// with ncclCommRegister under CTA policy EFFICIENCY make it NVLS/Simple, so
// the piece goes back to the cost table instead of running AllGather_LLMC.
func TestSymmetricProbeRegBuff(t *testing.T) {
	sys, err := Preset("dgx-h100", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v      Version
		env    Env
		kernel string // "" when the piece goes back
		algo   Algo
	}{
		{V2_29_2, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		{V2_29_7, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		{V2_30_7, Env{"NCCL_CTA_POLICY": "1", "NCCL_SYM_NOWIN_ENABLE": "1"}, "", NVLS},
		// without the policy the cost table alone runs it with LL
		{V2_29_2, Env{"NCCL_SYM_NOWIN_ENABLE": "1"}, "AllGather_LLMC", AlgoNone},
	} {
		comm, err := Init(MustLoad(c.v), sys, c.env)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []LaunchMode{LaunchStream, LaunchGraph} {
			d, err := comm.SelectGroup([]GroupOp{{Op: Op{Func: AllGather, Count: 8 << 10, DataType: Float32, RedOp: Sum}, Buffers: BuffersRegistered}}, Launch{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			op, ch := d.Ops[0], d.Choices[0]
			if op.Kernel != c.kernel || op.Algo != c.algo || (c.kernel == "") != strings.Contains(ch.SymFallback, "cost table alone picks NVLS/Simple") {
				t.Errorf("%s %v %v: kernel %q %s/%s, fallback %q: want kernel %q algo %s", c.v, c.env, mode, op.Kernel, op.Algo, op.Proto, ch.SymFallback, c.kernel, c.algo)
			}
		}
	}
}
