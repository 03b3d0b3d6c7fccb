package spec

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gatesim/gatesim/spec/tuning"
)

// Layer 5: per-operation eligibility and choice (ncclPrepareTasks,
// getAlgoInfo, updateCollCostTable, topoGetAlgoInfo), and layer 6's
// execution rules.

// opRun is one walk down the per-operation rules.
type opRun struct {
	rs   *Ruleset
	comm *Comm
	op   Op
	out  []Verdict

	collNetOK, nvlsOK bool
	// cell[a][p]: the cost table cell is not IGNORE; prunedBy says why a
	// cell is IGNORE.
	cell     [NumAlgos][NumProtos]bool
	prunedBy [NumAlgos][NumProtos]RuleID
	// cost[a][p] is set where a tuner or the tuning model gives a number.
	cost    [NumAlgos][NumProtos]float64
	costSet [NumAlgos][NumProtos]bool
	backup  []AlgoProto // 2.22.3's Ring backup candidates
	dec     *Decision
	// record is set when the walk writes its verdicts (a reader asked for
	// them), costs when it writes the cost table; without them the walk
	// only decides.
	record, costs bool
	// room is where the walk writes the decision's slices and what it
	// records, in the decision's allocation.
	room opRoom
	// scratch takes a lazy sentence's numbers when nothing is recorded.
	scratch LazyWhy
	// tunerCell is the cell the tuner wrote a time into (AlgoNone: none).
	tunerCell AlgoProto
	// stop is set by a rule that ends the call before the cost table (an
	// empty collective, an API error): the rules after it are not reached.
	stop bool
	// choice is the tuning model's decision for the operation (ChooseOp),
	// nil when the communicator has no model; it points at choiceBuf.
	choice    *tuning.OpChoice
	choiceBuf tuning.OpChoice
	// tuned is a loaded tuner's answer for this operation (SelectTuned).
	tuned *TunerEffect
	// id and rule are the rule being walked: emit completes its verdicts.
	id   RuleID
	rule *Rule
	// raised holds the evidence levels the operation raised, 4 bits per
	// capability in Capabilities' order (evidenceKey); odd holds a raise
	// the key cannot hold (a capability outside Capabilities).
	raised evidenceKey
	odd    []capLevel
}

// emit appends a verdict of the rule being walked, completed (rule, layer,
// reference, scope, the rule's capability) before it is copied into the
// trace, and raises the evidence it proves.
func (o *opRun) emit(v Verdict) {
	if v.Cap == "" {
		v.Cap = o.rule.Cap
	}
	if v.Outcome == Pass && v.Cap != "" && v.Level > 0 {
		o.raise(v.Cap, v.Level)
	}
	if !o.record {
		return
	}
	// the verdict is written into its slot field by field rather than
	// appended whole, which copies it once more (through the write
	// barrier's bulk path while the collector runs)
	n := len(o.out)
	if n == cap(o.out) {
		o.out = append(o.out, Verdict{})
	} else {
		o.out = o.out[:n+1]
	}
	p := &o.out[n]
	p.Rule, p.Layer, p.Outcome, p.Cap, p.Level, p.Ref, p.Scope = o.id, o.rule.Layer, v.Outcome, v.Cap, v.Level, &o.rule.Ref, "op"
	p.Facts, p.Why, p.Log, p.Debug, p.Lazy = v.Facts, v.Why, v.Log, v.Debug, v.Lazy
}

// opRuns keeps walks for reuse: a walk is a kilobyte and a half, and a
// batch of operations makes one each.
var opRuns = sync.Pool{New: func() any { return new(opRun) }}

// opRoom is where a walk writes the decision's candidates and what it
// records, inside the allocation of the decision.
type opRoom struct {
	cands *[NumAlgos * NumProtos]AlgoProto
	// whys holds the numbers of the verdicts whose sentences are written
	// when read (the element count, the legal cells, the winner, the
	// arity) and debug the pick's debug line: nil when the walk records
	// no verdicts
	whys  *[numLazyKinds - 1]LazyWhy
	debug *[1]string
	// costs is the room for the cost table: nil when the walk writes none
	costs *[NumAlgos * NumProtos]CellCost
}

// verdictRoom is the room for a recording walk's verdicts: their sentences'
// numbers, the pick's debug line, and the verdicts themselves (one per
// rule, and no release has more than 12 per-operation rules).
type verdictRoom struct {
	whys  [numLazyKinds - 1]LazyWhy
	debug [1]string
	trace [12]Verdict
}

// rooms are r's rooms for a recording walk, with n rules.
func (r *verdictRoom) rooms(cands *[NumAlgos * NumProtos]AlgoProto, n int) (opRoom, Trace) {
	room := opRoom{cands: cands, whys: &r.whys, debug: &r.debug}
	if n > len(r.trace) {
		return room, make(Trace, 0, n)
	}
	return room, r.trace[:0:n]
}

// decisionCosts is a decision with its candidates, cost table and
// verdicts (the walk LazyOp makes), allocated together.
type decisionCosts struct {
	d     Decision
	cands [NumAlgos * NumProtos]AlgoProto
	costs [NumAlgos * NumProtos]CellCost
	v     verdictRoom
}

// decisionTrace is a decision with its candidates and verdicts (SelectOp's
// with its trace), and what its cost table is made from, allocated
// together.
type decisionTrace struct {
	d     Decision
	cands [NumAlgos * NumProtos]AlgoProto
	lazy  LazyOp
	v     verdictRoom
}

// LazyWhy is what a per-operation verdict's sentence is made from when
// Select leaves it to be written on reading (Verdict.WhyText): most
// answers are never printed, and these sentences format times and lists
// of cells. Cells are numbered a×NumProtos+p.
//
// The small fields come first, packed: a recording walk keeps one of each
// kind in its decision's allocation.
type LazyWhy struct {
	Kind LazyKind
	// LazyWin: the winning cell and its time; the runner-up and its
	// time when HasNext.
	Best, Next uint8
	HasNext    bool
	// LazyLegal: the legal cells (bit per cell) and the pruning notes,
	// "; "-separated ("" for none).
	Cells          uint32
	BestUs, NextUs float64
	Notes          string
	// LazyElements: the operation's element count. LazyArity: a node's
	// most local ranks and the limit they are within.
	Count, Limit int64
}

// LazyKind says which sentence a LazyWhy makes.
type LazyKind uint8

const (
	LazyNone     LazyKind = iota
	LazyElements          // G-SEL-APPEND-1: "N element(s): the call becomes a task"
	LazyLegal             // G-SEL-PRUNE-1: "legal: A/P ... (pruned ...)"
	LazyWin               // G-SEL-PICK-1: "A/P wins with time T µs (next: B/Q U µs)"
	LazyArity             // G-COLLNET-ARITY-1: "N local ranks ≤ M"
	numLazyKinds
)

// the cells of a cost table fit LazyWhy's bit set
var _ [32 - NumAlgos*NumProtos]struct{}

// lazyCell is cell ap's number in a LazyWhy.
func lazyCell(ap AlgoProto) uint8 { return uint8(int(ap.Algo)*NumProtos + int(ap.Proto)) }

// lazyAlgoProto is the cell of number i.
func lazyAlgoProto(i uint8) AlgoProto {
	return AlgoProto{Algo(int(i) / NumProtos), Proto(int(i) % NumProtos)}
}

