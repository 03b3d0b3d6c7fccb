package topo

import (
	"fmt"

	"github.com/gatesim/gatesim/nccl"
)

// pathState carries what the path rules read besides the system: the
// release and the options.
type pathState struct {
	p Params
	o Options
}

// setPaths is ncclTopoSetPaths: a breadth-first search from base that sets,
// in every node reached, the path to base (v2.28.9-1 src/graph/paths.cc).
// The path bandwidth is the smallest link on the way; which candidate
// replaces a node's path is betterPath. A GPU is crossed only as a single
// NVLink hop between two GPUs (NVB), unless NCCL_NVB_DISABLE.
func (ps *pathState) setPaths(s *System, base *Node) error {
	bt := base.Type
	n := len(s.Nodes[bt])
	alloc := func(x *Node, dis bool) {
		if x.Paths[bt] == nil {
			x.Paths[bt] = make([]Path, n)
			if dis {
				for i := range x.Paths[bt] {
					x.Paths[bt][i].Type = PathDIS
				}
			}
		}
	}
	alloc(base, ps.p.SelfPathsDIS)
	bp := &base.Paths[bt][base.Index]
	bp.Links = nil
	bp.Bw = locBw
	bp.Type = PathLOC

	// A device (a DEV node, or a GPU node that is its device) is crossed
	// only from its DEV to its GPUs, or as one NVLink hop to another
	// device (NVB), unless it is the base's own; the base's hop to its
	// DEV counts in the NVB length (pathMaxLength, 2.30.3+).
	baseDev, maxLen := base, 1
	if bt == GPU && base.Parent != nil {
		baseDev, maxLen = base.Parent, 2
	}
	list := []*Node{base}
	for len(list) > 0 {
		var next []*Node
		for _, node := range list {
			path := &node.Paths[bt][base.Index]
			for _, link := range node.Links {
				rem := link.Remote
				alloc(rem, true)
				remPath := &rem.Paths[bt][base.Index]
				bw := min(path.Bw, link.Bw)
				if node != base && node != baseDev && node.isDevice() && (link.Type != LinkLOC || rem.Parent != node) &&
					(ps.o.NVBDisable || link.Type != LinkNVL || !rem.isDevice() || path.Count() > maxLen) {
					continue
				}
				// Path type starts as the link type; NET links count as LOC
				// since only the NIC→GPU part matters.
				t := PathType(link.Type)
				if link.Type == LinkNET {
					t = PathLOC
				}
				if node.Type == PCI && rem.Type == PCI {
					t = PathPXB // several PCI switches
				}
				if link.Type == LinkPCI && (node.Type == CPU || rem.Type == CPU) {
					t = PathPHB // through the CPU
				}
				if node.isDevice() && path.Type == PathNVL && t == PathNVL && path.Count() >= maxLen {
					t = PathNVB // NVLink through an intermediate GPU
				}
				t = max(path.Type, t)
				if !ps.betterPath(remPath, t, bw, path.Count()+1) {
					continue
				}
				var rev *Link
				for _, rl := range rem.Links {
					if rl.Remote == node && rl.Type == link.Type {
						rev = rl
						break
					}
				}
				if rev == nil {
					return fmt.Errorf("topology: no reverse link from %s to %s", rem.Name(), node.Name())
				}
				links := make([]*Link, 0, path.Count()+1)
				links = append(links, rev)
				links = append(links, path.Links...)
				remPath.Links = links
				remPath.Bw = bw
				remPath.Type = t
				found := false
				for _, x := range next {
					if x == rem {
						found = true
						break
					}
				}
				if !found {
					next = append(next, rem)
				}
			}
		}
		list = next
	}
	return nil
}

