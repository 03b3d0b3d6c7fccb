package topo

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gatesim/gatesim/internal/lru"
	"github.com/gatesim/gatesim/nccl"
)

// GraphIndex names the five graphs NCCL searches.
type GraphIndex int

const (
	GraphRing GraphIndex = iota
	GraphTree
	GraphCollNetChain
	GraphCollNetDirect
	GraphNVLS
	NumGraphs
)

func (g GraphIndex) String() string {
	return [...]string{"ring", "tree", "collnetChain", "collnetDirect", "nvls"}[g]
}

// NodeResult is what one NCCL node (the GPUs of a host that reach each
// other without the network, usually the whole host) computed before the
// ranks exchanged their graphs. Identical nodes share their model, so the
// graphs and log lines are produced on demand.
type NodeResult struct {
	// Host is the index of the input System this node comes from.
	Host int `json:"host"`
	// Ranks are the node's global ranks in the order of System's GPUs.
	Ranks []int `json:"ranks"`
	// System is the node's model after trimming, with its paths, MaxBw and
	// TotalBw. Identical nodes share it: treat it as read-only.
	System *System `json:"-"`
	// Searched tells which graphs were searched (CollNet when enabled, NVLS
	// when supported): only those print a [GRAPH] block.
	Searched [NumGraphs]bool `json:"searched"`
	// NvlsSupport and NvlsChannels are ncclNvlsInit's answer for the node's
	// ranks; NvlsHeads the distinct NVLS head ranks (ncclTopoPreset).
	NvlsSupport  bool `json:"nvlsSupport"`
	NvlsChannels int  `json:"nvlsChannels"`
	NvlsHeads    int  `json:"nvlsHeads"`

	model    *nodeModel
	rankBase int
}

// Graphs are the node's own search results, with global ranks.
func (n *NodeResult) Graphs() [NumGraphs]Graph {
	var out [NumGraphs]Graph
	for i, g := range n.model.graphs {
		out[i] = n.model.publish(g, n.rankBase)
	}
	return out
}

// Graph is one of the node's own search results, with global ranks
// (Graphs()[g] without publishing the others).
func (n *NodeResult) Graph(g GraphIndex) Graph {
	return n.model.publish(n.model.graphs[g], n.rankBase)
}

// Log are the lines the node's ranks print during the search (NCCL's
// [GRAPH] subsystem), in order.
func (n *NodeResult) Log() []string {
	m := n.model
	if n.rankBase != 0 {
		return m.lines(n.rankBase)
	}
	// rank 0's node prints the same lines in every communicator the
	// (cached) node model serves: render them once
	m.log0Once.Do(func() { m.log0 = m.lines(0) })
	return slices.Clone(m.log0)
}

// VNics are the virtual NICs the node's host made (NIC fusion), in the
// order NCCL makes them: read only.
func (n *NodeResult) VNics() []VNic { return n.model.vnics }

// lines renders the node's [GRAPH] lines for ranks starting at rankBase.
func (m *nodeModel) lines(rankBase int) []string {
	var out []string
	for _, it := range m.log {
		if it.graph < 0 {
			out = append(out, it.text)
			continue
		}
		out = append(out, m.graphLines(m.graphs[it.graph], rankBase)...)
	}
	return out
}

// Result is the communicator-wide outcome of the topology stage: the
// graphs every rank agreed on, the channel counts after ncclTopoPostset,
// and the facts the tuning model reads.
type Result struct {
	Release string `json:"release"`
	// Graphs after the all-gather consensus (src/init.cc
	// initTransportsRank): min nChannels, sameChannels, bwIntra, bwInter;
	// max typeIntra, typeInter, crossNic. Ring and tree nChannels are the
	// smaller of the two. The tuning model reads these (graph nChannels,
	// not the communicator's).
	Graphs [NumGraphs]Graph `json:"graphs"`
	Nodes  []NodeResult     `json:"nodes"`

	NRanks        int   `json:"nRanks"`
	NNodes        int   `json:"nNodes"`
	LocalRanks    []int `json:"localRanks"` // per node
	MinLocalRanks int   `json:"minLocalRanks"`
	MaxLocalRanks int   `json:"maxLocalRanks"`
	MinCompCap    int   `json:"minCompCap"`
	MaxCompCap    int   `json:"maxCompCap"`
	// CPUArch and CPUVendor are the communicator's (mixed when ranks differ).
	CPUArch   CPUArch   `json:"cpuArch"`
	CPUVendor CPUVendor `json:"cpuVendor"`
	// MaxTreePattern is the largest tree pattern over the ranks (2.24+
	// comm->maxTreePattern; 2.22.3's tuning reads the tree graph's pattern).
	MaxTreePattern Pattern `json:"maxTreePattern"`
	// NVSCount is the number of NVSwitch nodes of rank 0's system
	// (ncclTopoGetNvsCount on comm->topo: every rank reads its own node's,
	// at every release, so a machine of two node kinds can decide
	// CollNetDirect differently per rank; the model is rank 0's).
	// AllNVLink is comm->isAllNvlink, every GPU pair NVLink or C2C
	// (ncclTopoPathAllNVLink): rank 0's own node's until 2.30.6, and-ed over
	// every rank from 2.30.7 (Params.AllNVLinkAgreed). AllDirectNVLink is
	// comm->isAllDirectNvlink, every GPU pair one NVLink hop
	// (ncclTopoPathAllDirectNVLink), rank 0's own node's at every release.
	// Like RingNetGDR, AllDirectNVLink is not part of the topology report.
	NVSCount        int  `json:"nvsCount"`
	AllNVLink       bool `json:"allNvlink"`
	AllDirectNVLink bool `json:"-"`

	// NChannelsSearched is comm->nChannels before ncclTopoPostset.
	NChannelsSearched int `json:"nChannelsSearched"`
	// NChannels is comm->nChannels after ncclTopoPostset: doubling, CollNet,
	// the sm90 multi-node rule, unpack, NCCL_MIN/MAX_NCHANNELS.
	NChannels int `json:"nChannels"`
	// ChannelCopies are comm->nChannels after each step of ncclTopoPostset
	// that calls copyChannels or cuts the count, starting with the
	// doubling (min(MAXCHANNELS, 2×NChannelsSearched)); the last is
	// NChannels. Channel c of a later step is a copy of channel c-n of the
	// step before, n its count.
	ChannelCopies []int `json:"channelCopies"`
	// MinNetBw is comm->minNetBw (GB/s) of a multi-node communicator,
	// ncclTopoGetMinNetBw least over every rank; 0 on one node.
	MinNetBw float32 `json:"-"`
	// NvlsHeads is the smallest number of distinct NVLS heads of a node
	// (ncclTopoPostset minHeadNum); CollNetDirectHeads the distinct heads of
	// rank 0's CollNetDirect graph over the channel count the ranks agreed
	// (connectCollNet; 2.18.x: that count). Each rank takes its own node's
	// heads, so the count can differ by rank; the model is rank 0's.
	NvlsHeads          int `json:"nvlsHeads"`
	CollNetDirectHeads int `json:"collNetDirectHeads"`
	// CollNetChainHeadsOK: every head of rank 0's CollNetChain graph (over
	// the agreed channels) is a CollNet head (the CollNetDirect heads, or
	// the first NvlsHeads NVLS heads when NVLS is supported), so
	// CollNetChain has CollNet resources; rank 0's answer, as heads are.
	CollNetChainHeadsOK bool `json:"collNetChainHeadsOK"`
	// RingNetGDR is comm->useGdr after ncclTransportRingConnect on several
	// nodes: every ring connection through the network uses GPU Direct
	// RDMA (ringNetConns); RingNetPXN is comm->useNetPXN, a ring send
	// through a PXN proxy somewhere. MinNetCount is comm->minNetCount (2.30.7): the
	// fewest NICs a rank's channels take to match its GPU's bandwidth
	// (ncclTopoGetLocalNetCountByBw), least over every rank; 0 without one.
	// Ring's network registration of user buffers reads both; like
	// NvlsTuned they are not part of the topology report.
	RingNetGDR  bool `json:"-"`
	RingNetPXN  bool `json:"-"`
	MinNetCount int  `json:"-"`
	// RingNetFlush: a ring receive through the network flushes each Simple
	// step it completes (NetConn.Flushes, G-NET-CONN-FLUSH-1) on some
	// node; the simulator's NET steps pay the flush where it is set.
	RingNetFlush bool `json:"-"`
	// CollNetConns are the CollNet connectors of the heads
	// (ncclTransportCollNetSetup: every head on every channel, with the
	// head's index as the channel NCCL's sendSetup/recvSetup take the NET
	// of), over the CollNetDirect graph's heads ([0]) or the NVLS graph's
	// ([1]), which ncclCollNetSetup takes with NVLS support from 2.28.3:
	// whether every connector uses GPU Direct RDMA and whether a receive
	// flushes (G-COLLNET-FLUSH-1). Zero where the graph has no channel or
	// the node does not reach the network.
	CollNetConns [2]CollNetConns `json:"-"`
	// LocalGinDevs is rank 0's count of local GIN devices
	// (ncclTopoGetLocalGinDevs: the NETs its channels take in turn until
	// the first comes back; GIN lists its devices physically, unfused);
	// 0 without a NET. GIN's connection count reads it (2.29.7+).
	LocalGinDevs int `json:"-"`
	// NvlsTuned: ncclNvlsTuning (2.30.3+) set NvlsChannels for an sm100
	// communicator of several nodes; the NVLS gates take it over the
	// per-node default.
	NvlsTuned bool `json:"-"`
	// NvlsChunkSize and NvlsTreeMaxChunkSize are comm->nvlsChunkSize and
	// comm->nvlsTreeMaxChunkSize as ncclNvlsTuning (2.30.3+) sets them on
	// a communicator with NVLS; 0 where it does not run (the schedule's
	// release rule then sizes NVLS and NVLSTree chunks).
	NvlsChunkSize        int  `json:"-"`
	NvlsTreeMaxChunkSize int  `json:"-"`
	CollNetSupport       bool `json:"collNetSupport"`
	NvlsSupport          bool `json:"nvlsSupport"`
	NvlsChannels         int  `json:"nvlsChannels"`
	// P2PNChannels and P2PNChannelsPerPeer are comm->p2pnChannels and
	// comm->p2pnChannelsPerPeer. Until 2.28.9 every rank works the per-peer
	// count out over its own node's GPUs and keeps it (no exchange), so
	// nodes of two kinds may disagree; the model is rank 0's. From 2.29.2
	// (Params.P2PChannelsByNetBw) each rank's count is all-gathered and the
	// least taken: one count for every rank.
	P2PNChannels        int `json:"p2pNChannels"`
	P2PNChannelsPerPeer int `json:"p2pNChannelsPerPeer"`

	// Log are rank 0's [GRAPH] lines from the search, then the [INIT]
	// channel summary (Summary). InitLog are the [INIT] lines of the
	// channel setup before the summary (2.30.3+: "NVLS tuning: ..." and
	// "Tuning P2P operations with maxP2pPeers = ..."), also in Log.
	Log     []string `json:"log"`
	InitLog []string `json:"-"`
	Summary string   `json:"summary"`
}

