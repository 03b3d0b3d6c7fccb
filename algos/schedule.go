package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Step is one primitive call of one thread group of one rank on one
// channel. The steps of a (rank, channel, group) program run in order; the
// groups of a channel run concurrently (NCCL splits a channel's threads
// into groups that each drive their own Primitives: Tree's reduce-up and
// broadcast-down halves, CollNet's and NVLS's scatter, reduce, broadcast
// and gather warps). A step's receives match the sends of its peers first
// in, first out per connection, exactly as NCCL's FIFO steps do, so the
// dependencies of a schedule follow from its programs (Deps computes them;
// the text form prints them so a reader sees them).
type Step struct {
	Prim Prim
	// Recv lists the peers data is received from, in the order the reduction
	// combines them (after Src). Send lists where the result goes.
	Recv []Peer
	Send []Peer
	// Src is the rank's own data read by the step, Dst what it writes. Both
	// have Count elements when set.
	Src, Dst Chunk
	// Count is the number of elements of every message the step sends or
	// receives; for Scatter and Gather, whose messages are the pieces, it
	// is the sum of the piece counts.
	Count int64
	// Pieces are the per-peer ranges of a Scatter (read, sent to Send[i]) or
	// a Gather (received from Recv[i], written); a piece may be empty.
	Pieces []Chunk
	// PreOp applies the reduction's pre-operation (ncclAvg and
	// ncclRedOpCreatePreMulSum multiply by a scalar) to the rank's own
	// input as it enters the step; PostOp applies the post-operation (the
	// integer ncclAvg divides by nRanks) to the result.
	PreOp, PostOp bool
	// Direct marks NCCL's direct variants (the peer reads or writes the
	// user buffer itself); it changes no data, only how NCCL moves it.
	Direct bool
	// Pat describes a PAT step's use of FIFO slots (nil for other
	// primitives).
	Pat *PatInfo
}

// PatInfo is how a PAT step uses the connection FIFO (patReduce and
// patCopy of src/device/prims_simple.h): several steps fill one slot at
// different offsets before one of them posts it, so a PAT message is a
// posted slot, not a step.
type PatInfo struct {
	// RecvSlot and SendSlot are how many slots past the connection's
	// current one the step reads or writes (stepOffset); RecvOffset and
	// SendOffset are the region's start inside the slot, in units.
	RecvSlot, SendSlot     int
	RecvOffset, SendOffset int64
	// Acc (ReduceScatter) says the destination region already holds a
	// partial result that the step adds to instead of starting from Src.
	Acc bool
	// PostSend completes the send slot (the peer may now read it);
	// PostRecv releases the slot read (the next receive reads the next
	// slot).
	PostSend, PostRecv bool
}

// sendsMessage reports whether a send of this step completes a message.
func (s *Step) sendsMessage() bool {
	if s.Pat != nil {
		return s.Pat.PostSend
	}
	return true
}

// consumesMessage reports whether a receive of this step releases the
// message it read.
func (s *Step) consumesMessage() bool {
	if s.Pat != nil {
		return s.Pat.PostRecv
	}
	return true
}

// recvSlot is how far past the connection's next unconsumed message the
// step reads.
func (s *Step) recvSlot() int {
	if s.Pat != nil {
		return s.Pat.RecvSlot
	}
	return 0
}

// messageCount is the element count of the i-th message the step sends or
// receives.
func (s *Step) messageCount(i int) int64 {
	if s.Prim == PrimScatter || s.Prim == PrimGather {
		if i < len(s.Pieces) {
			return s.Pieces[i].Count
		}
		return 0
	}
	return s.Count
}

