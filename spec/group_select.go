package spec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// Decisions of a whole group: every operation goes through the
// per-operation gates (Select), then the group is planned as ncclGroupEnd
// plans it (ChooseGroup: the size sorter, aggregation, getAlgoInfo per
// aggregate, buffer registration, the channel partition of
// scheduleCollTasksToPlan). A group of one operation decides exactly as
// the operation alone.

// groupRun is one operation of a planned group as the group rules see
// it: its index, the group's size, its buffers, the plan's choice for it
// and its decision.
// FormatIndices writes operation indices in their order, a run of three
// or more consecutive ones as "a..b" ("0 1", "0..4095", "0..2 5 7..9"),
// so that an aggregate of a group of thousands says its members in a few
// bytes.
func FormatIndices(xs []int) string {
	var parts []string
	for i := 0; i < len(xs); {
		j := i + 1
		for j < len(xs) && xs[j] == xs[j-1]+1 {
			j++
		}
		if j-i >= 3 {
			parts = append(parts, fmt.Sprintf("%d..%d", xs[i], xs[j-1]))
		} else {
			for _, x := range xs[i:j] {
				parts = append(parts, strconv.Itoa(x))
			}
		}
		i = j
	}
	return strings.Join(parts, " ")
}

// member is how a verdict names the operation: "op i of n: " in a group
// of several, nothing for an operation alone (a group of one, as a lone
// call NCCL plans in its own ncclGroupEnd), which is no group's member.
func (g *groupRun) member() string {
	if g.n <= 1 {
		return ""
	}
	return fmt.Sprintf("op %d of %d: ", g.i, g.n)
}

type groupRun struct {
	i, n   int
	op     GroupOp
	choice *tuning.OpChoice
	dec    *Decision
	out    []Verdict
	// planErr is the group's plan failure no operation's own decision
	// explains (a work FIFO too small for the group), nil when none.
	planErr *NCCLError
	// p2pWhy says why a p2p operation's send/recv tasks were not placed
	// (a communicator beyond the planner), empty otherwise.
	p2pWhy string
	// rma is a one-sided call's facts (G-RMA-OP-1), nil for the others;
	// winHostElastic NCCL_ELASTIC_BUFFER_REGISTER for G-WIN-HOST-1.
	rma            *rmaRun
	winHostElastic *int64
	// oneRPN is comm->isOneRPN (one rank per node), for the
	// registration rules.
	oneRPN bool
	// devComm is a device communicator call's (G-DEVCOMM-1).
	devComm *devCommRun
	// destroy is an ncclDevCommDestroy call's (G-DEVCOMM-DESTROY-1).
	destroy *devCommDestroyRun
	// winSegForm is Consts.WinSegments and winSegSym symmetric support,
	// for G-WIN-SEG-1.
	winSegForm int
	winSegSym  bool
}

func (g *groupRun) emit(v Verdict) { g.out = append(g.out, v) }

// groupPlanDoc22 is G-GROUP-PLAN-1's text from 2.22.3's enqueue rewrite;
// groupPlanDoc20 (2.20.3–2.21.5) and groupPlanDoc18 (2.18.1–2.19.4) are the
// schedules before it, which pass numPipeOps differently.
const (
	groupPlanDoc22 = `ncclGroupEnd plans all collectives of the group at once (ncclPrepareTasks): tasks are sorted by size, binned by (function, reduction, datatype), aggregated within 4× of the smallest traffic of a bin, and each aggregate gets one cost-table choice on its summed size. numPipeOps is not the aggregate's length but the group's crude tasks-per-channel estimate, divUp(the group's collective tasks, comm->nChannels), the same for every aggregate: 1 unless the group holds more collectives than channels. scheduleCollTasksToPlan then splits each kind's channels between the tasks in proportion to their traffic, so an operation of a group runs on a range of channels, not on all of them.`
	groupPlanDoc20 = `ncclGroupEnd plans all collectives of the group at once (scheduleCollTasksToPlan): the queue is sorted by function, datatype, reduction and count, descending; each run of one function, reduction and datatype is one aggregate, decided once on its summed count with numPipeOps 1 (getTunerInfo and topoGetAlgoInfo of the aggregate), and every member takes its algorithm, protocol and threads; each member's channels are getChannnelThreadInfo's on its own size.`
	groupPlanDoc18 = `ncclGroupEnd plans all collectives of the group at once (scheduleCollTasksToPlan): adjacent queued tasks (call order) of one function, datatype and reduction form an aggregate. With two members or more getAlgoInfo decides it once on the summed count with numPipeOps = opPerChannel = DIVUP(nAggChannels, min(comm->nChannels, nAggChannels)), nAggChannels summing, over the members after the first, DIVUP(bytes, bytePerChannel) clamped to 1..nChannels; every member takes that algorithm, protocol and threads, on DIVUP(its nBytes, bytePerChannel) channels (at most nvlsChannels for NVLS and NVLSTree). A task alone is decided with numPipeOps 1.`
)

// groupPlanRule is G-GROUP-PLAN-1 with the per-operation line the release
// prints (2.22.3's per-aggregate time line; 2.24+'s channel range) and its
// text (groupPlanDoc22 and the schedules before it).
func groupPlanRule(ref Ref, logLine, doc string) *Rule {
	return &Rule{
		ID: "G-GROUP-PLAN-1", Layer: LayerGroup, Title: "a group is planned together",
		Doc: doc,
		Ref: ref, Logs: []string{logLine},
		group: func(g *groupRun) {
			ch := g.choice
			if g.planErr != nil {
				g.dec.Err, g.dec.DecidedBy = g.planErr, "G-GROUP-PLAN-1"
				g.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("%s%s/%s, and the group's tasks fit no kernel plan: ncclGroupEnd fails with %s", g.member(), ch.Algo, ch.Proto, g.planErr),
					Log: []string{g.planErr.Message}})
				return
			}
			why := fmt.Sprintf("%s%s/%s on channels %s", g.member(), ch.Algo, ch.Proto, ChannelRange(ch.ChannelLo, ch.ChannelHi))
			if len(ch.Aggregate) > 1 {
				why += fmt.Sprintf(", decided with ops [%s] on %d bytes (numPipeOps %d)", FormatIndices(ch.Aggregate), ch.NBytes, ch.NumPipeOps)
			}
			v := Verdict{Outcome: Info, Why: why}
			if ch.Line != "" {
				v.Log = []string{ch.Line}
			}
			g.emit(v)
		},
	}
}

