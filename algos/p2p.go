package algos

import (
	"fmt"
	"math/bits"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
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
// Modelled: the schedule of rounds per release, nChannelsMin/Max from
// p2pnChannelsPerPeer, LL below nChannelsMax × NCCL_P2P_LL_THRESHOLD on
// connections with LL buffers (not over the network's shared p2p
// buffers), the network chunk tuning, the u32fp8 rounding of the chunk,
// the per-direction channel counts, 4 KiB-aligned parts, one channel per
// part from the round's base, the batches of up to
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH works per channel (and 2.28.7's round
// epochs), the send and receive warps of one work running concurrently.
//
// Not modelled: buffer registration (NCCL_*_REG, large chunks), the plan
// budget that splits very large groups into several kernels, the extra
// barrier between consecutive batches on a channel (a later work waits only
// for the work of the same slot before it), and a Header has one protocol:
// where one rank's works mix LL and Simple (small AllToAll across nodes:
// LL inside the node, Simple over the network) the schedule is timed as
// Simple.

// maxDevWorkP2PPerBatch is nccl.MaxDevWorkP2PPerBatch.
const maxDevWorkP2PPerBatch = nccl.MaxDevWorkP2PPerBatch

// p2pPartAlign is the alignment of a p2p part (ncclP2pPartBounds).
const p2pPartAlign = 4 << 10

// maxP2PRanks bounds p2p schedules: every rank's plan walks all rounds.
const maxP2PRanks = 1024

// p2pRound is one round of a rank's p2p schedule: the peer it sends to
// and the one it receives from.
type p2pRound struct{ send, recv int }

// p2pScheduleOf is comm->p2pSchedule of rank (src/init.cc
// initTransportsRank): before 2.28.7, node deltas and local deltas both
// follow the quadratic sequence (x*x+x)/2 mod pow2Up(n); from 2.28.7 the
// local ranks are cut into groups of NCCL_P2P_SCHEDULE_GROUP_SIZE (all
// local ranks on one node), group deltas follow the quadratic sequence
// and deltas inside a group run 0, 1, 2, ...
func (g *p2pGen) scheduleOf(rank int) []p2pRound {
	l := g.l
	nNodes, nLocals := l.NNodes, l.LocalRanks
	node, local := l.Node(rank), l.Local(rank)
	out := make([]p2pRound, 0, l.NRanks())
	if !g.p.P2PGroupSchedule {
		nNodesPow2, nLocalsPow2 := topo.Pow2Up(nNodes), topo.Pow2Up(nLocals)
		nodeDelta := 0
		for nodeRound := 1; nodeRound <= nNodesPow2; nodeRound++ {
			if nodeDelta < nNodes {
				sendNode, recvNode := (node+nodeDelta)%nNodes, (node-nodeDelta+nNodes)%nNodes
				localDelta := 0
				for localRound := 1; localRound <= nLocalsPow2; localRound++ {
					if localDelta < nLocals {
						out = append(out, p2pRound{
							send: l.Rank(sendNode, (local+localDelta)%nLocals),
							recv: l.Rank(recvNode, (local-localDelta+nLocals)%nLocals),
						})
					}
					localDelta = (localDelta + localRound) & (nLocalsPow2 - 1)
				}
			}
			nodeDelta = (nodeDelta + nodeRound) & (nNodesPow2 - 1)
		}
		return out
	}
	gs := g.groupSize
	perNode := nLocals / gs
	group, lg := node*perNode+local/gs, local%gs
	nGroups := l.NRanks() / gs
	nGroupsPow2 := topo.Pow2Up(nGroups)
	at := func(gr, delta int) int { return l.Rank(gr/perNode, (gr%perNode)*gs+delta) }
	groupDelta := 0
	for groupRound := 1; groupRound <= nGroupsPow2; groupRound++ {
		if groupDelta < nGroups {
			sendGroup, recvGroup := (group+groupDelta)%nGroups, (group-groupDelta+nGroups)%nGroups
			for delta := 0; delta < gs; delta++ {
				out = append(out, p2pRound{send: at(sendGroup, (lg+delta)%gs), recv: at(recvGroup, (lg-delta+gs)%gs)})
			}
		}
		groupDelta = (groupDelta + groupRound) & (nGroupsPow2 - 1)
	}
	return out
}

// channelBase is ncclP2pChannelBaseForRound: the p2p channel of a round's
// first part.
func (g *p2pGen) channelBase(round int) int {
	l := g.l
	var base int
	switch {
	case l.NNodes <= 1:
		base = round
	case g.p.P2PGroupSchedule:
		base = round/g.groupSize*int(nccl.DivUp(int64(g.groupSize), maxDevWorkP2PPerBatch)) + round%g.groupSize/maxDevWorkP2PPerBatch
	default:
		base = round/l.LocalRanks*int(nccl.DivUp(int64(l.LocalRanks), maxDevWorkP2PPerBatch)) + round%l.LocalRanks/maxDevWorkP2PPerBatch
	}
	if g.p.P2PChannelBaseReversed {
		nb := log2Up(l.P2PNChannels)
		if nb == 0 {
			return 0
		}
		return int(bits.Reverse64(uint64(base)) >> (64 - nb))
	}
	return base & 0xff
}

// u32fp8 rounds x down to the 8-bit float NCCL stores chunk sizes in
// (u32fp8Encode then u32fp8Decode, src/include/bitops.h): the leading bit
// and the three bits beneath it.
func u32fp8(x int64) int64 {
	if x <= 0 {
		return 0
	}
	lg := bits.Len64(uint64(x)) - 1
	if lg < 3 {
		return x
	}
	return x >> (lg - 3) << (lg - 3)
}

// p2pDir is one direction (send or receive) of one work as addP2pToPlan
// plans it.
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
}

type p2pGen struct {
	h         Header
	l         *Layout
	p         Params
	bytes     int64 // per peer
	groupSize int
	nChMin    int
	nChMax    int
	alltoall  bool
	slots     int
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
	g := &p2pGen{l: l, p: p, bytes: op.Count * int64(op.DataType.Size()), alltoall: op.Func == spec.AllToAll}
	g.h = Header{
		Release: l.Release, Func: op.Func, Algo: spec.Ring, Proto: spec.Simple,
		DataType: op.DataType, RedOp: op.RedOp, Count: op.Count,
		NRanks: n, NNodes: l.NNodes, LocalRanks: l.LocalRanks,
		NChannels: l.P2PNChannels, InPlace: opt.InPlace, NSteps: p.NSteps, Unit: 1,
		SlicePerChunk: 1, StepPerSlice: 1,
	}
	// p2pSchedGroupSize: NCCL_P2P_SCHEDULE_GROUP_SIZE across nodes, all
	// local ranks on one node, cut to a divisor of the local ranks
	g.groupSize = l.LocalRanks
	if l.NNodes > 1 {
		g.groupSize = max(1, l.P2PGroupSize)
		if l.LocalRanks%g.groupSize != 0 || l.LocalRanks < g.groupSize {
			g.groupSize = gcd(g.groupSize, l.LocalRanks)
		}
	}
	// scheduleP2pTasksToPlan: all channels per peer at most, and one channel
	// per operation when every rank's operations would not fit
	g.nChMax = l.P2PNChannelsPerPeer
	g.nChMin = g.nChMax
	if !g.p.P2PHalveOneNodeOnly || l.NNodes == 1 {
		for g.nChMin*n > l.P2PNChannels && g.nChMin > 1 {
			g.nChMin /= 2
		}
		// fewer than 8 operations per channel: the sync warp is lost past it
		for g.p.P2PMaxHalved && g.nChMax*n > l.P2PNChannels*4 && g.nChMax > 1 {
			g.nChMax /= 2
		}
	}
	// the header's protocol: LL when every transfer of rank 0 is LL
	g.h.Proto = spec.Simple
	if op.Count > 0 {
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
	if op.Count == 0 {
		// NCCL discards empty calls before they become tasks
		g.h.NChannels, g.h.NGroups = 0, 1
		return &Schedule{Header: g.h, progs: [][]Step{}}, nil
	}
	return &Schedule{Header: g.h, gen: g}, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// works returns rank's works in round order.
func (g *p2pGen) works(rank int) []p2pWork {
	l := g.l
	n := l.NRanks()
	sched := g.scheduleOf(rank)
	var out []p2pWork
	for round, pr := range sched {
		w := p2pWork{round: round, self: pr.send == rank, base: g.channelBase(round)}
		w.dir[0] = p2pDir{peer: pr.recv, bytes: -1}
		w.dir[1] = p2pDir{peer: pr.send, bytes: -1}
		if g.alltoall {
			w.dir[0].bytes, w.recvOff = g.bytes, int64(pr.recv)*g.bytes
			w.dir[1].bytes, w.sendOff = g.bytes, int64(pr.send)*g.bytes
		} else {
			if pr.recv == (rank-1+n)%n {
				w.dir[0].bytes = g.bytes
			}
			if pr.send == (rank+1)%n {
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

// planDir is addP2pToPlan for one direction: protocol, chunk and channel
// count.
func (g *p2pGen) planDir(d *p2pDir, self, network bool) {
	l := g.l
	d.ll = !self && (!network || l.P2PNetLL) && (d.bytes == -1 || d.bytes <= int64(g.nChMax)*int64(l.P2PLLThreshold))
	step := int64(l.P2PChunkSize)
	if d.ll {
		step = int64(l.BuffSize[spec.LL] / g.p.NSteps)
	}
	chunk := step
	if l.P2PChunkParam != 0 {
		chunk = int64(l.P2PChunkParam)
	} else if network {
		if !d.ll && d.bytes < step {
			chunk /= 4
		} else if d.bytes < 8*step {
			chunk /= 2
		}
	}
	if d.ll {
		chunk /= 2
	}
	d.chunk = max(1, u32fp8(chunk))
	switch {
	case d.bytes == -1:
		d.nChannels = 0
	case d.bytes == 0:
		d.nChannels = 1
	default:
		minPart, maxPart := step/8, step*32
		if l.NNodes > 1 {
			minPart, maxPart = step/2, step
		}
		minPart = max(1, minPart)
		nc := int(min(int64(g.nChMin), nccl.DivUp(d.bytes, minPart)))
		part := max(minPart, nccl.DivUp(d.bytes, int64(nc)))
		for part > maxPart && nc <= g.nChMax/2 {
			nc *= 2
			part = nccl.DivUp(d.bytes, int64(nc))
		}
		d.nChannels = nc
	}
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
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH works (of one round epoch from 2.28.7)
// run their works concurrently, work k of a batch on groups 2k (send, or
// the self copy) and 2k+1 (receive).
func (g *p2pGen) program(rank, ch, grp int, dst []Step) []Step {
	slot, epoch := -1, -1
	for _, w := range g.works(rank) {
		part := (ch - w.base) & (g.l.P2PNChannels - 1)
		if part >= w.nParts {
			continue
		}
		slot++
		if e := w.round / maxDevWorkP2PPerBatch; slot == maxDevWorkP2PPerBatch || (g.p.P2PBatchEpoch && slot > 0 && e != epoch) {
			slot = 0
		}
		epoch = w.round / maxDevWorkP2PPerBatch
		if grp/2 != slot%g.slots {
			continue
		}
		if w.self {
			if grp%2 == 0 && part < w.dir[1].nChannels {
				beg, end := partBounds(w.dir[1].nChannels, part, w.dir[1].bytes)
				if end > beg {
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
