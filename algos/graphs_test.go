package algos

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// graphsOf writes DefaultLayout's orders as the graphs a search would
// return for node 0, so FromGraphs can be checked against it.
func graphsOf(l *Layout) Graphs {
	g := l.NChannels / 2
	ring := &topo.Graph{ID: 0, Pattern: topo.PatternRing, NChannels: g}
	tree := &topo.Graph{ID: 1, Pattern: l.Tree[0].Pattern, NChannels: g}
	chain := &topo.Graph{ID: 2, Pattern: topo.PatternTree, NChannels: g}
	for k := 0; k < g; k++ {
		ring.Intra = append(ring.Intra, l.Ring[k])
		tree.Intra = append(tree.Intra, l.Tree[k].Intra)
		chain.Intra = append(chain.Intra, l.CollNetChain[k])
		if l.NNodes > 1 {
			nd := int64(l.NetDev[k])
			ring.Inter = append(ring.Inter, []int64{nd, nd})
		}
	}
	direct := &topo.Graph{ID: 4, Pattern: topo.PatternCollNetDirect, NChannels: len(l.CollNetHeads)}
	for _, h := range l.CollNetHeads {
		row := []int{h}
		for r := 0; r < l.LocalRanks; r++ {
			if r != h {
				row = append(row, r)
			}
		}
		direct.Intra = append(direct.Intra, row)
	}
	nvls := &topo.Graph{ID: 3, Pattern: topo.PatternNVLS, NChannels: len(l.NVLSHeads)}
	for _, h := range l.NVLSHeads {
		nvls.Intra = append(nvls.Intra, []int{h})
	}
	return Graphs{Ring: ring, Tree: tree, CollNetChain: chain, CollNetDirect: direct, NVLS: nvls,
		Copies: []int{l.NChannels}, NVLSChannels: l.NVLSChannels, MinCompCap: l.MinCompCap}
}

