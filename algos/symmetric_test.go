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
		// each way: the loads of the slices (3 of 4 quarters) and the
		// stores of the reduced slices, each rank's and its peers'
		{spec.AllReduce, "AllReduce_RSxLD_AGxST", 2 * 3 * b / 4, 2 * 3 * b / 4, 0, 0, 0, false, false, 2},
		{spec.AllReduce, "AllReduce_RSxTmaLD_AGxTmaST", 2 * 3 * b / 4, 2 * 3 * b / 4, 0, 0, 0, false, false, 2},
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

// TestBuildSymRefuses: a GIN kernel inside one LSA team, the
// hierarchical copy engines, a decision without a kernel and a kernel
// without blocks are not timed.
func TestBuildSymRefuses(t *testing.T) {
	op := spec.Op{Func: spec.AllGather, Count: 1024, DataType: spec.Float32}
	for _, c := range []struct {
		d    *spec.Decision
		want string
	}{
		{&spec.Decision{Op: op, Kernel: "AllGather_GinHier_MCRing", NChannels: 4}, "the GIN kernels run across teams"},
		{&spec.Decision{Op: op, Kernel: "hierarchical-ce"}, "inside one LSA team"},
		{&spec.Decision{Op: op, Algo: spec.Ring, Proto: spec.Simple}, "no symmetric kernel"},
		{&spec.Decision{Op: op, Kernel: "AllGather_ST"}, "on 0 blocks"},
		{&spec.Decision{Op: spec.Op{Func: spec.AllReduce, Count: 4, DataType: spec.Float32}, Kernel: "copy-engine"}, "AllGather and AllToAll"},
	} {
		if _, err := BuildSym(c.d, 2, 4096, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.d.Kernel, err, c.want)
		}
	}
}

