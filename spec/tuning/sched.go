package tuning

// NCCL's tuning model, part 4: a group of collectives from ncclGroupEnd to
// the per-task [TUNING] lines — collTaskAppend (traffic), the size sorter,
// ncclPrepareTasks (bins, 4× aggregation, one getAlgoInfo per aggregate) and
// scheduleCollTasksToPlan (channel ranges, kernel-plan budget).

import (
	"fmt"
	"slices"
	"sort"

	"github.com/gatesim/gatesim/nccl"
)

// OpChoice is NCCL's decision for one collective of a group.
type OpChoice struct {
	Op nccl.Op `json:"op"`
	// Index is the operation's position in the group.
	Index int `json:"index"`
	// Discarded: count 0, NCCL drops the operation (no task, no line).
	Discarded bool `json:"discarded,omitempty"`
	// OneRank: nRanks == 1, NCCL copies the buffer (ncclLaunchOneRank)
	// without a cost table.
	OneRank bool `json:"oneRank,omitempty"`
	// P2P: a SendRecv or an AllToAll that became send/recv tasks
	// (taskAppend), planned on the p2p channels after the collectives,
	// outside the cost table (spec places them with tuning.P2PComm).
	P2P bool `json:"p2p,omitempty"`
	// Bytes is count × datatype size, the number the 2.24+ line prints.
	Bytes int64 `json:"bytes"`
	// NBytes is the size the aggregate was tuned for (×nRanks for
	// AllGather/ReduceScatter, summed over the aggregate).
	NBytes int64 `json:"nBytes"`
	// Aggregate lists the group indices decided together with this one
	// (tasks of one bin within 4× of the smallest), itself included; nil
	// when the task was decided alone.
	Aggregate  []int `json:"aggregate,omitempty"`
	NumPipeOps int   `json:"numPipeOps"`
	// Cost is the cost table the choice was made on (after the tuner), in
	// µs per cell; a negative cell cannot be chosen. Reason says why, or
	// that the tuner wrote the cell; Explain spells both out.
	Cost   [nccl.NumAlgos][nccl.NumProtos]float32    `json:"cost"`
	Reason [nccl.NumAlgos][nccl.NumProtos]CostReason `json:"reason"`
	Algo   nccl.Algo                                 `json:"algo"`
	Proto  nccl.Proto                                `json:"proto"`
	// TimeUs is NCCL's own estimate of the chosen cell (µs).
	TimeUs float32 `json:"timeUs"`
	// Backup is 2.22.3's silent Ring backup (G-SEL-BACKUP-1).
	Backup bool `json:"backup,omitempty"`
	// Restored: the chosen cell is a Ring cell G-TUNE-RINGRESTORE-1 brought
	// back (2.19.1–2.23.4) because NCCL_ALGO/NCCL_PROTO left the function
	// no cell (Model.Restored); the decision's fallback carries it out.
	Restored bool `json:"-"`
	// RingKept: the chosen cell is a Ring cell 2.18.x kept for a function
	// other than AllReduce although NCCL_ALGO turned Ring off
	// (Model.RingKept, G-TUNE-EN-1); a fallback too.
	RingKept bool `json:"-"`
	// TunerNChannels is the tuner's channel count (0: none).
	TunerNChannels int `json:"tunerNChannels,omitempty"`
	// NChannels is the task's nMaxChannels, NThreads its thread count
	// (nWarps × 32).
	NChannels int `json:"nChannels"`
	NThreads  int `json:"nThreads"`
	// ChannelLo..ChannelHi is the channel range the scheduler gave the task.
	ChannelLo int `json:"channelLo"`
	ChannelHi int `json:"channelHi"`
	// Part is the task's channel split (zero for CollNet tasks, which walk
	// the whole buffer on every channel).
	Part CBDPart `json:"part"`
	// SidePath is set when the operation leaves the cost table: "symmetric"
	// (a symmetric kernel on window buffers) a "copy-engine" (a CE
	// collective), "hierarchical-ce" (2.30.7+: a CE collective across LSA
	// teams, the RMA proxy between them) or "allgatherv" (2.29.2+: broadcasts of a group from
	// several roots run as one AllGatherV: Algo Ring, the protocol, threads
	// and ChannelLo..ChannelHi of ncclScheduleBcastTasksToPlan, NChannels
	// the channels in that range a part of the broadcast fills, Plan its
	// plan)
	// (G-SEL-SIDE-1). Kernel is the symmetric kernel NCCL
	// picked (NChannels its blocks, NThreads its threads, TimeUs its
	// estimate, ChannelLo..ChannelHi the blocks that move any of its
	// bytes); empty on the copy engines.
	SidePath string `json:"sidePath,omitempty"`
	Kernel   string `json:"kernel,omitempty"`
	// SymFallback says why window buffers a symmetric kernel could take
	// went back to the cost table (2.29.2+), empty otherwise.
	SymFallback string `json:"symFallback,omitempty"`
	// SymProbeNBytes is the nBytes of the extra ncclGetAlgoInfo
	// ncclMakeSymmetricTaskList made on this task, the head of its piece
	// (numPipeOps 1): a loaded tuner's getCollInfo sees one call more
	// (2.29.2+, G-SEL-SIDE-1, G-TUNER-CALL-1); 0 when none.
	SymProbeNBytes int64 `json:"symProbeNBytes,omitempty"`
	// SymProbeCTAPolicy: that probe's choice was the CTA policy's
	// NVLS/Simple (G-SEL-CTAPOL-1); internal to the verdict, not an answer field.
	SymProbeCTAPolicy bool `json:"-"`
	// CTABytes is the most bytes one block of the symmetric kernel
	// works on: its share of the plan's SymParts (2.27: the even share of
	// the buffer its blocks walk round robin). ArgsBytes is the
	// plan's kernel arguments (kernelArgsSize) and Works how many tasks
	// the plan carries: a symmetric bin larger than the arguments hold is
	// split, and a cost-table plan takes tasks while its budget lasts
	// (G-SCHED-BUDGET-1, 2.22.3+). There WorkBytes is the task's work
	// struct (an NVLS-registered task's ncclDevWorkCollReg is larger) and
	// WorkStorage where its plan's work went: "args", "fifo" or
	// "persistent".
	CTABytes    int64  `json:"ctaBytes,omitempty"`
	ArgsBytes   int    `json:"argsBytes,omitempty"`
	Works       int    `json:"works,omitempty"`
	WorkBytes   int    `json:"workBytes,omitempty"`
	WorkStorage string `json:"workStorage,omitempty"`
	// SymChannels is the nchannels the plan's [Symmetric] line prints:
	// 2.28.3+ curChannel, the channels its cells fill (fewer than its
	// blocks when the cells run out); 2.27 its blocks.
	SymChannels int `json:"symChannels,omitempty"`
	// SymParts are the pieces of the operation's bytes the symmetric
	// kernel's blocks move, as they decode the plan's fractional work
	// ranges (G-SCHED-SYMRANGE-1); 2.27: every block shares the whole
	// buffer.
	SymParts []SymPart `json:"symParts,omitempty"`
	// Registered names the buffer registration NCCL made for the task
	// ("IPC"), empty when none (G-REG-IPC-1). RegRefused says why NCCL
	// did not register buffers it tried to (G-REG-SKIP-1): the task keeps
	// the unregistered decision.
	Registered string `json:"registered,omitempty"`
	RegRefused string `json:"regRefused,omitempty"`
	// RegFailed names the registrations NCCL called for the task and that
	// failed, in NCCL's order, joined by "+" ("NVLS": nvlsRegisterBuffer
	// found the buffers unbindable; "IPC": the IPC export failed;
	// "CollNet": collnetRegisterBuffer found no GPU Direct RDMA;
	// "IPC+CollNet": a CollNetDirect task whose peers' IPC export and
	// CollNet's own registration both failed), empty when it registered,
	// or when RegRefused is a registration NCCL never called. RegSilent
	// names those of them whose failure prints no registration line at the
	// release (before 2.24.3: the IPC export fails silently, the NVLS bind
	// prints only its "Cuda failure"); the others print their "failed to
	// ... register" line (RegResults).
	RegFailed string `json:"regFailed,omitempty"`
	RegSilent string `json:"regSilent,omitempty"`
	// RegPeers is "IPC" when a CollNetDirect task's buffers were also
	// registered over IPC with the node's P2P peers (regBufType
	// NCCL_IPC_REG_BUFFER beside any CollNet registration,
	// G-REG-COLLNET-IPC-1): the kernel reads and writes their user
	// buffers directly; the channels are unchanged.
	RegPeers string `json:"regPeers,omitempty"`
	// ChunkNBytes and ChunkNChannels are the bytes and channels of the
	// task's one calcCollChunking call before 2.22.3 (computeColl,
	// computeCollChunkInfo; G-SEL-CHUNK-3): 2.20.3–2.21.5 size a task cut
	// at maxBytesPerChannel on its aggregate's nBytes; 0 from 2.22.3,
	// where each channel part is sized on its own (OpChunk).
	ChunkNBytes    int64 `json:"chunkNBytes,omitempty"`
	ChunkNChannels int   `json:"chunkNChannels,omitempty"`
	// Plan is the kernel plan (0-based) the task went into.
	Plan int `json:"plan"`
	// Line is the per-operation [TUNING] line rank 0 prints for this task
	// (2.24+), or for its aggregate (2.22.3 / 2.23.4, on the aggregate's
	// first task); empty otherwise.
	Line string `json:"line,omitempty"`
	// Err is the error the call returns: no algorithm available for its bin
	// (the whole group fails), or an fp8 reduction below sm90; Warn is
	// NCCL's WARN text.
	Err       *nccl.NCCLError `json:"error,omitempty"`
	Warn      string          `json:"warn,omitempty"`
	DecidedBy nccl.RuleID     `json:"decidedBy,omitempty"`
}

// GroupChoice is the outcome of one ncclGroupStart/End of collectives.
type GroupChoice struct {
	// Ops are the decisions in the group's order.
	Ops []OpChoice `json:"ops"`
	// Lines are the per-operation [TUNING] lines in the order rank 0 prints
	// them, and the WARN text of a failure last.
	Lines []string `json:"lines,omitempty"`
	// Err is the error ncclGroupEnd returns: the first bin without an
	// algorithm fails the whole group; an API error of one of the calls (an
	// fp8 reduction below sm90) is reported and nothing is decided (NCCL
	// records it as the group's error and abandons the group).
	Err *nccl.NCCLError `json:"error,omitempty"`
	// Plans is the number of plans the group launches: the plans before
	// the model's (ChooseGroupAfter: the RMA plans), then the copy-engine,
	// symmetric and kernel plans, numbered so in launch order.
	Plans int `json:"plans"`
	// Budget is what each plan of the cost-table collectives took of its
	// kernel-plan budget, in launch order (2.22.3+; the symmetric, copy-engine
	// and AllGatherV plans are not listed).
	Budget []PlanUse `json:"budget,omitempty"`
}

// ChooseOp is one collective alone in its group (numPipeOps 1): the cost
// table, the choice, channels and threads, the channel range and the line
// NCCL prints. The NCCL outcome (including "no algorithm") is in the
// OpChoice; error is for input NCCL would not accept from the API (an
// unknown function or datatype, a negative count). The choice is a value,
// made on the caller's stack: a choice allocates only its line.
func ChooseOp(m *Model, op Call) (OpChoice, error) {
	var ch OpChoice
	// the task and the choice stay on the stack: the choice is tied to the
	// task here (a store through a pointer would move it to the heap), and
	// chooseOp keeps no pointer to either
	t := tuningTask{choice: &ch}
	if err := m.chooseOp(op, &t); err != nil {
		return OpChoice{}, err
	}
	return ch, nil
}

// ChooseInto is ChooseOp writing into ch: spec's Select keeps the choice in
// its own per-operation state.
func (m *Model) ChooseInto(op Call, ch *OpChoice) error {
	*ch = OpChoice{} // newTask fills a zero choice
	t := tuningTask{choice: ch}
	return m.chooseOp(op, &t)
}

// chooseOp is ChooseOp for a zero task t whose choice (zero) is set. It
// keeps no pointer to either: the planners that keep their tasks run on a
// task and a choice of their own (chooseKept).
func (m *Model) chooseOp(op Call, t *tuningTask) error {
	if err := m.checkChoose(); err != nil {
		return err
	}
	keep, err := m.newTask(0, op, t.choice, t)
	if err != nil || !keep {
		return err
	}
	switch {
	case t.sym && !m.Tuning.SymGrouped:
		m.symmetricAlone(t, nil)
		return nil
	case t.sym || m.Tuning.Schedule != ScheduleR22:
		return m.chooseKept(op, t.choice)
	}
	return m.chooseRest(t)
}

// chooseKept is chooseOp for the planners that keep their tasks (the
// symmetric planner from 2.28.3, the schedule before 2.22.3), on a task
// and a choice on the heap made again from op, as chooseOp made the
// caller's; the choice is copied into ch at the end.
func (m *Model) chooseKept(op Call, ch *OpChoice) error {
	h := new(OpChoice)
	t := &tuningTask{choice: h}
	if _, err := m.newTask(0, op, h, t); err != nil {
		return err
	}
	var err error
	if t.sym {
		err = m.chooseOpSym(t)
	} else {
		m.scheduleLegacyOne(t)
	}
	*ch = *h
	return err
}

