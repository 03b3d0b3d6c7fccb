package sim

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// The timing model prepares a schedule in four passes before it simulates:
//
//  1. structure: channels whose programs are equal up to buffer offsets
//     (Schedule.ChannelKey) share one plan. Every rank's programs on the
//     representative channel are generated once and reduced to a
//     signature and a list of connections ("slots": the distinct peers and
//     offload endpoints). Slots used identically — in the same steps, the
//     same role, the same sizes, like a tree node's two children — form a
//     slot group; a step waits for or feeds a group as a whole. Programs
//     are not kept.
//  2. rates: each channel is a set of flows (one per connection) over the
//     machine's links; channel classes are (structure, network rail)
//     pairs; the links are shared max-min fairly among all flows of all
//     channels (progressive filling, integer arithmetic).
//  3. symmetry: per channel class, ranks are coloured by signature and
//     slot-group rates, then refined by their neighbours' colours (with the
//     neighbour's group and the hop latency) until stable: the coarsest
//     equitable partition. Ranks of one colour run identical programs
//     against identically coloured neighbours at identical rates, so they
//     follow the same timeline step for step;
//  4. the event simulation runs one representative per colour, and each
//     connection between colours once; an uneven Ring AllReduce channel,
//     whose ranks are all told apart, is solved in runs of ranks instead
//     (ringruns.go), and a Ring Broadcast or Reduce chain rank by rank
//     (chain.go).
//
// Passes 3 and 4 are exact: a representative's times are those of every
// rank it stands for. The static link shares of pass 2 are the model's
// one simplification of contention (every connection that carries data
// counts, whether or not it is busy at a given instant, but for the
// connections of a p2p send group, which are busy one at a time:
// seqShares); it is what makes the channels, and the ranks of a class,
// independent of each other.

// sliceSizes returns the element counts of the FIFO slices one step of n
// elements moves: Simple splits a call into SlicePerChunk slices of
// max(ceil(n/(16×SlicePerChunk))×16, stepElems×StepPerSlice/32) elements
// (genericOp of prims_simple.h; empty slices still advance the FIFO), LL
// and LL128 move one step per call.
func sliceSizes(h *algos.Header, n int64, dst []int64) []int64 {
	dst = dst[:0]
	spc := int64(h.SlicePerChunk)
	if h.Proto != spec.Simple || spc <= 1 {
		return append(dst, n)
	}
	stepElems := int64(h.StepBytes / max(1, h.Unit))
	size := max(nccl.DivUp(n, 16*spc)*16, stepElems*int64(h.StepPerSlice)/32)
	off := int64(0)
	for j := int64(0); j < spc; j++ {
		s := max(0, min(size, n-off))
		dst = append(dst, s)
		off += s
	}
	return dst
}

// wireBytes is what a message of data bytes occupies on the wire: LL lines
// carry 8 data bytes in 16 (two 4-byte words, each with a 4-byte flag),
// LL128 lines 120 data bytes in 128, Simple the data alone.
// Ref: v2.28.9-1 src/include/device.h ncclLLFifoLine, NCCL_LL128_LINESIZE.
func wireBytes(p spec.Proto, data int64) int64 {
	switch p {
	case spec.LL:
		return nccl.DivUp(data, 8) * 16
	case spec.LL128:
		return nccl.DivUp(data, 120) * 128
	}
	return data
}

