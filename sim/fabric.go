package sim

import (
	"fmt"
	"math"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// Time is simulated time in picoseconds.
type Time int64

// Micros converts to microseconds.
func (t Time) Micros() float64 { return float64(t) / 1e6 }

// Seconds converts to seconds.
func (t Time) Seconds() float64 { return float64(t) * 1e-12 }

// FromMicros converts microseconds, rounding to the picosecond.
func FromMicros(us float64) Time { return Time(math.Round(us * 1e6)) }

func (t Time) String() string { return fmt.Sprintf("%.3fus", t.Micros()) }

// Machine describes the hardware the timing model runs on: identical
// nodes of GPUs, their NVLink (through an NVSwitch) or PCIe connections,
// NICs and the network. Bandwidths are bytes per second in one direction;
// every link is full duplex.
type Machine struct {
	Name        string `json:"name"`
	Nodes       int    `json:"nodes"`
	GPUsPerNode int    `json:"gpus_per_node"`
	// SM is the compute capability × 10 (90 for H100/H200).
	SM int `json:"sm"`
	// NVSwitch: GPUs reach each other through an NVSwitch over NVLinkBw;
	// otherwise GPU-to-GPU traffic crosses PCIe (through the CPU).
	NVSwitch bool  `json:"nvswitch"`
	NVLinkBw int64 `json:"nvlink_bw"`
	PCIeBw   int64 `json:"pcie_bw"`
	// HBMBw is a GPU's memory bandwidth, charged for local copies (NVLS
	// scatter into and gather out of the multicast buffer, one-rank copies).
	HBMBw int64 `json:"hbm_bw"`
	// NICs per node, each NICBw per direction; GPU g uses NIC
	// g×NICs/GPUsPerNode (rail-optimised: one NIC per GPU on DGX nodes).
	NICs  int   `json:"nics"`
	NICBw int64 `json:"nic_bw"`
	// SHARP: the network switch reduces CollNet contributions in flight.
	SHARP bool `json:"sharp"`
	// NVLS: the NVSwitch supports multicast and in-switch reduction.
	NVLS bool `json:"nvls"`
	// Latency overrides NCCL's per-hop latencies (µs) when non-zero, by
	// hop class and protocol; see HopLatency.
	Latency [numHops][spec.NumProtos]float64 `json:"-"`
	// ChannelBw caps one channel's rate per protocol (bytes/s, 0 = no
	// cap): the copy throughput of one thread block.
	ChannelBw [spec.NumProtos]int64 `json:"channel_bw"`
	// NetLoopback: the nodes are pieces of hosts NCCL split into NET nodes
	// (P2P and SHM off, MachineForComm), so network traffic between them
	// never leaves the host: with NET/Socket it goes GPU → host memory →
	// the kernel's socket to the host's own address → host memory → GPU;
	// the NIC links stand for that path at the interface speed NCCL reads
	// (nominal) or the profile's transport.net.loopback.bw.
	NetLoopback bool `json:"net_loopback,omitempty"`
	// NVLDomainNodes is how many consecutive nodes share one NVLink domain
	// whose GPUs reach each other's over NVLink although NCCL keeps them
	// apart as nodes (cross-clique MNNVL, MachineForComm); 0 or 1: nodes
	// meet only over the network.
	NVLDomainNodes int `json:"nvl_domain_nodes,omitempty"`
	// NetLat is the network's latency property in µs, which NCCL's search
	// reads into a graph's latencyInter (0 for NCCL's IB and Socket): its
	// cost model adds it to each network step (src/graph/tuning.cc
	// ncclTopoTuneModel), and once more to a Simple one for the GDR flush
	// ("Also add the flush extra latency"); the simulator charges each
	// NET step NetLat and times the flush by what it is (FlushCost).
	NetLat float64 `json:"net_lat,omitempty"`
	// NetFlush: NET receives flush each Simple step they complete before
	// the GPU reads it (G-NET-CONN-FLUSH-1, spec/topo's RingNetFlush):
	// recvProxyProgress flushes a received Simple step of non-zero size
	// and moves the tail the GPU waits on only once the flush completes.
	NetFlush bool `json:"net_flush,omitempty"`
	// CollNetFlush: CollNet receives flush each step they complete
	// (G-COLLNET-FLUSH-1, spec's Comm.CollNetFlush): the receive proxy
	// flushes before it moves the tail.
	CollNetFlush bool `json:"collnet_flush,omitempty"`
	// GdrCopyFlush: the flush of NET and CollNet receives alike is one CPU
	// read of the receive buffer through its gdrcopy BAR mapping
	// (NCCL_GDRCOPY_FLUSH_ENABLE, spec's Comm.GdrCopyFlush) instead of the
	// plugin's iflush.
	GdrCopyFlush bool `json:"gdrcopy_flush,omitempty"`
	// Profile is the machine's performance profile (nil: nominal, NCCL's
	// constants alone).
	Profile *Profile `json:"-"`
}

// maxNetLat bounds Machine.NetLat (µs): a second per network step.
const maxNetLat = 1e6

// GBps converts GB/s (10^9 bytes per second, nccl-tests' unit) to bytes
// per second.
func GBps(x float64) int64 { return int64(math.Round(x * 1e9)) }

// Validate checks the machine description.
func (m *Machine) Validate() error {
	if m.Nodes <= 0 || m.GPUsPerNode <= 0 {
		return fmt.Errorf("machine %s: %d nodes × %d GPUs: expected positive counts", m.Name, m.Nodes, m.GPUsPerNode)
	}
	if m.NVSwitch && m.NVLinkBw <= 0 {
		return fmt.Errorf("machine %s: NVSwitch without NVLink bandwidth", m.Name)
	}
	if m.PCIeBw <= 0 || m.HBMBw <= 0 {
		return fmt.Errorf("machine %s: PCIe and HBM bandwidths must be positive", m.Name)
	}
	if m.Nodes > 1 && (m.NICs <= 0 || m.NICBw <= 0) {
		return fmt.Errorf("machine %s: %d nodes need NICs with bandwidth", m.Name, m.Nodes)
	}
	if m.Profile != nil {
		if err := m.Profile.Validate(); err != nil {
			return fmt.Errorf("machine %s: profile: %v", m.Name, err)
		}
	}
	if m.NVLDomainNodes < 0 || m.NVLDomainNodes > 1 && !m.NVSwitch {
		return fmt.Errorf("machine %s: an NVLink domain of %d nodes: expected 0, or nodes whose GPUs have an NVSwitch", m.Name, m.NVLDomainNodes)
	}
	if !(m.NetLat >= 0 && m.NetLat <= maxNetLat) {
		return fmt.Errorf("machine %s: network latency %v us: expected 0 to %v", m.Name, m.NetLat, float64(maxNetLat))
	}
	if m.NICs > m.GPUsPerNode*8 {
		return fmt.Errorf("machine %s: %d NICs per node: at most 8 per GPU", m.Name, m.NICs)
	}
	return nil
}

// Presets are machines the CLI names. Bandwidths are the vendors' figures
// per direction: NVLink 4 with 18 links 450 GB/s (H100/H200 SXM), PCIe
// Gen5 x16 64 GB/s, ConnectX-7 NDR 400 Gb/s = 50 GB/s, HBM3 3.35 TB/s
// (H100) and HBM3e 4.8 TB/s (H200).
func Presets() []Machine {
	h100 := Machine{Name: "dgx-h100", Nodes: 1, GPUsPerNode: 8, SM: 90, NVSwitch: true,
		NVLinkBw: GBps(450), PCIeBw: GBps(64), HBMBw: GBps(3350), NICs: 8, NICBw: GBps(50), NVLS: true}
	h200 := h100
	h200.Name, h200.HBMBw = "dgx-h200", GBps(4800)
	h200x2 := h200
	h200x2.Name, h200x2.GPUsPerNode, h200x2.NICs = "h200x2", 2, 2
	ib16 := h100
	ib16.Name, ib16.Nodes = "ib16", 16
	ib16sharp := ib16
	ib16sharp.Name, ib16sharp.SHARP = "ib16-sharp", true
	big := h100
	big.Name, big.Nodes = "h100-12500", 12500
	big.SHARP = true
	return []Machine{h200x2, h100, h200, ib16, ib16sharp, big}
}

// Preset returns a preset by name.
func Preset(name string) (Machine, error) {
	var names []string
	for _, m := range Presets() {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Machine{}, fmt.Errorf("unknown machine preset %q: expected one of %v", name, names)
}

// MachineFromSystem derives a machine from a spec.System: node and GPU
// counts, NVSwitch, NVLink count (× NCCL's per-link bandwidth), PCIe generation and width, NIC count and speed. All nodes
// must be alike (the model's nodes are identical).
func MachineFromSystem(s *spec.System) (Machine, error) {
	if err := s.Validate(); err != nil {
		return Machine{}, err
	}
	n0 := s.Nodes[0]
	for i, n := range s.Nodes {
		if len(n.GPUs) != len(n0.GPUs) || n.NVSwitch != n0.NVSwitch || len(n.NICs) != len(n0.NICs) {
			return Machine{}, fmt.Errorf("system %s: node %d differs from node 0 (GPU, NVSwitch or NIC count): the timing model needs identical nodes", s.Name, i)
		}
	}
	g := n0.GPUs[0]
	m := Machine{Name: s.Name, Nodes: len(s.Nodes), GPUsPerNode: len(n0.GPUs), SM: g.SM, NVSwitch: n0.NVSwitch}
	// Per link and direction, NCCL's own figure (ncclTopoNVLinkBw: what
	// NCCL's search and tuning assume a link delivers), not the vendor's 25
	// GB/s: on the project's 2 × H200 the vendor figure made Ring AllReduce
	// 256 MiB simulate at 68% of NCCL's measured time, NCCL's at 82%.
	// Ref: v2.28.9-1 src/graph/topo.h SM*_NVLINK_BW.
	rules := topo.DefaultParams()
	perLink := float64(rules.NVLinkBw(g.SM))
	links := g.NVLinks
	if links == 0 && n0.NVSwitch {
		links = 18
	}
	m.NVLinkBw = GBps(perLink * float64(links))
	gen, width := g.PCIGen, g.PCIWidth
	if gen == 0 {
		gen = 4
		if g.SM >= 90 {
			gen = 5
		}
	}
	if width == 0 {
		width = 16
	}
	// ~0.985 × 2^(gen-1) GB/s per lane per direction for gen 3+: 16 GB/s for gen3 x16
	m.PCIeBw = GBps(float64(width) * float64(int(1)<<(gen-3)) * 1.0)
	m.HBMBw = GBps(2000)
	if g.SM >= 90 {
		m.HBMBw = GBps(3350)
	}
	m.NICs = len(n0.NICs)
	for _, nic := range n0.NICs {
		m.NICBw = max(m.NICBw, int64(nic.SpeedMbps)*1e6/8)
	}
	m.NVLS = n0.NVSwitch && g.Multicast && g.SM >= 90
	m.Profile = DefaultProfile(s.Name, g.SM)
	return m, m.Validate()
}

// hop classes for latencies
const (
	hopNVLink = iota // GPU to GPU over NVLink
	hopPCI           // GPU to GPU over PCIe
	hopNet           // across the network
	hopNVLS          // through the NVSwitch's multicast engine
	hopSHARP         // to or from the network switch's reduction engine
	numHops
)

// nvccl hwLatencies of src/graph/tuning.cc (2.28.9) by [hw][algo][proto],
// µs: hw is NVLINK, PCI, NET.
var ncclHwLat = [3][spec.NumAlgos][spec.NumProtos]float64{
	{{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
	{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
	{{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}},
}

// ncclBaseLat is baseLatencies of src/graph/tuning.cc (2.28.9), µs.
var ncclBaseLat = [spec.NumAlgos][spec.NumProtos]float64{
	{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0},
}

// HopLatency is the latency of one message over a hop of the given class
// for an algorithm and protocol: the machine's override when set, else
// NCCL's own per-step latency for that hardware class, algorithm and
// protocol (hwLatencies of src/graph/tuning.cc at v2.28.9-1). NCCL charges
// its NVLS and CollNet network latencies once per operation for a round
// trip through the switch, so the model splits them over the two hops
// (into and out of the switch). SendRecv uses Ring's values.
func (m *Machine) HopLatency(hop int, algo spec.Algo, proto spec.Proto) Time {
	if v := m.Latency[hop][proto]; v > 0 {
		return FromMicros(v)
	}
	a := algo
	if a < 0 || a >= spec.NumAlgos {
		a = spec.Ring
	}
	switch hop {
	case hopNVLink:
		if a == spec.NVLS || a == spec.NVLSTree {
			// a rank-to-rank step of NVLSTree's tree over NVLink (cross-
			// clique MNNVL): NCCL's NVLink figure for these algorithms is
			// the NVLS round trip through the switch (hopNVLS), so the
			// step costs what a Tree step over NVLink does
			a = spec.Tree
		}
		return FromMicros(ncclHwLat[0][a][proto])
	case hopPCI:
		return FromMicros(ncclHwLat[1][a][proto])
	case hopNet:
		if a.IsCollNet() || a == spec.NVLS {
			a = spec.Tree
		}
		return FromMicros(ncclHwLat[2][a][proto])
	case hopNVLS:
		return FromMicros(ncclHwLat[0][spec.NVLS][spec.Simple] / 2)
	case hopSHARP:
		// NVLS across nodes reaches SHARP through CollNet; NCCL charges it
		// the NET latency of NVLS (tuning.cc: latency = intraLat + interLat)
		if !a.IsCollNet() && a != spec.NVLS {
			a = spec.CollNetDirect
		}
		return FromMicros(ncclHwLat[2][a][spec.Simple] / 2)
	}
	return 0
}

// hopLatency is HopLatency with the profile's NVLink latency factor and
// the NET loopback's latency.
func (f *fabric) hopLatency(hop int, algo spec.Algo, proto spec.Proto) Time {
	t := f.m.HopLatency(hop, algo, proto)
	if hop == hopNVLink && f.t.hopScale != 1 {
		t = Time(math.Round(float64(t) * f.t.hopScale))
	}
	if hop == hopNet {
		// the host itself as the network; the network's own latency, and
		// the flush of a received Simple step (Machine.NetFlush)
		t += f.t.loopLat + f.t.netLat
		if proto == spec.Simple && f.m.NetFlush {
			t += f.t.flush
		}
	}
	return t
}

// LaunchLatency is NCCL's base latency of the algorithm and protocol
// (baseLatencies of src/graph/tuning.cc at v2.28.9-1), charged once when
// the operation starts.
func (m *Machine) LaunchLatency(algo spec.Algo, proto spec.Proto) Time {
	if algo < 0 || algo >= spec.NumAlgos {
		algo = spec.Ring
	}
	return FromMicros(ncclBaseLat[algo][proto])
}

// LinkClass groups links for reporting.
type LinkClass uint8

const (
	LinkNVLink LinkClass = iota // GPU ↔ NVSwitch
	LinkPCIe                    // GPU ↔ PCIe (to a NIC or another GPU)
	LinkNIC                     // NIC ↔ network: injected network bytes
	LinkHBM                     // local memory copies
	numLinkClasses
)

var linkClassNames = [numLinkClasses]string{"nvlink", "pcie", "nic", "hbm"}

func (c LinkClass) String() string {
	if c < numLinkClasses {
		return linkClassNames[c]
	}
	return "?"
}

// Links of a fabric are numbered per node: for each GPU nvlOut, nvlIn,
// pcieOut, pcieIn, hbm; then for each NIC nicOut, nicIn.
const gpuLinks = 5

// timing is the machine's profile compiled for one simulation.
type timing struct {
	// capRate caps one channel's connections (bytes/s, 0: none): the
	// profile's cap for the algorithm and protocol scaled by the threads,
	// and the machine's ChannelBw.
	capRate int64
	// rateScale is the release's bandwidth factor.
	rateScale float64
	// hopScale multiplies NCCL's NVLink per-step latency.
	hopScale float64
	// nvlinkEff scales the rate of connections that cross NVLink (P2P),
	// nvlsEff those through the NVSwitch's multicast engine and sharpEff
	// those to the network switch's reduction: each a fraction of the
	// link share the machine's links leave the connection
	nvlinkEff         float64
	nvlsEff, sharpEff float64
	// shm: ranks of a node talk through host memory at shmBw (0: PCIe).
	shm   bool
	shmBw int64
	// loopBw is the NET rate between pieces of one host (NetLoopback; 0:
	// the NIC speed) per direction, loopRankBw what one rank's sends and
	// receives share (0: not shared).
	loopBw, loopRankBw int64
	// loopLat is added to each NET step between pieces of one host.
	loopLat Time
	// loopMsg is the proxy thread's time per NET message between pieces
	// of one host, per connection the thread serves (netMsgCost).
	loopMsg Time
	// netLat is Machine.NetLat, added to each NET step.
	netLat Time
	// flush is what a flushed received step waits for (FlushCost).
	flush Time
}

func newTiming(cfg *Config, s *algos.Schedule) timing {
	m := &cfg.Machine
	p := m.Profile
	t := timing{rateScale: p.Value(releaseName(s.Release)), hopScale: p.Value("hop.nvlink.scale"),
		nvlinkEff: p.Value("link.nvlink.eff") * p.Value(funcLinkName(s.Func)) * protoLink(p, s.Proto), nvlsEff: m.NVLSEfficiency(), sharpEff: p.Value("sharp.eff"),
		shm: cfg.Transport == "SHM", shmBw: GBps(p.Value("transport.shm.bw")), netLat: FromMicros(m.NetLat), flush: m.FlushCost()}
	if m.NetLoopback {
		t.loopBw = GBps(p.Value("transport.net.loopback.bw"))
		t.loopRankBw = GBps(p.Value("transport.net.loopback.rank.bw"))
		t.loopLat = FromMicros(p.Value("transport.net.loopback.lat"))
		t.loopMsg = FromMicros(p.Value("transport.net.loopback.msg"))
	}
	if c := p.Value(capName(s.Algo, s.Proto)) * p.Value(funcName(s.Func)); c > 0 {
		if cfg.NThreads > 0 && cfg.DefaultNThreads > 0 && cfg.NThreads != cfg.DefaultNThreads {
			c *= math.Pow(float64(cfg.NThreads)/float64(cfg.DefaultNThreads), p.Value("threads.exponent"))
		}
		t.capRate = GBps(c)
	}
	if c := m.ChannelBw[s.Proto]; c > 0 && (t.capRate == 0 || c < t.capRate) {
		t.capRate = c
	}
	return t
}

// FlushCost is what one flush of a received step costs (G-NET-CONN-FLUSH-1,
// G-COLLNET-FLUSH-1): the plugin's iflush, which for NCCL's IB
// (ncclIbIflush) posts an RDMA read of the received buffer through the
// local NIC on a loopback QP and completes when the read does, a round
// trip over PCIe between the NIC and the GPU and no network hop
// (transport.net.flush.iflush); or with gdrcopy one CPU load through the
// BAR mapping (transport.net.flush.gdrcopy). Zero where nothing flushes.
func (m *Machine) FlushCost() Time {
	switch {
	case !m.NetFlush && !m.CollNetFlush:
		return 0
	case m.GdrCopyFlush:
		return FromMicros(m.Profile.Value("transport.net.flush.gdrcopy"))
	}
	return FromMicros(m.Profile.Value("transport.net.flush.iflush"))
}

// NVLSEfficiency is the fraction of the NVLink bandwidth NVLS traffic
// achieves on the machine: its profile's nvls.eff, or NCCL's own figure
// for the GPU generation when the profile has none.
func (m *Machine) NVLSEfficiency() float64 {
	if e := m.Profile.Value("nvls.eff"); e > 0 {
		return e
	}
	return ncclNVLSEfficiency(m.SM)
}

// ncclNVLSEfficiency is NCCL's nvlsEfficiency by GPU generation: the
// fraction of NVLink bandwidth its model credits NVLS with.
// Ref: v2.28.9-1 src/graph/tuning.cc nvlsEfficiency (Hopper 0.85,
// Blackwell 0.74).
func ncclNVLSEfficiency(sm int) float64 {
	switch {
	case sm >= 100:
		return 0.74
	case sm >= 90:
		return 0.85
	}
	return 1
}

// protoLink is the profile's NVLink factor for a protocol's traffic.
func protoLink(p *Profile, proto spec.Proto) float64 {
	if proto == spec.LL {
		return p.Value("proto.LL.link")
	}
	return 1
}

// scaleRate multiplies a rate by a factor (1: unchanged).
func scaleRate(r int64, f float64) int64 {
	if f == 1 || r <= 0 {
		return r
	}
	return max(1, int64(float64(r)*f))
}

// fabric is a Machine's links.
type fabric struct {
	m       *Machine
	t       timing
	perNode int
	cap     []int64
	class   []LinkClass
}

func newFabric(m *Machine, t timing) *fabric {
	f := &fabric{m: m, t: t, perNode: m.GPUsPerNode*gpuLinks + 2*m.NICs}
	n := f.perNode * m.Nodes
	f.cap = make([]int64, n)
	f.class = make([]LinkClass, n)
	for node := 0; node < m.Nodes; node++ {
		for g := 0; g < m.GPUsPerNode; g++ {
			b := node*f.perNode + g*gpuLinks
			nvl := m.NVLinkBw
			if !m.NVSwitch {
				nvl = 0
			}
			pci := m.PCIeBw
			if t.shm && t.shmBw > 0 {
				pci = t.shmBw
			}
			if t.loopRankBw > 0 {
				// the host-bound link every NET byte of the rank crosses,
				// sent or received (fromNet)
				pci = t.loopRankBw
			}
			f.cap[b+0], f.class[b+0] = nvl, LinkNVLink
			f.cap[b+1], f.class[b+1] = nvl, LinkNVLink
			f.cap[b+2], f.class[b+2] = pci, LinkPCIe
			f.cap[b+3], f.class[b+3] = pci, LinkPCIe
			f.cap[b+4], f.class[b+4] = m.HBMBw, LinkHBM
		}
		nic := m.NICBw
		if t.loopBw > 0 {
			nic = t.loopBw
		}
		for k := 0; k < m.NICs; k++ {
			b := node*f.perNode + m.GPUsPerNode*gpuLinks + 2*k
			f.cap[b], f.class[b] = nic, LinkNIC
			f.cap[b+1], f.class[b+1] = nic, LinkNIC
		}
	}
	return f
}

func (f *fabric) gpuLink(rank, which int) int32 {
	node, g := rank/f.m.GPUsPerNode, rank%f.m.GPUsPerNode
	return int32(node*f.perNode + g*gpuLinks + which)
}

// nicOf is the NIC next to a GPU: GPU g of G shares NIC g×NICs/G.
func (f *fabric) nicOf(rank int) int {
	g := rank % f.m.GPUsPerNode
	return g * f.m.NICs / f.m.GPUsPerNode
}

// nicHome is the first GPU next to NIC k (the proxy GPU of PXN).
func (f *fabric) nicHome(k int) int {
	return (k*f.m.GPUsPerNode + f.m.NICs - 1) / f.m.NICs
}

func (f *fabric) nicLinkOn(node, k int, in bool) int32 {
	b := node*f.perNode + f.m.GPUsPerNode*gpuLinks + 2*k
	if in {
		b++
	}
	return int32(b)
}

// railNIC is the NIC a rank uses on network rail nd (-1: its own NIC).
func (f *fabric) railNIC(rank, nd int) int {
	if nd < 0 {
		return f.nicOf(rank)
	}
	return nd % f.m.NICs
}

// toNet appends the links from a GPU into the network on rail nd: through
// its own NIC's PCIe switch, or, when the rail's NIC belongs to another
// GPU and an NVSwitch is there, over NVLink to that GPU first (PXN).
func (f *fabric) toNet(dst []int32, rank, nd int) []int32 {
	node := rank / f.m.GPUsPerNode
	k := f.railNIC(rank, nd)
	if k != f.nicOf(rank) && f.m.NVSwitch {
		home := node*f.m.GPUsPerNode + f.nicHome(k)
		dst = append(dst, f.gpuLink(rank, 0), f.gpuLink(home, 1), f.gpuLink(home, 2))
	} else {
		dst = append(dst, f.gpuLink(rank, 2))
	}
	return append(dst, f.nicLinkOn(node, k, false))
}

// fromNet appends the links from the network into a GPU on rail nd: the
// NIC writes over PCIe (GPUDirect RDMA) into the GPU's memory.
func (f *fabric) fromNet(dst []int32, rank, nd int) []int32 {
	node := rank / f.m.GPUsPerNode
	in := 3
	if f.t.loopRankBw > 0 {
		// a host split into NET nodes: the rank's receives share its
		// sends' budget (transport.net.loopback.rank.bw)
		in = 2
	}
	return append(dst, f.nicLinkOn(node, f.railNIC(rank, nd), true), f.gpuLink(rank, in))
}

// path appends the links a rank-to-rank message crosses on network rail nd
// and returns the hop class.
func (f *fabric) path(dst []int32, src, to, nd int) ([]int32, int) {
	if src == to {
		return append(dst, f.gpuLink(src, 4)), hopNVLink
	}
	sn, tn := src/f.m.GPUsPerNode, to/f.m.GPUsPerNode
	if d := f.m.NVLDomainNodes; sn != tn && d > 1 && sn/d == tn/d {
		// cross-clique MNNVL: CUDA P2P through the domain's NVSwitches
		return append(dst, f.gpuLink(src, 0), f.gpuLink(to, 1)), hopNVLink
	}
	if sn == tn {
		if f.t.shm {
			// SHM goes through host memory: the sender writes it, the
			// receiver reads it, both over their PCIe lanes to the host;
			// the model charges both on the GPUs' host-bound links, so
			// traffic in the two directions shares the host's bandwidth
			return append(dst, f.gpuLink(src, 2), f.gpuLink(to, 2)), hopPCI
		}
		if f.m.NVSwitch {
			return append(dst, f.gpuLink(src, 0), f.gpuLink(to, 1)), hopNVLink
		}
		return append(dst, f.gpuLink(src, 2), f.gpuLink(to, 3)), hopPCI
	}
	dst = f.toNet(dst, src, nd)
	return f.fromNet(dst, to, nd), hopNet
}
