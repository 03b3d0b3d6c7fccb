package spec

import (
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// chunkComm is what calcCollChunking reads of the communicator beyond the
// tuning model's own input (G-SEL-CHUNK-1): the buffers of
// computeBuffSizes, the NVLS chunk and NVLSTree cap, the CollNetDirect
// depth and the release's chunk switches. The schedule builders
// (algos.LayoutFromComm) take the same values from the model's input.
//
// Ref: v2.30.7-1 src/init.cc computeBuffSizes; src/transport/nvls.cc
// ncclNvlsSetup, ncclNvlsTuning; src/graph/connect.cc connectCollNet;
// src/enqueue.cc calcCollChunking
func (r *initRun) chunkComm() tuning.ChunkComm {
	c, k := r.comm, &r.rs.Consts
	cc := tuning.ChunkComm{BuffSize: buffSizes(k, c.Topo, r.env), CollNetDepth: 2, Rules: k.ChunkRules()}
	res := c.Topo
	size := func(name string) int { return sizeParam(r.env, name) }
	switch {
	case c.NVLSSupport && res != nil && res.NvlsChunkSize > 0:
		// 2.30.3+: ncclNvlsTuning's chunk and cap, the variables included
		cc.NVLSChunkSize, cc.NVLSTreeMaxChunkSize = res.NvlsChunkSize, res.NvlsTreeMaxChunkSize
	default:
		if k.NVLSChunkSizeEnv {
			cc.NVLSChunkSize = size("NCCL_NVLS_CHUNKSIZE")
		}
		if k.NVLSTreeMaxChunkSizeEnv {
			cc.NVLSTreeMaxChunkSize = size("NCCL_NVLSTREE_MAX_CHUNKSIZE")
		}
	}
	// tuner_v6.h: only a v6 tuner has getChunkSize (v2–v5 are adapted with
	// none), and only a release that calls it asks
	cc.TunerGetChunkSize = r.rs.Tuning.TunerChunkSize && c.Tuner != nil && c.TunerABI >= 6
	if c.NetPlugin != nil {
		cc.MaxCollBytes = tuning.CollNetMaxCollBytes(c.NetPlugin.CollNetABI)
	}
	if res != nil && len(res.LocalRanks) > 0 && res.LocalRanks[0] == 1 && res.CollNetDirectHeads <= 1 {
		cc.CollNetDepth = 1 // connectCollNet: a head with no up and no down peers
	}
	return cc
}

// ChunkRules are the release's switches of calcCollChunking.
func (k *Consts) ChunkRules() tuning.ChunkRules {
	return tuning.ChunkRules{NVLSNetChunkCap: k.NVLSNetChunkCap, NVLSTreeChunkFromStep: k.NVLSTreeChunkFromStep,
		NVLSTreeChunkCap4Nodes: k.NVLSTreeChunkCap4Nodes, TreeSimpleDepth: k.TreeSimpleChunkByDepth,
		NVLSRegStepChunk: k.NVLSRegStepChunk, NetRegRingAllGather: k.NetRegRingAllGather, ProxyReg: k.ProxyReg}
}

// buffSizes is comm->buffSizes of LL, LL128 and Simple: NCCL_LL_BUFFSIZE,
// NCCL_LL128_BUFFSIZE and NCCL_BUFFSIZE when positive, else the defaults
// (the Simple one of ARM CPUs where the release has it). The tuning
// model's chunking and the send/recv planner both read it from here.
// Ref: v2.22.3-1 src/init.cc computeBuffSizes
func buffSizes(k *Consts, res *topo.Result, env Env) [NumProtos]int {
	b := tuning.DefaultBuffSize
	if k.SimpleBuffSizeARM > 0 && res != nil && res.CPUArch == topo.ArchARM {
		b[Simple] = k.SimpleBuffSizeARM
	}
	for p, name := range [NumProtos]string{"NCCL_LL_BUFFSIZE", "NCCL_LL128_BUFFSIZE", "NCCL_BUFFSIZE"} {
		if n := sizeParam(env, name); n > 0 {
			b[p] = n
		}
	}
	return b
}

// sizeParam is a size variable as NCCL_PARAM reads it, an int64 truncated
// to an int; CheckSizeEnv refuses what is not positive, so only positive
// values count (0 otherwise).
func sizeParam(env Env, name string) int {
	v, ok := env.Lookup(name)
	if !ok || v == "" {
		return 0
	}
	n, overflow := strtoll(v)
	if overflow || int32(n) <= 0 {
		return 0
	}
	return int(int32(n))
}
