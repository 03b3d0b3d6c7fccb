package tuning

// NCCL's send/recv planner: how ncclGroupEnd places the point-to-point
// tasks of a group (ncclSend, ncclRecv, and an AllToAll as the send/recv
// pairs nccl-tests and PyTorch issue) on the communicator's p2p channels,
// after its collectives. One implementation for spec's group decisions and
// algos' schedules.
//
// Ref: v2.22.3-1 … v2.30.7-1 src/enqueue.cc scheduleP2pTasksToPlan,
// addP2pToPlan; src/include/channel.h ncclP2pChannelBaseForRound;
// src/include/device.h ncclP2pChannelForPart; src/init.cc
// initTransportsRank / ncclP2pSchedule (comm->p2pSchedule). v2.18.1-1 …
// v2.21.5-1 src/enqueue.cc scheduleP2pTasksToPlan, calcP2pChunkSize,
// addP2pToPlan; src/include/channel.h ncclChannelComputeBase,
// ncclChannelComputeFromBase; src/graph/paths.cc
// ncclTopoComputeP2pChannels (comm->p2pChannels, mirrorBits).

import (
	"fmt"
	"math/bits"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
)

// MaxP2PRanks bounds the communicators whose send/recv tasks are planned
// one by one: every rank's plan walks all rounds of its schedule.
const MaxP2PRanks = 1024

// maxP2PChannels bounds p2pnChannels (MAXCHANNELS is 64 at most).
const maxP2PChannels = 64

// legacyP2PGroup is NCCL_MAX_WORK_ELEMENTS_P2P/2 (16/2 at every tag up to
// v2.21.5-1): the steps of ncclChannelComputeBase's node groups.
const legacyP2PGroup = 8

// P2PRules are the facts of a release's send/recv planner; spec's release
// files own them (Consts.P2P*), spec and algos pass them in.
type P2PRules struct {
	// RoundSchedule (2.22.3+, G-SCHED-P2P-1): one work per round of
	// comm->p2pSchedule, its parts on ncclP2pChannelForPart from
	// ncclP2pChannelBaseForRound. Before, a peer's bytes are cut into
	// chunks (calcP2pChunkSize) and chunk k runs on ncclChannelCompute:
	// the peer's base mirrored in p2pnChannels, plus k mod
	// p2pnChannelsPerPeer.
	RoundSchedule bool
	// BaseReversed (2.28.3+): the round's base is bit-reversed and the
	// parts follow it contiguously; before, the base is the round's and
	// part k lands at the bit-reversed k from it.
	BaseReversed bool
	// GroupSchedule (2.28.7+): the schedule walks groups of
	// NCCL_P2P_SCHEDULE_GROUP_SIZE local ranks and the base counts rounds
	// in groups.
	GroupSchedule bool
	// GroupWholeNode (2.28.9+): on one node the group is all local ranks
	// (NCCL_P2P_SCHEDULE_GROUP_SIZE only across nodes).
	GroupWholeNode bool
	// MaxHalved (2.18.1–2.19.4): nChannelsMax is halved too while
	// nChannelsMax × nRanks > 4 × p2pnChannels; HalveOneNodeOnly
	// (2.18.3–2.19.4): both halvings on one node only.
	MaxHalved        bool
	HalveOneNodeOnly bool
	// MinPartHalfStepNet (2.20.3+): across nodes a part is at least half a
	// step; before, an eighth as on one node.
	MinPartHalfStepNet bool
	// ChannelsBeforeProto (2.29.2+, G-SCHED-P2P-2): a direction's channels
	// are counted on the Simple step, then LL is taken when its bytes are
	// at most nChannels × NCCL_P2P_LL_THRESHOLD; before, LL is taken up to
	// nChannelsMax × NCCL_P2P_LL_THRESHOLD and the channels are counted on
	// the protocol's step.
	ChannelsBeforeProto bool
	// BatchRoundEpoch (2.28.7+): a p2p work batch holds rounds of one
	// epoch of NCCL_MAX_DEV_WORK_P2P_PER_BATCH rounds only.
	BatchRoundEpoch bool
	// BatchPassEpoch (2.29.2+): a p2p work batch holds works of one pass
	// over the schedule only (p2pEpoch, NCCL_P2P_EPOCH_ENABLE).
	BatchPassEpoch bool
	// ResumeRound (2.29.7+, G-SCHED-P2P-1): when a plan's budget is full,
	// the next plan resumes the schedule at the round that did not fit
	// (ncclLaunchPrepare's p2pRound); before, every plan walks the rounds
	// from round 0 again.
	ResumeRound bool
	// SkipSelfInPlace (2.22.3+, G-SCHED-P2P-3): scheduleP2pTasksToPlan
	// drops a send to self and the receive it pairs with when they name
	// one buffer ("Skip send to self in-place"): no work, no batch, no
	// budget. Before, they stay tasks and the kernel skips the copy.
	SkipSelfInPlace bool
}

