package tuning

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// symRangeRun lays tasks of the given elements (cellElts a cell) over
// blocks and decodes them.
func symRangeRun(elts []int64, cellElts int64, blocks int, last bool, mode symFusion, ownEnds bool) ([][]SymPart, int) {
	cells := make([]int64, len(elts))
	works := make([]symWork, len(elts))
	var total int64
	for i, e := range elts {
		cells[i] = (e + cellElts - 1) / cellElts
		works[i].elts = e
		total += cells[i] * cellElts
	}
	per := ((total+int64(blocks)-1)/int64(blocks) + cellElts - 1) / cellElts
	frac := make([]symFrac, blocks)
	used := symLayout(cells, works, frac, per, last)
	parts := make([][]SymPart, len(elts))
	symDecode(frac, works, used, cellElts, mode, ownEnds, parts)
	return parts, used
}

// TestSymRangeSplit: hand-worked layouts of ncclSymmetricTaskScheduler and
// the kernel's decode (cells of 1 element, so offsets count cells).
func TestSymRangeSplit(t *testing.T) {
	for _, c := range []struct {
		name    string
		elts    []int64
		blocks  int
		mode    symFusion
		ownEnds bool
		used    int
		want    [][]SymPart
	}{
		// 10 cells, 3 per block: the blocks share the task
		{"one task shared", []int64{10}, 4, symFused, true, 4, [][]SymPart{{{CTALo: 0, CTAHi: 3, Bytes: 10}}}},
		// an LL kernel's blocks each take their own cells
		{"one task LL", []int64{10}, 4, symSingle, true, 4, [][]SymPart{{
			{CTALo: 0, CTAHi: 0, Bytes: 3}, {CTALo: 1, CTAHi: 1, Offset: 3, Bytes: 3},
			{CTALo: 2, CTAHi: 2, Offset: 6, Bytes: 3}, {CTALo: 3, CTAHi: 3, Offset: 9, Bytes: 1}}}},
		// 5 + 2 cells, 4 per block: task 0's tail shares block 1 with task 1,
		// which owns block 1 and starts at its own element 0
		{"tail beside a task", []int64{5, 2}, 2, symFused, true, 2, [][]SymPart{
			{{CTALo: 0, CTAHi: 0, Bytes: 4}, {CTALo: 1, CTAHi: 1, Offset: 4, Bytes: 1}},
			{{CTALo: 1, CTAHi: 1, Bytes: 2}}}},
		// 2.28.3 starts task 1 after task 0's fraction in block 0: ⌊52429 × 2
		// / 65536⌋ = 1 cell of task 1 is never moved
		{"tail beside a task 2.28.3", []int64{5, 2}, 2, symFused, false, 2, [][]SymPart{
			{{CTALo: 0, CTAHi: 0, Bytes: 4}, {CTALo: 1, CTAHi: 1, Offset: 4, Bytes: 1}},
			{{CTALo: 1, CTAHi: 1, Offset: 1, Bytes: 1}}}},
		// 200001 cells over 3 blocks, 66667 each: the 16-bit fractions give
		// block 0 66669 cells, blocks 1 and 2 66666 (a GIN kernel: no sharing)
		{"rounded fractions", []int64{200001}, 3, symNoFusion, true, 3, [][]SymPart{{
			{CTALo: 0, CTAHi: 0, Bytes: 66669}, {CTALo: 1, CTAHi: 1, Offset: 66669, Bytes: 66666},
			{CTALo: 2, CTAHi: 2, Offset: 133335, Bytes: 66666}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts, used := symRangeRun(c.elts, 1, c.blocks, true, c.mode, c.ownEnds)
			if used != c.used {
				t.Errorf("%d blocks used, want %d", used, c.used)
			}
			if d := cmp.Diff(c.want, parts); d != "" {
				t.Errorf("parts (-want +got):\n%s", d)
			}
		})
	}
}

// TestSymRangeCoverRapid: from 2.28.7, across the tasks of one plan, the
// blocks' pieces cover each task's elements exactly once, every shared
// range is reached by all its blocks, and the launch is the blocks the
// cells fill.
func TestSymRangeCoverRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cellElts := rapid.SampledFrom([]int64{1024, 512, 256, 128}).Draw(rt, "cellElts")
		n := rapid.IntRange(1, 12).Draw(rt, "tasks")
		elts := make([]int64, n)
		for i := range elts {
			hi := int64(64) * cellElts
			if rapid.Bool().Draw(rt, "big") {
				hi = 300000 * cellElts // beyond the fraction's 65536 steps
			}
			elts[i] = rapid.Int64Range(1, hi).Draw(rt, "elts")
		}
		blocks := rapid.IntRange(1, symMaxBlocks).Draw(rt, "blocks")
		mode := symFused
		if rapid.Bool().Draw(rt, "noFusion") {
			mode = symNoFusion
		}
		parts, used := symRangeRun(elts, cellElts, blocks, rapid.Bool().Draw(rt, "last"), mode, true)
		var cells int64
		for _, e := range elts {
			cells += (e + cellElts - 1) / cellElts
		}
		per := ((cells*cellElts+int64(blocks)-1)/int64(blocks) + cellElts - 1) / cellElts
		if want := int((cells + per - 1) / per); used != want {
			rt.Fatalf("%d blocks launched, want %d", used, want)
		}
		for w, ps := range parts {
			ps = slices.Clone(ps)
			slices.SortFunc(ps, func(a, b SymPart) int { return int(a.Offset - b.Offset) })
			var at int64
			for _, p := range ps {
				if p.Offset != at || p.Bytes <= 0 || p.Missing != 0 || p.CTALo > p.CTAHi || p.CTAHi >= used {
					rt.Fatalf("task %d (%d elements): parts %+v", w, elts[w], parts[w])
				}
				at += p.Bytes
			}
			if at != elts[w] {
				rt.Fatalf("task %d: parts cover %d of %d elements: %+v", w, at, elts[w], parts[w])
			}
		}
	})
}