// AlgoGraphs returns the graph each algorithm's tuning reads, in NCCL's
// algorithm order Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree,
// PAT (src/init.cc graphs[]): PAT reads the tree graph.
func (r *Result) AlgoGraphs() [7]*Graph {
	g := &r.Graphs
	return [7]*Graph{&g[GraphTree], &g[GraphRing], &g[GraphCollNetDirect], &g[GraphCollNetChain], &g[GraphNVLS], &g[GraphNVLS], &g[GraphTree]}
}

// hostModel is one distinct host, computed once per Search.
type hostModel struct {
	sys     *System // built for the release, ranks 0..n-1 by dev
	domains [][]int // GPU indexes of each NCCL node, ordered by first GPU
	vnics   []VNic  // the virtual NICs NIC fusion made, in NCCL's order
}

// nodeModel is one distinct NCCL node, computed once per Search.
type nodeModel struct {
	sys      *System
	local    []int // host-local ranks of the node's GPUs, in System order
	graphs   [NumGraphs]*sgraph
	searched [NumGraphs]bool
	log      []logItem
	vnics    []VNic
	nvls     bool
	nvlsCh   int
	heads    int
	ps       *pathState
	// log0 are the lines of the node at rank 0, rendered once.
	log0Once sync.Once
	log0     []string
}

// logItem is a line whose GPU names depend on the node's ranks (2.22.3
// prints ranks), rendered when the rank offset is known.
type logItem struct {
	text  string
	graph int // -1: plain text; else a graph index to print
}

// Search runs NCCL's topology stage for a communicator made of one System
// per host, ranks numbered host by host and, within a host, in GPU dev
// order: paths, trimming, the ring/tree/CollNet/NVLS searches of every
// node, the cross-rank consensus and the channel counts (v2.28.9-1
// src/init.cc initTransportsRank, src/graph/connect.cc ncclTopoPostset,
// src/graph/paths.cc ncclTopoComputeP2pChannels). Identical hosts are
// searched once.
func Search(hosts []*System, p Params, o Options) (*Result, error) {
	return SearchCached(hosts, p, o, nil)
}

// NodeCache keeps searched nodes across Search calls: a node's search
// depends on its host's topology, the parameters and options, and on the
// communicator only through whether it spans more than the node (the same
// host in communicators of 2 and of 100 nodes searches alike). It is
// bounded (least recently used forgotten first) and safe for concurrent
// use.
type NodeCache struct {
	m *lru.Cache[string, *nodeModel]
	// hosts keeps each host's model (its system built for the release,
	// with paths, and its NCCL nodes): read-only once built, it depends on
	// the host, the parameters and the options only.
	hosts *lru.Cache[string, *hostModel]
	// names names the hosts' topologies (their text, kilobytes) in the
	// keys of both.
	names *lru.Names
}

// NewNodeCache returns a cache of at most n searched nodes (and n hosts).
func NewNodeCache(n int) *NodeCache {
	return &NodeCache{m: lru.New[string, *nodeModel](n), hosts: lru.New[string, *hostModel](n), names: lru.NewNames(n, "host")}
}

// SearchCached is Search reusing and filling nc (nil: no cache).
func SearchCached(hosts []*System, p Params, o Options, nc *NodeCache) (*Result, error) {
	var setting string
	if nc != nil {
		setting = fmt.Sprintf("%+v|%+v", p, o)
	}
	return SearchKeyed(hosts, p, o, nc, setting)
}

