package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
collective, and prints the chain (layer, rule, verdict, why, the log line NCCL
prints, the source location) and the decision. --nccl may list several releases
to compare them side by side.`,
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
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "also print facts and source locations")
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
		enc := json.NewEncoder(d.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"system": sys.Name, "env": env, "op": op, "releases": runs})
	}
	fmt.Fprintf(d.stdout, "system %s (%d node(s), %d rank(s))  env: %s\n", sys.Name, sys.NNodes(), sys.NRanks(), envLine(env))
	fmt.Fprintf(d.stdout, "op %s %s (%d × %s, %s, root %d)\n\n", op.Func, spec.FormatBytes(op.Bytes()), op.Count, op.DataType, op.RedOp.Short(), op.Root)
	if len(runs) == 1 {
		if err := printTrace(d.stdout, runs[0], o.verbose); err != nil {
			return err
		}
		if runs[0].Group != nil {
			return printGroup(d.stdout, runs[0].Group)
		}
		return nil
	}
	if err := printSideBySide(d.stdout, runs); err != nil {
		return err
	}
	for _, r := range runs {
		if r.Group != nil {
			fmt.Fprintf(d.stdout, "\nNCCL %s:", r.Release)
			if err := printGroup(d.stdout, r.Group); err != nil {
				return err
			}
		}
	}
	return nil
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
	return explained{Release: v.String(), Decision: dec, Trace: trace, Tuner: rep, comm: comm, version: v}, nil
}

func envLine(e spec.Env) string {
	if len(e) == 0 {
		return "(none)"
	}
	return e.String()
}

func printTrace(w io.Writer, e explained, verbose bool) error {
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
	fmt.Fprintf(w, "NCCL %s\n", e.Release)
	if err := asciiTable(w, header, rows, 60); err != nil {
		return err
	}
	fmt.Fprintln(w)
	printDecision(w, e.Decision)
	printTunerEffect(w, e.Tuner, e.Decision)
	return nil
}

func printDecision(w io.Writer, d *spec.Decision) {
	fmt.Fprintf(w, "decision (NCCL %s): %s\n", d.Release, decisionLine(d))
	if d.DecidedBy != "" {
		fmt.Fprintf(w, "  decided by: %s\n", d.DecidedBy)
	}
	if d.Undecided != "" {
		fmt.Fprintf(w, "  needs the tuning model: %s\n", d.Undecided)
	}
	fmt.Fprintf(w, "  network: %s   CollNet support: %v   NVLS support: %v\n", d.Net, d.CollNetSupport, d.NVLSSupport)
	var ev []string
	for _, c := range spec.Capabilities {
		if l, ok := d.Evidence[c]; ok {
			ev = append(ev, string(c)+"="+l.String())
		}
	}
	fmt.Fprintf(w, "  evidence: %s\n", strings.Join(ev, " "))
	printCosts(w, d)
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
	_ = asciiTable(w, []string{"algorithm", "LL", "LL128", "Simple"}, rows, 40)
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
// a release does not have show "—".
func printSideBySide(w io.Writer, runs []explained) error {
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
		rows = append(rows, row)
	}
	if err := asciiTable(w, header, rows, 48); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range runs {
		printDecision(w, r.Decision)
		printTunerEffect(w, r.Tuner, r.Decision)
	}
	return nil
}
