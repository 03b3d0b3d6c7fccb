package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gatesim/gatesim/diagnose"
	"github.com/gatesim/gatesim/internal/logfiles"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newDiagnoseCmd(d *deps) *cobra.Command {
	var (
		jsonOut   bool
		envList   []string
		release   []string
		predicted string
		htmlOut   string
		sf        systemFlags
		agg       int
		cudagraph bool
	)
	cmd := &cobra.Command{
		Use:   "diagnose LOG...",
		Short: "Read NCCL logs and show, with evidence, how far each capability got and why not further",
		Long: `diagnose reads NCCL debug logs (NCCL_DEBUG=INFO or WARN output of NCCL 2.4 to 2.30;
one file per rank, several ranks interleaved in one file, launcher prefixes, or a paste)
and answers, per capability (net plugin, IB, GPUDirect RDMA, CollNet/SHARP, NVLS, NVLSTree,
PAT, P2P, SHM, tuner plugin), the highest rung of the evidence ladder a line proves:
requested, discovered, accepted, usable, candidate, selected, executed. "Available" is
never promoted to "used". Each finding names the gate (spec rule ID), the lines that
prove it (file:line) and what is missing for the next level.

LOG may be a file, a directory (its files are read in name order) or - for stdin. --env adds
variables you set that NCCL did not print. Without an "NCCL version" line the newest modelled
release whose source prints every source location the log shows (a WARN's "enqueue.cc:1182",
an error return's "group.cc:130 -> 3") and every release-specific line form is assumed;
finding release.assumed names it, the candidates and the lines that narrowed them (--nccl
gives the release instead). --predicted puts a prediction (spec's Trace and Decisions as
JSON) beside the observation and exits 1 on a disagreement. With a machine (--system PRESET,
--topo TOPO.XML or --system-file FILE) gatesim makes that prediction itself: the log's
release, the variables the log reports plus --env, and every operation line the log printed,
each compared with the operations of its group: --agg N when the program issued N operations
of a size per group (nccl-tests -m N), --cudagraph when it captured them into CUDA graphs.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			env, err := spec.ParseAssignments(envList)
			if err != nil {
				return badInput(err)
			}
			rel, err := spec.OptionalRelease(release...)
			if err != nil {
				return badInput(err)
			}
			p := ncclog.NewParser()
			in := d.stdin
			if in == nil {
				in = os.Stdin
			}
			names, err := logfiles.ReadLogs(p, args, in, d.stderr)
			if err != nil {
				return badInput(err)
			}
			l := p.Finish()
			if l.NCCLLines == 0 {
				return badInput(fmt.Errorf("%s: %w", strings.Join(names, ", "), ncclog.ErrNoNCCL))
			}
			rep := diagnose.Diagnose(l, diagnose.Options{Env: env, Release: rel})
			var cmp *diagnose.Comparison
			machine := sf.preset != "" || sf.file != "" || sf.topo != ""
			if machine && predicted != "" {
				return badInputf("--predicted and a machine (--system, --topo, --system-file) are exclusive: compare with one prediction")
			} else if !machine && (c.Flags().Changed("agg") || cudagraph) {
				return badInputf("--agg and --cudagraph shape the prediction gatesim makes from a machine: give --system, --topo or --system-file")
			}
			if machine {
				sys, err := sf.load()
				if err != nil {
					return err
				}
				if err := spec.CheckGroupSize(agg); c.Flags().Changed("agg") && err != nil {
					return badInputf("--agg: %v", err)
				}
				pr, err := diagnose.PredictLaunch(l, rel, sys, env, nil, spec.Launch{Agg: agg, Mode: spec.LaunchModeOf(cudagraph)})
				if err != nil {
					return badInput(err)
				}
				cmp = diagnose.Compare(pr, rep.Obs)
			}
			if predicted != "" {
				data, err := readInput(predicted)
				if err != nil {
					return badInput(err)
				}
				pr, err := diagnose.ReadPrediction(data, predicted)
				if err != nil {
					return badInput(err)
				}
				cmp = diagnose.Compare(pr, rep.Obs)
			}
			if jsonOut {
				if err := writeOut(d, "diagnose", diagnose.Output{JSONReport: rep.JSON(), Comparison: cmp}); err != nil {
					return err
				}
			} else {
				if err := rep.WriteText(d.stdout); err != nil {
					return err
				}
				if cmp != nil {
					fmt.Fprintln(d.stdout)
					if err := cmp.WriteText(d.stdout); err != nil {
						return err
					}
				}
			}
			if htmlOut != "" {
				hf, err := os.Create(htmlOut)
				if err != nil {
					return badInput(err)
				}
				err = rep.WriteHTML(hf, commandLine(c)+" "+strings.Join(args, " "))
				if cerr := hf.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(d.stderr, "wrote %s\n", htmlOut)
			}
			if cmp != nil && cmp.Differences() > 0 {
				return &exitError{code: exitNo, err: fmt.Errorf("prediction and log disagree on %d row(s)", cmp.Differences())}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&htmlOut, "html", "", "also write the report as one self-contained HTML page to this file")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON instead of the human report")
	cmd.Flags().StringArrayVar(&envList, "env", nil, "NAME=VALUE the job set that the log does not print (repeatable)")
	cmd.Flags().StringSliceVar(&release, "nccl", nil, "NCCL release (e.g. 2.28.9) when the log has no \"NCCL version\" line, or to predict with instead of the log's; without it the log's, or one inferred from its lines")
	cmd.Flags().StringVar(&predicted, "predicted", "", "JSON file with a predicted {\"trace\", \"decisions\"} to compare with the log")
	cmd.Flags().IntVar(&agg, "agg", 0, "operations of one size per NCCL group in the logged program (nccl-tests -m), for the prediction (default: the group the operation lines' channel ranges reveal, else one; a [Symmetric] line's nWorks)")
	cmd.Flags().BoolVar(&cudagraph, "cudagraph", false, "the logged program captured its operations into CUDA graphs (nccl-tests -G), for the prediction")
	sf.add(cmd)
	return cmd
}