// SearchKeyed is SearchCached with the cache key of p and o given by the
// caller (one that tells any two different (p, o) apart; callers that keep
// it across searches save writing it out each time).
func SearchKeyed(hosts []*System, p Params, o Options, nc *NodeCache, setting string) (*Result, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("topology search: no host: expected at least one System")
	}
	if p.MaxChannels <= 0 || len(p.PathOrder) == 0 {
		return nil, fmt.Errorf("topology search: empty Params: start from Params2_22_3() or Params2_28_9()")
	}
	ps := &pathState{p: p, o: o}
	// One model per distinct host.
	byPtr := map[*System]int{}
	byXML := map[string]int{}
	var models []*hostModel
	var modelKeys []string
	hostModelIdx := make([]int, len(hosts))
	for i, h := range hosts {
		if h == nil || h.Source == nil {
			return nil, fmt.Errorf("topology search: host %d has no topology", i)
		}
		if k, ok := byPtr[h]; ok {
			hostModelIdx[i] = k
			continue
		}
		fp := h.Fingerprint()
		if k, ok := byXML[fp]; ok {
			byPtr[h] = k
			hostModelIdx[i] = k
			continue
		}
		var m *hostModel
		var ok bool
		key := fp
		if nc != nil {
			key = nc.names.Name(fp)
			m, ok = nc.hosts.Get(setting + "|" + h.Name + "|" + key)
		}
		if !ok {
			var err error
			if m, err = newHostModel(h, ps); err != nil {
				return nil, fmt.Errorf("host %d (%s): %w", i, h.Name, err)
			}
			if nc != nil {
				nc.hosts.Put(setting+"|"+h.Name+"|"+key, m)
			}
		}
		models = append(models, m)
		modelKeys = append(modelKeys, key)
		byPtr[h] = len(models) - 1
		byXML[fp] = len(models) - 1
		hostModelIdx[i] = len(models) - 1
	}
	nRanks := 0
	for i := range hosts {
		nRanks += len(models[hostModelIdx[i]].sys.Nodes[GPU])
	}

	ranks := make([]int, 0, nRanks)
	type nodeKey struct{ model, domain int }
	nodes := map[nodeKey]*nodeModel{}
	multiHost := "|single"
	if len(hosts) > 1 {
		multiHost = "|multi"
	}
	r := &Result{Release: p.Release.String(), NRanks: nRanks, Nodes: make([]NodeResult, 0, len(hosts))}
	base := 0
	for i := range hosts {
		m := models[hostModelIdx[i]]
		for d := range m.domains {
			k := nodeKey{hostModelIdx[i], d}
			nm, ok := nodes[k]
			if !ok {
				var ck string
				if nc != nil {
					ck = fmt.Sprintf("%s%s|%d|%t|%s|%s", setting, multiHost, d, len(m.domains[d]) == nRanks, m.sys.Name, modelKeys[hostModelIdx[i]])
					nm, ok = nc.m.Get(ck)
				}
				if !ok {
					var err error
					if nm, err = newNodeModel(m, d, nRanks, len(hosts) > 1, ps); err != nil {
						return nil, fmt.Errorf("host %d (%s): %w", i, hosts[i].Name, err)
					}
					if nc != nil {
						nc.m.Put(ck, nm)
					}
				}
				nodes[k] = nm
			}
			nr := nm.result(i, base)
			// the nodes' ranks share one array
			at := len(ranks)
			for _, lr := range nm.local {
				ranks = append(ranks, lr+base)
			}
			if len(ranks) > at {
				nr.Ranks = ranks[at:len(ranks):len(ranks)]
			}
			r.Nodes = append(r.Nodes, nr)
		}
		base += len(m.sys.Nodes[GPU])
	}
	// NCCL numbers nodes by their first rank.
	sort.SliceStable(r.Nodes, func(a, b int) bool { return minInt(r.Nodes[a].Ranks) < minInt(r.Nodes[b].Ranks) })
	if err := r.consensus(ps); err != nil {
		return nil, err
	}
	return r, nil
}

func minInt(v []int) int {
	m := v[0]
	for _, x := range v[1:] {
		m = min(m, x)
	}
	return m
}

func newHostModel(h *System, ps *pathState) (*hostModel, error) {
	// the network's virtual NICs replace the ports they fuse before the
	// system is built (ncclTopoProcessNet runs before
	// ncclTopoGetSystemFromXml)
	src, vnics, err := FuseNetsLog(h.Source, ps.p, ps.o)
	if err != nil {
		return nil, err
	}
	s, err := buildSystem(h.Name, src, ps.p, ps.o)
	if err != nil {
		return nil, err
	}
	if err := ps.computePaths(s); err != nil {
		return nil, err
	}
	d := domains(s)
	var groups [][]int
	seen := map[int]int{}
	for g, dom := range d {
		k, ok := seen[dom]
		if !ok {
			k = len(groups)
			seen[dom] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], g)
	}
	return &hostModel{sys: s, domains: groups, vnics: vnics}, nil
}

// newNodeModel is what every rank of one NCCL node computes: its trimmed
// system and the graph searches.
func newNodeModel(h *hostModel, domain, nRanks int, multiHost bool, ps *pathState) (*nodeModel, error) {
	s, err := buildSystem(h.sys.Name, h.sys.Source, ps.p, ps.o)
	if err != nil {
		return nil, err
	}
	if err := ps.computePaths(s); err != nil {
		return nil, err
	}
	keep := s.Nodes[GPU][h.domains[domain][0]]
	ps.trim(s, keep, nRanks)
	if err := ps.computePaths(s); err != nil {
		return nil, err
	}
	ps.searchInit(s)
	nm := &nodeModel{sys: s, ps: ps, vnics: h.vnics}
	// every rank fuses its host's NICs in ncclTopoGetSystem, before the
	// searches (G-TOPO-VNIC-1, G-TOPO-VNIC-2)
	for _, v := range h.vnics {
		// the IB's own line comes from its makeVDevice, which
		// ncclTopoMakeVnic calls before printing its line
		if ib := v.IBLog(ps.p); v.Plugin == "net" && ps.o.NetIB && ib != "" {
			nm.log = append(nm.log, logItem{text: ib, graph: -1})
		}
		nm.log = append(nm.log, logItem{text: v.Log(), graph: -1})
	}
	for _, g := range s.Nodes[GPU] {
		nm.local = append(nm.local, g.Rank)
	}
	x := newSearcher(ps, s)
	p := &ps.p
	o := &ps.o
	newG := func(id int, pat Pattern, minCh, maxCh int) *sgraph {
		g := newSGraph(p.MaxChannels, x.ngpus)
		g.id, g.pattern, g.minChannels, g.maxChannels = id, pat, minCh, maxCh
		return g
	}
	run := func(gi GraphIndex, g *sgraph) error {
		var lines []string
		if err := x.compute(g, &lines); err != nil {
			return fmt.Errorf("%s search: %w", gi, err)
		}
		for _, l := range lines {
			nm.log = append(nm.log, logItem{text: l, graph: -1})
		}
		nm.log = append(nm.log, logItem{graph: int(gi)})
		nm.searched[gi] = true
		return nil
	}
	ring := newG(0, PatternRing, 1, p.MaxChannels/2)
	if err := run(GraphRing, ring); err != nil {
		return nil, err
	}
	tree := newG(1, PatternBalancedTree, ring.nChannels, ring.nChannels)
	if err := run(GraphTree, tree); err != nil {
		return nil, err
	}
	chain := newG(2, PatternTree, ring.nChannels, ring.nChannels)
	chain.collNet = true
	direct := newG(p.CollNetDirectGraphID, PatternCollNetDirect, 1, p.MaxChannels)
	direct.collNet = true
	if o.CollNetEnable {
		if err := run(GraphCollNetChain, chain); err != nil {
			return nil, err
		}
		if p.CollNetDirectIsChain {
			// One CollNet graph serves both algorithms (graphs[] of initTransportsRank).
			direct = chain
		} else if err := run(GraphCollNetDirect, direct); err != nil {
			return nil, err
		}
	}
	// ncclNvlsInit (src/transport/nvls.cc).
	gpuCount := len(s.Nodes[GPU])
	if o.NvlsEnable != 0 && gpuCount >= p.NVLSMinGPUs {
		ccMin, _ := s.CompCap()
		mc := o.NvlsMulticast == MulticastYes || (o.NvlsMulticast == MulticastAuto && ccMin >= 90 && len(s.Nodes[NVS]) > 0)
		nm.nvls = o.NvlsEnable == 1 || mc
	}
	if nm.nvls {
		nm.nvlsCh = nvlsChannels(p, o, s, multiHost)
	}
	nvls := newG(3, PatternNVLS, 1, p.MaxChannels)
	if nm.nvls {
		if err := run(GraphNVLS, nvls); err != nil {
			return nil, err
		}
	}
	nm.graphs = [NumGraphs]*sgraph{ring, tree, chain, direct, nvls}
	// ncclTopoPreset: distinct NVLS heads.
	var heads []int
	for c := 0; c < nvls.nChannels; c++ {
		heads = appendUnique(heads, nvls.intra[c*x.ngpus])
	}
	nm.heads = len(heads)
	return nm, nil
}

// nvlsChannels is the NVLS channel count of ncclNvlsInit: 16 on sm90, 24 on
// one sm100 node, 32 across sm100 nodes (2.28), or NCCL_NVLS_NCHANNELS
// (default 16 in 2.22.3), clamped to the config's CTA limits.
func nvlsChannels(p *Params, o *Options, s *System, multiHost bool) int {
	ch := 16
	if p.NVLSChannelsBySM {
		// comm->compCap is the rank's own GPU; the node's first GPU stands for it.
		if s.Nodes[GPU][0].SM >= 100 {
			ch = 24
			if multiHost {
				ch = 32
			}
		}
	}
	return nvlsChannelsFrom(p, o, ch)
}