// TestFromGraphsMatchesDefault: graphs holding DefaultLayout's orders give
// DefaultLayout back, on every fixture shape.
func TestFromGraphsMatchesDefault(t *testing.T) {
	for _, sh := range algostest.Shapes {
		for _, nch := range []int{2, 4, 16, 24} {
			want, err := DefaultLayout(spec.V2_28_9, sh.Nodes, sh.LocalRanks, nch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := FromGraphs(spec.V2_28_9, sh.Nodes, sh.LocalRanks, graphsOf(want))
			if err != nil {
				t.Fatalf("%s %d channels: %v", sh.Name, nch, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %d channels:\n got %+v\nwant %+v", sh.Name, nch, got, want)
			}
		}
	}
}

// TestChannelSources follows copyChannels through ncclTopoPostset's steps.
func TestChannelSources(t *testing.T) {
	for _, tc := range []struct {
		searched    int
		copies      []int
		graph, tree []int
	}{
		{2, []int{4}, []int{0, 1, 0, 1}, []int{0, 0, 1, 1}},
		// CollNet half then the sm90 doubling: 4 → 6 → 12.
		{2, []int{4, 6, 12}, []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, []int{0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0}},
		// NCCL_MAX_NCHANNELS cuts, NCCL_MIN_NCHANNELS copies the first channels.
		{3, []int{6, 4, 10}, []int{0, 1, 2, 0, 0, 1, 2, 0, 0, 1}, []int{0, 0, 0, 1, 0, 0, 0, 1, 0, 0}},
		{1, []int{2}, []int{0, 0}, []int{0, 1}},
	} {
		g, w, err := channelSources(tc.searched, tc.copies)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, tc.graph) || !reflect.DeepEqual(w, tc.tree) {
			t.Errorf("searched %d copies %v: graph %v tree %v, want %v %v", tc.searched, tc.copies, g, w, tc.graph, tc.tree)
		}
	}
	for _, copies := range [][]int{nil, {0}, {5}, {4, -1}} {
		if _, _, err := channelSources(2, copies); err == nil {
			t.Errorf("copies %v: expected an error", copies)
		}
	}
}

// TestFromGraphsOrders: a search's own orders (not rotations), global
// ranks of node 1, the tree pattern and the heads carry over, and every
// algorithm builds valid schedules on them.
func TestFromGraphsOrders(t *testing.T) {
	ring := &topo.Graph{Pattern: topo.PatternRing, NChannels: 2,
		Intra: [][]int{{4, 6, 5, 7}, {5, 7, 6, 4}}, Inter: [][]int64{{2, 2}, {3 | 1<<56, 3}}}
	tree := &topo.Graph{Pattern: topo.PatternSplitTree, NChannels: 2,
		Intra: [][]int{{6, 4, 5, 7}, {7, 5, 4, 6}}}
	direct := &topo.Graph{Pattern: topo.PatternCollNetDirect, NChannels: 3,
		Intra: [][]int{{5, 4, 6, 7}, {7, 4, 5, 6}, {5, 4, 6, 7}}}
	nvls := &topo.Graph{Pattern: topo.PatternNVLS, NChannels: 5, Intra: [][]int{{6}, {4}, {6}, {7}, {5}}}
	g := Graphs{Ring: ring, Tree: tree, CollNetDirect: direct, NVLS: nvls, RankBase: 4,
		Copies: []int{4, 8}, NVLSChannels: 16, MinCompCap: 90}
	l, err := FromGraphs(spec.V2_28_9, 3, 4, g)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 2, 1, 3}, {1, 3, 2, 0}, {0, 2, 1, 3}, {1, 3, 2, 0}}; !reflect.DeepEqual(l.Ring[:4], want) {
		t.Errorf("rings %v, want %v", l.Ring[:4], want)
	}
	if !reflect.DeepEqual(l.CollNetChain, l.Ring) {
		t.Errorf("without a CollNet chain graph the chains are the rings: %v", l.CollNetChain)
	}
	if got := []int{l.Tree[0].Which, l.Tree[2].Which, l.Tree[4].Which, l.Tree[7].Which}; !reflect.DeepEqual(got, []int{0, 1, 0, 1}) {
		t.Errorf("trees %v", got)
	}
	if l.Tree[3].Pattern != topo.PatternSplitTree || !reflect.DeepEqual(l.Tree[3].Intra, []int{3, 1, 0, 2}) {
		t.Errorf("tree 3 %+v", l.Tree[3])
	}
	if !reflect.DeepEqual(l.NetDev, []int{2, 3, 2, 3, 2, 3, 2, 3}) {
		t.Errorf("net devices %v", l.NetDev)
	}
	if !reflect.DeepEqual(l.CollNetHeads, []int{1, 3}) || !reflect.DeepEqual(l.NVLSHeads, []int{2, 0, 3, 1}) {
		t.Errorf("heads %v %v", l.CollNetHeads, l.NVLSHeads)
	}
	// SPLIT_TREE: both child nodes hang off Intra[1].
	// Tree[0].Intra is [2 0 1 3]: local 0 is second in the chain.
	for node := 0; node < 3; node++ {
		_, d0, d1, _ := dtree(3, node, 0)
		want := []int{l.Rank(node, 1)}
		for _, d := range []int{d0, d1} {
			if d != -1 {
				want = append(want, l.Rank(d, 2))
			}
		}
		if _, down := l.TreeLinks(0, l.Rank(node, 0)); !reflect.DeepEqual(down, want) {
			t.Errorf("node %d: children of the chain's second GPU %v, want %v", node, down, want)
		}
	}
	for _, c := range algostest.Cases {
		sh := algostest.Shape{Nodes: 3, LocalRanks: 4, Channels: 8}
		if !algostest.Fits(c.Algo, sh) {
			continue
		}
		for _, f := range c.Funcs {
			op := spec.Op{Func: f, Count: 1001, DataType: spec.Float32, RedOp: spec.Sum}
			s, err := Build(op, Selection{Algo: c.Algo, Proto: c.Proto[0], NChannels: 8}, l, Options{})
			if c.Algo == spec.CollNetDirect && f != spec.AllReduce {
				// two CollNet heads for four GPUs: NCCL gives CollNet
				// AllGather/ReduceScatter no bandwidth (1:1 GPU:NIC)
				if err == nil || !strings.Contains(err.Error(), "every local rank") {
					t.Errorf("%s %s with heads %v: error %v, want the 1:1 rule", c.Algo, f, l.CollNetHeads, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s %s: %v", c.Algo, f, err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("%s %s: %v", c.Algo, f, err)
			}
		}
	}
}

// TestFromGraphsRejects names what is wrong with a graph.
func TestFromGraphsRejects(t *testing.T) {
	ok := func() Graphs {
		return Graphs{
			Ring:   &topo.Graph{Pattern: topo.PatternRing, NChannels: 1, Intra: [][]int{{0, 1}}, Inter: [][]int64{{0, 0}}},
			Tree:   &topo.Graph{Pattern: topo.PatternTree, NChannels: 1, Intra: [][]int{{0, 1}}},
			Copies: []int{2},
		}
	}
	if _, err := FromGraphs(spec.V2_28_9, 2, 2, ok()); err != nil {
		t.Fatalf("valid graphs: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Graphs)
		want string
	}{
		{"no ring", func(g *Graphs) { g.Ring = nil }, "ring and tree graphs"},
		{"rank outside the node", func(g *Graphs) { g.Ring.Intra[0] = []int{0, 2} }, "has rank 2"},
		{"short row", func(g *Graphs) { g.Tree.Intra[0] = []int{1} }, "lists 1 GPUs"},
		{"repeated rank", func(g *Graphs) { g.Tree.Intra[0] = []int{1, 1} }, "permutation"},
		{"missing rows", func(g *Graphs) { g.Tree.Intra = nil }, "Intra has 0 rows"},
		{"no NET ids", func(g *Graphs) { g.Ring.Inter = nil }, "needs Inter"},
		{"NET id too large", func(g *Graphs) { g.Ring.Inter[0][0] = 64 }, "NET 64"},
		{"ring pattern for the tree", func(g *Graphs) { g.Tree.Pattern = topo.PatternRing }, "tree graph pattern"},
		{"no copies", func(g *Graphs) { g.Copies = nil }, "no channel counts"},
		{"copies beyond the doubling", func(g *Graphs) { g.Copies = []int{3} }, "doubling"},
		{"too many channels", func(g *Graphs) { g.Copies = []int{2, 80} }, "MAXCHANNELS"},
	} {
		g := ok()
		tc.edit(&g)
		_, err := FromGraphs(spec.V2_28_9, 2, 2, g)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
