package topo

import "fmt"

// NodeType is a topology node kind, in NCCL's order
// (v2.28.9-1 src/graph/topo.h GPU … NET), then DEV, the CUDA device that
// holds one rank's GPU node or several (v2.30.3-1 src/graph/topo.h DEV),
// and CXB, the C2C bridge that the partitions of an MLOPart GPU share
// (v2.30.7-1 src/graph/topo.h CXB; NCCL numbers both after GIN and RMA,
// which gatesim has no node for). Before 2.30.3 there is no DEV: the GPU
// node is the device.
type NodeType int

const (
	GPU NodeType = iota
	PCI
	NVS
	CPU
	NIC
	NET
	DEV
	CXB
	NumNodeTypes
)

var nodeTypeNames = [NumNodeTypes]string{"GPU", "PCI", "NVS", "CPU", "NIC", "NET", "DEV", "CXB"}

// String is NCCL's topoNodeTypeStr.
func (t NodeType) String() string {
	if t >= 0 && t < NumNodeTypes {
		return nodeTypeNames[t]
	}
	return "?"
}

// LinkType is a link kind. The values are those of 2.24+ (LINK_LOC 0, LINK_NVL
// 1, LINK_C2C 3, LINK_PCI 4, LINK_SYS 9, LINK_NET 10 in v2.28.9-1
// src/graph/topo.h), chosen there so that a link type converts directly to the
// path type of a one-hop path; PathType(l) does that here too. 2.22.3 numbers
// them differently (PCI 3, SYS 7, NET 8) and has no C2C link (a <c2c> element
// becomes an NVLink); that release keeps the same order, so comparisons agree.
type LinkType int

const (
	LinkLOC LinkType = 0
	LinkNVL LinkType = 1
	LinkC2C LinkType = 3
	LinkPCI LinkType = 4
	LinkSYS LinkType = 9
	LinkNET LinkType = 10
)

// String is NCCL's topoLinkTypeStr.
func (l LinkType) String() string {
	switch l {
	case LinkLOC:
		return "LOC"
	case LinkNVL:
		return "NVL"
	case LinkC2C:
		return "C2C"
	case LinkPCI:
		return "PCI"
	case LinkSYS:
		return "SYS"
	case LinkNET:
		return "NET"
	}
	return fmt.Sprintf("LinkType(%d)", int(l))
}

// Link is one directed edge with its bandwidth in GB/s (struct ncclTopoLink).
// The graph search consumes Bw as it places channels and gives it back when
// it backtracks.
type Link struct {
	Type   LinkType
	Bw     float32
	Remote *Node
}

// Path is the precomputed route from a node to one node of a given type
// (struct ncclTopoLinkList): Links[0] leaves the owning node, the last link
// arrives at the destination; Bw is the smallest link bandwidth on the way and
// Type the worst hop class.
type Path struct {
	Links []*Link
	Bw    float32
	Type  PathType
}

// Count is the number of hops (ncclTopoLinkList.count).
func (p *Path) Count() int { return len(p.Links) }

// CPUArch is NCCL_TOPO_CPU_ARCH_* (v2.28.9-1 src/include/graph.h).
type CPUArch int

const (
	ArchUndef CPUArch = -1
	ArchNone  CPUArch = 0 // an arch string NCCL's dictionary does not know
	ArchX86   CPUArch = 1
	ArchPower CPUArch = 2
	ArchARM   CPUArch = 3
	ArchMixed CPUArch = 4
)

func (a CPUArch) String() string {
	switch a {
	case ArchX86:
		return "x86_64"
	case ArchPower:
		return "ppc64"
	case ArchARM:
		return "arm64"
	case ArchMixed:
		return "mixed"
	case ArchNone:
		return "unknown"
	}
	return "undef"
}

// CPUVendor is NCCL_TOPO_CPU_VENDOR_*.
type CPUVendor int

const (
	VendorUndef   CPUVendor = -1
	VendorNone    CPUVendor = 0
	VendorIntel   CPUVendor = 1
	VendorAMD     CPUVendor = 2
	VendorZhaoxin CPUVendor = 3
	VendorMixed   CPUVendor = 4
)