// TestSymRangeLoadRapid: the busiest block moves at most cellPerChannel
// cells, one more (a fused tail's block also takes up to one cell of the
// next task) and the rounding of its end's 16-bit fraction
// (⌊(cells−1)/65536⌋ cells of the largest task); together the blocks hold
// every byte. 2.28.3 reads a block's end with its first task's cells: on
// tasks of different cells a block may move up to the largest task more,
// and bytes are skipped.
func TestSymRangeLoadRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		const cellElts = 1024
		n := rapid.IntRange(1, 12).Draw(rt, "tasks")
		equal := rapid.Bool().Draw(rt, "equal")
		elts := make([]int64, n)
		for i := range elts {
			hi := int64(64 * cellElts)
			if rapid.Bool().Draw(rt, "big") {
				hi = 300000 * cellElts // beyond the fraction's 65536 steps
			}
			elts[i] = rapid.Int64Range(1, hi).Draw(rt, "elts")
			if equal {
				elts[i] = elts[0]
			}
		}
		blocks := rapid.IntRange(1, symMaxBlocks).Draw(rt, "blocks")
		ownEnds := rapid.Bool().Draw(rt, "ownEnds")
		mode := symFused
		if rapid.Bool().Draw(rt, "noFusion") {
			mode = symNoFusion
		}
		parts, _ := symRangeRun(elts, cellElts, blocks, rapid.Bool().Draw(rt, "last"), mode, ownEnds)
		load := make([]int64, blocks)
		for _, p := range parts {
			symCTAShare(p, load)
		}
		var cells, total, most, rounding int64
		for _, e := range elts {
			c := (e + cellElts - 1) / cellElts
			cells, total = cells+c, total+e
			most, rounding = max(most, c), max(rounding, (c-1)>>16)
		}
		bound := (cells+int64(blocks)-1)/int64(blocks) + 1 + rounding
		if !ownEnds && !equal {
			bound += most
		}
		busiest := slices.Max(load)
		if busiest > bound*cellElts || (ownEnds || n == 1) && busiest*int64(blocks) < total {
			rt.Fatalf("busiest block %d elements, bound %d cells of %d; %d elements over %d blocks: %+v", busiest, bound, cellElts, total, blocks, parts)
		}
	})
}
