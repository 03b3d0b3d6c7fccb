package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// netSplit makes NCCL split a 2 × H200 host into two NET nodes: no P2P, no
// SHM, and no NVLS to take the AllReduce over NVLink instead.
var netSplit = spec.Env{"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"}

// commCase is an NCCL 2.28.9 communicator on a preset, the machine it maps
// onto and its layout: what every test here starts from.
type commCase struct {
	sys *spec.System
	c   *spec.Comm
	m   Machine
	l   *algos.Layout
}

func commOn(t *testing.T, preset string, nodes int, env spec.Env) commCase {
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
	m, err := MachineForComm(sys, c)
	if err != nil {
		t.Fatalf("%s: %v", preset, err)
	}
	l, err := algos.LayoutFromComm(c)
	if err != nil {
		t.Fatalf("%s: %v", preset, err)
	}
	return commCase{sys, c, m, l}
}

// chosen is the schedule of NCCL's own choice for op.
func (cc commCase) chosen(t *testing.T, op spec.Op) *algos.Schedule {
	t.Helper()
	d, _, err := cc.c.Select(op)
	if err != nil {
		t.Fatal(err)
	}
	o, sel, err := algos.FromDecision(d)
	if err != nil {
		t.Fatalf("%s: %v", op.Func, err)
	}
	return cc.build(t, o, sel)
}

func (cc commCase) build(t *testing.T, op spec.Op, sel algos.Selection) *algos.Schedule {
	t.Helper()
	s, err := algos.Build(op, sel, cc.l, algos.Options{})
	if err != nil {
		t.Fatalf("%s: %v", op.Func, err)
	}
	return s
}