// betterPath says whether a candidate path of type t, bandwidth bw and hops
// hops replaces cur in ncclTopoSetPaths (G-TOPO-PATHS-1). Up to 2.30.4 only
// a strictly higher bandwidth over no more hops replaces it (or any path
// where none is set), so on ties the first shortest path found wins and
// the type follows the winner. From 2.30.7 (PathTypeFirst) a better type
// wins whatever its bandwidth and length, then a higher bandwidth at the
// same type, then strictly fewer hops at the same type and bandwidth.
// Ref: v2.28.9-1, v2.30.7-1 src/graph/paths.cc ncclTopoSetPaths.
func (ps *pathState) betterPath(cur *Path, t PathType, bw float32, hops int) bool {
	if !ps.p.PathTypeFirst {
		return (cur.Bw == 0 || cur.Count() >= hops) && cur.Bw < bw
	}
	if t != cur.Type {
		return ps.p.pathAbove(cur.Type, t)
	}
	return cur.Bw < bw || (cur.Bw == bw && cur.Count() > hops)
}

// localCPU is ncclGetLocalCpu: the CPU with the fewest hops from the GPU;
// from 2.30.7 (LocalCPUByBw) the one with the fewest hops among those of
// the best path (ncclTopoGetLocal).
// Ref: v2.30.4-1, v2.30.7-1 src/graph/paths.cc ncclGetLocalCpu.
func (ps *pathState) localCPU(s *System, g *Node) (*Node, error) {
	if ps.p.LocalCPUByBw {
		cpus, _ := getLocal(&ps.p, s, g, CPU)
		if len(cpus) == 0 {
			return nil, fmt.Errorf("topology: could not find a CPU close to %s", g.Name())
		}
		best := cpus[0]
		for _, c := range cpus[1:] {
			if g.Paths[CPU][c].Count() < g.Paths[CPU][best].Count() {
				best = c
			}
		}
		return s.Nodes[CPU][best], nil
	}
	minHops := 0
	var best *Node
	for i, c := range s.Nodes[CPU] {
		hops := g.Paths[CPU][i].Count()
		if ps.p.LocalCPUNeedsHops && hops == 0 {
			continue
		}
		if minHops == 0 || hops < minHops {
			best, minHops = c, hops
		}
	}
	if best == nil {
		return nil, fmt.Errorf("topology: could not find a CPU close to %s", g.Name())
	}
	return best, nil
}

// mergePathType is mergePathType (2.27.5+): PHB after C2C is P2C; before,
// addInterStep keeps the larger type.
func (ps *pathState) mergePathType(a, b PathType) PathType {
	hi, lo := max(a, b), min(a, b)
	if ps.p.P2CMerge && hi == PathPHB && lo == PathC2C {
		return PathP2C
	}
	return hi
}

// addInterStep is addInterStep: replace src's path to (t2,i2) by the path
// to the intermediate node x followed by x's path to (t2,i2). Through a GPU
// the result is PXN.
func (ps *pathState) addInterStep(x, src *Node, t2 NodeType, i2 int) {
	toX := &src.Paths[x.Type][x.Index]
	fromX := &x.Paths[t2][i2]
	p := &src.Paths[t2][i2]
	links := make([]*Link, 0, toX.Count()+fromX.Count())
	links = append(links, toX.Links...)
	links = append(links, fromX.Links...)
	p.Links = links
	p.Type = ps.mergePathType(toX.Type, fromX.Type)
	if x.Type == GPU {
		p.Type = PathPXN
	}
	p.Bw = min(toX.Bw, fromX.Bw)
}

// p2pLevel is the P2P level of ncclTopoCheckP2p: the release's default,
// then NCCL_P2P_DISABLE (LOC) or NCCL_P2P_LEVEL.
func (ps *pathState) p2pLevel(s *System) PathType {
	arch, vendor, _ := s.CPUType()
	var level PathType
	if ps.p.P2PLevelAMDPairs {
		level = PathPXB
		// GPU devices (DEV nodes from 2.30.3; ranks sharing one count once)
		if arch == ArchX86 && vendor == VendorAMD && s.deviceCount() <= 2 {
			level = PathSYS
		}
	} else {
		level = PathSYS
		if arch == ArchARM || (arch == ArchX86 && (vendor == VendorIntel || vendor == VendorZhaoxin)) {
			level = PathPXB
		}
	}
	if ps.o.P2PDisable {
		return PathLOC
	}
	if ps.o.P2PLevelSet {
		return ps.o.P2PLevel
	}
	return level
}

