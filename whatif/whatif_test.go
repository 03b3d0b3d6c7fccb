package whatif

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gatesim/gatesim/internal/benchcpu"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

func TestExpandOrderAndCount(t *testing.T) {
	sw := Sweep{
		NCCL:    []string{"2.22.3", "2.28.9"},
		Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1, 2, 4}, SHARP: []bool{false, true}}},
		Env:     []EnvSet{{Name: "a"}, {Name: "b", Vars: map[string]string{"NCCL_COLLNET_ENABLE": "1"}}},
		Colls:   []string{"allreduce", "allgather"},
		Sizes:   SizeAxis{From: "4KiB", To: "1MiB", Factor: 4},
	}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * 6 * 2 * 2 * 5; len(pts) != want { // 4K,16K,64K,256K,1M
		t.Fatalf("%d points, want %d", len(pts), want)
	}
	for i, p := range pts {
		if p.Index != i {
			t.Fatalf("point %d has index %d", i, p.Index)
		}
	}
	// release is the outermost axis, size the innermost
	if pts[0].Release != spec.V2_22_3 || pts[len(pts)-1].Release != spec.V2_28_9 || pts[1].Size != 16<<10 {
		t.Fatalf("unexpected order: %v %v %d", pts[0].Release, pts[len(pts)-1].Release, pts[1].Size)
	}
	// nccl-tests sizes: AllGather's count is per rank
	for _, p := range pts {
		n := int64(p.Machine.Sys.NRanks())
		switch p.Op.Func {
		case spec.AllGather:
			if p.Op.Count*4*n != p.Size {
				t.Fatalf("allgather size %d count %d ranks %d", p.Size, p.Op.Count, n)
			}
		case spec.AllReduce:
			if p.Op.Count*4 != p.Size {
				t.Fatalf("allreduce size %d count %d", p.Size, p.Op.Count)
			}
		}
	}
}

func TestBadSweeps(t *testing.T) {
	base := func() Sweep {
		return Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100"}}, Sizes: SizeAxis{List: []string{"1MiB"}}}
	}
	cases := map[string]func(*Sweep){
		"no release":      func(s *Sweep) { s.NCCL = nil },
		"unknown release": func(s *Sweep) { s.NCCL = []string{"2.17.1"} },
		"no system":       func(s *Sweep) { s.Systems = nil },
		"unknown preset":  func(s *Sweep) { s.Systems[0].Preset = "dgx-z" },
		"empty range":     func(s *Sweep) { s.Sizes = SizeAxis{From: "1GiB", To: "1MiB"} },
		"bad factor":      func(s *Sweep) { s.Sizes = SizeAxis{From: "1KiB", To: "1MiB", Factor: 1} },
		"overflow":        func(s *Sweep) { s.Sizes = SizeAxis{List: []string{"99999999999TiB"}} },
		"both size forms": func(s *Sweep) { s.Sizes.From = "1KiB" },
		"zero nodes":      func(s *Sweep) { s.Systems[0].Nodes = []int{0} },
		"unknown coll":    func(s *Sweep) { s.Colls = []string{"gather"} },
		"bad env":         func(s *Sweep) { s.Env = []EnvSet{{Name: "x", Vars: map[string]string{"BAD NAME": "1"}}} },
		"unnamed env":     func(s *Sweep) { s.Env = []EnvSet{{}} },
		"fp8 in 2.22.3":   func(s *Sweep) { s.NCCL = []string{"2.22.3"}; s.DType = "e4m3" },
		"too many points": func(s *Sweep) {
			s.Systems[0].Nodes = make([]int, 2000)
			s.Sizes = SizeAxis{From: "1B", To: "1TiB", Factor: 2}
		},
	}
	for name, mod := range cases {
		sw := base()
		mod(&sw)
		if name == "too many points" {
			for i := range sw.Systems[0].Nodes {
				sw.Systems[0].Nodes[i] = 1 + i%4096
			}
			sw.Env = make([]EnvSet, 200)
			for i := range sw.Env {
				sw.Env[i].Name = "e"
			}
		}
		if _, err := Expand(sw); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.HasPrefix(err.Error(), "sweep: ") {
			t.Errorf("%s: error %q does not say it is the sweep's", name, err)
		}
	}
}

