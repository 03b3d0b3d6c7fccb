package algos

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// An operation of a group builds on the channel split NCCL's group plan
// gave it: its work lies on those channels only and the schedule is valid;
// a split that does not hold the operation's elements is refused; and the
// split an operation gets alone builds the schedule Build makes alone.
func TestBuildOnGroupPart(t *testing.T) {
	for _, c := range []struct {
		preset string
		f      spec.Func
		size   int64
		agg    int
	}{
		{"h200x2", spec.AllReduce, 512 << 10, 8},
		{"h200x2", spec.AllReduce, 8 << 10, 8},
		{"h200x2", spec.AllGather, 8 << 20, 4},
		{"dgx-h100", spec.ReduceScatter, 1 << 20, 3},
	} {
		sys, err := spec.Preset(c.preset, spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		comm, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, spec.Env{"NCCL_NVLS_ENABLE": "0"})
		if err != nil {
			t.Fatal(err)
		}
		l, err := LayoutFromComm(comm)
		if err != nil {
			t.Fatal(err)
		}
		op, err := spec.OpFromBytes(c.f, c.size, spec.Float32, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		g, err := comm.SelectIssue(op, spec.Issue{Launch: spec.Launch{Agg: c.agg}})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range g.Ops {
			o, sel, err := FromDecision(d)
			if err != nil {
				t.Fatal(err)
			}
			if sel.Part == nil {
				t.Fatalf("%s %v op %d: no channel split from the group plan", c.preset, c.f, i)
			}
			s, err := Build(o, sel, l, Options{})
			if err != nil {
				t.Fatalf("%s %v op %d %v: %v", c.preset, c.f, i, sel, err)
			}
			if err := s.Validate(); err != nil {
				t.Errorf("%s %v op %d %v: %v", c.preset, c.f, i, sel, err)
			}
			for ch := 0; ch < s.NChannels; ch++ {
				busy := false
				for g := range s.NGroups {
					busy = busy || len(s.Program(0, ch, g)) > 0
				}
				if in := ch >= sel.Part.Lo && ch <= sel.Part.Hi; busy != in {
					t.Errorf("%s %v op %d: channel %d has work %v, split %d..%d", c.preset, c.f, i, ch, busy, sel.Part.Lo, sel.Part.Hi)
				}
			}
			bad := *sel.Part
			bad.CountLo++
			sel.Part = &bad
			if _, err := Build(o, sel, l, Options{}); err == nil || !strings.Contains(err.Error(), "elements") {
				t.Errorf("%s %v op %d: a split one element too large built (%v)", c.preset, c.f, i, err)
			}
		}
	}
	// alone: the split CollPartition gives is the one Build takes
	sys, _ := spec.Preset("h200x2", spec.PresetOptions{})
	comm, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, spec.Env{"NCCL_NVLS_ENABLE": "0"})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := LayoutFromComm(comm)
	op, _ := spec.OpFromBytes(spec.AllReduce, 64<<10, spec.Float32, spec.Sum, 0)
	d, _, err := comm.Select(op)
	if err != nil {
		t.Fatal(err)
	}
	o, sel, _ := FromDecision(d)
	alone, err := Build(o, sel, l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := l.Params()
	part, err := tuning.CollPartition(p.Sched, o.Func, l.NRanks(), sel.Proto, 4, o.Count, sel.NChannels, l.NChannels, sel.NThreads)
	if err != nil {
		t.Fatal(err)
	}
	sel.Part = &part
	split, err := Build(o, sel, l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if alone.String() != split.String() {
		t.Errorf("the lone split builds another schedule:\n%s\nwant\n%s", split, alone)
	}
}
