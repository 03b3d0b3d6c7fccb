package topo

import "fmt"

// PathType is NCCL's path classification between two topology nodes, in
// the 2.24+ order (PATH_LOC … PATH_DIS of src/graph/topo.h). 2.22.3 lacks
// C2C and P2C and numbers the rest differently; Code22 gives that numbering.
type PathType int

const (
	PathLOC PathType = iota // same device
	PathNVL                 // NVLink
	PathNVB                 // NVLink through an intermediate GPU
	PathC2C                 // chip-to-chip (Grace)
	PathPIX                 // at most one PCIe bridge
	PathPXB                 // several PCIe bridges, no host bridge
	PathP2C                 // PCIe then C2C to the CPU
	PathPXN                 // through an NVLink peer GPU to its NIC
	PathPHB                 // through a PCIe host bridge (CPU)
	PathSYS                 // across the inter-CPU link
	PathNET                 // across the network
	PathDIS                 // disconnected
	NumPathTypes
)

var pathNames = [NumPathTypes]string{"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS"}

func (p PathType) String() string {
	if p >= 0 && p < NumPathTypes {
		return pathNames[p]
	}
	return fmt.Sprintf("PathType(%d)", int(p))
}

// ParsePathType accepts the names NCCL prints and NCCL_P2P_LEVEL takes.
func ParsePathType(s string) (PathType, error) {
	for i, n := range pathNames {
		if s == n {
			return PathType(i), nil
		}
	}
	return PathDIS, fmt.Errorf("unknown path type %q: expected one of LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS NET DIS", s)
}

// Code is the numeric value in 2.24+ releases.
func (p PathType) Code() int { return int(p) }

// Code22 is the numeric value in releases before C2C and P2C existed
// (2.22.3: LOC 0, NVL 1, NVB 2, PIX 3, PXB 4, PXN 5, PHB 6, SYS 7, NET 8, DIS 9);
// -1 for C2C and P2C.
func (p PathType) Code22() int {
	switch p {
	case PathLOC, PathNVL, PathNVB:
		return int(p)
	case PathC2C, PathP2C:
		return -1
	case PathPIX, PathPXB:
		return int(p) - 1
	default:
		return int(p) - 2
	}
}

// Pattern is a graph search pattern (src/include/graph.h NCCL_TOPO_PATTERN_*).
type Pattern int

const (
	PatternBalancedTree  Pattern = 1 // spread NIC traffic between two GPUs
	PatternSplitTree     Pattern = 2 // spread NIC traffic between two GPUs, the other way
	PatternTree          Pattern = 3 // all NIC traffic through one GPU
	PatternRing          Pattern = 4
	PatternNVLS          Pattern = 5
	PatternCollNetDirect Pattern = 6
)

func (p Pattern) String() string {
	switch p {
	case PatternBalancedTree:
		return "BALANCED_TREE"
	case PatternSplitTree:
		return "SPLIT_TREE"
	case PatternTree:
		return "TREE"
	case PatternRing:
		return "RING"
	case PatternNVLS:
		return "NVLS"
	case PatternCollNetDirect:
		return "COLLNET_DIRECT"
	}
	return fmt.Sprintf("Pattern(%d)", int(p))
}

// Graph is the result of one graph search (struct ncclTopoGraph): what the
// [GRAPH] line "Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s,
// sameChannels %d" prints, plus the per-channel orders.
type Graph struct {
	ID           int      `json:"id"` // NCCL's graph id: 0 ring, 1 tree, 2 collnet chain, 3 nvls, 4 collnet direct (2 in 2.22.3)
	Pattern      Pattern  `json:"pattern"`
	CrossNic     int      `json:"crossNic"`
	CollNet      bool     `json:"collNet"`
	MinChannels  int      `json:"minChannels"`
	MaxChannels  int      `json:"maxChannels"`
	NChannels    int      `json:"nChannels"`
	BwIntra      float32  `json:"bwIntra"`
	BwInter      float32  `json:"bwInter"`
	LatencyInter float32  `json:"latencyInter"`
	TypeIntra    PathType `json:"typeIntra"`
	TypeInter    PathType `json:"typeInter"`
	SameChannels bool     `json:"sameChannels"`
	NHops        int      `json:"nHops"`
	// Intra[c] is channel c's order of the node's GPU ranks (global ranks);
	// an NVLS channel lists only its head.
	Intra [][]int `json:"intra,omitempty"`
	// Inter[c] is channel c's NET ids (entry, exit) when the graph leaves the node.
	Inter [][]int64 `json:"inter,omitempty"`
	// Channels are the <channel> elements of a graph XML in file order, as
	// ParseGraphXML reads them (NET and GPU "dev" ids, GPU ids being
	// NCCL_TOPO_ID(host, cuda dev)). Search turns them into Intra/Inter
	// when the graph replaces a search (NCCL_GRAPH_FILE).
	Channels []GraphChannel `json:"channels,omitempty"`
	// Source is "file:line" of the <graph> element a graph XML gave.
	Source string `json:"-"`
}

// GraphChannel is one <channel> of a graph XML.
type GraphChannel struct {
	NETs []int64 `json:"nets,omitempty"`
	GPUs []int64 `json:"gpus"`
	// Ranks are the <gpu>s' rank attributes (2.30.3+ writes them: the
	// dev alone cannot tell ranks sharing a device apart), -1 where a
	// <gpu> has none.
	Ranks []int `json:"ranks,omitempty"`
}

// Empty reports a graph that found no channel (or was not searched).
func (g *Graph) Empty() bool { return g == nil || g.NChannels == 0 }
