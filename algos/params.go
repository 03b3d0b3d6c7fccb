package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL_STEPS, the depth of every connection FIFO, in all modelled releases.
// Ref: v2.28.9-1 src/include/device.h NCCL_STEPS.
const ncclSteps = 8

// LL128 line geometry: a 128-byte line is 16 eight-byte words of which 15
// carry data and one carries the flag. Ref: v2.28.9-1 src/include/device.h
// NCCL_LL128_LINEELEMS, NCCL_LL128_DATAELEMS.
const (
	ll128LineElems = 16
	ll128DataElems = 15
)

// Params are the constants of one NCCL release that shape a schedule: FIFO
// geometry, protocol grains, the channel partition of
// scheduleCollTasksToPlan and the chunking of calcCollChunking. A release's
// entry is the previous one plus what changed; each field says where it
// comes from.
type Params struct {
	Release spec.Version
	// NSteps is NCCL_STEPS (src/include/device.h).
	NSteps int
	// DefaultBuffSize is the per-connection buffer of LL, LL128 and Simple
	// when NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE and NCCL_BUFFSIZE are unset:
	// LL 8 lines/thread × 512 threads × 8 steps × 16 B, LL128 120 words ×
	// 640 threads × 8 steps × 8 B, Simple 4 MiB (src/init.cc
	// DEFAULT_*BUFFSIZE, computeBuffSizes).
	DefaultBuffSize [spec.NumProtos]int
	// GrainSize is ncclProtoGrainSize: chunk sizes are multiples of it
	// (src/include/device.h).
	GrainSize [spec.NumProtos]int
	// MaxChannels is MAXCHANNELS (src/include/device.h).
	MaxChannels int
	// RingChunkSteps and RingSliceSteps are the *_CHUNKSTEPS and
	// *_SLICESTEPS of Ring/Simple per function (src/include/collectives.h).
	RingChunkSteps, RingSliceSteps [spec.NumFuncs]int
	// Sched is spec's tuning constants of the release: the channel split of
	// scheduleCollTasksToPlan is spec's (CollPartition), read from there.
	Sched *spec.Tuning
	// NVLSChunkSize is NCCL_NVLS_CHUNKSIZE's default (src/transport/nvls.cc),
	// or before 2.21.5 the fixed NVLS chunk of computeColl (131072).
	NVLSChunkSize int
	// NVLSNetChunkCap: NVLS across nodes whose NVLS AllReduce bandwidth is
	// below 150 GB/s moves 32 KiB chunks (2.19.3 and later).
	NVLSNetChunkCap bool
	// NVLSTreeChunkFromStep: NVLSTree's chunk starts from the Simple step
	// size, not from NVLSChunkSize (2.18.1–2.20.5).
	NVLSTreeChunkFromStep bool
	// NVLSTreeChunkCap4Nodes: NVLSTree's chunk is at most 64 KiB from 4
	// nodes on (2.19.3 and later).
	NVLSTreeChunkCap4Nodes bool
	// HasPAT: the PAT algorithm exists (2.23.4 and later).
	HasPAT bool
	// FP8: ncclFloat8e4m3 and ncclFloat8e5m2 exist (2.24 and later).
	FP8 bool
	// NVLSNetGatherScatter: NVLS runs AllGather and ReduceScatter across
	// nodes through CollNet (the "NVLS + IB SHARP" branches of
	// src/device/all_gather.h and reduce_scatter.h, 2.27.3 and later;
	// before, NVLS AllGather/ReduceScatter are single-node only).
	NVLSNetGatherScatter bool
	// NVLSNetMinChannels: NVLS across nodes runs on min(nvlsChannels,
	// nChannels) channels (topoGetAlgoInfo and scheduleCollTasksToPlan,
	// 2.28.3 and later); before, on nvlsChannels.
	NVLSNetMinChannels bool
	// NVLSLastChunkAlign is the byte alignment of the last (shrunk) chunk of
	// a one-node NVLS AllReduce loop: 16 in 2.22.3, 16 KiB from 2.23.4
	// (src/device/all_reduce.h, the NVLS runWorkColl's lastChunkSize).
	NVLSLastChunkAlign int
	// P2PChannelBaseReversed: the channel of a p2p round's first part is
	// the round's base with its low log2(p2pnChannels) bits reversed, so
	// consecutive rounds start far apart (2.28.3 and later); before, the
	// base itself (src/include/channel.h ncclP2pChannelBaseForRound).
	P2PChannelBaseReversed bool
	// P2PGroupSchedule: the p2p schedule walks groups of
	// NCCL_P2P_SCHEDULE_GROUP_SIZE local ranks (all local ranks on one node)
	// with quadratic deltas between groups and linear ones inside, and
	// the channel base counts rounds in groups (2.28.7 and later); before,
	// quadratic deltas between nodes and inside each node (src/init.cc
	// initTransportsRank p2pSchedule, src/include/channel.h).
	P2PGroupSchedule bool
	// P2PBatchEpoch: a p2p work batch holds only rounds of one epoch of
	// NCCL_MAX_DEV_WORK_P2P_PER_BATCH rounds (2.28.7 and later;
	// src/enqueue.cc addWorkBatchToPlan).
	P2PBatchEpoch bool
	// Ref names the tag the entry was read at.
	Ref string
}

