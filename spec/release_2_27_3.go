package spec

import (
	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.27.3 (tag v2.27.3-1), a delta against 2.26.6: symmetric kernels
// (registered windows, one node, one collective per group) and the CTA
// policy with its override towards NVLS; several net plugins with a
// per-plugin state machine; NCCL_COLLNET_ENABLE as a config field
// (an NCCL_PARAM here, a string read per communicator from 2.27.5); the
// CollNet/NVLS AllGather/ReduceScatter bandwidth rule; LL128 with
// NCCL_LL128_C2C; the soft NVLS bind failure; PATH_P2C; no MNNVL check under a
// user P2P level of LOC.

var tag273 = "v2.27.3-1"

// collNetEnv273 reads NCCL_COLLNET_ENABLE through NCCL_PARAM into
// config.collnetEnable (before the network), for every communicator.
var collNetEnv273 = &Rule{
	ID: "G-COLLNET-ENV-1", Layer: LayerEnv, Cap: CapCollNet, Title: "NCCL_COLLNET_ENABLE",
	Doc:  `At every communicator init, before the network plugins, NCCL_PARAM(CollnetEnable) (ncclLoadParam: strtoll base 0, default NCCL_CONFIG_UNDEF_INT) overrides config.collnetEnable (default 0) when set. A value other than 0 or 1 is logged and set to 0.`,
	Ref:  Ref{Tag: tag273, File: "src/init.cc", Func: "envConfigOverride"},
	Logs: []string{"NCCL_COLLNET_ENABLE set by environment to %lld.", "collnetEnable %d is not a valid value 0/1, set it to 0"},
	init: func(r *initRun) {
		v := r.env["NCCL_COLLNET_ENABLE"]
		facts := []Fact{r.comm.setting("NCCL_COLLNET_ENABLE")}
		n, set, log := intParam(r.env, "NCCL_COLLNET_ENABLE", UndefInt)
		if r.comm.fromConfigVar("NCCL_COLLNET_ENABLE") {
			log = "" // config.collnetEnable: NCCL_PARAM read nothing
		}
		if !set || n == UndefInt {
			r.emit(Verdict{Outcome: Fail, Why: "NCCL_COLLNET_ENABLE unset: config.collnetEnable stays 0", Facts: facts, Log: nonEmpty(log)})
			return
		}
		collNetEnableValue(r, v, n, facts, nonEmpty(log))
	},
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

var side273 = ruleAt(sideRule, Ref{Tag: tag273, File: "src/enqueue.cc", Func: "ncclPrepareTasks"},
	`Symmetric kernels: a group of exactly one collective and no p2p, on one node, on a communicator with symmetric support (every peer direct P2P, NCCL_WIN_ENABLE, cuMem), with send and receive buffers in windows registered with NCCL_WIN_COLL_SYMMETRIC and a kernel for (function, redop, datatype), is scheduled by ncclSymPickKernel without the cost table. Ordinary, unregistered buffers always go through it.`)

var ctaPolicy273 = ruleAt(ctaPolicyRule, Ref{Tag: tag273, File: "src/enqueue.cc", Func: "getAlgoInfo"}, "")

const proto273Doc = `Protocols default to LL 1, LL128 2 (auto), Simple 1; a value set by NCCL_PROTO is 0/1 and bypasses the auto rule. LL128 auto is on when the graph's inter-node path is at most PXB, or on sm90+ at most P2C with NCCL_LL128_C2C (default 1) and at most PXN without it (2.27.3 numbers PATH_P2C 7 above PATH_PXN 6: PXN passes either way, P2C only with NCCL_LL128_C2C), its intra-node path at most NVB, every GPU has the same compute capability, at least 7.0 (not for a two-rank sm90 Ring AllReduce built with CUDA 11.8).`

// mnnvl273 is G-MNNVL-1 as initTransportsRank gates ncclMnnvlCheck from
// 2.27.3: the auto case also needs a user P2P level other than LOC.
var mnnvl273 = mnnvlRuleUserP2P(Ref{Tag: tag273, File: "src/init.cc", Func: "initTransportsRank"}, mnnvl28.Doc)

// netLib273 is G-NET-LIB-1 of 2.27.3: the list of plugins, each entry
// under one name by its form, and no "none" keyword.
var netLib273 = netLibList(Ref{Tag: tag273, File: "src/plugin/plugin_open.cc", Func: "openPluginLib"},
	`NCCL_NET_PLUGIN unset: one entry, libnccl-net.so. Set: logged; a comma-separated list (empty items skipped, at most 14 entries, names of 255+ characters ignored; "none" is an entry like any other). For each entry dlopen the name itself when it is of the form lib*.so (7 characters or more), otherwise only libnccl-net-<name>.so, so a path that does not start with "lib" is never opened. A non-ENOENT failure is logged with the name and dlerror's text; the ENOENT names are listed in "Could not find".`,
	netLibOpts{form: namesOne})

var release2_27_3 = Release{
	Version: V2_27_3,
	Tag:     tag273,
	Consts:  consts2_27_3,
	Topo:    topo.Apply2_27_3,
	Tuning:  tuningApply2_27_3,
	Rules:   apply2_27_3,
}

func consts2_27_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag273, File: file, Func: fn} }
	rs.SetConst("NVLSChannelsSM100", 24, ref("src/transport/nvls.cc", "ncclNvlsInit"))
	rs.SetConst("ConfigFields", configFieldsThrough("nvlsCTAs"), ref("src/nccl.h.in", "ncclConfig_t"))
	rs.SetConst("P2PTypeLog", 2, ref("src/transport.cc", "ncclTransportCheckP2pType"))
	// 2.26.5's -1 (no work FIFO on MNNVL sm100) is gone
	rs.SetParamDefault("NCCL_WORK_FIFO_BYTES", 1<<20, ref("src/init.cc", "WorkFifoBytes, devCommSetup"))
	rs.SetParamDefault("NCCL_NVLS_NCHANNELS", UndefInt, ref("src/init.cc", "NvlsChannels"))
	rs.SetParamDefault("NCCL_LL128_C2C", 1, ref("src/graph/tuning.cc", "Ll128C2c"))
	rs.SetParamDefault("NCCL_NET_GDR_C2C", 1, ref("src/graph/paths.cc", "NetGdrC2c"))
	rs.SetParamDefault("NCCL_PXN_C2C", 0, ref("src/graph/paths.cc", "PxnC2c"))
	rs.SetConst("ProfilerABI", []int{4, 3, 2, 1}, ref("src/plugin/profiler.cc", "ncclProfilerPluginLoad"))
	// NVLS AllGather/ReduceScatter on NVLS-registered buffers: the
	// Simple step, not nvlsChunkSize and its small-operation caps
	rs.SetConst("NVLSRegStepChunk", true, ref("src/enqueue.cc", "calcCollChunking"))
	setCollNetFail(rs, tag273, collNetFailSetup(357, 385, 1578))
}