// checkP2P is ncclTopoCheckP2p between two GPUs of the system: P2P when the
// path is no worse than the P2P level and NVML reports P2P between them
// (Options.P2PNotSupported says it does not, for PCIe paths; 2.18 keeps
// P2P there).
// The intermediate GPU is returned when the path crosses one (NVB).
//
// The NVML check is skipped between ranks of one device (2.30.3+: their
// parent DEV is the same; v2.30.3-1 src/graph/paths.cc ncclTopoCheckP2p).
func (ps *pathState) checkP2P(s *System, g1, g2 *Node) (p2p bool, intermediate *Node) {
	path := &g1.Paths[GPU][g2.Index]
	// the first device after the source's own: GPU-GPU-GPU, or
	// GPU-DEV-DEV-DEV-GPU between ranks of shared devices
	first := 0
	if g1.Parent != nil {
		first = 1
	}
	if path.Count() >= first+2 {
		if n := path.Links[first].Remote; n.isDevice() && n != g2.DevNode() {
			intermediate = n.rankNode()
		}
	}
	p2p = path.Type <= ps.p2pLevel(s)
	if p2p && g1.DevNode() != g2.DevNode() && ps.o.P2PNotSupported && path.Type > PathNVB && !ps.p.NVMLP2PKept {
		p2p = false
	}
	return p2p, intermediate
}

// checkNet is ncclTopoCheckNet: true when both GPUs reach a NIC through
// PXB or better faster than they reach each other, so the network beats P2P
// and SHM between them.
func (ps *pathState) checkNet(s *System, g1, g2 *Node) bool {
	if ps.o.NetDisableIntra {
		return false
	}
	speed := g1.Paths[GPU][g2.Index].Bw
	var n1, n2 float32
	for i := range s.Nodes[NET] {
		if p := &g1.Paths[NET][i]; p.Type <= PathPXB && p.Bw > n1 {
			n1 = p.Bw
		}
		if p := &g2.Paths[NET][i]; p.Type <= PathPXB && p.Bw > n2 {
			n2 = p.Bw
		}
	}
	return n1 > speed && n2 > speed
}

// canP2P is the topology part of p2pCanConnect (src/transport/p2p.cc):
// CUDA peer access and IPC are assumed to work.
func (ps *pathState) canP2P(s *System, src, dst *Node) bool {
	ok, inter := ps.checkP2P(s, src, dst)
	if !ok {
		return false
	}
	if inter != nil {
		return !ps.o.P2PUseCudaMemcpy
	}
	if ps.checkNet(s, src, dst) {
		return false
	}
	return true
}

// canSHM is shmCanConnect (src/transport/shm.cc): same host, one /dev/shm.
func (ps *pathState) canSHM(s *System, src, dst *Node) bool {
	if ps.o.SHMDisable {
		return false
	}
	if ps.checkNet(s, src, dst) {
		return false
	}
	return src.SystemID() == dst.SystemID()
}

// intermediateRank is ncclTopoGetIntermediateRank: for a PXN path, the GPU
// that relays to the NIC (the first non-NVSwitch node on the path).
func intermediateGPU(gpu, net *Node) (*Node, error) {
	path := &gpu.Paths[NET][net.Index]
	if path.Type != PathPXN {
		return gpu, nil
	}
	// GPU-NVS-GPU, or GPU-DEV-NVS-DEV between shared devices (2.30.3+:
	// the DEV's first rank relays)
	var node *Node
	t := NVS
	for i := 0; i < path.Count() && (t == NVS || node == gpu.Parent); i++ {
		node = path.Links[i].Remote
		t = node.Type
	}
	if t == DEV {
		node = node.rankNode()
		t = node.Type
	}
	if t != GPU {
		return nil, fmt.Errorf("topology: no intermediate GPU between %s and %s", gpu.Name(), net.Name())
	}
	return node, nil
}

// gdrLevel is NCCL_NET_GDR_LEVEL, else PXB; from 2.29.2 P2C with
// NCCL_NET_GDR_C2C (Params.GdrLevelP2C).
func (ps *pathState) gdrLevel() PathType {
	if ps.o.NetGdrLevelSet {
		return ps.o.NetGdrLevel
	}
	if ps.p.GdrLevelP2C && ps.o.NetGdrC2C {
		return PathP2C
	}
	return PathPXB
}

