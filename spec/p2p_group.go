package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// The send/recv tasks of a group: SendRecv (nccl-tests' ring: a send to the
// next rank, a receive from the previous one) and AllToAll (a send to and a
// receive from every rank, itself included, as nccl-tests and PyTorch issue
// it) become rank 0's ncclSend/ncclRecv tasks, which tuning.P2PComm places
// on the p2p channels after the group's collectives.

// P2PRules is the release's send/recv planner facts for tuning.P2PComm.
func (k *Consts) P2PRules() tuning.P2PRules {
	return tuning.P2PRules{
		RoundSchedule:       k.P2PRoundSchedule,
		BaseReversed:        k.P2PChannelBaseReversed,
		GroupSchedule:       k.P2PGroupSchedule,
		GroupWholeNode:      k.P2PGroupWholeNode,
		MaxHalved:           k.P2PMaxHalved,
		HalveOneNodeOnly:    k.P2PHalveOneNodeOnly,
		MinPartHalfStepNet:  k.P2PMinPartHalfStepNet,
		ChannelsBeforeProto: k.P2PChannelsBeforeProto,
		BatchRoundEpoch:     k.P2PBatchEpoch,
		BatchPassEpoch:      k.P2PBatchPassEpoch,
		ResumeRound:         k.P2PResumeRound,
		SkipSelfInPlace:     k.P2PSkipSelfInPlace,
	}
}

// BuffSizes is comm->buffSizes of LL, LL128 and Simple (buffSizes).
func (c *Comm) BuffSizes() [NumProtos]int { return buffSizes(&c.rs.Consts, c.Topo, c.Env) }

// P2PComm is what NCCL's send/recv planner reads of the communicator: its
// shape, p2pnChannels and p2pnChannelsPerPeer, comm->p2pChunkSize
// (NCCL_P2P_NET_CHUNKSIZE across nodes, NCCL_P2P_NVL_CHUNKSIZE when every
// GPU pair is NVLink, NCCL_P2P_PCI_CHUNKSIZE otherwise, capped by the
// Simple step), the LL step, NCCL_P2P_LL_THRESHOLD, NCCL_CHUNK_SIZE,
// NCCL_P2P_SCHEDULE_GROUP_SIZE and NCCL_NET_SHARED_BUFFERS. It fails when
// init failed or the nodes differ in size.
// Ref: v2.22.3-1 src/init.cc computeBuffSizes; src/enqueue.cc
// (NCCL_P2P_LL_THRESHOLD, NCCL_CHUNK_SIZE); v2.28.7-1 src/init.cc
// ncclP2pSchedule (NCCL_P2P_SCHEDULE_GROUP_SIZE)
func (c *Comm) P2PComm() (tuning.P2PComm, error) {
	r := c.Topo
	switch {
	case c.Err != nil:
		return tuning.P2PComm{}, fmt.Errorf("communicator init failed: %s", c.Err.Message)
	case r == nil:
		return tuning.P2PComm{}, fmt.Errorf("the communicator has no topology search")
	case r.MinLocalRanks != r.MaxLocalRanks:
		return tuning.P2PComm{}, fmt.Errorf("nodes of %d to %d GPUs: send/recv tasks are planned on nodes of one size", r.MinLocalRanks, r.MaxLocalRanks)
	}
	buff := c.BuffSizes()
	p := tuning.P2PComm{
		Rules: c.rs.Consts.P2PRules(), NNodes: r.NNodes, LocalRanks: r.MaxLocalRanks,
		NChannels: r.P2PNChannels, NChannelsPerPeer: r.P2PNChannelsPerPeer,
		GroupSize:  nccl.MaxDevWorkP2PPerBatch,
		ChunkSize:  tuning.P2PChunkSizeDefault(r.NNodes, r.AllNVLink, buff[Simple]),
		LLStepSize: buff[LL] / tuning.NSteps, LLThreshold: 16384,
	}
	chunkVar := "NCCL_P2P_PCI_CHUNKSIZE"
	switch {
	case r.NNodes > 1:
		chunkVar = "NCCL_P2P_NET_CHUNKSIZE"
	case r.AllNVLink:
		chunkVar = "NCCL_P2P_NVL_CHUNKSIZE"
	}
	param := func(name string) (int, bool) {
		v, set, _ := intParam(c.Env, name, 0)
		return int(min(max(v, -1), 1<<40)), set
	}
	if v, set := param(chunkVar); set && v > 0 {
		p.ChunkSize = min(v, buff[Simple]/tuning.NSteps)
	}
	if v, set := param("NCCL_P2P_LL_THRESHOLD"); set && v >= 0 {
		p.LLThreshold = v
	}
	if v, set := param("NCCL_CHUNK_SIZE"); set && v >= 0 {
		p.ChunkParam = v
	}
	if v, set := param("NCCL_P2P_SCHEDULE_GROUP_SIZE"); set {
		p.GroupSize = max(1, v)
	}
	if v, set := param("NCCL_NET_SHARED_BUFFERS"); set {
		p.NetLL = v == 0
	}
	if v, set := param("NCCL_P2P_EPOCH_ENABLE"); set {
		p.EpochOff = v == 0
	}
	return p, nil
}

