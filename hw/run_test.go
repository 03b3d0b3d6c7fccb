package hw

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

func testPlan(funcs ...spec.Func) Plan {
	p := DefaultPlan()
	p.Funcs = funcs
	p.Sizes = SizeRange(8, 4096, 4)
	p.Iters, p.Batches = 3, 3
	return p
}

var allFuncs = []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce, spec.SendRecv, spec.AllToAll}

func TestRunEveryCollectiveIsCorrect(t *testing.T) {
	for _, nranks := range []int{1, 2, 3, 4} {
		for _, dt := range []spec.DataType{spec.Float32, spec.Float16, spec.Bfloat16, spec.Int8, spec.Uint8, spec.Int32, spec.Uint64, spec.Float64} {
			for _, op := range []spec.RedOp{spec.Sum, spec.Prod, spec.Max, spec.Min, spec.Avg} {
				p := testPlan(allFuncs...)
				p.DataType, p.RedOp, p.Root = dt, op, nranks-1
				e := newFake(nranks)
				rows, err := run(e, p, nil)
				if err != nil {
					t.Fatalf("n=%d %s %s: %v", nranks, dt, op, err)
				}
				if len(rows) != len(p.Funcs)*len(p.Sizes) {
					t.Fatalf("n=%d %s %s: %d rows, want %d", nranks, dt, op, len(rows), len(p.Funcs)*len(p.Sizes))
				}
				for _, r := range rows {
					if r.Wrong != 0 || r.Err != nil {
						t.Errorf("n=%d %s %s %s size %d: wrong %d err %v", nranks, dt, op, r.Coll, r.Size, r.Wrong, r.Err)
					}
				}
			}
		}
	}
}