// schedBudgetRule is G-SCHED-BUDGET-1, the kernel-plan budget of the
// 2.22.3 enqueue rewrite; the tuning model fills the plans (schedule,
// PlanUse) and the verdict reports the operation's plan.
var schedBudgetRule = &Rule{
	ID: "G-SCHED-BUDGET-1", Layer: LayerGroup, Title: "a group's collectives fill kernel plans within a budget",
	Doc: `From 2.22.3 ncclLaunchPrepare fills kernel plans one after another, each with as many of the queued collectives as its budget holds (scheduleCollTasksToPlan, testBudget): the work batches (16 bytes per channel and batch) must fit comm->workArgsBytes less the 32-byte ncclDevKernelArgs header, and the tasks' work structs either fit there with them or outside the arguments, in half the work FIFO (NCCL_WORK_FIFO_BYTES, default 1 MiB, a power of 2, else the default with a WARN; at most 1 GiB) or, for a group captured into a CUDA graph (a persistent plan), in 1 GiB. comm->workArgsBytes is NCCL_WORK_ARGS_BYTES (unset: unlimited) at most ncclMaxKernelArgsSize, 4 KiB at every tag. A task's work is an ncclDevWorkColl (64 bytes in 2.22.3, 96 from 2.23.4, 128 from 2.30.3), or an ncclDevWorkCollReg (256, 288, 320) when NVLS registered its buffers; a batch holds work of one type and kernel function, up to 1 KiB. finishPlan keeps the work in the kernel arguments when header, batches and work fit comm->workArgsBytes, else in the FIFO (persistent: a buffer of the graph's own); the work and batches are all the plan's, the send/recv works scheduleP2pTasksToPlan adds after the collectives (an ncclDevWorkP2p each, addP2pToPlan) as much as theirs. A group whose tasks do not fit one plan launches several kernels. 2.26.5–2.26.6 default NCCL_WORK_FIFO_BYTES to -1: no work FIFO on an MNNVL communicator of sm100 GPUs (the work must fit the arguments), 1 MiB elsewhere; a value given is kept, not a power of 2 too, at most 1 GiB. 2.18.1–2.21.5 count ncclWork structs against NCCL_WORK_FIFO_DEPTH instead (G-GROUP-PLAN-1).`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "ncclLaunchPrepare, scheduleCollTasksToPlan, finishPlan"},
	group: func(g *groupRun) {
		ch := g.choice
		if ch.WorkStorage == "" || ch.SidePath != "" {
			g.emit(Verdict{Outcome: Skip, Why: "not in a plan of the cost table's collectives"})
			return
		}
		g.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("plan %d of %d task(s), this one's work %d bytes; work in %s, kernel arguments %d bytes", ch.Plan, ch.Works, ch.WorkBytes, ch.WorkStorage, ch.ArgsBytes)})
	},
}

// regIPCRule is G-REG-IPC-1.
var regIPCRule = &Rule{
	ID: "G-REG-IPC-1", Layer: LayerGroup, Title: "user buffers registered over IPC",
	Doc: `From 2.24.3, a Ring or Tree task on Simple whose buffers are captured into a CUDA graph (NCCL_GRAPH_REGISTER, default 1) or registered with ncclCommRegister (NCCL_LOCAL_REGISTER, default 1) is registered over IPC when the node's peers are direct P2P (not ReduceScatter, not Reduce or in-place AllReduce on Ring, not in-place Tree); on one node such a task with 16 < nMaxChannels ≤ 24 runs on 16 channels.`,
	Ref: Ref{Tag: "v2.24.3-1", File: "src/register/coll_reg.cc", Func: "ncclRegisterCollBuffers"},
	group: func(g *groupRun) {
		if g.choice.Registered == "IPC" {
			g.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("buffers registered over IPC: %d channels", g.choice.NChannels)})
			return
		}
		g.emit(Verdict{Outcome: Skip, Why: "buffers not registered over IPC"})
	},
}