// p2pTasks are rank 0's send/recv tasks of a p2p operation: a stated send
// or recv its one task; SendRecv sends to rank 1 and receives from the
// last rank; AllToAll sends to and receives from every rank, its bytes
// per peer. In place (nccl-tests' in-place run: one buffer), rank 0's
// send to itself and receive from itself name the same bytes (a stated
// send and recv to self in place name one buffer).
func p2pTasks(g GroupOp, nRanks int, dst []tuning.P2PTask) []tuning.P2PTask {
	op, b := g.Op, g.Op.Bytes()
	task := func(peer int, send bool) tuning.P2PTask {
		return tuning.P2PTask{Peer: peer, Send: send, Bytes: b, InPlace: g.InPlace && peer == 0}
	}
	if g.P2P != nil {
		return append(dst, task(g.P2P.Peer, g.P2P.Send))
	}
	if op.Func == SendRecv {
		return append(dst, task(1%nRanks, true), task(nRanks-1, false))
	}
	for peer := range nRanks {
		dst = append(dst, task(peer, true), task(peer, false))
	}
	return dst
}

// placeP2P places the send/recv tasks of a group's p2p operations after
// its collectives, from the plan of the last collectives (or broadcasts)
// when there are some, else from a plan of their own, into as many plans
// as the kernel-plan budget needs (tuning.P2PComm.PlaceGroup). It returns
// the tasks per operation (nil for the others), the plans added, what the
// plans of the budget's listing (uses, and the plans of send/recv works
// alone) hold once the works joined them, and why nothing was placed when
// the communicator is beyond the planner.
func (c *Comm) placeP2P(all []GroupOp, choices []tuning.OpChoice, uses []tuning.PlanUse, plans int, graph bool) ([][]tuning.P2PPlaced, int, []tuning.P2PPlanWork, string) {
	var idx []int
	for i := range choices {
		if choices[i].P2P {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil, 0, nil, ""
	}
	pc, err := c.P2PComm()
	if err == nil {
		err = pc.Validate()
	}
	if err != nil {
		return nil, 0, nil, err.Error()
	}
	start, ok := c.Model.P2PStart(choices, uses)
	if !ok {
		start = tuning.P2PPlanStart{Plan: plans}
	}
	ops := make([][]tuning.P2PTask, len(idx))
	for k, i := range idx {
		ops[k] = p2pTasks(all[i], pc.NRanks(), nil)
	}
	placed, work, err := pc.PlaceGroupWork(0, ops, start, c.Model.P2PBudget(graph))
	if err != nil {
		return nil, 0, nil, err.Error()
	}
	last := start.Plan
	if len(work) > 0 {
		last = work[len(work)-1].Plan
	}
	if ok && len(work) > 0 && !slices.ContainsFunc(uses, func(u tuning.PlanUse) bool { return u.Plan == start.Plan }) {
		work = work[1:] // an AllGatherV plan, which the listing leaves out
	}
	out := make([][]tuning.P2PPlaced, len(all))
	reg := c.rs.Consts.P2PReg
	pxnOff := TopoOptions(c.Env).PXNDisable
	for k, i := range idx {
		if reg != tuning.P2PRegNone && c.Model != nil {
			call := tuning.Call{Op: all[i].Op, InPlace: all[i].InPlace, Buffers: all[i].Buffers, Alloc: all[i].Alloc, Graph: graph}
			for j := range placed[k] {
				t := &placed[k][j]
				t.Registered, t.RegRefused = c.Model.P2PRegister(reg, call, t, t.Peer == 0, t.Peer/pc.LocalRanks != 0, pxnOff, c.Topo.AllNVLink,
					func() bool { return c.p2pNetGDR(t) })
			}
		}
		out[i] = placed[k]
	}
	added := last - start.Plan
	if !ok && slices.ContainsFunc(out, func(ts []tuning.P2PPlaced) bool {
		return slices.ContainsFunc(ts, func(t tuning.P2PPlaced) bool { return !t.Skipped })
	}) {
		// a plan of its own, launched only when it holds work
		// (ncclLaunchPrepare: plan->workBytes != 0)
		added++
	}
	return out, added, work, ""
}

// p2pNetGDR says whether each of the task's channels connects rank 0 to
// its network peer with GPU Direct RDMA (the connector's NCCL_DIRECT_NIC,
// G-NET-CONN-GDR-1), as addP2pToPlan's network registration asks part by
// part. A connector the topology cannot decide counts as without.
//
// Ref: v2.24.3-1 … v2.30.7-1 src/enqueue.cc addP2pToPlan
func (c *Comm) p2pNetGDR(t *tuning.P2PPlaced) bool {
	r := c.Topo
	if r == nil || len(r.Nodes) == 0 {
		return false
	}
	node := &r.Nodes[0]
	dev, ok := r.DevOfRank(0)
	peerDev, okp := r.DevOfRank(t.Peer)
	if !ok || !okp {
		return false
	}
	for _, ch := range t.Channels {
		conn, err := node.NetConn(topo.ConnQuery{Kind: topo.ConnP2P, Channel: ch, ConnIndex: 1, Send: t.Dir == "send", Dev: dev, PeerDev: peerDev})
		if err != nil || conn.Gdr == topo.GdrOff {
			return false
		}
	}
	return true
}

// checkPeers refuses a stated send or recv whose peer is not a rank of
// the communicator, as ncclSend and ncclRecv do (ArgsCheck: "invalid
// root").
// Ref: v2.22.3-1 src/misc/argcheck.cc ArgsCheck
func checkPeers(all []GroupOp, nRanks int) error {
	for i, g := range all {
		if p := g.P2P; p != nil && p.Peer >= nRanks {
			return opArgErr(i, ArgPeer, "%s peer %d: expected a rank in 0..%d (nccl%s refuses it: invalid root)", p.Dir(), p.Peer, nRanks-1, strings.ToUpper(p.Dir()[:1])+p.Dir()[1:])
		}
	}
	return nil
}

// selfUnmatched is what ncclGroupEnd returns for a group whose sends to
// rank 0 itself and receives from it do not pair up (scheduleP2pTasksToPlan
// takes one of each per pass of round 0), nil when they do.
// Ref: v2.22.3-1 src/enqueue.cc scheduleP2pTasksToPlan (v2.18.1-1 likewise)
func selfUnmatched(all []GroupOp, choices []tuning.OpChoice, nRanks int) *NCCLError {
	var sends, recvs int
	var tasks []tuning.P2PTask
	for i := range choices {
		if !choices[i].P2P {
			continue
		}
		tasks = p2pTasks(all[i], nRanks, tasks[:0])
		for _, t := range tasks {
			switch {
			case t.Peer != 0:
			case t.Send:
				sends++
			default:
				recvs++
			}
		}
	}
	switch {
	case sends > recvs:
		return &NCCLError{Result: InvalidUsage, Message: "Trying to send to self without a matching recv", Call: "ncclGroupEnd"}
	case recvs > sends:
		return &NCCLError{Result: InvalidUsage, Message: "Trying to recv to self without a matching send", Call: "ncclGroupEnd"}
	}
	return nil
}

// P2PHull is the channels a p2p operation's tasks use: how many distinct
// ones, the lowest and the highest (0, 0, 0 when none).
func (p *P2PPath) P2PHull() (n, lo, hi int) {
	if p == nil {
		return 0, 0, 0
	}
	var seen uint64
	lo = -1
	for _, t := range p.Tasks {
		for _, ch := range t.Channels {
			if ch < 0 || ch >= 64 {
				continue
			}
			if seen&(1<<ch) == 0 {
				seen |= 1 << ch
				n++
			}
			if lo < 0 || ch < lo {
				lo = ch
			}
			hi = max(hi, ch)
		}
	}
	return n, max(lo, 0), hi
}

// FormatP2PChannels writes a task's channels as NCCL walks its parts:
// a range "a..b" when they run up without a gap, the list otherwise.
func FormatP2PChannels(chs []int) string {
	if len(chs) == 0 {
		return "none"
	}
	run := true
	for k := 1; k < len(chs); k++ {
		run = run && chs[k] == chs[k-1]+1
	}
	if run {
		return ChannelRange(chs[0], chs[len(chs)-1])
	}
	s := make([]string, len(chs))
	for k, ch := range chs {
		s[k] = fmt.Sprint(ch)
	}
	return strings.Join(s, ",")
}

// FormatP2PTasks writes up to most tasks (all when most ≤ 0) as "send 1
// LL 0..15 (round 1)", then how many more there are.
func FormatP2PTasks(tasks []tuning.P2PPlaced, most int) string {
	var b strings.Builder
	for k, t := range tasks {
		if most > 0 && k == most && len(tasks) > most+1 {
			fmt.Fprintf(&b, "; … %d more", len(tasks)-most)
			break
		}
		if k > 0 {
			b.WriteString("; ")
		}
		if t.Skipped {
			fmt.Fprintf(&b, "%s %d dropped (in place to self)", t.Dir, t.Peer)
			continue
		}
		fmt.Fprintf(&b, "%s %d %s %s", t.Dir, t.Peer, t.Proto, FormatP2PChannels(t.Channels))
		if t.Round >= 0 {
			fmt.Fprintf(&b, " (round %d)", t.Round)
		}
		if t.Registered != "" {
			b.WriteString(" registered " + t.Registered)
		}
	}
	return b.String()
}

// p2pSchedRule is G-SCHED-P2P-1: which p2p channels each send/recv task
// of a group runs on, and the plan it lands in.
func p2pSchedRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-SCHED-P2P-1", Layer: LayerGroup, Title: "send/recv tasks placed on the p2p channels",
		Doc: doc, Ref: ref, p2p: true,
		group: func(g *groupRun) {
			p := g.dec.P2P
			if e := g.planErr; e != nil {
				g.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ncclGroupEnd returns %s: %s", e.Result, e.Message), Log: []string{e.Message}})
				return
			}
			if g.p2pWhy != "" {
				g.emit(Verdict{Outcome: Info, Why: "send/recv tasks not placed: " + g.p2pWhy})
				return
			}
			if p == nil || len(p.Tasks) == 0 {
				return
			}
			n, lo, hi := p.P2PHull()
			first, last := -1, -1
			for _, t := range p.Tasks {
				if t.Skipped {
					continue
				}
				if first < 0 {
					first, last = t.Plan, t.Plan
				}
				first, last = min(first, t.Plan), max(last, t.Plan)
			}
			if first < 0 {
				g.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("%severy send/recv task of rank 0 is an in-place send/recv to self, which NCCL drops (G-SCHED-P2P-3): no work, no channel", g.member())})
				return
			}
			plans := fmt.Sprintf("plan %d", first)
			if last > first {
				plans = fmt.Sprintf("plans %d..%d (the plan budget is full)", first, last)
			}
			g.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("%s%d send/recv task(s) of rank 0 in %s on %d p2p channel(s) in %s: %s",
				g.member(), len(p.Tasks), plans, n, ChannelRange(lo, hi), FormatP2PTasks(p.Tasks, 4))})
		},
	}
}

