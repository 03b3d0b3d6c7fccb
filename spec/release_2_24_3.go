package spec

import (
	"fmt"

	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// NCCL 2.24.3 (tag v2.24.3-1), a delta against 2.23.4: the per-function
// NCCL_ALGO/NCCL_PROTO grammar with hard parse errors, the end of the Ring
// restore and the per-operation Ring backup (an operation with nothing
// enabled fails instead), fp8 types, net ABI v9 and tuner ABI v4.

var tag243 = "v2.24.3-1"

var parse24 = algoParse("G-SEL-PARSE-2", Ref{Tag: tag243, File: "src/graph/tuning.cc", Func: "parseList"}, parse28.Doc, true, parse28.Logs)

var en24 = enableRule(Ref{Tag: tag243, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Per function, after NCCL_ALGO/NCCL_PROTO: NVLSTree off on one node; without CollNet support CollNetDirect, CollNetChain and multi-node NVLS off; CollNetDirect off without an NVSwitch. No rescue: a function left with nothing fails at enqueue (G-SEL-ERR-1).`)

// tunerABI24 probes the window newest first (v4, v3, v2), one INFO per
// symbol not found; 2.26.2's per-version shims print the same lines.
var tunerABI24 = tunerABI(Ref{Tag: tag243, File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"},
	`Probe ncclTunerPlugin_v4, _v3, then _v2, newest first (older versions are adapted; a v2 tuner returns algorithm and protocol). None: the library is closed and the internal tuner is used.`,
	[]string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v%d symbol.", "TUNER/Plugin: Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead.", "TUNER/Plugin: Using tuner plugin %s"},
	func(name, _ string, v int, w []int) []string {
		var out []string
		for i, x := range w {
			if x == v {
				break
			}
			if i == len(w)-1 {
				out = append(out, fmt.Sprintf("TUNER/Plugin: Failed to find ncclTunerPlugin_v%d symbol, using internal tuner instead.", x))
			} else {
				out = append(out, fmt.Sprintf("TUNER/Plugin: Failed to find ncclTunerPlugin_v%d symbol.", x))
			}
		}
		if v != 0 {
			out = append(out, "TUNER/Plugin: Using tuner plugin "+name)
		}
		return out
	})

var release2_24_3 = Release{
	Version: V2_24_3,
	Tag:     tag243,
	Consts:  consts2_24_3,
	Topo:    topo.Apply2_24_3,
	Tuning:  tuningApply2_24_3,
	Rules:   apply2_24_3,
}

// profiler24 probes ncclProfiler_v2, then v1.
var profiler24 = profilerPlugin(Ref{Tag: tag243, File: "src/misc/profiler.cc", Func: "ncclProfilerPluginLoad"},
	`2.23.4's names (the NCCL_PROFILER_PLUGIN value twice, or libnccl-profiler.so); probe ncclProfiler_v2, then ncclProfiler_v1 (ProfilerABI), logging "failed to find ncclProfiler_vN." per miss and "loaded ncclProfiler_vN." for the one found. The v1 adapter's init drops the v1 init's result, so a v1 profiler whose init fails stays. None found, or an init error of a v2 profiler: no profiler, communicator init goes on.`,
	profilerOpts{names: namesTwice, setByEnvLine: true, notFoundEnd: ".", symLines: profSymVersion, v1InitIgnored: true, initFail: profInitWarnOff})

func consts2_24_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag243, File: file, Func: fn} }
	rs.SetConst("NetABI", []int{9, 8, 7, 6, 5}, ref("src/net.cc", "ncclNetPluginLoad"))
	rs.SetConst("TunerABI", []int{4, 3, 2}, ref("src/misc/tuner.cc", "ncclTunerPluginLoad"))
	rs.SetConst("ProfilerABI", []int{2, 1}, ref("src/misc/profiler.cc", "ncclProfilerPluginLoad"))
	rs.SetConst("HasFP8", true, ref("src/nccl.h.in", "ncclDataType_t"))
	rs.SetConst("RingBackup", false, ref("src/enqueue.cc", "topoGetAlgoInfo"))
	rs.SetConst("InitJobFreedTwice", true, ref("src/init.cc", "ncclCommInitRankDev, ncclCommInitJobFree"))
	rs.SetConst("P2PTypeLog", 1, ref("src/transport.cc", "ncclTransportCheckP2pType"))
	// a network-registered Ring AllGather on one rank per node returns
	// proxyOp's NCCL_MAX_NET_SIZE chunk
	rs.SetConst("NetRegRingAllGather", true, ref("src/enqueue.cc", "calcCollChunking"))
	// NCCL_NET_REG_BUFFER replaces NCCL_COLLNET_REG_BUFFER: one proxy step
	// for CollNet on one rank per node, NCCL_MAX_NET_SIZE Ring AllGather
	// steps
	rs.SetConst("ProxyReg", ProxyRegNet, ref("src/enqueue.cc", "calcCollChunking"))
	rs.SetConst("P2PReg", tuning.P2PRegIPCNet, ref("src/register/sendrecv_reg.cc", "ncclRegisterP2pNetBuffer, ncclRegisterP2pIpcBuffer"))
	setCollNetFail(rs, tag243, collNetFailSetup(352, 380, 1542))
}

