package spec

import (
	"reflect"
	"sync"
	"testing"
)

// TestDecideOnlyDecidesAsRecorded: the walk that records nothing (Select,
// SelectOp without a trace) decides every operation as the walk that
// records its verdicts and cost table, and the decision's Lazy makes
// exactly what that walk recorded, on every release, across systems,
// environments (a choice NCCL_ALGO forces, an impossible one, a failed
// init), collectives, sizes and types.
func TestDecideOnlyDecidesAsRecorded(t *testing.T) {
	systems := []struct {
		name string
		o    PresetOptions
	}{{"dgx-h100", PresetOptions{Nodes: 2, SHARP: true}}, {"dgx-a100", PresetOptions{}}, {"v100x4", PresetOptions{}}, {"gb200-nvl72", PresetOptions{}}}
	envs := []Env{{}, {"NCCL_COLLNET_ENABLE": "1"}, {"NCCL_ALGO": "NVLS"}, {"NCCL_ALGO": "CollNetDirect", "NCCL_PROTO": "LL"}, {"NCCL_PROTO": "LL128"}, {"NCCL_NET": "NoSuchNet"}}
	funcs := []Func{AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv}
	checked, recorded := 0, 0
	for _, v := range Releases {
		rs := MustLoad(v)
		for _, s := range systems {
			sys := mustPreset(s.name, s.o)
			for _, env := range envs {
				comm, err := Init(rs, sys, env)
				if err != nil {
					t.Fatalf("%s %s %v: %v", v, s.name, env, err)
				}
				for _, f := range funcs {
					for _, bytes := range []int64{0, 4 << 10, 1 << 20, 256 << 20} {
						for _, dt := range []DataType{Float32, Bfloat16} {
							op, _ := OpFromBytes(f, bytes, dt, Sum, 0)
							d, err := comm.decideOp(op, nil)
							if err != nil {
								t.Fatalf("%s %s %v %+v: %v", v, s.name, env, op, err)
							}
							want, tr := comm.recordOp(op, nil, true)
							got := *d
							if got.Costs != nil || got.Lazy == nil {
								t.Fatalf("%s %s %v %+v: a decide-only walk wrote a cost table or left no Lazy", v, s.name, env, op)
							}
							gotCosts, gotTrace := got.CostTable(), got.Lazy.Trace()
							if !reflect.DeepEqual(gotCosts, want.Costs) || !reflect.DeepEqual(gotTrace, tr) {
								t.Fatalf("%s %s %v %+v: Lazy makes another cost table or trace than the recording walk", v, s.name, env, op)
							}
							got.Lazy, want.Lazy, want.Costs = nil, nil, nil
							if !reflect.DeepEqual(&got, want) {
								t.Fatalf("%s %s %v %+v: decide-only\n%+v\nrecording\n%+v", v, s.name, env, op, &got, want)
							}
							traced, trOp, err := comm.SelectOp(op, true)
							if err != nil || !reflect.DeepEqual(trOp, tr) || !reflect.DeepEqual(traced.CostTable(), gotCosts) {
								t.Fatalf("%s %s %v %+v: SelectOp with its trace records another trace or table (%v)", v, s.name, env, op, err)
							}
							checked++
							if len(gotCosts) > 0 {
								recorded++
							}
						}
					}
				}
			}
		}
	}
	if recorded == 0 || recorded == checked {
		t.Fatalf("%d of %d decisions have a cost table: the sample misses a path", recorded, checked)
	}
}

// TestDecideOnlyPlanFailure: a kernel plan failure (G-GROUP-PLAN-1, a
// NCCL_WORK_FIFO_DEPTH too small before 2.22.3) decides the decide-only
// walk as the recording one, and only the recording walk writes its
// verdict.
func TestDecideOnlyPlanFailure(t *testing.T) {
	c := initPreset(t, V2_21_5, "dgx-h100", 1, Env{"NCCL_WORK_FIFO_DEPTH": "8", "NCCL_NVLS_ENABLE": "0"})
	op := Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum}
	var b decisionOnly
	if tr := c.walkOp(op, nil, &b.d, opRoom{cands: &b.cands}, nil); len(tr) != 0 {
		t.Errorf("the decide-only walk wrote %d verdict(s): %v", len(tr), tr)
	}
	if b.d.Err == nil || b.d.DecidedBy != "G-GROUP-PLAN-1" {
		t.Fatalf("decide-only: %v decided by %s, want G-GROUP-PLAN-1's error", b.d.Err, b.d.DecidedBy)
	}
	want, tr := c.recordOp(op, nil, true)
	if want.DecidedBy != "G-GROUP-PLAN-1" || tr[len(tr)-1].Rule != "G-GROUP-PLAN-1" || tr[len(tr)-1].Outcome != Fail {
		t.Errorf("recording walk: decided by %s, last verdict %s %s", want.DecidedBy, tr[len(tr)-1].Rule, tr[len(tr)-1].Outcome)
	}
}