func (v CPUVendor) String() string {
	switch v {
	case VendorIntel:
		return "Intel"
	case VendorAMD:
		return "AMD"
	case VendorZhaoxin:
		return "Zhaoxin"
	case VendorMixed:
		return "mixed"
	case VendorNone:
		return "unknown"
	}
	return "undef"
}

// CPUModel is NCCL_TOPO_CPU_MODEL_* (Intel BDW 1, SKL 2, SRP 3, ERP 4;
// Zhaoxin Yongfeng 1). 2.22.3 knows only BDW and SKL.
type CPUModel int

const (
	ModelUndef    CPUModel = -1
	ModelIntelBDW CPUModel = 1
	ModelIntelSKL CPUModel = 2
	ModelIntelSRP CPUModel = 3
	ModelIntelERP CPUModel = 4
	ModelYongfeng CPUModel = 1
)

// Node is one vertex of the model (struct ncclTopoNode).
type Node struct {
	Type  NodeType
	ID    int64 // NCCL_TOPO_ID(systemId, local id): bus id for GPU/PCI/NIC, numa id for CPU, dev for NET
	Index int   // position among the nodes of its type
	Links []*Link
	// Paths[t][i] is the route from this node to node i of type t, when
	// paths to type t were computed (CPU, GPU, NET and NVS destinations).
	Paths [NumNodeTypes][]Path

	// GPU attributes (gpu.dev, rank, cudaCompCap, gdrSupport).
	Dev, Rank, SM int
	GDR           bool
	// MLOPart is gpu.mloPart: the partition index of an MLOPart GPU, -1
	// (NCCL_TOPO_UNDEF) for a whole GPU.
	MLOPart int
	// Parent is gpu.parent from 2.30.3 (G-TOPO-DEV-1): the DEV node
	// holding the device's PCI, NVLink and C2C links, joined to each of its
	// GPUs (one per rank on the device) by LOC links at LOC_BW; nil before
	// 2.30.3, where the GPU node is the device. A DEV node has the
	// device's Dev, SM and GDR.
	Parent *Node

	// CPU attributes.
	Arch   CPUArch
	Vendor CPUVendor
	Model  CPUModel

	// NET attributes (net.*): NetDev is the plugin device number.
	NetDev      int
	Asic        uint64
	Port        int
	Bw, Latency float32
	MaxChannels int
	CollSupport bool
	PciID       uint64 // hash of the parent PCI bus id (2.28.9 MNNVL rails)
	LocalGPU    int    // index of the GPU local to this NET (net.localGpu), -1 none

	// PCI attributes: vendor<<48 | device<<32 | subsystem vendor<<16 | subsystem device.
	Device uint64

	// used marks the channels that already went through this GPU during a search.
	used uint64
}

// SystemID is the host index encoded in the top byte of the id.
func (n *Node) SystemID() int64 { return n.ID >> 56 }

// LocalID is the id without the host index.
func (n *Node) LocalID() int64 { return n.ID & topoLocalIDMask }

// DevNode is the node that holds the GPU's device links: its DEV node
// from 2.30.3, else the GPU node itself.
func (n *Node) DevNode() *Node {
	if n.Parent != nil {
		return n.Parent
	}
	return n
}

// isDevice: the node is a GPU device, a DEV node (2.30.3+) or a GPU node
// without one (before).
func (n *Node) isDevice() bool {
	return n.Type == DEV || n.Type == GPU && n.Parent == nil
}

// rankNode is a device's GPU node: a DEV's first rank (ncclTopoDevToRank
// finds the first GPU with the dev), else the node itself.
func (n *Node) rankNode() *Node {
	if n.Type == DEV {
		for _, l := range n.Links {
			if l.Type == LinkLOC && l.Remote.Parent == n {
				return l.Remote
			}
		}
	}
	return n
}

// deviceCount is the number of GPU devices (nodes[DEV].count from
// 2.30.3, the GPUs before).
func (s *System) deviceCount() int {
	n := len(s.Nodes[DEV])
	for _, g := range s.Nodes[GPU] {
		if g.Parent == nil {
			n++
		}
	}
	return n
}

