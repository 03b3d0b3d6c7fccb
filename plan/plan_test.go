package plan

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

func build(t *testing.T, preset string, nodes int, env ...string) (*Comm, error) {
	t.Helper()
	sys, err := spec.Preset(preset, spec.PresetOptions{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	e, err := spec.ParseAssignments(env)
	if err != nil {
		t.Fatal(err)
	}
	return Build(spec.MustLoad(spec.V2_28_9), sys, e, nil)
}

// TestBuild: the communicator, its layout and its machine come together;
// a communicator NCCL refuses is a RefusedError naming the failing rule,
// never bad input.
func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		preset  string
		nodes   int
		env     []string
		refused string
		ranks   int
	}{
		{"h200x2", 1, nil, "", 2},
		{"dgx-h100", 2, nil, "", 16},
		{"dgx-h100", 2, []string{"NCCL_NET=NoSuchNet"}, "refuses the communicator", 0},
		// NCCL splits the host into two nodes when P2P and SHM are off
		{"h200x2", 1, []string{"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"}, "", 2},
	} {
		c, err := build(t, tc.preset, tc.nodes, tc.env...)
		var re *RefusedError
		if tc.refused != "" {
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.refused) || !strings.Contains(err.Error(), "G-") {
				t.Errorf("%s %v: err %v, want a RefusedError naming the rule", tc.preset, tc.env, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s %v: %v", tc.preset, tc.env, err)
		}
		if c.Comm.NRanks != tc.ranks || c.Layout == nil || c.Machine.Nodes*c.Machine.GPUsPerNode != tc.ranks {
			t.Errorf("%s %v: %d ranks, machine %d × %d", tc.preset, tc.env, c.Comm.NRanks, c.Machine.Nodes, c.Machine.GPUsPerNode)
		}
		if c.Machine.Nodes != c.Comm.NNodes {
			t.Errorf("%s %v: machine has %d nodes, NCCL %d", tc.preset, tc.env, c.Machine.Nodes, c.Comm.NNodes)
		}
	}
}

// TestOp: nccl-tests sizes are the per-rank buffer, or the whole buffer
// for AllGather, ReduceScatter and AllToAll.
func TestOp(t *testing.T) {
	c, err := build(t, "h200x2", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f     spec.Func
		size  int64
		count int64
		err   string
	}{
		{spec.AllReduce, 1 << 20, 1 << 18, ""},
		{spec.AllGather, 1 << 20, 1 << 17, ""},
		{spec.AllToAll, 1 << 20, 1 << 17, ""},
		{spec.AllReduce, 6, 0, "not a whole number of ncclFloat32 elements (4 bytes"},
		{spec.AllGather, 4, 0, "elements per rank (8 bytes"},
	} {
		op, err := c.Op(tc.f, spec.Float32, spec.Sum, tc.size, 0)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %d: err %v, want %q", tc.f, tc.size, err, tc.err)
		case tc.err == "" && (err != nil || op.Count != tc.count):
			t.Errorf("%s %d: count %d, %v; want %d", tc.f, tc.size, op.Count, err, tc.count)
		}
	}
}