// TestLazyOpTuned: a tuned decision's Lazy records the walk of the answer
// it was decided with, whatever the caller does to the decision's Tuner
// afterwards.
func TestLazyOpTuned(t *testing.T) {
	c := tunerTestComm(t, V2_28_9)
	op, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
	d0, _, err := c.Select(op)
	if err != nil {
		t.Fatal(err)
	}
	call, ok := c.TunerCallFor(d0)
	if !ok {
		t.Fatal("no tuner call")
	}
	ans := TunerAnswer{Table: call.Table, Algo: -1, Proto: -1, NChannels: 3, Log: []string{"tuned"}}
	ans.Table[Ring][LL] = 0
	fresh, _, err := c.SelectTuned(op, call, ans)
	if err != nil {
		t.Fatal(err)
	}
	want, wantCosts := fresh.Lazy.Trace(), fresh.Lazy.Costs()
	d, _, err := c.SelectTuned(op, call, ans)
	if err != nil {
		t.Fatal(err)
	}
	if d.Algo != Ring || d.Proto != LL || len(d.Tuner.Edits) == 0 {
		t.Fatalf("the answer did not decide: %s/%s edits %v", d.Algo, d.Proto, d.Tuner.Edits)
	}
	d.Tuner.Answer.NChannels, d.Tuner.Answer.Result = 9, int(InvalidUsage)
	d.Tuner.Answer.Log[0], d.Tuner.Edits[0] = "changed", "changed"
	d.Tuner.After[Ring][LL] = 1e9
	if got := d.Lazy.Trace(); !reflect.DeepEqual(got, want) {
		t.Errorf("the lazy trace follows a change made after the decision:\n%v\nwant\n%v", got, want)
	}
	if got := d.Lazy.Costs(); !reflect.DeepEqual(got, wantCosts) {
		t.Error("the lazy cost table follows a change made after the decision")
	}
}

// TestLazyOpPlanFailure: the verdict of a decision failed by its kernel
// plan is written when the lazy trace is read.
func TestLazyOpPlanFailure(t *testing.T) {
	c := initPreset(t, V2_21_5, "dgx-h100", 1, Env{"NCCL_WORK_FIFO_DEPTH": "8", "NCCL_NVLS_ENABLE": "0"})
	d, _, err := c.Select(Op{Func: AllReduce, Count: 16 << 20, DataType: Float32, RedOp: Sum})
	if err != nil {
		t.Fatal(err)
	}
	tr := d.Lazy.Trace()
	if d.DecidedBy != "G-GROUP-PLAN-1" || len(tr) == 0 || tr[len(tr)-1].Rule != "G-GROUP-PLAN-1" || tr[len(tr)-1].Outcome != Fail {
		t.Errorf("decided by %s; lazy trace %v", d.DecidedBy, tr)
	}
}

// TestLazyOpConcurrentReaders: readers of one decision's lazy part in
// parallel (run under -race) see one trace and one cost table.
func TestLazyOpConcurrentReaders(t *testing.T) {
	c := initPreset(t, V2_28_9, "dgx-h100", 2, nil)
	op, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
	d, _, err := c.Select(op)
	if err != nil {
		t.Fatal(err)
	}
	const readers = 8
	traces := make([]Trace, readers)
	costs := make([][]CellCost, readers)
	var wg sync.WaitGroup
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			traces[i], costs[i] = d.Lazy.Trace(), d.Lazy.Costs()
		}()
	}
	wg.Wait()
	for i := 1; i < readers; i++ {
		if !reflect.DeepEqual(traces[i], traces[0]) || !reflect.DeepEqual(costs[i], costs[0]) {
			t.Fatalf("reader %d saw another trace or cost table", i)
		}
	}
	if len(traces[0]) == 0 || len(costs[0]) == 0 {
		t.Fatal("no trace or cost table")
	}
}
