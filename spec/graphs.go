package spec

import (
	"fmt"
	"slices"

	"github.com/gatesim/gatesim/spec/topo"
)

// The ring and tree searches, the channel count the ranks agree on, and the
// transport between ranks of one node, read from spec/topo's search
// (G-TOPO-1).

var graphSearch = &Rule{
	ID: "G-GRAPH-SEARCH-1", Layer: LayerGraph, Title: "ring and tree graphs",
	Doc:  `Every rank searches the ring graph (pattern 4, 1 to MAXCHANNELS/2 channels) and the tree graph (pattern 1, as many channels as the ring). A search never fails: with no better path it falls back to one channel over PCI at SYS type, so every communicator has at least one ring and one tree channel.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	Logs: []string{"Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d"},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		nr, split := r.topoNode(s)
		if nr == nil {
			r.emit(Verdict{Outcome: Skip, Why: "no topology search"})
			return
		}
		ring := nr.Graph(topo.GraphRing)
		s.graphs.Ring = graphInfo(ring, true)
		s.graphs.Tree = graphInfo(nr.Graph(topo.GraphTree), true)
		why := fmt.Sprintf("ring %d channel(s) %s/%s, tree %d channel(s) (pattern %d) over %d GPU(s)",
			s.graphs.Ring.NChannels, s.graphs.Ring.TypeIntra, s.graphs.Ring.TypeInter,
			s.graphs.Tree.NChannels, s.graphs.Tree.Pattern, len(nr.Ranks))
		if split > 1 {
			why += fmt.Sprintf(" (this host splits into %d NCCL nodes)", split)
		}
		r.emit(Verdict{Outcome: Info, Why: why, Debug: nr.Log(),
			Facts: []Fact{F("gpus", len(nr.Ranks)), F("bwIntra", ring.BwIntra), F("bwInter", ring.BwInter)}})
	},
}

var graphConsensus = &Rule{
	ID: "G-GRAPH-CHANNELS-1", Layer: LayerGraph, Title: "channels the ranks agree on",
	Doc: `After AllGather3: each graph takes the minimum nChannels over ranks (ring and tree the smaller of the two); nNodes counts the distinct nodes; ncclTopoPostset doubles the channels (at most MAXCHANNELS), adds half again for CollNet when intra-node bandwidth exceeds inter-node, doubles again on sm90 across nodes when the ring's intra bandwidth exceeds 45 GB/s and fewer than 16 channels remain, then NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS and the CTA limits bound it. p2pnChannelsPerPeer is each rank's own, worked out over its node's GPUs, until 2.28.9 (nodes of two kinds may disagree; the summary is rank 0's), and from 2.29.2 the least over every rank (all-gathered). From 2.30.3 the summary line follows "NVLS tuning: ..." (with NVLS) and, across nodes with NCCL_NCHANNELS_PER_NET_PEER unset, "Tuning P2P operations with maxP2pPeers = %d".`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/graph/connect.cc", Func: "ncclTopoPostset"},
	Logs: []string{"%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer",
		"NVLS tuning: nChannels %d chunkSize %d treeMaxChunkSize %d", "Tuning P2P operations with maxP2pPeers = %d"},
	init: func(r *initRun) {
		c := r.comm
		res := c.Topo
		if res == nil {
			r.emit(Verdict{Outcome: Skip, Why: "no topology search"})
			return
		}
		c.Graphs.Ring = graphInfo(res.Graphs[topo.GraphRing], true)
		c.Graphs.Tree = graphInfo(res.Graphs[topo.GraphTree], true)
		c.NNodes, c.LocalRanks, c.MaxLocalRanks = res.NNodes, slices.Clone(res.LocalRanks), res.MaxLocalRanks
		c.NChannels = res.NChannels
		facts := []Fact{F("nNodes", res.NNodes), F("nChannels", res.NChannels), F("searched", res.NChannelsSearched)}
		// the CTA limits bound the channels and the p2p settings the
		// channels per peer: where each that is set came from
		facts = c.settingsSet(facts, "NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_P2P_MAX_PEERS")
		r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("ring and tree agree on %d channel(s); %d communicator channel(s) after ncclTopoPostset; %d node(s)",
			res.NChannelsSearched, res.NChannels, res.NNodes), Facts: facts, Log: append(slices.Clone(res.InitLog), res.Summary)})
	},
}

// transportRule is G-TRANSPORT-1: how two ranks of one node connect
// (src/transport.cc selectTransport tries P2P, then SHM, then NET).
var transportRule = &Rule{
	ID: "G-TRANSPORT-1", Layer: LayerGraph, Cap: CapP2P, Title: "intra-node transport",
	Doc:  `Between ranks of one node selectTransport tries P2P (same host, path type within the P2P level: NCCL_P2P_DISABLE=1 sets the level to LOC, NCCL_P2P_LEVEL names it, default PXB on Intel/ARM/Zhaoxin CPUs and SYS elsewhere; NVLink paths always qualify), then SHM (unless NCCL_SHM_DISABLE=1), then the network. Ranks on different nodes use the network, except (2.30.3+) with cross-clique MNNVL (comm->p2pCrossClique), where ncclTopoCheckP2p forces CUDA P2P to the ranks of the other cliques of the NVL domain.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/transport/p2p.cc", Func: "p2pCanConnect"},
	Logs: []string{"Channel %02d/%d : %d[%d] -> %d[%d] via P2P/IPC", "Channel %02d/%d : %d[%d] -> %d[%d] via SHM/direct/direct", "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d"},
	init: func(r *initRun) {
		c := r.comm
		s := r.nodes[0]
		hostGPUs := len(s.node.GPUs)
		if hostGPUs <= 1 {
			c.IntraTransport = ""
			r.emit(Verdict{Outcome: Skip, Why: "one GPU per host: every peer is reached over the network"})
			return
		}
		p2pOff := false
		level := "PXB"
		if cpu := s.node.CPU; cpu.Arch == "x86_64" && cpu.Vendor == "AMD" {
			level = "SYS"
		}
		if v, ok := r.env.Lookup("NCCL_P2P_DISABLE"); ok && strtolInt(v) == 1 {
			p2pOff, level = true, "LOC"
		} else if v, ok := r.env.Lookup("NCCL_P2P_LEVEL"); ok && v != "" {
			level = v
		}
		path := "PHB"
		if nr, _ := r.topoNode(s); nr != nil && nr.System != nil {
			path = worstGPUPath(nr.System)
		}
		shmOff := r.param("NCCL_SHM_DISABLE") == 1
		facts := []Fact{F("path", path), F("p2p_level", level), F("NCCL_SHM_DISABLE", b01(shmOff))}
		if split := c.NNodes / max(1, len(c.System.Nodes)); split > 1 && shmOff {
			// The topology trimmed the host's GPUs apart (ncclTopoTrimSystem:
			// no P2P and no SHM path between them), so each NCCL node holds
			// one part and its peers are on other "nodes": the trimmed system
			// says LOC, but the connection is the network's.
			c.IntraTransport = "NET"
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("P2P and SHM unavailable: the host's %d GPUs are %d NCCL nodes and reach each other through NET/%s", hostGPUs, split, c.Net), Facts: facts})
			return
		}
		if !p2pOff && pathWithin(path, level) {
			c.IntraTransport = "P2P"
			why := fmt.Sprintf("path %s within P2P level %s: P2P", path, level)
			if c.CrossClique {
				_, size, domain, _ := mnnvlClique(c)
				why += fmt.Sprintf("; cross-clique MNNVL: the %d ranks of the other cliques of the NVL domain are reached over P2P too, not NET", domain-size)
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelUsable, Why: why, Facts: facts})
			return
		}
		if !shmOff {
			c.IntraTransport = "SHM"
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("path %s beyond P2P level %s: SHM", path, level), Facts: facts})
			r.comm.Evidence.Raise(CapSHM, LevelUsable)
			return
		}
		c.IntraTransport = "NET"
		r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("P2P and SHM unavailable: the host's %d GPUs are %d NCCL nodes and reach each other through NET/%s", hostGPUs, c.NNodes/max(1, len(c.System.Nodes)), c.Net), Facts: facts})
	},
}

var pathOrder = []string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"}

// pathWithin compares path classes; an unknown level name is read as an
// old numeric level by NCCL, here as SYS.
func pathWithin(path, level string) bool {
	idx := func(s string) int {
		for i, p := range pathOrder {
			if p == s {
				return i
			}
		}
		return 9
	}
	return idx(path) <= idx(level)
}
