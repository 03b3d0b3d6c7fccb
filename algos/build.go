package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Selection is what runs: the algorithm and protocol a Decision chose and
// the channel count of the operation (topoGetAlgoInfo's nc, NCCL's
// nMaxChannels for the task).
type Selection struct {
	Algo  spec.Algo
	Proto spec.Proto
	// NChannels of the operation; 0 means Channels' default for the
	// layout and size.
	NChannels int
	// NThreads of the operation (topoGetAlgoInfo's nThreads); 0 when
	// unknown. Only the 2.20.3–2.21.5 split of an LL or LL128 operation
	// reads it (its grain scales with the threads).
	NThreads int
	// Part is the channel split a group plan gave the operation
	// (spec.Decision.Part): its channels and the elements of each; nil
	// splits the operation alone over NChannels (CollPartition).
	Part *tuning.CBDPart
	// Chunk is what calcCollChunking read beyond the split
	// (spec.Decision.ChunkArgs): the buffers' registration and, before
	// 2.22.3, the bytes and channels of the task's one call; zero sizes
	// the operation as one alone on unregistered buffers.
	Chunk tuning.ChunkArgs
}

func (s Selection) String() string {
	if s.Part != nil {
		return fmt.Sprintf("%s/%s ch=%s", s.Algo, s.Proto, spec.ChannelRange(s.Part.Lo, s.Part.Hi))
	}
	return fmt.Sprintf("%s/%s ch=%d", s.Algo, s.Proto, s.NChannels)
}

// Options are properties of the call that are not part of the Decision.
type Options struct {
	// InPlace runs the operation in place (NCCL's sendbuff/recvbuff
	// aliasing; see Header.InPlaceBases).
	InPlace bool
	// ChunkSize is a v6 tuner plugin's getChunkSize (2.30.3+), nil without
	// one: calcCollChunking asks it after computing its own chunk.
	ChunkSize ChunkSizer
	// P2PGroup is the group a SendRecv or AllToAll is issued in and the
	// kernel plan to build (nil: the operation alone, in one plan).
	P2PGroup *P2PGroup
}

// P2PGroup is a SendRecv or AllToAll issued Ops times in one group
// (nccl-tests -m Ops), whose send/recv works NCCL's planner puts in kernel
// plans against Budget (spec's, G-SCHED-BUDGET-1; nil: one plan, as before
// 2.22.3), and Plan, the plan whose works the schedule runs.
type P2PGroup struct {
	Ops    int
	Budget *tuning.P2PBudget
	Plan   int
}

// ChunkSizer is a v6 tuner's getChunkSize and ChunkCall one call of it
// (spec/tuning owns calcCollChunking, which asks it).
type (
	ChunkSizer = tuning.ChunkSizer
	ChunkCall  = tuning.ChunkCall
)

// FromDecision extracts the operation and the selection of a successful
// Decision. The Decision's NChannels is the tuning model's channel count;
// zero leaves the choice to Channels.
func FromDecision(d *spec.Decision) (spec.Op, Selection, error) {
	if d == nil {
		return spec.Op{}, Selection{}, fmt.Errorf("no decision")
	}
	if !d.OK() {
		return spec.Op{}, Selection{}, fmt.Errorf("decision is an NCCL error (%s): nothing runs", d.Err.String())
	}
	if d.P2P != nil {
		// the p2p path: Build plans protocol and channels per peer
		return d.Op, Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: d.P2P.NChannelsPerPeer}, nil
	}
	if d.Kernel != "" {
		return spec.Op{}, Selection{}, fmt.Errorf("NCCL runs %s on window buffers outside the cost table; no schedule is built for it", d.Kernel)
	}
	if d.Algo == spec.AlgoNone || d.Proto == spec.ProtoNone {
		why := d.Undecided
		if why == "" {
			why = "no algorithm or protocol"
		}
		return spec.Op{}, Selection{}, fmt.Errorf("decision is undecided: %s", why)
	}
	return d.Op, Selection{Algo: d.Algo, Proto: d.Proto, NChannels: d.NChannels, NThreads: d.NThreads, Part: d.Part, Chunk: d.ChunkArgs}, nil
}