// chooseOpSym is chooseOp's symmetric path from 2.28.3 for its one task,
// which goes back to the cost table when no symmetric kernel takes it.
func (m *Model) chooseOpSym(t *tuningTask) error {
	one := [1]*tuningTask{t}
	bins := [1][]*tuningTask{one[:]}
	_, back, err := m.symmetric(bins[:], 0, nil)
	if err != nil {
		t.choice.Err = err
	}
	if len(back) == 0 {
		return nil
	}
	if m.Tuning.Schedule != ScheduleR22 {
		m.scheduleLegacyOne(t)
		return nil
	}
	return m.chooseRest(t) // back to the cost table
}

// chooseRest is chooseOp's cost-table path for its one task from 2.22.3.
// It keeps no pointer to the task or its choice.
func (m *Model) chooseRest(t *tuningTask) error {
	// one task is one bin, and the queue
	tasks := [1]*tuningTask{t}
	bins := [1][]*tuningTask{tasks[:]}
	if nerr := m.prepareTasks(bins[:], 1, nil); nerr != nil {
		return nil
	}
	m.registerTasks(tasks[:])
	_, err := m.schedule(tasks[:], nil, nil)
	return err
}

// scheduleLegacyOne schedules one task before 2.22.3 (scheduleLegacy keeps
// its tasks).
func (m *Model) scheduleLegacyOne(t *tuningTask) {
	// a decision's error is in the choice already; a work FIFO too small
	// for the task is the call's error too
	if _, err := m.scheduleLegacy([]*tuningTask{t}, nil); err != nil && t.choice.Err == nil {
		t.choice.Err = err
	}
}

// ChooseGroup decides a group of collectives as ncclGroupEnd does:
// collTaskAppend, the size sorter, ncclPrepareTasks (bins by function,
// device reduction and datatype; aggregation within 4×), getAlgoInfo per
// aggregate, and scheduleCollTasksToPlan (channel packing, kernel-plan
// budget). Its send/recv operations are marked P2P; spec places their
// tasks after the collectives (tuning.P2PComm.PlaceGroup).
//
// Ref: v2.28.9-1 src/enqueue.cc ncclPrepareTasks, scheduleCollTasksToPlan
// (v2.22.3-1 likewise)
func ChooseGroup(m *Model, ops []Call) (*GroupChoice, error) {
	return ChooseGroupAfter(m, ops, 0)
}

// ChooseGroupAfter is ChooseGroup for a group whose first firstPlan plans
// are not the model's: ncclLaunchPrepare queues a group's RMA plans
// (one-sided calls, 2.29.2+) before its copy-engine, symmetric and kernel
// plans, so those are numbered from firstPlan on and Plans counts every
// plan of the group.
//
// Ref: v2.29.2-1 src/enqueue.cc ncclLaunchPrepare (to v2.30.7-1 alike)
func ChooseGroupAfter(m *Model, ops []Call, firstPlan int) (*GroupChoice, error) {
	if err := m.checkChoose(); err != nil {
		return nil, err
	}
	if firstPlan < 0 {
		return nil, fmt.Errorf("group: %d plans before the group's: expected 0 or more", firstPlan)
	}
	out := &GroupChoice{Ops: make([]OpChoice, len(ops)), Plans: firstPlan}
	store := make([]tuningTask, len(ops))
	tasks := make([]*tuningTask, 0, len(ops))
	var symTasks []*tuningTask
	nP2P := 0
	for i, o := range ops {
		ch := &out.Ops[i]
		keep, err := m.newTask(i, o, ch, &store[i])
		if err != nil {
			return nil, err
		}
		if keep {
			store[i].choice = ch
			m.symOutsideWindow(&store[i])
		}
		if ch.Err != nil && out.Err == nil {
			out.Err = ch.Err
		}
		switch {
		case keep && (store[i].sym || store[i].symBack):
			symTasks = append(symTasks, &store[i])
		case keep:
			tasks = append(tasks, &store[i])
		case ch.SidePath != "":
			// a copy-engine collective is a plan of its own, launched
			// before every other plan of the group, in call order
			ch.Plan = out.Plans
			out.Plans++
		case ch.P2P:
			nP2P++
		}
	}
	var bcasts []*tuningTask
	tasks, bcasts = m.allGatherV(tasks)
	if len(bcasts) > 0 {
		// the AllGatherV plans follow every collective plan
		defer func() {
			if out.Err == nil {
				n, err := m.scheduleBcast(bcasts, out.Plans)
				out.Plans += n
				out.Err = err // NCCL fails the whole group (NCCLCHECKGOTO)
			}
		}()
	}
	if out.Err != nil || len(tasks)+len(symTasks) == 0 {
		return out, nil
	}
	if !m.Tuning.SymGrouped && len(symTasks) > 0 {
		// 2.27: a kernel only for a group of exactly one collective and no
		// p2p; otherwise window buffers go through the cost table like any
		if len(tasks)+len(symTasks) == 1 && nP2P == 0 {
			m.symmetricAlone(symTasks[0], &out.Lines)
			symTasks[0].choice.Plan = out.Plans
			out.Plans++
			return out, nil
		}
		tasks = tasks[:0]
		for i := range store {
			t := &store[i]
			if t.choice == nil || t.choice.Discarded || t.choice.OneRank || t.choice.Err != nil {
				continue
			}
			if t.sym {
				t.sym, t.choice.SidePath = false, ""
			}
			if t.choice.SidePath == "" {
				tasks = append(tasks, t)
			}
		}
		symTasks = nil
	}
	// ncclPrepareTasks takes the symmetric tasks out first (and fails the
	// group when a bin has no kernel); their plans come before the
	// collectives' plans
	var symLines []string
	// the symmetric and collective plans follow the copy-engine plans
	cePlans, symPlans := out.Plans, 0
	var back []*tuningTask
	if len(symTasks) > 0 {
		symBins := [][]*tuningTask{symTasks}
		if len(symTasks) > 1 {
			symBins = tuningBins(symTasks, true)
		}
		n, b, nerr := m.symmetric(symBins, cePlans, &symLines)
		if nerr != nil {
			out.Err = nerr
			out.Lines = append(out.Lines, symLines...)
			return out, nil
		}
		out.Plans, symPlans, back = out.Plans+n, n, b
	}
	if len(tasks)+len(back) == 0 {
		out.Lines = append(out.Lines, symLines...)
		return out, nil
	}
	if m.Tuning.Schedule != ScheduleR22 {
		plans, nerr := m.scheduleLegacy(tasks, &out.Lines)
		if nerr != nil {
			out.Err = nerr
			return out, nil
		}
		for _, t := range tasks {
			if t.choice.Plan >= 0 {
				t.choice.Plan += out.Plans
			}
		}
		out.Plans += plans
		return out, nil
	}
	var binLists [][]*tuningTask
	switch {
	case len(back) > 0:
		// the tasks the symmetric list sent back follow the others, in
		// its order: the cost table's binning walks them after the
		// sorter's tasks
		walk := append(tuningSorted(tasks), back...)
		tasks = walk
		binLists = tuningBinWalk(walk, false)
	case len(tasks) > 1:
		binLists = tuningBins(tasks, false)
	default:
		binLists = [][]*tuningTask{tasks}
	}
	if nerr := m.prepareTasks(binLists, len(tasks), &out.Lines); nerr != nil {
		out.Err = nerr
		return out, nil
	}
	queue := tuningQueue(binLists, len(tasks))
	out.Lines = append(out.Lines, symLines...)
	m.registerTasks(queue)
	plans, err := m.schedule(queue, &out.Lines, &out.Budget)
	if err != nil {
		return nil, err
	}
	for _, t := range queue { // the copy-engine and symmetric plans launch first
		if t.choice.Plan >= 0 {
			t.choice.Plan += cePlans + symPlans
		}
	}
	for i := range out.Budget {
		out.Budget[i].Plan += cePlans + symPlans
	}
	out.Plans += plans
	return out, nil
}

// symmetric is ncclMakeSymmetricTaskList and ncclSymmetricTaskScheduler for
// the group's symmetric tasks: bins by (function, reduction, datatype) in
// the sorter's order, cut where the kernel arguments are full
// (symWorksPerPlan), one kernel pick per piece over its cell-aligned
// counts, one plan per piece whose cells fill the kernel's blocks in
// order. It returns the plans and the tasks that went back to the cost
// table (symmetricBack), or NCCL's error when a piece has no kernel (the
// WARN goes to lines).
func (m *Model) symmetric(bins [][]*tuningTask, firstPlan int, lines *[]string) (int, []*tuningTask, *nccl.NCCLError) {
	s := m.symk()
	per := m.symWorksPerPlan()
	var back []*tuningTask
	var kept []symPiece
	for _, whole := range bins {
		if whole[0].symBack && !m.Tuning.SymLLLegacy {
			// a bin outside windows no kernel can keep: every piece goes
			// back, in the bin's order (2.29.2–2.29.3 still pick a kernel
			// per piece below, for the probe an LL pick makes first)
			back = append(back, whole...)
			continue
		}
		for len(whole) > 0 {
			bin := whole[:min(per, len(whole))]
			whole = whole[len(bin):]
			p, err := m.symmetricPick(s, bin, lines)
			if err != nil {
				return 0, nil, err
			}
			if p.bin == nil {
				back = append(back, bin...)
				continue
			}
			kept = append(kept, p)
		}
	}
	// ncclSymmetricTaskScheduler lays the plans out once the list is made:
	// the group's last kept task is the one after which the queue is empty
	for i := range kept {
		m.symmetricPlan(&kept[i], firstPlan+i, i == len(kept)-1, lines)
	}
	return len(kept), back, nil
}

// symmetricBack is 2.29.2's fallback: a piece with no kernel left, or
// whose unforced LL kernel the cost table would not run as LL for its
// first task alone (2.29.2–2.29.3 on windows; buffers outside windows
// in every release that lists them), goes back to the cost table; why
// says which, "" when the piece stays symmetric. An LL kernel also falls
// back when one thread drives several GPUs (comm->intraRanks > 1) without
// NCCL_SINGLE_PROC_MEM_REG_ENABLE: on buffers outside windows always,
// and 2.29.2–2.29.3 unforced on windows too; on buffers outside windows
// an unforced one without NCCL_SYM_NOWIN_ENABLE=1.
//
// The cost table's answer is the probe, an ncclGetAlgoInfo on the head
// task alone that calls a loaded tuner's getCollInfo once more
// (G-TUNER-CALL-1): 2.29.2–2.29.3 make it for every LL pick of every
// listed piece, forced or not, in windows or not (symBack bins too),
// before any other test; later releases only where the answer decides. Its failure fails the group where the release returns it
// (err, SymProbeErr), and sends the piece back otherwise. head's
// SymProbeNBytes records the call.
//
// Ref: v2.29.2-1 src/scheduler/symmetric_sched.cc ncclMakeSymmetricTaskList
// (v2.29.7-1: buffers in windows on both sides keep the LL kernel and
// make no probe; v2.30.3-1: NOWARN discards the probe's failure)
func (m *Model) symmetricBack(head *tuningTask, k SymKernel, ok, forced bool) (why string, err *OpChoice) {
	if !m.Tuning.SymFallback {
		return "", nil
	}
	in, win := &m.In, head.op.Buffers == nccl.BuffersWindow
	if !ok {
		if !win {
			return "buffers outside windows take only the LL kernels, and none is left for its piece", nil
		}
		return "no symmetric kernel is left for its piece", nil
	}
	ll := symMaskLL>>k&1 != 0
	var probe OpChoice
	probed := false
	if ll && m.Tuning.SymLLLegacy {
		if probe, probed = m.symProbe(head), true; probe.Err != nil && m.Tuning.SymProbeErr {
			return "", &probe
		}
	}
	if ll && in.SharedProcess && !in.SingleProcMemReg && (!win || (m.Tuning.SymLLLegacy && !forced)) {
		return fmt.Sprintf("the symmetric kernel would be %s, an LL kernel, and one thread drives several GPUs (isOneThreadMultiGpus)", k) + m.singleProcHint(), nil
	}
	if !win && !forced && (in.SymNoWinEnable == nil || *in.SymNoWinEnable == 0) {
		return fmt.Sprintf("the symmetric kernel would be %s on buffers outside windows, which needs NCCL_SYM_NOWIN_ENABLE=1 or NCCL_SYM_KERNEL", k), nil
	}
	if forced || !ll || (win && !m.Tuning.SymLLLegacy) {
		return "", nil
	}
	if !probed {
		if probe = m.symProbe(head); probe.Err != nil && m.Tuning.SymProbeErr {
			return "", &probe
		}
	}
	if probe.Err != nil || probe.Proto != nccl.LL {
		return fmt.Sprintf("the symmetric kernel would be %s, an LL kernel, and the cost table alone picks %s/%s", k, probe.Algo, probe.Proto), nil
	}
	return "", nil
}

// symProbe is the probe's ncclGetAlgoInfo on the head task
// (symLegacyChoice), recorded on it.
func (m *Model) symProbe(head *tuningTask) OpChoice {
	ch := m.symLegacyChoice(head.op)
	head.choice.SymProbeNBytes, head.choice.SymProbeCTAPolicy = ch.NBytes, ch.DecidedBy == RuleCTAPolicy
	return ch
}

// symWorksPerPlan is how many tasks one symmetric plan's arguments hold:
// ncclMakeSymmetricTaskList closes a piece when calcArgsSize(MAXCHANNELS,
// nWorks+1) would pass comm->workArgsBytes (workArgsBytes: the kernel
// argument limit, or NCCL_WORK_ARGS_BYTES below it).
//
// Ref: v2.28.3-1 src/scheduler/symmetric_sched.cc ncclMakeSymmetricTaskList;
// src/include/sym_kernels.h ncclSymkDevWorkArgs::calcArgsSize
func (m *Model) symWorksPerPlan() int {
	c := m.Tuning
	if c.SymWorkBytes <= 0 {
		return 1
	}
	free := int(m.workArgsBytes()) - c.SymArgsBytes - nccl.RoundUp(c.MaxChannels*c.SymRangeBytes, 16)
	return max(1, free/c.SymWorkBytes)
}

