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
