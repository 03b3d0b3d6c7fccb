package sim

import (
	"slices"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"pgregory.net/rapid"
)

// run is a loop of one step repeated with new offsets, in group g.
type run struct {
	prim   algos.Prim
	count  int64
	peers  int
	preOp  bool
	passes int
	g      int
}

// drawRuns draws a program of one to three groups from a small alphabet
// (three peer lists, two counts, three primitives, loops of 1–3 passes).
func drawRuns(t *rapid.T) []run {
	var rs []run
	for g := rapid.IntRange(1, 3).Draw(t, "groups") - 1; g >= 0; g-- {
		for i := rapid.IntRange(0, 4).Draw(t, "steps"); i > 0; i-- {
			rs = append(rs, run{
				prim:   rapid.SampledFrom([]algos.Prim{algos.PrimRecvSend, algos.PrimSend, algos.PrimScatter}).Draw(t, "prim"),
				count:  rapid.SampledFrom([]int64{0, 5}).Draw(t, "count"),
				peers:  rapid.IntRange(0, 2).Draw(t, "peers"),
				preOp:  rapid.Bool().Draw(t, "preop"),
				passes: rapid.IntRange(1, 3).Draw(t, "passes"),
				g:      g,
			})
		}
	}
	return rs
}

// program lays runs out as steps (offsets moved by shift) and group ends.
func program(rs []run, lists [][]algos.Peer, shift int64) (steps []algos.Step, ends []int) {
	groups := 0
	for _, r := range rs {
		groups = max(groups, r.g+1)
	}
	for g := groups - 1; g >= 0; g-- {
		for _, r := range rs {
			if r.g != g {
				continue
			}
			peers := lists[r.peers]
			st := algos.Step{Prim: r.prim, Count: r.count, PreOp: r.preOp}
			switch r.prim {
			case algos.PrimSend:
				st.Send = peers
			case algos.PrimRecvSend:
				st.Recv, st.Send = peers[:1], peers
			case algos.PrimScatter:
				st.Send = peers
				for range peers {
					st.Pieces = append(st.Pieces, algos.Chunk{Buf: algos.BufInput, Count: r.count})
				}
			}
			for k := 0; k < r.passes; k++ {
				st.Src = algos.Chunk{Buf: algos.BufInput, Offset: shift + int64(k)*64, Count: r.count}
				steps = append(steps, st)
			}
		}
		ends = append(ends, len(steps))
	}
	return steps, ends
}

// shapeAndPlan is the shape of a program and its plan made alone.
func shapeAndPlan(steps []algos.Step, ends []int) ([]int64, rankPlan) {
	pl := &planner{s: &algos.Schedule{}, steps: steps, ends: ends}
	pl.gen++
	var rp rankPlan
	pl.shapeOf(&rp)
	sh := slices.Clone(pl.shape)
	pl.gen++
	pl.lastPeers = [2]*algos.Peer{}
	return sh, pl.planSteps(rankPlan{})
}

