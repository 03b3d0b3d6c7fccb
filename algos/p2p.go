package algos

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Point-to-point work (SendRecv and AllToAll as nccl-tests runs them: one
// group of ncclSend/ncclRecv calls) does not go through the cost table:
// NCCL plans it round by round over its p2p schedule and spreads each
// peer's bytes over p2p channels.
//
// Ref: v2.28.9-1 and v2.22.3-1 src/enqueue.cc scheduleP2pTasksToPlan,
// addP2pToPlan, addWorkBatchToPlan; src/include/channel.h
// ncclP2pChannelBaseForRound; src/include/device.h ncclP2pPartBounds,
// ncclP2pChannelForPart; src/init.cc initTransportsRank (p2pSchedule),
// computeBuffSizes (p2pChunkSize); src/device/sendrecv.h (runSend,
// runRecv, the self copy).
//
// The schedule of rounds, the channel base, the part-to-channel map and
// each direction's protocol, chunk and channel count are tuning.P2PComm's,
// the planner spec's group decisions use (G-SCHED-P2P-1, G-SCHED-P2P-2).
//
// Modelled: the schedule of rounds per release, nChannelsMin/Max from
// p2pnChannelsPerPeer, LL by NCCL_P2P_LL_THRESHOLD (× nChannelsMax before
// 2.29.2, × the direction's channels from 2.29.2) on connections with LL
// buffers (not over the network's shared p2p buffers), the network chunk
// tuning, the u32fp8 rounding of the chunk, the per-direction channel
// counts, 4 KiB-aligned parts, part k on ncclP2pChannelForPart from the
// round's base, the batches of up to
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH works per channel (and 2.28.7's round
// epochs), the send and receive warps of one work running concurrently.
//
// Modelled too: a group of the operation repeated (P2PGroup, nccl-tests
// -m N), its works placed against the plan budget by the same planner and
// one kernel plan built, pass after pass.
//
// Not modelled: 2.18.1–2.21.5's chunks on ncclChannelCompute's channels
// (spec's group decisions place them; these schedules keep the rounds of
// 2.22.3 for those releases), buffer registration (NCCL_*_REG, large
// chunks), the barrier between consecutive batches on a channel (a later
// work waits only for the work of the same slot before it), and a Header
// has one protocol: where one rank's works mix LL and Simple (small
// AllToAll across nodes: LL inside the node, Simple over the network) the
// schedule is timed as Simple.

// maxDevWorkP2PPerBatch is nccl.MaxDevWorkP2PPerBatch.
const maxDevWorkP2PPerBatch = nccl.MaxDevWorkP2PPerBatch

// p2pPartAlign is the alignment of a p2p part (ncclP2pPartBounds).
const p2pPartAlign = 4 << 10

// maxP2PRanks bounds p2p schedules: every rank's plan walks all rounds.
const maxP2PRanks = 1024

// p2pDir is one direction (send or receive) of one work as addP2pToPlan
// plans it (tuning.P2PComm.Dir).
type p2pDir struct {
	peer      int
	bytes     int64 // -1: no operation in this direction
	ll        bool
	nChannels int
	chunk     int64 // data bytes per primitive call
}

// p2pWork is one round of a rank with something to do.
type p2pWork struct {
	round    int
	self     bool
	base     int
	dir      [2]p2pDir // 0 receive, 1 send
	sendOff  int64     // user buffer offsets, bytes
	recvOff  int64
	nParts   int // max of the directions' channel counts
	skipSelf bool
	pass     int // the pass over the schedule that added it (a group's)
}

type p2pGen struct {
	h Header
	l *Layout
	p Params
	// pc is the planner spec's group decisions use: schedule, channel
	// base, parts and per-direction counts.
	pc       tuning.P2PComm
	bytes    int64 // per peer
	nChMin   int
	nChMax   int
	alltoall bool
	slots    int
	// group is the group the operation repeats in and the plan built
	// (nil: alone); last caches the works of the rank asked last, as
	// programs are asked rank by rank.
	group *P2PGroup
	gpc   tuning.P2PComm
	mu    sync.Mutex
	last  struct {
		rank  int
		works []p2pWork
	}
}

// p2pComm is the layout's communicator as NCCL's send/recv planner reads
// it.
func (l *Layout) p2pComm(p Params) tuning.P2PComm {
	return tuning.P2PComm{
		Rules: p.P2P, NNodes: l.NNodes, LocalRanks: l.LocalRanks,
		NChannels: l.P2PNChannels, NChannelsPerPeer: l.P2PNChannelsPerPeer, GroupSize: l.P2PGroupSize,
		ChunkSize: l.P2PChunkSize, LLStepSize: l.BuffSize[spec.LL] / p.NSteps,
		LLThreshold: l.P2PLLThreshold, ChunkParam: l.P2PChunkParam, NetLL: l.P2PNetLL,
	}
}

func buildP2P(op spec.Op, l *Layout, p Params, opt Options) (*Schedule, error) {
	n := l.NRanks()
	if n > maxP2PRanks {
		return nil, fmt.Errorf("build: %s on %d ranks: the point-to-point schedules are built for at most %d ranks", op.Func, n, maxP2PRanks)
	}
	if l.P2PNChannels <= 0 || l.P2PNChannelsPerPeer <= 0 {
		return nil, fmt.Errorf("build: the layout has no p2p channels (P2PNChannels %d, per peer %d)", l.P2PNChannels, l.P2PNChannelsPerPeer)
	}
	if opt.InPlace && n > 1 {
		// a work's receive may land before a later round's send has read
		// the same bytes: NCCL's result then depends on timing
		return nil, fmt.Errorf("build: %s in place on %d ranks: NCCL's sends and receives on one buffer race (a receive may overwrite bytes a later send still reads); run it out of place", op.Func, n)
	}
	g := &p2pGen{l: l, p: p, pc: l.p2pComm(p), bytes: op.Count * int64(op.DataType.Size()), alltoall: op.Func == spec.AllToAll}
	if err := g.pc.Validate(); err != nil {
		return nil, fmt.Errorf("build: %v", err)
	}
	g.h = Header{
		Release: l.Release, Func: op.Func, Algo: spec.Ring, Proto: spec.Simple,
		DataType: op.DataType, RedOp: op.RedOp, Count: op.Count,
		NRanks: n, NNodes: l.NNodes, LocalRanks: l.LocalRanks,
		NChannels: l.P2PNChannels, InPlace: opt.InPlace, NSteps: p.NSteps, Unit: 1,
		SlicePerChunk: 1, StepPerSlice: 1,
	}
	// scheduleP2pTasksToPlan: all channels per peer at most, and one channel
	// per operation when every rank's operations would not fit
	g.nChMin, g.nChMax = g.pc.ChannelsMinMax()
	if gr := opt.P2PGroup; gr != nil {
		if gr.Ops < 1 || gr.Ops > spec.MaxGroupOps || gr.Plan < 0 {
			return nil, fmt.Errorf("build: %s issued %d times, plan %d: expected 1..%d operations and a plan ≥ 0", op.Func, gr.Ops, gr.Plan, spec.MaxGroupOps)
		}
		// the schedules keep 2.22.3's rounds before 2.22.3 (see above)
		g.group, g.gpc, g.last.rank = gr, g.pc, -1
		g.gpc.Rules.RoundSchedule = true
		if _, err := g.placeGroup(0); err != nil {
			return nil, fmt.Errorf("build: %v", err)
		}
	}
	// the header's protocol: LL when every transfer of rank 0 is LL
	g.h.Proto = spec.Simple
	{
		ll, some := true, false
		for _, w := range g.works(0) {
			for _, d := range w.dir {
				if !w.self && d.bytes >= 0 {
					ll, some = ll && d.ll, true
				}
			}
		}
		if ll && some {
			g.h.Proto = spec.LL
		}
	}
	g.h.StepBytes = l.P2PChunkSize
	if g.h.Proto == spec.LL {
		g.h.StepBytes = l.BuffSize[spec.LL] / p.NSteps
	}
	tasks := 2
	if g.alltoall {
		tasks = n
	}
	g.slots = min(maxDevWorkP2PPerBatch, tasks)
	g.h.NGroups = 2 * g.slots
	// an empty send or receive is a task all the same (p2pTaskAppend keeps
	// it, where taskAppend discards an empty collective): its work moves
	// one empty step on one channel (runSend/runRecv's loop runs once)
	return &Schedule{Header: g.h, gen: g}, nil
}

// works returns rank's works in the order its kernel runs them: round
// order alone, in pass and round order in a group's plan.
func (g *p2pGen) works(rank int) []p2pWork {
	if g.group != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.last.rank != rank {
			// rank 0 placed at build time; the others are planned alike
			w, err := g.placeGroup(rank)
			if err != nil {
				w = nil
			}
			g.last.rank, g.last.works = rank, w
		}
		return g.last.works
	}
	l := g.l
	n := l.NRanks()
	sched := g.pc.Schedule(rank)
	var out []p2pWork
	for round, pr := range sched {
		w := p2pWork{round: round, self: pr.Send == rank, base: g.pc.ChannelBase(round)}
		w.dir[0] = p2pDir{peer: pr.Recv, bytes: -1}
		w.dir[1] = p2pDir{peer: pr.Send, bytes: -1}
		if g.alltoall {
			w.dir[0].bytes, w.recvOff = g.bytes, int64(pr.Recv)*g.bytes
			w.dir[1].bytes, w.sendOff = g.bytes, int64(pr.Send)*g.bytes
		} else {
			if pr.Recv == (rank-1+n)%n {
				w.dir[0].bytes = g.bytes
			}
			if pr.Send == (rank+1)%n {
				w.dir[1].bytes = g.bytes
			}
		}
		if w.dir[0].bytes < 0 && w.dir[1].bytes < 0 {
			continue
		}
		if w.self && g.h.InPlace {
			// "Skip send to self in-place"
			continue
		}
		for d := range w.dir {
			g.planDir(&w.dir[d], w.self, l.Node(w.dir[d].peer) != l.Node(rank))
		}
		w.nParts = max(w.dir[0].nChannels, w.dir[1].nChannels)
		out = append(out, w)
	}
	return out
}

// placeGroup is rank's works in the group's plan: the operation's tasks
// (SendRecv: a send to the next rank and a receive from the previous one;
// AllToAll: a send to and a receive from every rank) queued Ops times,
// placed by the planner spec's group decisions use (scheduleP2pTasksToPlan
// against the plan budget, from an empty plan 0: the group holds no
// collective), each round's send and receive of one pass one work, in pass
// and round order. Every repetition moves the same buffers, as nccl-tests'
// -m does.
func (g *p2pGen) placeGroup(rank int) ([]p2pWork, error) {
	n, pc := g.l.NRanks(), &g.gpc
	var tasks []tuning.P2PTask
	task := func(peer int, send bool) tuning.P2PTask {
		return tuning.P2PTask{Peer: peer, Send: send, Bytes: g.bytes, InPlace: g.h.InPlace && peer == rank}
	}
	if g.alltoall {
		for peer := range n {
			tasks = append(tasks, task(peer, true), task(peer, false))
		}
	} else {
		tasks = append(tasks, task((rank+1)%n, true), task((rank-1+n)%n, false))
	}
	ops := make([][]tuning.P2PTask, g.group.Ops)
	for i := range ops {
		ops[i] = tasks
	}
	placed, _, err := pc.PlaceGroup(rank, ops, tuning.P2PPlanStart{}, g.group.Budget)
	if err != nil {
		return nil, err
	}
	sched := pc.Schedule(rank)
	type key struct{ pass, round int }
	at := map[key]int{}
	var out []p2pWork
	for _, op := range placed {
		for _, t := range op {
			if t.Skipped || t.Plan != g.group.Plan {
				continue
			}
			k := key{t.Pass, t.Round}
			i, ok := at[k]
			if !ok {
				pr := sched[t.Round]
				w := p2pWork{round: t.Round, pass: t.Pass, self: pr.Send == rank, base: pc.ChannelBase(t.Round)}
				w.dir[0] = p2pDir{peer: pr.Recv, bytes: -1}
				w.dir[1] = p2pDir{peer: pr.Send, bytes: -1}
				i, at[k] = len(out), len(out)
				out = append(out, w)
			}
			w := &out[i]
			d := 0
			if t.Dir == "send" {
				d = 1
			}
			w.dir[d].bytes = t.Bytes
			if g.alltoall {
				if d == 1 {
					w.sendOff = int64(t.Peer) * g.bytes
				} else {
					w.recvOff = int64(t.Peer) * g.bytes
				}
			}
		}
	}
	for i := range out {
		w := &out[i]
		for d := range w.dir {
			g.planDir(&w.dir[d], w.self, g.l.Node(w.dir[d].peer) != g.l.Node(rank))
		}
		w.nParts = max(w.dir[0].nChannels, w.dir[1].nChannels)
	}
	slices.SortFunc(out, func(a, b p2pWork) int { return cmp.Or(cmp.Compare(a.pass, b.pass), cmp.Compare(a.round, b.round)) })
	return out, nil
}

// planDir is addP2pToPlan for one direction: protocol, chunk and channel
// count (tuning.P2PComm.Dir).
func (g *p2pGen) planDir(d *p2pDir, self, network bool) {
	r := g.pc.Dir(d.bytes, self, network, g.nChMin, g.nChMax)
	d.ll, d.chunk, d.nChannels = r.LL, r.Chunk, r.NChannels
}

// partBounds is ncclP2pPartBounds.
func partBounds(nParts, part int, bytes int64) (beg, end int64) {
	pb := nccl.RoundUp(nccl.DivUp(bytes, int64(nParts)), p2pPartAlign)
	return min(int64(part)*pb, bytes), min(int64(part+1)*pb, bytes)
}

func (g *p2pGen) channelKey(ch int) string { return fmt.Sprintf("p2p/%d", ch) }

func (g *p2pGen) endpoint(int, Peer) Endpoint { return Endpoint{} }

// program emits rank's steps on channel ch for thread group grp: works
// land on the channel of their part, batches of up to
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH works (addWorkBatchToPlan's batches:
// distinct rounds, of one round epoch from 2.28.7, of one pass from
// 2.29.2) run their works concurrently, a work of slot k (workSlots) on
// groups 2k (send, or the self copy) and 2k+1 (receive).
func (g *p2pGen) program(rank, ch, grp int, dst []Step) []Step {
	works := g.works(rank)
	slots := g.workSlots(works, ch)
	for i, w := range works {
		part := g.pc.PartForChannel(w.base, ch)
		if slots[i] < 0 || grp/2 != slots[i] {
			continue
		}
		if w.self {
			if grp%2 == 0 && part < w.dir[1].nChannels {
				beg, end := partBounds(w.dir[1].nChannels, part, w.dir[1].bytes)
				// an empty self work is one empty step, as the kernel runs it
				if end > beg || w.dir[1].bytes == 0 && part == 0 {
					dst = append(dst, Step{Prim: PrimCopy, Src: inChunk(w.sendOff+beg, end-beg), Dst: outChunk(w.recvOff+beg, end-beg), Count: end - beg})
				}
			}
			continue
		}
		d := &w.dir[1-grp%2]
		if part >= d.nChannels {
			continue
		}
		beg, end := partBounds(d.nChannels, part, d.bytes)
		peer := []Peer{RankPeerConn(d.peer, 1)}
		// runSend / runRecv: do { n = min(chunk, bytes-cursor); ... } while (cursor < bytes)
		for cur := beg; ; {
			m := min(d.chunk, end-cur)
			if grp%2 == 0 {
				dst = append(dst, Step{Prim: PrimSend, Send: peer, Src: inChunk(w.sendOff+cur, m), Count: m, Direct: true})
			} else {
				dst = append(dst, Step{Prim: PrimRecv, Recv: peer, Dst: outChunk(w.recvOff+cur, m), Count: m, Direct: true})
			}
			cur += m
			if cur >= end {
				break
			}
		}
	}
	return dst
}

// workSlots is the slot of each of works in its batch on channel ch (-1:
// not on ch). NCCL runs a channel's batches one after another, so which
// warps run a work matters within its batch alone; these schedules keep no
// barrier between batches (a group's work waits for the group's work
// before it), so a work takes the slot its round has in a whole pass (its
// index in the batches of the rounds on ch), or, where its batch holds
// that slot already, the lowest free one. A peer then keeps its groups
// from batch to batch, also where a plan's first pass is a partial one
// (the works an earlier kernel plan of a group left over): numbered by
// their index in the batch, the works of every later batch would shift
// groups, each group's works chaining ranks that talk in other groups.
func (g *p2pGen) workSlots(works []p2pWork, ch int) []int {
	out := make([]int, len(works))
	var rounds []int
	for i, w := range works {
		out[i] = -1
		if g.pc.PartForChannel(w.base, ch) < w.nParts {
			rounds = append(rounds, w.round)
		}
	}
	slices.Sort(rounds)
	rounds = slices.Compact(rounds)
	whole := make(map[int]int, len(rounds))
	var pass tuning.P2PChannelBatch
	for _, r := range rounds {
		whole[r] = pass.Add(&g.pc, r, 0) % g.slots
	}
	var batch tuning.P2PChannelBatch
	var used uint64 // slots taken in the open batch (g.slots ≤ 64)
	for i, w := range works {
		if g.pc.PartForChannel(w.base, ch) >= w.nParts {
			continue
		}
		if batch.Add(&g.pc, w.round, w.pass) == 0 {
			used = 0
		}
		s := whole[w.round]
		if used&(1<<s) != 0 {
			s = bits.TrailingZeros64(^used) % g.slots
		}
		used |= 1 << s
		out[i] = s
	}
	return out
}
