package algos

import (
	"fmt"
	"math/bits"

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
	// sizer is a v6 tuner's getChunkSize; err the first error it returned
	// (the collective fails).
	sizer ChunkSizer
	err   error
}

// calcChunk is calcCollChunking's chunk size in bytes for nBytes spread
// over nChannels: the protocol's step-sized chunk, shrunk for small
// operations by the algorithm's rules, and aligned down to the protocol
// grain.
// Ref: v2.28.9-1 src/enqueue.cc calcCollChunking (identical in 2.22.3 for
// the algorithms 2.22.3 has).
func (x *chunkCtx) calcChunk(nChannels int, nBytes int64) int64 {
	chunk, _, _ := x.p.chunkBase(x.f, x.algo, x.proto, x.l.BuffSize)
	c := int64(chunk)
	bufferMax := c
	nc := int64(nChannels)
	ppn := int64(x.l.LocalRanks)
	switch {
	case x.algo == spec.CollNetDirect:
		nHeads := int64(max(1, len(x.l.CollNetHeads)))
		depth := int64(x.collnetDepth)
		for nBytes/(nc*nHeads*c) < depth*64 && c > 131072 {
			c /= 2
		}
		for nBytes/(nc*nHeads*c) < depth*8 && c > 65536 {
			c /= 2
		}
		for nBytes/(nc*nHeads*c) < depth*8 && c > 32768 {
			c /= 2
		}
	case x.algo == spec.CollNetChain:
		stepSize := int64(x.l.BuffSize[spec.Simple] / x.p.NSteps)
		c = min(256*1024, stepSize)
		depth := ppn // collnetChain.depth = nRanks/nNodes (ncclTopoPostset)
		for nBytes/(nc*c) < depth*64 && c > 131072 {
			c /= 2
		}
		for nBytes/(nc*c) < depth*8 && c > 65536 {
			c /= 2
		}
		for nBytes/(nc*c) < depth && c > 32768 {
			c /= 2
		}
	case x.algo == spec.NVLS:
		maxChunk := int64(x.l.NVLSChunkSize)
		if x.p.NVLSNetChunkCap && x.l.NNodes > 1 && x.l.NVLSBw < 150 {
			// NVLS with SHARP across nodes whose NVLS bandwidth the tuning
			// model puts below 150 GB/s moves 32 KiB chunks
			maxChunk = 32768
		}
		c = min(c, maxChunk)
		ops := nc * int64(max(1, len(x.l.NVLSHeads)))
		if nBytes < 64*ops*c && c > 65536 {
			c = 65536
		}
		if nBytes < 8*ops*c && c > 32768 {
			c = 32768
		}
		if nBytes < 2*ops*c && c > 16384 {
			c = 16384
		}
	case x.algo == spec.NVLSTree:
		ops := nc * int64(max(1, len(x.l.NVLSHeads)))
		if !x.p.NVLSTreeChunkFromStep {
			c = int64(x.l.NVLSChunkSize)
		}
		maxChunk := c // NCCL_NVLSTREE_MAX_CHUNKSIZE unset: 64 KiB from 4 nodes
		switch {
		case x.l.NVLSTreeMaxChunkSize > 0:
			// 2.30.3+: ncclNvlsTuning's cap, chunk = min(nvlsChunkSize, cap)
			maxChunk = int64(x.l.NVLSTreeMaxChunkSize)
		case x.p.NVLSTreeChunkCap4Nodes && x.l.NNodes >= 4:
			maxChunk = 65536
		}
		c = min(c, maxChunk)
		if nBytes < 32*ops*c && c > 262144 {
			c = 262144
		}
		if nBytes < 16*ops*c && c > 131072 {
			c = 131072
		}
		if nBytes < 4*ops*c && c > 65536 {
			c = 65536
		}
		if nBytes < 1*ops*c && c > 32768 {
			c = 32768
		}
	case x.algo == spec.Tree && x.proto == spec.LL128:
		// float ppn; float nstepsLL128 = 1+log2i(nNodes) + 0.1*ppn (the sum
		// is computed in double and stored as float)
		nNodes := x.l.NNodes
		ppnF := float32(x.l.NRanks()) / float32(nNodes)
		nstepsLL128 := float32(float64(1+log2i(int64(nNodes))) + 0.1*float64(ppnF))
		for float32(nBytes/(nc*c)) < nstepsLL128*64/ppnF && c > 131072 {
			c /= 2
		}
		for float32(nBytes/(nc*c)) < nstepsLL128*16/ppnF && c > 32768 {
			c /= 2
		}
	case x.f == spec.AllGather && x.algo == spec.PAT:
		for c*nc*32 > nBytes && c > 65536 {
			c /= 2
		}
	case x.f == spec.ReduceScatter && x.algo == spec.PAT:
		for c*nc*16 > nBytes && c > 65536 {
			c /= 2
		}
	}
	g := int64(x.p.GrainSize[x.proto])
	if x.sizer != nil && x.err == nil {
		c = x.tunerChunk(nChannels, nBytes, c, bufferMax, g)
	}
	return c / g * g
}

