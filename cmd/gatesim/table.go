package main

import (
	"github.com/gatesim/gatesim/explain"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newTableCmd(d *deps) *cobra.Command {
	var sf systemFlags
	var ef envFlags
	var nccl []string
	var asJSON, graphs, why bool
	c := &cobra.Command{
		Use:   "table (--system PRESET | --topo TOPO.XML | --system-file FILE) [--env NAME=VALUE...]",
		Short: "Print the tuning table, threadThresholds and channel summary NCCL prints at init",
		Long: `table builds the communicator NCCL would build on the machine (its gates, its topology search, its
tuning model) and prints what rank 0 logs at INFO level with NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING: the
graph searches (--graphs), the tuning table (latency/bandwidth per function, algorithm and protocol, in
NCCL's layout and precision), the threadThresholds line and the channel summary. --why lists, for every
cell with bandwidth 0, the rule that zeroed it. With two releases (--nccl 2.22.3,2.28.9) it lists the
cells, thresholds and channel counts that differ between them on the same machine and environment
(gatesim rules diff lists the constants that make them differ).`,
		Example: `  gatesim table --system dgx-h100 --nodes 2
  gatesim table --nccl 2.22.3 --topo topo.xml --env NCCL_PROTO=^LL128 --why
  gatesim table --nccl 2.22.3,2.28.9 --system dgx-h100 --nodes 4`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			vs, err := parseReleases(nccl)
			if err != nil {
				return err
			}
			if len(vs) > 2 {
				return badInputf("--nccl: one release (its table) or two (their differences)")
			}
			sys, env, err := loadMachine(&sf, &ef)
			if err != nil {
				return err
			}
			if len(vs) == 2 {
				return tableDiff(d, vs, sys, env, asJSON)
			}
			comm, err := spec.Init(spec.MustLoad(vs[0]), sys, env)
			if err != nil {
				return badInput(err)
			}
			if comm.Err != nil {
				return ncclRefusesComm(vs[0], comm)
			}
			if asJSON {
				return writeOut(d, "table", explain.NewTable(comm, graphs))
			}
			return explain.WriteTable(d.stdout, sys.Name, comm, graphs, why)
		},
	}
	sf.add(c)
	ef.add(c)
	ef.addConfig(c)
	c.Flags().StringSliceVar(&nccl, "nccl", []string{spec.DefaultRelease.String()}, "NCCL release(s), comma separated or repeated")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON (the lines and the whole model)")
	c.Flags().BoolVar(&graphs, "graphs", false, "also print rank 0's graph searches ([GRAPH] lines)")
	c.Flags().BoolVar(&why, "why", false, "list each zero-bandwidth cell with the rule that zeroed it")
	return c
}

// tableDiff prints the printed-table cells (at NCCL's precision), the
// thread thresholds and the channel summary that differ between two
// releases on one machine.
func tableDiff(d *deps, vs []spec.Version, sys *spec.System, env spec.Env, asJSON bool) error {
	var comms [2]*spec.Comm
	for i, v := range vs {
		c, err := spec.Init(spec.MustLoad(v), sys, env)
		if err != nil {
			return badInput(err)
		}
		if c.Err != nil {
			return ncclRefusesComm(v, c)
		}
		comms[i] = c
	}
	diff := explain.DiffTables(comms[0], comms[1])
	if asJSON {
		return writeOut(d, "table-diff", diff)
	}
	return diff.WriteText(d.stdout, sys.Name, comms[0].NRanks)
}
