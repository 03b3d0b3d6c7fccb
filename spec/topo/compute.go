package topo

import (
	"fmt"

	"github.com/gatesim/gatesim/nccl"
)

// recNet is ncclTopoSearchRecNet: start a channel at each candidate NET
// (rotated by the channel number; 2.18 in list order) that still has
// bwInter, charged as an integer to every port of the same NIC.
func (x *searcher) recNet(g *sgraph, backToNet, backToFirstRank int, time *int) error {
	bw := float32(int(g.bwInter)) // const int bw = graph->bwInter
	nets, err := x.selectNets(g.typeInter, -1)
	if err != nil {
		return err
	}
	p := &x.ps.p
	headSearch := g.pattern == PatternCollNetDirect || (g.pattern == PatternNVLS && p.NVLSHeads == NVLSHeadsUnique)
	nvls18 := g.pattern == PatternNVLS && (p.NVLSHeads == NVLSHeadsNetLocal || p.NVLSHeads == NVLSHeadsNetIndex)
	found := false
	charge := func(net *Node, b float32) {
		for _, o := range x.s.Nodes[NET] {
			if o.Asic == net.Asic && o.Port == net.Port {
				o.Bw = float32(o.Bw + b)
			}
		}
	}
	for i := range nets {
		if headSearch && found {
			if p.HeadFoundBreak {
				break
			}
			continue
		}
		if g.pattern == PatternNVLS && p.NVLSHeads == NVLSHeadsFirstNet && i > 0 {
			break
		}
		n := nets[(g.nChannels+i)%len(nets)]
		if p.RecNet18 {
			n = nets[i]
		}
		net := x.s.Nodes[NET][n]
		if g.collNet && !net.CollSupport {
			continue
		}
		if net.Bw < bw {
			continue
		}
		if p.NetChannelBudget && net.MaxChannels == 0 {
			continue
		}
		if g.nChannels&1 != 0 && net.ID != g.inter[(g.nChannels-1)*2+1] &&
			((p.CrossNic2 && g.pattern == PatternRing && g.crossNic == 2) || (!p.CrossNic2 && !p.CrossNicUnpaired && g.crossNic != 0)) {
			continue
		}
		g.inter[g.nChannels*2] = net.ID
		g.latencyInter = net.Latency
		charge(net, -bw)
		if p.NetChannelBudget {
			net.MaxChannels--
		}

		switch {
		case g.pattern == PatternNVLS && p.NVLSHeads == NVLSHeadsFirstNet:
			// The first NET's local GPU, over the NET→GPU path; heads may repeat.
			if g.nChannels < len(nets) && net.LocalGPU != -1 {
				if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, NET, n, net.LocalGPU); err != nil {
					return err
				}
			}
		case nvls18:
			// Channel c's head comes from nets[c], whatever NET carries it,
			// and no NET→GPU path is charged.
			if g.nChannels < len(nets) {
				gpu := nets[g.nChannels] // 2.18.3: a NET index taken as a GPU index
				if p.NVLSHeads == NVLSHeadsNetLocal {
					gpu = x.s.Nodes[NET][nets[g.nChannels]].LocalGPU
				}
				if gpu != -1 && gpu < x.ngpus {
					if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, -1, -1, gpu); err != nil {
						return err
					}
				}
			}
		case headSearch:
			// NVLS and CollNetDirect only look for NIC:GPU pairs, the heads.
			if g.nChannels < len(nets) {
				gpu := net.LocalGPU
				dup := false
				if gpu != -1 {
					for c := 0; c < g.nChannels; c++ {
						if g.intra[c*x.ngpus] == x.s.Nodes[GPU][gpu].Rank {
							dup = true
							break
						}
					}
				}
				if p.HeadFoundBreak {
					if gpu != -1 && !dup {
						if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, NET, n, gpu); err != nil {
							return err
						}
						found = true
					}
				} else {
					if dup {
						continue // 2.22.3 leaves this NIC's bandwidth charged
					}
					if gpu != -1 {
						if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, NET, n, gpu); err != nil {
							return err
						}
					}
					found = true
				}
			}
		case p.ReplayOnlySameChannels:
			if g.nChannels > 0 && g.sameChannels == 1 {
				r, err := x.replayGpu(g, -1)
				if err != nil {
					return err
				}
				if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderReplay, time, NET, n, r); err != nil {
					return err
				}
			} else {
				if g.nChannels == 0 && (!x.nvs || p.NVSOrder == NVSOrderNone) {
					// The PCI order first, as a reference, with its own small budget.
					t := pciOrderTimeout
					if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderPCI, &t, NET, n, 0); err != nil {
						return err
					}
					if t == -1 {
						*time = -1
					}
				}
				if lg := net.LocalGPU; lg != -1 {
					if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, NET, n, lg); err != nil {
						return err
					}
				}
				local, pt := getLocal(&x.ps.p, x.s, net, GPU)
				if pt == PathDIS {
					continue // no GPU behind this NIC: its bandwidth stays charged
				}
				for _, lg := range local {
					if lg == net.LocalGPU {
						continue
					}
					if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, NET, n, lg); err != nil {
						return err
					}
				}
			}
		default:
			if g.nChannels > 0 {
				r, err := x.replayGpu(g, -1)
				if err != nil {
					return err
				}
				if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderReplay, time, NET, n, r); err != nil {
					return err
				}
			}
			if g.nChannels == 0 || g.sameChannels == 0 {
				if g.nChannels == 0 && (!x.nvs || p.NVSOrder == NVSOrderNone) {
					t := pciOrderTimeout
					if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderPCI, &t, NET, n, 0); err != nil {
						return err
					}
					if t == -1 {
						*time = -1
					}
				}
				// The GPUs with the best bandwidth to the NIC, fewest hops.
				paths := net.Paths[GPU]
				var maxBw float32
				minHops := 0xfffffff
				for gi := range x.s.Nodes[GPU] {
					if paths[gi].Bw > maxBw {
						maxBw, minHops = paths[gi].Bw, paths[gi].Count()
					} else if paths[gi].Bw == maxBw && paths[gi].Count() < minHops {
						minHops = paths[gi].Count()
					}
				}
				if maxBw >= bw && p.RecNetGpuOrder18 {
					// GPUs whose PCI link has bandwidth left first, so that
					// a GPU does not send and receive for different channels.
					for used := range 2 {
						for gi, gpu := range x.s.Nodes[GPU] {
							if paths[gi].Bw == maxBw && paths[gi].Count() == minHops && (gpuPciBw(gpu) <= 0) == (used == 1) {
								if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, NET, n, gi); err != nil {
									return err
								}
							}
						}
					}
				} else if maxBw >= bw {
					for i := 0; i < x.ngpus; i++ {
						gi := (g.nChannels + i) % x.ngpus
						if paths[gi].Bw == maxBw && paths[gi].Count() == minHops {
							if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, NET, n, gi); err != nil {
								return err
							}
						}
					}
				}
			}
		}
		if p.NetChannelBudget {
			net.MaxChannels++
		}
		charge(net, bw)
	}
	return nil
}

