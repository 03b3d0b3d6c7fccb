package spec

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.23.4 (tag v2.23.4-1), a delta against 2.22.3: PAT (algorithm 7,
// AllGather/ReduceScatter, Simple), CollNet's local-rank limit moves from
// communicator init to every operation, NCCL_CONF_FILE, the Tree latency
// constants and the 16 KiB scheduler cell.

var tag234 = "v2.23.4-1"

// ruleAt is r documented at a later tag: the same behaviour, with doc
// replacing r's documentation when it is not empty.
func ruleAt(r *Rule, ref Ref, doc string) *Rule {
	c := r.withRef(ref)
	if doc != "" {
		c.Doc = doc
	}
	return c
}

// collNetArityOp is G-COLLNET-ARITY-1's per-operation form: the listed
// CollNet algorithms stay IGNORE when a node has more than
// NCCL_MAX_DIRECT_ARITY+1 local ranks.
func collNetArityOp(ref Ref, doc string, algos ...Algo) *Rule {
	names := make([]string, len(algos))
	for i, a := range algos {
		names[i] = a.String()
	}
	ignored := strings.Join(names, " and ")
	return &Rule{
		ID: "G-COLLNET-ARITY-1", Layer: LayerSelect, Cap: CapCollNet, Title: "CollNet GPUs per node",
		Doc: doc,
		Ref: ref,
		perOp: func(o *opRun) {
			lim := o.rs.Consts.MaxDirectArity + 1
			if o.comm.MaxLocalRanks <= lim {
				// the sentence is written when read: this runs for every operation
				l := o.lazy(LazyArity)
				l.Count, l.Limit = int64(o.comm.MaxLocalRanks), int64(lim)
				o.emit(Verdict{Outcome: Pass, Lazy: l})
				return
			}
			for _, a := range algos {
				for p := range NumProtos {
					o.prunedBy[a][p] = "G-COLLNET-ARITY-1"
				}
			}
			o.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("%d local ranks > %d: %s ignored", o.comm.MaxLocalRanks, lim, ignored)})
		},
	}
}

var collNetArity23 = collNetArityOp(Ref{Tag: tag234, File: "src/enqueue.cc", Func: "updateCollCostTable"},
	`No init-time disable: per operation CollNetDirect stays IGNORE when a node has more than NCCL_MAX_DIRECT_ARITY+1 (8) local ranks; CollNetChain is not limited.`,
	CollNetDirect)

