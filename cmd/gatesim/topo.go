package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/spf13/cobra"
)

// newTopoCmd is "gatesim topo": NCCL's topology stage on a preset or a
// topology XML (presets, dump, search).
func newTopoCmd(d *deps) *cobra.Command {
	c := &cobra.Command{
		Use:   "topo",
		Short: "NCCL's topology stage: presets, topology XML, graph search and channel counts",
	}
	c.AddCommand(newTopoPresetsCmd(d), newTopoDumpCmd(d), newTopoSearchCmd(d))
	return c
}

func newTopoPresetsCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "presets",
		Short: "List the host presets",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			for _, name := range topo.PresetNames() {
				spec := topo.Presets()[name]
				fmt.Fprintf(d.stdout, "%s\t%d GPUs sm%d, %d NICs, %d %s sockets\n", name, len(spec.GPUs), spec.GPUs[0].SM, len(spec.NICs), spec.Sockets, spec.CPUArch)
			}
			return nil
		},
	}
}

func newTopoDumpCmd(d *deps) *cobra.Command {
	var trays int
	c := &cobra.Command{
		Use:   "dump PRESET",
		Short: "Print a preset as NCCL topology XML (what NCCL_TOPO_FILE reads)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			spec, ok := topo.Presets()[args[0]]
			if !ok {
				return badInputf("unknown preset %q: expected one of %s", args[0], strings.Join(topo.PresetNames(), ", "))
			}
			var s *topo.System
			var err error
			if trays > 1 {
				s, err = topo.SynthesizeMNNVL(spec, trays)
			} else {
				s, err = topo.Synthesize(spec)
			}
			if err != nil {
				return badInput(err)
			}
			return s.WriteXML(d.stdout)
		},
	}
	c.Flags().IntVar(&trays, "mnnvl", 0, "fuse this many copies into one MNNVL clique")
	return c
}

type topoSearchFlags struct {
	preset    string
	xmlFiles  []string
	nodes     int
	release   string
	sets      []string
	graphFile string
	asJSON    bool
	system    bool
	graphXML  bool
}

