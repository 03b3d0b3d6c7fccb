package sim

import (
	"maps"
	"slices"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// TestEveryRankMatchesReduced simulates every rank of a 64-GPU Ring
// AllReduce and of a 32-GPU PAT AllGather (one GPU per node, where NCCL
// runs PAT) and checks that the reduced run (one representative per
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
			a, b := reducedAndFull(t, s, m)
			if !maps.Equal(a.LinkBytes, b.LinkBytes) || !maps.Equal(a.MaxLinkBytes, b.MaxLinkBytes) {
				t.Fatalf("link bytes: reduced %v (max %v), every rank %v (max %v)", a.LinkBytes, a.MaxLinkBytes, b.LinkBytes, b.MaxLinkBytes)
			}
			if b.Events <= a.Events { // the reduced run did reduce
				t.Fatalf("every rank ran %d events, the reduced run %d", b.Events, a.Events)
			}
		})
	}
}

// Planning one rank of a uniform ring channel for all gives every rank the
// plan planning it alone gives: Ring AllReduce, AllGather and
// ReduceScatter over sizes whose last loop divides evenly or not, on
// rings of 2 to 24 ranks.
func TestUniformRingPlans(t *testing.T) {
	uniform := 0
	for _, shape := range [][2]int{{1, 2}, {2, 1}, {1, 8}, {3, 8}, {3, 1}} {
		for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast} {
			for _, count := range []int64{0, 1, 7, 1 << 10, 24 << 10, 3<<20 + 5, 48 << 20} {
				l, err := algos.DefaultLayout(spec.V2_28_9, shape[0], shape[1], 4)
				if err != nil {
					t.Fatal(err)
				}
				s, err := algos.Build(spec.Op{Func: f, Count: count, DataType: spec.Float32}, algos.Selection{Algo: spec.Ring, Proto: spec.Simple}, l, algos.Options{})
				if err != nil {
					t.Fatal(err)
				}
				for ch := 0; ch < s.NChannels; ch++ {
					if _, ok := s.UniformRing(ch); ok {
						uniform++
					}
					full := planChannel(&planner{s: s}, ch, false)
					fast := planChannel(&planner{s: s}, ch, true)
					for r := range full {
						if full[r].sig != fast[r].sig || full[r].ngroups != fast[r].ngroups || !slices.Equal(full[r].slots, fast[r].slots) {
							t.Fatalf("%v %d×%d count %d channel %d rank %d: planned alone %+v, from rank 0 %+v", f, shape[0], shape[1], count, ch, r, full[r], fast[r])
						}
					}
				}
			}
		}
	}
	if uniform == 0 {
		t.Fatal("no channel was uniform: the shortcut was never taken")
	}
}
