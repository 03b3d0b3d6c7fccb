package sim

import (
	"runtime"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/internal/benchcpu"
	"github.com/gatesim/gatesim/spec"
)

// benchSim builds and simulates one AllReduce per iteration and reports
// events, events per second, the CPU time per operation (cpu-ns/op: what
// to read on the shared machine) and the live heap after the run (the schedule,
// plans, rates and simulation state all count; nothing holds data
// buffers). With loopOnly the timer covers Run alone (the event loop);
// otherwise it covers layout, schedule, planning, symmetry and Run.
func benchSim(b *testing.B, m Machine, algo spec.Algo, proto spec.Proto, bytes int64, commCh, ch int, noSym, loopOnly bool) {
	benchSimFunc(b, m, spec.AllReduce, algo, proto, bytes, commCh, ch, noSym, loopOnly)
}

// benchSimFunc is benchSim for any collective; bytes is nccl-tests' size
// (the whole gathered or scattered buffer for AllGather and ReduceScatter).
func benchSimFunc(b *testing.B, m Machine, f spec.Func, algo spec.Algo, proto spec.Proto, bytes int64, commCh, ch int, noSym, loopOnly bool) {
	b.ReportAllocs()
	count := bytes / 4
	if f == spec.AllGather || f == spec.ReduceScatter {
		count /= int64(m.Nodes * m.GPUsPerNode)
	}
	var events int64
	var heap uint64
	var cpu benchcpu.Timer
	cpu.Start()
	for i := 0; i < b.N; i++ {
		if loopOnly {
			b.StopTimer()
			cpu.Stop()
		}
		l, err := algos.DefaultLayout(spec.V2_28_9, m.Nodes, m.GPUsPerNode, commCh)
		if err != nil {
			b.Fatal(err)
		}
		s, err := algos.Build(spec.Op{Func: f, Count: count, DataType: spec.Float32}, algos.Selection{Algo: algo, Proto: proto, NChannels: ch}, l, algos.Options{})
		if err != nil {
			b.Fatal(err)
		}
		x, err := New(s, Config{Machine: m, NoSymmetry: noSym})
		if err != nil {
			b.Fatal(err)
		}
		if loopOnly {
			b.StartTimer()
			cpu.Start()
		}
		r, err := x.Run()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu.Stop()
		events = r.Events
		runtime.GC() // what is live, not what awaits collection
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc
		runtime.KeepAlive(x)
		b.StartTimer()
		cpu.Start()
	}
	cpu.Report(b, 0)
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(heap)/(1<<20), "MB-live")
}

func dgxCluster(nodes int) Machine {
	m, _ := Preset("ib16")
	m.Nodes = nodes
	return m
}

// BenchmarkEvents measures the event loop alone: every rank of a 16-node
// Tree AllReduce of 256 MiB simulated without rank symmetry (16,320
// events); the
// layout, schedule and plans are built outside the timer.
func BenchmarkEvents(b *testing.B) {
	benchSim(b, dgxCluster(16), spec.Tree, spec.Simple, 256<<20, 16, 16, true, true)
}

// BenchmarkEventsRing is the same for a 16-node Ring AllReduce (LL: many
// small steps).
func BenchmarkEventsRing(b *testing.B) {
	benchSim(b, dgxCluster(16), spec.Ring, spec.LL, 16<<20, 16, 16, true, true)
}

// BenchmarkRing1024 is a 1,024-GPU (128 × 8) Ring AllReduce of 256 MiB on
// 24 channels, step by step (2,046 ring steps per loop).
func BenchmarkRing1024(b *testing.B) {
	benchSim(b, dgxCluster(128), spec.Ring, spec.Simple, 256<<20, 24, 24, false, false)
}

// BenchmarkTree1024 is the same on the double binary tree.
func BenchmarkTree1024(b *testing.B) {
	benchSim(b, dgxCluster(128), spec.Tree, spec.Simple, 256<<20, 24, 24, false, false)
}