func tuningApply2_24_3(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag243}
	const model = "ncclTopoTuneModel"
	tuningSet(d, &t.PATFactor, .75, tuningCC, model)
	tuningSet(d, &t.FP8RingPenalty, 1024.0, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.LLRowMixedAsAMD, true, tuningCC, model)
	tuningSet(d, &t.HardSetCollNetRescue, false, tuningCC, model)
	tuningSet(d, &t.RingRestore, false, tuningCC, model)
	tuningSet(d, &t.EnableMatrixPrint, true, tuningCC, model)
	tuningSet(d, &t.RingBackup, false, tuningCC, "ncclTopoGetAlgoTime")
	tuningSet(d, &t.NoAlgo, TuningNoAlgoR24, enqueueCC, "topoGetAlgoInfo")
	tuningSet(d, &t.FP8RingPenaltyOn, true, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.OpLine, TuningOpLineR24, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.FP8, true, enqueueCC, "taskAppend")
	tuningSet(d, &t.RegIPCGraph, true, "src/register/coll_reg.cc", "ncclRegisterCollBuffers")
	tuningSet(d, &t.RegNetRing, TuningRegNetRingOne, "src/register/coll_reg.cc", "ncclRegisterCollBuffers")
	tuningSet(d, &t.RegCollNetRanks, TuningRegCollNetRanksAGRS, "src/register/coll_reg.cc", "ncclRegisterCollBuffers")
	tuningSet(d, &t.RegCollNetGDR, true, "src/transport/coll_net.cc", "collnetRegisterBuffer")
	tuningSet(d, &t.RegIPCLegacyParam, true, "src/transport/p2p.cc", "ipcRegisterBuffer")
	// a failed IPC export or NVLS bind prints "failed to IPC/NVLS register"
	tuningSet(d, &t.RegIPCFailLine, true, "src/transport/p2p.cc", "ipcRegisterBuffer")
	tuningSet(d, &t.RegNVLSFailLine, true, "src/transport/nvls.cc", "nvlsRegisterBuffer")
	tuningSet(d, &t.RegRecordLocalParam, true, "src/register/register.cc", "ncclCommRegister")
	return d.changes, tuningJoinErrs(d.errs)
}

