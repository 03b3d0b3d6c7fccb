package main

import (
	"errors"
	"strings"

	"github.com/gatesim/gatesim/explain"
	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/whatif"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type simFlags struct {
	sf                                                   systemFlags
	ef                                                   envFlags
	coll, bytes, algo, proto, dtype, redop, trace, sweep string
	nccl                                                 []string
	channels, gpus, root                                 int
	verify, jsonOut                                      bool
	launch                                               launchFlags
	tuner                                                tunerFlags
	gpusSet                                              bool
	traceRanks, profile                                  string
}

func newSimCmd(d *deps) *cobra.Command {
	var fl simFlags
	c := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a collective: NCCL's choice, its schedule, timing, bytes per link, optional data-plane verification",
		Long: `sim builds the communicator NCCL would build on the machine (spec: gates, topology
search, tuning model), takes NCCL's choice for the collective (algorithm, protocol,
channels) or the one --algo/--proto force, builds the schedule NCCL runs (package
algos) from the communicator's graphs and simulates it (package sim): simulated time
beside NCCL's own cost-model estimate, nccl-tests algbw and busbw, wire bytes per link
class and injected network bytes, optionally a data-plane run with real arithmetic
checked against a reference (--verify) and a Chrome trace of the timeline (--trace,
opens in Perfetto).

--bytes is nccl-tests' size: the per-rank buffer for AllReduce, Broadcast, Reduce
and SendRecv, the whole gathered (scattered) buffer for AllGather (ReduceScatter),
the whole send buffer (count per peer × ranks) for AllToAll. SendRecv and AllToAll
take NCCL's point-to-point path (no cost table, no --algo/--proto).
Units: B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T (powers of 1024, as nccl-tests reads them).

--sweep FROM:TO[:xFACTOR] prints a Markdown table instead: NCCL's choice per size,
then for each algorithm × protocol (--algo and --proto take comma-separated lists or
"all") the simulated time and NCCL's cost-model time per size; the combinations
that do not run on the machine are listed with the reason.`,
		Example: `  gatesim sim --system dgx-h100 --nodes 2 --coll allreduce --bytes 256MiB
  gatesim sim --system h200x2 --env NCCL_NVLS_ENABLE=0 --algo ring --proto ll --bytes 64KiB --verify
  gatesim sim --system dgx-h100 --sweep 4KiB:4GiB:x4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl.gpusSet = cmd.Flags().Changed("gpus")
			return runSim(d, &fl)
		},
	}
	fl.sf.add(c)
	fl.ef.add(c)
	fl.ef.addConfig(c)
	f := c.Flags()
	f.StringSliceVar(&fl.nccl, "nccl", []string{spec.DefaultRelease.String()}, "NCCL release")
	f.StringVar(&fl.coll, "coll", "allreduce", "collective: "+strings.Join(spec.FuncNames(spec.SelectFuncs), ", "))
	f.StringVar(&fl.bytes, "bytes", "256MiB", "nccl-tests size of the operation")
	f.StringVar(&fl.algo, "algo", "", "force the algorithm: Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT (default: NCCL's choice)")
	f.StringVar(&fl.proto, "proto", "", "force the protocol: LL, LL128, Simple (default: NCCL's choice)")
	f.IntVar(&fl.channels, "channels", 0, "channels of the operation (default: NCCL's)")
	f.IntVar(&fl.gpus, "gpus", 0, "GPUs per node (reshapes the machine)")
	f.StringVar(&fl.dtype, "dtype", "float32", "datatype: "+strings.Join(spec.DataTypeNames(), ", "))
	f.StringVar(&fl.redop, "redop", "sum", "reduction: "+strings.Join(spec.RedOpNames(), ", "))
	f.IntVar(&fl.root, "root", 0, "root rank of Broadcast and Reduce")
	f.BoolVar(&fl.verify, "verify", false, "run the data plane on random data and check every element against the reference")
	f.StringVar(&fl.trace, "trace", "", "write the timeline as Chrome trace JSON to this file")
	f.StringVar(&fl.traceRanks, "trace-ranks", "", "with --trace: all or N (ranks 0..N-1) for one lane per rank and channel (default: the simulated representatives)")
	f.BoolVar(&fl.jsonOut, "json", false, "print JSON")
	fl.tuner.add(c)
	f.StringVar(&fl.sweep, "sweep", "", "sizes FROM:TO[:xFACTOR]: a Markdown table of simulated and NCCL-model times over sizes, algorithms and protocols")
	addProfileFlag(f, &fl.profile)
	fl.launch.add(c)
	return c
}

// simTraceLimit is the most slices sim records for --trace.
const simTraceLimit = 1_000_000

// addProfileFlag adds --profile, which changes the timing model but never
// NCCL's decision.
func addProfileFlag(f *pflag.FlagSet, profile *string) {
	f.StringVar(profile, "profile", "", "machine performance profile (YAML/JSON, docs/calibration.md) instead of the machine's own")
}

// simSetup is what every simulation of one invocation shares: the
// communicator with its layout and machine (plan.Open) and the
// operation's type.
type simSetup struct {
	*plan.Session
	v   spec.Version
	f   spec.Func
	dt  spec.DataType
	rop spec.RedOp
}

// planError gives plan's errors their exit codes: NCCL refusing is the
// answer no, anything else is the input's.
func planError(err error) error {
	var re *plan.RefusedError
	if errors.As(err, &re) {
		return &exitError{code: exitNo, err: err}
	}
	return badInput(err)
}

func newSimSetup(fl *simFlags) (*simSetup, error) {
	sys, env, err := loadMachine(&fl.sf, &fl.ef)
	if err != nil {
		return nil, err
	}
	if fl.gpusSet {
		if err := spec.CheckShape(len(sys.Nodes), fl.gpus); err != nil {
			return nil, badInputf("--gpus %d: %v", fl.gpus, err)
		}
		for i := range sys.Nodes {
			sys.Nodes[i].Reshape(fl.gpus, 0, 0, 0)
		}
	}
	x := &simSetup{}
	if x.v, err = spec.OneRelease(fl.nccl...); err != nil {
		return nil, badInput(err)
	}
	rs, err := spec.Load(x.v)
	if err != nil {
		return nil, badInput(err)
	}
	if x.f, err = spec.ParseFuncIn(fl.coll, spec.SelectFuncs); err != nil {
		return nil, badInput(err)
	}
	if x.dt, err = spec.ParseDataType(fl.dtype); err != nil {
		return nil, badInput(err)
	}
	if x.rop, err = spec.ParseRedOp(fl.redop); err != nil {
		return nil, badInput(err)
	}
	lib, err := fl.tuner.load()
	if err != nil {
		return nil, err
	}
	p, err := plan.LoadProfile(fl.profile)
	if err != nil {
		return nil, badInput(err)
	}
	is, err := fl.launch.issue()
	if err != nil {
		return nil, err
	}
	if x.Session, err = plan.Open(plan.Request{Ruleset: rs, Sys: sys, Env: env, Tuner: lib, Channels: fl.channels, Profile: p, Issue: is}); err != nil {
		return nil, planError(err)
	}
	return x, nil
}

func runSim(d *deps, fl *simFlags) error {
	if fl.sweep != "" {
		return runSweep(d, fl)
	}
	x, err := newSimSetup(fl)
	if err != nil {
		return err
	}
	defer x.Close()
	size, err := spec.ParseBytes(fl.bytes)
	if err != nil {
		return badInput(err)
	}
	op, err := x.Op(x.f, x.dt, x.rop, size, fl.root)
	if err != nil {
		return badInput(err)
	}
	rep, ch, err := x.Run(op, plan.RunOptions{Release: x.v.String(), Size: size, Algo: fl.algo, Proto: fl.proto, Channels: fl.channels,
		ChunkSize: x.Tuned.ChunkSizer(), Describe: explain.DecisionLine, Trace: fl.trace, TraceRanks: fl.traceRanks,
		MaxTraceEvents: simTraceLimit, Verify: fl.verify})
	if err != nil {
		return planError(err)
	}
	if x.Tuned != nil {
		x.Close() // finalize now, so the report says how it went
		rep.Tuner = x.Tuned.Report
	}
	if fl.jsonOut {
		if err := writeOut(d, "sim", rep); err != nil {
			return err
		}
	} else {
		plan.WriteReport(d.stdout, rep, fl.trace)
		if x.Tuned != nil {
			explain.WriteTunerEffect(d.stdout, x.Tuned.Report, ch.Decision)
		}
	}
	if rep.Verification != nil && !rep.Verification.OK {
		return &exitError{code: exitNo, err: errors.New("verification failed: the data plane's result differs from the reference")}
	}
	return nil
}

// parseList reads a comma-separated list or "all".
func parseList[T any](s, what string, all []T, parse func(string) (T, error)) ([]T, error) {
	out, err := nccl.ParseList(s, all, parse)
	if err != nil {
		return nil, badInputf("--%s %v", what, err)
	}
	return out, nil
}

// runSweep prints a Markdown table: NCCL's choice per size, then the
// simulated and NCCL-model times of each algorithm × protocol.
func runSweep(d *deps, fl *simFlags) error {
	if fl.verify || fl.trace != "" || fl.jsonOut {
		return badInputf("--sweep prints a table: --verify, --trace and --json apply to one simulation")
	}
	x, err := newSimSetup(fl)
	if err != nil {
		return err
	}
	defer x.Close()
	sizes, err := spec.ParseSizeRange(fl.sweep)
	if err != nil {
		return badInputf("--sweep %v", err)
	}
	allAlgos := []spec.Algo{spec.Ring, spec.Tree, spec.CollNetDirect, spec.CollNetChain, spec.NVLS, spec.NVLSTree, spec.PAT}
	as, err := parseList(fl.algo, "algo", allAlgos, spec.ParseAlgo)
	if err != nil {
		return err
	}
	ps, err := parseList(fl.proto, "proto", []spec.Proto{spec.LL, spec.LL128, spec.Simple}, spec.ParseProto)
	if err != nil {
		return err
	}
	err = whatif.WriteSweep(d.stdout, x.Comm, x.v, whatif.GridOptions{Func: x.f, DataType: x.dt, RedOp: x.rop, Root: fl.root, Sizes: sizes,
		Algos: as, Protos: ps, Channels: fl.channels, InPlace: x.Issue.InPlace})
	return badInput(err)
}
