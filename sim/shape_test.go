package sim

import (
	"slices"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"pgregory.net/rapid"
)

// drawProgram draws a program of one to three groups from a small
// alphabet (two peer lists, two counts, a few primitives, loops that
// repeat a step with new offsets) so that different programs often come
// close; peers are the lists' identities, the same for every draw.
func drawProgram(t *rapid.T, label string, lists [][]algos.Peer) (steps []algos.Step, ends []int) {
	groups := rapid.IntRange(1, 3).Draw(t, label+"groups")
	for g := 0; g < groups; g++ {
		n := rapid.IntRange(0, 4).Draw(t, label+"steps")
		for i := 0; i < n; i++ {
			prim := rapid.SampledFrom([]algos.Prim{algos.PrimRecvSend, algos.PrimSend, algos.PrimScatter}).Draw(t, label+"prim")
			count := rapid.SampledFrom([]int64{0, 5}).Draw(t, label+"count")
			peers := lists[rapid.IntRange(0, len(lists)-1).Draw(t, label+"peers")]
			st := algos.Step{Prim: prim, Count: count, PreOp: rapid.Bool().Draw(t, label+"preop")}
			switch prim {
			case algos.PrimSend:
				st.Send = peers
			case algos.PrimRecvSend:
				st.Recv, st.Send = peers[:1], peers
			case algos.PrimScatter:
				st.Send = peers
				for range peers {
					st.Pieces = append(st.Pieces, algos.Chunk{Buf: algos.BufInput, Count: count})
				}
			}
			for k := rapid.IntRange(1, 3).Draw(t, label+"loops"); k > 0; k-- {
				st.Src = algos.Chunk{Buf: algos.BufInput, Offset: int64(k) * 64, Count: count}
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
		s1, e1 := drawProgram(t, "p", lists)
		s2, e2 := drawProgram(t, "q", lists)
		sh1, p1 := shapeAndPlan(s1, e1)
		sh2, p2 := shapeAndPlan(s2, e2)
		if !slices.Equal(sh1, sh2) {
			return
		}
		equal++
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