func TestRunIsDeterministic(t *testing.T) {
	pts, err := Expand(Sweep{NCCL: []string{"2.22.3", "2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1, 2}, SHARP: []bool{false, true}}},
		Env: []EnvSet{{Name: "a"}, {Name: "collnet", Vars: map[string]string{"NCCL_COLLNET_ENABLE": "1"}}}, Sizes: SizeAxis{From: "4KiB", To: "4GiB", Factor: 8}})
	if err != nil {
		t.Fatal(err)
	}
	a := Run(pts, 1, nil, nil)
	b := Run(pts, 4, nil, nil)
	for i := range a {
		if a[i].Outcome != b[i].Outcome || a[i].ModelUs != b[i].ModelUs || a[i].CollNetGate != b[i].CollNetGate {
			t.Fatalf("point %d differs between 1 and 4 workers: %q vs %q", i, a[i].Outcome, b[i].Outcome)
		}
	}
}

// BenchmarkSweep100k evaluates 100,000 points (the target: a few seconds on
// 2 cores) and reports points per second.
func BenchmarkSweep100k(b *testing.B) {
	var nodes []int
	for n := 1; n <= 4096; n *= 2 {
		nodes = append(nodes, n)
	}
	sw := Sweep{NCCL: []string{"2.22.3", "2.28.3", "2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: nodes, SHARP: []bool{false, true}}},
		Env:   []EnvSet{{Name: "default"}, {Name: "collnet", Vars: map[string]string{"NCCL_COLLNET_ENABLE": "1"}}, {Name: "nvls-off", Vars: map[string]string{"NCCL_NVLS_ENABLE": "0"}}},
		Colls: []string{"allreduce", "allgather", "reducescatter", "broadcast", "reduce"}, Sizes: SizeAxis{From: "1KiB", To: "32GiB", Factor: 2}}
	pts, err := Expand(sw)
	if err != nil {
		b.Fatal(err)
	}
	pts = pts[:min(len(pts), 100_000)]
	b.ResetTimer()
	for b.Loop() {
		Run(pts, 2, nil, nil)
	}
	b.ReportMetric(float64(len(pts))*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// A simulation reused across points gives the time simulating the point
// afresh gives (points across releases and environments share schedules).
func TestSimulatorReuseIsExact(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.22.3", "2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1, 2, 4}, SHARP: []bool{false, true}}},
		Env:   []EnvSet{{Name: "default"}, {Name: "nvls-off", Vars: map[string]string{"NCCL_NVLS_ENABLE": "0"}}},
		Colls: []string{"allreduce", "allgather"}, Sizes: SizeAxis{From: "64KiB", To: "4MiB", Factor: 4}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	fresh := Run(pts, 2, Simulate, nil)
	reused := Run(pts, 2, NewSimulator(64, SimOptions{}), nil)
	simulated := 0
	for i := range fresh {
		if fresh[i].SimUs != reused[i].SimUs {
			t.Errorf("point %d (%s): %g µs afresh, %g µs reused", i, fresh[i].Outcome, fresh[i].SimUs, reused[i].SimUs)
		}
		if fresh[i].SimUs > 0 {
			simulated++
		}
	}
	if simulated < len(pts)/2 {
		t.Fatalf("only %d of %d points simulated", simulated, len(pts))
	}
}

// Points whose machine, decision and size agree share one simulation:
// NCCL_COLLNET_ENABLE without a SHARP switch changes nothing, so the two
// environments' points share keys, and the reused times are the fresh ones.
func TestSimulatorReuses(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{2}}},
		Env:   []EnvSet{{Name: "default"}, {Name: "collnet", Vars: map[string]string{"NCCL_COLLNET_ENABLE": "1"}}},
		Colls: []string{"allreduce"}, Sizes: SizeAxis{From: "64KiB", To: "1MiB", Factor: 4}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	keys := map[string]bool{}
	Run(pts, 2, func(p Point, comm *spec.Comm, ds []*spec.Decision) (float64, error) {
		in, err := simInputOf(p, comm, ds[0], SimOptions{})
		if err != nil {
			return 0, err
		}
		k, err := in.key()
		if err != nil {
			return 0, err
		}
		mu.Lock()
		defer mu.Unlock()
		keys[k] = true
		return 1, nil
	}, nil)
	if len(keys) == 0 || len(keys) >= len(pts) {
		t.Fatalf("%d points have %d distinct simulations: nothing would be reused", len(pts), len(keys))
	}
	fresh := Run(pts, 1, Simulate, nil)
	reused := Run(pts, 1, NewSimulator(64, SimOptions{}), nil)
	for i := range fresh {
		if fresh[i].SimUs <= 0 || fresh[i].SimUs != reused[i].SimUs {
			t.Errorf("point %d (%s): %g µs afresh, %g µs reused", i, fresh[i].Outcome, fresh[i].SimUs, reused[i].SimUs)
		}
	}
}

