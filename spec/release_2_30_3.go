package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.30.3 (tag v2.30.3-1) as a delta against 2.29.7: tuner ABI v6 (an
// optional getChunkSize), net and CollNet ABI v12, LL128 for mixed sm90+
// GPUs, the "No algorithm/protocol available" text, MNNVL across cliques of
// one fabric cluster (NCCL_MNNVL_CROSS_CLIQUE), the Blackwell NVLSTree
// cap on four or more nodes, and in the topology stage (topo.Apply2_30_3)
// ncclNvlsTuning's channels and chunks and the p2p halving over
// NCCL_P2P_MAX_PEERS peers.

var tag2303 = "v2.30.3-1"

var release2_30_3 = Release{
	Version: V2_30_3,
	Tag:     tag2303,
	Consts:  consts2_30_3,
	Topo:    topo.Apply2_30_3,
	Tuning:  tuningApply2_30_3,
	Rules:   apply2_30_3,
}

func consts2_30_3(rs *Ruleset) {
	rs.SetConst("NetABI", []int{12, 11, 10, 9, 8, 7, 6}, Ref{Tag: tag2303, File: "src/plugin/net.cc", Func: "ncclNetPluginLoad"})
	rs.SetConst("ConfigFields", configFieldsThrough("maxP2pPeers"), Ref{Tag: tag2303, File: "src/nccl.h.in", Func: "ncclConfig_t"})
	rs.SetConst("TunerABI", []int{6, 5, 4, 3, 2}, Ref{Tag: tag2303, File: "src/plugin/tuner.cc", Func: "ncclTunerPluginLoad"})
	rs.SetConst("GinABI", []int{13, 12, 11}, Ref{Tag: tag2303, File: "src/plugin/gin.cc", Func: "ncclGinPluginLoad"})
	rs.SetConst("RmaABI", []int{13}, Ref{Tag: tag2303, File: "src/plugin/gin/gin_v13.cc", Func: "getNcclRma_v13"})
	rs.SetParamDefault("NCCL_MNNVL_CROSS_CLIQUE", 0, Ref{Tag: tag2303, File: "src/init.cc", Func: "MNNVLCrossClique"})
	setCollNetFail(rs, tag2303, collNetFailSetup(373, 401, 1629))
	rs.SetParamDefault(devDupMultiRankVar, 0, Ref{Tag: tag2303, File: "src/graph/topo.cc", Func: "ncclCheckMultiRank"})
	rs.SetConst("DevCommForm", devComm303, Ref{Tag: tag2303, File: "src/gin/gin_host.cc", Func: "ncclGinDevCommSetup"})
	rs.SetConst("GinPools", GinPools{}, Ref{Tag: tag2303, File: "src/gin/gin_host.cc", Func: "ncclGinDevCommSetup"})
	rs.SetConst("GdcPinForcePCIe", true, Ref{Tag: tag2303, File: "src/include/graph.h", Func: "ncclGdcPinFlag"})
	rs.SetConst("WinSegments", 2, Ref{Tag: tag2303, File: "src/dev_runtime.cc", Func: "ncclDevrWindowRegisterInGroup, symMemoryObtain"})
}

// profiler30 unloads a profiler whose init failed.
var profiler30 = profilerPlugin(Ref{Tag: tag2303, File: "src/plugin/profiler.cc", Func: "ncclProfilerPluginInit"},
	`2.28.3's loader (NCCL_PROFILER_PLUGIN logged, "none", the common loader's names, the net plugin's library as a fallback, ncclProfiler_v6–_v1, "Loaded %s (vN)", "External profiler plugin %s is unsupported"); an init error is an INFO line ("Profiler init failed with error '%d': %s. Continue without profiler.") and the plugin is unloaded (ncclProfilerPluginUnload). Nothing here fails communicator init.`,
	profilerOpts{names: namesCond, notFoundEnd: "", common: true, symLines: profSymLoaded, initFail: profInitInfoUnload})

func tuningApply2_30_3(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2303}
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningBlackwell][TuningN4], 80.0, tuningCC, "ncclTunerConstantsDefaults")
	tuningSet(d, &t.SymTMA, true, "src/sym_kernels.cc", "ncclSymkMask")
	tuningSet(d, &t.SymAvg, true, "src/scheduler/symmetric_sched.cc", "symkRedOp")
	// NOWARN around the probe's ncclGetAlgoInfo: its failure sends the
	// piece back instead of failing the group
	tuningSet(d, &t.SymProbeErr, false, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	tuningSet(d, &t.WinSysmem, true, "src/enqueue.cc", "taskAppend")
	tuningSet(d, &t.LL128Rule, TuningLL128C2CMixed, tuningCC, "ncclTopoTuneModel")
	tuningSet(d, &t.NoAlgo, TuningNoAlgoR30, enqueueCC, "topoGetAlgoInfo")
	tuningSet(d, &t.TunerChunkSize, true, enqueueCC, "calcCollChunking")
	// ncclDevComm gains its version header and the hybrid/world GIN
	// barriers (240 bytes); still 55 symmetric tasks per bin (2.30.4 and
	// 2.30.7 reshape the fields at the same size)
	tuningSet(d, &t.SymArgsBytes, 304, symKernelsH, "struct ncclSymkDevWorkArgs")
	// ncclDevWorkColl is padded for 16-byte loads: 12 bytes after root
	// (then 4 of alignment before recvbuff), 8 after sendbuff and 8 at
	// the end: 8+12+4+16+8+32+32+8+8 = 128 bytes, 1024/128 = 8 per batch
	tuningSet(d, &t.WorkCollBytes, 128, deviceH, "struct ncclDevWorkColl")
	tuningSet(d, &t.MaxDevWorkBatchColls, 8, deviceH, "NCCL_MAX_DEV_WORK_BATCH_COLLS")
	// ncclDevWorkCollReg is that work and three arrays of
	// NCCL_MAX_DIRECT_ARITY+1 pointers: 128 + 192 = 320 bytes
	tuningSet(d, &t.WorkCollRegBytes, 320, deviceH, "struct ncclDevWorkCollReg")
	return d.changes, tuningJoinErrs(d.errs)
}

