package sim

import (
	"fmt"
	"math"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// SymTiming is how a symmetric kernel's or copy-engine collective's time
// is made up (µs): the launch (LaunchCost's, or NCCL's base latency of the
// kernel where the profile has none), its synchronisations, and the data,
// the slowest of the GPU's NVLink (P2P and multicast bytes, each at its
// rate, per direction), the busiest block's copy rate and a local copy.
type SymTiming struct {
	LaunchUs float64 `json:"launch_us"`
	SyncUs   float64 `json:"sync_us"`
	LinkUs   float64 `json:"nvlink_us"`
	BlockUs  float64 `json:"block_us"`
	LocalUs  float64 `json:"local_us"`
	// NetUs is a GIN kernel's network time (its busier NIC direction at
	// the GPU's share of the NICs) and FillUs its pipeline's fill: the
	// chunks that cross the network (and NVLink) before the data flows,
	// and the GIN puts its last chunk waits on.
	NetUs  float64 `json:"net_us,omitempty"`
	FillUs float64 `json:"fill_us,omitempty"`
	// Works are the tasks the kernel runs in its one launch.
	Works int `json:"works,omitempty"`
	// Launch is the launch cost in the time (LaunchUs exactly) and Host
	// the host's part of it: a group's timing charges the host's part per
	// operation and the rest per kernel.
	Launch, Host Time `json:"-"`
	// Bound names what set the data time: "nvlink", "net", "blocks" or
	// "local".
	Bound string `json:"bound"`
}

// SimulateSym times a symmetric kernel or copy-engine collective on one
// node of cfg's machine, with the owners the schedules' timing uses:
//   - P2P loads and stores at the GPU's NVLink rate × link.nvlink.eff
//     (× proto.LL.link for LL lines), multimem traffic at the NVLink rate ×
//     the NVLS efficiency (NVLSEfficiency);
//   - a block moves its bus bytes at most at NCCL's per-block rate of the
//     kernel (tuning.SymBlockBw: queryModel's smBw × bus multiplier; a
//     symmetric block is not a channel of the schedules, whose profile caps
//     cap.<algo>.<proto> measure NCCL's FIFO primitives), so the busiest
//     block's bus bytes over it bound the time; the copy engines have no
//     such bound;
//   - each synchronisation costs NCCL's NVLink LL per-step latency (a flag
//     stored to the peers and polled) × hop.nvlink.scale;
//   - the launch is LaunchCost's split by launch mode, with NCCL's base
//     latency of the kernel (tuning.SymBaseLatency) where the profile has
//     no launch cost (Ring/Simple's for the copy engines, which NCCL's
//     model does not time), and a timed batch's host/device overlap.
//
// A GIN kernel or hierarchical copy-engine collective (several LSA
// teams, one per node) also moves its network bytes at the GPU's share of
// its node's NICs, concurrently with its NVLink bytes (its warps, or the
// proxy and the copy engines, split the two); the network's per-step
// latency (NCCL's NET Ring/Simple figure and the machine's NetLat) is
// charged for each barrier that crosses the network and each put the last
// chunk waits on, and the pipeline's fill (NetFill over the network,
// LSAFill over NVLink) follows the network's bytes: the network path is
// its bytes and its fill, and the data time the slowest path. NCCL's GIN
// model has no base latency, so the launch without a profile is
// Ring/Simple's.
//
// The operation's bytes are spread evenly over the ranks (the kernels
// are symmetric), so no event loop runs; the release's bandwidth factor,
// fitted on the schedules' kernels, is not applied.
func SimulateSym(s *algos.SymSchedule, cfg Config) (*Result, *SymTiming, error) {
	m := &cfg.Machine
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	if s == nil || s.Ranks < 1 {
		return nil, nil, fmt.Errorf("simulate %s: no symmetric schedule", s)
	}
	if err := cfg.Launch.Validate(); err != nil {
		return nil, nil, err
	}
	lsa := s.LSARanks
	if lsa == 0 {
		lsa = s.Ranks
	}
	if m.Nodes*m.GPUsPerNode != s.Ranks || m.GPUsPerNode != lsa {
		if lsa == s.Ranks {
			return nil, nil, fmt.Errorf("simulate %s: the schedule has %d ranks on one node but the machine has %d × %d GPUs", s, s.Ranks, m.Nodes, m.GPUsPerNode)
		}
		return nil, nil, fmt.Errorf("simulate %s: the schedule has LSA teams of %d of %d ranks, one per node, but the machine has %d × %d GPUs", s, lsa, s.Ranks, m.Nodes, m.GPUsPerNode)
	}
	p := m.Profile
	proto := spec.Simple
	if s.LL {
		proto = spec.LL
	}
	link := m.NVLinkBw
	if !m.NVSwitch || link <= 0 {
		link = m.PCIeBw
	}
	p2pRate := scaleRate(link, p.Value("link.nvlink.eff")*protoLink(p, proto))
	if s.MCOut+s.MCIn > 0 && !m.NVLS {
		return nil, nil, fmt.Errorf("simulate %s: multimem on a machine without NVLS", s)
	}
	mcRate := scaleRate(m.NVLinkBw, m.NVLSEfficiency())
	out := durationOf(s.P2POut, p2pRate) + durationOf(s.MCOut, mcRate)
	in := durationOf(s.P2PIn, p2pRate) + durationOf(s.MCIn, mcRate)
	linkT := max(out, in)
	var blockT Time
	if !s.CopyEngine && s.BlockBusBytes > 0 {
		blockT = FromMicros(s.BlockBusBytes / tuning.SymBlockBw(s.SymKernel, s.Ranks, m.SM) * 1e6)
	}
	localT := hbmCopyDuration(s.Local, m.HBMBw)
	var netT, fill Time
	netHop := m.HopLatency(hopNet, spec.Ring, spec.Simple) + FromMicros(m.NetLat)
	gin := s.NetOut+s.NetIn+s.NetFill > 0 || s.NetSyncs+s.NetHops > 0
	if gin {
		if m.Nodes < 2 {
			return nil, nil, fmt.Errorf("simulate %s: network bytes on one node", s)
		}
		// GPU g sends on NIC g×NICs/G: the GPUs of a node share its NICs
		net := max(1, min(m.NICBw, m.NICBw*int64(m.NICs)/int64(m.GPUsPerNode)))
		netT = durationOf(max(s.NetOut, s.NetIn), net)
		fill = durationOf(s.NetFill, net) + durationOf(s.LSAFill, p2pRate) + Time(s.NetHops)*netHop
	}
	data, bound := linkT, "nvlink"
	if netT+fill > data {
		// the fill waits on the network: the first round crosses it, or
		// the last chunk lands before its copies inside the team
		data, bound = netT+fill, "net"
	}
	if blockT > data {
		data, bound = blockT, "blocks"
	}
	if localT > data {
		data, bound = localT, "local"
	}
	hop := m.HopLatency(hopNVLink, spec.Ring, spec.LL)
	if sc := p.Value("hop.nvlink.scale"); sc != 1 {
		hop = Time(math.Round(float64(hop) * sc))
	}
	sync := Time(s.Syncs)*hop + Time(s.NetSyncs)*netHop
	base := m.LaunchLatency(spec.Ring, spec.Simple)
	if !s.CopyEngine && !s.SymKernel.Gin() {
		base = FromMicros(tuning.SymBaseLatency(s.SymKernel, m.SM))
	}
	host, dev, split := m.launchSplitOr(base, cfg.Launch)
	end := host + dev + sync + data
	alone := end
	if split && !cfg.Launch.Graph() && cfg.Launch.Batch() > 1 && end > host {
		end = batchEnd(host, end, cfg.Launch.Batch())
	}
	n := s.Ranks
	nvl := (s.P2POut + s.P2PIn + s.MCOut + s.MCIn) * int64(n)
	nic := (s.NetOut + s.NetIn) * int64(n)
	r := &Result{Func: s.Func.String(), Algo: s.Kernel, Ranks: n, Nodes: m.Nodes, Channels: s.Blocks, DataType: s.DataType.String(), Bytes: s.Bytes, Time: end, TimeUs: end.Micros(), Alone: alone,
		LinkBytes:    map[string]int64{"nvlink": nvl, "hbm": 2 * s.Local * int64(n), "pcie": 0, "nic": nic},
		MaxLinkBytes: map[string]int64{"nvlink": max(s.P2POut+s.MCOut, s.P2PIn+s.MCIn), "hbm": 2 * s.Local, "pcie": 0, "nic": max(s.NetOut, s.NetIn)}}
	r.NetBytes = s.NetOut * int64(n)
	r.NetBytesPerNode = float64(r.NetBytes) / float64(m.Nodes)
	r.AlgBw, r.BusBw = Bandwidth(s.Func, r.Bytes, n, end.Seconds())
	t := &SymTiming{LaunchUs: (host + dev).Micros(), SyncUs: sync.Micros(), LinkUs: linkT.Micros(), BlockUs: blockT.Micros(), LocalUs: localT.Micros(),
		NetUs: netT.Micros(), FillUs: fill.Micros(), Bound: bound, Launch: host + dev, Host: host}
	if s.Works > 1 {
		t.Works = s.Works
	}
	return r, t, nil
}