// regUBRule is G-REG-UB-1, the user-buffer paths of NVLS, CollNet and
// Ring's network peers; the tuning model counts the channels (RegNVLS,
// RegCollNet, RegNetRing).
var regUBRule = &Rule{
	ID: "G-REG-UB-1", Layer: LayerGroup, Title: "NVLS and CollNet user buffers registered",
	Doc: `An NVLS or NVLSTree task whose buffers are registered with ncclCommRegister (NCCL_LOCAL_REGISTER, default 1) or captured into a CUDA graph (NCCL_GRAPH_REGISTER, default 1), on a communicator with nvlsRegSupport (no MNNVL; no two ranks in one process, G-PROC-1, unless NCCL_SINGLE_PROC_MEM_REG_ENABLE=1 from 2.28.3), runs on fewer channels: 2.19.1 5 for ReduceScatter, else 4, within NCCL_MIN_CTAS..NCCL_MAX_CTAS; 2.19.3–2.19.4 the same at most nvlsChannels; 2.20.3–2.24.3 one node 5 or 4, several nodes 6, within the CTA bounds; 2.25.1–2.26.x on sm100+ 6 or 8, several nodes 7; from 2.27.3 ncclNvlsRegResourcesQuery's blocks over the node's NVLS heads. From 2.21.5 a CollNetDirect or CollNetChain task registered with the CollNet plugin on a communicator of one rank per node (not PreMulSum or SumPostDiv) runs on one channel (2.21.5–2.22.3 within the CTA bounds). From 2.24.3 a Ring/Simple AllGather or Broadcast registered with the network on a communicator of one rank per node, of several nodes, whose ring connections all use GPU Direct RDMA (not an UNPACK network) runs on one channel; from 2.30.7 on comm->minNetCount channels (the NICs a rank takes to match its GPU's bandwidth) within the CTA bounds. 2.18.x registers neither. An NVLS-registered task's buffers are bound to the multicast object, so the kernel (src/device/all_reduce.h, all_gather.h, reduce_scatter.h RunWorkColl<*, NVLS> and <AllReduce, NVLS_TREE>) reads the inputs and writes the outputs through it: the scatter into the rank's NVLS buffer and the gather out of it move nothing (nelem 0), and their warps go to the other roles (AllReduce: scatter and gather one warp each; AllGather and ReduceScatter: one warp for the sync, from 2.27.3 roundUp(nHeads × 4, 32) threads).`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "registerIntraNodeBuffers"},
	group: func(g *groupRun) {
		if r := g.choice.Registered; r == "NVLS" || r == "CollNet" || r == "NET" {
			why := fmt.Sprintf("buffers registered with %s: %s on %d channel(s)", r, g.choice.Algo, g.choice.NChannels)
			if r == "NVLS" {
				why += "; bound to the multicast object, the kernel's scatter and gather move nothing"
			}
			g.emit(Verdict{Outcome: Pass, Why: why})
			return
		}
		g.emit(Verdict{Outcome: Skip, Why: "no NVLS, CollNet or network-registered Ring task with registered or graph-captured buffers"})
	},
}

// regSkipDoc22 is G-REG-SKIP-1 from 2.19.1 to 2.22.3, where NVLS and
// CollNet register.
const regSkipDoc22 = `Registration NCCL tries (G-REG-UB-1) and that fails leaves the task unregistered, on the channels of its unregistered decision. 2.19.1–2.22.3: an NVLS or NVLSTree task on cudaMalloc buffers (alloc cudamalloc) keeps its channels: binding them to the NVLS multicast object fails (it takes cuMem memory of NCCL's handle type, as ncclMemAlloc gives) and NCCL falls back. CollNet registers either kind.`

// regSkipRule is G-REG-SKIP-1: registration NCCL tries that fails, for
// how the buffers were allocated or the environment; the tuning model
// says why (OpChoice.RegRefused).
var regSkipRule = &Rule{
	ID: "G-REG-SKIP-1", Layer: LayerGroup, Title: "user-buffer registration falls back",
	Doc: regSkipDoc22,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/transport/nvls.cc", Func: "tryRegisterBuffer"},
	group: func(g *groupRun) {
		if why := g.choice.RegRefused; why != "" {
			why = "registration fails: " + why + "; the task runs unregistered"
			if s := g.choice.RegSilent; s != "" {
				why += "; the failed " + s + " registration prints no line at this release"
			}
			g.emit(Verdict{Outcome: Fail, Why: why})
			return
		}
		g.emit(Verdict{Outcome: Skip, Why: "no registration NCCL tried failed"})
	},
}

// GroupDecision is NCCL's decision for every operation of one group.
type GroupDecision struct {
	Launch Launch `json:"launch"`
	// Ops are the decisions in call order (the group expanded by Agg).
	Ops []*Decision `json:"ops"`
	// Choices are the tuning model's per-operation plans (channel ranges,
	// aggregates, registration), nil when the model did not run.
	Choices []tuning.OpChoice `json:"choices,omitempty"`
	// Lines are the per-operation lines rank 0 prints, in order.
	Lines []string `json:"lines,omitempty"`
	// Err is what ncclGroupEnd returns (the first bin without an
	// algorithm fails the whole group).
	Err *NCCLError `json:"error,omitempty"`
	// Plans is the number of plans the group launches (NCCL's nPlans):
	// its RMA plans, then copy-engine, symmetric and kernel plans.
	Plans int `json:"plans"`
	// Budget is what each plan of the cost table's collectives took of its
	// kernel-plan budget (G-SCHED-BUDGET-1, 2.22.3+), in launch order.
	Budget []tuning.PlanUse `json:"budget,omitempty"`
	// Traces holds each operation's gate trace (Select's) followed by the
	// group verdicts.
	Traces []Trace `json:"-"`
}

// SelectGroup decides ops issued in one group as launch says. An error is
// input NCCL's API would refuse before any gate (as Select's).
func (c *Comm) SelectGroup(ops []GroupOp, launch Launch) (*GroupDecision, error) {
	return c.selectGroup(ops, launch, nil)
}

// SelectAfter is SelectGroup on a communicator that made the calls before
// first, in order, each outside a group (a launch of its own): their
// decisions, then the group's. The communicator's device communicators
// carry from one to the next (G-DEVCOMM-SHARE-1, G-DEVCOMM-DESTROY-1).
func (c *Comm) SelectAfter(before, ops []GroupOp, launch Launch) ([]*GroupDecision, *GroupDecision, error) {
	st := &devCommState{}
	out := make([]*GroupDecision, len(before))
	for i := range before {
		g, err := c.selectGroup(before[i:i+1], Launch{}, st)
		if err != nil {
			return nil, nil, &BeforeError{Call: i, Err: AloneError(err)}
		}
		out[i] = g
	}
	g, err := c.selectGroup(ops, launch, st)
	return out, g, err
}

// selectGroup is SelectGroup on a communicator whose earlier device
// communicators left st (nil: none).
func (c *Comm) selectGroup(ops []GroupOp, launch Launch, st *devCommState) (*GroupDecision, error) {
	all, err := launch.Expand(ops)
	if err != nil {
		return nil, err
	}
	if err := checkPeers(all, c.NRanks); err != nil {
		return nil, err
	}
	if err := c.checkWindows(all); err != nil {
		return nil, err
	}
	if hasRMA(all) {
		return c.selectRMA(all, launch, st)
	}
	return c.planGroup(all, launch, 0)
}