// P2PComm is what the send/recv planner reads of a communicator of
// NNodes identical nodes of LocalRanks ranks, numbered node-major.
type P2PComm struct {
	Rules      P2PRules `json:"-"`
	NNodes     int      `json:"nNodes"`
	LocalRanks int      `json:"localRanks"`
	// NChannels and NChannelsPerPeer are comm->p2pnChannels and
	// comm->p2pnChannelsPerPeer (ncclTopoComputeP2pChannels, powers of two).
	NChannels        int `json:"p2pNChannels"`
	NChannelsPerPeer int `json:"p2pNChannelsPerPeer"`
	// GroupSize is NCCL_P2P_SCHEDULE_GROUP_SIZE (8).
	GroupSize int `json:"groupSize"`
	// ChunkSize is comm->p2pChunkSize (the Simple step), LLStepSize the LL
	// buffer over NCCL_STEPS.
	ChunkSize  int `json:"chunkSize"`
	LLStepSize int `json:"llStepSize"`
	// LLThreshold is NCCL_P2P_LL_THRESHOLD (16384), ChunkParam
	// NCCL_CHUNK_SIZE (0: unset).
	LLThreshold int `json:"llThreshold"`
	ChunkParam  int `json:"chunkParam,omitempty"`
	// NetLL: connections over the network have LL buffers
	// (NCCL_NET_SHARED_BUFFERS=0).
	NetLL bool `json:"netLL,omitempty"`
	// EpochOff is NCCL_P2P_EPOCH_ENABLE=0: BatchPassEpoch does not cut
	// batches.
	EpochOff bool `json:"epochOff,omitempty"`
}

// P2PChunkSizeDefault is comm->p2pChunkSize without NCCL_P2P_*_CHUNKSIZE:
// 128 KiB across nodes and over PCIe, 512 KiB when every GPU pair is
// NVLink, capped by the Simple buffer's step.
// Ref: v2.22.3-1 src/init.cc computeBuffSizes
func P2PChunkSizeDefault(nNodes int, allNVLink bool, simpleBuff int) int {
	c := 1 << 17
	if nNodes == 1 && allNVLink {
		c = 1 << 19
	}
	return min(c, simpleBuff/NSteps)
}

// NRanks is NNodes × LocalRanks.
func (p *P2PComm) NRanks() int { return p.NNodes * p.LocalRanks }

func (p *P2PComm) node(rank int) int        { return rank / p.LocalRanks }
func (p *P2PComm) local(rank int) int       { return rank % p.LocalRanks }
func (p *P2PComm) rank(node, local int) int { return node*p.LocalRanks + local }

// Validate checks the shape and the counts the planner divides by.
func (p *P2PComm) Validate() error {
	switch {
	case p.NNodes < 1 || p.LocalRanks < 1:
		return fmt.Errorf("p2p: %d node(s) of %d rank(s): expected at least one of each", p.NNodes, p.LocalRanks)
	case p.NRanks() > MaxP2PRanks:
		return fmt.Errorf("p2p: %d ranks: send/recv tasks are planned for at most %d ranks", p.NRanks(), MaxP2PRanks)
	case p.NChannels < 1 || p.NChannels > maxP2PChannels || p.NChannels&(p.NChannels-1) != 0:
		return fmt.Errorf("p2p: p2pnChannels %d: expected a power of two in 1..%d", p.NChannels, maxP2PChannels)
	case p.NChannelsPerPeer < 1 || p.NChannelsPerPeer > p.NChannels || p.NChannelsPerPeer&(p.NChannelsPerPeer-1) != 0:
		return fmt.Errorf("p2p: p2pnChannelsPerPeer %d: expected a power of two in 1..p2pnChannels (%d)", p.NChannelsPerPeer, p.NChannels)
	case p.ChunkSize < 8 || p.LLStepSize < 8:
		return fmt.Errorf("p2p: step sizes %d (Simple) and %d (LL): expected at least 8 bytes", p.ChunkSize, p.LLStepSize)
	case p.LLThreshold < 0 || p.ChunkParam < 0 || p.GroupSize < 0:
		return fmt.Errorf("p2p: NCCL_P2P_LL_THRESHOLD %d, NCCL_CHUNK_SIZE %d, NCCL_P2P_SCHEDULE_GROUP_SIZE %d: expected ≥ 0", p.LLThreshold, p.ChunkParam, p.GroupSize)
	}
	return nil
}

// SchedGroupSize is comm->p2pSchedGroupSize (2.28.7+): NCCL_P2P_SCHEDULE_GROUP_SIZE
// (from 2.28.9 only across nodes; on one node all local ranks) cut to its
// gcd with the local ranks when it does not divide them. Before 2.28.7 the
// schedule's unit is the node: LocalRanks.
func (p *P2PComm) SchedGroupSize() int {
	if !p.Rules.GroupSchedule || p.Rules.GroupWholeNode && p.NNodes == 1 {
		return p.LocalRanks
	}
	gs := max(1, p.GroupSize)
	if p.LocalRanks%gs != 0 || p.LocalRanks < gs {
		a, b := gs, p.LocalRanks
		for b != 0 {
			a, b = b, a%b
		}
		gs = a
	}
	return gs
}

// P2PRound is one round of a rank's p2p schedule: the peer it sends to
// and the one it receives from.
type P2PRound struct{ Send, Recv int }

