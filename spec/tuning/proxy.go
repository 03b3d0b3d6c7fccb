package tuning

// The proxy op calcCollChunking builds beside the chunk: how many FIFO
// steps the proxy thread drives for a channel's part of a collective, and
// what changes when the network or CollNet registered the task's buffers
// (G-REG-PROXY-1). The reports (explain, the oracle, the group rule) read
// it from OpChunk.Proxy.

import "github.com/gatesim/gatesim/nccl"

// ProxyReg selects what calcCollChunking (computeColl before 2.22.3)
// writes into the proxy op of a task whose buffers the network or CollNet
// registered.
type ProxyReg uint8

const (
	// ProxyRegCollNet (2.21.5–2.23.4): a CollNet-registered task
	// (regBufType NCCL_COLLNET_REG_BUFFER) gets reg 1, nbytes the task's
	// bytes and nsteps ceil(nbytes / NCCL_MAX_COLLNET_SIZE): the proxy
	// hands the plugin the user buffer in pieces of 512 MiB.
	ProxyRegCollNet ProxyReg = iota
	// ProxyRegNet (2.24.3+): a task with NCCL_NET_REG_BUFFER gets reg 1
	// and nbytes the task's bytes. CollNetDirect and CollNetChain (and NVLS
	// across nodes) on one rank per node: nsteps 1, the kernel only
	// notifies the proxy; with several ranks per node the loop is one
	// head's (loopSize / nHeads). A Ring AllGather on one rank per node:
	// NCCL_MAX_NET_SIZE chunks and slices of one step each. Any other
	// Ring task keeps its steps.
	ProxyRegNet
	// ProxyRegNone (before 2.21.5): nothing is registered with the
	// network or CollNet; every proxy op has reg 0.
	ProxyRegNone
)

var proxyRegNames = [...]string{"collnet-max", "net", "none"}

func (r ProxyReg) String() string {
	return tuningEnumName(proxyRegNames[:], int(r), "ProxyReg")
}

// MaxCollNetSize is NCCL_MAX_COLLNET_SIZE (512 MiB), the piece of a
// CollNet-registered buffer one proxy step hands the plugin
// (2.21.5–2.23.4).
const MaxCollNetSize = 1 << 29

// ProxyOp is the proxy op (ncclProxyOp) calcCollChunking builds for one
// channel part of a task: NSteps the FIFO steps the proxy drives for the
// first channel's part (NStepsMid and NStepsHi for the channels between
// and the last, 0 where the part is absent or the task is one call),
// ChunkSize, SliceSize and LoopSize in bytes, NBytes what the proxy is told
// to move. Reg is proxyOp->reg: the buffers are registered with the
// network or CollNet, so the proxy sends from and receives into the user
// buffers. FIFOSteps is the first part's nsteps had nothing been
// registered (0 where not modelled: an unregistered task before 2.22.3,
// whose computeColl this model does not follow).
type ProxyOp struct {
	Reg       bool  `json:"reg,omitempty"`
	NSteps    int64 `json:"nsteps"`
	NStepsMid int64 `json:"nstepsMid,omitempty"`
	NStepsHi  int64 `json:"nstepsHi,omitempty"`
	ChunkSize int64 `json:"chunkSize"`
	SliceSize int64 `json:"sliceSize"`
	LoopSize  int64 `json:"loopSize"`
	NBytes    int64 `json:"nbytes"`
	FIFOSteps int64 `json:"fifoSteps,omitempty"`
	// NetSteps is what the CollNet proxy makes of a registered task's one
	// step on one rank per node (2.24.3+, G-REG-COLLNET-SPLIT-1): at
	// progress it re-splits nbytes into ceil(nbytes / maxCollBytes) plugin
	// collectives, each with its own flush (0 where not re-split, or the
	// plugin's maxCollBytes is unknown).
	NetSteps     int64 `json:"netSteps,omitempty"`
	MaxCollBytes int64 `json:"maxCollBytes,omitempty"`
	// CollNetPiece is the most bytes one plugin collective moves when the
	// CollNet proxy runs a registered one-rank-per-node task straight on
	// the user buffers: NCCL_MAX_COLLNET_SIZE under 2.21.5–2.23.4's CollNet
	// registration (NSteps pieces), maxCollBytes from 2.24.3 (NetSteps
	// pieces); 0 where the proxy moves it in one, or not on the user
	// buffers.
	CollNetPiece int64 `json:"collNetPiece,omitempty"`
	ChunkSteps   int   `json:"chunkSteps"`
	SliceSteps   int   `json:"sliceSteps"`
}

// maxCollNetSizeShim is MAX_COLLNET_SIZE (512 MiB): the maxCollBytes
// NCCL's adapters give a CollNet plugin of API v8 or older, which has no
// such property (2.24.3+; a v9+ plugin reports its own, which NCCL takes
// when it lies in (0, NCCL_MAX_NET_SIZE_BYTES]).
const maxCollNetSizeShim = 512 << 20

