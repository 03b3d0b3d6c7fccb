package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/tuner"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// simVerifyLimit bounds --verify: the data plane holds every rank's buffers
// and a symbolic copy.
const simVerifyLimit = 1 << 22

type simFlags struct {
	sf                                                         systemFlags
	ef                                                         envFlags
	nccl, coll, bytes, algo, proto, dtype, redop, trace, sweep string
	channels, gpus, root                                       int
	verify, jsonOut                                            bool
	launch                                                     launchFlags
	tuner                                                      tunerFlags
	gpusSet                                                    bool
	traceRanks, profile                                        string
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
Units: B, K/KiB, M/MiB, G/GiB (powers of 1024), KB/MB/GB (powers of 1000).

--sweep FROM:TO[:FACTOR] prints a Markdown table instead: NCCL's choice per size,
then for each algorithm × protocol (--algo and --proto take comma-separated lists or
"all") the simulated time and NCCL's cost-model time per size; the combinations
that do not run on the machine are listed with the reason.`,
		Example: `  gatesim sim --system dgx-h100 --nodes 2 --coll allreduce --bytes 256MiB
  gatesim sim --system h200x2 --env NCCL_NVLS_ENABLE=0 --algo ring --proto ll --bytes 64KiB --verify
  gatesim sim --system dgx-h100 --sweep 4KiB:4GiB:4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fl.gpusSet = cmd.Flags().Changed("gpus")
			return runSim(d, &fl)
		},
	}
	fl.sf.add(c)
	fl.ef.add(c)
	f := c.Flags()
	f.StringVar(&fl.nccl, "nccl", "2.28.9", "NCCL release")
	f.StringVar(&fl.coll, "coll", "allreduce", "collective: "+strings.Join(spec.FuncNames(spec.SelectFuncs), ", "))
	f.StringVar(&fl.bytes, "bytes", "256MiB", "nccl-tests size of the operation")
	f.StringVar(&fl.algo, "algo", "", "force the algorithm: Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT (default: NCCL's choice)")
	f.StringVar(&fl.proto, "proto", "", "force the protocol: LL, LL128, Simple (default: NCCL's choice)")
	f.IntVar(&fl.channels, "channels", 0, "channels of the operation (default: NCCL's)")
	f.IntVar(&fl.gpus, "gpus", 0, "GPUs per node (reshapes the machine)")
	f.StringVar(&fl.dtype, "dtype", "float32", "datatype: "+strings.Join(spec.DataTypeNames(), ", "))
	f.StringVar(&fl.redop, "redop", "sum", "reduction: sum, prod, max, min, avg, premulsum")
	f.IntVar(&fl.root, "root", 0, "root rank of Broadcast and Reduce")
	f.BoolVar(&fl.verify, "verify", false, "run the data plane on random data and check every element against the reference")
	f.StringVar(&fl.trace, "trace", "", "write the timeline as Chrome trace JSON to this file")
	f.StringVar(&fl.traceRanks, "trace-ranks", "", "with --trace: all or N (ranks 0..N-1) for one lane per rank and channel (default: the simulated representatives)")
	f.BoolVar(&fl.jsonOut, "json", false, "print JSON")
	fl.tuner.add(c)
	f.StringVar(&fl.sweep, "sweep", "", "FROM:TO[:FACTOR]: a Markdown table of simulated and NCCL-model times over sizes, algorithms and protocols")
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

// loadProfile reads --profile (nil when not given).
func loadProfile(path string) (*sim.Profile, error) {
	if path == "" {
		return nil, nil
	}
	b, err := inputfile.Read(path, 1<<20)
	if err != nil {
		return nil, badInputf("--profile: %v", err)
	}
	p, err := sim.ParseProfile(b, path)
	if err != nil {
		return nil, badInput(err)
	}
	return p, nil
}

// timingLaunch is the launch the timing charges for an issue.
func timingLaunch(is spec.Issue) (sim.Launch, error) {
	l := sim.Launch{Launch: is.Launch}
	if err := l.Validate(); err != nil {
		return l, badInputf("--agg: %v", err)
	}
	return l, nil
}