// Schedule is comm->p2pSchedule of rank (2.22.3+): node deltas and local
// deltas follow the quadratic sequence (x*x+x)/2 mod pow2Up(n); from
// 2.28.7 the local ranks are cut into groups of SchedGroupSize, group
// deltas follow the quadratic sequence and deltas inside a group run 0,
// 1, 2, ...
func (p *P2PComm) Schedule(rank int) []P2PRound {
	nNodes, nLocals := p.NNodes, p.LocalRanks
	node, local := p.node(rank), p.local(rank)
	out := make([]P2PRound, 0, p.NRanks())
	if !p.Rules.GroupSchedule {
		nNodesPow2, nLocalsPow2 := topo.Pow2Up(nNodes), topo.Pow2Up(nLocals)
		nodeDelta := 0
		for nodeRound := 1; nodeRound <= nNodesPow2; nodeRound++ {
			if nodeDelta < nNodes {
				sendNode, recvNode := (node+nodeDelta)%nNodes, (node-nodeDelta+nNodes)%nNodes
				localDelta := 0
				for localRound := 1; localRound <= nLocalsPow2; localRound++ {
					if localDelta < nLocals {
						out = append(out, P2PRound{
							Send: p.rank(sendNode, (local+localDelta)%nLocals),
							Recv: p.rank(recvNode, (local-localDelta+nLocals)%nLocals),
						})
					}
					localDelta = (localDelta + localRound) & (nLocalsPow2 - 1)
				}
			}
			nodeDelta = (nodeDelta + nodeRound) & (nNodesPow2 - 1)
		}
		return out
	}
	gs := p.SchedGroupSize()
	perNode := nLocals / gs
	group, lg := node*perNode+local/gs, local%gs
	nGroups := p.NRanks() / gs
	nGroupsPow2 := topo.Pow2Up(nGroups)
	at := func(gr, delta int) int { return p.rank(gr/perNode, (gr%perNode)*gs+delta) }
	groupDelta := 0
	for groupRound := 1; groupRound <= nGroupsPow2; groupRound++ {
		if groupDelta < nGroups {
			sendGroup, recvGroup := (group+groupDelta)%nGroups, (group-groupDelta+nGroups)%nGroups
			for delta := 0; delta < gs; delta++ {
				out = append(out, P2PRound{Send: at(sendGroup, (lg+delta)%gs), Recv: at(recvGroup, (lg-delta+gs)%gs)})
			}
		}
		groupDelta = (groupDelta + groupRound) & (nGroupsPow2 - 1)
	}
	return out
}

// ChannelBase is ncclP2pChannelBaseForRound: the p2p channel of a
// round's first part.
func (p *P2PComm) ChannelBase(round int) int {
	var base int
	switch {
	case p.NNodes <= 1:
		base = round
	default:
		unit := p.LocalRanks
		if p.Rules.GroupSchedule {
			unit = p.SchedGroupSize()
		}
		base = round/unit*nccl.DivUp(unit, nccl.MaxDevWorkP2PPerBatch) + round%unit/nccl.MaxDevWorkP2PPerBatch
	}
	if p.Rules.BaseReversed {
		return reverseLow(base, p.NChannels)
	}
	return base & 0xff
}

// reverseLow is reverseBits(x, log2Up(n)) for a power of two n: x's low
// log2(n) bits in reverse order (mirrorBits before 2.22.3).
func reverseLow(x, n int) int {
	nb := bits.Len(uint(n - 1))
	if nb == 0 {
		return 0
	}
	return int(bits.Reverse64(uint64(x)&(1<<nb-1)) >> (64 - nb))
}

// ChannelForPart is ncclP2pChannelForPart: the channel of part part of a
// work whose base is base.
func (p *P2PComm) ChannelForPart(base, part int) int {
	if p.Rules.BaseReversed {
		return (base + part) & (p.NChannels - 1)
	}
	return (base + reverseLow(part, p.NChannels)) & (p.NChannels - 1)
}

// PartForChannel is ncclP2pChannelToPart, ChannelForPart's inverse.
func (p *P2PComm) PartForChannel(base, ch int) int {
	d := (ch - base) & (p.NChannels - 1)
	if p.Rules.BaseReversed {
		return d
	}
	return reverseLow(d, p.NChannels)
}

// ChannelsMinMax is scheduleP2pTasksToPlan's nChannelsMin and
// nChannelsMax: all channels of a peer at most, halved towards one
// channel per operation while every rank's operations would not fit
// p2pnChannels (and, up to 2.19.4, nChannelsMax halved while a channel
// would carry 8 operations or more).
func (p *P2PComm) ChannelsMinMax() (lo, hi int) {
	n := p.NRanks()
	hi = p.NChannelsPerPeer
	lo = hi
	if p.Rules.HalveOneNodeOnly && p.NNodes > 1 {
		return lo, hi
	}
	for lo*n > p.NChannels && lo > 1 {
		lo /= 2
	}
	for p.Rules.MaxHalved && hi*n > p.NChannels*4 && hi > 1 {
		hi /= 2
	}
	return lo, hi
}

// P2PDir is one direction (send or receive) of a work as addP2pToPlan
// plans it.
type P2PDir struct {
	LL bool
	// Chunk is the data bytes per primitive call (u32fp8-rounded).
	Chunk int64
	// NChannels is how many parts (channels) the direction's bytes take.
	NChannels int
}

