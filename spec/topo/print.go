package topo

import (
	"fmt"
	"strings"
)

// SystemLines is what ncclTopoPrint logs ([GRAPH], rank by rank, after
// the paths are computed): the "=== System : maxBw %2.1f totalBw %2.1f ==="
// header, the tree of every CPU with its links, and the paths from every GPU
// and NET (v2.28.9-1 src/graph/topo.cc ncclTopoPrintRec, src/graph/paths.cc
// printNodePaths). 2.22.3 names link targets by their raw id ("NVS/0").
// 2.19.x-2.20.x name every node by its raw id and print path bandwidths
// with "%f" (Params.SystemPrintRaw).
func (s *System) SystemLines() []string {
	out := []string{fmt.Sprintf("=== System : maxBw %2.1f totalBw %2.1f ===", float64(s.MaxBw), float64(s.TotalBw))}
	for _, c := range s.Nodes[CPU] {
		s.printRec(c, nil, "", &out)
	}
	out = append(out, "==========================================")
	for _, t := range []NodeType{GPU, NET} {
		for _, n := range s.Nodes[t] {
			out = append(out, s.pathLine(n))
		}
	}
	return out
}

func idName(n *Node) string {
	return fmt.Sprintf("%s/%x-%x", n.Type, n.SystemID(), n.LocalID())
}

func rawName(n *Node) string {
	return fmt.Sprintf("%s/%X", n.Type, n.ID)
}

// nodeName is how the system print names a node at this release.
func (s *System) nodeName(n *Node) string {
	if s.Params.SystemPrintRaw {
		return rawName(n)
	}
	return idName(n)
}

func (s *System) printRec(n, prev *Node, prefix string, out *[]string) {
	line := prefix + s.nodeName(n)
	switch n.Type {
	case GPU:
		// a GPU under a DEV node (2.30.3+) is printed as its DEV's LOC link
		// only, so never with ncclTopoPrintRec's " [MLOPart %d]"
		line += fmt.Sprintf(" (%d)", n.Rank)
	case CPU:
		line += fmt.Sprintf(" (%d/%d/%d)", int(n.Arch), int(n.Vendor), int(n.Model))
	case PCI, DEV:
		line += fmt.Sprintf(" (%x)", n.Device)
	}
	*out = append(*out, line)
	indent := strings.Repeat(" ", len(prefix))
	raw := !s.Params.NetPrintIDs
	target := func(r *Node) string {
		if raw {
			return rawName(r)
		}
		return idName(r)
	}
	for _, l := range n.Links {
		head := fmt.Sprintf("%s+ %s[%2.1f] - ", indent, l.Type, float64(l.Bw))
		switch {
		case l.Type == LinkLOC:
			*out = append(*out, head+target(l.Remote))
		case l.Type != LinkPCI || l.Remote != prev:
			if l.Type == LinkPCI {
				s.printRec(l.Remote, n, head, out)
				continue
			}
			r := l.Remote
			if r.Type == NET {
				coll := 0
				if r.CollSupport {
					coll = 1
				}
				if !s.Params.NetPrintColl {
					*out = append(*out, head+fmt.Sprintf("%s (%x/%d/%f)", target(r), r.Asic, r.Port, float64(r.Bw)))
				} else {
					*out = append(*out, head+fmt.Sprintf("%s (%d/%x/%d/%f)", target(r), coll, r.Asic, r.Port, float64(r.Bw)))
				}
			} else {
				*out = append(*out, head+target(r))
			}
		}
	}
}

// pathLine is printNodePaths without ENABLE_TRACE: every path from the node
// as "TYPE/sys-id (hops/bw/type) ".
func (s *System) pathLine(n *Node) string {
	var b strings.Builder
	if s.Params.NetPrintIDs {
		fmt.Fprintf(&b, "%s :", idName(n))
	} else {
		fmt.Fprintf(&b, "%s :", rawName(n))
	}
	for t := range s.Nodes {
		if n.Paths[t] == nil {
			continue
		}
		for i, m := range s.Nodes[t] {
			p := &n.Paths[t][i]
			if s.Params.SystemPrintRaw {
				fmt.Fprintf(&b, "%s (%d/%f/%s) ", rawName(m), p.Count(), float64(p.Bw), p.Type)
				continue
			}
			fmt.Fprintf(&b, "%s (%d/%.1f/%s) ", idName(m), p.Count(), float64(p.Bw), p.Type)
		}
	}
	return b.String()
}
