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
	envInt := func(name string, set func(int)) {
		if v, ok := c.Env.Lookup(name); ok {
			var n int
			if _, err := fmt.Sscan(v, &n); err == nil && n >= 0 {
				set(n)
			}
		}
	}
	p, err := ParamsFor(c.Release)
	if err != nil {
		return nil, err
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
	// the p2p path: the communicator's p2p channels; the chunk by path
	// (NCCL_P2P_NET_CHUNKSIZE across nodes, NCCL_P2P_NVL_CHUNKSIZE when all
	// GPU pairs are NVLink, NCCL_P2P_PCI_CHUNKSIZE otherwise) capped by the
	// Simple buffer (src/init.cc computeBuffSizes)
	l.setP2PDefaults(p, r.AllNVLink)
	l.P2PNChannels, l.P2PNChannelsPerPeer = r.P2PNChannels, r.P2PNChannelsPerPeer
	chunkVar := "NCCL_P2P_PCI_CHUNKSIZE"
	switch {
	case r.NNodes > 1:
		chunkVar = "NCCL_P2P_NET_CHUNKSIZE"
	case r.AllNVLink:
		chunkVar = "NCCL_P2P_NVL_CHUNKSIZE"
	}
	envInt(chunkVar, func(n int) {
		if n > 0 {
			l.P2PChunkSize = min(n, l.BuffSize[spec.Simple]/p.NSteps)
		}
	})
	envInt("NCCL_P2P_LL_THRESHOLD", func(n int) { l.P2PLLThreshold = n })
	envInt("NCCL_CHUNK_SIZE", func(n int) { l.P2PChunkParam = n })
	envInt("NCCL_P2P_SCHEDULE_GROUP_SIZE", func(n int) { l.P2PGroupSize = max(1, n) })
	envInt("NCCL_NET_SHARED_BUFFERS", func(n int) { l.P2PNetLL = n == 0 })
	return l, l.Validate()
}