// mix is a fast 64-bit hash combiner (multiply, xor-shift).
func mix(h uint64, v int64) uint64 {
	h ^= uint64(v) + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// slotInfo is one connection of a rank on a channel.
type slotInfo struct {
	peer      algos.Peer
	group     int32
	sends     bool
	recvs     bool
	usage     uint64
	sendBytes int64 // wire bytes sent on one channel of the class
	recvBytes int64 // wire bytes received from an offload endpoint
	// seqBytes: the slot sends only in p2p send groups (seqShares), these
	// wire bytes on one channel of the class, and seqGroup is the bytes
	// its group sends (the largest, in several); 0: a whole connection
	seqBytes, seqGroup int64
}

// shareDen is the unit of the links' flow weights: one connection.
const shareDen = 1 << 10

type rankPlan struct {
	sig     uint64
	slots   []slotInfo
	ngroups int32
	// seqGroups is the number of p2p send groups (seqShares) on one
	// channel of the class, seqTotal the wire bytes they send
	seqGroups int32
	seqTotal  int64
}

// keyPlan is the structure shared by channels with one ChannelKey,
// planned on its first channel.
type keyPlan struct {
	rep   int
	rot   int // the first channel's rotation
	ranks []rankPlan
	// circ: the channel is circulant (Schedule.Circulant) and ranks holds
	// rank 0's plan alone; rank r's is it with every rank peer p read as
	// (p + r) mod nRanks (shiftPeer)
	circ bool
	// shared: every rank's program is one program up to its peers (a
	// circulant or uniform ring channel), so one compiled program (cprog)
	// serves all
	shared bool
	// ring: an uneven Ring AllReduce channel, one program up to its
	// neighbours and chunk sizes (solveRing)
	ring *ringRuns
	// chain: a Ring Broadcast or Reduce channel (solveChain)
	chain *chainRuns
}

// slotCount is the number of slots of all n ranks of the plan.
func (kp *keyPlan) slotCount(n int) int {
	if kp.circ {
		return n * len(kp.ranks[0].slots)
	}
	t := 0
	for i := range kp.ranks {
		t += len(kp.ranks[i].slots)
	}
	return t
}

// groupCount is the number of slot groups of all n ranks of the plan.
func (kp *keyPlan) groupCount(n int) int {
	if kp.circ {
		return n * int(kp.ranks[0].ngroups)
	}
	t := 0
	for i := range kp.ranks {
		t += int(kp.ranks[i].ngroups)
	}
	return t
}

// chanClass is a set of channels with one structure, one rotation and one
// network rail. Its ranks are the key plan's ranks rotated by d: rank r of
// the class does what rank RotateRank(r, -d) of the plan does, and a peer p
// of the plan is RotateRank(p, d) in the class.
type chanClass struct {
	kp     *keyPlan
	rep    int
	netdev int
	d      int
	mult   int64
	h      *algos.Header
	eps    endpoints // in the class's own numbering
	// chans are the channels the class stands for, each with its rotation
	// (classes merged by mergeClasses keep theirs)
	chans []chanRot
}

// chanRot is one channel of a class and its rotation relative to the key
// plan.
type chanRot struct{ c, d int }

// planIndex is the plan's rank that rank r of the class runs.
func (cc *chanClass) planIndex(r int) int {
	if cc.d != 0 {
		r = cc.h.RotateRank(r, -cc.d)
	}
	return r
}

// plan is rank r's plan in the class; on a circulant channel it is rank
// 0's, whose rank peers peerAt reads for r.
func (cc *chanClass) plan(r int) *rankPlan {
	if cc.kp.circ {
		return &cc.kp.ranks[0]
	}
	return &cc.kp.ranks[cc.planIndex(r)]
}

// rankPlan is rank r's plan with its own peers (plan numbering): plan, or
// on a circulant channel a copy with rank 0's peers shifted to r.
func (cc *chanClass) rankPlan(r int) *rankPlan {
	if !cc.kp.circ {
		return cc.plan(r)
	}
	rp := shiftPlan(&cc.kp.ranks[0], int32(cc.planIndex(r)), int32(cc.h.NRanks))
	return &rp
}

// shiftPlan is rank 0's plan of a circulant channel as rank r's.
func shiftPlan(p0 *rankPlan, r, n int32) rankPlan {
	rp := *p0
	rp.slots = slices.Clone(p0.slots)
	for i := range rp.slots {
		rp.slots[i].peer = shiftPeer(rp.slots[i].peer, r, n)
	}
	return rp
}

func shiftPeer(p algos.Peer, r, n int32) algos.Peer {
	if p.Kind == algos.PeerRank {
		p.ID = (p.ID + r) % n
	}
	return p
}

// peer maps a plan's peer to the class's numbering.
func (cc *chanClass) peer(p algos.Peer) algos.Peer {
	if cc.d != 0 && p.Kind == algos.PeerRank {
		p.ID = int32(cc.h.RotateRank(int(p.ID), cc.d))
	}
	return p
}

// peerAt maps a peer of rank r's plan(r) to the class's numbering.
func (cc *chanClass) peerAt(r int, p algos.Peer) algos.Peer {
	if cc.kp.circ {
		p = shiftPeer(p, int32(cc.planIndex(r)), int32(cc.h.NRanks))
	}
	return cc.peer(p)
}

// unpeerAt maps a peer of rank r (class numbering) back to plan(r)'s.
func (cc *chanClass) unpeerAt(r int, p algos.Peer) algos.Peer {
	if cc.d != 0 && p.Kind == algos.PeerRank {
		p.ID = int32(cc.h.RotateRank(int(p.ID), -cc.d))
	}
	if cc.kp.circ {
		n := int32(cc.h.NRanks)
		p = shiftPeer(p, n-int32(cc.planIndex(r))%n, n)
	}
	return p
}

// slotOf is the index of peer p (class numbering) in rank r's slots.
func (cc *chanClass) slotOf(r int, p algos.Peer) int {
	return cc.plan(r).slotOf(cc.unpeerAt(r, p))
}

func (rp *rankPlan) slotOf(p algos.Peer) int {
	for i := range rp.slots {
		if rp.slots[i].peer == p {
			return i
		}
	}
	return -1
}

// planner reuses buffers across ranks.
type planner struct {
	s     *algos.Schedule
	steps []algos.Step
	ends  []int
	sl    []int64
	gs    []int32
	// a small open-addressing index of the current rank's slots, reset by
	// bumping gen (ranks have a handful to a few dozen slots)
	tab [256]struct {
		p   algos.Peer
		i   int32
		gen uint32
	}
	gen uint32
	// slot indices of the last peer lists seen: generators reuse one
	// peer slice for many steps, so a pointer match skips the lookups
	lastPeers [2]*algos.Peer
	lastLen   [2]int
	lastIdx   [2][]int
	// templates: plan a rank whose program has a known shape from it
	// (planRank); tmpl by shape hash, shape the current rank's. A
	// schedule whose ranks rarely share a shape (an uneven ring) stops
	// trying after a few dozen misses.
	templates    bool
	tmpl         map[uint64]*planTemplate
	last         *planTemplate
	shape        []int64
	hits, misses int
	// scratch collects the current rank's slots; slab is where keep
	// copies them
	scratch, slab []slotInfo
	slabN         int
	// wire's memo
	wireN    [4]int64
	wireB    [4]int64
	wireOK   [4]bool
	wireNext int
}

// wire is the wire bytes of one step of n elements: the sum over its
// slices (a step's slices go out as separate FIFO messages). The last few
// counts are remembered: programs repeat a handful of chunk sizes.
func (pl *planner) wire(n int64) int64 {
	for i := range pl.wireN {
		if pl.wireN[i] == n && pl.wireOK[i] {
			return pl.wireB[i]
		}
	}
	h := &pl.s.Header
	pl.sl = sliceSizes(h, n, pl.sl)
	b := int64(0)
	for _, x := range pl.sl {
		b += wireBytes(h.Proto, x*int64(h.Unit))
	}
	i := pl.wireNext
	pl.wireN[i], pl.wireB[i], pl.wireOK[i] = n, b, true
	pl.wireNext = (i + 1) % len(pl.wireN)
	return b
}

// slotsOf returns the slot indices of a peer list (k: 0 receive, 1 send).
func (pl *planner) slotsOf(rp *rankPlan, peers []algos.Peer, k int) []int {
	if len(peers) == 0 {
		return nil
	}
	if pl.lastPeers[k] == &peers[0] && pl.lastLen[k] == len(peers) {
		return pl.lastIdx[k]
	}
	idx := pl.lastIdx[k][:0]
	for _, p := range peers {
		idx = append(idx, pl.slot(rp, p))
	}
	pl.lastPeers[k], pl.lastLen[k], pl.lastIdx[k] = &peers[0], len(peers), idx
	return idx
}

func peerHash(p algos.Peer) uint32 {
	h := uint32(p.ID)*0x9e3779b1 ^ uint32(p.Kind)<<28 ^ uint32(p.Conn)<<24
	return (h ^ h>>15) & 255
}

// slot returns the index of p in rp's slots, adding it if new.
func (pl *planner) slot(rp *rankPlan, p algos.Peer) int {
	h := peerHash(p)
	for {
		e := &pl.tab[h]
		if e.gen != pl.gen {
			e.p, e.i, e.gen = p, int32(len(rp.slots)), pl.gen
			rp.slots = append(rp.slots, slotInfo{peer: p})
			return int(e.i)
		}
		if e.p == p {
			return int(e.i)
		}
		h = (h + 1) & 255
	}
}

// planTemplate is a planned program by shape: everything planRank reads
// of a program except its peers' identities (primitives, counts, flags,
// PAT slots, group boundaries, and for every peer of every step its slot
// index, in first-appearance order, and its kind). Two programs of one
// shape have one plan up to the slots' peers: the usage, groups, bytes and
// signature are functions of the shape alone.
type planTemplate struct {
	shape []int64
	plan  rankPlan
}

// maxTemplates bounds the shapes a planner remembers; ranks of a schedule
// fall into a few dozen shapes (a node's local position times a tree
// position) or, on an uneven ring, every rank into its own.
const maxTemplates = 64

// shapeOf sets pl.shape to the shape of the program in pl.steps (pl.ends
// its group ends), collecting rp's slots (peers only). A step that repeats
// the one before it (sameStep: a loop's steps differ in buffer offsets
// alone) is not written again: a run of k repeats is one element,
// runMark+k, after the step. The encoding expands back to the step-by-step
// shape, so equal shapes still mean equal programs up to their peers.
func (pl *planner) shapeOf(rp *rankPlan) {
	sh := pl.shape[:0]
	g := 0
	var prev *algos.Step
	run := int64(0)
	for i := range pl.steps {
		st := &pl.steps[i]
		if g < len(pl.ends) && i >= pl.ends[g] {
			prev = nil
		} else if prev != nil && sameStep(prev, st) {
			run++
			continue
		}
		if run > 0 {
			sh = append(sh, runMark+run)
			run = 0
		}
		for g < len(pl.ends) && i >= pl.ends[g] {
			g++
			sh = append(sh, -1-int64(g))
		}
		prev = st
		f := int64(st.Prim)<<8 | stepFlags(st)
		if pi := st.Pat; pi != nil {
			f |= 16
			if pi.Acc {
				f |= 32
			}
			if pi.PostSend {
				f |= 64
			}
			if pi.PostRecv {
				f |= 128
			}
			sh = append(sh, int64(pi.RecvSlot), int64(pi.SendSlot))
		}
		sh = append(sh, f, st.Count, int64(len(st.Recv))<<32|int64(len(st.Send)))
		for k, peers := range [2][]algos.Peer{st.Recv, st.Send} {
			idx := pl.slotsOf(rp, peers, k)
			for j, p := range peers {
				sh = append(sh, int64(idx[j])<<8|int64(p.Kind))
				if (k == 0 && st.Prim == algos.PrimGather) || (k == 1 && st.Prim == algos.PrimScatter) {
					sh = append(sh, st.Pieces[j].Count)
				}
			}
		}
	}
	if run > 0 {
		sh = append(sh, runMark+run)
	}
	sh = append(sh, -1-int64(len(pl.ends)))
	pl.shape = sh
}

// runMark+k in a shape repeats the step before it k more times; no other
// element of a shape comes near it (counts, slots and flags are small or
// non-negative, group ends small negatives).
const runMark = math.MinInt64

// sameStep reports whether b's part of a shape is a's: the same
// primitive, flags and counts, and the same peer lists (one slice: the
// generators hand every loop the same peers, so the slots are a's too).
func sameStep(a, b *algos.Step) bool {
	if a.Prim != b.Prim || a.Count != b.Count || a.PreOp != b.PreOp || a.PostOp != b.PostOp ||
		(a.Src.Buf == algos.BufNone) != (b.Src.Buf == algos.BufNone) || (a.Dst.Buf == algos.BufNone) != (b.Dst.Buf == algos.BufNone) ||
		!samePeers(a.Recv, b.Recv) || !samePeers(a.Send, b.Send) {
		return false
	}
	if a.Pat != nil || b.Pat != nil {
		if a.Pat == nil || b.Pat == nil {
			return false
		}
		p, q := a.Pat, b.Pat
		if p.RecvSlot != q.RecvSlot || p.SendSlot != q.SendSlot || p.Acc != q.Acc || p.PostSend != q.PostSend || p.PostRecv != q.PostRecv {
			return false
		}
	}
	if a.Prim == algos.PrimGather || a.Prim == algos.PrimScatter {
		if len(a.Pieces) != len(b.Pieces) {
			return false
		}
		for j := range a.Pieces {
			if a.Pieces[j].Count != b.Pieces[j].Count {
				return false
			}
		}
	}
	return true
}

// samePeers reports whether two peer lists are one slice.
func samePeers(a, b []algos.Peer) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// shapeHash hashes pl.shape.
func (pl *planner) shapeHash() uint64 {
	sh := pl.shape
	// four lanes: one multiply chain over millions of steps is the cost
	var h [4]uint64
	i := 0
	for ; i+4 <= len(sh); i += 4 {
		for k := range h {
			h[k] = (h[k] ^ uint64(sh[i+k])) * 0x100000001b3
		}
	}
	for ; i < len(sh); i++ {
		h[0] = (h[0] ^ uint64(sh[i])) * 0x100000001b3
	}
	return mix(mix(mix(mix(uint64(len(sh)), int64(h[0])), int64(h[1])), int64(h[2])), int64(h[3]))
}

// planRank builds a rank's slots, slot groups and signature for channel
// ch. With templates on, a rank whose program has the shape of one planned
// before takes that plan with its own peers (exact: see planTemplate).
func (pl *planner) planRank(rank, ch int) rankPlan {
	s := pl.s
	// the slots are collected in a scratch buffer and kept (keep) once
	// the plan is known
	rp := rankPlan{slots: pl.scratch[:0]}
	defer func() { pl.scratch = rp.slots[:0] }()
	pl.gen++
	pl.lastPeers = [2]*algos.Peer{}
	pl.steps = pl.steps[:0]
	pl.ends = pl.ends[:0]
	for g := 0; g < s.NGroups; g++ {
		pl.steps = s.AppendProgram(pl.steps, rank, ch, g)
		pl.ends = append(pl.ends, len(pl.steps))
	}
	var hash uint64
	use := pl.templates && pl.misses <= 2*pl.hits+maxTemplates
	if use {
		pl.shapeOf(&rp)
		// neighbouring ranks mostly share a shape: the last one matched
		// is tried before the hash
		t := pl.last
		if t == nil || !slices.Equal(t.shape, pl.shape) {
			hash = pl.shapeHash()
			if t = pl.tmpl[hash]; t != nil && !slices.Equal(t.shape, pl.shape) {
				t = nil
			}
		}
		if t != nil {
			pl.hits++
			pl.last = t
			out := t.plan
			out.slots = pl.keep(t.plan.slots)
			for i := range out.slots {
				out.slots[i].peer = rp.slots[i].peer
			}
			return out
		}
	}
	rp = pl.planSteps(rp)
	if use {
		pl.misses++
	}
	if use && len(pl.tmpl) < maxTemplates {
		if pl.tmpl == nil {
			pl.tmpl = map[uint64]*planTemplate{}
		}
		if _, ok := pl.tmpl[hash]; !ok {
			pl.tmpl[hash] = &planTemplate{shape: slices.Clone(pl.shape), plan: rankPlan{sig: rp.sig, ngroups: rp.ngroups, seqGroups: rp.seqGroups, seqTotal: rp.seqTotal, slots: slices.Clone(rp.slots)}}
		}
	}
	out := rp
	out.slots = pl.keep(rp.slots)
	return out
}

// keep copies a plan's slots out of slabs shared by the plans (one
// allocation per few thousand slots, not one per rank; the slabs start
// small and double, so a small schedule allocates little); the copy has
// no room to grow into its neighbours.
func (pl *planner) keep(src []slotInfo) []slotInfo {
	if len(pl.slab) < len(src) {
		pl.slabN = min(4096, max(64, 2*pl.slabN))
		pl.slab = make([]slotInfo, max(pl.slabN, len(src)))
	}
	out := pl.slab[:len(src):len(src)]
	pl.slab = pl.slab[len(src):]
	copy(out, src)
	return out
}

// planSteps plans the program in pl.steps; rp may hold some of its slots
// already (peers only, in first-appearance order).
func (pl *planner) planSteps(rp rankPlan) rankPlan {
	// slots and where each is used
	for i := range pl.steps {
		st := &pl.steps[i]
		recvIdx := pl.slotsOf(&rp, st.Recv, 0)
		for j, p := range st.Recv {
			si := recvIdx[j]
			sp := &rp.slots[si]
			sp.recvs = true
			n := st.Count
			if st.Prim == algos.PrimGather {
				n = pl.s.PieceMoved(st, j)
			}
			sp.usage = mix(mix(sp.usage, int64(i)<<2|1), n)
			if p.Kind != algos.PeerRank {
				sp.recvBytes += pl.wire(n)
			}
		}
		sendIdx := pl.slotsOf(&rp, st.Send, 1)
		for j := range st.Send {
			si := sendIdx[j]
			sp := &rp.slots[si]
			sp.sends = true
			n := st.Count
			if st.Prim == algos.PrimScatter {
				n = pl.s.PieceMoved(st, j)
			}
			sp.usage = mix(mix(sp.usage, int64(i)<<2|2), n)
			sp.sendBytes += pl.wire(n)
		}
	}
	pl.seqShares(&rp)
	// groups: slots with equal usage and kind, numbered by first appearance
	for i := range rp.slots {
		rp.slots[i].group = -1
	}
	for i := range rp.slots {
		if rp.slots[i].group >= 0 {
			continue
		}
		rp.slots[i].group = rp.ngroups
		for j := i + 1; j < len(rp.slots); j++ {
			if rp.slots[j].group < 0 && rp.slots[j].usage == rp.slots[i].usage && rp.slots[j].peer.Kind == rp.slots[i].peer.Kind {
				rp.slots[j].group = rp.ngroups
			}
		}
		rp.ngroups++
	}
	// signature: steps with group ids for peers
	var sig uint64
	g := 0
	for i := range pl.steps {
		for g < len(pl.ends) && i >= pl.ends[g] {
			g++
			sig = mix(sig, -1-int64(g))
		}
		st := &pl.steps[i]
		sig = mix(sig, int64(st.Prim))
		sig = mix(sig, st.Count)
		f := stepFlags(st)
		sig = mix(sig, f)
		for k, peers := range [2][]algos.Peer{st.Recv, st.Send} {
			pl.gs = pl.gs[:0]
			for _, si := range pl.slotsOf(&rp, peers, k) {
				pl.gs = append(pl.gs, rp.slots[si].group)
			}
			if len(pl.gs) > 1 {
				slices.Sort(pl.gs)
			}
			for k, x := range pl.gs {
				if k == 0 || x != pl.gs[k-1] {
					sig = mix(sig, int64(x))
				}
			}
			sig = mix(sig, -9)
		}
		if pi := st.Pat; pi != nil {
			sig = mix(sig, int64(pi.RecvSlot))
			sig = mix(sig, int64(pi.SendSlot))
			f := int64(0)
			if pi.Acc {
				f |= 1
			}
			if pi.PostSend {
				f |= 2
			}
			if pi.PostRecv {
				f |= 4
			}
			sig = mix(sig, f)
		}
	}
	rp.sig = sig
	return rp
}

// seqShares sets the seqBytes of rp's slots and its seqGroups and
// seqTotal from the program in pl.steps, on a point-to-point schedule.
// There a thread group whose every step sends to one rank and receives
// nothing (a p2p send group: the send half of a batch slot's works, which
// NCCL's kernel runs batch after batch on a channel) has one connection
// busy at a time. The links' static shares count every connection as busy
// from start to end: a channel with works in two batches got half its
// link per connection, and one with three works beside channels with two
// was held to the pace of the two. A p2p send group's connections take
// instead, together, a weight in proportion to the group's bytes (analyze:
// against the mean of the rank's p2p send groups), each by its own bytes:
// a link the groups share is then divided as their bytes need, as it is
// over time when the less loaded channels finish first and leave it to
// the others. A slot that also sends in another kind of group keeps a
// whole weight.
func (pl *planner) seqShares(rp *rankPlan) {
	if f := pl.s.Func; f != spec.SendRecv && f != spec.AllToAll {
		return
	}
	part := make([]int64, len(rp.slots)) // per slot; -1: a whole weight
	in := make([]int, len(rp.slots))     // the group the slot sends in, + 1
	begin := 0
	for g, end := range pl.ends {
		steps := pl.steps[begin:end]
		begin = end
		seq, total := len(steps) > 0, int64(0)
		for i := range steps {
			st := &steps[i]
			if len(st.Recv) == 0 && len(st.Send) == 0 {
				continue // the self copy, between the sends
			}
			if len(st.Recv) > 0 || len(st.Send) != 1 || st.Send[0].Kind != algos.PeerRank {
				seq = false
				break
			}
			total += pl.wire(st.Count)
		}
		if seq && total > 0 {
			rp.seqGroups++
			rp.seqTotal += total
		}
		for i := range steps {
			st := &steps[i]
			for _, si := range pl.slotsOf(rp, st.Send, 1) {
				switch {
				case part[si] < 0:
				case !seq || total == 0 || in[si] != 0 && in[si] != g+1:
					// not a p2p send group's, or in two groups at once
					part[si] = -1
				default:
					part[si] += pl.wire(st.Count)
					in[si], rp.slots[si].seqGroup = g+1, total
				}
			}
		}
	}
	for si := range part {
		if part[si] > 0 {
			rp.slots[si].seqBytes = part[si]
		} else {
			rp.slots[si].seqGroup = 0
		}
	}
}

// planChannel plans every rank on channel ch. A circulant channel
// (Schedule.Circulant: PAT) plans rank 0 alone and reports circ: every
// other rank's plan is it with the peers rotated (shiftPlan). On a ring
// channel whose
// ranks run one program up to their neighbours (Schedule.UniformRing) with
// uniform set, rank 0 is planned and every other rank's plan is rank 0's
// with its slots pointing at its own neighbours: planning grows linearly
// with the ranks instead of with their square (a ring program has 2(n-1)
// steps per loop).
//
// A Ring Broadcast or Reduce channel (Schedule.RingChain) is planned from
// the chain's two ends and its second rank, whose plan is every other
// rank's with the rank's own neighbours, and reported as the chain
// solveChain solves.
func planChannel(pl *planner, ch int, uniform bool) (ranks []rankPlan, circ, shared bool, ring *ringRuns, chain *chainRuns) {
	s := pl.s
	if uniform && s.Circulant(ch) {
		return []rankPlan{pl.planRank(0, ch)}, true, true, nil, nil
	}
	ranks = make([]rankPlan, s.NRanks)
	nb, ok := s.UniformRing(ch)
	pl.templates = uniform
	var loops []algos.RingLoop
	var index func(int) int
	if uniform && !ok {
		if cindex, cnb, isChain := s.RingChain(ch); isChain {
			if chain = pl.planChain(ranks, ch, cindex, cnb); chain != nil {
				return ranks, false, false, nil, chain
			}
		}
		// an uneven Ring AllReduce: one program up to its neighbours and
		// the sizes of the chunks it moves
		loops, index, nb, ok = s.RingAllReduce(ch)
	}
	if !uniform || !ok {
		for r := range ranks {
			ranks[r] = pl.planRank(r, ch)
		}
		return ranks, false, false, nil, nil
	}
	p0 := pl.planRank(0, ch)
	prev0, next0 := nb(0)
	ranks[0] = p0
	var sent func(i int) int64
	if loops != nil {
		if ring = ringProgram(pl.steps, loops, index, s.NRanks); ring == nil {
			// not the ring the loops describe: plan every rank
			for r := 1; r < len(ranks); r++ {
				ranks[r] = pl.planRank(r, ch)
			}
			return ranks, false, false, nil, nil
		}
		sent = pl.ringSent(loops)
	}
	for r := 1; r < len(ranks); r++ {
		prev, next := nb(r)
		rp := pl.withNeighbours(&p0, prev0, next0, prev, next)
		if sent != nil {
			for i := range rp.slots {
				if sp := &rp.slots[i]; sp.peer.Kind == algos.PeerRank && sp.sends {
					sp.sendBytes = sent(index(r))
				}
			}
			// ranks of an uneven ring move different chunk sizes in
			// different steps: no two run one program (ringSent), and
			// the signature tells every rank apart
			rp.sig = mix(p0.sig, int64(r))
		}
		ranks[r] = rp
	}
	return ranks, false, loops == nil, ring, nil
}

// withNeighbours is p0, the plan of a rank whose ring neighbours are prev0
// and next0, as the plan of a rank running the same program with
// neighbours prev and next (its slots copied into the planner's slabs).
func (pl *planner) withNeighbours(p0 *rankPlan, prev0, next0, prev, next int) rankPlan {
	rp := *p0
	rp.slots = pl.keep(p0.slots)
	for i := range rp.slots {
		sp := &rp.slots[i]
		if sp.peer.Kind != algos.PeerRank {
			continue
		}
		switch int(sp.peer.ID) {
		case next0:
			sp.peer.ID = int32(next)
		case prev0:
			sp.peer.ID = int32(prev)
		}
	}
	return rp
}

// planChain plans a Ring Broadcast or Reduce channel whose ranks' chain
// indices are index and ring neighbours nb (Schedule.RingChain) into
// ranks: the chain's ends and its second rank are planned, and every other
// rank's plan is the second rank's with its own neighbours. It returns nil
// where a planned program is not the plain chain solveChain solves (the
// caller then plans every rank).
func (pl *planner) planChain(ranks []rankPlan, ch int, index func(int) int, nb func(int) (int, int)) *chainRuns {
	n := pl.s.NRanks
	pos := orderOf(n, index) // the rank at each chain index
	if pos == nil {
		return nil
	}
	cr := &chainRuns{index: index}
	planned := []int{0, n - 1}
	if n > 2 {
		planned = append(planned, 1)
	}
	for _, i := range planned {
		r := int(pos[i])
		ranks[r] = pl.planRank(r, ch)
		prev, next := nb(r)
		if !cr.program(pl.steps, i > 0, i < n-1, prev, next) {
			return nil
		}
	}
	if n > 2 {
		r1 := int(pos[1])
		prev1, next1 := nb(r1)
		for i := 2; i < n-1; i++ {
			r := int(pos[i])
			prev, next := nb(r)
			ranks[r] = pl.withNeighbours(&ranks[r1], prev1, next1, prev, next)
		}
	}
	return cr
}

// ringSent is, for an uneven Ring AllReduce channel of these loops, the
// wire bytes the rank at ring index i sends: in each loop, steps 0 to
// 2n-3 send chunks i-1, i-2, …, i-2n+2 (algos.RingAllReduceChunk), every
// chunk twice but chunks i and i+1 once.
func (pl *planner) ringSent(loops []algos.RingLoop) func(i int) int64 {
	n := pl.s.NRanks
	type loopWire struct {
		total int64
		w     []int64 // by chunk
	}
	lw := make([]loopWire, len(loops))
	for l, lp := range loops {
		w := make([]int64, n)
		for c := range w {
			w[c] = pl.wire(lp.Count(c))
			lw[l].total += w[c]
		}
		lw[l].w = w
	}
	return func(i int) int64 {
		var b int64
		for _, x := range lw {
			b += 2*x.total - x.w[i] - x.w[(i+1)%n]
		}
		return b
	}
}

// planKeys plans every distinct channel structure and groups the channels
// into classes by (structure, rotation, network rail).
func planKeys(s *algos.Schedule) []*chanClass {
	byKey := map[string]*keyPlan{}
	var order []string
	chKey := make([]string, s.NChannels)
	for c := 0; c < s.NChannels; c++ {
		k := s.ChannelKey(c)
		chKey[c] = k
		if _, ok := byKey[k]; !ok {
			byKey[k] = &keyPlan{rep: c, rot: s.ChannelRotation(c)}
			order = append(order, k)
		}
	}
	pl := &planner{s: s}
	for _, k := range order {
		kp := byKey[k]
		kp.ranks, kp.circ, kp.shared, kp.ring, kp.chain = planChannel(pl, kp.rep, true)
	}
	type ck struct {
		key       string
		netdev, d int
	}
	byClass := map[ck]*chanClass{}
	var classes []*chanClass
	for c := 0; c < s.NChannels; c++ {
		nd := s.NetDev(c)
		if s.NNodes == 1 || !useRail(s.Algo) {
			nd = -1 // the rail does not matter
		}
		kp := byKey[chKey[c]]
		k := ck{chKey[c], nd, s.ChannelRotation(c) - kp.rot}
		if cc, ok := byClass[k]; ok {
			cc.mult++
			cc.chans = append(cc.chans, chanRot{c, k.d})
			continue
		}
		cc := &chanClass{kp: kp, rep: c, netdev: k.netdev, d: k.d, mult: 1, h: &s.Header, chans: []chanRot{{c, k.d}}}
		for r := 0; r < s.NRanks; r++ {
			for _, sp := range cc.plan(r).slots {
				if p := cc.peerAt(r, sp.peer); p.Kind != algos.PeerRank && cc.eps.find(p) < 0 {
					cc.eps.add(p, s.Endpoint(c, p))
				}
			}
		}
		cc.eps.sort()
		byClass[k] = cc
		classes = append(classes, cc)
	}
	return classes
}

// endpoints are a channel class's offload endpoints with their members,
// in a stable order once sorted (kind, ID, connection), and an
// open-addressing index by peer (a map cost a large part of planning and
// refinement with an endpoint per node and head).
type endpoints struct {
	peers []algos.Peer
	ends  []algos.Endpoint
	tab   []int32 // index + 1, 0 = empty
}

// epHash keeps endpoints of neighbouring IDs (a node's heads, the next
// node's) in neighbouring entries: ranks are visited in order, and so are
// their endpoints.
func epHash(p algos.Peer) uint32 {
	return (uint32(p.ID)<<2 | uint32(p.Kind)&3) + uint32(p.Conn)*0x9e3779b1
}

// find is p's index, or -1.
func (e *endpoints) find(p algos.Peer) int32 {
	if len(e.tab) == 0 {
		return -1
	}
	mask := uint32(len(e.tab) - 1)
	for i := epHash(p) & mask; ; i = (i + 1) & mask {
		k := e.tab[i]
		if k == 0 {
			return -1
		}
		if e.peers[k-1] == p {
			return k - 1
		}
	}
}

// add appends an endpoint not there yet.
func (e *endpoints) add(p algos.Peer, ep algos.Endpoint) {
	e.peers = append(e.peers, p)
	e.ends = append(e.ends, ep)
	if 2*len(e.peers) > len(e.tab) {
		e.index()
		return
	}
	e.insert(int32(len(e.peers) - 1))
}

func (e *endpoints) insert(k int32) {
	mask := uint32(len(e.tab) - 1)
	i := epHash(e.peers[k]) & mask
	for e.tab[i] != 0 {
		i = (i + 1) & mask
	}
	e.tab[i] = k + 1
}

// index rebuilds the index, at most half full.
func (e *endpoints) index() {
	e.tab = make([]int32, max(16, 1<<bits.Len(uint(4*len(e.peers)))))
	for k := range e.peers {
		e.insert(int32(k))
	}
}

// sort orders the endpoints by kind, ID and connection.
func (e *endpoints) sort() {
	cmp := func(x, y algos.Peer) int {
		if x.Kind != y.Kind {
			return int(x.Kind) - int(y.Kind)
		}
		if x.ID != y.ID {
			return int(x.ID) - int(y.ID)
		}
		return int(x.Conn) - int(y.Conn)
	}
	if slices.IsSortedFunc(e.peers, cmp) {
		return
	}
	ord := make([]int32, len(e.peers))
	for i := range ord {
		ord[i] = int32(i)
	}
	slices.SortFunc(ord, func(i, j int32) int { return cmp(e.peers[i], e.peers[j]) })
	peers, ends := make([]algos.Peer, len(ord)), make([]algos.Endpoint, len(ord))
	for i, k := range ord {
		peers[i], ends[i] = e.peers[k], e.ends[k]
	}
	e.peers, e.ends = peers, ends
	e.index()
}

// get is p's membership.
func (e *endpoints) get(p algos.Peer) algos.Endpoint {
	if k := e.find(p); k >= 0 {
		return e.ends[k]
	}
	return algos.Endpoint{}
}

// flowSet accumulates flows by path with their weights. Paths are at most
// six links. Flows are added rank by rank (beginRank), and a path that
// holds one of the rank's GPU links (every path of today's fabric: a
// rank's sends start at its GPU, its receives end there) is looked up
// among the paths of that rank alone: a small open-addressing table that
// stays in cache (one large table cost a cache miss per new path, and
// this runs for millions of flows). One-link paths are indexed by their
// link; any other path goes to a table of all of them, and if there were
// any, merge folds the copies of a path that landed in both.
type flowSet struct {
	paths  [][6]int32
	weight []int64
	// near indexes the paths of the current rank (rank), a power of two
	// long, emptied by bumping nearGen
	near    []nearEntry
	nearGen uint32
	nearN   int
	rank    int32
	// single indexes the one-link paths by their link (flow id + 1): a
	// GPU's own NVLS and multicast flows, many per rank
	single []int32
	// table indexes the paths of no current rank (flow id + 1, 0 = empty);
	// foreign counts them
	table   []int32
	mask    uint64
	foreign int
	// the fabric's numbering: perNode links a node, the first gpus ×
	// gpuLinks of them its GPUs'
	perNode, gpus int32
}

type nearEntry struct {
	k   [6]int32
	id  int32
	gen uint32
}

// newFlowSet sizes the per-rank index for about perRank paths of a rank,
// and the paths for about hint.
func newFlowSet(f *fabric, hint, perRank int) *flowSet {
	return &flowSet{paths: make([][6]int32, 0, hint), weight: make([]int64, 0, hint),
		table: make([]int32, 64), mask: 63, nearGen: 1, single: make([]int32, len(f.cap)),
		near:    make([]nearEntry, min(1024, max(16, 1<<bits.Len(uint(2*perRank))))),
		perNode: int32(f.perNode), gpus: int32(f.m.GPUsPerNode)}
}

// beginRank starts adding rank r's flows.
func (fs *flowSet) beginRank(r int) {
	fs.nearGen++
	fs.nearN = 0
	fs.rank = int32(r)
}

// owner is the rank whose GPU link comes first in a path, or -1.
func (fs *flowSet) owner(k *[6]int32) int32 {
	for _, l := range k {
		if l < 0 {
			break
		}
		node, i := l/fs.perNode, l%fs.perNode
		if i < fs.gpus*gpuLinks {
			return node*fs.gpus + i/gpuLinks
		}
	}
	return -1
}

func hashPath(k *[6]int32) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range k {
		h ^= uint64(uint32(v))
		h *= 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	return h
}

// index rebuilds the table of foreign paths (ids given) at n entries.
func (fs *flowSet) index(n int, ids []int32) {
	fs.table = make([]int32, n)
	fs.mask = uint64(n - 1)
	for _, id := range ids {
		i := hashPath(&fs.paths[id]) & fs.mask
		for fs.table[i] != 0 {
			i = (i + 1) & fs.mask
		}
		fs.table[i] = id + 1
	}
}

// growNear doubles the per-rank index, keeping the current rank's paths.
func (fs *flowSet) growNear() {
	old := fs.near
	fs.near = make([]nearEntry, 2*len(old))
	nm := uint64(len(fs.near) - 1)
	for _, e := range old {
		if e.gen != fs.nearGen {
			continue
		}
		j := hashPath(&e.k) >> 40 & nm
		for fs.near[j].gen == fs.nearGen {
			j = (j + 1) & nm
		}
		fs.near[j] = e
	}
}

func (fs *flowSet) newPath(k *[6]int32, w int64) int32 {
	id := int32(len(fs.paths))
	fs.paths = append(fs.paths, *k)
	fs.weight = append(fs.weight, w)
	return id
}

func (fs *flowSet) add(path []int32, w int64) int32 {
	if len(path) == 1 && path[0] >= 0 {
		l := path[0]
		if e := fs.single[l]; e != 0 {
			fs.weight[e-1] += w
			return e - 1
		}
		k := [6]int32{l, -1, -1, -1, -1, -1}
		id := fs.newPath(&k, w)
		fs.single[l] = id + 1
		return id
	}
	var k [6]int32
	for i := range k {
		k[i] = -1
	}
	copy(k[:], path)
	h := hashPath(&k)
	if fs.owner(&k) == fs.rank {
		nm := uint64(len(fs.near) - 1)
		j := h >> 40 & nm
		for {
			e := &fs.near[j]
			if e.gen != fs.nearGen {
				break
			}
			if samePath(&e.k, &k) {
				fs.weight[e.id] += w
				return e.id
			}
			j = (j + 1) & nm
		}
		id := fs.newPath(&k, w)
		fs.near[j] = nearEntry{k: k, id: id, gen: fs.nearGen}
		if fs.nearN++; 2*fs.nearN > len(fs.near) {
			fs.growNear()
		}
		return id
	}
	i := h & fs.mask
	for {
		e := fs.table[i]
		if e == 0 {
			break
		}
		if samePath(&fs.paths[e-1], &k) {
			fs.weight[e-1] += w
			return e - 1
		}
		i = (i + 1) & fs.mask
	}
	id := fs.newPath(&k, w)
	fs.table[i] = id + 1
	if fs.foreign++; 2*fs.foreign > len(fs.table) {
		var ids []int32
		for _, e := range fs.table {
			if e != 0 {
				ids = append(ids, e-1)
			}
		}
		fs.index(2*len(fs.table), ids)
	}
	return id
}

// merge folds the copies of a path into its first flow (a path added
// as its owner's and again, at another rank, as a foreign one) and
// returns each old id's flow, or nil when no path can have two (no
// foreign path was added).
func (fs *flowSet) merge() []int32 {
	if fs.foreign == 0 {
		return nil
	}
	fs.index(max(64, 1<<bits.Len(uint(2*len(fs.paths)))), nil)
	to := make([]int32, len(fs.paths))
	var paths [][6]int32
	var weight []int64
	for id := range fs.paths {
		k := &fs.paths[id]
		i := hashPath(k) & fs.mask
		for {
			e := fs.table[i]
			if e == 0 {
				to[id] = int32(len(paths))
				fs.table[i] = int32(id + 1)
				paths = append(paths, *k)
				weight = append(weight, fs.weight[id])
				break
			}
			if samePath(&fs.paths[e-1], k) {
				to[id] = to[e-1]
				weight[to[id]] += fs.weight[id]
				break
			}
			i = (i + 1) & fs.mask
		}
	}
	fs.paths, fs.weight = paths, weight
	return to
}

func samePath(a, b *[6]int32) bool {
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3] && a[4] == b[4] && a[5] == b[5]
}

