package sim

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// MachineForComm is the machine a communicator's schedules run on: the
// physical machine of the system (MachineFromSystem) seen through NCCL's
// nodes, with the switches reducing only where NCCL enabled the offload.
// NCCL's nodes need not be the hosts:
//
//   - an MNNVL clique (a GB200 NVL72 rack: 18 trays of 4 GPUs) is one NCCL
//     node of all its GPUs (src/init.cc, MNNVL fuses the clique's
//     topology): the machine's node is the whole NVLink domain, its GPUs
//     meeting through the rack's NVSwitches, its NICs those of every tray;
//   - with P2P and SHM both off between a host's GPUs (NCCL_P2P_DISABLE=1
//     or NCCL_P2P_LEVEL=LOC, and NCCL_SHM_DISABLE=1) NCCL splits the host
//     into several NCCL nodes that reach each other over NET (nNodes 2 on
//     2 GPUs): the machine's nodes are those pieces, each with its share
//     of the host's NICs (at least one), and NetLoopback says the network
//     between them is the host itself;
//   - with cross-clique MNNVL (2.30.3+, NCCL_MNNVL_CROSS_CLIQUE) the
//     cliques of one fabric cluster stay separate NCCL nodes, but
//     ncclTopoCheckP2p forces CUDA P2P between them, so their ranks meet
//     over the domain's NVLink, not the NICs: NVLDomainNodes says which
//     nodes share a domain.
//
// Ranks stay node-major in NCCL's numbering, as the schedules number them.
func MachineForComm(sys *spec.System, c *spec.Comm) (Machine, error) {
	m, err := MachineFromSystem(sys)
	if err != nil {
		return Machine{}, err
	}
	m.SHARP, m.NVLS = c.CollNetSupport, c.NVLSSupport
	if c.Topo != nil {
		// the ring's NET: its latency and the flush of its receives
		m.NetLat = float64(c.Topo.Graphs[topo.GraphRing].LatencyInter)
		m.NetFlush = c.Topo.RingNetFlush
		m.CollNetFlush = c.CollNetFlush().Conns.Flush
		m.GdrCopyFlush = (m.NetFlush || m.CollNetFlush) && c.GdrCopyFlush().On
	}
	hosts, perHost := m.Nodes, m.GPUsPerNode
	if c.NNodes == hosts || c.NNodes <= 0 {
		if err := crossClique(&m, c); err != nil {
			return Machine{}, err
		}
		return m, m.Validate()
	}
	local := c.MaxLocalRanks
	for _, n := range c.LocalRanks {
		if n != local {
			return Machine{}, fmt.Errorf("sim: NCCL's nodes have %v ranks: the machine model needs nodes of one size", c.LocalRanks)
		}
	}
	if c.NNodes*local != hosts*perHost {
		return Machine{}, fmt.Errorf("sim: NCCL has %d node(s) × %d ranks but the machine %d × %d GPUs", c.NNodes, local, hosts, perHost)
	}
	switch {
	case c.NNodes < hosts:
		// NCCL fused hosts into one node: only an NVLink domain spanning
		// them (MNNVL) does that
		if !c.MNNVL || !m.NVSwitch || local%perHost != 0 {
			return Machine{}, fmt.Errorf("sim: NCCL sees %d node(s) of %d ranks on %d hosts of %d GPUs without an MNNVL NVLink domain across them", c.NNodes, local, hosts, perHost)
		}
		k := local / perHost
		m.Name = fmt.Sprintf("%s as %d MNNVL node(s)", m.Name, c.NNodes)
		m.Nodes, m.GPUsPerNode, m.NICs = c.NNodes, local, m.NICs*k
		if err := crossClique(&m, c); err != nil {
			return Machine{}, err
		}
	default:
		// NCCL split hosts into nodes, which always reach each other over
		// NET (selectTransport tries P2P and SHM only within a node)
		if perHost%local != 0 {
			return Machine{}, fmt.Errorf("sim: NCCL sees %d node(s) of %d ranks on %d hosts of %d GPUs: its nodes do not divide a host", c.NNodes, local, hosts, perHost)
		}
		k := perHost / local
		if m.NICs == 0 && c.Topo != nil && len(c.Topo.Nodes) > 0 && c.Topo.Nodes[0].System != nil {
			// Socket: the IP interfaces NCCL put in its topology as NET
			// devices, at the speed it read (10 Gbps when unreadable)
			for _, n := range c.Topo.Nodes[0].System.NETs() {
				m.NICs++
				m.NICBw = max(m.NICBw, GBps(float64(n.Bw)))
			}
		}
		m.Name = fmt.Sprintf("%s as %d NET node(s)", m.Name, c.NNodes)
		m.Nodes, m.GPUsPerNode, m.NICs = c.NNodes, local, max(1, m.NICs/k)
		if m.NICBw <= 0 {
			return Machine{}, fmt.Errorf("sim: NCCL reaches the GPUs of one host over NET/%s but the host has no NIC with a speed", c.Net)
		}
		m.NetLoopback = true
	}
	return m, m.Validate()
}

// crossClique sets the NVLink domain of a cross-clique MNNVL communicator
// (comm->p2pCrossClique): a rank of another clique of the same fabric
// cluster is an MNNVL peer (ncclTopoCheckMNNVL returns -1), for which
// ncclTopoCheckP2p turns P2P on without reading the topology (no NET
// check, no intermediate GPU, P2P write), so p2pCanConnect connects it
// over CUDA P2P on the fabric: the GPUs' NVLinks through the rack's
// NVSwitches. The domain is rank 0's cluster (nvlDomainSize ranks); the
// machine's nodes are alike, so every domain holds as many.
//
// Ref: v2.30.3-1 (to v2.30.7-1) src/graph/paths.cc ncclTopoCheckP2p,
// ncclTopoCheckMNNVL; src/transport/p2p.cc p2pCanConnect; src/init.cc
// initTransportsRank (p2pCrossClique).
func crossClique(m *Machine, c *spec.Comm) error {
	if !c.CrossClique {
		return nil
	}
	if !m.NVSwitch || c.NVLDomainSize <= 0 || c.NVLDomainSize%m.GPUsPerNode != 0 {
		return fmt.Errorf("sim: cross-clique P2P over an NVL domain of %d ranks on nodes of %d GPUs: expected a domain of whole nodes with an NVSwitch", c.NVLDomainSize, m.GPUsPerNode)
	}
	m.NVLDomainNodes = c.NVLDomainSize / m.GPUsPerNode
	m.Name = fmt.Sprintf("%s, cross-clique P2P in NVL domains of %d node(s)", m.Name, m.NVLDomainNodes)
	return nil
}