// GdrMode is ncclTopoGdrMode: how a connector uses GPU Direct RDMA.
type GdrMode uint8

const (
	GdrOff     GdrMode = iota // ncclTopoGdrModeDisable
	GdrDefault                // ncclTopoGdrModeDefault: "/GDRDMA"
	GdrPCI                    // ncclTopoGdrModePci (2.26.2+): "/GDRDMA(PCI)"
)

// checkGDR is ncclTopoCheckGdr for writes (read = 0), the case the path
// computation asks about.
func (ps *pathState) checkGDR(s *System, gpu, net *Node) (bool, error) {
	m, err := ps.gdrMode(s, gpu, net, false, false)
	return m != GdrOff, err
}

// gdrMode is ncclTopoCheckGdr (G-NET-CONN-GDR-1): both ends support GPU
// Direct RDMA, a read (a send connector) passes NCCL_NET_GDR_READ (unset:
// a GPU before sm80, or any GPU until 2.18.6 (Params.GdrReadAllArchs),
// reads only beside an NVLink peer or alone), and the (PXN relay GPU's)
// path to the NIC is within the GDR level. withMode asks for the PCI
// mapping of 2.26.2+ (Params.GdrModePCI), which reads the GPU's local CPU
// (the path computation does not ask for it).
//
// Ref: v2.18.1-1 … v2.30.7-1 src/graph/paths.cc ncclTopoCheckGdr
func (ps *pathState) gdrMode(s *System, gpu, net *Node, read, withMode bool) (GdrMode, error) {
	if !net.GDR || !gpu.GDR {
		return GdrOff, nil
	}
	// G-TOPO-MLOPART-2 (2.30.7): no GPU Direct RDMA from an MLOPart
	// partition unless NCCL_NET_GDR_MLOPART=1; a whole GPU has -1
	if gpu.MLOPart != -1 && !ps.o.NetGdrMLOPart {
		return GdrOff, nil
	}
	if read && !ps.gdrRead(s, gpu) {
		return GdrOff, nil
	}
	level := ps.gdrLevel()
	distance := gpu.Paths[NET][net.Index].Type
	from := gpu
	if distance == PathPXN {
		relay, err := intermediateGPU(gpu, net)
		if err != nil {
			return GdrOff, err
		}
		from, distance = relay, relay.Paths[NET][net.Index].Type
	}
	switch {
	case ps.p.P2CPaths && !ps.p.GdrLevelP2C && ps.o.NetGdrC2C && distance == PathP2C:
		distance = PathC2C
	case ps.p.C2CPaths && !ps.p.P2CPaths && ps.o.NetGdrC2C && distance == PathPHB:
		// 2.26: a NIC behind the GPU's own C2C-attached CPU (NCCL asks
		// ncclGetLocalCpu with NCCLCHECK: its failure is the call's)
		cpu, err := ps.localCPU(s, from)
		if err != nil {
			return GdrOff, err
		}
		if from.Paths[CPU][cpu.Index].Type == PathC2C {
			distance = PathC2C
		}
	}
	if ps.p.pathAbove(distance, level) {
		return GdrOff, nil
	}
	if !withMode || !ps.p.GdrModePCI {
		return GdrDefault, nil
	}
	// a C2C-attached GPU maps the buffer over PCIe unless the NIC is
	// behind its own CPU (2.26.2-2.28.9: the distance turned C2C above;
	// 2.29.2+: the P2C distance itself)
	cpu, err := ps.localCPU(s, from)
	if err != nil {
		return GdrOff, err
	}
	direct := PathC2C
	if ps.p.GdrLevelP2C {
		direct = PathP2C
	}
	if from.Paths[CPU][cpu.Index].Type == PathC2C && distance != direct {
		return GdrPCI, nil
	}
	return GdrDefault, nil
}