// Header describes a schedule: the operation, the communicator's shape and
// the protocol's FIFO geometry the steps were cut with.
type Header struct {
	Release  spec.Version
	Func     spec.Func
	Algo     spec.Algo
	Proto    spec.Proto
	DataType spec.DataType
	RedOp    spec.RedOp
	Root     int
	// Count is the API count: sendcount for AllGather, recvcount for
	// ReduceScatter, count otherwise (per peer for SendRecv).
	Count      int64
	NRanks     int
	NNodes     int
	LocalRanks int
	NChannels  int
	// NGroups is the number of concurrent thread groups per channel whose
	// programs the schedule holds (1 for Ring; more where NCCL splits a
	// channel's warps).
	NGroups int
	InPlace bool
	// Unit is the byte size of one schedule element: 1 for AllGather and
	// Broadcast (NCCL converts them to int8, src/enqueue.cc collTaskAppend),
	// the datatype's size otherwise.
	Unit int
	// SlicePerChunk and StepPerSlice are ProtoSimple's template arguments
	// (chunkSteps/sliceSteps for Ring, 1/1 otherwise); LL and LL128 move
	// one FIFO step per call. StepBytes is the FIFO step size
	// (buffSize/NCCL_STEPS) and NSteps is NCCL_STEPS, the FIFO depth.
	SlicePerChunk int
	StepPerSlice  int
	StepBytes     int
	NSteps        int
	// Reg is the registration NCCL made of the buffers (the decision's
	// G-REG-* rules): with IPC or the network's, a registered peer
	// writes a direct step straight into the user buffer.
	Reg tuning.ChunkReg
}

// NVLSUserBuffers says the task's user buffers are bound to the NVLS
// multicast object (NVLS registration, G-REG-UB-1): the switch's
// multimem.ld_reduce reads every rank's input and its multimem.st writes
// every rank's output where they are, so NCCL's scatter into the rank's
// NVLS buffer and gather out of it move nothing (nelem 0, or the
// Scatterer's early return); the steps stay, for the flags they post and
// wait on. The same in every release that registers NVLS buffers
// (2.19.1+): which tasks are registered is the decision's.
//
// Ref: v2.28.9-1 src/device/all_reduce.h RunWorkColl<AllReduce, NVLS> and
// <AllReduce, NVLS_TREE> (nelem = regUsed ? 0 : ...), all_gather.h and
// reduce_scatter.h RunWorkColl<*, NVLS> (the regUsed branches of oneNode,
// Scatterer's "if (work->regUsed) return"); v2.19.1-1 the same in
// RunWorkElement
func (h *Header) NVLSUserBuffers() bool {
	return h.Reg == tuning.ChunkRegNVLS && (h.Algo == spec.NVLS || h.Algo == spec.NVLSTree)
}

// CollNetUserBuffers says the CollNet network reads and writes the task's
// user buffers itself (the network's registration of a CollNet task,
// netRegUsed, G-REG-COLLNET-1, on one rank per node, isOneRPN): the
// kernel only notifies the proxy (sendPeerNotify, recvPeerNotify) and
// the proxy hands the plugin the user buffers, so no step is copied into
// or out of a connection's FIFO; a step received from the network is
// the user's output as it lands. With several ranks per node the kernel
// still moves the node's data through the FIFO (the proxy registers only
// one side), which the schedule keeps. Which tasks are registered, and
// from which release, is the decision's.
//
// Ref: v2.28.9-1 src/device/all_reduce.h RunWorkColl<AllReduce,
// COLLNET_DIRECT> and <AllReduce, COLLNET_CHAIN>, all_gather.h and
// reduce_scatter.h RunWorkColl<*, COLLNET_DIRECT> (the netRegUsed
// branches); src/transport/coll_net.cc collNetRegIallreduce,
// collNetRegIallgather, collNetRegIreducescatter (isOneRPN)
func (h *Header) CollNetUserBuffers() bool {
	return h.Reg == tuning.ChunkRegCollNet && h.Algo.IsCollNet() && h.NRanks == h.NNodes
}

