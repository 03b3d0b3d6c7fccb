package tuning

import (
	"slices"
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestAllGatherVBudget: an AllGatherV plan takes one broadcast per root
// while nChannels × ⌈n/64⌉ work batches fit the 4,064 bytes of kernel
// arguments and n stays below the 340 works of sm90's batch storage. On 64
// channels a group of 200 roots splits 192 + 8; on 32 channels the storage
// binds first (400 roots: 340 + 60), and 200 roots fit one plan.
// Ref: v2.29.2-1 src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan; src/enqueue.cc ncclTestBudget
func TestAllGatherVBudget(t *testing.T) {
	cases := []struct {
		v         nccl.Version
		nChannels int
		roots     int
		perPlan   []int // broadcasts in each AllGatherV plan
	}{
		{nccl.V2_29_2, 64, 200, []int{192, 8}},
		{nccl.V2_30_7, 64, 200, []int{192, 8}},
		{nccl.V2_29_2, 64, 192, []int{192}},
		{nccl.V2_29_2, 64, 384, []int{192, 192}},
		{nccl.V2_29_2, 32, 200, []int{200}},
		{nccl.V2_29_2, 32, 400, []int{340, 60}},
	}
	for _, tc := range cases {
		in := tuningMultiNodeInput(nccl.DivUp(tc.roots, 8), 8)
		in.NChannels = tc.nChannels
		m := tuningModel(t, in, tc.v)
		ops := make([]Call, tc.roots)
		for r := range ops {
			ops[r] = Call{Op: Op{Func: Broadcast, Count: 1 << 20, DataType: Int8, Root: r}}
		}
		g, err := ChooseGroup(m, ops)
		if err != nil {
			t.Fatal(err)
		}
		if g.Err != nil {
			t.Fatalf("%s %d channels %d roots: %v", tc.v, tc.nChannels, tc.roots, g.Err)
		}
		var got []int
		for i, ch := range g.Ops {
			if ch.SidePath != "allgatherv" {
				t.Fatalf("broadcast %d: side path %q, want allgatherv", i, ch.SidePath)
			}
			for len(got) <= ch.Plan {
				got = append(got, 0)
			}
			got[ch.Plan]++
		}
		if g.Plans != len(tc.perPlan) || !slices.Equal(got, tc.perPlan) {
			t.Errorf("%s %d channels %d roots: %d plans of %v broadcasts, want %v", tc.v, tc.nChannels, tc.roots, g.Plans, got, tc.perPlan)
		}
	}
}
