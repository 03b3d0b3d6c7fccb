package sim

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

func commOn(t *testing.T, preset string, nodes int, env spec.Env) (*spec.System, *spec.Comm) {
	t.Helper()
	sys, err := spec.Preset(preset, spec.PresetOptions{Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	c, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Err != nil {
		t.Fatalf("%s: init failed: %s", preset, c.Err.Message)
	}
	return sys, c
}

// TestMachineForComm maps NCCL's nodes onto the machine: hosts as they are,
// an NVL72 rack (18 trays of 4 GPUs, one MNNVL clique) as one NCCL node of
// 72 GPUs on the rack's NVLink, and a 2 × H200 host with P2P and SHM off as
// NCCL's two NET nodes over the host's Socket interface (10 Gbps as NCCL
// reads it when the speed is unknown); each simulates NCCL's choice and a
// SendRecv on it.
func TestMachineForComm(t *testing.T) {
	tests := []struct {
		name               string
		preset             string
		nodes              int
		env                spec.Env
		wantNodes, wantGPU int
		wantNICs           int
		loopback           bool
		nvswitch           bool
	}{
		{"dgx-h100 × 2", "dgx-h100", 2, spec.Env{}, 2, 8, 8, false, true},
		{"NVL72 rack", "gb200-nvl72", 18, spec.Env{}, 1, 72, 72, false, true},
		{"h200x2 NET split", "h200x2", 1, spec.Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"}, 2, 1, 1, true, true},
		{"h200x2 P2P level LOC", "h200x2", 1, spec.Env{"NCCL_P2P_LEVEL": "LOC", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"}, 2, 1, 1, true, true},
	}
	for _, tc := range tests {
		sys, c := commOn(t, tc.preset, tc.nodes, tc.env)
		m, err := MachineForComm(sys, c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.Nodes != tc.wantNodes || m.GPUsPerNode != tc.wantGPU || m.NICs != tc.wantNICs || m.NetLoopback != tc.loopback || m.NVSwitch != tc.nvswitch {
			t.Errorf("%s: machine %+v", tc.name, m)
		}
		if m.SHARP != c.CollNetSupport || m.NVLS != c.NVLSSupport {
			t.Errorf("%s: SHARP %v NVLS %v, the communicator %v %v", tc.name, m.SHARP, m.NVLS, c.CollNetSupport, c.NVLSSupport)
		}
		if tc.loopback && m.NICBw != GBps(1.25) {
			t.Errorf("%s: NET at %d B/s, want NCCL's 10 Gbps default", tc.name, m.NICBw)
		}
		l, err := algos.LayoutFromComm(c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, f := range []spec.Func{spec.AllReduce, spec.SendRecv} {
			d, _, err := c.Select(spec.Op{Func: f, Count: 1 << 20, DataType: spec.Float32, RedOp: spec.Sum})
			if err != nil {
				t.Fatal(err)
			}
			op, sel, err := algos.FromDecision(d)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, f, err)
			}
			s, err := algos.Build(op, sel, l, algos.Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, f, err)
			}
			res, err := Simulate(s, Config{Machine: m})
			if err != nil || res.TimeUs <= 0 {
				t.Fatalf("%s %s: %v %v", tc.name, f, res, err)
			}
			if tc.loopback && res.NetBytes == 0 {
				t.Errorf("%s %s: NCCL's NET nodes exchanged no network bytes", tc.name, f)
			}
		}
	}
}

// TestMachineForCommRejects: NCCL nodes that do not tile the machine and a
// fusion of hosts without MNNVL are errors.
func TestMachineForCommRejects(t *testing.T) {
	sys, good := commOn(t, "dgx-h100", 2, spec.Env{})
	for _, tc := range []struct {
		name string
		mut  func(c *spec.Comm)
		want string
	}{
		{"uneven nodes", func(c *spec.Comm) { c.NNodes, c.LocalRanks, c.MaxLocalRanks = 3, []int{4, 4, 8}, 8 }, "nodes of one size"},
		{"wrong count", func(c *spec.Comm) { c.NNodes, c.LocalRanks, c.MaxLocalRanks = 3, []int{4, 4, 4}, 4 }, "but the machine"},
		{"fusion without MNNVL", func(c *spec.Comm) { c.NNodes, c.LocalRanks, c.MaxLocalRanks, c.MNNVL = 1, []int{16}, 16, false }, "without an MNNVL"},
	} {
		c := *good
		tc.mut(&c)
		if _, err := MachineForComm(sys, &c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

// On a host NCCL split into NET nodes, the profile's loopback rates time
// the NET path: each direction at transport.net.loopback.bw, and what one
// rank sends and receives together at transport.net.loopback.rank.bw, so
// an AllReduce (both directions at once) moves each direction at half the
// rank's budget while a Broadcast (one direction) gets the per-direction
// rate.
func TestNetLoopbackRates(t *testing.T) {
	sys, c := commOn(t, "h200x2", 1, spec.Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"})
	m, err := MachineForComm(sys, c)
	if err != nil {
		t.Fatal(err)
	}
	l, err := algos.LayoutFromComm(c)
	if err != nil {
		t.Fatal(err)
	}
	prof := &Profile{Schema: ProfileSchema, Name: "loop", Params: map[string]Param{
		"transport.net.loopback.bw": {Value: 5, Source: "nominal"}, "transport.net.loopback.rank.bw": {Value: 6, Source: "nominal"}}}
	for _, tc := range []struct {
		f    spec.Func
		prof *Profile
		// want is the busbw at 1 GiB, GB/s: one direction's rate
		want float64
	}{
		{spec.Broadcast, prof, 5},
		{spec.AllReduce, prof, 3},
		{spec.Broadcast, nil, 1.25}, // nominal: the interface speed NCCL reads
		{spec.AllReduce, nil, 1.25},
	} {
		op := spec.Op{Func: tc.f, Count: 1 << 28, DataType: spec.Float32, RedOp: spec.Sum}
		d, _, err := c.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		o, sel, err := algos.FromDecision(d)
		if err != nil {
			t.Fatal(err)
		}
		s, err := algos.Build(o, sel, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mm := m
		mm.Profile = tc.prof
		res, err := Simulate(s, Config{Machine: mm})
		if err != nil {
			t.Fatal(err)
		}
		if res.BusBw < 0.9*tc.want || res.BusBw > tc.want {
			t.Errorf("%s, profile %s: busbw %.2f GB/s, want about %.2f", tc.f, tc.prof.Short(), res.BusBw, tc.want)
		}
	}
}

// transport.net.loopback.lat adds its latency to every NET step on a host
// split into NET nodes: an 8-byte Ring AllReduce on two such nodes crosses
// the network twice in a row (reduce, then gather).
func TestNetLoopbackLatency(t *testing.T) {
	sys, c := commOn(t, "h200x2", 1, spec.Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"})
	m, err := MachineForComm(sys, c)
	if err != nil {
		t.Fatal(err)
	}
	l, err := algos.LayoutFromComm(c)
	if err != nil {
		t.Fatal(err)
	}
	s, err := algos.Build(spec.Op{Func: spec.AllReduce, Count: 2, DataType: spec.Float32, RedOp: spec.Sum}, algos.Selection{Algo: spec.Ring, Proto: spec.LL, NChannels: 1}, l, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var times [2]Time
	for i, lat := range []float64{0, 10} {
		mm := m
		mm.Profile = &Profile{Schema: ProfileSchema, Name: "loop", Params: map[string]Param{"transport.net.loopback.lat": {Value: lat, Source: "nominal"}}}
		res, err := Simulate(s, Config{Machine: mm})
		if err != nil {
			t.Fatal(err)
		}
		times[i] = res.Time
	}
	if d := times[1] - times[0]; d != FromMicros(20) {
		t.Errorf("10 µs per NET step added %v to an 8-byte AllReduce on two NET nodes, want 20 µs (two steps)", d)
	}
	// on NVLink (no split) the parameter does nothing
	sys2, c2 := commOn(t, "h200x2", 1, spec.Env{"NCCL_NVLS_ENABLE": "0"})
	m2, err := MachineForComm(sys2, c2)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := algos.LayoutFromComm(c2)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := algos.Build(spec.Op{Func: spec.AllReduce, Count: 2, DataType: spec.Float32, RedOp: spec.Sum}, algos.Selection{Algo: spec.Ring, Proto: spec.LL, NChannels: 1}, l2, algos.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, lat := range []float64{0, 10} {
		mm := m2
		mm.Profile = &Profile{Schema: ProfileSchema, Name: "loop", Params: map[string]Param{"transport.net.loopback.lat": {Value: lat, Source: "nominal"}}}
		res, err := Simulate(s2, Config{Machine: mm})
		if err != nil {
			t.Fatal(err)
		}
		times[i] = res.Time
	}
	if times[0] != times[1] {
		t.Errorf("the loopback latency changed an NVLink AllReduce: %v -> %v", times[0], times[1])
	}
}
