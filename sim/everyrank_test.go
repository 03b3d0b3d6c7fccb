package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestEveryRankMatchesReduced simulates every rank of a 64-GPU Ring
// AllReduce and of a 32-GPU and a 24-GPU PAT AllGather and ReduceScatter
// (one GPU per node, where NCCL runs PAT; planned once and rotated), of
// Rings of 24 and 40 GPUs whose chunks are uneven, and of a Tree and an
// NVLSTree AllReduce of 40 GPUs (ranks planned from templates), and
// checks that the reduced run (one representative per
// symmetry class) gives the same time, bytes on every class of
// link and network bytes, exactly.
func TestEveryRankMatchesReduced(t *testing.T) {
	for _, c := range []struct {
		name        string
		nodes, gpus int
		f           spec.Func
		algo        spec.Algo
		proto       spec.Proto
		bytes       int64
	}{
		{"Ring 64 GPUs AllReduce", 8, 8, spec.AllReduce, spec.Ring, spec.Simple, 64 << 20},
		{"Ring 64 GPUs AllReduce LL", 8, 8, spec.AllReduce, spec.Ring, spec.LL, 1 << 20},
		{"PAT 32 GPUs AllGather", 32, 1, spec.AllGather, spec.PAT, spec.Simple, 32 << 20},
		{"PAT 32 GPUs ReduceScatter", 32, 1, spec.ReduceScatter, spec.PAT, spec.Simple, 8 << 20},
		{"PAT 24 GPUs AllGather", 24, 1, spec.AllGather, spec.PAT, spec.Simple, 3 << 20},
		{"PAT 24 GPUs ReduceScatter", 24, 1, spec.ReduceScatter, spec.PAT, spec.Simple, 3 << 20},
		// uneven chunks: 24 and 40 ranks do not divide the last loop, so
		// ranks move different chunk sizes and the reduced run keeps them
		// apart
		{"Ring 24 GPUs AllReduce uneven", 3, 8, spec.AllReduce, spec.Ring, spec.Simple, 3<<20 + 28},
		{"Ring 40 GPUs AllReduce uneven LL", 5, 8, spec.AllReduce, spec.Ring, spec.LL, 1<<20 + 4},
		{"Ring 7 GPUs AllReduce uneven, one per node", 7, 1, spec.AllReduce, spec.Ring, spec.Simple, 400012},
		// planned from templates of their programs' shapes
		{"Tree 40 GPUs AllReduce", 5, 8, spec.AllReduce, spec.Tree, spec.Simple, 8<<20 + 12},
		{"NVLSTree 40 GPUs AllReduce", 5, 8, spec.AllReduce, spec.NVLSTree, spec.Simple, 8 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := dgxCluster(c.nodes)
			m.GPUsPerNode = c.gpus
			if c.gpus == 1 {
				m.NICs = 1
			}
			l, err := algos.DefaultLayout(spec.V2_28_9, c.nodes, c.gpus, 4)
			if err != nil {
				t.Fatal(err)
			}
			count := c.bytes / 4
			if c.f == spec.AllGather || c.f == spec.ReduceScatter {
				count /= int64(c.nodes * c.gpus)
			}
			s, err := algos.Build(spec.Op{Func: c.f, Count: count, DataType: spec.Float32}, algos.Selection{Algo: c.algo, Proto: c.proto}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(c.name, "uneven") {
				if _, ok := s.UniformRing(0); ok {
					t.Fatalf("channel 0 is a uniform ring: the chunks are even")
				}
			}
			a, b := reducedAndFull(t, s, m)
			if !maps.Equal(a.LinkBytes, b.LinkBytes) || !maps.Equal(a.MaxLinkBytes, b.MaxLinkBytes) {
				t.Fatalf("link bytes: reduced %v (max %v), every rank %v (max %v)", a.LinkBytes, a.MaxLinkBytes, b.LinkBytes, b.MaxLinkBytes)
			}
			if b.Events < a.Events || (b.Events == a.Events && !strings.Contains(c.name, "uneven")) { // the reduced run did reduce
				t.Fatalf("every rank ran %d events, the reduced run %d", b.Events, a.Events)
			}
		})
	}
}

