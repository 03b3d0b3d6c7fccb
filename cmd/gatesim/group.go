package main

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newGroupCmd(d *deps) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "group FILE",
		Short: "Replay one thread's NCCL calls through ncclGroupStart/ncclGroupEnd semantics",
		Long: `group reads a call script (groupStart, groupEnd, init COMM [nonblocking],
COLL COMM SIZE [DTYPE] [REDOP], sync COMM, asyncError COMM) and says what each
call returns and does: when operations are enqueued, which calls fail, and
which sequences NCCL leaves undefined. Exit 1 when a group rule fails or a call
returns an error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			data, err := readInput(args[0])
			if err != nil {
				return badInput(err)
			}
			calls, err := spec.ParseCalls(args[0], data)
			if err != nil {
				return badInput(err)
			}
			res, tr := spec.CheckGroup(calls)
			failed := 0
			for _, v := range tr {
				if v.Outcome == spec.Fail {
					failed++
				}
			}
			if asJSON {
				if err := writeOut(d, "group", groupOut{Calls: res, Trace: tr}); err != nil {
					return err
				}
			} else {
				var rows [][]string
				for _, r := range res {
					what := r.Call.Kind.String()
					if r.Call.Comm != "" {
						what += " " + r.Call.Comm
					}
					if r.Call.Op != nil {
						what = fmt.Sprintf("%s %s %s", r.Call.Op.Func, r.Call.Comm, spec.FormatBytes(r.Call.Op.Bytes()))
					}
					rows = append(rows, []string{itoa(r.Call.Line), what, r.Result.String(), r.Effect, r.Warn})
				}
				if err := asciiTable(d.stdout, []string{"line", "call", "returns", "effect", "NCCL WARN"}, rows, 60); err != nil {
					return err
				}
				for _, v := range tr {
					fmt.Fprintf(d.stdout, "%-20s %-4s %s\n", v.Rule, v.Outcome, v.Why)
				}
			}
			if failed > 0 {
				return &exitError{code: exitNo, err: fmt.Errorf("%d group rule(s) failed", failed)}
			}
			for _, r := range res {
				if r.Result != spec.Success && r.Result != spec.InProgress {
					return &exitError{code: exitNo, err: fmt.Errorf("%s:%d: %s returns %s", args[0], r.Call.Line, r.Call.Kind, r.Result)}
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "JSON output")
	return c
}