// PieceMoved is the elements piece i of a Scatter or Gather step moves
// through its peer's buffer: the piece's count, or 0 where that buffer is
// the user's own (NVLSUserBuffers); the data is the same either way.
func (h *Header) PieceMoved(st *Step, i int) int64 {
	if h.NVLSUserBuffers() {
		return 0
	}
	return st.Pieces[i].Count
}

// InputCount and OutputCount are the sizes of a rank's user buffers in
// schedule units (NCCL's ncclFuncSendCount / ncclFuncRecvCount).
func (h *Header) InputCount() int64 {
	switch h.Func {
	case spec.ReduceScatter:
		return h.Count * int64(h.NRanks) * h.unitsPerElem()
	case spec.AllToAll:
		return h.Count * int64(h.NRanks) * h.unitsPerElem()
	}
	return h.Count * h.unitsPerElem()
}

// OutputCount: see InputCount.
func (h *Header) OutputCount() int64 {
	switch h.Func {
	case spec.AllGather, spec.AllToAll:
		return h.Count * int64(h.NRanks) * h.unitsPerElem()
	}
	return h.Count * h.unitsPerElem()
}

// unitsPerElem is how many schedule units one API element occupies.
func (h *Header) unitsPerElem() int64 {
	if h.Unit <= 0 {
		return 1
	}
	return int64(h.DataType.Size() / h.Unit)
}

// InPlaceBases says where a rank's input and output start inside the one
// buffer an in-place operation uses (NCCL's convention: AllGather's sendbuff
// is recvbuff + rank*sendcount, ReduceScatter's recvbuff is sendbuff +
// rank*recvcount, the others share the start). The buffer has
// max(InputCount, OutputCount) units.
func (h *Header) InPlaceBases(rank int) (inBase, outBase int64) {
	n := h.Count * h.unitsPerElem()
	switch h.Func {
	case spec.AllGather:
		return int64(rank) * n, 0
	case spec.ReduceScatter:
		return 0, int64(rank) * n
	}
	return 0, 0
}

// RailPos is the buffer position of position v of local rank local's rail
// view (see Chunk): element v mod count of the block of rank (v/count,
// local), count being the per-rank count in schedule units.
func (h *Header) RailPos(local int, v int64) int64 {
	n := h.Count * h.unitsPerElem()
	if n <= 0 {
		return 0
	}
	return ((v/n)*int64(h.LocalRanks)+int64(local))*n + v%n
}

// Segments calls f for each contiguous piece of the buffer a chunk covers,
// in chunk order: the chunk itself for a plain range, one piece per node
// block crossed for a rail chunk. at is the piece's first position within
// the chunk.
func (h *Header) Segments(c Chunk, f func(at, off, n int64)) {
	l, ok := c.RailLocal()
	if !ok || c.Count <= 0 {
		if c.Count > 0 {
			f(0, c.Offset, c.Count)
		}
		return
	}
	blk := h.Count * h.unitsPerElem()
	for at := int64(0); at < c.Count; {
		v := c.Offset + at
		n := min(c.Count-at, blk-v%blk)
		f(at, h.RailPos(l, v), n)
		at += n
	}
}

// Endpoint is an offload engine's membership on one channel: the ranks that
// send into it and the ranks that receive from it, in the order the engine
// combines contributions, and what it does with them.
type Endpoint struct {
	Senders   []int
	Receivers []int
	Op        EndpointOp
}

// EndpointOp is what an offload endpoint does with the k-th message of
// every sender to make the k-th message of every receiver.
type EndpointOp uint8

const (
	// EndpointReduce: every receiver gets the element-wise reduction of the
	// senders' messages, all of one length (SHARP's iallreduce, the
	// NVSwitch's multimem.ld_reduce); a multicast endpoint (PeerMcast) has
	// one sender and delivers its message.
	EndpointReduce EndpointOp = iota
	// EndpointAllGather: every receiver gets the senders' messages
	// concatenated in sender order (CollNet's iallgather: each node's part
	// of the window, some of them empty). Ref: v2.28.9-1
	// src/transport/coll_net.cc collNetIallgather.
	EndpointAllGather
	// EndpointReduceScatter: the senders' messages, all of one length, are
	// reduced, and the receivers take consecutive slices of the result in
	// receiver order, each as long as its own message (CollNet's
	// ireducescatter: each node receives its part of the window). Ref:
	// v2.28.9-1 src/transport/coll_net.cc collNetIreducescatter.
	EndpointReduceScatter
	numEndpointOps
)