// Planning one rank of a uniform ring channel, or of a circulant one, for
// all gives every rank the plan planning it alone gives (on an uneven
// Ring AllReduce channel: up to a signature that tells the same ranks
// apart and the slots' usage hashes, which only form groups): Ring AllReduce,
// AllGather and ReduceScatter over sizes whose last loop divides evenly or
// not, on rings of 2 to 24 ranks; PAT AllGather and ReduceScatter on 2 to
// 24 nodes of one GPU (powers of two and not). Ranks of the other
// algorithms planned from a template of their program's shape get the plan
// planning them alone gives too: Tree, CollNet and NVLS on 3 to 9 nodes.
// So do Ring Broadcast and Reduce, planned from the chain's ends and its
// second rank.
func TestUniformRingPlans(t *testing.T) {
	uniform, circulant, templated, uneven, chains := 0, 0, 0, 0, 0
	type shape struct {
		algo        spec.Algo
		nodes, gpus int
	}
	var shapes []shape
	for _, sh := range [][2]int{{1, 2}, {2, 1}, {1, 8}, {3, 8}, {3, 1}} {
		shapes = append(shapes, shape{spec.Ring, sh[0], sh[1]})
	}
	for _, n := range []int{2, 3, 5, 8, 13, 24} {
		shapes = append(shapes, shape{spec.PAT, n, 1})
	}
	for _, a := range []spec.Algo{spec.Tree, spec.CollNetDirect, spec.CollNetChain, spec.NVLS, spec.NVLSTree} {
		for _, sh := range [][2]int{{3, 8}, {9, 4}} {
			shapes = append(shapes, shape{a, sh[0], sh[1]})
		}
	}
	for _, sh := range shapes {
		for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce} {
			if sh.algo == spec.PAT && f != spec.AllGather && f != spec.ReduceScatter {
				continue
			}
			for _, count := range []int64{0, 1, 7, 1 << 10, 24 << 10, 3<<20 + 5, 48 << 20} {
				if sh.algo == spec.PAT && count > 1<<20 {
					continue // PAT runs where its chunks are small; the plans are the same
				}
				if sh.algo != spec.Ring && sh.algo != spec.PAT && count > 4<<20 {
					continue // more loops of the same shapes
				}
				l, err := algos.DefaultLayout(spec.V2_28_9, sh.nodes, sh.gpus, 4)
				if err != nil {
					t.Fatal(err)
				}
				s, err := algos.Build(spec.Op{Func: f, Count: count, DataType: spec.Float32}, algos.Selection{Algo: sh.algo, Proto: spec.Simple}, l, algos.Options{})
				if err != nil && sh.algo != spec.Ring && sh.algo != spec.PAT {
					continue // the collective has no such algorithm
				}
				if err != nil {
					t.Fatal(err)
				}
				for ch := 0; ch < s.NChannels; ch++ {
					if _, ok := s.UniformRing(ch); ok {
						uniform++
					}
					if s.Circulant(ch) {
						circulant++
					}
					full, _, _, _, _ := planChannel(&planner{s: s}, ch, false)
					pl := &planner{s: s}
					fast, circ, _, ring, chain := planChannel(pl, ch, true)
					templated += pl.hits
					if chain != nil {
						chains++
					}
					if circ {
						for r := 1; r < len(full); r++ {
							fast = append(fast, shiftPlan(&fast[0], int32(r), int32(len(full))))
						}
					}
					if ring != nil {
						uneven++
						// an uneven ring's plans are rank 0's with each
						// rank's neighbours and bytes; the signatures tell
						// apart the ranks planning alone tells apart
						for r := range full {
							for q := range r {
								if (full[r].sig == full[q].sig) != (fast[r].sig == fast[q].sig) {
									t.Fatalf("%v %d×%d count %d channel %d: ranks %d and %d alike planned alone: %v, from rank 0: %v", f, sh.nodes, sh.gpus, count, ch, q, r, full[r].sig == full[q].sig, fast[r].sig == fast[q].sig)
								}
							}
							for i := range full[r].slots {
								full[r].slots[i].usage = 0
							}
							for i := range fast[r].slots {
								fast[r].slots[i].usage = 0
							}
							fast[r].sig = full[r].sig
						}
					}
					for r := range full {
						if full[r].sig != fast[r].sig || full[r].ngroups != fast[r].ngroups || !slices.Equal(full[r].slots, fast[r].slots) {
							t.Fatalf("%v %v %d×%d count %d channel %d rank %d: planned alone %+v, from rank 0 %+v", sh.algo, f, sh.nodes, sh.gpus, count, ch, r, full[r], fast[r])
						}
					}
				}
			}
		}
	}
	if uniform == 0 || circulant == 0 || templated == 0 || uneven == 0 || chains == 0 {
		t.Fatalf("%d uniform ring, %d circulant, %d uneven ring and %d chain channels, %d ranks planned from a template: a shortcut was never taken", uniform, circulant, uneven, chains, templated)
	}
}