// gdrRead is ncclTopoCheckGdr's condition for reads (sends): not with
// NCCL_NET_GDR_READ=0; unset, a GPU before sm80 (every GPU until 2.18.6,
// Params.GdrReadAllArchs) reads over GDR only when it is alone or has an
// NVLink peer.
func (ps *pathState) gdrRead(s *System, gpu *Node) bool {
	if ps.o.NetGdrReadSet && ps.o.NetGdrRead >= 0 {
		return ps.o.NetGdrRead != 0
	}
	if (gpu.SM >= 80 && !ps.p.GdrReadAllArchs) || len(s.Nodes[GPU]) == 1 {
		return true
	}
	for _, peer := range s.Nodes[GPU] {
		if peer != gpu && gpu.Paths[GPU][peer.Index].Type == PathNVL {
			return true
		}
	}
	return false
}

// getLocal is ncclTopoGetLocal: the nodes of resultType with the best path
// from n (highest bandwidth, then best type by the release's numbers), and
// that path type.
func getLocal(p *Params, s *System, n *Node, resultType NodeType) ([]int, PathType) {
	paths := n.Paths[resultType]
	if paths == nil {
		return nil, PathDIS
	}
	minType := PathDIS
	var maxBw float32
	var out []int
	pt := PathDIS
	for i := range s.Nodes[resultType] {
		pi := &paths[i]
		if pi.Bw > maxBw || (pi.Bw == maxBw && p.pathAbove(minType, pi.Type)) {
			maxBw = pi.Bw
			minType = pi.Type
			pt = minType
			out = out[:0]
		}
		if pi.Bw == maxBw && pi.Type == minType {
			out = append(out, i)
		}
	}
	return out, pt
}

func isPow2(v int) bool { return v&(v-1) == 0 }

// mirrorBits is mirrorBits (src/graph/topo.h).
func mirrorBits(val, pow2 int) int {
	m := 0
	for b, mb := 1, pow2>>1; b < pow2; b, mb = b<<1, mb>>1 {
		if val&b != 0 {
			m |= mb
		}
	}
	return m
}

// localNet is ncclTopoGetLocalNet: the NET a GPU uses for a channel.
// Under the AUTO policy the GPUs spread over their closest NICs: the
// device number (mirrored when the NIC count is a power of two) plus the
// channel modulo the NICs per GPU.
func (ps *pathState) localNet(s *System, gpu *Node, channel int) (*Node, error) {
	if ps.p.LocalNetMask {
		return localNetMask18(s, gpu, channel)
	}
	nets, _ := getLocal(&ps.p, s, gpu, NET)
	if len(nets) == 0 {
		return nil, fmt.Errorf("topology: could not find any local path from %s to a NET", gpu.Name())
	}
	netsPerGpu := 0
	policy := NetDevsAuto
	if ps.p.NetDevsPolicy {
		policy = ps.o.NetDevsPolicy
	}
	switch policy {
	case NetDevsAll:
		netsPerGpu = len(nets)
	case NetDevsMax:
		if ps.o.NetDevsMax <= 0 {
			return nil, fmt.Errorf("NCCL_NETDEVS_POLICY=MAX:%d: expected a positive device count", ps.o.NetDevsMax)
		}
		netsPerGpu = min(ps.o.NetDevsMax, len(nets))
	default:
		gpus, _ := getLocal(&ps.p, s, s.Nodes[NET][nets[0]], GPU)
		if len(gpus) == 0 {
			return nil, fmt.Errorf("topology: %s reaches no GPU", s.Nodes[NET][nets[0]].Name())
		}
		netsPerGpu = nccl.DivUp(len(nets), len(gpus))
	}
	net := gpu.Dev
	if isPow2(len(nets)) {
		net = mirrorBits(net, len(nets))
	}
	net += channel % netsPerGpu
	return s.Nodes[NET][nets[((net%len(nets))+len(nets))%len(nets)]], nil
}

// localGPU is ncclTopoGetLocalGpu: the first close GPU that would pick this
// NET for some channel; -1 when none.
func (ps *pathState) localGPU(s *System, net *Node) (int, error) {
	if ps.p.LocalNetMask {
		return localGPUMask18(s, net)
	}
	gpus, _ := getLocal(&ps.p, s, net, GPU)
	for c := 0; c < ps.p.MaxChannels; c++ {
		for _, g := range gpus {
			n, err := ps.localNet(s, s.Nodes[GPU][g], c)
			if err != nil {
				return -1, err
			}
			if n == net {
				return g, nil
			}
		}
	}
	return -1, nil
}