// planGroup decides the group's operations other than one-sided calls
// (all, expanded and checked), whose plans launch after the firstPlan RMA
// plans ncclLaunchPrepare queues first: one numbering of the group's plans
// in launch order (tuning.ChooseGroupAfter).
func (c *Comm) planGroup(all []GroupOp, launch Launch, firstPlan int) (*GroupDecision, error) {
	if err := c.checkHostWindows(all, launch); err != nil {
		return nil, err
	}
	if err := c.checkSegmentWindows(all); err != nil {
		return nil, err
	}
	out := &GroupDecision{Launch: launch, Ops: make([]*Decision, len(all)), Traces: make([]Trace, len(all))}
	for i, g := range all {
		d, opTr, err := c.SelectOp(g.Op, true) // one recording walk: the group reads every trace
		if err != nil {
			return nil, opErr(i, "%w", err)
		}
		out.Ops[i], out.Traces[i] = d, append(slices.Clip(c.Trace), opTr...) // owned: a group rewrites its verdicts
	}
	if c.Err != nil || c.Model == nil {
		return out, nil
	}
	tops := make([]tuning.Call, len(all))
	graph := launch.Mode == LaunchGraph
	for i, g := range all {
		cn, nv := c.opSupport(g.Op)
		tops[i] = tuning.Call{Op: g.Op, CollNetOK: cn, NVLSOK: nv, InPlace: g.InPlace, Buffers: g.Buffers, Graph: graph, Alloc: g.Alloc}
		tops[i].RegBuff = c.Model.RegBuff(tops[i])
		if c.ofiTuner != nil {
			// the modelled tuner's answer for the operation alone (its
			// call on an aggregate's summed bytes is not modelled)
			tops[i].Tuned = out.Ops[i].Tuner.modelEdit()
		}
	}
	gc, err := tuning.ChooseGroupAfter(c.Model, tops, firstPlan)
	if err != nil {
		return nil, err
	}
	out.Choices, out.Lines, out.Err, out.Plans, out.Budget = gc.Ops, gc.Lines, gc.Err, gc.Plans, gc.Budget
	planErr := out.Err
	for i := range all {
		ch, d := &gc.Ops[i], out.Ops[i]
		if d.DecidedBy == "G-GROUP-PLAN-1" && (len(all) > 1 || ch.Registered != "" || ch.DecidedBy == tuning.RuleCTAPolicy || ch.SidePath != "") {
			// its plan failed alone (Select); in this group the group's plan decides
			d.Err, out.Traces[i] = nil, dropVerdict(out.Traces[i], "G-GROUP-PLAN-1")
		}
		if ch.SidePath != "" && c.Tuner != nil {
			// a task on a side path never reaches the cost table: the lone
			// decision's getCollInfo is not made for it, only the probe's
			if d.Err != nil && d.DecidedBy == "G-TUNER-CALL-1" {
				d.Err = nil
			}
			out.Traces[i] = replaceVerdict(out.Traces[i], "G-TUNER-CALL-1", symProbeTunerVerdict(ch))
		}
		if d.Err != nil || ch.Err != nil {
			planErr = nil // an operation's own failure fails the group
		}
	}
	for i := range all {
		ch, d := &gc.Ops[i], out.Ops[i]
		if d.Err != nil || d.Discarded || ch.Discarded || ch.OneRank || ch.P2P {
			continue
		}
		if all[i].Alloc == AllocCuMemSegments {
			// the window's registration comes before the collective
			if out.Traces[i] = c.segmentWindow(all[i], d, out.Traces[i]); d.Err != nil {
				continue
			}
		}
		d.Plan = ch.Plan
		if ch.SidePath != "" {
			d.Algo, d.Proto, d.Candidates, d.Costs, d.Lazy, d.Part = AlgoNone, ProtoNone, nil, nil, nil, nil
			d.NChannels, d.NThreads, d.ChannelLo, d.ChannelHi, d.TimeUs = 0, 0, 0, 0, 0
			if ch.SidePath == "allgatherv" {
				d.DecidedBy, d.Kernel, d.Undecided = "G-SEL-SIDE-1", "", ""
				why := "the group's broadcasts come from several roots: NCCL runs them as one AllGatherV outside the cost table; this broadcast is empty, on no channel"
				if ch.NChannels > 0 {
					d.Algo, d.Proto, d.NChannels, d.NThreads, d.ChannelLo, d.ChannelHi = ch.Algo, ch.Proto, ch.NChannels, ch.NThreads, ch.ChannelLo, ch.ChannelHi
					why = fmt.Sprintf("the group's broadcasts come from several roots: NCCL runs them as one AllGatherV outside the cost table, %s/%s as an AllGather of the plan's largest broadcast would run, %d threads; this broadcast's parts fill channels %s (plan %d)",
						ch.Algo, ch.Proto, ch.NThreads, ChannelRange(ch.ChannelLo, ch.ChannelHi), ch.Plan)
				}
				outcome := Pass
				if ch.Err != nil {
					d.Err, outcome = ch.Err, Fail
					why = "the group's broadcasts come from several roots: NCCL runs them as one AllGatherV outside the cost table, and the AllGather pick for its plan fails: " + ch.Err.String()
				}
				out.Traces[i] = sideVerdict(out.Traces[i], Verdict{Outcome: outcome, Why: why})
				continue
			}
			d.DecidedBy, d.Kernel, d.P2P = "G-SEL-SIDE-1", ch.SidePath, nil
			why := "window buffers: NCCL copies with the copy engines (CTA policy ZERO); no kernel, no channel"
			facts := c.ctaPolicy
			if ch.SidePath == "hierarchical-ce" {
				why = "window buffers across LSA teams: NCCL runs a hierarchical copy-engine collective, the copy engines inside each team and the RMA proxy between teams (CTA policy ZERO); no kernel, no channel"
			} else if !c.Model.In.CTAPolicyZero {
				facts = nil
				why = "window buffers: NCCL copies with the copy engines (an AllGather above NCCL_SYM_CE_THRESHOLD elements on an sm100+ all-NVLink node); no kernel, no channel"
			}
			if ch.Kernel != "" {
				d.Kernel = ch.Kernel
				d.NChannels, d.NThreads, d.ChannelLo, d.ChannelHi, d.TimeUs = ch.NChannels, ch.NThreads, ch.ChannelLo, ch.ChannelHi, float64(ch.TimeUs)
				d.CTABytes, d.SymChannels, d.SymParts = ch.CTABytes, ch.SymChannels, ch.SymParts
				why = fmt.Sprintf("%s: symmetric kernel %s on %d blocks of %d threads, channels %s, at most %d bytes per block; plan %d of %d tasks in %d bytes of kernel arguments (est. %.1f µs)",
					symBuffers(all[i].Buffers), ch.Kernel, ch.NChannels, ch.NThreads, ChannelRange(ch.ChannelLo, ch.ChannelHi), ch.CTABytes, ch.Plan, ch.Works, ch.ArgsBytes, ch.TimeUs)
			}
			if ch.Err != nil {
				d.Err, d.Kernel, why = ch.Err, "", symBuffers(all[i].Buffers)+": "+ch.Err.Message
				if ch.DecidedBy == tuning.RuleTunerCall {
					d.DecidedBy = "G-TUNER-CALL-1" // the probe's getCollInfo failed
				}
			}
			if ch.Kernel != "" || ch.Err != nil {
				facts = nil
			}
			if ch.Kernel != "" && c.Model.HierCENoRMACtx() && (all[i].Op.Func == AllGather || all[i].Op.Func == AllToAll) {
				// no RMA context took the hierarchical copy engines away
				why += " (no hierarchical CE: config.numRmaCtx is 0)"
				facts = []Fact{c.setting("NCCL_NUM_RMA_CTX")}
			}
			d.Undecided = ""
			v := Verdict{Outcome: Pass, Why: why, Facts: facts}
			if ch.Err != nil {
				v.Outcome = Fail
			}
			if ch.Line != "" {
				v.Log = []string{ch.Line}
			}
			out.Traces[i] = c.sideVerdictOrAdd(out.Traces[i], v)
			if pv, ok := c.ctaPolicyGroupVerdict(all[i], tops[i], ch); ok {
				out.Traces[i] = replaceVerdict(out.Traces[i], "G-SEL-CTAPOL-1", pv)
			}
			if ch.Kernel != "" && ch.Err == nil {
				// the only group rule a symmetric plan's task meets
				gr := &groupRun{i: i, n: len(all), op: all[i], choice: ch, dec: d}
				out.Traces[i] = c.runGroupRule(gr, "G-SCHED-SYMRANGE-1", out.Traces[i])
			}
			continue
		}
		if all[i].Alloc == AllocCuMemHost {
			out.Traces[i] = c.hostWindow(all[i], d, out.Traces[i])
			if d.Err != nil {
				continue
			}
		}
		if all[i].Buffers == BuffersWindow || ch.SymFallback != "" {
			why := c.noSymmetricPath(len(all))
			if across := c.symAcrossTeams(all[i].Op); across != "" && (c.Model.Tuning.SymGrouped || len(all) == 1) {
				why = across
			}
			if all[i].Alloc == AllocCuMemHost {
				why = "a window with host-memory segments: NCCL takes neither the copy engines nor a symmetric kernel (ncclDevrWindowHasSysmemSegment): the cost table decides"
			}
			if ch.SymFallback != "" {
				why = symBuffers(all[i].Buffers) + ": " + ch.SymFallback + ": NCCL falls back to the cost table"
			}
			out.Traces[i] = sideVerdict(out.Traces[i], Verdict{Outcome: Fail, Why: why})
		}
		ctaPol := ch.DecidedBy == tuning.RuleCTAPolicy
		lone := len(all) == 1 && ch.Registered == "" && !ctaPol
		if !lone {
			fillDecision(ch, d)
			d.Costs, d.Lazy = nil, nil // the lone operation's table does not apply
			if ch.Err == nil && !ctaPol {
				d.DecidedBy = "G-GROUP-PLAN-1"
			}
		} else {
			d.ChannelLo, d.ChannelHi = ch.ChannelLo, ch.ChannelHi
		}
		d.Chunk, d.ChunkArgs = tuning.OpChunk{}, tuning.ChunkArgs{}
		if d.OK() && d.Algo == ch.Algo && d.Proto == ch.Proto {
			d.Chunk, _ = c.Model.OpChunk(ch)
			d.ChunkArgs = ch.ChunkArgs()
		}
		if pv, ok := c.ctaPolicyGroupVerdict(all[i], tops[i], ch); ok {
			out.Traces[i] = replaceVerdict(out.Traces[i], "G-SEL-CTAPOL-1", pv)
		}
		gr := &groupRun{i: i, n: len(all), op: all[i], choice: ch, dec: d, planErr: planErr}
		out.Traces[i] = c.runGroupRules(gr, false, out.Traces[i])
	}
	if gc.Err == nil {
		c.decideP2P(all, gc.Ops, out)
	}
	return out, nil
}