// TestRefineSeedKeepsPartition: seeding the colour refinement with each
// rank's distance to the rarest colour ends in the partition the plain
// refinement ends in (the seed only gets there in fewer iterations), for
// chains (Ring Broadcast and Reduce), trees, CollNet, NVLS and PAT, and for
// an uneven ring.
func TestRefineSeedKeepsPartition(t *testing.T) {
	for _, c := range []struct {
		name        string
		nodes, gpus int
		f           spec.Func
		algo        spec.Algo
		bytes       int64
	}{
		{"Ring Broadcast", 5, 8, spec.Broadcast, spec.Ring, 4 << 20},
		{"Ring Reduce", 3, 8, spec.Reduce, spec.Ring, 1<<20 + 4},
		{"Ring AllReduce uneven", 3, 8, spec.AllReduce, spec.Ring, 3<<20 + 28},
		{"Tree AllReduce", 9, 4, spec.AllReduce, spec.Tree, 8 << 20},
		{"CollNetDirect AllReduce", 5, 8, spec.AllReduce, spec.CollNetDirect, 8 << 20},
		{"CollNetChain AllReduce", 5, 8, spec.AllReduce, spec.CollNetChain, 8 << 20},
		{"NVLS AllReduce", 5, 8, spec.AllReduce, spec.NVLS, 8 << 20},
		{"NVLSTree AllReduce", 9, 8, spec.AllReduce, spec.NVLSTree, 8 << 20},
		{"PAT AllGather", 13, 1, spec.AllGather, spec.PAT, 13 << 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := dgxCluster(c.nodes)
			m.GPUsPerNode, m.SHARP = c.gpus, true
			if c.gpus == 1 {
				m.NICs = 1
			}
			l, err := algos.DefaultLayout(spec.V2_28_9, c.nodes, c.gpus, 4)
			if err != nil {
				t.Fatal(err)
			}
			count := c.bytes / 4
			if c.f == spec.AllGather {
				count /= int64(c.nodes * c.gpus)
			}
			s, err := algos.Build(spec.Op{Func: c.f, Count: count, DataType: spec.Float32}, algos.Selection{Algo: c.algo, Proto: spec.Simple}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Machine: m}
			a, err := analyze(s, newFabric(&cfg.Machine, newTiming(&cfg, s)), 0)
			if err != nil {
				t.Fatal(err)
			}
			seeded := slices.Clone(a.color)
			for i := range seeded {
				seeded[i] = slices.Clone(a.color[i])
			}
			a.refine(s, 0, false)
			for ci := range a.color {
				if !samePartition(seeded[ci], a.color[ci]) {
					t.Fatalf("class %d: seeded %d colours, plain %d, or the classes differ", ci, countColours(seeded[ci]), countColours(a.color[ci]))
				}
			}
		})
	}
}

// samePartition: x and y group the ranks alike (x[r] = x[q] exactly where
// y[r] = y[q]).
func samePartition(x, y []uint64) bool {
	if len(x) != len(y) {
		return false
	}
	xy, yx := map[uint64]uint64{}, map[uint64]uint64{}
	for r := range x {
		if v, ok := xy[x[r]]; ok && v != y[r] {
			return false
		}
		if v, ok := yx[y[r]]; ok && v != x[r] {
			return false
		}
		xy[x[r]], yx[y[r]] = y[r], x[r]
	}
	return true
}