// Dir is addP2pToPlan for one direction of bytes (-1: none) to a peer
// over the network or not, or to the rank itself (2.22.3+): protocol,
// chunk and channel count, for nChannelsMin lo and nChannelsMax hi.
func (p *P2PComm) Dir(bytes int64, self, network bool, lo, hi int) P2PDir {
	var d P2PDir
	llOK := !self && (!network || p.NetLL)
	if p.Rules.ChannelsBeforeProto {
		d.NChannels = p.partCount(bytes, int64(p.ChunkSize), lo, hi)
		d.LL = llOK && (bytes == -1 || bytes <= int64(d.NChannels)*int64(p.LLThreshold))
	} else {
		d.LL = llOK && (bytes == -1 || bytes <= int64(hi)*int64(p.LLThreshold))
	}
	step := int64(p.ChunkSize)
	if d.LL {
		step = int64(p.LLStepSize)
	}
	if !p.Rules.ChannelsBeforeProto {
		d.NChannels = p.partCount(bytes, step, lo, hi)
	}
	chunk := step
	if p.ChunkParam != 0 {
		chunk = int64(p.ChunkParam)
	} else if network {
		if !d.LL && bytes < step {
			chunk /= 4
		} else if bytes < 8*step {
			chunk /= 2
		}
	}
	if d.LL {
		chunk /= 2
	}
	d.Chunk = max(1, U32FP8(chunk))
	return d
}

// partCount is addP2pToPlan's channel count of one direction on a step:
// nChannelsMin parts of at least minPartSize, doubled up to nChannelsMax
// while a part exceeds maxPartSize.
func (p *P2PComm) partCount(bytes, step int64, lo, hi int) int {
	switch {
	case bytes == -1:
		return 0
	case bytes == 0:
		return 1
	}
	minPart, maxPart := p.minPart(step), step*32
	if p.NNodes > 1 {
		maxPart = step
	}
	nc := int(min(int64(lo), nccl.DivUp(bytes, minPart)))
	part := max(minPart, nccl.DivUp(bytes, int64(nc)))
	for part > maxPart && nc <= hi/2 {
		nc *= 2
		part = nccl.DivUp(bytes, int64(nc))
	}
	return nc
}

// minPart is the smallest part of a step: an eighth, half across nodes
// from 2.20.3.
func (p *P2PComm) minPart(step int64) int64 {
	if p.NNodes > 1 && p.Rules.MinPartHalfStepNet {
		return max(1, step/2)
	}
	return max(1, step/8)
}

// U32FP8 rounds x down to the 8-bit float NCCL stores p2p chunk sizes in
// (u32fp8Encode then u32fp8Decode, src/include/bitops.h): the leading bit
// and the three bits beneath it.
func U32FP8(x int64) int64 {
	if x <= 0 {
		return 0
	}
	lg := bits.Len64(uint64(x)) - 1
	if lg < 3 {
		return x
	}
	return x >> (lg - 3) << (lg - 3)
}

// legacyChunks is 2.18.1–2.21.5's calcP2pChunkSize and the chunk loop of
// scheduleP2pTasksToPlan: how many chunks (works, one channel each) a
// peer's bytes take, and the bytes of the first (the largest). The step
// is comm->p2pChunkSize whatever the protocol.
func (p *P2PComm) legacyChunks(bytes int64, lo, hi int) (int, int64) {
	if bytes <= 0 {
		return 1, 0 // a zero-byte send/recv is one sync work
	}
	step := int64(p.ChunkSize)
	minSize, maxSize := p.minPart(step), step*32
	if p.NNodes > 1 {
		maxSize = step
	}
	size := max(minSize, nccl.DivUp(bytes, int64(lo)))
	for nc := lo; size > maxSize && nc <= hi/2; {
		nc *= 2
		size = nccl.DivUp(bytes, int64(nc))
	}
	size = nccl.RoundUp(size, minSize)
	return int(nccl.DivUp(bytes, size)), min(size, bytes)
}

// legacyBase is ncclChannelComputeBase for rank's send to (or receive
// from) peer: the peer's local step, across nodes the node delta plus the
// step's group of NCCL_MAX_WORK_ELEMENTS_P2P/2.
func (p *P2PComm) legacyBase(rank, peer int, send bool) int {
	nsteps, nNodes := p.LocalRanks, p.NNodes
	step := (nsteps + p.local(peer) - p.local(rank)) % nsteps
	delta := (nNodes + p.node(peer) - p.node(rank)) % nNodes
	if !send {
		step = (nsteps + p.local(rank) - p.local(peer)) % nsteps
		delta = (nNodes + p.node(rank) - p.node(peer)) % nNodes
	}
	if nNodes > 1 {
		return delta + step/legacyP2PGroup
	}
	return step
}

// P2PTask is one ncclSend or ncclRecv of the modelled rank.
type P2PTask struct {
	Peer  int
	Send  bool
	Bytes int64
	// InPlace: a task to the rank itself whose buffer is the one its
	// paired self task names (the k-th send to self pairs with the k-th
	// receive from self).
	InPlace bool
}