// linkScale returns the scale of the links' flow weights (shareDen, or
// less where a capacity that large would overflow maxMin's products) and
// the capacities scaled by it.
func linkScale(caps []int64) (int64, []int64) {
	den := int64(shareDen)
	for _, c := range caps {
		for den > 1 && c > math.MaxInt64/4/den {
			den /= 2
		}
	}
	out := make([]int64, len(caps))
	for i, c := range caps {
		out[i] = c * den
	}
	return den, out
}

// maxMin computes max-min fair rates of weighted flows over capacitated
// links by progressive filling: repeatedly find the links whose remaining
// capacity per unit of unfrozen weight is smallest, give every unfrozen
// flow crossing them that share, and remove it from every link it
// crosses. Arithmetic is integer (bytes/s), rates round down, so results
// are identical everywhere.
func maxMin(caps []int64, fs *flowSet) []int64 {
	nl := len(caps)
	rem := append([]int64(nil), caps...)
	wsum := make([]int64, nl)
	cnt := make([]int32, nl+1)
	for _, p := range fs.paths {
		for _, l := range p {
			if l >= 0 {
				cnt[l+1]++
			}
		}
	}
	for i := 1; i <= nl; i++ {
		cnt[i] += cnt[i-1]
	}
	adj := make([]int32, cnt[nl])
	fill := append([]int32(nil), cnt[:nl]...)
	var used []int32
	for f, p := range fs.paths {
		for _, l := range p {
			if l >= 0 {
				adj[fill[l]] = int32(f)
				fill[l]++
				if wsum[l] == 0 {
					used = append(used, l)
				}
				wsum[l] += fs.weight[f]
			}
		}
	}
	rate := make([]int64, len(fs.paths))
	for i := range rate {
		rate[i] = -1
	}
	less := func(a, b, c, d int64) bool { // a/b < c/d
		h1, l1 := bits.Mul64(uint64(a), uint64(d))
		h2, l2 := bits.Mul64(uint64(c), uint64(b))
		return h1 < h2 || (h1 == h2 && l1 < l2)
	}
	slices.Sort(used)
	left := len(fs.paths)
	for left > 0 {
		best := int32(-1)
		live := used[:0]
		for _, l := range used {
			if wsum[l] == 0 {
				continue
			}
			live = append(live, l)
			if best < 0 || less(rem[l], wsum[l], rem[best], wsum[best]) {
				best = l
			}
		}
		used = live
		if best < 0 {
			break
		}
		ba, bb := rem[best], wsum[best]
		level := ba / bb
		for _, l := range used {
			if wsum[l] == 0 || less(ba, bb, rem[l], wsum[l]) {
				continue
			}
			for _, f := range adj[cnt[l]:cnt[l+1]] {
				if rate[f] >= 0 {
					continue
				}
				rate[f] = level
				left--
				for _, m := range fs.paths[f] {
					if m >= 0 {
						rem[m] = max(0, rem[m]-level*fs.weight[f])
						wsum[m] -= fs.weight[f]
					}
				}
			}
		}
	}
	for i := range rate {
		if rate[i] < 0 {
			rate[i] = 0
		}
	}
	return rate
}

