package spec

import (
	"fmt"
	"strings"
	"testing"
)

// TestCTAPolicyPaths: G-SEL-CTAPOL-1 under NCCL_CTA_POLICY=1 says what
// NCCL does with the policy on each path, per release and buffer kind. It
// acts in getAlgoInfo only (v2.28.9-1 src/enqueue.cc getAlgoInfo; v2.29.2-1
// ncclGetAlgoInfo): ordinary buffers have no registration (fail), buffers
// ncclCommRegister'ed move to NVLS/Simple (pass), a window is registered
// too (ncclDevrWindowRegisterInGroup calls ncclCommRegister) so a window
// task the cost table decides moves as well, while a task a symmetric
// kernel or the copy engines take never reaches getAlgoInfo (skip), except
// the LL kernel's probe ncclMakeSymmetricTaskList makes from 2.29.2
// (v2.29.2-1 src/scheduler/symmetric_sched.cc), which reads it (fail).
func TestCTAPolicyPaths(t *testing.T) {
	type tc struct {
		v         Version
		preset    string
		nodes     int
		env       Env
		op        Op
		buf       Buffers
		outcome   Outcome
		decidedBy RuleID // a registered task is its group plan's (G-GROUP-PLAN-1)
		why       string // in the verdict's Why
	}
	ag8 := Op{Func: AllGather, Count: 2 << 20, DataType: Float32}
	var cases []tc
	for _, v := range []Version{V2_27_3, V2_28_9, V2_29_2, V2_30_7} {
		cases = append(cases,
			tc{v, "dgx-h100", 1, nil, ag8, BuffersUser, Fail, "G-SEL-PICK-1", "regBuff is 0"},
			tc{v, "dgx-h100", 1, nil, ag8, BuffersRegistered, Pass, "G-SEL-CTAPOL-1", "NVLS/Simple on the 4 channels"},
			tc{v, "dgx-h100", 1, nil, ag8, BuffersWindow, Skip, "G-SEL-SIDE-1", "symmetric kernel AllGather_STMC took the operation"},
			tc{v, "dgx-h100", 1, Env{"NCCL_ALGO": "Ring"}, ag8, BuffersRegistered, Fail, "G-GROUP-PLAN-1", "NCCL_ALGO or NCCL_PROTO is set"},
			tc{v, "dgx-h100", 2, nil, ag8, BuffersRegistered, Fail, "G-GROUP-PLAN-1", "both NVLS and CollNet"},
		)
	}
	rs64 := Op{Func: ReduceScatter, Count: 8 << 20, DataType: Float64, RedOp: Sum}
	ag4k := Op{Func: AllGather, Count: 1 << 10, DataType: Float32}
	ag64 := Op{Func: AllGather, Count: 16 << 20, DataType: Float32}
	cases = append(cases,
		// no symmetric kernel for float64: the cost table decides, and the
		// window's registration record moves it
		tc{V2_28_9, "dgx-h100", 1, nil, rs64, BuffersWindow, Pass, "G-SEL-CTAPOL-1", "registered buffers (window)"},
		tc{V2_28_9, "dgx-h100", 1, nil, rs64, BuffersUser, Fail, "G-SEL-PICK-1", "regBuff is 0"},
		// an LL kernel: 2.29.2 probes the cost table first, 2.29.7 keeps
		// it on windows without a probe
		tc{V2_29_2, "dgx-h100", 1, nil, ag4k, BuffersWindow, Fail, "G-SEL-SIDE-1", "probe of the LL kernel"},
		tc{V2_29_7, "dgx-h100", 1, nil, ag4k, BuffersWindow, Skip, "G-SEL-SIDE-1", "symmetric kernel AllGather_LLMC took the operation"},
		// an AllGather above NCCL_SYM_CE_THRESHOLD on sm100: the copy engines
		tc{V2_29_2, "dgx-b200", 1, nil, ag64, BuffersWindow, Skip, "G-SEL-SIDE-1", "the copy engines took the operation"},
		tc{V2_30_7, "dgx-b200", 1, nil, ag64, BuffersWindow, Skip, "G-SEL-SIDE-1", "the copy engines took the operation"},
		// another function keeps its pick whatever the buffers
		tc{V2_28_9, "dgx-h100", 1, nil, Op{Func: AllReduce, Count: 2 << 20, DataType: Float32, RedOp: Sum}, BuffersRegistered, Skip, "", "moves only AllGather and ReduceScatter"},
	)
	// with a tuner plugin (one that edits nothing) loaded: it answers
	// getAlgoInfo, the LL kernel's probe included, so the policy is never
	// read on either path
	tuned := len(cases)
	cases = append(cases,
		tc{V2_28_9, "dgx-h100", 1, nil, ag8, BuffersRegistered, Skip, "", "a tuner plugin is loaded"},
		tc{V2_29_2, "dgx-h100", 1, nil, ag4k, BuffersWindow, Skip, "", "a tuner plugin is loaded"},
	)
	for i, c := range cases {
		tuner := i >= tuned
		name := fmt.Sprintf("%s %s x%d %v %s %v %d tuner %v", c.v, c.preset, c.nodes, c.env, c.buf, c.op.Func, c.op.Count, tuner)
		t.Run(name, func(t *testing.T) {
			sys, err := Preset(c.preset, PresetOptions{Nodes: c.nodes})
			if err != nil {
				t.Fatal(err)
			}
			env := Env{"NCCL_CTA_POLICY": "1"}
			for k, v := range c.env {
				env[k] = v
			}
			if tuner {
				for i := range sys.Nodes {
					sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, chunkTuner([]int{2, 3, 4, 5}, 0))
				}
				env["NCCL_TUNER_PLUGIN"] = "chunk"
			}
			comm, err := Init(MustLoad(c.v), sys, env)
			if err != nil {
				t.Fatal(err)
			}
			g, err := comm.SelectGroup([]GroupOp{{Op: c.op, Buffers: c.buf}}, Launch{Mode: LaunchStream})
			if err != nil {
				t.Fatal(err)
			}
			d, tr := g.Ops[0], g.Traces[0]
			v, ok := tr.Find("G-SEL-CTAPOL-1")
			if !ok {
				t.Fatal("no G-SEL-CTAPOL-1 verdict")
			}
			if v.Outcome != c.outcome || !strings.Contains(v.Why, c.why) {
				t.Errorf("G-SEL-CTAPOL-1 %s %q, want %s containing %q", v.Outcome, v.Why, c.outcome, c.why)
			}
			if c.decidedBy != "" && d.DecidedBy != c.decidedBy {
				t.Errorf("decided by %s (%s/%s, kernel %q), want %s", d.DecidedBy, d.Algo, d.Proto, d.Kernel, c.decidedBy)
			}
		})
	}
}
