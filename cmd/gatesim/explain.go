package main

import (
	"github.com/gatesim/gatesim/explain"
	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

type explainOpts struct {
	nccl    []string
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
rules whose verdicts differ (--full: every rule side by side); a release that
refuses the request says why. Exit 1 when NCCL returns an error (for any release listed).`,
		Example: `  gatesim explain --nccl 2.22.3,2.28.9 --system v100x4 --env NCCL_ALGO=NVLS --env NCCL_NVLS_ENABLE=1 --coll allreduce --bytes 1MiB`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runExplain(d, o)
		},
	}
	c.Flags().StringSliceVar(&o.nccl, "nccl", []string{spec.DefaultRelease.String()}, "NCCL release(s), comma separated or repeated")
	o.sys.add(c)
	o.env.add(c)
	o.env.addConfig(c)
	o.op.add(c)
	c.Flags().BoolVar(&o.json, "json", false, "JSON output")
	c.Flags().BoolVar(&o.full, "full", false, "after the summary, print the whole gate table (as wide as the terminal, $COLUMNS)")
	c.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "with --full: also print facts and source locations")
	o.tuner.add(c)
	o.launch.add(c)
	return c
}

func runExplain(d *deps, o *explainOpts) error {
	vs, err := parseReleases(o.nccl)
	if err != nil {
		return err
	}
	sys, env, err := loadMachine(&o.sys, &o.env)
	if err != nil {
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
	issue, err := o.launch.issue()
	if err != nil {
		return err
	}
	if !issue.Alone() && lib != nil {
		return badInputf("--tuner with --agg, --cudagraph, --buffers or --inplace: a tuner's answer for a group is not modelled")
	}
	runs, err := explain.Walks(vs, sys, env, op, lib, issue)
	if err != nil {
		return badInput(err)
	}
	var err2 error
	if o.json {
		err2 = writeOut(d, "explain", explain.Output{System: sys.Name, Env: env, Op: op, Releases: runs})
	} else {
		err2 = explain.WriteText(d.stdout, sys, env, op, runs, explain.TextOptions{Full: o.full, Verbose: o.verbose, Width: texttable.Width(d.stdout)})
	}
	if err2 != nil {
		return err2
	}
	// NCCL returning an error is the answer "no": exit 1, as sim does.
	if err := explain.Refused(runs); err != nil {
		return &exitError{code: exitNo, err: err}
	}
	return nil
}
