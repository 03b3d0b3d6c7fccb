package main

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/explain"
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
	var asJSON bool
	c := &cobra.Command{
		Use:   "presets",
		Short: "List the host presets",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if asJSON {
				return writeOut(d, "topo-presets", explain.NewHostPresets())
			}
			explain.NewHostPresets().WriteText(d.stdout)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}

func newTopoDumpCmd(d *deps) *cobra.Command {
	var trays int
	c := &cobra.Command{
		Use:   "dump PRESET",
		Short: "Print a preset as NCCL topology XML (what NCCL_TOPO_FILE reads)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ns, err := spec.PresetLayout(args[0])
			if err != nil {
				return badInput(err)
			}
			var s *topo.System
			if trays > 1 {
				s, err = topo.SynthesizeMNNVL(ns, trays)
			} else {
				s, err = topo.Synthesize(ns)
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
	release   []string
	env       envFlags
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
--system preset or a topology XML (--topo, repeatable: the files are the hosts in
order, repeated to --nodes). --env takes NCCL_* variables of the topology
stage (NCCL_P2P_LEVEL, NCCL_CROSS_NIC, NCCL_MAX_NCHANNELS, ...).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runTopoSearch(d, &f) },
	}
	c.Flags().StringVar(&f.preset, "system", "", presetUsage)
	c.Flags().StringArrayVar(&f.xmlFiles, "topo", nil, "NCCL's topology XML of a host (NCCL_TOPO_DUMP_FILE's output); repeatable: the hosts in order, repeated to --nodes")
	c.Flags().IntVar(&f.nodes, "nodes", 1, "node count (hosts)")
	c.Flags().StringSliceVar(&f.release, "nccl", []string{spec.DefaultRelease.String()}, "NCCL release")
	f.env.add(c)
	c.Flags().StringVar(&f.graphFile, "graph-file", "", "graph XML to load instead of searching (NCCL_GRAPH_FILE)")
	c.Flags().BoolVar(&f.asJSON, "json", false, "print the result as JSON")
	c.Flags().BoolVar(&f.system, "print-system", false, "also print rank 0's system and paths (ncclTopoPrint)")
	aliases(c, map[string]string{"preset": "system", "release": "nccl", "set": "env", "xml": "topo"})
	c.Flags().BoolVar(&f.graphXML, "graph-xml", false, "print node 0's graphs as NCCL_GRAPH_DUMP_FILE writes them instead")
	return c
}

func runTopoSearch(d *deps, f *topoSearchFlags) error {
	q := spec.TopoSearch{Release: strings.Join(f.release, ","), Preset: f.preset, XMLFiles: f.xmlFiles, Nodes: f.nodes, Env: f.env.list, GraphFile: f.graphFile}
	r, err := q.Run(readInput)
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
