package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/tuner"
	"github.com/spf13/cobra"
)

type explainOpts struct {
	nccl    string
	sys     systemFlags
	env     envFlags
	op      opFlags
	json    bool
	full    bool
	verbose bool
	tuner   tunerFlags
	launch  launchFlags
}

func newExplainCmd(d *deps) *cobra.Command {
	o := &explainOpts{}
	c := &cobra.Command{
		Use:   "explain",
		Short: "Walk NCCL's gates for one collective and show what NCCL does, and why",
		Long: `explain walks every gate NCCL applies, from network plugin discovery to the
per-operation choice, for one machine, one set of NCCL_* variables and one
collective. It leads with a summary (the decision, the gate that settled it,
the network, how far each offload got and which gate stopped it, what would
change the outcome) and the cost table; --full adds the whole chain (layer,
rule, verdict, why, the log line NCCL prints; -v the facts and source
locations). --nccl may list several releases: the summary of each, then the
rules whose verdicts differ (--full: every rule side by side).
Exit 1 when NCCL returns an error (for any release listed).`,
		Example: `  gatesim explain --nccl 2.22.3,2.28.9 --system v100x4 --env NCCL_ALGO=NVLS --env NCCL_NVLS_ENABLE=1 --coll allreduce --bytes 1MiB`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runExplain(d, o)
		},
	}
	c.Flags().StringVar(&o.nccl, "nccl", "2.28.9", "NCCL release(s), comma separated")
	o.sys.add(c)
	o.env.add(c)
	o.op.add(c)
	c.Flags().BoolVar(&o.json, "json", false, "JSON output")
	c.Flags().BoolVar(&o.full, "full", false, "after the summary, print the whole gate table (as wide as the terminal, $COLUMNS)")
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "with --full: also print facts and source locations")
	o.tuner.add(c)
	o.launch.add(c)
	return c
}

// explained is one release's walk.
type explained struct {
	Release  string         `json:"nccl"`
	Decision *spec.Decision `json:"decision"`
	Trace    spec.Trace     `json:"trace"`
	// Tuner is what a --tuner plugin did over the communicator's life.
	Tuner *tuner.Report `json:"tuner,omitempty"`
	// Group is every operation's decision when the operation is issued in
	// a group, a CUDA graph or with registered buffers (Decision is then
	// the first operation's).
	Group   *spec.GroupDecision `json:"group,omitempty"`
	comm    *spec.Comm
	version spec.Version
	env     spec.Env
}

func runExplain(d *deps, o *explainOpts) error {
	vs, err := parseReleases(o.nccl)
	if err != nil {
		return err
	}
	sys, err := o.sys.load()
	if err != nil {
		return err
	}
	env, err := o.env.build()
	if err != nil {
		return err
	}
	if err := loadGraphFile(sys, env); err != nil {
		return err
	}
	op, err := o.op.build()
	if err != nil {
		return err
	}
	lib, err := o.tuner.load()
	if err != nil {
		return err
	}
	launch, gop, grouped, err := o.launch.build(op)
	if err != nil {
		return err
	}
	if grouped && lib != nil {
		return badInputf("--tuner with --agg, --cudagraph, --buffers or --inplace: a tuner's answer for a group is not modelled")
	}
	var runs []explained
	for _, v := range vs {
		e, err := explainOne(v, sys, env, op, lib)
		if err != nil {
			return err
		}
		if grouped {
			g, err := e.comm.SelectGroup([]spec.GroupOp{gop}, launch)
			if err != nil {
				return badInput(err)
			}
			e.Group, e.Decision, e.Trace = g, g.Ops[0], g.Traces[0]
		}
		runs = append(runs, e)
	}
	if err := printExplain(d, o, sys, env, op, runs); err != nil {
		return err
	}
	// NCCL returning an error is the answer "no": exit 1, as sim does.
	for _, r := range runs {
		switch {
		case r.comm.Err != nil:
			return ncclRefusesComm(r.version, r.comm)
		case r.Decision.Err != nil:
			return ncclRefusesOp(r.Release, r.Decision)
		}
	}
	return nil
}