var impl23Rule = implRule(Ref{Tag: tag234, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"},
	`Modelled cells: Broadcast and Reduce on Ring only; AllGather and ReduceScatter on Ring, NVLS, CollNetDirect and PAT; AllReduce on every algorithm but PAT. NVLS, NVLSTree and PAT have Simple only (PAT also needs ncclPatEnable).`,
	impl28)

var pat23 = ruleAt(patRule, Ref{Tag: tag234, File: "src/graph/tuning.cc", Func: "ncclPatEnable"},
	`ncclPatEnable: NCCL_PAT_ENABLE (default 2) other than 2 → its truth value (non-zero forces PAT on, even with several GPUs per node); auto → on iff one GPU per node (nNodes == nRanks) and the network device is HOST type. PAT serves AllGather and ReduceScatter, Simple only. No compute-capability floor (2.26.2 adds sm60).`)

// profiler23 is the first profiler plugin loader: one symbol,
// ncclProfiler_v1, loaded in commAlloc right after the network.
var profiler23 = profilerPlugin(Ref{Tag: tag234, File: "src/misc/profiler.cc", Func: "ncclProfilerPluginLoad"},
	`NCCL_PROFILER_PLUGIN (plain getenv) set and non-empty: dlopen the value, then the same value again (the name buffer is never rewritten); otherwise libnccl-profiler.so. The library must export ncclProfiler_v1 (ProfilerABI). Loaded once per process in commAlloc, after the network; a missing library, a missing symbol or an init error (WARN "Profiler init failed with error (%d). Continue without profiler.") leaves the process without a profiler and communicator init goes on. The profiler decides nothing gatesim models.`,
	profilerOpts{names: namesTwice, setByEnvLine: true, notFoundEnd: ".", symLines: profSymV1Only, initFail: profInitWarnOff})

var release2_23_4 = Release{
	Version: V2_23_4,
	Tag:     tag234,
	Consts:  consts2_23_4,
	Topo:    topo.Apply2_23_4,
	Tuning:  tuningApply2_23_4,
	Rules:   apply2_23_4,
}

func consts2_23_4(rs *Ruleset) {
	rs.SetConst("HasPAT", true, Ref{Tag: tag234, File: "src/graph/tuning.cc", Func: "ncclPatEnable"})
	rs.SetConst("GDRPeermem", true, Ref{Tag: tag234, File: "src/transport/net_ib.cc", Func: "ncclIbGdrSupport"})
	rs.SetConst("NVLSLastChunkAlign", 16384, Ref{Tag: tag234, File: "src/device/all_reduce.h", Func: "RunWorkColl<ncclFuncAllReduce, NCCL_ALGO_NVLS>"})
	rs.SetParamDefault("NCCL_PAT_ENABLE", 2, Ref{Tag: tag234, File: "src/graph/tuning.cc", Func: "PatEnable"})
	rs.SetConst("ProfilerABI", []int{1}, Ref{Tag: tag234, File: "src/misc/profiler.cc", Func: "ncclProfilerPluginLoad"})
	setCollNetFail(rs, tag234, collNetFailSetup(356, 384, 1358))
}

func tuningApply2_23_4(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag234}
	const model = "ncclTopoTuneModel"
	tuningSet(d, &t.NumAlgos, 7, "src/include/nccl_common.h", "NCCL_NUM_ALGORITHMS")
	tuningSet(d, &t.BaseLat[Tree][Simple], 8.4, tuningCC, "baseLat")
	tuningSet(d, &t.HwLat[TuningHwNVLink][Tree][Simple], 4.0, tuningCC, "hwLat")
	tuningSet(d, &t.HwLat[TuningHwPCI][Tree][Simple], 4.0, tuningCC, "hwLat")
	tuningSet(d, &t.HwLat[TuningHwNet][Tree][Simple], 14, tuningCC, "hwLat")
	tuningSet(d, &t.RingLL128LowPPNFactor, 0, tuningCC, model)
	tuningSet(d, &t.PATFactor, .85, tuningCC, model)
	tuningSet(d, &t.PATBaseLat, 8, tuningCC, model)
	tuningSet(d, &t.PATLogLatDivisor, 3.5, tuningCC, model)
	tuningSet(d, &t.PATLinearLat, 2.8, tuningCC, model)
	// registerCollBuffers: a registered CollNet task of one rank per node
	// takes nMaxChannels = 1, no longer within the CTA bounds
	tuningSet(d, &t.RegCollNet, TuningRegCollNetOne, enqueueCC, "registerCollBuffers")
	tuningSet(d, &t.RegIPC, true, enqueueCC, "registerCollBuffers")
	tuningSet(d, &t.RegIPCChannels, 16, enqueueCC, "registerCollBuffers")
	// the CollNetDirect IPC branch, switched off in 2.22.3, registers the
	// first channel's P2P up and down peers
	tuningSet(d, &t.RegCollNetIPC, TuningRegCollNetIPCNotRS, enqueueCC, "registerCollBuffers")
	tuningSet(d, &t.RegIPCDirectMode, true, "src/transport/p2p.cc", "ncclIpcLocalRegisterBuffer")
	tuningSet(d, &t.TreeCapAllReduceOnly, true, tuningCC, model)
	tuningSet(d, &t.TreeCorrectionAllReduceOnly, true, tuningCC, "ncclTopoGetAlgoTime")
	tuningSet(d, &t.AGRSRatioRingOnly, true, tuningCC, model)
	tuningSet(d, &t.RingARInterStepsMinus1, true, tuningCC, model)
	tuningSet(d, &t.InterLatTreeAtPPN1, true, tuningCC, model)
	tuningSet(d, &t.PruneCollNetArity, true, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.PrunePATScaling, true, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.OpLine, TuningOpLineR23, enqueueCC, "topoGetAlgoInfo")
	tuningSet(d, &t.MinTrafficPerChannel, 16<<10, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.CellFromMinTraffic, true, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.TaskTrafficFloor, true, enqueueCC, "scheduleCollTasksToPlan")
	tuningSet(d, &t.CellsLoRoundUp, true, enqueueCC, "scheduleCollTasksToPlan")
	// ncclDevWorkColl gains sendbuffOffset, recvbuffOffset and the two
	// remote-address pointers: 4+4 (bit fields, root) + 2×8 (buffers) +
	// 4×8 + 32 (the cbd union) + 8 (redOpArg) = 96 bytes, a multiple of its
	// 16-byte alignment, so a 1 KiB batch holds 1024/96 = 10 collectives
	// (2.24.3 and 2.26.3 only rename bits inside the first word)
	tuningSet(d, &t.WorkCollBytes, 96, deviceH, "struct ncclDevWorkColl")
	tuningSet(d, &t.MaxDevWorkBatchColls, 10, deviceH, "NCCL_MAX_DEV_WORK_BATCH_COLLS")
	// ncclDevWorkCollReg embeds it: 96 + 3 × 8 pointers = 288 bytes
	tuningSet(d, &t.WorkCollRegBytes, 288, deviceH, "struct ncclDevWorkCollReg")
	return d.changes, tuningJoinErrs(d.errs)
}