// DeviceID is the local id of the PCI device: an MLOPart partition's
// LocalID without its partition bits.
func (n *Node) DeviceID() int64 {
	if n.MLOPart != -1 {
		return mloPartBase(n.LocalID())
	}
	return n.LocalID()
}

// Name is how NCCL 2.24+ logs a node: GPU/0-18000.
func (n *Node) Name() string {
	return fmt.Sprintf("%s/%x-%x", n.Type, n.SystemID(), n.LocalID())
}

const topoLocalIDMask = 0x00ffffffffffffff

// topoID is NCCL_TOPO_ID(systemid, localid).
func topoID(systemID int, localID int64) int64 {
	return int64(systemID)<<56 + (localID & topoLocalIDMask)
}

// System is the model of one host (or one MNNVL clique) as NCCL builds it
// (struct ncclTopoSystem): nodes by type with their links, and, once
// computed, the paths between them. MaxBw and TotalBw are set by the search
// initialisation; Inter tells whether other hosts take part.
//
// A System remembers the <system> element it was built from (Source), so
// WriteXML prints what NCCL_TOPO_FILE would read back and Search can rebuild
// the model with the rules of another release.
type System struct {
	Name   string
	Source *XMLNode
	Params Params // the release rules the nodes were built with

	Nodes      [NumNodeTypes][]*Node
	HostHashes []uint64
	SystemID   int // index of the local host in HostHashes
	MaxBw      float32
	TotalBw    float32
	Inter      bool

	// fingerprint is Source's text when the system was built: Search
	// recognises identical hosts by it. Source is read-only after building.
	fingerprint string
}

// Fingerprint is the host's identity for caches: the text of the <system>
// element it was built from (read-only after building).
func (s *System) Fingerprint() string {
	if s.fingerprint != "" || s.Source == nil {
		return s.fingerprint
	}
	return s.Source.String()
}

// GPUs is the GPU node list.
func (s *System) GPUs() []*Node { return s.Nodes[GPU] }

// NETs is the NET node list.
func (s *System) NETs() []*Node { return s.Nodes[NET] }

// CompCap is the smallest and largest SM of the system's GPUs
// (ncclTopoGetCompCap).
func (s *System) CompCap() (lo, hi int) {
	g := s.Nodes[GPU]
	if len(g) == 0 {
		return 0, 0
	}
	lo, hi = g[0].SM, g[0].SM
	for _, n := range g[1:] {
		lo = min(lo, n.SM)
		hi = max(hi, n.SM)
	}
	return lo, hi
}

// CPUType is the first CPU's arch, vendor and model (ncclTopoCpuType).
func (s *System) CPUType() (CPUArch, CPUVendor, CPUModel) {
	if len(s.Nodes[CPU]) == 0 {
		return ArchUndef, VendorUndef, ModelUndef
	}
	c := s.Nodes[CPU][0]
	return c.Arch, c.Vendor, c.Model
}

// NodeSpec describes one host in the terms a preset or a planner uses;
// Synthesize turns it into the topology XML NCCL would dump for such a host
// and builds the System from it.
type NodeSpec struct {
	Name      string
	CPUArch   string // x86_64, arm64, ppc64
	CPUVendor string // Intel, AMD, Zhaoxin (ignored unless x86_64)
	CPUModel  string // Intel: bdw, skl, srp, erp (written as familyid/modelid)
	Sockets   int
	// NUMAUnknown writes numaid="-1", as NCCL dumps a host without NUMA
	// information (one socket only).
	NUMAUnknown bool
	GPUs        []GPUSpec
	// NVSwitch: every GPU's NVLinks go to one NVSwitch node (HGX/DGX);
	// otherwise NVLinks connect GPU pairs as listed in GPUSpec.Peers.
	NVSwitch bool
	NICs     []NICSpec
	// NICFunctions writes each function of a multi-port NIC (NICSpec.BusID)
	// as a PCI device of its own, as 2.24.3–2.26.6 discover it
	// (Params.NetPCIFunction).
	NICFunctions bool
	// Switches lists the PCIe switches GPUs and NICs hang off, by index
	// (GPUSpec.Switch, NICSpec.Switch). Missing entries default to a Gen of
	// the first GPU behind it and width 16 on socket 0.
	Switches []SwitchSpec
}

