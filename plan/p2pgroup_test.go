package plan

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestP2PGroupPlansGolden: per release at which G-SCHED-P2P-1 changes, the
// kernel plans NCCL's send/recv planner fills and sim times, and which
// operation's tasks land in which plan (the boundaries): a lone 4 GiB
// SendRecv on 2 × H200 is one plan at every tag (scheduleP2pTasksToPlan
// tests the budget per work, not per byte); 8 AllToAlls of 1 MiB a peer
// on one DGX H100 (-m 8) fill two from 2.22.3, the eighth in the second;
// a lone AllToAll under NCCL_WORK_ARGS_BYTES=256 is cut into two, round 0
// again (up to 2.29.3) or the round that did not fit (2.29.7+).
func TestP2PGroupPlansGolden(t *testing.T) {
	type tcase struct {
		name   string
		system string
		env    spec.Env
		f      spec.Func
		bytes  int64
		agg    int
	}
	cases := []tcase{
		{"sendrecv 4GiB", "h200x2", nil, spec.SendRecv, 4 << 30, 1},
		{"alltoall 8MiB -m 8", "dgx-h100", spec.Env{"NCCL_NVLS_ENABLE": "0"}, spec.AllToAll, 8 << 20, 8},
		{"alltoall 256KiB NCCL_WORK_ARGS_BYTES=256", "dgx-h100", spec.Env{"NCCL_NVLS_ENABLE": "0", "NCCL_WORK_ARGS_BYTES": "256"}, spec.AllToAll, 256 << 10, 1},
		{"alltoall 256KiB -m 3 NCCL_WORK_ARGS_BYTES=256", "dgx-h100", spec.Env{"NCCL_NVLS_ENABLE": "0", "NCCL_WORK_ARGS_BYTES": "256"}, spec.AllToAll, 256 << 10, 3},
	}
	releases := []spec.Version{spec.V2_21_5, spec.V2_22_3, spec.V2_28_3, spec.V2_28_7, spec.V2_28_9, spec.V2_29_2, spec.V2_29_3, spec.V2_29_7, spec.V2_30_7}
	var b strings.Builder
	for _, tc := range cases {
		sys, err := spec.Preset(tc.system, spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "# %s on %s\n", tc.name, tc.system)
		for _, v := range releases {
			is := spec.Issue{Launch: spec.Launch{Agg: tc.agg}}
			s, err := Open(Request{Ruleset: spec.MustLoad(v), Sys: sys, Env: tc.env, Issue: is})
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, v, err)
			}
			op, err := s.Op(tc.f, spec.Float32, spec.Sum, tc.bytes, 0)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := s.Run(op, RunOptions{Release: v.String(), Size: tc.bytes, Describe: func(*spec.Decision) string { return "" }})
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, v, err)
			}
			ch, err := s.Choose(op, "", "", 0, func(*spec.Decision) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s: %d plan(s)", v, ch.Group.Plans)
			for i, d := range ch.Group.Ops {
				per := map[int]int{}
				for _, tk := range d.P2P.Tasks {
					per[tk.Plan]++
				}
				if len(per) > 1 || i == 0 || i == len(ch.Group.Ops)-1 {
					fmt.Fprintf(&b, "; op %d tasks per plan", i)
					for k := -1; k < ch.Group.Plans; k++ {
						if per[k] > 0 {
							fmt.Fprintf(&b, " %d:%d", k, per[k])
						}
					}
				}
			}
			kernels := 1
			if g := rep.Group; g != nil {
				kernels = len(g.Kernels)
				if g.PerOpUs <= 0 {
					t.Errorf("%s %s: %g µs per operation", tc.name, v, g.PerOpUs)
				}
				fmt.Fprint(&b, "; kernels (plan:ops)")
				for _, k := range g.Kernels {
					fmt.Fprintf(&b, " %d:%d", k.Plan, k.Ops)
				}
			}
			if kernels != max(1, ch.Group.Plans) {
				t.Errorf("%s %s: %d kernels timed for %d plans", tc.name, v, kernels, ch.Group.Plans)
			}
			b.WriteString("\n")
		}
	}
	path := filepath.Join("testdata", "p2p_plans.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./plan -run TestP2PGroupPlansGolden -update writes it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("p2p plans differ from %s (-update rewrites it):\n%s", path, got)
	}
}