// String writes the sentence.
func (l *LazyWhy) String() string {
	var buf [256]byte
	var b []byte
	switch l.Kind {
	case LazyElements:
		b = append(strconv.AppendInt(buf[:0], l.Count, 10), " element(s): the call becomes a task"...)
	case LazyLegal:
		b = appendLegal(buf[:0], l.Cells, l.Notes)
	case LazyArity:
		b = strconv.AppendInt(buf[:0], l.Count, 10)
		b = append(b, " local ranks ≤ "...)
		b = strconv.AppendInt(b, l.Limit, 10)
	case LazyWin:
		b = appendAlgoProto(buf[:0], lazyAlgoProto(l.Best))
		b = append(b, " wins with time "...)
		b = appendFixed2(b, l.BestUs)
		b = append(b, " µs"...)
		if l.HasNext {
			b = append(b, " (next: "...)
			b = appendAlgoProto(b, lazyAlgoProto(l.Next))
			b = append(b, ' ')
			b = appendFixed2(b, l.NextUs)
			b = append(b, " µs)"...)
		}
	}
	return string(b)
}

// appendLegal appends G-SEL-PRUNE-1's sentence: the legal cells in scan
// order, or that none is left, and the pruning notes.
func appendLegal(b []byte, cells uint32, notes string) []byte {
	n := len(b)
	b = append(b, "legal:"...)
	for set := cells; set != 0; set &= set - 1 {
		b = append(b, ' ')
		b = appendAlgoProto(b, lazyAlgoProto(uint8(bits.TrailingZeros32(set))))
	}
	if cells == 0 {
		b = append(b[:n], "no cell left"...)
	}
	if notes != "" {
		b = append(b, " (pruned "...)
		b = append(b, notes...)
		b = append(b, ')')
	}
	return b
}

// lazy returns the decision's room for the numbers of a sentence of kind
// k, filled in by the caller (scratch when the walk records nothing).
func (o *opRun) lazy(k LazyKind) *LazyWhy {
	l := &o.scratch
	if o.record {
		l = &o.room.whys[k-1]
	}
	*l = LazyWhy{Kind: k}
	return l
}

// decisionOnly is the decision of a walk that records nothing, with the
// room for its candidates and what its verdicts and cost table are made
// from when read, allocated together: a few hundred bytes, where the
// recorded verdicts and cells are five kilobytes of pointers that the
// collector would scan for every operation.
type decisionOnly struct {
	d     Decision
	cands [NumAlgos * NumProtos]AlgoProto
	lazy  LazyOp
}

// LazyOp is the part of a Select that is written only when read: the
// operation's verdicts and its cost table. Select walks the per-operation
// rules deciding only; the first reader walks them again, recording. The
// walk is a function of the communicator (read only after init), the
// operation and the tuner's answer, so the verdicts and cells are those
// the first walk would have recorded. It is safe for concurrent readers.
type LazyOp struct {
	comm *Comm
	op   Op
	// tuned is a private copy of the tuner's answer the decision was made
	// with (nil: there was none), so that a caller changing the
	// decision's Tuner afterwards cannot change what is recorded. A
	// pointer, not a value: every Decision holds a LazyOp, and most have
	// no tuner.
	tuned *TunerEffect
	once  sync.Once
	trace Trace
	costs []CellCost
}

// set makes l the lazy part of operation op of c, decided with tuned.
func (l *LazyOp) set(c *Comm, op Op, tuned *TunerEffect) {
	l.comm, l.op = c, op
	l.tuned = nil
	if tuned != nil {
		t := tuned.clone()
		l.tuned = &t
	}
}

// walk records the operation's verdicts and cost table, once.
func (l *LazyOp) walk() {
	l.once.Do(func() {
		d, tr := l.comm.recordOp(l.op, l.tuned, true)
		l.trace, l.costs = tr, d.Costs
	})
}

// Trace is the operation's verdicts (shared by every reader: read only).
func (l *LazyOp) Trace() Trace {
	l.walk()
	return l.trace
}

// Costs is the operation's cost table (shared by every reader: read
// only; nil where the tuning model made none).
func (l *LazyOp) Costs() []CellCost {
	l.walk()
	return l.costs
}

// Equal reports whether two lazy parts make the same verdicts and cost
// table (what comparing two decisions compares of them).
func (l *LazyOp) Equal(m *LazyOp) bool {
	if l == nil || m == nil {
		return l == m
	}
	return reflect.DeepEqual(l.Trace(), m.Trace()) && slices.Equal(l.Costs(), m.Costs())
}

// Select walks the per-operation rules for one operation and returns NCCL's
// decision and the full trace (init verdicts, then this operation's); the
// trace shares the init verdicts with the communicator. The operation's
// verdicts and the decision's cost table are written when first read
// (LazyOp).
func (c *Comm) Select(op Op) (*Decision, SelectTrace, error) {
	tuned, err := c.modelledTuner(op)
	if err != nil {
		return nil, SelectTrace{}, err
	}
	d, err := c.decideOp(op, tuned)
	if err != nil {
		return nil, SelectTrace{}, err
	}
	d.Tuner = tuned
	return d, c.lazyTrace(d.Lazy), nil
}

// modelledTuner is the answer of a tuner plugin gatesim models in code
// (aws-ofi-nccl's regions), applied as a loaded plugin's is; nil without
// one.
func (c *Comm) modelledTuner(op Op) (*TunerEffect, error) {
	if c.ofiTuner == nil {
		return nil, nil
	}
	return c.ofiTuned(op)
}

// lazyTrace is the SelectTrace of an operation whose verdicts l makes.
func (c *Comm) lazyTrace(l *LazyOp) SelectTrace {
	return SelectTrace{init: c.Trace[:len(c.Trace):len(c.Trace)], lazy: l}
}

// SelectOp is Select returning only this operation's verdicts (the full
// trace is c.Trace followed by them), recorded in the one walk when
// withTrace is set and nil otherwise: callers that answer many operations
// on one communicator (the oracle) share the init verdicts instead of
// copying them for every operation. The cost table is made when read
// (Decision.CostTable).
func (c *Comm) SelectOp(op Op, withTrace bool) (*Decision, Trace, error) {
	tuned, err := c.modelledTuner(op)
	if err != nil {
		return nil, nil, err
	}
	if !withTrace {
		d, err := c.decideOp(op, tuned)
		if d != nil {
			d.Tuner = tuned
		}
		return d, nil, err
	}
	if err := c.checkOp(op); err != nil {
		return nil, nil, err
	}
	d, tr := c.recordOp(op, tuned, false)
	d.Tuner = tuned
	return d, tr, nil
}

// decideOp decides one operation, with a tuner's answer when tuned is
// set, recording nothing: the decision's Lazy makes its verdicts and cost
// table when read.
func (c *Comm) decideOp(op Op, tuned *TunerEffect) (*Decision, error) {
	if err := c.checkOp(op); err != nil {
		return nil, err
	}
	b := new(decisionOnly)
	b.lazy.set(c, op, tuned)
	d := &b.d
	d.Lazy = &b.lazy
	c.walkOp(op, tuned, d, opRoom{cands: &b.cands}, nil)
	return d, nil
}

// recordOp decides a checked operation recording its verdicts, and its
// cost table with costs (without, the decision's Lazy makes the table
// when read).
func (c *Comm) recordOp(op Op, tuned *TunerEffect, costs bool) (*Decision, Trace) {
	if costs {
		b := new(decisionCosts)
		room, tr := b.v.rooms(&b.cands, len(c.opRules))
		room.costs = &b.costs
		return &b.d, c.walkOp(op, tuned, &b.d, room, tr)
	}
	b := new(decisionTrace)
	b.lazy.set(c, op, tuned)
	b.d.Lazy = &b.lazy
	room, tr := b.v.rooms(&b.cands, len(c.opRules))
	return &b.d, c.walkOp(op, tuned, &b.d, room, tr)
}

