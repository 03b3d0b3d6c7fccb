package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// topoStageVars are the variables CheckedTopoOptions reads, sorted.
var topoStageVars = []string{"NCCL_COLLNET_ENABLE", "NCCL_COLLNET_NODE_THRESHOLD", "NCCL_CROSS_NIC", "NCCL_IB_MERGE_NICS", "NCCL_MAX_CTAS",
	"NCCL_MAX_NCHANNELS", "NCCL_MAX_NRINGS", "NCCL_MAX_P2P_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MIN_NCHANNELS",
	"NCCL_MIN_NRINGS", "NCCL_MIN_P2P_NCHANNELS", "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_NETDEVS_POLICY",
	"NCCL_NET_DISABLE_INTRA", "NCCL_NET_FORCE_MERGE", "NCCL_NET_GDR_C2C", "NCCL_NET_GDR_LEVEL", "NCCL_NET_MERGE_LEVEL",
	"NCCL_NET_MERGE_POLICY", "NCCL_NVB_DISABLE", "NCCL_NVLS_ENABLE",
	"NCCL_NVLS_NCHANNELS", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_P2P_MAX_PEERS", "NCCL_P2P_USE_CUDA_MEMCPY", "NCCL_PXN_C2C",
	"NCCL_PXN_DISABLE", "NCCL_SHM_DISABLE"}

// CheckedTopoOptions is TopoOptions for a planner running the topology
// stage alone (gatesim topo search): NCCL reads a mistyped value as 0 or
// ignores it, so every value is checked first (levels as ncclGetLevel,
// src/graph/paths.cc, reads them), a variable the stage does not read is
// an error, and NCCL_COLLNET_ENABLE is taken as stated (the gates decide
// it in a communicator).
func CheckedTopoOptions(env Env) (topo.Options, error) {
	known := map[string]bool{}
	for _, k := range topoStageVars {
		known[k] = true
	}
	// NCCL reads a mistyped value as 0 or ignores it; a planner wants to
	// hear about it, so the values are checked here and converted by
	for _, name := range env.Names() {
		v := env.Get(name)
		if !known[name] {
			return topo.DefaultOptions(), fmt.Errorf("%s is not read by the topology stage: expected one of %s", name, strings.Join(topoStageVars, " "))
		}
		switch name {
		case "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL":
			if _, ok := pathLevel(v); !ok || (v[0] >= '0' && v[0] <= '9' && !isInt(v)) {
				return topo.DefaultOptions(), fmt.Errorf("%s=%q: expected LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS or a number 0-5", name, v)
			}
		case "NCCL_NET_MERGE_LEVEL":
			if !slices.Contains([]string{"LOC", "PORT", "PIX", "PXB", "PXN", "P2C", "PHB", "SYS"}, v) {
				return topo.DefaultOptions(), fmt.Errorf("%s=%q: expected LOC, PORT, PIX, PXB, PXN, P2C, PHB or SYS", name, v)
			}
		case "NCCL_NET_FORCE_MERGE":
			for _, g := range strings.Split(v, ";") {
				if g != "" && len(topo.ParseIfList(g, false)) == 0 {
					return topo.DefaultOptions(), fmt.Errorf("%s=%q: group %q names no device: expected name[:port] items separated by ',', groups by ';'", name, v, g)
				}
			}
		case "NCCL_NET_MERGE_POLICY":
			if !strings.EqualFold(v, "ALL") && !strings.EqualFold(v, "RAIL") {
				return topo.DefaultOptions(), fmt.Errorf("%s=%q: expected ALL or RAIL", name, v)
			}
		case "NCCL_NETDEVS_POLICY":
			u := strings.ToUpper(v)
			n, err := strconv.Atoi(strings.TrimPrefix(u, "MAX:"))
			if u != "AUTO" && u != "ALL" && (!strings.HasPrefix(u, "MAX:") || err != nil || n <= 0) {
				return topo.DefaultOptions(), fmt.Errorf("%s=%q: expected AUTO, ALL or MAX:n with n > 0", name, v)
			}
		default:
			if _, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64); err != nil {
				return topo.DefaultOptions(), fmt.Errorf("%s=%q: expected an integer", name, v)
			}
		}
	}
	o := TopoOptions(env)
	if v, ok := env.Lookup("NCCL_COLLNET_ENABLE"); ok {
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		o.CollNetEnable = n == 1 // the gates decide this in explain; here the user states it
	}
	return o, nil
}