func TestRunCountsWrongElements(t *testing.T) {
	for _, f := range allFuncs {
		e := newFake(2)
		e.corrupt = true
		p := testPlan(f)
		p.Sizes = []uint64{1024}
		rows, err := run(e, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rows[0].Wrong != 1 {
			t.Errorf("%s: a flipped element gave %d wrong, want 1", f, rows[0].Wrong)
		}
	}
}

func TestRunUnwrittenOutputIsWrong(t *testing.T) {
	// An engine that never writes the receive buffer leaves the poison:
	// every element must count as wrong, in every datatype.
	for _, dt := range []spec.DataType{spec.Float32, spec.Float16, spec.Bfloat16, spec.Int8, spec.Int32, spec.Int64, spec.Float64} {
		e := &noWrite{newFake(2)}
		p := testPlan(spec.AllReduce)
		p.DataType = dt
		p.Sizes = []uint64{256}
		rows, err := run(e, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(2 * 256 / dt.Size())
		if rows[0].Wrong != want {
			t.Errorf("%s: %d wrong, want %d (every element of both ranks)", dt, rows[0].Wrong, want)
		}
	}
}

type noWrite struct{ *fakeEngine }

func (n *noWrite) Run(op OpArgs, iters int, timed bool) ([]float64, error) {
	ms := make([]float64, n.nranks)
	return ms, nil
}

func TestRunRecordsNCCLErrorsAndGoesOn(t *testing.T) {
	for _, unhealthy := range []bool{false, true} {
		e := newFake(2)
		e.failing, e.failFunc, e.unhealthyAfterFail = true, spec.AllGather, unhealthy
		p := testPlan(spec.AllGather, spec.AllReduce)
		rows, err := run(e, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			failed := r.Err != nil
			if failed != (r.Func == spec.AllGather) {
				t.Errorf("%s: err %v", r.Coll, r.Err)
			}
			if failed && (r.Err.Result != spec.InvalidUsage || r.Err.Call != "ncclGroupEnd" || !strings.Contains(r.Err.Message, "no algorithm")) {
				t.Errorf("error not carried: %+v", r.Err)
			}
		}
		wantReinits := 0
		if unhealthy {
			wantReinits = len(p.Sizes)
		}
		if e.reinits != wantReinits {
			t.Errorf("unhealthy=%v: %d reinits, want %d", unhealthy, e.reinits, wantReinits)
		}
	}
}

type cudaFail struct{ *fakeEngine }

func (c *cudaFail) Run(OpArgs, int, bool) ([]float64, error) {
	return nil, &CUDAError{Op: "cudaEventRecord", Code: 700, Name: "cudaErrorIllegalAddress"}
}

func TestRunStopsOnCUDAErrors(t *testing.T) {
	_, err := run(&cudaFail{newFake(2)}, testPlan(spec.AllReduce), nil)
	var ce *CUDAError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want the CUDA error", err)
	}
}

func TestRowBudgetShrinksIterations(t *testing.T) {
	e := newFake(2)
	e.msPerOp = 100 // 0.1 s per op
	p := testPlan(spec.AllReduce)
	p.Sizes = []uint64{1 << 20}
	p.Iters, p.Batches, p.RowBudget = 20, 5, time.Second
	rows, err := run(e, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.Iters*r.Batches > 10 || r.Iters < 1 || r.Batches < 1 {
		t.Errorf("iters %d x batches %d: want at most 10 ops of 0.1 s in a 1 s budget", r.Iters, r.Batches)
	}
	if r.TimeUs != 100000 {
		t.Errorf("time %v us, want 100000", r.TimeUs)
	}
}

func TestRunTimingAndBandwidth(t *testing.T) {
	e := newFake(2)
	e.msPerOp = 1 // 1 ms per op
	p := testPlan(spec.AllReduce, spec.AllGather)
	p.Sizes = []uint64{1 << 20}
	rows, err := run(e, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// AllReduce 1 MiB in 1 ms: algbw 1.048576 GB/s, busbw x 2(n-1)/n = x1.
	// AllGather 1 MiB total in 1 ms: same algbw, busbw x (n-1)/n.
	want := map[string][2]float64{"AllReduce": {1.048576, 1.048576}, "AllGather": {1.048576, 0.524288}}
	for _, r := range rows {
		w := want[r.Coll]
		if r.TimeUs != 1000 || !approxEq(r.AlgBw, w[0]) || !approxEq(r.BusBw, w[1]) {
			t.Errorf("%s: time %v algbw %v busbw %v, want 1000 %v %v", r.Coll, r.TimeUs, r.AlgBw, r.BusBw, w[0], w[1])
		}
	}
}

func approxEq(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestPlanValidate(t *testing.T) {
	good := testPlan(spec.AllReduce)
	cases := []struct {
		name string
		mod  func(*Plan)
		want string
	}{
		{"no funcs", func(p *Plan) { p.Funcs = nil }, "no collective"},
		{"fp8 checked", func(p *Plan) { p.DataType = spec.Float8e4m3 }, "cannot be checked"},
		{"premulsum", func(p *Plan) { p.RedOp = spec.PreMulSum }, "cannot be run"},
		{"root", func(p *Plan) { p.Root = 2 }, "root 2 out of range"},
		{"iters", func(p *Plan) { p.Iters = 0 }, "expected iters >= 1"},
		{"agg", func(p *Plan) { p.Agg = spec.MaxGroupOps + 1 }, "operations in one group: expected 1..4096"},
		{"negative agg", func(p *Plan) { p.Agg = -1 }, "operations in one group"},
	}
	if err := good.Validate(2); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		p := good
		c.mod(&p)
		if err := p.Validate(2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestSizeRange(t *testing.T) {
	got := SizeRange(8, 4<<30, 4)
	if got[0] != 8 || got[len(got)-1] != 2<<30 || len(got) != 15 {
		t.Errorf("SizeRange(8, 4G, 4) = %v", got)
	}
	if got := SizeRange(8, 4<<30, 2); len(got) != 30 || got[29] != 4<<30 {
		t.Errorf("SizeRange(8, 4G, 2) has %d sizes ending %d", len(got), got[len(got)-1])
	}
}

func TestSelfTestOnFake(t *testing.T) {
	if err := selfTest(newFake(2)); err != nil {
		t.Fatal(err)
	}
}

func TestMergeResultsTakesMedians(t *testing.T) {
	mk := func(us float64, err bool) *conformance.RunResult {
		r := &conformance.RunResult{NRanks: 2, Rows: []conformance.Row{{Func: spec.AllReduce, Size: 8, TimeUs: us, MinUs: us - 1, MaxUs: us + 1, BusBw: 1 / us}}}
		if err {
			r.Rows[0].Err = &spec.NCCLError{Result: spec.InvalidUsage}
		}
		return r
	}
	m := conformance.MergeResults([]*conformance.RunResult{mk(0, true), mk(12, false), mk(17, false), mk(13, false)})
	r := m.Rows[0]
	if len(m.Rows) != 1 || r.TimeUs != 13 || r.MinUs != 11 || r.MaxUs != 18 || r.Err != nil || r.BusBw != 1.0/13 || r.AlgBw != 1.0/13 {
		t.Errorf("merged %+v", r)
	}
	if m := conformance.MergeResults([]*conformance.RunResult{mk(0, true)}); m.Rows[0].Err == nil {
		t.Error("a row that failed everywhere must keep its error")
	}
}
