package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// boundaryRequests is a fixed request set: the three NVLS functions over
// sizes from 4 KiB to 1 GiB.
func boundaryRequests() []Op {
	var ops []Op
	for _, f := range []Func{AllReduce, AllGather, ReduceScatter} {
		for b := int64(4 << 10); b <= 1<<30; b *= 16 {
			ops = append(ops, Op{Func: f, Count: b / 4, DataType: Float32, RedOp: Sum})
		}
	}
	return ops
}

// decisionSignature is what a release decides for every request of ops on
// sys under env: function, bytes, the choice (algorithm/protocol and
// channels, or the error) and the legal cells it was chosen from, one line
// each, and the NVLS early-exit verdict of init.
func decisionSignature(t *testing.T, v Version, sys *System, env Env, ops []Op) (sig []string, nvlsEarly Outcome) {
	t.Helper()
	c, err := Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err != nil {
		t.Fatalf("%s: init failed: %v", v, c.Err)
	}
	for _, vd := range c.Trace {
		if vd.Rule == "G-NVLS-EARLY-1" {
			nvlsEarly = vd.Outcome
		}
	}
	for _, op := range ops {
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		choice := fmt.Sprintf("%s/%s %d", d.Algo, d.Proto, d.NChannels)
		if d.Err != nil {
			choice = "error " + d.Err.Result.String()
		}
		var legal []string
		for _, ap := range d.Candidates {
			legal = append(legal, ap.Algo.String()+"/"+ap.Proto.String())
		}
		sig = append(sig, fmt.Sprintf("%s %d %s from %s", op.Func, op.Bytes(), choice, strings.Join(legal, ",")))
	}
	return sig, nvlsEarly
}