// decideP2P places the group's send/recv tasks after its collectives and
// runs the send/recv group rules on every p2p operation.
func (c *Comm) decideP2P(all []GroupOp, choices []tuning.OpChoice, out *GroupDecision) {
	if e := selfUnmatched(all, choices, c.NRanks); e != nil {
		out.Err = e
		for i := range all {
			if d := out.Ops[i]; choices[i].P2P && d.Err == nil {
				d.Err = e
				gr := &groupRun{i: i, n: len(all), op: all[i], choice: &choices[i], dec: d, planErr: e}
				out.Traces[i] = c.runGroupRules(gr, true, out.Traces[i])
			}
		}
		return
	}
	graph := out.Launch.Mode == LaunchGraph
	placed, added, work, why := c.placeP2P(all, choices, out.Budget, out.Plans, graph)
	out.Plans += added
	if len(work) > 0 {
		// finishPlan sizes a plan on its send/recv works too
		var changed []int
		out.Budget, changed = c.Model.JoinP2P(out.Budget, work, graph)
		for _, k := range changed {
			u := &out.Budget[k]
			for i := range choices {
				if ch := &choices[i]; !ch.P2P && ch.WorkStorage != "" && ch.Plan == u.Plan {
					ch.ArgsBytes, ch.WorkStorage = u.ArgsBytes, u.Storage
				}
			}
		}
	}
	for i := range all {
		d := out.Ops[i]
		if !choices[i].P2P || d.Err != nil || d.P2P == nil {
			continue
		}
		if placed != nil {
			pp := *d.P2P // the decision's path may be shared: copy before adding the tasks
			pp.Tasks = placed[i]
			d.P2P = &pp
			d.Plan = tuning.P2PTasksPlan(pp.Tasks)
		}
		gr := &groupRun{i: i, n: len(all), op: all[i], choice: &choices[i], dec: d, p2pWhy: why}
		out.Traces[i] = c.runGroupRules(gr, true, out.Traces[i])
	}
}