// walkOp walks the per-operation rules for a checked operation into d
// (fresh), writing its slices into room: with room.whys it records the
// verdicts, appended to trace, and with room.costs the cost table.
func (c *Comm) walkOp(op Op, tuned *TunerEffect, d *Decision, room opRoom, trace Trace) Trace {
	record := room.whys != nil
	d.Release, d.Op, d.Algo, d.Proto = c.Release, op, AlgoNone, ProtoNone
	d.Net, d.NetVia, d.Transport, d.CollNetSupport, d.NVLSSupport = c.Net, c.NetVia, c.IntraTransport, c.CollNetSupport, c.NVLSSupport
	if c.Err != nil {
		d.Evidence = c.evidenceWith(0, nil)
		d.Err = c.Err
		d.DecidedBy = c.failedBy
		if record {
			for _, r := range c.opRules {
				trace = append(trace, Verdict{Rule: r.ID, Layer: r.Layer, Outcome: Skip, Scope: "op", Why: "not reached: communicator init failed", Ref: &r.Ref})
			}
		}
		return trace
	}
	// a walk from the pool is zero (New's, or cleared before Put): the
	// fields are set one by one rather than a whole walk copied in
	o := opRuns.Get().(*opRun)
	o.rs, o.comm, o.op, o.dec, o.room, o.tunerCell, o.tuned = c.rs, c, op, d, room, AlgoProto{AlgoNone, ProtoNone}, tuned
	o.record, o.costs = record, room.costs != nil
	defer func() {
		*o = opRun{} // nothing of the decision stays reachable from the pool
		opRuns.Put(o)
	}()
	// the rules emit straight into the trace
	o.out = trace
	for _, rule := range c.opRules {
		if o.stop {
			if record {
				o.out = append(o.out, Verdict{Rule: rule.ID, Layer: rule.Layer, Outcome: Skip, Scope: "op", Why: "not reached: the call ended at " + string(d.DecidedBy), Ref: &rule.Ref})
			}
			continue
		}
		o.id, o.rule = rule.ID, rule
		rule.perOp(o)
	}
	// the plan failure decides in both walks; its verdict is the
	// recording walk's, like every other
	if v, ok := c.planFailure(d, o.choice, 1); ok && record {
		o.out = append(o.out, v)
	}
	trace, o.out = o.out, nil
	d.Evidence = c.evidenceWith(o.raised, o.odd)
	return trace
}

// planFailure is G-GROUP-PLAN-1 failing a decision the gates let pass:
// the tuning model picked the same cell, then the group's kernel plan
// could not take the task (before 2.22.3 an NCCL_WORK_FIFO_DEPTH too
// small for its channels), so ncclGroupEnd returns the error, for a call
// outside a group its implicit group's. It sets d's error and returns the
// verdict; false when ch has no such failure.
//
// Ref: v2.21.5-1 src/enqueue.cc ncclLaunchPrepare (v2.18.1-1 likewise)
func (c *Comm) planFailure(d *Decision, ch *tuning.OpChoice, n int) (Verdict, bool) {
	r, ok := c.rs.rules["G-GROUP-PLAN-1"]
	if !ok || ch == nil || d.Err != nil || ch.Err == nil || ch.Algo != d.Algo || ch.Proto != d.Proto {
		return Verdict{}, false
	}
	d.Err, d.DecidedBy = ch.Err, r.ID
	why := fmt.Sprintf("the %s/%s task fits no kernel plan: ncclGroupEnd of its group of %d fails with %s", d.Algo, d.Proto, n, ch.Err)
	return Verdict{Rule: r.ID, Layer: r.Layer, Ref: &r.Ref, Scope: "op", Outcome: Fail, Why: why, Log: []string{ch.Err.Message}}, true
}

// checkOp rejects operations NCCL's API would reject before any gate.
func (c *Comm) checkOp(op Op) error {
	if (op.Func < 0 || op.Func >= NumFuncs) && !op.Func.IsP2P() {
		return argErr(ArgFunc, "unknown collective %d", op.Func)
	}
	if op.DataType < 0 || op.DataType >= NumDataTypes {
		return argErr(ArgDataType, "unknown datatype %d", op.DataType)
	}
	if op.DataType.IsFP8() && !c.rs.Consts.HasFP8 {
		return argErr(ArgDataType, "%s does not exist in NCCL %s (fp8 types arrived in 2.24)", op.DataType, c.Release)
	}
	if op.RedOp < 0 || op.RedOp >= NumRedOps {
		return argErr(ArgRedOp, "unknown reduction %d", op.RedOp)
	}
	if err := CheckCount(op.Count, op.DataType); err != nil {
		return &ArgError{Arg: ArgCount, Err: err}
	}
	if (op.Func == Broadcast || op.Func == Reduce) && (op.Root < 0 || op.Root >= c.NRanks) {
		return argErr(ArgRoot, "root %d out of range: the communicator has %d ranks", op.Root, c.NRanks)
	}
	return nil
}

func decisiveInit(t Trace) RuleID {
	for i := len(t) - 1; i >= 0; i-- {
		if t[i].Outcome == Fail && t[i].Rule != "" {
			return t[i].Rule
		}
	}
	return ""
}

// tuneBytes is the size the cost table is computed for: the larger of the
// send and receive buffers (count × nRanks for AllGather/ReduceScatter).
func (o *opRun) tuneBytes() int64 {
	b := o.op.Bytes()
	if o.op.Func == AllGather || o.op.Func == ReduceScatter {
		b *= int64(o.comm.NRanks)
	}
	return b
}

// ---------------------------------------------------------------------------

// appendRule is G-SEL-APPEND-1: taskAppend's checks before a collective
// becomes a task. fp8 marks 2.24+, where fp8 reductions need sm90.
func appendRule(ref Ref, fp8 bool) *Rule {
	doc := `taskAppend: a collective with count 0 is discarded (ncclSuccess, nothing runs, no cost table).`
	logs := []string(nil)
	if fp8 {
		doc += ` An fp8 (e4m3, e5m2) collective other than AllGather and Broadcast on a communicator whose smallest compute capability is below 9.0 fails with ncclInvalidArgument and a WARN.`
		logs = []string{"FP8 reduction support begins with sm90 capable devices."}
	}
	return &Rule{
		ID: "G-SEL-APPEND-1", Layer: LayerSelect, Title: "empty and unsupported calls",
		Doc: doc, Ref: ref, Logs: logs,
		perOp: func(o *opRun) {
			op, d := o.op, o.dec
			switch {
			case op.Count == 0:
				d.Discarded, d.DecidedBy, o.stop = true, "G-SEL-APPEND-1", true
				o.emit(Verdict{Outcome: Info, Why: "count 0: NCCL discards the call (nothing runs)"})
			case fp8 && op.DataType.IsFP8() && op.Func != AllGather && op.Func != Broadcast && o.comm.MinSM < 90:
				msg := "FP8 reduction support begins with sm90 capable devices."
				d.Err = &NCCLError{Result: InvalidArgument, Message: msg, Call: "nccl" + op.Func.String()}
				d.DecidedBy, o.stop = "G-SEL-APPEND-1", true
				o.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("%s %s on sm%d: fp8 reductions need sm90: ncclInvalidArgument", op.Func, op.DataType, o.comm.MinSM), Log: []string{msg}})
			default:
				l := o.lazy(LazyElements)
				l.Count = op.Count
				o.emit(Verdict{Outcome: Pass, Lazy: l})
			}
		},
	}
}