// TestChoose: NCCL's choice carries its model time; a forced cell carries
// the cell's time or why NCCL would not run it; the refusals are typed.
func TestChoose(t *testing.T) {
	c, err := build(t, "h200x2", 1, "NCCL_NVLS_ENABLE=0")
	if err != nil {
		t.Fatal(err)
	}
	line := func(d *spec.Decision) string { return d.Algo.String() + "/" + d.Proto.String() }
	ar, _ := c.Op(spec.AllReduce, spec.Float32, spec.Sum, 1<<20, 0)
	sr, _ := c.Op(spec.SendRecv, spec.Float32, spec.Sum, 1<<20, 0)
	for _, tc := range []struct {
		name         string
		op           spec.Op
		algo, proto  string
		channels     int
		err          string
		by           string
		model, nchan bool
	}{
		{"nccl", ar, "", "", 0, "", "NCCL's tuning model", true, false},
		{"forced", ar, "ring", "ll", 0, "", "--algo/--proto", true, false},
		{"forced channels", ar, "ring", "simple", 3, "", "--algo/--proto", true, true},
		{"half forced", ar, "ring", "", 0, "go together", "", false, false},
		{"p2p forced", sr, "ring", "simple", 0, "no algorithm or protocol to force", "", false, false},
		{"p2p", sr, "", "", 0, "", "p2p path", false, false},
	} {
		ch, err := c.Choose(tc.op, tc.algo, tc.proto, tc.channels, line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(ch.By, tc.by) || (ch.ModelUs != nil) != tc.model || (tc.nchan && ch.Sel.NChannels != tc.channels) {
			t.Errorf("%s: by %q model %v channels %d", tc.name, ch.By, ch.ModelUs, ch.Sel.NChannels)
		}
		if tc.algo != "" && ch.Sel.Algo.String() != "Ring" {
			t.Errorf("%s: ran %s, forced ring", tc.name, ch.Sel)
		}
	}
	// NCCL's error for an operation is the answer no
	v, err := build(t, "v100x4", 1, "NCCL_ALGO=NVLS", "NCCL_NVLS_ENABLE=1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Choose(ar, "", "", 0, line)
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "returns ncclInvalidUsage") {
		t.Errorf("refused op: %v", err)
	}
}

// TestSimulateAgreesWithDecided: the decided path (whatif's) and the
// chosen path (sim's) time NCCL's choice the same.
func TestSimulateAgreesWithDecided(t *testing.T) {
	c, err := build(t, "dgx-h100", 2)
	if err != nil {
		t.Fatal(err)
	}
	line := func(*spec.Decision) string { return "" }
	for _, size := range []int64{4 << 10, 1 << 20, 256 << 20} {
		op, err := c.Op(spec.AllReduce, spec.Float32, spec.Sum, size, 0)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := c.Choose(op, "", "", 0, line)
		if err != nil {
			t.Fatal(err)
		}
		a, err := c.Simulate(op, ch.Sel, c.Config(ch.Decision, ch.Sel), algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		dop, dsel, cfg, err := c.Decided(ch.Decision)
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.Simulate(dop, dsel, cfg, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.TimeUs != b.TimeUs || a.TimeUs <= 0 {
			t.Errorf("%d B: chosen %g µs, decided %g µs", size, a.TimeUs, b.TimeUs)
		}
		// a CUDA graph launch pays less launch overhead than a stream's
		g := *c
		g.Launch = sim.Launch{Launch: spec.Launch{Mode: spec.LaunchGraph, Agg: 1}}
		r, err := g.Simulate(op, ch.Sel, g.Config(ch.Decision, ch.Sel), algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if r.TimeUs >= a.TimeUs {
			t.Errorf("%d B: graph launch %g µs, stream %g µs", size, r.TimeUs, a.TimeUs)
		}
	}
}

// TestVerify: the data plane matches the reference, and the limit holds.
func TestVerify(t *testing.T) {
	c, err := build(t, "h200x2", 1, "NCCL_NVLS_ENABLE=0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		size int64
		rop  spec.RedOp
		err  string
	}{
		{64 << 10, spec.Sum, ""},
		{64 << 10, spec.PreMulSum, ""},
		{64 << 20, spec.Sum, "above the"},
	} {
		op, _ := c.Op(spec.AllReduce, spec.Float32, tc.rop, tc.size, 0)
		ch, err := c.Choose(op, "", "", 0, func(*spec.Decision) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		s, err := algos.Build(op, ch.Sel, c.Layout, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Verify(s, tc.size, tc.rop)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%d: err %v, want %q", tc.size, err, tc.err)
			}
			continue
		}
		if err != nil || !v.OK || v.Checked == 0 {
			t.Errorf("%d %s: %+v, %v", tc.size, tc.rop, v, err)
		}
	}
}

// TestRunRegisteredChannels: where registration changes an operation's
// channels (G-REG-UB-1), sim runs the schedule on the registered count:
// an AllGather on two one-GPU nodes, registered with the network of its
// ring, runs on one channel instead of the cost table's four, and a
// registered NVLS AllReduce on one DGX H100 on 4 channels instead of 16;
// the simulated time changes with the count.
func TestRunRegisteredChannels(t *testing.T) {
	for _, tc := range []struct {
		name        string
		nodes, gpus int // gpus 0: the preset's 8
		f           spec.Func
		user, regd  int
	}{
		{"Ring network registration, one rank per node", 2, 1, spec.AllGather, 4, 1},
		{"NVLS registration", 1, 0, spec.AllReduce, 16, 4},
	} {
		var got [2]*sim.Result
		for i, bufs := range []spec.Buffers{spec.BuffersUser, spec.BuffersRegistered} {
			sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: tc.nodes})
			if err != nil {
				t.Fatal(err)
			}
			for n := range sys.Nodes {
				if tc.gpus > 0 {
					sys.Nodes[n].Reshape(tc.gpus, 0, 0, 0)
				}
			}
			c, err := Build(spec.MustLoad(spec.V2_28_9), sys, spec.Env{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			c.Issue = spec.Issue{Buffers: bufs}
			op, err := c.Op(tc.f, spec.Float32, spec.Sum, 256<<20, 0)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := c.Run(op, RunOptions{Release: "2.28.9", Size: 256 << 20, Describe: func(*spec.Decision) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			got[i] = rep.Result
		}
		if got[0].Channels != tc.user || got[1].Channels != tc.regd {
			t.Errorf("%s: simulated on %d (user) and %d (registered) channels, want %d and %d", tc.name, got[0].Channels, got[1].Channels, tc.user, tc.regd)
		}
		if got[0].TimeUs == got[1].TimeUs {
			t.Errorf("%s: the same simulated time %.2f µs on %d and %d channels", tc.name, got[0].TimeUs, got[0].Channels, got[1].Channels)
		}
	}
}

// TestRunP2PTasks: a lone SendRecv or AllToAll is planned as a group of
// one, so sim reports rank 0's send/recv tasks (G-SCHED-P2P-1), and the
// p2p schedule it times runs rank 0's work on exactly the channels those
// tasks name (2 × H200, 2.28.9: a 64 KiB AllToAll, 32 KiB per peer: the
// self pair on channel 0, peer 1 on LL over 16..19; a 1 MiB SendRecv on
// 16..31); no group is timed for one operation.
func TestRunP2PTasks(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Build(spec.MustLoad(spec.V2_28_9), sys, spec.Env{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f     spec.Func
		size  int64
		tasks int
		chans []int
	}{{spec.AllToAll, 64 << 10, 4, []int{0, 16, 17, 18, 19}}, {spec.SendRecv, 1 << 20, 2, []int{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}}} {
		op, err := c.Op(tc.f, spec.Float32, spec.Sum, tc.size, 0)
		if err != nil {
			t.Fatal(err)
		}
		rep, ch, err := c.Run(op, RunOptions{Release: "2.28.9", Size: tc.size, Describe: func(*spec.Decision) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.P2PTasks) != tc.tasks || rep.Group != nil {
			t.Fatalf("%s: %d tasks, group %v; want %d tasks and no group", tc.f, len(rep.P2PTasks), rep.Group, tc.tasks)
		}
		var fromTasks []int
		for _, tk := range rep.P2PTasks {
			fromTasks = append(fromTasks, tk.Channels...)
		}
		slices.Sort(fromTasks)
		fromTasks = slices.Compact(fromTasks)
		s, err := algos.Build(op, ch.Sel, c.Layout, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var timed []int
		for k := range s.NChannels {
			if len(s.Program(0, k, 0)) > 0 {
				timed = append(timed, k)
			}
		}
		if !slices.Equal(fromTasks, tc.chans) || !slices.Equal(timed, tc.chans) {
			t.Errorf("%s: tasks on %v, the timed schedule's rank 0 on %v; want both %v", tc.f, fromTasks, timed, tc.chans)
		}
		var b strings.Builder
		WriteReport(&b, rep, "")
		if !strings.Contains(b.String(), "send/recv tasks  rank 0's, in plan 0") {
			t.Errorf("%s: report without the tasks:\n%s", tc.f, b.String())
		}
	}
}
