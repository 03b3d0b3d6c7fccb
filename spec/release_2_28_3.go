package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.28.3 (tag v2.28.3-1), the system libnccl.so.2 of the project's GPU
// machine, as a delta against 2.27.7: tuner ABI v5 initialised before the
// model with editable constants, the NVLS efficiency model, PAT's base
// latency in the tuner constants, copy-engine collectives and grouped
// symmetric kernels, CollNetChain's per-operation arity, CollNet heads from
// NVLS, net ABI v11. The other rules change only their source reference.

var tag283 = "v2.28.3-1"

var netState28 = netState(Ref{Tag: tag283, File: "src/plugin/net.cc", Func: "ncclNetPluginInit"},
	`Candidates in order: the NCCL_NET_PLUGIN entries, IB, Socket. init() is called for every communicator; devices() on the first successful init; a failure disables the network and its CollNet. NCCL_NET is compared after init, when the plugin is assigned to the communicator.`,
	netSelectOpts{ibUsingOnZero: true, initLog: true})

var ib28 = ib22.withRef(Ref{Tag: tag283, File: "src/transport/net_ib.cc", Func: "ncclIbInit"})
var socket28 = socket22.withRef(Ref{Tag: tag283, File: "src/transport/net_socket.cc", Func: "ncclNetSocketInit"})

var netChoose28 = netChoose(Ref{Tag: tag283, File: "src/plugin/net.cc", Func: "ncclNetInit"},
	`The communicator is assigned the first candidate that initialises with devices, whose name matches NCCL_NET (case-insensitive) when set, and whose device version is accepted; other external plugins are then disabled for the process. None: WARN "Failed to initialize any NET plugin" and ncclInvalidUsage from communicator init.`,
	"Failed to initialize any NET plugin", true)

var mnnvl28 = mnnvlRuleUserP2P(Ref{Tag: tag283, File: "src/mnnvl.cc", Func: "ncclMnnvlCheck"},
	`Checked when there is more than one node and NCCL_MNNVL_ENABLE is not 0 and the user P2P level is not LOC (NCCL_P2P_DISABLE=1, NCCL_P2P_LEVEL=LOC or 0 make it LOC), or when NCCL_MNNVL_ENABLE is 1: cuMem, fabric-handle support, a complete fabric and a non-zero cluster UUID on every rank, a clique of more than one; failures are silent (MNNVL off). A clique fuses the topology of its nodes.`)