// GPUSpec is one GPU of a NodeSpec.
type GPUSpec struct {
	Dev      int
	SM       int
	NVLinks  int         // link count to the NVSwitch when NVSwitch is set
	Peers    map[int]int // without NVSwitch: peer dev → link count
	PCIGen   int         // 3, 4, 5, 6
	PCIWidth int         // 16
	NUMA     int         // socket
	Switch   int         // PCIe switch id the GPU hangs off (-1: directly on the CPU)
	// C2C is the number of chip-to-chip links to the CPU (Grace) and C2CBw
	// their bandwidth in MB/s as NVML reports it (the <c2c bw=""> attribute).
	C2C   int
	C2CBw int
	// NoGDR clears the gdr attribute (GPU Direct RDMA not supported).
	NoGDR bool
	// MLOParts is 2 for an MLOPart GPU: two partitions, each its own CUDA
	// device and rank (a <gpu mlopart="0"> and a <gpu mlopart="1"> on the
	// one PCI device, the NVML dev and links shared); 0 for a whole GPU.
	MLOParts int
	// Ranks is the number of ranks sharing the device (several ranks on
	// one GPU, NCCL_MULTI_RANK_GPU_ENABLE=1): that many <gpu> elements on
	// its <pci>, ranks in order; 0 or 1 for one rank. Not with MLOParts.
	Ranks int
	// BusID is the GPU's PCI address ("0000:00:06.0"); "" picks one. It
	// shows in NCCL's log as the GPU's id (GPU/0-60) and orders nothing.
	BusID string
}

// NICSpec is one NIC port of a NodeSpec.
type NICSpec struct {
	Name      string
	SpeedMbps int
	NUMA      int
	Switch    int // PCIe switch id, shared with GPUs for PIX/PXB paths (-1: CPU)
	GDR       bool
	Coll      bool // the CollNet plugin reports this device
	PCIGen    int  // default 5
	PCIWidth  int  // default 16
	Port      int  // default 1
	// GUID groups ports of one physical NIC (same asic); 0 = one per NIC.
	GUID uint64
	// NoPCI writes the NIC as a <nic> of its <cpu>, as NCCL dumps NICs whose
	// PCI path it cannot resolve (virtio and other socket-only interfaces):
	// it then hangs off the CPU with a LOC_BW link.
	NoPCI bool
	// Socket writes the properties NCCL's Socket transport reports for its
	// interfaces (guid = device index, port 0, maxconn 65536) instead of an
	// InfiniBand HCA's; GUID and Port are then ignored.
	Socket bool
	// BusID is the PCI address of the port's function ("0000:16:00.1");
	// "" gives the port a PCI device of its own. Ports whose addresses
	// differ only in the function are one multi-port NIC (a dual-port
	// ConnectX): one <pci> at function 0 whose <nic> lists them, the
	// device's first GUID, ports numbered 1, 2, … (the IB network zeroes
	// the function of its PCI path and counts the ports before:
	// src/transport/net_ib.cc ncclIbGetPciPath), or one <pci> per function
	// with NodeSpec.NICFunctions. Switch, NUMA, PCIGen and PCIWidth are
	// the device's first port's.
	BusID string
	// Rail and Plane are the network's rail and plane ids for the port,
	// written as the NET's "rail" and "plane" attributes when they are
	// not NCCL_NET_ID_UNDEF (-1); the zero value writes none (what
	// ncclTopoPopulateNics does without ids, and before 2.30.7).
	Rail, Plane int
	// RailPlane says Rail and Plane were given (0 is a rail).
	RailPlane bool
}

// SwitchSpec is one PCIe switch of a NodeSpec.
type SwitchSpec struct {
	NUMA     int
	PCIGen   int
	PCIWidth int
	// Parent is the index of the switch above this one, -1 when it hangs off
	// the CPU (two levels give PXB paths between their children).
	Parent int
	// Device is vendor<<48 | device<<32 | subsystem vendor<<16 | subsystem
	// device as the XML's pci attributes carry it; Broadcom Gen4/Gen5 ids
	// make NCCL flatten a two-level switch. 0: a Gen5 switch NCCL keeps.
	Device uint64
}
