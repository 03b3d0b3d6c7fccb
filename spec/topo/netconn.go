package topo

import (
	"fmt"
	"strconv"
)

// ConnKind is which connections a network connector serves: the ring's
// or the tree's (set up with their graph), or point-to-point (no graph).
type ConnKind uint8

const (
	ConnP2P ConnKind = iota
	ConnRing
	ConnTree
)

func (k ConnKind) String() string {
	switch k {
	case ConnRing:
		return "ring"
	case ConnTree:
		return "tree"
	}
	return "p2p"
}

// ConnQuery names one network connector of a rank: its kind, channel and
// connection index, the direction, the rank's GPU (nvmlDev) and, for a
// point-to-point send, the peer's GPU (nvmlDev; NCCL looks it up on the
// sender's node). A receive uses the rank's own NIC: PeerDev is ignored.
type ConnQuery struct {
	Kind      ConnKind
	Channel   int
	ConnIndex int
	Send      bool
	Dev       int
	PeerDev   int
}

// NetConn is what sendSetup/recvSetup decide for one network connector:
// the NET device, the GPU whose rank proxies it (PXN; the rank's own GPU
// when none), GPU Direct RDMA, shared buffers and, for a receive, the
// flush of what the NIC wrote into GPU memory.
type NetConn struct {
	NetDev   int
	ProxyDev int
	Gdr      GdrMode
	Shared   bool
	// Flush is recvSetup's needFlush (G-NET-CONN-FLUSH-1): FlushNone for
	// a send or a receive without GDR. FlushNoop: the network's iflush
	// posts nothing (NCCL's IB with NCCL_GDR_FLUSH_DISABLE).
	Flush     FlushType
	FlushNoop bool
	// Dev is the connecting rank's GPU, as queried.
	Dev int
}

// FlushType is ncclTopoNeedFlush's answer for a GDR receive: why the
// proxy flushes each received Simple step before the kernel reads it.
type FlushType uint8

const (
	FlushNone   FlushType = iota // no flush (ncclTopoFlushNone)
	FlushAlways                  // below sm90, or NCCL_NET_FORCE_FLUSH (ncclTopoFlushAlways)
	FlushC2C                     // PCIe data, C2C completions (ncclTopoFlushC2c, 2.26.2+)
)

// Flushes reports whether each Simple step this receive completes costs
// the proxy a flush round trip: the network's iflush (on NCCL's IB an
// RDMA read of the received buffer through the NIC) before the step is
// handed to the GPU. LL and LL128 steps never flush.
func (c NetConn) Flushes() bool { return c.Flush != FlushNone && !c.FlushNoop }

// FlushText names the flush for a connector table: "-" for a send or a
// receive without GDR, else "none", "iflush", "iflush(C2C)", and
// "iflush no-op" where the network's iflush posts nothing.
func (c NetConn) FlushText(send bool) string {
	if send || c.Gdr == GdrOff {
		return "-"
	}
	s := "none"
	switch c.Flush {
	case FlushAlways:
		s = "iflush"
	case FlushC2C:
		s = "iflush(C2C)"
	}
	if c.Flush != FlushNone && c.FlushNoop {
		s += " no-op"
	}
	return s
}

// PXN reports whether another GPU's rank proxies the connector.
func (c NetConn) PXN() bool { return c.ProxyDev != c.Dev }

// Suffix is what the connection line prints after "via NET/<name>/":
// the device, the proxy rank in parentheses (sends over PXN), "/GDRDMA",
// "(PCI)" and "/Shared". proxyRank is the NCCL rank of ProxyDev.
//
// Ref: v2.22.3-1, v2.26.2-1 src/transport/net.cc sendSetup, recvSetup
func (c NetConn) Suffix(proxyRank int) string {
	s := strconv.Itoa(c.NetDev)
	if c.PXN() {
		s += "(" + strconv.Itoa(proxyRank) + ")"
	}
	switch c.Gdr {
	case GdrDefault:
		s += "/GDRDMA"
	case GdrPCI:
		s += "/GDRDMA(PCI)"
	}
	if c.Shared {
		s += "/Shared"
	}
	return s
}