// simReport is what sim prints.
type simReport struct {
	Machine   sim.Machine `json:"machine"`
	NCCL      string      `json:"nccl"`
	Op        spec.Op     `json:"op"`
	Selection string      `json:"selection"`
	// ChosenBy says where the selection came from: NCCL's tuning model or
	// the flags; NCCLChoice is what NCCL would run.
	ChosenBy     string            `json:"chosen_by"`
	NCCLChoice   string            `json:"nccl_choice"`
	Result       *sim.Result       `json:"result"`
	ModelTimeUs  *float64          `json:"nccl_model_time_us"`
	ModelNote    string            `json:"nccl_model_note,omitempty"`
	Verification *sim.Verification `json:"verification,omitempty"`
	// Tuner is what a --tuner plugin did (NCCLChoice is the choice with it).
	Tuner *tuner.Report `json:"tuner,omitempty"`
	// Profile says which machine profile timed it, calibrated or nominal;
	// Launch how the operation was launched.
	Profile string     `json:"profile"`
	Launch  sim.Launch `json:"launch"`
	// Group is the group the operation was issued in (--agg, --cudagraph,
	// --buffers, --inplace): Result is its first operation's simulation.
	Group *simGroup `json:"group,omitempty"`
}

// simGroup is each operation of the group simulated on the channels NCCL's
// group plan gave it, and the time nccl-tests reports per operation.
type simGroup struct {
	Buffers spec.Buffers `json:"buffers"`
	InPlace bool         `json:"inplace"`
	Ops     []simGroupOp `json:"ops"`
	// PerOpUs is sim.GroupOpTime: the first operation's launch share and
	// the longest operation over the group's size.
	PerOpUs float64 `json:"per_op_time_us"`
}

type simGroupOp struct {
	Algo      spec.Algo  `json:"algo"`
	Proto     spec.Proto `json:"proto"`
	ChannelLo int        `json:"channel_lo"`
	ChannelHi int        `json:"channel_hi"`
	TimeUs    float64    `json:"time_us"`
}

// simSetup is what every simulation of one invocation shares: the
// communicator spec built, its layout and the machine the timing runs on.
type simSetup struct {
	m    sim.Machine
	v    spec.Version
	comm *spec.Comm
	f    spec.Func
	dt   spec.DataType
	rop  spec.RedOp
	l    *algos.Layout
	n    int
	// tuned is the --tuner plugin loaded into comm (nil: none).
	tuned *tuner.Session
	// issue is how the operation is issued; launch is what the timing
	// charges for it
	issue  spec.Issue
	launch sim.Launch
}

// selectOp is NCCL's decision for op, through the tuner plugin if one is
// loaded.
func (x *simSetup) selectOp(op spec.Op) (*spec.Decision, spec.Trace, error) {
	if x.tuned != nil {
		return x.tuned.Select(op)
	}
	return x.comm.Select(op)
}

// close finalizes the tuner plugin.
func (x *simSetup) close() {
	if x.tuned != nil {
		x.tuned.Close()
	}
}

// config is the timing configuration of one simulation of the setup.
func (x *simSetup) config(d *spec.Decision, sel algos.Selection) sim.Config {
	cfg := sim.Config{Machine: x.m, Launch: x.launch}
	if d != nil {
		dd := *d
		dd.Algo, dd.Proto = sel.Algo, sel.Proto
		cfg.FromDecision(x.comm, &dd)
	}
	return cfg
}