func apply2_23_4(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag234, File: file, Func: fn} }
	rs.Replace(ruleAt(envSource23, ref("src/misc/param.cc", "initEnvFunc"), ""), "NCCL_CONF_FILE names the user config file")
	rs.Remove("G-COLLNET-ARITY-1", ref("src/enqueue.cc", "updateCollCostTable"), "no init-time disable; per-operation form below")
	rs.Replace(impl23Rule, "PAT for AllGather/ReduceScatter")
	rs.Add(pat23, "G-TUNE-IMPL-1", "PAT")
	rs.Replace(devInitAll23, `ncclCommInitAll: a devlist device outside the visible ones prints "Invalid device" and returns ncclInvalidArgument, no longer a silent ncclUnhandledCudaError`)
	rs.Replace(modelDone.withRef(ref("src/graph/tuning.cc", "ncclTopoTuneModel")), "7 algorithms")
	rs.Add(collNetArity23, "G-SEL-OPSUP-1", "per-operation CollNetDirect arity")
	rs.Replace(pruneRule(ref("src/enqueue.cc", "updateCollCostTable"),
		pruneSet{nvlsAGExempt: true, nvlsAGRSOneNode: true, patScaling: true}), "P7: PAT ReduceScatter without scaling")
	rs.Replace(runtimeConnect.withRef(ref("src/group.cc", "ncclCollPreconnectFunc")), "PAT too")
	rs.Add(profiler23, "G-NET-SEL-1", "profiler plugin, ncclProfiler_v1 (commAlloc, after ncclNetInit)")
	rs.Add(ruleAt(regIPCRule, ref("src/enqueue.cc", "registerCollBuffers"),
		`From 2.23.4, a Ring or Tree task on Simple whose buffers were registered with ncclCommRegister (ncclRegFind finds their record; NCCL_LOCAL_REGISTER, or NCCL_GRAPH_REGISTER when captured into a CUDA graph, both default 1) is registered over IPC when the node's peers are direct P2P (not ReduceScatter, not Reduce or in-place AllReduce on Ring, not in-place Tree); a buffer only captured into a CUDA graph is not. On one node such a task with 16 < nMaxChannels ≤ 24 runs on 16 channels.`),
		"G-REG-UB-1", "ncclCommRegister'ed buffers registered over IPC")
	rs.Add(regCollNetIPCRule, "G-REG-COLLNET-1", "CollNetDirect's node peers registered over IPC (the branch 2.22.3 switched off)")
	rs.Replace(ruleAt(regSkipRule, ref("src/transport/p2p.cc", "ncclIpcLocalRegisterBuffer, ncclIpcGraphRegisterBuffer"),
		`Registration NCCL tries (G-REG-UB-1, G-REG-IPC-1) and that fails leaves the task unregistered, on the channels of its unregistered decision. NVLS: cudaMalloc buffers (alloc cudamalloc) cannot be bound to the multicast object (it takes cuMem memory of NCCL's handle type, as ncclMemAlloc gives). IPC: a cuMem buffer's handle is exported only with NCCL's cuMem on (NCCL_CUMEM_ENABLE, default: the driver's support); a cudaMalloc buffer goes over legacy CUDA IPC, never in directMode (ranks sharing a process, G-PROC-1). A failed IPC export prints nothing: ncclIpcLocalRegisterBuffer leaves the flag 0 without a line ("failed to IPC register" comes with 2.24.3). CollNet registers either kind.`),
		"IPC registration fails for cuMem buffers with NCCL's cuMem off")
}
