package algos

import (
	"cmp"
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// LayoutFromComm is the layout of a communicator spec built: its topology
// search's graphs (the orders of node 0, the agreed channel counts), the
// channel copies ncclTopoPostset made, NVLS and CollNet as the gates left
// them, the tuning model's NVLS bandwidth (NVLSBw, which sets the chunk of
// NVLS across nodes), the NVLS chunk and NVLSTree cap of 2.30.3's
// ncclNvlsTuning or, before, of NCCL_NVLS_CHUNKSIZE and
// NCCL_NVLSTREE_MAX_CHUNKSIZE where the release reads them, and the
// buffer sizes of NCCL_BUFFSIZE,
// NCCL_LL_BUFFSIZE and NCCL_LL128_BUFFSIZE. It fails when init failed or the nodes differ in
// size (Layout has one order per channel for all nodes).
func LayoutFromComm(c *spec.Comm) (*Layout, error) {
	if c.Err != nil {
		return nil, fmt.Errorf("communicator init failed: %s", c.Err.Message)
	}
	r := c.Topo
	if r == nil {
		return nil, fmt.Errorf("the communicator has no topology search")
	}
	if r.MinLocalRanks != r.MaxLocalRanks {
		return nil, fmt.Errorf("nodes of %d to %d GPUs: the schedules need nodes of one size", r.MinLocalRanks, r.MaxLocalRanks)
	}
	g := Graphs{Ring: &r.Graphs[topo.GraphRing], Tree: &r.Graphs[topo.GraphTree], RankBase: r.Nodes[0].Ranks[0],
		Copies: r.ChannelCopies, MinCompCap: r.MinCompCap}
	if c.CollNetSupport {
		g.CollNetChain, g.CollNetDirect = &r.Graphs[topo.GraphCollNetChain], &r.Graphs[topo.GraphCollNetDirect]
	}
	if c.NVLSSupport {
		g.NVLS, g.NVLSChannels = &r.Graphs[topo.GraphNVLS], c.NVLSChannels
	}
	l, err := FromGraphs(c.Release, r.NNodes, r.MaxLocalRanks, g)
	if err != nil {
		return nil, err
	}
	if l.NChannels != c.NChannels {
		return nil, fmt.Errorf("the layout has %d channels where the communicator has %d: ncclTopoPostset's copies are off", l.NChannels, c.NChannels)
	}
	// calcCollChunking's facts are spec's (the tuning model's input):
	// buffers of NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE and NCCL_LL128_BUFFSIZE
	// (2.18's ARM Simple buffer), the NVLS chunk and NVLSTree cap
	if c.Model == nil {
		return nil, fmt.Errorf("the communicator has no tuning model")
	}
	cc := c.Model.ChunkComm()
	l.BuffSize, l.NVLSBw = cc.BuffSize, cc.NVLSBw
	if c.NVLSSupport {
		l.NVLSChunkSize = cmp.Or(cc.NVLSChunkSize, l.NVLSChunkSize)
		l.NVLSTreeMaxChunkSize = cc.NVLSTreeMaxChunkSize
	}
	// the p2p path as NCCL's send/recv planner reads it: spec owns it
	pc, err := c.P2PComm()
	if err != nil {
		return nil, err
	}
	l.P2PNChannels, l.P2PNChannelsPerPeer, l.P2PChunkSize = pc.NChannels, pc.NChannelsPerPeer, pc.ChunkSize
	l.P2PLLThreshold, l.P2PChunkParam, l.P2PGroupSize, l.P2PNetLL = pc.LLThreshold, pc.ChunkParam, pc.GroupSize, pc.NetLL
	return l, l.Validate()
}