// supported lists the (function, algorithm) pairs NCCL has device code for
// (src/device/*.h RunWorkColl specialisations at v2.28.9-1) and this
// package builds.
func supported(f spec.Func, a spec.Algo) bool {
	switch a {
	case spec.Ring:
		return f < spec.NumFuncs
	case spec.Tree, spec.CollNetChain, spec.NVLSTree:
		return f == spec.AllReduce
	case spec.CollNetDirect, spec.NVLS:
		return f == spec.AllReduce || f == spec.AllGather || f == spec.ReduceScatter
	case spec.PAT:
		return f == spec.AllGather || f == spec.ReduceScatter
	}
	return false
}

// nvlsSupported is ncclNvlsSupported: the (reduction, type) pairs the
// NVSwitch can reduce with multimem.ld_reduce. Avg and PreMulSum become
// device ops NVLS lacks. Ref: v2.28.9-1 src/include/device.h
// ncclNvlsSupported.
func nvlsSupported(op spec.RedOp, dt spec.DataType) bool {
	switch dt {
	case spec.Int32, spec.Uint32, spec.Int64, spec.Uint64, spec.Float16, spec.Bfloat16:
		return op == spec.Sum || op == spec.Max || op == spec.Min
	case spec.Float32, spec.Float64:
		return op == spec.Sum
	}
	return false
}

