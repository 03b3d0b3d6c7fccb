package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// drawProfile draws a profile that sets every parameter the property
// moves (a latency or bandwidth at 0 means "NCCL's constant" or "none",
// which the property does not vary).
func drawProfile(t *rapid.T) *Profile {
	p := &Profile{Schema: ProfileSchema, Name: "drawn", SM: 90, Params: map[string]Param{}}
	for _, ps := range ProfileParams() {
		var v float64
		switch {
		case ps.Name == "threads.exponent":
			v = rapid.Float64Range(-1, 2).Draw(t, ps.Name)
		case ps.Unit == "us":
			v = rapid.Float64Range(0.1, 50).Draw(t, ps.Name)
		case ps.Unit == "GB/s":
			v = rapid.Float64Range(1, 500).Draw(t, ps.Name)
		default:
			v = rapid.Float64Range(0.2, 1.5).Draw(t, ps.Name)
		}
		p.Params[ps.Name] = Param{Value: v, Source: "nominal"}
	}
	return p
}

// TestPropSlowerProfileNeverFaster: with the schedule (NCCL's decisions)
// held fixed, lowering any bandwidth of the profile or raising any latency
// or fixed cost (a NET split's per-message proxy time, a receive's flush
// too) never makes an operation finish sooner, a symmetric kernel's or
// copy-engine collective's included.
func TestPropSlowerProfileNeverFaster(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tc := drawTimingCase(t)
		m := machineFor(tc.sh)
		// nodes that are pieces of one host (NCCL's NET split): the NET
		// loopback parameters then time the network
		m.NetLoopback = m.Nodes > 1 && rapid.Bool().Draw(t, "loopback")
		// receives that flush what the NIC wrote (NET, CollNet), by iflush
		// or gdrcopy: the flush costs are latencies too
		m.NetFlush = rapid.Bool().Draw(t, "netflush")
		m.CollNetFlush = rapid.Bool().Draw(t, "collnetflush")
		m.GdrCopyFlush = rapid.Bool().Draw(t, "gdrcopy")
		s := tc.schedule(t, spec.Float32)
		p := drawProfile(t)
		cfg := Config{Machine: m,
			Launch: Launch{Launch: spec.Launch{Mode: spec.LaunchMode(rapid.IntRange(0, 1).Draw(t, "mode")), Agg: rapid.IntRange(0, 8).Draw(t, "agg")}, Logged: rapid.Bool().Draw(t, "logged"),
				Iters: rapid.SampledFrom([]int{0, 1, 2, 20, 100}).Draw(t, "iters")},
			NThreads:        rapid.SampledFrom([]int{128, 256, 512, 640}).Draw(t, "threads"),
			DefaultNThreads: 512,
			Transport:       rapid.SampledFrom([]string{"P2P", "SHM"}).Draw(t, "transport"),
		}
		cfg.Machine.Profile = p
		before, err := Simulate(s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, ps := range ProfileParams() {
			if ps.Name != "threads.exponent" {
				names = append(names, ps.Name)
			}
		}
		name := rapid.SampledFrom(names).Draw(t, "param")
		ps, _ := paramSpec(name)
		q := *p
		q.Params = map[string]Param{}
		for k, v := range p.Params {
			q.Params[k] = v
		}
		x := q.Params[name]
		latency := ps.Unit == "us" || strings.HasPrefix(name, "hop.")
		if latency {
			x.Value *= rapid.Float64Range(1, 10).Draw(t, "more")
		} else {
			x.Value *= rapid.Float64Range(0.05, 1).Draw(t, "less")
		}
		// within the parameter's range: a profile outside it is refused
		x.Value = min(max(x.Value, ps.Min), ps.Max)
		q.Params[name] = x
		cfg.Machine.Profile = &q
		after, err := Simulate(s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if after.Time < before.Time {
			t.Fatalf("%s %g -> %g: %v -> %v", name, p.Params[name].Value, x.Value, before.Time, after.Time)
		}
		// a symmetric kernel or copy-engine collective under the same
		// change (SimulateSym)
		sy, sm := drawSym(t)
		scfg := Config{Machine: sm, Launch: cfg.Launch}
		scfg.Machine.Profile = p
		sb, _, err := SimulateSym(sy, scfg)
		if err != nil {
			t.Fatal(err)
		}
		scfg.Machine.Profile = &q
		sa, _, err := SimulateSym(sy, scfg)
		if err != nil {
			t.Fatal(err)
		}
		if sa.Time < sb.Time {
			t.Fatalf("%s: %s %g -> %g: %v -> %v", sy, name, p.Params[name].Value, x.Value, sb.Time, sa.Time)
		}
	})
}

