package algos

import (
	"fmt"
	"slices"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// Graphs is what FromGraphs reads from a topology search: the graphs of one
// node as NCCL holds them after the ranks' all-gather (init.cc
// initTransportsRank: channel counts agreed, the orders the node's own),
// and the channel counts ncclTopoPostset went through.
//
// With spec/topo's Search this is: Ring, Tree, CollNetChain, CollNetDirect
// and NVLS = &r.Graphs[topo.GraphRing] ... (node 0's orders cut to the
// agreed counts), RankBase = r.Nodes[0].Ranks[0] (0), Copies =
// r.ChannelCopies (ncclTopoPostset's counts, the last r.NChannels),
// NVLSChannels = r.NvlsChannels and MinCompCap = r.MinCompCap.
type Graphs struct {
	// Ring and Tree are required; CollNetChain, CollNetDirect and NVLS may
	// be nil or empty when the communicator has no such support.
	Ring, Tree, CollNetChain, CollNetDirect, NVLS *topo.Graph
	// RankBase is the global rank of the node's first GPU: Intra lists
	// global ranks and local rank = rank - RankBase.
	RankBase int
	// Copies are comm->nChannels after each step of ncclTopoPostset that
	// calls copyChannels or cuts the count, starting with the doubling
	// (min(MAXCHANNELS, 2×searched channels)); the last is the
	// communicator's channel count (topo.Result.ChannelCopies).
	Copies []int
	// NVLSChannels is comm->nvlsChannels (0 without NVLS).
	NVLSChannels int
	// MinCompCap is the smallest compute capability × 10 (90 for sm90).
	MinCompCap int
}

// channelSources returns, for each final channel, the graph channel it was
// copied from and its tree of the double binary tree: the doubling makes
// channel c+g a copy of c on the second tree, every later copyChannels(n, m)
// makes channel c ≥ n a copy of channel c-n, and a smaller count cuts.
// Ref: v2.28.9-1 src/graph/connect.cc ncclTopoPreset (memcpy channel1),
// connectTrees, copyChannels.
func channelSources(searched int, copies []int) (graph, which []int, err error) {
	if len(copies) == 0 {
		return nil, nil, fmt.Errorf("layout: no channel counts: expected at least the doubled count")
	}
	if copies[0] <= 0 || copies[0] > 2*searched {
		return nil, nil, fmt.Errorf("layout: first channel count %d: expected the doubling of %d searched channels (at most %d)", copies[0], searched, 2*searched)
	}
	for c := 0; c < copies[0]; c++ {
		graph = append(graph, c%searched)
		which = append(which, c/searched)
	}
	for _, m := range copies[1:] {
		if m <= 0 {
			return nil, nil, fmt.Errorf("layout: channel count %d: expected a positive count", m)
		}
		n := len(graph)
		if m < n {
			graph, which = graph[:m], which[:m]
			continue
		}
		for c := n; c < m; c++ {
			graph = append(graph, graph[c-n])
			which = append(which, which[c-n])
		}
	}
	return graph, which, nil
}

// FromGraphs builds the layout of nNodes identical nodes of localRanks GPUs
// from one node's searched graphs, as ncclTopoPreset and ncclTopoPostset
// connect them:
//
//   - channel c copies graph channel graph(c) and uses tree which(c) (see
//     Graphs.Copies): its ring and tree chain are that channel's Intra
//     orders, the tree pattern is the tree graph's;
//   - the CollNet chain of a channel is the CollNet chain graph's Intra
//     (the ring order when the graph is absent: no CollNetChain then);
//   - CollNetDirect heads are the distinct Intra[c][0] of the CollNetDirect
//     graph's channels in channel order (connectCollNet), NVLS heads the
//     distinct Intra[c][0] of the NVLS graph (ncclTopoPreset nvlsHeads);
//   - NetDev[c] is the local NET id the ring graph's channel enters the
//     node on (Inter[c][0]).
//
// Ref: v2.28.9-1 src/graph/connect.cc ncclTopoPreset, ncclTopoPostset,
// connectRings, connectTrees, connectCollNet, connectNvls.
//
// Not modelled: the crossNic=2 ring alternation on odd nodes (rings c and
// c^1 exchanged there) and nodes whose orders differ; Layout has one order
// per channel for all nodes.
func FromGraphs(release spec.Version, nNodes, localRanks int, g Graphs) (*Layout, error) {
	p, err := ParamsFor(release)
	if err != nil {
		return nil, err
	}
	if nNodes <= 0 || localRanks <= 0 || localRanks > 72 {
		return nil, fmt.Errorf("layout: %d nodes × %d GPUs: expected at least one node and 1 to 72 GPUs per node", nNodes, localRanks)
	}
	if g.Ring.Empty() || g.Tree.Empty() {
		return nil, fmt.Errorf("layout: ring and tree graphs need at least one channel")
	}
	searched := min(g.Ring.NChannels, g.Tree.NChannels)
	local := func(what string, gr *topo.Graph, c int, full bool) ([]int, error) {
		if c >= len(gr.Intra) {
			return nil, fmt.Errorf("layout: %s graph has %d channels but Intra has %d rows", what, gr.NChannels, len(gr.Intra))
		}
		row := gr.Intra[c]
		if full && len(row) != localRanks || len(row) == 0 {
			return nil, fmt.Errorf("layout: %s graph channel %d lists %d GPUs: expected %d", what, c, len(row), localRanks)
		}
		out := make([]int, len(row))
		for i, r := range row {
			out[i] = r - g.RankBase
			if out[i] < 0 || out[i] >= localRanks {
				return nil, fmt.Errorf("layout: %s graph channel %d has rank %d: expected %d to %d (RankBase + local rank)", what, c, r, g.RankBase, g.RankBase+localRanks-1)
			}
		}
		return out, nil
	}
	graphOf, which, err := channelSources(searched, g.Copies)
	if err != nil {
		return nil, err
	}
	nChannels := len(graphOf)
	if nChannels > p.MaxChannels {
		return nil, fmt.Errorf("layout: %d channels: at most %d (MAXCHANNELS of NCCL %s)", nChannels, p.MaxChannels, release)
	}
	switch g.Tree.Pattern {
	case topo.PatternBalancedTree, topo.PatternSplitTree, topo.PatternTree:
	default:
		return nil, fmt.Errorf("layout: tree graph pattern %v: expected BALANCED_TREE, SPLIT_TREE or TREE", g.Tree.Pattern)
	}
	l := &Layout{
		Release:       release,
		NNodes:        nNodes,
		LocalRanks:    localRanks,
		NChannels:     nChannels,
		BuffSize:      p.DefaultBuffSize,
		NVLSChunkSize: p.NVLSChunkSize,
		NVLSChannels:  g.NVLSChannels,
		MinCompCap:    g.MinCompCap,
	}
	chain := !g.CollNetChain.Empty()
	for c := 0; c < nChannels; c++ {
		k := graphOf[c]
		ring, err := local("ring", g.Ring, k, true)
		if err != nil {
			return nil, err
		}
		tree, err := local("tree", g.Tree, k, true)
		if err != nil {
			return nil, err
		}
		cn := ring
		if chain {
			if cn, err = local("CollNet chain", g.CollNetChain, k%g.CollNetChain.NChannels, true); err != nil {
				return nil, err
			}
		}
		nd := 0
		if nNodes > 1 {
			if k >= len(g.Ring.Inter) || len(g.Ring.Inter[k]) == 0 {
				return nil, fmt.Errorf("layout: ring graph channel %d has no NET ids: a multi-node graph needs Inter", k)
			}
			// NCCL_TOPO_ID_LOCAL_ID (src/graph/topo.h): the device on the host.
			id := g.Ring.Inter[k][0] & 0x00ffffffffffffff
			if id < 0 || id >= 64 {
				return nil, fmt.Errorf("layout: ring graph channel %d enters on NET %d: expected a device 0-63", k, id)
			}
			nd = int(id)
		}
		l.Ring = append(l.Ring, ring)
		l.Tree = append(l.Tree, TreeChannel{Intra: tree, Pattern: g.Tree.Pattern, Which: which[c]})
		l.CollNetChain = append(l.CollNetChain, cn)
		l.NetDev = append(l.NetDev, nd)
	}
	heads := func(what string, gr *topo.Graph, full bool) ([]int, error) {
		var hs []int
		if gr.Empty() {
			return nil, nil
		}
		for c := 0; c < gr.NChannels; c++ {
			row, err := local(what, gr, c, full)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(hs, row[0]) {
				hs = append(hs, row[0])
			}
		}
		return hs, nil
	}
	if l.CollNetHeads, err = heads("CollNetDirect", g.CollNetDirect, true); err != nil {
		return nil, err
	}
	if len(l.CollNetHeads) > 8 {
		// connectCollNet runs only when maxLocalRanks ≤ NCCL_MAX_DIRECT_ARITY+1.
		l.CollNetHeads = nil
	}
	if l.NVLSHeads, err = heads("NVLS", g.NVLS, false); err != nil {
		return nil, err
	}
	if len(l.NVLSHeads) == 0 {
		l.NVLSChannels = 0
	}
	// p2p chunk and parameters as in DefaultLayout; the p2p channel
	// counts come from the communicator (LayoutFromComm)
	l.setP2PDefaults(p, true)
	return l, l.Validate()
}
