package golden

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/spec"
)

// TestP2PPlansGolden records, per release, the kernel plans a group of
// AllToAlls of 1 MiB a peer fills (G-SCHED-P2P-1 with G-SCHED-BUDGET-1:
// scheduleP2pTasksToPlan tests the plan budget before each send/recv work
// and starts a new plan when it is full; from 2.29.7 the new plan resumes
// at the round that did not fit; derived from NCCL's ncclLaunchPrepare,
// scheduleP2pTasksToPlan and addWorkBatchToPlan at each tag): rank 0's
// tasks per plan for each AllToAll, on one DGX H100 and on 32 (NVLS off),
// behind an AllReduce of 1 MiB whose plan they share. Before 2.22.3 every
// task lands in the collective's plan. Regenerate with
// go test ./golden -run TestP2PPlansGolden -update and review the diff.
func TestP2PPlansGolden(t *testing.T) {
	a2a, err := spec.OpFromBytes(spec.AllToAll, 1<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	type load struct {
		name  string
		nodes int
		n     int
	}
	loads := []load{{"1 node, AllReduce + 8 AllToAll", 1, 8}, {"1 node, AllReduce + 16 AllToAll", 1, 16}, {"32 nodes, AllReduce + 16 AllToAll", 32, 16}}
	systems := map[int]*spec.System{}
	for _, l := range loads {
		if systems[l.nodes] == nil {
			if systems[l.nodes], err = spec.Preset("dgx-h100", spec.PresetOptions{Nodes: l.nodes}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b strings.Builder
	b.WriteString("# An AllReduce and N AllToAlls of 1 MiB a peer in one group on DGX H100 nodes (NCCL_NVLS_ENABLE=0)\n")
	b.WriteString("# load: plans; per AllToAll its rank-0 tasks per plan (plan:tasks), runs of equal AllToAlls folded (×k)\n")
	for _, v := range spec.Releases {
		fmt.Fprintf(&b, "\n## %s\n", v)
		for _, l := range loads {
			c, err := spec.Init(spec.MustLoad(v), systems[l.nodes], spec.Env{"NCCL_NVLS_ENABLE": "0"})
			if err != nil {
				t.Fatal(err)
			}
			ops := []spec.GroupOp{{Op: ar}}
			for range l.n {
				ops = append(ops, spec.GroupOp{Op: a2a})
			}
			g, err := c.SelectGroup(ops, spec.Launch{})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s: %d plan(s);", l.name, g.Plans)
			prev, run := "", 0
			flush := func() {
				if run > 0 {
					fmt.Fprintf(&b, " [%s]×%d", prev, run)
				}
			}
			for _, d := range g.Ops[1:] {
				if d.P2P == nil {
					t.Fatalf("%s %s: an AllToAll without its p2p path", v, l.name)
				}
				per := map[int]int{}
				last := 0
				for _, tk := range d.P2P.Tasks {
					per[tk.Plan]++
					last = max(last, tk.Plan)
				}
				var parts []string
				for p := 0; p <= last; p++ {
					if per[p] > 0 {
						parts = append(parts, fmt.Sprintf("%d:%d", p, per[p]))
					}
				}
				s := strings.Join(parts, " ")
				if s != prev {
					flush()
					prev, run = s, 0
				}
				run++
			}
			flush()
			b.WriteString("\n")
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", "p2p_plans.txt"), b.String(), *update)
}