// p2pPathRule is G-SEL-P2P-1: grouped ncclSend/ncclRecv (SendRecv, and
// AllToAll as nccl-tests issues it) never reach the cost table:
// ncclPrepareTasks queues them per peer and scheduleP2pTasksToPlan plans
// them round by round over comm->p2pSchedule on the p2p channels, each
// peer's bytes on up to p2pnChannelsPerPeer channels, the protocol chosen
// per peer by size (algos builds that plan). A collective passes it by:
// the cost table decides.
func p2pPathRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-SEL-P2P-1", Layer: LayerSelect, Title: "point-to-point operations take the p2p path",
		Doc: `SendRecv and AllToAll (grouped ncclSend/ncclRecv) are planned by scheduleP2pTasksToPlan on the communicator's p2p channels (ncclTopoComputeP2pChannels: p2pnChannels, p2pnChannelsPerPeer), without the cost table: no algorithm or protocol is chosen for the operation; addP2pToPlan picks LL or Simple per peer and direction by size (NCCL_P2P_LL_THRESHOLD × channels per peer) and spreads each peer's bytes over 1 to p2pnChannelsPerPeer channels.`,
		Ref: ref,
		perOp: func(o *opRun) {
			if !o.op.Func.IsP2P() {
				o.emit(Verdict{Outcome: Skip, Why: "a collective: the cost table decides"})
				return
			}
			d, c := o.dec, o.comm
			d.P2P = &P2PPath{}
			if c.Topo != nil {
				d.P2P.NChannels, d.P2P.NChannelsPerPeer = c.Topo.P2PNChannels, c.Topo.P2PNChannelsPerPeer
			}
			d.DecidedBy, o.stop = "G-SEL-P2P-1", true
			o.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("%s: the p2p path on %d p2p channels, up to %d per peer; no cost table", o.op.Func, d.P2P.NChannels, d.P2P.NChannelsPerPeer)})
		},
	}
}

var sideRule = &Rule{
	ID: "G-SEL-SIDE-1", Layer: LayerSelect, Title: "paths that bypass the cost table",
	Doc:  `Symmetric kernels (send and receive buffers in registered windows with the symmetric flag, on communicators with symmetric support) and copy-engine collectives (symmetric windows, one node, CTA policy ZERO) are scheduled without the cost table. Ordinary, unregistered buffers always go through it. A group's copy-engine collectives launch first, one plan each in call order, then the symmetric plans (ncclSymmetricTaskScheduler), then the cost table's (ncclLaunchPrepare).`,
	Ref:  Ref{Tag: "v2.28.3-1", File: "src/enqueue.cc", Func: "ncclMakeSymmetricTaskList"},
	Logs: []string{"%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d"},
	perOp: func(o *opRun) {
		o.emit(Verdict{Outcome: Skip, Why: "buffers are not registered symmetric windows: the cost table decides"})
	},
}

// opSupport is G-SEL-OPSUP-1: CollNet's and NVLS's per-operation support.
func opSupport(ref Ref) *Rule {
	return &Rule{
		ID: "G-SEL-OPSUP-1", Layer: LayerSelect, Title: "per-operation CollNet and NVLS support",
		Doc: `collNetOK = the communicator's CollNet support and, for AllReduce, Reduce and ReduceScatter, the gathered matrix at (netOp, datatype), where Avg and PreMulSum look up Sum. nvlsOK = the communicator's NVLS support and (AllGather where the release takes its support whatever the datatype, Consts.NVLSSupportAllGather: 2.22.3 and later; or ncclNvlsSupported(op, type) on the queued task: an AllGather with the ncclSum it enqueues and as ncclInt8, as every release queues AllGather and Broadcast, so before 2.22.3 no AllGather of any datatype passes; int32/uint32/int64/uint64/half/bfloat16 with Sum, Min or Max; float/double with Sum only).`,
		Ref: ref,
		perOp: func(o *opRun) {
			c, op := o.comm, o.op
			o.collNetOK, o.nvlsOK = c.opSupport(op)
			why := ""
			if c.CollNetSupport && !o.collNetOK {
				netOp := op.RedOp.NetOp()
				why = "CollNet: the matrix does not support " + netOp.Short() + "/" + op.DataType.Short()
			} else if !o.collNetOK {
				why = "CollNet: not supported by the communicator"
			}
			nvls := ""
			if !c.NVLSSupport {
				nvls = "NVLS: not supported by the communicator"
			} else if !o.nvlsOK {
				dt, _ := op.Queued()
				nvls = "NVLS: " + nvlsRedOp(op).Short() + "/" + dt.Short() + " is not an NVLS reduction"
				if dt != op.DataType {
					nvls += " (queued as bytes)"
				}
			}
			switch {
			case why != "" && nvls != "":
				why += "; " + nvls
			case nvls != "":
				why = nvls
			case why == "":
				why = "CollNet and NVLS both support this operation"
			}
			out := Info
			if o.collNetOK || o.nvlsOK {
				out = Pass
			}
			o.emit(Verdict{Outcome: out, Why: why, Facts: opSupportFacts(o.collNetOK, o.nvlsOK)})
		},
	}
}

// opSupportFacts is G-SEL-OPSUP-1's facts, made once for each answer
// (the slices are full: a verdict that appends to them copies).
func opSupportFacts(collNetOK, nvlsOK bool) []Fact {
	i := 0
	if collNetOK {
		i = 2
	}
	if nvlsOK {
		i++
	}
	return opSupportFactSets[i]
}

var opSupportFactSets = func() (s [4][]Fact) {
	for i := range s {
		s[i] = []Fact{F("collNetOK", i >= 2), F("nvlsOK", i%2 == 1)}
	}
	return s
}()

// opSupport is G-SEL-OPSUP-1's answer: collNetOK and nvlsOK for op.
func (c *Comm) opSupport(op Op) (collNetOK, nvlsOK bool) {
	collNetOK = c.CollNetSupport
	if collNetOK && (op.Func == AllReduce || op.Func == Reduce || op.Func == ReduceScatter) {
		netOp := op.RedOp.NetOp()
		collNetOK = netOp <= Min && c.CollNetMatrix[netOp][op.DataType]
	}
	dt, _ := op.Queued() // an AllGather asks as ncclInt8
	nvlsOK = c.NVLSSupport && ((op.Func == AllGather && c.rs.Consts.NVLSSupportAllGather) || nvlsSupported(nvlsRedOp(op), dt))
	return collNetOK, nvlsOK
}

// nvlsRedOp is the reduction ncclNvlsSupported is asked about: an
// AllGather's is the ncclSum ncclAllGather enqueues with.
func nvlsRedOp(op Op) RedOp {
	if op.Func == AllGather {
		return Sum
	}
	return op.RedOp
}

// nvlsSupported is ncclNvlsSupported (src/include/device.h).
func nvlsSupported(op RedOp, dt DataType) bool {
	switch op {
	case Sum, Min, Max:
	default:
		return false
	}
	switch dt {
	case Int32, Uint32, Int64, Uint64, Float16, Bfloat16:
		return true
	case Float32, Float64:
		return op == Sum
	}
	return false
}

// pruneRule is G-SEL-PRUNE-1 with the release's set of prunes.
type pruneSet struct {
	nvlsAGExempt    bool // P4 (2.22): NVLS AllGather skips the nvlsOK check
	nvlsArity       bool // P4': non-AllReduce NVLS needs localRanks <= 32 (2.27.3+)
	nvlsAGRSOneNode bool // P6 (2.22): NVLS AllGather/ReduceScatter single node only
	nvlsAGRSRanks   bool // P6 (2.25.1–2.26.6): and at most NCCL_MAX_NVLS_ARITY ranks
	patScaling      bool // P7: PAT ReduceScatter not with PreMulSum/SumPostDiv
	fp8Ring         bool // P8: fp8 Ring with nRanks > 8 deprioritised
}

