package calibrate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// TestGroupRowsSimulateAsSim: an nccl-tests row of -m 8 (on a stream and
// from a CUDA graph) is decided with its group and timed as gatesim sim
// --agg 8 times it, and the fit's closed form of it (the host issuing 8
// operations, each kernel's fixed cost once) follows that simulation
// within 10 % from the launch floor to the link. The closed form times the
// group's kernel as its first operation's schedule at the group's rates;
// it does not see two operations sharing the channel where their ranges
// meet (512 KiB: 3.0 against 3.2 µs), which the simulation, and so every
// reported time, does.
func TestGroupRowsSimulateAsSim(t *testing.T) {
	prof, err := sim.BuiltinProfile("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sizes := []int64{8, 4096, 512 << 10, 8 << 20, 256 << 20}
	for _, graph := range []int{0, 1} {
		var b strings.Builder
		b.WriteString("# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22809\n# Collective test starting: all_reduce_perf\n")
		fmt.Fprintf(&b, "# nThread 1 nGpus 2 minBytes 8 maxBytes 4096 step: 2(factor) warmup iters: 10 iters: 20 agg iters: 8 validation: 1 graph: %d unalign: 0\n", graph)
		for _, s := range sizes {
			bw := float64(s) / 100e-6 / 1e9 // 100 µs, algbw = busbw on 2 ranks
			fmt.Fprintf(&b, "%12d %12d     float     sum      -1    100.0  %6.2f  %6.2f       0    100.0  %6.2f  %6.2f       0\n", s, s/4, bw, bw, bw, bw)
		}
		rows, err := Load([]string{write(t, dir, fmt.Sprintf("nt-ar-g%d.txt", graph), b.String())})
		if err != nil {
			t.Fatal(err)
		}
		cs, err := Prepare(rows, "h200x2")
		if err != nil {
			t.Fatal(err)
		}
		ps := fitParams()
		v := make(values, len(ps))
		for i, p := range ps {
			v[i] = prof.Value(p.name)
		}
		for _, c := range cs {
			if !c.Simulable() || c.group == nil || c.Launch.Agg != 8 || c.Launch.Graph() != (graph == 1) {
				t.Fatalf("%d B graph %d: simulable %v (%s), group %v, launch %v: want a group of 8", c.Bytes, graph, c.Simulable(), c.Why, c.group != nil, c.Launch)
			}
			got, err := c.Simulate(prof)
			if err != nil {
				t.Fatal(err)
			}
			s, err := plan.Open(plan.Request{Ruleset: spec.MustLoad(spec.V2_28_9), Sys: sys, Env: spec.Env{"NCCL_NVLS_ENABLE": "0"}, Profile: prof,
				Issue: spec.Issue{Launch: spec.Launch{Agg: 8, Mode: spec.LaunchModeOf(graph == 1)}}})
			if err != nil {
				t.Fatal(err)
			}
			op, err := s.Op(spec.AllReduce, spec.Float32, spec.Sum, c.Bytes, 0)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := s.Run(op, plan.RunOptions{Describe: func(*spec.Decision) string { return "" }})
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			if rep.Group == nil || math.Abs(rep.Group.PerOpUs-got) > 1e-9 {
				t.Errorf("%d B graph %d: calibrate %.4f µs, sim --agg 8 %+v", c.Bytes, graph, got, rep.Group)
				continue
			}
			pr, err := newProbe(c)
			if err != nil {
				t.Fatal(err)
			}
			pr.index(ps)
			if cf := pr.predict(v); math.Abs(cf-got)/got > 0.10 {
				t.Errorf("%d B graph %d: closed form %.3f µs, simulation %.3f", c.Bytes, graph, cf, got)
			}
		}
	}
}