// netMask18 is getLocalNetMask (2.18.1-2.18.3): the ids of the NETs whose
// path to GPU g has the most bandwidth, then the smallest type, as a bit
// mask, and that type. A NET id of 64 or more is an internal error.
func netMask18(s *System, g int) (uint64, PathType, error) {
	minType := PathDIS
	var maxBw float32
	var mask uint64
	for _, n := range s.Nodes[NET] {
		p := &n.Paths[GPU][g]
		if p.Bw > maxBw || (p.Bw == maxBw && p.Type < minType) {
			maxBw, minType, mask = p.Bw, p.Type, 0
		}
		if p.Bw == maxBw && p.Type == minType {
			if n.ID < 0 || n.ID >= 64 {
				return 0, minType, fmt.Errorf("topology: NET id %d does not fit the local NET mask (2.18.x: ids below 64)", n.ID)
			}
			mask |= 1 << uint(n.ID)
		}
	}
	return mask, minType, nil
}

// localNetMask18 is 2.18.3's ncclTopoGetLocalNet: the GPUs with the same
// mask as this one take its NETs in turn, channel after channel, so local
// GPU k of m uses the (channel·m + k)-th NET of the mask (ids ascending,
// wrapping around).
func localNetMask18(s *System, gpu *Node, channel int) (*Node, error) {
	masks := make([]uint64, len(s.Nodes[GPU]))
	for g := range s.Nodes[GPU] {
		m, _, err := netMask18(s, g)
		if err != nil {
			return nil, err
		}
		masks[g] = m
	}
	mask := masks[gpu.Index]
	if mask == 0 {
		return nil, fmt.Errorf("topology: %s has no local NET", gpu.Name())
	}
	nGpus, k := 0, 0
	for g, m := range masks {
		if m == mask {
			if g == gpu.Index {
				k = nGpus
			}
			nGpus++
		}
	}
	var ids []int64
	for b := range 64 {
		if mask&(1<<uint(b)) != 0 {
			ids = append(ids, int64(b))
		}
	}
	id := ids[(channel*nGpus+k)%len(ids)]
	for _, n := range s.Nodes[NET] {
		if n.ID == id {
			return n, nil
		}
	}
	return nil, fmt.Errorf("topology: no NET with id %d", id)
}

// localGPUMask18 is 2.18.3's ncclTopoGetLocalGpu: among the GPUs whose
// closest NETs include net, those of the smallest path type share one
// mask; the NET's position in the mask, modulo their count, picks one.
// GPUs of that type with different masks are NCCL's internal error.
func localGPUMask18(s *System, net *Node) (int, error) {
	minType := PathDIS
	var mask uint64
	var gpus []int
	for g := range s.Nodes[GPU] {
		m, t, err := netMask18(s, g)
		if err != nil {
			return -1, err
		}
		if net.ID < 0 || net.ID >= 64 || m&(1<<uint(net.ID)) == 0 {
			continue
		}
		if t < minType {
			mask, minType, gpus = m, t, gpus[:0]
		}
		if t == minType {
			if m != mask {
				return -1, fmt.Errorf("topology: GPUs %d and %d both have a type of %s with net %d yet have different NET masks %x and %x", g, gpus[len(gpus)-1], minType, net.ID, m, mask)
			}
			gpus = append(gpus, g)
		}
	}
	if mask == 0 {
		return -1, nil
	}
	i := 0
	for b := range int(net.ID) {
		if mask&(1<<uint(b)) != 0 {
			i++
		}
	}
	return gpus[i%len(gpus)], nil
}

