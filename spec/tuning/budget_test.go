package tuning

import (
	"errors"
	"testing"

	"github.com/gatesim/gatesim/nccl"
	"pgregory.net/rapid"
)

// budgetDraw is a random group on hgx-h100x8 (NVLS on) at a release of
// the 2.22.3 schedule, with a random NCCL_WORK_FIFO_BYTES of 1 KiB or more
// (smaller FIFOs reach channel overflows the model refuses; a power of 2,
// or not) and NCCL_WORK_ARGS_BYTES large enough for a task on every
// channel (NCCL caps the channels below that).
func budgetDraw(t *rapid.T, in Input) (nccl.Version, Input, []Call) {
	var rs []nccl.Version
	for _, v := range Releases {
		if v >= nccl.V2_22_3 {
			rs = append(rs, v)
		}
	}
	v := rapid.SampledFrom(rs).Draw(t, "release")
	if rapid.Bool().Draw(t, "fifo set") {
		f := int64(1) << rapid.IntRange(10, 22).Draw(t, "log2 fifo")
		if rapid.Bool().Draw(t, "fifo odd") {
			f += 3 // not a power of 2: NCCL keeps the default
		}
		in.WorkFifoBytes = &f
	}
	if rapid.Bool().Draw(t, "args set") {
		a := rapid.Int64Range(int64(32+16*in.NChannels), 8192).Draw(t, "args")
		in.WorkArgsBytes = &a
	}
	graph := rapid.Bool().Draw(t, "graph")
	n := rapid.IntRange(1, 300).Draw(t, "ops")
	ops := make([]Call, n)
	for i := range ops {
		f := rapid.SampledFrom([]nccl.Func{nccl.AllReduce, nccl.AllGather, nccl.ReduceScatter}).Draw(t, "func")
		b := rapid.SampledFrom([]nccl.Buffers{nccl.BuffersUser, nccl.BuffersRegistered}).Draw(t, "buffers")
		count := rapid.Int64Range(1, 1<<22).Draw(t, "count")
		ops[i] = Call{Op: nccl.Op{Func: f, Count: count, DataType: nccl.Float32, RedOp: nccl.Sum}, NVLSOK: true, Buffers: b, Graph: graph}
	}
	return v, in, ops
}

// TestPropPlanBudget: every kernel plan of a group keeps within its budget
// (its work batches in the arguments, its work there with them or outside
// in the FIFO's half or the persistent 1 GiB), takes its tasks in order,
// and reports its kernel arguments as finishPlan sizes them; and a group
// that fits one plan is planned the same with the largest budget NCCL
// allows (a 1 GiB FIFO, the full arguments).
func TestPropPlanBudget(t *testing.T) {
	base := tuningScenarioInput(t, "hgx-h100x8")
	rapid.Check(t, func(t *rapid.T) {
		v, in, ops := budgetDraw(t, base)
		m := tuningModel(t, in, v)
		g, err := ChooseGroup(m, ops)
		var loop *PlanLoopError
		if errors.As(err, &loop) {
			// NCCL's endless loop is the answer only where an empty plan
			// cannot hold the largest task: its work (NVLS-registered) with
			// a batch on every channel of the communicator.
			c := m.Tuning
			most := int64(c.WorkBatchBytes * max(in.NChannels, in.NVLSChannels))
			work := int64(c.WorkCollRegBytes)
			if most+work <= loop.InArgs || (most <= loop.InArgs && work <= loop.OutArgs) {
				t.Fatalf("the group loops (%v) with room for any task on every channel", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if g.Err != nil {
			return
		}
		c := m.Tuning
		works, plan := 0, -1
		for _, u := range g.Budget {
			batch := int64(u.Batches * c.WorkBatchBytes)
			if !(batch+u.WorkBytes <= u.InArgs || (batch <= u.InArgs && u.WorkBytes <= u.OutArgs)) {
				t.Fatalf("plan %d: %d batches and %d work bytes exceed its budget (%d in the arguments, %d outside)", u.Plan, u.Batches, u.WorkBytes, u.InArgs, u.OutArgs)
			}
			if u.Plan <= plan || u.Works < 1 {
				t.Fatalf("plan %d after plan %d with %d works", u.Plan, plan, u.Works)
			}
			wantArgs := int64(c.KernelArgsBytes) + batch
			if u.Storage == "args" {
				wantArgs += u.WorkBytes
			}
			if int64(u.ArgsBytes) != nccl.RoundUp(wantArgs, 16) || int64(u.ArgsBytes) > m.workArgsBytes() && u.Storage == "args" {
				t.Fatalf("plan %d: %d bytes of kernel arguments with work in %s, want %d", u.Plan, u.ArgsBytes, u.Storage, nccl.RoundUp(wantArgs, 16))
			}
			plan, works = u.Plan, works+u.Works
		}
		var sum int64
		planned := 0
		for _, ch := range g.Ops {
			if ch.WorkStorage == "" {
				continue
			}
			planned++
			sum += int64(ch.WorkBytes)
			if ch.WorkBytes != c.WorkCollBytes && !(ch.Registered == "NVLS" && ch.WorkBytes == c.WorkCollRegBytes) {
				t.Fatalf("op %d (registered %q): %d bytes of work", ch.Index, ch.Registered, ch.WorkBytes)
			}
		}
		var total int64
		for _, u := range g.Budget {
			total += u.WorkBytes
		}
		if planned != works || sum != total {
			t.Fatalf("%d planned ops with %d work bytes, the plans hold %d works and %d bytes", planned, sum, works, total)
		}
		if len(g.Budget) != 1 {
			return
		}
		big, full := int64(1<<30), int64(c.MaxKernelArgsBytes)
		in.WorkFifoBytes, in.WorkArgsBytes = &big, &full
		g2, err := ChooseGroup(tuningModel(t, in, v), ops)
		if err != nil || g2.Err != nil {
			t.Fatalf("with the largest budget: %v %v", err, g2.Err)
		}
		if g2.Plans != g.Plans {
			t.Fatalf("%d plans, %d with the largest budget", g.Plans, g2.Plans)
		}
		for i := range g.Ops {
			a, b := g.Ops[i], g2.Ops[i]
			if a.Algo != b.Algo || a.Proto != b.Proto || a.ChannelLo != b.ChannelLo || a.ChannelHi != b.ChannelHi || a.Part != b.Part || a.Plan != b.Plan || a.Works != b.Works {
				t.Fatalf("op %d changed with the largest budget: %+v, then %+v", i, a, b)
			}
		}
	})
}
