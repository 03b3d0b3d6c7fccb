package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.30.7 (tag v2.30.7-1) as a delta against 2.30.4: CollNetChain only
// when its heads have CollNet resources, NVLS off when ranks share a GPU,
// a network-registered Ring AllGather/Broadcast on comm->minNetCount
// channels, the environment plugin ABI v2, the typed parameter registry
// (spec/params), and MLOPart partitions in the topology, which gatesim
// refuses (topo.MLOPartAttr).

var tag2307 = "v2.30.7-1"

var release2_30_7 = Release{
	Version: V2_30_7,
	Tag:     tag2307,
	Consts:  consts2_30_7,
	Topo:    topo.Apply2_30_7,
	Tuning:  tuningApply2_30_7,
	Rules:   apply2_30_7,
}

func consts2_30_7(rs *Ruleset) {
	rs.SetConst("EnvABI", []int{2, 1}, Ref{Tag: tag2307, File: "src/plugin/env.cc", Func: "ncclEnvPluginLoad"})
	rs.SetConst("GinABI", []int{14, 13}, Ref{Tag: tag2307, File: "src/plugin/gin.cc", Func: "ncclGinPluginLoad"})
	rs.SetConst("RmaABI", []int{14, 13}, Ref{Tag: tag2307, File: "src/plugin/rma.cc", Func: "ncclRmaPluginLoad"})
	rs.SetConst("SHMDirectOnly", true, Ref{Tag: tag2307, File: "src/transport/shm.cc", Func: "shmSendSetup"})
}

var gin307 = ginLoader(Ref{Tag: tag2307, File: "src/plugin/gin.cc", Func: "ncclGinInit"},
	`2.29.7's loader (NCCL_GIN_PLUGIN or libnccl-gin.so, then the net plugin's library, then the internal IB GIN, GDAKI before the proxy) with at most 13 list entries, GinABI v14, v13, and per-entry lines "GIN/Plugin: Loaded gin plugin %s (vN)" and "GIN/Plugin: Successfully loaded external plugin %s", or "GIN/Plugin: Failed to load external plugin %s, dlHandle: %p, ncclGin: %p". It runs after the RMA loader. GIN decides nothing gatesim models.`,
	listPluginAt(ginKind, 13, 13, "GIN/Plugin: Loaded gin plugin %s (v%d)", true))

var rma307 = rmaLoader(Ref{Tag: tag2307, File: "src/plugin/rma.cc", Func: "ncclRmaInit"},
	`The RMA plugin's own loader, run between ncclNetInit and ncclGinInit: NCCL_RMA_PLUGIN set: logged; "none" gives no external entry, otherwise a comma list (at most 13 entries); unset: libnccl-rma.so. Each entry is opened by the common loader and probed for ncclRmaPlugin_vN over RmaABI (v14, v13; "RMA/Plugin: Loaded rma plugin %s (vN)", then "RMA/Plugin: Successfully loaded external plugin %s" or "RMA/Plugin: Failed to load external plugin %s, dlHandle: %p, ncclRma: %p"); then the GIN plugin's library (not open yet on a process's first communicator), the net plugin's library, and the internal IB proxy RMA. RMA decides nothing gatesim models.`,
	listPluginAt(rmaKind, 13, 13, "RMA/Plugin: Loaded rma plugin %s (v%d)", true))

func tuningApply2_30_7(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2307}
	tuningSet(d, &t.CollNetChainSupport, true, tuningCC, "ncclTopoTuneModel")
	tuningSet(d, &t.RegNetRing, TuningRegNetRingNICs, "src/register/coll_reg.cc", "ncclRegisterCollBuffers")
	return d.changes, tuningJoinErrs(d.errs)
}

var nvlsEarly307 = nvlsEarly(Ref{Tag: tag2307, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	`NVLS is turned off when several ranks of the communicator share one GPU (hasMultiRankNvml; with NCCL_NVLS_ENABLE=1 a WARN and ncclInvalidUsage; modelled systems have one rank per GPU), then silently when the topology has fewer than 2 GPUs, or when the driver entry point cuDeviceGet is missing.`,
	nvlsOffBelow2)

func apply2_30_7(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2307, File: file, Func: fn} }
	rs.Replace(envPlugin.withRef(ref("src/plugin/env.cc", "ncclEnvPluginLoad")), "ncclEnvPlugin_v2, then v1 (2.30.7)")
	rs.Replace(nvlsEarly307, "ranks sharing a GPU turn NVLS off (2.30.7)")
	rs.Replace(gin307, "window v14, v13; GIN/Plugin lines (2.30.7)")
	rs.Replace(rma307, "the RMA plugin's own loader: NCCL_RMA_PLUGIN, libnccl-rma.so, then the net plugin's library (2.30.7)")
	rs.Move("G-RMA-1", "G-NET-LIB-3", ref("src/init.cc", "commAlloc"), "ncclRmaInit runs between ncclNetInit and ncclGinInit")
}