var tunerABI30 = tunerABI(Ref{Tag: tag2303, File: "src/plugin/tuner.cc", Func: "ncclTunerPluginLoad"},
	`Probe ncclTunerPlugin_v6, _v5, _v4, _v3, _v2 (newest first); v6 is used as it is (its getChunkSize may override calcCollChunking's chunk, clamped to the buffer's), older versions are adapted with no getChunkSize. None: "External tuner plugin %s is unsupported" (only for a library opened as a tuner, not for the net plugin's library).`,
	tunerABILogs28, tunerABILog28)

var mnnvl30 = mnnvlRuleCrossClique(Ref{Tag: tag2303, File: "src/mnnvl.cc", Func: "ncclMnnvlCheck"},
	`Checked when there is more than one node and NCCL_MNNVL_ENABLE is not 0 and the user P2P level is not LOC (NCCL_P2P_DISABLE=1, NCCL_P2P_LEVEL=LOC or 0 make it LOC), or when NCCL_MNNVL_ENABLE is 1: cuMem, fabric-handle support, a complete fabric and a non-zero cluster UUID on every rank; the clique is the ranks of the same cluster UUID and clique id, the NVL domain (nvlDomainSize) those of the same cluster UUID, every clique; MNNVL needs a clique or a domain of more than one rank; failures are silent (MNNVL off). A clique fuses the topology of its nodes; the other cliques of the domain stay separate nodes. After nNodes is known, NCCL_MNNVL_CROSS_CLIQUE (default 0) other than 0 on an MNNVL communicator whose domain holds more than its clique turns p2pCrossClique on (INFO "Cross-clique P2P enabled"): a peer of the same cluster UUID in another clique is an MNNVL peer (ncclTopoCheckMNNVL returns -1) and ncclTopoCheckP2p forces CUDA P2P to it, so the transports between those nodes are P2P rather than NET, while the graphs, nNodes and the cost table are unchanged; ncclPrepareTasks then makes no symmetric task list.`)

// sideDoc303: the TMA kernels, cliques, and windows in host memory.
const sideDoc303 = sideDoc297 + ` From 2.30.3 the TMA kernels (AllReduce_RSxTmaLD_AGxTmaST, AllGather_TmaST, AllGather_TmaSTMC, ReduceScatter_TmaLD) are available on sm100+ under NCCL_SYM_TMA_ENABLE=1 (default 0); each shares the model of its store or load kernel and comes before it, so it takes that kernel's place; a communicator across cliques makes no symmetric task list; a window with host-memory segments takes neither the copy engines nor a symmetric kernel (G-WIN-HOST-1).`