// TestShapeRunsAreExact: a shape writes a repeated step once with a run
// count; two programs with equal shapes must still have equal plans (what
// makes planning a rank from a template exact), and a loop whose steps
// differ in offsets alone must have the shape of its first pass.
func TestShapeRunsAreExact(t *testing.T) {
	equal := 0
	rapid.Check(t, func(t *rapid.T) {
		a, b := algos.RankPeer(1), algos.RankPeer(2)
		lists := [][]algos.Peer{{a, b}, {b}, {a}}
		rs := drawRuns(t)
		// the second program: the first with its offsets moved, or with
		// one run changed
		qs := slices.Clone(rs)
		if len(qs) > 0 {
			i := rapid.IntRange(0, len(qs)-1).Draw(t, "edit")
			switch rapid.IntRange(0, 4).Draw(t, "how") {
			case 1:
				qs[i].count = 5 - qs[i].count
			case 2:
				qs[i].passes = 1 + qs[i].passes%3
			case 3:
				qs[i].peers = (qs[i].peers + 1) % len(lists)
			case 4:
				qs[i].g = max(0, qs[i].g-1)
			}
		}
		sh1, p1 := shapeAndPlan(program(rs, lists, 0))
		sh2, p2 := shapeAndPlan(program(qs, lists, 8))
		if !slices.Equal(sh1, sh2) {
			return
		}
		equal++
		// equal up to the peers' identities
		for i := range min(len(p1.slots), len(p2.slots)) {
			p1.slots[i].peer, p2.slots[i].peer = algos.Peer{}, algos.Peer{}
		}
		if p1.sig != p2.sig || p1.ngroups != p2.ngroups || !slices.Equal(p1.slots, p2.slots) {
			t.Fatalf("equal shapes %v, different plans:\n%+v\n%+v", sh1, p1, p2)
		}
	})
	if equal == 0 {
		t.Fatal("no two drawn programs had one shape: the property never ran")
	}
	// a loop of three passes, two, and three with a different last count
	loop := func(counts ...int64) []algos.Step {
		peers := []algos.Peer{algos.RankPeer(1)}
		var st []algos.Step
		for i, c := range counts {
			st = append(st, algos.Step{Prim: algos.PrimSend, Send: peers, Count: c, Src: algos.Chunk{Buf: algos.BufInput, Offset: int64(i) * 8, Count: c}})
		}
		return st
	}
	three, _ := shapeAndPlan(loop(8, 8, 8), []int{3})
	two, _ := shapeAndPlan(loop(8, 8), []int{2})
	last, _ := shapeAndPlan(loop(8, 8, 3), []int{3})
	moved, _ := shapeAndPlan(loop(8, 8, 8), []int{1, 3})
	for _, c := range []struct {
		name string
		sh   []int64
	}{{"two passes", two}, {"a shorter last pass", last}, {"a group end inside the loop", moved}} {
		if slices.Equal(three, c.sh) {
			t.Errorf("%s: the shape of three passes, %v", c.name, three)
		}
	}
	if n := len(three); n > 6 {
		t.Errorf("three passes of one step take %d elements (%v): the repeats were not folded", n, three)
	}
}

// TestFlowSetMerges: flows added rank by rank get one id per distinct
// path with the path's summed weight, whether a path is found among its
// owner's (it holds the current rank's GPU link), by its one link, or
// among the foreign ones, including a path added both as its owner's and,
// at another rank, as a foreign one (merge folds the two).
func TestFlowSetMerges(t *testing.T) {
	merged := 0
	rapid.Check(t, func(t *rapid.T) {
		m := &Machine{Nodes: 2, GPUsPerNode: 2, NICs: 1}
		f := &fabric{m: m, perNode: m.GPUsPerNode*gpuLinks + 2*m.NICs}
		f.cap = make([]int64, f.perNode*m.Nodes)
		nl := int32(len(f.cap))
		fs := newFlowSet(f, rapid.IntRange(0, 4).Draw(t, "hint"), rapid.IntRange(0, 4).Draw(t, "perRank"))
		type added struct {
			path [6]int32
			w    int64
		}
		var adds []added
		var ids []int32
		ranks := m.Nodes * m.GPUsPerNode
		for r := 0; r < ranks; r++ {
			fs.beginRank(r)
			for i := rapid.IntRange(0, 12).Draw(t, "flows"); i > 0; i-- {
				n := rapid.IntRange(1, 3).Draw(t, "links")
				path := make([]int32, n)
				for j := range path {
					path[j] = rapid.Int32Range(0, nl-1).Draw(t, "link")
				}
				w := rapid.Int64Range(0, 3).Draw(t, "w")
				k := [6]int32{-1, -1, -1, -1, -1, -1}
				copy(k[:], path)
				adds = append(adds, added{k, w})
				ids = append(ids, fs.add(path, w))
			}
		}
		if to := fs.merge(); to != nil {
			merged++
			for i, id := range ids {
				ids[i] = to[id]
			}
		}
		want := map[[6]int32]int64{}
		idOf := map[[6]int32]int32{}
		for i, a := range adds {
			want[a.path] += a.w
			if fs.paths[ids[i]] != a.path {
				t.Fatalf("add %d of %v: flow %d has path %v", i, a.path, ids[i], fs.paths[ids[i]])
			}
			if id, ok := idOf[a.path]; ok && id != ids[i] {
				t.Fatalf("path %v has flows %d and %d", a.path, id, ids[i])
			}
			idOf[a.path] = ids[i]
		}
		if len(fs.paths) != len(want) {
			t.Fatalf("%d flows for %d distinct paths", len(fs.paths), len(want))
		}
		for p, w := range want {
			if fs.weight[idOf[p]] != w {
				t.Fatalf("path %v: weight %d, want %d", p, fs.weight[idOf[p]], w)
			}
		}
	})
	if merged == 0 {
		t.Fatal("no draw added a foreign path: merge never ran")
	}
}