// searchParams is ncclTopoSearchParams: at which step a channel goes back to
// a NET (multi-host) or to its first GPU (single host ring).
func (x *searcher) searchParams(pattern Pattern) (backToNet, backToFirstRank int) {
	if x.inter {
		switch pattern {
		case PatternRing:
			backToNet = x.ngpus - 1
		case PatternSplitTree:
			backToNet = 1
		default:
			backToNet = 0
		}
		return backToNet, -1
	}
	if pattern == PatternRing {
		return -1, x.ngpus - 1
	}
	return -1, -1
}

// searchRec is ncclTopoSearchRec: start the next channel.
func (x *searcher) searchRec(g *sgraph, time *int) error {
	backToNet, backToFirstRank := x.searchParams(g.pattern)
	if x.inter {
		// NCCL ignores the return code here.
		_ = x.recNet(g, backToNet, backToFirstRank, time)
		return nil
	}
	if g.pattern == PatternNVLS {
		return x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, -1, -1, g.nChannels)
	}
	if g.nChannels == 0 {
		if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderPCI, time, -1, -1, 0); err != nil {
			return err
		}
	} else {
		r, err := x.replayGpu(g, -1)
		if err != nil {
			return err
		}
		if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderReplay, time, -1, -1, r); err != nil {
			return err
		}
	}
	if g.sameChannels == 0 || g.nChannels == 0 {
		for gi := range x.s.Nodes[GPU] {
			if err := x.tryGpu(g, 0, backToNet, backToFirstRank, orderFree, time, -1, -1, gi); err != nil {
				return err
			}
		}
	}
	return nil
}