// nvlsChannelsFrom is a default NVLS channel count ch with the user's
// NCCL_NVLS_NCHANNELS (config.nvlsCTAs) over it, clamped to the CTA limits.
func nvlsChannelsFrom(p *Params, o *Options, ch int) int {
	if o.NvlsChannels > 0 {
		ch = o.NvlsChannels
	}
	minCTAs, maxCTAs := ctaLimits(p, o)
	return max(minCTAs, min(maxCTAs, ch))
}

// ctaLimits are config.minCTAs/maxCTAs with their defaults (1, MAXCHANNELS)
// and the caps of src/init.cc parseCommConfig.
func ctaLimits(p *Params, o *Options) (int, int) {
	lo, hi := 1, p.MaxChannels
	if o.MinCTAs > 0 {
		lo = min(o.MinCTAs, p.MaxChannels)
	}
	if o.MaxCTAs > 0 {
		hi = min(o.MaxCTAs, p.MaxChannels)
	}
	if lo > hi {
		lo = hi
	}
	return lo, hi
}

// publish converts a search graph to a Graph with global ranks.
func (nm *nodeModel) publish(g *sgraph, rankBase int) Graph {
	out := Graph{
		ID: g.id, Pattern: g.pattern, CrossNic: g.crossNic, CollNet: g.collNet,
		MinChannels: g.minChannels, MaxChannels: g.maxChannels, NChannels: g.nChannels,
		BwIntra: g.bwIntra, BwInter: g.bwInter, LatencyInter: g.latencyInter,
		TypeIntra: g.typeIntra, TypeInter: g.typeInter, SameChannels: g.sameChannels != 0, NHops: g.nHops,
	}
	ngpus := len(nm.sys.Nodes[GPU])
	width := ngpus
	if g.pattern == PatternNVLS {
		width = 1 // an NVLS channel only has its head
	}
	for c := 0; c < g.nChannels; c++ {
		row := make([]int, width)
		for i := range row {
			row[i] = g.intra[c*ngpus+i] + rankBase
		}
		out.Intra = append(out.Intra, row)
		if nm.ps.inter(nm.sys) {
			out.Inter = append(out.Inter, []int64{g.inter[2*c], g.inter[2*c+1]})
		}
	}
	return out
}

func (nm *nodeModel) result(host, rankBase int) NodeResult {
	nr := NodeResult{Host: host, System: nm.sys, Searched: nm.searched,
		NvlsSupport: nm.nvls, NvlsChannels: nm.nvlsCh, NvlsHeads: nm.heads, model: nm, rankBase: rankBase}
	return nr
}

// graphLines is ncclTopoPrintGraph.
func (nm *nodeModel) graphLines(g *sgraph, rankBase int) []string {
	p := &nm.ps.p
	out := []string{fmt.Sprintf("Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d",
		int(g.pattern), g.crossNic, g.nChannels, float64(g.bwIntra), float64(g.bwInter), g.typeIntra, g.typeInter, g.sameChannels)}
	s := nm.sys
	ngpus := len(s.Nodes[GPU])
	inter := nm.ps.inter(s)
	netName := func(sysID, localID int64) string {
		if p.NetPrintIDs {
			return fmt.Sprintf(" NET/%x-%x", sysID>>56, localID&topoLocalIDMask)
		}
		return fmt.Sprintf(" NET/%x", sysID)
	}
	for c := 0; c < g.nChannels; c++ {
		var b strings.Builder
		fmt.Fprintf(&b, "%2d :", c)
		if inter {
			b.WriteString(netName(g.inter[2*c], g.inter[2*c]))
		}
		for i := 0; i < ngpus; i++ {
			rank := g.intra[ngpus*c+i]
			if p.GraphPrintIDs {
				for _, n := range s.Nodes[GPU] {
					if n.Rank == rank {
						fmt.Fprintf(&b, " GPU/%x-%x", n.SystemID(), n.LocalID())
						break
					}
				}
				if g.id == 3 {
					break // NVLS graphs only use the first GPU
				}
			} else if g.pattern == PatternNVLS && i > 0 {
				// Slots an NVLS channel never writes keep the graph's
				// zeroed memory: NCCL prints them as rank 0.
				fmt.Fprintf(&b, " GPU/%d", rank)
			} else {
				fmt.Fprintf(&b, " GPU/%d", rank+rankBase)
			}
		}
		if inter {
			local := g.inter[2*c+1]
			if p.GraphNetMixedID {
				local = g.inter[2*c]
			}
			b.WriteString(netName(g.inter[2*c+1], local))
		}
		out = append(out, b.String())
	}
	return out
}