// symPiece is one piece of a bin that a symmetric kernel keeps: its tasks,
// the kernel, NCCL's estimate and the kernel's blocks.
type symPiece struct {
	bin    []*tuningTask
	k      SymKernel
	est    float64
	blocks int
}

// symmetricPick picks the kernel for one piece of a bin
// (ncclMakeSymmetricTaskList): the piece it keeps (bin nil when the
// piece goes back to the cost table), or NCCL's error when no kernel is
// left (the WARN goes to lines).
func (m *Model) symmetricPick(s *symComm, bin []*tuningTask, lines *[]string) (symPiece, *nccl.NCCLError) {
	in := &m.In
	head := bin[0]
	cellElts := int64(symCellBytes / head.dtype.Size())
	var total, most int64
	for _, t := range bin {
		c := symCells(t.count, t.dtype) * cellElts
		total, most = total+c, max(most, c)
	}
	k, est, blocks, ok := s.symPick(head.fn, head.symOp, head.dtype, total, most, len(bin), head.op.Buffers == nccl.BuffersWindow)
	forced := in.SymKernel != nil && symUserMask(in.SymKernel) != 1<<NumSymKernels-1
	why, failed := m.symmetricBack(head, k, ok, forced)
	if failed != nil {
		// NCCLCHECK returns the probe's failure: its WARN (no algorithm
		// left) or the tuner's result, and no task of the group runs
		for _, t := range bin {
			t.choice.Err, t.choice.Warn, t.choice.DecidedBy = failed.Err, failed.Warn, failed.DecidedBy
		}
		if lines != nil && failed.Warn != "" {
			*lines = append(*lines, failed.Warn)
		}
		return symPiece{}, failed.Err
	}
	if why != "" {
		for _, t := range bin {
			t.sym, t.choice.SidePath = false, ""
			if !t.symBack {
				// a task sure to go back never left the cost table: no
				// release says why for it
				t.choice.SymFallback = why
			}
		}
		return symPiece{}, nil
	}
	if !ok {
		w, res := symNoKernel(head.fn, in.SymKernel)
		for _, t := range bin {
			t.choice.Err, t.choice.Warn = &nccl.NCCLError{Result: res, Message: w, Call: "ncclGroupEnd"}, w
		}
		if lines != nil {
			*lines = append(*lines, w)
		}
		return symPiece{}, &nccl.NCCLError{Result: res, Message: w, Call: "ncclGroupEnd"}
	}
	if forced {
		est = 0 // NCCL reports no estimate for a kernel the user forced
	}
	return symPiece{bin: bin, k: k, est: est, blocks: blocks}, nil
}

// symmetricPlan lays a kept piece's tasks over the kernel's blocks
// (ncclSymmetricTaskScheduler, G-SCHED-SYMRANGE-1): cellPerChannel cells
// per block, tasks in order, each block's end a fraction of its last task;
// each task's parts are what the kernel's blocks decode of those fractions.
// last says no kept piece follows in the group.
func (m *Model) symmetricPlan(p *symPiece, plan int, last bool, lines *[]string) {
	in, bin, blocks := &m.In, p.bin, p.blocks
	head := bin[0]
	size := int64(head.dtype.Size())
	cellElts := int64(symCellBytes) / size
	cells := make([]int64, len(bin))
	works := make([]symWork, len(bin))
	var total int64
	for i, t := range bin {
		cells[i] = symCells(t.count, t.dtype)
		works[i].elts = t.count
		total += cells[i] * cellElts
	}
	perChannel := ((total+int64(blocks)-1)/int64(blocks) + cellElts - 1) / cellElts
	frac := make([]symFrac, blocks)
	used := symLayout(cells, works, frac, perChannel, last)
	parts := make([][]SymPart, len(bin))
	symDecode(frac, works, used, cellElts, symFusionOf(p.k), m.Tuning.SymRangeOwnEnds, parts)
	load := make([]int64, blocks)
	for w := range parts {
		for j := range parts[w] {
			parts[w][j].Offset *= size
			parts[w][j].Bytes *= size
		}
		symCTAShare(parts[w], load)
	}
	var most int64
	for _, l := range load {
		most = max(most, l)
	}
	args := m.Tuning.SymArgsBytes + nccl.RoundUp(blocks*m.Tuning.SymRangeBytes, 16) + len(bin)*m.Tuning.SymWorkBytes
	var logBytes int64
	for i, t := range bin {
		ch := t.choice
		ch.SidePath, ch.Kernel = "symmetric", p.k.String()
		ch.NChannels, ch.NThreads, ch.TimeUs = blocks, symNWarps*m.Tuning.WarpSize, float32(p.est)
		ch.SymParts = parts[i]
		ch.ChannelLo, ch.ChannelHi = symPartsCTAs(parts[i])
		ch.CTABytes, ch.ArgsBytes, ch.Works, ch.Plan = most, args, len(bin), plan
		ch.SymChannels = used
		ch.DecidedBy = "G-SEL-SIDE-1"
		logBytes += t.count * size
	}
	if in.Rank == 0 {
		line := symLine(head.fn, logBytes, p.k, used, symNWarps*m.Tuning.WarpSize, len(bin))
		bin[0].choice.Line = line
		if lines != nil {
			*lines = append(*lines, line)
		}
	}
}

// symPartsCTAs is the lowest and highest block that moves any of a task's
// bytes (0, -1 for a task no block reaches).
func symPartsCTAs(parts []SymPart) (lo, hi int) {
	if len(parts) == 0 {
		return 0, -1
	}
	lo, hi = parts[0].CTALo, parts[0].CTAHi
	for _, p := range parts[1:] {
		lo, hi = min(lo, p.CTALo), max(hi, p.CTAHi)
	}
	return lo, hi
}

// symmetricAlone is 2.27's symmetric path: ncclPrepareTasks, for a group of
// exactly one collective and no p2p on one node whose buffers are both in
// symmetric windows and which ncclSymImplemented lists, asks
// ncclSymPickKernel for a kernel on the task's exact count; the plan runs
// that kernel on all its blocks (channelMask 0..nBlocks-1). The caller has
// checked that the mask leaves a kernel (newTask's symAvailable), so the
// pick always finds one (NCCL would otherwise fall back to the cost table).
//
// Ref: v2.27.3-1 src/enqueue.cc ncclPrepareTasks, ncclLaunchPrepare;
// src/symmetric.cc ncclSymPickKernel (v2.27.5-1, v2.27.6-1 and v2.27.7-1
// the same)
func (m *Model) symmetricAlone(t *tuningTask, lines *[]string) {
	in := &m.In
	s := m.symk()
	k, est, blocks, _ := s.symPick(t.fn, t.devOp, t.dtype, t.count, t.count, 1, true)
	if in.SymKernel != nil && symUserMask(in.SymKernel) != 1<<NumSymKernels-1 {
		est = 0 // NCCL reports no estimate for a kernel the user forced
	}
	ch := t.choice
	ch.SidePath, ch.Kernel, ch.DecidedBy = "symmetric", k.String(), "G-SEL-SIDE-1"
	ch.NChannels, ch.NThreads, ch.TimeUs = blocks, symNWarps*m.Tuning.WarpSize, float32(est)
	ch.ChannelLo, ch.ChannelHi, ch.Plan, ch.SymChannels = 0, blocks-1, 0, blocks
	bytes := t.count * int64(t.dtype.Size())
	// the kernel's blocks walk the whole buffer round robin
	ch.SymParts = []SymPart{{CTALo: 0, CTAHi: blocks - 1, Bytes: bytes}}
	ch.CTABytes, ch.ArgsBytes, ch.Works = (bytes+int64(blocks)-1)/int64(blocks), m.Tuning.SymArgsBytes, 1
	if in.Rank == 0 {
		ch.Line = symLine27(t.fn, bytes, k, blocks, ch.NThreads)
		if lines != nil {
			*lines = append(*lines, ch.Line)
		}
	}
}

// checkChoose checks the communicator facts the enqueue path needs.
func (m *Model) checkChoose() error {
	if m == nil || m.Tuning == nil {
		return fmt.Errorf("choose: no tuning model: expected BuildModel's result")
	}
	if m.In.NRanks > 1 && m.In.NChannels < 1 {
		return fmt.Errorf("choose: the communicator has %d channels: expected Input.NChannels ≥ 1 (comm->nChannels)", m.In.NChannels)
	}
	return nil
}

// newTask is collTaskAppend for one API call: it validates the call, fills
// the choice's identity, handles the calls that never reach the planner
// (count 0, one rank, fp8 reductions before sm90) and builds the task. keep
// is false when no task is created. The caller ties a kept task to ch
// (t.choice): a store of ch through t would move every ChooseOp's choice
// to the heap.
func (m *Model) newTask(i int, o Call, ch *OpChoice, t *tuningTask) (keep bool, err error) {
	c, in := m.Tuning, &m.In
	if (int(o.Op.Func) < 0 || int(o.Op.Func) >= nccl.NumFuncs) && !o.Op.Func.IsP2P() {
		return false, fmt.Errorf("choose: op %d: function %v is not a collective of the cost table, SendRecv or AllToAll: expected Broadcast, Reduce, AllGather, ReduceScatter, AllReduce, SendRecv or AllToAll", i, o.Op.Func)
	}
	if o.Op.DataType < 0 || o.Op.DataType >= nccl.NumDataTypes || (!c.FP8 && o.Op.DataType.IsFP8()) {
		return false, fmt.Errorf("choose: op %d: datatype %v does not exist in this release", i, o.Op.DataType)
	}
	if o.Op.RedOp < 0 || o.Op.RedOp >= nccl.NumRedOps {
		return false, fmt.Errorf("choose: op %d: unknown reduction %v: expected sum, prod, max, min, avg or premulsum", i, o.Op.RedOp)
	}
	if o.Op.Count < 0 {
		return false, fmt.Errorf("choose: op %d: negative count %d: expected ≥ 0", i, o.Op.Count)
	}
	// ch is zero (ChooseOp and ChooseGroup allocate it, ChooseInto
	// clears it): the fields are written one by one rather than the whole
	// struct copied
	ch.Op, ch.Index, ch.Bytes, ch.Algo, ch.Proto, ch.Plan = o.Op, i, o.Op.Bytes(), nccl.AlgoNone, nccl.ProtoNone, -1
	if o.Op.Func.IsP2P() && (o.Op.Count == 0 || in.NRanks == 1) {
		// p2pTaskAppend queues empty sends and receives (syncs on one
		// channel each), and a one-rank communicator's to itself (the
		// self copy): ncclLaunchOneRank takes collectives only. Ref:
		// v2.18.1-1 to v2.30.7-1 src/enqueue.cc taskAppend (send and
		// receive before the empty-collective and one-rank returns)
		ch.P2P = true
		return false, nil
	}
	if o.Op.Count == 0 {
		ch.Discarded = true // "Empty collectives can be discarded."
		return false, nil
	}
	if c.FP8 && o.Op.DataType.IsFP8() && in.MinCompCap < 90 && o.Op.Func != nccl.AllGather && o.Op.Func != nccl.Broadcast && !o.Op.Func.IsP2P() {
		w := "FP8 reduction support begins with sm90 capable devices."
		ch.Err = &nccl.NCCLError{Result: nccl.InvalidArgument, Message: w, Call: "nccl" + o.Op.Func.String()}
		ch.Warn = w
		return false, nil
	}
	if in.NRanks == 1 {
		ch.OneRank = true
		return false, nil
	}
	if m.copyEngine(o) {
		ch.SidePath = "copy-engine"
		if !in.OneLSATeam() {
			ch.SidePath = "hierarchical-ce"
			ch.Line = fmt.Sprintf("%s [Hierarchical CE]: %d Bytes -> RMA proxy + CE", o.Op.Func, o.Op.Bytes())
		}
		return false, nil
	}
	if o.Op.Func.IsP2P() {
		// send/recv tasks: one send and one receive per peer for an
		// AllToAll (ncclAlltoAll, 2.28.3+, or the application's grouped
		// ncclSend/ncclRecv before); spec places them (tuning.P2PComm)
		ch.P2P = true
		return false, nil
	}
	// t is zero but for its choice (ChooseOp's and ChooseGroup's fresh
	// storage): the fields are written one by one rather than a whole
	// task copied
	t.index, t.op, t.fn = i, o, o.Op.Func
	t.dtype, t.count = o.Op.Queued()
	t.devOp = tuningDevOpOf(o.Op.RedOp, o.Op.DataType)
	if t.fn == nccl.AllGather || t.fn == nccl.Broadcast {
		t.devOp = tuningDevSum // the API passes ncclSum for these
	}
	t.traffic = t.count * int64(t.dtype.Size()) * tuningTrafficPerByte(t.fn, in.NRanks)
	t.symOp = t.devOp
	if c.SymAvg && o.Op.RedOp == nccl.Avg {
		t.symOp = tuningDevSumPostDiv
	}
	// ncclPrepareTasks (2.30.3+) skips the symmetric task list across cliques
	t.sym = m.windowed(o) && !in.CrossClique && m.symk().symAvailable(t.fn, t.symOp, t.dtype, t.count)
	if t.sym {
		ch.SidePath = "symmetric"
	}
	return true, nil
}