func isInt(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// TopoHosts are the hosts of a communicator of nodes hosts for the
// topology stage alone (gatesim topo search): a host preset (its layout,
// one host each: the trays of gb200-nvl72 stay hosts of 4 GPUs), or topology
// XML files (read with read) taken in order and repeated to nodes.
func TopoHosts(preset string, xmlFiles []string, nodes int, read func(string) ([]byte, error)) ([]*topo.System, error) {
	if err := checkNodes(nodes); err != nil {
		return nil, err
	}
	var hosts []*topo.System
	switch {
	case preset != "" && len(xmlFiles) > 0:
		return nil, fmt.Errorf("--system and --topo: give one of them")
	case preset != "":
		ns, err := PresetLayout(preset)
		if err != nil {
			return nil, err
		}
		s, err := topo.Synthesize(ns)
		if err != nil {
			return nil, err
		}
		hosts = []*topo.System{s}
	case len(xmlFiles) > 0:
		for _, name := range xmlFiles {
			data, err := read(name)
			if err != nil {
				return nil, err
			}
			s, err := topo.LoadSystem(name, data)
			if err != nil {
				return nil, err
			}
			hosts = append(hosts, s)
		}
	default:
		return nil, fmt.Errorf("no host: expected --system NAME or --topo FILE")
	}
	for _, h := range hosts {
		if err := CheckShape(nodes, max(1, len(h.Nodes[topo.GPU]))); err != nil {
			return nil, fmt.Errorf("--nodes %d: %v", nodes, err)
		}
	}
	all := make([]*topo.System, nodes)
	for i := range all {
		all[i] = hosts[i%len(hosts)]
	}
	return all, nil
}

// TopoSearch is the topology stage alone for a planner (gatesim topo
// search): Release's rules, Nodes hosts from Preset or XMLFiles
// (TopoHosts), the variables of Env checked (CheckedTopoOptions), and the
// graphs of GraphFile loaded instead of searched when it is named. Files
// are read with read.
type TopoSearch struct {
	Release   string // one release (a comma list is refused)
	Preset    string
	XMLFiles  []string
	Nodes     int
	Env       []string
	GraphFile string
}

// Run runs the search; every error is the request's.
func (q TopoSearch) Run(read func(string) ([]byte, error)) (*topo.Result, error) {
	v, err := OneRelease(q.Release)
	if err != nil {
		return nil, err
	}
	p, err := TopoParamsFor(v)
	if err != nil {
		return nil, err
	}
	hosts, err := TopoHosts(q.Preset, q.XMLFiles, q.Nodes, read)
	if err != nil {
		return nil, err
	}
	env, err := ParseAssignments(q.Env)
	if err != nil {
		return nil, err
	}
	o, err := CheckedTopoOptions(env)
	if err != nil {
		return nil, err
	}
	rs, err := Load(v)
	if err != nil {
		return nil, err
	}
	releaseTopoOptions(rs, env, &o) // as Init's search reads them
	// The stage alone has no network: NETs that are all IB ports (port 1
	// and up; Socket reports 0) are taken as the internal IB's, which
	// fuses them (G-TOPO-VNIC-1).
	o.NetVNics = true
	for _, h := range hosts {
		for _, n := range h.NETs() {
			o.NetVNics = o.NetVNics && n.Port != 0
		}
	}
	o.NetIB = o.NetVNics
	if q.GraphFile != "" {
		data, err := read(q.GraphFile)
		if err != nil {
			return nil, err
		}
		if o.GraphFile, err = topo.ParseGraphXML(q.GraphFile, data); err != nil {
			return nil, err
		}
	}
	return topo.Search(hosts, p, o)
}