// consensus is the all-gather of graph facts, the node count and
// ncclTopoPostset.
func (r *Result) consensus(ps *pathState) error {
	p := &ps.p
	o := &ps.o
	r.NNodes = len(r.Nodes)
	r.MinLocalRanks, r.MaxLocalRanks = 1<<30, 0
	r.MinCompCap, r.MaxCompCap = 1<<30, 0
	first := true
	for i := range r.Nodes {
		n := &r.Nodes[i]
		lr := len(n.Ranks)
		r.LocalRanks = append(r.LocalRanks, lr)
		r.MinLocalRanks = min(r.MinLocalRanks, lr)
		r.MaxLocalRanks = max(r.MaxLocalRanks, lr)
		for _, g := range n.System.Nodes[GPU] {
			r.MinCompCap = min(r.MinCompCap, g.SM)
			r.MaxCompCap = max(r.MaxCompCap, g.SM)
		}
		arch, vendor, _ := n.System.CPUType()
		if first {
			r.CPUArch, r.CPUVendor = arch, vendor
			r.Graphs = n.Graphs()
			r.MaxTreePattern = n.model.graphs[GraphTree].pattern
			first = false
			continue
		}
		if r.CPUArch != arch {
			r.CPUArch = ArchMixed
		}
		if r.CPUVendor != vendor {
			r.CPUVendor = VendorMixed
		}
		for a := range r.Graphs {
			g, o := &r.Graphs[a], n.model.graphs[a]
			g.NChannels = min(g.NChannels, o.nChannels)
			g.SameChannels = g.SameChannels && o.sameChannels != 0
			g.BwIntra = min(g.BwIntra, o.bwIntra)
			g.BwInter = min(g.BwInter, o.bwInter)
			g.TypeIntra = p.pathMax(g.TypeIntra, o.typeIntra)
			g.TypeInter = p.pathMax(g.TypeInter, o.typeInter)
			g.CrossNic = max(g.CrossNic, o.crossNic)
		}
		r.MaxTreePattern = max(r.MaxTreePattern, n.model.graphs[GraphTree].pattern)
	}
	// Intra/Inter orders are per node; keep rank 0's, cut to the agreed count.
	for a := range r.Graphs {
		g := &r.Graphs[a]
		if len(g.Intra) > g.NChannels {
			g.Intra = g.Intra[:g.NChannels]
		}
		if len(g.Inter) > g.NChannels {
			g.Inter = g.Inter[:g.NChannels]
		}
	}
	r0 := &r.Nodes[0]
	r.NVSCount = len(r0.System.Nodes[NVS])
	_, hi := gpuMinMaxPath(p, r0.System, GPU)
	r.AllNVLink, r.AllDirectNVLink = hi < PathPIX, hi <= PathNVL
	if p.AllNVLinkAgreed {
		r.AllNVLink = r.allNVLinkAgreed(p)
	}
	r.Log = append(r.Log, r0.Log()...)

	nChannels := min(r.Graphs[GraphTree].NChannels, r.Graphs[GraphRing].NChannels)
	r.Graphs[GraphTree].NChannels, r.Graphs[GraphRing].NChannels = nChannels, nChannels
	r.NChannelsSearched = nChannels

	collnet := o.CollNetEnable
	if r.Graphs[GraphCollNetChain].NChannels == 0 {
		collnet = false
	}
	r.NvlsSupport = r0.NvlsSupport
	r.NvlsChannels = r0.NvlsChannels
	if r.Graphs[GraphNVLS].NChannels == 0 {
		r.NvlsSupport, r.NvlsChannels = false, 0
	}
	if p.NVLSTuningSM100 && r.NvlsSupport {
		if err := r.nvlsTuning(ps); err != nil {
			return err
		}
		r.initLine(fmt.Sprintf("NVLS tuning: nChannels %d chunkSize %d treeMaxChunkSize %d", r.NvlsChannels, r.NvlsChunkSize, r.NvlsTreeMaxChunkSize))
	}
	if r.NNodes > 1 {
		// every rank's ring connections and NICs, combined as the ranks'
		// exchange does: useGdr and-ed, minNetCount the least
		// (identical nodes share their model: each is worked out once)
		bw, err := r.minNetBw(ps)
		if err != nil {
			return err
		}
		r.MinNetBw = bw
		r.RingNetGDR, r.MinNetCount = true, 0
		for i, n := range r.distinctNodes() {
			gdr, pxn, flush, err := ringNetConns(ps, n, nChannels)
			if err != nil {
				return err
			}
			r.RingNetGDR = r.RingNetGDR && gdr
			r.RingNetPXN = r.RingNetPXN || pxn
			r.RingNetFlush = r.RingNetFlush || flush
			for k, gi := range [2]GraphIndex{GraphCollNetDirect, GraphNVLS} {
				cn, err := collNetConns(ps, n, gi)
				if err != nil {
					return err
				}
				r.CollNetConns[k] = combineCollNetConns(r.CollNetConns[k], cn, i == 0)
			}
			if c := minNetCount(ps, n.System); i == 0 || c < r.MinNetCount {
				r.MinNetCount = c
			}
		}
	}
	if n0 := r.Nodes[0].System; len(n0.Nodes[NET]) > 0 && len(n0.Nodes[GPU]) > 0 {
		r.LocalGinDevs = localNetCount(ps, n0, n0.Nodes[GPU][0])
	}
	if collnet && r.NNodes < o.CollNetNodeThreshold {
		collnet = false
	}
	if collnet && p.CollNetLocalRanksCap && r.MaxLocalRanks > maxDirectArity+1 {
		collnet = false
	}
	r.CollNetSupport = collnet

	// ncclTopoPostset (src/graph/connect.cc).
	minCTAs, maxCTAs := ctaLimits(p, o)
	ch := &r.Graphs[GraphCollNetChain]
	r.ChannelCopies = p.postsetCopies(postsetIn{
		searched:     nChannels,
		collNetExtra: collnet && ch.BwIntra > ch.BwInter && r.NRanks > r.NNodes,
		computeDouble: ((p.ComputeChannelsSM90Plus && r.MinCompCap >= 90) || (!p.ComputeChannelsSM90Plus && r.MinCompCap == 90)) &&
			r.NNodes > 1 && r.Graphs[GraphRing].BwIntra > 45.0,
		unpackDouble: o.NetDeviceUnpack && r.NNodes > 1 && o.UnpackDoubleNChannels,
		maxChannels:  min(maxNChannels(p, o), maxCTAs),
		minChannels:  max(minNChannels(p, o), minCTAs),
		nvlsChannels: r.NvlsChannels,
	})
	nc := r.ChannelCopies[len(r.ChannelCopies)-1]
	// connectNvls: no head on some node, no NVLS channels.
	minHeads := 1 << 30
	for _, n := range r.Nodes {
		minHeads = min(minHeads, n.NvlsHeads)
	}
	if minHeads == 0 {
		r.NvlsChannels = 0
	}
	r.NvlsHeads = minHeads
	// connectCollNet: rank 0's own heads over the agreed channels
	agreedDirect := r.Graphs[GraphCollNetDirect].NChannels
	if p.CollNetHeadsAllChannels {
		r.CollNetDirectHeads = agreedDirect
	} else {
		r.CollNetDirectHeads = len(graphHeads(r0, GraphCollNetDirect, agreedDirect, -1))
	}
	r.CollNetChainHeadsOK = r.collNetChainHeadsOK(r0)
	r.NChannels = nc

	// ncclTopoComputeP2pChannels (src/graph/paths.cc): until 2.28.9 rank
	// 0's own count; from 2.29.2 the least over every rank.
	maxP2P := o.MaxP2PNChannels
	if maxP2P <= 0 {
		maxP2P = p.MaxChannels
	}
	p2p := max(min(nc, maxP2P), o.MinP2PNChannels)
	if p.P2PChannelsByNetBw {
		if err := r.p2pChannelsByNetBw(ps, p2p); err != nil {
			return err
		}
		r.Log = append(r.Log, r.channelSummary(p))
		return nil
	}
	s := r0.System
	remote := r.NRanks > len(r0.Ranks)
	minCh := p2p
	for _, g := range s.Nodes[GPU] {
		minCh = localPeerChannels(p, s, g, minCh)
		if remote {
			c, nicRule := netPeerChannels(p, o)
			if nicRule {
				c = 2
				byBw := localNetCountByBw(p, s, g)
				maxC := c
				for maxC*r.NRanks > p2p*4 && maxC > 1 {
					maxC /= 2
				}
				c = max(byBw, maxC)
			}
			if c >= 0 { // a negative count leaves the peer out
				minCh = min(minCh, c)
			}
		}
	}
	r.P2PNChannelsPerPeer = Pow2Up(minCh)
	r.P2PNChannels = min(Pow2Up(p2p), p2pChannelsCap(p, o))
	r.P2PNChannelsPerPeer = min(r.P2PNChannelsPerPeer, r.P2PNChannels)
	r.Log = append(r.Log, r.channelSummary(p))
	return nil
}

// initLine adds an [INIT] line of the channel setup before the summary.
func (r *Result) initLine(l string) {
	r.InitLog = append(r.InitLog, l)
	r.Log = append(r.Log, l)
}

// postsetIn are the facts ncclTopoPostset's channel counts depend on.
type postsetIn struct {
	// searched is comm->nChannels before: the smaller of the ring and tree
	// graphs' agreed channel counts.
	searched int
	// collNetExtra: CollNet is supported, the CollNet chain graph's
	// bwIntra exceeds its bwInter and nRanks > nNodes.
	collNetExtra bool
	// computeDouble: the release's compute capability test, more than one
	// node and the ring graph's bwIntra > 45 GB/s (the room left is the
	// release's ComputeDoubleRoom).
	computeDouble bool
	// unpackDouble: NCCL_NET_DEVICE_UNPACK, more than one node and
	// NCCL_UNPACK_DOUBLE_NCHANNELS.
	unpackDouble bool
	// maxChannels is min(ncclMaxNchannels, maxCTAs) and minChannels
	// max(ncclMinNchannels, minCTAs).
	maxChannels, minChannels int
	// nvlsChannels is comm->nvlsChannels.
	nvlsChannels int
}

// postsetCopies are comm->nChannels after each step of ncclTopoPostset
// that calls copyChannels or cuts the count, starting with the doubling.
func (p *Params) postsetCopies(in postsetIn) []int {
	nc := min(p.MaxChannels, in.searched*2)
	out := []int{nc}
	step := func(m int) {
		if m != nc {
			nc = m
			out = append(out, m)
		}
	}
	if in.collNetExtra {
		step(min(p.MaxChannels, nc+nc/2))
	}
	if in.computeDouble && p.ComputeDoubleRoom(nc) {
		step(2 * nc) // 4 compute channels per search channel
	}
	if p.UnpackDouble && in.unpackDouble && nc < 16 {
		step(2 * nc)
	}
	step(min(nc, in.maxChannels))
	step(max(nc, in.minChannels)) // copyChannels never cuts
	if p.NVLSRaisesChannels && nc < in.nvlsChannels {
		step(in.nvlsChannels)
	}
	return out
}

// channelSummary sets and returns the init line of the channel counts.
func (r *Result) channelSummary(p *Params) string {
	collNetChannels := r.NChannels
	if p.ChannelLineCollNetSetUp && !r.CollNetSupport {
		collNetChannels = 0
	}
	r.Summary = fmt.Sprintf("%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer",
		r.NChannels, collNetChannels, r.NvlsChannels, r.P2PNChannels, r.P2PNChannelsPerPeer)
	if p.ChannelLineNoCollNet {
		r.Summary = fmt.Sprintf("%d coll channels, %d nvls channels, %d p2p channels, %d p2p channels per peer",
			r.NChannels, r.NvlsChannels, r.P2PNChannels, r.P2PNChannelsPerPeer)
	}
	return r.Summary
}

