package topo

// NodeType is a topology node kind, in NCCL's order (src/graph/topo.h).
type NodeType int

const (
	GPU NodeType = iota
	PCI
	NVS
	CPU
	NIC
	NET
	NumNodeTypes
)

var nodeTypeNames = [NumNodeTypes]string{"GPU", "PCI", "NVS", "CPU", "NIC", "NET"}

func (t NodeType) String() string {
	if t >= 0 && t < NumNodeTypes {
		return nodeTypeNames[t]
	}
	return "?"
}

// LinkType is a link kind (LINK_LOC … LINK_NET).
type LinkType int

const (
	LinkLOC LinkType = iota
	LinkNVL
	LinkC2C
	LinkPCI
	LinkSYS
	LinkNET
)

// Link is one directed edge with its bandwidth in GB/s.
type Link struct {
	Type   LinkType
	Bw     float32
	Remote *Node
}

// Node is one vertex of the model.
type Node struct {
	Type  NodeType
	ID    int64
	Links []*Link

	// GPU attributes.
	Dev, Rank, SM int
	GDR           bool
	// CPU attributes.
	Arch, Vendor, Model string
	// NET attributes.
	Asic, Port  int
	Bw, Latency float32
	MaxChannels int
	CollSupport bool
	NetDev      int
	// PCI attributes: device class and link.
	Class string
}

// System is the model of one host's devices and links (struct
// ncclTopoSystem): nodes by type, with MaxBw and TotalBw set by the search
// initialisation and Inter telling whether other hosts take part.
type System struct {
	Nodes   [NumNodeTypes][]*Node
	MaxBw   float32
	TotalBw float32
	Inter   bool
}

// NodeSpec describes one host in the terms a preset or a planner uses;
// Synthesize turns it into the same System that NCCL's topology XML of such
// a host gives.
type NodeSpec struct {
	CPUArch   string // x86_64, arm64, ppc64
	CPUVendor string // Intel, AMD
	CPUModel  string // skl, srp, erp, ... as NCCL's XML writes it
	Sockets   int
	GPUs      []GPUSpec
	// NVSwitch: every GPU's NVLinks go to one NVSwitch node (HGX/DGX);
	// otherwise NVLinks connect GPU pairs as listed in GPUSpec.Peers.
	NVSwitch bool
	NICs     []NICSpec
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
}

// NICSpec is one NIC port of a NodeSpec.
type NICSpec struct {
	Name      string
	SpeedMbps int
	NUMA      int
	Switch    int // PCIe switch id, shared with GPUs for PIX/PXB paths (-1: CPU)
	GDR       bool
	Coll      bool // the CollNet plugin reports this device
}