func printExplain(d *deps, o *explainOpts, sys *spec.System, env spec.Env, op spec.Op, runs []explained) error {
	if o.json {
		return writeOut(d, "explain", explainOut{System: sys.Name, Env: env, Op: op, Releases: runs})
	}
	w := d.stdout
	width := texttable.Width(w)
	fmt.Fprintln(w, texttable.Wrap(fmt.Sprintf("%s %s (%d × %s, %s, root %d) on %s (%d node(s), %d rank(s)); env: %s", op.Func, spec.FormatBytes(op.Bytes()),
		op.Count, op.DataType, op.RedOp.Short(), op.Root, sys.Name, sys.NNodes(), sys.NRanks(), envLine(env)), width, "  "))
	for _, r := range runs {
		printSummary(w, spec.Summarize(r.Decision, r.Trace, r.env), width)
		printTunerEffect(w, r.Tuner, r.Decision)
	}
	if len(runs) == 1 {
		fmt.Fprintln(w)
		printCosts(w, runs[0].Decision)
		if runs[0].Group != nil {
			if err := printGroup(w, runs[0].Group); err != nil {
				return err
			}
		}
		if !o.full {
			fmt.Fprintf(w, "\n(%d gate verdicts: --full prints them)\n", len(runs[0].Trace))
			return nil
		}
		fmt.Fprintln(w)
		return printTrace(w, runs[0], o.verbose, width)
	}
	fmt.Fprintln(w)
	if err := printSideBySide(w, runs, o.full, width); err != nil {
		return err
	}
	for _, r := range runs {
		if r.Group != nil {
			fmt.Fprintf(w, "\nNCCL %s:", r.Release)
			if err := printGroup(w, r.Group); err != nil {
				return err
			}
		}
	}
	return nil
}

// printSummary prints one release's decision in a few lines, folded at
// width.
func printSummary(w io.Writer, s spec.Summary, width int) {
	d := s.Decision
	lines := []string{fmt.Sprintf("NCCL %s: %s", d.Release, decisionLine(d))}
	if s.DecidedBy.Rule != "" {
		lines = append(lines, fmt.Sprintf("  decided by %s: %s", s.DecidedBy.Rule, strings.TrimSpace(s.DecidedBy.Why)))
	}
	if d.Undecided != "" {
		lines = append(lines, "  needs the tuning model: "+d.Undecided)
	}
	if s.Network != "" {
		lines = append(lines, fmt.Sprintf("  network: %s; within a node: %s", s.Network, d.Transport))
	}
	var reached []string
	for _, c := range s.Offloads {
		if c.Stopped == nil {
			reached = append(reached, c.String())
		}
	}
	if len(reached) > 0 {
		lines = append(lines, "  "+strings.Join(reached, "; "))
	}
	for _, c := range s.Offloads {
		if c.Stopped != nil {
			lines = append(lines, "  "+c.String())
		}
	}
	for _, ch := range s.Changes {
		lines = append(lines, "  would change it: "+ch)
	}
	for _, l := range lines {
		indent := "    "
		if !strings.HasPrefix(l, " ") {
			indent = "  "
		}
		fmt.Fprintln(w, texttable.Wrap(l, width, indent))
	}
}

func explainOne(v spec.Version, sys *spec.System, env spec.Env, op spec.Op, lib *tuner.Library) (explained, error) {
	rs, err := spec.Load(v)
	if err != nil {
		return explained{}, badInput(err)
	}
	comm, dec, trace, rep, err := decideWith(lib, rs, sys, env, op)
	if err != nil {
		return explained{}, err
	}
	return explained{Release: v.String(), Decision: dec, Trace: trace, Tuner: rep, comm: comm, version: v, env: env}, nil
}

func envLine(e spec.Env) string {
	if len(e) == 0 {
		return "(none)"
	}
	return e.String()
}

func printTrace(w io.Writer, e explained, verbose bool, width int) error {
	header := []string{"layer", "rule", "verdict", "why", "NCCL log"}
	if verbose {
		header = append(header, "facts", "source")
	}
	var rows [][]string
	for _, v := range e.Trace {
		rule := string(v.Rule)
		if v.Scope != "" && v.Scope != "op" {
			rule += " (" + v.Scope + ")"
		}
		row := []string{v.Layer.String(), rule, v.Outcome.String(), v.Why, strings.Join(v.Log, "\n")}
		if verbose {
			var fs []string
			for _, f := range v.Facts {
				fs = append(fs, f.String())
			}
			row = append(row, strings.Join(fs, " "), v.Ref.String())
		}
		rows = append(rows, row)
	}
	fmt.Fprintf(w, "gates of NCCL %s\n", e.Release)
	// layer, rule and verdict take about 47 columns with their borders; the
	// free-text columns (3 columns of border and padding each) share the rest
	n := len(header) - 3
	return texttable.Write(w, header, texttable.BreakWords(rows, max(16, (width-47-3*n)/n)), max(16, (width-47-3*n)/n))
}