// p2pCountRule is G-SCHED-P2P-2: how many channels and which protocol
// each direction of a send/recv work takes.
func p2pCountRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-SCHED-P2P-2", Layer: LayerGroup, Title: "send/recv channel count and protocol",
		Doc: doc, Ref: ref, p2p: true,
		group: func(g *groupRun) {
			p := g.dec.P2P
			if p == nil || len(p.Tasks) == 0 {
				return
			}
			var ll, simple, most int
			for _, t := range p.Tasks {
				if t.Proto == LL {
					ll++
				} else {
					simple++
				}
				most = max(most, t.NChannels)
			}
			g.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("%d B per task: %d task(s) LL, %d Simple; at most %d channel(s) per task of p2pnChannelsPerPeer %d",
				p.Tasks[0].Bytes, ll, simple, most, p.NChannelsPerPeer)})
		},
	}
}

// p2pSelfRule is G-SCHED-P2P-3: what NCCL does with a send to self and
// the receive it pairs with when both name one buffer.
func p2pSelfRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-SCHED-P2P-3", Layer: LayerGroup, Title: "an in-place send/recv to self",
		Doc: doc, Ref: ref, p2p: true,
		group: func(g *groupRun) {
			p := g.dec.P2P
			if p == nil {
				return
			}
			var self, skipped int
			for _, t := range p.Tasks {
				if t.SelfInPlace {
					self++
				}
				if t.Skipped {
					skipped++
				}
			}
			switch {
			case self == 0:
				g.emit(Verdict{Outcome: Skip, Why: "no send/recv to self on one buffer"})
			case skipped > 0:
				g.emit(Verdict{Outcome: Pass, Why: fmt.Sprintf("%d task(s) of an in-place send/recv to self: scheduleP2pTasksToPlan drops them (\"Skip send to self in-place\"): no work, no channel, nothing of the plan budget", skipped)})
			default:
				g.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("%d task(s) of an in-place send/recv to self stay tasks on their channels; the kernel skips the copy (runSend: the buffers are one)", self)})
			}
		},
	}
}

