package sim

import (
	"fmt"
	"testing"

	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
)

// TestRankTraceMatchesEveryRank: the per-rank lanes expanded from the
// representatives are the timelines of a simulation of every rank.
func TestRankTraceMatchesEveryRank(t *testing.T) {
	cases := []timingCase{
		{algostest.Shapes[6], spec.Tree, spec.AllReduce, spec.Simple, 4 << 20},
		{algostest.Shapes[6], spec.Ring, spec.AllReduce, spec.LL, 1 << 20},
		{algostest.Shapes[3], spec.Ring, spec.AllGather, spec.Simple, 8 << 20},
		{algostest.Shapes[9], spec.Ring, spec.ReduceScatter, spec.LL128, 9 << 20},
	}
	type slice struct {
		step, slice int
		prim        string
		start, end  Time
		bytes       int64
	}
	for _, tc := range cases {
		s := tc.schedule(t, spec.Float32)
		sym, err := New(s, Config{Machine: machineFor(tc.sh), Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		every, err := New(s, Config{Machine: machineFor(tc.sh), Trace: true, NoSymmetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sym.Run(); err != nil {
			t.Fatal(err)
		}
		if _, err := every.Run(); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s %s %s on %s", tc.algo, tc.f, tc.proto, tc.sh.Name)
		if sym.TraceDropped() != 0 || every.TraceDropped() != 0 {
			t.Fatalf("%s: slices dropped", name)
		}
		type lane struct{ ci, rank int }
		truth := map[lane][]slice{}
		for _, e := range every.Trace() {
			k := lane{e.Class, e.Rank}
			truth[k] = append(truth[k], slice{e.Step, e.Slice, e.Prim.String(), e.Start, e.End, e.Bytes})
		}
		var all []int
		for r := 0; r < s.NRanks; r++ {
			all = append(all, r)
		}
		got := map[[2]int][]slice{}
		for _, e := range sym.RankTrace(all) {
			k := [2]int{e.Rank, e.Channel}
			got[k] = append(got[k], slice{e.Step, e.Slice, e.Prim.String(), e.Start, e.End, e.Bytes})
		}
		for r := 0; r < s.NRanks; r++ {
			for c := 0; c < s.NChannels; c++ {
				ci, q := every.Lane(c, r)
				want := truth[lane{ci, q}]
				g := got[[2]int{r, c}]
				if len(want) == 0 || fmt.Sprint(g) != fmt.Sprint(want) {
					t.Errorf("%s: rank %d channel %d: %d slices from the representatives, %d simulated", name, r, c, len(g), len(want))
				}
			}
		}
		// weights count every lane once: summed they give the lanes' bytes
		var lanesBytes, weighted int64
		for _, e := range sym.RankTrace(all) {
			lanesBytes += e.Bytes
		}
		for _, e := range sym.WeightedTrace() {
			weighted += e.Bytes * e.Weight
		}
		if lanesBytes != weighted {
			t.Errorf("%s: weighted bytes %d, lanes' bytes %d", name, weighted, lanesBytes)
		}
	}
}