var endpointOpNames = [numEndpointOps]string{"reduce", "allgather", "reducescatter"}

func (o EndpointOp) String() string {
	if o < numEndpointOps {
		return endpointOpNames[o]
	}
	return fmt.Sprintf("EndpointOp(%d)", int(o))
}

// parseEndpointOp is the inverse of String.
func parseEndpointOp(s string) (EndpointOp, error) {
	for i, n := range endpointOpNames {
		if s == n {
			return EndpointOp(i), nil
		}
	}
	return 0, fmt.Errorf("endpoint op %q: expected one of %v", s, endpointOpNames)
}

// Schedule is a collective as per-rank, per-channel programs of steps. A
// schedule is either explicit (parsed, or built for a small communicator)
// or generated on demand: Program builds the steps of one (rank, channel)
// when asked, so a 100,000-rank schedule never exists in memory at once.
type Schedule struct {
	Header
	// explicit programs, (rank*NChannels+channel)*NGroups+group; nil when
	// generated
	progs [][]Step
	gen   generator
	// explicit endpoint table for parsed schedules
	eps map[epKey]Endpoint
	// netDev per channel (nil: channel c uses rail c mod LocalRanks)
	netDev []int
}

// NetDev is the network rail channel ch crosses nodes on (Layout.NetDev).
func (s *Schedule) NetDev(ch int) int {
	if ch >= 0 && ch < len(s.netDev) {
		return s.netDev[ch]
	}
	return ch % max(1, s.LocalRanks)
}

type epKey struct {
	ch   int
	peer Peer
}

// generator builds programs and endpoint memberships on demand.
type generator interface {
	program(rank, ch, group int, dst []Step) []Step
	endpoint(ch int, p Peer) Endpoint
	// channelKey returns equal values for channels whose programs are equal
	// for every rank up to buffer offsets.
	channelKey(ch int) string
}

// Program returns the steps of group g of rank on channel ch. The slice
// is freshly built for generated schedules and shared for explicit ones: do
// not modify it.
func (s *Schedule) Program(rank, ch, g int) []Step {
	return s.AppendProgram(nil, rank, ch, g)
}

// progIndex is the index of a program in an explicit schedule.
func (h *Header) progIndex(rank, ch, g int) int { return (rank*h.NChannels+ch)*h.NGroups + g }

// AppendProgram appends the steps of (rank, ch, g) to dst; hot loops reuse dst.
func (s *Schedule) AppendProgram(dst []Step, rank, ch, g int) []Step {
	if rank < 0 || rank >= s.NRanks || ch < 0 || ch >= s.NChannels || g < 0 || g >= s.NGroups {
		return dst
	}
	if s.progs != nil {
		return append(dst, s.progs[s.progIndex(rank, ch, g)]...)
	}
	if s.gen == nil {
		return dst
	}
	return s.gen.program(rank, ch, g, dst)
}

// Endpoint returns the membership of an offload endpoint on channel ch.
func (s *Schedule) Endpoint(ch int, p Peer) Endpoint {
	if p.Kind == PeerRank {
		return Endpoint{}
	}
	if s.eps != nil {
		return s.eps[epKey{ch, p}]
	}
	if s.gen == nil {
		return Endpoint{}
	}
	return s.gen.endpoint(ch, p)
}

// ChannelKey is equal for two channels whose programs are equal on every
// rank except for buffer offsets (same peers, primitives and counts) once
// each channel's local ranks are rotated back by its ChannelRotation, so a
// timing model may plan one and map it onto the others.
func (s *Schedule) ChannelKey(ch int) string {
	if s.gen != nil {
		return s.gen.channelKey(ch)
	}
	return fmt.Sprintf("explicit/%d", ch)
}