// runGroupRules appends to tr the verdicts of the release's group rules
// for one operation: the send/recv rules for a p2p operation, the others
// for a collective.
func (c *Comm) runGroupRules(gr *groupRun, p2p bool, tr Trace) Trace {
	for _, id := range c.rs.Group {
		if rule := c.rs.rules[id]; rule.p2p == p2p && !rule.onDemand {
			tr = c.runGroupRule(gr, id, tr)
		}
	}
	return tr
}

// runGroupRule appends to tr the verdicts of one group rule, if the
// release has it.
func (c *Comm) runGroupRule(gr *groupRun, id RuleID, tr Trace) Trace {
	rule, ok := c.rs.rules[id]
	if !ok {
		return tr
	}
	gr.out = gr.out[:0]
	gr.oneRPN = c.Model != nil && c.Model.In.MaxLocalRanks == 1
	rule.group(gr)
	for _, v := range gr.out {
		v.Rule, v.Layer, v.Ref, v.Scope = id, rule.Layer, &rule.Ref, "op"
		tr = append(tr, v)
	}
	return tr
}

// DecideCalls decides every collective a call script launches (CheckGroup's
// results), each communicator name standing for comm: every launch — an
// outermost ncclGroupEnd, or a collective outside a group — is planned per
// communicator as one group, in call order. The map is keyed by call index.
func (c *Comm) DecideCalls(calls []Call, res []CallResult, launch Launch) (map[int]*Decision, error) {
	if len(res) != len(calls) {
		return nil, fmt.Errorf("decide calls: %d results for %d calls", len(res), len(calls))
	}
	out := map[int]*Decision{}
	// each communicator's device communicators share its GIN from one
	// launch to the next
	shared := map[string]*devCommState{}
	for _, r := range res {
		if len(r.Launched) == 0 {
			continue
		}
		byComm := map[string][]int{}
		var names []string
		for _, i := range r.Launched {
			if i < 0 || i >= len(calls) || calls[i].Op == nil {
				return nil, fmt.Errorf("decide calls: launched call %d is not a collective", i)
			}
			n := calls[i].Comm
			if _, ok := byComm[n]; !ok {
				names = append(names, n)
			}
			byComm[n] = append(byComm[n], i)
		}
		for _, n := range names {
			idx := byComm[n]
			ops := make([]GroupOp, len(idx))
			for k, i := range idx {
				ops[k] = GroupOp{Op: *calls[i].Op, P2P: calls[i].P2P, RMA: calls[i].RMA, DevComm: calls[i].DevComm, DevCommDestroy: calls[i].DevCommDestroy, Buffers: calls[i].Buffers, Alloc: calls[i].Alloc, InPlace: calls[i].InPlace}
			}
			if shared[n] == nil {
				shared[n] = &devCommState{}
			}
			g, err := c.selectGroup(ops, Launch{Mode: launch.Mode}, shared[n])
			if err != nil {
				return nil, launchError(calls, r.Call.Kind == CallGroupEnd, idx, err)
			}
			for k, i := range idx {
				out[i] = g.Ops[k]
			}
		}
	}
	return out, nil
}

// CallError is an error of one call of a script: Line is the call's own
// line (the operation a group error names, not the group's first).
type CallError struct {
	Line int
	Err  error
}

func (e *CallError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *CallError) Unwrap() error { return e.Err }

// launchError is err of the launch of calls idx (one communicator's
// operations of a group the script wrote, or one call alone) as a
// CallError on the line of the operation it names: "group op N" stays only
// when the script wrote the group.
func launchError(calls []Call, group bool, idx []int, err error) error {
	at := idx[0]
	var g *GroupOpError
	if errors.As(err, &g) && g.Op >= 0 && g.Op < len(idx) {
		at = idx[g.Op]
	}
	if !group {
		err = AloneError(err)
	}
	return &CallError{Line: calls[at].Line, Err: err}
}

// ScriptError is err of the script file: a CallError as FILE:LINE: (as
// ParseCalls says its errors), any other error as it is.
func ScriptError(file string, err error) error {
	var ce *CallError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s:%d: %w", file, ce.Line, ce.Err)
	}
	return err
}

// noSymmetricPath says why window buffers went through the cost table in a
// group of n collectives.
func (c *Comm) noSymmetricPath(n int) string {
	t := c.Model.Tuning
	switch { // a release without symmetric kernels has no windows (checkWindows)
	case !t.SymGrouped && n > 1:
		return fmt.Sprintf("window buffers in a group of %d operations: this release tries a symmetric kernel only for a group of exactly one collective and no p2p: the cost table decides", n)
	}
	nvlink := ""
	if t.SymAllNVLink {
		nvlink = ", and every GPU pair of the node one NVLink hop"
	}
	return "window buffers, but no symmetric path takes this operation (symmetric support needs one node or GIN on every node, direct P2P, windows and cuMem on; kernels exist for AllGather and float sums of AllReduce/ReduceScatter (across nodes the GIN kernels of 2.29.2+), NCCL_SYM_KERNEL and NCCL_SYM_GIN_KERNELS_ENABLE allowing" + nvlink + "): the cost table decides"
}

