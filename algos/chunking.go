package algos

import (
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// partition is how one collective's elements are spread over channels: the
// continuous-byte-distribution of devWork->cbd (a "lo" channel, equal "mid"
// channels and a "hi" channel, each with its own chunk), or the CollNet
// split where every channel walks the whole buffer in strides.
// Ref: v2.28.9-1 src/include/device.h ncclDevWorkColl, ncclCollCbdPart.
type partition struct {
	lo, hi                     int // channels used, inclusive; hi < lo when nothing is sent
	countLo, countMid, countHi int64
	chunkLo, chunkMid, chunkHi int64 // elements per chunk
	collnet                    bool
	cnCount, cnChunk           int64 // CollNet: whole count, chunk elements
}

// part is ncclCollCbdPart: channel c's offset, element count and chunk.
func (p *partition) part(c int) (offset, count, chunk int64) {
	if c < p.lo || c > p.hi {
		return 0, 0, 0
	}
	nMid := int64(p.hi - p.lo - 1)
	switch {
	case c == p.lo:
		return 0, p.countLo, p.chunkLo
	case c == p.hi:
		return p.countLo + nMid*p.countMid, p.countHi, p.chunkHi
	default:
		mid := int64(c - p.lo - 1)
		return p.countLo + mid*p.countMid, p.countMid, p.chunkMid
	}
}

// total is the partition's element count.
func (p *partition) total() int64 {
	if p.collnet {
		return p.cnCount
	}
	if p.hi < p.lo {
		return 0
	}
	return p.countLo + int64(max(0, p.hi-p.lo-1))*p.countMid + p.countHi
}

// maxSendRecvCount is ncclFuncMaxSendRecvCount (src/include/enqueue.h).
func maxSendRecvCount(f spec.Func, nRanks int, count int64) int64 {
	if f == spec.AllGather || f == spec.ReduceScatter {
		return int64(nRanks) * count
	}
	return count
}

// chunkCtx carries what calcCollChunking reads from the communicator.
type chunkCtx struct {
	p            Params
	l            *Layout
	f            spec.Func
	algo         spec.Algo
	proto        spec.Proto
	collnetDepth int // channels[0].collnetDirect.depth
	// args is the decision's registration and, before 2.22.3, its one
	// call's bytes and channels
	args tuning.ChunkArgs
	// sizer is a v6 tuner's getChunkSize; err the first error it returned
	// (the collective fails).
	sizer ChunkSizer
	err   error
	// collnetPiece is Selection.CollNetPiece
	collnetPiece int64
	cc           tuning.ChunkComm // filled on first use (ccSet)
	ccSet        bool
}

// chunkComm is what calcCollChunking reads of the layout, for the model
// in spec/tuning (the one owner of the chunk rules).
func (x *chunkCtx) chunkComm() *tuning.ChunkComm {
	if !x.ccSet {
		x.ccSet = true
		x.cc = tuning.ChunkComm{
			BuffSize: x.l.BuffSize, NRanks: x.l.NRanks(), NNodes: x.l.NNodes,
			NVLSHeads: len(x.l.NVLSHeads), CollNetHeads: len(x.l.CollNetHeads), CollNetDepth: x.collnetDepth,
			NVLSChunkSize: x.l.NVLSChunkSize, NVLSTreeMaxChunkSize: x.l.NVLSTreeMaxChunkSize, NVLSBw: x.l.NVLSBw,
			Rules: x.p.ChunkRules,
		}
	}
	return &x.cc
}

// calcChunk is calcCollChunking's chunk size in bytes for nBytes spread
// over nChannels (tuning.ChunkComm.CollChunk, with the v6 tuner's
// getChunkSize when one is loaded; its first error fails the collective).
func (x *chunkCtx) calcChunk(nChannels int, nBytes int64) int64 {
	sizer := x.sizer
	if x.err != nil {
		sizer = nil
	}
	reg := x.args.Reg
	c, _, err := x.chunkComm().CollChunk(x.f, x.algo, x.proto, reg, nChannels, nBytes, sizer)
	if err != nil {
		x.err = err
		c, _, _ = x.chunkComm().CollChunk(x.f, x.algo, x.proto, reg, nChannels, nBytes, nil)
	}
	return c
}

// cbdPartition is one collective alone in its plan: spec's channel split
// (CollPartition, scheduleCollTasksToPlan) over at most taskChannels
// channels of maxChannels for the task's kind, and each part's chunk from
// calcCollChunking with one channel.
// Ref: v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan.
func (x *chunkCtx) cbdPartition(count int64, unit int, taskChannels, maxChannels, nThreads int) (partition, error) {
	if count == 0 {
		return partition{lo: 0, hi: -1}, nil
	}
	elem := int64(unit)
	cp, err := tuning.CollPartition(x.p.Sched, x.f, x.l.NRanks(), x.proto, elem, count, taskChannels, maxChannels, nThreads)
	if err != nil {
		return partition{}, err
	}
	return x.chunked(cp, elem, taskChannels), nil
}

// chunked fills a channel split's chunks (calcCollChunking per part, one
// channel each, on global bytes: AllReduce's are not doubled). Before
// 2.22.3 one chunk serves every channel, sized on the bytes and channels
// the group's schedule gave the task's one call (the decision's
// ChunkArgs: 2.18/2.19's computeColl on the task, 2.20/2.21's
// computeCollChunkInfo on its aggregate, G-SEL-CHUNK-3; spec's
// tuning.Model.OpChunk reports the same), or without a decision on the
// whole task over the taskChannels channels (2.18/2.19) or the channels
// the split fills (2.20/2.21).
func (x *chunkCtx) chunked(cp tuning.CBDPart, elem int64, taskChannels int) partition {
	out := partition{lo: cp.Lo, hi: cp.Hi, countLo: cp.CountLo, countMid: cp.CountMid, countHi: cp.CountHi}
	global := elem * maxSendRecvCount(x.f, x.l.NRanks(), 1)
	g := int64(x.p.GrainSize[x.proto])
	eltPerGrain := g / elem
	chunk := func(nc int, n int64) int64 {
		if n == 0 {
			return 0
		}
		return x.calcChunk(nc, global*n) / g * eltPerGrain
	}
	if s := x.p.Sched.Schedule; s != tuning.ScheduleR22 {
		nc, nBytes := taskChannels, global*out.total()
		switch {
		case x.args.NChannels > 0:
			nc, nBytes = x.args.NChannels, x.args.NBytes
		case s == tuning.ScheduleR20:
			nc = cp.Hi - cp.Lo + 1
		}
		c := int64(0)
		if out.total() > 0 {
			c = x.calcChunk(max(1, nc), nBytes) / g * eltPerGrain
		}
		out.chunkLo, out.chunkMid, out.chunkHi = c, c, c
		return out
	}
	out.chunkLo = chunk(1, out.countLo)
	out.chunkHi = chunk(1, out.countHi)
	if cp.Hi-cp.Lo > 1 {
		out.chunkMid = chunk(1, out.countMid)
	}
	return out
}

// collnetPartition is the CollNet split: channels 0..nChannels-1 all walk
// the whole count, each taking chunkCount elements per head in turn.
// Ref: v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan (isCollnet branch).
func (x *chunkCtx) collnetPartition(count int64, unit int, nChannels int) partition {
	global := int64(unit) * maxSendRecvCount(x.f, x.l.NRanks(), 1)
	nc, nBytes := nChannels, global*count
	if x.args.NChannels > 0 { // before 2.22.3: the schedule's one call
		nc, nBytes = x.args.NChannels, x.args.NBytes
	}
	c := x.calcChunk(nc, nBytes)
	return partition{lo: 0, hi: nChannels - 1, collnet: true, cnCount: count, cnChunk: c / int64(unit)}
}

// collnetUserPartition is the split of a CollNet operation NCCL runs on
// registered user buffers with one rank per node (Header.CollNetUserBuffers):
// the kernel posts one step to the network and waits for one back, and
// the proxy hands the plugin the whole window of the user buffers (the
// reduced buffer; AllGather's and ReduceScatter's rail space of every
// node's block) in collectives of at most the piece's bytes, each flushed
// on receive. Each piece is one chunk of the generators' walk, so one
// step each way; nothing goes through the connection's FIFO. NCCL gives
// such a task one channel; on more, the walk deals the pieces out.
//
// Ref: v2.28.9-1 src/enqueue.cc addCollToPlan's proxy op (isOneRPN:
// nsteps 1, the user's buffers, nbytes the whole); src/transport/coll_net.cc
// sendProxyProgress and recvProxyProgress (nsteps = DIVUP(nbytes,
// maxCollBytes)), collNetRegIallreduce, collNetRegIallgather,
// collNetRegIreducescatter, collNetRecvFlush; src/device/all_reduce.h,
// all_gather.h, reduce_scatter.h (the sendPeerNotify / recvPeerNotify
// branches under netRegUsed); v2.23.4-1 the same in NCCL_MAX_COLLNET_SIZE
// pieces
func (x *chunkCtx) collnetUserPartition(count int64, unit int, nChannels int) partition {
	window := maxSendRecvCount(x.f, x.l.NRanks(), count)
	chunk := window
	if x.collnetPiece > 0 {
		chunk = min(window, max(1, x.collnetPiece/int64(unit)))
	}
	return partition{lo: 0, hi: nChannels - 1, collnet: true, cnCount: count, cnChunk: chunk}
}

// Channels is the channel count NCCL's enqueue gives one operation
// (topoGetAlgoInfo's nc): Ring, Tree, CollNetChain and PAT drop channels
// while nBytes < nc × maxThreads × threadThreshold; CollNetDirect steps down
// through 16, 8, 4, 2, 1 with the head count in the product; NVLS and
// NVLSTree use the NVLS channels, NVLS across nodes at most nChannels
// (2.28.3+). maxThreads and the thresholds are the
// defaults of ncclTopoTuneModel without NCCL_NTHREADS,
// NCCL_LL128_NTHREADS or NCCL_THREAD_THRESHOLDS (LL 512/8×nRanks for Ring,
// 512/8 otherwise; LL128 640/8; Simple 512/64; CollNet and NVLS Simple
// 640/512). A tuning model that knows better passes its own count.
// Ref: v2.28.9-1 src/enqueue.cc topoGetAlgoInfo; src/graph/tuning.cc
// ncclTopoTuneModel.
func Channels(l *Layout, f spec.Func, algo spec.Algo, proto spec.Proto, nBytes int64) int {
	nc := l.NChannels
	nt, th := int64(512), int64(64)
	switch proto {
	case spec.LL:
		th = 8
		if algo == spec.Ring {
			th = 8 * int64(l.NRanks())
		}
	case spec.LL128:
		nt, th = 640, 8
	}
	if algo.IsCollNet() || algo.IsNVLS() {
		nt, th = 640, 512
	}
	if algo == spec.PAT {
		nt = 0 // ncclTopoTuneModel leaves PAT's maxThreads at 0
	}
	switch algo {
	case spec.CollNetDirect:
		nHeads := int64(max(1, len(l.CollNetHeads)))
		ncSwitch := 16
		flag := true
		for ncSwitch >= 1 && flag {
			for {
				flag = nBytes < int64(nc)*nt*nHeads*th
				if !flag || nc <= ncSwitch {
					break
				}
				if nc == ncSwitch+ncSwitch/2 {
					th /= 2
				}
				nc--
			}
			ncSwitch /= 2
		}
	case spec.NVLS, spec.NVLSTree:
		nc = l.NVLSChannels
		if p, err := l.Params(); err == nil && p.NVLSNetMinChannels && algo == spec.NVLS && l.NNodes > 1 {
			nc = min(l.NVLSChannels, l.NChannels) // NVLS through CollNet
		}
	default:
		for nBytes < int64(nc)*nt*th && nc >= 2 {
			nc--
		}
	}
	return max(1, nc)
}