// analysis is the result of the planning passes.
type analysis struct {
	classes []*chanClass
	// group rates per class, rank and slot group: the slowest slot of the
	// group, per direction (0: the direction carries nothing)
	gSend, gRecv [][][]int64
	// gOvh is the proxy time each NET message a slot group sends holds
	// its step for (netMsgCost), per class, rank and group; nil where no
	// message has one
	gOvh      [][][]Time
	linkBytes []int64
	// lat is the latency of every slot of every rank, per class: rank r's
	// slot si at lat[ci][slotOff[ci][r]+si]
	lat     [][]Time
	slotOff [][]int32
	// direct marks, per slot as lat, the rank connections whose peer
	// writes straight into the registered user buffer (regDirect); nil
	// where nothing is registered
	direct [][]bool
	// flushed marks, per slot as lat, the rank connections whose received
	// steps the proxy flushes (fabric.hopFlush); nil where none does
	flushed [][]bool
	color   [][]uint64 // [class][rank]
	epColor [][]uint64 // [class][endpoint] (classes[ci].eps' order)
	ncolors []int
	f       *fabric
	s       *algos.Schedule
}

// useRail reports the algorithms whose inter-node hops follow the
// channel's network rail (NetDev); the others leave each GPU through its
// own NIC (NVLS heads, CollNetDirect heads).
func useRail(a spec.Algo) bool {
	switch a {
	case spec.NVLS, spec.NVLSTree, spec.CollNetDirect:
		return false
	}
	return true
}