// allGatherV takes the group's broadcasts out of the size sorter when they
// come from two roots or more: collTaskAppend queues every broadcast on its
// root (NCCL_ALLGATHERV_ENABLE, default 1) and ncclPrepareTasks gives them
// back to the sorter only when one root was seen; otherwise they run as one
// AllGatherV (ncclScheduleBcastTasksToPlan), outside the cost table
// (SidePath "allgatherv"). Confidential-compute communicators, which keep
// broadcasts, are not modelled.
//
// Ref: v2.29.2-1 src/enqueue.cc collTaskAppend, ncclPrepareTasks;
// src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan
func (m *Model) allGatherV(tasks []*tuningTask) (kept, bcasts []*tuningTask) {
	if !m.Tuning.AllGatherV || (m.In.AllGatherVEnable != nil && *m.In.AllGatherVEnable == 0) {
		return tasks, nil
	}
	roots := map[int]bool{}
	for _, t := range tasks {
		if t.fn == nccl.Broadcast {
			roots[t.op.Op.Root] = true
		}
	}
	if len(roots) < 2 {
		return tasks, nil
	}
	kept = tasks[:0]
	for _, t := range tasks {
		if t.fn == nccl.Broadcast {
			t.choice.SidePath = "allgatherv"
			bcasts = append(bcasts, t)
			continue
		}
		kept = append(kept, t)
	}
	return kept, bcasts
}

// scheduleBcast is ncclScheduleBcastTasksToPlan for the group's broadcasts
// (bcasts in call order), plan after plan from plan firstPlan: a plan
// takes the first queued broadcast of every root, lowest root first, fewer
// than ncclMaxDevWorkBatchBytes / sizeof(ncclDevWorkBcast) of them. Its
// protocol and channel count are those getAlgoInfo picks for an AllGather
// of the plan's largest broadcast in bytes (int8, neither CollNet nor
// NVLS, numPipeOps 1); every broadcast is cut into that many parts,
// ⌈bytes/nParts⌉ each with 256-byte aligned bounds, part p on channel p,
// so a broadcast spans channels 0 up to its last non-empty part (with
// gaps where the rounding leaves a part empty: NChannels counts the parts
// that carry bytes). A plan also takes a broadcast only while the kernel
// arguments fit it (bcastBudgetOK), so a group of many roots on many
// channels splits into several plans. It returns the plans it filled and,
// where a plan's AllGather pick fails, that error, which ncclGroupEnd
// returns (ncclPrepareTasks' NCCLCHECKGOTO).
// Ref: v2.29.2-1 src/enqueue.cc ncclPrepareTasks
//
// Ref: v2.29.2-1 src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan
func (m *Model) scheduleBcast(bcasts []*tuningTask, firstPlan int) (int, *nccl.NCCLError) {
	queues := map[int][]*tuningTask{}
	var roots []int
	for _, t := range bcasts {
		r := t.op.Op.Root
		if _, ok := queues[r]; !ok {
			roots = append(roots, r)
		}
		queues[r] = append(queues[r], t)
	}
	slices.Sort(roots)
	// at least one broadcast a plan, whatever a release's table holds
	maxItems := max(2, m.Tuning.MaxDevWorkBatchBytesCC[tuningCompCapIndex(m.In.MinCompCap, m.Tuning)]/max(1, m.Tuning.BcastWorkBytes))
	plans := 0
	for left := len(bcasts); left > 0; {
		var plan []*tuningTask
		for _, r := range roots {
			if len(queues[r]) == 0 {
				continue
			}
			if !m.bcastBudgetOK(len(plan)+1, queues[r][0].op.Graph) || len(plan)+1 >= maxItems {
				break
			}
			plan = append(plan, queues[r][0])
			queues[r] = queues[r][1:]
		}
		if len(plan) == 0 {
			break // a batch too small for one broadcast
		}
		left -= len(plan)
		used, err := m.bcastPlan(plan, firstPlan+plans)
		if err != nil {
			return plans, err
		}
		if used {
			plans++
		}
	}
	return plans, nil
}

// bcastsPerBatch is how many broadcast works one ncclDevWorkBatch of an
// AllGatherV plan covers before the next batch extends it.
// Ref: v2.29.2-1 src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan (v2.30.7-1 likewise)
const bcastsPerBatch = 64

// bcastBudgetOK is the budget test of an AllGatherV plan of n broadcasts:
// nChannels × ⌈n/64⌉ work batches (comm->nChannels, every channel a batch
// per 64 broadcasts) in the kernel arguments, n works in the arguments or
// the FIFO's half (testBudget). With 4 KiB of arguments 64 channels hold
// 192 broadcasts, 32 channels 448 (above the batch storage's 340 on sm90).
// Ref: v2.29.2-1 src/scheduler/allgatherv_sched.cc ncclScheduleBcastTasksToPlan; src/enqueue.cc ncclTestBudget
func (m *Model) bcastBudgetOK(n int, persistent bool) bool {
	return m.planBudget(persistent).ok(m.In.NChannels*nccl.DivUp(n, bcastsPerBatch), int64(n*m.Tuning.BcastWorkBytes))
}

// bcastPlan gives one AllGatherV plan's broadcasts their protocol, threads
// and channels; it reports whether the plan carries any work, or the error
// of its AllGather pick, which every broadcast of the plan carries too.
func (m *Model) bcastPlan(plan []*tuningTask, index int) (bool, *nccl.NCCLError) {
	var maxBytes int64
	for _, t := range plan {
		maxBytes = max(maxBytes, t.op.Op.Bytes())
	}
	if maxBytes == 0 {
		return false, nil // every part is empty: no work, no plan
	}
	var ag OpChoice
	agTask := tuningTask{choice: &ag}
	err := m.chooseOp(Call{Op: nccl.Op{Func: nccl.AllGather, Count: maxBytes, DataType: nccl.Int8}}, &agTask)
	nerr := ag.Err
	switch {
	case err != nil:
		nerr = &nccl.NCCLError{Result: nccl.InternalError, Message: fmt.Sprintf("AllGatherV pick: %v", err), Call: "ncclGroupEnd"}
	case nerr == nil && ag.NChannels < 1:
		nerr = &nccl.NCCLError{Result: nccl.InternalError, Message: "AllGatherV pick has no channel", Call: "ncclGroupEnd"}
	}
	if nerr != nil {
		for _, t := range plan {
			t.choice.Err = nerr
		}
		return false, nerr
	}
	nParts := int64(ag.NChannels)
	// threadPerBlock: the pick's warps, at least what the batch loader needs
	threads := max(ag.NThreads, bcastsPerBatch*m.Tuning.BcastWorkBytes/16+3*m.Tuning.WarpSize)
	for _, t := range plan {
		bytes := t.op.Op.Bytes()
		partBytes := nccl.DivUp(bytes, nParts)
		hi, n := -1, 0
		for p := int64(0); p < nParts; p++ {
			lo := min(nccl.RoundUp(p*partBytes, 256), bytes)
			if min(nccl.RoundUp((p+1)*partBytes, 256), bytes) > lo {
				hi, n = int(p), n+1
			}
		}
		ch := t.choice
		ch.Algo, ch.Proto, ch.NThreads, ch.Plan = nccl.Ring, ag.Proto, threads, index
		if n > 0 {
			// part 0 is never empty; the rounding may leave gaps above it
			ch.NChannels, ch.ChannelLo, ch.ChannelHi = n, 0, hi
		}
	}
	return true, nil
}

// tuningSorterBin is ncclTaskCollSorterInsert's bin: sizes in 1 KiB units,
// encoded with two mantissa bits per power of two, descending.
func tuningSorterBin(traffic int64) int {
	const unitLog2, maxSize, bitsPerPow2 = 10, int64(1) << 30, 2
	const binCount = 1 + (30-unitLog2)*(1<<bitsPerPow2)
	x := uint32(min(maxSize, traffic) >> unitLog2)
	log2x := 0
	for v := x | 1; v > 1; v >>= 1 {
		log2x++
	}
	shift := 0
	if log2x >= bitsPerPow2 {
		shift = log2x - bitsPerPow2
	}
	mantissa := (x >> shift) & (1<<bitsPerPow2 - 1)
	exponent := 0
	if log2x >= bitsPerPow2 {
		exponent = log2x - (bitsPerPow2 - 1)
	}
	return binCount - 1 - int(uint32(exponent)<<bitsPerPow2|mantissa)
}

// decideBin is getAlgoInfo for tasks taken as one aggregate: counts and
// traffic summed (a task alone is read as it is: algoInfo only reads it),
// the choice into g, and its cost table, line and error copied to every
// member. presetNC > 0 is an aggregate's channel count before 2.20.3.
func (m *Model) decideBin(tasks []*tuningTask, numPipeOps, presetNC int, g *tuningAgg, lines *[]string) *nccl.NCCLError {
	agg := tasks[0]
	if len(tasks) > 1 {
		sum := *tasks[0]
		for _, t := range tasks[1:] {
			sum.count += t.count
			sum.traffic += t.traffic
		}
		agg = &sum
	}
	m.algoInfoFrom(agg, numPipeOps, presetNC, g)
	var members []int // nil: decided alone
	if len(tasks) > 1 {
		members = make([]int, 0, len(tasks))
		for _, t := range tasks {
			members = append(members, t.index)
		}
		sort.Ints(members)
	}
	if g.line != "" && lines != nil {
		*lines = append(*lines, g.line)
	}
	for i, t := range tasks {
		ch := t.choice
		// the tables one at a time: a tuple assignment copies them twice
		ch.Cost = g.cost
		ch.Reason = g.reason
		ch.NBytes, ch.NumPipeOps, ch.Aggregate = g.nBytes, g.numPipeOps, members
		ch.DecidedBy, ch.TunerNChannels = g.decidedBy, g.tunerNCh
		if i == 0 {
			ch.Line = g.line
		}
		if g.err != nil {
			ch.Err, ch.Warn = g.err, g.warn
		}
	}
	if g.err != nil {
		if lines != nil && g.warn != "" { // a failing tuner prints no WARN, only NCCLCHECK's INFO trace
			*lines = append(*lines, g.warn)
		}
		return g.err
	}
	return nil
}

// prepareTasks is ncclPrepareTasks after the sort and the binning
// (tuningBins): aggregate and decide the nTasks tasks of binLists. It
// returns the error of the first bin without an algorithm (the group
// returns it); tuningQueue gives the scheduling order. Lines printed on
// the way (2.22.3's per-aggregate line, the WARN) go to lines when it is
// not nil. It keeps no task pointer, so that ChooseOp's one task can stay
// off the heap.
func (m *Model) prepareTasks(binLists [][]*tuningTask, nTasks int, lines *[]string) *nccl.NCCLError {
	c, in := m.Tuning, &m.In
	nTasksPerChannel := nccl.DivUp(nTasks, in.NChannels)
	for _, list := range binLists {
		for beg := 0; beg < len(list); {
			first := list[beg]
			end := beg + 1
			for end < len(list) && list[end].traffic < 4*first.traffic {
				end++
			}
			var g tuningAgg
			if err := m.decideBin(list[beg:end], nTasksPerChannel, 0, &g, lines); err != nil {
				return err
			}
			isCollnet, isNvls := 0, 0
			switch g.algo {
			case nccl.NVLS, nccl.NVLSTree:
				isNvls = 1
				if g.algo == nccl.NVLS && in.NNodes > 1 {
					isCollnet = 1
				}
			case nccl.CollNetChain, nccl.CollNetDirect:
				isCollnet = 1
			}
			for _, t := range list[beg:end] {
				t.algo, t.proto, t.nMaxCh, t.nWarps = g.algo, g.proto, g.nc, g.nt/c.WarpSize
				if t.proto == nccl.LL && c.LLTrafficX4 {
					t.traffic *= 4
				}
				t.collnet, t.nvls = isCollnet == 1, isNvls == 1
				ch := t.choice
				ch.Algo, ch.Proto, ch.TimeUs, ch.Backup = g.algo, g.proto, g.time, g.backup
				ch.Restored = m.restoredCell(t.fn, g.algo, g.proto)
				ch.RingKept = m.keptCell(t.fn, g.algo)
				ch.NChannels, ch.NThreads = g.nc, t.nWarps*c.WarpSize
			}
			beg = end
		}
	}
	return nil
}

// tuningQueue is ncclPrepareTasks' scheduling order of decided tasks: the
// collBins by (CollNet, NVLS) kind — neither, NVLS, CollNet, both — each in
// the order the bins were decided.
func tuningQueue(binLists [][]*tuningTask, nTasks int) []*tuningTask {
	queue := make([]*tuningTask, 0, nTasks)
	for kind := range 4 {
		for _, list := range binLists {
			for _, t := range list {
				if tuningKind(t) == kind {
					queue = append(queue, t)
				}
			}
		}
	}
	return queue
}

// tuningBins is the size sorter followed by the (function, device op,
// datatype) binning of ncclPrepareTasks (tuningBinWalk). byWin bins the
// symmetric task list, which also splits by winRegType.
func tuningBins(tasks []*tuningTask, byWin bool) [][]*tuningTask {
	return tuningBinWalk(tuningSorted(tasks), byWin)
}

// tuningSorted is ncclTaskCollSorterDequeueAll's order: size classes
// largest first, newest first within a class (tasks are in call order).
func tuningSorted(tasks []*tuningTask) []*tuningTask {
	for i, t := range tasks {
		t.sortSeq, t.sortBin = i, tuningSorterBin(t.traffic)
	}
	sorted := append([]*tuningTask(nil), tasks...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].sortBin != sorted[j].sortBin {
			return sorted[i].sortBin < sorted[j].sortBin
		}
		return sorted[i].sortSeq > sorted[j].sortSeq
	})
	return sorted
}