// p2pChannelsByNetBw is 2.29.2's ncclTopoComputeP2pChannelsPerPeer (each
// rank's own GPU against every rank) with initTransportsRank taking the
// least over every rank of every node (identical nodes share their model:
// each is worked out once), then ncclTopoComputeP2pChannels: an NVLink
// peer gets 2 channels per NVLink's worth of path bandwidth, another local
// peer 2, a remote peer NCCL_NCHANNELS_PER_NET_PEER or, unset, one channel
// per NIC its channels use and at least one per NCCL_P2P_PER_CHANNEL_NET_BW
// GB/s of their bandwidth. Across nodes with the count unset the per-peer
// channels halve until nRanks/8 rounds of peers fit the p2p channels
// (2.30.3: p2pMaxPeers/8 rounds).
// Ref: v2.29.2-1 src/graph/paths.cc ncclTopoGetNchannels, ncclTopoComputeP2pChannelsPerPeer, ncclTopoComputeP2pChannels; src/init.cc initTransportsRank
func (r *Result) p2pChannelsByNetBw(ps *pathState, p2p int) error {
	p, o := &ps.p, &ps.o
	_, nicRule := netPeerChannels(p, o)
	minCh := p.MaxChannels
	for _, n := range r.distinctNodes() {
		c, err := ps.nodeP2PChannelsPerPeer(n.System, r.NRanks > len(n.Ranks))
		if err != nil {
			return err
		}
		minCh = min(minCh, c)
	}
	perPeer := Pow2Up(minCh)
	r.P2PNChannels = min(Pow2Up(p2p), p2pChannelsCap(p, o))
	if r.NNodes > 1 && nicRule {
		peers := r.p2pMaxPeers(p, o)
		if p.P2PMaxPeers {
			r.initLine(fmt.Sprintf("Tuning P2P operations with maxP2pPeers = %d", peers))
		}
		for perPeer*nccl.DivUp(peers, nccl.MaxDevWorkP2PPerBatch) > r.P2PNChannels && perPeer > 1 {
			perPeer /= 2
		}
	} else {
		perPeer = min(perPeer, r.P2PNChannels)
	}
	r.P2PNChannelsPerPeer = perPeer
	return nil
}

// nodeP2PChannelsPerPeer is 2.29.2's ncclTopoComputeP2pChannelsPerPeer
// least over the ranks of one node: remote tells whether some rank is on
// another node.
func (ps *pathState) nodeP2PChannelsPerPeer(s *System, remote bool) (int, error) {
	p, o := &ps.p, &ps.o
	perChannelBw := o.P2PPerChannelNetBw
	userCh, nicRule := netPeerChannels(p, o)
	if remote && nicRule && perChannelBw == 0 {
		// NCCL divides by it: a zero is a floating-point exception at init
		return 0, fmt.Errorf("NCCL_P2P_PER_CHANNEL_NET_BW=0: NCCL divides the NICs' bandwidth by it (an integer division by zero at init); expected a non-zero GB/s value")
	}
	minCh := p.MaxChannels
	for _, g := range s.Nodes[GPU] {
		minCh = localPeerChannels(p, s, g, minCh)
		if !remote {
			continue
		}
		c := userCh
		if nicRule {
			count, bw, err := ps.netCountByBw(s, g)
			if err != nil {
				return 0, err
			}
			c = 2
			if count > 0 {
				c = max(count, nccl.DivUp(int(bw), perChannelBw))
			}
		}
		minCh = min(minCh, c)
	}
	return minCh, nil
}

// p2pMaxPeers is comm->p2pMaxPeers, the peers the p2p channel halving
// plans rounds for: NCCL_P2P_MAX_PEERS capped to nRanks at init (2.30.3+),
// otherwise nRanks.
// Ref: v2.30.3-1 src/graph/paths.cc ncclTopoComputeP2pChannelsPerPeer; src/init.cc initTransportsRank, envConfigOverride
func (r *Result) p2pMaxPeers(p *Params, o *Options) int {
	if p.P2PMaxPeers && o.P2PMaxPeers > 0 {
		return min(o.P2PMaxPeers, r.NRanks)
	}
	return r.NRanks
}

// localPeerChannels lowers minCh to the fewest channels
// ncclTopoGetNchannels gives g toward a peer GPU of its node: 2 per
// NVLink's worth of path bandwidth over NVLink, 2 otherwise.
// Ref: v2.28.9-1 src/graph/paths.cc ncclTopoGetNchannels
func localPeerChannels(p *Params, s *System, g *Node, minCh int) int {
	for _, peer := range s.Nodes[GPU] {
		if peer == g {
			continue
		}
		path := &peer.Paths[GPU][g.Index]
		c := 2
		if path.Type == PathNVL {
			c = 2 * max(1, int(float32(path.Bw/p.nvlinkBw(g.SM))))
		}
		minCh = min(minCh, c)
	}
	return minCh
}

// netPeerChannels is what ncclTopoGetNchannels answers for a remote peer
// from NCCL_NCHANNELS_PER_NET_PEER, or nicRule when the NIC count and the
// rank count decide. 2.18.x/2.19.x default to 2 and have no NIC rule; from
// 2.20.3 unset and -1 mean the NIC rule; from 2.28.3 any value <= 0 is
// ignored as too low.
func netPeerChannels(p *Params, o *Options) (c int, nicRule bool) {
	c, set := o.NChannelsPerNetPeer, o.NChannelsPerNetPeerSet
	switch {
	case p.NetPeerChannelsFixed:
		if !set {
			c = 2
		}
		return c, false
	case p.NetPeerEnvPositiveOnly:
		return c, !set || c <= 0
	}
	return c, !set || c == -1
}

// netCountByBw is 2.29.2's getLocalNetCountByBw: the NETs the GPU's
// channels use in turn (ncclTopoGetLocalNet for channel 0, 1, … until the
// first comes back), taken until their path bandwidth reaches that of the
// GPU's path to its local CPU; it returns their count and bandwidth.
// Ref: v2.29.2-1 src/graph/topo.cc getLocalNetCountByBw
func (ps *pathState) netCountByBw(s *System, g *Node) (int, float32, error) {
	cpu, err := ps.localCPU(s, g)
	if err != nil {
		return 0, 0, err
	}
	gpuBw := g.Paths[CPU][cpu.Index].Bw
	var first *Node
	var total float32
	count := 0
	for c := 0; c < ps.p.MaxChannels; c++ {
		net, err := ps.localNet(s, g, c)
		if err != nil {
			return 0, 0, err
		}
		if c == 0 {
			first = net
		} else if net == first {
			break
		}
		total = float32(total + g.Paths[NET][net.Index].Bw)
		count++
		if total >= gpuBw {
			break
		}
	}
	return count, total, nil
}

// minNetBw is comm->minNetBw, ncclTopoGetMinNetBw's answer taken least
// over every rank of every node: the smallest path bandwidth from a GPU to
// the NETs its channels use (ncclTopoGetLocalNet for channel 0, 1, …
// until the first comes back); a rank without a NET answers 0.
// Ref: v2.30.3-1 src/graph/topo.cc ncclTopoGetMinNetBw; src/init.cc initTransportsRank
func (r *Result) minNetBw(ps *pathState) (float32, error) {
	best := float32(-1)
	for _, n := range r.distinctNodes() {
		bw, err := nodeMinNetBw(ps, n.System)
		if err != nil {
			return 0, err
		}
		if best < 0 || bw < best {
			best = bw
		}
	}
	return max(best, 0), nil
}

// nodeMinNetBw is ncclTopoGetMinNetBw least over one node's ranks.
func nodeMinNetBw(ps *pathState, s *System) (float32, error) {
	if len(s.Nodes[NET]) == 0 {
		return 0, nil
	}
	best := float32(-1)
	for _, g := range s.Nodes[GPU] {
		var first *Node
		for c := 0; c < ps.p.MaxChannels; c++ {
			net, err := ps.localNet(s, g, c)
			if err != nil {
				return 0, err
			}
			if c == 0 {
				first = net
			} else if net == first {
				break
			}
			if bw := g.Paths[NET][net.Index].Bw; best < 0 || bw < best {
				best = bw
			}
		}
	}
	return max(best, 0), nil
}

// NvlsChunkSizeDefault is NCCL_NVLS_CHUNKSIZE's default, the NVLS chunk
// of every release (a constant of computeColl until 2.20.5).
// Ref: v2.30.3-1 src/transport/nvls.cc NCCL_PARAM(NvlsChunkSize)
const NvlsChunkSizeDefault = 128 << 10

