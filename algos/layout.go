package algos

import (
	"fmt"
	"slices"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Layout is what the schedule builders need from a communicator: its shape,
// the per-channel orders NCCL's graph search produced (ring, tree chain,
// CollNet chain), the CollNet and NVLS heads, the channel counts and the
// buffer sizes. It is the input a gate engine's Decision and topo.Graph
// values map onto (see FromGraphs), and DefaultLayout builds NCCL's layouts
// for N identical nodes without a topology search.
//
// Ranks are numbered node-major: rank = node*LocalRanks + local. Every node
// uses the same per-channel orders (NCCL's graphs are per node but equal on
// identical nodes).
type Layout struct {
	Release    spec.Version
	NNodes     int
	LocalRanks int
	// NChannels is comm->nChannels after ncclTopoPostset (doubling and the
	// channel-count rules): the channels collectives may use.
	NChannels int
	// Ring[c] is channel c's order of local ranks; the global ring visits
	// the nodes in order, each node in this order (connectRings).
	Ring [][]int
	// Tree[c] is channel c's tree: the intra-node chain and which of the two
	// trees of the double binary tree it uses.
	Tree []TreeChannel
	// CollNetChain[c] is channel c's chain for CollNetChain; element 0 is the
	// head that talks to the network.
	CollNetChain [][]int
	// CollNetHeads are the local ranks of the CollNetDirect heads, in head
	// order (the first rank of each CollNetDirect graph channel,
	// connectCollNet).
	CollNetHeads []int
	// NVLSHeads are the local ranks of the NVLS heads in head order, and
	// NVLSChannels is comm->nvlsChannels (NCCL_NVLS_NCHANNELS).
	NVLSHeads    []int
	NVLSChannels int
	// BuffSize is the connection buffer of LL, LL128 and Simple
	// (NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE, NCCL_BUFFSIZE).
	BuffSize [spec.NumProtos]int
	// NVLSChunkSize is NCCL_NVLS_CHUNKSIZE; P2PChunkSize is the chunk of
	// send/recv (NCCL_P2P_NET_CHUNKSIZE / NVL / PCI by path).
	NVLSChunkSize int
	P2PChunkSize  int
	// NVLSTreeMaxChunkSize is comm->nvlsTreeMaxChunkSize, NVLSTree's chunk
	// cap as 2.30.3's ncclNvlsTuning sets it; 0 leaves the release's rule
	// (NCCL_NVLSTREE_MAX_CHUNKSIZE unset: 64 KiB from 4 nodes).
	NVLSTreeMaxChunkSize int
	// P2PNChannels and P2PNChannelsPerPeer are comm->p2pnChannels and
	// comm->p2pnChannelsPerPeer (ncclTopoComputeP2pChannels, powers of
	// two): the channels point-to-point work spreads over, and at most how
	// many of them one peer's operation uses.
	P2PNChannels        int
	P2PNChannelsPerPeer int
	// P2PLLThreshold is NCCL_P2P_LL_THRESHOLD (16384): an operation up to
	// this many bytes per channel goes LL; P2PChunkParam is NCCL_CHUNK_SIZE
	// (0: unset); P2PGroupSize is NCCL_P2P_SCHEDULE_GROUP_SIZE (8).
	P2PLLThreshold int
	P2PChunkParam  int
	P2PGroupSize   int
	// P2PNetLL: point-to-point connections over the network have LL
	// buffers, i.e. NCCL_NET_SHARED_BUFFERS=0 (by default they share
	// Simple buffers only, so p2p over NET always runs Simple).
	P2PNetLL bool
	// NVLSBw is the tuning model's AllReduce NVLS/Simple bandwidth
	// (comm->bandwidths[ncclFuncAllReduce][NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE],
	// GB/s): across nodes, below 150 caps NVLS chunks at 32 KiB
	// (v2.28.9-1 src/enqueue.cc calcCollChunking). DefaultLayout leaves it
	// 0, so the cap applies; LayoutFromComm reads it from the
	// communicator's tuning model.
	NVLSBw float64
	// MinCompCap is the smallest compute capability times ten (it selects
	// NVLS channel counts and some chunking rules).
	MinCompCap int
	// NetDev[c] is the network rail channel c crosses nodes on (the NET
	// device of the graph channel, graph->inter): a timing model maps it to
	// a NIC and routes a GPU that is not next to that NIC through the NIC's
	// GPU (PXN).
	NetDev []int
}

// TreeChannel is one channel's tree (ncclTopoPreset, connectTrees).
type TreeChannel struct {
	// Intra is the chain of local ranks: Intra[0] links to the parent node.
	Intra []int
	// Pattern is the tree graph's pattern: BALANCED_TREE puts the first
	// child node on Intra[1] and the second on Intra[0]; SPLIT_TREE puts
	// both on Intra[1]; TREE both on Intra[0].
	Pattern topo.Pattern
	// Which is 0 for the first tree of the double binary tree and 1 for the
	// mirrored (or shifted) second tree.
	Which int
}

// NRanks is NNodes × LocalRanks.
func (l *Layout) NRanks() int { return l.NNodes * l.LocalRanks }

// Node and Local split a rank.
func (l *Layout) Node(rank int) int  { return rank / l.LocalRanks }
func (l *Layout) Local(rank int) int { return rank % l.LocalRanks }

// Rank joins node and local rank.
func (l *Layout) Rank(node, local int) int { return node*l.LocalRanks + local }

// Params are the release constants of the layout's release.
func (l *Layout) Params() (Params, error) { return ParamsFor(l.Release) }

// DefaultLayout builds NCCL's default layouts for nNodes identical nodes of
// localRanks GPUs and nChannels collective channels, without a topology
// search:
//
//   - graph channels g = nChannels/2 (NCCL doubles the search result,
//     ncclTopoPostset); channel c uses graph channel c mod g and tree
//     (c/g) mod 2 of the double binary tree, as copyChannels leaves them;
//   - graph channel k crosses nodes on network rail k mod localRanks
//     (NetDev), and on multi-node systems its ring and tree chains are the
//     local ranks in order rotated to start at the rail's GPU, as NCCL's
//     search does on rail-optimised nodes (each channel enters a node next
//     to its NIC), so that the channels spread over the NICs;
//   - the tree pattern is BALANCED_TREE on one node and TREE across nodes
//     (what NCCL's search settles on for sm90 nodes with a NIC per GPU);
//   - CollNetDirect heads are local ranks 0..min(8, localRanks)-1 (one per
//     CollNetDirect graph channel, at most NCCL_MAX_DIRECT_ARITY+1), NVLS
//     heads are every local rank (the NVLS graph has min(32, localRanks)
//     channels, each led by a different GPU);
//   - NVLS channels are 16 (NCCL_NVLS_NCHANNELS on sm90), buffer and chunk
//     sizes are the release's defaults; NVLSBw is 0 (so NVLS across nodes
//     moves chunks of at most 32 KiB, as NCCL does where its model puts
//     NVLS below 150 GB/s).
//
// A topology-derived layout replaces these orders with the graphs' (see
// FromGraphs).
func DefaultLayout(release spec.Version, nNodes, localRanks, nChannels int) (*Layout, error) {
	p, err := ParamsFor(release)
	if err != nil {
		return nil, err
	}
	if nNodes <= 0 || localRanks <= 0 {
		return nil, fmt.Errorf("layout: %d nodes × %d GPUs: expected at least one node with one GPU", nNodes, localRanks)
	}
	if localRanks > 72 {
		return nil, fmt.Errorf("layout: %d GPUs per node: NCCL supports at most 72 local ranks (NCCL_MAX_LOCAL_RANKS)", localRanks)
	}
	if nChannels <= 0 || nChannels > p.MaxChannels {
		return nil, fmt.Errorf("layout: %d channels: expected 1 to %d (MAXCHANNELS of NCCL %s)", nChannels, p.MaxChannels, release)
	}
	l := &Layout{
		Release:       release,
		NNodes:        nNodes,
		LocalRanks:    localRanks,
		NChannels:     nChannels,
		BuffSize:      p.DefaultBuffSize,
		NVLSChunkSize: p.NVLSChunkSize,
		NVLSChannels:  16,
		MinCompCap:    90,
	}
	g := max(1, nChannels/2)
	rail := func(c int) int { return (c % g) % localRanks }
	order := func(c int) []int {
		o := make([]int, localRanks)
		for i := range o {
			o[i] = i
			if nNodes > 1 {
				o[i] = (i + rail(c)) % localRanks
			}
		}
		return o
	}
	pattern := topo.PatternBalancedTree
	if localRanks == 1 || nNodes > 1 {
		// A single GPU makes every tree pattern TREE (search.cc); on
		// multi-node sm90 systems the tree search relaxes BALANCED_TREE to
		// TREE ("simpler tree", ncclTopoCompute) and NCCL's DGX H100 graphs
		// end with pattern 3, so both child nodes hang off Intra[0].
		pattern = topo.PatternTree
	}
	for c := 0; c < nChannels; c++ {
		l.Ring = append(l.Ring, order(c))
		l.Tree = append(l.Tree, TreeChannel{Intra: order(c), Pattern: pattern, Which: (c / g) % 2})
		l.CollNetChain = append(l.CollNetChain, order(c))
		nd := 0 // one node: no channel leaves it
		if nNodes > 1 {
			nd = rail(c)
		}
		l.NetDev = append(l.NetDev, nd)
	}
	for h := 0; h < min(8, localRanks); h++ {
		l.CollNetHeads = append(l.CollNetHeads, h)
	}
	for h := 0; h < min(32, localRanks); h++ {
		l.NVLSHeads = append(l.NVLSHeads, h)
	}
	l.setP2PDefaults(p, true)
	return l, l.Validate()
}

// setP2PDefaults sets the point-to-point chunk (128 KiB across nodes and
// over PCIe, 512 KiB when every GPU pair is NVLink, capped by the Simple
// buffer: src/init.cc computeBuffSizes), the p2p parameters' defaults
// (src/enqueue.cc NCCL_P2P_LL_THRESHOLD, NCCL_CHUNK_SIZE; src/init.cc
// NCCL_P2P_SCHEDULE_GROUP_SIZE = NCCL_MAX_DEV_WORK_P2P_PER_BATCH), and
// the p2p channels ncclTopoComputeP2pChannels gives nodes whose GPUs share
// an NVSwitch: every local pair's NVLink bandwidth allows all p2p
// channels, and a network peer gets 2 channels, halved while 2 × nRanks
// exceeds 4 × p2pnChannels (one NIC per GPU). A communicator's own counts
// replace them (LayoutFromComm).
func (l *Layout) setP2PDefaults(p Params, allNVLink bool) {
	l.P2PNChannels = min(topo.Pow2Up(l.NChannels), topo.Pow2Down(p.MaxChannels))
	l.P2PNChannelsPerPeer = l.P2PNChannels
	if l.NNodes > 1 {
		c := 2
		for c*l.NRanks() > l.NChannels*4 && c > 1 {
			c /= 2
		}
		l.P2PNChannelsPerPeer = min(l.P2PNChannels, c)
	}
	l.P2PChunkSize = tuning.P2PChunkSizeDefault(l.NNodes, allNVLink, l.BuffSize[spec.Simple])
	l.P2PLLThreshold = 16384
	l.P2PGroupSize = maxDevWorkP2PPerBatch
}

// Validate checks that every order is a permutation of the local ranks and
// that counts are in range.
func (l *Layout) Validate() error {
	if l.NNodes <= 0 || l.LocalRanks <= 0 {
		return fmt.Errorf("layout: %d nodes × %d local ranks: expected positive counts", l.NNodes, l.LocalRanks)
	}
	if l.NChannels <= 0 {
		return fmt.Errorf("layout: %d channels: expected at least one", l.NChannels)
	}
	perm := func(what string, c int, o []int) error {
		if len(o) != l.LocalRanks {
			return fmt.Errorf("layout: %s of channel %d has %d ranks: expected %d", what, c, len(o), l.LocalRanks)
		}
		seen := make([]bool, l.LocalRanks)
		for _, x := range o {
			if x < 0 || x >= l.LocalRanks || seen[x] {
				return fmt.Errorf("layout: %s of channel %d is %v: expected a permutation of 0..%d", what, c, o, l.LocalRanks-1)
			}
			seen[x] = true
		}
		return nil
	}
	if len(l.Ring) != l.NChannels || len(l.Tree) != l.NChannels || len(l.CollNetChain) != l.NChannels || len(l.NetDev) != l.NChannels {
		return fmt.Errorf("layout: %d ring, %d tree, %d CollNet chain orders and %d net devices for %d channels", len(l.Ring), len(l.Tree), len(l.CollNetChain), len(l.NetDev), l.NChannels)
	}
	for c, d := range l.NetDev {
		if d < 0 || d >= 64 {
			return fmt.Errorf("layout: net device %d of channel %d: expected 0-63", d, c)
		}
	}
	for c := 0; c < l.NChannels; c++ {
		if err := perm("ring", c, l.Ring[c]); err != nil {
			return err
		}
		if err := perm("tree chain", c, l.Tree[c].Intra); err != nil {
			return err
		}
		if err := perm("CollNet chain", c, l.CollNetChain[c]); err != nil {
			return err
		}
		switch l.Tree[c].Pattern {
		case topo.PatternBalancedTree, topo.PatternSplitTree, topo.PatternTree:
		default:
			return fmt.Errorf("layout: tree of channel %d has pattern %v: expected BALANCED_TREE, SPLIT_TREE or TREE", c, l.Tree[c].Pattern)
		}
		if l.LocalRanks == 1 && l.Tree[c].Pattern != topo.PatternTree {
			return fmt.Errorf("layout: tree of channel %d: one GPU per node needs pattern TREE", c)
		}
		if l.Tree[c].Which != 0 && l.Tree[c].Which != 1 {
			return fmt.Errorf("layout: tree of channel %d is tree %d: expected 0 or 1", c, l.Tree[c].Which)
		}
	}
	heads := func(what string, hs []int, maxN int) error {
		if len(hs) > maxN {
			return fmt.Errorf("layout: %d %s heads: at most %d", len(hs), what, maxN)
		}
		seen := map[int]bool{}
		for _, h := range hs {
			if h < 0 || h >= l.LocalRanks || seen[h] {
				return fmt.Errorf("layout: %s heads %v: expected distinct local ranks", what, hs)
			}
			seen[h] = true
		}
		return nil
	}
	if err := heads("CollNetDirect", l.CollNetHeads, 8); err != nil {
		return err
	}
	if err := heads("NVLS", l.NVLSHeads, 32); err != nil {
		return err
	}
	for p, b := range l.BuffSize {
		if b < ncclSteps*64 {
			return fmt.Errorf("layout: %s buffer of %d bytes: expected at least %d", spec.Proto(p), b, ncclSteps*64)
		}
	}
	if l.NVLSChannels < 0 || l.NVLSChunkSize < 0 || l.NVLSTreeMaxChunkSize < 0 || l.P2PChunkSize < 0 {
		return fmt.Errorf("layout: negative NVLS channels or chunk sizes")
	}
	pow2 := func(n int) bool { return n > 0 && n&(n-1) == 0 }
	if l.P2PNChannels != 0 || l.P2PNChannelsPerPeer != 0 {
		if !pow2(l.P2PNChannels) || !pow2(l.P2PNChannelsPerPeer) || l.P2PNChannelsPerPeer > l.P2PNChannels || l.P2PNChannels > 64 {
			return fmt.Errorf("layout: %d p2p channels, %d per peer: expected powers of two, per peer at most the channels, at most 64", l.P2PNChannels, l.P2PNChannelsPerPeer)
		}
	}
	if l.P2PLLThreshold < 0 || l.P2PChunkParam < 0 || l.P2PGroupSize < 0 {
		return fmt.Errorf("layout: negative p2p threshold, chunk or group size")
	}
	return nil
}

// rotationOf returns k when o is the local ranks in order rotated by k
// (o[i] = (i+k) mod n), else -1.
func rotationOf(o []int) int {
	n := len(o)
	if n == 0 {
		return -1
	}
	k := o[0]
	for i, x := range o {
		if x != (i+k)%n {
			return -1
		}
	}
	return k
}

// canonical returns the order with rotation removed and the rotation (0
// for orders that are not rotations).
func canonical(o []int) ([]int, int) {
	k := rotationOf(o)
	if k <= 0 {
		return o, 0
	}
	c := make([]int, len(o))
	for i := range c {
		c[i] = i
	}
	return c, k
}

// ringRanks returns channel c's ring over all ranks (connectRings).
func (l *Layout) ringRanks(c int) []int {
	out := make([]int, 0, l.NRanks())
	for n := 0; n < l.NNodes; n++ {
		for _, lr := range l.Ring[c] {
			out = append(out, l.Rank(n, lr))
		}
	}
	return out
}

// ringPos returns rank's position in channel c's global ring.
func (l *Layout) ringPos(c, rank int) int {
	return l.Node(rank)*l.LocalRanks + slices.Index(l.Ring[c], l.Local(rank))
}

// ringAt returns the rank at position i of channel c's global ring.
func (l *Layout) ringAt(c, i int) int {
	n := l.NRanks()
	i = ((i % n) + n) % n
	return l.Rank(i/l.LocalRanks, l.Ring[c][i%l.LocalRanks])
}

// RingNext and RingPrev are rank's neighbours on channel c's ring.
func (l *Layout) RingNext(c, rank int) int { return l.ringAt(c, l.ringPos(c, rank)+1) }
func (l *Layout) RingPrev(c, rank int) int { return l.ringAt(c, l.ringPos(c, rank)-1) }

// RingIndex is ring->index: rank's distance from rank 0 along the ring
// (src/init.cc setupChannel).
func (l *Layout) RingIndex(c, rank int) int {
	n := l.NRanks()
	return (l.ringPos(c, rank) - l.ringPos(c, 0) + n) % n
}

// RingUser is ring->userRanks[i]: the rank i steps after rank along the ring.
func (l *Layout) RingUser(c, rank, i int) int { return l.ringAt(c, l.ringPos(c, rank)+i) }

// TreeLinks returns rank's parent (-1 for the root) and children on channel
// c's tree: the intra-node chain (ncclTopoPreset) plus the inter-node links
// of the double binary tree (connectTrees), children in NCCL's order (the
// chain child first, then the first and second child nodes).
func (l *Layout) TreeLinks(c, rank int) (up int, down []int) {
	t := l.Tree[c]
	node, local := l.Node(rank), l.Local(rank)
	i := slices.Index(t.Intra, local)
	up = -1
	if i > 0 {
		up = l.Rank(node, t.Intra[i-1])
	}
	if i < l.LocalRanks-1 {
		down = append(down, l.Rank(node, t.Intra[i+1]))
	}
	parentIdx, child0Idx, child1Idx := 0, 1, 0
	switch t.Pattern {
	case topo.PatternTree:
		child0Idx = 0
	case topo.PatternSplitTree:
		child1Idx = 1
	}
	u, d0, d1, second := dtree(l.NNodes, node, t.Which)
	if local == t.Intra[parentIdx] && u != -1 {
		if second {
			up = l.Rank(u, t.Intra[child1Idx])
		} else {
			up = l.Rank(u, t.Intra[child0Idx])
		}
	}
	if local == t.Intra[child0Idx] && d0 != -1 {
		down = append(down, l.Rank(d0, t.Intra[parentIdx]))
	}
	if local == t.Intra[child1Idx] && d1 != -1 {
		down = append(down, l.Rank(d1, t.Intra[parentIdx]))
	}
	return up, down
}

// ChainLinks returns rank's neighbours on channel c's CollNet chain: up is
// the previous rank, or -1 for the head, whose parent is the network; down
// is the next rank or -1 (ncclTopoPreset collnetChain).
func (l *Layout) ChainLinks(c, rank int) (up, down int) {
	o := l.CollNetChain[c]
	node := l.Node(rank)
	i := slices.Index(o, l.Local(rank))
	up, down = -1, -1
	if i > 0 {
		up = l.Rank(node, o[i-1])
	}
	if i < len(o)-1 {
		down = l.Rank(node, o[i+1])
	}
	return up, down
}

// CollNetHead returns rank's CollNetDirect head index, or -1 when it is not
// a head (connectCollNet headRank).
func (l *Layout) CollNetHead(rank int) int { return slices.Index(l.CollNetHeads, l.Local(rank)) }

// NVLSHead returns rank's NVLS head index, or -1 (connectNvls headRank).
func (l *Layout) NVLSHead(rank int) int { return slices.Index(l.NVLSHeads, l.Local(rank)) }

// NVLSTreeLinks returns the inter-node tree of NVLS head h of node on
// channel c: the head ranks of the parent and child nodes (channels
// alternate between the two trees, connectNvls).
func (l *Layout) NVLSTreeLinks(c, node, h int) (up int, down []int) {
	u, d0, d1, _ := dtree(l.NNodes, node, c%2)
	head := l.NVLSHeads[h]
	up = -1
	if u != -1 {
		up = l.Rank(u, head)
	}
	for _, d := range []int{d0, d1} {
		if d != -1 {
			down = append(down, l.Rank(d, head))
		}
	}
	return up, down
}
