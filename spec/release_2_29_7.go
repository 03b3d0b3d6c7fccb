package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.29.7 (tag v2.29.7-1) as a delta against 2.29.3: Blackwell
// Ring/LL128 per-channel caps to 40 GB/s and 80 GB/s in the sm100
// inter-node speeds, and the GIN plugin's own loader (ABI v12, v11). The
// GIN topology node is outside the gates.

var tag2297 = "v2.29.7-1"

var release2_29_7 = Release{
	Version: V2_29_7,
	Tag:     tag2297,
	Consts:  consts2_29_7,
	Topo:    topo.Apply2_29_7,
	Tuning:  tuningApply2_29_7,
	Rules:   apply2_29_7,
}

// gin297 is the GIN plugin's own loader (src/plugin/gin.cc), ncclGinInit
// right after ncclNetInit.
var gin297 = ginLoader(Ref{Tag: tag2297, File: "src/plugin/gin.cc", Func: "ncclGinInit"},
	`NCCL_GIN_PLUGIN set: logged; "none" (any case) gives no external entry, otherwise a comma list (empty items skipped, at most 15 entries, names of 255+ characters ignored); unset: libnccl-gin.so. Each entry is opened by the common loader (the name, then libnccl-gin-<name>.so unless it has a '/' or is lib*.so) and probed for ncclGinPlugin_vN over GinABI, newest first ("NET/Plugin: Loaded gin plugin %s (vN)"; "Successfully loaded external gin plugin %s" for every opened entry, symbol or not); then the net plugin's library; then the internal IB GIN. The first entry whose GIN initialises is assigned: one whose init fails or whose devices() fails or reports 0 (Library.gin) is disabled without a line and the next is tried; when none initialises, the internal "GIN_IB" entry becomes GDAKI or the proxy (ncclGinIbInitType: IB devices; NCCL_GIN_TYPE 3, 2, unset: GDAKI then the proxy, other "NET_IB: no support for GIN type %ld"; GDAKI needs an mlx5 port and nvidia_peermem or DMA-BUF, the proxy a peer-memory module or DMA-BUF, else "Unable to use GIN: Peermem is not supported, nor DMA-BUF."), assigned with the IB proxy as RMA ("Assigned RMA plugin GIN_IB_PROXY to comm"); if it fails too NCCL prints "Failed to initialize any GIN plugin" and the communicator has no GIN (init still succeeds). NCCL_GIN_ENABLE=0 leaves the assigned GIN of type none (setLocalGinType). The ranks' GIN types feed symmetric memory across nodes (Comm.GIN).`,
	listPluginAt(ginKind, 15, 14, "NET/Plugin: Loaded gin plugin %s (v%d)", false))

