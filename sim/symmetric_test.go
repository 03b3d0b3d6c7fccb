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

// drawSym draws a symmetric kernel's schedule on one node of 2–8 GPUs.
func drawSym(t *rapid.T) (*algos.SymSchedule, Machine) {
	m, _ := Preset("dgx-h100")
	m.Nodes, m.GPUsPerNode = 1, rapid.IntRange(2, 8).Draw(t, "gpus")
	c := rapid.SampledFrom(symKernels).Draw(t, "kernel")
	count := rapid.Int64Range(0, 1<<24).Draw(t, "count")
	return symCase(t, c.f, c.kernel, m, count, rapid.IntRange(1, 64).Draw(t, "blocks")), m
}

// TestPropSymSlowerLinksNeverFaster: with the kernel and its blocks held
// fixed, a slower NVLink or a longer NVLink latency never makes a
// symmetric kernel or copy-engine collective finish sooner.
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
		if rapid.Bool().Draw(t, "bandwidth") {
			cfg.Machine.NVLinkBw = max(1, int64(float64(m.NVLinkBw)*rapid.Float64Range(0.05, 1).Draw(t, "less")))
		} else {
			for p := spec.Proto(0); p < spec.NumProtos; p++ {
				cfg.Machine.Latency[hopNVLink][p] = float64(m.HopLatency(hopNVLink, spec.Ring, p).Micros()) * rapid.Float64Range(1, 10).Draw(t, "more")
			}
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