// p2pRegRule is G-REG-P2P-1: which send/recv directions addP2pToPlan
// registers, and what that changes (only the buffer path).
func p2pRegRule(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-REG-P2P-1", Layer: LayerGroup, Title: "send/recv user buffers registered",
		Doc: doc, Ref: ref, p2p: true,
		group: func(g *groupRun) {
			p := g.dec.P2P
			if p == nil || len(p.Tasks) == 0 {
				return
			}
			var reg []string
			refused := ""
			for _, t := range p.Tasks {
				if t.Registered != "" {
					reg = append(reg, fmt.Sprintf("%s %d %s", t.Dir, t.Peer, t.Registered))
				} else if t.RegRefused != "" {
					refused = t.RegRefused
				}
			}
			switch {
			case len(reg) > 0:
				what := strings.Join(reg, ", ")
				if len(reg) > 4 {
					what = strings.Join(reg[:4], ", ") + fmt.Sprintf(", … %d more", len(reg)-4)
				}
				g.emit(Verdict{Outcome: Pass, Why: "registered: " + what + "; protocol, channels and chunk unchanged, the data moves from user buffer to user buffer (IPC: the kernel copies to or from the peer's buffer; NET: the proxy sends each part from the user buffer)"})
			case refused != "":
				g.emit(Verdict{Outcome: Fail, Why: "registration refused: " + refused})
			}
		},
	}
}

