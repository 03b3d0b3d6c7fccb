package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// ncclSteps is NCCL_STEPS, spec/tuning's (the owner of calcCollChunking's
// geometry).
const ncclSteps = tuning.NSteps

// Params are the constants of one NCCL release that shape a schedule: FIFO
// geometry, protocol grains, the channel partition of
// scheduleCollTasksToPlan and the chunking of calcCollChunking. The
// geometry below is the same in every modelled release; every fact that
// differs between releases is read from the release's spec.Release (its
// Consts and its tuning model), so a new release needs no entry here.
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
	// MaxChannels is MAXCHANNELS (src/include/device.h): the release's
	// Consts.MaxChannels.
	MaxChannels int
	// RingChunkSteps and RingSliceSteps are the *_CHUNKSTEPS and
	// *_SLICESTEPS of Ring/Simple per function (src/include/collectives.h).
	RingChunkSteps, RingSliceSteps [spec.NumFuncs]int
	// Sched is spec's tuning constants of the release: the channel split of
	// scheduleCollTasksToPlan is spec's (CollPartition), read from there.
	Sched *tuning.Consts
	// NVLSChunkSize is NCCL_NVLS_CHUNKSIZE's default (src/transport/nvls.cc).
	NVLSChunkSize int
	// ChunkRules are calcCollChunking's switches of the release
	// (spec.Consts.ChunkRules: the NVLS caps, NVLSTree's start, 2.18/2.19's
	// Tree/Simple depth halving).
	ChunkRules tuning.ChunkRules
	// HasPAT: the PAT algorithm exists (Consts.HasPAT, 2.23.4 and later).
	HasPAT bool
	// FP8: ncclFloat8e4m3 and ncclFloat8e5m2 exist (Consts.HasFP8, 2.24
	// and later).
	FP8 bool
	// NVLSNetGatherScatter: NVLS runs AllGather and ReduceScatter across
	// nodes through CollNet (the "NVLS + IB SHARP" branches of
	// src/device/all_gather.h and reduce_scatter.h, 2.27.3 and later;
	// before, NVLS AllGather/ReduceScatter are single-node only). The cost
	// table prunes them across nodes exactly while the kernels lack it:
	// the tuning model's PruneNVLSMultiNodeAGRS, negated.
	NVLSNetGatherScatter bool
	// NVLSNetMinChannels: NVLS across nodes runs on min(nvlsChannels,
	// nChannels) channels (topoGetAlgoInfo and scheduleCollTasksToPlan,
	// 2.28.3 and later); before, on nvlsChannels. The tuning model's
	// NVLSMultiNodeMinChannels.
	NVLSNetMinChannels bool
	// NVLSLastChunkAlign is the byte alignment of the last (shrunk) chunk of
	// a one-node NVLS AllReduce loop (Consts.NVLSLastChunkAlign).
	NVLSLastChunkAlign int
	// P2P is the release's send/recv planner facts (spec.Consts.P2PRules,
	// the p2p batches' epochs among them); SimpleBuffSizeARM: 2.18.x's
	// Simple buffer on ARM CPUs (spec.Consts says what each is).
	P2P               tuning.P2PRules
	SimpleBuffSizeARM int
}

// releaseParams lists the modelled releases oldest first.
var releaseParams = buildReleaseParams()

// buildReleaseParams reads each modelled release's schedule facts from the
// release as spec.Load builds it.
func buildReleaseParams() []Params {
	out := make([]Params, 0, len(spec.Releases))
	for _, v := range spec.Releases {
		rs, err := spec.Load(v)
		if err != nil {
			panic(fmt.Sprintf("algos: release %s does not build: %v", v, err))
		}
		out = append(out, paramsOf(rs))
	}
	return out
}

// paramsOf is the schedule constants of a built release.
// Ref: src/enqueue.cc scheduleCollTasksToPlan, calcCollChunking; src/init.cc
// computeBuffSizes (the geometry is unchanged from 2.18.1 to 2.30.7).
func paramsOf(rs *spec.Ruleset) Params {
	k, tu := rs.Consts, rs.Tuning
	return Params{
		Release:              rs.Version,
		NSteps:               ncclSteps,
		DefaultBuffSize:      tuning.DefaultBuffSize,
		GrainSize:            tuning.GrainSize,
		MaxChannels:          k.MaxChannels,
		RingChunkSteps:       tuning.RingChunkSteps,
		RingSliceSteps:       tuning.RingSliceSteps,
		Sched:                tu,
		NVLSChunkSize:        topo.NvlsChunkSizeDefault,
		HasPAT:               k.HasPAT,
		FP8:                  k.HasFP8,
		NVLSNetGatherScatter: !tu.PruneNVLSMultiNodeAGRS,
		NVLSNetMinChannels:   tu.NVLSMultiNodeMinChannels,
		NVLSLastChunkAlign:   k.NVLSLastChunkAlign,
		P2P:                  k.P2PRules(),
		SimpleBuffSizeARM:    k.SimpleBuffSizeARM,
		ChunkRules:           k.ChunkRules(),
	}
}

// ParamsFor returns the parameters of the newest modelled release that is
// not newer than v. Releases between two modelled ones get the older one's
// constants; that is exact only at the modelled tags.
func ParamsFor(v spec.Version) (Params, error) {
	var out Params
	found := false
	for _, p := range releaseParams {
		if v.Within(p.Release, 0) {
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

// chunkBase is calcCollChunking's start (tuning.ChunkComm.ChunkGeometry
// on the layout's buffers, ranks and nodes, on buffers registered as reg):
// the chunk before the algorithm's shrinking and the chunk and slice
// steps.
func (p Params) chunkBase(l *Layout, f spec.Func, a spec.Algo, proto spec.Proto, reg tuning.ChunkReg) (chunk, chunkSteps, sliceSteps int) {
	cc := tuning.ChunkComm{BuffSize: l.BuffSize, NRanks: l.NRanks(), NNodes: l.NNodes, Rules: p.ChunkRules}
	_, chunkSteps, sliceSteps, chunk = cc.ChunkGeometry(f, a, proto, reg)
	return chunk, chunkSteps, sliceSteps
}