// computePaths is ncclTopoComputePaths: paths to every CPU, GPU, NET and
// NVSwitch; GPU pairs that may not use P2P go through the CPU; pairs that
// can use neither P2P nor SHM are marked PATH_NET (and trimmed later); the
// P2C shortcut; PXN; GPU→NIC paths without GDR through the CPU; and each
// NET's local GPU.
func (ps *pathState) computePaths(s *System) error {
	for t := range s.Nodes {
		for _, n := range s.Nodes[t] {
			n.Paths = [NumNodeTypes][]Path{}
		}
	}
	// paths to DEV nodes (the search's, 2.30.3+) exist where ranks share
	// a device
	for _, t := range []NodeType{CPU, GPU, NET, NVS, DEV} {
		for _, n := range s.Nodes[t] {
			if err := ps.setPaths(s, n); err != nil {
				return err
			}
		}
	}
	gpus := s.Nodes[GPU]
	for _, g := range gpus {
		for _, p := range gpus {
			if ok, _ := ps.checkP2P(s, p, g); !ok {
				cpu, err := ps.localCPU(s, g)
				if err != nil {
					return err
				}
				ps.addInterStep(cpu, p, GPU, g.Index)
			}
		}
		for _, p := range gpus {
			if p == g {
				continue
			}
			if !ps.canP2P(s, p, g) && !ps.canSHM(s, p, g) {
				p.Paths[GPU][g.Index].Type = PathNET
			}
		}
	}
	if ps.p.P2CPaths {
		for _, net := range s.Nodes[NET] {
			for _, g := range gpus {
				cpu, err := ps.localCPU(s, g)
				if err != nil {
					continue
				}
				switch {
				case ps.p.P2CMerge:
					if ps.mergePathType(g.Paths[CPU][cpu.Index].Type, net.Paths[CPU][cpu.Index].Type) == PathP2C {
						g.Paths[NET][net.Index].Type = min(PathP2C, g.Paths[NET][net.Index].Type)
						net.Paths[GPU][g.Index].Type = min(PathP2C, net.Paths[GPU][g.Index].Type)
					}
				case g.Paths[NET][net.Index].Type == PathPHB && g.Paths[CPU][cpu.Index].Type == PathC2C:
					// 2.27.3's form of the shortcut
					g.Paths[NET][net.Index].Type = PathP2C
					net.Paths[GPU][g.Index].Type = PathP2C
				}
			}
		}
	}
	for _, net := range s.Nodes[NET] {
		for _, g := range gpus {
			if !ps.o.PXNDisable {
				lg, err := ps.localGPU(s, net)
				if err != nil {
					return err
				}
				if lg != g.Index && lg != -1 {
					peer := gpus[lg]
					pxnType := PathPXB
					if ps.p.P2CPaths && ps.o.PXNC2C {
						pxnType = PathP2C
					}
					worse := PathPXB
					switch {
					case ps.p.PXNAvoidsPXN:
						worse = PathPXN
					case ps.p.PXNOwnAbovePXNType:
						worse = pxnType
					}
					own := &g.Paths[NET][net.Index]
					pp := &peer.Paths[NET][net.Index]
					if pp.Type <= pxnType && peer.Paths[GPU][g.Index].Type <= PathNVL &&
						peer.SystemID() == g.SystemID() && (pp.Bw > own.Bw || own.Type > worse) {
						ps.addInterStep(peer, g, NET, net.Index)
					}
				}
			}
			if g.Paths[NET][net.Index].Type < PathPHB {
				gdr, err := ps.checkGDR(s, g, net)
				if err != nil {
					return err
				}
				if !gdr {
					cpu, err := ps.localCPU(s, g)
					if err != nil {
						return err
					}
					ps.addInterStep(cpu, net, GPU, g.Index)
					ps.addInterStep(cpu, g, NET, net.Index)
				}
			}
		}
	}
	for _, net := range s.Nodes[NET] {
		lg, err := ps.localGPU(s, net)
		if err != nil {
			return err
		}
		net.LocalGPU = lg
	}
	return nil
}

// domains splits the GPUs into groups that reach each other without the
// network (ncclTopoTrimSystem): a GPU joins the lowest-numbered earlier GPU
// it reaches.
func domains(s *System) []int {
	gpus := s.Nodes[GPU]
	d := make([]int, len(gpus))
	for g := range gpus {
		d[g] = g
		for p := 0; p < g; p++ {
			if gpus[g].Paths[GPU][p].Type < PathNET {
				d[g] = min(d[g], d[p])
			}
		}
	}
	return d
}