var nvlsEarly283 = nvlsEarly(Ref{Tag: tag283, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	`NVLS is turned off silently when the topology has 2 GPUs or fewer (2.25.1-2.28.3), or when the driver entry point cuDeviceGet is missing.`,
	func(gpus, _ int, _ bool) (bool, string) {
		if gpus <= 2 {
			return true, "2 GPUs or fewer in the topology"
		}
		return false, ""
	})

var nvlsChan28 = nvlsChan.withRef(Ref{Tag: tag283, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"})

var collNetGraph28 = collNetGraph(Ref{Tag: tag283, File: "src/graph/search.cc", Func: "ncclTopoCompute"}, func(n int) int { return min(8, n) })
var nvlsGraph28 = nvlsGraph(Ref{Tag: tag283, File: "src/graph/search.cc", Func: "ncclTopoCompute"}, func(n int) int { return min(32, n) })

var impl28Rule = implRule(Ref{Tag: tag283, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Modelled cells: Broadcast and Reduce on Ring only; AllGather and ReduceScatter on Ring, NVLS, CollNetDirect and PAT; AllReduce on every algorithm but PAT. NVLS, NVLSTree and PAT have Simple only (PAT also needs ncclPatEnable).`,
	impl28)

var bw1_28 = graphBwRule(Ref{Tag: tag283, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Bandwidth is nChannels × per-channel bandwidth of the algorithm's graph (PAT and Tree read the tree graph): a graph with no channel gives no bandwidth, and NVLS/NVLSTree are skipped when the NVLS graph has fewer than 2 channels.`, 2)

var bw2_28 = collNetBwRule(Ref{Tag: tag283, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`CollNet protocols other than Simple get no bandwidth. Across nodes, NVLS and CollNetDirect AllGather (ReduceScatter) get 0 unless the CollNet object has iallgather (ireducescatter), CollNet is enabled and no node has more local ranks than CollNet heads.`, true)

var parse28 = algoParse("G-SEL-PARSE-2", Ref{Tag: tag283, File: "src/graph/tuning.cc", Func: "parseList"},
	`Per-function grammar: entries split on ';', each "[func:]list" where only the first may omit func (Broadcast, Reduce, AllGather, ReduceScatter, AllReduce, any case); a list starting with '^' inverts; each targeted row is reset before the names apply; rows not targeted keep their defaults. Empty entries and items are skipped, blanks are not trimmed. An unknown name or prefix, or a missing prefix after the first entry, is a WARN and ncclInvalidUsage from communicator init. A set-but-empty value changes nothing. Rank 0 prints the user matrix.`,
	true, []string{"NCCL_ALGO set by environment to %s", "Enabled NCCL Func/Proto/Algo Matrix:%s",
		`All entries except the first must have a prefix: "%s"`, `Unrecognized prefix token "%s" when parsing "%s"`, `Unrecognized element token "%s" when parsing "%s"`})

var en28 = enableRule(Ref{Tag: tag283, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Per function, after NCCL_ALGO/NCCL_PROTO: NVLSTree off on one node; with config.collnetEnable 0, CollNetDirect, CollNetChain and multi-node NVLS off; CollNetDirect off without an NVSwitch. No rescue: a function left with nothing fails at enqueue (G-SEL-ERR-1).`)

var proto28 = protoRule(Ref{Tag: tag283, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Protocols default to LL 1, LL128 2 (auto), Simple 1; a value set by NCCL_PROTO bypasses the auto rule. LL128 auto needs: inter-node path at most PXN when NCCL_LL128_C2C (default 1) and compute capability 9.0+, else at most PXB; intra-node path at most NVB; one compute capability on every GPU, at least 7.0; not a two-rank sm90 Ring AllReduce built with CUDA 11.8.`,
	ll128Auto28)

var tunerInit28 = tunerInit(Ref{Tag: tag283, File: "src/init.cc", Func: "initTransportsRank"},
	`The tuner's init runs inside initTransportsRank after the CollNet and NVLS setup and before ncclTopoTuneModel, with the default tuner constants (a v5 tuner may change latencies and bandwidth caps, not the enable matrix). An init error fails communicator init.`)

var collNetArity28 = collNetArityOp(Ref{Tag: tag283, File: "src/enqueue.cc", Func: "updateCollCostTable"},
	`No init-time disable: per operation CollNetDirect and (2.28.3+) CollNetChain stay IGNORE when a node has more than NCCL_MAX_DIRECT_ARITY+1 (8) local ranks.`,
	CollNetDirect, CollNetChain)

var release2_28_3 = Release{
	Version: V2_28_3,
	Tag:     tag283,
	Consts:  consts2_28_3,
	Topo:    topo.Apply2_28_3,
	Tuning:  tuningApply2_28_3,
	Rules:   apply2_28_3,
}

// profiler28 is the profiler under 2.28.3's common loader: the "none"
// keyword, the net plugin's library as a fallback, and init inside
// initTransportsRank.
var profiler28 = profilerPlugin(Ref{Tag: tag283, File: "src/plugin/profiler.cc", Func: "ncclProfilerPluginLoad"},
	`NCCL_PROFILER_PLUGIN set: logged; "none" (any case) means no profiler. Otherwise the common loader opens the value (then libnccl-profiler-<value>.so unless it has a '/' or is lib*.so), or libnccl-profiler.so when unset or empty; when nothing opens, the net plugin's library is searched. Probe ncclProfiler_vN over ProfilerABI, newest first (v5–v1; v6–v1 from 2.29.2); the accepted shim logs "PROFILER/Plugin: Loaded %s (vN)". None: "External profiler plugin %s is unsupported" (not for the net plugin's library). Init runs in initTransportsRank before the proxy thread; an init error is an INFO line and the plugin is not dropped. Nothing here fails communicator init.`,
	profilerOpts{names: namesCond, notFoundEnd: "", common: true, symLines: profSymLoaded, initFail: profInitInfoKept})

func consts2_28_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag283, File: file, Func: fn} }
	rs.SetConst("NetABI", []int{11, 10, 9, 8, 7, 6}, ref("src/plugin/net.cc", "ncclNetPluginLoad"))
	rs.SetConst("ConfigFields", configFieldsThrough("nvlinkCentricSched"), ref("src/nccl.h.in", "ncclConfig_t"))
	rs.SetConst("TunerABI", []int{5, 4, 3, 2}, ref("src/plugin/tuner.cc", "ncclTunerPluginLoad"))
	rs.SetConst("ProfilerABI", []int{5, 4, 3, 2, 1}, ref("src/plugin/profiler.cc", "ncclProfilerPluginLoad"))
	rs.SetConst("P2PChannelBaseReversed", true, ref("src/include/channel.h", "ncclP2pChannelBaseForRound"))
	rs.SetConst("CollNetNVLSHeads", true, ref("src/transport/coll_net.cc", "ncclCollNetSetup"))
	rs.SetParamDefault("NCCL_PXN_C2C", 1, ref("src/graph/paths.cc", "PxnC2c"))
	setCollNetFail(rs, tag283, collNetFailSetup(357, 385, 1590))
	rs.SetConst("DevCommForm", devComm283, Ref{Tag: tag283, File: "src/dev_runtime.cc", Func: "ncclDevCommCreate"})
}

// tuningApply2_28_3 turns the 2.27.7 model into NCCL 2.28.3's (tag
// v2.28.3-1), the system library of the project's GPU machine: the tuner
// constants with a PAT row (the base latency moves into the table), the
// retuned Blackwell Tree rows, the NVLS efficiency model, constants a v5
// tuner may edit, CollNetChain's arity prune, multi-node NVLS on
// min(nvlsChannels, nChannels), symmetric kernels for the window buffers
// of any group and the copy-engine collectives.
func tuningApply2_28_3(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag283}
	const defaults = "ncclTunerConstantsDefaults"
	const model = "ncclTopoTuneModel"
	tuningSet(d, &t.CTAPolicyMax, 2, "src/init.cc", "envConfigOverride")
	tuningSet(d, &t.RegSingleProcParam, true, "src/init.cc", "initTransportsRank")

	tuningSet(d, &t.BaseLat[PAT][LL], 8.0, tuningCC, defaults)
	tuningSet(d, &t.BaseLat[PAT][LL128], 8.0, tuningCC, defaults)
	tuningSet(d, &t.BaseLat[PAT][Simple], 8.0, tuningCC, defaults)
	tuningSet(d, &t.PATBaseLat, 0, tuningCC, model)
	tuningSet(d, &t.HwLat[TuningHwNVLink][PAT][Simple], 4.0, tuningCC, defaults)
	tuningSet(d, &t.HwLat[TuningHwPCI][PAT][Simple], 4.0, tuningCC, defaults)
	tuningSet(d, &t.HwLat[TuningHwNet][PAT][Simple], 14, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN1], 55.6, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN2], 31.67, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN4], 20.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN1], 70.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN2], 42.8, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN4], 24.0, tuningCC, defaults)
	// perChMaxNVLSTreeBws (new with the efficiency model)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningVolta][TuningN1], 26.5, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningVolta][TuningN2], 18.5, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningVolta][TuningN4], 10.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningAmpere][TuningN1], 24.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningAmpere][TuningN2], 23.6, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningAmpere][TuningN4], 17.8, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningHopper][TuningN2], 57.7, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningHopper][TuningN4], 45.5, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningBlackwell][TuningN2], 96.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningBlackwell][TuningN4], 43.1, tuningCC, defaults)
	tuningSet(d, &t.NVLSEfficiency[TuningHopper], 0.85, tuningCC, "nvlsEfficiency")
	tuningSet(d, &t.NVLSEfficiency[TuningBlackwell], 0.74, tuningCC, "nvlsEfficiency")

	tuningSet(d, &t.NVLSRatioR22, 0, tuningCC, model)
	tuningSet(d, &t.NVLSBw, TuningNVLSBwEfficiency, tuningCC, model)
	tuningSet(d, &t.TunerConstants, true, "src/init.cc", "initTransportsRank")
	tuningSet(d, &t.PruneCollNetChainArity, true, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.NVLSMultiNodeMinChannels, true, enqueueCC, "topoGetAlgoInfo")
	tuningSet(d, &t.SymGrouped, true, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	// the header holds ncclSymkDevComm (an 88-byte ncclDevComm and the
	// LL all-to-all handle) and nMaxChannels
	tuningSet(d, &t.SymArgsBytes, 112, symKernelsH, "struct ncclSymkDevWorkArgs")
	tuningSet(d, &t.SymWorkBytes, 64, symKernelsH, "struct ncclSymkDevWork")
	tuningSet(d, &t.SymRangeBytes, 4, symKernelsH, "struct ncclSymkChannelWorkRange")
	tuningSet(d, &t.CECollectives, true, "src/ce_coll.cc", "ncclCeImplemented")
	tuningSet(d, &t.RegWindowRecord, TuningRegWindowRecordAll, "src/dev_runtime.cc", "ncclDevrWindowRegisterInGroup")
	return d.changes, tuningJoinErrs(d.errs)
}

