package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// One-sided calls (2.29.2+): ncclPutSignal writes the caller's buffer into
// a peer's window and signals it, ncclSignal signals alone, ncclWaitSignal
// waits for signals from listed peers. rmaTaskAppend checks the
// communicator and the arguments at the call (an error is the call's, and
// in a group fails ncclGroupEnd); ncclLaunchPrepare plans the RMA tasks
// before every other plan of the group (scheduleRmaTasksToPlan), a task to
// a peer of the caller's LSA team on the copy engines, any other through
// the RMA proxy.

// RMAKind is a one-sided call.
type RMAKind int

const (
	RMAPutSignal RMAKind = iota
	RMASignal
	RMAWaitSignal
	numRMAKinds
)

var rmaNames = [numRMAKinds]string{"PutSignal", "Signal", "WaitSignal"}

func (k RMAKind) String() string {
	if k >= 0 && k < numRMAKinds {
		return rmaNames[k]
	}
	return fmt.Sprintf("RMAKind(%d)", int(k))
}

// ParseRMAKind reads a one-sided call's name in any case, with or without
// "nccl" ("putSignal", "ncclWaitSignal"); ok is false for any other name.
func ParseRMAKind(s string) (RMAKind, bool) {
	t := strings.TrimPrefix(strings.ToLower(s), "nccl")
	for i, n := range rmaNames {
		if t == strings.ToLower(n) {
			return RMAKind(i), true
		}
	}
	return 0, false
}