// tunerChunk is the v6 tuner's override of calcCollChunking's chunk: the
// answer replaces the chunk, clamped to the buffer's step-sized chunk
// (with an INFO line in NCCL); a non-success return fails the collective.
// An answer below the protocol's grain aligns to 0, on which NCCL's loop
// count divides by zero: gatesim refuses it.
// Ref: v2.30.3-1 src/enqueue.cc calcCollChunking (v2.30.7-1 likewise)
func (x *chunkCtx) tunerChunk(nChannels int, nBytes, c, bufferMax, grain int64) int64 {
	asked, err := x.sizer.ChunkSize(ChunkCall{Func: x.f, NBytes: nBytes, Algo: x.algo, Proto: x.proto,
		NChannels: nChannels, Chunk: c, BufferMax: bufferMax})
	if err != nil {
		x.err = err
		return c
	}
	if asked > uint64(bufferMax) {
		asked = uint64(bufferMax)
	}
	if int64(asked) < grain {
		x.err = fmt.Errorf("the tuner's chunk size %d is below the %s grain of %d bytes: NCCL's loop count would divide by zero", asked, x.proto, grain)
		return c
	}
	return int64(asked)
}

func log2i(n int64) int {
	if n <= 0 {
		return -1
	}
	return 63 - bits.LeadingZeros64(uint64(n))
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
	return x.chunked(cp, elem), nil
}

// chunked fills a channel split's chunks (calcCollChunking per part, one
// channel each, on global bytes: AllReduce's are not doubled).
func (x *chunkCtx) chunked(cp tuning.CBDPart, elem int64) partition {
	out := partition{lo: cp.Lo, hi: cp.Hi, countLo: cp.CountLo, countMid: cp.CountMid, countHi: cp.CountHi}
	global := elem * maxSendRecvCount(x.f, x.l.NRanks(), 1)
	g := int64(x.p.GrainSize[x.proto])
	eltPerGrain := g / elem
	chunk := func(n int64) int64 {
		if n == 0 {
			return 0
		}
		return x.calcChunk(1, global*n) / g * eltPerGrain
	}
	out.chunkLo = chunk(out.countLo)
	out.chunkHi = chunk(out.countHi)
	if cp.Hi-cp.Lo > 1 {
		out.chunkMid = chunk(out.countMid)
	}
	return out
}

// collnetPartition is the CollNet split: channels 0..nChannels-1 all walk
// the whole count, each taking chunkCount elements per head in turn.
// Ref: v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan (isCollnet branch).
func (x *chunkCtx) collnetPartition(count int64, unit int, nChannels int) partition {
	global := int64(unit) * maxSendRecvCount(x.f, x.l.NRanks(), 1)
	c := x.calcChunk(nChannels, global*count)
	return partition{lo: 0, hi: nChannels - 1, collnet: true, cnCount: count, cnChunk: c / int64(unit)}
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