func apply2_28_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag283, File: file, Func: fn} }
	rs.Replace(ruleAt(regIPCRule, ref("src/register/coll_reg.cc", "ncclRegisterCollBuffers; src/dev_runtime.cc ncclDevrWindowRegisterInGroup"),
		`From 2.24.3, a Ring or Tree task on Simple whose buffers are captured into a CUDA graph (NCCL_GRAPH_REGISTER, default 1) or registered with ncclCommRegister (NCCL_LOCAL_REGISTER, default 1) is registered over IPC when the node's peers are direct P2P (not ReduceScatter, not Reduce or in-place AllReduce on Ring, not in-place Tree); on one node such a task with 16 < nMaxChannels ≤ 24 runs on 16 channels. From 2.28.3, window buffers count as registered: ncclCommWindowRegister calls ncclCommRegister on every window, with or without symmetric support, so an operation on windows that the cost table decides (no symmetric kernel) registers its buffers over IPC, NVLS, CollNet or the network, and counts for regBuff (the tuner's and the CTA policy's), as registered buffers do.`),
		"every window carries a ncclCommRegister record, with or without symmetric support")
	rs.Replace(ruleAt(collNetFlushRule, ref("src/transport/coll_net.cc", "recvSetup, recvProxyProgress, collNetRecvFlush, ncclCollNetSetup"), ""),
		"the flushing heads are the NVLS graph's where NVLS is supported (ncclCollNetSetup)")
	rs.Add(symRangeRule(ref("src/scheduler/symmetric_sched.cc", "ncclSymmetricTaskScheduler; src/device/symmetric/primitives.cuh ncclSymkArgsHandler::getWorkRange, getWorkRangeFused"),
		"2.28.3's decode reads both ends of a block's range from its first task and starts a task's owned blocks after the fraction of the block before them whatever task that block ends in: a task that follows another's tail in one block loses its head, a block spanning tasks of different sizes ends at the wrong element."),
		schedBudgetRule.ID, "grouped symmetric kernels with fractional work ranges (2.28.3)")
	rs.Replace(topoRule(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(envSource23, "new tag")
	rs.Replace(configRule(ref("src/init.cc", "parseCommConfig, envConfigOverride")), "ncclConfig_t gains nChannelsPerNetPeer, nvlinkCentricSched; CTAPolicy up to ZERO")
	rs.Replace(intParamRule(ref("src/misc/param.cc", "ncclLoadParam")), "same parse; file unchanged, new tag")
	rs.Replace(collNetEnv28, "new tag")
	rs.Replace(netLib28, `"none" names no plugin`)
	rs.Replace(profiler28, `window v5-v1, "none", the net plugin's library, "Loaded %s (vN)", init failure kept`)
	rs.Move("G-PROF-1", "G-COLLNET-THRESH-1", ref("src/init.cc", "initTransportsRank"), "profiler init moves from commAlloc into initTransportsRank, before the proxy thread")
	rs.Replace(netLibNone28, "new tag")
	rs.Replace(netABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "window v11-v6")
	rs.Replace(collNetABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "window v11-v6")
	rs.Replace(collNetEntryPoints(ref("src/plugin/net/net_v7.cc", "getNcclCollNet_v7"), 8), "new tag")
	rs.Replace(netState28, "new tag")
	rs.Replace(ib28, "file layout")
	rs.Replace(socket28, "file layout")
	rs.Replace(netChoose28, "new tag")
	rs.Replace(netLibOthers, "new tag")
	rs.Replace(netDevVersion.withRef(ref("src/plugin/net.cc", "ncclNetCheckDeviceVersion")), "new tag")
	rs.Replace(collNetAttach.withRef(ref("src/plugin/net.cc", "ncclNetPluginAssignToComm")), "new tag")
	rs.Replace(mnnvl28, "new tag")
	rs.Replace(collNetPlugin28, "new tag")
	rs.Replace(nvlsEnv.withRef(ref("src/transport/nvls.cc", "ncclNvlsInit")), "file unchanged, new tag")
	rs.Replace(nvlsEarly283, "new tag")
	rs.Replace(nvlsCap(ref("src/transport/nvls.cc", "ncclNvlsInit"), true), "new tag")
	rs.Replace(nvlsChan28, "new tag")
	rs.Replace(graphSearch.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(collNetGraph28, "new tag")
	rs.Replace(nvlsGraph28, "new tag")
	rs.Replace(graphConsensus.withRef(ref("src/graph/connect.cc", "ncclTopoPostset")), "new tag")
	rs.Replace(collNetCons.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(nvlsCons.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(collNetThreshold.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(transportRule.withRef(ref("src/transport/p2p.cc", "p2pCanConnect")), "new tag")
	rs.Replace(runtimeConnectInit.withRef(ref("src/init.cc", "initTransportsRank")), "new tag")
	rs.Replace(nvlsSetup(ref("src/transport/nvls.cc", "nvlsAllocateMem"), true), "new tag")
	rs.Replace(nvlsTree.withRef(ref("src/transport/nvls.cc", "ncclNvlsTreeConnect")), "new tag")
	rs.Replace(collNetSetup(ref("src/transport/coll_net.cc", "ncclCollNetSetup"), true, collNetOffConfig), "heads from NVLS when NVLS is supported")
	rs.Replace(collNetMatrix.withRef(ref("src/transport/coll_net.cc", "ncclCollNetSetup")), "new tag")
	// The tuner loads and initialises before the model in 2.28.
	rs.Replace(tunerLib28(ref("src/plugin/tuner.cc", "ncclTunerPluginLoad"), tunerLibOpts{form: namesCond, fallback: "Using internal tuner plugin.", common: true}), "NCCL_TUNER_PLUGIN logged, none keyword, dlerror lines name the file, no \"Plugin name set by env\" line")
	rs.Replace(tunerABI28, "window v5-v2")
	rs.Replace(tunerInit28, "init before ncclTopoTuneModel with editable constants")
	rs.Move("G-TUNER-LIB-1", "G-COLLNET-MATRIX-1", ref("src/init.cc", "initTransportsRank"), "tuner before the model")
	rs.Move("G-TUNER-ABI-1", "G-TUNER-LIB-1", ref("src/init.cc", "initTransportsRank"), "tuner before the model")
	rs.Move("G-TUNER-INIT-1", "G-TUNER-ABI-1", ref("src/init.cc", "initTransportsRank"), "tuner before the model")
	rs.Replace(impl28Rule, "new tag")
	rs.Replace(patRule, "compute capability 6.0 floor (2.26.2), base latency in the tuner constants")
	rs.Replace(bw1_28, "NVLS needs ≥ 2 channels")
	rs.Replace(bw2_28, "new tag")
	rs.Replace(parse28, "new tag")
	rs.Replace(en28, "config.collnetEnable")
	rs.Replace(proto28, "new tag")
	rs.Replace(modelDone.withRef(ref("src/graph/tuning.cc", "ncclTopoTuneModel")), "new tag")

	rs.Replace(appendRule(ref("src/enqueue.cc", "taskAppend"), true), "taskAppend split into p2p, collective and copy-engine appends")
	rs.Replace(sideRule, "copy-engine collectives and grouped symmetric kernels")
	rs.Replace(opSupport(ref("src/enqueue.cc", "getCollNetSupport")), "new tag")
	rs.Replace(collNetArity28, "CollNetChain too")
	rs.Replace(pruneRule(ref("src/enqueue.cc", "updateCollCostTable"),
		pruneSet{nvlsArity: true, patScaling: true, fp8Ring: true}), "new tag")
	rs.Replace(tunerCall(ref("src/enqueue.cc", "getAlgoInfo")), "v5 table API with regBuff")
	rs.Replace(pickRule.withRef(ref("src/enqueue.cc", "topoGetAlgoInfo")), "new tag")
	rs.Replace(ctaPolicyRule, "new tag")
	rs.Replace(errRule(ref("src/enqueue.cc", "topoGetAlgoInfo"), "Error : no algorithm/protocol available"), "new tag")
	rs.Replace(runtimeConnect.withRef(ref("src/group.cc", "ncclCollPreconnect")), "new tag")
	rs.Replace(execErr.withRef(ref("src/proxy.cc", "progressOps")), "new tag")
	rs.Replace(groupPlanRule(ref("src/enqueue.cc", "ncclPrepareTasks, scheduleCollTasksToPlan"), "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}", groupPlanDoc22), "one line per task with its channel range (2.24.3)")
	rs.Replace(p2pSchedRule(ref("src/include/channel.h", "ncclP2pChannelBaseForRound; src/include/device.h ncclP2pChannelForPart"), p2pSchedDoc283), "the round's base is bit-reversed and a peer's parts run up from it (2.28.3); before, part k landed at the bit-reversed k from the base")
	rs.Add(devCommRule(ref("src/dev_runtime.cc", "ncclDevCommCreate, ncclDevrCommCreateInternal, symTeamObtain"), devCommDoc), "", "device communicators: ncclDevCommCreate needs symmetric support, lsaMultimem NVLS (2.28.3)")
	rs.Add(devCommDestroyRule(ref("src/dev_runtime.cc", "ncclDevCommDestroy"), destroyDoc283), "G-DEVCOMM-1", "ncclDevCommDestroy deregisters the device communicator's resource window (2.28.3)")
}