// tuningBinWalk bins a walk by (function, device op, datatype): bins in
// order of first occurrence, each bin a LIFO of the walk (ascending sizes
// when the walk is the sorter's). byWin also splits tasks outside windows
// from window tasks, as the symmetric task list does (winRegType, 2.29.2+).
//
// Ref: v2.28.9-1 src/enqueue.cc ncclPrepareTasks; v2.29.2-1
// src/scheduler/symmetric_sched.cc ncclMakeSymmetricTaskList
func tuningBinWalk(walk []*tuningTask, byWin bool) [][]*tuningTask {
	type binKey struct {
		fn nccl.Func
		op tuningDevOp
		dt nccl.DataType
		// nowin: a listed task outside windows
		nowin bool
	}
	var order []binKey
	bins := map[binKey][]*tuningTask{}
	for _, t := range walk {
		k := binKey{t.fn, t.devOp, t.dtype, false}
		if byWin {
			k.op, k.nowin = t.symOp, t.op.Buffers != nccl.BuffersWindow
		}
		if _, ok := bins[k]; !ok {
			order = append(order, k)
		}
		bins[k] = append([]*tuningTask{t}, bins[k]...)
	}
	out := make([][]*tuningTask, len(order))
	for i, k := range order {
		out[i] = bins[k]
	}
	return out
}

// tuningBudget is ncclKernelPlanBudget with testBudget: the bytes of the
// kernel arguments left for work batches (and work), and the work bytes a
// plan may keep outside them.
type tuningBudget struct{ inArgs, outArgs, batchBytes int64 }

// planBudget is one plan's budget (G-SCHED-BUDGET-1): comm->workArgsBytes
// less the ncclDevKernelArgs header inside the kernel arguments, and
// outside them half the work FIFO, or, for a persistent plan (a group
// captured into a CUDA graph, whose work NCCL copies into a buffer of its
// own), PersistentWorkBytes.
//
// Ref: v2.22.3-1 src/enqueue.cc ncclLaunchPrepare (v2.28.9-1, v2.30.7-1 likewise)
func (m *Model) planBudget(persistent bool) tuningBudget {
	c := m.Tuning
	out := m.workFifoBytes() / 2
	if persistent {
		out = c.PersistentWorkBytes
	}
	return tuningBudget{inArgs: m.workArgsBytes() - int64(c.KernelArgsBytes), outArgs: out, batchBytes: int64(c.WorkBatchBytes)}
}

// P2PBudget is the budget scheduleP2pTasksToPlan tests the group's
// send/recv works against (planBudget's, with one ncclDevWorkP2p a
// work), or nil before 2.22.3, whose per-ncclWork budget the send/recv
// planner does not model.
//
// Ref: v2.22.3-1 src/enqueue.cc ncclLaunchPrepare, scheduleP2pTasksToPlan
// (v2.30.7-1 likewise)
func (m *Model) P2PBudget(persistent bool) *P2PBudget {
	if m.Tuning.Schedule != ScheduleR22 {
		return nil
	}
	b := m.planBudget(persistent)
	return &P2PBudget{InArgs: b.inArgs, OutArgs: b.outArgs, BatchBytes: b.batchBytes,
		WorkBytes: int64(m.Tuning.WorkP2PBytes), MaxBatchBytes: int64(m.Tuning.MaxDevWorkBatchBytes)}
}

// P2PStart is where a group's send/recv tasks start (ncclLaunchPrepare
// drains them once the collectives and broadcasts are drained, into the
// plan that drained them): the last cost-table or AllGatherV plan of
// choices, with what its PlanUse (uses) took of the budget, or for an
// AllGatherV plan its broadcasts' budget estimate (bcastBudgetOK's);
// ok is false when the group has no such plan (the tasks take a plan of
// their own). Symmetric and copy-engine plans come first and take no p2p
// work.
func (m *Model) P2PStart(choices []OpChoice, uses []PlanUse) (start P2PPlanStart, ok bool) {
	last, bcasts := -1, 0
	for i := range choices {
		ch := &choices[i]
		if ch.P2P || ch.Plan < 0 || ch.Err != nil || ch.SidePath != "" && ch.SidePath != "allgatherv" {
			continue
		}
		if ch.Plan > last {
			last, bcasts = ch.Plan, 0
		}
		if ch.Plan == last && ch.SidePath == "allgatherv" {
			bcasts++
		}
	}
	if last < 0 {
		return P2PPlanStart{}, false
	}
	start.Plan = last
	for _, u := range uses {
		if u.Plan == last {
			start.Batches, start.WorkBytes = u.Batches, u.WorkBytes
			return start, true
		}
	}
	start.Batches, start.WorkBytes = m.In.NChannels*nccl.DivUp(bcasts, bcastsPerBatch), int64(bcasts*m.Tuning.BcastWorkBytes)
	return start, true
}

// workArgsBytes is comm->workArgsBytes: NCCL_WORK_ARGS_BYTES (unset:
// INT64_MAX) taken as a size_t, at most ncclMaxKernelArgsSize (a negative
// value is a huge size_t, so the limit).
//
// Ref: v2.22.3-1 src/init.cc devCommSetup (v2.30.7-1 likewise)
func (m *Model) workArgsBytes() int64 {
	limit := int64(m.Tuning.MaxKernelArgsBytes)
	if p := m.In.WorkArgsBytes; p != nil && *p >= 0 && *p < limit {
		return *p
	}
	return limit
}

// workFifoBytes is comm->workFifoBytes: NCCL_WORK_FIFO_BYTES kept in a
// uint32, the default when that is not a power of 2 (NCCL WARNs it is
// ignored; 0 passes the test), at most MaxWorkFifoBytes. Confidential
// computing's FIFO of 0 bytes is not modelled.
//
// Ref: v2.22.3-1 src/init.cc devCommSetup (v2.30.7-1 likewise; v2.26.5-1
// WorkFifoBytesAuto)
func (m *Model) workFifoBytes() int64 {
	c := m.Tuning
	p := m.In.WorkFifoBytes
	if c.WorkFifoBytesAuto {
		v := int64(-1) // the parameter's default
		if p != nil {
			v = *p
		}
		switch {
		case v == -1 && m.In.MNNVL && m.In.MinCompCap >= 100:
			return 0 // no work FIFO: the work travels in the kernel arguments
		case v == -1:
			return c.WorkFifoBytes
		case uint64(v) > uint64(c.MaxWorkFifoBytes): // std::min<uint64_t>: a negative value is huge
			return c.MaxWorkFifoBytes
		}
		return v
	}
	if p == nil {
		return c.WorkFifoBytes
	}
	u := uint32(*p)
	if u&(u-1) != 0 {
		u = uint32(c.WorkFifoBytes)
	}
	return min(int64(u), c.MaxWorkFifoBytes)
}

// MaxChannelsForArgsBytes is ncclDevMaxChannelsForArgsBytes: how many
// channels' first work batches fit argsBytes of kernel arguments after
// the ncclDevKernelArgs header, at most maxChannels (MAXCHANNELS).
// NCCL_WORK_ARGS_BYTES bounds the communicator's channels and its p2p
// channels so (2.22.3+); argsBytes is a size_t there, so a value below the
// header wraps round to no bound.
//
// Ref: v2.22.3-1 src/include/device.h ncclDevMaxChannelsForArgsBytes;
// src/graph/connect.cc ncclMaxNchannels; src/graph/paths.cc
// ncclTopoComputeP2pChannels (v2.30.7-1 likewise)
func (c *Consts) MaxChannelsForArgsBytes(argsBytes int64, maxChannels int) int {
	u, header := uint64(argsBytes), uint64(c.KernelArgsBytes)
	if u < header || c.WorkBatchBytes <= 0 {
		return maxChannels
	}
	return int(min(uint64(maxChannels), (u-header)/uint64(c.WorkBatchBytes)))
}

// taskWork is the work struct ncclPrepareTasks queues for a task: an
// ncclDevWorkCollReg when NVLS registered its buffers (regBufType NVLS),
// else an ncclDevWorkColl (CollNet and network registration keep the plain
// struct; 2.22.3's IPC case is compiled out). Work of the two types never
// shares a batch.
//
// Ref: v2.22.3-1 src/enqueue.cc ncclPrepareTasks; v2.24.3-1 (v2.30.7-1
// likewise) the NCCL_NVLS_REG_BUFFER bit
func (m *Model) taskWork(t *tuningTask) (reg bool, bytes int64) {
	if t.choice.Registered == "NVLS" {
		return true, int64(m.Tuning.WorkCollRegBytes)
	}
	return false, int64(m.Tuning.WorkCollBytes)
}

func (b tuningBudget) ok(nWorkBatches int, workBytes int64) bool {
	batch := int64(nWorkBatches) * b.batchBytes
	return batch+workBytes <= b.inArgs || (batch <= b.inArgs && workBytes <= b.outArgs)
}

// PlanUse is what one kernel plan of a group took of its budget
// (G-SCHED-BUDGET-1): its collective tasks and send/recv works, their
// work bytes and the work batches its channels need, the budget it was
// filled against, where finishPlan put the work ("args" when header,
// batches and work fit comm->workArgsBytes, else "fifo", or "persistent"
// for a plan captured into a CUDA graph) and its kernel arguments
// (kernelArgsSize: header, batches and, in "args", the work, rounded up to
// 16 bytes).
type PlanUse struct {
	Plan      int    `json:"plan"`
	Works     int    `json:"works"`
	P2PWorks  int    `json:"p2pWorks,omitempty"`
	WorkBytes int64  `json:"workBytes"`
	Batches   int    `json:"batches"`
	InArgs    int64  `json:"inArgsBytes"`
	OutArgs   int64  `json:"outArgsBytes"`
	Storage   string `json:"storage"`
	ArgsBytes int    `json:"argsBytes"`
	// Shares are the channels each kind of the plan's cost-table tasks
	// spread their traffic over (not CollNet's: a CollNet task keeps
	// channels 0..nMaxChannels-1), in plan order.
	Shares []ChannelShare `json:"shares,omitempty"`
}

// ChannelShare is scheduleCollTasksToPlan's nChannels[kind] for one kind
// of a plan's tasks (NVLS: one node's NVLS and NVLSTree; otherwise Ring,
// Tree and PAT): the sum of its tasks' nMaxChannels (SumMaxCh), capped at
// the kind's channels (Cap: comm->nChannels, NVLS nvlsChannels), is
// Channels, over which their traffic is cut into TrafficPerChannel bytes;
// the tasks fill the channels in order from where the last one stopped,
// the cursor bounded by Cap. So that number, not a task's own nMaxChannels,
// bounds its channel range: two tasks of nMaxChannels 16 on 24 channels
// share all 24.
//
// Ref: v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan (v2.22.3-1 …
// v2.30.7-1 likewise)
type ChannelShare struct {
	NVLS              bool  `json:"nvls,omitempty"`
	SumMaxCh          int   `json:"sumMaxChannels"`
	Cap               int   `json:"cap"`
	Channels          int   `json:"channels"`
	TrafficPerChannel int64 `json:"trafficPerChannel"`
}

// finish is finishPlan's choice of work storage and kernel argument size.
//
// Ref: v2.22.3-1 src/enqueue.cc finishPlan (v2.30.7-1 likewise)
func (m *Model) finish(u *PlanUse, persistent bool) {
	c := m.Tuning
	batchBytes := int64(u.Batches * c.WorkBatchBytes)
	args := int64(c.KernelArgsBytes) + batchBytes
	switch {
	case args+u.WorkBytes <= m.workArgsBytes():
		u.Storage, args = "args", args+u.WorkBytes
	case persistent:
		u.Storage = "persistent"
	default:
		u.Storage = "fifo"
	}
	u.ArgsBytes = int(nccl.RoundUp(args, 16))
}

// JoinP2P adds a group's send/recv works to its plans' budget use
// (uses, ChooseGroup's, in launch order): finishPlan sizes a plan on all
// its work, the ncclDevWorkP2p of addP2pToPlan as much as the collectives'
// (G-SCHED-BUDGET-1, 2.22.3+). The plan the works started in (uses holds
// it) takes their batches and bytes and is finished again; a plan of
// send/recv works alone is appended. persistent is a group captured into
// a CUDA graph. It returns the plans whose use changed, by index into the
// result.
//
// Ref: v2.22.3-1 src/enqueue.cc ncclLaunchPrepare, addP2pToPlan,
// finishPlan (v2.30.7-1 likewise)
func (m *Model) JoinP2P(uses []PlanUse, work []P2PPlanWork, persistent bool) ([]PlanUse, []int) {
	b := m.planBudget(persistent)
	var changed []int
	for _, w := range work {
		k := slices.IndexFunc(uses, func(u PlanUse) bool { return u.Plan == w.Plan })
		if k < 0 {
			k = len(uses)
			uses = append(uses, PlanUse{Plan: w.Plan, InArgs: b.inArgs, OutArgs: b.outArgs})
		}
		u := &uses[k]
		u.P2PWorks, u.Batches, u.WorkBytes = w.Works, w.Batches, w.WorkBytes
		m.finish(u, persistent)
		changed = append(changed, k)
	}
	return uses, changed
}

// PlanLoopError is ChooseGroup's error where a task cannot fit an empty
// kernel plan: NCCL's ncclLaunchPrepare then starts plan after empty plan
// and never returns, so there is no decision to report.
type PlanLoopError struct {
	What            string // "collective" or "send/recv work"
	InArgs, OutArgs int64  // the plan's room for batches, and for work outside them
	Batches         int    // the batches one send/recv work opens (0 for a collective)
}

func (e *PlanLoopError) Error() string {
	batches := ""
	if e.Batches > 0 {
		batches = fmt.Sprintf(", %d batches a work", e.Batches)
	}
	return fmt.Sprintf("no %s fits an empty kernel plan (%d bytes of kernel arguments for work batches, %d outside them%s): NCCL's ncclLaunchPrepare would loop without end", e.What, e.InArgs, e.OutArgs, batches)
}