// releaseParams lists the modelled releases oldest first; each entry is
// built from the one before it.
var releaseParams = buildReleaseParams()

func buildReleaseParams() []Params {
	base := Params{
		Release:         spec.V2_22_3,
		NSteps:          ncclSteps,
		DefaultBuffSize: [spec.NumProtos]int{8 * 512 * ncclSteps * 16, 120 * 640 * ncclSteps * 8, 1 << 22},
		GrainSize:       [spec.NumProtos]int{16, 32 * 8 / ll128LineElems * ll128DataElems * 8, 512},
		MaxChannels:     32,
		// Broadcast, Reduce, AllGather, ReduceScatter, AllReduce
		RingChunkSteps:         [spec.NumFuncs]int{1, 1, ncclSteps / 2, ncclSteps / 2, ncclSteps / 2},
		RingSliceSteps:         [spec.NumFuncs]int{1, 1, ncclSteps / 4, ncclSteps / 4, ncclSteps / 4},
		NVLSChunkSize:          128 << 10,
		NVLSNetChunkCap:        true,
		NVLSTreeChunkCap4Nodes: true,
		NVLSLastChunkAlign:     16,
		Ref:                    "v2.22.3-1 src/enqueue.cc scheduleCollTasksToPlan, calcCollChunking; src/init.cc computeBuffSizes",
	}
	// 2.21.5 (v2.21.5-1): the same FIFO and chunk geometry; its channel
	// split (maxBytesPerChannel) is spec's, read through Sched.
	r2215 := base
	r2215.Release = spec.V2_21_5
	r2215.Ref = "v2.21.5-1 src/enqueue.cc computeCollChunkInfo, getChannnelThreadInfo; src/init.cc computeBuffSizes"
	r2205 := r2215
	r2205.Release = spec.V2_20_5
	r2205.NVLSTreeChunkFromStep = true // no nvlsChunkSize: chunkSize stays stepSize
	r2205.Ref = "v2.20.5-1 src/enqueue.cc computeCollChunkInfo (NVLS chunk 131072, NVLSTree from the step size), getChannnelThreadInfo"
	r2203 := r2205
	r2203.Release = spec.V2_20_3
	r2203.Ref = "v2.20.3-1 src/enqueue.cc computeCollChunkInfo, getChannnelThreadInfo (as 2.21.5)"
	r2194 := r2203
	r2194.Release = spec.V2_19_4
	r2194.Ref = "v2.19.4-1 src/enqueue.cc computeColl, topoGetAlgoInfo (as 2.21.5)"
	r2193 := r2194
	r2193.Release = spec.V2_19_3
	r2193.Ref = "v2.19.3-1 src/enqueue.cc computeColl, topoGetAlgoInfo (as 2.19.4)"
	r2191 := r2193
	r2191.Release = spec.V2_19_1
	r2191.NVLSNetChunkCap, r2191.NVLSTreeChunkCap4Nodes = false, false // computeColl has neither cap
	r2191.Ref = "v2.19.1-1 src/enqueue.cc computeColl (NVLS without the 32 KiB cap across nodes, NVLSTree without the 64 KiB cap from 4 nodes), topoGetAlgoInfo"
	r2186 := r2191
	r2186.Release = spec.V2_18_6
	r2186.Ref = "v2.18.6-1 src/enqueue.cc getAlgoInfo, computeColl; src/init.cc computeBuffSizes"
	r2185, r2183, r2181 := r2186, r2186, r2186
	r2185.Release, r2183.Release, r2181.Release = spec.V2_18_5, spec.V2_18_3, spec.V2_18_1
	r2185.Ref = "v2.18.5-1 (schedule as 2.18.6)"
	r2183.Ref = "v2.18.3-1 (schedule as 2.18.6)"
	r2181.Ref = "v2.18.1-1 (schedule as 2.18.6)"
	r2234 := base
	r2234.Release = spec.V2_23_4
	r2234.HasPAT = true
	r2234.NVLSLastChunkAlign = 16384
	r2234.Ref = "v2.23.4-1 src/enqueue.cc scheduleCollTasksToPlan (16K cells), calcCollChunking (PAT); src/device/all_reduce.h NVLS lastChunkSize"
	r2243 := r2234
	r2243.Release = spec.V2_24_3
	r2243.FP8 = true
	r2243.Ref = "v2.24.3-1 src/enqueue.cc taskAppend (fp8)"
	r2251 := r2243
	r2251.Release = spec.V2_25_1
	r2251.MaxChannels = 64
	r2251.Ref = "v2.25.1-1 src/include/device.h MAXCHANNELS 64"
	r2262 := r2251
	r2262.Release = spec.V2_26_2
	r2262.Ref = "v2.26.2-1 src/enqueue.cc scheduleCollTasksToPlan (LL traffic x4)"
	r2263, r2265, r2266 := r2262, r2262, r2262
	r2263.Release, r2265.Release, r2266.Release = spec.V2_26_3, spec.V2_26_5, spec.V2_26_6
	r2273 := r2262
	r2273.Release = spec.V2_27_3
	r2273.NVLSNetGatherScatter = true
	r2273.Ref = "v2.27.3-1 src/device/all_gather.h, reduce_scatter.h (NVLS across nodes through CollNet)"
	r2275, r2276, r2277 := r2273, r2273, r2273
	r2275.Release, r2276.Release, r2277.Release = spec.V2_27_5, spec.V2_27_6, spec.V2_27_7
	r2283 := r2273
	r2283.Release = spec.V2_28_3
	r2283.NVLSNetMinChannels = true
	r2283.P2PChannelBaseReversed = true
	r2283.Ref = "v2.28.3-1 src/enqueue.cc scheduleCollTasksToPlan (16K cells, LL traffic x4), src/include/device.h MAXCHANNELS 64"
	r2287 := r2283
	r2287.Release = spec.V2_28_7
	r2287.P2PGroupSchedule = true
	r2287.P2PBatchEpoch = true
	r2287.Ref = "v2.28.7-1 src/init.cc p2pSchedule groups, src/enqueue.cc addWorkBatchToPlan p2p batch epochs; scheduleCollTasksToPlan, calcCollChunking unchanged from 2.28.3"
	r2289 := r2287
	r2289.Release = spec.V2_28_9
	r2289.Ref = "v2.28.9-1 src/enqueue.cc scheduleCollTasksToPlan, calcCollChunking (unchanged from 2.28.7)"
	// 2.29.2's 32 KiB cells and traffic rounded to 16 B are spec's (Sched).
	r2292 := r2289
	r2292.Release = spec.V2_29_2
	r2292.Ref = "v2.29.2-1 src/enqueue.cc scheduleCollTasksToPlan (32K cells, traffic per channel rounded to 16 B)"
	r2293 := r2292
	r2293.Release = spec.V2_29_3
	r2293.Ref = "v2.29.3-1 (schedule unchanged from 2.29.2)"
	r2297 := r2293
	r2297.Release = spec.V2_29_7
	r2297.Ref = "v2.29.7-1 (schedule unchanged from 2.29.2)"
	r2303 := r2297
	r2303.Release = spec.V2_30_3
	r2303.Ref = "v2.30.3-1 src/enqueue.cc calcCollChunking (NVLSTree chunk min(nvlsChunkSize, nvlsTreeMaxChunkSize); the v6 tuner's chunk size)"
	r2304 := r2303
	r2304.Release = spec.V2_30_4
	r2304.Ref = "v2.30.4-1 (schedule unchanged from 2.30.3)"
	r2307 := r2304
	r2307.Release = spec.V2_30_7
	r2307.Ref = "v2.30.7-1 src/enqueue.cc scheduleCollTasksToPlan (unchanged from 2.30.3)"
	// -- add new releases here --
	out := []Params{r2181, r2183, r2185, r2186, r2191, r2193, r2194, r2203, r2205, r2215, base, r2234, r2243, r2251, r2262, r2263, r2265, r2266, r2273, r2275, r2276, r2277, r2283, r2287, r2289, r2292, r2293, r2297, r2303, r2304, r2307}
	for i := range out {
		tu, _, err := spec.TuningForRelease(out[i].Release)
		if err != nil {
			panic(fmt.Sprintf("algos: release %s has schedule parameters but no tuning constants: %v", out[i].Release, err))
		}
		out[i].Sched = tu
	}
	return out
}

