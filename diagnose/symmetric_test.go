package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// TestCompareSymmetricKernels: a [Symmetric] line is compared with the
// kernel gatesim predicts for the same operation on window buffers: the
// same kernel filling the same channels agrees, another kernel or channel
// count differs. No capture of a [Symmetric] line exists yet: the lines
// are synthetic, built from NCCL's format strings (v2.27.3-1
// src/enqueue.cc ncclPrepareTasks "%s [Symmetric]: %ld Bytes -> Kernel %s
// nchannels %d nthreads %d"; v2.28.9-1 src/scheduler/symmetric_sched.cc
// ncclSymmetricTaskScheduler, the same with " nWorks %d"). The predicted
// kernels are those of golden/testdata/groups ("window alone": AllGather
// of 16 MiB float on 2 × H200 with NVLS off runs AllGather_ST on 9 blocks
// at 2.27.3 and 2.28.9).
func TestCompareSymmetricKernels(t *testing.T) {
	const ag = "AllGather [Symmetric]: 16777216 Bytes -> Kernel %s nchannels %d nthreads 512"
	for _, tc := range []struct {
		release string
		line    string
		want    Agreement
	}{
		{"2.28.9", fmt.Sprintf(ag, "AllGather_ST", 9) + " nWorks 1", Agree},
		{"2.28.9", fmt.Sprintf(ag, "AllGather_LL", 9) + " nWorks 1", Differ},
		{"2.28.9", fmt.Sprintf(ag, "AllGather_ST", 4) + " nWorks 1", Differ},
		{"2.27.3", fmt.Sprintf(ag, "AllGather_ST", 9), Agree},
		{"2.27.3", fmt.Sprintf(ag, "AllGather_STMC", 2), Differ},
	} {
		log := "vm:1:1 [0] NCCL INFO NCCL version " + tc.release + "+cuda12.9\n" + "vm:1:1 [0] NCCL INFO " + tc.line + "\n"
		l, sys := parseOnH200x2(t, log)
		obs := Diagnose(l, Options{}).Obs
		p, err := Predict(l, 0, sys, spec.Env{"NCCL_NVLS_ENABLE": "0"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := Compare(p, obs)
		var rows []OpRow
		for _, r := range c.Ops {
			if r.Coll == spec.AllGather {
				rows = append(rows, r)
			}
		}
		if len(rows) != 1 || rows[0].Agreement != tc.want {
			t.Errorf("%s %q: rows %+v, want one %s", tc.release, tc.line, rows, tc.want)
			continue
		}
		if !strings.Contains(rows[0].Observed, "kernel ") || !strings.Contains(rows[0].Predicted, "kernel AllGather_ST nchannels 9") {
			t.Errorf("%s: row %+v names no kernels", tc.release, rows[0])
		}
	}
}

// TestSymmetricLinesRoundTrip: the [Symmetric] lines the model predicts
// for a group, read back as a log and compared with the prediction for
// that log, all agree: the line's nchannels is the channels the plan's
// cells fill (2.28.3+ curChannel, v2.28.9-1 src/scheduler/symmetric_sched.cc
// ncclSymmetricTaskScheduler), not the kernel's blocks, and a line of
// nWorks tasks is predicted as a group of nWorks (no --agg given).
func TestSymmetricLinesRoundTrip(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := spec.Env{"NCCL_NVLS_ENABLE": "0"}
	for _, tc := range []struct {
		release string
		fn      spec.Func
		count   int64
		agg     int
	}{
		{"2.28.9", spec.AllGather, 1 << 10, 1}, // 4 KiB: 2 channels filled of 3 blocks
		{"2.28.9", spec.AllGather, 4 << 20, 1},
		{"2.28.9", spec.AllGather, 1 << 10, 3},
		{"2.28.9", spec.AllReduce, 1 << 18, 1},
		{"2.28.9", spec.AllReduce, 16 << 10, 4},
		{"2.28.9", spec.ReduceScatter, 64 << 10, 2},
		{"2.27.3", spec.AllGather, 1 << 10, 1},
		{"2.27.3", spec.AllReduce, 1 << 18, 1},
	} {
		name := fmt.Sprintf("%s %s %d×%d", tc.release, tc.fn, tc.agg, tc.count)
		rel, err := spec.ParseVersion(tc.release)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := spec.Load(rel)
		if err != nil {
			t.Fatal(err)
		}
		comm, err := spec.Init(rs, sys, env)
		if err != nil {
			t.Fatal(err)
		}
		op := spec.Op{Func: tc.fn, Count: tc.count, DataType: spec.Float32, RedOp: spec.Sum}
		g, err := comm.SelectGroup([]spec.GroupOp{{Op: op, Buffers: spec.BuffersWindow}}, spec.Launch{Agg: tc.agg})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		log := "vm:1:1 [0] NCCL INFO NCCL version " + tc.release + "+cuda12.9\n"
		n := 0
		for _, line := range g.Lines {
			if strings.Contains(line, "[Symmetric]") {
				log += "vm:1:1 [0] NCCL INFO " + line + "\n"
				n++
			}
		}
		if n == 0 {
			t.Fatalf("%s: the model printed no [Symmetric] line: %q", name, g.Lines)
		}
		l, err := ncclog.Parse(strings.NewReader(log), "sym.log")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Predict(l, 0, sys, env, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := Compare(p, Diagnose(l, Options{}).Obs)
		rows := 0
		for _, r := range c.Ops {
			if !strings.Contains(r.Observed, "kernel ") {
				continue
			}
			rows++
			if r.Agreement != Agree {
				t.Errorf("%s: %s: predicted %q, observed %q (%s)", name, strings.TrimSpace(log), r.Predicted, r.Observed, r.Agreement)
			}
		}
		if rows != n {
			t.Errorf("%s: %d [Symmetric] rows for %d lines", name, rows, n)
		}
	}
}

// TestSymmetricLineUnevenTasks: a line whose bytes do not divide by its
// nWorks names no task's size: it is reported not comparable, and no
// operation of an invented size is predicted for it.
func TestSymmetricLineUnevenTasks(t *testing.T) {
	log := "vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n" +
		"vm:1:1 [0] NCCL INFO AllGather [Symmetric]: 12296 Bytes -> Kernel AllGather_LL nchannels 2 nthreads 512 nWorks 3\n"
	l, sys := parseOnH200x2(t, log)
	p, err := Predict(l, 0, sys, spec.Env{"NCCL_NVLS_ENABLE": "0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Decisions {
		if d.Op.Func == spec.AllGather {
			t.Errorf("predicted an operation for an uneven line: %+v", d.Op)
		}
	}
	c := Compare(p, Diagnose(l, Options{}).Obs)
	if len(c.Ops) != 1 || c.Ops[0].Agreement != NotPredicted || !strings.Contains(c.Ops[0].Predicted, "not comparable") {
		t.Errorf("rows %+v, want one not comparable", c.Ops)
	}
}

// TestSymmetricOneDataTypeRule: the observed side (ncclog's decisions)
// and the predicted side (LoggedSymOps) read a [Symmetric] line as the
// same task: TaskBytes of the datatype of the function's first call line,
// else float32.
func TestSymmetricOneDataTypeRule(t *testing.T) {
	const v = "vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n"
	for _, tc := range []struct {
		name, log string
		want      spec.Op
	}{
		{"no call line", v + "vm:1:1 [0] NCCL INFO AllGather [Symmetric]: 8192 Bytes -> Kernel AllGather_LL nchannels 2 nthreads 512 nWorks 2\n",
			spec.Op{Func: spec.AllGather, Count: 1024, DataType: spec.Float32, RedOp: spec.Sum}},
		{"half call line", v + "vm:1:1 [0] NCCL INFO AllGather: opCount 0 sendbuff 0x1 recvbuff 0x1 count 2048 datatype 6 op 0 root 0 comm 0x5 [nranks=2] stream 0x6\n" +
			"vm:1:1 [0] NCCL INFO AllGather [Symmetric]: 8192 Bytes -> Kernel AllGather_LL nchannels 2 nthreads 512 nWorks 2\n",
			spec.Op{Func: spec.AllGather, Count: 2048, DataType: spec.Float16, RedOp: spec.Sum}},
	} {
		l, err := ncclog.Parse(strings.NewReader(tc.log), "sym.log")
		if err != nil {
			t.Fatal(err)
		}
		obs := Diagnose(l, Options{}).Obs
		pred := LoggedSymOps(l, nil)
		if len(obs.SymDecisions) != 1 || len(pred) != 1 {
			t.Fatalf("%s: observed %d, logged %d", tc.name, len(obs.SymDecisions), len(pred))
		}
		if obs.SymDecisions[0].Op != tc.want || pred[0].Op != tc.want {
			t.Errorf("%s: observed %+v, logged %+v, want %+v", tc.name, obs.SymDecisions[0].Op, pred[0].Op, tc.want)
		}
	}
}

// TestSymmetricAgreementNeedsCount: a predicted channel count is checked
// against the line's, whatever the line says (0 included); only a
// prediction without a count leaves it unchecked.
func TestSymmetricAgreementNeedsCount(t *testing.T) {
	k := func(n int) spec.Decision { return spec.Decision{Kernel: "AllGather_LL", SymChannels: n} }
	for _, tc := range []struct {
		p, o spec.Decision
		want Agreement
	}{
		{k(2), k(2), Agree},
		{k(2), k(3), Differ},
		{k(2), k(0), Differ},
		{k(0), k(3), Agree},
	} {
		if got := opAgreement(tc.p, tc.o); got != tc.want {
			t.Errorf("predicted %d, observed %d: %s, want %s", tc.p.SymChannels, tc.o.SymChannels, got, tc.want)
		}
	}
}

// TestSymmetricLineExplicitAgg: a [Symmetric] line of nWorks 4 is
// predicted as a group of its 4 tasks when the group is not given (Agg 0,
// diagnose without --agg), and as the group the caller names otherwise:
// an explicit --agg 1 is a group of one, not the line's count.
func TestSymmetricLineExplicitAgg(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := spec.Env{"NCCL_NVLS_ENABLE": "0"}
	comm, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	op := spec.Op{Func: spec.AllReduce, Count: 16 << 10, DataType: spec.Float32, RedOp: spec.Sum}
	g, err := comm.SelectGroup([]spec.GroupOp{{Op: op, Buffers: spec.BuffersWindow}}, spec.Launch{Agg: 4})
	if err != nil {
		t.Fatal(err)
	}
	log := "vm:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda12.9\n"
	for _, line := range g.Lines {
		if strings.Contains(line, "[Symmetric]") && strings.Contains(line, "nWorks 4") {
			log += "vm:1:1 [0] NCCL INFO " + line + "\n"
		}
	}
	l, err := ncclog.Parse(strings.NewReader(log), "sym.log")
	if err != nil {
		t.Fatal(err)
	}
	if len(LoggedSymOps(l, nil)) != 1 {
		t.Fatalf("want one [Symmetric] line of 4 tasks in %q", log)
	}
	for _, tc := range []struct{ agg, want int }{{0, 4}, {1, 1}, {2, 2}} {
		p, err := PredictLaunch(l, 0, sys, env, nil, spec.Launch{Agg: tc.agg})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Decisions) != tc.want {
			t.Errorf("--agg %d: %d decisions for the line, want a group of %d", tc.agg, len(p.Decisions), tc.want)
		}
	}
}