func pruneRule(ref Ref, ps pruneSet) *Rule {
	return &Rule{
		ID: "G-SEL-PRUNE-1", Layer: LayerSelect, Title: "cost-table pruning",
		Doc: `Every cell starts IGNORE; with one rank only Ring/Simple is used. Otherwise an algorithm stays IGNORE when: it is CollNet and collNetOK is false (P1); it is CollNetDirect (2.23.4+) or CollNetChain (2.28.3+) and a node has more than 8 local ranks (P2, P3); it is NVLS/NVLSTree and nvlsOK is false (2.22: AllGather exempt) or, from 2.27.3, the function is not AllReduce with more than 32 local ranks (P4); it is NVLS across nodes without collNetOK (P5); it is NVLS AllGather/ReduceScatter across nodes (2.22, P6) or, 2.25.1–2.26.6, on more than 32 ranks; it is PAT ReduceScatter with a scaling reduction such as Avg (P7). fp8 Ring with more than 8 ranks is deprioritised (time ×1024), not removed (P8). The remaining cells take the model's time; a cell with bandwidth 0 stays unusable.`,
		Ref: ref,
		perOp: func(o *opRun) {
			c, op := o.comm, o.op
			f := int(op.Func)
			nA := NumAlgos
			if !o.rs.Consts.HasPAT {
				nA = int(PAT)
			}
			if c.NRanks == 1 {
				o.cell[Ring][Simple] = true
				o.cost[Ring][Simple], o.costSet[Ring][Simple] = 0, true
				o.emit(Verdict{Outcome: Info, Why: "one rank: Ring/Simple with time 0"})
				return
			}
			// the notes are written on the stack, "; "-separated
			var nbuf [256]byte
			notes := nbuf[:0]
			note := func(a Algo, why string) {
				if len(notes) > 0 {
					notes = append(notes, "; "...)
				}
				notes = append(append(append(notes, a.String()...), ": "...), why...)
			}
			prune := func(a Algo, id RuleID, why string) {
				for p := range NumProtos {
					o.prunedBy[a][p] = id
				}
				note(a, why)
			}
			var legal uint32 // the legal cells, as LazyWhy numbers them
			for a := range nA {
				A := Algo(a)
				if o.prunedBy[a][0] != "" { // an earlier per-operation rule (G-COLLNET-ARITY-1)
					note(A, string(o.prunedBy[a][0]))
					continue
				}
				switch {
				case A.IsCollNet() && !o.collNetOK:
					prune(A, "G-SEL-PRUNE-1", "collNetOK is false (P1)")
					continue
				case A.IsNVLS() && !o.nvlsOK && !(ps.nvlsAGExempt && op.Func == AllGather):
					prune(A, "G-SEL-PRUNE-1", "nvlsOK is false (P4)")
					continue
				case A.IsNVLS() && ps.nvlsArity && op.Func != AllReduce && c.MaxLocalRanks > o.rs.Consts.MaxNVLSArity:
					prune(A, "G-SEL-PRUNE-1", fmt.Sprintf("%d local ranks > %d (P4)", c.MaxLocalRanks, o.rs.Consts.MaxNVLSArity))
					continue
				case A == NVLS && !o.collNetOK && c.NNodes > 1:
					prune(A, "G-SEL-PRUNE-1", "multi-node NVLS without collNetOK (P5)")
					continue
				case A == NVLS && ps.nvlsAGRSOneNode && (op.Func == AllGather || op.Func == ReduceScatter) && c.NNodes > 1:
					prune(A, "G-SEL-PRUNE-1", "NVLS AllGather/ReduceScatter is single-node only (P6)")
					continue
				case A == NVLS && ps.nvlsAGRSRanks && (op.Func == AllGather || op.Func == ReduceScatter) && c.NRanks > o.rs.Consts.MaxNVLSArity:
					prune(A, "G-SEL-PRUNE-1", fmt.Sprintf("NVLS AllGather/ReduceScatter on %d ranks > %d (P6)", c.NRanks, o.rs.Consts.MaxNVLSArity))
					continue
				case A == PAT && ps.patScaling && op.Func == ReduceScatter && (op.RedOp == Avg || op.RedOp == PreMulSum):
					prune(A, "G-SEL-PRUNE-1", "PAT ReduceScatter cannot scale (P7)")
					continue
				}
				for p := range NumProtos {
					if c.Enabled[f][a][p] {
						o.cell[a][p] = true
						legal |= 1 << (a*NumProtos + p)
					} else {
						o.prunedBy[a][p] = c.ZeroedBy[f][a][p]
					}
				}
			}
			// 2.22.3: a Ring cell with no bandwidth (typically NCCL_ALGO
			// excluded Ring) is kept aside as a backup from the saved Ring
			// bandwidths.
			if o.rs.Consts.RingBackup {
				for p := range NumProtos {
					if !o.cell[Ring][p] && c.RingBackup[f][p] && o.prunedBy[Ring][p] != "G-SEL-PRUNE-1" {
						o.backup = append(o.backup, AlgoProto{Ring, Proto(p)})
					}
				}
			}
			if ps.fp8Ring && op.DataType.IsFP8() && c.NRanks > 8 {
				note(Ring, "fp8 with more than 8 ranks, time ×1024 (P8)")
			}
			// the sentence is written when read, from the legal cells
			l := o.lazy(LazyLegal)
			l.Cells = legal
			if len(notes) > 0 && o.record {
				l.Notes = string(notes)
			}
			o.emit(Verdict{Outcome: Info, Lazy: l})
		},
	}
}

// tunerCall is G-TUNER-CALL-1.
func tunerCall(ref Ref) *Rule {
	return &Rule{
		ID: "G-TUNER-CALL-1", Layer: LayerSelect, Cap: CapTuner, Title: "tuner plugin getCollInfo",
		Doc: `After pruning, a loaded tuner's getCollInfo receives the function, the byte count, the pipelined-op count and the cost table; it may overwrite any cell (0.0 prefers, IGNORE forbids) and set nChannels. NCCL then picks from the edited table without re-validating it: a cell the tuner moves from IGNORE to a time becomes selectable. A non-success return fails the collective (NCCLCHECK: the result reaches ncclGroupEnd, with no WARN). From 2.29.2 the symmetric task list calls it once more for a piece's head task (see tuning.Model.symmetricBack).`,
		Ref: ref,
		perOp: func(o *opRun) {
			if o.tuned != nil {
				o.tunedCall(o.tuned)
				return
			}
			t := o.comm.Tuner
			if t == nil {
				o.emit(Verdict{Outcome: Skip, Why: "no tuner plugin"})
				return
			}
			bytes := o.tuneBytes()
			for _, tr := range t.Rules {
				fn, _ := ParseFunc(tr.Func)
				if tr.ChunkSize > 0 || fn != o.op.Func || bytes < tr.MinBytes || (tr.MaxBytes > 0 && bytes > tr.MaxBytes) {
					continue
				}
				a, _ := ParseAlgo(tr.Algo)
				p, _ := ParseProto(tr.Proto)
				facts := []Fact{F("rule", fmt.Sprintf("%s %d..%d %s/%s=%g", tr.Func, tr.MinBytes, tr.MaxBytes, tr.Algo, tr.Proto, tr.Cost))}
				if res, err := tuning.ParseTunerResult(tr.Result); err == nil && res != Success {
					o.dec.Err = tuning.TunerCallErr(res)
					o.dec.DecidedBy, o.stop = "G-TUNER-CALL-1", true
					o.emit(Verdict{Outcome: Fail, Why: o.dec.Err.Message + ": NCCLCHECK returns it and the collective fails", Facts: facts})
					return
				}
				if tr.NChannels > 0 {
					o.dec.NChannels = tr.NChannels
				}
				if tr.Cost < 0 {
					o.cell[a][p] = false
					o.prunedBy[a][p] = "G-TUNER-CALL-1"
					o.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("tuner %s sets %s/%s to IGNORE", t.Name, a, p), Facts: facts})
					return
				}
				wasIgnored := !o.cell[a][p]
				o.tunerCell = AlgoProto{a, p}
				o.cell[a][p] = true
				o.cost[a][p], o.costSet[a][p] = tr.Cost, true
				if wasIgnored {
					o.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("tuner %s gives %s/%s cost %g although NCCL had ruled it out (%s): NCCL does not re-validate the cell, so it becomes selectable", t.Name, a, p, tr.Cost, o.prunedBy[a][p]),
						Facts: facts})
					return
				}
				o.emit(Verdict{Outcome: Pass, Level: LevelSelected, Why: fmt.Sprintf("tuner %s gives %s/%s cost %g", t.Name, a, p, tr.Cost), Facts: facts})
				return
			}
			o.emit(Verdict{Outcome: Info, Why: "tuner " + t.Name + " leaves the table as it is"})
		},
	}
}