// printCosts prints the operation's cost table, one row per algorithm: the
// time of each protocol or why it cannot be chosen, the winner marked.
func printCosts(w io.Writer, d *spec.Decision) {
	if len(d.Costs) == 0 {
		return
	}
	fmt.Fprintf(w, "  cost table for %s of %s (µs; * marks the choice):\n", d.Op.Func, spec.FormatBytes(d.Op.Bytes()))
	var rows [][]string
	row := map[spec.Algo]int{}
	var why []string
	for _, c := range d.Costs {
		i, ok := row[c.Algo]
		if !ok {
			i = len(rows)
			row[c.Algo] = i
			rows = append(rows, []string{c.Algo.String(), "", "", ""})
		}
		cell := "-"
		switch {
		case c.Usable:
			cell = fmt.Sprintf("%.2f", c.TimeUs)
			if c.Algo == d.Algo && c.Proto == d.Proto {
				cell = "*" + cell
			}
		case c.Rule != "":
			cell = "— " + string(c.Rule)
		}
		rows[i][1+int(c.Proto)] = cell
		if !c.Usable && c.Why != "" && c.Proto == spec.Simple {
			why = append(why, fmt.Sprintf("%s: %s", c.Algo, c.Why))
		}
	}
	_ = texttable.Write(w, []string{"algorithm", "LL", "LL128", "Simple"}, rows, 40)
	for _, s := range why {
		fmt.Fprintf(w, "    %s\n", s)
	}
}

// decisionLine is the one-line outcome: "Ring/Simple", "Ring (protocol
// needs the tuning model)", "ncclInvalidUsage: ...".
func decisionLine(d *spec.Decision) string {
	switch {
	case d.Discarded:
		return "discarded (count 0: nothing runs)"
	case d.Err != nil:
		return "error " + fmtErr(d.Err)
	case d.P2P != nil:
		return fmt.Sprintf("p2p path (no cost table): %d p2p channels, up to %d per peer", d.P2P.NChannels, d.P2P.NChannelsPerPeer)
	case d.Algo != spec.AlgoNone && d.Proto != spec.ProtoNone:
		s := d.Algo.String() + "/" + d.Proto.String()
		if d.NChannels > 0 {
			s += fmt.Sprintf(" channels %d..%d nthreads %d (est. %.1f µs)", d.ChannelLo, d.ChannelHi, d.NThreads, d.TimeUs)
		}
		if d.Fallback {
			s += " (fallback)"
		}
		return s
	case d.Algo != spec.AlgoNone:
		s := d.Algo.String() + " (protocol: tuning model)"
		if d.Fallback {
			s += " (fallback)"
		}
		return s
	default:
		var c []string
		for _, ap := range d.Candidates {
			c = append(c, ap.String())
		}
		return "one of " + strings.Join(c, " ") + " (tuning model)"
	}
}

// printSideBySide prints one row per rule with a column per release; rules
// a release does not have show "—". Unless full, only the rules whose
// verdicts differ between the releases are printed.
func printSideBySide(w io.Writer, runs []explained, full bool, width int) error {
	type key struct {
		rule  spec.RuleID
		scope string
	}
	var order []key
	seen := map[key]bool{}
	cells := make([]map[key][]spec.Verdict, len(runs))
	for i, r := range runs {
		cells[i] = map[key][]spec.Verdict{}
		var prev *key
		for _, v := range r.Trace {
			k := key{v.Rule, v.Scope}
			cells[i][k] = append(cells[i][k], v)
			if !seen[k] {
				seen[k] = true
				// insert after the previous rule of this release
				pos := len(order)
				if prev != nil {
					for j, o := range order {
						if o == *prev {
							pos = j + 1
						}
					}
				}
				order = append(order[:pos], append([]key{k}, order[pos:]...)...)
			}
			kk := k
			prev = &kk
		}
	}
	header := []string{"layer", "rule"}
	for _, r := range runs {
		header = append(header, "NCCL "+r.Release)
	}
	var rows [][]string
	for _, k := range order {
		layer := ""
		row := []string{"", string(k.rule)}
		if k.scope != "" && k.scope != "op" {
			row[1] += " (" + k.scope + ")"
		}
		for i := range runs {
			vs := cells[i][k]
			if len(vs) == 0 {
				row = append(row, "—")
				continue
			}
			layer = vs[0].Layer.String()
			var parts []string
			for _, v := range vs {
				parts = append(parts, v.Outcome.String()+": "+v.Why)
			}
			row = append(row, strings.Join(parts, "\n"))
		}
		row[0] = layer
		same := true
		for _, c := range row[3:] {
			same = same && c == row[2]
		}
		if full || !same {
			rows = append(rows, row)
		}
	}
	if !full {
		fmt.Fprintf(w, "the %d of %d rules whose verdicts differ (--full prints them all):\n", len(rows), len(order))
	}
	cell := max(16, (width-34-3*len(runs))/len(runs))
	return texttable.Write(w, header, texttable.BreakWords(rows, cell), cell)
}