func apply2_30_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2303, File: file, Func: fn} }
	rs.Replace(netABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "window v12-v6 (2.30.3)")
	rs.Replace(configRule(ref("src/init.cc", "parseCommConfig, envConfigOverride")), "ncclConfig_t gains maxP2pPeers")
	rs.Replace(collNetABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "window v12-v6 (2.30.3)")
	rs.Replace(tunerABI30, "window v6-v2 (2.30.3)")
	rs.Replace(profiler30, "a profiler whose init fails is unloaded (2.30.3)")
	rs.Replace(ruleAt(sideRule29, ref("src/sym_kernels.cc", "ncclSymkMask"), sideDoc303), "TMA symmetric kernels on sm100 (NCCL_SYM_TMA_ENABLE, 2.30.3)")
	rs.Replace(ruleAt(gin297, ref("src/plugin/gin.cc", "ncclGinInit"), ""), "window v13-v11 (2.30.3)")
	rs.Add(rmaInGin(ref("src/plugin/gin.cc", "ncclGinPluginLoad")), "G-GIN-1", "ncclRmaPlugin_v13 beside the GIN plugin (2.30.3)")
	rs.Replace(mnnvl30, "NCCL_MNNVL_CROSS_CLIQUE (2.30.3)")
	rs.Replace(devInitAll30, "NCCL_MULTI_RANK_GPU_ENABLE=1 skips ncclCommInitAll's duplicate-device check (2.30.3)")
	rs.Replace(devDup30, "ncclCheckMultiRank: \"Multiple ranks detected using the same GPU\", NCCL_MULTI_RANK_GPU_ENABLE (2.30.3)")
	rs.Replace(nvlsCap(ref("src/transport/nvls.cc", "ncclNvlsInit"), false), `log drops (NVLS_NCHANNELS %d): "NVLS tuning" prints the channels (2.30.3)`)
	rs.Replace(errRule(ref("src/enqueue.cc", "topoGetAlgoInfo"), "No algorithm/protocol available"), `WARN text "No algorithm/protocol available ..." (2.30.3)`)
	rs.Replace(ruleAt(collNetFlushRule, ref("src/transport/coll_net.cc", "recvProxyConnect, recvProxyProgress, ncclCollNetSetup; src/include/graph.h ncclGdcPinFlag"), collNetFlushDoc+collNetFlushC2CDoc),
		"with gdrcopy sync on and GDRCopy 2.5+, a C2C flush is skipped: not reached by any modelled system (2.30.3)")
	rs.Replace(rmaRule(ref("src/enqueue.cc", "rmaTaskAppend"), rmaDriver, rmaDoc303), "one-sided calls need a CUDA 12.5 driver; a put refuses host-memory windows (2.30.3)")
	rs.Add(winHostRule, "", "ncclCommWindowRegister takes host-memory segments (NCCL_ELASTIC_BUFFER_REGISTER); such a window takes no copy engines and no symmetric kernel (2.30.3)")
	rs.Replace(devCommRule(ref("src/dev_runtime.cc", "ncclDevrCommCreateInternal; src/gin/gin_host.cc ncclGinConnectOnce, ncclGinDevCommSetup"), devCommDoc303), "GIN contexts per device communicator; NCCL_GIN_NCONTEXTS and NCCL_GIN_EXCLUSIVE_CONTEXTS gone (2.30.3)")
	rs.Replace(devCommShareRule(ref("src/gin/gin_host.cc", "ncclGinConnectOnce, ncclGinDevCommSetup"), shareDoc303), "each device communicator's contexts its own; the connection from comm->globalGinSupport; no pools (2.30.3)")
	rs.Replace(devCommDestroyRule(ref("src/dev_runtime.cc", "ncclDevCommDestroy; src/gin/gin_host.cc ncclGinDevCommFree"), destroyDoc303), "ncclDevCommDestroy destroys the device communicator's own GIN contexts; no pool (2.30.3)")
	rs.Replace(devCommQueueRule(ref("src/gin/gin_host.cc", "ncclGinDevCommSetup; src/transport/net_ib/gin.cc ncclGinIbProxyCreateContext; src/plugin/gin/gin_v12.cc ncclGin_createContext"), queueDoc303), "ginQueueDepth per device communicator at context creation (2.30.3)")
	rs.Replace(winSegRule(ref("src/dev_runtime.cc", "ncclDevrWindowRegisterInGroup, symMemoryObtain")), "windows over several cuMem segments: every segment mapped for the LSA peers (2.30.3)")
}