// candidates lists the usable cells in NCCL's scan order.
func (o *opRun) candidates() []AlgoProto {
	n := 0
	for a := range NumAlgos {
		for p := range NumProtos {
			if o.cell[a][p] {
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	out := o.room.cands[:0:n]
	for a := range NumAlgos {
		for p := range NumProtos {
			if o.cell[a][p] {
				out = append(out, AlgoProto{Algo(a), Proto(p)})
			}
		}
	}
	return out
}

var pickRule = &Rule{
	ID: "G-SEL-PICK-1", Layer: LayerSelect, Title: "argmin of the cost table",
	Doc:  `topoGetAlgoInfo scans algorithms, then protocols, in index order and keeps the strictly smaller time among cells that are not IGNORE and not negative; ties go to the lower index. Channel and thread counts follow from the winner.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "topoGetAlgoInfo"},
	Logs: []string{"%ld Bytes -> Algo %d proto %d time %f", "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}"},
	perOp: func(o *opRun) {
		d := o.dec
		cands := o.candidates()
		d.Candidates = cands
		disagree := o.modelCosts()
		if len(cands) == 0 {
			v := Verdict{Outcome: Fail, Why: "no usable cell"}
			if disagree != "" {
				v.Facts = append(v.Facts, F("model_disagrees", disagree))
			}
			o.emit(v)
			return
		}
		if o.allCostsKnown(cands) {
			best, bestT := AlgoProto{AlgoNone, ProtoNone}, 3600000000.0
			for _, ap := range cands {
				if t := o.cost[ap.Algo][ap.Proto]; t >= 0 && t < bestT {
					best, bestT = ap, t
				}
			}
			if best.Algo != AlgoNone {
				by := RuleID("G-SEL-PICK-1")
				if best == o.tunerCell {
					by = "G-TUNER-CALL-1" // the tuner's number won
				}
				o.decide(best, by)
				v := Verdict{Outcome: Pass, Lazy: o.winWhy(best, bestT, cands)}
				if ch := o.choice; ch != nil {
					if ch.Err == nil && (ch.Algo != best.Algo || ch.Proto != best.Proto) {
						disagree = strings.TrimPrefix(disagree+"; ", "; ") + "model picks " + AlgoProto{ch.Algo, ch.Proto}.String()
					}
					o.fillFromModel(best)
					if ch.Line != "" && o.record {
						o.room.debug[0] = ch.Line
						v.Debug = o.room.debug[:]
					}
				}
				if disagree != "" {
					v.Facts = append(v.Facts, F("model_disagrees", disagree))
				}
				o.emit(v)
				return
			}
		}
		// A cell a tuner set to 0.0 wins against any model time (model
		// times are positive): the first such cell in scan order.
		for _, ap := range cands {
			if o.costSet[ap.Algo][ap.Proto] && o.cost[ap.Algo][ap.Proto] == 0 {
				o.decide(ap, "G-TUNER-CALL-1")
				o.emit(Verdict{Outcome: Pass, Why: ap.String() + " has cost 0.0 from the tuner: no model time is lower"})
				return
			}
		}
		algos := map[Algo]bool{}
		for _, ap := range cands {
			algos[ap.Algo] = true
		}
		if len(cands) == 1 {
			o.decide(cands[0], "G-SEL-PICK-1")
			o.emit(Verdict{Outcome: Pass, Why: "one legal cell: " + cands[0].String()})
			return
		}
		if len(algos) == 1 {
			d.Algo = cands[0].Algo
			d.DecidedBy = "G-SEL-PICK-1"
			d.Undecided = fmt.Sprintf("algorithm %s is the only legal one; the protocol among %s needs the tuning model", d.Algo, protoList(cands))
			o.ringFallback(AlgoProto{d.Algo, ProtoNone})
			o.raiseSelected(d.Algo)
			o.emit(Verdict{Outcome: Pass, Why: d.Undecided})
			return
		}
		d.Undecided = "several algorithms remain legal (" + apList(cands) + "): the choice needs the tuning model"
		o.emit(Verdict{Outcome: Info, Why: d.Undecided})
	},
}

// modelCosts runs the tuning model's choice for the operation and takes its
// times for the candidate cells (where no tuner wrote one). A recording
// walk also fills the decision's cost table (with costs) and returns the
// cells where the model and the per-operation gates disagree on usability
// ("" when they agree).
func (o *opRun) modelCosts() string {
	m := o.comm.Model
	if m == nil {
		return ""
	}
	ch := &o.choiceBuf
	if err := m.ChooseInto(tuning.Call{Op: o.op, CollNetOK: o.collNetOK, NVLSOK: o.nvlsOK, Tuned: o.tuned.modelEdit()}, ch); err != nil {
		return "model: " + err.Error()
	}
	o.choice = ch
	if ch.OneRank || ch.Discarded {
		return ""
	}
	nA := NumAlgos
	if !o.rs.Consts.HasPAT {
		nA = int(PAT)
	}
	if !o.record {
		for a := range nA {
			for p := range NumProtos {
				if t := ch.Cost[a][p]; o.cell[a][p] && t != tuning.Ignore && t >= 0 && !o.costSet[a][p] {
					o.cost[a][p], o.costSet[a][p] = float64(t), true
				}
			}
		}
		return ""
	}
	var disagree []string
	// the cells are written in place, field by field
	var costs []CellCost
	n := 0
	if o.costs {
		costs = o.dec.Costs
		if costs == nil {
			costs = o.room.costs[:0]
		}
		n = len(costs)
		costs = slices.Grow(costs, nA*NumProtos)[:n+nA*NumProtos]
		o.dec.Costs = costs
	}
	for a := range nA {
		for p := range NumProtos {
			t, reason := ch.Cost[a][p], ch.Reason[a][p]
			usable := t != tuning.Ignore && t >= 0 // TuningCostCell.Usable
			if o.costs {
				cc := &costs[n]
				n++
				cc.Algo, cc.Proto, cc.TimeUs, cc.Usable = Algo(a), Proto(p), float64(t), usable
				cc.Rule, cc.Why = "", ""
				if reason != tuning.CostOK { // a usable cell needs no reason
					c := ch.ExplainCell(m, Algo(a), Proto(p))
					cc.Rule, cc.Why = c.Rule, c.Why
				}
				if !usable && o.prunedBy[a][p] != "" {
					cc.Rule = o.prunedBy[a][p]
				}
			}
			if usable != o.cell[a][p] && reason != tuning.CostBackup {
				disagree = append(disagree, fmt.Sprintf("%s/%s (gates %s, model %s)", Algo(a), Proto(p), onOff(o.cell[a][p]), onOff(usable)))
			}
			if o.cell[a][p] && usable && !o.costSet[a][p] {
				o.cost[a][p], o.costSet[a][p] = float64(t), true
			}
		}
	}
	return strings.Join(disagree, "; ")
}

// fillFromModel copies the model's channels, threads, channel range and time
// for the cell the scan picked.
func (o *opRun) fillFromModel(ap AlgoProto) {
	ch, d := o.choice, o.dec
	if ch == nil || ch.Err != nil || ch.Algo != ap.Algo || ch.Proto != ap.Proto {
		return
	}
	d.NChannels, d.NThreads = ch.NChannels, ch.NThreads
	d.ChannelLo, d.ChannelHi = ch.ChannelLo, ch.ChannelHi
	d.TimeUs = float64(ch.TimeUs)
	d.Chunk, _ = o.comm.Model.OpChunk(ch) // a tuner rule's chunk is at least its grain (validate): no error
	d.ChunkArgs = ch.ChunkArgs()
}

// winWhy says why a cell won: its time and the runner-up's, the first
// fastest other candidate with a time that is not negative (the numbers
// of the sentence LazyWhy writes).
func (o *opRun) winWhy(best AlgoProto, t float64, cands []AlgoProto) *LazyWhy {
	l := o.lazy(LazyWin)
	l.Best, l.BestUs = lazyCell(best), t
	if !o.record {
		return l
	}
	for _, ap := range cands {
		if ap == best || !o.costSet[ap.Algo][ap.Proto] {
			continue
		}
		if c := o.cost[ap.Algo][ap.Proto]; !(c < 0) && (!l.HasNext || c < l.NextUs) {
			l.Next, l.NextUs, l.HasNext = lazyCell(ap), c, true
		}
	}
	return l
}

// appendAlgoProto appends AlgoProto.String's text.
func appendAlgoProto(b []byte, ap AlgoProto) []byte {
	if ap.Algo >= 0 && ap.Algo < NumAlgos && ap.Proto >= 0 && ap.Proto < NumProtos {
		return append(b, algoProtoTexts[ap.Algo][ap.Proto]...)
	}
	return append(b, ap.String()...)
}

// algoProtoTexts holds AlgoProto.String for every cell, made once.
var algoProtoTexts = func() (t [NumAlgos][NumProtos]string) {
	for a := range NumAlgos {
		for p := range NumProtos {
			t[a][p] = AlgoProto{Algo(a), Proto(p)}.String()
		}
	}
	return t
}()

// appendFixed2 appends fmt's %.2f: strconv's text for finite times (the
// same digits), fmt's own for the rest.
func appendFixed2(b []byte, t float64) []byte {
	if math.IsInf(t, 0) || math.IsNaN(t) {
		return fmt.Appendf(b, "%.2f", t)
	}
	return strconv.AppendFloat(b, t, 'f', 2, 64)
}

// allCostsKnown reports whether every candidate has a time (from the
// tuning model or the tuner), so the argmin can be taken.
func (o *opRun) allCostsKnown(cands []AlgoProto) bool {
	for _, ap := range cands {
		if !o.costSet[ap.Algo][ap.Proto] {
			return false
		}
	}
	return len(cands) > 0
}

func (o *opRun) decide(ap AlgoProto, by RuleID) {
	o.dec.Algo, o.dec.Proto, o.dec.DecidedBy = ap.Algo, ap.Proto, by
	o.ringFallback(ap)
	o.raiseSelected(ap.Algo)
}

// ringFallback marks a cost-table choice of a Ring that NCCL_ALGO did not
// ask for: 2.18.x's kept Ring (G-TUNE-EN-1) or 2.19.1–2.23.4's restored
// Ring (G-TUNE-RINGRESTORE-1). That gate, not the argmin over the Ring
// protocols, is what runs Ring, so it is the one named as deciding; a
// tuner's pick stays the tuner's.
func (o *opRun) ringFallback(ap AlgoProto) {
	f := o.op.Func
	if ap.Algo != Ring || f < 0 || f >= NumFuncs {
		return
	}
	by := RuleID("")
	switch {
	case o.comm.RingKept[f]:
		by = "G-TUNE-EN-1"
	case ap.Proto >= 0 && ap.Proto < NumProtos && o.comm.RingRestored[f][ap.Proto]:
		by = "G-TUNE-RINGRESTORE-1"
	case ap.Proto == ProtoNone && slices.Contains(o.comm.RingRestored[f][:], true):
		by = "G-TUNE-RINGRESTORE-1"
	default:
		return
	}
	o.dec.Fallback = true
	if o.dec.DecidedBy == "G-SEL-PICK-1" {
		o.dec.DecidedBy = by
	}
}

func (o *opRun) raiseSelected(a Algo) {
	if cp := offloadOf(a); cp != "" {
		o.raise(cp, LevelSelected)
	}
	if a == NVLSTree { // NVLSTree runs on NVLS
		o.raise(CapNVLS, LevelSelected)
	}
	if o.comm.NNodes > 1 || o.comm.IntraTransport == "NET" {
		if o.comm.NetPlugin != nil && o.comm.Net == o.comm.NetPlugin.Name && o.comm.NetPlugin.NetABI > 0 {
			o.raise(CapNetPlugin, LevelSelected)
		}
		if o.comm.Net == "IB" {
			o.raise(CapIB, LevelSelected)
		}
	}
}

// raise records that the operation proves capability c at level l: the
// decision's evidence is the communicator's with every raise applied
// (Evidence.Raise).
func (o *opRun) raise(c Capability, l Level) {
	if !o.raised.raise(c, l) {
		o.odd = append(o.odd, capLevel{c, l})
	}
}

func protoList(c []AlgoProto) string {
	var s []string
	for _, ap := range c {
		s = append(s, ap.Proto.String())
	}
	return strings.Join(s, ", ")
}

func apList(c []AlgoProto) string {
	var s []string
	for _, ap := range c {
		s = append(s, ap.String())
	}
	return strings.Join(s, " ")
}

var backupRule = &Rule{
	ID: "G-SEL-BACKUP-1", Layer: LayerSelect, Title: "Ring backup when nothing is eligible",
	Doc:  `If the scan finds no cell, the backup Ring cell (a Ring cell with no bandwidth, timed with the Ring bandwidths saved before NCCL_ALGO's disables) is used: an unsatisfiable NCCL_ALGO silently runs Ring. Only with no backup either (every Ring protocol disabled) does NCCL warn and return ncclInternalError.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/enqueue.cc", Func: "topoGetAlgoInfo"},
	Logs: []string{"Error : no algorithm/protocol available"},
	perOp: func(o *opRun) {
		d := o.dec
		if len(d.Candidates) > 0 {
			o.emit(Verdict{Outcome: Skip, Why: "the scan found a cell"})
			return
		}
		if len(o.backup) == 0 {
			msg := "Error : no algorithm/protocol available"
			d.Err = &NCCLError{Result: InternalError, Message: msg, Call: "ncclGroupEnd"}
			d.DecidedBy = "G-SEL-BACKUP-1"
			o.emit(Verdict{Outcome: Fail, Why: "no cell and no Ring backup: the collective fails with ncclInternalError", Log: []string{msg}})
			return
		}
		d.Candidates = o.backup
		d.Fallback = true
		if ch := o.choice; ch != nil && ch.Backup && ch.Err == nil {
			ap := AlgoProto{ch.Algo, ch.Proto}
			o.decide(ap, "G-SEL-BACKUP-1")
			o.fillFromModel(ap)
		} else if len(o.backup) == 1 {
			o.decide(o.backup[0], "G-SEL-BACKUP-1")
		} else {
			d.Algo, d.DecidedBy = Ring, "G-SEL-BACKUP-1"
			d.Undecided = "Ring backup; the protocol among " + protoList(o.backup) + " needs the tuning model"
		}
		o.emit(Verdict{Outcome: Pass, Why: "nothing requested is eligible: NCCL silently runs the Ring backup (" + apList(o.backup) + ")"})
	},
}

// errRule is G-SEL-ERR-1 with the release's WARN text.
func errRule(ref Ref, prefix string) *Rule {
	return &Rule{
		ID: "G-SEL-ERR-1", Layer: LayerSelect, Title: "no algorithm: the collective fails",
		Doc: `No backup and no restoration: if the scan finds no cell NCCL warns and the collective returns ncclInvalidUsage when NCCL_ALGO or NCCL_PROTO is set in the environment, else ncclInternalError. The group's work is discarded; a blocking communicator is not marked failed.`,
		Ref: ref, Logs: []string{prefix + " for function %s with datatype %s.%s%s"},
		perOp: func(o *opRun) {
			d := o.dec
			if len(d.Candidates) > 0 {
				o.emit(Verdict{Outcome: Skip, Why: "the scan found a cell"})
				return
			}
			env := o.comm.Env
			msg := fmt.Sprintf("%s for function %s with datatype %s.", prefix, o.op.Func, o.op.DataType)
			res := InternalError
			if v, ok := env.Lookup("NCCL_ALGO"); ok {
				msg += " NCCL_ALGO was set to " + v + "."
				res = InvalidUsage
			}
			if v, ok := env.Lookup("NCCL_PROTO"); ok {
				msg += " NCCL_PROTO was set to " + v + "."
				res = InvalidUsage
			}
			d.Err = &NCCLError{Result: res, Message: msg, Call: "ncclGroupEnd"}
			d.DecidedBy = "G-SEL-ERR-1"
			o.emit(Verdict{Outcome: Fail, Why: "nothing eligible: the collective fails with " + res.String(), Log: []string{msg}})
		},
	}
}

// errRule18 is G-SEL-ERR-1 before the Ring backup (2.18.x): the WARN
// names neither the function nor the variables and the result is always
// ncclInternalError.
func errRule18(ref Ref) *Rule {
	const msg = "Error : no algorithm/protocol available"
	return &Rule{
		ID: "G-SEL-ERR-1", Layer: LayerSelect, Title: "no algorithm: the collective fails",
		Doc: `No backup and no restoration: if the scan finds no cell NCCL warns "Error : no algorithm/protocol available" and the collective returns ncclInternalError, whether or not NCCL_ALGO or NCCL_PROTO is set.`,
		Ref: ref, Logs: []string{msg},
		perOp: func(o *opRun) {
			d := o.dec
			if len(d.Candidates) > 0 {
				o.emit(Verdict{Outcome: Skip, Why: "the scan found a cell"})
				return
			}
			d.Err = &NCCLError{Result: InternalError, Message: msg, Call: "ncclGroupEnd"}
			d.DecidedBy = "G-SEL-ERR-1"
			o.emit(Verdict{Outcome: Fail, Why: "nothing eligible: the collective fails with " + InternalError.String(), Log: []string{msg}})
		},
	}
}

var ctaPolicyRule = &Rule{
	ID: "G-SEL-CTAPOL-1", Layer: LayerSelect, Cap: CapNVLS, Title: "CTA policy override towards NVLS",
	Doc: `Only without a tuner, with NCCL_ALGO and NCCL_PROTO unset, not MNNVL, CTA policy EFFICIENCY, AllGather/ReduceScatter with registered buffers: if NVLS is usable and its registered resources need no more channels than chosen, the choice becomes NVLS/Simple. NCCL reads the policy in getAlgoInfo only: a task the copy engines or a symmetric kernel take never meets it, except the cost-table probe ncclMakeSymmetricTaskList makes before it keeps an LL kernel (2.29.2+); a window is registered too (its registration makes a ncclCommRegister record), so a window task that falls back to the cost table can move.`,
	Ref: Ref{Tag: "v2.28.3-1", File: "src/enqueue.cc", Func: "getAlgoInfo"},
	perOp: func(o *opRun) {
		ctaPolicyAlone(o)
	},
}

// ctaPolicyAlone is G-SEL-CTAPOL-1 for an operation on ordinary buffers
// (Select knows no registration; SelectGroup replaces the verdict once its
// plan says which path took the operation: ctaPolicyGroupVerdict).
func ctaPolicyAlone(o *opRun) {
	m := o.comm.Model
	if m == nil {
		o.emit(Verdict{Outcome: Skip, Why: "the CTA policy is not EFFICIENCY: the override does not apply", Facts: o.comm.ctaPolicy})
		return
	}
	cn, nv := o.comm.opSupport(o.op)
	v := m.CTAPolicyCheck(tuning.Call{Op: o.op, CollNetOK: cn, NVLSOK: nv}, tuning.CTAPolicyPickKept)
	switch v.Cond {
	case tuning.CTAPolicyNoRelease, tuning.CTAPolicyNotEfficient:
		o.emit(Verdict{Outcome: Skip, Why: "the CTA policy is not EFFICIENCY: the override does not apply", Facts: o.comm.ctaPolicy})
	case tuning.CTAPolicyFunc:
		o.emit(Verdict{Outcome: Skip, Why: "CTA policy EFFICIENCY moves only AllGather and ReduceScatter: " + o.op.Func.String() + " keeps its pick", Facts: o.comm.ctaPolicy})
	case tuning.CTAPolicyTuner:
		o.emit(Verdict{Outcome: Skip, Why: v.Why, Facts: o.comm.ctaPolicy})
	default:
		o.emit(Verdict{Outcome: Fail, Why: "CTA policy EFFICIENCY, but the override does not apply: " + v.Why, Facts: o.comm.ctaPolicy})
	}
}

var runtimeConnect = &Rule{
	ID: "G-EXEC-RTCONN-1", Layer: LayerExec, Title: "lazy connection of the chosen algorithm",
	Doc: `With NCCL_RUNTIME_CONNECT=1 (default) and cuMem on every rank, only Ring and Tree channels exist after init; the first operation that selects an algorithm connects it (NVLS buffers, NVLSTree, CollNet, PAT). A failure there fails the collective: there is no fallback to another algorithm.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/group.cc", Func: "ncclCollPreconnectFunc"},
	perOp: func(o *opRun) {
		d := o.dec
		rt := o.comm.RuntimeConnect
		if d.Err != nil || d.Algo == AlgoNone {
			o.emit(Verdict{Outcome: Skip, Why: "no algorithm chosen"})
			return
		}
		if d.Algo < 0 || d.Algo >= NumAlgos {
			o.emit(Verdict{Outcome: Info, Why: d.Algo.String() + runtimeConnectWhy(rt)})
			return
		}
		whys := &runtimeConnectWhys[0]
		if rt {
			whys = &runtimeConnectWhys[1]
		}
		o.emit(Verdict{Outcome: Info, Why: whys[d.Algo]})
	},
}

// runtimeConnectWhy is G-EXEC-RTCONN-1's sentence after the algorithm's
// name; runtimeConnectWhys holds it whole for each algorithm (without and
// with runtime connect), made once.
func runtimeConnectWhy(rt bool) string {
	if rt {
		return " is connected at its first use (runtime connect)"
	}
	return " was connected at init (runtime connect off)"
}

var runtimeConnectWhys = func() (w [2][NumAlgos]string) {
	for rt := range 2 {
		for a := range NumAlgos {
			w[rt][a] = Algo(a).String() + runtimeConnectWhy(rt == 1)
		}
	}
	return w
}()

var execErr = &Rule{
	ID: "G-EXEC-ERR-1", Layer: LayerExec, Title: "plugin errors during progress",
	Doc: `Errors returned by the net/CollNet plugin's data-path calls in the proxy thread become communicator errors (async error, failing collective); no algorithm is re-selected.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/proxy.cc", Func: "progressOps"},
	perOp: func(o *opRun) {
		o.emit(Verdict{Outcome: Skip, Why: "no data-path error is modelled for this system"})
	},
}

var runtimeConnectInit = &Rule{
	ID: "G-EXEC-RTCONN-2", Layer: LayerExec, Title: "runtime connect mode",
	Doc: `Runtime connect is on iff NCCL_RUNTIME_CONNECT is 1 (default) and every rank supports cuMem; otherwise every algorithm's connections are made at init, where a failure fails init (except CollNet setup, which only disables CollNet).`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "initTransportsRank"},
	init: func(r *initRun) {
		cuMem := true
		for _, nd := range r.comm.System.Nodes {
			cuMem = cuMem && nd.Driver.CuMem
		}
		p := r.param("NCCL_RUNTIME_CONNECT")
		r.comm.RuntimeConnect = p == 1 && cuMem
		r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("runtime connect %s (NCCL_RUNTIME_CONNECT=%d, cuMem on every rank: %v)", onOff(r.comm.RuntimeConnect), p, cuMem)})
	},
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