// ParamsFor returns the parameters of the newest modelled release that is
// not newer than v. Releases between two modelled ones get the older one's
// constants; that is exact only at the modelled tags.
func ParamsFor(v spec.Version) (Params, error) {
	var out Params
	found := false
	for _, p := range releaseParams {
		if p.Release <= v {
			out, found = p, true
		}
	}
	if !found {
		return Params{}, fmt.Errorf("NCCL %s is older than every release the schedule builders model (oldest %s)", v, releaseParams[0].Release)
	}
	return out, nil
}

// releaseTopo is the topology stage's parameters (ncclTopoPostset's
// release facts among them) of the newest modelled release not newer than
// v, as its spec.Release builds them.
func releaseTopo(v spec.Version) (topo.Params, error) {
	r, ok := spec.Nearest(v)
	if !ok {
		return topo.Params{}, &spec.UnsupportedError{Version: v}
	}
	return spec.TopoParamsFor(r)
}

// ChunkBytes is the Ring/Simple chunk of a function, or the one-step chunk
// of other algorithms and protocols, before calcCollChunking's
// algorithm-specific shrinking: stepSize × chunkSteps, halved for LL (half
// of every line is flags), 15/16 for LL128.
// Ref: v2.28.9-1 src/enqueue.cc calcCollChunking.
func (p Params) chunkBase(f spec.Func, a spec.Algo, proto spec.Proto, buff [spec.NumProtos]int) (chunk, chunkSteps, sliceSteps int) {
	stepSize := buff[proto] / p.NSteps
	chunkSteps, sliceSteps = 1, 1
	if proto == spec.Simple && a == spec.Ring && f >= 0 && int(f) < spec.NumFuncs {
		chunkSteps, sliceSteps = p.RingChunkSteps[f], p.RingSliceSteps[f]
	}
	chunk = stepSize * chunkSteps
	switch proto {
	case spec.LL:
		chunk /= 2
	case spec.LL128:
		chunk = chunk / ll128LineElems * ll128DataElems
	}
	return chunk, chunkSteps, sliceSteps
}
