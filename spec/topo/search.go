package topo

import "fmt"

// Search budgets in recursive calls (v2.28.9-1 src/graph/search.cc
// NCCL_SEARCH_*): NCCL keeps the whole search near one second this way, and
// the budget running out is part of which graph comes back.
const (
	searchGlobalTimeout       = 1 << 19
	searchTimeout             = 1 << 14
	searchTimeoutTree         = 1 << 14
	searchTimeoutSameChannels = 1 << 8
	pciOrderTimeout           = 1 << 10
)

// Forced orders of ncclTopoSearchRecGpu.
const (
	orderFree   = 0
	orderPCI    = 1
	orderReplay = 2
)

// NCCL_MAX_NVLS_ARITY and NCCL_MAX_DIRECT_ARITY (src/include/device.h).
const (
	maxNvlsArity   = 32
	maxDirectArity = 7
)

// Speed arrays in GB/s per channel (src/graph/search.cc): the search starts
// at the first speed the hardware allows and walks down.
var (
	speedArrayIntra      = []float32{40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0}
	speedArrayInter      = []float32{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	sm90SpeedArrayIntra  = []float32{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0}
	sm90SpeedArrayInter  = []float32{48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
	sm100SpeedArrayIntra = []float32{90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0}
	sm100SpeedArrayInter = []float32{96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12}
)

// sgraph is struct ncclTopoGraph during the search: flat intra/inter
// arrays sized for MAXCHANNELS, as NCCL keeps them, so that leftovers
// behave the same (an NVLS channel only writes its head).
type sgraph struct {
	id           int
	pattern      Pattern
	crossNic     int
	collNet      bool
	minChannels  int
	maxChannels  int
	nChannels    int
	bwIntra      float32
	bwInter      float32
	latencyInter float32
	typeIntra    PathType
	typeInter    PathType
	sameChannels int
	nHops        int
	intra        []int
	inter        []int64
}

func newSGraph(maxCh, ngpus int) *sgraph {
	// NVLS and CollNetDirect may ask for one channel per GPU (2.22.3 does
	// not cap them at MAXCHANNELS); NCCL would overrun its arrays there.
	maxCh = max(maxCh, ngpus+1)
	return &sgraph{intra: make([]int, maxCh*ngpus), inter: make([]int64, maxCh*2)}
}

// copyFrom is the memcpy of one graph into another.
func (g *sgraph) copyFrom(o *sgraph) {
	intra, inter := g.intra, g.inter
	*g = *o
	g.intra, g.inter = intra, inter
	copy(g.intra, o.intra)
	copy(g.inter, o.inter)
}

// searcher runs the searches of one system.
type searcher struct {
	save  *sgraph // the best graph so far (ncclTopoCompute's graph)
	ps    *pathState
	s     *System
	ngpus int
	inter bool
	nvs   bool

	// Paths do not change during a search (only link bandwidth does), so
	// the NET choices NCCL recomputes at every step are computed once.
	localNets  map[[2]int]*Node
	selectMemo map[[2]int][]int
	scores     []gpuScore // nextGpuSort's scratch
	nextBufs   [][]int    // per (channel, step): the GPUs recGpu iterates
}

// nextBuf is the buffer for the GPUs tried after step of the current
// channel; it lives until the recursion returns to that step.
func (x *searcher) nextBuf(g *sgraph, step int) []int {
	i := g.nChannels*x.ngpus + step
	for len(x.nextBufs) <= i {
		x.nextBufs = append(x.nextBufs, nil)
	}
	if x.nextBufs[i] == nil {
		x.nextBufs[i] = make([]int, 0, x.ngpus)
	}
	return x.nextBufs[i][:0]
}

func newSearcher(ps *pathState, s *System) *searcher {
	return &searcher{ps: ps, s: s, ngpus: len(s.Nodes[GPU]), inter: ps.inter(s), nvs: len(s.Nodes[NVS]) > 0,
		localNets: map[[2]int]*Node{}, selectMemo: map[[2]int][]int{}}
}

// localNet is ncclTopoGetLocalNet, memoized per GPU and channel.
func (x *searcher) localNet(g *Node, c int) (*Node, error) {
	k := [2]int{g.Index, c}
	if n, ok := x.localNets[k]; ok {
		return n, nil
	}
	n, err := x.ps.localNet(x.s, g, c)
	if err != nil {
		return nil, err
	}
	x.localNets[k] = n
	return n, nil
}

func (x *searcher) net(id int64) (*Node, error) {
	if n := netOfID(x.s, id); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("topology search: could not find net id %x", id)
}

func (x *searcher) gpuByRank(rank int) (*Node, error) {
	if g := gpuOfRank(x.s, rank); g != nil {
		return g, nil
	}
	return nil, fmt.Errorf("topology search: could not find GPU rank %d", rank)
}

func findRevLink(n1, n2 *Node, t LinkType) (*Link, error) {
	for _, l := range n2.Links {
		if l.Remote == n1 && l.Type == t {
			return l, nil
		}
	}
	return nil, fmt.Errorf("topology search: no reverse link %s -> %s", n1.Name(), n2.Name())
}

// followPath is followPath: take bw from every link of the path (the PCI
// links of a GPU-to-GPU path through an Intel root complex take 6/5 of it,
// V100s receiving from a NIC give 1/8 back on the reverse link, POWER NVLinks
// to the CPU load both directions). It stops at the first link without
// enough left and returns how many links it charged.
func followPath(path *Path, start *Node, maxSteps int, bw float32) (int, error) {
	pciBw := bw
	if path.Type == PathPHB && start.Type == GPU {
		for _, l := range path.Links {
			if n := l.Remote; n.Type == CPU && n.Arch == ArchX86 && n.Vendor == VendorIntel {
				pciBw = float32(float32(bw*6) / 5) // INTEL_P2P_OVERHEAD
			}
		}
	}
	node := start
	for step := 0; step < maxSteps; step++ {
		link := path.Links[step]
		var rev *Link
		fwBw := bw
		if link.Type == LinkPCI {
			fwBw = pciBw
		}
		var revBw float32
		if link.Remote.isDevice() && link.Remote.SM < 80 && start.Type != GPU {
			var err error
			if rev, err = findRevLink(node, link.Remote, link.Type); err != nil {
				return 0, err
			}
			revBw = float32(revBw + fwBw/8)
		}
		if link.Remote.Type == CPU && link.Remote.Arch == ArchPower && link.Type == LinkNVL {
			if rev == nil {
				var err error
				if rev, err = findRevLink(node, link.Remote, link.Type); err != nil {
					return 0, err
				}
			}
			revBw = float32(revBw + fwBw)
		}
		if link.Bw < fwBw || (revBw != 0 && rev.Bw < revBw) {
			return step, nil
		}
		link.Bw = subRound(link.Bw, fwBw)
		if revBw != 0 {
			rev.Bw = subRound(rev.Bw, revBw)
		}
		node = link.Remote
	}
	return maxSteps, nil
}

// followPathTo is ncclTopoFollowPath: try to go from (t1,i1) to (t2,i2),
// charging the graph's intra or inter bandwidth times mult (negative to give
// it back). It returns the destination, or nil when the path type is worse
// than allowed or a link lacks bandwidth. t1 = -1 means "start here".
func (x *searcher) followPathTo(g *sgraph, t1 NodeType, i1 int, t2 NodeType, i2 int, mult float32) (*Node, error) {
	node2 := x.s.Nodes[t2][i2]
	if t1 == -1 {
		return node2, nil
	}
	node1 := x.s.Nodes[t1][i1]
	if node1.Paths[t2] == nil || node2.Paths[t1] == nil {
		return nil, fmt.Errorf("topology search: no path computed from %s to %s", node1.Name(), node2.Name())
	}
	path := &node1.Paths[t2][i2]
	rev := &node2.Paths[t1][i1]
	intra := (t1 == GPU || t1 == NVS) && (t2 == GPU || t2 == NVS)
	bw, typ := g.bwInter, g.typeInter
	if intra {
		bw, typ = g.bwIntra, g.typeIntra
	}
	if x.ps.p.FollowPathSkipsDIS && path.Type >= PathDIS {
		return nil, nil
	}
	if mult == 1 && x.ps.p.pathAbove(path.Type, typ) {
		return nil, nil
	}
	if mult == 1 && !x.ps.p.TreeRevPathUnchecked && (g.pattern == PatternBalancedTree || g.pattern == PatternTree || g.pattern == PatternSplitTree) && x.ps.p.pathAbove(rev.Type, typ) {
		return nil, nil
	}
	bw = float32(bw * mult)
	step, err := followPath(path, node1, path.Count(), bw)
	if err != nil {
		return nil, err
	}
	if step < path.Count() {
		_, err := followPath(path, node1, step, -bw)
		return nil, err
	}
	// int += float: the sum is a float, truncated back to int.
	g.nHops = int(float32(float32(g.nHops) + float32(mult*float32(path.Count()))))
	return node2, nil
}

// gpuPciBw is gpuPciBw: the GPU's device's PCI link bandwidth,
// truncated to int.
func gpuPciBw(gpu *Node) int {
	gpu = gpu.DevNode()
	for _, gl := range gpu.Links {
		if gl.Type != LinkPCI {
			continue
		}
		for _, pl := range gl.Remote.Links {
			if pl.Remote == gpu {
				return int(min(gl.Bw, pl.Bw))
			}
		}
	}
	return -1
}

type gpuScore struct {
	g, startIndex, intraNhops, intraBw, interNhops, interPciBw, interBw int
}

// scoreLess is cmpScore: network bandwidth, PCI bandwidth, network hops,
// intra-node bandwidth, hops, then distance from the current GPU.
func scoreLess(a, b *gpuScore) bool {
	if a.interBw != b.interBw {
		return a.interBw > b.interBw
	}
	if a.interPciBw != b.interPciBw {
		return a.interPciBw > b.interPciBw
	}
	if a.interNhops != b.interNhops {
		return a.interNhops < b.interNhops
	}
	if a.intraBw != b.intraBw {
		return a.intraBw > b.intraBw
	}
	if a.intraNhops != b.intraNhops {
		return a.intraNhops < b.intraNhops
	}
	return a.startIndex < b.startIndex
}

// nextGpuSort is ncclTopoSearchNextGpuSort: the order in which to try the
// next GPUs (network bandwidth, PCI bandwidth, network hops, intra-node
// bandwidth, hops, then distance from the current GPU; bandwidths truncated
// to int as NCCL's score struct holds them); with an NVSwitch only the two
// neighbours by index are tried. The result is written into next.
func (x *searcher) nextGpuSort(g *sgraph, gpu *Node, sortNet int, next []int) ([]int, error) {
	flag := uint64(1) << uint(g.nChannels)
	ngpus := x.ngpus
	paths := gpu.Paths[GPU]
	if x.nvs && x.ps.p.NVSOrder == NVSOrderOnly {
		return x.nvsNeighbours(g, gpu, flag, next), nil
	}
	var netPaths []Path
	if sortNet != 0 {
		n, err := x.net(g.inter[g.nChannels*2])
		if err != nil {
			return nil, err
		}
		netPaths = n.Paths[GPU]
	}
	start := gpu.Index
	scores := x.scores[:0]
	for i := 1; i < ngpus; i++ {
		gi := (start + i) % ngpus
		if paths[gi].Count() == 0 {
			continue
		}
		if x.s.Nodes[GPU][gi].used&flag != 0 {
			continue
		}
		sc := gpuScore{g: gi, startIndex: i, intraNhops: paths[gi].Count(), intraBw: int(paths[gi].Bw)}
		if netPaths != nil {
			sc.interNhops = netPaths[gi].Count()
			sc.interPciBw = gpuPciBw(x.s.Nodes[GPU][gi])
			sc.interBw = int(netPaths[gi].Bw)
		}
		scores = append(scores, sc)
	}
	// startIndex is unique, so the order is total and qsort's instability
	// does not matter; insertion sort keeps this allocation-free.
	for i := 1; i < len(scores); i++ {
		for j := i; j > 0 && scoreLess(&scores[j], &scores[j-1]); j-- {
			scores[j], scores[j-1] = scores[j-1], scores[j]
		}
	}
	x.scores = scores
	count := len(scores)
	next = next[:0]
	sameIntra := true
	for i := 1; i < count; i++ {
		if scores[i].intraBw != scores[0].intraBw || scores[i].intraNhops != scores[0].intraNhops {
			sameIntra = false
		}
	}
	if sortNet == -1 && sameIntra {
		for i := 0; i < count; i++ {
			next = append(next, scores[count-1-i].g)
		}
	} else {
		for i := 0; i < count; i++ {
			next = append(next, scores[i].g)
		}
	}
	if x.nvs && x.ps.p.NVSOrder != NVSOrderNone {
		// NVSwitches prefer a limited set of peers: try the neighbours first.
		index := gpu.Index
		prev := (index - 1 + ngpus) % ngpus
		nxt := (index + 1) % ngpus
		var first [2]int
		nFirst := 0
		switch g.pattern {
		case PatternRing:
			first, nFirst = [2]int{nxt, prev}, 2
		case PatternSplitTree, PatternBalancedTree:
			first, nFirst = [2]int{prev, nxt}, 2
		default:
			first, nFirst = [2]int{nxt}, 1
		}
		if nxt == prev && nFirst == 2 {
			nFirst = 1
		}
		real := 0
		for _, f := range first[:nFirst] {
			i := 0
			for i < count && next[i] != f {
				i++
			}
			if i < count {
				for ; i > 0; i-- {
					next[i] = next[i-1]
				}
				next[0] = f
				real++
			}
		}
		if x.ps.p.NVSOrder == NVSOrderOnly {
			count = real
		}
	}
	return next[:count], nil
}

// nvsNeighbours is the NVSwitch branch of ncclTopoSearchNextGpuSort: of the
// sorted candidates only the two index neighbours survive, moved to the
// front one after the other (rings: next, then prev, so prev is tried
// first; split and balanced trees the other way; trees only next). The sort
// itself cannot change which survive or their order, so it is skipped.
func (x *searcher) nvsNeighbours(g *sgraph, gpu *Node, flag uint64, next []int) []int {
	ngpus := x.ngpus
	index := gpu.Index
	prev := (index - 1 + ngpus) % ngpus
	nxt := (index + 1) % ngpus
	candidate := func(c int) bool {
		return c != index && gpu.Paths[GPU][c].Count() != 0 && x.s.Nodes[GPU][c].used&flag == 0
	}
	var first [2]int
	nFirst := 0
	switch g.pattern {
	case PatternRing:
		first, nFirst = [2]int{nxt, prev}, 2
	case PatternSplitTree, PatternBalancedTree:
		first, nFirst = [2]int{prev, nxt}, 2
	default:
		first, nFirst = [2]int{nxt}, 1
	}
	if nxt == prev && nFirst == 2 {
		nFirst = 1
	}
	next = next[:0]
	for _, f := range first[:nFirst] {
		if candidate(f) {
			next = append(next, 0)
			copy(next[1:], next)
			next[0] = f
		}
	}
	return next
}

// replayGpu is ncclTopoReplayGetGpu: the GPU at step+1 of the previous channel.
func (x *searcher) replayGpu(g *sgraph, step int) (int, error) {
	if g.nChannels == 0 {
		return -1, fmt.Errorf("topology search: replay without a previous channel")
	}
	rank := g.intra[(g.nChannels-1)*x.ngpus+step+1]
	for i, n := range x.s.Nodes[GPU] {
		if n.Rank == rank {
			return i, nil
		}
	}
	return -1, fmt.Errorf("topology search: replay could not find rank %d", rank)
}

// tryGpu is ncclTopoSearchTryGpu.
func (x *searcher) tryGpu(g *sgraph, step, backToNet, backToFirstRank, forcedOrder int, time *int, t NodeType, index, gi int) error {
	flag := uint64(1) << uint(g.nChannels)
	gpu, err := x.followPathTo(g, t, index, GPU, gi, 1)
	if err != nil || gpu == nil {
		return err
	}
	gpu.used ^= flag
	err = x.recGpu(g, gpu, step, backToNet, backToFirstRank, forcedOrder, time)
	gpu.used ^= flag
	if err != nil {
		return err
	}
	_, err = x.followPathTo(g, t, index, GPU, gi, -1)
	return err
}

// tryCollnetDirect is ncclTopoSearchTryCollnetDirect: the head g must reach
// every GPU and be reached by every GPU, each carrying 1/(n-1) of the
// bandwidth.
func (x *searcher) tryCollnetDirect(g *sgraph, gi int, time *int) error {
	n := len(x.s.Nodes[GPU])
	mul := float32(1.0 / float64(float32(n-1)))
	fwd, bwd := 0, 0
	var gpu *Node
	var err error
	for {
		if gpu, err = x.followPathTo(g, GPU, gi, GPU, fwd, mul); err != nil {
			return err
		}
		if gpu == nil {
			break
		}
		fwd++
		if fwd >= n {
			break
		}
	}
	if gpu != nil {
		for {
			if gpu, err = x.followPathTo(g, GPU, bwd, GPU, gi, mul); err != nil {
				return err
			}
			if gpu == nil {
				break
			}
			bwd++
			if bwd >= n {
				break
			}
		}
		if gpu != nil {
			step := 1
			for i := 0; i < x.ngpus; i++ {
				if i != gi {
					g.intra[g.nChannels*x.ngpus+step] = x.s.Nodes[GPU][i].Rank
					step++
				}
			}
			if err := x.recGpu(g, nil, x.ngpus, -1, -1, 0, time); err != nil {
				return err
			}
		}
		for bwd > 0 {
			bwd--
			if _, err := x.followPathTo(g, GPU, bwd, GPU, gi, -mul); err != nil {
				return err
			}
		}
	}
	for fwd > 0 {
		fwd--
		if _, err := x.followPathTo(g, GPU, gi, GPU, fwd, -mul); err != nil {
			return err
		}
	}
	return nil
}

// tryNvls is ncclTopoSearchTryNvls: the NVSwitch must reach every GPU and
// every GPU the NVSwitch, the head g twice.
func (x *searcher) tryNvls(g *sgraph, gi int, time *int) error {
	n := len(x.s.Nodes[GPU])
	mult := func(d int) float32 {
		if d == gi {
			return 2
		}
		return 1
	}
	var gpu, nvs *Node
	var err error
	d0 := 0
	for {
		if gpu, err = x.followPathTo(g, NVS, 0, GPU, d0, mult(d0)); err != nil {
			return err
		}
		d0++
		if gpu == nil || d0 >= n {
			break
		}
	}
	if gpu == nil {
		d0--
	} else {
		d1 := 0
		for {
			if nvs, err = x.followPathTo(g, GPU, d1, NVS, 0, mult(d1)); err != nil {
				return err
			}
			d1++
			if nvs == nil || d1 >= n {
				break
			}
		}
		if nvs == nil {
			d1--
		} else if err := x.recGpu(g, nil, x.ngpus, -1, -1, 0, time); err != nil {
			return err
		}
		for d1 > 0 {
			d1--
			if _, err := x.followPathTo(g, GPU, d1, NVS, 0, -mult(d1)); err != nil {
				return err
			}
		}
	}
	for d0 > 0 {
		d0--
		if _, err := x.followPathTo(g, NVS, 0, GPU, d0, -mult(d0)); err != nil {
			return err
		}
	}
	return nil
}

// better is ncclTopoCompareGraphs: keep g over ref when it has at least
// minChannels and more channels × bandwidth (NVLS: more channels up to the
// GPU count, or more channels × bwInter), or as much with fewer hops.
//
// 2.18.3–2.18.6 rank NVLS graphs by their channel count alone and 2.18.1 as
// rings; up to 2.19.4 a graph with a lower crossNic than ref wins by 15 %
// per level, one with a higher crossNic must win by as much.
func (x *searcher) better(g, ref *sgraph) bool {
	if g.nChannels < g.minChannels {
		return false
	}
	p := &x.ps.p
	if g.pattern == PatternNVLS && p.NVLSCompare != NVLSCompareIntra {
		if g.nChannels > ref.nChannels && g.nChannels <= len(x.s.Nodes[GPU]) {
			return true
		}
		if p.NVLSCompare == NVLSCompareCount {
			return false
		}
		return float32(float32(g.nChannels)*g.bwInter) > float32(float32(ref.nChannels)*ref.bwInter)
	}
	a := float32(float32(g.nChannels) * g.bwIntra)
	b := float32(float32(ref.nChannels) * ref.bwIntra)
	if p.CrossNicBonus {
		// float target = 1.0 - (ref->crossNic - graph->crossNic) * .15
		target := float32(1.0 - float64(ref.crossNic-g.crossNic)*0.15)
		b = float32(b * target)
	}
	if a > b {
		return true
	}
	if a < b {
		return false
	}
	return g.pattern == ref.pattern && g.crossNic == ref.crossNic && g.nHops < ref.nHops
}

// prefNetsChannelFirst is ncclTopoPrefNetsChannelFirst: each GPU's local
// NETs channel by channel until they repeat.
func (x *searcher) prefNetsChannelFirst(gpu int, nets []int) ([]int, error) {
	for gi, g := range x.s.Nodes[GPU] {
		if gpu != -1 && gpu != gi {
			continue
		}
		var local []int
		for c := 0; c < x.ps.p.MaxChannels; c++ {
			n, err := x.localNet(g, c)
			if err != nil {
				return nil, err
			}
			if len(local) > 0 && n.Index == local[0] {
				break
			}
			local = append(local, n.Index)
		}
		for _, n := range local {
			nets = appendUnique(nets, n)
		}
	}
	return nets, nil
}

// prefNetsGpuFirst is ncclTopoPrefNetsGpuFirst (MNNVL): channel by channel,
// each GPU's next local NET.
func (x *searcher) prefNetsGpuFirst(gpu int, nets []int) ([]int, error) {
	var ids []int
	if gpu == -1 {
		for i := range x.s.Nodes[GPU] {
			ids = append(ids, i)
		}
	} else {
		ids = []int{gpu}
	}
	first := make([]int, len(ids))
	left := len(ids)
	for c := 0; c < x.ps.p.MaxChannels; c++ {
		for i, gi := range ids {
			if gi == -1 {
				continue
			}
			n, err := x.localNet(x.s.Nodes[GPU][gi], c)
			if err != nil {
				return nil, err
			}
			if c == 0 {
				first[i] = n.Index
			}
			if c > 0 && first[i] == n.Index {
				ids[i] = -1
				left--
				continue
			}
			nets = appendUnique(nets, n.Index)
		}
		if left == 0 {
			break
		}
	}
	return nets, nil
}

func appendUnique(list []int, v int) []int {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// selectNets is ncclTopoSelectNets: the preferred NETs of the GPU (or of
// every GPU for gpu = -1), then every other NET whose path type is within
// typeInter, closest first.
func (x *searcher) selectNets(typeInter PathType, gpu int) ([]int, error) {
	k := [2]int{int(typeInter), gpu}
	if nets, ok := x.selectMemo[k]; ok {
		return nets, nil
	}
	nets, err := x.selectNetsUncached(typeInter, gpu)
	if err != nil {
		return nil, err
	}
	x.selectMemo[k] = nets
	return nets, nil
}

func (x *searcher) selectNetsUncached(typeInter PathType, gpu int) ([]int, error) {
	if x.ps.p.LocalNetMask {
		return x.selectNets18(typeInter, gpu), nil
	}
	var nets []int
	var err error
	if x.ps.p.MNNVLNets && len(x.s.HostHashes) > 1 && x.ps.o.MNNVLScatterNets {
		nets, err = x.prefNetsGpuFirst(gpu, nets)
	} else {
		nets, err = x.prefNetsChannelFirst(gpu, nets)
	}
	if err != nil {
		return nil, err
	}
	maxDev := 1 << 30
	if x.ps.p.NetDevsPolicySelect && x.ps.o.NetDevsPolicy == NetDevsMax {
		maxDev = x.ps.o.NetDevsMax
		if gpu == -1 {
			maxDev *= len(x.s.Nodes[GPU])
		}
	}
	if len(nets) >= maxDev {
		return nets, nil
	}
	// The path types up to typeInter in the release's numeric order.
	for _, t := range x.ps.p.PathOrder {
		if x.ps.p.pathAbove(t, typeInter) {
			break
		}
		for gi, g := range x.s.Nodes[GPU] {
			if gpu != -1 && gpu != gi {
				continue
			}
			paths := g.Paths[NET]
			for n := 0; n < len(x.s.Nodes[NET]) && n < x.ps.p.MaxChannels; n++ {
				if paths[n].Type != t {
					continue
				}
				nets = appendUnique(nets, n)
				if len(nets) >= maxDev {
					return nets, nil
				}
			}
		}
	}
	return nets, nil
}

// selectNets18 is 2.18.3's ncclTopoSelectNets: no preferred NETs; for
// each path type up to typeInter and each GPU, the NETs of that type,
// rotated left by the GPU's device number so that GPUs behind one PCI
// switch with several NICs do not all start with the same one.
func (x *searcher) selectNets18(typeInter PathType, gpu int) []int {
	var nets []int
	for t := PathLOC; t <= typeInter; t++ {
		for gi, g := range x.s.Nodes[GPU] {
			if gpu != -1 && gpu != gi {
				continue
			}
			var local []int
			for n := range x.s.Nodes[NET] {
				if g.Paths[NET][n].Type == t {
					local = append(local, n)
				}
			}
			if len(local) == 0 {
				continue
			}
			r := g.Dev % len(local)
			for i := range local {
				nets = appendUnique(nets, local[(i+r)%len(local)])
			}
		}
	}
	return nets
}

// netAllowed is the exit-NET rule of ncclTopoSearchRecGpu
// (ncclTopoSearchCheckNet in 2.28.9): trees leave where they entered; with
// crossNic 0 the exit NIC port must match the entry; ring channels of odd
// index start where the previous one ended (crossNic 2, or any crossNic in
// 2.22.3); balanced trees use one NET for both returns.
func (x *searcher) netAllowed(g *sgraph, start, net *Node, step int) bool {
	if g.pattern == PatternTree && net.ID != start.ID {
		return false
	}
	if x.ps.p.CrossNic2 {
		if g.pattern == PatternRing && g.crossNic == 2 {
			if g.nChannels&1 != 0 && net.ID != g.inter[(g.nChannels-1)*2] {
				return false
			}
		} else if g.crossNic == 0 {
			if x.ps.p.MNNVLRailPerHost && x.ps.o.MNNVLRailPerHost && net.SystemID() != start.SystemID() {
				if net.PciID != start.PciID || net.Port != start.Port {
					return false
				}
			} else if net.Asic != start.Asic || net.Port != start.Port {
				return false
			}
		}
	} else {
		if g.crossNic != 1 && (net.Asic != start.Asic || net.Port != start.Port) {
			return false
		}
		if g.crossNic != 0 && !x.ps.p.CrossNicUnpaired && g.nChannels&1 != 0 && net.ID != g.inter[(g.nChannels-1)*2] {
			return false
		}
	}
	if g.pattern == PatternBalancedTree && step != 0 && net.ID != g.inter[g.nChannels*2+1] {
		return false
	}
	return true
}

// recGpu is ncclTopoSearchRecGpu: place GPU gpu at step of the current
// channel, then go back to a NET, to the first GPU, or on to the next GPU.
func (x *searcher) recGpu(g *sgraph, gpu *Node, step, backToNet, backToFirstRank, forcedOrder int, time *int) error {
	if *time <= 0 {
		return nil
	}
	*time--
	ngpus := x.ngpus
	if step == ngpus {
		// A channel is complete: keep it if it beats the best so far.
		g.nChannels++
		if x.better(g, x.save) {
			x.save.copyFrom(g)
			if g.nChannels == g.maxChannels {
				*time = -1
			}
		}
		var err error
		if g.nChannels < g.maxChannels {
			err = x.searchRec(g, time)
		}
		g.nChannels--
		return err
	}
	g.intra[g.nChannels*ngpus+step] = gpu.Rank
	gi := gpu.Index
	switch {
	case step == backToNet:
		if !x.inter {
			return nil
		}
		start, err := x.net(g.inter[g.nChannels*2])
		if err != nil {
			return err
		}
		nets, err := x.selectNets(g.typeInter, gi)
		if err != nil {
			return err
		}
		for _, n := range nets {
			net := x.s.Nodes[NET][n]
			if !x.netAllowed(g, start, net, step) {
				continue
			}
			nextBackToNet := -1
			bwInterSave := g.bwInter
			if g.pattern == PatternBalancedTree {
				// A balanced tree sends half its bandwidth from each of the first two GPUs.
				if step == 0 {
					nextBackToNet = 1
				}
				g.bwInter /= 2
			}
			got, err := x.followPathTo(g, GPU, gi, NET, n, 1)
			g.bwInter = bwInterSave
			if err != nil {
				return err
			}
			if got != nil {
				g.inter[g.nChannels*2+1] = got.ID
				if err := x.recGpu(g, gpu, step, nextBackToNet, backToFirstRank, forcedOrder, time); err != nil {
					return err
				}
				if g.pattern == PatternBalancedTree {
					g.bwInter /= 2
				}
				if _, err := x.followPathTo(g, GPU, gi, NET, n, -1); err != nil {
					return err
				}
				g.bwInter = bwInterSave
			}
		}
		return nil
	case g.pattern == PatternNVLS:
		return x.tryNvls(g, gi, time)
	case g.pattern == PatternCollNetDirect:
		return x.tryCollnetDirect(g, gi, time)
	case step < ngpus-1:
		next := x.nextBuf(g, step)
		switch forcedOrder {
		case orderPCI:
			next = append(next, step+1)
		case orderReplay:
			r, err := x.replayGpu(g, step)
			if err != nil {
				return err
			}
			next = append(next, r)
		default:
			sortNet := -1
			if backToNet == -1 {
				sortNet = 0
			} else if backToNet == step+1 {
				sortNet = 1
			}
			var err error
			if next, err = x.nextGpuSort(g, gpu, sortNet, next); err != nil {
				return err
			}
		}
		for _, n := range next {
			if err := x.tryGpu(g, step+1, backToNet, backToFirstRank, forcedOrder, time, GPU, gi, n); err != nil {
				return err
			}
		}
		return nil
	case step == backToFirstRank:
		first, err := x.gpuByRank(g.intra[g.nChannels*ngpus])
		if err != nil {
			return err
		}
		got, err := x.followPathTo(g, GPU, gi, GPU, first.Index, 1)
		if err != nil || got == nil {
			return err
		}
		if err := x.recGpu(g, got, step+1, backToNet, -1, forcedOrder, time); err != nil {
			return err
		}
		_, err = x.followPathTo(g, GPU, gi, GPU, first.Index, -1)
		return err
	default:
		return x.recGpu(g, gpu, ngpus, -1, -1, forcedOrder, time)
	}
}