// ChannelRotation is k when channel ch runs the programs of a channel with
// the same key and rotation 0 with every rank's local index shifted by k:
// rank (node, l) of ch does what rank (node, (l-k) mod LocalRanks) does
// there, with every peer (node', l') shifted to (node', (l'+k) mod
// LocalRanks). Ring, Tree and CollNetChain channels whose orders are
// rotations of the local ranks in order report the rotation; others 0.
func (s *Schedule) ChannelRotation(ch int) int {
	type rotator interface{ channelRotation(ch int) int }
	if r, ok := s.gen.(rotator); ok {
		return r.channelRotation(ch)
	}
	return 0
}

// UniformRing reports whether every rank's programs on channel ch are one
// program up to the rank's ring neighbours and buffer offsets (the same
// steps, primitives, counts and flags; receives from the previous rank of
// the channel's ring, sends to the next), and if so gives the neighbours.
// A timing model then plans one rank of the channel for all.
func (s *Schedule) UniformRing(ch int) (neighbours func(rank int) (prev, next int), ok bool) {
	type ring interface {
		uniformRing(ch int) bool
		ringNeighbours(ch, rank int) (prev, next int)
	}
	r, isRing := s.gen.(ring)
	if !isRing || ch < 0 || ch >= s.NChannels || s.NGroups != 1 || !r.uniformRing(ch) {
		return nil, false
	}
	return func(rank int) (int, int) { return r.ringNeighbours(ch, rank) }, true
}

// RingAllReduce reports whether channel ch is a Ring AllReduce channel
// (one thread group), and if so gives its loops, each rank's ring index
// and its neighbours: every rank runs the same steps (primitives, flags,
// peers RingPrev and RingNext) and the rank at ring index i moves, at step
// t of a loop, the loop's chunk RingAllReduceChunk(i, t, n). Where a loop's
// chunks are uneven (UniformRing is false) a timing model can still solve
// the channel in runs of ranks.
func (s *Schedule) RingAllReduce(ch int) (loops []RingLoop, index func(rank int) int, neighbours func(rank int) (prev, next int), ok bool) {
	g, isRing := s.gen.(*ringGen)
	if !isRing || ch < 0 || ch >= s.NChannels || s.NGroups != 1 || s.Func != spec.AllReduce {
		return nil, nil, nil, false
	}
	return g.ringLoops(ch), func(rank int) int { return g.l.RingIndex(ch, rank) },
		func(rank int) (int, int) { return g.ringNeighbours(ch, rank) }, true
}

// RingChain reports whether channel ch is a Ring Broadcast or Reduce
// channel (one thread group), and if so gives each rank's index along the
// chain its data takes, from the rank that only sends (Broadcast: the
// root; Reduce: the rank after it) to the rank that only receives (the
// rank before the root; the root), and the ranks' ring neighbours. Every
// rank runs the same steps with the same counts; the others receive from
// RingPrev and send to RingNext in each, and run one program up to their
// neighbours and buffer offsets. A timing model can then plan three ranks
// of the channel for all and solve the chain rank by rank.
func (s *Schedule) RingChain(ch int) (index func(rank int) int, neighbours func(rank int) (prev, next int), ok bool) {
	g, isRing := s.gen.(*ringGen)
	if !isRing || ch < 0 || ch >= s.NChannels || s.NGroups != 1 || s.NRanks < 2 || (s.Func != spec.Broadcast && s.Func != spec.Reduce) {
		return nil, nil, false
	}
	first := s.Root
	if s.Func == spec.Reduce {
		first = g.l.RingNext(ch, s.Root)
	}
	n, at := s.NRanks, g.l.RingIndex(ch, first)
	return func(rank int) int { return (g.l.RingIndex(ch, rank) - at + n) % n },
		func(rank int) (int, int) { return g.ringNeighbours(ch, rank) }, true
}