// P2PPlaced is a send/recv task as the planner placed it.
type P2PPlaced struct {
	Peer  int    `json:"peer"`
	Dir   string `json:"dir"` // "send" or "recv"
	Bytes int64  `json:"bytes"`
	// Round is the task's round in comm->p2pSchedule (-1 before 2.22.3,
	// whose order is by peer delta).
	Round int `json:"round"`
	// Proto is the protocol of its connection and size (LL or Simple).
	Proto nccl.Proto `json:"proto"`
	// NChannels is how many p2p channels the task's parts (chunks before
	// 2.22.3) run on, Channels those channels in part order: contiguous
	// modulo p2pnChannels from 2.28.3, spread by bit reversal before.
	NChannels int   `json:"nchannels"`
	Channels  []int `json:"channels"`
	// Plan is the kernel plan (0-based) the task lands in, Pass the pass
	// over the schedule that added its work (scheduleP2pTasksToPlan's
	// p2pEpoch): a plan runs its works in pass and round order.
	Plan int `json:"plan"`
	Pass int `json:"-"`
	// SelfInPlace: a send to self or the receive it pairs with, on one
	// buffer (G-SCHED-P2P-3); Skipped: NCCL dropped it without a work (no
	// channels, plan -1; 2.22.3+), where before it stays a task whose copy
	// the kernel skips.
	SelfInPlace bool `json:"selfInPlace,omitempty"`
	Skipped     bool `json:"skipped,omitempty"`
	// Registered is the registration of its buffer (G-REG-P2P-1: "IPC",
	// "NET"; "" none), RegRefused why NCCL's registration failed.
	Registered string `json:"registered,omitempty"`
	RegRefused string `json:"regRefused,omitempty"`
}

// P2PBudget is what scheduleP2pTasksToPlan tests each send/recv work
// against (G-SCHED-BUDGET-1, 2.22.3+): the plan's kernel-argument bytes
// for work batches, the work bytes it may keep outside them, the size of
// a work batch and of one ncclDevWorkP2p, and NCCL_MAX_DEV_WORK_BATCH_BYTES.
type P2PBudget struct {
	InArgs, OutArgs int64
	BatchBytes      int64
	WorkBytes       int64
	MaxBatchBytes   int64
}

// ok is testBudget.
func (b *P2PBudget) ok(nWorkBatches int, workBytes int64) bool {
	batch := int64(nWorkBatches) * b.BatchBytes
	return batch+workBytes <= b.InArgs || (batch <= b.InArgs && workBytes <= b.OutArgs)
}

// P2PPlanStart is the plan scheduleP2pTasksToPlan starts filling: the plan
// the group's last collectives (or broadcasts) went to, with the work
// batches and work bytes they took of its budget, or an empty plan of its
// own.
type P2PPlanStart struct {
	Plan      int
	Batches   int
	WorkBytes int64
}

// p2pWip is one channel's open p2p work batch (addWorkBatchToPlan's
// wipBatch and the batch's offsetBase).
type p2pWip struct {
	open          bool
	epoch, n      int
	rounds        [nccl.MaxDevWorkP2PPerBatch]int
	bytes, offset int64
}

// p2pPlanFill is one kernel plan's p2p side: its batches, work bytes and
// open batches per channel, and the p2p works it took.
type p2pPlanFill struct {
	batches int
	work    int64
	works   int
	wip     [maxP2PChannels]p2pWip
}

// P2PPlanWork is one kernel plan the send/recv works went into: its
// index, the works scheduleP2pTasksToPlan added, and the plan's work
// batches and work bytes with them (for the plan they started in, the
// collectives' too), what finishPlan then sizes the plan on.
type P2PPlanWork struct {
	Plan, Works, Batches int
	WorkBytes            int64
}

// opensBatch is addWorkBatchToPlan's test for a p2p work of round round
// in pass epoch on a channel whose open batch is w: a new batch when the
// channel has none of p2p work open, when the open one holds
// NCCL_MAX_DEV_WORK_P2P_PER_BATCH works or (b not nil)
// NCCL_MAX_DEV_WORK_BATCH_BYTES, already holds this round, holds another
// epoch of rounds (2.28.7+) or another pass (2.29.2+).
func (p *P2PComm) opensBatch(w *p2pWip, b *P2PBudget, round, epoch int) bool {
	newBatch := !w.open || w.n == nccl.MaxDevWorkP2PPerBatch || b != nil && b.MaxBatchBytes < w.bytes+b.WorkBytes ||
		p.Rules.BatchPassEpoch && !p.EpochOff && w.epoch != epoch
	for _, r := range w.rounds[:w.n] {
		newBatch = newBatch || r == round || p.Rules.BatchRoundEpoch && r/nccl.MaxDevWorkP2PPerBatch != round/nccl.MaxDevWorkP2PPerBatch
	}
	return newBatch
}

// take puts a work of round round in pass epoch in w, opened anew first
// when newBatch.
func (w *p2pWip) take(newBatch bool, workBytes int64, round, epoch int) {
	if newBatch {
		w.open, w.bytes, w.n = true, 0, 0
	}
	w.bytes += workBytes
	w.epoch = epoch
	w.rounds[w.n] = round
	w.n++
}