// symAcrossTeams says why window buffers of op on a communicator of
// several LSA teams (nodes) take no symmetric path: the release's
// symmetric memory stays inside one node, GIN does not carry it, or no
// GIN kernel takes the operation; "" on one LSA team.
//
// Ref: v2.28.9-1 src/sym_kernels.cc ncclSymkMask (nNodes > 1 drops
// kernelMask_LSA; v2.27.3-1 src/init.cc symmetricSupport needs nNodes 1);
// v2.29.2-1 src/init.cc initTransportsRank (symmetricSupport needs
// ginSupport across nodes), src/sym_kernels.cc ncclSymkMask (kernelMask_Gin
// alone across LSA teams); v2.30.7-1 the same with globalGinSupport
func (c *Comm) symAcrossTeams(op Op) string {
	in := &c.Model.In
	if in.OneLSATeam() {
		return ""
	}
	g := c.GIN()
	switch {
	case c.rs.Consts.GinSymSupport == 0:
		return fmt.Sprintf("window buffers on %d nodes: this release runs its symmetric kernels inside one node only and has none across nodes: the cost table decides", in.NNodes)
	case !in.SymmetricSupport && !g.Symmetric:
		return fmt.Sprintf("window buffers on %d nodes: symmetric memory across nodes needs GIN, and %s: the cost table decides", in.NNodes, g.Why)
	case !in.SymmetricSupport:
		return ""
	}
	return fmt.Sprintf("window buffers on %d nodes: across LSA teams only the GIN kernels run (NCCL_SYM_KERNEL and NCCL_SYM_GIN_KERNELS_ENABLE allowing), and none takes %s of %s %s: the cost table decides", in.NNodes, op.Func, op.DataType, op.RedOp)
}

// checkWindows refuses window buffers at a release without
// ncclCommWindowRegister: such a program does not build against its
// nccl.h, so no decision is NCCL's.
func (c *Comm) checkWindows(all []GroupOp) error {
	if c.Model == nil || c.Model.Tuning.Symmetric {
		return nil
	}
	for i, g := range all {
		if g.Buffers == BuffersWindow {
			return opArgErr(i, ArgBuffers, "buffers window at NCCL %s: this release has no ncclCommWindowRegister (windows start with NCCL 2.27.3); expected buffers user or registered", c.rs.Version)
		}
	}
	return nil
}

// symBuffers names an operation's buffers in a G-SEL-SIDE-1 verdict.
func symBuffers(b Buffers) string {
	if b == BuffersWindow {
		return "window buffers"
	}
	return "buffers outside windows"
}

// SymmetricOutsideWindows says an operation on buffers outside symmetric
// windows may still run a symmetric kernel on this communicator (2.29.2+:
// NCCL_SYM_NOWIN_ENABLE=1 or a kernel forced by NCCL_SYM_KERNEL, with
// symmetric support): its decision is its group's plan (SelectGroup), not
// the lone cost table Select answers.
func (c *Comm) SymmetricOutsideWindows() bool {
	if c.Model == nil {
		return false
	}
	t, in := c.Model.Tuning, &c.Model.In
	if !t.SymNoWin || !t.Symmetric || !in.SymmetricSupport || in.CrossClique {
		return false
	}
	return in.SymForced() || (in.SymNoWinEnable != nil && *in.SymNoWinEnable != 0)
}

// IssuedAlone says Select alone decides op issued as is on this
// communicator: is.Alone, unless op is a collective a symmetric kernel
// may run on buffers outside windows (SymmetricOutsideWindows), or a
// SendRecv or AllToAll, whose send/recv tasks only the group planner
// places (G-SCHED-P2P-1): their decision is their group's plan
// (SelectIssue), alone a group of one.
func (c *Comm) IssuedAlone(op Op, is Issue) bool {
	if !is.Alone() {
		return false
	}
	switch op.Func {
	case AllReduce, AllGather, ReduceScatter:
		return !c.SymmetricOutsideWindows()
	case SendRecv, AllToAll:
		return false
	}
	return true
}

// sideVerdictOrAdd is sideVerdict for a trace that may lack the verdict:
// an AllToAll's (Select plans it on the p2p path without the per-operation
// gates) gets G-SEL-SIDE-1 appended when the copy engines take it.
func (c *Comm) sideVerdictOrAdd(tr Trace, v Verdict) Trace {
	if _, ok := tr.Find("G-SEL-SIDE-1"); ok {
		return sideVerdict(tr, v)
	}
	r, ok := c.rs.rules["G-SEL-SIDE-1"]
	if !ok {
		return tr
	}
	v.Rule, v.Layer, v.Ref, v.Scope = r.ID, r.Layer, &r.Ref, "op"
	return append(tr, v)
}

// sideVerdict replaces the operation's G-SEL-SIDE-1 verdict (Select knows
// no buffers and answers "skip") with what the group's buffers decide.
func sideVerdict(tr Trace, v Verdict) Trace { return replaceVerdict(tr, "G-SEL-SIDE-1", v) }

