package topo

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// kvDictLinkType is the path-type dictionary of graph XML (v2.28.9-1
// src/graph/search.cc kvDictLinkType): no C2C, NET or DIS; P2C from 2.24.
var graphTypeNames = []struct {
	name string
	t    PathType
}{
	{"LOC", PathLOC}, {"NVL", PathNVL}, {"NVB", PathNVB}, {"PIX", PathPIX}, {"PXB", PathPXB},
	{"P2C", PathP2C}, {"PXN", PathPXN}, {"PHB", PathPHB}, {"SYS", PathSYS},
}

// graphTypeFromName matches by prefix as kvConvertToInt does.
func graphTypeFromName(s string) (PathType, bool) {
	for _, e := range graphTypeNames {
		if strings.HasPrefix(s, e.name) {
			return e.t, true
		}
	}
	return PathLOC, false
}

// ParseGraphXML reads NCCL's graph XML (what NCCL_GRAPH_DUMP_FILE writes and
// NCCL_GRAPH_FILE reads: <graphs version="1"><graph id= pattern= crossnic=
// nchannels= speedintra= speedinter= latencyinter= typeintra= typeinter=
// samechannels=><channel><net dev=/><gpu dev=/>…). Every attribute NCCL
// reads is required except latencyinter (v2.28.9-1 src/graph/search.cc
// ncclTopoGetGraphFromXmlSub). NChannels is the nchannels attribute, as
// NCCL uses it; Channels lists what the file holds.
func ParseGraphXML(name string, data []byte) ([]Graph, error) {
	d, err := parseXML(name, data, graphHandlers, "graphs", xmlGraphVerion)
	if err != nil {
		return nil, err
	}
	var out []Graph
	for _, x := range d.Root.Subs {
		g, err := graphFromXML(name, x)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func graphFromXML(file string, x *XMLNode) (Graph, error) {
	errf := func(n *XMLNode, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", file, n.Line, fmt.Sprintf(format, args...))
	}
	geti := func(key, expect string) (int, error) {
		v, ok := x.Attr(key)
		if !ok {
			return 0, errf(x, "<graph> without %s attribute: expected %s", key, expect)
		}
		i, err := parseCInt(v)
		if err != nil {
			return 0, errf(x, "<graph %s=%q>: %v: expected %s", key, v, err, expect)
		}
		return int(i), nil
	}
	getf := func(key string, required bool) (float32, error) {
		v, ok := x.Attr(key)
		if !ok {
			if required {
				return 0, errf(x, "<graph> without %s attribute: expected %s=\"12\" (GB/s per channel)", key, key)
			}
			return 0, nil
		}
		f, err := parseFloat32(v)
		if err != nil {
			return 0, errf(x, "<graph %s=%q>: %v", key, v, err)
		}
		return f, nil
	}
	gett := func(key string) (PathType, error) {
		v, ok := x.Attr(key)
		if !ok {
			return 0, errf(x, "<graph> without %s attribute: expected one of LOC NVL NVB PIX PXB P2C PXN PHB SYS", key)
		}
		t, ok := graphTypeFromName(v)
		if !ok {
			return 0, errf(x, "<graph %s=%q>: expected one of LOC NVL NVB PIX PXB P2C PXN PHB SYS", key, v)
		}
		return t, nil
	}
	var g Graph
	var err error
	if g.ID, err = geti("id", `id="0" (0 ring, 1 tree, 2 collnet chain, 3 nvls, 4 collnet direct)`); err != nil {
		return g, err
	}
	if g.CrossNic, err = geti("crossnic", `crossnic="0"`); err != nil {
		return g, err
	}
	pat, err := geti("pattern", `pattern="4" (1 balanced tree, 2 split tree, 3 tree, 4 ring, 5 nvls, 6 collnet direct)`)
	if err != nil {
		return g, err
	}
	g.Pattern = Pattern(pat)
	if g.NChannels, err = geti("nchannels", `nchannels="N"`); err != nil {
		return g, err
	}
	if g.NChannels < 0 {
		return g, errf(x, "<graph nchannels=\"%d\">: expected 0 or more channels", g.NChannels)
	}
	g.Source = fmt.Sprintf("%s:%d", file, x.Line)
	if g.BwIntra, err = getf("speedintra", true); err != nil {
		return g, err
	}
	if g.BwInter, err = getf("speedinter", true); err != nil {
		return g, err
	}
	if g.LatencyInter, err = getf("latencyinter", false); err != nil {
		return g, err
	}
	if g.TypeIntra, err = gett("typeintra"); err != nil {
		return g, err
	}
	if g.TypeInter, err = gett("typeinter"); err != nil {
		return g, err
	}
	same, err := geti("samechannels", `samechannels="0" or "1"`)
	if err != nil {
		return g, err
	}
	g.SameChannels = same != 0
	for _, c := range x.Subs {
		var ch GraphChannel
		for _, e := range c.Subs {
			v, ok := e.Attr("dev")
			if !ok {
				return g, errf(e, "<%s> without dev attribute: expected dev=\"0x0\"", e.Name)
			}
			id, err := parseHex64(v)
			if err != nil {
				return g, errf(e, "<%s dev=%q>: %v", e.Name, v, err)
			}
			if e.Name == "net" {
				ch.NETs = append(ch.NETs, int64(id))
				continue
			}
			ch.GPUs = append(ch.GPUs, int64(id))
			rank := -1
			if v, ok := e.Attr("rank"); ok {
				r, err := parseCInt(v)
				if err != nil || r < 0 || r > maxRanksAttr {
					return g, errf(e, "<gpu rank=%q>: expected a rank from 0 to %d", v, maxRanksAttr)
				}
				rank = int(r)
			}
			ch.Ranks = append(ch.Ranks, rank)
		}
		g.Channels = append(g.Channels, ch)
	}
	return g, nil
}

// loadGraph is ncclTopoGetGraphFromXml: every graph with this id (the last
// one wins) sets the search result; with NCCL_CROSS_NIC=0 a crossnic=1
// graph is skipped. It returns the number of channels in the file.
func (x *searcher) loadGraph(g *sgraph, graphs []Graph) (int, error) {
	n := 0
	for _, xg := range graphs {
		if xg.ID != g.id {
			continue
		}
		if x.ps.o.CrossNic == 0 && xg.CrossNic == 1 {
			continue
		}
		g.crossNic = xg.CrossNic
		g.pattern = xg.Pattern
		g.nChannels = xg.NChannels
		g.bwIntra, g.bwInter, g.latencyInter = xg.BwIntra, xg.BwInter, xg.LatencyInter
		g.typeIntra, g.typeInter = xg.TypeIntra, xg.TypeInter
		// A name the release lacks falls back to LOC (kvConvertToInt).
		if !x.ps.p.LinkTypeP2C && g.typeIntra == PathP2C {
			g.typeIntra = PathLOC
		}
		if !x.ps.p.LinkTypeP2C && g.typeInter == PathP2C {
			g.typeInter = PathLOC
		}
		g.sameChannels = 0
		if xg.SameChannels {
			g.sameChannels = 1
		}
		if xg.NChannels > x.ps.p.MaxChannels {
			return 0, fmt.Errorf("%s: <graph id=\"%d\" nchannels=\"%d\">: expected at most %d, NCCL's MAXCHANNELS in this release (src/include/device.h)", xg.Source, xg.ID, xg.NChannels, x.ps.p.MaxChannels)
		}
		if len(xg.Channels) > x.ps.p.MaxChannels {
			return 0, fmt.Errorf("NCCL_GRAPH_FILE graph %d: %d channels, at most %d fit", xg.ID, len(xg.Channels), x.ps.p.MaxChannels)
		}
		for c, ch := range xg.Channels {
			if len(ch.NETs) > 2 || len(ch.GPUs) > x.ngpus {
				return 0, fmt.Errorf("NCCL_GRAPH_FILE graph %d channel %d: %d NETs and %d GPUs: expected at most 2 and %d", xg.ID, c, len(ch.NETs), len(ch.GPUs), x.ngpus)
			}
			for i, id := range ch.NETs {
				g.inter[2*c+i] = id
			}
			for i, dev := range ch.GPUs {
				rank := -1
				// 2.30.3+: a <gpu>'s rank attribute names the rank
				if x.ps.p.GraphXMLRank && i < len(ch.Ranks) && ch.Ranks[i] != -1 {
					for _, gpu := range x.s.Nodes[GPU] {
						if gpu.Rank == ch.Ranks[i] {
							rank = gpu.Rank
						}
					}
					if rank == -1 {
						return 0, fmt.Errorf("NCCL_GRAPH_FILE graph %d channel %d: rank %d: expected the rank of one of this node's GPUs", xg.ID, c, ch.Ranks[i])
					}
					g.intra[x.ngpus*c+i] = rank
					continue
				}
				for _, gpu := range x.s.Nodes[GPU] {
					if topoID(int(gpu.SystemID()), int64(gpu.Dev)) == dev {
						rank = gpu.Rank
					}
				}
				if rank == -1 {
					return 0, fmt.Errorf("NCCL_GRAPH_FILE graph %d channel %d: GPU dev %#x not found: expected the dev of one of this node's GPUs", xg.ID, c, dev)
				}
				g.intra[x.ngpus*c+i] = rank
			}
		}
		n = len(xg.Channels)
	}
	return n, nil
}

// maxRanksAttr bounds a graph file's <gpu rank>: a communicator's ranks
// are an int.
const maxRanksAttr = 1<<31 - 1

// graphXMLNode is ncclTopoGetXmlFromGraph for one searched graph of a node.
func graphXMLNode(g *Graph, s *System, inter bool) (*XMLNode, error) {
	name := func(t PathType) (string, error) {
		for _, e := range graphTypeNames {
			if e.t == t {
				return e.name, nil
			}
		}
		return "", fmt.Errorf("graph %d: type %s has no graph XML name (NCCL fails the dump too)", g.ID, t)
	}
	fmtG := func(f float32) string { return strconv.FormatFloat(float64(f), 'g', 6, 64) }
	x := &XMLNode{Name: "graph"}
	x.SetAttr("id", strconv.Itoa(g.ID))
	x.SetAttr("pattern", strconv.Itoa(int(g.Pattern)))
	x.SetAttr("crossnic", strconv.Itoa(g.CrossNic))
	x.SetAttr("nchannels", strconv.Itoa(g.NChannels))
	x.SetAttr("speedintra", fmtG(g.BwIntra))
	x.SetAttr("speedinter", fmtG(g.BwInter))
	x.SetAttr("latencyinter", fmtG(g.LatencyInter))
	ti, err := name(g.TypeIntra)
	if err != nil {
		return nil, err
	}
	te, err := name(g.TypeInter)
	if err != nil {
		return nil, err
	}
	x.SetAttr("typeintra", ti)
	x.SetAttr("typeinter", te)
	same := "0"
	if g.SameChannels {
		same = "1"
	}
	x.SetAttr("samechannels", same)
	hexDev := func(v int64) string {
		if v == 0 {
			return "0" // "%#lx" prints zero without 0x
		}
		return fmt.Sprintf("%#x", v)
	}
	for c := 0; c < g.NChannels && c < len(g.Intra); c++ {
		ch := x.Add("channel")
		if inter {
			ch.Add("net", XMLAttr{"dev", hexDev(g.Inter[c][0])})
		}
		for _, r := range g.Intra[c] {
			dev := int64(-1)
			for _, gpu := range s.Nodes[GPU] {
				if gpu.Rank == r {
					dev = topoID(int(gpu.SystemID()), int64(gpu.Dev))
				}
			}
			if dev == -1 {
				return nil, fmt.Errorf("graph %d channel %d: rank %d not found", g.ID, c, r)
			}
			gx := ch.Add("gpu", XMLAttr{"dev", hexDev(dev)})
			if s.Params.GraphXMLRank {
				gx.SetAttr("rank", strconv.Itoa(r))
			}
			if g.ID == 3 {
				break // NVLS graphs only use the first GPU
			}
		}
		if inter {
			ch.Add("net", XMLAttr{"dev", hexDev(g.Inter[c][1])})
		}
	}
	return x, nil
}

// WriteGraphXML prints the node's graphs as NCCL_GRAPH_DUMP_FILE does
// (ring, tree, CollNetDirect, CollNetChain, NVLS, before the cross-rank
// consensus).
func (r *Result) WriteGraphXML(w io.Writer, node int) error {
	if node < 0 || node >= len(r.Nodes) {
		return fmt.Errorf("node %d: the communicator has %d nodes", node, len(r.Nodes))
	}
	n := r.Nodes[node]
	var graphs [NumGraphs]Graph
	for i, g := range n.model.graphs {
		graphs[i] = n.model.publish(g, 0) // the system's own (host-local) ranks
	}
	root := &XMLNode{Name: "graphs", Attrs: []XMLAttr{{"version", "1"}}}
	for _, id := range []GraphIndex{GraphRing, GraphTree, GraphCollNetDirect, GraphCollNetChain, GraphNVLS} {
		g := graphs[id]
		x, err := graphXMLNode(&g, n.System, n.System.Inter)
		if err != nil {
			return err
		}
		x.parent = root
		root.Subs = append(root.Subs, x)
	}
	return root.WriteXML(w)
}
