package algos

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenCase is one small schedule (4 ranks, 2 channels) kept as text in
// testdata/golden, reviewed by hand.
type goldenCase struct {
	name         string
	nodes, local int
	op           spec.Op
	sel          Selection
	inPlace      bool
}

func goldenCases() []goldenCase {
	f32 := func(f spec.Func, count int64, root int) spec.Op {
		return spec.Op{Func: f, Count: count, DataType: spec.Float32, RedOp: spec.Sum, Root: root}
	}
	simple := func(a spec.Algo) Selection { return Selection{Algo: a, Proto: spec.Simple, NChannels: 2} }
	return []goldenCase{
		{"ring_allreduce_simple", 1, 4, f32(spec.AllReduce, 8192, 0), simple(spec.Ring), false},
		{"ring_allreduce_ll", 1, 4, f32(spec.AllReduce, 8192, 0), Selection{Algo: spec.Ring, Proto: spec.LL, NChannels: 2}, false},
		{"ring_allreduce_ll128_inplace", 1, 4, f32(spec.AllReduce, 8192, 0), Selection{Algo: spec.Ring, Proto: spec.LL128, NChannels: 2}, true},
		{"ring_allgather_simple", 1, 4, f32(spec.AllGather, 2048, 0), simple(spec.Ring), false},
		{"ring_reducescatter_simple", 1, 4, f32(spec.ReduceScatter, 2048, 0), simple(spec.Ring), false},
		{"ring_broadcast_simple", 1, 4, f32(spec.Broadcast, 8192, 2), simple(spec.Ring), false},
		{"ring_reduce_simple", 1, 4, f32(spec.Reduce, 16384, 1), simple(spec.Ring), false},
		{"tree_allreduce_simple", 2, 2, f32(spec.AllReduce, 8192, 0), simple(spec.Tree), false},
		{"collnetchain_allreduce", 2, 2, f32(spec.AllReduce, 32768, 0), simple(spec.CollNetChain), false},
		{"collnetdirect_allreduce", 2, 2, f32(spec.AllReduce, 32768, 0), simple(spec.CollNetDirect), false},
		{"nvls_allreduce", 1, 4, f32(spec.AllReduce, 32768, 0), simple(spec.NVLS), false},
		{"nvls_allgather", 1, 4, f32(spec.AllGather, 4096, 0), simple(spec.NVLS), false},
		{"nvls_reducescatter", 1, 4, f32(spec.ReduceScatter, 4096, 0), simple(spec.NVLS), false},
		{"nvlstree_allreduce", 2, 2, f32(spec.AllReduce, 16384, 0), simple(spec.NVLSTree), false},
		// NVLS with SHARP across nodes and CollNetDirect AllGather /
		// ReduceScatter: counts chosen so that windows cross the node
		// boundary of the rail space and the last strides are partial
		{"nvls_sharp_allreduce", 2, 2, f32(spec.AllReduce, 30000, 0), simple(spec.NVLS), false},
		{"nvls_sharp_allgather", 2, 2, f32(spec.AllGather, 3000, 0), simple(spec.NVLS), false},
		{"nvls_sharp_reducescatter", 2, 2, f32(spec.ReduceScatter, 3000, 0), simple(spec.NVLS), false},
		{"collnetdirect_allgather", 2, 2, f32(spec.AllGather, 6000, 0), simple(spec.CollNetDirect), false},
		{"collnetdirect_reducescatter", 2, 2, f32(spec.ReduceScatter, 6000, 0), simple(spec.CollNetDirect), false},
		{"pat_allgather", 4, 1, f32(spec.AllGather, 2048, 0), simple(spec.PAT), false},
		{"pat_reducescatter", 4, 1, f32(spec.ReduceScatter, 2048, 0), simple(spec.PAT), false},
		{"sendrecv_simple", 1, 4, f32(spec.SendRecv, 8192, 0), simple(spec.Ring), false},
		// p2p: 16 KiB per peer (LL); the self copy, three peers in one batch
		{"alltoall", 1, 4, f32(spec.AllToAll, 4096, 0), Selection{}, false},
	}
}

func (gc goldenCase) build(t *testing.T) *Schedule {
	t.Helper()
	l, err := DefaultLayout(spec.V2_28_9, gc.nodes, gc.local, 2)
	if err != nil {
		t.Fatal(err)
	}
	l.NVLSChannels = 2
	s, err := Build(gc.op, gc.sel, l, Options{InPlace: gc.inPlace})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGoldenSchedules compares every generator's small schedule with its
// golden file (go test ./algos -update rewrites them; review the diff),
// and checks that the text parses back to the same text.
func TestGoldenSchedules(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			s := gc.build(t)
			if s.NRanks != 4 || s.NChannels != 2 {
				t.Fatalf("golden case has %d ranks and %d channels: expected 4 and 2", s.NRanks, s.NChannels)
			}
			var b bytes.Buffer
			if err := s.Format(&b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", gc.name+".txt")
			if !goldenfile.Check(t, path, b.String(), *update) {
				return
			}
			want := b.Bytes()
			p, err := Parse(bytes.NewReader(want), path)
			if err != nil {
				t.Fatal(err)
			}
			var b2 bytes.Buffer
			if err := p.Format(&b2); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b2.Bytes(), want) {
				t.Errorf("%s does not round-trip (-want +got):\n%s", path, goldenfile.Diff(string(want), b2.String()))
			}
		})
	}
}