// tuningWipChannel is one channel's open work batch (addWorkBatchToPlan).
type tuningWipChannel struct {
	open       bool
	reg        bool // the batch's work type: ncclDevWorkTypeCollReg
	funcKey    [5]int
	offsetBase int64
	workBytes  int64
}

// schedule is ncclLaunchPrepare's loop over kernel plans, each filled by
// scheduleCollTasksToPlan against its budget; uses, when not nil, gets
// each plan's PlanUse. NCCL loops without end when no task fits an empty
// plan (a kernel argument space too small for one task's batches); that is
// an error here.
func (m *Model) schedule(queue []*tuningTask, lines *[]string, uses *[]PlanUse) (int, error) {
	persistent := len(queue) > 0 && queue[0].op.Graph
	budget := m.planBudget(persistent)
	plans := 0
	for ; len(queue) > 0; plans++ {
		n, use, err := m.schedulePlan(queue, plans, budget, lines)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, fmt.Errorf("choose: %w", &PlanLoopError{What: "collective", InArgs: budget.inArgs, OutArgs: budget.outArgs})
		}
		use.InArgs, use.OutArgs = budget.inArgs, budget.outArgs
		m.finish(&use, persistent)
		for _, t := range queue[:n] {
			t.choice.ArgsBytes, t.choice.Works, t.choice.WorkStorage = use.ArgsBytes, n, use.Storage
		}
		if uses != nil {
			*uses = append(*uses, use)
		}
		queue = queue[n:]
	}
	return plans, nil
}

// schedulePlan is scheduleCollTasksToPlan for one plan; it returns how many
// tasks the plan took and their work (PlanUse without the budget and the
// storage).
//
// Ref: v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan, addWorkBatchToPlan
func (m *Model) schedulePlan(queue []*tuningTask, plan int, budget tuningBudget, lines *[]string) (int, PlanUse, error) {
	c, in := m.Tuning, &m.In
	var trafficBytes [4]int64
	var nChannels, sumMaxCh [4]int
	nvlsCollnetMax := in.NVLSChannels
	if c.NVLSMultiNodeMinChannels {
		nvlsCollnetMax = min(in.NChannels, in.NVLSChannels)
	}
	nMaxChannels := [4]int{in.NChannels, in.NVLSChannels, in.NChannels, nvlsCollnetMax}
	minTraffic := c.MinTrafficPerChannel
	use := PlanUse{Plan: plan}

	// Estimate how many tasks fit this plan.
	nPlanColls := 0
	var workBytes int64
	for _, t := range queue {
		nBatches := (nPlanColls + 3) / 4 // rough guess: 4 colls per batch
		_, workSize := m.taskWork(t)
		if !budget.ok(nBatches, workBytes+workSize) {
			break
		}
		nPlanColls++
		workBytes += workSize
		kind := tuningKind(t)
		if c.TaskTrafficFloor {
			trafficBytes[kind] += max(minTraffic, t.traffic)
		} else {
			trafficBytes[kind] += t.traffic
		}
		nChannels[kind] = min(nChannels[kind]+t.nMaxCh, nMaxChannels[kind])
		sumMaxCh[kind] += t.nMaxCh
	}

	// One task alone opens one batch on each of its channels; with more,
	// each channel's open batch decides whether the next work joins it.
	var wip []tuningWipChannel
	if nPlanColls > 1 {
		wip = make([]tuningWipChannel, c.MaxChannels)
	}
	nWorkBatches := 0
	addWork := func(ch int, reg bool, key [5]int, workSize int64) {
		if wip == nil || ch >= len(wip) {
			nWorkBatches++
			return
		}
		w := &wip[ch]
		newBatch := !w.open || w.reg != reg || w.funcKey != key || int64(c.MaxDevWorkBatchBytes) < w.workBytes+workSize
		var offset int64
		if !newBatch {
			offset = use.WorkBytes - w.offsetBase
		}
		extend := 63*workSize < offset || offset%workSize != 0
		if newBatch || extend {
			w.open, w.reg, w.funcKey, w.offsetBase = true, reg, key, use.WorkBytes
			if newBatch {
				w.workBytes = 0
			}
			nWorkBatches++
		}
		w.workBytes += workSize
	}

	kindPrev := -1
	var trafficPerChannel, currentTraffic int64
	channelId := 0
	for _, t := range queue {
		if use.Works == nPlanColls {
			break
		}
		elemSize := int64(t.dtype.Size())
		reg, workSize := m.taskWork(t)
		kind := tuningKind(t)
		if kind != kindPrev {
			if nChannels[kind] == 0 {
				return 0, use, fmt.Errorf("choose: %s was chosen but the communicator has no channel for it (nvlsChannels %d, nChannels %d): NCCL would divide by zero here; expected nvlsChannels > 0 when NVLS can be chosen", t.algo, in.NVLSChannels, in.NChannels)
			}
			if c.TrafficPerChannelRound {
				trafficPerChannel = (trafficBytes[kind]/int64(nChannels[kind]) + 15) / 16 * 16
			} else {
				trafficPerChannel = max(minTraffic, trafficBytes[kind]/int64(nChannels[kind]))
			}
			kindPrev, channelId, currentTraffic = kind, 0, 0
			if kind < 2 {
				use.Shares = append(use.Shares, ChannelShare{NVLS: kind == 1, SumMaxCh: sumMaxCh[kind], Cap: nMaxChannels[kind],
					Channels: nChannels[kind], TrafficPerChannel: trafficPerChannel})
			}
		}
		var lo, hi int
		if t.collnet {
			n := t.nMaxCh
			if !budget.ok(nWorkBatches+n, use.WorkBytes+workSize) {
				break
			}
			lo, hi = 0, n-1
		} else {
			cur := tuningCursor{channelID: channelId, currentTraffic: currentTraffic, trafficPerChannel: trafficPerChannel, nMax: nMaxChannels[kind]}
			part, next, err := c.cbdPlace(cur, t.fn, in.NRanks, t.proto, elemSize, t.count)
			if err != nil {
				return 0, use, fmt.Errorf("choose: task %d: %w", t.index, err)
			}
			if !budget.ok(nWorkBatches+part.Hi-part.Lo+1, use.WorkBytes+workSize) {
				break
			}
			lo, hi = part.Lo, part.Hi
			channelId, currentTraffic = next.channelID, next.currentTraffic
			t.choice.Part = part
		}
		key := tuningFuncKey(t)
		for ch := lo; ch <= hi; ch++ {
			addWork(ch, reg, key, workSize)
		}
		use.WorkBytes += workSize
		ch := t.choice
		ch.ChannelLo, ch.ChannelHi, ch.Plan = lo, hi, plan
		ch.WorkBytes = int(workSize)
		if in.Rank == 0 && c.OpLine == OpLineR24 {
			ch.Line = tuningOpLineR24(t.fn, t.count*elemSize, t.algo, t.proto, lo, hi)
			if lines != nil {
				*lines = append(*lines, ch.Line)
			}
		}
		use.Works++
	}
	use.Batches = nWorkBatches
	return use.Works, use, nil
}

func tuningKind(t *tuningTask) int { return 2*tuningB2i(t.collnet) + tuningB2i(t.nvls) }

// tuningFuncKey stands for ncclDevFuncId: the kernel function of a task.
// AllGather and Broadcast kernels do not depend on the reduction or type.
func tuningFuncKey(t *tuningTask) [5]int {
	if t.fn == nccl.AllGather || t.fn == nccl.Broadcast {
		return [5]int{int(t.fn), -1, -1, int(t.algo), int(t.proto)}
	}
	return [5]int{int(t.fn), int(t.devOp), int(t.dtype), int(t.algo), int(t.proto)}
}

func tuningB2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CBDPart is one task's continuous-byte distribution over channels
// (ncclDevWorkColl's channelLo..channelHi and cbd counts): channel Lo takes
// CountLo elements, each channel strictly between Lo and Hi CountMid, and
// channel Hi CountHi (when Hi > Lo). Hi < Lo: nothing is scheduled.
type CBDPart struct {
	Lo       int   `json:"lo"`
	Hi       int   `json:"hi"`
	CountLo  int64 `json:"countLo"`
	CountMid int64 `json:"countMid,omitempty"`
	CountHi  int64 `json:"countHi,omitempty"`
}

// tuningCursor is scheduleCollTasksToPlan's position within one kind of
// channels: the channel being filled, the traffic already on it, the
// traffic each channel should carry and the kind's channels.
type tuningCursor struct {
	channelID                         int
	currentTraffic, trafficPerChannel int64
	nMax                              int
}

// cbdPlace places one task's cells on the channels from cur on and returns
// its part and the cursor after it. count is in elements of elemSize
// bytes (AllGather and Broadcast: bytes).
//
// Ref: v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan (the !isCollnet
// branch; v2.22.3-1 with 16-byte cells and the floor rounding)
func (c *Consts) cbdPlace(cur tuningCursor, fn nccl.Func, nRanks int, proto nccl.Proto, elemSize, count int64) (CBDPart, tuningCursor, error) {
	minTraffic := c.MinTrafficPerChannel
	channelID, trafficPerChannel := cur.channelID, cur.trafficPerChannel
	tpb := tuningTrafficPerByte(fn, nRanks)
	if proto == nccl.LL && c.LLTrafficX4 {
		tpb *= 4
	}
	cellSize := int64(16)
	if c.CellFromMinTraffic {
		cellSize = ((minTraffic+tpb-1)/tpb + 15) / 16 * 16
	}
	if elemSize <= 0 || cellSize%elemSize != 0 {
		return CBDPart{}, cur, fmt.Errorf("element size %d does not divide the %d-byte cell", elemSize, cellSize)
	}
	elementsPerCell := cellSize / elemSize
	cells := (count*elemSize + cellSize - 1) / cellSize
	trafficPerElement := elemSize * tpb
	trafficPerCell := cellSize * tpb
	cellsPerChannel := min(cells, (trafficPerChannel+trafficPerCell-1)/trafficPerCell)
	var cellsLo int64
	switch {
	case channelID+1 == cur.nMax:
		cellsLo = cells // on the last channel everything goes to "lo"
	case c.CellsLoRoundUp:
		cellsLo = min(cells, (trafficPerChannel-cur.currentTraffic+trafficPerCell-1)/trafficPerCell)
	default:
		cellsLo = min(cells, (trafficPerChannel-cur.currentTraffic)/trafficPerCell)
	}
	if cellsPerChannel == 0 {
		return CBDPart{}, cur, fmt.Errorf("no cell to schedule")
	}
	nMid := (cells - cellsLo) / cellsPerChannel
	cellsHi := (cells - cellsLo) % cellsPerChannel
	nCh := tuningB2i(cellsLo != 0) + int(nMid) + tuningB2i(cellsHi != 0)
	if cur.nMax < channelID+nCh { // overflowed the available channels
		nMid = int64(cur.nMax - channelID - 2)
		if nMid+1 <= 0 {
			return CBDPart{}, cur, fmt.Errorf("overflows channel %d of %d: not modelled", channelID, cur.nMax)
		}
		cellsPerChannel = (cells - cellsLo) / (nMid + 1)
		cellsHi = cellsPerChannel + (cells-cellsLo)%(nMid+1)
	}
	if cellsHi == 0 && nMid != 0 {
		cellsHi = cellsPerChannel
		nMid--
	}
	if cellsLo == 0 { // least channel skipped: the next one is the new least
		channelID++
		if nMid == 0 {
			cellsLo, cellsHi = cellsHi, 0
		} else {
			cellsLo = cellsPerChannel
			nMid--
		}
	}
	part := CBDPart{CountLo: cellsLo * elementsPerCell, CountHi: cellsHi * elementsPerCell}
	if nMid != 0 {
		part.CountMid = cellsPerChannel * elementsPerCell
	}
	excess := cells*elementsPerCell - count
	if part.CountHi != 0 {
		part.CountHi -= excess
	} else {
		part.CountLo -= excess
	}
	nCh = tuningB2i(part.CountLo != 0) + int(nMid) + tuningB2i(cellsHi != 0)
	part.Lo, part.Hi = channelID, channelID+nCh-1
	next := cur
	switch {
	case part.CountHi != 0:
		channelID += nCh - 1
		next.currentTraffic = cellsHi * elementsPerCell * trafficPerElement
	case nMid != 0:
		channelID += nCh
		next.currentTraffic = 0
	default:
		next.currentTraffic = cur.currentTraffic + cellsLo*elementsPerCell*trafficPerElement
	}
	if next.currentTraffic >= trafficPerChannel && channelID+1 != cur.nMax {
		channelID++
		next.currentTraffic = 0
	}
	next.channelID = channelID
	return part, next, nil
}