// trim is ncclTopoTrimSystem for the rank holding GPU keep: the GPUs outside
// its domain are removed; "inter" is set when the communicator has ranks on
// other GPUs (2.28.9), or the NETs are removed when it has none (before).
func (ps *pathState) trim(s *System, keep *Node, nRanks int) {
	d := domains(s)
	mine := d[keep.Index]
	var drop []*Node
	for i, g := range s.Nodes[GPU] {
		if d[i] != mine {
			drop = append(drop, g)
		}
	}
	for _, g := range drop {
		s.removeNode(g)
	}
	if ps.p.InterFlag {
		s.Inter = len(s.Nodes[GPU]) != nRanks
		return
	}
	if len(s.Nodes[GPU]) == nRanks {
		for len(s.Nodes[NET]) > 0 {
			s.removeNode(s.Nodes[NET][len(s.Nodes[NET])-1])
		}
	}
	s.Inter = len(s.Nodes[NET]) > 0
}

// inter is how the search tells a multi-host communicator: system->inter in
// 2.28.9, "NET nodes exist" before.
func (ps *pathState) inter(s *System) bool {
	if ps.p.InterFlag {
		return s.Inter
	}
	return len(s.Nodes[NET]) > 0
}

// searchInit is ncclTopoSearchInit: maxBw is the best path bandwidth from a
// GPU to another GPU (or to a NET across hosts), totalBw the larger of a
// GPU's PCI link and the sum of its NVLinks.
func (ps *pathState) searchInit(s *System) {
	s.MaxBw, s.TotalBw = 0, 0
	inter := ps.inter(s)
	if !inter && len(s.Nodes[GPU]) == 1 {
		s.MaxBw, s.TotalBw = locBw, locBw
		if ps.p.LoneGPUTotalBwZero {
			s.TotalBw = 0
		}
		return
	}
	t := GPU
	if inter {
		t = NET
	}
	// per device (a DEV node from 2.30.3; ranks sharing one count once):
	// its paths to the other devices, or to the NETs
	visit := func(d *Node) {
		var m float32
		for _, dt := range [2]NodeType{t, DEV} {
			if dt == DEV && t != GPU {
				break
			}
			for i, e := range s.Nodes[dt] {
				p := &d.Paths[dt][i]
				if p.Count() == 0 || e.Parent != nil {
					continue
				}
				m = max(m, p.Bw)
			}
		}
		s.MaxBw = max(s.MaxBw, m)
		var nvl, pci float32
		for _, l := range d.Links {
			if l.Type == LinkNVL {
				nvl = float32(nvl + l.Bw)
			}
			if l.Type == LinkPCI {
				pci = l.Bw
			}
		}
		s.TotalBw = max(s.TotalBw, max(pci, nvl))
	}
	for _, g := range s.Nodes[GPU] {
		if g.Parent == nil {
			visit(g)
		}
	}
	for _, d := range s.Nodes[DEV] {
		visit(d)
	}
}

// gpuMinMaxPath is ncclTopoGetGpuMinPath / ncclTopoGetGpuMaxPath: the
// best and the worst path type from a GPU to another GPU or to a NET, by
// the release's numbers (2.27.3's PXN is below its P2C).
func gpuMinMaxPath(p *Params, s *System, t NodeType) (lo, hi PathType) {
	lo, hi = PathSYS, PathLOC
	for i, g := range s.Nodes[GPU] {
		paths := g.Paths[t]
		if paths == nil {
			continue
		}
		for j := range s.Nodes[t] {
			if t == GPU && i == j {
				continue
			}
			lo = p.pathMin(lo, paths[j].Type)
			hi = p.pathMax(hi, paths[j].Type)
		}
	}
	return lo, hi
}

// splitNVLink is ncclTopoSplitNvLink: exactly two NVLink islands.
func splitNVLink(s *System) bool {
	gpus := s.Nodes[GPU]
	dom := make([]int, len(gpus))
	for g := range gpus {
		dom[g] = g
	}
	for g := range gpus {
		d := dom[g]
		for p := g + 1; p < len(gpus); p++ {
			if gpus[g].Paths[GPU][p].Type == PathNVL {
				dom[p] = d
			}
		}
	}
	count := make([]int, len(gpus))
	for g := range gpus {
		count[dom[g]]++
	}
	n := 0
	for _, c := range count {
		if c > 1 {
			n++
		}
	}
	return n == 2
}