// profiler273 opens one name: a lib*.so value as it is, any other value
// only as libnccl-profiler-<value>.so (a path too).
var profiler273 = profilerPlugin(Ref{Tag: tag273, File: "src/plugin/profiler.cc", Func: "ncclProfilerPluginLoad"},
	`The common loader opens one name: NCCL_PROFILER_PLUGIN's value when it has the form lib*.so (7 characters or more), any other non-empty value only as libnccl-profiler-<value>.so (so a path is never opened as given); unset or empty, libnccl-profiler.so. Probe ncclProfiler_v4, _v3, _v2, _v1 (ProfilerABI) through per-version shims. No library, no symbol or a failed init (WARN, the profiler is dropped): no profiler, communicator init goes on.`,
	profilerOpts{names: namesOne, setByEnvLine: true, notFoundEnd: ". ", symLines: profSymName, initFail: profInitWarnOff})

func tuningApply2_27_3(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag273}
	tuningSet(d, &t.RegNVLS, TuningRegNVLSHeads, "src/transport/nvls.cc", "ncclNvlsRegResourcesQuery")
	tuningSet(d, &t.WorkFifoBytesAuto, false, "src/init.cc", "devCommSetup")
	const model = "ncclTopoTuneModel"
	tuningSet(d, &t.CTAPolicyMax, 1, "src/init.cc", "envConfigOverride")
	tuningSet(d, &t.CollNetDirectInter, 0.9, tuningCC, model)
	tuningSet(d, &t.CollNetDirectPPN1, 0, tuningCC, model)
	tuningSet(d, &t.CollNetDirectPPN8, 0, tuningCC, model)
	tuningSet(d, &t.CollNetAGRS, TuningCollNetAGRSMin, tuningCC, model)
	tuningSet(d, &t.LL128Rule, TuningLL128C2CPXN, tuningCC, model)
	tuningSet(d, &t.NThreadsWarn, false, tuningCC, "getNthreads")
	tuningSet(d, &t.PruneNVLS, TuningNVLSPruneArity, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.PruneNVLSMultiNodeAGRS, false, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.PruneNVLSAGRSRanks, false, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.Symmetric, true, enqueueCC, "ncclPrepareTasks")
	tuningSet(d, &t.SymArgsBytes, 80, "src/include/symmetric.h", "struct ncclSymDevArgs")
	tuningSet(d, &t.CTAPolicyNVLS, true, enqueueCC, "getAlgoInfo")
	tuningSet(d, &t.RegWindowRecord, TuningRegWindowRecordCuMem, "src/register/register.cc", "ncclCommWindowRegister")
	return d.changes, tuningJoinErrs(d.errs)
}

