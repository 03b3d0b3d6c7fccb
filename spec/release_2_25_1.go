package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.25.1 (tag v2.25.1-1), a delta against 2.24.3. The graph search is
// bounded by the system's own path types (ncclTopoCompute,
// ncclTopoGetGpuMaxPath): on hosts whose balanced tree needs a SYS crossing
// the Tree graph falls back to one channel and the model picks Ring
// (topo.Params.PathBasedTypes).
// Also: 64 channels, the Blackwell rows, per-architecture NVLS channels,
// NVLS and CollNetDirect channel caps, ncclMnnvlCheck and the NVLS early
// exit without the MNNVL clique form, LL128 by default on sm100/sm120, and
// NVLS AllGather/ReduceScatter only up to NCCL_MAX_NVLS_ARITY ranks.

var tag251 = "v2.25.1-1"

var nvlsEarly251 = nvlsEarly(Ref{Tag: tag251, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"}, nvlsEarly283.Doc,
	func(gpus, _ int, _ bool) (bool, string) {
		if gpus <= 2 {
			return true, "2 GPUs or fewer in the topology"
		}
		return false, ""
	})

const proto251Doc = `Protocols default to LL 1, LL128 2 (auto), Simple 1; a value set by NCCL_PROTO is 0/1 and bypasses the auto rule. LL128 auto is on when the graph's inter-node path is at most PXB (or PXN on sm90+), its intra-node path at most NVB, every GPU has the same compute capability and it is 7.0, 8.0, 9.0, 10.0 or 12.0 (not for a two-rank sm90 Ring AllReduce built with CUDA 11.8).`

var release2_25_1 = Release{
	Version: V2_25_1,
	Tag:     tag251,
	Consts:  consts2_25_1,
	Topo:    topo.Apply2_25_1,
	Tuning:  tuningApply2_25_1,
	Rules:   apply2_25_1,
}

func consts2_25_1(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag251, File: file, Func: fn} }
	rs.SetConst("MaxChannels", 64, ref("src/include/device.h", "MAXCHANNELS"))
	rs.SetConst("ConfigCTAEnvPositive", true, ref("src/init.cc", "envConfigOverride"))
	rs.SetConst("NVLSChannelsSM100", 32, ref("src/transport/nvls.cc", "ncclNvlsInit"))
	rs.SetConst("NVLSChannelsSM100Multi", 32, ref("src/transport/nvls.cc", "ncclNvlsInit"))
	rs.SetConst("MaxNVLSArity", 32, ref("src/graph/search.cc", "ncclTopoCompute"))
	rs.SetParamDefault("NCCL_NVLS_NCHANNELS", -2, ref("src/transport/nvls.cc", "NvlsChannels"))
}

func tuningApply2_25_1(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag251}
	tuningSet(d, &t.RegNVLS, TuningRegNVLSCompCap, "src/register/coll_reg.cc", "ncclRegisterCollNvlsBuffers")
	tuningSet(d, &t.NumCompCaps, 4, tuningCC, "BLACKWELL_COMPCAP_IDX")
	tuningSet(d, &t.LLMaxBw[TuningBlackwell][TuningN1], 2*141.0, tuningCC, "llMaxBws")
	tuningSet(d, &t.LLMaxBw[TuningBlackwell][TuningN2], 2*45.0, tuningCC, "llMaxBws")
	tuningSet(d, &t.LLMaxBw[TuningBlackwell][TuningN4], 2*35.0, tuningCC, "llMaxBws")
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN1], 2*36.7, tuningCC, "perChMaxRingLL128Bws")
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN2], 2*36.7, tuningCC, "perChMaxRingLL128Bws")
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN4], 2*36.7, tuningCC, "perChMaxRingLL128Bws")
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN1], 2*36.7, tuningCC, "perChMaxTreeLL128Bws")
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN2], 2*36.7, tuningCC, "perChMaxTreeLL128Bws")
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN4], 2*29.0, tuningCC, "perChMaxTreeLL128Bws")
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN1], 2*38.7, tuningCC, "perChMaxTreeBws")
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN2], 2*41.4, tuningCC, "perChMaxTreeBws")
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN4], 2*36.0, tuningCC, "perChMaxTreeBws")
	tuningSet(d, &t.MaxChannels, 64, deviceH, "MAXCHANNELS")
	tuningSet(d, &t.LL128Rule, TuningLL128R25, tuningCC, "ncclTopoTuneModel")
	tuningSet(d, &t.PruneNVLSAGRSRanks, true, enqueueCC, "updateCollCostTable")
	return d.changes, tuningJoinErrs(d.errs)
}

// mnnvl251Doc is G-MNNVL-1 as initTransportsRank calls ncclMnnvlCheck
// (2.25.1–2.26.6); 2.27.3 adds the user P2P level to the auto case.
const mnnvl251Doc = `Checked when there is more than one node and NCCL_MNNVL_ENABLE is not 0, or when NCCL_MNNVL_ENABLE is 1: cuMem, fabric-handle support, a complete fabric and a non-zero cluster UUID on every rank, a clique of more than one; failures are silent (MNNVL off). A clique fuses the topology of its nodes.`

func apply2_25_1(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag251, File: file, Func: fn} }
	rs.Replace(mnnvlRule(ref("src/mnnvl.cc", "ncclMnnvlCheck"), mnnvl251Doc, false), "ncclMnnvlCheck: also with NCCL_MNNVL_ENABLE=1 on one node")
	rs.Replace(configRule(ref("src/init.cc", "parseCommConfig, envConfigOverride")), "NCCL_MIN_CTAS/NCCL_MAX_CTAS override the config only when positive")
	rs.Replace(nvlsEarly251, "GPU count ≤ 2, no MNNVL clique form")
	rs.Replace(nvlsChan.withRef(ref("src/transport/nvls.cc", "ncclNvlsInit")), "per-architecture default: sm90 16, sm100 32")
	rs.Replace(collNetGraph(ref("src/graph/search.cc", "ncclTopoCompute"), func(n int) int { return min(8, n) }), "CollNetDirect ≤ min(8, #GPUs)")
	rs.Replace(nvlsGraph(ref("src/graph/search.cc", "ncclTopoCompute"), func(n int) int { return min(32, n) }), "NVLS ≤ 32 channels")
	rs.Replace(graphSearch.withRef(ref("src/graph/search.cc", "ncclTopoCompute")), "typeIntra/typeInter bounded by the system's GPU-GPU and GPU-NET paths (ncclTopoGetGpuMaxPath)")
	rs.Replace(protoRule(ref("src/graph/tuning.cc", "ncclTopoTuneModel"), proto251Doc, ll128Auto25), "LL128 auto also on sm100 and sm120")
	rs.Replace(pruneRule(ref("src/enqueue.cc", "updateCollCostTable"),
		pruneSet{nvlsAGExempt: true, nvlsAGRSOneNode: true, nvlsAGRSRanks: true, patScaling: true, fp8Ring: true}), "P6: NVLS AllGather/ReduceScatter also need nRanks ≤ NCCL_MAX_NVLS_ARITY")
}