func countColours(c []uint64) int {
	m := map[uint64]bool{}
	for _, x := range c {
		m[x] = true
	}
	return len(m)
}

// TestUnevenRingRuns: a Ring AllReduce whose chunks are uneven (the last
// loop's chunks run short, then empty), solved in runs of ranks
// (solveRing), gives what simulating every rank in the event loop gives
// (time, link and network bytes), and what the event loop's reduced run
// reports (events, representatives), byte for byte: 64 and 96 GPUs with
// awkward byte counts, one and several loops, Simple and LL, rings of 2,
// 3 and 5 GPUs, one GPU per node.
func TestUnevenRingRuns(t *testing.T) {
	for _, c := range []struct {
		nodes, gpus, nch int
		proto            spec.Proto
		bytes            int64
	}{
		{8, 8, 4, spec.Simple, 1<<20 + 36},
		{12, 8, 4, spec.Simple, 3<<20 + 4},
		{12, 8, 2, spec.Simple, 96*4*1000 + 52},
		{8, 8, 4, spec.LL, 100000 + 12},
		{12, 8, 4, spec.LL128, 1<<20 + 44},
		{8, 8, 2, spec.Simple, 40<<20 + 20}, // several loops, the last uneven
		{1, 2, 2, spec.Simple, 1<<20 + 4},
		{3, 1, 2, spec.Simple, 1<<20 + 4},
		{5, 1, 2, spec.LL, 4096 + 4},
		{4, 8, 4, spec.Simple, 4},
	} {
		name := fmt.Sprintf("%dx%d %v %d ch %d B", c.nodes, c.gpus, c.proto, c.nch, c.bytes)
		t.Run(name, func(t *testing.T) {
			s, m := ringOn(t, c.nodes, c.gpus, c.nch, spec.Op{Func: spec.AllReduce, Count: c.bytes / 4, DataType: spec.Float32}, c.proto, false)
			if !solvedRun(t, s, m, true) {
				t.Fatalf("no channel was solved in runs")
			}
		})
	}
}

// TestPropUnevenRingRuns: over rings of 2 to 48 GPUs (one to eight per
// node), 1 to 4 channels, every protocol and element counts from 1 to a
// few million, solving uneven Ring AllReduce channels in runs gives the
// event loop's reduced run exactly, and its time is every rank's.
func TestPropUnevenRingRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gpus := rapid.SampledFrom([]int{1, 2, 4, 8}).Draw(t, "gpus")
		nodes := rapid.IntRange(1, 6).Draw(t, "nodes")
		if nodes*gpus < 2 {
			nodes = 2
		}
		nch := rapid.IntRange(1, 4).Draw(t, "channels")
		proto := rapid.SampledFrom([]spec.Proto{spec.Simple, spec.LL, spec.LL128}).Draw(t, "proto")
		count := rapid.Int64Range(1, 3<<20).Draw(t, "count")
		s, m := ringOn(t, nodes, gpus, nch, spec.Op{Func: spec.AllReduce, Count: count, DataType: spec.Float32}, proto, false)
		if !solvedRun(t, s, m, nodes*gpus <= 16) {
			t.Skip("every channel's chunks are even")
		}
	})
}