// TestNVLSTwoGPUBoundary: on two multicast-capable H200s behind an
// NVSwitch (NVLS gated by nothing but the model), 2.28.3 turns NVLS off at
// ncclNvlsInit (gpuCount <= 2) and 2.28.7 keeps it (gpuCount < 2). Over a
// fixed request set the signatures differ: with the defaults NVLS becomes
// a legal cell (Ring still wins on time), and with NCCL_ALGO=NVLS 2.28.3
// fails every request while 2.28.7 runs NVLS. 2.28.7 and 2.28.9 agree.
func TestNVLSTwoGPUBoundary(t *testing.T) {
	sys, err := Preset("h200x2", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ops := boundaryRequests()
	count := func(sig []string, sub string) int {
		n := 0
		for _, s := range sig {
			if strings.Contains(s, sub) {
				n++
			}
		}
		return n
	}
	for _, env := range []Env{{}, {"NCCL_ALGO": "NVLS"}} {
		before, e283 := decisionSignature(t, V2_28_3, sys, env, ops)
		after, e287 := decisionSignature(t, V2_28_7, sys, env, ops)
		later, _ := decisionSignature(t, V2_28_9, sys, env, ops)
		if e283 != Fail || e287 != Pass {
			t.Errorf("%v: G-NVLS-EARLY-1: 2.28.3 %v (want fail), 2.28.7 %v (want pass)", env, e283, e287)
		}
		if n := count(before, "NVLS/"); n != 0 {
			t.Errorf("%v: 2.28.3 has NVLS in %d signatures on two GPUs:\n%s", env, n, strings.Join(before, "\n"))
		}
		if n := count(after, "NVLS/"); n == 0 {
			t.Errorf("%v: 2.28.7 never has NVLS on two GPUs:\n%s", env, strings.Join(after, "\n"))
		}
		if strings.Join(after, "\n") != strings.Join(later, "\n") {
			t.Errorf("%v: 2.28.7 and 2.28.9 decide differently on h200x2:\n%s\n--\n%s", env, strings.Join(after, "\n"), strings.Join(later, "\n"))
		}
		if env["NCCL_ALGO"] == "NVLS" {
			// every NVLS function: the error before, NVLS/Simple after
			if n := count(before, "error ncclInvalidUsage"); n != len(ops) {
				t.Errorf("NCCL_ALGO=NVLS on 2.28.3: %d of %d requests fail with ncclInvalidUsage:\n%s", n, len(ops), strings.Join(before, "\n"))
			}
			if n := count(after, " NVLS/Simple "); n != len(ops) {
				t.Errorf("NCCL_ALGO=NVLS on 2.28.7: %d of %d requests run NVLS/Simple:\n%s", n, len(ops), strings.Join(after, "\n"))
			}
		}
	}
}

// TestCTAPolicyMask: NCCL_CTA_POLICY as 2.29.2's getEnvCtaPolicyOnce reads
// it: the first digit alone, or names joined by '|', unknown ones ignored.
func TestCTAPolicyMask(t *testing.T) {
	for in, want := range map[string]int{
		"0": 0, "1": ctaPolicyEfficiency, "2": ctaPolicyZero, "12": ctaPolicyEfficiency, "3": 0, "29": ctaPolicyZero,
		"ZERO": ctaPolicyZero, "efficiency|Zero": ctaPolicyEfficiency | ctaPolicyZero, "DEFAULT": 0,
		"fast|ZERO": ctaPolicyZero, "": 0, "ZERO |EFFICIENCY": ctaPolicyEfficiency,
	} {
		if got := ctaPolicyMask(in); got != want {
			t.Errorf("ctaPolicyMask(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestCopyEngineAllGatherSM100: from 2.29.2 an AllGather into symmetric
// windows on one all-NVLink sm100 node leaves the cost table for the copy
// engines above NCCL_SYM_CE_THRESHOLD elements (8 Mi by default) without
// the CTA policy; 2.28.9 needs CTA policy ZERO for that.
func TestCopyEngineAllGatherSM100(t *testing.T) {
	sys, err := Preset("dgx-b200", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		v     Version
		env   Env
		count int64
		want  string
	}{
		{V2_28_9, Env{}, 16 << 20, "symmetric"},
		{V2_28_9, Env{"NCCL_CTA_POLICY": "2"}, 16 << 20, "copy-engine"},
		{V2_29_2, Env{}, 16 << 20, "copy-engine"},
		{V2_29_2, Env{}, 8 << 20, "symmetric"},
		{V2_29_2, Env{"NCCL_SYM_CE_THRESHOLD": "1048576"}, 2 << 20, "copy-engine"},
		{V2_29_2, Env{"NCCL_CTA_POLICY": "efficiency|zero"}, 1 << 10, "copy-engine"},
		{V2_28_9, Env{"NCCL_CTA_POLICY": "efficiency|zero"}, 1 << 10, "symmetric"},
	}
	for _, tc := range cases {
		c, err := Init(MustLoad(tc.v), sys, tc.env)
		if err != nil || c.Err != nil || c.Model == nil {
			t.Fatal(err, c.Err)
		}
		o := tuning.Call{Op: Op{Func: AllGather, Count: tc.count, DataType: Float32}, Buffers: BuffersWindow}
		ch, err := tuning.ChooseOp(c.Model, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := ch.SidePath; got != tc.want {
			t.Errorf("%s %v count %d: %q, want %q", tc.v, tc.env, tc.count, ch.SidePath, tc.want)
		}
	}
}

// TestAllGatherVGrouping: from 2.29.2 the broadcasts of one group from two
// roots or more leave the cost table as one AllGatherV; from one root, with
// NCCL_ALLGATHERV_ENABLE=0, or before 2.29.2 they are Broadcast tasks the
// cost table decides.
func TestAllGatherVGrouping(t *testing.T) {
	bc := func(root int) GroupOp {
		return GroupOp{Op: Op{Func: Broadcast, Count: 1 << 20, DataType: Float32, Root: root}}
	}
	ar := GroupOp{Op: Op{Func: AllReduce, Count: 1 << 20, DataType: Float32, RedOp: Sum}}
	cases := []struct {
		v       Version
		env     Env
		ops     []GroupOp
		grouped int // broadcasts run as AllGatherV
	}{
		{V2_28_9, nil, []GroupOp{bc(0), bc(1), ar}, 0},
		{V2_29_2, nil, []GroupOp{bc(0), bc(1), ar}, 2},
		{V2_30_7, nil, []GroupOp{bc(1), bc(0), bc(1)}, 3},
		{V2_29_2, nil, []GroupOp{bc(1), bc(1), ar}, 0},
		{V2_29_2, Env{"NCCL_ALLGATHERV_ENABLE": "0"}, []GroupOp{bc(0), bc(1)}, 0},
	}
	for _, tc := range cases {
		c := h200x2Comm(t, tc.v, tc.env)
		g, err := c.SelectGroup(tc.ops, Launch{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i, d := range g.Ops {
			if g.Choices[i].SidePath == "allgatherv" {
				n++
				if d.Algo != Ring || d.DecidedBy != "G-SEL-SIDE-1" || tc.ops[i].Op.Func != Broadcast || len(d.Candidates) != 0 {
					t.Errorf("%s op %d: %s/%s by %s: want an AllGatherV broadcast on Ring outside the cost table", tc.v, i, d.Algo, d.Proto, d.DecidedBy)
				}
			} else if d.Algo == AlgoNone || d.Err != nil {
				t.Errorf("%s op %d: no cost-table decision (%v)", tc.v, i, d.Err)
			}
		}
		if n != tc.grouped {
			t.Errorf("%s %v: %d broadcasts grouped into AllGatherV, want %d", tc.v, tc.env, n, tc.grouped)
		}
	}
}

// TestAllGatherVChannels: ncclScheduleBcastTasksToPlan runs the group's
// broadcasts with the protocol and channel count getAlgoInfo picks for an
// AllGather (int8, no CollNet, no NVLS) of the plan's largest broadcast,
// each broadcast cut into that many 256-byte aligned parts, part p on
// channel p; a plan takes one broadcast per root, so a root's second
// broadcast goes into a second plan.
func TestAllGatherVChannels(t *testing.T) {
	bc := func(root int, bytes int64) GroupOp {
		return GroupOp{Op: Op{Func: Broadcast, Count: bytes, DataType: Int8, Root: root}}
	}
	c := h200x2Comm(t, V2_29_2, nil)
	ag, _, err := c.Select(Op{Func: AllGather, Count: 4 << 20, DataType: Int8})
	if err != nil {
		t.Fatal(err)
	}
	// what a lone 2 × 4 MiB AllGather runs on two H200s
	if ag.Algo != Ring || ag.Proto != Simple || ag.NChannels != 24 {
		t.Fatalf("lone AllGather: %s/%s on %d channels, want Ring/Simple on 24", ag.Algo, ag.Proto, ag.NChannels)
	}
	small, _, err := c.Select(Op{Func: AllGather, Count: 4 << 10, DataType: Int8})
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.SelectGroup([]GroupOp{bc(0, 4<<20), bc(1, 256), bc(1, 4<<10), bc(0, 0)}, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	// 4 KiB over small.NChannels parts of ceil(4096/n) bytes, 256-aligned
	n := int64(small.NChannels)
	var nonEmpty, last int64
	for p := int64(0); p < n; p++ {
		pb := (4096 + n - 1) / n
		lo, hi := min((p*pb+255)/256*256, 4096), min(((p+1)*pb+255)/256*256, 4096)
		if hi > lo {
			nonEmpty, last = nonEmpty+1, p
		}
	}
	want := []string{
		"Ring/Simple 0..23 on 24, plan 0",
		"Ring/Simple 0..0 on 1, plan 0",
		fmt.Sprintf("Ring/%s 0..%d on %d, plan 1", small.Proto, last, nonEmpty),
		"no channel",
	}
	for i, d := range g.Ops {
		got := "no channel"
		if d.NChannels > 0 {
			got = fmt.Sprintf("%s/%s %d..%d on %d, plan %d", d.Algo, d.Proto, d.ChannelLo, d.ChannelHi, d.NChannels, g.Choices[i].Plan)
		}
		if got != want[i] || d.Err != nil {
			t.Errorf("broadcast %d: %s (%v), want %s", i, got, d.Err, want[i])
		}
	}
	if g.Plans != 2 {
		t.Errorf("%d plans, want 2 AllGatherV plans", g.Plans)
	}
}

// TestAllGatherVPickFails: when the AllGather pick of an AllGatherV plan
// fails, NCCL fails the whole group (ncclPrepareTasks' NCCLCHECKGOTO on
// ncclScheduleBcastTasksToPlan): the group's error, each broadcast's error
// and a failing G-SEL-SIDE-1 verdict, not an empty success.
// Ref: v2.29.2-1 src/enqueue.cc ncclPrepareTasks; src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan
func TestAllGatherVPickFails(t *testing.T) {
	c := h200x2Comm(t, V2_29_2, Env{"NCCL_ALGO": "allgather:tree"})
	ops := []GroupOp{
		{Op: Op{Func: Broadcast, Count: 1 << 20, DataType: Float32, Root: 0}},
		{Op: Op{Func: Broadcast, Count: 1 << 20, DataType: Float32, Root: 1}},
	}
	g, err := c.SelectGroup(ops, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Err == nil || g.Err.Result != InvalidUsage {
		t.Fatalf("group error %v, want ncclInvalidUsage from the AllGather pick (AllGather on Tree only: none runs)", g.Err)
	}
	for i, d := range g.Ops {
		if g.Choices[i].SidePath != "allgatherv" || d.Err == nil {
			t.Errorf("op %d: side path %q, error %v: want an AllGatherV broadcast carrying the pick's error", i, g.Choices[i].SidePath, d.Err)
		}
		if v, ok := g.Traces[i].Find("G-SEL-SIDE-1"); !ok || v.Outcome != Fail {
			t.Errorf("op %d: G-SEL-SIDE-1 %v (found %v), want Fail", i, v.Outcome, ok)
		}
	}
}