// rail is the network rail class ci's inter-node hops use (-1: own NICs).
func (a *analysis) rail(ci int) int {
	if useRail(a.s.Algo) {
		return a.classes[ci].netdev
	}
	return -1
}

// slotLat is the latency of a message over a slot: the hop to a rank peer,
// or into and out of an offload engine.
func (a *analysis) slotLat(ci, r int, sp *slotInfo, buf []int32) Time {
	s := a.s
	switch sp.peer.Kind {
	case algos.PeerRank:
		p := a.classes[ci].peerAt(r, sp.peer)
		_, hop := a.f.path(buf[:0], r, int(p.ID), a.rail(ci))
		return a.f.hopLatency(hop, s.Algo, s.Proto)
	case algos.PeerNet:
		return a.f.hopLatency(hopSHARP, s.Algo, s.Proto)
	}
	return a.f.hopLatency(hopNVLS, s.Algo, s.Proto)
}

// netRecvFlush is what a step a slot receives from the CollNet network
// waits for beyond the latency before the GPU may read it: the receive
// proxy's flush (Machine.CollNetFlush; CollNet runs Simple). A slot that
// also sends to the network does not pay it on its sends.
func (a *analysis) netRecvFlush(sp *slotInfo) Time {
	if sp.recvs && sp.peer.Kind == algos.PeerNet && a.s.Proto == spec.Simple && a.f.m.CollNetFlush {
		return a.f.t.flush
	}
	return 0
}