func apply2_27_3(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag273, File: file, Func: fn} }
	rs.Replace(ruleAt(regIPCRule, ref("src/register/coll_reg.cc", "ncclRegisterCollBuffers; src/register/register.cc ncclCommWindowRegister"),
		`From 2.24.3, a Ring or Tree task on Simple whose buffers are captured into a CUDA graph (NCCL_GRAPH_REGISTER, default 1) or registered with ncclCommRegister (NCCL_LOCAL_REGISTER, default 1) is registered over IPC when the node's peers are direct P2P (not ReduceScatter, not Reduce or in-place AllReduce on Ring, not in-place Tree); on one node such a task with 16 < nMaxChannels ≤ 24 runs on 16 channels. From 2.27.3, window buffers count as registered: ncclCommWindowRegister registers the window's allocation (ncclRegister, the record ncclRegFind reads) under NCCL_LOCAL_REGISTER with NCCL's cuMem on, so an operation on windows that the cost table decides (no symmetric kernel) registers its buffers over IPC, NVLS, CollNet or the network, and counts for regBuff (the tuner's and the CTA policy's), as registered buffers do.`),
		"window buffers carry a registration record (ncclRegister of the window's allocation, NCCL's cuMem on)")
	rs.Remove("G-COLLNET-ENV-1", ref("src/init.cc", "envConfigOverride"), "read at config time instead (below)")
	rs.Replace(configRule(ref("src/init.cc", "parseCommConfig, envConfigOverride")), "ncclConfig_t gains commName, collnetEnable, CTAPolicy, shrinkShare, nvlsCTAs")
	rs.Replace(collNetSetup(ref("src/transport/coll_net.cc", "ncclCollNetSetup"), false, collNetOffConfig), "a failed CollNet setup clears comm->config.collnetEnable (split communicators copy it), not comm->collNetSupport")
	rs.Replace(mnnvl273, "ncclMnnvlCheck only with a user P2P level other than LOC (ncclGetUserP2pLevel), unless NCCL_MNNVL_ENABLE=1")
	rs.Replace(profiler273, "window v4-v1; one name: a lib*.so value, else libnccl-profiler-<value>.so")
	rs.Add(collNetEnv273, "G-ENV-CONFIG-1", "NCCL_PARAM into config.collnetEnable for every communicator")
	rs.Replace(tunerLib28(ref("src/plugin/plugin_open.cc", "openPluginLib"), tunerLibOpts{form: namesOne, fallback: "Using internal tuner plugin."}), "one name: a lib*.so value, else libnccl-tuner-<value>.so")
	rs.Replace(netLib273, "comma list of plugins; each entry opened under one name chosen by its form (a path not starting with lib is never opened)")
	rs.Replace(netABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "per-entry probe through the 2.26 per-version adapters, one log per accepted version")
	rs.Replace(collNetABI28(ref("src/plugin/net.cc", "ncclNetPluginLoad")), "per-entry probe, silent when absent")
	rs.Replace(collNetEntryPoints(ref("src/plugin/net/net_v7.cc", "getNcclCollNet_v7"), 8), "adapters in src/plugin/net/ (2.26.2)")
	rs.Replace(ruleAt(netLibNone28, ref("src/plugin/net.cc", "ncclNetPluginLoad"), ""), "no trailing sentence")
	rs.Replace(netState(ref("src/plugin/net.cc", "ncclNetPluginInit"), netState28.Doc,
		netSelectOpts{ibUsingOnZero: true, initLog: true}), "per-plugin state machine, init per communicator")
	rs.Replace(netChoose(ref("src/plugin/net.cc", "ncclNetInit"), netChoose28.Doc, "Failed to initialize any NET plugin", true), `WARN "Failed to initialize any NET plugin"`)
	rs.Add(ruleAt(netLibOthers, ref("src/plugin/net.cc", "ncclNetPluginDisableOtherExternal"), ""), "G-NET-SEL-1", "several external plugins, others disabled")
	rs.Replace(netDevVersion.withRef(ref("src/plugin/net.cc", "ncclNetCheckDeviceVersion")), "checked at assignment")
	rs.Replace(collNetAttach.withRef(ref("src/plugin/net.cc", "ncclNetPluginAssignToComm")), "attached at assignment")
	rs.Replace(collNetPlugin28.withRef(ref("src/init.cc", "initTransportsRank")), "forces config.collnetEnable to 0")
	rs.Replace(nvlsCap(ref("src/transport/nvls.cc", "ncclNvlsInit"), true), "log adds (NVLS_NCHANNELS %d)")
	rs.Replace(collNetCons.withRef(ref("src/init.cc", "initTransportsRank")), "config.collnetEnable")
	rs.Replace(nvlsSetup(ref("src/transport/nvls.cc", "nvlsAllocateMem"), true), "bind failure soft unless NCCL_NVLS_ENABLE=1")
	rs.Replace(collNetBwRule(ref("src/graph/tuning.cc", "ncclTopoTuneModel"), bw2_28.Doc, true), "NVLS and CollNetDirect share the multi-node AllGather/ReduceScatter rule")
	rs.Replace(protoRule(ref("src/graph/tuning.cc", "ncclTopoTuneModel"), proto273Doc, ll128Auto273), "NCCL_LL128_C2C, any compute capability ≥ 7.0; PXN on sm90+ with or without it (P2C numbered above PXN)")
	rs.Add(side273, "G-SEL-APPEND-1", "symmetric kernels bypass the table")
	rs.Replace(opSupport(ref("src/enqueue.cc", "getCollNetSupport")), "new tag; AllGather loses its NVLS exemption in the prune (G-SEL-PRUNE-1)")
	rs.Replace(pruneRule(ref("src/enqueue.cc", "updateCollCostTable"),
		pruneSet{nvlsArity: true, patScaling: true, fp8Ring: true}), "P4': local ranks above NCCL_MAX_NVLS_ARITY; P6 removed")
	rs.Add(ctaPolicy273, "G-SEL-PICK-1", "CTA policy")
}