func newSimSetup(fl *simFlags) (*simSetup, error) {
	sys, err := fl.sf.load()
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
	env, err := fl.ef.build()
	if err != nil {
		return nil, err
	}
	if err := loadGraphFile(sys, env); err != nil {
		return nil, err
	}
	x := &simSetup{}
	if x.v, err = spec.ParseVersion(fl.nccl); err != nil {
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
	if lib != nil {
		if x.tuned, err = lib.Attach(spec.Init, rs, sys, env); err != nil {
			return nil, badInput(err)
		}
		x.comm = x.tuned.Comm
	} else if x.comm, err = spec.Init(rs, sys, env); err != nil {
		return nil, badInput(err)
	}
	if x.comm.Err != nil {
		return nil, ncclRefusesComm(x.v, x.comm)
	}
	if mc := rs.Consts.MaxChannels; fl.channels < 0 || fl.channels > mc {
		return nil, badInputf("--channels %d: expected 1 to %d (NCCL %s's MAXCHANNELS, src/include/device.h), or 0 for NCCL's count", fl.channels, mc, x.v)
	}
	if x.l, err = algos.LayoutFromComm(x.comm); err != nil {
		return nil, badInput(err)
	}
	// NCCL's nodes on the machine: the switches reduce only where NCCL
	// enabled the offload; MNNVL cliques and NET-split hosts map onto it
	if x.m, err = sim.MachineForComm(sys, x.comm); err != nil {
		return nil, badInput(err)
	}
	x.n = x.comm.NRanks
	p, err := loadProfile(fl.profile)
	if err != nil {
		return nil, err
	}
	if p != nil {
		x.m.Profile = p
	}
	if x.issue, err = fl.launch.issue(); err != nil {
		return nil, err
	}
	if x.launch, err = timingLaunch(x.issue); err != nil {
		return nil, err
	}
	if x.tuned != nil && !x.issue.Alone() {
		return nil, badInputf("--tuner with --agg, --cudagraph, --buffers or --inplace: a tuner's answer for a group is not modelled")
	}
	return x, nil
}

// simulateGroup simulates every operation of the group on the channels the
// plan gave it (operations with the same plan once); first is operation
// 0's result.
func (x *simSetup) simulateGroup(g *spec.GroupDecision, first *sim.Result) (*simGroup, error) {
	out := &simGroup{Buffers: x.issue.Buffers, InPlace: x.issue.InPlace}
	times, launches := make([]sim.Time, len(g.Ops)), make([]sim.Time, len(g.Ops))
	seen := map[string]sim.Time{}
	for i, d := range g.Ops {
		op, sel, err := algos.FromDecision(d)
		if err != nil {
			return nil, badInputf("group operation %d: %v", i, err)
		}
		key := fmt.Sprintf("%+v|%v", op, sel)
		if sel.Part != nil {
			key += fmt.Sprintf("|%+v", *sel.Part)
		}
		t, ok := seen[key]
		switch {
		case ok:
		case i == 0:
			t = first.Time
		default:
			s, err := algos.Build(op, sel, x.l, algos.Options{InPlace: x.issue.InPlace})
			if err != nil {
				return nil, badInputf("group operation %d: %v", i, err)
			}
			res, err := sim.Simulate(s, x.config(d, sel))
			if err != nil {
				return nil, badInputf("group operation %d: %v", i, err)
			}
			t = res.Time
		}
		seen[key] = t
		times[i], launches[i] = t, x.m.LaunchCost(sel.Algo, sel.Proto, x.launch)
		out.Ops = append(out.Ops, simGroupOp{Algo: d.Algo, Proto: d.Proto, ChannelLo: d.ChannelLo, ChannelHi: d.ChannelHi, TimeUs: t.Micros()})
	}
	per, err := sim.GroupOpTime(times, launches, len(g.Ops))
	if err != nil {
		return nil, err
	}
	out.PerOpUs = per.Micros()
	return out, nil
}

// op is the operation of nccl-tests size bytes.
func (x *simSetup) op(size int64, root int) (spec.Op, error) {
	per := int64(x.dt.Size())
	if x.f == spec.AllGather || x.f == spec.ReduceScatter || x.f == spec.AllToAll {
		per *= int64(x.n)
	}
	if size%per != 0 {
		return spec.Op{}, badInputf("--bytes %d is not a whole number of %s elements%s (%d bytes each step)", size, x.dt, map[bool]string{true: " per rank", false: ""}[per != int64(x.dt.Size())], per)
	}
	return spec.Op{Func: x.f, Count: size / per, DataType: x.dt, RedOp: x.rop, Root: root}, nil
}

// choice is what runs for one operation: NCCL's decision, or the forced
// algorithm and protocol, with NCCL's cost-model time for that cell.
type choice struct {
	sel      algos.Selection
	by       string
	nccl     string
	model    *float64
	note     string
	decision *spec.Decision
	// group is the group plan when the operation is issued in one.
	group *spec.GroupDecision
}

// decide is NCCL's decision for op issued as the flags say: alone
// (selectOp), or planned with its group, whose first operation it returns.
func (x *simSetup) decide(op spec.Op) (*spec.Decision, *spec.GroupDecision, error) {
	if x.issue.Alone() {
		d, _, err := x.selectOp(op)
		return d, nil, err
	}
	if op.Func == spec.SendRecv || op.Func == spec.AllToAll {
		return nil, nil, fmt.Errorf("--agg, --cudagraph, --buffers and --inplace plan a group of collectives; %s's point-to-point plan in a group is not modelled", op.Func)
	}
	g, err := x.comm.SelectIssue(op, x.issue)
	if err != nil {
		return nil, nil, err
	}
	return g.Ops[0], g, nil
}

func (x *simSetup) choose(op spec.Op, algo, proto string, channels int) (*choice, error) {
	d, g, err := x.decide(op)
	if err != nil {
		return nil, badInput(err)
	}
	if g != nil && (algo != "" || proto != "" || channels > 0) {
		return nil, badInputf("--algo, --proto and --channels force one operation alone; in a group NCCL's plan decides each operation (force it with --env NCCL_ALGO=... NCCL_PROTO=...)")
	}
	ch := &choice{decision: d, nccl: decisionLine(d), group: g}
	if d.P2P != nil {
		if algo != "" || proto != "" {
			return nil, badInputf("--algo/--proto: %s has no algorithm or protocol to force: NCCL plans point-to-point work per peer (LL up to NCCL_P2P_LL_THRESHOLD bytes per channel, Simple above)", op.Func)
		}
		if d.Err != nil {
			return nil, &exitError{code: exitNo, err: fmt.Errorf("NCCL %s returns %s for this operation: %s (%s)", x.v, d.Err.Result, d.Err.Message, d.DecidedBy)}
		}
		_, sel, err := algos.FromDecision(d)
		if err != nil {
			return nil, badInput(err)
		}
		ch.sel, ch.by = sel, "NCCL's p2p path (scheduleP2pTasksToPlan), no cost table"
		ch.note = "NCCL's cost model has no time for point-to-point operations"
		return ch, nil
	}
	if algo == "" && proto == "" {
		if d.Discarded {
			return nil, badInputf("%s with count 0: NCCL discards the call, nothing runs; give --algo and --proto to simulate an empty schedule", op.Func)
		}
		if d.Err != nil {
			return nil, ncclRefusesOp(x.v.String(), d)
		}
		_, sel, err := algos.FromDecision(d)
		if err != nil {
			return nil, badInput(err)
		}
		ch.sel, ch.by = sel, "NCCL's tuning model ("+string(d.DecidedBy)+")"
		if g != nil {
			ch.by = fmt.Sprintf("NCCL's group plan (%s), operation 0 of %d", d.DecidedBy, len(g.Ops))
		}
		t := d.TimeUs
		ch.model = &t
	} else {
		if algo == "" || proto == "" {
			return nil, badInputf("--algo and --proto go together: give both, or neither for NCCL's choice")
		}
		a, err := spec.ParseAlgo(algo)
		if err != nil {
			return nil, badInput(err)
		}
		p, err := spec.ParseProto(proto)
		if err != nil {
			return nil, badInput(err)
		}
		ch.sel, ch.by = algos.Selection{Algo: a, Proto: p, NChannels: algos.Channels(x.l, x.f, a, p, op.Bytes())}, "--algo/--proto"
		ch.note = "NCCL has no time for this cell"
		for _, c := range d.Costs {
			if c.Algo != a || c.Proto != p {
				continue
			}
			if c.Usable {
				t := c.TimeUs
				ch.model, ch.note = &t, ""
			} else {
				ch.note = fmt.Sprintf("NCCL would not run %s/%s here: %s %s", a, p, c.Rule, c.Why)
			}
		}
	}
	if channels > 0 {
		ch.sel.NChannels = channels
	}
	return ch, nil
}

func runSim(d *deps, fl *simFlags) error {
	if fl.sweep != "" {
		return runSweep(d, fl)
	}
	x, err := newSimSetup(fl)
	if err != nil {
		return err
	}
	defer x.close()
	size, err := spec.ParseBytes(fl.bytes)
	if err != nil {
		return badInput(err)
	}
	op, err := x.op(size, fl.root)
	if err != nil {
		return err
	}
	ch, err := x.choose(op, fl.algo, fl.proto, fl.channels)
	if err != nil {
		return err
	}
	m, n, f, rop := x.m, x.n, x.f, x.rop
	s, err := algos.Build(op, ch.sel, x.l, algos.Options{InPlace: x.issue.InPlace, ChunkSize: x.tuned.ChunkSizer()})
	if err != nil {
		return badInput(err)
	}
	cfg := x.config(ch.decision, ch.sel)
	cfg.Trace, cfg.MaxTraceEvents = fl.trace != "", simTraceLimit
	sx, err := sim.New(s, cfg)
	if err != nil {
		return badInput(err)
	}
	res, err := sx.Run()
	if err != nil {
		return err
	}
	selection := ch.sel.String()
	if ch.decision.P2P != nil {
		selection = fmt.Sprintf("p2p/%s, up to %d of %d p2p channels per peer", s.Proto, ch.decision.P2P.NChannelsPerPeer, ch.decision.P2P.NChannels)
	}
	rep := &simReport{Machine: m, NCCL: x.v.String(), Op: op, Selection: selection, ChosenBy: ch.by, NCCLChoice: ch.nccl,
		Result: res, ModelTimeUs: ch.model, ModelNote: ch.note, Profile: m.Profile.Summary(), Launch: x.launch}
	if x.tuned != nil {
		x.close() // finalize now, so the report says how it went
		rep.Tuner = x.tuned.Report
	}
	if ch.group != nil {
		if rep.Group, err = x.simulateGroup(ch.group, res); err != nil {
			return err
		}
	}
	if fl.trace != "" {
		w, err := os.Create(fl.trace)
		if err != nil {
			return badInput(err)
		}
		ranks, note, terr := sx.TraceRanks(fl.traceRanks)
		if terr != nil {
			w.Close()
			return badInput(terr)
		}
		events := sx.Trace()
		if ranks != nil {
			events = sx.RankTrace(ranks)
		}
		meta := map[string]string{"operation": fmt.Sprintf("%s %d B %s", f, size, ch.sel), "machine": m.Name, "note": note,
			"recorded": fmt.Sprintf("%d slices recorded, %d not recorded (the limit is %d)", len(sx.Trace()), sx.TraceDropped(), simTraceLimit)}
		werr := sim.ChromeTrace{Events: events, Counters: sx.WeightedTrace(), Meta: meta}.Write(w)
		if cerr := w.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	if fl.verify {
		if int64(n)*s.OutputCount() > simVerifyLimit || int64(n)*s.InputCount() > simVerifyLimit {
			return badInputf("--verify holds every rank's buffers: %d ranks × %d elements is above the %d-element limit; lower --bytes or the machine", n, max(s.InputCount(), s.OutputCount()), simVerifyLimit)
		}
		rng := rand.New(rand.NewPCG(uint64(size), uint64(n)))
		inputs := make([][]byte, n)
		for r := range inputs {
			inputs[r] = make([]byte, s.InputCount()*int64(s.Unit))
			for i := range inputs[r] {
				inputs[r][i] = byte(rng.IntN(256))
			}
		}
		var scalars []float64
		if rop == spec.PreMulSum {
			for r := 0; r < n; r++ {
				scalars = append(scalars, float64(r%3+1))
			}
		}
		vr, err := sim.Verify(s, inputs, scalars)
		if err != nil {
			return err
		}
		rep.Verification = vr
	}
	if fl.jsonOut {
		if err := writeOut(d, "sim", rep); err != nil {
			return err
		}
	} else {
		printSim(d.stdout, rep, fl)
		if x.tuned != nil {
			printTunerEffect(d.stdout, x.tuned.Report, ch.decision)
		}
	}
	if rep.Verification != nil && !rep.Verification.OK {
		return &exitError{code: exitNo, err: errors.New("verification failed: the data plane's result differs from the reference")}
	}
	return nil
}

// parseList reads a comma-separated list or "all".
func parseList[T any](s, what string, all []T, parse func(string) (T, error)) ([]T, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") || s == "" {
		return all, nil
	}
	var out []T
	for _, x := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(x))
		if err != nil {
			return nil, badInputf("--%s %q: %v", what, s, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseSweep reads FROM:TO[:FACTOR].
func parseSweep(s string) ([]int64, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, badInputf("--sweep %q: expected FROM:TO[:FACTOR], e.g. 4KiB:4GiB:4", s)
	}
	from, err := spec.ParseBytes(parts[0])
	if err != nil {
		return nil, badInputf("--sweep: %v", err)
	}
	to, err := spec.ParseBytes(parts[1])
	if err != nil {
		return nil, badInputf("--sweep: %v", err)
	}
	factor := int64(2)
	if len(parts) == 3 {
		if factor, err = strconv.ParseInt(parts[2], 10, 64); err != nil || factor < 2 {
			return nil, badInputf("--sweep %q: factor %q: expected an integer of at least 2", s, parts[2])
		}
	}
	if from <= 0 || to < from {
		return nil, badInputf("--sweep %q: expected 0 < FROM <= TO", s)
	}
	var sizes []int64
	for x := from; x <= to; x *= factor {
		sizes = append(sizes, x)
		if len(sizes) > 64 {
			return nil, badInputf("--sweep %q: more than 64 sizes", s)
		}
		if x > to/factor {
			break
		}
	}
	return sizes, nil
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
	defer x.close()
	sizes, err := parseSweep(fl.sweep)
	if err != nil {
		return err
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
	w := d.stdout
	fmt.Fprintf(w, "%s %s %s on %s (%d node(s) × %d GPUs), NCCL %s, %d communicator channels; times in µs\n\n",
		x.f, x.dt.Short(), x.rop.Short(), x.m.Name, x.m.Nodes, x.m.GPUsPerNode, x.v, x.comm.NChannels)
	fmt.Fprintf(w, "| algorithm | protocol | time |")
	for _, sz := range sizes {
		fmt.Fprintf(w, " %s |", sizeLabel(sz))
	}
	fmt.Fprintf(w, "\n|---|---|---|%s\n", strings.Repeat("--:|", len(sizes)))
	var ops []spec.Op
	var choice []string
	var decs []*spec.Decision
	for _, sz := range sizes {
		op, err := x.op(sz, fl.root)
		if err != nil {
			ops, choice, decs = append(ops, spec.Op{Count: -1}), append(choice, "—"), append(decs, nil)
			continue
		}
		dd, _, err := x.decide(op)
		if err != nil {
			return badInput(err)
		}
		ops, decs = append(ops, op), append(decs, dd)
		c := "error"
		if dd.Err == nil {
			c = dd.Algo.String() + "/" + dd.Proto.String()
		}
		choice = append(choice, c)
	}
	fmt.Fprintf(w, "| NCCL's choice | | | %s |\n", strings.Join(choice, " | "))
	var skipped []string
	for _, a := range as {
		for _, p := range ps {
			var simCells, modelCells []string
			var why error
			for i, sz := range sizes {
				op := ops[i]
				if op.Count < 0 {
					simCells, modelCells = append(simCells, "—"), append(modelCells, "—")
					continue
				}
				model := "—"
				for _, c := range decs[i].Costs {
					if c.Algo == a && c.Proto == p && c.Usable {
						model = fmt.Sprintf("%.1f", c.TimeUs)
					}
				}
				modelCells = append(modelCells, model)
				sel := algos.Selection{Algo: a, Proto: p, NChannels: algos.Channels(x.l, x.f, a, p, sz)}
				if fl.channels > 0 {
					sel.NChannels = fl.channels
				}
				s, err := algos.Build(op, sel, x.l, algos.Options{InPlace: x.issue.InPlace})
				if err == nil {
					var res *sim.Result
					if res, err = sim.Simulate(s, x.config(decs[i], sel)); err == nil {
						simCells = append(simCells, fmt.Sprintf("%.1f", res.TimeUs))
						continue
					}
				}
				why = err
				break
			}
			if why != nil {
				skipped = append(skipped, fmt.Sprintf("%s/%s: %v", a, p, why))
				continue
			}
			fmt.Fprintf(w, "| %s | %s | sim | %s |\n", a, p, strings.Join(simCells, " | "))
			fmt.Fprintf(w, "| %s | %s | NCCL model | %s |\n", a, p, strings.Join(modelCells, " | "))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "\nNot run on this machine:\n\n")
		for _, s := range skipped {
			fmt.Fprintf(w, "- %s\n", s)
		}
	}
	fmt.Fprintf(w, "\nSimulated with profile %s, launch %s.\n", x.m.Profile.Summary(), x.launch)
	fmt.Fprintf(w, "\nNCCL model: NCCL's own estimate (ncclTopoGetAlgoTime) for the cell; — where NCCL would not run it (pruned or zero bandwidth).\n")
	return nil
}

// sizeLabel prints a power-of-two size the nccl-tests way (4K, 16M, 1G).
func sizeLabel(b int64) string {
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

func human(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.2f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func printSim(w io.Writer, r *simReport, fl *simFlags) {
	res := r.Result
	fmt.Fprintf(w, "%s %s %s %s on %s (%d node(s) × %d GPUs), NCCL %s\n", res.Func, human(float64(res.Bytes)), r.Op.DataType.Short(), r.Op.RedOp.Short(),
		r.Machine.Name, r.Machine.Nodes, r.Machine.GPUsPerNode, r.NCCL)
	used := fmt.Sprintf("%d channels used", res.Channels)
	if strings.HasPrefix(r.Selection, "p2p/") {
		used = fmt.Sprintf("the schedule spans the %d p2p channels", res.Channels)
	}
	fmt.Fprintf(w, "  selection        %s (%s; %s)\n", r.Selection, r.ChosenBy, used)
	fmt.Fprintf(w, "  NCCL's choice    %s\n", r.NCCLChoice)
	fmt.Fprintf(w, "  simulated time   %.2f µs (launch %s)\n", res.TimeUs, r.Launch)
	fmt.Fprintf(w, "  profile          %s\n", r.Profile)
	fmt.Fprintf(w, "  algbw            %.2f GB/s\n", res.AlgBw)
	fmt.Fprintf(w, "  busbw            %.2f GB/s\n", res.BusBw)
	if r.ModelTimeUs != nil {
		fmt.Fprintf(w, "  NCCL model time  %.2f µs\n", *r.ModelTimeUs)
	} else {
		fmt.Fprintf(w, "  NCCL model time  n/a (%s)\n", r.ModelNote)
	}
	fmt.Fprintf(w, "  wire bytes per link class (all links, both directions; busiest link):\n")
	var classes []string
	for c := range res.LinkBytes {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		fmt.Fprintf(w, "    %-7s %12s   busiest %s\n", c, human(float64(res.LinkBytes[c])), human(float64(res.MaxLinkBytes[c])))
	}
	fmt.Fprintf(w, "  network injected %s in all, %s per node\n", human(float64(res.NetBytes)), human(res.NetBytesPerNode))
	if g := r.Group; g != nil {
		fmt.Fprintf(w, "  group            %d operation(s), %s buffers, in place %v, each on the channels NCCL's plan gave it:\n", len(g.Ops), g.Buffers, g.InPlace)
		for i, o := range g.Ops {
			fmt.Fprintf(w, "    op %-3d %s/%s channels %d..%d: %.2f µs\n", i, o.Algo, o.Proto, o.ChannelLo, o.ChannelHi, o.TimeUs)
		}
		fmt.Fprintf(w, "  per operation    %.2f µs (nccl-tests' time: the group's launch share and its longest operation over %d)\n", g.PerOpUs, len(g.Ops))
	}
	switch {
	case r.Verification == nil:
		fmt.Fprintf(w, "  verification     not requested (--verify)\n")
	case r.Verification.OK:
		fmt.Fprintf(w, "  verification     OK: %d elements match the reference (%s)\n", r.Verification.Checked, r.Verification.Reference)
	default:
		fmt.Fprintf(w, "  verification     FAILED (%s reference):\n", r.Verification.Reference)
		for _, p := range r.Verification.Problems {
			fmt.Fprintf(w, "    %s\n", p)
		}
	}
	reps := 0
	for _, x := range res.Representatives {
		reps += x
	}
	fmt.Fprintf(w, "  simulated        %d events; %d channel class(es) %v standing for %d channels; %d representative ranks of %d per channel class %v\n",
		res.Events, res.ChannelClasses, res.ChannelMultiplicity, res.Channels, reps, res.Ranks, res.Representatives)
	if fl.trace != "" {
		fmt.Fprintf(w, "  trace            %s (Chrome trace JSON: open in https://ui.perfetto.dev)\n", fl.trace)
	}
}