// CollNetMaxCollBytes is the maxCollBytes NCCL reads of a CollNet plugin
// of API version abi: MAX_COLLNET_SIZE through the v8-and-older adapters,
// 0 (unknown to gatesim) for v9 and newer and without CollNet.
//
// Ref: v2.28.9-1 src/plugin/net/net_v8.cc, net_v7.cc, net_v6.cc
// (getProperties adapters); src/include/plugin/nccl_net.h MAX_COLLNET_SIZE;
// v2.24.3-1 src/net.cc likewise
func CollNetMaxCollBytes(abi int) int64 {
	if abi <= 0 || abi >= 9 {
		return 0
	}
	return maxCollNetSizeShim
}

// proxyLoop is calcCollChunking's nstepsPerLoop and nchunksPerLoop of the
// pattern (function, algorithm): a ring moves nRanks chunks in nRanks-1
// steps (AllReduce twice), NVLS and CollNetDirect one chunk per head in
// one step, every tree, pipeline, PAT and CollNetChain one chunk in one.
//
// Ref: v2.30.7-1 src/enqueue.cc calcCollChunking (v2.22.3-1 likewise)
func (cc *ChunkComm) proxyLoop(f nccl.Func, a nccl.Algo) (stepsPerLoop, chunksPerLoop int64) {
	n := int64(max(1, cc.NRanks))
	switch {
	case f == nccl.Broadcast || f == nccl.Reduce || a == nccl.PAT || a == nccl.Tree || a == nccl.CollNetChain:
		return 1, 1
	case a == nccl.NVLS || a == nccl.NVLSTree:
		return 1, int64(max(1, cc.NVLSHeads))
	case a == nccl.CollNetDirect:
		return 1, int64(max(1, cc.CollNetHeads))
	case f == nccl.AllReduce:
		return 2 * (n - 1), n
	}
	return n - 1, n
}

// ProxyOp is the proxy op calcCollChunking builds for nBytes over
// nChannels with the aligned chunk (the chunk calcCollChunking returns) on
// buffers registered as reg, per the release's ProxyRegs. unregChunk is
// the chunk the same call returns unregistered (it differs only for a
// Ring AllGather the network registered on one rank per node).
//
// Ref: v2.30.7-1 src/enqueue.cc calcCollChunking (v2.24.3-1 likewise;
// v2.22.3-1 and v2.23.4-1 the NCCL_COLLNET_REG_BUFFER branch; v2.21.5-1
// computeColl); src/include/collectives.h NCCL_MAX_NET_SIZE; v2.23.4-1
// src/include/device.h NCCL_MAX_COLLNET_SIZE
func (cc *ChunkComm) ProxyOp(f nccl.Func, a nccl.Algo, p nccl.Proto, reg ChunkReg, nChannels int, nBytes, chunk, unregChunk int64) ProxyOp {
	stepSize, chunkSteps, sliceSteps, _ := cc.ChunkGeometry(f, a, p, ChunkRegNone)
	perLoop, chunks := cc.proxyLoop(f, a)
	nc := int64(max(1, nChannels))
	steps := func(c int64, cs int) int64 {
		if c <= 0 {
			return 0
		}
		return perLoop * nccl.DivUp(nBytes, nc*chunks*c) * int64(cs)
	}
	op := ProxyOp{ChunkSize: unregChunk, ChunkSteps: chunkSteps, SliceSteps: sliceSteps,
		SliceSize: unregChunk / int64(chunkSteps) * int64(sliceSteps), LoopSize: nc * chunks * unregChunk,
		NBytes: int64(stepSize * sliceSteps)}
	op.NSteps = steps(unregChunk, chunkSteps)
	op.FIFOSteps = op.NSteps
	switch {
	case cc.Rules.ProxyReg == ProxyRegCollNet && reg == ChunkRegCollNet:
		op.Reg, op.NBytes = true, nBytes
		op.NSteps = nccl.DivUp(nBytes, MaxCollNetSize)
		op.CollNetPiece = MaxCollNetSize
	case cc.Rules.ProxyReg == ProxyRegNet && (reg == ChunkRegCollNet || reg == ChunkRegNet):
		op.Reg = true
		oneRPN := cc.NRanks == cc.NNodes
		switch {
		case a.IsCollNet() || a == nccl.NVLS:
			if oneRPN {
				op.NSteps = 1
				if a.IsCollNet() && reg == ChunkRegCollNet && cc.MaxCollBytes > 0 {
					op.NetSteps, op.MaxCollBytes = nccl.DivUp(nBytes, cc.MaxCollBytes), cc.MaxCollBytes
					op.CollNetPiece = cc.MaxCollBytes
				}
			} else if f == nccl.AllGather || f == nccl.ReduceScatter {
				op.LoopSize /= chunks
			}
		case cc.netRegOneRPN(f, a, reg):
			op.ChunkSize, op.SliceSize, op.ChunkSteps, op.SliceSteps = chunk, chunk, 1, 1
			op.LoopSize = nc * chunks * chunk
			op.NSteps = steps(chunk, 1)
		}
		op.NBytes = nBytes
	}
	return op
}