// The rule text per release range.
const (
	p2pSchedDoc18  = `2.18.1–2.21.5: scheduleP2pTasksToPlan walks the peers in delta order (p2pSendOrder/p2pRecvOrder) and cuts each peer's bytes into chunks of calcP2pChunkSize (nChannelsMin parts of at least p2pChunkSize/8, doubled up to nChannelsMax while a part exceeds p2pChunkSize, ×32 on one node; rounded up to the smallest part); chunk k of a send (receive) runs on ncclChannelCompute: p2pChannels[base] + k mod p2pnChannelsPerPeer, where base is the peer's local delta (across nodes the node delta plus the local delta over NCCL_MAX_WORK_ELEMENTS_P2P/2) and p2pChannels mirrors the bits of the channel index. The tasks follow the group's collectives, in the plan of the last of them (the per-ncclWork budget of these releases is not applied to them).`
	p2pSchedDoc22  = `2.22.3–2.27.7: scheduleP2pTasksToPlan walks comm->p2pSchedule round by round (quadratic node and local deltas) and puts each round's send and receive in one work; part k of a direction runs on ncclP2pChannelForPart: the round's base (ncclP2pChannelBaseForRound: the round on one node; across nodes node delta × ⌈localRanks/8⌉ + local delta / 8) plus k with its log2(p2pnChannels) bits reversed, so a peer's channels spread over p2pnChannels rather than run up. The tasks follow the group's collectives (and broadcasts), from the plan of the last of them: before each work scheduleP2pTasksToPlan tests the plan's budget (G-SCHED-BUDGET-1) for one more ncclDevWorkP2p and nChannelsMax more work batches (a batch holds up to 8 works of distinct rounds on a channel), and when it fails the next plan walks the schedule again from round 0.`
	p2pSchedDoc283 = `2.28.3: as 2.22.3, but ncclP2pChannelBaseForRound reverses the base's bits and ncclP2pChannelForPart adds part k unreversed: a peer's channels run up from the base, modulo p2pnChannels. The tasks follow the group's collectives and fill plans against the budget as from 2.22.3.`
	p2pSchedDoc297 = p2pSchedDoc287 + ` From 2.29.7 a plan whose budget is full hands the next plan the round that did not fit (ncclLaunchPrepare's p2pRound, kept across the plans of one group only); from 2.29.2 a work batch also holds the works of one pass over the schedule only (p2pEpoch, NCCL_P2P_EPOCH_ENABLE).`
	p2pSchedDoc287 = `From 2.28.7: as 2.28.3, with comm->p2pSchedule built over groups of NCCL_P2P_SCHEDULE_GROUP_SIZE local ranks (default 8, cut to its gcd with the local ranks; from 2.28.9 on one node all local ranks): quadratic deltas between groups, 0, 1, 2, … inside one; across nodes the base counts group deltas × ⌈groupSize/8⌉ plus the local delta / 8. The tasks follow the group's collectives and fill plans against the budget as from 2.22.3.`

	p2pCountDoc18  = `2.18.1: nChannelsMax = p2pnChannelsPerPeer and nChannelsMin halved while nChannelsMin × nRanks > p2pnChannels; nChannelsMax halved while nChannelsMax × nRanks > 4 × p2pnChannels. A chunk goes LL when its connection has LL buffers and it is at most NCCL_P2P_LL_THRESHOLD bytes.`
	p2pCountDoc183 = `2.18.3–2.19.4: as 2.18.1, but both halvings only on one node.`
	p2pCountDoc20  = `2.20.3–2.21.5: nChannelsMax = p2pnChannelsPerPeer, and only nChannelsMin is halved (while nChannelsMin × nRanks > p2pnChannels), on any number of nodes; across nodes a chunk is at least half of p2pChunkSize. A chunk goes LL when its connection has LL buffers and it is at most NCCL_P2P_LL_THRESHOLD bytes.`
	p2pCountDoc22  = `2.22.3–2.28.9: addP2pToPlan takes LL for a direction whose connection has LL buffers (not over the network's shared buffers, not to itself) and whose bytes are at most nChannelsMax × NCCL_P2P_LL_THRESHOLD; its channels are nChannelsMin parts of at least the protocol's step/8 (step/2 across nodes), doubled up to nChannelsMax while a part exceeds step × 32 (step across nodes); 0 bytes take one channel.`
	p2pRegDoc20    = `2.20.3–2.23.4: addP2pToPlan registers a Simple direction of more than 0 bytes over the network whose proxy runs in the rank's process (not through a PXN peer) when its buffer has a ncclCommRegister record (ncclRegFind): the proxy posts each part straight from (into) the user buffer, one step per part (2.22.3: NCCL_MAX_NET_SIZE at most), instead of staging it through the connection's buffer. A CUDA-graph capture registers nothing; IPC (node peers) nothing. Protocol, channels and chunk are unchanged.`
	p2pRegDoc24    = `2.24.3–2.25.1: addP2pToPlan registers a Simple direction of more than 0 bytes: over the network (ncclRegisterP2pNetBuffer) when the connection uses GPU Direct RDMA (NCCL_DIRECT_NIC), the network is not UNPACK and NCCL_PXN_DISABLE is set or the GPUs are not all NVLink (with one GPU per node isAllNvlink holds, so PXN on refuses it); to a node peer over a P2P read/write connection (ncclRegisterP2pIpcBuffer), the kernel then copying into (reading from) the peer's user buffer. Both try the CUDA-graph registration first (a captured launch under NCCL_GRAPH_REGISTER), then a ncclCommRegister buffer (NCCL_LOCAL_REGISTER); a buffer the registration cannot take (cudaMalloc without NCCL_LEGACY_CUDA_REGISTER, cuMem off) stays unregistered. Protocol, channels and chunk are unchanged.`
	p2pRegDoc26    = `From 2.26.2: as 2.24.3, but the network refuses only when PXN is in use (not disabled, all NVLink and more than one local rank), so one GPU per node registers with PXN on. Under NCCL_P2P_USE_CUDA_MEMCPY=1 (2.28.9+) nothing keeps a registration record. Protocol, channels and chunk are unchanged.`
	p2pSelfDoc18   = `2.18.1–2.21.5: a send to self and the receive it pairs with (the k-th send to self with the k-th receive from self) on one buffer, as an in-place AllToAll's self pair or an in-place SendRecv on one rank, stay tasks: scheduleP2pTasksToPlan plans their chunks on their channels and against the work budget like any, and the kernel's runSend skips the copy because the two buffers are one.`
	p2pSelfDoc22   = `From 2.22.3: scheduleP2pTasksToPlan drops a send to self and the receive it pairs with (the heads of both self queues at the self round) when they name one buffer ("Skip send to self in-place"), as an in-place AllToAll's self pair or an in-place SendRecv on one rank: no work, no batch, no channel, nothing of the plan budget; a plan left without work is not launched (ncclLaunchPrepare keeps a plan only when plan->workBytes is not 0). The unmatched send or receive to self still fails the group first.`
	p2pCountDoc29  = `From 2.29.2: addP2pToPlan counts a direction's channels on the Simple step (p2pChunkSize) first, then takes LL when the connection has LL buffers and its bytes are at most nChannels × NCCL_P2P_LL_THRESHOLD.`
)