// latOf is slotLat of rank r's slot si, computed once by analyze.
func (a *analysis) latOf(ci, r, si int) Time { return a.lat[ci][int(a.slotOff[ci][r])+si] }

// flushOf is what a step over rank r's slot si (to or from a rank peer)
// waits for at the receiver beyond latOf: the NET receive flush
// (fabric.hopFlush), paid once per step on its way to the receiver and
// not by the credit that comes back.
func (a *analysis) flushOf(ci, r, si int) Time {
	if a.flushed == nil || !a.flushed[ci][int(a.slotOff[ci][r])+si] {
		return 0
	}
	return a.f.t.flush
}

// slotFlows calls add for every flow of a slot: its send-direction flows
// (send true) and receive-direction flows (send false), with the wire
// bytes each carries on one channel.
func (a *analysis) slotFlows(ci, r int, sp *slotInfo, buf []int32, add func(path []int32, send bool, bytes int64)) []int32 {
	f := a.f
	cc := a.classes[ci]
	nd := a.rail(ci)
	peer := cc.peerAt(r, sp.peer)
	switch peer.Kind {
	case algos.PeerRank:
		if sp.sends {
			buf, _ = f.path(buf[:0], r, int(peer.ID), nd)
			add(buf, true, sp.sendBytes)
		}
	case algos.PeerNet:
		if sp.sends {
			buf = f.toNet(buf[:0], r, nd)
			add(buf, true, sp.sendBytes)
		}
		if sp.recvs {
			buf = f.fromNet(buf[:0], r, nd)
			add(buf, false, sp.recvBytes)
		}
	case algos.PeerNVLS:
		if sp.sends { // scatter into my own NVLS buffer: a local write
			add(append(buf[:0], f.gpuLink(r, 4)), true, sp.sendBytes)
		}
		if sp.recvs { // ld_reduce pulls every member's piece through the switch
			for _, mem := range cc.eps.get(peer).Senders {
				add(append(buf[:0], f.gpuLink(mem, 0)), false, sp.recvBytes)
			}
			add(append(buf[:0], f.gpuLink(r, 1)), false, sp.recvBytes)
		}
	case algos.PeerMcast:
		if sp.sends { // multimem.st: out of the head once, into every member
			add(append(buf[:0], f.gpuLink(r, 0)), true, sp.sendBytes)
			for _, mem := range cc.eps.get(peer).Receivers {
				add(append(buf[:0], f.gpuLink(mem, 1)), true, sp.sendBytes)
			}
		}
		if sp.recvs { // gather out of my own buffer: a local read
			add(append(buf[:0], f.gpuLink(r, 4)), false, sp.recvBytes)
		}
	}
	return buf
}