// CollPartition is scheduleCollTasksToPlan for one collective alone in its
// plan: count elements of elemSize bytes (AllGather and Broadcast: bytes,
// elemSize 1) of function fn on nRanks ranks with protocol proto and
// nThreads threads, a task of taskChannels channels (nMaxChannels) among
// kindChannels channels of its kind. The schedule builders take their
// channel split from here; a group's split comes from ChooseGroup. Before
// 2.22.3 (ScheduleR20) the task is cut at maxBytesPerChannel over
// min(kindChannels, taskChannels) channels, in multiples of the
// protocol's grain, which for LL and LL128 scales with nThreads;
// ScheduleR18 has no channel split (each channel walks the whole buffer):
// it answers 2.22.3's.
func CollPartition(c *Consts, fn nccl.Func, nRanks int, proto nccl.Proto, elemSize, count int64, taskChannels, kindChannels, nThreads int) (CBDPart, error) {
	if c == nil {
		return CBDPart{}, fmt.Errorf("partition: no tuning constants")
	}
	if count == 0 {
		return CBDPart{Lo: 0, Hi: -1}, nil
	}
	if count < 0 || taskChannels < 1 || kindChannels < 1 || nRanks < 1 {
		return CBDPart{}, fmt.Errorf("partition: count %d, %d task channels of %d, %d ranks: expected count ≥ 0 and positive channels and ranks", count, taskChannels, kindChannels, nRanks)
	}
	if c.Schedule == ScheduleR20 {
		if proto != nccl.Simple && nThreads < c.WarpSize {
			return CBDPart{}, fmt.Errorf("partition: the %s split of this release needs the task's thread count, have %d", proto, nThreads)
		}
		usable := min(kindChannels, taskChannels)
		align := max(1, c.BytesAlignment)
		maxBytes := (count*elemSize+int64(usable)-1)/int64(usable) + align - 1
		part, err := c.maxBytesPlace(make([]int64, usable), maxBytes/align*align, usable, proto, elemSize, count, nThreads)
		if err != nil {
			return CBDPart{}, fmt.Errorf("partition: %w", err)
		}
		return part, nil
	}
	traffic := count * elemSize * tuningTrafficPerByte(fn, nRanks)
	if proto == nccl.LL && c.LLTrafficX4 {
		traffic *= 4
	}
	if c.TaskTrafficFloor {
		traffic = max(c.MinTrafficPerChannel, traffic)
	}
	nc := int64(min(taskChannels, kindChannels))
	var trafficPerChannel int64
	if c.TrafficPerChannelRound {
		trafficPerChannel = (traffic/nc + 15) / 16 * 16
	} else {
		trafficPerChannel = max(c.MinTrafficPerChannel, traffic/nc)
	}
	part, _, err := c.cbdPlace(tuningCursor{trafficPerChannel: trafficPerChannel, nMax: kindChannels}, fn, nRanks, proto, elemSize, count)
	if err != nil {
		return CBDPart{}, fmt.Errorf("partition: %w", err)
	}
	return part, nil
}

// registerTasks registers the buffers of the tasks the cost table decided,
// before they are scheduled. NVLS and CollNet tasks go through
// userBufferChannels (every release that registers them). Then G-REG-IPC-1
// (RegIPC, from 2.23.4): a Ring or Tree task on Simple whose buffers NCCL
// may register (RegAsked) and have a ncclCommRegister record (not needed
// for a graph capture under RegIPCGraph, 2.24.3+) and whose node peers
// are direct P2P gets its receive buffer (Ring: both) registered over IPC,
// except ReduceScatter, Reduce on Ring, in-place AllReduce on Ring and
// in-place Tree. On one node an IPC-registered task with 16 < nMaxChannels
// ≤ 24 then runs on 16 channels. A Ring AllGather or Broadcast registered
// with the network runs on netRingChannels. Where the registration itself
// fails (RegRefused: how the buffers were allocated, the environment) the
// task keeps its unregistered channels.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollBuffers,
// ncclRegisterCollNvlsBuffers (v2.24.3-1 likewise); v2.23.4-1 src/enqueue.cc
// registerCollBuffers (ncclRegFind before the IPC registration)
func (m *Model) registerTasks(tasks []*tuningTask) {
	c, in := m.Tuning, &m.In
	for _, t := range tasks {
		m.collNetIPC(t)
		if n, kind := m.userBufferChannels(t, t.algo); kind != "" {
			t.choice.Registered = kind
			t.nMaxCh, t.choice.NChannels = n, n
			continue
		}
		if n, ok := m.netRingChannels(t); ok {
			t.choice.Registered = "NET"
			t.nMaxCh, t.choice.NChannels = n, n
			continue
		}
		if !c.RegIPC || !m.RegAsked(t.op) || (!m.commRegistered(t.op) && !c.RegIPCGraph) || t.proto != nccl.Simple || !in.DirectP2P {
			continue
		}
		switch {
		case t.fn == nccl.ReduceScatter:
			continue
		case t.algo == nccl.Ring && ((t.fn == nccl.AllReduce && t.op.InPlace) || t.fn == nccl.Reduce):
			continue
		case t.algo == nccl.Tree && t.op.InPlace:
			continue
		case t.algo != nccl.Ring && t.algo != nccl.Tree:
			continue
		}
		if why, called := m.regRefusal(t.op, "IPC"); why != "" {
			t.choice.RegRefused = why
			if called {
				m.regFailed(t, "IPC")
			}
			continue
		}
		t.choice.Registered = "IPC"
		if in.NNodes == 1 && c.RegIPCChannels > 0 && c.RegIPCChannels < t.nMaxCh && t.nMaxCh <= 24 {
			t.nMaxCh = c.RegIPCChannels
			t.choice.NChannels = t.nMaxCh
		}
	}
}

// collNetIPC is CollNetDirect's registration over IPC with the node's
// peers (G-REG-COLLNET-IPC-1, RegCollNetIPC): a task whose buffers NCCL
// may register (RegAsked; the graph path needs no ncclCommRegister
// record), on a communicator whose local ranks are direct P2P
// (intraNodeP2pSupport, isAllDirectP2p from 2.27.3) and that has local
// peers to register with, registers its buffers over IPC; not a
// ReduceScatter, and from 2.29.2 only an AllGather. It sits beside
// CollNet's registration of the network side (userBufferChannels) and
// changes no channel count. A refused IPC export (RegRefused) leaves the
// peers unregistered and says why; where CollNet's registration fails
// too, its reason is the one reported. An export NCCL attempts and that
// fails is a failed call (RegFailed "IPC"), as on Ring: ipcRegisterBuffer
// leaves the flag 0 (from 2.24.3 it WARNs "failed to IPC register"; 2.23.4
// fails silently), the caller ignores its result, so the task goes on
// without regUsed, on its channels, and (2.24.3+) CollNet's own
// registration is still tried.
//
// Ref: v2.23.4-1 src/enqueue.cc registerCollBuffers; v2.24.3-1
// src/register/coll_reg.cc ncclRegisterCollBuffers (v2.28.9-1 likewise,
// isAllDirectP2p from v2.27.3-1); v2.29.2-1 the same function (an
// AllGather's receive buffer alone; v2.30.7-1 likewise); src/enqueue.cc
// (regUsed); v2.28.9-1 src/transport/p2p.cc ipcRegisterBuffer (the
// failure's WARN; v2.24.3-1 likewise; v2.23.4-1 ncclIpcLocalRegisterBuffer
// without it)
func (m *Model) collNetIPC(t *tuningTask) {
	c, in := m.Tuning, &m.In
	if c.RegCollNetIPC == RegCollNetIPCNone || t.algo != nccl.CollNetDirect || t.proto != nccl.Simple ||
		!m.RegAsked(t.op) || !in.DirectP2P || in.MaxLocalRanks < 2 {
		return
	}
	switch {
	case t.fn == nccl.ReduceScatter:
		return
	case c.RegCollNetIPC == RegCollNetIPCAG && t.fn != nccl.AllGather:
		return
	}
	if why, called := m.regRefusal(t.op, "IPC"); why != "" {
		if t.choice.RegRefused == "" {
			t.choice.RegRefused = why
		}
		if called {
			m.regFailed(t, "IPC")
		}
		return
	}
	t.choice.RegPeers = "IPC"
}

// regFailed records a registration of kind that NCCL called for the task
// and that failed (RegFailed), and whether the release prints its failure
// line (RegSilent): "failed to IPC register" and "failed to NVLS
// register" exist from 2.24.3 (RegIPCFailLine, RegNVLSFailLine; before,
// the IPC export fails silently and the NVLS bind prints only its "Cuda
// failure"); CollNet's is printed wherever its failure is modelled
// (RegCollNetGDR, 2.24.3+).
// Each is a WARN at 2.24.3 and 2.25.1, a REG INFO from 2.26.2.
//
// Ref: v2.24.3-1 src/transport/p2p.cc ipcRegisterBuffer; src/transport/nvls.cc
// nvlsRegisterBuffer; src/transport/coll_net.cc collnetRegisterBuffer
// (v2.30.7-1 likewise); v2.23.4-1 src/transport/p2p.cc
// ncclIpcLocalRegisterBuffer and v2.22.3-1 src/transport/nvls.cc
// tryRegisterBuffer without the line
func (m *Model) regFailed(t *tuningTask, kind string) {
	ch := t.choice
	ch.RegFailed = joinReg(ch.RegFailed, kind)
	if kind == "IPC" && !m.Tuning.RegIPCFailLine || kind == "NVLS" && !m.Tuning.RegNVLSFailLine {
		ch.RegSilent = joinReg(ch.RegSilent, kind)
	}
}

// joinReg appends kind to a "+"-joined list of registrations.
func joinReg(list, kind string) string {
	if list == "" {
		return kind
	}
	return list + "+" + kind
}

// RegAsked says whether NCCL tries to register an operation's buffers:
// registered with ncclCommRegister under NCCL_LOCAL_REGISTER, or captured
// into a CUDA graph under NCCL_GRAPH_REGISTER (both default 1 at every
// modelled tag).
func (m *Model) RegAsked(o Call) bool {
	return (m.commRegistered(o) && paramOn(m.In.LocalRegister)) || (o.Graph && paramOn(m.In.GraphRegister))
}

// commRegistered says whether an operation's buffers went through
// ncclCommRegister: registered buffers, and window buffers where
// ncclCommWindowRegister registers them the same way (RegWindowRecord:
// 2.27.x under NCCL's cuMem, 2.28.x always, 2.29.2+ with symmetric
// support), not windows with host-memory segments. The record's own conditions (NCCL_LOCAL_REGISTER,
// NCCL_P2P_USE_CUDA_MEMCPY) apply to both alike.
//
// Ref: v2.27.3-1 src/register/register.cc ncclCommWindowRegister
// (ncclRegister); v2.28.3-1 src/dev_runtime.cc ncclCommWindowRegister,
// ncclDevrWindowRegisterInGroup (ncclCommRegister first; v2.28.9-1
// likewise); v2.29.2-1 src/dev_runtime.cc ncclCommWindowRegister (returns
// before registering without symmetricSupport; v2.30.7-1 likewise)
func (m *Model) commRegistered(o Call) bool {
	if o.Buffers == nccl.BuffersRegistered {
		return true
	}
	if o.Buffers != nccl.BuffersWindow || o.Alloc == nccl.AllocCuMemHost {
		// ncclCommRegister skips memory with host segments (2.30.3+, G-WIN-HOST-1)
		return false
	}
	switch m.Tuning.RegWindowRecord {
	case RegWindowRecordCuMem:
		return m.In.CuMem
	case RegWindowRecordAll:
		return true
	case RegWindowRecordSymmetric:
		return m.In.SymmetricSupport
	}
	return false
}

// paramOn reads a set-or-nil NCCL_PARAM whose default is 1.
func paramOn(p *int64) bool { return p == nil || *p != 0 }

// RegBuff is getAlgoInfo's regBuff, what a tuner and the CTA policy read:
// both buffers have a ncclCommRegister record (commRegistered), or the call is captured
// into a CUDA graph under NCCL_GRAPH_REGISTER. ncclCommRegister keeps no
// record under NCCL_LOCAL_REGISTER=0 (RegRecordLocalParam, 2.24.3+) nor
// under NCCL_P2P_USE_CUDA_MEMCPY=1 (RegNoneP2PMemcpy, 2.28.9+). A window
// is such a record too: registering it makes one first (ncclCommRegister
// in 2.28.3+, ncclRegister under NCCL_LOCAL_REGISTER in 2.27.x), so a
// window task the cost table decides reads regBuff 1.
//
// Ref: v2.28.9-1 src/enqueue.cc getAlgoInfo; src/register/register.cc
// ncclCommRegister (v2.24.3-1 likewise without the memcpy check);
// v2.28.9-1 src/dev_runtime.cc ncclDevrWindowRegisterInGroup (v2.30.7-1
// likewise); v2.27.3-1 src/register/register.cc ncclCommWindowRegister
func (m *Model) RegBuff(o Call) bool {
	c, in := m.Tuning, &m.In
	record := m.commRegistered(o) &&
		!(c.RegRecordLocalParam && !paramOn(in.LocalRegister)) && !(c.RegNoneP2PMemcpy && in.P2PUseMemcpy)
	return record || (o.Graph && paramOn(in.GraphRegister))
}

// RegRefused says why NCCL's registration of a task's buffers with kind
// ("NVLS", "IPC", "CollNet", "NET") fails where its path would register
// them, "" when nothing stops it (G-REG-SKIP-1); NCCL then runs the task
// as unregistered. Under NCCL_P2P_USE_CUDA_MEMCPY=1 (2.28.9+) nothing has
// a registration record. NVLS binds the buffers to its multicast object,
// which takes only cuMem memory of NCCL's handle type (2.28.7+ checks the
// handle types first; before, the bind fails and NCCL falls back). IPC
// exports a cuMem buffer's handle only with NCCL's cuMem on, and a
// cudaMalloc buffer over legacy CUDA IPC (from 2.24.3 only under
// NCCL_LEGACY_CUDA_REGISTER=1; from 2.23.4 never when ranks share a
// process, comm->directMode). The network and CollNet register either kind;
// from 2.30.7 neither registers on a communicator with an MLOPart rank
// unless NCCL_MLOPART_RDMA_ENABLE=1 (RegMLOPartRDMA).
//
// Ref: v2.30.7-1 src/register/coll_reg.cc isMloPartBufRdmaCapable,
// ncclRegisterCollBuffers; v2.28.9-1 src/register/register.cc ncclCommRegister,
// ncclCommGraphRegister; src/transport/p2p.cc ipcRegisterBuffer;
// src/transport/nvls.cc nvlsRegisterBuffer (v2.24.3-1 p2p.cc
// ipcRegisterBuffer; v2.23.4-1 p2p.cc ncclIpcLocalRegisterBuffer without
// the parameter; v2.22.3-1 nvls.cc tryRegisterBuffer)
func (m *Model) RegRefused(o Call, kind string) string {
	why, _ := m.regRefusal(o, kind)
	return why
}