// simulate runs s on the machine under a profile (nil: nominal).
func (cc commCase) simulate(t *testing.T, s *algos.Schedule, prof *Profile) *Result {
	t.Helper()
	m := cc.m
	m.Profile = prof
	res, err := Simulate(s, Config{Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	return res
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
		{"h200x2 NET split", "h200x2", 1, netSplit, 2, 1, 1, true, true},
		{"h200x2 P2P level LOC", "h200x2", 1, spec.Env{"NCCL_P2P_LEVEL": "LOC", "NCCL_SHM_DISABLE": "1", "NCCL_NVLS_ENABLE": "0"}, 2, 1, 1, true, true},
	}
	for _, tc := range tests {
		cc := commOn(t, tc.preset, tc.nodes, tc.env)
		m, c := cc.m, cc.c
		if m.Nodes != tc.wantNodes || m.GPUsPerNode != tc.wantGPU || m.NICs != tc.wantNICs || m.NetLoopback != tc.loopback || m.NVSwitch != tc.nvswitch {
			t.Errorf("%s: machine %+v", tc.name, m)
		}
		if m.SHARP != c.CollNetSupport || m.NVLS != c.NVLSSupport {
			t.Errorf("%s: SHARP %v NVLS %v, the communicator %v %v", tc.name, m.SHARP, m.NVLS, c.CollNetSupport, c.NVLSSupport)
		}
		if tc.loopback && m.NICBw != GBps(1.25) {
			t.Errorf("%s: NET at %d B/s, want NCCL's 10 Gbps default", tc.name, m.NICBw)
		}
		for _, f := range []spec.Func{spec.AllReduce, spec.SendRecv} {
			res := cc.simulate(t, cc.chosen(t, spec.Op{Func: f, Count: 1 << 20, DataType: spec.Float32, RedOp: spec.Sum}), nil)
			if res.TimeUs <= 0 {
				t.Fatalf("%s %s: %v", tc.name, f, res)
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
	good := commOn(t, "dgx-h100", 2, spec.Env{})
	for _, tc := range []struct {
		name string
		mut  func(c *spec.Comm)
		want string
	}{
		{"uneven nodes", func(c *spec.Comm) { c.NNodes, c.LocalRanks, c.MaxLocalRanks = 3, []int{4, 4, 8}, 8 }, "nodes of one size"},
		{"wrong count", func(c *spec.Comm) { c.NNodes, c.LocalRanks, c.MaxLocalRanks = 3, []int{4, 4, 4}, 4 }, "but the machine"},
		{"fusion without MNNVL", func(c *spec.Comm) { c.NNodes, c.LocalRanks, c.MaxLocalRanks, c.MNNVL = 1, []int{16}, 16, false }, "without an MNNVL"},
	} {
		c := *good.c
		tc.mut(&c)
		if _, err := MachineForComm(good.sys, &c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
	}
}

// loopProfile is a profile that sets only the given NET loopback parameters.
func loopProfile(params map[string]float64) *Profile {
	p := &Profile{Schema: ProfileSchema, Name: "loop", Params: map[string]Param{}}
	for k, v := range params {
		p.Params[k] = Param{Value: v, Source: "nominal"}
	}
	return p
}

// On a host NCCL split into NET nodes, the profile's loopback rates time
// the NET path: each direction at transport.net.loopback.bw, and what one
// rank sends and receives together at transport.net.loopback.rank.bw, so
// an AllReduce (both directions at once) moves each direction at half the
// rank's budget while a Broadcast (one direction) gets the per-direction
// rate.
func TestNetLoopbackRates(t *testing.T) {
	cc := commOn(t, "h200x2", 1, netSplit)
	prof := loopProfile(map[string]float64{"transport.net.loopback.bw": 5, "transport.net.loopback.rank.bw": 6})
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
		s := cc.chosen(t, spec.Op{Func: tc.f, Count: 1 << 28, DataType: spec.Float32, RedOp: spec.Sum})
		if res := cc.simulate(t, s, tc.prof); res.BusBw < 0.9*tc.want || res.BusBw > tc.want {
			t.Errorf("%s, profile %s: busbw %.2f GB/s, want about %.2f", tc.f, tc.prof.Short(), res.BusBw, tc.want)
		}
	}
}

// transport.net.loopback.lat adds its latency to every NET step on a host
// split into NET nodes: an 8-byte Ring AllReduce on two such nodes crosses
// the network twice in a row (reduce, then gather). On NVLink (no split)
// the parameter does nothing.
func TestNetLoopbackLatency(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  spec.Env
		want Time // what 10 µs per NET step adds
	}{
		{"two NET nodes", netSplit, FromMicros(20)},
		{"NVLink", spec.Env{"NCCL_NVLS_ENABLE": "0"}, 0},
	} {
		cc := commOn(t, "h200x2", 1, tc.env)
		s := cc.build(t, spec.Op{Func: spec.AllReduce, Count: 2, DataType: spec.Float32, RedOp: spec.Sum}, algos.Selection{Algo: spec.Ring, Proto: spec.LL, NChannels: 1})
		t0 := cc.simulate(t, s, loopProfile(map[string]float64{"transport.net.loopback.lat": 0})).Time
		t10 := cc.simulate(t, s, loopProfile(map[string]float64{"transport.net.loopback.lat": 10})).Time
		if d := t10 - t0; d != tc.want {
			t.Errorf("%s: 10 µs per NET step added %v to an 8-byte Ring AllReduce, want %v", tc.name, d, tc.want)
		}
	}
}

// transport.net.loopback.msg holds each NET message's step for its proxy
// time times the connections the busier proxy thread serves: one
// connection per proxy for a one-channel Broadcast (the root only sends,
// the other rank only receives), two for an AllGather (each rank sends
// and receives), and an AllReduce crosses the network twice in a row; two
// channels double the connections, whose messages take turns on the one
// thread. The ring solver and the event loop agree, and on NVLink (no
// split) the parameter does nothing.
func TestNetLoopbackMessageCost(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  spec.Env
		f    spec.Func
		ch   int
		want Time // what 5 µs per message adds
	}{
		{"Broadcast", netSplit, spec.Broadcast, 1, FromMicros(5)},
		{"Reduce", netSplit, spec.Reduce, 1, FromMicros(5)},
		{"AllGather", netSplit, spec.AllGather, 1, FromMicros(10)},
		{"AllReduce", netSplit, spec.AllReduce, 1, FromMicros(20)},
		{"AllReduce, 2 channels", netSplit, spec.AllReduce, 2, FromMicros(40)},
		{"AllReduce over NVLink", spec.Env{"NCCL_NVLS_ENABLE": "0"}, spec.AllReduce, 1, 0},
	} {
		cc := commOn(t, "h200x2", 1, tc.env)
		s := cc.build(t, spec.Op{Func: tc.f, Count: 1024 * int64(tc.ch), DataType: spec.Float32, RedOp: spec.Sum}, algos.Selection{Algo: spec.Ring, Proto: spec.LL, NChannels: tc.ch})
		t0 := cc.simulate(t, s, loopProfile(map[string]float64{"transport.net.loopback.msg": 0})).Time
		prof := loopProfile(map[string]float64{"transport.net.loopback.msg": 5})
		t5 := cc.simulate(t, s, prof).Time
		if d := t5 - t0; d != tc.want {
			t.Errorf("%s: 5 µs per NET message added %v, want %v", tc.name, d, tc.want)
		}
		m := cc.m
		m.Profile = prof
		ev, err := Simulate(s, Config{Machine: m, noRingRuns: true, NoSymmetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if ev.Time != t5 {
			t.Errorf("%s: the event loop says %v, the ring solver %v", tc.name, ev.Time, t5)
		}
	}
}

// TestMachineForCommCrossClique: GB200 trays of one NVL72 rack in two
// cliques stay two NCCL nodes, and up to 2.29.7 (or with
// NCCL_MNNVL_CROSS_CLIQUE unset) their ranks meet over the network. With
// cross-clique P2P (2.30.3+) NCCL connects them over CUDA P2P on the
// fabric, so the simulated bytes cross the GPUs' NVLinks, none a NIC, at
// NVLink latency (a Tree step's for NVLSTree's tree), and the operation is
// faster; the trays as cliques of one tray each (NCCL's nodes are the
// hosts) alike.
func TestMachineForCommCrossClique(t *testing.T) {
	on := spec.Env{"NCCL_MNNVL_CROSS_CLIQUE": "1"}
	for _, tc := range []struct {
		name           string
		v              spec.Version
		trays, cliques int
		env            spec.Env
		domain         int // NVLDomainNodes
		nodes, gpus    int
	}{
		{"2.29.7, the parameter does not exist", spec.V2_29_7, 4, 2, on, 0, 2, 8},
		{"2.30.3 unset", spec.V2_30_3, 4, 2, spec.Env{}, 0, 2, 8},
		{"2.30.3 cross-clique", spec.V2_30_3, 4, 2, on, 2, 2, 8},
		{"2.30.3 cross-clique, cliques of one tray", spec.V2_30_3, 2, 2, on, 2, 2, 4},
	} {
		sys, err := spec.Preset("gb200-nvl72", spec.PresetOptions{Nodes: tc.trays, Cliques: tc.cliques})
		if err != nil {
			t.Fatal(err)
		}
		c, err := spec.Init(spec.MustLoad(tc.v), sys, tc.env)
		if err != nil || c.Err != nil {
			t.Fatalf("%s: init: %v %v", tc.name, err, c.Err)
		}
		m, err := MachineForComm(sys, c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.Nodes != tc.nodes || m.GPUsPerNode != tc.gpus || m.NVLDomainNodes != tc.domain {
			t.Errorf("%s: %d node(s) × %d GPUs in NVL domains of %d node(s), want %d × %d in %d", tc.name, m.Nodes, m.GPUsPerNode, m.NVLDomainNodes, tc.nodes, tc.gpus, tc.domain)
		}
		l, err := algos.LayoutFromComm(c)
		if err != nil {
			t.Fatal(err)
		}
		cc := commCase{sys, c, m, l}
		for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.SendRecv} {
			op := spec.Op{Func: f, Count: 1 << 20, DataType: spec.Float32, RedOp: spec.Sum}
			s := cc.chosen(t, op)
			res := cc.simulate(t, s, nil)
			m0 := m
			m0.NVLDomainNodes = 0
			net := commCase{sys, c, m0, l}.simulate(t, s, nil)
			if tc.domain == 0 {
				if res.NetBytes == 0 || res.LinkBytes["nic"] == 0 {
					t.Errorf("%s %s: nodes without cross-clique P2P exchanged no network bytes", tc.name, f)
				}
				continue
			}
			if res.NetBytes != 0 || res.LinkBytes["nic"] != 0 || res.LinkBytes["pcie"] != 0 {
				t.Errorf("%s %s: cross-clique traffic crossed the network: %d B injected, links %v", tc.name, f, res.NetBytes, res.LinkBytes)
			}
			// (PXN already takes some network bytes over NVLink first)
			if res.LinkBytes["nvlink"] < net.LinkBytes["nvlink"] || res.TimeUs >= net.TimeUs {
				t.Errorf("%s %s: over the fabric %.1f µs, %d NVLink bytes; over the network %.1f µs, %d: want at least as many NVLink bytes, less time",
					tc.name, f, res.TimeUs, res.LinkBytes["nvlink"], net.TimeUs, net.LinkBytes["nvlink"])
			}
		}
	}
}

// TestCrossCliquePath: a rank-to-rank message between nodes of one NVL
// domain crosses the two GPUs' NVLinks at NVLink latency; between nodes
// of different domains it still crosses the NICs.
func TestCrossCliquePath(t *testing.T) {
	m := Machine{Name: "two domains of two nodes", Nodes: 4, GPUsPerNode: 4, SM: 100, NVSwitch: true,
		NVLinkBw: GBps(720), PCIeBw: GBps(64), HBMBw: GBps(3350), NICs: 4, NICBw: GBps(50), NVLDomainNodes: 2}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	f := newFabric(&m, timing{})
	for _, tc := range []struct {
		src, to int
		hop     int
		class   LinkClass
	}{
		{0, 1, hopNVLink, LinkNVLink},  // one node
		{0, 5, hopNVLink, LinkNVLink},  // nodes 0 and 1: one domain
		{9, 14, hopNVLink, LinkNVLink}, // nodes 2 and 3: one domain
		{0, 9, hopNet, LinkNIC},        // nodes 0 and 2: two domains
		{7, 8, hopNet, LinkNIC},        // nodes 1 and 2: two domains
	} {
		path, hop := f.path(nil, tc.src, tc.to, -1)
		hasClass := slices.ContainsFunc(path, func(l int32) bool { return f.class[l] == tc.class })
		if hop != tc.hop || !hasClass {
			t.Errorf("%d → %d: hop %d over %v, want hop %d through a %v link", tc.src, tc.to, hop, path, tc.hop, tc.class)
		}
		if tc.hop == hopNVLink && len(path) != 2 {
			t.Errorf("%d → %d: %d links, want the sender's NVLink out and the receiver's in", tc.src, tc.to, len(path))
		}
	}
	bad := m
	bad.NVSwitch = false
	if err := bad.Validate(); err == nil {
		t.Error("an NVL domain without an NVSwitch validated")
	}
}

// TestNVLinkStepLatency: a rank-to-rank step over NVLink costs NCCL's
// NVLink latency of its algorithm, except for NVLS and NVLSTree, whose
// NVLink figure is the round trip through the switch's multicast engine:
// their rank-to-rank steps (NVLSTree's tree across cliques) cost a Tree
// step's.
func TestNVLinkStepLatency(t *testing.T) {
	var m Machine
	for _, a := range []spec.Algo{spec.NVLS, spec.NVLSTree} {
		if got, want := m.HopLatency(hopNVLink, a, spec.Simple), m.HopLatency(hopNVLink, spec.Tree, spec.Simple); got != want {
			t.Errorf("%s over NVLink: %v, want Tree's %v", a, got, want)
		}
	}
	if got := m.HopLatency(hopNVLink, spec.CollNetChain, spec.Simple); got != FromMicros(2.8) {
		t.Errorf("CollNetChain over NVLink: %v, want NCCL's 2.8 µs", got)
	}
}

// flushProfile is a nominal profile with the two flush costs (µs).
func flushProfile(iflush, gdrcopy float64) *Profile {
	return loopProfile(map[string]float64{"transport.net.flush.iflush": iflush, "transport.net.flush.gdrcopy": gdrcopy})
}

// The GDR flush of NET receives (G-NET-CONN-FLUSH-1) reaches the machine
// from the communicator (2.28.9 on Hopper flushes only with
// NCCL_NET_FORCE_FLUSH=1), and at a fixed decision a flushed Simple NET
// receive waits for the flush: the plugin's iflush (an RDMA read through
// the local NIC, transport.net.flush.iflush) or with gdrcopy one CPU read
// (transport.net.flush.gdrcopy). The flush is per received NET step and
// only the step pays it, not the credit that comes back (TestFlushOncePerStep
// counts it), so a flushed schedule at flush cost x takes more than the
// unflushed one and less than the unflushed one whose NET steps and
// credits alike cost x more (NetLat x): a 16-rank ring is paced by its
// credits as well as its steps. LL and LL128 never flush; the network's
// latency (NetLat) is no part of the flush.
func TestNetFlushCost(t *testing.T) {
	plain := commOn(t, "dgx-h100", 2, spec.Env{})
	forced := commOn(t, "dgx-h100", 2, spec.Env{"NCCL_NET_FORCE_FLUSH": "1"})
	if plain.m.NetFlush || !forced.m.NetFlush || forced.m.GdrCopyFlush {
		t.Fatalf("NetFlush %v, with NCCL_NET_FORCE_FLUSH=1 %v (gdrcopy %v): want false, true (false)", plain.m.NetFlush, forced.m.NetFlush, forced.m.GdrCopyFlush)
	}
	timeOf := func(proto spec.Proto, count int64, netLat float64, flush, gdr bool, prof *Profile) Time {
		op := spec.Op{Func: spec.AllReduce, Count: count, DataType: spec.Float32, RedOp: spec.Sum}
		s := plain.build(t, op, algos.Selection{Algo: spec.Ring, Proto: proto, NChannels: 2})
		cc := plain
		cc.m.NetLat, cc.m.NetFlush, cc.m.GdrCopyFlush = netLat, flush, gdr
		return cc.simulate(t, s, prof).Time
	}
	for _, tc := range []struct {
		name     string
		proto    spec.Proto
		count    int64
		gdr      bool
		prof     *Profile
		perStep  float64 // what each flushed NET step costs (µs)
		netLat   float64
		nominalF bool // the profile's cost is the nominal one
	}{
		{"Simple 8 B, nominal iflush", spec.Simple, 2, false, nil, 2, 0, true},
		{"Simple 8 B, iflush 5 µs", spec.Simple, 2, false, flushProfile(5, 1), 5, 0, false},
		{"Simple 4 MiB, iflush 3 µs", spec.Simple, 1 << 20, false, flushProfile(3, 1), 3, 0, false},
		{"Simple 4 MiB, iflush 3 µs, network latency 4 µs", spec.Simple, 1 << 20, false, flushProfile(3, 1), 3, 4, false},
		{"Simple 8 B, nominal gdrcopy", spec.Simple, 2, true, nil, 1, 0, true},
		{"Simple 4 MiB, gdrcopy 0.5 µs", spec.Simple, 1 << 20, true, flushProfile(5, 0.5), 0.5, 0, false},
		{"LL 8 B", spec.LL, 2, false, flushProfile(5, 1), 0, 0, false},
		{"LL128 4 MiB", spec.LL128, 1 << 20, false, flushProfile(5, 1), 0, 0, false},
		{"LL 8 B, gdrcopy", spec.LL, 2, true, flushProfile(5, 1), 0, 0, false},
	} {
		unflushed := timeOf(tc.proto, tc.count, tc.netLat, false, tc.gdr, tc.prof)
		flushed := timeOf(tc.proto, tc.count, tc.netLat, true, tc.gdr, tc.prof)
		// the flush's cost on every NET step and every credit back, as a
		// network latency
		both := timeOf(tc.proto, tc.count, tc.netLat+tc.perStep, false, tc.gdr, tc.prof)
		t.Logf("%s: unflushed %v, flushed %v, NetLat +%g µs %v", tc.name, unflushed, flushed, tc.perStep, both)
		if tc.perStep == 0 && flushed != unflushed {
			t.Errorf("%s: flushed %v, unflushed %v: want no flush", tc.name, flushed, unflushed)
		}
		if tc.perStep > 0 && (flushed <= unflushed || flushed >= both) {
			t.Errorf("%s: flushed %v, want more than unflushed %v and less than %v (%g µs more on steps and credits)", tc.name, flushed, unflushed, both, tc.perStep)
		}
		if tc.nominalF {
			name := "transport.net.flush.iflush"
			if tc.gdr {
				name = "transport.net.flush.gdrcopy"
			}
			if got := (&Machine{NetFlush: true, GdrCopyFlush: tc.gdr}).FlushCost(); got != FromMicros(tc.perStep) || got != FromMicros((*Profile)(nil).Value(name)) {
				t.Errorf("%s: nominal flush %v, want %g µs (%s)", tc.name, got, tc.perStep, name)
			}
		}
	}
}

// sharpCommOn is commOn on dgx-h100 × 4 with SHARP at 2.28.9, each node
// also holding libs.
func sharpCommOn(t *testing.T, env spec.Env, libs ...spec.Library) commCase {
	t.Helper()
	sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 4, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = append(sys.Nodes[i].Libs, libs...)
	}
	c, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, env)
	if err != nil || c.Err != nil {
		t.Fatal(err, c.Err)
	}
	m, err := MachineForComm(sys, c)
	if err != nil {
		t.Fatal(err)
	}
	l, err := algos.LayoutFromComm(c)
	if err != nil {
		t.Fatal(err)
	}
	return commCase{sys, c, m, l}
}

// The GDR flush of CollNet receives (G-COLLNET-FLUSH-1) reaches the
// machine from the communicator: on Hopper only with NCCL_NET_FORCE_FLUSH=1,
// and where the gdrcopy flush (NCCL_GDRCOPY_ENABLE=1,
// NCCL_GDRCOPY_FLUSH_ENABLE=1 and a libgdrapi.so that opens) replaces the
// iflush, for NET and CollNet alike, the flush is a CPU read. At a fixed
// CollNetDirect decision each step received from the network waits for
// its flush: one step of a small operation pays it once per step on its
// path, and the cost grows linearly with the flush's.
func TestCollNetFlushCost(t *testing.T) {
	base := spec.Env{"NCCL_COLLNET_ENABLE": "1"}
	plain := sharpCommOn(t, base)
	forced := sharpCommOn(t, base.With("NCCL_NET_FORCE_FLUSH", "1"))
	gdrEnv := base.With("NCCL_NET_FORCE_FLUSH", "1").With("NCCL_GDRCOPY_ENABLE", "1").With("NCCL_GDRCOPY_FLUSH_ENABLE", "1")
	noLib := sharpCommOn(t, gdrEnv)
	gdr := sharpCommOn(t, gdrEnv, spec.Library{Path: "/usr/lib/x86_64-linux-gnu/libgdrapi.so", InLoaderPath: true})
	for _, tc := range []struct {
		name                 string
		cc                   commCase
		collNet, netFlu, gdr bool
		cost                 Time
	}{
		{"plain", plain, false, false, false, 0},
		{"NCCL_NET_FORCE_FLUSH=1", forced, true, true, false, FromMicros(2)},
		{"gdrcopy asked, no libgdrapi.so", noLib, true, true, false, FromMicros(2)},
		{"gdrcopy flush", gdr, true, true, true, FromMicros(1)},
	} {
		m := tc.cc.m
		if m.CollNetFlush != tc.collNet || m.NetFlush != tc.netFlu || m.GdrCopyFlush != tc.gdr {
			t.Errorf("%s: CollNetFlush %v NetFlush %v GdrCopyFlush %v, want %v %v %v", tc.name, m.CollNetFlush, m.NetFlush, m.GdrCopyFlush, tc.collNet, tc.netFlu, tc.gdr)
		}
		if got := m.FlushCost(); got != tc.cost {
			t.Errorf("%s: a flush costs %v, want %v (nominal)", tc.name, got, tc.cost)
		}
	}
	timeOf := func(count int64, flush, gdrcopy bool, prof *Profile) Time {
		op := spec.Op{Func: spec.AllReduce, Count: count, DataType: spec.Float32, RedOp: spec.Sum}
		s := forced.build(t, op, algos.Selection{Algo: spec.CollNetDirect, Proto: spec.Simple, NChannels: 2})
		cc := forced
		cc.m.CollNetFlush, cc.m.NetFlush, cc.m.GdrCopyFlush = flush, false, gdrcopy
		return cc.simulate(t, s, prof).Time
	}
	for _, tc := range []struct {
		name    string
		count   int64
		gdrcopy bool
		x       float64 // the flush's cost (µs)
		steps   int64   // flushed steps on the critical path, where known
	}{
		{"8 B, iflush 3 µs", 2, false, 3, 1},
		{"8 B, gdrcopy 0.7 µs", 2, true, 0.7, 1},
		{"4 MiB, iflush 3 µs", 1 << 20, false, 3, 0},
		{"4 MiB, gdrcopy 1 µs", 1 << 20, true, 1, 0},
	} {
		prof := func(x float64) *Profile {
			if tc.gdrcopy {
				return flushProfile(50, x)
			}
			return flushProfile(x, 50)
		}
		unflushed := timeOf(tc.count, false, tc.gdrcopy, prof(tc.x))
		zero := timeOf(tc.count, true, tc.gdrcopy, prof(0))
		one := timeOf(tc.count, true, tc.gdrcopy, prof(tc.x))
		two := timeOf(tc.count, true, tc.gdrcopy, prof(2*tc.x))
		t.Logf("CollNetDirect/Simple %s on 4 × 8 H100: %v unflushed, %v flushed", tc.name, unflushed, one)
		if zero != unflushed {
			t.Errorf("%s: a flush costing 0 gives %v, unflushed %v: want equal", tc.name, zero, unflushed)
		}
		if one <= unflushed || two-one != one-unflushed {
			t.Errorf("%s: %v unflushed, %v at the flush's cost, %v at twice it: want a cost linear in the flush's", tc.name, unflushed, one, two)
		}
		if tc.steps > 0 && one-unflushed != Time(tc.steps)*FromMicros(tc.x) {
			t.Errorf("%s: the flush adds %v, want %d × %g µs", tc.name, one-unflushed, tc.steps, tc.x)
		}
	}
}
