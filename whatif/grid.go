package whatif

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
)

// Grid is a sweep over one machine, one release and one environment:
// NCCL's choice per size, then for each algorithm × protocol forced over
// it the simulated time and NCCL's cost-model time per size.
type Grid struct {
	Sizes []int64
	// Choice is NCCL's algorithm/protocol per size ("error" where NCCL
	// returns one, "—" where the size is no whole operation).
	Choice []string
	// Rows are the combinations that ran at every size, cells formatted in
	// µs ("—": NCCL would not run the cell, or no operation).
	Rows []GridRow
	// Skipped are the combinations that do not run on the machine, each
	// with the reason.
	Skipped []string
}

// GridRow is one algorithm × protocol of a Grid.
type GridRow struct {
	Algo       spec.Algo
	Proto      spec.Proto
	Sim, Model []string
}

// GridOptions are the operation and the combinations of a Grid.
type GridOptions struct {
	Func     spec.Func
	DataType spec.DataType
	RedOp    spec.RedOp
	Root     int
	Sizes    []int64
	Algos    []spec.Algo
	Protos   []spec.Proto
	// Channels > 0 runs every cell on that many channels.
	Channels int
	InPlace  bool
}

// RunGrid decides every size on c and simulates every combination of o.
func RunGrid(c *plan.Comm, o GridOptions) (*Grid, error) {
	g := &Grid{Sizes: o.Sizes}
	ops := make([]spec.Op, len(o.Sizes))
	decs := make([]*spec.Decision, len(o.Sizes))
	for i, sz := range o.Sizes {
		op, err := c.Op(o.Func, o.DataType, o.RedOp, sz, o.Root)
		if err != nil {
			ops[i] = spec.Op{Count: -1}
			g.Choice = append(g.Choice, "—")
			continue
		}
		d, _, err := c.Decide(op)
		if err != nil {
			return nil, err
		}
		ops[i], decs[i] = op, d
		ch := "error"
		if d.Err == nil {
			ch = d.Algo.String() + "/" + d.Proto.String()
		}
		g.Choice = append(g.Choice, ch)
	}
	for _, a := range o.Algos {
		for _, p := range o.Protos {
			row := GridRow{Algo: a, Proto: p}
			var why error
			for i, sz := range o.Sizes {
				op := ops[i]
				if op.Count < 0 {
					row.Sim, row.Model = append(row.Sim, "—"), append(row.Model, "—")
					continue
				}
				model := "—"
				if us, _, ok := plan.ModelTime(decs[i], a, p); ok {
					model = fmt.Sprintf("%.1f", us)
				}
				row.Model = append(row.Model, model)
				sel := algos.Selection{Algo: a, Proto: p, NChannels: algos.Channels(c.Layout, o.Func, a, p, sz)}
				if o.Channels > 0 {
					sel.NChannels = o.Channels
				}
				res, err := c.Simulate(op, sel, c.Config(decs[i], sel), algos.Options{InPlace: o.InPlace})
				if err != nil {
					why = err
					break
				}
				row.Sim = append(row.Sim, fmt.Sprintf("%.1f", res.TimeUs))
			}
			if why != nil {
				g.Skipped = append(g.Skipped, fmt.Sprintf("%s/%s: %v", a, p, why))
				continue
			}
			g.Rows = append(g.Rows, row)
		}
	}
	return g, nil
}

// WriteMarkdown prints the grid as a Markdown table (sizes as nccl-tests
// labels them) and the combinations that did not run.
func (g *Grid) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "| algorithm | protocol | time |")
	for _, sz := range g.Sizes {
		fmt.Fprintf(w, " %s |", SizeLabel(sz))
	}
	fmt.Fprintf(w, "\n|---|---|---|%s\n", strings.Repeat("--:|", len(g.Sizes)))
	fmt.Fprintf(w, "| NCCL's choice | | | %s |\n", strings.Join(g.Choice, " | "))
	for _, r := range g.Rows {
		fmt.Fprintf(w, "| %s | %s | sim | %s |\n", r.Algo, r.Proto, strings.Join(r.Sim, " | "))
		fmt.Fprintf(w, "| %s | %s | NCCL model | %s |\n", r.Algo, r.Proto, strings.Join(r.Model, " | "))
	}
	if len(g.Skipped) > 0 {
		fmt.Fprintf(w, "\nNot run on this machine:\n\n")
		for _, s := range g.Skipped {
			fmt.Fprintf(w, "- %s\n", s)
		}
	}
}

// SizeLabel prints a power-of-two size the nccl-tests way (4K, 16M, 1G).
func SizeLabel(b int64) string {
	for _, u := range []struct {
		suf string
		m   int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= u.m && b%u.m == 0 {
			return strconv.FormatInt(b/u.m, 10) + u.suf
		}
	}
	return strconv.FormatInt(b, 10)
}

// WriteSweep is gatesim sim --sweep: a line naming the operation, the
// machine, the release and the communicator's channels, the grid of o over
// c (RunGrid) as Markdown, and how it was timed.
func WriteSweep(w io.Writer, c *plan.Comm, release spec.Version, o GridOptions) error {
	m := c.Machine
	fmt.Fprintf(w, "%s %s %s on %s (%d node(s) × %d GPUs), NCCL %s, %d communicator channels; times in µs\n\n",
		o.Func, o.DataType.Short(), o.RedOp.Short(), m.Name, m.Nodes, m.GPUsPerNode, release, c.Comm.NChannels)
	g, err := RunGrid(c, o)
	if err != nil {
		return err
	}
	g.WriteMarkdown(w)
	fmt.Fprintf(w, "\nSimulated with profile %s, launch %s.\n", m.Profile.Summary(), c.Launch)
	fmt.Fprintf(w, "\nNCCL model: NCCL's own estimate (ncclTopoGetAlgoTime) for the cell; — where NCCL would not run it (pruned or zero bandwidth).\n")
	return nil
}