// symProbeTunerVerdict is G-TUNER-CALL-1 for a task on a side path: the
// tuner sees only the symmetric task list's probe on the piece's head
// task (ch.SymProbeNBytes, 2.29.2+), or no call.
func symProbeTunerVerdict(ch *tuning.OpChoice) Verdict {
	if ch.SymProbeNBytes == 0 {
		return Verdict{Outcome: Skip, Why: "the task takes " + ch.SidePath + " outside the cost table: NCCL calls no getCollInfo for it"}
	}
	facts := []Fact{F("nBytes", ch.SymProbeNBytes), F("numPipeOps", 1)}
	why := "ncclMakeSymmetricTaskList probes ncclGetAlgoInfo on the piece's head task alone before it keeps the LL kernel: the tuner's getCollInfo is called once for it"
	if ch.Err != nil && ch.DecidedBy == tuning.RuleTunerCall {
		return Verdict{Outcome: Fail, Why: why + ", and " + ch.Err.Message + ": NCCLCHECK returns it from ncclGroupEnd", Facts: facts}
	}
	return Verdict{Outcome: Info, Why: why, Facts: facts}
}

// dropVerdict removes the operation's verdicts of rule id.
func dropVerdict(tr Trace, id RuleID) Trace {
	out := tr[:0]
	for _, v := range tr {
		if v.Rule != id || v.Scope != "op" {
			out = append(out, v)
		}
	}
	return out
}

// replaceVerdict replaces the operation's verdict of rule id with v.
func replaceVerdict(tr Trace, id RuleID, v Verdict) Trace {
	for i := range tr {
		if tr[i].Rule == id && tr[i].Scope == "op" {
			v.Rule, v.Layer, v.Ref, v.Scope = tr[i].Rule, tr[i].Layer, tr[i].Ref, "op"
			tr[i] = v
			return tr
		}
	}
	return tr
}

// DecideScript decides the launched collectives of a call script on one
// machine for release v (gatesim group --system): the communicator every
// name in the script stands for, then DecideCalls; and what each call
// returns once its operations are decided (LaunchResults).
func DecideScript(v Version, sys *System, env Env, calls []Call, res []CallResult, launch Launch) (map[int]*Decision, []CallResult, error) {
	rs, err := Load(v)
	if err != nil {
		return nil, nil, err
	}
	comm, err := Init(rs, sys, env)
	if err != nil {
		return nil, nil, err
	}
	dec, err := comm.DecideCalls(calls, res, launch)
	if err != nil {
		return nil, nil, err
	}
	return dec, LaunchResults(res, dec), nil
}

// LaunchResults is res with the errors of the decided operations returned
// where NCCL returns them. ncclEnqueueCheck records a call's own failure
// (ArgsCheck, taskAppend: a decision error whose Call is the operation's
// API) in the thread's group error, so the call returns it and so does the
// ncclGroupEndInternal that launches it: the call itself outside a group,
// the outermost ncclGroupEnd inside one. A failure of the launch (Call
// "ncclGroupEnd": no algorithm left, a plan that cannot be built) is
// returned by the launching call alone. The first error in call order
// wins; a result other than ncclSuccess (a group rule's error, a
// nonblocking communicator's ncclInProgress, whose error comes from
// ncclCommGetAsyncError) stands. res is not changed.
//
// Ref: v2.28.9-1 src/enqueue.cc ncclEnqueueCheck (ncclGroupErrCheck, then
// ncclGroupEndInternal); src/group.cc ncclGroupEndInternal (ncclGroupError)
func LaunchResults(res []CallResult, dec map[int]*Decision) []CallResult {
	out := slices.Clone(res)
	fail := func(k int, e *NCCLError) {
		if k >= 0 && k < len(out) && out[k].Result == Success {
			out[k].Result = e.Result
		}
	}
	for k, r := range res {
		for _, i := range r.Launched {
			d := dec[i]
			if d != nil && d.DevCommRelease != nil && d.DevCommRelease.Undefined != "" && i >= 0 && i < len(out) {
				out[i].Effect = "undefined: devComm " + strconv.Itoa(d.DevCommRelease.Of) + " is not live (" + d.DevCommRelease.Undefined + ")"
			}
			if d == nil || d.Err == nil || i < 0 || i >= len(out) {
				continue
			}
			if d.Err.Call != "ncclGroupEnd" && out[i].Result == Success {
				fail(i, d.Err)
				out[i].Effect = "not enqueued: the call fails"
			}
			fail(k, d.Err)
		}
	}
	return out
}

// symRangeDoc is G-SCHED-SYMRANGE-1's text; symRangeRule builds the rule
// for a tag, the decode's difference in its Doc.
const symRangeDoc = `From 2.28.3 ncclSymmetricTaskScheduler lays a symmetric plan's tasks over the kernel's blocks in order, cellPerChannel = ⌈⌈Σ cell-aligned counts / blocks⌉ / cell⌉ 1 KiB cells per block, and records per block only the last task it reaches (workHi) and where in that task it stops, as a 16-bit fraction (fracHi = ⌈0x10000 × cells done / task cells⌉ − 1), and per task the blocks it owns (sChannelId, nChannels: the blocks it starts on or fills, and its tail block when at most one cell of it stays free or no symmetric task follows in the group's queue). The kernel decodes the fractions back into elements (⌊fraction × task cells / 0x10000⌋ cells): the blocks a task owns share its range evenly, a block holding a task's head or tail beside other tasks moves that piece alone (the LL kernels' singleWork and the GIN kernels' forEachWorkNoFusion: every block its own range). The fraction rounds, so a task of more than 65536 cells leaves a block up to task cells / 65536 cells more or less than its cells, and the launch covers the blocks the cells reach (curChannel).`

func symRangeRule(ref Ref, decode string) *Rule {
	return &Rule{
		ID: "G-SCHED-SYMRANGE-1", Layer: LayerGroup, Title: "a symmetric plan's bytes split over its blocks by fractional work ranges",
		Doc: symRangeDoc + " " + decode,
		Ref: ref,
		group: func(g *groupRun) {
			ch := g.choice
			if ch.Kernel == "" || len(ch.SymParts) == 0 || ch.Err != nil {
				return
			}
			g.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("symmetric plan %d on %d of %d blocks, at most %d bytes per block; this task's bytes: %s",
				ch.Plan, ch.SymChannels, ch.NChannels, ch.CTABytes, tuning.FormatSymParts(ch.SymParts))})
		},
	}
}
