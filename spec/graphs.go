package spec

import (
	"fmt"
)

// The ring and tree searches, the channel count the ranks agree on, and the
// transport between ranks of one node. The gates only need to know whether a
// graph has channels; the channel counts and bandwidths that the tuning model
// needs come from spec/topo's search when the system carries a topology.

var graphSearch = &Rule{
	ID: "G-GRAPH-SEARCH-1", Layer: LayerGraph, Title: "ring and tree graphs",
	Doc:  `Every rank searches the ring graph (pattern 4, 1 to MAXCHANNELS/2 channels) and the tree graph (pattern 1, as many channels as the ring). A search never fails: with no better path it falls back to one channel over PCI at SYS type, so every communicator has at least one ring and one tree channel.`,
	Ref:  Ref{"v2.22.3-1", "src/init.cc", "initTransportsRank"},
	Logs: []string{"Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d"},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		intra := intraPathType(s.node)
		s.graphs.Ring = GraphInfo{Searched: true, Pattern: 4, NChannels: 1, TypeIntra: intra, Estimated: true}
		s.graphs.Tree = GraphInfo{Searched: true, Pattern: 1, NChannels: 1, TypeIntra: intra, Estimated: true}
		if len(s.node.GPUs) == 1 {
			s.graphs.Tree.Pattern = 3 // a single GPU makes every non-ring pattern TREE
		}
		r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("ring and tree over %d GPU(s), intra-node path %s", len(s.node.GPUs), intra),
			Facts: []Fact{F("gpus", len(s.node.GPUs)), F("nvswitch", s.node.NVSwitch)}})
	},
}

// intraPathType is the best GPU-to-GPU path class of a node, from its facts.
func intraPathType(n *Node) string {
	if len(n.GPUs) <= 1 {
		return "LOC"
	}
	if n.NVSwitch {
		return "NVL"
	}
	links := 0
	for _, g := range n.GPUs {
		links += g.NVLinks
	}
	if links > 0 {
		return "NVL"
	}
	return "PHB"
}

var graphConsensus = &Rule{
	ID: "G-GRAPH-CHANNELS-1", Layer: LayerGraph, Title: "channels the ranks agree on",
	Doc:  `After AllGather3: each graph takes the minimum nChannels over ranks; comm->nChannels = min(ring, tree), then ncclTopoPostset doubles it (at most MAXCHANNELS), and NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS bound it.`,
	Ref:  Ref{"v2.22.3-1", "src/graph/connect.cc", "ncclTopoPostset"},
	Logs: []string{"%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer"},
	init: func(r *initRun) {
		c := r.comm
		ring, tree := 1<<30, 1<<30
		for _, s := range r.nodes {
			ring = min(ring, s.graphs.Ring.NChannels)
			tree = min(tree, s.graphs.Tree.NChannels)
		}
		c.Graphs.Ring = r.nodes[0].graphs.Ring
		c.Graphs.Tree = r.nodes[0].graphs.Tree
		c.Graphs.Ring.NChannels, c.Graphs.Tree.NChannels = ring, tree
		nc := min(r.rs.Consts.MaxChannels, 2*min(ring, tree))
		if v, set, _ := intParam(r.env, "NCCL_MAX_NCHANNELS", 0); set && v > 0 {
			nc = min(nc, int(v))
		}
		if v, set, _ := intParam(r.env, "NCCL_MIN_NCHANNELS", 0); set && v > 0 {
			nc = max(nc, min(int(v), r.rs.Consts.MaxChannels))
		}
		c.NChannels = nc
		r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("ring %d, tree %d channel(s) per search; %d communicator channel(s) after doubling and limits", ring, tree, nc),
			Facts: []Fact{F("nChannels", nc)}})
	},
}

// transportRule is G-TRANSPORT-1: how two ranks of one node connect
// (src/transport.cc selectTransport tries P2P, then SHM, then NET).
var transportRule = &Rule{
	ID: "G-TRANSPORT-1", Layer: LayerGraph, Cap: CapP2P, Title: "intra-node transport",
	Doc:  `Between ranks of one node selectTransport tries P2P (same host, path type within the P2P level: NCCL_P2P_DISABLE=1 sets the level to LOC, NCCL_P2P_LEVEL names it, default PXB on Intel/ARM/Zhaoxin CPUs and SYS elsewhere; NVLink paths always qualify), then SHM (unless NCCL_SHM_DISABLE=1), then the network. Ranks on different nodes always use the network.`,
	Ref:  Ref{"v2.22.3-1", "src/transport/p2p.cc", "p2pCanConnect"},
	Logs: []string{"Channel %02d/%d : %d[%d] -> %d[%d] via P2P/IPC", "Channel %02d/%d : %d[%d] -> %d[%d] via SHM/direct/direct", "Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d"},
	init: func(r *initRun) {
		c := r.comm
		s := r.nodes[0]
		if c.MaxLocalRanks <= 1 {
			c.IntraTransport = ""
			r.emit(Verdict{Outcome: Skip, Why: "one rank per node: every peer is reached over the network"})
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
		path := intraPathType(s.node)
		shmOff := r.param("NCCL_SHM_DISABLE") == 1
		facts := []Fact{F("path", path), F("p2p_level", level), F("NCCL_SHM_DISABLE", b01(shmOff))}
		if !p2pOff && pathWithin(path, level) {
			c.IntraTransport = "P2P"
			r.emit(Verdict{Outcome: Pass, Level: LevelUsable, Why: fmt.Sprintf("path %s within P2P level %s: P2P", path, level), Facts: facts})
			return
		}
		if !shmOff {
			c.IntraTransport = "SHM"
			r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("path %s beyond P2P level %s: SHM", path, level), Facts: facts})
			r.comm.Evidence.Raise(CapSHM, LevelUsable)
			return
		}
		c.IntraTransport = "NET"
		r.emit(Verdict{Outcome: Fail, Why: "P2P and SHM unavailable: local peers go through NET/" + c.Net, Facts: facts})
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