// NetConn decides one network connector of a rank of this node
// (G-NET-CONN-PXN-1, G-NET-CONN-GDR-1, G-NET-CONN-SHARED-1):
//   - the NET and proxy (ncclTopoGetNetDev): a ring or tree connector takes
//     its channel's NET from the graph, the entry NET for the channel's
//     first GPU and the exit NET for any other, and the GPU that relays a
//     PXN path to it (ncclTopoGetIntermediateRank); a point-to-point
//     connector starts from the rank's own local NET for the channel, and
//     a send (NCCL_P2P_PXN_LEVEL 2, PXN not disabled) moves to the peer
//     GPU's local NET through that NET's local GPU when it is an NVLink
//     peer (or the rank itself) within PXB of it (2.27.6+: P2C with
//     NCCL_PXN_C2C, Params.PXNP2PType; 2.30.3+: with GDR writes,
//     Params.PXNP2PNeedsGDR); NCCL_CROSS_NIC=0 takes the peer's NET
//     without the proxy;
//   - GPU Direct RDMA (ncclTopoCheckGdr): read for a send, write for a
//     receive, with its PCI mode (Params.GdrModePCI);
//   - shared buffers: point-to-point connectors (no graph) with
//     NCCL_NET_SHARED_BUFFERS at its default;
//   - the flush of a GDR receive (G-NET-CONN-FLUSH-1, needFlush): see
//     needFlush.
//
// Ref: v2.18.1-1 … v2.30.7-1 src/transport/net.cc sendSetup, recvSetup;
// src/graph/search.cc ncclTopoGetNetDev; src/graph/paths.cc
// ncclTopoCheckGdr, ncclTopoGetIntermediateRank, ncclTopoNeedFlush
func (n *NodeResult) NetConn(q ConnQuery) (NetConn, error) {
	if n.model == nil || n.model.ps == nil {
		return NetConn{}, fmt.Errorf("topology: node without a model")
	}
	return n.model.ps.netConn(n.model, q)
}

func (ps *pathState) netConn(m *nodeModel, q ConnQuery) (NetConn, error) {
	s := m.sys
	gpu := gpuOfDev(s, q.Dev)
	if gpu == nil {
		return NetConn{}, fmt.Errorf("topology: no GPU with dev %d on this node", q.Dev)
	}
	if len(s.Nodes[NET]) == 0 {
		return NetConn{}, fmt.Errorf("topology: the node has no NET")
	}
	c := NetConn{Dev: q.Dev, ProxyDev: q.Dev}
	var net *Node
	switch q.Kind {
	case ConnRing, ConnTree:
		gi := GraphRing
		if q.Kind == ConnTree {
			gi = GraphTree
		}
		g := m.graphs[gi]
		ngpus := len(s.Nodes[GPU])
		if g == nil || g.nChannels == 0 {
			return NetConn{}, fmt.Errorf("topology: no %s graph", q.Kind)
		}
		ch := q.Channel % g.nChannels
		idx := 1
		if g.intra[ch*ngpus] == gpu.Rank {
			idx = 0
		}
		net = netOfID(s, g.inter[2*ch+idx])
		if net == nil {
			return NetConn{}, fmt.Errorf("topology: %s channel %d has no NET", q.Kind, ch)
		}
		relay, err := intermediateGPU(gpu, net)
		if err != nil {
			return NetConn{}, err
		}
		if q.Send { // "We don't support PXN on receive yet"
			c.ProxyDev = relay.Dev
		}
	default:
		var err error
		if net, err = ps.localNet(s, gpu, q.Channel); err != nil {
			return NetConn{}, err
		}
		peer := gpu
		if q.Send {
			peer = gpuOfDev(s, q.PeerDev)
		}
		if peer != nil && (ps.o.CrossNic == 0 || !ps.o.PXNDisable) {
			pnet, err := ps.localNet(s, peer, q.Channel)
			if err != nil {
				return NetConn{}, err
			}
			if ps.o.CrossNic == 0 {
				net = pnet
			}
			if !ps.o.PXNDisable {
				proxy, err := ps.p2pProxy(s, gpu, pnet)
				if err != nil {
					return NetConn{}, err
				}
				if proxy != nil {
					net = pnet
					if q.Send {
						c.ProxyDev = proxy.Dev
					}
				}
			}
		}
		c.Shared = true
	}
	c.NetDev = net.NetDev
	mode, err := ps.gdrMode(s, gpu, net, q.Send, true)
	if err != nil {
		return NetConn{}, err
	}
	c.Gdr = mode
	if !q.Send && mode != GdrOff {
		if c.Flush, err = ps.needFlush(s, gpu, net); err != nil {
			return NetConn{}, err
		}
		c.FlushNoop = c.Flush != FlushNone && ps.o.NetIB && ps.o.GdrFlushDisable
	}
	return c, nil
}