// nvlsTuning is ncclNvlsTuning after the ranks agreed (2.30.3+, when NVLS
// is supported): an sm100 communicator of several nodes takes the
// channels and chunks of ncclNvlsTreeSm100Tuning; the chunk is otherwise
// NCCL_NVLS_CHUNKSIZE's default, and the NVLSTree cap, where the tuning
// set none, 64 KiB from 4 nodes and the chunk below. A set
// NCCL_NVLS_CHUNKSIZE or NCCL_NVLSTREE_MAX_CHUNKSIZE wins over the tuning
// (the cap's fallback then follows the user's chunk). NCCL_NVLS_NCHANNELS
// and the CTA limits still bound the channels.
// Ref: v2.30.3-1 src/transport/nvls.cc ncclNvlsTuning (v2.30.7-1 likewise)
func (r *Result) nvlsTuning(ps *pathState) error {
	var t nvlsSM100Tuning
	if r.MinCompCap >= 100 && r.NNodes > 1 {
		nicBw, err := r.minNetBw(ps)
		if err != nil {
			return err
		}
		t = nvlsTreeSM100Tuning(r.NNodes, r.MinLocalRanks, nicBw, r.Graphs[GraphNVLS].TypeInter)
		if t.nChannels > 0 {
			r.NvlsChannels, r.NvlsTuned = nvlsChannelsFrom(&ps.p, &ps.o, t.nChannels), true
		}
	}
	// a set NCCL_NVLS_CHUNKSIZE replaces the tuned chunk, a set
	// NCCL_NVLSTREE_MAX_CHUNKSIZE the tuned cap
	r.NvlsChunkSize = cmp.Or(ps.o.NvlsChunkSize, t.chunk, NvlsChunkSizeDefault)
	r.NvlsTreeMaxChunkSize = cmp.Or(ps.o.NvlsTreeMaxChunkSize, t.treeMax)
	if r.NvlsTreeMaxChunkSize == 0 {
		r.NvlsTreeMaxChunkSize = r.NvlsChunkSize
		if r.NNodes >= 4 {
			r.NvlsTreeMaxChunkSize = 64 << 10
		}
	}
	return nil
}

// CollNetConns is what the CollNet connectors of one node's heads
// decide (sendSetup, recvSetup of the CollNet transport): GDR every
// connector, send and receive, uses GPU Direct RDMA (NCCL_DIRECT_NIC, what
// collnetRegisterBuffer needs); Flush a GDR receive needs the flush of
// ncclTopoNeedFlush, with Type the reason of the first that does.
type CollNetConns struct {
	Set   bool
	GDR   bool
	Flush bool
	Type  FlushType
}

// combineCollNetConns joins one node's CollNet connectors to those of the
// nodes before (first: none before): GDR only where every node has it, a
// flush where any node flushes.
func combineCollNetConns(acc, n CollNetConns, first bool) CollNetConns {
	if first {
		return n
	}
	acc.Set = acc.Set && n.Set
	acc.GDR = acc.GDR && n.GDR
	if !acc.Flush && n.Flush {
		acc.Flush, acc.Type = true, n.Type
	}
	return acc
}

// collNetConns decides the CollNet connectors of node n's heads over graph
// gi: head h (the distinct intra[c × ngpus] of the graph's channels, in
// order) connects with channel h, so ncclTopoGetNetDev takes the NET
// inter[2 × (h mod nChannels) + i], i 0 where the head leads that channel;
// the send reads (GDR read), the receive writes and, with GDR, asks
// needFlush as the NET's receive does.
//
// Ref: v2.28.9-1 src/transport/coll_net.cc ncclCollNetSetup, sendSetup,
// recvSetup; src/transport.cc ncclTransportCollNetSetup; src/graph/search.cc
// ncclTopoGetNetDev (v2.18.1-1 … v2.30.7-1 likewise)
func collNetConns(ps *pathState, n *NodeResult, gi GraphIndex) (CollNetConns, error) {
	s, g := n.System, n.model.graphs[gi]
	ngpus := len(s.Nodes[GPU])
	if g == nil || g.nChannels == 0 || ngpus == 0 || !ps.inter(s) {
		return CollNetConns{}, nil
	}
	r := CollNetConns{Set: true, GDR: true}
	for h, head := range graphHeads(n, gi, g.nChannels, -1) {
		ch := h % g.nChannels
		idx := 1
		if g.intra[ch*ngpus] == head {
			idx = 0
		}
		gpu, net := gpuOfRank(s, head), netOfID(s, g.inter[2*ch+idx])
		if gpu == nil || net == nil {
			return CollNetConns{}, nil
		}
		for _, send := range [2]bool{true, false} {
			mode, err := ps.gdrMode(s, gpu, net, send, true)
			if err != nil {
				return CollNetConns{}, err
			}
			r.GDR = r.GDR && mode != GdrOff
			if send || mode == GdrOff || r.Flush {
				continue
			}
			f, err := ps.needFlush(s, gpu, net)
			if err != nil {
				return CollNetConns{}, err
			}
			if f != FlushNone {
				r.Flush, r.Type = true, f
			}
		}
	}
	return r, nil
}

// ringNetConns is comm->useGdr and comm->useNetPXN after
// ncclTransportRingConnect for the ranks of one node: whether every ring
// connector through the network uses GPU Direct RDMA, and whether a ring
// send goes through a PXN proxy, each decided as sendSetup/recvSetup do
// (netConn): the channel's first GPU receives from the entry NET (a
// write), its last sends to the exit NET (a read), over the ring's first
// nChannels channels (the count the ranks agreed; the channels past it
// repeat them). On one node nothing connects through the network. flush
// says a ring receive flushes its Simple steps (G-NET-CONN-FLUSH-1), which
// sim times (RingNetFlush).
//
// Ref: v2.24.3-1 src/transport/generic.cc ncclTransportRingConnect;
// src/transport/net.cc sendSetup, recvSetup (v2.30.7-1 likewise)
func ringNetConns(ps *pathState, n *NodeResult, nChannels int) (gdr, pxn, flush bool, err error) {
	s, g := n.System, n.model.graphs[GraphRing]
	ngpus := len(s.Nodes[GPU])
	if g == nil || g.nChannels == 0 || ngpus == 0 || !ps.inter(s) {
		return false, false, false, nil
	}
	gdr = true
	for c := 0; c < min(g.nChannels, nChannels); c++ {
		// the receive first, then the send: one GPU per node does both
		for k, end := range [2]int{0, ngpus - 1} {
			gpu := gpuOfRank(s, g.intra[c*ngpus+end])
			if gpu == nil || netOfID(s, g.inter[2*c+k]) == nil {
				return false, false, false, nil
			}
			conn, err := ps.netConn(n.model, ConnQuery{Kind: ConnRing, Channel: c, Send: k == 1, Dev: gpu.Dev})
			if err != nil {
				return false, false, false, err
			}
			gdr = gdr && conn.Gdr != GdrOff
			pxn = pxn || conn.PXN()
			flush = flush || conn.Flushes()
		}
	}
	return gdr, pxn, flush, nil
}

// minNetCount is ncclTopoGetLocalNetCountByBw's count least over one
// node's GPUs (comm->minNetCount is the least over every node's); 0
// without a NET, or where the count cannot be had (no local CPU).
//
// Ref: v2.30.7-1 src/init.cc initTransportsRank; src/graph/topo.cc
// ncclTopoGetLocalNetCountByBw
func minNetCount(ps *pathState, s *System) int {
	if len(s.Nodes[NET]) == 0 {
		return 0
	}
	best := 0
	for i, g := range s.Nodes[GPU] {
		n, _, err := ps.netCountByBw(s, g)
		if err != nil {
			return 0
		}
		if i == 0 || n < best {
			best = n
		}
	}
	return best
}

// localNetCount is ncclTopoGetLocalGinDevs's count for one GPU: the NETs
// its channels take in turn until the first comes back; 0 where a channel
// has none.
//
// Ref: v2.29.7-1 src/graph/topo.cc ncclTopoGetLocalGinDevs
func localNetCount(ps *pathState, s *System, g *Node) int {
	var first *Node
	for c := 0; c < ps.p.MaxChannels; c++ {
		net, err := ps.localNet(s, g, c)
		if err != nil {
			return 0
		}
		if c == 0 {
			first = net
		} else if net == first {
			return c
		}
	}
	return ps.p.MaxChannels
}

