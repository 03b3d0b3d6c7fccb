package spec

import (
	"math"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.29.2 (tag v2.29.2-1) as a delta against 2.28.9: the 32 KiB
// scheduler and FLT_MAX start of the pick, the 24-entry tree correction
// also applied to NVLSTree, the CTA policy as a bit mask with the
// copy-engine AllGather on Blackwell, broadcasts of several roots grouped
// into one AllGatherV, a fatal NVLS bind failure again, and the sm80 tree
// search reopened to SYS (the 2.25.1 regression fixed).

var tag2292 = "v2.29.2-1"

var release2_29_2 = Release{
	Version: V2_29_2,
	Tag:     tag2292,
	Consts:  consts2_29_2,
	Topo:    topo.Apply2_29_2,
	Tuning:  tuningApply2_29_2,
	Rules:   apply2_29_2,
}

func tuningApply2_29_2(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2292}
	const defaults = "ncclTunerConstantsDefaults"
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN1], 34.5, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN4], 34.5, tuningCC, defaults)
	tuningSet(d, &t.TreeCorrection[LL][23], 1.0, tuningCC, "treeCorrectionFactor")
	// with several ranks per node CollNet registers an AllGather's send
	// buffer alone; a ReduceScatter needs isOneRPN
	tuningSet(d, &t.RegCollNetRanks, TuningRegCollNetRanksAG, "src/register/coll_reg.cc", "ncclRegisterCollBuffers")
	// CollNetDirect's IPC registration: an AllGather alone, its receive buffer
	tuningSet(d, &t.RegCollNetIPC, TuningRegCollNetIPCAG, "src/register/coll_reg.cc", "ncclRegisterCollBuffers")
	tuningSet(d, &t.TreeCorrection[LL128][23], 1.0, tuningCC, "treeCorrectionFactor")
	tuningSet(d, &t.TreeCorrection[Simple][23], .9, tuningCC, "treeCorrectionFactor")
	tuningSet(d, &t.NVLSTreeCorrection, true, tuningCC, "ncclTopoGetAlgoTime")
	tuningSet(d, &t.PickMaxTime, math.MaxFloat32, enqueueCC, "topoGetAlgoInfo")
	tuningSet(d, &t.MinTrafficPerChannel, 32<<10, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.TrafficPerChannelRound, true, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.CTAPolicyMask, true, "src/init.cc", "getEnvCtaPolicyOnce")
	tuningSet(d, &t.CEAllGatherSM100, true, enqueueCC, "taskAppend")
	tuningSet(d, &t.SymCEThreshold, 8<<20, enqueueCC, "SymCeThreshold")
	tuningSet(d, &t.AllGatherV, true, enqueueCC, "ncclPrepareTasks")
	// ringDepth, chunkSize, sendbuff, recvbuff, bytes, bytes_done and
	// pad[8]: 4+4+4×8+8 = 48 bytes, a multiple of its 16-byte alignment
	tuningSet(d, &t.BcastWorkBytes, 48, deviceH, "struct ncclDevWorkBcast")
	// ncclMaxDevWorkBatchBytes(cudaArch): 1 KiB below sm80, 8 KiB below
	// sm90, 16 KiB from sm90 (allgatherv_sched.cc divides it by the above)
	batch := t.MaxDevWorkBatchBytesCC
	batch[TuningVolta], batch[TuningAmpere], batch[TuningHopper], batch[TuningBlackwell] = 1<<10, 8<<10, 16<<10, 16<<10
	for cc := range batch {
		tuningSet(d, &t.MaxDevWorkBatchBytesCC[cc], batch[cc], deviceH, "ncclMaxDevWorkBatchBytes")
	}
	tuningSet(d, &t.SymFallback, true, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	tuningSet(d, &t.SymLLLegacy, true, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	tuningSet(d, &t.SymProbeErr, true, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	tuningSet(d, &t.SymNoWin, true, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	tuningSet(d, &t.SymAllNVLink, true, "src/sym_kernels.cc", "ncclSymkAvailable")
	tuningSet(d, &t.SymGin, TuningSymGinHier, "src/sym_kernels.cc", "ncclSymkMask, queryModel_gin")
	tuningSet(d, &t.RegWindowRecord, TuningRegWindowRecordSymmetric, "src/dev_runtime.cc", "ncclCommWindowRegister")
	return d.changes, tuningJoinErrs(d.errs)
}

// sideDoc29 is G-SEL-SIDE-1's text from 2.29.2; later releases append
// what they add to the symmetric kernels.
const sideDoc29 = `Copy-engine collectives when the CTA policy has the ZERO bit and ncclCeAvailable holds (implemented for the function, one node, symmetric support, the receive buffer in a symmetric window); otherwise an AllGather into a symmetric window of more than NCCL_SYM_CE_THRESHOLD (8 Mi) elements also goes to the copy engines on an sm100+ node whose GPUs are all NVLink peers. Then symmetric kernels: ncclSymkAvailable now also wants every GPU pair of the node one NVLink hop (isAllDirectNvlink), and every task it allows is listed whatever its buffers, binned by (function, reduction, type, registration); buffers outside symmetric windows leave only the LL kernels, and such a kernel stays when NCCL_SYM_KERNEL forced it, or under NCCL_SYM_NOWIN_ENABLE=1 (default 0) when the cost table alone would run the piece's first operation with LL, never when one thread drives several GPUs. A piece of a bin no kernel can run now goes back to the cost table instead of failing the group, and in 2.29.2 and 2.29.3 an LL kernel NCCL_SYM_KERNEL did not force is kept on windows only when the cost table alone would run the piece's first operation with LL. Broadcasts of one group from two roots or more (NCCL_ALLGATHERV_ENABLE, default 1) are queued per root and run as one AllGatherV (ncclScheduleBcastTasksToPlan) without the cost table; from one root they go back to the sorter. Other ordinary buffers go through the cost table. The tasks that go back (every listed task outside windows that no forced kernel or NCCL_SYM_NOWIN_ENABLE=1 keeps) rejoin the cost table's walk after every task never listed, in the list's order (each bin smallest first), and the cost table's LIFO binning turns them back into the sorter's order: equal operations of a group (-m N) take the channel ranges in reverse call order, and a bin whose tasks came back starts at its largest task, so its first aggregate takes every task below 4× of it. A group's copy-engine collectives launch first, one plan each in call order, then the symmetric plans, then the cost table's.`

var sideRule29 = &Rule{
	ID: "G-SEL-SIDE-1", Layer: LayerSelect, Title: "paths that bypass the cost table",
	Doc:   sideDoc29,
	Ref:   Ref{Tag: tag2292, File: "src/enqueue.cc", Func: "taskAppend"},
	Logs:  sideRule.Logs,
	perOp: sideRule.perOp,
}

var ctaPolicyRule29 = &Rule{
	ID: "G-SEL-CTAPOL-1", Layer: LayerSelect, Cap: CapNVLS, Title: "CTA policy override towards NVLS",
	Doc:   `NCCL_CTA_POLICY is a bit mask (a leading digit 0, 1 or 2 as before, or DEFAULT, EFFICIENCY and ZERO joined by '|', any case; unknown names are ignored with an INFO, and ZERO beside EFFICIENCY unsets EFFICIENCY with a WARN: G-ENV-CONFIG-1's lines). Only without a tuner, with NCCL_ALGO and NCCL_PROTO unset, not MNNVL, the EFFICIENCY bit set, AllGather/ReduceScatter with registered buffers: if NVLS is usable and its registered resources need no more channels than chosen, the choice becomes NVLS/Simple. NCCL reads the policy in getAlgoInfo only: a task the copy engines or a symmetric kernel take never meets it, except the cost-table probe ncclMakeSymmetricTaskList makes before it keeps an LL kernel (2.29.2+); a window is registered too (its registration makes a ncclCommRegister record), so a window task that falls back to the cost table can move.`,
	Ref:   Ref{Tag: tag2292, File: "src/enqueue.cc", Func: "ncclGetAlgoInfo"},
	perOp: ctaPolicyRule.perOp,
}

// nvlsBindHard29 is the bind failure's WARN from 2.29.2: fatal again
// whatever NCCL_NVLS_ENABLE says.
const nvlsBindHard29 = "Failed to bind NVLink SHARP (NVLS) Multicast memory of size ? : CUDA error %d '%s'.\nThis is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.\nDisable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future."

func consts2_29_2(rs *Ruleset) {
	rs.SetConst("ProfilerABI", []int{6, 5, 4, 3, 2, 1}, Ref{Tag: tag2292, File: "src/plugin/profiler.cc", Func: "ncclProfilerPluginLoad"})
	rs.SetConst("ConfigFields", configFieldsThrough("numRmaCtx"), Ref{Tag: tag2292, File: "src/nccl.h.in", Func: "ncclConfig_t"})
	rs.SetConst("ConfigRmaCtxEnvMin", 1, Ref{Tag: tag2292, File: "src/init.cc", Func: "envConfigOverride"})
	rs.SetConst("P2PChannelsBeforeProto", true, Ref{Tag: tag2292, File: "src/enqueue.cc", Func: "addP2pToPlan"})
	rs.SetConst("P2PBatchPassEpoch", true, Ref{Tag: tag2292, File: "src/enqueue.cc", Func: "ncclAddWorkBatchToPlan"})
	rs.SetConst("GinInternal", GinInternalNetRma, Ref{Tag: tag2292, File: "src/plugin/net.cc", Func: "ncclNetPluginInit, ncclNetPluginAssignToComm"})
	rs.SetConst("GinSymSupport", 1, Ref{Tag: tag2292, File: "src/init.cc", Func: "initTransportsRank"})
	setCollNetFail(rs, tag2292, collNetFailSetup(371, 399, 1583))
	rs.SetConst("DevCommForm", devComm292, Ref{Tag: tag2292, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal"})
	rs.SetConst("WinSegments", 1, Ref{Tag: tag2292, File: "src/dev_runtime.cc", Func: "ncclDevrWindowRegisterInGroup"})
}

func apply2_29_2(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2292, File: file, Func: fn} }
	rs.Replace(ruleAt(regCollNetIPCRule, ref("src/register/coll_reg.cc", "ncclRegisterCollBuffers"), regCollNetIPCDoc29),
		"only a CollNetDirect AllGather registers over IPC, on its receive buffer")
	rs.Replace(ruleAt(regIPCRule, ref("src/register/coll_reg.cc", "ncclRegisterCollBuffers; src/dev_runtime.cc ncclCommWindowRegister, ncclDevrWindowRegisterInGroup"),
		`From 2.24.3, a Ring or Tree task on Simple whose buffers are captured into a CUDA graph (NCCL_GRAPH_REGISTER, default 1) or registered with ncclCommRegister (NCCL_LOCAL_REGISTER, default 1) is registered over IPC when the node's peers are direct P2P (not ReduceScatter, not Reduce or in-place AllReduce on Ring, not in-place Tree); on one node such a task with 16 < nMaxChannels ≤ 24 runs on 16 channels. From 2.29.2, window buffers count as registered where windows are made: on a communicator with symmetric support ncclCommWindowRegister calls ncclCommRegister, so an operation on windows that the cost table decides (no symmetric kernel) registers its buffers over IPC, NVLS, CollNet or the network, and counts for regBuff (the tuner's and the CTA policy's), as registered buffers do; without symmetric support it returns before registering, and the buffers are plain.`),
		"windows, and their ncclCommRegister record, only with symmetric support")
	rs.Replace(ruleAt(regCollNetRule, ref("src/register/coll_reg.cc", "ncclRegisterCollBuffers"), regCollNetDoc29),
		"with several ranks per node only a CollNetDirect AllGather registers with CollNet (its send buffer); ReduceScatter needs one rank per node")
	rs.Replace(ginConnRule(ref("src/sym_kernels.cc", "ncclSymkInitOnce; src/dev_runtime.cc ncclDevrCommCreateInternal")), "a multi-node symmetric communicator asks GIN for rail signals at its first symmetric window (2.29.2)")
	rs.Replace(graphSearch.withRef(ref("src/graph/search.cc", "ncclTopoCompute")), "sm80 inter-node type may reach SYS again; the simple-order fallback picks real NETs (2.29.2)")
	rs.Replace(configRule(ref("src/init.cc", "parseCommConfig, envConfigOverride")), "ncclConfig_t gains graphUsageMode, numRmaCtx; CTAPolicy a mask")
	rs.Replace(nvlsSetupText(ref("src/transport/nvls.cc", "nvlsAllocateMem"), false, nvlsBindHard29), "a multicast bind failure fails init again whatever NCCL_NVLS_ENABLE (2.29.2)")
	rs.Replace(sideRule29, "copy-engine AllGather on Blackwell above NCCL_SYM_CE_THRESHOLD; CTA policy tested as a bit (2.29.2)")
	rs.Replace(ctaPolicyRule29, "NCCL_CTA_POLICY bit mask, EFFICIENCY bit (2.29.2)")
	rs.Replace(p2pCountRule(ref("src/enqueue.cc", "addP2pToPlan"), p2pCountDoc29), "a direction's channels are counted on the Simple step, then LL by bytes per channel (2.29.2)")
	rs.Add(rmaRule(ref("src/enqueue.cc", "rmaTaskAppend; src/rma/rma.cc scheduleRmaTasksToPlan"), rmaSymProxy, rmaDoc), "", "one-sided ncclPutSignal, ncclSignal, ncclWaitSignal: symmetric support, the RMA proxy across nodes, copy engines to LSA peers (2.29.2)")
	rs.Replace(devCommRule(ref("src/dev_runtime.cc", "ncclDevrCommCreateInternal; src/gin/gin_host.cc ncclGinConnectOnce"), devCommDoc292), "a device communicator connects GIN only where comm->ginSupport (2.29.2)")
	rs.Add(winSegRule(ref("src/dev_runtime.cc", "ncclCommWindowRegister, ncclDevrWindowRegisterInGroup")), "", "ncclCommWindowRegister refuses a buffer spanning several cuMem segments (2.29.2)")
}
