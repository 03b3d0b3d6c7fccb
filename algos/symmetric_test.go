package algos

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestBuildSymPerKernel: what one rank's NVLink carries for each symmetric
// kernel family and the copy engines, on 4 ranks and B = 1 MiB per rank
// (count × element size), against the volumes BuildSym's comment derives
// from the kernels at the tags.
func TestBuildSymPerKernel(t *testing.T) {
	const n, b = 4, int64(1 << 20)
	for _, c := range []struct {
		f                          spec.Func
		kernel                     string
		p2pOut, p2pIn, mcOut, mcIn int64
		local                      int64
		ll, ce                     bool
		syncs                      int
	}{
		{spec.AllReduce, "AllReduce_RSxLD_AGxST", 3 * b / 4, 3 * b / 4, 0, 0, 0, false, false, 2},
		{spec.AllReduce, "AllReduce_RSxTmaLD_AGxTmaST", 3 * b / 4, 3 * b / 4, 0, 0, 0, false, false, 2},
		{spec.AllReduce, "AllReduce_RSxLDMC_AGxSTMC", 0, 0, b + b/4, b/4 + b, 0, false, false, 2},
		{spec.AllReduce, "AllReduce_AGxLL_R", 2 * 3 * b, 2 * 3 * b, 0, 0, 0, true, false, 1},
		{spec.AllReduce, "AllReduce_AGxLLMC_R", 0, 0, 2 * b, 2 * 4 * b, 0, true, false, 1},
		{spec.AllGather, "AllGather_ST", 3 * b, 3 * b, 0, 0, 0, false, false, 2},
		{spec.AllGather, "AllGather_TmaST", 3 * b, 3 * b, 0, 0, 0, false, false, 2},
		{spec.AllGather, "AllGather_STMC", 0, 0, b, 4 * b, 0, false, false, 2},
		{spec.AllGather, "AllGather_TmaSTMC", 0, 0, b, 4 * b, 0, false, false, 2},
		{spec.AllGather, "AllGather_LL", 2 * 3 * b, 2 * 3 * b, 0, 0, 0, true, false, 1},
		{spec.AllGather, "AllGather_LLMC", 0, 0, 2 * b, 2 * 4 * b, 0, true, false, 1},
		{spec.ReduceScatter, "ReduceScatter_LD", 3 * b, 3 * b, 0, 0, 0, false, false, 2},
		{spec.ReduceScatter, "ReduceScatter_TmaLD", 3 * b, 3 * b, 0, 0, 0, false, false, 2},
		{spec.ReduceScatter, "ReduceScatter_LDMC", 0, 0, 4 * b, b, 0, false, false, 2},
		{spec.ReduceScatter, "ReduceScatter_LL", 2 * 3 * b, 2 * 3 * b, 0, 0, 0, true, false, 1},
		{spec.AllGather, "copy-engine", 3 * b, 3 * b, 0, 0, b, false, true, 2},
		{spec.AllToAll, "copy-engine", 3 * b, 3 * b, 0, 0, b, false, true, 2},
	} {
		d := &spec.Decision{Op: spec.Op{Func: c.f, Count: b / 4, DataType: spec.Float32, RedOp: spec.Sum}, Kernel: c.kernel, NChannels: 8, CTABytes: b / 8}
		if c.ce {
			d.NChannels, d.CTABytes = 0, 0
		}
		s, err := BuildSym(d, n, b, false)
		if err != nil {
			t.Fatalf("%s: %v", c.kernel, err)
		}
		got := [5]int64{s.P2POut, s.P2PIn, s.MCOut, s.MCIn, s.Local}
		want := [5]int64{c.p2pOut, c.p2pIn, c.mcOut, c.mcIn, c.local}
		if got != want || s.LL != c.ll || s.CopyEngine != c.ce || s.Syncs != c.syncs {
			t.Errorf("%s %s: out/in/mcOut/mcIn/local %v LL %v CE %v syncs %d, want %v %v %v %d", c.f, c.kernel, got, s.LL, s.CopyEngine, s.Syncs, want, c.ll, c.ce, c.syncs)
		}
		if c.ce != (s.BlockBusBytes == 0) {
			t.Errorf("%s %s: busiest block's bus bytes %g", c.f, c.kernel, s.BlockBusBytes)
		}
		if c.ce {
			if s, _ := BuildSym(d, n, b, true); s.Local != 0 {
				t.Errorf("%s copy-engine in place copies its own block (%d bytes)", c.f, s.Local)
			}
		}
	}
}

// TestBuildSymRefuses: the kernels and copy engines across LSA teams, a
// decision without a kernel and a kernel without blocks are not timed.
func TestBuildSymRefuses(t *testing.T) {
	op := spec.Op{Func: spec.AllGather, Count: 1024, DataType: spec.Float32}
	for _, c := range []struct {
		d    *spec.Decision
		want string
	}{
		{&spec.Decision{Op: op, Kernel: "AllGather_GinHier_MCRing", NChannels: 4}, "not modelled"},
		{&spec.Decision{Op: op, Kernel: "hierarchical-ce"}, "not modelled"},
		{&spec.Decision{Op: op, Algo: spec.Ring, Proto: spec.Simple}, "no symmetric kernel"},
		{&spec.Decision{Op: op, Kernel: "AllGather_ST"}, "on 0 blocks"},
		{&spec.Decision{Op: spec.Op{Func: spec.AllReduce, Count: 4, DataType: spec.Float32}, Kernel: "copy-engine"}, "AllGather and AllToAll"},
	} {
		if _, err := BuildSym(c.d, 2, 4096, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.d.Kernel, err, c.want)
		}
	}
}
