package main

import (
	"fmt"
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
--system preset or a topology XML (--xml, repeatable: the files are the hosts in
order, repeated to --nodes). --env takes NCCL_* variables of the topology
stage (NCCL_P2P_LEVEL, NCCL_CROSS_NIC, NCCL_MAX_NCHANNELS, ...).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runTopoSearch(d, &f) },
	}
	c.Flags().StringVar(&f.preset, "system", "", "host preset (see gatesim topo presets)")
	c.Flags().StringArrayVar(&f.xmlFiles, "xml", nil, "topology XML file (NCCL_TOPO_DUMP_FILE format), repeatable")
	c.Flags().IntVar(&f.nodes, "nodes", 1, "node count (hosts)")
	c.Flags().StringVar(&f.release, "nccl", "2.28.9", "NCCL release whose rules to apply")
	c.Flags().StringArrayVar(&f.sets, "env", nil, "NCCL_NAME=value, repeatable")
	c.Flags().StringVar(&f.graphFile, "graph-file", "", "graph XML to load instead of searching (NCCL_GRAPH_FILE)")
	c.Flags().BoolVar(&f.asJSON, "json", false, "print the result as JSON")
	c.Flags().BoolVar(&f.system, "print-system", false, "also print rank 0's system and paths (ncclTopoPrint)")
	aliases(c, map[string]string{"preset": "system", "release": "nccl", "set": "env"})
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
	all, err := spec.TopoHosts(f.preset, f.xmlFiles, f.nodes, readInput)
	if err != nil {
		return badInput(err)
	}
	env, err := spec.ParseAssignments(f.sets)
	if err != nil {
		return badInput(err)
	}
	o, err := spec.CheckedTopoOptions(env)
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