// addBatch is addWorkBatchToPlan for one p2p work of round round in pass
// epoch on channel ch (opensBatch), and an extension batch when the work
// lies more than 63 works past the batch's first.
func (f *p2pPlanFill) addBatch(p *P2PComm, b *P2PBudget, ch, round, epoch int) {
	w := &f.wip[ch]
	newBatch := p.opensBatch(w, b, round, epoch)
	var offset int64
	if !newBatch {
		offset = f.work - w.offset
	}
	if newBatch || 63*b.WorkBytes < offset || offset%b.WorkBytes != 0 {
		w.offset = f.work
		f.batches++
	}
	w.take(newBatch, b.WorkBytes, round, epoch)
}

// P2PChannelBatch is one channel's open p2p work batch in a kernel plan,
// for schedules that run a plan's works: the kernel runs a batch's works
// at once, one per slot, and a channel's batches one after another.
type P2PChannelBatch struct{ w p2pWip }

// Add takes a work of round round in pass pass as addWorkBatchToPlan does
// (opensBatch) and returns its slot in its batch: 0 opens a new batch.
func (c *P2PChannelBatch) Add(p *P2PComm, round, pass int) int {
	c.w.take(p.opensBatch(&c.w, nil, round, pass), 0, round, pass)
	return c.w.n - 1
}

// PlaceGroup places rank's send/recv tasks of one group (ops: each p2p
// operation's tasks, in call order) on the p2p channels and into kernel
// plans, and returns them per operation and the last plan they fill.
//
// NCCL queues a group's sends and receives per peer in call order and
// drains them once the collectives are drained, from the plan the last
// collectives went to (start): pass after pass over comm->p2pSchedule,
// each round taking the head of its send peer's and its receive peer's
// queue as one work. Before each work it tests the plan's budget for one
// more ncclDevWorkP2p and nChannelsMax more batches; when that fails the
// plan ends and the next one starts at round 0 (from 2.29.7 at that
// round). A nil budget (2.18.1–2.21.5, whose per-ncclWork budget is not
// modelled) puts every task in start.Plan (from 2.22.3's rounds on, each
// task with its pass). A plan that cannot take one
// work though empty is an error: ncclLaunchPrepare would loop without end.
func (p *P2PComm) PlaceGroup(rank int, ops [][]P2PTask, start P2PPlanStart, budget *P2PBudget) ([][]P2PPlaced, int, error) {
	out, last, _, err := p.placeGroup(rank, ops, start, budget, false)
	return out, last, err
}

// PlaceGroupWork is PlaceGroup that also returns what each plan from
// start.Plan on holds once the works joined it (nil where the budget is
// not modelled: a nil budget, or no works).
func (p *P2PComm) PlaceGroupWork(rank int, ops [][]P2PTask, start P2PPlanStart, budget *P2PBudget) ([][]P2PPlaced, []P2PPlanWork, error) {
	out, _, fills, err := p.placeGroup(rank, ops, start, budget, true)
	if err != nil {
		return nil, nil, err
	}
	var work []P2PPlanWork
	for k := range fills {
		f := &fills[k]
		work = append(work, P2PPlanWork{Plan: start.Plan + k, Works: f.works, Batches: f.batches, WorkBytes: f.work})
	}
	return out, work, nil
}

