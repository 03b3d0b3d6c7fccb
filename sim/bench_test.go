package sim

import (
	"runtime"
	"testing"
	"time"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// benchSim builds and simulates one AllReduce per iteration and reports
// events, events per second and the live heap after the run (the schedule,
// plans, rates and simulation state all count; nothing holds data
// buffers).
func benchSim(b *testing.B, m Machine, algo spec.Algo, proto spec.Proto, bytes int64, commCh, ch int, noSym bool) {
	b.ReportAllocs()
	var events int64
	var heap uint64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		l, err := algos.DefaultLayout(spec.V2_28_9, m.Nodes, m.GPUsPerNode, commCh)
		if err != nil {
			b.Fatal(err)
		}
		s, err := algos.Build(spec.Op{Func: spec.AllReduce, Count: bytes / 4, DataType: spec.Float32}, algos.Selection{Algo: algo, Proto: proto, NChannels: ch}, l, algos.Options{})
		if err != nil {
			b.Fatal(err)
		}
		x, err := New(s, Config{Machine: m, NoSymmetry: noSym})
		if err != nil {
			b.Fatal(err)
		}
		r, err := x.Run()
		if err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		events = r.Events
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc
		runtime.KeepAlive(x)
	}
	b.ReportMetric(float64(events), "events")
	b.ReportMetric(float64(events)*float64(b.N)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(heap)/(1<<20), "MB-live")
}

func dgxCluster(nodes int) Machine {
	m, _ := Preset("ib16")
	m.Nodes = nodes
	return m
}

// BenchmarkEvents measures the event loop: every rank of a 16-node Tree
// AllReduce simulated without symmetry (about 10^5 events).
func BenchmarkEvents(b *testing.B) {
	benchSim(b, dgxCluster(16), spec.Tree, spec.Simple, 256<<20, 16, 16, true)
}

// BenchmarkRing1024 is a 1,024-GPU (128 × 8) Ring AllReduce of 256 MiB on
// 24 channels, step by step (2,046 ring steps per loop).
func BenchmarkRing1024(b *testing.B) {
	benchSim(b, dgxCluster(128), spec.Ring, spec.Simple, 256<<20, 24, 24, false)
}

// BenchmarkTree1024 is the same on the double binary tree.
func BenchmarkTree1024(b *testing.B) {
	benchSim(b, dgxCluster(128), spec.Tree, spec.Simple, 256<<20, 24, 24, false)
}

// BenchmarkTree100k is the hierarchical AllReduce of 12,500 nodes × 8
// GPUs (100,000 ranks): NCCL's double binary tree across nodes, chains
// inside, 256 MiB on 16 channels.
func BenchmarkTree100k(b *testing.B) {
	benchSim(b, dgxCluster(12500), spec.Tree, spec.Simple, 256<<20, 16, 16, false)
}

// BenchmarkTree100k24 is the same on 24 channels (12 graph channels on 8
// rails: rails carry unequal channel counts, so more classes).
func BenchmarkTree100k24(b *testing.B) {
	benchSim(b, dgxCluster(12500), spec.Tree, spec.Simple, 256<<20, 24, 24, false)
}

// BenchmarkNVLSTree100k is NVLS inside each node and the tree across nodes
// for 100,000 ranks.
func BenchmarkNVLSTree100k(b *testing.B) {
	benchSim(b, dgxCluster(12500), spec.NVLSTree, spec.Simple, 256<<20, 16, 16, false)
}

// BenchmarkCollNetChain100k is the SHARP chain for 100,000 ranks.
func BenchmarkCollNetChain100k(b *testing.B) {
	m := dgxCluster(12500)
	m.SHARP = true
	benchSim(b, m, spec.CollNetChain, spec.Simple, 256<<20, 16, 16, false)
}