func consts2_29_7(rs *Ruleset) {
	rs.SetConst("GinABI", []int{12, 11}, Ref{Tag: tag2297, File: "src/plugin/gin.cc", Func: "ncclGinPluginLoad"})
	rs.SetConst("P2PResumeRound", true, Ref{Tag: tag2297, File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan, ncclLaunchPrepare"})
	rs.SetConst("GinInternal", GinInternalIB, Ref{Tag: tag2297, File: "src/transport/net_ib/gin.cc", Func: "ncclGinIbInitType"})
	rs.SetConst("GinSymSupport", 2, Ref{Tag: tag2297, File: "src/init.cc", Func: "initTransportsRank"})
	rs.SetConst("ConfigCheckModeLine", true, Ref{Tag: tag2297, File: "src/init.cc", Func: "envConfigOverride"})
	setCollNetFail(rs, tag2297, collNetFailSetup(372, 400, 1626))
	rs.SetConst("DevCommForm", devComm297, Ref{Tag: tag2297, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal"})
	rs.SetConst("GinPools", GinPools{Signals: 512 << 10, Counters: 512 << 10, SignalBound: 1 << 24, CounterBound: 1 << 23, Invalid: "%s has an invalid value"},
		Ref{Tag: tag2297, File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce"})
}

func apply2_29_7(rs *Ruleset) {
	rs.Replace(ginConnRule(Ref{Tag: tag2297, File: "src/gin/gin_host.cc", Func: "setLocalGinType, ncclGinConnectOnce"}), "NCCL_GIN_ENABLE=0 gives the GIN type none, so no window connects GIN; NCCL_CROSS_NIC=0 connects rail only (2.29.7)")
	rs.Replace(gin297, "the GIN plugin's own loader: NCCL_GIN_PLUGIN, libnccl-gin.so, then the net plugin's library (2.29.7)")
	rs.Move("G-GIN-1", "G-NET-LIB-3", Ref{Tag: tag2297, File: "src/init.cc", Func: "commAlloc"}, "ncclGinInit runs after ncclNetInit")
	rs.Replace(p2pSchedRule(Ref{Tag: tag2297, File: "src/enqueue.cc", Func: "scheduleP2pTasksToPlan, ncclLaunchPrepare"}, p2pSchedDoc297), "a plan whose budget is full hands the next plan the p2p round that did not fit (2.29.7); before, each plan walked from round 0")
	rs.Replace(ruleAt(sideRule29, Ref{Tag: tag2297, File: "src/sym_kernels.cc", Func: "ncclSymkMask"}, sideDoc297), "the multimem symmetric kernels need more than 2 LSA ranks (2.29.7)")
	rs.Replace(rmaRule(Ref{Tag: tag2297, File: "src/enqueue.cc", Func: "rmaTaskAppend"}, rmaHostRMA, rmaDoc297), "one-sided calls need comm->hostRmaSupport: one LSA team or the RMA proxy on every rank (2.29.7)")
	rs.Replace(devCommRule(Ref{Tag: tag2297, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal, ncclGinResourcesRequested; src/gin/gin_host.cc ncclGinConnectOnce"}, devCommDoc297), "device communicators: GIN connection types, connections per local GIN device, exclusive contexts (2.29.7)")
	rs.Replace(devCommShareRule(Ref{Tag: tag2297, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal, ncclDevCommDestroy; src/gin/gin_host.cc ncclGinConnectOnce"}, shareDoc297), "one context pool: exclusive contexts counted against it, shared ones capped; FULL refused on a RAIL connection; 512 Ki pools (2.29.7)")
	rs.Replace(devCommGinTypeRule(Ref{Tag: tag2297, File: "src/transport/net_ib/gin.cc", Func: "ncclGinIbInit, ncclGinIbInitType; src/gin/gin_host.cc ncclGinConnectOnce"}, ginTypeDoc297), "NCCL_GIN_TYPE read by the internal IB GIN only: ncclGinConnectOnce compares no type (2.29.7)")
	rs.Replace(devCommDestroyRule(Ref{Tag: tag2297, File: "src/dev_runtime.cc", Func: "ncclDevCommDestroy; src/device/common.cu ncclGinResetSignalsAndCounters"}, destroyDoc297), "ncclDevCommDestroy resets signals and counters before freeing them and returns the most recent exclusive contexts (2.29.7)")
	rs.Replace(devCommQueueRule(Ref{Tag: tag2297, File: "src/gin/gin_host.cc", Func: "ncclGinConnectOnce; src/transport/net_ib/gin.cc ncclGinIbProxyConnect; src/plugin/gin/gin_v11.cc ncclGin_connect"}, queueDoc297), "ginQueueDepth of the connecting device communicator: GDAKI takes it, the IB proxy and v11 plugins refuse it (2.29.7)")
}

// sideDoc297: the multimem kernels read symkState.hasLsaMultimem.
const sideDoc297 = sideDoc29 + ` From 2.29.7 the multimem kernels (LLMC, STMC, LDMC) need NVLS support and an LSA team of more than 2 ranks (ncclSymkInitOnce's hasLsaMultimem).`

func tuningApply2_29_7(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2297}
	const defaults = "ncclTunerConstantsDefaults"
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN1], 40.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN2], 40.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN4], 40.0, tuningCC, defaults)
	// ncclSymkDevComm gains the GIN outbox, counter and rail inbox, the
	// header maxDynamicSmem: 55 symmetric tasks per bin
	tuningSet(d, &t.SymArgsBytes, 288, symKernelsH, "struct ncclSymkDevWorkArgs")
	tuningSet(d, &t.SymLLLegacy, false, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	tuningSet(d, &t.SymMultimemRanks, 2, "src/sym_kernels.cc", "ncclSymkInitOnce")
	tuningSet(d, &t.SymGin, TuningSymGinRail, "src/sym_kernels.cc", "ncclSymkMask, queryModel_gin")
	const smBw = "getSmBw_ReduceScatter_RailA2A"
	tuningSet(d, &t.SymGinRsSmBw[0][0], 14.5e9, "src/sym_kernels.cc", smBw)
	tuningSet(d, &t.SymGinRsSmBw[0][1], 9.85e9, "src/sym_kernels.cc", smBw)
	tuningSet(d, &t.SymGinRsSmBw[1][0], 5.0e9, "src/sym_kernels.cc", smBw)
	tuningSet(d, &t.SymGinRsSmBw[1][1], 2.25e9, "src/sym_kernels.cc", smBw)
	return d.changes, tuningJoinErrs(d.errs)
}