// TestBuildSymPlanRefuses: a plan's tasks share one kernel, function,
// type and plan; LL kernels and copy engines run one task; a GIN kernel
// runs across teams and the others inside one; teams divide the ranks.
func TestBuildSymPlanRefuses(t *testing.T) {
	ar := func(kernel string, plan int) *spec.Decision {
		return &spec.Decision{Op: spec.Op{Func: spec.AllReduce, Count: 1024, DataType: spec.Float32}, Kernel: kernel, NChannels: 4, Plan: plan}
	}
	ag := &spec.Decision{Op: spec.Op{Func: spec.AllGather, Count: 1024, DataType: spec.Float32}, Kernel: "AllGather_ST", NChannels: 4}
	one := SymTeams{Ranks: 8, LSA: 8}
	for _, c := range []struct {
		name  string
		ds    []*spec.Decision
		teams SymTeams
		want  string
	}{
		{"two plans", []*spec.Decision{ar("AllReduce_RSxLD_AGxST", 0), ar("AllReduce_RSxLD_AGxST", 1)}, one, "not in the plan of task 0"},
		{"two functions", []*spec.Decision{ar("AllReduce_RSxLD_AGxST", 0), ag}, one, "not in the plan of task 0"},
		{"grouped LL", []*spec.Decision{ar("AllReduce_AGxLL_R", 0), ar("AllReduce_AGxLL_R", 0)}, one, "never groups the LL kernels"},
		{"two copy engines", []*spec.Decision{{Op: ag.Op, Kernel: "copy-engine"}, {Op: ag.Op, Kernel: "copy-engine"}}, one, "launches each alone"},
		{"LSA kernel across teams", []*spec.Decision{ar("AllReduce_RSxLD_AGxST", 0)}, SymTeams{Ranks: 16, LSA: 8}, "the others inside one"},
		{"copy engines across teams", []*spec.Decision{{Op: ag.Op, Kernel: "copy-engine"}}, SymTeams{Ranks: 16, LSA: 8}, "inside one"},
		{"two hierarchical copy engines", []*spec.Decision{{Op: ag.Op, Kernel: "hierarchical-ce"}, {Op: ag.Op, Kernel: "hierarchical-ce"}}, SymTeams{Ranks: 16, LSA: 8}, "launches each alone"},
		{"hierarchical ReduceScatter", []*spec.Decision{{Op: spec.Op{Func: spec.ReduceScatter, Count: 8, DataType: spec.Float32}, Kernel: "hierarchical-ce"}}, SymTeams{Ranks: 16, LSA: 8}, "AllGather and AllToAll"},
		{"network AllReduce", []*spec.Decision{ar("AllReduce_RSxNet_ARxMC_AGxNet", 0)}, SymTeams{Ranks: 16, LSA: 8}, "not modelled"},
		{"teams", []*spec.Decision{ag}, SymTeams{Ranks: 12, LSA: 8}, "whole number of teams"},
		{"none", nil, one, "no symmetric kernel"},
	} {
		if _, err := BuildSymPlan(c.ds, c.teams, 4096, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestBuildSymPlanSums: a plan of several works moves the sum of its
// tasks' bytes in one launch's two synchronisations, and its busiest
// block is the plan's (CTABytes), whatever task carries it; a plan of
// one task is BuildSym's schedule.
func TestBuildSymPlanSums(t *testing.T) {
	const n = 8
	for _, kernel := range []string{"AllReduce_RSxLD_AGxST", "AllReduce_RSxLDMC_AGxSTMC"} {
		var ds []*spec.Decision
		var sum [4]int64
		for i, count := range []int64{1 << 20, 3 << 18, 1 << 10} {
			d := &spec.Decision{Op: spec.Op{Func: spec.AllReduce, Count: count, DataType: spec.Float32, RedOp: spec.Sum}, Kernel: kernel,
				NChannels: 16, SymChannels: 12, CTABytes: 5 << 18, Plan: 2}
			alone, err := BuildSym(d, n, 4*count, false)
			if err != nil {
				t.Fatalf("%s task %d: %v", kernel, i, err)
			}
			sum[0], sum[1], sum[2], sum[3] = sum[0]+alone.P2POut, sum[1]+alone.P2PIn, sum[2]+alone.MCOut, sum[3]+alone.MCIn
			ds = append(ds, d)
		}
		s, err := BuildSymPlan(ds, SymTeams{Ranks: n, LSA: n}, 1234, false)
		if err != nil {
			t.Fatalf("%s: %v", kernel, err)
		}
		if got := [4]int64{s.P2POut, s.P2PIn, s.MCOut, s.MCIn}; got != sum {
			t.Errorf("%s: plan moves %v, its tasks %v", kernel, got, sum)
		}
		alone, _ := BuildSym(ds[0], n, 4<<20, false)
		if s.Works != 3 || s.Syncs != 2 || s.Blocks != 12 || s.Bytes != 1234 || s.BlockBusBytes != alone.BlockBusBytes {
			t.Errorf("%s: works %d syncs %d blocks %d bytes %d block bus bytes %g (alone %g)", kernel, s.Works, s.Syncs, s.Blocks, s.Bytes, s.BlockBusBytes, alone.BlockBusBytes)
		}
	}
}

// TestBuildSymPlanAllGatherBytes: NCCL queues an AllGather as bytes
// (ncclInt8), so AllGathers of different types share a bin and a plan.
func TestBuildSymPlanAllGatherBytes(t *testing.T) {
	var ds []*spec.Decision
	for _, dt := range []spec.DataType{spec.Int8, spec.Uint8, spec.Float32} {
		ds = append(ds, &spec.Decision{Op: spec.Op{Func: spec.AllGather, Count: 1024, DataType: dt}, Kernel: "AllGather_ST", NChannels: 2})
	}
	s, err := BuildSymPlan(ds, SymTeams{Ranks: 4, LSA: 4}, 4*6*1024, false)
	if err != nil || s.Works != 3 || s.P2POut != 3*6*1024 {
		t.Fatalf("AllGathers of int8, uint8 and float in one plan: %v, %+v", err, s)
	}
}

// TestBuildSymGin: the GIN kernels' and hierarchical copy engines' bytes
// per rank on r LSA teams of l ranks and B bytes per rank, against the
// volumes BuildSymPlan's and buildHierCE's comments derive from the
// source at the tags, and their network steps.
func TestBuildSymGin(t *testing.T) {
	const b = int64(1 << 22)
	for _, c := range []struct {
		f                          spec.Func
		kernel                     string
		l, r                       int64
		p2pOut, p2pIn, mcOut, mcIn int64
		net                        int64
		netSyncs, netHops          int
		fill, lsaFill              int64
	}{
		{spec.AllGather, "AllGather_GinHier_MCRing", 8, 2, 0, 0, 2 * b, 16 * b, b, 2, 1, 0, 0},
		{spec.AllGather, "AllGather_RailRing_LsaSTMC", 8, 4, 0, 0, 4 * b, 32 * b, 3 * b, 2, 3, 2 * 4 << 20, 0},
		{spec.AllGather, "AllGather_RailRing_LsaSTMC", 4, 2, 0, 0, 2 * b, 8 * b, b, 2, 1, 0, 0},
		{spec.ReduceScatter, "ReduceScatter_RailA2A_LsaLD", 8, 2, 7 * 2 * b, 7 * 2 * b, 0, 0, b, 0, 1, 4 << 16, 8 * 4 << 16},
		{spec.ReduceScatter, "ReduceScatter_RailA2A_LsaLDMC", 8, 4, 0, 0, 8 * 4 * b, 4 * b, 3 * b, 0, 1, 4 << 16, 8 * 4 << 16},
		{spec.AllGather, "hierarchical-ce", 8, 4, 4 * 7 * b, 4 * 7 * b, 0, 0, 3 * b, 1, 1, 0, 7 * b},
		{spec.AllToAll, "hierarchical-ce", 8, 4, 7 * b, 7 * b, 0, 0, 24 * b, 1, 1, 0, 0},
	} {
		chunk := int64(1 << 20)
		if c.f == spec.ReduceScatter {
			chunk = 1 << 16
		} else if c.kernel == "AllGather_GinHier_MCRing" {
			chunk = 4 << 20
		}
		d := &spec.Decision{Op: spec.Op{Func: c.f, Count: b / 4, DataType: spec.Float32, RedOp: spec.Sum}, Kernel: c.kernel, NChannels: 4, CTABytes: b / 4}
		s, err := BuildSymPlan([]*spec.Decision{d}, SymTeams{Ranks: int(c.l * c.r), LSA: int(c.l), GinChunk: chunk}, b*c.l*c.r, false)
		if err != nil {
			t.Fatalf("%s: %v", c.kernel, err)
		}
		got := [9]int64{s.P2POut, s.P2PIn, s.MCOut, s.MCIn, s.NetOut, s.NetIn, int64(s.NetSyncs), int64(s.NetHops), s.NetFill}
		want := [9]int64{c.p2pOut, c.p2pIn, c.mcOut, c.mcIn, c.net, c.net, int64(c.netSyncs), int64(c.netHops), c.fill}
		ce := c.kernel == "hierarchical-ce"
		if got != want || s.LSAFill != c.lsaFill || s.Syncs != 2 || s.BlockBusBytes != 0 || s.LL || s.CopyEngine != ce || ce && s.Local != b {
			t.Errorf("%s on %d×%d: p2p/mc/net out,in, net syncs, hops, fill %v lsa fill %d, want %v %d", c.kernel, c.r, c.l, got, s.LSAFill, want, c.lsaFill)
		}
	}
}