// regRefusal is RegRefused and whether NCCL called the registration that
// failed (called: it prints its "failed to ... register" line) or never
// called it (regSkipped), decided together so that a path asks once.
func (m *Model) regRefusal(o Call, kind string) (why string, called bool) {
	if why := m.regSkipped(o, kind); why != "" {
		return why, false
	}
	why = m.regCallFails(o, kind)
	return why, why != ""
}

// regCallFails is the part of RegRefused where NCCL calls the
// registration and it fails.
func (m *Model) regCallFails(o Call, kind string) string {
	c, in := m.Tuning, &m.In
	if kind == "CollNet" && c.RegCollNetGDR && !in.CollNetGDR {
		return "a CollNet connector without GPU Direct RDMA (NCCL_DIRECT_NIC unset): collnetRegisterBuffer fails (\"COLLNET failed to register userbuff ... GDR 0\")"
	}
	switch kind {
	case "NVLS":
		if o.Alloc == nccl.AllocCudaMalloc {
			return "cudaMalloc buffers cannot be bound to the NVLS multicast object (it takes cuMem memory of NCCL's handle type)"
		}
	case "IPC":
		switch {
		case o.Alloc == nccl.AllocCuMem && !in.CuMem:
			return "cuMem buffers, but NCCL's cuMem is off (NCCL_CUMEM_ENABLE=0 or no driver support): no handle to export"
		case o.Alloc == nccl.AllocCudaMalloc && c.RegIPCDirectMode && in.SharedProcess:
			return "cudaMalloc buffers go over legacy CUDA IPC, which NCCL refuses when ranks share a process (directMode)"
		case o.Alloc == nccl.AllocCudaMalloc && c.RegIPCLegacyParam && (in.LegacyCudaRegister == nil || *in.LegacyCudaRegister == 0):
			return "cudaMalloc buffers are exported over legacy CUDA IPC only under NCCL_LEGACY_CUDA_REGISTER=1"
		}
	}
	return ""
}

// regSkipped is the part of RegRefused that keeps NCCL from calling the
// registration at all (no record to register, buffers the network cannot
// take); what remains of RegRefused is a call NCCL makes and that fails.
func (m *Model) regSkipped(o Call, kind string) string {
	c, in := m.Tuning, &m.In
	if c.RegNoneP2PMemcpy && in.P2PUseMemcpy {
		return "NCCL_P2P_USE_CUDA_MEMCPY=1: ncclCommRegister and ncclCommGraphRegister keep no record, so nothing is registered"
	}
	if (kind == "CollNet" || kind == "NET") && c.RegMLOPartRDMA && in.MLOPart && !in.MLOPartRDMA {
		if kind == "CollNet" {
			return "a rank is an MLOPart partition (hasMloPart): buffers are RDMA-capable only under NCCL_MLOPART_RDMA_ENABLE=1 (isMloPartBufRdmaCapable), so nothing is registered with CollNet"
		}
		return "a rank is an MLOPart partition (hasMloPart): buffers are RDMA-capable only under NCCL_MLOPART_RDMA_ENABLE=1 (isMloPartBufRdmaCapable), so nothing is registered with the network"
	}
	return ""
}

// userBufferChannels is the user-buffer path of NVLS and CollNet
// (G-REG-UB-1): the channels a task on algorithm a runs on once NVLS or
// CollNet registered its buffers, and which ("NVLS", "CollNet"; "" when
// nothing is registered). NVLS and NVLSTree register on a communicator with
// nvlsRegSupport (no MNNVL, and no two ranks in one process unless
// NCCL_SINGLE_PROC_MEM_REG_ENABLE, 2.28.3+) and run on nvlsRegChannels; CollNetDirect and CollNetChain register (not for PreMulSum or
// SumPostDiv) with one rank per node (isOneRPN), where they run on one
// channel (RegCollNet), and from 2.24.3 a CollNetDirect AllGather or
// ReduceScatter with several ranks per node too, on its own channels
// (collNetRegRanks, G-REG-COLLNET-1). A registration that
// fails (RegRefused) leaves nothing registered and says why.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollNvlsBuffers,
// ncclRegisterCollBuffers; v2.22.3-1 src/enqueue.cc registerIntraNodeBuffers
// (v2.21.5-1 likewise; v2.20.3-1 and v2.19.1-1 NVLS only)
func (m *Model) userBufferChannels(t *tuningTask, a nccl.Algo) (int, string) {
	c, in := m.Tuning, &m.In
	if !m.RegAsked(t.op) {
		return 0, ""
	}
	switch a {
	case nccl.NVLS, nccl.NVLSTree:
		if in.MNNVL {
			return 0, ""
		}
		if n, ok := m.nvlsRegChannels(t.fn); ok {
			if in.SharedProcess && !(c.RegSingleProcParam && in.SingleProcMemReg) {
				t.choice.RegRefused = "ranks share a process: nvlsRegSupport is 0, so NVLS registers nothing" + m.singleProcHint()
				return 0, ""
			}
			if why, called := m.regRefusal(t.op, "NVLS"); why != "" {
				t.choice.RegRefused = why
				if called {
					m.regFailed(t, "NVLS") // the bind failed inside the call
				}
				return 0, ""
			}
			return n, "NVLS"
		}
	case nccl.CollNetDirect, nccl.CollNetChain:
		if c.RegCollNet == RegCollNetNone || t.devOp == tuningDevPreMulSum || t.devOp == tuningDevSumPostDiv {
			return 0, ""
		}
		if in.MaxLocalRanks != 1 && !collNetRegRanks(c.RegCollNetRanks, t.fn, a) {
			return 0, ""
		}
		if why, called := m.regRefusal(t.op, "CollNet"); why != "" {
			t.choice.RegRefused = why
			if called {
				// collnetRegisterBuffer returns ncclSuccess with the flag 0
				// and prints "COLLNET failed to register": the task runs
				// unregistered
				m.regFailed(t, "CollNet")
			}
			return 0, ""
		}
		if in.MaxLocalRanks != 1 {
			return t.nMaxCh, "CollNet" // only isOneRPN narrows the channels
		}
		if c.RegCollNet == RegCollNetCTAs {
			s := in.symComm(c.MaxChannels)
			return max(s.minCTAs, min(s.maxCTAs, 1)), "CollNet"
		}
		return 1, "CollNet"
	}
	return 0, ""
}

// collNetRegRanks says whether CollNet registers the buffers of a task of
// function f on algorithm a with several ranks per node
// (G-REG-COLLNET-1): from 2.24.3 a CollNetDirect AllGather or
// ReduceScatter, from 2.29.2 an AllGather only; CollNetChain and
// AllReduce never.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollBuffers ("register
// collnet buffer": not an AllReduce without isOneRPN; v2.24.3-1 likewise);
// v2.29.2-1 the same function (a ReduceScatter needs isOneRPN, an
// AllGather its send buffer alone)
func collNetRegRanks(mode RegCollNetRanks, f nccl.Func, a nccl.Algo) bool {
	if a != nccl.CollNetDirect {
		return false
	}
	switch mode {
	case RegCollNetRanksAGRS:
		return f == nccl.AllGather || f == nccl.ReduceScatter
	case RegCollNetRanksAG:
		return f == nccl.AllGather
	}
	return false
}

// netRingChannels is Ring's network registration (G-REG-UB-1, RegNetRing):
// a Ring/Simple AllGather or Broadcast whose buffers NCCL may register, on
// a communicator of one rank per node (isOneRPN) whose ring connections
// through the network all use GPU Direct RDMA (useGdr, no PXN) on a
// network that is not UNPACK, runs on one channel; from 2.30.7 on
// minNetCount within the CTA bounds. NCCL registers the network buffers
// of the other Ring tasks too (not ReduceScatter, Reduce or in-place
// AllReduce; from 2.30.3 not AllReduce with PreMulSum or SumPostDiv)
// without changing their channels, so they are left as they are.
// IPC registration comes first in NCCL, but one rank per node has no
// P2P peer to register with.
//
// Ref: v2.24.3-1 src/register/coll_reg.cc ncclRegisterCollBuffers
// (v2.28.9-1 likewise; v2.30.7-1 comm->minNetCount channels)
func (m *Model) netRingChannels(t *tuningTask) (int, bool) {
	c, in := m.Tuning, &m.In
	if c.RegNetRing == RegNetRingNone || t.algo != nccl.Ring || t.proto != nccl.Simple || (t.fn != nccl.AllGather && t.fn != nccl.Broadcast) ||
		!m.RegAsked(t.op) || in.MaxLocalRanks != 1 || in.NNodes < 2 || !in.RingNetGDR || in.NetDeviceUnpack {
		return 0, false
	}
	if why := m.RegRefused(t.op, "NET"); why != "" {
		t.choice.RegRefused = why
		return 0, false
	}
	if c.RegNetRing == RegNetRingNICs {
		s := in.symComm(c.MaxChannels)
		return max(s.minCTAs, min(s.maxCTAs, in.MinNetCount)), true
	}
	return 1, true
}

// windowed says whether an operation's buffers are symmetric windows on a
// communicator with symmetric support (one node or GIN on every node,
// direct P2P, windows and cuMem on) in a release that has the symmetric
// paths.
//
// A window with host-memory segments (alloc cumem-host, 2.30.3+) is not:
// taskAppend and ncclMakeSymmetricTaskList send it to the cost table.
//
// Ref: v2.30.3-1 src/enqueue.cc taskAppend; src/scheduler/symmetric_sched.cc
// ncclMakeSymmetricTaskList (ncclDevrWindowHasSysmemSegment)
func (m *Model) windowed(o Call) bool {
	return o.Buffers == nccl.BuffersWindow && o.Alloc != nccl.AllocCuMemHost && m.Tuning.Symmetric && m.In.SymmetricSupport
}

// copyEngine says whether taskAppend sends the operation to the copy
// engines (G-SEL-SIDE-1): window buffers under CTA policy ZERO with a CUDA
// 12.5+ driver, for the collectives ncclCeImplemented lists (AllGather,
// and AllToAll called as ncclAlltoAll on windows; Gather and Scatter are
// not modelled operations). The rest of the window buffers' operations
// go to a symmetric kernel when one is available (symmetric). From 2.29.2
// a large AllGather also goes to the copy engines on sm100+ all-NVLink
// nodes without the CTA policy, above NCCL_SYM_CE_THRESHOLD elements
// (CEAllGatherSM100).
//
// Ref: v2.28.9-1 src/enqueue.cc taskAppend; src/ce_coll.cc
// ncclCeImplemented (v2.28.3-1 likewise); v2.29.2-1 src/enqueue.cc taskAppend;
// v2.30.3-1 src/ce_coll.cc ncclCeAvailable (the LSA team every rank: a
// communicator with symmetric memory over GIN has no copy-engine path)
func (m *Model) copyEngine(o Call) bool {
	c, in := m.Tuning, &m.In
	if !c.CECollectives || !m.windowed(o) || !in.CEDriver || (o.Op.Func != nccl.AllGather && o.Op.Func != nccl.AllToAll) {
		return false
	}
	if !in.OneLSATeam() {
		return m.hierCE()
	}
	if in.CTAPolicyZero {
		return true
	}
	if o.Op.Func != nccl.AllGather {
		return false
	}
	if !c.CEAllGatherSM100 || in.MinCompCap < 100 || !in.AllDirectNVLink {
		return false
	}
	th := c.SymCEThreshold
	if in.SymCEThreshold != nil {
		th = *in.SymCEThreshold
	}
	return o.Op.Count > th
}

// hierCE says whether an AllGather or AlltoAll on windows of a
// communicator of several LSA teams runs as a hierarchical copy-engine
// collective (2.30.7+, Consts.HierCE): CTA policy ZERO, several nodes, an
// LSA team that covers the node (every LSA team gatesim builds does: a
// node, or an NVL domain of whole nodes), symmetric support and
// comm->hostRmaSupport with an RMA context. copyEngine has checked the
// function, the windows on both sides and the driver.
//
// Ref: v2.30.7-1 src/ce_coll.cc ncclHierCeAvailable; src/enqueue.cc
// taskAppend
func (m *Model) hierCE() bool {
	c, in := m.Tuning, &m.In
	return c.HierCE && in.CTAPolicyZero && in.NNodes > 1 && in.HostRMASupport(c.HostRMANumCtx)
}

// HierCENoRMACtx says whether config.numRmaCtx 0 alone keeps a window
// AllGather or AlltoAll from the hierarchical copy engines (2.30.7+):
// hierCE holds but for the RMA context.
func (m *Model) HierCENoRMACtx() bool {
	c, in := m.Tuning, &m.In
	return c.HierCE && c.HostRMANumCtx && in.NumRMACtx == 0 && in.CTAPolicyZero && in.NNodes > 1 && in.HostRMASupport(false)
}

// singleProcHint names the variable that keeps registration for ranks
// sharing a process, where the release reads it.
func (m *Model) singleProcHint() string {
	if !m.Tuning.RegSingleProcParam {
		return ""
	}
	return " (NCCL_SINGLE_PROC_MEM_REG_ENABLE=1 keeps it)"
}
