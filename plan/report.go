package plan

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
	"github.com/gatesim/gatesim/tuner"
)

// Report is what gatesim sim prints of one simulation.
type Report struct {
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
	Group *Group `json:"group,omitempty"`
	// P2PTasks are rank 0's send/recv tasks of a lone SendRecv or
	// AllToAll as NCCL's planner places them (G-SCHED-P2P-1), the ones the
	// simulated p2p schedule runs.
	P2PTasks []tuning.P2PPlaced `json:"p2p_tasks,omitempty"`
	// Sym is how a symmetric kernel's or copy-engine collective's time is
	// made up (nil for a schedule of steps).
	Sym *sim.SymTiming `json:"symmetric,omitempty"`
	// TimeUs, AlgBw and BusBw are the headline (Headline): the time
	// nccl-tests would print per operation, the one whatif's simulated
	// column gives. Result is operation 0's own simulation, which differs
	// where a group or several kernel plans are timed.
	TimeUs float64 `json:"time_us"`
	AlgBw  float64 `json:"algbw"`
	BusBw  float64 `json:"busbw"`
}

// Headline is the report's time per operation and nccl-tests' algbw and
// busbw at it: the group's (Group.PerOpUs) where the operation was issued
// in a group of several or its works fill several kernel plans (a large
// AllToAll, G-SCHED-P2P-1: each plan's kernel runs after the one before),
// else the operation's simulated time (Result).
func (r *Report) Headline() (us, algbw, busbw float64) {
	if g := r.Group; g != nil && (len(g.Ops) > 1 || len(g.Kernels) > 1) {
		return g.PerOpUs, g.AlgBw, g.BusBw
	}
	return r.Result.TimeUs, r.Result.AlgBw, r.Result.BusBw
}

// setHeadline fills TimeUs, AlgBw and BusBw (Headline).
func (r *Report) setHeadline() *Report {
	r.TimeUs, r.AlgBw, r.BusBw = r.Headline()
	return r
}