// Build builds the schedule NCCL runs for op with sel on layout l. The
// schedule is generated on demand (Program builds a rank's steps when
// asked); Materialize makes it explicit.
func Build(op spec.Op, sel Selection, l *Layout, opt Options) (*Schedule, error) {
	if l == nil {
		return nil, fmt.Errorf("build: no layout")
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	p, err := l.Params()
	if err != nil {
		return nil, err
	}
	if op.DataType < 0 || op.DataType >= spec.NumDataTypes {
		return nil, fmt.Errorf("build: unknown datatype %d", op.DataType)
	}
	if op.DataType.IsFP8() && !p.FP8 {
		return nil, fmt.Errorf("build: %s does not exist in NCCL %s (fp8 types arrived in 2.24)", op.DataType, l.Release)
	}
	if op.DataType.IsFP8() && l.MinCompCap < 90 && op.Func != spec.AllGather && op.Func != spec.Broadcast && op.Func != spec.SendRecv && op.Func != spec.AllToAll {
		return nil, fmt.Errorf("build: FP8 reduction support begins with sm90 capable devices (ncclInvalidArgument, src/enqueue.cc)")
	}
	if op.RedOp < 0 || op.RedOp >= spec.NumRedOps {
		return nil, fmt.Errorf("build: unknown reduction %d", op.RedOp)
	}
	if op.Count < 0 {
		return nil, fmt.Errorf("build: negative count %d", op.Count)
	}
	nRanks := l.NRanks()
	if (op.Func == spec.Broadcast || op.Func == spec.Reduce) && (op.Root < 0 || op.Root >= nRanks) {
		return nil, fmt.Errorf("build: root %d outside the %d ranks", op.Root, nRanks)
	}
	if op.Func == spec.SendRecv || op.Func == spec.AllToAll {
		// NCCL's p2p path: no algorithm or protocol to select
		return buildP2P(op, l, p, opt)
	}
	if op.Func < 0 || op.Func >= spec.NumFuncs {
		return nil, fmt.Errorf("build: %s has no collective schedule (expected one of Broadcast, Reduce, AllGather, ReduceScatter, AllReduce, SendRecv)", op.Func)
	}
	if sel.Proto < 0 || sel.Proto >= spec.NumProtos {
		return nil, fmt.Errorf("build: unknown protocol %d", sel.Proto)
	}
	if sel.Algo < 0 || sel.Algo >= spec.NumAlgos {
		return nil, fmt.Errorf("build: unknown algorithm %d", sel.Algo)
	}
	if !supported(op.Func, sel.Algo) {
		return nil, fmt.Errorf("build: NCCL has no %s %s", sel.Algo, op.Func)
	}
	switch sel.Algo {
	case spec.CollNetDirect, spec.CollNetChain, spec.NVLS, spec.NVLSTree, spec.PAT:
		if sel.Proto != spec.Simple {
			return nil, fmt.Errorf("build: %s runs only with the Simple protocol, not %s", sel.Algo, sel.Proto)
		}
	}
	switch sel.Algo {
	case spec.PAT:
		if !p.HasPAT {
			return nil, fmt.Errorf("build: NCCL %s has no PAT (it arrived in 2.23)", l.Release)
		}
		if l.LocalRanks != 1 {
			return nil, fmt.Errorf("build: PAT is modelled for one rank per node, not %d", l.LocalRanks)
		}
	case spec.NVLS:
		if op.Func != spec.AllGather && !nvlsSupported(op.RedOp, op.DataType) {
			return nil, fmt.Errorf("build: NVLS cannot reduce %s with %s (ncclNvlsSupported)", op.DataType, op.RedOp)
		}
		if len(l.NVLSHeads) == 0 || l.NVLSChannels == 0 {
			return nil, fmt.Errorf("build: NVLS needs NVLS heads and channels in the layout")
		}
		if l.NNodes > 1 && op.Func != spec.AllReduce && !p.NVLSNetGatherScatter {
			return nil, fmt.Errorf("build: NCCL %s runs NVLS %s on one node only (across nodes through CollNet from 2.27)", l.Release, op.Func)
		}
		if l.NNodes > 1 && op.Func != spec.AllReduce && len(l.NVLSHeads) != l.LocalRanks {
			// ncclTopoTuneModel: "AllGather/ReduceScatter requires 1:1 GPU:NIC"
			return nil, fmt.Errorf("build: NVLS %s across nodes needs every local rank as an NVLS head (CollNet head), have %d heads for %d GPUs per node", op.Func, len(l.NVLSHeads), l.LocalRanks)
		}
		if l.NNodes == 1 && op.Func != spec.AllReduce {
			for i, h := range l.NVLSHeads {
				if h != i || len(l.NVLSHeads) != l.LocalRanks {
					return nil, fmt.Errorf("build: NVLS %s needs the NVLS heads to be the local ranks in order (NCCL places head i's piece at i × count), have %v", op.Func, l.NVLSHeads)
				}
			}
		}
	case spec.NVLSTree:
		if l.NNodes < 2 {
			return nil, fmt.Errorf("build: NVLSTree needs at least two nodes (NCCL disables it on one)")
		}
		if !nvlsSupported(op.RedOp, op.DataType) {
			return nil, fmt.Errorf("build: NVLSTree cannot reduce %s with %s (ncclNvlsSupported)", op.DataType, op.RedOp)
		}
		if len(l.NVLSHeads) != l.LocalRanks || l.NVLSChannels == 0 {
			return nil, fmt.Errorf("build: NVLSTree needs every local rank as an NVLS head and NVLS channels")
		}
	case spec.CollNetDirect, spec.CollNetChain:
		if l.NNodes < 2 {
			return nil, fmt.Errorf("build: %s needs at least two nodes", sel.Algo)
		}
		if sel.Algo == spec.CollNetDirect && (l.LocalRanks > 8 || len(l.CollNetHeads) == 0) {
			return nil, fmt.Errorf("build: CollNetDirect needs 1-8 local ranks and CollNet heads (NCCL_MAX_DIRECT_ARITY+1), have %d ranks and %d heads", l.LocalRanks, len(l.CollNetHeads))
		}
		if sel.Algo == spec.CollNetDirect && op.Func != spec.AllReduce && len(l.CollNetHeads) != l.LocalRanks {
			// ncclTopoTuneModel: "AllGather/ReduceScatter requires 1:1 GPU:NIC"
			return nil, fmt.Errorf("build: CollNetDirect %s needs every local rank as a CollNet head, have %d heads for %d GPUs per node", op.Func, len(l.CollNetHeads), l.LocalRanks)
		}
	}
	h := Header{
		Release:    l.Release,
		Func:       op.Func,
		Algo:       sel.Algo,
		Proto:      sel.Proto,
		DataType:   op.DataType,
		RedOp:      op.RedOp,
		Root:       op.Root,
		Count:      op.Count,
		NRanks:     nRanks,
		NNodes:     l.NNodes,
		LocalRanks: l.LocalRanks,
		InPlace:    opt.InPlace,
		NSteps:     p.NSteps,
		Unit:       op.DataType.Size(),
		Reg:        sel.Chunk.Reg,
	}
	if op.Func == spec.AllGather || op.Func == spec.Broadcast {
		h.Unit = 1
	}
	_, chunkSteps, sliceSteps := p.chunkBase(l, op.Func, sel.Algo, sel.Proto, sel.Chunk.Reg)
	h.SlicePerChunk = chunkSteps / sliceSteps
	h.StepPerSlice = sliceSteps
	h.StepBytes = l.BuffSize[sel.Proto] / p.NSteps
	count := op.Count * int64(op.DataType.Size()/h.Unit) // in schedule units
	nBytes := count * int64(h.Unit) * maxSendRecvCount(op.Func, nRanks, 1)
	nc := sel.NChannels
	if nc <= 0 {
		nc = Channels(l, op.Func, sel.Algo, sel.Proto, nBytes)
	}
	maxCh := l.NChannels
	// NVLS across nodes goes through CollNet: its channels are both NVLS
	// and CollNet channels (scheduleCollTasksToPlan's nMaxChannels).
	nvlsNet := sel.Algo == spec.NVLS && l.NNodes > 1
	switch {
	case nvlsNet && p.NVLSNetMinChannels:
		maxCh = min(l.NVLSChannels, l.NChannels)
	case sel.Algo.IsNVLS():
		maxCh = l.NVLSChannels
	}
	if nc > maxCh {
		return nil, fmt.Errorf("build: %d channels requested but the communicator has %d for %s", nc, maxCh, sel.Algo)
	}
	if nRanks == 1 || count == 0 {
		return buildTrivial(h, count), nil
	}
	x := &chunkCtx{p: p, l: l, f: op.Func, algo: sel.Algo, proto: sel.Proto, args: sel.Chunk, collnetDepth: 2, sizer: opt.ChunkSize}
	if l.LocalRanks == 1 && len(l.CollNetHeads) <= 1 {
		x.collnetDepth = 1 // connectCollNet: depth 1 when a head has no up and no down peers
	}
	var part partition
	switch {
	case sel.Algo.IsCollNet() || nvlsNet:
		part = x.collnetPartition(count, h.Unit, nc)
	case sel.Part != nil:
		if err := checkPart(*sel.Part, count, maxCh); err != nil {
			return nil, fmt.Errorf("build: %s %s: %w", sel.Algo, op.Func, err)
		}
		part = x.chunked(*sel.Part, int64(h.Unit), nc)
	default:
		var err error
		if part, err = x.cbdPartition(count, h.Unit, nc, maxCh, sel.NThreads); err != nil {
			return nil, fmt.Errorf("build: %w", err)
		}
	}
	if x.err != nil {
		return nil, fmt.Errorf("build: %w", x.err)
	}
	h.NChannels = part.hi + 1
	b := base{h: h, l: l, part: part, count: count}
	switch sel.Algo {
	case spec.Ring:
		b.h.NGroups = 1
		return &Schedule{Header: b.h, gen: &ringGen{b}, netDev: l.NetDev}, nil
	case spec.Tree:
		b.h.NGroups = 2
		return &Schedule{Header: b.h, gen: &treeGen{b}, netDev: l.NetDev}, nil
	case spec.CollNetChain:
		b.h.NGroups = 2
		return &Schedule{Header: b.h, gen: &chainGen{b}, netDev: l.NetDev}, nil
	case spec.CollNetDirect:
		if op.Func != spec.AllReduce {
			b.h.NGroups = 3
			return &Schedule{Header: b.h, gen: newDirectRailGen(b), netDev: l.NetDev}, nil
		}
		b.h.NGroups = 4
		return &Schedule{Header: b.h, gen: &directGen{b}, netDev: l.NetDev}, nil
	case spec.NVLS:
		if nvlsNet {
			b.h.NGroups = 3
			if op.Func == spec.AllReduce {
				b.h.NGroups = 4
			}
			return &Schedule{Header: b.h, gen: newNVLSNetGen(b), netDev: l.NetDev}, nil
		}
		b.h.NGroups = 3
		return &Schedule{Header: b.h, gen: newNVLSGen(b), netDev: l.NetDev}, nil
	case spec.NVLSTree:
		b.h.NGroups = 4
		return &Schedule{Header: b.h, gen: &nvlsTreeGen{b, newNVLSShared(b, 16/int64(b.h.Unit))}, netDev: l.NetDev}, nil
	case spec.PAT:
		b.h.NGroups = 1
		return &Schedule{Header: b.h, gen: newPatGen(b, x), netDev: l.NetDev}, nil
	}
	return nil, fmt.Errorf("build: no generator for %s", sel.Algo)
}

// checkPart checks a group plan's channel split against the operation:
// inside the kind's channels and covering count elements exactly.
func checkPart(p tuning.CBDPart, count int64, maxCh int) error {
	if p.Lo < 0 || p.Hi < p.Lo || p.Hi >= maxCh {
		return fmt.Errorf("channel split %s: expected 0 ≤ lo ≤ hi < %d", spec.ChannelRange(p.Lo, p.Hi), maxCh)
	}
	if p.CountLo < 0 || p.CountMid < 0 || p.CountHi < 0 {
		return fmt.Errorf("channel split %s: negative counts %d/%d/%d", spec.ChannelRange(p.Lo, p.Hi), p.CountLo, p.CountMid, p.CountHi)
	}
	n := p.CountLo
	if p.Hi > p.Lo {
		n += int64(p.Hi-p.Lo-1)*p.CountMid + p.CountHi
	}
	if n != count {
		return fmt.Errorf("channel split %s holds %d elements, the operation %d", spec.ChannelRange(p.Lo, p.Hi), n, count)
	}
	return nil
}

// base is what every generator shares.
type base struct {
	h     Header
	l     *Layout
	part  partition
	count int64 // the API count in schedule units
}

func (b *base) endpoint(ch int, p Peer) Endpoint { return Endpoint{} }

func (b *base) chunks() []int64 {
	out := make([]int64, b.h.NChannels)
	for c := range out {
		if b.part.collnet {
			out[c] = b.part.cnChunk
		} else {
			_, _, out[c] = b.part.part(c)
		}
	}
	return out
}

// reducing reports collectives that combine data (their own-input reads
// take the pre-op).
func (b *base) reducing() bool {
	return b.h.Func == spec.AllReduce || b.h.Func == spec.ReduceScatter || b.h.Func == spec.Reduce
}

func inChunk(off, n int64) Chunk  { return Chunk{Buf: BufInput, Offset: off, Count: n} }
func outChunk(off, n int64) Chunk { return Chunk{Buf: BufOutput, Offset: off, Count: n} }

func clamp0(n int64) int64 { return max(0, n) }

// buildTrivial is the schedule of an operation that moves nothing between
// ranks: zero elements (NCCL returns before launching) or one rank (NCCL's
// one-rank path copies the input to the output, applying the reduction's
// pre- and post-operation, ncclLaunchOneRank).
func buildTrivial(h Header, count int64) *Schedule {
	h.NChannels = 0
	h.NGroups = 1
	if count == 0 {
		return &Schedule{Header: h, progs: [][]Step{}}
	}
	h.NChannels = 1
	n := h.OutputCount()
	copyOnly := h.Func == spec.AllGather || h.Func == spec.Broadcast
	st := Step{Prim: PrimCopy, Count: n, Src: inChunk(0, n), Dst: outChunk(0, n), PreOp: !copyOnly, PostOp: !copyOnly}
	return &Schedule{Header: h, progs: [][]Step{{st}}}
}

// sumPieces is the element count of a scatter or gather.
func sumPieces(ps []Chunk) int64 {
	n := int64(0)
	for _, p := range ps {
		n += p.Count
	}
	return n
}