// placeGroup is PlaceGroup; with fills it also returns each plan's p2p
// fill from start.Plan on (the start's batches and work included).
func (p *P2PComm) placeGroup(rank int, ops [][]P2PTask, start P2PPlanStart, budget *P2PBudget, fills bool) ([][]P2PPlaced, int, []p2pPlanFill, error) {
	if err := p.Validate(); err != nil {
		return nil, 0, nil, err
	}
	n := p.NRanks()
	if rank < 0 || rank >= n {
		return nil, 0, nil, fmt.Errorf("p2p: rank %d: expected 0..%d", rank, n-1)
	}
	if budget != nil && (budget.BatchBytes < 1 || budget.WorkBytes < 1) {
		return nil, 0, nil, fmt.Errorf("p2p: work batch of %d bytes, p2p work of %d: expected ≥ 1", budget.BatchBytes, budget.WorkBytes)
	}
	lo, hi := p.ChannelsMinMax()
	var sched []P2PRound
	var sendRound, recvRound []int
	if p.Rules.RoundSchedule {
		sched = p.Schedule(rank)
		sendRound, recvRound = make([]int, n), make([]int, n)
		for r, pr := range sched {
			sendRound[pr.Send], recvRound[pr.Recv] = r, r
		}
	}
	out := make([][]P2PPlaced, len(ops))
	total := 0
	for o, tasks := range ops {
		out[o] = make([]P2PPlaced, len(tasks))
		for i, t := range tasks {
			if t.Peer < 0 || t.Peer >= n {
				return nil, 0, nil, fmt.Errorf("p2p: task %d: peer %d: expected 0..%d", i, t.Peer, n-1)
			}
			if t.Bytes < 0 {
				return nil, 0, nil, fmt.Errorf("p2p: task %d: %d bytes: expected ≥ 0", i, t.Bytes)
			}
			out[o][i] = p.placeTask(rank, t, lo, hi, sendRound, recvRound)
			out[o][i].Plan = start.Plan
		}
		total += len(tasks)
	}
	// the per-peer queues, in call order
	type ref struct{ op, task int }
	sendQ, recvQ := make([][]ref, n), make([][]ref, n)
	for o, tasks := range ops {
		for i, t := range tasks {
			if t.Send {
				sendQ[t.Peer] = append(sendQ[t.Peer], ref{o, i})
			} else {
				recvQ[t.Peer] = append(recvQ[t.Peer], ref{o, i})
			}
		}
	}
	// the k-th send to self pairs with the k-th receive from self (each
	// pass takes the heads of both queues at the self round); on one
	// buffer both are a send/recv to self in place
	m := min(len(sendQ[rank]), len(recvQ[rank]))
	var keepS, keepR []ref
	for k := range m {
		pair := [2]ref{sendQ[rank][k], recvQ[rank][k]}
		if !ops[pair[0].op][pair[0].task].InPlace || !ops[pair[1].op][pair[1].task].InPlace {
			keepS, keepR = append(keepS, pair[0]), append(keepR, pair[1])
			continue
		}
		for _, x := range pair {
			t := &out[x.op][x.task]
			t.SelfInPlace = true
			if p.Rules.SkipSelfInPlace {
				t.Skipped, t.Plan, t.NChannels, t.Channels = true, -1, 0, nil
				total--
			}
		}
	}
	if p.Rules.SkipSelfInPlace {
		// the dropped pairs leave the queues without a work
		sendQ[rank] = append(keepS, sendQ[rank][m:]...)
		recvQ[rank] = append(keepR, recvQ[rank][m:]...)
	}
	if !p.Rules.RoundSchedule || total == 0 {
		return out, start.Plan, nil, nil
	}
	plan := start.Plan
	fill := &p2pPlanFill{batches: start.Batches, work: start.WorkBytes}
	round, pass := 0, 0
	var done []p2pPlanFill
	for total > 0 {
		full := false
		for total > 0 && !full { // scheduleP2pTasksToPlan's passes
			if !p.Rules.ResumeRound {
				round, pass = 0, pass+1
			}
			for ; round < n; round++ {
				pr := sched[round]
				var send, recv *P2PPlaced
				if len(sendQ[pr.Send]) > 0 {
					r := sendQ[pr.Send][0]
					send = &out[r.op][r.task]
				}
				if len(recvQ[pr.Recv]) > 0 {
					r := recvQ[pr.Recv][0]
					recv = &out[r.op][r.task]
				}
				if send == nil && recv == nil {
					continue
				}
				if budget != nil && !budget.ok(fill.batches+hi, fill.work+budget.WorkBytes) {
					full = true
					break
				}
				parts := 0
				for _, t := range []*P2PPlaced{send, recv} {
					if t != nil {
						t.Plan, t.Pass = plan, pass
						parts = max(parts, t.NChannels)
					}
				}
				if budget != nil {
					base := p.ChannelBase(round)
					for part := range parts {
						fill.addBatch(p, budget, p.ChannelForPart(base, part), round, pass)
					}
					fill.work += budget.WorkBytes
				}
				fill.works++
				if send != nil {
					sendQ[pr.Send], total = sendQ[pr.Send][1:], total-1
				}
				if recv != nil {
					recvQ[pr.Recv], total = recvQ[pr.Recv][1:], total-1
				}
			}
			if !full && p.Rules.ResumeRound {
				round, pass = 0, pass+1
			}
		}
		if full {
			if fill.work == 0 {
				return nil, 0, nil, fmt.Errorf("p2p: %w", &PlanLoopError{What: "send/recv work", InArgs: budget.InArgs, OutArgs: budget.OutArgs, Batches: hi})
			}
			if fills {
				done = append(done, *fill)
			}
			plan++
			fill = &p2pPlanFill{}
		}
	}
	if fills && budget != nil {
		done = append(done, *fill)
	}
	return out, plan, done, nil
}

// placeTask gives one task its round, protocol and channels.
func (p *P2PComm) placeTask(rank int, t P2PTask, lo, hi int, sendRound, recvRound []int) P2PPlaced {
	pl := P2PPlaced{Peer: t.Peer, Dir: "recv", Bytes: t.Bytes, Round: -1, Proto: nccl.Simple}
	if t.Send {
		pl.Dir = "send"
	}
	self, network := t.Peer == rank, p.node(t.Peer) != p.node(rank)
	if p.Rules.RoundSchedule {
		pl.Round = recvRound[t.Peer]
		if t.Send {
			pl.Round = sendRound[t.Peer]
		}
		d := p.Dir(t.Bytes, self, network, lo, hi)
		if d.LL {
			pl.Proto = nccl.LL
		}
		base := p.ChannelBase(pl.Round)
		pl.NChannels = d.NChannels
		pl.Channels = make([]int, d.NChannels)
		for part := range pl.Channels {
			pl.Channels[part] = p.ChannelForPart(base, part)
		}
		return pl
	}
	// addP2pToPlan: LL when the connection has LL buffers and the chunk
	// (not the task) is at most NCCL_P2P_LL_THRESHOLD; the first chunk is
	// the largest, so it names the task's protocol (a smaller last chunk
	// alone may go LL)
	k, first := p.legacyChunks(t.Bytes, lo, hi)
	if !self && (!network || p.NetLL) && first <= int64(p.LLThreshold) {
		pl.Proto = nccl.LL
	}
	base := reverseLow(p.legacyBase(rank, t.Peer, t.Send)%p.NChannels, p.NChannels)
	seen := uint64(0)
	for c := range k {
		ch := (base + c%p.NChannelsPerPeer) % p.NChannels
		if seen&(1<<ch) == 0 {
			seen |= 1 << ch
			pl.Channels = append(pl.Channels, ch)
		}
	}
	pl.NChannels = len(pl.Channels)
	return pl
}