func apply2_24_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag243, File: file, Func: fn} }
	rs.Replace(tunerABI24, "window v4-v2")
	rs.Replace(p2pRegRule(ref("src/register/sendrecv_reg.cc", "ncclRegisterP2pNetBuffer, ncclRegisterP2pIpcBuffer"), p2pRegDoc24), "send/recv buffers register over IPC too, and a graph capture registers them")
	rs.Replace(profiler24, "ncclProfiler_v2, then v1 through an adapter that ignores v1's init result")
	rs.Remove("G-SEL-PARSE-1", ref("src/graph/tuning.cc", "parseList"), "per-function grammar replaces it")
	rs.Add(parse24, "G-TUNE-BW-2", "per-function grammar with hard errors")
	rs.Replace(en24, "per function, no hard-set rescue")
	rs.Remove("G-TUNE-RINGRESTORE-1", ref("src/graph/tuning.cc", "ncclTopoTuneModel"), "ringbdw and the restore are gone")
	rs.Replace(appendRule(ref("src/enqueue.cc", "taskAppend"), true), "fp8 reductions need sm90")
	rs.Replace(pruneRule(ref("src/enqueue.cc", "updateCollCostTable"),
		pruneSet{nvlsAGExempt: true, nvlsAGRSOneNode: true, patScaling: true, fp8Ring: true}), "P8: fp8 Ring with more than 8 ranks deprioritised")
	rs.Remove("G-SEL-BACKUP-1", ref("src/enqueue.cc", "topoGetAlgoInfo"), "no Ring backup")
	rs.Add(errRule(ref("src/enqueue.cc", "topoGetAlgoInfo"), "Error : no algorithm/protocol available"), "G-SEL-PICK-1", "hard error")
	rs.Add(initAbort24, "G-TUNER-INIT-1", "ncclCommInitRankDev's fail path frees the init job ncclAsyncLaunch already freed: a failed ncclCommInitRank outside a group aborts the process")
	rs.Replace(regIPCRule, "buffers only captured into a CUDA graph registered over IPC too")
	rs.Replace(ruleAt(regCollNetRule, ref("src/register/coll_reg.cc", "ncclRegisterCollBuffers"), regCollNetDoc24),
		"NCCL_NET_REG_BUFFER: a CollNetDirect AllGather or ReduceScatter registers with several ranks per node too, on its own channels")
	rs.Replace(ruleAt(regCollNetIPCRule, ref("src/register/coll_reg.cc", "ncclRegisterCollBuffers"), regCollNetIPCDoc23),
		"IPC and CollNet registration both tried for a CollNetDirect task, IPC first")
	rs.Replace(ruleAt(regProxyRule, ref("src/enqueue.cc", "calcCollChunking"), regProxyDoc24),
		"one proxy step for CollNet on one rank per node, one head's loop with several, NCCL_MAX_NET_SIZE steps for a Ring AllGather")
	rs.Add(regCollNetSplitRule, "G-REG-PROXY-1", "the CollNet proxy re-splits a registered one-rank-per-node op into maxCollBytes pieces")
	rs.Replace(ruleAt(regSkipRule, ref("src/transport/p2p.cc", "ipcRegisterBuffer"), regSkipDoc24),
		"cudaMalloc buffers go over legacy CUDA IPC only under NCCL_LEGACY_CUDA_REGISTER=1; ncclCommRegister keeps no record under NCCL_LOCAL_REGISTER=0")
	rs.Replace(ruleAt(collNetFlushRule, ref("src/transport/coll_net.cc", "recvSetup, recvProxyProgress, collNetRecvFlush, collnetRegisterBuffer"), ""),
		"a registered step's flush goes through collNetRecvFlush, maxCollBytes pieces of the user buffer on one rank per node; CollNet registers only through a connector with GPU Direct RDMA")
}

// regSkipDoc24 is G-REG-SKIP-1 from 2.24.3 to 2.28.7.
const regSkipDoc24 = `Registration NCCL tries (G-REG-UB-1, G-REG-IPC-1) and that fails leaves the task unregistered, on the channels of its unregistered decision. NVLS: cudaMalloc buffers (alloc cudamalloc) cannot be bound to the multicast object (it takes cuMem memory of NCCL's handle type, as ncclMemAlloc gives; 2.28.7 checks the handle types before binding). IPC: a cuMem buffer's handle is exported only with NCCL's cuMem on (NCCL_CUMEM_ENABLE, default: the driver's support); a cudaMalloc buffer goes over legacy CUDA IPC only under NCCL_LEGACY_CUDA_REGISTER=1 (default 0), never in directMode (ranks sharing a process, G-PROC-1). The network and CollNet register either kind; CollNet only through a connector with GPU Direct RDMA (collnetRegisterBuffer: NCCL_DIRECT_NIC). A call that fails returns ncclSuccess with the flag 0 and prints its line: "failed to IPC register" (ipcRegisterBuffer), "COLLNET failed to register" (collnetRegisterBuffer); WARNs at 2.24.3 and 2.25.1, REG INFOs from 2.26.2. Under NCCL_LOCAL_REGISTER=0 ncclCommRegister keeps no record, so registered buffers are plain to regBuff (the tuner's and the CTA policy's).`
