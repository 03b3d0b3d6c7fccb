package main

import (
	"fmt"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newTableCmd(d *deps) *cobra.Command {
	var sf systemFlags
	var ef envFlags
	var nccl string
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
			sys, err := sf.load()
			if err != nil {
				return err
			}
			env, err := ef.build()
			if err != nil {
				return err
			}
			if err := loadGraphFile(sys, env); err != nil {
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
			m := comm.Model
			if asJSON {
				out := tableOut{NCCL: vs[0].String(), Table: m.TableLines(), ThreadThresholds: m.ThreadThresholdsLine(),
					Channels: comm.Topo.Summary, NChannels: comm.NChannels, Model: m}
				if graphs {
					out.Graphs = comm.Topo.Nodes[0].Log()
				}
				for _, z := range m.Zeros() {
					out.Zeros = append(out.Zeros, tableZero{z.Func.String() + "/" + z.Algo.String() + "/" + z.Proto.String(), z.Rule, z.Why})
				}
				return writeOut(d, "table", out)
			}
			w := d.stdout
			fmt.Fprintf(w, "NCCL %s, %s, %d rank(s) on %d node(s)\n", vs[0], sys.Name, comm.NRanks, comm.NNodes)
			if graphs {
				for _, l := range comm.Topo.Nodes[0].Log() {
					fmt.Fprintln(w, l)
				}
			}
			for _, l := range m.TableLines() {
				fmt.Fprintln(w, l)
			}
			fmt.Fprintln(w, m.ThreadThresholdsLine())
			fmt.Fprintln(w, comm.Topo.Summary)
			if why {
				fmt.Fprintln(w, "\ncells with bandwidth 0:")
				var rows [][]string
				for _, z := range m.Zeros() {
					rows = append(rows, []string{z.Func.String(), z.Algo.String(), z.Proto.String(), string(z.Rule), z.Why})
				}
				return texttable.Write(w, []string{"function", "algorithm", "protocol", "rule", "why"}, rows, 70)
			}
			return nil
		},
	}
	sf.add(c)
	ef.add(c)
	c.Flags().StringVar(&nccl, "nccl", "2.28.9", "NCCL release")
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
	var rows []tableDiffRow
	add := func(what, a, b string) {
		if a != b {
			rows = append(rows, tableDiffRow{what, a, b})
		}
	}
	add("channel summary", comms[0].Topo.Summary, comms[1].Topo.Summary)
	add("threadThresholds", comms[0].Model.ThreadThresholdsLine(), comms[1].Model.ThreadThresholdsLine())
	cell := func(m *spec.TuningModel, f spec.Func, a spec.Algo, p spec.Proto) string {
		if int(a) >= m.Tuning.NumAlgos {
			return "(no " + a.String() + ")"
		}
		return fmt.Sprintf("%.1f/%.1f", m.Latencies[f][a][p], m.Bandwidths[f][a][p])
	}
	for _, f := range spec.Funcs {
		for a := range spec.NumAlgos {
			for p := range spec.NumProtos {
				add(fmt.Sprintf("%s/%s/%s", f, spec.Algo(a), spec.Proto(p)),
					cell(comms[0].Model, f, spec.Algo(a), spec.Proto(p)), cell(comms[1].Model, f, spec.Algo(a), spec.Proto(p)))
			}
		}
	}
	if asJSON {
		return writeOut(d, "table-diff", tableDiffOut{From: vs[0].String(), To: vs[1].String(), Changes: rows})
	}
	fmt.Fprintf(d.stdout, "%s, %d rank(s): NCCL %s → %s, %d difference(s) (table cells as latency µs/bandwidth GB/s)\n", sys.Name, comms[0].NRanks, vs[0], vs[1], len(rows))
	var tr [][]string
	for _, r := range rows {
		tr = append(tr, []string{r.What, r.Old, r.New})
	}
	return texttable.Write(d.stdout, []string{"what", vs[0].String(), vs[1].String()}, tr, 70)
}