// P2PReg is what addP2pToPlan registers of a send/recv direction's user
// buffer at a release (G-REG-P2P-1). Registration never changes the
// direction's protocol, channels or chunk: it is decided after them, and
// only for Simple.
type P2PReg int

const (
	// P2PRegNone (2.18.1–2.19.4): nothing is registered.
	P2PRegNone P2PReg = iota
	// P2PRegNetRecord (2.20.3–2.23.4): a direction over the network whose
	// proxy runs in the rank's process and whose buffer has a
	// ncclCommRegister record (ncclRegFind); a graph capture registers
	// nothing.
	P2PRegNetRecord
	// P2PRegIPCNet (2.24.3–2.25.1): ncclRegisterP2pNetBuffer over a GPU
	// Direct RDMA connection (NCCL_DIRECT_NIC) of a network that is not
	// UNPACK, with NCCL_PXN_DISABLE or not all NVLink (isAllNvlink, true
	// with one GPU per node); ncclRegisterP2pIpcBuffer to a node peer over
	// a P2P read/write connection. Both try a graph capture
	// (NCCL_GRAPH_REGISTER) first, then a ncclCommRegister buffer
	// (NCCL_LOCAL_REGISTER).
	P2PRegIPCNet
	// P2PRegNoPXN (2.26.2+): as P2PRegIPCNet, but the network registers
	// unless PXN is in use (not disabled, all NVLink and more than one
	// local rank; the proxy then runs in another rank's process, which
	// P2PRegNetRecord refuses too).
	P2PRegNoPXN
)

func (r P2PReg) String() string {
	return tuningEnumName([]string{"none", "netRecord", "ipcNet", "noPXN"}, int(r), "P2PReg")
}

// P2PRegister is G-REG-P2P-1 for one placed direction of call o: the
// registration addP2pToPlan makes ("NET": the proxy posts the part
// straight from or into the user buffer, one network step per part;
// "IPC": the kernel copies between the two user buffers, no FIFO), "" for
// none, and why NCCL's registration fails where the path would register
// (RegRefused). network says the peer is on another node; pxnOff is
// NCCL_PXN_DISABLE, allNVLink comm->isAllNvlink; connGDR (asked last,
// as it walks the topology) says every
// part's network connector to the peer uses GPU Direct RDMA (the
// NCCL_DIRECT_NIC flag sendSetup/recvSetup set, G-NET-CONN-GDR-1: the loop
// stops at the first part it cannot register).
//
// Ref: v2.20.3-1 src/enqueue.cc addP2pToPlan (ncclRegFind);
// v2.24.3-1 src/enqueue.cc addP2pToPlan, src/register/sendrecv_reg.cc
// ncclRegisterP2pNetBuffer, ncclRegisterP2pIpcBuffer; v2.26.2-1
// src/enqueue.cc addP2pToPlan (pxnUsed)
func (m *Model) P2PRegister(reg P2PReg, o Call, t *P2PPlaced, self, network, pxnOff, allNVLink bool, connGDR func() bool) (kind, refused string) {
	in := &m.In
	if reg == P2PRegNone || t.Proto != nccl.Simple || t.Bytes <= 0 || self {
		return "", ""
	}
	// PXN proxies a network connection through another local rank's
	// process (proxySameProcess false); 2.24.3–2.25.1 test PXN without the
	// local ranks, so one GPU per node counts as PXN there
	pxnUsed := !pxnOff && allNVLink && (reg == P2PRegIPCNet || in.MaxLocalRanks > 1)
	switch {
	case network && reg == P2PRegNetRecord:
		if !m.commRegistered(o) || pxnUsed {
			return "", ""
		}
		kind = "NET"
	case network:
		if !m.RegAsked(o) || pxnUsed || in.NetDeviceUnpack || !connGDR() {
			return "", ""
		}
		kind = "NET"
	case reg == P2PRegNetRecord || !in.DirectP2P || !m.RegAsked(o):
		return "", ""
	default:
		kind = "IPC"
	}
	if why := m.RegRefused(o, kind); why != "" {
		return "", why
	}
	return kind, ""
}

// P2PTasksPlan is the kernel plan of the first task NCCL keeps, -1 when
// it dropped every one (an in-place send/recv to self, G-SCHED-P2P-3):
// no kernel runs the operation then.
func P2PTasksPlan(tasks []P2PPlaced) int {
	for _, t := range tasks {
		if !t.Skipped {
			return t.Plan
		}
	}
	return -1
}
