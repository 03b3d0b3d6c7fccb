package main

import (
	"fmt"
	"os"

	"github.com/gatesim/gatesim/calibrate"
	"github.com/spf13/cobra"
)

type calibrateFlags struct {
	from, exclude     []string
	system, name, out string
	noCV              bool
	workers           int
}

func newCalibrateCmd(d *deps) *cobra.Command {
	var fl calibrateFlags
	c := &cobra.Command{
		Use:   "calibrate",
		Short: "Fit a machine performance profile to measured times (hw run results, nccl-tests outputs) and cross-validate it",
		Long: `calibrate reads measured collective times — gatesim hw run results (results.json of a
capture directory, gs-*.json) and nccl-tests outputs (nt-*.txt, *_perf*.txt) — under the
files and directories --from names, simulates every row as gatesim sim would (NCCL's
decision for the row's environment and release on --system, the schedule, the row's
launch mode: stream, CUDA graph, operations per group), fits the machine performance
profile's parameters to the measured times (gonum: Nelder-Mead on the median absolute
log error), and validates the fit by leaving each configuration (collective ×
environment × release × launch mode) out: fit without it, predict it.

It prints the residuals (nominal, held-in and held-out) per collective and launch mode,
algorithm and protocol, channel count, release, configuration and tool, then the
profile's parameters with their source: calibrated, or nominal where no row pins the
parameter down. --out writes the profile (YAML, docs/calibration.md), which sim and
whatif read with --profile (the oracle runs no timing: no profile applies to it).

Rows that cannot be simulated are counted with the reason, never dropped silently. A row
nccl-tests would not print, two runs in one output, a rank count not --system's or an
unknown format named explicitly is an error naming the file and line (exit 2).`,
		Example: `  gatesim calibrate --from golden/testdata/captured --from hw/testdata --exclude 'run3/gs-g-*' --exclude 'onerank/*/*' --out h200x2.yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(fl.from) == 0 {
				return badInputf("calibrate: --from names the measurements (files or directories)")
			}
			rep, err := calibrate.Run(calibrate.Options{From: fl.from, Exclude: fl.exclude, System: fl.system, Name: fl.name, NoCV: fl.noCV, Workers: fl.workers})
			if err != nil {
				return badInput(err)
			}
			fmt.Fprintf(d.stdout, "profile %s\n\n", rep.Profile.Summary())
			calibrate.WriteMarkdown(d.stdout, rep)
			if fl.out != "" {
				b, err := calibrate.ProfileYAML(rep, calibrate.Command(calibrate.Options{From: fl.from, Exclude: fl.exclude, System: fl.system, Name: fl.name}))
				if err != nil {
					return err
				}
				if err := os.WriteFile(fl.out, b, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(d.stdout, "wrote %s\n", fl.out)
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringArrayVar(&fl.from, "from", nil, "a measurement file or directory (repeatable)")
	f.StringArrayVar(&fl.exclude, "exclude", nil, "leave out files matching this pattern (repeatable; matched against every path suffix)")
	f.StringVar(&fl.system, "system", "h200x2", "the system preset the rows were measured on")
	f.StringVar(&fl.name, "name", "h200x2", "the profile's name")
	f.StringVar(&fl.out, "out", "", "write the profile (YAML) to this file")
	f.BoolVar(&fl.noCV, "no-cv", false, "skip the leave-one-configuration-out validation")
	f.IntVar(&fl.workers, "workers", 2, "cross-validation folds run in parallel")
	return c
}