// gpuOfRank is the GPU of a node-local rank, nil when none has it.
func gpuOfRank(s *System, rank int) *Node {
	for _, g := range s.Nodes[GPU] {
		if g.Rank == rank {
			return g
		}
	}
	return nil
}

// netOfID is the NET with NCCL's id, nil when none has it.
func netOfID(s *System, id int64) *Node {
	for _, n := range s.Nodes[NET] {
		if n.ID == id {
			return n
		}
	}
	return nil
}

// nvlsSM100Tuning is what ncclNvlsTreeSm100Tuning sets; 0 keeps a value.
type nvlsSM100Tuning struct{ nChannels, chunk, treeMax int }

// nvlsTreeSM100Tuning is ncclNvlsTreeSm100Tuning for an sm100 communicator
// of several nodes, from the node count, the GPUs per node, the slowest
// GPU-to-NIC bandwidth and the NVLS graph's GPU-to-NIC path type. The
// chunk is 128 KiB unless raised to 256 KiB. With NICs of 48 GB/s or
// more two nodes get 32 channels and an NVLSTree cap of 128 KiB (256 KiB
// chunk and cap with at most 4 GPUs per node; 64 KiB with 16 GPUs or more,
// or with at most 8 behind a PCIe switch (PXB or closer) below 96 GB/s);
// more nodes from 96 GB/s get 24 channels and 256 KiB chunk and cap with
// at most 8 GPUs per node, else 32 channels and a cap of 128 KiB (64 KiB
// from 32 GPUs); from 48 GB/s 24 channels and a cap of 128 KiB (64 KiB
// behind a PCIe switch). Slower NICs keep the defaults.
// Ref: v2.30.3-1 src/transport/nvls.cc ncclNvlsTreeSm100Tuning
func nvlsTreeSM100Tuning(nNodes, ppn int, nicBw float32, gpuToNic PathType) nvlsSM100Tuning {
	t := nvlsSM100Tuning{chunk: 128 << 10}
	switch {
	case nNodes == 2 && nicBw >= 48:
		t.nChannels, t.treeMax = 32, 128<<10
		if ppn <= 4 {
			t.chunk, t.treeMax = 256<<10, 256<<10
		} else if ppn >= 16 || (ppn <= 8 && gpuToNic <= PathPXB && nicBw < 96) {
			t.treeMax = 64 << 10
		}
	case nicBw >= 96 && ppn <= 8:
		t.nChannels, t.chunk, t.treeMax = 24, 256<<10, 256<<10
	case nicBw >= 96:
		t.nChannels, t.treeMax = 32, 128<<10
		if ppn >= 32 {
			t.treeMax = 64 << 10
		}
	case nicBw >= 48:
		t.nChannels, t.treeMax = 24, 128<<10
		if gpuToNic <= PathPXB {
			t.treeMax = 64 << 10
		}
	}
	return t
}

// maxNChannels is ncclMaxNchannels: NCCL_MAX_NCHANNELS capped to [1, MAXCHANNELS].
func maxNChannels(p *Params, o *Options) int {
	m := p.MaxChannels
	if o.MaxNChannels != -2 {
		m = o.MaxNChannels
	}
	if o.WorkArgsChannelsSet {
		m = min(m, o.WorkArgsChannels)
	}
	m = min(m, p.MaxChannels)
	if m < 1 {
		m = 1
	}
	return m
}

// p2pChannelsCap is the bound of comm->p2pnChannels:
// pow2Down(ncclDevMaxChannelsForArgsBytes(NCCL_WORK_ARGS_BYTES)), which is
// MAXCHANNELS's where the release does not read the variable.
func p2pChannelsCap(p *Params, o *Options) int {
	if o.WorkArgsChannelsSet {
		return Pow2Down(min(p.MaxChannels, o.WorkArgsChannels))
	}
	return Pow2Down(p.MaxChannels)
}

// minNChannels is ncclMinNchannels: NCCL_MIN_NCHANNELS capped to [0, MAXCHANNELS].
func minNChannels(p *Params, o *Options) int {
	m := 0
	if o.MinNChannels != -2 {
		m = o.MinNChannels
	}
	m = min(m, p.MaxChannels)
	return max(m, 0)
}

// localNetCountByBw is getLocalNetCountByBw: how many of the GPU's closest
// NICs it takes to match the GPU's bandwidth to its CPU (0 when the GPU
// hangs off a PCIe switch, as NCCL only looks at a direct CPU link).
func localNetCountByBw(p *Params, s *System, g *Node) int {
	var gpuBw float32
	for _, l := range g.DevNode().Links {
		if l.Remote.Type == CPU {
			gpuBw = l.Bw
		}
	}
	nets, _ := getLocal(p, s, g, NET)
	var total float32
	count := 0
	for _, n := range nets {
		if total >= gpuBw {
			break
		}
		total = float32(total + g.Paths[NET][n].Bw)
		count++
	}
	return count
}

// collNetChainHeadsOK is isCollNetChainHeadsSubset for rank 0: the first
// GPU of every CollNetChain channel the ranks agreed on must be among the
// heads ncclCollNetSetup sets CollNet up for: the first GPUs of the agreed
// CollNetDirect channels, or, when NVLS is supported, the first
// minHeadNum of the node's NVLS heads (ncclTopoPreset collects them over
// the node's own NVLS channels, before the ranks agree).
// Ref: v2.30.7-1 src/transport/coll_net.cc isCollNetChainHeadsSubset, ncclCollNetSetup; src/graph/connect.cc ncclTopoPreset
func (r *Result) collNetChainHeadsOK(r0 *NodeResult) bool {
	if r.Graphs[GraphCollNetChain].NChannels == 0 {
		return true // no chain channel, no head to look for
	}
	heads := graphHeads(r0, GraphCollNetDirect, r.Graphs[GraphCollNetDirect].NChannels, -1)
	if r.NvlsSupport {
		heads = graphHeads(r0, GraphNVLS, r0.model.graphs[GraphNVLS].nChannels, r.NvlsHeads)
	}
	chain := r0.model.graphs[GraphCollNetChain]
	n := len(r0.System.Nodes[GPU])
	for c := 0; c < r.Graphs[GraphCollNetChain].NChannels; c++ {
		if !slices.Contains(heads, chain.intra[c*n]) {
			return false
		}
	}
	return true
}

// graphHeads are the distinct first GPUs (node-local ranks) of the node's
// first nChannels channels of graph g, in channel order, at most limit of
// them (limit < 0: all).
func graphHeads(n *NodeResult, g GraphIndex, nChannels, limit int) []int {
	sg := n.model.graphs[g]
	w := len(n.System.Nodes[GPU])
	var heads []int
	for c := 0; c < min(nChannels, sg.nChannels) && limit != len(heads); c++ {
		heads = appendUnique(heads, sg.intra[c*w])
	}
	return heads
}

// distinctNodes yields one node of each model, the first in node order
// (node 0 first), with its index: identical nodes share their model, so
// what depends on the node alone is worked out once per kind of node.
func (r *Result) distinctNodes() iter.Seq2[int, *NodeResult] {
	return func(yield func(int, *NodeResult) bool) {
		seen := make(map[*nodeModel]bool, 1)
		for i := range r.Nodes {
			n := &r.Nodes[i]
			if seen[n.model] {
				continue
			}
			seen[n.model] = true
			if !yield(i, n) {
				return
			}
		}
	}
}

// allNVLinkAgreed is comm->isAllNvlink from 2.30.7: ncclTopoPathAllNVLink
// and-ed over every rank of every node (identical nodes share their model:
// each is looked at once).
// Ref: v2.30.7-1 src/init.cc initTransportsRank; src/graph/paths.cc ncclTopoPathAllNVLink
func (r *Result) allNVLinkAgreed(p *Params) bool {
	for _, n := range r.distinctNodes() {
		if _, hi := gpuMinMaxPath(p, n.System, GPU); hi >= PathPIX {
			return false
		}
	}
	return true
}
