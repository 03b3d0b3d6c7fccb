package golden

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/spec"
)

// TestPlanBudgetGolden records, per release, how many kernels a group of
// 1 MiB AllReduces launches on one DGX H100 (NVLS on) and what each
// kernel plan took of its budget (G-SCHED-BUDGET-1: works, where the work
// went, kernel argument bytes; derived from NCCL's ncclLaunchPrepare,
// scheduleCollTasksToPlan and finishPlan at each tag): plain against
// NVLS-registered buffers, a 64 KiB and a 4 KiB work FIFO
// (NCCL_WORK_FIFO_BYTES), and a CUDA graph capture, whose persistent plans
// the FIFO does not bound. Before 2.22.3 only the plan count is modelled
// (NCCL_WORK_FIFO_DEPTH). Regenerate with
// go test ./golden -run TestPlanBudgetGolden -update and review the diff.
func TestPlanBudgetGolden(t *testing.T) {
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	op, err := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	type load struct {
		name string
		env  spec.Env
		n    int
		buf  spec.Buffers
		mode spec.LaunchMode
	}
	loads := []load{
		{"1000 user", spec.Env{}, 1000, spec.BuffersUser, spec.LaunchStream},
		{"1000 registered", spec.Env{}, 1000, spec.BuffersRegistered, spec.LaunchStream},
		{"200 user, 64 KiB FIFO", spec.Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, spec.BuffersUser, spec.LaunchStream},
		{"200 registered, 64 KiB FIFO", spec.Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, spec.BuffersRegistered, spec.LaunchStream},
		{"200 registered, 64 KiB FIFO, graph", spec.Env{"NCCL_WORK_FIFO_BYTES": "65536"}, 200, spec.BuffersRegistered, spec.LaunchGraph},
		{"64 user, 4 KiB FIFO", spec.Env{"NCCL_WORK_FIFO_BYTES": "4096"}, 64, spec.BuffersUser, spec.LaunchStream},
	}
	var b strings.Builder
	b.WriteString("# N AllReduces of 1 MiB (float) in one group on one DGX H100: kernel plans and their budget\n")
	b.WriteString("# load: plans [works in storage, kernel argument bytes]...\n")
	for _, v := range spec.Releases {
		fmt.Fprintf(&b, "\n## %s\n", v)
		comms := map[string]*spec.Comm{}
		for _, l := range loads {
			key := l.env.String()
			c := comms[key]
			if c == nil {
				if c, err = spec.Init(spec.MustLoad(v), sys, l.env); err != nil {
					t.Fatal(err)
				}
				comms[key] = c
			}
			g, err := c.SelectGroup([]spec.GroupOp{{Op: op, Buffers: l.buf}}, spec.Launch{Mode: l.mode, Agg: l.n})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s: %d plan(s)", l.name, g.Plans)
			if g.Err != nil {
				fmt.Fprintf(&b, " ncclGroupEnd: %s", g.Err.Result)
			}
			for _, u := range g.Budget {
				fmt.Fprintf(&b, " [%d in %s, %d B]", u.Works, u.Storage, u.ArgsBytes)
			}
			if len(g.Choices) > 0 && g.Choices[0].Registered != "" {
				b.WriteString(" registered " + g.Choices[0].Registered)
			}
			b.WriteString("\n")
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", "budget.txt"), b.String(), *update)
}