// MarshalText writes the name.
func (k RMAKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads the name.
func (k *RMAKind) UnmarshalText(p []byte) error {
	v, ok := ParseRMAKind(string(p))
	if !ok {
		return fmt.Errorf("rma %q: expected putSignal, signal or waitSignal", p)
	}
	*k = v
	return nil
}

// MaxRMADescs bounds an ncclWaitSignal's descriptors (NCCL has no limit;
// every input has one).
const MaxRMADescs = 1024

// rmaChunkBytes is rmaTaskAppend's split of a put: one task per GiB, the
// signal on the last.
const rmaChunkBytes = 1 << 30

// RMACall is one one-sided call of rank 0, as its caller makes it: the
// operation's Op carries the put's bytes (a SendRecv of them; count 0 for
// Signal and WaitSignal) and the GroupOp's Buffers and Alloc the put's
// source buffer (a symmetric window, NCCL_WIN_COLL_SYMMETRIC, or not).
type RMACall struct {
	Kind RMAKind `json:"kind"`
	// Peers: the target rank of a put or a signal (one); a wait's
	// descriptors, one per peer (rank numbers as rank 0 sees them).
	Peers []int `json:"peers"`
	// OpCnt is each wait descriptor's count of signals (NCCL wants > 0).
	OpCnt int `json:"opCnt,omitempty"`
	// Ctx, SigIdx and Flags are the call's context, signal index and flags
	// (NCCL takes 0 only, for a wait in every descriptor).
	Ctx    int    `json:"ctx,omitempty"`
	SigIdx int    `json:"sigIdx,omitempty"`
	Flags  uint32 `json:"flags,omitempty"`
	// NoPeerWin: a put's peerWin is NULL.
	NoPeerWin bool `json:"noPeerWin,omitempty"`
}

// check bounds the call at the edge: its peers in the communicator.
func (r *RMACall) check(nRanks int) error {
	if r.Kind < 0 || r.Kind >= numRMAKinds {
		return fmt.Errorf("rma kind %d: expected putSignal, signal or waitSignal", int(r.Kind))
	}
	if len(r.Peers) == 0 || len(r.Peers) > MaxRMADescs || r.Kind != RMAWaitSignal && len(r.Peers) != 1 {
		return fmt.Errorf("nccl%s with %d peer(s): expected one peer (waitSignal: 1..%d)", r.Kind, len(r.Peers), MaxRMADescs)
	}
	if r.Kind == RMAWaitSignal && r.Flags != 0 || r.Kind != RMAPutSignal && r.NoPeerWin || r.Kind != RMAWaitSignal && r.OpCnt != 0 {
		return fmt.Errorf("nccl%s: flags belong to putSignal and signal, a NULL peerWin to putSignal, opCnt to waitSignal", r.Kind)
	}
	for _, p := range r.Peers {
		if p < 0 || p >= nRanks {
			return argErr(ArgPeer, "nccl%s peer %d: expected a rank in 0..%d", r.Kind, p, nRanks-1)
		}
	}
	return nil
}

// RMATask is one task of a one-sided call as scheduleRmaTasksToPlan
// splits it: its peer (a wait: the descriptors of one path), its bytes
// and its path, "CE" (the peer is in the caller's LSA team) or "proxy".
type RMATask struct {
	Peers []int  `json:"peers"`
	Bytes int64  `json:"bytes,omitempty"`
	Path  string `json:"path"`
	// Signal: the task signals the peer (a put's last chunk, a signal).
	Signal bool `json:"signal,omitempty"`
}

// RMAPath is how NCCL runs a one-sided call: its tasks, and the plan that
// holds them (0-based launch, in the group's one numbering: the RMA plans
// launch first, so plan k of the others is k after them).
type RMAPath struct {
	Kind  RMAKind   `json:"kind"`
	Tasks []RMATask `json:"tasks"`
	Plan  int       `json:"plan"`
}

// Kernel names the path as a decision's Kernel does: "rma-ce",
// "rma-proxy" or "rma-ce+proxy".
func (p *RMAPath) Kernel() string {
	ce, proxy := false, false
	for _, t := range p.Tasks {
		ce, proxy = ce || t.Path == "CE", proxy || t.Path == "proxy"
	}
	switch {
	case ce && proxy:
		return "rma-ce+proxy"
	case ce:
		return "rma-ce"
	}
	return "rma-proxy"
}

// Cell is the path in a few words: "RMA plan 0: CE [1] 1 GiB ×3".
func (p *RMAPath) Cell() string {
	var parts []string
	for i := 0; i < len(p.Tasks); {
		t, n := p.Tasks[i], 1
		for i+n < len(p.Tasks) && p.Tasks[i+n].Path == t.Path && p.Tasks[i+n].Bytes == t.Bytes {
			n++
		}
		s := fmt.Sprintf("%s %v", t.Path, t.Peers)
		if t.Bytes > 0 {
			s += " " + FormatBytes(t.Bytes)
		}
		if n > 1 {
			s += fmt.Sprintf(" ×%d", n)
		}
		parts, i = append(parts, s), i+n
	}
	return fmt.Sprintf("RMA plan %d: %s", p.Plan, strings.Join(parts, ", "))
}

func (p *RMAPath) String() string {
	var parts []string
	for _, t := range p.Tasks {
		s := fmt.Sprintf("%s to %v", t.Path, t.Peers)
		if t.Bytes > 0 {
			s += " " + FormatBytes(t.Bytes)
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("one-sided %s (no kernel, no cost table): RMA plan %d, %s", p.Kind, p.Plan, strings.Join(parts, "; "))
}

// rmaForm is what a release's rmaTaskAppend checks of the communicator.
type rmaForm int

const (
	// rmaSymProxy (2.29.2–2.29.3): comm->symmetricSupport, and across
	// nodes comm->rmaProxySupport.
	rmaSymProxy rmaForm = iota
	// rmaHostRMA (2.29.7–2.29.7): comm->hostRmaSupport.
	rmaHostRMA
	// rmaDriver (2.30.3+): comm->hostRmaSupport, a CUDA 12.5 driver, and
	// a put's windows without host-memory segments.
	rmaDriver
)

// rmaRun is what G-RMA-OP-1 reads of one call.
type rmaRun struct {
	in   *tuning.Input
	t    *tuning.Consts
	call *RMACall
	op   GroupOp
	// lsa says whether a peer is in rank 0's LSA team.
	lsa func(peer int) bool
	// numCtx is where config.numRmaCtx came from (the config field or
	// NCCL_NUM_RMA_CTX), cited when its 0 refuses the call.
	numCtx Fact
	// segForm is Consts.WinSegments: what became of a window over several
	// cuMem segments (G-WIN-SEG-1).
	segForm int
}

const rmaDoc = `From 2.29.2 ncclPutSignal, ncclSignal and ncclWaitSignal are one-sided calls. rmaTaskAppend refuses one with ncclInvalidArgument (its WARN) when the communicator lacks symmetric support ("symmetric registration is not supported"), or spans several nodes without the RMA proxy (comm->rmaProxySupport: the net plugin's RMA object, NCCL_CROSS_NIC not 0, no fused NIC); when ctx, the signal index or flags are not 0; a put whose peer window is NULL or whose source is not in a symmetric window (NCCL_WIN_COLL_SYMMETRIC); a wait without descriptors or with one whose opCnt is not positive or whose sigIdx or ctx is not 0. A put is split into 1 GiB tasks, the signal on the last. The RMA tasks are planned before every other plan of the group: consecutive puts and signals share one plan, each wait has its own; a task to a peer of the caller's LSA team (one node, or the NVL domain) runs on the copy engines, any other through the RMA proxy; a wait splits its descriptors the same way.`

const rmaDoc297 = rmaDoc + ` From 2.29.7 the communicator test is comm->hostRmaSupport: symmetric support, and one LSA team or the RMA proxy on every rank (globalRmaProxySupport: an RMA plugin, cross-NIC, no fused NIC, cuMem GPUDirect RDMA) ("host RMA is not supported").`

const rmaDoc303 = rmaDoc297 + ` From 2.30.3 a CUDA driver below 12.5 is ncclInvalidUsage ("One-sided RMA requires CUDA driver 12.5 or later"), and a put from or into a window with host-memory segments or of several cuMem segments is refused (2.29.2–2.29.7 make no window over several segments, G-WIN-SEG-1, so the put finds no symmetric window); from 2.30.7 hostRmaSupport also needs config.numRmaCtx > 0 (NCCL_NUM_RMA_CTX).`

// rmaRule is G-RMA-OP-1 in one of its forms.
func rmaRule(ref Ref, form rmaForm, doc string) *Rule {
	return &Rule{
		ID: "G-RMA-OP-1", Layer: LayerGroup, Title: "one-sided calls: the communicator, the arguments and the path",
		Doc: doc, Ref: ref, onDemand: true,
		Logs: []string{"One sided RMA: symmetric registration is not supported in this communicator.",
			"One sided RMA: RMA proxy is not supported in this communicator.",
			"One sided RMA: host RMA is not supported in this communicator.",
			"One-sided RMA requires CUDA driver 12.5 or later (found %d.%d).",
			"ncclPutSignal: peerWin is NULL", "ncclPutSignal: srcWinHost is not in a valid symmetric window",
			"ncclPutSignal currently does not support VAs with host-backed cuMem segments",
			"ncclPutSignal currently does not support VAs backed by multiple physical cuMem segments",
			"ncclWaitSignal: descriptor %d has invalid opCnt %d"},
		group: func(g *groupRun) { g.rma.decide(g, form) },
	}
}

// refuse fails the call with NCCL's WARN.
func (r *rmaRun) refuse(g *groupRun, res Result, warn string, facts ...Fact) {
	g.dec.Err = &NCCLError{Result: res, Message: warn, Call: "nccl" + r.call.Kind.String()}
	g.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("rmaTaskAppend refuses nccl%s: %s", r.call.Kind, res), Facts: facts, Log: []string{warn}})
}

// decide runs rmaTaskAppend's checks in its order, then lays out the
// call's tasks (the plan is numbered by the group).
//
// Ref: v2.29.2-1 src/enqueue.cc rmaTaskAppend; src/rma/rma.cc
// scheduleRmaTasksToPlan (v2.29.7-1 hostRmaSupport; v2.30.3-1 the driver
// and host-memory checks)
func (r *rmaRun) decide(g *groupRun, form rmaForm) {
	in, call := r.in, r.call
	switch form {
	case rmaSymProxy:
		if !in.SymmetricSupport {
			r.refuse(g, InvalidArgument, "One sided RMA: symmetric registration is not supported in this communicator.")
			return
		}
		if !in.RMAProxySupport && in.NNodes > 1 {
			r.refuse(g, InvalidArgument, "One sided RMA: RMA proxy is not supported in this communicator.")
			return
		}
	default:
		if !in.HostRMASupport(r.t.HostRMANumCtx) {
			var facts []Fact
			if in.HostRMASupport(false) {
				facts = []Fact{r.numCtx} // no RMA context alone
			}
			r.refuse(g, InvalidArgument, "One sided RMA: host RMA is not supported in this communicator.", facts...)
			return
		}
		if form == rmaDriver && in.CUDADriver < 12050 {
			r.refuse(g, InvalidUsage, fmt.Sprintf("One-sided RMA requires CUDA driver 12.5 or later (found %d.%d).", in.CUDADriver/1000, in.CUDADriver%1000/10))
			return
		}
	}
	switch {
	case call.Ctx != 0 && call.Kind != RMAWaitSignal:
		r.refuse(g, InvalidArgument, fmt.Sprintf("Context %d is invalid (must be 0)", call.Ctx))
		return
	case call.SigIdx != 0 && call.Kind != RMAWaitSignal:
		r.refuse(g, InvalidArgument, fmt.Sprintf("Signal index %d is invalid (must be 0)", call.SigIdx))
		return
	case call.Flags != 0:
		r.refuse(g, InvalidArgument, fmt.Sprintf("Flags %d is invalid (must be 0)", call.Flags))
		return
	}
	switch call.Kind {
	case RMAPutSignal:
		switch {
		case call.NoPeerWin:
			r.refuse(g, InvalidArgument, "ncclPutSignal: peerWin is NULL")
			return
		case r.op.Buffers != BuffersWindow || r.op.Alloc == AllocCuMemSegments && r.segForm == 1:
			// 2.29.2–2.29.7 made no window over several segments
			r.refuse(g, InvalidArgument, "ncclPutSignal: srcWinHost is not in a valid symmetric window")
			return
		case form == rmaDriver && r.op.Alloc == AllocCuMemSegments:
			r.refuse(g, InvalidArgument, "ncclPutSignal currently does not support VAs backed by multiple physical cuMem segments")
			return
		case form == rmaDriver && r.op.Alloc == AllocCuMemHost:
			r.refuse(g, InvalidArgument, "ncclPutSignal currently does not support VAs with host-backed cuMem segments")
			return
		}
	case RMAWaitSignal:
		// every descriptor carries the call's opCnt, sigIdx and ctx
		switch {
		case call.OpCnt <= 0:
			r.refuse(g, InvalidArgument, fmt.Sprintf("ncclWaitSignal: descriptor 0 has invalid opCnt %d", call.OpCnt))
			return
		case call.SigIdx != 0:
			r.refuse(g, InvalidArgument, fmt.Sprintf("ncclWaitSignal: descriptor 0 has invalid sigIdx %d (must be 0)", call.SigIdx))
			return
		case call.Ctx != 0:
			r.refuse(g, InvalidArgument, fmt.Sprintf("ncclWaitSignal: descriptor 0 has invalid context %d (must be 0)", call.Ctx))
			return
		}
	}
	p := &RMAPath{Kind: call.Kind}
	if call.Kind == RMAWaitSignal {
		var ce, proxy []int
		for _, peer := range call.Peers {
			if r.lsa(peer) {
				ce = append(ce, peer)
			} else {
				proxy = append(proxy, peer)
			}
		}
		if len(ce) > 0 {
			p.Tasks = append(p.Tasks, RMATask{Peers: ce, Path: "CE"})
		}
		if len(proxy) > 0 {
			p.Tasks = append(p.Tasks, RMATask{Peers: proxy, Path: "proxy"})
		}
	} else {
		path := "proxy"
		if r.lsa(call.Peers[0]) {
			path = "CE"
		}
		total := r.op.Op.Bytes()
		n := max(1, (total+rmaChunkBytes-1)/rmaChunkBytes)
		for k := range n {
			b := min(int64(rmaChunkBytes), total-k*rmaChunkBytes)
			p.Tasks = append(p.Tasks, RMATask{Peers: call.Peers, Bytes: b, Path: path, Signal: k == n-1})
		}
	}
	g.dec.RMA, g.dec.Kernel = p, p.Kernel()
	g.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("nccl%s: %d RMA task(s), %s (CE: the copy engines, to peers of the LSA team; proxy: the RMA proxy, to the others); RMA plans launch before the group's kernel plans",
		call.Kind, len(p.Tasks), strings.TrimPrefix(p.Cell(), fmt.Sprintf("RMA plan %d: ", p.Plan)))})
}

