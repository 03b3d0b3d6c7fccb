package spec

import (
	"reflect"
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