// Circulant reports whether every rank's programs on channel ch are rank
// 0's with each rank peer p replaced by (p + rank) mod NRanks (the same
// steps, primitives, counts and flags, buffer offsets aside): the channel
// is invariant under rotating every rank by one. A timing model then plans
// rank 0 of the channel for all.
func (s *Schedule) Circulant(ch int) bool {
	type circulant interface{ circulant(ch int) bool }
	c, ok := s.gen.(circulant)
	return ok && ch >= 0 && ch < s.NChannels && c.circulant(ch)
}

// RotateRank shifts a rank's local index by k within its node.
func (h *Header) RotateRank(rank, k int) int {
	g := h.LocalRanks
	n, l := rank/g, rank%g
	return n*g + ((l+k)%g+g)%g
}

// ChunkCounts returns each channel's chunk size in schedule units (the
// chunk calcCollChunking chose; for CollNet, the chunk every channel
// strides by), or nil for explicit schedules. Two sizes of one operation
// whose schedules have the same channels and chunks differ only in how
// much each loop moves.
func (s *Schedule) ChunkCounts() []int64 {
	type chunker interface{ chunks() []int64 }
	if c, ok := s.gen.(chunker); ok {
		return c.chunks()
	}
	return nil
}

// Explicit reports whether every program is held in memory.
func (s *Schedule) Explicit() bool { return s.progs != nil }

// Materialize returns an explicit copy of a generated schedule (for
// printing, editing in tests, and the data plane).
func (s *Schedule) Materialize() *Schedule {
	if s.progs != nil {
		return s
	}
	out := &Schedule{Header: s.Header, progs: make([][]Step, s.NRanks*s.NChannels*s.NGroups), eps: map[epKey]Endpoint{}, netDev: s.netDev}
	for r := 0; r < s.NRanks; r++ {
		for c := 0; c < s.NChannels; c++ {
			for g := 0; g < s.NGroups; g++ {
				prog := s.Program(r, c, g)
				out.progs[s.progIndex(r, c, g)] = prog
				for _, st := range prog {
					for _, peers := range [2][]Peer{st.Recv, st.Send} {
						for _, p := range peers {
							if p.Kind == PeerRank {
								continue
							}
							k := epKey{c, p}
							if _, ok := out.eps[k]; !ok {
								out.eps[k] = s.Endpoint(c, p)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// NumSteps returns the total number of steps (walks every program).
func (s *Schedule) NumSteps() int {
	n := 0
	var buf []Step
	for r := 0; r < s.NRanks; r++ {
		for c := 0; c < s.NChannels; c++ {
			for g := 0; g < s.NGroups; g++ {
				buf = s.AppendProgram(buf[:0], r, c, g)
				n += len(buf)
			}
		}
	}
	return n
}

// NewExplicit builds an explicit schedule from programs indexed
// (rank*NChannels+channel)*NGroups+group and the endpoint memberships they
// use; it checks the result with Validate.
func NewExplicit(h Header, progs [][]Step, eps map[int]map[Peer]Endpoint) (*Schedule, error) {
	if h.NRanks <= 0 || h.NChannels < 0 || h.NGroups <= 0 {
		return nil, fmt.Errorf("schedule: %d ranks, %d channels, %d groups: expected at least one rank and one group", h.NRanks, h.NChannels, h.NGroups)
	}
	if len(progs) != h.NRanks*h.NChannels*h.NGroups {
		return nil, fmt.Errorf("schedule: %d programs for %d ranks × %d channels × %d groups", len(progs), h.NRanks, h.NChannels, h.NGroups)
	}
	s := &Schedule{Header: h, progs: progs, eps: map[epKey]Endpoint{}}
	for c, m := range eps {
		for p, e := range m {
			s.eps[epKey{c, p}] = e
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}
