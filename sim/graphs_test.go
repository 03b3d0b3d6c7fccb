package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// searchLayout is a layout as a topology search leaves it: orders that are
// not rotations of the local ranks, a SPLIT_TREE, NET devices that do not
// follow the GPUs, heads out of order, channels copied by ncclTopoPostset
// (4 → 6 → 12), on 3 nodes × 4 GPUs.
func searchLayout(t *testing.T) *algos.Layout {
	t.Helper()
	g := algos.Graphs{
		Ring: &topo.Graph{Pattern: topo.PatternRing, NChannels: 2,
			Intra: [][]int{{0, 2, 1, 3}, {1, 3, 2, 0}}, Inter: [][]int64{{2, 2}, {0, 0}}},
		Tree: &topo.Graph{Pattern: topo.PatternSplitTree, NChannels: 2,
			Intra: [][]int{{2, 0, 1, 3}, {3, 1, 0, 2}}},
		CollNetChain: &topo.Graph{Pattern: topo.PatternTree, NChannels: 2,
			Intra: [][]int{{3, 2, 1, 0}, {1, 0, 3, 2}}},
		CollNetDirect: &topo.Graph{Pattern: topo.PatternCollNetDirect, NChannels: 2,
			Intra: [][]int{{1, 0, 2, 3}, {3, 0, 1, 2}}},
		NVLS:   &topo.Graph{Pattern: topo.PatternNVLS, NChannels: 4, Intra: [][]int{{2}, {0}, {3}, {1}}},
		Copies: []int{4, 6, 12}, NVLSChannels: 12, MinCompCap: 90,
	}
	l, err := algos.FromGraphs(spec.V2_28_9, 3, 4, g)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSearchLayouts: schedules on a search's layout give NCCL's results,
// and simulating one representative per symmetry class gives the times
// and network bytes of simulating every rank. The search's two CollNet
// heads for four GPUs rule out CollNet AllGather and ReduceScatter (NCCL's
// 1:1 GPU:NIC rule); they run on a copy whose four heads are out of order.
func TestSearchLayouts(t *testing.T) {
	l := searchLayout(t)
	sh := algostest.Shape{Name: "3 nodes × 4 GPUs", Nodes: 3, LocalRanks: 4, Channels: l.NChannels}
	m := machineFor(sh)
	rng := rand.New(rand.NewPCG(3, 4))
	allHeads := *l
	allHeads.CollNetHeads = []int{1, 3, 0, 2}
	run := func(l *algos.Layout, a spec.Algo, f spec.Func, p spec.Proto) {
		op := spec.Op{Func: f, Count: 3001, DataType: spec.Float32, RedOp: spec.Sum, Root: 5}
		s, err := algos.Build(op, algos.Selection{Algo: a, Proto: p, NChannels: l.NChannels}, l, algos.Options{})
		if err != nil {
			t.Fatalf("%s %s %s: %v", a, f, p, err)
		}
		v, err := Verify(s, randomInputs(rng, s), nil)
		if err != nil || !v.OK {
			t.Fatalf("%s %s %s: %v %v", a, f, p, err, v)
		}
		op.Count = 1 << 18
		if f == spec.AllGather || f == spec.ReduceScatter {
			op.Count /= int64(s.NRanks)
		}
		if s, err = algos.Build(op, algos.Selection{Algo: a, Proto: p, NChannels: l.NChannels}, l, algos.Options{}); err != nil {
			t.Fatal(err)
		}
		x, err := Simulate(s, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		y, err := Simulate(s, Config{Machine: m, NoSymmetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if x.Time != y.Time || x.NetBytes != y.NetBytes {
			t.Errorf("%s %s %s: symmetry %v vs every rank %v (net bytes %d vs %d)", a, f, p, x.Time, y.Time, x.NetBytes, y.NetBytes)
		}
	}
	for _, c := range algostest.Cases {
		if !algostest.Fits(c.Algo, sh) {
			continue
		}
		for _, f := range c.Funcs {
			for _, p := range c.Proto {
				if c.Algo == spec.CollNetDirect && f != spec.AllReduce {
					run(&allHeads, c.Algo, f, p)
					continue
				}
				run(l, c.Algo, f, p)
			}
		}
	}
}