// needFlush is ncclTopoNeedFlush (G-NET-CONN-FLUSH-1), which recvSetup
// asks for a receive with GDR: the proxy must flush what the NIC wrote
// before the GPU reads it on a GPU below sm90, or on any GPU with
// NCCL_NET_FORCE_FLUSH (default 1 until 2.18.6, so Hopper flushes there
// too; 0 from 2.19.1); from 2.26.2 (Params.FlushC2C) also where the
// GPU's local CPU is C2C-attached and the NIC within PXB of the GPU, as
// the data then crosses PCIe while completions and flags cross C2C. A net
// plugin's forceFlush property (2.24.3+; NCCL's IB sets it for mlx5
// DataDirect devices from 2.27.3) is not modelled: gatesim's NICs do not
// carry it.
//
// Ref: v2.18.1-1, v2.19.1-1, v2.24.3-1, v2.26.2-1, v2.30.3-1
// src/graph/paths.cc ncclTopoNeedFlush; src/transport/net.cc recvSetup
func (ps *pathState) needFlush(s *System, gpu, net *Node) (FlushType, error) {
	if ps.o.NetForceFlush || gpu.SM < 90 {
		return FlushAlways, nil
	}
	if !ps.p.FlushC2C || ps.p.pathAbove(gpu.Paths[NET][net.Index].Type, PathPXB) {
		return FlushNone, nil
	}
	cpu, err := ps.localCPU(s, gpu)
	if err != nil {
		return FlushNone, err
	}
	if gpu.Paths[CPU][cpu.Index].Type == PathC2C {
		return FlushC2C, nil
	}
	return FlushNone, nil
}

// p2pProxy is ncclTopoGetNetDev's PXN level 2: the local GPU of net, when
// it is gpu itself or its NVLink peer and reaches net within the PXN
// type; nil otherwise.
func (ps *pathState) p2pProxy(s *System, gpu, net *Node) (*Node, error) {
	g2, err := ps.localGPU(s, net)
	if err != nil || g2 < 0 {
		return nil, err
	}
	peer := s.Nodes[GPU][g2]
	pxnType := PathPXB
	if ps.p.PXNP2PType && ps.o.PXNC2C {
		pxnType = PathP2C
	}
	if peer.Paths[GPU][gpu.Index].Type > PathNVL || ps.p.pathAbove(peer.Paths[NET][net.Index].Type, pxnType) {
		return nil, nil
	}
	if ps.p.PXNP2PNeedsGDR {
		gdr, err := ps.checkGDR(s, peer, net)
		if err != nil || !gdr {
			return nil, err
		}
	}
	return peer, nil
}

// gpuOfDev is the GPU with the CUDA/NVML device number, nil when none.
func gpuOfDev(s *System, dev int) *Node {
	for _, g := range s.Nodes[GPU] {
		if g.Dev == dev {
			return g
		}
	}
	return nil
}

// RankOfDev is the global rank of the node's GPU with this dev, as gatesim
// numbers ranks (host by host, by dev).
func (n *NodeResult) RankOfDev(dev int) (int, bool) {
	for i, g := range n.System.Nodes[GPU] {
		if g.Dev == dev && i < len(n.Ranks) {
			return n.Ranks[i], true
		}
	}
	return 0, false
}

// DevOfRank is the GPU (dev) of a global rank, as gatesim numbers ranks.
func (r *Result) DevOfRank(rank int) (int, bool) {
	for i := range r.Nodes {
		n := &r.Nodes[i]
		for k, rk := range n.Ranks {
			if rk == rank && k < len(n.System.Nodes[GPU]) {
				return n.System.Nodes[GPU][k].Dev, true
			}
		}
	}
	return 0, false
}

// RingUseGdr is comm->useGdr as ncclTransportRingConnect leaves it and
// "Connected all rings, use ring PXN %d GDR %d" prints it: true until a
// ring connector through the network goes without GPU Direct RDMA, so
// true on one node (RingNetGDR is the multi-node answer).
func (r *Result) RingUseGdr() bool { return r.RingNetGDR || r.NNodes == 1 }