func analyze(s *algos.Schedule, f *fabric, tolerance float64) (*analysis, error) {
	a := &analysis{classes: planKeys(s), f: f, s: s}
	m := f.m
	a.linkBytes = make([]int64, len(f.cap))
	// flow ids of every (rank, class, slot, direction), in visiting
	// order, and how many flows each slot has. Rank by rank: a rank's
	// flows in every class are added together, so the paths it repeats
	// across classes (channels on one rail, links inside the node) are
	// found among its own (flowSet.near); the rates do not depend on the
	// order (maxMin).
	nc := len(a.classes)
	nslots := make([]int, nc)
	total := 0
	for ci, cc := range a.classes {
		nslots[ci] = cc.kp.slotCount(s.NRanks)
		total += nslots[ci]
	}
	// a rank adds about four flows per slot at most (an NVLS reduction
	// pulls from every member)
	fs := newFlowSet(f, total/max(1, nc), 4*total/max(1, s.NRanks)+8)
	ids := make([]int32, 0, total+total/4)
	dirs := make([]bool, 0, total+total/4)
	nflows := make([]int32, 0, total)
	var buf []int32
	a.lat = make([][]Time, nc)
	a.slotOff = make([][]int32, nc)
	nvl := make([][]bool, nc) // a rank slot over NVLink to another GPU
	// NET messages with a proxy cost (netMsgCost): the sending slots, and
	// the connections each rank's proxy thread serves
	var netSlots []netSlot
	var proxyConns []int64
	if f.t.loopMsg > 0 {
		proxyConns = make([]int64, s.NRanks)
	}
	if s.Proto == spec.Simple && (s.Reg == tuning.ChunkRegIPC || s.Reg == tuning.ChunkRegNet) {
		a.direct = make([][]bool, nc)
	}
	if f.hopFlush(hopNet, s.Proto) > 0 {
		a.flushed = make([][]bool, nc)
	}
	for ci := range a.classes {
		a.lat[ci] = make([]Time, 0, nslots[ci])
		nvl[ci] = make([]bool, 0, nslots[ci])
		a.slotOff[ci] = make([]int32, s.NRanks+1)
		if a.direct != nil {
			a.direct[ci] = make([]bool, 0, nslots[ci])
		}
		if a.flushed != nil {
			a.flushed[ci] = make([]bool, 0, nslots[ci])
		}
	}
	var cc *chanClass
	// weights are in 1/den of a connection (a p2p send group's are
	// fractions, seqShares), the capacities scaled alike: the rates of
	// whole weights are those of unscaled ones exactly (maxMin's levels
	// are quotients)
	den, caps := linkScale(f.cap)
	share := den
	add := func(path []int32, send bool, bytes int64) {
		// a connection that carries nothing in the whole
		// operation (an empty channel or head of a small
		// CollNet or NVLS operation) takes no share
		w := cc.mult * share
		if bytes == 0 {
			w = 0
		}
		ids = append(ids, fs.add(path, w))
		dirs = append(dirs, send)
		for _, l := range path {
			a.linkBytes[l] += bytes * cc.mult
		}
	}
	// per rank, the number of its p2p send groups and their bytes: a
	// group of their mean bytes has a whole connection's weight
	seqN, seqB := make([]int64, s.NRanks), make([]int64, s.NRanks)
	for r := 0; r < s.NRanks; r++ {
		for _, c := range a.classes {
			rp := c.plan(r)
			seqN[r] += int64(rp.seqGroups) * c.mult
			seqB[r] += rp.seqTotal * c.mult
		}
	}
	for r := 0; r < s.NRanks; r++ {
		fs.beginRank(r)
		for ci := range a.classes {
			cc = a.classes[ci]
			nd := a.rail(ci)
			rp := cc.plan(r)
			lats, nv := a.lat[ci], nvl[ci]
			for si := range rp.slots {
				sp := &rp.slots[si]
				n0 := len(ids)
				if sp.peer.Kind == algos.PeerRank {
					// the path once: its hop's latency, and the flow if it sends
					p := int(cc.peerAt(r, sp.peer).ID)
					var hop int
					buf, hop = f.path(buf[:0], r, p, nd)
					lats = append(lats, f.hopLatency(hop, s.Algo, s.Proto))
					nv = append(nv, hop == hopNVLink && p != r)
					if a.direct != nil {
						a.direct[ci] = append(a.direct[ci], regDirect(s.Reg, hop, p != r))
					}
					if a.flushed != nil {
						a.flushed[ci] = append(a.flushed[ci], f.hopFlush(hop, s.Proto) > 0)
					}
					if sp.sends {
						if share = den; sp.seqBytes > 0 && seqB[r] > 0 {
							// rounded up: a share never under the load
							share = max(1, int64(math.Ceil(float64(sp.seqBytes)*float64(seqN[r])*float64(den)/float64(seqB[r]))))
						}
						add(buf, true, sp.sendBytes)
						share = den
						if proxyConns != nil && hop == hopNet && sp.sendBytes > 0 {
							netSlots = append(netSlots, netSlot{int32(ci), int32(r), int32(p), sp.group})
							proxyConns[r] += cc.mult
							proxyConns[p] += cc.mult
						}
					}
				} else {
					lats = append(lats, a.slotLat(ci, r, sp, buf))
					nv = append(nv, false)
					if a.direct != nil {
						a.direct[ci] = append(a.direct[ci], false)
					}
					if a.flushed != nil {
						a.flushed[ci] = append(a.flushed[ci], false)
					}
					buf = a.slotFlows(ci, r, sp, buf, add)
				}
				nflows = append(nflows, int32(len(ids)-n0))
			}
			a.lat[ci], nvl[ci] = lats, nv
			a.slotOff[ci][r+1] = int32(len(lats))
		}
	}
	if to := fs.merge(); to != nil {
		for i, id := range ids {
			ids[i] = to[id]
		}
	}
	fs.table, fs.near, fs.single = nil, nil, nil // the paths are all known; free the indexes
	rates := maxMin(caps, fs)
	// idle paths move nothing at whatever rate: give them their slowest
	// link's capacity (a positive rate keeps "no bandwidth" for real gaps)
	for id, p := range fs.paths {
		if fs.weight[id] == 0 {
			r := int64(-1)
			for _, l := range p {
				if l >= 0 && (r < 0 || f.cap[l] < r) {
					r = f.cap[l]
				}
			}
			rates[id] = max(r, 0)
		}
	}
	capRate := f.t.capRate
	a.gSend = make([][][]int64, nc)
	a.gRecv = make([][][]int64, nc)
	slabs := make([][]int64, nc) // each class's group rates, from one slab
	for ci, cc := range a.classes {
		a.gSend[ci] = make([][]int64, s.NRanks)
		a.gRecv[ci] = make([][]int64, s.NRanks)
		slabs[ci] = make([]int64, 2*cc.kp.groupCount(s.NRanks))
	}
	// the first error in class order, as a pass class by class finds it
	var firstErr error
	errClass := nc
	pos, k := 0, 0
	for r := 0; r < s.NRanks; r++ {
		for ci, cc := range a.classes {
			rp := cc.plan(r)
			ng := int(rp.ngroups)
			gs, gr := slabs[ci][:ng:ng], slabs[ci][ng:2*ng:2*ng]
			slabs[ci] = slabs[ci][2*ng:]
			for si := range rp.slots {
				sp := &rp.slots[si]
				sendR, recvR := int64(-1), int64(-1)
				// the same visiting order as above
				for end := pos + int(nflows[k]); pos < end; pos++ {
					rt := rates[ids[pos]]
					if dirs[pos] {
						if sendR < 0 || rt < sendR {
							sendR = rt
						}
					} else if recvR < 0 || rt < recvR {
						recvR = rt
					}
				}
				k++
				switch sp.peer.Kind {
				case algos.PeerRank:
					if sp.seqBytes > 0 && seqB[r] > 0 {
						// a p2p send group's rate in proportion to its
						// bytes (seqShares): its time-averaged load is
						// its weight at the link's level
						sendR = int64(float64(sendR) * float64(sp.seqGroup) * float64(seqN[r]) / float64(seqB[r]))
					}
					if f.t.nvlinkEff != 1 && nvl[ci][int(a.slotOff[ci][r])+si] {
						sendR, recvR = scaleRate(sendR, f.t.nvlinkEff), scaleRate(recvR, f.t.nvlinkEff)
					}
				case algos.PeerNVLS, algos.PeerMcast:
					sendR, recvR = scaleRate(sendR, f.t.nvlsEff), scaleRate(recvR, f.t.nvlsEff)
				case algos.PeerNet:
					sendR, recvR = scaleRate(sendR, f.t.sharpEff), scaleRate(recvR, f.t.sharpEff)
				}
				if capRate > 0 {
					sendR, recvR = min(sendR, capRate), min(recvR, capRate)
				}
				sendR, recvR = scaleRate(sendR, f.t.rateScale), scaleRate(recvR, f.t.rateScale)
				if (sp.sends && sendR == 0) || (recvR == 0 && sp.recvs && sp.peer.Kind != algos.PeerRank) {
					if ci < errClass {
						firstErr, errClass = fmt.Errorf("rank %d talks to %v over a path with no bandwidth (machine %s lacks a link this schedule needs)", r, sp.peer, m.Name), ci
					}
					continue
				}
				g := sp.group
				if sendR > 0 && (gs[g] == 0 || sendR < gs[g]) {
					gs[g] = sendR
				}
				if recvR > 0 && (gr[g] == 0 || recvR < gr[g]) {
					gr[g] = recvR
				}
			}
			a.gSend[ci][r] = gs
			a.gRecv[ci][r] = gr
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if len(netSlots) > 0 {
		a.gOvh = make([][][]Time, nc)
		for ci := range a.classes {
			a.gOvh[ci] = make([][]Time, s.NRanks)
		}
		for _, ns := range netSlots {
			ov := a.gOvh[ns.ci]
			if ov[ns.r] == nil {
				ov[ns.r] = make([]Time, len(a.gSend[ns.ci][ns.r]))
			}
			ov[ns.r][ns.g] = max(ov[ns.r][ns.g], netMsgCost(f.t.loopMsg, proxyConns[ns.r], proxyConns[ns.p]))
		}
	}
	a.mergeClasses()
	a.refine(s, tolerance, true)
	return a, nil
}

// mergeClasses merges channel classes of one structure whose ranks, once
// the classes' rotations are undone, see the same plans, rates and
// latencies (typically the channels of symmetric network rails): they run
// the same timeline up to relabelling, so one is simulated for all.
func (a *analysis) mergeClasses() {
	h := &a.s.Header
	same := func(i, j int) bool {
		ci, cj := a.classes[i], a.classes[j]
		if ci.kp != cj.kp {
			return false
		}
		for r := 0; r < h.NRanks; r++ {
			ri := r
			if ci.d != cj.d {
				ri = h.RotateRank(r, ci.d-cj.d)
			}
			pi, pj := ci.plan(ri), cj.plan(r)
			if pi != pj || !slices.Equal(a.gSend[i][ri], a.gSend[j][r]) || !slices.Equal(a.gRecv[i][ri], a.gRecv[j][r]) {
				return false
			}
			if a.gOvh != nil && !slices.Equal(a.gOvh[i][ri], a.gOvh[j][r]) {
				return false
			}
			for si := range pj.slots {
				if a.latOf(i, ri, si) != a.latOf(j, r, si) || a.flushOf(i, ri, si) != a.flushOf(j, r, si) || a.stages(i, ri, si) != a.stages(j, r, si) {
					return false
				}
			}
		}
		return true
	}
	keep := make([]bool, len(a.classes))
	for i := range a.classes {
		keep[i] = true
		for j := 0; j < i; j++ {
			if keep[j] && same(j, i) {
				a.classes[j].mult += a.classes[i].mult
				a.classes[j].chans = append(a.classes[j].chans, a.classes[i].chans...)
				keep[i] = false
				break
			}
		}
	}
	var cls []*chanClass
	var gs, gr [][][]int64
	var ovh [][][]Time
	var lat [][]Time
	var off [][]int32
	var direct, flushed [][]bool
	for i, k := range keep {
		if k {
			if a.direct != nil {
				direct = append(direct, a.direct[i])
			}
			if a.flushed != nil {
				flushed = append(flushed, a.flushed[i])
			}
			cls = append(cls, a.classes[i])
			gs = append(gs, a.gSend[i])
			gr = append(gr, a.gRecv[i])
			if a.gOvh != nil {
				ovh = append(ovh, a.gOvh[i])
			}
			lat = append(lat, a.lat[i])
			off = append(off, a.slotOff[i])
		}
	}
	a.classes, a.gSend, a.gRecv, a.lat, a.slotOff = cls, gs, gr, lat, off
	if a.direct != nil {
		a.direct = direct
	}
	if a.flushed != nil {
		a.flushed = flushed
	}
	if a.gOvh != nil {
		a.gOvh = ovh
	}
}

// netSlot is a rank's sending slot group over NET to a peer.
type netSlot struct{ ci, r, p, g int32 }

// netMsgCost is what one NET message between pieces of one host holds its
// step for beyond its bytes: the proxy's time per message (NET/Socket
// without helper threads moves it on the proxy progress thread, a size
// header and the data over one socket) times the connections the busier of
// the two ends' proxy threads serves, since each thread visits its
// connections in turn (one proxy thread per GPU; one action per
// connection per visit).
// Ref: v2.28.9-1 src/transport/net_socket.cc ncclNetSocketGetNsockNthread
// (no helper thread unless AWS or GCP), ncclNetSocketTest (no task: the
// caller's thread moves the data on the control socket);
// src/transport/net.cc sendProxyProgress, recvProxyProgress.
func netMsgCost(per Time, senderConns, receiverConns int64) Time {
	return per * Time(max(senderConns, receiverConns))
}

// groupOvh is gOvh of class ci, rank r, group g (0: none).
// stages says whether a plain receive (recv, directRecv) from rank r's
// slot si copies its Simple step out of the connection's FIFO into the
// user buffer: NCCL's genericOp reads the FIFO and writes the output,
// unless the sender wrote straight into the registered output (a direct
// step on a registered connection, where srcs[0] == dsts[0] and the copy
// is skipped). LL and LL128 receives, whose lines are read in the same
// pass as the data arrives, are not charged.
//
// Ref: v2.28.9-1 src/device/prims_simple.h genericOp (DirectRecv skip),
// loadRecvConn (DirectWrite under ipcReg, NetRegMode under netReg)
func (a *analysis) stages(ci, r, si int) bool {
	if a.s.Proto != spec.Simple {
		return false
	}
	return a.direct == nil || !a.direct[ci][int(a.slotOff[ci][r])+si]
}

// regDirect says whether a connection over hop (to another rank) is one
// the task registered its buffers for, so its sender writes a direct step
// into the user buffer: IPC registration (G-REG-IPC-1, 2.23.4+) covers
// the P2P peers inside a node, the network's (G-REG-UB-1, 2.24.3+) the
// NET peers of the ring. Release differences are the decision's: the
// schedule's Reg is what NCCL registered at its release.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollBuffers (Ring:
// the P2P_READ/P2P_WRITE peers over IPC, the NCCL_DIRECT_NIC peers
// with the network)
func regDirect(reg tuning.ChunkReg, hop int, peer bool) bool {
	if !peer {
		return false
	}
	switch reg {
	case tuning.ChunkRegIPC:
		return hop != hopNet
	case tuning.ChunkRegNet:
		return hop == hopNet
	}
	return false
}

func (a *analysis) groupOvh(ci, r int, g int32) Time {
	if a.gOvh == nil || a.gOvh[ci][r] == nil {
		return 0
	}
	return a.gOvh[ci][r][g]
}

// quantize maps a rate to a bucket of relative width tol (0: exact).
func quantize(r int64, tol float64) int64 {
	if tol <= 0 || r <= 0 {
		return r
	}
	// buckets of constant relative width: floor(log(r)/log(1+tol))
	return int64(math.Floor(math.Log(float64(r)) / math.Log1p(tol)))
}

// multiset folds one element into an order-independent hash of a
// multiset: the sum and the xor of a strong mix of each element (refine's
// neighbours come in program order, which differs between ranks that are
// otherwise alike).
type multiset struct{ sum, xor uint64 }

func (m *multiset) add(k uint64) {
	k = mix(k, 0x5bd1e995)
	m.sum += k
	m.xor ^= k * 0x9e3779b97f4a7c15
}

// distinct counts distinct colours: an open-addressing set cleared by
// bumping a generation (refine counts once per iteration, and a ring can
// take as many iterations as it has ranks: a map cost most of refine).
type distinct struct {
	keys []uint64
	gen  []uint32
	cur  uint32
}

func (d *distinct) count(c []uint64) int {
	if n := 1 << bits.Len(uint(2*len(c))); len(d.keys) < n {
		d.keys, d.gen, d.cur = make([]uint64, n), make([]uint32, n), 0
	}
	d.cur++
	mask := uint64(len(d.keys) - 1)
	k := 0
	for _, x := range c {
		i := (x ^ x>>29) * 0x9e3779b97f4a7c15 >> 20 & mask
		for {
			if d.gen[i] != d.cur {
				d.gen[i], d.keys[i] = d.cur, x
				k++
				break
			}
			if d.keys[i] == x {
				break
			}
			i = (i + 1) & mask
		}
	}
	return k
}

// nb is one connection of a rank in refine: its peer (rank, or endpoint
// index) and what about the connection does not change between
// iterations.
type nb struct {
	peer   int32
	rank   bool
	static uint64 // slot group, the peer's group back, latency, kind
}

// distances is, for every rank, the length of the shortest path along
// connections (a rank to the peers and endpoints in its nbs, an endpoint
// to its members) from it to a rank of the rarest colour in col (the one
// of the lowest rank among the rarest), or -1 where there is none. The
// search runs backwards from those ranks.
func distances(col []uint64, nbs []nb, off []int32, neps int, members func(i int, f func(r int32))) []int32 {
	n := len(col)
	cnt := make(map[uint64]int32, 64)
	for _, c := range col {
		cnt[c]++
	}
	best := -1
	for r, c := range col {
		if best < 0 || cnt[c] < cnt[col[best]] {
			best = r
		}
	}
	// reversed edges: node v (ranks, then endpoints) is reached from rin[v]
	deg := make([]int32, n+neps+1)
	for r := 0; r < n; r++ {
		for _, x := range nbs[off[r]:off[r+1]] {
			v := int(x.peer)
			if !x.rank {
				v += n
			}
			deg[v+1]++
		}
	}
	for i := 0; i < neps; i++ {
		members(i, func(r int32) { deg[r+1]++ })
	}
	for v := 1; v < len(deg); v++ {
		deg[v] += deg[v-1]
	}
	rin := make([]int32, deg[len(deg)-1])
	fill := slices.Clone(deg[:len(deg)-1])
	for r := 0; r < n; r++ {
		for _, x := range nbs[off[r]:off[r+1]] {
			v := int(x.peer)
			if !x.rank {
				v += n
			}
			rin[fill[v]] = int32(r)
			fill[v]++
		}
	}
	for i := 0; i < neps; i++ {
		members(i, func(r int32) {
			rin[fill[r]] = int32(n + i)
			fill[r]++
		})
	}
	d := make([]int32, n+neps)
	for v := range d {
		d[v] = -1
	}
	var queue []int32
	if best >= 0 {
		for r, c := range col {
			if c == col[best] {
				d[r] = 0
				queue = append(queue, int32(r))
			}
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range rin[deg[v]:deg[v+1]] {
			if d[u] < 0 {
				d[u] = d[v] + 1
				queue = append(queue, u)
			}
		}
	}
	return d[:n]
}

// refine computes the symmetry classes of every channel class: the
// coarsest partition of ranks (and offload endpoints) that is equitable
// for the connection graph, starting from each rank's plan signature and
// rates (colour refinement). Ranks of one colour see the same program,
// rates and latencies and neighbours of the same colours, so they run the
// same timeline.
func (a *analysis) refine(s *algos.Schedule, tol float64, seed bool) {
	nc := len(a.classes)
	a.color = make([][]uint64, nc)
	a.epColor = make([][]uint64, nc)
	a.ncolors = make([]int, nc)
	var seen distinct
	count := seen.count
	for ci, cc := range a.classes {
		n := s.NRanks
		epList := cc.eps.peers // in a stable order
		// neighbours of every rank, flat: rank r's are nbs[off[r]:off[r+1]]
		off := make([]int32, n+1)
		nbs := make([]nb, 0, cc.kp.slotCount(n))
		col := make([]uint64, n)
		for r := 0; r < n; r++ {
			rp := cc.plan(r)
			h := mix(0, int64(rp.sig))
			for g := int32(0); g < rp.ngroups; g++ {
				h = mix(h, quantize(a.gSend[ci][r][g], tol))
				h = mix(h, quantize(a.gRecv[ci][r][g], tol))
				if a.gOvh != nil {
					h = mix(h, int64(a.groupOvh(ci, r, g)))
				}
			}
			col[r] = h
			for si, sp := range rp.slots {
				lat := a.latOf(ci, r, si)
				st := mix(mix(0, int64(sp.group)), int64(lat))
				if a.stages(ci, r, si) {
					st = mix(st, 3)
				}
				if fl := a.flushOf(ci, r, si); fl > 0 {
					st = mix(st, int64(fl))
				}
				peer := cc.peerAt(r, sp.peer)
				if peer.Kind == algos.PeerRank {
					p := int(peer.ID)
					rev := int32(-1)
					if pj := cc.slotOf(p, peer.Back(r)); pj >= 0 {
						rev = cc.plan(p).slots[pj].group
					}
					nbs = append(nbs, nb{peer: int32(p), rank: true, static: mix(mix(st, int64(rev)), 1)})
				} else {
					nbs = append(nbs, nb{peer: cc.eps.find(peer), static: mix(st, 2)})
				}
			}
			off[r+1] = int32(len(nbs))
		}
		// each endpoint's members with their slot group and role, once
		type member struct {
			r      int32
			static uint64
		}
		epOff := make([]int32, len(epList)+1)
		nm := 0
		for i := range cc.eps.ends {
			nm += len(cc.eps.ends[i].Senders) + len(cc.eps.ends[i].Receivers)
		}
		epMembers := make([]member, 0, nm)
		for i, p := range epList {
			e := &cc.eps.ends[i]
			for role, rs := range [2][]int{e.Senders, e.Receivers} {
				for _, r := range rs {
					g := int64(-1)
					if j := cc.slotOf(r, p); j >= 0 {
						g = int64(cc.plan(r).slots[j].group)
					}
					epMembers = append(epMembers, member{int32(r), mix(mix(0, g), int64(role+1))})
				}
			}
			epOff[i+1] = int32(len(epMembers))
		}
		// Seed each rank's colour with its distance to the rarest
		// starting colour: ranks the refinement would end up telling
		// apart anyway (the distance is constant on every class of the
		// coarsest equitable partition), told apart at once. A chain
		// (Ring Broadcast and Reduce) then settles in one iteration
		// instead of one per rank; the partition, and so every result,
		// is the same (TestRefineSeedKeepsPartition; seed false is the
		// plain refinement).
		if seed {
			dist := distances(col, nbs, off, len(epList), func(i int, f func(r int32)) {
				for _, mb := range epMembers[epOff[i]:epOff[i+1]] {
					f(mb.r)
				}
			})
			for r := range col {
				col[r] = mix(col[r], int64(dist[r]))
			}
		}
		epCol := make([]uint64, len(epList))
		prev := count(col)
		next := make([]uint64, n)
		for iter := 0; iter < n+2; iter++ {
			for i, p := range epList {
				var ms multiset
				for _, mb := range epMembers[epOff[i]:epOff[i+1]] {
					ms.add(col[mb.r] ^ mb.static)
				}
				epCol[i] = mix(mix(mix(0, int64(p.Kind)), int64(ms.sum)), int64(ms.xor))
			}
			for r := 0; r < n; r++ {
				var ms multiset
				for _, x := range nbs[off[r]:off[r+1]] {
					if x.rank {
						ms.add(col[x.peer] ^ x.static)
					} else {
						ms.add(epCol[x.peer] ^ x.static)
					}
				}
				next[r] = mix(mix(col[r], int64(ms.sum)), int64(ms.xor))
			}
			col, next = next, col
			k := count(col)
			if k == prev {
				break
			}
			prev = k
		}
		a.color[ci] = col
		a.ncolors[ci] = prev
		a.epColor[ci] = epCol
	}
}

// stepFlags packs what a step does besides moving data (its reduce-op
// pre/post stages and which buffers it touches) into four bits, for the
// shape and the signature that compare plans.
func stepFlags(st *algos.Step) int64 {
	f := int64(0)
	if st.PreOp {
		f |= 1
	}
	if st.PostOp {
		f |= 2
	}
	if st.Src.Buf != algos.BufNone {
		f |= 4
	}
	if st.Dst.Buf != algos.BufNone {
		f |= 8
	}
	return f
}