// BenchmarkSweepSim10080 is whatif with simulation over 10,080 points:
// DGX H100 of 1–128 nodes with and without SHARP, three releases, three
// environments, five collectives, 14 sizes from 64 KiB to 512 MiB, on two
// workers; cpu-ns/op is the CPU time of both (what to read on the shared
// machine: the wall clock on two idle cores is about half of it).
func BenchmarkSweepSim10080(b *testing.B) {
	sw := Sweep{NCCL: []string{"2.22.3", "2.28.3", "2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1, 2, 4, 8, 16, 32, 64, 128}, SHARP: []bool{false, true}}},
		Env:   []EnvSet{{Name: "default"}, {Name: "collnet", Vars: map[string]string{"NCCL_COLLNET_ENABLE": "1"}}, {Name: "nvls-off", Vars: map[string]string{"NCCL_NVLS_ENABLE": "0"}}},
		Colls: []string{"allreduce", "allgather", "reducescatter", "broadcast", "reduce"}, Sizes: SizeAxis{From: "64KiB", To: "512MiB", Factor: 2}}
	pts, err := Expand(sw)
	if err != nil {
		b.Fatal(err)
	}
	if len(pts) != 10080 {
		b.Fatalf("%d points, want 10,080", len(pts))
	}
	var cpu benchcpu.Timer
	cpu.Start()
	for b.Loop() {
		Run(pts, 2, NewSimulator(4096, SimOptions{}), nil)
	}
	cpu.Report(b, 0)
	b.ReportMetric(float64(len(pts))*float64(b.N)/b.Elapsed().Seconds(), "points/s")
}

// SendRecv and AllToAll take NCCL's p2p path: their points are decided
// ("p2p", no cost-table time) and simulated; AllToAll's nccl-tests size is
// the whole buffer, so its count is per peer. The NVL72 rack (18 trays, one
// MNNVL node) and the 2 × H200 split into NET nodes simulate too.
func TestPointToPointPoints(t *testing.T) {
	var pts []Point
	for _, sw := range []Sweep{{
		NCCL:    []string{"2.28.9"},
		Systems: []SystemAxis{{Preset: "h200x2"}},
		Env:     []EnvSet{{Name: "default"}, {Name: "net", Vars: map[string]string{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"}}},
		Colls:   []string{"sendrecv", "alltoall", "allreduce"},
		Sizes:   SizeAxis{List: []string{"72MiB"}},
	}, {
		// AllToAll on 72 ranks takes seconds to simulate: the rack runs
		// SendRecv and AllReduce here
		NCCL:    []string{"2.28.9"},
		Systems: []SystemAxis{{Preset: "gb200-nvl72", Nodes: []int{18}}},
		Env:     []EnvSet{{Name: "default"}},
		Colls:   []string{"sendrecv", "allreduce"},
		Sizes:   SizeAxis{List: []string{"72MiB"}},
	}} {
		p, err := Expand(sw)
		if err != nil {
			t.Fatal(err)
		}
		pts = append(pts, p...)
	}
	for _, r := range Run(pts, 2, Simulate, nil) {
		n := int64(r.Machine.Sys.NRanks())
		if r.Op.Func == spec.AllToAll && r.Op.Count*4*n != r.Size {
			t.Errorf("alltoall size %d count %d ranks %d", r.Size, r.Op.Count, n)
		}
		if r.Op.Func.IsP2P() && r.Outcome != "p2p" {
			t.Errorf("%s on %s/%s: outcome %q", r.Op.Func, r.Machine.Label, r.Env.Name, r.Outcome)
		}
		if strings.HasPrefix(r.Outcome, "error") {
			continue // NCCL's own refusal, if any
		}
		if r.SimUs <= 0 || r.TimeSource != "sim" {
			t.Errorf("%s on %s/%s (%s): not simulated", r.Op.Func, r.Machine.Label, r.Env.Name, r.Outcome)
		}
	}
}

// A sweep issued in groups (--agg 8) decides each point by the group
// plan: 512 KiB AllReduces on 2 × H200 are Ring/Simple in a group of 8
// where alone they are Ring/LL, and every group operation is simulated.
func TestWhatifIssuedInGroups(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "h200x2"}},
		Colls: []string{"allreduce"}, Sizes: SizeAxis{List: []string{"512KiB"}}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	alone := RunWith(pts, 1, RunOptions{Sim: NewSimulator(16, SimOptions{})}, nil)
	l := sim.Launch{Launch: spec.Launch{Agg: 8}}
	grouped := RunWith(pts, 1, RunOptions{Sim: NewSimulator(16, SimOptions{Launch: l}), Issue: spec.Issue{Launch: l.Launch}}, nil)
	if alone[0].Outcome != "Ring/LL" || grouped[0].Outcome != "Ring/Simple" {
		t.Errorf("alone %q, in a group of 8 %q: want Ring/LL and Ring/Simple", alone[0].Outcome, grouped[0].Outcome)
	}
	if grouped[0].SimUs <= 0 || grouped[0].SimUs >= alone[0].SimUs {
		t.Errorf("per-operation time in a group of 8 %g µs, alone %g µs: expected less, the operations run at once", grouped[0].SimUs, alone[0].SimUs)
	}
}

// A SendRecv or AllToAll swept with --agg 8 is decided and simulated as
// its send/recv group (nccl-tests -m 8): every point answers "p2p" with a
// simulated time per operation, and the AllToAll's time on one DGX H100
// at 2.28.9 takes its two kernel plans (the eighth operation's works in a
// second kernel), so it differs from the SendRecv-like single kernel.
func TestWhatifP2PInGroups(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100"}},
		Colls: []string{"sendrecv", "alltoall"}, Sizes: SizeAxis{List: []string{"8MiB"}}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	l := sim.Launch{Launch: spec.Launch{Agg: 8}}
	alone := RunWith(pts, 1, RunOptions{Sim: NewSimulator(16, SimOptions{})}, nil)
	grouped := RunWith(pts, 1, RunOptions{Sim: NewSimulator(16, SimOptions{Launch: l}), Issue: spec.Issue{Launch: l.Launch}}, nil)
	for i, r := range grouped {
		if r.Outcome != "p2p" || r.SimUs <= 0 {
			t.Errorf("%s in a group of 8: outcome %q, %g µs simulated; want p2p and a time", r.Op.Func, r.Outcome, r.SimUs)
		}
		if r.SimUs == alone[i].SimUs {
			t.Errorf("%s: %g µs in a group of 8 and alone: the group's kernels were not timed", r.Op.Func, r.SimUs)
		}
	}
}

// TestDiffReleasesTimeOnly: a point where the releases decide alike but
// the time moves by more than 1 % is listed as time alone, one where
// they decide differently is not, and one within 1 % is not listed.
func TestDiffReleasesTimeOnly(t *testing.T) {
	m := &Machine{Label: "m"}
	pt := func(rel spec.Version, size int64, outcome string, us float64) Result {
		r := Result{Outcome: outcome, ModelUs: us}
		r.Release, r.Size, r.Machine, r.Op.Func = rel, size, m, spec.AllReduce
		return r
	}
	rs := []Result{
		pt(spec.V2_22_3, 1, "Tree/LL", 65.9), pt(spec.V2_23_4, 1, "Tree/LL", 67.5),
		pt(spec.V2_22_3, 2, "Tree/LL", 65.9), pt(spec.V2_23_4, 2, "Ring/LL", 65.9),
		pt(spec.V2_22_3, 3, "Tree/LL", 65.9), pt(spec.V2_23_4, 3, "Tree/LL", 66.2),
	}
	diffs := DiffReleases(rs)
	if len(diffs) != 2 || !diffs[0].TimeOnly || diffs[1].TimeOnly {
		t.Fatalf("diffs %+v: want the 1 B point as time alone and the 2 B point as a decision", diffs)
	}
	var b strings.Builder
	if err := WriteTable(&b, rs, diffs); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "(1 in the decision, 1 in time alone") || !strings.Contains(out, "same decision: Tree/LL") {
		t.Errorf("table:\n%s", out)
	}
}

// TestDiffReleasesChannels: releases that keep the algorithm and protocol
// but run the operation on other channels, alone or in a group, decide
// differently; the same channels are no difference.
func TestDiffReleasesChannels(t *testing.T) {
	m := &Machine{Label: "m"}
	pt := func(rel spec.Version, size int64, nch int, ch Channels) Result {
		r := Result{Outcome: "Ring/Simple", ModelUs: 10, NChannels: nch, Channels: ch}
		r.Release, r.Size, r.Machine, r.Op.Func = rel, size, m, spec.AllReduce
		return r
	}
	g8 := Channels{Ops: 8, Ranges: "0..2, 2..5, …, 20..23"}
	g8b := Channels{Ops: 8, Ranges: "0..2 ×8"}
	rs := []Result{
		pt(spec.V2_22_3, 1, 24, Channels{Ops: 1}), pt(spec.V2_23_4, 1, 16, Channels{Ops: 1}),
		pt(spec.V2_22_3, 2, 3, g8), pt(spec.V2_23_4, 2, 3, g8b),
		pt(spec.V2_22_3, 3, 24, Channels{Ops: 1}), pt(spec.V2_23_4, 3, 24, Channels{Ops: 1}),
		pt(spec.V2_22_3, 4, 3, g8), pt(spec.V2_23_4, 4, 3, g8),
	}
	diffs := DiffReleases(rs)
	if len(diffs) != 2 || diffs[0].TimeOnly || diffs[1].TimeOnly {
		t.Fatalf("diffs %+v: want the 1 B and 2 B points as decisions and nothing else", diffs)
	}
	if got := diffs[0].Outcomes; got[0] != "Ring/Simple × 24 ch" || got[1] != "Ring/Simple × 16 ch" {
		t.Errorf("lone decisions %q", got)
	}
	if got := diffs[1].Outcomes[1]; got != "Ring/Simple on 0..2 ×8" {
		t.Errorf("group decision %q", got)
	}
}

// Window buffers: every point NCCL runs on a symmetric kernel or the copy
// engines has a simulated time (sim.SimulateSym), the same reused as
// afresh, and a larger operation of one kernel never less.
func TestSimulatedWindowRows(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.28.9", "2.30.7"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1}}, {Preset: "h200x2", Nodes: []int{1}}},
		Env:   []EnvSet{{Name: "default"}, {Name: "ce", Vars: map[string]string{"NCCL_CTA_POLICY": "2"}}},
		Colls: []string{"allreduce", "allgather", "reducescatter"}, Sizes: SizeAxis{From: "4KiB", To: "256MiB", Factor: 16}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	is := spec.Issue{Buffers: spec.BuffersWindow}
	fresh := RunWith(pts, 2, RunOptions{Sim: Simulate, Issue: is}, nil)
	reused := RunWith(pts, 2, RunOptions{Sim: NewSimulator(64, SimOptions{}), Issue: is}, nil)
	kernels, ce := 0, 0
	for i, r := range fresh {
		if r.Err != nil || strings.HasPrefix(r.Outcome, "error") {
			continue
		}
		if r.SimUs <= 0 || r.TimeSource != "sim" {
			t.Errorf("point %d %s %s %s: no simulated time (%q)", i, r.Machine.Label, r.Op.Func, r.Outcome, r.TimeSource)
		}
		if reused[i].SimUs != r.SimUs {
			t.Errorf("point %d: %g µs afresh, %g reused", i, r.SimUs, reused[i].SimUs)
		}
		if r.Outcome == "copy-engine" {
			ce++
		} else if strings.Contains(r.Outcome, "_") {
			kernels++
		}
		if i > 0 && fresh[i-1].Outcome == r.Outcome && fresh[i-1].Op.Func == r.Op.Func && fresh[i-1].Size < r.Size && fresh[i-1].SimUs > r.SimUs && fresh[i-1].NChannels == r.NChannels {
			t.Errorf("point %d %s: %g µs at %d B after %g µs at %d B", i, r.Outcome, r.SimUs, r.Size, fresh[i-1].SimUs, fresh[i-1].Size)
		}
	}
	if kernels == 0 || ce == 0 {
		t.Fatalf("%d symmetric-kernel and %d copy-engine points of %d", kernels, ce, len(pts))
	}
}

// algbw and busbw divide the bytes of the count NCCL runs, as nccl-tests
// does: 1000 B of float32 AllGather on 8 ranks is 31 elements a rank, 992
// B; the size column keeps the 1000 B asked for.
func TestBandwidthOfTheCountRun(t *testing.T) {
	cases := []struct {
		coll      string
		size, run int64
	}{
		{"allgather", 1000, 992},
		{"reducescatter", 1000, 992},
		{"allreduce", 1002, 1000},
		{"allreduce", 1024, 1024},
	}
	for _, tc := range cases {
		pts, err := Expand(Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1}}},
			Colls: []string{tc.coll}, Sizes: SizeAxis{List: []string{strconv.FormatInt(tc.size, 10)}}})
		if err != nil {
			t.Fatal(err)
		}
		r := Run(pts, 1, nil, nil)[0]
		n := r.Machine.Sys.NRanks()
		if r.Size != tc.size || r.ModelUs <= 0 || r.TimeSource != "model" || n != 8 {
			t.Fatalf("%s %d B: size %d, %g µs (%q) on %d ranks; want the asked size timed by the model on 8 ranks", tc.coll, tc.size, r.Size, r.ModelUs, r.TimeSource, n)
		}
		alg, bus := sim.Bandwidth(r.Op.Func, tc.run, n, r.ModelUs*1e-6)
		if r.AlgBw != alg || r.BusBw != bus {
			t.Errorf("%s %d B: algbw %g busbw %g; want %g %g (the %d B it runs)", tc.coll, tc.size, r.AlgBw, r.BusBw, alg, bus, tc.run)
		}
	}
}