// dupChannels is ncclTopoDupChannels: fast graphs get their channels doubled
// at half the bandwidth each, except NVLS, below 25 GB/s, and (post-Ampere)
// below 50 GB/s with more than 4 channels. byBwOnly is 2.18.1's rule:
// 25 GB/s up to sm80, 50 GB/s on sm90, never above, whatever nChannels.
func dupChannels(g *sgraph, ccMin, ngpus int, byBwOnly bool) {
	if byBwOnly {
		if g.nChannels == 0 || g.pattern == PatternNVLS || !((ccMin <= 80 && g.bwIntra >= 25.0) || (ccMin <= 90 && g.bwIntra >= 50.0)) {
			return
		}
	} else if g.nChannels == 0 || g.pattern == PatternNVLS || g.bwIntra < 25.0 {
		return
	} else if ccMin > 80 && g.bwIntra < 50.0 && g.nChannels > 4 {
		return
	}
	dup := min(g.nChannels*2, g.maxChannels)
	copy(g.intra[g.nChannels*ngpus:], g.intra[:(dup-g.nChannels)*ngpus])
	copy(g.inter[g.nChannels*2:], g.inter[:(dup-g.nChannels)*2])
	d := float32(nccl.DivUp(dup, g.nChannels))
	g.bwIntra = float32(g.bwIntra / d)
	g.bwInter = float32(g.bwInter / d)
	g.nChannels = dup
}

// speeds picks the speed array (intra-node or inter-node, by SM).
func (x *searcher) speeds(ccMin int) []float32 {
	sm100 := ccMin >= 100 && x.ps.p.SM100Speeds
	switch {
	case !x.inter && sm100 && x.ps.p.SM100SpeedsIntra != nil:
		return x.ps.p.SM100SpeedsIntra
	case !x.inter && sm100:
		return sm100SpeedArrayIntra
	case !x.inter && ccMin >= 90 && x.ps.p.SM90SpeedsIntra != nil:
		return x.ps.p.SM90SpeedsIntra
	case !x.inter && ccMin >= 90:
		return sm90SpeedArrayIntra
	case !x.inter:
		return speedArrayIntra
	case sm100 && x.ps.p.SM100SpeedsInter != nil:
		return x.ps.p.SM100SpeedsInter
	case sm100:
		return sm100SpeedArrayInter
	case ccMin >= 90 && x.ps.p.SM90SpeedsInter != nil:
		return x.ps.p.SM90SpeedsInter
	case ccMin >= 90:
		return sm90SpeedArrayInter
	}
	return speedArrayInter
}

