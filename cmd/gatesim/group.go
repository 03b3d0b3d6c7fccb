package main

import (
	"fmt"

	"github.com/gatesim/gatesim/explain"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

func newGroupCmd(d *deps) *cobra.Command {
	var asJSON, cudagraph bool
	var nccl []string
	var sysf systemFlags
	var envf envFlags
	c := &cobra.Command{
		Use:   "group FILE",
		Short: "Replay one thread's NCCL calls through ncclGroupStart/ncclGroupEnd semantics",
		Long: `group reads a call script (groupStart, groupEnd, init COMM [nonblocking],
COLL COMM SIZE [DTYPE] [REDOP] [root=N] [buffers=B] [alloc=A] [inplace], send|recv COMM SIZE [DTYPE] peer=N, putSignal|signal|waitSignal COMM peer=N, devCommCreate COMM [FIELD=VALUE...], devCommDestroy COMM N, sync|asyncError|finalize COMM; '#' comments) and says what each
call returns and does: when operations are enqueued, which calls fail, and
which sequences NCCL leaves undefined. With --system (or --system-file,
--topo) it also decides every launched collective: each outermost
ncclGroupEnd plans its communicator's operations together (aggregation,
the channel split between them, registration under --cudagraph), and a
collective outside a group is decided alone; every communicator name
stands for the same machine. Exit 1 when a group rule fails.`,
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
			rs, err := loadOneRelease(nccl)
			if err != nil {
				return err
			}
			res, tr, err := spec.CheckGroup(rs, calls)
			if err != nil {
				return err
			}
			var dec map[int]*spec.Decision
			if sysf.preset != "" || sysf.file != "" || sysf.topo != "" {
				sys, env, err := loadMachine(&sysf, &envf)
				if err != nil {
					return err
				}
				if dec, res, err = spec.DecideScript(rs.Version, sys, env, calls, res, spec.Launch{Mode: spec.LaunchModeOf(cudagraph)}); err != nil {
					return badInput(spec.ScriptError(args[0], err))
				}
			}
			failed := 0
			for _, v := range tr {
				if v.Outcome == spec.Fail {
					failed++
				}
			}
			if asJSON {
				if err := writeOut(d, "group", explain.NewGroupScript(calls, res, tr, dec)); err != nil {
					return err
				}
			} else if err := explain.WriteGroupScript(d.stdout, res, tr, dec); err != nil {
				return err
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
	c.Flags().StringSliceVar(&nccl, "nccl", []string{spec.DefaultRelease.String()}, "NCCL release of the group rules and of the decisions")
	c.Flags().BoolVar(&cudagraph, "cudagraph", false, "every launch is captured into a CUDA graph")
	sysf.add(c)
	envf.add(c)
	envf.addConfig(c)
	return c
}
