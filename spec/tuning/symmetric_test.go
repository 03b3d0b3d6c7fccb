package tuning

import "github.com/gatesim/gatesim/nccl"
import "testing"

// The kernel mask: LL kernels stop at 2 GiB of bus bytes, every kernel at
// 64 GiB; multimem kernels need NVLS, fp8 multimem reductions sm100; and
// the model's blocks stay within the CTA bounds.
func TestSymmetricMask(t *testing.T) {
	s := &symComm{nRanks: 8, oneLsa: true, compCap: 90, minCTAs: 1, maxCTAs: 64, userMask: symUserMask(nil)}
	if m := s.symMask(nccl.AllGather, tuningDevSum, nccl.Int8, 1<<20); m&symMaskLL == 0 || m&symMaskSTMC != 0 {
		t.Errorf("1 MiB AllGather without NVLS: mask %b", m)
	}
	if m := s.symMask(nccl.AllGather, tuningDevSum, nccl.Int8, 512<<20); m&symMaskLL != 0 || m == 0 {
		t.Errorf("4 GiB of AllGather bus bytes: mask %b, want no LL kernel", m)
	}
	if m := s.symMask(nccl.AllGather, tuningDevSum, nccl.Int8, 8<<30); m != 0 {
		t.Errorf("64 GiB of bus bytes: mask %b, want none", m)
	}
	s.nvls = true
	if m := s.symMask(nccl.AllReduce, tuningDevSum, nccl.Float32, 1<<20); m&symMaskLDMC == 0 || m&symMaskSTMC == 0 {
		t.Errorf("float sum with NVLS: mask %b", m)
	}
	if m := s.symMask(nccl.AllReduce, tuningDevSum, nccl.Float8e4m3, 1<<20); m&symMaskLDMC != 0 {
		t.Errorf("fp8 on sm90: mask %b, want no multimem reduction", m)
	}
	if symImplemented(nccl.AllReduce, tuningDevSum, nccl.Float64) || symImplemented(nccl.AllReduce, tuningDevMinMax, nccl.Float32) || !symImplemented(nccl.AllGather, tuningDevSum, nccl.Int8) {
		t.Error("symImplemented: double and min/max have no kernel; AllGather of anything has")
	}
	if _, _, _, ok := s.symPick(nccl.AllReduce, tuningDevSum, nccl.Float32, 1<<10, 1<<10, 2, true); !ok {
		t.Error("a bin of two small AllReduces has a kernel")
	}
	for _, k := range []SymKernel{SymAllReduceRSxLDAGxST, SymAllGatherST, SymAllGatherLL} {
		for _, n := range []int64{4 << 10, 1 << 20, 256 << 20} {
			t0, b := s.symQuery(k, n)
			if b < s.minCTAs || b > s.maxCTAs || t0 <= 0 {
				t.Errorf("%v %d B: %g µs on %d blocks", k, n, t0, b)
			}
		}
	}
}
