package main

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/params"
	"github.com/spf13/cobra"
)

// envDefaultSizes are the sizes env judges at when --sizes is not given: a
// small one (latency-bound: LL, Tree) and a large one (bandwidth-bound:
// Simple, NVLS, Ring).
var envDefaultSizes = []string{"4KiB", "1GiB"}

func newEnvCmd(d *deps) *cobra.Command {
	var (
		release []string
		file    string
		asJSON  bool
		strict  bool
		sysf    systemFlags
		opf     opFlags
	)
	c := &cobra.Command{
		Use:   "env --nccl RELEASE [--file job.sh] [NAME=VALUE ...]",
		Short: "Lint NCCL_* assignments against a release's parameter registry",
		Long: `env checks NCCL_* variables as a job script sets them (export NAME=VALUE,
NAME=VALUE cmd, plain assignments, #SBATCH --export=, srun --export=,
mpirun -x) and as NAME=VALUE arguments, against the parameters the NCCL
release really reads (a table generated from NCCL's source at the tag).

It reports unknown names and likely typos with the nearest real name,
renamed and removed names, names that belong to other programs, values NCCL
parses differently from what they say (strtoll: "4M" is 4, "010" is 8),
values a release ignores or rejects, and the gate rules each variable feeds.

Exit status: 0 no errors, 1 at least one error (or warning with --strict),
2 bad input.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(release) == 0 {
				return badInputf("--nccl is required: the release to lint against (%s)", params.ReleaseList())
			}
			one, err := spec.OneReleaseArg(release...)
			if err != nil {
				return badInput(err)
			}
			v, err := spec.ParseVersion(one)
			if err != nil {
				return badInput(err)
			}
			reg, err := params.Load(v)
			if err != nil {
				return badInput(err)
			}
			var assigns []params.Assignment
			if file != "" {
				data, name, err := inputfile.ReadOrStdin(file, d.stdin, spec.MaxFileBytes)
				if err != nil {
					return badInputf("reading job script: %v", err)
				}
				a, err := params.ParseScript(name, data)
				if err != nil {
					return badInput(err)
				}
				assigns = append(assigns, a...)
			}
			a, err := params.ArgAssignments(args)
			if err != nil {
				return badInput(err)
			}
			assigns = append(assigns, a...)
			if file == "" && len(args) == 0 {
				return badInputf("nothing to lint: give --file job.sh and/or NAME=VALUE arguments")
			}
			var sys *spec.System
			var ops []spec.Op
			if sysf.preset != "" || sysf.file != "" || sysf.topo != "" {
				if !spec.Supported(v) {
					return badInputf("--system: the gate engine does not model NCCL %s yet", v)
				}
				if sys, err = sysf.load(); err != nil {
					return err
				}
				if ops, err = opf.source().Ops(envDefaultSizes); err != nil {
					return badInput(err)
				}
			}
			rep := params.Lint(reg, assigns, params.Options{Grammar: params.SpecGrammar, Effect: params.SpecEffect(sys, ops)})
			if sys != nil {
				rep.EffectAt = spec.DescribeOps(ops)
			}
			if asJSON {
				if err := writeOut(d, "env", rep); err != nil {
					return err
				}
			} else {
				fmt.Fprint(d.stdout, params.RenderReport(rep, file))
			}
			w := rep.Worst()
			if w == params.SevError || (strict && w == params.SevWarning) {
				return &exitError{code: exitNo, err: fmt.Errorf("env lint: %d error(s), %d warning(s)", rep.Errors, rep.Warnings)}
			}
			return nil
		},
	}
	c.Flags().StringSliceVar(&release, "nccl", nil, "NCCL release to lint against ("+params.ReleaseList()+")")
	c.Flags().StringVar(&file, "file", "", "job script to read (- for standard input)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	c.Flags().BoolVar(&strict, "strict", false, "exit 1 on warnings too")
	sysf.add(c)
	aliases(c, map[string]string{"bytes": "sizes"}) // a list is --sizes in every command; --bytes was env's name for it
	opf.add(c)
	c.Flags().Lookup("sizes").Usage = "sizes to judge gate effects at: a list or FROM:TO[:xFACTOR] (default " + strings.Join(envDefaultSizes, ",") + ")"
	c.Flags().Lookup("count").Usage = "element count instead of --sizes"
	c.Flags().Lookup("coll").Usage = "collectives to judge gate effects at, comma separated: " + strings.Join(spec.FuncNames(spec.SelectFuncs), ", ")
	return c
}