// WriteReport prints the report as gatesim sim does; trace is the file
// the timeline went to ("" none).
func WriteReport(w io.Writer, r *Report, trace string) {
	res := r.Result
	works := ""
	if r.Sym != nil && r.Sym.Works > 1 {
		works = fmt.Sprintf(" (the %d works of one symmetric kernel plan)", r.Sym.Works)
	}
	fmt.Fprintf(w, "%s %s%s %s %s on %s (%d node(s) × %d GPUs), NCCL %s\n", res.Func, human(float64(res.Bytes)), works, r.Op.DataType.Short(), r.Op.RedOp.Short(),
		r.Machine.Name, r.Machine.Nodes, r.Machine.GPUsPerNode, r.NCCL)
	used := fmt.Sprintf("%d channels used", res.Channels)
	switch {
	case strings.HasPrefix(r.Selection, "p2p/"):
		used = fmt.Sprintf("the schedule spans the %d p2p channels", res.Channels)
	case r.Sym != nil && res.Channels == 0:
		used = "copy engines, no block"
	case r.Sym != nil:
		used = fmt.Sprintf("%d blocks", res.Channels)
	}
	fmt.Fprintf(w, "  selection        %s (%s; %s)\n", r.Selection, r.ChosenBy, used)
	fmt.Fprintf(w, "  NCCL's choice    %s\n", r.NCCLChoice)
	us, algbw, busbw := r.Headline()
	switch g := r.Group; {
	case g != nil && len(g.Ops) > 1:
		// nccl-tests times the group: its time per operation
		fmt.Fprintf(w, "  simulated time   %.2f µs per operation of the group of %d (launch %s; op 0's run %.2f µs)\n", us, len(g.Ops), r.Launch, res.TimeUs)
	case g != nil && len(g.Kernels) > 1:
		fmt.Fprintf(w, "  simulated time   %.2f µs in %d kernel plans (launch %s; plan 0's run %.2f µs)\n", us, len(g.Kernels), r.Launch, res.TimeUs)
	default:
		fmt.Fprintf(w, "  simulated time   %.2f µs (launch %s)\n", us, r.Launch)
	}
	fmt.Fprintf(w, "  profile          %s\n", r.Profile)
	fmt.Fprintf(w, "  algbw            %.2f GB/s\n", algbw)
	fmt.Fprintf(w, "  busbw            %.2f GB/s\n", busbw)
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
	if len(r.P2PTasks) > 0 {
		fmt.Fprintf(w, "  send/recv tasks  rank 0's, %s (round: of comm->p2pSchedule, -1 before 2.22.3):\n", spec.PlanPhrase(tuning.P2PTasksPlan(r.P2PTasks)))
		for _, t := range r.P2PTasks {
			fmt.Fprintf(w, "    %s %d %s %s round %d on %d channel(s) %s", t.Dir, t.Peer, human(float64(t.Bytes)), t.Proto, t.Round, t.NChannels, spec.FormatP2PChannels(t.Channels))
			if t.Registered != "" {
				fmt.Fprintf(w, " registered %s", t.Registered)
			}
			fmt.Fprintln(w)
		}
	}
	if g := r.Group; g != nil {
		// a send/recv group's works share each kernel (SimulateP2PGroup)
		p2p := len(r.P2PTasks) > 0
		how, longest := "each on the channels NCCL's plan gave it", "longest operation"
		if p2p {
			how, longest = "their send/recv works in the kernels of NCCL's plan, each op timed as its first kernel", "kernel's time"
		}
		for _, o := range g.Ops {
			if o.Kernel != "" {
				how += "; a symmetric plan's operations in one kernel launch on its blocks, each timed as that kernel"
				break
			}
		}
		lone := len(g.Ops) == 1 && len(g.Kernels) <= 1 // alone (captured, registered, window): no group's member
		if lone {
			fmt.Fprintf(w, "  plan             the operation alone, %s buffers, in place %v, on the channels NCCL's plan gave it:\n", g.Buffers, g.InPlace)
		} else {
			fmt.Fprintf(w, "  group            %d operation(s), %s buffers, in place %v, %s:\n", len(g.Ops), g.Buffers, g.InPlace, how)
		}
		for i, o := range g.Ops {
			plan := ""
			if len(g.Kernels) > 1 {
				plan = fmt.Sprintf(" (plan %d)", o.Plan)
			}
			what := o.Algo.String() + "/" + o.Proto.String()
			switch {
			case p2p:
				what = "send/recv"
			case o.Kernel != "":
				what = o.Kernel
			}
			if lone {
				// the headline's time (o.TimeUs is the operation outside a timed batch)
				fmt.Fprintf(w, "    %s channels %s: %.2f µs\n", what, spec.ChannelRange(o.ChannelLo, o.ChannelHi), r.Result.TimeUs)
				continue
			}
			fmt.Fprintf(w, "    op %-3d %s channels %s%s: %.2f µs\n", i, what, spec.ChannelRange(o.ChannelLo, o.ChannelHi), plan, o.TimeUs)
		}
		if len(g.Kernels) > 1 {
			fmt.Fprintf(w, "  kernels          %d plans launched one after another (G-SCHED-BUDGET-1):\n", len(g.Kernels))
			for _, k := range g.Kernels {
				fmt.Fprintf(w, "    plan %-3d %d operation(s), launch %.2f µs, longest %.2f µs\n", k.Plan, k.Ops, k.LaunchUs, k.LongestUs)
			}
		}
		if !lone {
			kernels := "its kernel's launch and its " + longest
			if len(g.Kernels) > 1 {
				kernels = "each kernel's launch and its " + longest
			}
			fmt.Fprintf(w, "  per operation    %.2f µs (nccl-tests' time: the host issuing the %d operations against the device running %s or the links and channels its operations share, over a timed batch of groups, per operation)\n", g.PerOpUs, len(g.Ops), kernels)
		}
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
	if t := r.Sym; t != nil {
		works, net := "", ""
		if t.Works > 1 {
			works = fmt.Sprintf(" for %d works in one launch", t.Works)
		}
		if t.NetUs > 0 || t.FillUs > 0 {
			net = fmt.Sprintf(", network %.2f µs + pipeline fill %.2f µs", t.NetUs, t.FillUs)
		}
		fmt.Fprintf(w, "  symmetric model  launch %.2f µs + %.2f µs of synchronisation + data %.2f µs%s (%s-bound: nvlink %.2f µs, busiest block %.2f µs, local copy %.2f µs%s)\n",
			t.LaunchUs, t.SyncUs, max(t.LinkUs, t.BlockUs, t.LocalUs, t.NetUs+t.FillUs), works, t.Bound, t.LinkUs, t.BlockUs, t.LocalUs, net)
		if trace != "" {
			fmt.Fprintf(w, "  trace            %s (Chrome trace JSON: open in https://ui.perfetto.dev)\n", trace)
		}
		return
	}
	reps := 0
	for _, x := range res.Representatives {
		reps += x
	}
	fmt.Fprintf(w, "  simulated        %d events; %d channel class(es) %v standing for %d channels; %d representative ranks of %d per channel class %v\n",
		res.Events, res.ChannelClasses, res.ChannelMultiplicity, res.Channels, reps, res.Ranks, res.Representatives)
	if trace != "" {
		fmt.Fprintf(w, "  trace            %s (Chrome trace JSON: open in https://ui.perfetto.dev)\n", trace)
	}
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