// BenchmarkTree100k is the hierarchical AllReduce of 12,500 nodes × 8
// GPUs (100,000 ranks): NCCL's double binary tree across nodes, chains
// inside, 256 MiB on 16 channels.
func BenchmarkTree100k(b *testing.B) {
	benchSim(b, dgxCluster(12500), spec.Tree, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkTree100k24 is the same on 24 channels (12 graph channels on 8
// rails: rails carry unequal channel counts, so more classes).
func BenchmarkTree100k24(b *testing.B) {
	benchSim(b, dgxCluster(12500), spec.Tree, spec.Simple, 256<<20, 24, 24, false, false)
}

// BenchmarkNVLSTree100k is NVLS inside each node and the tree across nodes
// for 100,000 ranks.
func BenchmarkNVLSTree100k(b *testing.B) {
	benchSim(b, dgxCluster(12500), spec.NVLSTree, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkCollNetChain100k is the SHARP chain for 100,000 ranks.
func BenchmarkCollNetChain100k(b *testing.B) {
	m := dgxCluster(12500)
	m.SHARP = true
	benchSim(b, m, spec.CollNetChain, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkRing131k is a Ring AllReduce of 256 MiB on 16,384 × 8 GPUs
// (131,072 ranks), 16 channels: every loop's chunks are whole, so each
// channel is a uniform ring (one plan, one compiled program, a
// representative per position in the node), 2(n-1) steps per
// representative. (On 12,500 × 8 GPUs the last loop's chunks are not
// whole: every rank moves a different sequence of chunk sizes and no two
// run the same timeline: BenchmarkRing100k.)
func BenchmarkRing131k(b *testing.B) {
	benchSim(b, dgxCluster(16384), spec.Ring, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkPAT100k is PAT AllGather of 256 MiB on 100,000 nodes of one
// GPU (where NCCL runs PAT): a circulant schedule, planned once.
func BenchmarkPAT100k(b *testing.B) {
	m := dgxCluster(100000)
	m.GPUsPerNode, m.NICs = 1, 1
	benchSimFunc(b, m, spec.AllGather, spec.PAT, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkCollNetDirect100k is the SHARP direct AllReduce for 100,000
// ranks.
func BenchmarkCollNetDirect100k(b *testing.B) {
	m := dgxCluster(12500)
	m.SHARP = true
	benchSim(b, m, spec.CollNetDirect, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkRing1024EveryRank is BenchmarkRing1024 without rank symmetry:
// all 1,024 ranks step by step (channels of one class still share a
// timeline; the ranks of a uniform ring channel share one compiled
// program, so memory stays small).
func BenchmarkRing1024EveryRank(b *testing.B) {
	benchSim(b, dgxCluster(128), spec.Ring, spec.Simple, 256<<20, 24, 24, true, false)
}

// BenchmarkNVLSSharp100k is NVLS with SHARP across 12,500 nodes × 8 GPUs:
// every GPU an NVLS head, each head's network group 12,500 GPUs wide,
// AllReduce of 256 MiB on 16 channels.
func BenchmarkNVLSSharp100k(b *testing.B) {
	m := dgxCluster(12500)
	m.SHARP = true
	benchSim(b, m, spec.NVLS, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkCollNetAllGather1024 is CollNetDirect AllGather (iallgather)
// of 256 MiB on 128 × 8 GPUs, 16 channels: windows of the rail space
// cross node boundaries, so nodes (and channels) fall into many classes.
func BenchmarkCollNetAllGather1024(b *testing.B) {
	m := dgxCluster(128)
	m.SHARP = true
	benchSimFunc(b, m, spec.AllGather, spec.CollNetDirect, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkNVLSSharpReduceScatter1024 is NVLS ReduceScatter with SHARP
// (ireducescatter) of 256 MiB on 128 × 8 GPUs.
func BenchmarkNVLSSharpReduceScatter1024(b *testing.B) {
	m := dgxCluster(128)
	m.SHARP = true
	benchSimFunc(b, m, spec.ReduceScatter, spec.NVLS, spec.Simple, 256<<20, 16, 16, false, false)
}

// BenchmarkCollNetAllGather100k is CollNetDirect AllGather of 1.6 GB
// (16 KiB per rank) on 12,500 × 8 GPUs: planning every rank's program for
// each of the 16 distinct channels dominates. It takes about a minute; run
// it alone.
func BenchmarkCollNetAllGather100k(b *testing.B) {
	m := dgxCluster(12500)
	m.SHARP = true
	benchSimFunc(b, m, spec.AllGather, spec.CollNetDirect, spec.Simple, 1600000<<10, 16, 16, false, false)
}

// benchProfile times layout, schedule, planning and the run of one
// operation under a profile (nil: nominal), in wall-clock and CPU time:
// what the calibrated model costs beyond the nominal one.
func benchProfile(b *testing.B, p *Profile, nodes, gpus int, f spec.Func, proto spec.Proto, bytes int64) {
	b.ReportAllocs()
	m, _ := Preset("dgx-h100")
	m.Nodes, m.GPUsPerNode, m.NICs = nodes, gpus, gpus
	m.Profile = p
	var cpu benchcpu.Timer
	cpu.Start()
	defer cpu.Report(b, 0)
	for i := 0; i < b.N; i++ {
		l, err := algos.DefaultLayout(spec.V2_28_9, nodes, gpus, 24)
		if err != nil {
			b.Fatal(err)
		}
		s, err := algos.Build(spec.Op{Func: f, Count: bytes / 4, DataType: spec.Float32}, algos.Selection{Algo: spec.Ring, Proto: proto}, l, algos.Options{})
		if err != nil {
			b.Fatal(err)
		}
		cfg := Config{Machine: m, NThreads: 256, DefaultNThreads: 512}
		if _, err := Simulate(s, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func calibratedProfile(b *testing.B) *Profile {
	p, err := BuiltinProfile("h200x2")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkProfile compares the nominal and the calibrated model on the
// same operations: 2 GPUs, Ring AllReduce, 64 KiB LL and 256 MiB Simple;
// 16 nodes × 8 GPUs, 256 MiB Simple.
func BenchmarkProfile(b *testing.B) {
	cal := calibratedProfile(b)
	for _, c := range []struct {
		name        string
		nodes, gpus int
		proto       spec.Proto
		bytes       int64
	}{
		{"2gpu-64KiB-LL", 1, 2, spec.LL, 64 << 10},
		{"2gpu-256MiB-Simple", 1, 2, spec.Simple, 256 << 20},
		{"16x8-256MiB-Simple", 16, 8, spec.Simple, 256 << 20},
	} {
		b.Run(c.name+"/nominal", func(b *testing.B) { benchProfile(b, nil, c.nodes, c.gpus, spec.AllReduce, c.proto, c.bytes) })
		b.Run(c.name+"/calibrated", func(b *testing.B) { benchProfile(b, cal, c.nodes, c.gpus, spec.AllReduce, c.proto, c.bytes) })
	}
}

// BenchmarkRing100k is a Ring AllReduce of 256 MiB on exactly 100,000 GPUs
// (12,500 × 8), 16 channels: the last loop's chunks are uneven (95,325
// whole chunks of 44 elements, one of 4, 4,674 empty), so no two ranks
// run one timeline; the channels are solved in runs of ranks (solveRing).
func BenchmarkRing100k(b *testing.B) {
	benchSim(b, dgxCluster(12500), spec.Ring, spec.Simple, 256<<20, 16, 16, false, false)
}