// BatchTime is the two-stage pipeline's time per operation.
func TestBatchTime(t *testing.T) {
	for _, c := range []struct {
		host, dev float64
		n         int
		want      float64
	}{
		{10, 4, 0, 14},
		{10, 4, 1, 14},
		{10, 4, 2, 12},            // (10 + 4 + 10) / 2: the host bounds
		{10, 4, 20, 10.2},         // (14 + 19 × 10) / 20
		{4, 10, 2, 12},            // (14 + 10) / 2: the device bounds
		{4, 10, 100, 10.04},       // (14 + 99 × 10) / 100
		{0, 10, 5, 10},            // nothing to overlap
		{10, 10, 4, 12.5},         // (20 + 3 × 10) / 4
		{13.5, 0.25, 3, 13.58333}, // (13.75 + 2 × 13.5) / 3
	} {
		if got := BatchTime(c.host, c.dev, c.n); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("BatchTime(%g, %g, %d) = %g, want %g", c.host, c.dev, c.n, got, c.want)
		}
	}
}

// A long operation's batch does not overflow picoseconds.
func TestBatchEndLong(t *testing.T) {
	host, end := FromMicros(17), Time(2_359_296_000_067_831_559)
	if got := batchEnd(host, end, 20); got < end-host || got > end {
		t.Errorf("batchEnd(%v, %v, 20) = %v", host, end, got)
	}
}