// TestChainRuns: Ring Broadcast and Reduce channels solved as chains
// (solveChain) give the event loop's reduced run exactly (time, link and
// network bytes, events, representatives), and their time is every
// rank's: 16 × 8 GPUs with the root mid-node, one GPU per node, chains of
// two, LL operations whose senders run a FIFO's depth ahead of the
// credits coming back; and, drawn, chains of 2 to 48 GPUs (one to eight per node), any
// root, in place or not, 1 to 4 channels, every protocol and element
// counts from 1 to a few million.
func TestChainRuns(t *testing.T) {
	for _, c := range []chainCase{
		{16, 8, spec.Broadcast, 13, false, 4, spec.Simple, 64 << 20},
		{16, 8, spec.Reduce, 13, true, 4, spec.LL, 8 << 20},
		{4, 8, spec.Broadcast, 0, true, 2, spec.LL128, 32 << 20},
		{4, 8, spec.Reduce, 31, false, 1, spec.Simple, 48<<20 + 4},
		{6, 1, spec.Broadcast, 2, false, 2, spec.LL, 4 << 20},
		{2, 1, spec.Reduce, 1, false, 1, spec.Simple, 16 << 20},
		{1, 2, spec.Broadcast, 0, false, 1, spec.LL, 256<<10 + 4},
		{1, 8, spec.Reduce, 5, false, 2, spec.LL, 1 << 20},
		{3, 8, spec.Broadcast, 9, true, 2, spec.LL128, 2 << 20},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) { checkChain(t, c) })
	}
	rapid.Check(t, func(t *rapid.T) {
		c := chainCase{
			gpus:  rapid.SampledFrom([]int{1, 2, 4, 8}).Draw(t, "gpus"),
			nodes: rapid.IntRange(1, 6).Draw(t, "nodes"),
		}
		if c.nodes*c.gpus < 2 {
			c.nodes = 2
		}
		c.f = rapid.SampledFrom([]spec.Func{spec.Broadcast, spec.Reduce}).Draw(t, "func")
		c.root = rapid.IntRange(0, c.nodes*c.gpus-1).Draw(t, "root")
		c.inPlace = rapid.Bool().Draw(t, "in place")
		c.nch = rapid.IntRange(1, 4).Draw(t, "channels")
		c.proto = rapid.SampledFrom([]spec.Proto{spec.Simple, spec.LL, spec.LL128}).Draw(t, "proto")
		c.bytes = 4 * rapid.Int64Range(1, 3<<20).Draw(t, "count")
		checkChain(t, c)
	})
}

type chainCase struct {
	nodes, gpus int
	f           spec.Func
	root        int
	inPlace     bool
	nch         int
	proto       spec.Proto
	bytes       int64
}

// checkChain is TestChainRuns' comparison of one chain.
func checkChain(t fataler, c chainCase) {
	t.Helper()
	s, m := ringOn(t, c.nodes, c.gpus, c.nch, spec.Op{Func: c.f, Count: c.bytes / 4, DataType: spec.Float32, Root: c.root}, c.proto, c.inPlace)
	if !solvedRun(t, s, m, c.nodes*c.gpus <= 16) {
		t.Fatalf("no channel was solved as a chain")
	}
}

// ringOn builds op's Ring schedule on nch channels of nodes DGX nodes of
// gpus GPUs each (as many NICs as GPUs, up to the node's), and the machine.
func ringOn(t fataler, nodes, gpus, nch int, op spec.Op, proto spec.Proto, inPlace bool) (*algos.Schedule, Machine) {
	t.Helper()
	m := dgxCluster(nodes)
	m.GPUsPerNode = gpus
	if gpus < m.NICs {
		m.NICs = gpus
	}
	l, err := algos.DefaultLayout(spec.V2_28_9, nodes, gpus, nch)
	if err != nil {
		t.Fatal(err)
	}
	s, err := algos.Build(op, algos.Selection{Algo: spec.Ring, Proto: proto, NChannels: nch}, l, algos.Options{InPlace: inPlace})
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

type fataler interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}

// solvedRun simulates s on m with uneven rings and chains solved
// (solveRing, solveChain), checks that the result is the event loop's
// reduced run exactly and, with every set, that simulating every rank
// gives its time, link and network bytes, and reports whether a channel
// was solved.
func solvedRun(t fataler, s *algos.Schedule, m Machine, every bool) bool {
	t.Helper()
	x, err := New(s, Config{Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	solved, err := x.Run()
	if err != nil {
		t.Fatal(err)
	}
	loop, err := Simulate(s, Config{Machine: m, noRingRuns: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(loop, solved); diff != "" {
		t.Fatalf("solved against the event loop's reduced run (-loop +solved):\n%s", diff)
	}
	if every {
		all, err := Simulate(s, Config{Machine: m, NoSymmetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if solved.Time != all.Time || !maps.Equal(solved.LinkBytes, all.LinkBytes) || !maps.Equal(solved.MaxLinkBytes, all.MaxLinkBytes) || solved.NetBytes != all.NetBytes {
			t.Fatalf("solved: %v, %v; every rank: %v, %v", solved.Time, solved.LinkBytes, all.Time, all.LinkBytes)
		}
	}
	return x.solved
}