// rmaLSA is rank 0's LSA team (devrState.lsaRankList): every rank of one
// LSA team (one node, or an NVL domain of the whole communicator); across
// cliques its NVL domain (2.30.3+), else the ranks of its node (ranks
// numbered node by node, domain by domain).
//
// Ref: v2.30.3-1 src/dev_runtime.cc computeLsaSize
func (c *Comm) rmaLSA(peer int) bool {
	in := &c.Model.In
	switch {
	case in.OneLSATeam():
		return true
	case in.CrossClique && in.NVLDomainSize > 0:
		return peer < in.NVLDomainSize
	}
	return peer < in.LocalRanks
}

// hasRMA says whether a group holds a one-sided call or a device
// communicator call (decided apart from the kernel plans).
func hasRMA(all []GroupOp) bool {
	for i := range all {
		if all[i].RMA != nil || all[i].DevComm != nil || all[i].DevCommDestroy != 0 {
			return true
		}
	}
	return false
}

// selectRMA decides a group with one-sided calls: each call by G-RMA-OP-1
// in call order, taking the RMA plans, then the others as a group whose
// plans are numbered after them (ncclLaunchPrepare launches the RMA plans
// first). A call's error fails ncclGroupEnd. A device communicator call
// (G-DEVCOMM-1) is decided there too: it plans no task.
//
// st is what the communicator's device communicators share: nil for a
// communicator that made none before the group. ncclGroupEnd creates the
// group's device communicators in call order and stops at the first that
// fails: the later ones are not created.
func (c *Comm) selectRMA(all []GroupOp, launch Launch, st *devCommState) (*GroupDecision, error) {
	if st == nil {
		st = &devCommState{}
	}
	for i, g := range all {
		if g.DevCommDestroy != 0 && (g.DevComm != nil || g.RMA != nil) {
			return nil, opErr(i, "one call is either one-sided, ncclDevCommCreate or ncclDevCommDestroy")
		}
		if g.DevComm == nil {
			continue
		}
		if g.RMA != nil {
			return nil, opErr(i, "one call is either one-sided or ncclDevCommCreate")
		}
		if err := c.devCommCheck(i, g.DevComm); err != nil {
			return nil, err
		}
	}
	rule, ok := c.rs.rules["G-RMA-OP-1"]
	if !ok {
		for _, g := range all {
			if g.RMA != nil {
				return nil, fmt.Errorf("nccl%s: NCCL %s has no one-sided calls (they arrive in 2.29.2)", g.RMA.Kind, c.rs.Version)
			}
		}
	}
	for i, g := range all {
		if g.RMA == nil {
			continue
		}
		if err := g.RMA.check(c.NRanks); err != nil {
			return nil, opErr(i, "%w", err)
		}
	}
	out := &GroupDecision{Launch: launch, Ops: make([]*Decision, len(all)), Traces: make([]Trace, len(all))}
	var rest []GroupOp
	var at []int
	// ncclLaunchPrepare queues the RMA plans before every other plan of
	// the group: the others are numbered after them
	plans, lastPutOrSignal := 0, false
	// ncclDevCommDestroy runs at its call: before ncclGroupEnd makes the
	// group's device communicators
	for i, g := range all {
		if g.DevCommDestroy == 0 {
			continue
		}
		d := c.callDecision(g.Op)
		out.Ops[i], out.Traces[i] = d, slices0(c.Trace)
		if c.Err != nil || c.Model == nil {
			continue
		}
		rule, ok := c.rs.rules["G-DEVCOMM-DESTROY-1"]
		if !ok || c.rs.Consts.DevCommForm == 0 {
			return nil, opArgErr(i, ArgFunc, "NCCL %s has no ncclDevCommDestroy (it arrives in 2.28.3)", c.rs.Version)
		}
		gr := &groupRun{i: i, n: len(all), op: g, dec: d, destroy: &devCommDestroyRun{c: c, st: st, n: g.DevCommDestroy}}
		rule.group(gr)
		if gr.destroy.err != nil {
			return nil, &GroupOpError{Op: i, Err: &ArgError{Arg: ArgDevCommNth, Err: gr.destroy.err}}
		}
		d.DecidedBy = rule.ID
		for _, v := range gr.out {
			v.Rule, v.Layer, v.Ref, v.Scope = rule.ID, rule.Layer, &rule.Ref, "op"
			out.Traces[i] = append(out.Traces[i], v)
		}
	}
	stopped := -1 // the group's first device communicator that failed
	for i, g := range all {
		if g.DevCommDestroy != 0 {
			continue
		}
		if g.RMA == nil && g.DevComm == nil {
			rest, at = append(rest, g), append(at, i)
			continue
		}
		d := c.callDecision(g.Op)
		out.Ops[i], out.Traces[i] = d, slices0(c.Trace)
		if c.Err != nil || c.Model == nil {
			continue
		}
		if g.DevComm != nil {
			dr := c.rs.rules["G-DEVCOMM-1"]
			d.DecidedBy = dr.ID
			gr := &groupRun{i: i, n: len(all), op: g, dec: d}
			if stopped >= 0 {
				d.Err = &NCCLError{Result: out.Ops[stopped].Err.Result, Message: out.Ops[stopped].Err.Message, Call: "ncclGroupEnd"}
				gr.emit(Verdict{Outcome: Skip, Why: fmt.Sprintf("not created: ncclCommGroupRegisterSymmetric stops at op %d's failure and ncclGroupEnd returns it", stopped)})
			} else {
				c.selectDevComm(dr, gr, st)
			}
			for _, v := range gr.out {
				id := dr.ID
				if v.Rule != "" {
					id = v.Rule
				}
				r := c.rs.rules[id]
				v.Rule, v.Layer, v.Ref, v.Scope = id, r.Layer, &r.Ref, "op"
				out.Traces[i] = append(out.Traces[i], v)
			}
			if d.Err != nil && stopped < 0 {
				stopped = i
			}
			if d.Err != nil && out.Err == nil {
				out.Err = d.Err
			}
			continue
		}
		d.DecidedBy = rule.ID
		gr := &groupRun{i: i, n: len(all), op: g, dec: d,
			rma: &rmaRun{in: &c.Model.In, t: c.Model.Tuning, call: g.RMA, op: g, lsa: c.rmaLSA, numCtx: c.setting("NCCL_NUM_RMA_CTX"), segForm: c.rs.Consts.WinSegments}}
		rule.group(gr)
		if d.RMA != nil {
			// consecutive puts and signals share a plan; a wait has its own
			putOrSignal := g.RMA.Kind != RMAWaitSignal
			if !putOrSignal || !lastPutOrSignal {
				plans++
			}
			lastPutOrSignal = putOrSignal
			d.RMA.Plan, d.Plan = plans-1, plans-1
		}
		for _, v := range gr.out {
			v.Rule, v.Layer, v.Ref, v.Scope = rule.ID, rule.Layer, &rule.Ref, "op"
			out.Traces[i] = append(out.Traces[i], v)
		}
		if d.Err != nil && out.Err == nil {
			out.Err = d.Err
		}
	}
	out.Plans = plans
	if len(rest) > 0 {
		g, err := c.planGroup(rest, Launch{Mode: launch.Mode}, plans)
		if err != nil {
			return nil, err
		}
		out.Lines, out.Plans, out.Budget = g.Lines, g.Plans, g.Budget
		if g.Err != nil {
			out.Err = g.Err // the other operations' plan failure comes first
		}
		if g.Choices != nil {
			out.Choices = make([]tuning.OpChoice, len(all))
		}
		for k, i := range at {
			out.Ops[i], out.Traces[i] = g.Ops[k], g.Traces[k]
			if g.Choices != nil {
				out.Choices[i] = g.Choices[k]
			}
		}
	}
	for i, g := range all {
		if out.Choices != nil && (g.RMA != nil || g.DevComm != nil || g.DevCommDestroy != 0) {
			out.Choices[i] = tuning.OpChoice{Op: g.Op, Index: i, Algo: AlgoNone, Proto: ProtoNone, Plan: -1}
		}
	}
	return out, nil
}

// slices0 is a copy of tr that the group owns.
func slices0(tr Trace) Trace { return append(Trace(nil), tr...) }

// callDecision is the decision of a call the cost table does not decide
// (one-sided, device communicator): no algorithm, the communicator's
// facts; the rule that decides it fills the rest.
func (c *Comm) callDecision(op Op) *Decision {
	return &Decision{Release: c.rs.Version, Op: op, Algo: AlgoNone, Proto: ProtoNone, Err: c.Err,
		Net: c.Net, CollNetSupport: c.CollNetSupport, NVLSSupport: c.NVLSSupport}
}