// An operation of a timed batch on a stream is reported as BatchTime of
// its host part and the rest of its time alone; from a CUDA graph, or
// without launch costs (NCCL's base latency), the batch does not change it.
func TestSimulateBatch(t *testing.T) {
	m, err := Preset("dgx-h100")
	if err != nil {
		t.Fatal(err)
	}
	m.Nodes, m.GPUsPerNode, m.NICs = 1, 2, 2
	l, err := algos.DefaultLayout(spec.V2_28_9, 1, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	s, err := algos.Build(spec.Op{Func: spec.AllReduce, Count: 1 << 10, DataType: spec.Float32}, algos.Selection{Algo: spec.Ring, Proto: spec.LL}, l, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &Profile{Schema: ProfileSchema, Name: "t", SM: 90, Params: map[string]Param{
		"launch.stream": {Value: 12, Source: "nominal"}, "launch.graph": {Value: 5, Source: "nominal"},
		"launch.device": {Value: 6, Source: "nominal"}, "launch.channel": {Value: 0.5, Source: "nominal"}}}
	run := func(p *Profile, mode spec.LaunchMode, iters int) Time {
		cfg := Config{Machine: m, Launch: Launch{Launch: spec.Launch{Mode: mode}, Iters: iters}}
		cfg.Machine.Profile = p
		r, err := Simulate(s, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return r.Time
	}
	alone := run(p, spec.LaunchStream, 1)
	host := FromMicros(12 + 0.5*float64(s.NChannels-1))
	if got, want := run(p, spec.LaunchStream, 0), run(p, spec.LaunchStream, DefaultIters); got != want {
		t.Errorf("stream, nccl-tests' default batch: %v, want %v (%d per batch)", got, want, DefaultIters)
	}
	for _, n := range []int{2, 20} {
		if got, want := run(p, spec.LaunchStream, n), BatchTime(host, alone-host, n); got != want {
			t.Errorf("stream, %d per batch: %v, want %v", n, got, want)
		}
		if got, want := run(p, spec.LaunchGraph, n), run(p, spec.LaunchGraph, 1); got != want {
			t.Errorf("graph, %d per batch: %v, want %v alone", n, got, want)
		}
		if got, want := run(nil, spec.LaunchStream, n), run(nil, spec.LaunchStream, 1); got != want {
			t.Errorf("nominal, %d per batch: %v, want %v alone", n, got, want)
		}
	}
	if got := run(p, spec.LaunchStream, 20); got >= alone {
		t.Errorf("a batch of 20 small operations overlaps nothing: %v, alone %v", got, alone)
	}
}

// A profile file reads back; bad ones name what is wrong.
func TestParseProfile(t *testing.T) {
	p, err := BuiltinProfile("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Calibrated() || p.SM != 90 || p.Source("launch.stream") != "calibrated" {
		t.Errorf("built-in profile: %s", p.Summary())
	}
	for _, c := range []struct{ body, want string }{
		{"schema: other\nname: x\n", `schema "other"`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  nosuch: {value: 1, source: nominal}\n", `parameter "nosuch": unknown`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  cap.Ring.LL: {value: -1, source: nominal}\n", `parameter "cap.Ring.LL": value -1: expected 0 (no cap) or [0.01, 1e+06] GB/s`},
		// a cap of 0.001 GB/s would be slower than no cap (0) by orders of magnitude
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  cap.Ring.LL: {value: 0.001, source: nominal}\n", `parameter "cap.Ring.LL": value 0.001: expected 0 (no cap) or [0.01, 1e+06] GB/s`},
		// an efficiency of 0 stops every byte
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  link.nvlink.eff: {value: 0, source: nominal}\n", `parameter "link.nvlink.eff": value 0: expected [0.01, 2]`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  link.nvlink.eff: {value: 1e-300, source: nominal}\n", `parameter "link.nvlink.eff": value 1e-300: expected [0.01, 2]`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  func.Reduce.bw: {value: 1e6, source: nominal}\n", `parameter "func.Reduce.bw": value 1e+06: expected [0.01, 2]`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  threads.exponent: {value: -5, source: nominal}\n", `parameter "threads.exponent": value -5: expected [-4, 4]`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  launch.stream: {value: 2e6, source: nominal}\n", `parameter "launch.stream": value 2e+06: expected [0, 1e+06] us`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  transport.shm.bw: {value: 0.005, source: nominal}\n", `expected 0 (timed over the machine's PCIe figure) or [0.01, 1e+06] GB/s`},
		// YAML's NaN and infinities: JSON cannot hold them, the error names the parameter
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  link.nvlink.eff: {value: .nan, source: nominal}\n", `f.yaml: parameter "link.nvlink.eff": value NaN: expected [0.01, 2]`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  launch.stream: {value: -.inf, source: nominal}\n", `f.yaml: parameter "launch.stream": value -Inf: expected [0, 1e+06] us`},
		{"schema: gatesim-profile/v1\nname: x\nsm: .inf\n", "f.yaml: sm: +Inf: expected a finite number"},
		// a key twice: YAML forbids it (the last value would win)
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  link.nvlink.eff: {value: 0.9, source: nominal}\n  link.nvlink.eff: {value: 0.5, source: nominal}\n", `f.yaml: yaml: unmarshal errors: line 5: key "link.nvlink.eff" already set`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  link.nvlink.eff: {value: 0.9, value: 0.5, source: nominal}\n", `line 4: key "value" already set`},
		{"schema: gatesim-profile/v1\nname: x\nparams:\n  cap.Ring.LL: {value: 1, source: calibrated}\n", "calibrated but names no capture"},
		{"schema: gatesim-profile/v1\nname: x\nbogus: 1\n", "unknown field"},
		{"schema: [\n", "f.yaml:"},
	} {
		if _, err := ParseProfile([]byte(c.body), "f.yaml"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}

func FuzzParseProfile(f *testing.F) {
	b, _ := profileFiles.ReadFile("profiles/h200x2.yaml")
	f.Add(b)
	f.Add([]byte("schema: gatesim-profile/v1\nname: x\n"))
	f.Add([]byte("schema: gatesim-profile/v1\nname: x\nparams:\n  link.nvlink.eff: {value: .nan, source: nominal}\n  link.nvlink.eff: {value: 0, source: nominal}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile(data, "fuzz.yaml")
		if err == nil && p.Validate() != nil {
			t.Fatal("parsed a profile that does not validate")
		}
	})
}
