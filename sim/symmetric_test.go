package sim

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
	"pgregory.net/rapid"
)

// symKernels are the kernels and copy-engine collectives SimulateSym
// times, by function.
var symKernels = []struct {
	f      spec.Func
	kernel string
}{
	{spec.AllReduce, "AllReduce_RSxLD_AGxST"}, {spec.AllReduce, "AllReduce_RSxLDMC_AGxSTMC"},
	{spec.AllReduce, "AllReduce_AGxLL_R"}, {spec.AllReduce, "AllReduce_AGxLLMC_R"},
	{spec.AllGather, "AllGather_ST"}, {spec.AllGather, "AllGather_STMC"}, {spec.AllGather, "AllGather_LL"}, {spec.AllGather, "AllGather_LLMC"},
	{spec.ReduceScatter, "ReduceScatter_LD"}, {spec.ReduceScatter, "ReduceScatter_LDMC"}, {spec.ReduceScatter, "ReduceScatter_LL"},
	{spec.AllGather, "copy-engine"}, {spec.AllToAll, "copy-engine"},
}

// symCase builds kernel k's schedule for count floats per rank on the
// machine's GPUs, on blocks blocks sharing the bytes evenly.
func symCase(t interface{ Fatal(...any) }, f spec.Func, kernel string, m Machine, count int64, blocks int) *algos.SymSchedule {
	d := &spec.Decision{Op: spec.Op{Func: f, Count: count, DataType: spec.Float32, RedOp: spec.Sum}, Kernel: kernel}
	if kernel != "copy-engine" {
		d.NChannels = blocks
	}
	s, err := algos.BuildSym(d, m.GPUsPerNode, TestBytes(f, count, spec.Float32, m.GPUsPerNode), false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSimulateSymPerKernel: each kernel's time on one nominal DGX H100
// (NCCL's constants: no launch cost in the profile, so the kernel's base
// latency) is its base latency, its synchronisations at NCCL's NVLink LL
// latency and the slowest of its NVLink directions (P2P at the NVLink
// rate, multimem at the NVLS efficiency), its busiest block at NCCL's
// per-block rate and its local copy.
func TestSimulateSymPerKernel(t *testing.T) {
	m, _ := Preset("dgx-h100")
	m.Nodes, m.Profile = 1, nil
	const count = 1 << 20 // 4 MiB per rank
	for _, c := range symKernels {
		s := symCase(t, c.f, c.kernel, m, count, 8)
		r, tm, err := SimulateSym(s, Config{Machine: m, Launch: Launch{Iters: 1}})
		if err != nil {
			t.Fatalf("%s: %v", c.kernel, err)
		}
		base := m.LaunchLatency(spec.Ring, spec.Simple)
		if !s.CopyEngine {
			base = FromMicros(tuning.SymBaseLatency(s.SymKernel, 90))
		}
		link := max(durationOf(s.P2POut, m.NVLinkBw)+durationOf(s.MCOut, scaleRate(m.NVLinkBw, 0.85)), durationOf(s.P2PIn, m.NVLinkBw)+durationOf(s.MCIn, scaleRate(m.NVLinkBw, 0.85)))
		var block Time
		if !s.CopyEngine {
			block = FromMicros(s.BlockBusBytes / tuning.SymBlockBw(s.SymKernel, 8, 90) * 1e6)
		}
		want := base + Time(s.Syncs)*m.HopLatency(hopNVLink, spec.Ring, spec.LL) + max(link, block, hbmCopyDuration(s.Local, m.HBMBw))
		if r.Time != want {
			t.Errorf("%s %s: %v (%+v), want %v", c.f, c.kernel, r.Time, *tm, want)
		}
		if r.Time <= base || r.Algo != c.kernel || r.Channels != s.Blocks || r.MaxLinkBytes["nvlink"] == 0 {
			t.Errorf("%s %s: result %+v", c.f, c.kernel, *r)
		}
	}
	// 64 MiB per rank gathered on 8 GPUs: on one block the block's rate
	// bounds AllGather_ST, on 16 the NVLink; multimem sends each byte into
	// the switch once where the stores send it to each of the 7 peers, and
	// both receive every block
	one, t1, _ := SimulateSym(symCase(t, spec.AllGather, "AllGather_ST", m, 16<<20, 1), Config{Machine: m})
	st, t16, _ := SimulateSym(symCase(t, spec.AllGather, "AllGather_ST", m, 16<<20, 16), Config{Machine: m})
	mc, _, _ := SimulateSym(symCase(t, spec.AllGather, "AllGather_STMC", m, 16<<20, 16), Config{Machine: m})
	if t1.Bound != "blocks" || t16.Bound != "nvlink" || one.Time <= st.Time {
		t.Errorf("AllGather_ST on 1 block %v (%s-bound), on 16 %v (%s-bound)", one.Time, t1.Bound, st.Time, t16.Bound)
	}
	if mc.MaxLinkBytes["nvlink"] != 8<<26 || st.MaxLinkBytes["nvlink"] != 7<<26 {
		t.Errorf("busiest NVLink direction: STMC %d, ST %d bytes", mc.MaxLinkBytes["nvlink"], st.MaxLinkBytes["nvlink"])
	}
}

// TestSimulateSymRefuses: multimem without NVLS, and a machine that is not
// the schedule's one node.
func TestSimulateSymRefuses(t *testing.T) {
	m, _ := Preset("dgx-h100")
	m.Nodes = 1
	s := symCase(t, spec.AllGather, "AllGather_STMC", m, 1024, 2)
	noNVLS := m
	noNVLS.NVLS = false
	if _, _, err := SimulateSym(s, Config{Machine: noNVLS}); err == nil || !strings.Contains(err.Error(), "without NVLS") {
		t.Errorf("multimem without NVLS: %v", err)
	}
	two := m
	two.Nodes = 2
	if _, _, err := SimulateSym(s, Config{Machine: two}); err == nil || !strings.Contains(err.Error(), "one node") {
		t.Errorf("two nodes: %v", err)
	}
}

// ginKernels are the GIN kernels and hierarchical copy-engine
// collectives SimulateSym times across nodes.
var ginKernels = []struct {
	f      spec.Func
	kernel string
}{
	{spec.AllGather, "AllGather_GinHier_MCRing"}, {spec.AllGather, "AllGather_RailRing_LsaSTMC"},
	{spec.ReduceScatter, "ReduceScatter_RailA2A_LsaLD"}, {spec.ReduceScatter, "ReduceScatter_RailA2A_LsaLDMC"},
	{spec.AllGather, "hierarchical-ce"}, {spec.AllToAll, "hierarchical-ce"},
}

// ginCase builds GIN kernel k's schedule for count floats per rank on
// the machine's nodes (one LSA team each), on blocks blocks.
func ginCase(t interface{ Fatal(...any) }, f spec.Func, kernel string, m Machine, count int64, blocks int) *algos.SymSchedule {
	d := &spec.Decision{Op: spec.Op{Func: f, Count: count, DataType: spec.Float32, RedOp: spec.Sum}, Kernel: kernel, NChannels: blocks}
	n := m.Nodes * m.GPUsPerNode
	s, err := algos.BuildSymPlan([]*spec.Decision{d}, algos.SymTeams{Ranks: n, LSA: m.GPUsPerNode, GinChunk: 1 << 20}, TestBytes(f, count, spec.Float32, n), false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// symPlan builds one plan of works AllReduces of count floats each, on
// kernel and blocks blocks (the busiest block an even share).
func symPlan(t interface{ Fatal(...any) }, kernel string, m Machine, count int64, works, blocks int) *algos.SymSchedule {
	var ds []*spec.Decision
	for range works {
		ds = append(ds, &spec.Decision{Op: spec.Op{Func: spec.AllReduce, Count: count, DataType: spec.Float32, RedOp: spec.Sum}, Kernel: kernel, NChannels: blocks})
	}
	s, err := algos.BuildSymPlan(ds, algos.SymTeams{Ranks: m.GPUsPerNode, LSA: m.GPUsPerNode}, int64(works)*4*count, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSimulateSymGin: a GIN kernel or hierarchical copy-engine
// collective on 2 and 4 nominal DGX H100 nodes is
// its launch (Ring/Simple's: NCCL's GIN model has none), its barriers
// (those over the network also at NCCL's NET latency) and the slowest of
// its NVLink, its local copy and its network at the GPU's NIC followed by
// its pipeline's fill; every NIC byte is counted.
func TestSimulateSymGin(t *testing.T) {
	m, _ := Preset("dgx-h100")
	m.Profile = nil
	const count = 1 << 20 // 4 MiB per rank
	for _, nodes := range []int{2, 4} {
		m.Nodes = nodes
		for _, c := range ginKernels {
			s := ginCase(t, c.f, c.kernel, m, count, 4)
			r, tm, err := SimulateSym(s, Config{Machine: m, Launch: Launch{Iters: 1}})
			if err != nil {
				t.Fatalf("%s on %d nodes: %v", c.kernel, nodes, err)
			}
			netHop := m.HopLatency(hopNet, spec.Ring, spec.Simple)
			nvl := max(durationOf(s.P2POut, m.NVLinkBw)+durationOf(s.MCOut, scaleRate(m.NVLinkBw, 0.85)), durationOf(s.P2PIn, m.NVLinkBw)+durationOf(s.MCIn, scaleRate(m.NVLinkBw, 0.85)))
			net := durationOf(max(s.NetOut, s.NetIn), m.NICBw)
			fill := durationOf(s.NetFill, m.NICBw) + durationOf(s.LSAFill, m.NVLinkBw) + Time(s.NetHops)*netHop
			want := m.LaunchLatency(spec.Ring, spec.Simple) + Time(s.Syncs)*m.HopLatency(hopNVLink, spec.Ring, spec.LL) + Time(s.NetSyncs)*netHop + max(nvl, net+fill, hbmCopyDuration(s.Local, m.HBMBw))
			if r.Time != want {
				t.Errorf("%s on %d nodes: %v (%+v), want %v", c.kernel, nodes, r.Time, *tm, want)
			}
			n := int64(m.Nodes * m.GPUsPerNode)
			perRank := int64(nodes-1) * 4 * count
			if c.f == spec.AllToAll {
				perRank *= int64(m.GPUsPerNode) // a block to every remote rank
			}
			if r.Nodes != nodes || r.LinkBytes["nic"] != 2*s.NetOut*n || r.NetBytes != s.NetOut*n || s.NetOut != perRank {
				t.Errorf("%s on %d nodes: nodes %d, nic bytes %d, injected %d (per rank %d)", c.kernel, nodes, r.Nodes, r.LinkBytes["nic"], r.NetBytes, s.NetOut)
			}
		}
	}
	// a GIN kernel needs its teams on the machine's nodes
	m.Nodes = 2
	s := ginCase(t, spec.AllGather, "AllGather_RailRing_LsaSTMC", m, count, 4)
	one := m
	one.Nodes, one.GPUsPerNode = 1, 16
	if _, _, err := SimulateSym(s, Config{Machine: one}); err == nil || !strings.Contains(err.Error(), "LSA teams of 8") {
		t.Errorf("a GIN kernel on one node of 16: %v", err)
	}
}

// TestSimulateSymPlanOneLaunch: a plan of several works is one kernel:
// one launch and one pair of barriers, so k AllReduces in one plan take
// less than k lone ones, and more than one; its result counts every
// work's bytes.
func TestSimulateSymPlanOneLaunch(t *testing.T) {
	m, _ := Preset("dgx-h100")
	m.Nodes, m.Profile = 1, nil
	for _, kernel := range []string{"AllReduce_RSxLD_AGxST", "AllReduce_RSxLDMC_AGxSTMC"} {
		one, t1, err := SimulateSym(symPlan(t, kernel, m, 1<<20, 1, 16), Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		four, t4, err := SimulateSym(symPlan(t, kernel, m, 1<<20, 4, 16), Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		if four.Time <= one.Time || four.Time >= 4*one.Time || t4.LaunchUs != t1.LaunchUs || t4.SyncUs != t1.SyncUs || t4.Works != 4 {
			t.Errorf("%s: 4 works %v (%+v), one %v (%+v)", kernel, four.Time, *t4, one.Time, *t1)
		}
		if four.LinkBytes["nvlink"] != 4*one.LinkBytes["nvlink"] || four.Bytes != 4*one.Bytes {
			t.Errorf("%s: 4 works move %d NVLink bytes of %d, one %d of %d", kernel, four.LinkBytes["nvlink"], four.Bytes, one.LinkBytes["nvlink"], one.Bytes)
		}
	}
}

// drawSym draws a symmetric kernel's schedule: on one node of 2–8 GPUs a
// kernel of one task, a plan of several AllReduce works or a copy-engine
// collective; on 2–4 nodes of 2–8 GPUs a GIN kernel.
func drawSym(t *rapid.T) (*algos.SymSchedule, Machine) {
	m, _ := Preset("dgx-h100")
	m.Nodes, m.GPUsPerNode = 1, rapid.IntRange(2, 8).Draw(t, "gpus")
	count := rapid.Int64Range(0, 1<<24).Draw(t, "count")
	blocks := rapid.IntRange(1, 64).Draw(t, "blocks")
	switch rapid.IntRange(0, 2).Draw(t, "form") {
	case 1:
		m.Nodes = rapid.IntRange(2, 4).Draw(t, "nodes")
		c := rapid.SampledFrom(ginKernels).Draw(t, "gin")
		return ginCase(t, c.f, c.kernel, m, count, blocks), m
	case 2:
		k := rapid.SampledFrom([]string{"AllReduce_RSxLD_AGxST", "AllReduce_RSxLDMC_AGxSTMC"}).Draw(t, "fused")
		return symPlan(t, k, m, count, rapid.IntRange(1, 8).Draw(t, "works"), blocks), m
	}
	c := rapid.SampledFrom(symKernels).Draw(t, "kernel")
	return symCase(t, c.f, c.kernel, m, count, blocks), m
}

// TestPropSymSlowerLinksNeverFaster: with the kernel and its blocks held
// fixed, a slower NVLink or NIC, or a longer NVLink or network latency,
// never makes a symmetric kernel (alone, a plan of several works, or a
// GIN kernel across nodes) or copy-engine collective finish sooner.
func TestPropSymSlowerLinksNeverFaster(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, m := drawSym(t)
		if rapid.Bool().Draw(t, "profile") {
			m.Profile = drawProfile(t)
		}
		cfg := Config{Machine: m, Launch: Launch{Iters: rapid.SampledFrom([]int{0, 1, 20}).Draw(t, "iters")}}
		before, _, err := SimulateSym(s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		switch rapid.IntRange(0, 3).Draw(t, "slower") {
		case 0:
			cfg.Machine.NVLinkBw = max(1, int64(float64(m.NVLinkBw)*rapid.Float64Range(0.05, 1).Draw(t, "less")))
		case 1:
			for p := spec.Proto(0); p < spec.NumProtos; p++ {
				cfg.Machine.Latency[hopNVLink][p] = float64(m.HopLatency(hopNVLink, spec.Ring, p).Micros()) * rapid.Float64Range(1, 10).Draw(t, "more")
			}
		case 2:
			cfg.Machine.NICBw = max(1, int64(float64(m.NICBw)*rapid.Float64Range(0.05, 1).Draw(t, "less")))
		default:
			cfg.Machine.NetLat = rapid.Float64Range(0, 50).Draw(t, "netlat")
		}
		after, _, err := SimulateSym(s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if after.Time < before.Time {
			t.Fatalf("%s: %v -> %v", s, before.Time, after.Time)
		}
	})
}