// compute is ncclTopoCompute: the search for one graph, as NCCL does it.
// Pass 1 finds a solution, relaxing in order: sameChannels, a simpler tree
// (sm90+), typeIntra, typeInter, crossNic, then lower speeds; the solution
// is duplicated (dupChannels); pass 2 then tries higher speeds. Without a
// solution a non-CollNet, non-NVLS graph falls back to one channel in PCI
// order at 0.1 GB/s. The NCCL_GRAPH_FILE graphs replace the search when one
// has this graph's id.
func (x *searcher) compute(graph *sgraph, log *[]string) error {
	s := x.s
	p := &x.ps.p
	o := &x.ps.o
	ngpus := x.ngpus
	x.save = graph
	crossNic := 0
	if len(s.Nodes[NET]) > 1 && (graph.pattern == PatternRing || graph.pattern == PatternBalancedTree || graph.pattern == PatternSplitTree) {
		crossNic = o.CrossNic
	}
	graph.crossNic = 0
	if crossNic == 1 {
		graph.crossNic = 1
	}
	if p.CrossNicAnyPattern {
		// 2.18: the parameter itself, on every graph; 2 means "retry".
		graph.crossNic = o.CrossNic
		if graph.crossNic == 2 {
			graph.crossNic = 0
		}
	}
	graph.bwIntra, graph.bwInter, graph.latencyInter = 0, 0, 0
	var minTypeIntra, minTypeInter, maxTypeIntra, maxTypeInter PathType
	if p.PathBasedTypes {
		minTypeIntra, minTypeInter = PathLOC, PathPIX
		maxTypeIntra, maxTypeInter = PathSYS, PathSYS
		if ngpus > 1 {
			minTypeIntra, maxTypeIntra = gpuMinMaxPath(p, s, GPU)
		}
		if x.inter {
			minTypeInter, maxTypeInter = gpuMinMaxPath(p, s, NET)
			maxTypeIntra = maxTypeInter
		}
		// Balanced trees below sm90 may need to come back through SYS.
		if cc, _ := s.CompCap(); p.InterSYSBelowSM90 && cc < 90 {
			maxTypeInter = PathSYS
		}
	} else {
		minTypeIntra, minTypeInter = PathNVL, PathPIX
		if ngpus == 1 {
			minTypeIntra = PathLOC
		}
		maxTypeIntra, maxTypeInter = PathSYS, PathSYS
	}
	graph.typeIntra, graph.typeInter = minTypeIntra, minTypeInter
	graph.nChannels = 0
	trySameChannels := 1
	if graph.pattern == PatternNVLS {
		trySameChannels = 0
	}
	graph.sameChannels = trySameChannels
	cpuArch, cpuVendor, _ := s.CPUType()

	if len(o.GraphFile) > 0 {
		n, err := x.loadGraph(graph, o.GraphFile)
		if err != nil {
			return err
		}
		*log = append(*log, fmt.Sprintf("Search %d : %d channels loaded from XML graph", graph.id, n))
		if graph.nChannels > 0 {
			return nil
		}
	}

	ccMin, _ := s.CompCap()
	if graph.pattern == PatternNVLS && (len(s.Nodes[NVS]) == 0 || ccMin < 90) {
		return nil
	}
	if p.ArityCaps {
		if graph.pattern == PatternNVLS {
			graph.maxChannels = min(maxNvlsArity, len(s.Nodes[GPU]))
		}
		if graph.pattern == PatternCollNetDirect {
			graph.maxChannels = min(maxDirectArity+1, len(s.Nodes[GPU]))
		}
	} else if (graph.pattern == PatternNVLS && !p.NVLSUncapped) || graph.pattern == PatternCollNetDirect {
		graph.maxChannels = len(s.Nodes[GPU])
	}
	if ngpus == 1 && graph.pattern != PatternRing {
		graph.pattern = PatternTree
	}
	if !x.inter && graph.pattern == PatternNVLS {
		// Intra-node NVLS pulls evenly from all GPUs.
		if !p.ArityCaps {
			graph.maxChannels = len(s.Nodes[GPU])
		}
		graph.minChannels = graph.maxChannels
	}
	if p.SplitNVLinkMin2 && graph.pattern == PatternRing && splitNVLink(s) {
		// Two NVLink islands: trees need 2 channels and rings follow them.
		if graph.maxChannels >= 2 && graph.minChannels == 1 {
			graph.minChannels = 2
		}
	}

	tmp := newSGraph(p.MaxChannels, ngpus)
	tmp.copyFrom(graph)
	speedArray := x.speeds(ccMin)
	nspeeds := len(speedArray)
	pass := 1
	speedIndex := 0
	maxBw := s.MaxBw
	totalBw := s.TotalBw
	// GPU devices (ndevs from 2.30.3: ranks sharing one count once)
	ndevs := s.deviceCount()
	scale := ndevs > 1 && graph.pattern != PatternRing
	if p.TotalBwScaleOneGPU {
		scale = ndevs == 1 || graph.pattern != PatternRing
	}
	if scale {
		// one GPU divides by zero: +Inf, or NaN from a zero totalBw, and
		// the comparisons below are false, as in C
		totalBw = f32(float64(totalBw) * (float64(ndevs) * 1.0 / float64(ndevs-1)))
	}
	for (speedArray[speedIndex] > maxBw || float32(speedArray[speedIndex]*float32(graph.minChannels)) > totalBw) && speedIndex < nspeeds-1 {
		speedIndex++
	}
	tmp.bwIntra, tmp.bwInter = speedArray[speedIndex], speedArray[speedIndex]
	fullTimeout := int64(searchGlobalTimeout)
	if p.SearchGlobalTimeout != 0 {
		fullTimeout = p.SearchGlobalTimeout
	}
	globalTimeout := fullTimeout
	var time int

search:
	time = searchTimeout
	if tmp.sameChannels != 0 {
		time = searchTimeoutSameChannels
	} else if tmp.pattern == PatternTree {
		time = searchTimeoutTree
	}
	tmp.nChannels = 0
	globalTimeout -= int64(time)
	if err := x.searchRec(tmp, &time); err != nil {
		return err
	}
	// Optimal solution, stop here.
	if time == -1 {
		goto done
	}
	if float32(float32(graph.nChannels)*graph.bwInter) >= s.TotalBw {
		goto done
	}
	if pass == 1 {
		// Different channels, except through AMD CPUs over SYS (2.19.1+).
		if tmp.sameChannels == 1 && (p.SameChannelsAnyCPU || !(cpuArch == ArchX86 && cpuVendor == VendorAMD && tmp.typeIntra == PathSYS)) {
			tmp.sameChannels = 0
			goto search
		}
		tmp.sameChannels = trySameChannels
		if time != -1 {
			globalTimeout += int64(time)
		} else {
			globalTimeout = fullTimeout
		}
		if globalTimeout < 0 && graph.nChannels != 0 {
			goto done
		}
		// A simpler tree (2.18.1 tries it after crossNic, for split trees).
		if !p.SimplerTreeSplit && ccMin >= 90 && tmp.pattern == PatternBalancedTree {
			tmp.pattern = PatternTree
			goto search
		}
		tmp.pattern = graph.pattern

		maxIntra := maxTypeIntra
		if !p.PathBasedTypes {
			maxIntra = PathSYS
		}
		if x.inter {
			maxIntra = tmp.typeInter
		}
		if p.pathAbove(maxIntra, tmp.typeIntra) && (graph.nChannels == 0 || p.pathAbove(graph.typeIntra, tmp.typeIntra)) {
			tmp.typeIntra = p.nextPath(tmp.typeIntra)
			if !p.PathBasedTypes || tmp.typeIntra < PathDIS {
				goto search
			}
		}
		tmp.typeIntra = minTypeIntra

		if x.inter && p.pathAbove(maxTypeInter, tmp.typeInter) && (graph.nChannels == 0 || p.pathAbove(graph.typeInter, tmp.typeInter) || p.pathAbove(PathPXN, tmp.typeInter)) {
			tmp.typeInter = p.nextPath(tmp.typeInter)
			if !p.PathBasedTypes || tmp.typeInter < PathDIS {
				goto search
			}
		}
		tmp.typeInter = minTypeInter

		if p.CrossNic2 {
			if crossNic == 2 && tmp.crossNic == 0 && (graph.pattern == PatternRing || graph.pattern == PatternBalancedTree) {
				tmp.crossNic = 2
				goto search
			}
		} else if p.CrossNicAnyPattern {
			if crossNic != 0 && tmp.crossNic == 0 {
				tmp.crossNic = 1
				goto search
			}
		} else if crossNic == 2 && tmp.crossNic == 0 {
			tmp.crossNic = 1
			goto search
		}
		tmp.crossNic = 0
		if crossNic == 1 && !p.CrossNicAnyPattern {
			tmp.crossNic = 1
		}
		if p.SimplerTreeSplit {
			if tmp.pattern == PatternSplitTree {
				tmp.pattern = PatternTree
				goto search
			}
			tmp.pattern = graph.pattern
		}

		// Decrease bw until a solution appears.
		if speedIndex < nspeeds-1 && (graph.nChannels == 0 || float64(float32(speedArray[speedIndex+1]/graph.bwInter)) > .49) {
			speedIndex++
			tmp.bwInter, tmp.bwIntra = speedArray[speedIndex], speedArray[speedIndex]
			goto search
		}
		speedIndex = 0
		for speedArray[speedIndex] > maxBw && speedIndex < nspeeds-1 {
			speedIndex++
		}
		tmp.bwIntra, tmp.bwInter = speedArray[speedIndex], speedArray[speedIndex]
	}

done:
	// A solution: duplicate its channels and move to pass 2.
	if pass == 1 {
		time = -1
		if !p.DupAfterSearch {
			dupChannels(graph, ccMin, ngpus, p.DupByBwOnly)
		}
		tmp.copyFrom(graph)
		speedIndex = 0
		for speedArray[speedIndex] > graph.bwInter && speedIndex < nspeeds-1 {
			speedIndex++
		}
		tmp.bwIntra, tmp.bwInter = speedArray[speedIndex], speedArray[speedIndex]
		tmp.minChannels = graph.nChannels
		pass = 2
	}
	if pass == 2 {
		// See whether the bandwidth can go up.
		if time != 0 && speedIndex > 0 && p.DupAfterSearch {
			// 2.19.1: trees raise bwIntra, NVLS bwInter, rings nothing;
			// 2.18.x: NVLS bwIntra as the trees.
			switch {
			case graph.pattern == PatternRing:
			case graph.pattern == PatternNVLS && !p.NVLSRaisesIntra:
				if tmp.bwInter == graph.bwInter && tmp.bwInter < float32(tmp.bwIntra*2) {
					tmp.minChannels, tmp.maxChannels = graph.nChannels, graph.nChannels
					speedIndex--
					tmp.bwInter = speedArray[speedIndex]
					goto search
				}
			case tmp.bwIntra == graph.bwIntra && tmp.bwIntra < float32(tmp.bwInter*2):
				speedIndex--
				tmp.bwIntra = speedArray[speedIndex]
				goto search
			}
		} else if time != 0 && speedIndex > 0 {
			if graph.pattern == PatternRing {
				speedIndex--
				tmp.bwIntra, tmp.bwInter = speedArray[speedIndex], speedArray[speedIndex]
				goto search
			} else if graph.pattern == PatternNVLS && tmp.bwInter == graph.bwInter && tmp.bwInter < float32(tmp.bwIntra*2) {
				tmp.minChannels, tmp.maxChannels = graph.nChannels, graph.nChannels
				speedIndex--
				tmp.bwInter = speedArray[speedIndex]
				goto search
			} else if tmp.bwIntra == graph.bwIntra && tmp.bwIntra < float32(tmp.bwInter*2) {
				// bwIntra up for trees (2 nodes or collnet).
				speedIndex--
				tmp.bwIntra = speedArray[speedIndex]
				goto search
			}
		}
		time = -1
		tmp.copyFrom(graph)
	}

	if graph.nChannels == 0 && !graph.collNet && graph.pattern != PatternNVLS {
		*log = append(*log, fmt.Sprintf("Could not find a path for pattern %d, falling back to simple order", int(graph.pattern)))
		for i, n := range s.Nodes[GPU] {
			graph.intra[i] = n.Rank
		}
		graph.inter[0], graph.inter[1] = 0, 0
		graph.bwIntra, graph.bwInter = 0.1, 0.1
		graph.typeIntra, graph.typeInter = PathSYS, PathSYS
		if p.SimpleOrderNets {
			if err := x.simpleOrderNets(graph); err != nil {
				return err
			}
		}
		graph.nChannels = 1
	}
	if p.DupAfterSearch {
		dupChannels(graph, ccMin, ngpus, p.DupByBwOnly)
	}
	return nil
}

// simpleOrderNets gives the simple-order fallback channel real NETs: the
// first preferred NET of the first GPU and of the last (ncclTopoSelectNets
// with no path type beyond the preferred ones); without both, no NET, no
// inter-node bandwidth and PATH_DIS.
// Ref: v2.29.2-1 src/graph/search.cc ncclTopoCompute
func (x *searcher) simpleOrderNets(graph *sgraph) error {
	ends := [2]int{0, x.ngpus - 1}
	for i, g := range ends {
		nets, err := x.selectNets(PathType(-1), g)
		if err != nil {
			return err
		}
		if len(nets) == 0 {
			graph.inter[0], graph.inter[1] = -1, -1
			graph.bwInter, graph.typeInter = 0, PathDIS
			return nil
		}
		graph.inter[i] = x.s.Nodes[NET][nets[0]].ID
	}
	return nil
}