func newTopoSearchCmd(d *deps) *cobra.Command {
	var f topoSearchFlags
	c := &cobra.Command{
		Use:   "search",
		Short: "Run NCCL's graph search and channel setup and print the [GRAPH] lines and the channel summary",
		Long: `Run NCCL's topology stage for a communicator of --nodes hosts, each a
--preset or a topology XML (--xml, repeatable: the files are the hosts in
order, repeated to --nodes). --set takes NCCL_* variables of the topology
stage (NCCL_P2P_LEVEL, NCCL_CROSS_NIC, NCCL_MAX_NCHANNELS, ...).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runTopoSearch(d, &f) },
	}
	c.Flags().StringVar(&f.preset, "preset", "", "host preset (see gatesim topo presets)")
	c.Flags().StringArrayVar(&f.xmlFiles, "xml", nil, "topology XML file (NCCL_TOPO_DUMP_FILE format), repeatable")
	c.Flags().IntVar(&f.nodes, "nodes", 1, "number of hosts")
	c.Flags().StringVar(&f.release, "release", "2.28.9", "NCCL release whose rules to apply")
	c.Flags().StringArrayVar(&f.sets, "set", nil, "NCCL_NAME=value, repeatable")
	c.Flags().StringVar(&f.graphFile, "graph-file", "", "graph XML to load instead of searching (NCCL_GRAPH_FILE)")
	c.Flags().BoolVar(&f.asJSON, "json", false, "print the result as JSON")
	c.Flags().BoolVar(&f.system, "system", false, "also print rank 0's system and paths (ncclTopoPrint)")
	c.Flags().BoolVar(&f.graphXML, "graph-xml", false, "print node 0's graphs as NCCL_GRAPH_DUMP_FILE writes them instead")
	return c
}

func runTopoSearch(d *deps, f *topoSearchFlags) error {
	v, err := spec.ParseVersion(f.release)
	if err != nil {
		return badInput(err)
	}
	rs, err := spec.Load(v)
	if err != nil {
		return badInput(err)
	}
	p := rs.TopoParams
	if f.nodes < 1 || f.nodes > spec.MaxNodes {
		return badInputf("--nodes %d: expected 1 to %d (gatesim's limit)", f.nodes, spec.MaxNodes)
	}
	var hosts []*topo.System
	switch {
	case f.preset != "" && len(f.xmlFiles) > 0:
		return badInputf("--preset and --xml: give one of them")
	case f.preset != "":
		ns, ok := topo.Presets()[f.preset]
		if !ok {
			return badInputf("unknown preset %q: expected one of %s", f.preset, strings.Join(topo.PresetNames(), ", "))
		}
		s, err := topo.Synthesize(ns)
		if err != nil {
			return badInput(err)
		}
		hosts = []*topo.System{s}
	case len(f.xmlFiles) > 0:
		for _, name := range f.xmlFiles {
			data, err := readInput(name)
			if err != nil {
				return badInput(err)
			}
			s, err := topo.LoadSystem(name, data)
			if err != nil {
				return badInput(err)
			}
			hosts = append(hosts, s)
		}
	default:
		return badInputf("no host: expected --preset NAME or --xml FILE")
	}
	for _, h := range hosts {
		if err := spec.CheckShape(f.nodes, max(1, len(h.Nodes[topo.GPU]))); err != nil {
			return badInputf("--nodes %d: %v", f.nodes, err)
		}
	}
	all := make([]*topo.System, f.nodes)
	for i := range all {
		all[i] = hosts[i%len(hosts)]
	}
	o, err := topoOptions(f.sets)
	if err != nil {
		return badInput(err)
	}
	if f.graphFile != "" {
		data, err := readInput(f.graphFile)
		if err != nil {
			return badInput(err)
		}
		if o.GraphFile, err = topo.ParseGraphXML(f.graphFile, data); err != nil {
			return badInput(err)
		}
	}
	r, err := topo.Search(all, p, o)
	if err != nil {
		return badInput(err)
	}
	switch {
	case f.asJSON:
		return writeOut(d, "topo-search", r)
	case f.graphXML:
		return r.WriteGraphXML(d.stdout, 0)
	}
	if f.system {
		for _, l := range r.Nodes[0].System.SystemLines() {
			fmt.Fprintln(d.stdout, l)
		}
	}
	for _, l := range r.Log {
		fmt.Fprintln(d.stdout, l)
	}
	return nil
}

// topoVars are the variables topoOptions reads, sorted.
var topoVars = []string{"NCCL_COLLNET_ENABLE", "NCCL_COLLNET_NODE_THRESHOLD", "NCCL_CROSS_NIC", "NCCL_MAX_CTAS",
	"NCCL_MAX_NCHANNELS", "NCCL_MAX_NRINGS", "NCCL_MAX_P2P_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MIN_NCHANNELS",
	"NCCL_MIN_NRINGS", "NCCL_MIN_P2P_NCHANNELS", "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_NETDEVS_POLICY",
	"NCCL_NET_DISABLE_INTRA", "NCCL_NET_GDR_C2C", "NCCL_NET_GDR_LEVEL", "NCCL_NVB_DISABLE", "NCCL_NVLS_ENABLE",
	"NCCL_NVLS_NCHANNELS", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL", "NCCL_P2P_USE_CUDA_MEMCPY", "NCCL_PXN_C2C",
	"NCCL_PXN_DISABLE", "NCCL_SHM_DISABLE"}

// topoOptions reads the NCCL_* variables of the topology stage. It is a
// stand-in for spec's environment layer: the names, defaults and parsing
// follow NCCL (src/graph/paths.cc ncclGetLevel for the levels).
func topoOptions(sets []string) (topo.Options, error) {
	env, err := spec.ParseAssignments(sets)
	if err != nil {
		return topo.DefaultOptions(), err
	}
	known := map[string]bool{}
	for _, k := range topoVars {
		known[k] = true
	}
	// NCCL reads a mistyped value as 0 or ignores it; a planner wants to
	// hear about it, so the values are checked here and converted by spec.
	for _, name := range env.Names() {
		v := env.Get(name)
		if !known[name] {
			return topo.DefaultOptions(), fmt.Errorf("%s is not read by the topology stage: expected one of %s", name, strings.Join(topoVars, " "))
		}
		switch name {
		case "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL":
			if _, err := parseLevel(name, v); err != nil {
				return topo.DefaultOptions(), err
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
	o := spec.TopoOptions(env)
	if v, ok := env.Lookup("NCCL_COLLNET_ENABLE"); ok {
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
		o.CollNetEnable = n == 1 // the gates decide this in explain; here the user states it
	}
	return o, nil
}

// parseLevel is ncclGetLevel: a path type name up to SYS, or an old-style
// number (0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and above SYS).
func parseLevel(name, v string) (topo.PathType, error) {
	if t, err := topo.ParsePathType(v); err == nil && t <= topo.PathSYS {
		return t, nil
	}
	if v != "" && v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.Atoi(v)
		if err == nil {
			old := []topo.PathType{topo.PathLOC, topo.PathPIX, topo.PathPXB, topo.PathPHB, topo.PathSYS, topo.PathSYS}
			return old[min(n, len(old)-1)], nil
		}
	}
	return 0, fmt.Errorf("%s=%q: expected LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS or a number 0-5", name, v)
}
