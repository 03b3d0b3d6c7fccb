package spec

import (
	"fmt"

	"github.com/gatesim/gatesim/spec/topo"
)

// NCCL 2.30.7 (tag v2.30.7-1) as a delta against 2.30.4: CollNetChain only
// when its heads have CollNet resources, NVLS off when ranks share a GPU,
// a network-registered Ring AllGather/Broadcast on comm->minNetCount
// channels, the environment plugin ABI v2, the typed parameter registry
// (spec/params), and MLOPart partitions in the topology (topo.MLOPartAttr:
// each partition its own device; no GDR; NVLS off when the last two ranks
// are partitions of one GPU).

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
	rs.SetConst("ConfigFields", configFieldsThrough("graphStreamOrdering"), Ref{Tag: tag2307, File: "src/nccl.h.in", Func: "ncclConfig_t"})
	rs.SetConst("ConfigRmaCtxEnvMin", 0, Ref{Tag: tag2307, File: "src/init.cc", Func: "envConfigOverride"})
	rs.SetConst("GinABI", []int{14, 13}, Ref{Tag: tag2307, File: "src/plugin/gin.cc", Func: "ncclGinPluginLoad"})
	rs.SetConst("RmaABI", []int{14, 13}, Ref{Tag: tag2307, File: "src/plugin/rma.cc", Func: "ncclRmaPluginLoad"})
	rs.SetConst("GinInternal", GinInternalGdakiRma, Ref{Tag: tag2307, File: "src/plugin/gin.cc", Func: "initPluginLibsOnceFunc, ncclGinPluginAssignToComm"})
	rs.SetConst("GdrFlushAnyArch", true, Ref{Tag: tag2307, File: "src/transport/coll_net.cc", Func: "recvProxyProgress, ncclGdrCudaRead; src/transport/net.cc recvProxyProgress, ncclGdrCudaRead"})
	rs.SetConst("SHMDirectOnly", true, Ref{Tag: tag2307, File: "src/transport/shm.cc", Func: "shmSendSetup"})
	setCollNetFail(rs, tag2307, collNetFailSetup(431, 464, 1811))
	rs.SetConst("LogLocFunc", true, Ref{Tag: tag2307, File: "src/include/debug.h", Func: "INFO_LOC_FN"})
	rs.SetConst("DevCommForm", devComm307, Ref{Tag: tag2307, File: "src/dev_runtime.cc", Func: "ncclDevrCommCreateInternal"})
}

var gin307 = ginLoader(Ref{Tag: tag2307, File: "src/plugin/gin.cc", Func: "ncclGinInit"},
	`2.29.7's loader (NCCL_GIN_PLUGIN or libnccl-gin.so, then the net plugin's library, then the internal IB GIN, GDAKI before the proxy) with at most 13 list entries, GinABI v14, v13, and per-entry lines "GIN/Plugin: Loaded gin plugin %s (vN)" and "GIN/Plugin: Successfully loaded external plugin %s", or "GIN/Plugin: Failed to load external plugin %s, dlHandle: %p, ncclGin: %p". An entry whose init or devices() fails, or reports 0 devices, is disabled and the next is tried The internal entries: GIN_IB_GDAKI (NCCL_GIN_TYPE unset or 3, an mlx5 port, nvidia_peermem or DMA-BUF; "GIN/Plugin: Assigned plugin GIN_IB_GDAKI type 3 to comm"), then the GIN proxy over the RMA plugin G-RMA-1 assigned (type 2, named after it; NCCL_GIN_TYPE=3 prints "GIN/Plugin: Skipping plugin %s index %d type %d: NCCL_GIN_TYPE=%ld requested"). "GIN/Plugin: Failed to initialize any GIN plugin" when none initialises. It runs after the RMA loader.`,
	listPluginAt(ginKind, 13, 13, "GIN/Plugin: Loaded gin plugin %s (v%d)", true))

var rma307 = rmaLoader(Ref{Tag: tag2307, File: "src/plugin/rma.cc", Func: "ncclRmaInit"},
	`The RMA plugin's own loader, run between ncclNetInit and ncclGinInit: NCCL_RMA_PLUGIN set: logged; "none" gives no external entry, otherwise a comma list (at most 13 entries); unset: libnccl-rma.so. Each entry is opened by the common loader and probed for ncclRmaPlugin_vN over RmaABI (v14, v13; "RMA/Plugin: Loaded rma plugin %s (vN)", then "RMA/Plugin: Successfully loaded external plugin %s" or "RMA/Plugin: Failed to load external plugin %s, dlHandle: %p, ncclRma: %p"); then the GIN plugin's library (not open yet on a process's first communicator), the net plugin's library, and the internal RMA_IB_PROXY (IB devices and a peer-memory module or the first device's DMA-BUF). An entry whose init or devices() fails, or reports 0 devices (Library.rma), is disabled and the next is tried ("RMA/Plugin: Failed to initialize any plugin" when none, the internal one included, initialises; communicator init still succeeds). RMA decides nothing gatesim models.`,
	listPluginAt(rmaKind, 13, 13, "RMA/Plugin: Loaded rma plugin %s (v%d)", true))

func tuningApply2_30_7(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2307}
	tuningSet(d, &t.CollNetChainSupport, true, tuningCC, "ncclTopoTuneModel")
	tuningSet(d, &t.RegNetRing, TuningRegNetRingNICs, "src/register/coll_reg.cc", "ncclRegisterCollBuffers")
	const smBw = "getSmBw_ReduceScatter_RailA2A"
	tuningSet(d, &t.SymGinRsSmBw[0][0], 13.7e9, "src/sym_kernels.cc", smBw)
	tuningSet(d, &t.SymGinRsSmBw[0][1], 4.22e9, "src/sym_kernels.cc", smBw)
	tuningSet(d, &t.SymGinRsSmBw[1][0], 26.6e9, "src/sym_kernels.cc", smBw)
	tuningSet(d, &t.SymGinRsSmBw[1][1], 8.44e9, "src/sym_kernels.cc", smBw)
	tuningSet(d, &t.SymGinRsChunkEnv, true, "src/sym_kernels.cc", "ncclSymkRsGinChunkBytes")
	tuningSet(d, &t.RegMLOPartRDMA, true, "src/register/coll_reg.cc", "isMloPartBufRdmaCapable")
	tuningSet(d, &t.HierCE, true, "src/ce_coll.cc", "ncclHierCeAvailable")
	tuningSet(d, &t.HostRMANumCtx, true, "src/init.cc", "initTransportsRank")
	return d.changes, tuningJoinErrs(d.errs)
}

var nvlsEarly307 = nvlsEarlyMultiRank(nvlsEarly(Ref{Tag: tag2307, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	`NVLS is turned off when several ranks of the communicator share one NVML device (hasMultiRankNvml; with NCCL_NVLS_ENABLE=1 a WARN and ncclInvalidUsage), then silently when the topology has fewer than 2 GPUs, or when the driver entry point cuDeviceGet is missing. initRankTransports sets hasMultiRankNvml inside its loop over rank pairs, so the value kept is that of the last pair: the last two ranks on one host with one NVML dev. Of modelled systems, only the two partitions of an MLOPart GPU share a dev (the NVML device is the physical GPU's).`,
	nvlsOffBelow2))

// nvlsMultiRankWarn is ncclNvlsInit's WARN for NCCL_NVLS_ENABLE=1 with
// ranks sharing an NVML device.
const nvlsMultiRankWarn = `NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same NVML device. This is not compatible with NCCL_NVLS_ENABLE=1.`

// nvlsEarlyMultiRank is 2.30.7's G-NVLS-EARLY-1: hasMultiRankNvml first,
// then the release's other early exits (rule's).
//
// Ref: v2.30.7-1 src/init.cc initTransportsRank (hasMultiRankNvml);
// src/transport/nvls.cc ncclNvlsInit
func nvlsEarlyMultiRank(rule *Rule) *Rule {
	rest := rule.init
	out := *rule
	out.init = func(r *initRun) {
		dev, ok := lastRanksShareNvml(r.comm.System)
		if !ok || r.param("NCCL_NVLS_ENABLE") == 0 {
			rest(r)
			return
		}
		facts := []Fact{F("hasMultiRankNvml", true), F("nvmlDev", dev)}
		if r.param("NCCL_NVLS_ENABLE") == 1 {
			r.fail(InvalidUsage, nvlsMultiRankWarn)
			r.emit(Verdict{Outcome: Fail, Why: "NCCL_NVLS_ENABLE=1 with ranks sharing an NVML device: ncclInvalidUsage", Facts: facts, Log: []string{nvlsMultiRankWarn}})
			return
		}
		r.cur.nvlsEarlyOff = "ranks sharing an NVML device"
		r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("the last two ranks share NVML device %d (hasMultiRankNvml): NVLS off (no log line)", dev), Facts: facts})
	}
	return &out
}

// lastRanksShareNvml: the communicator's last two ranks are GPUs of one
// node with one dev (the last pair initTransportsRank compares).
func lastRanksShareNvml(sys *System) (int, bool) {
	if sys == nil || len(sys.Nodes) == 0 {
		return 0, false
	}
	g := sys.Nodes[len(sys.Nodes)-1].GPUs
	if len(g) < 2 || g[len(g)-1].Dev != g[len(g)-2].Dev {
		return 0, false
	}
	return g[len(g)-1].Dev, true
}

func apply2_30_7(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2307, File: file, Func: fn} }
	rs.Replace(envPlugin.withRef(ref("src/plugin/env.cc", "ncclEnvPluginLoad")), "ncclEnvPlugin_v2, then v1 (2.30.7)")
	rs.Replace(configRule(ref("src/init.cc", "parseCommConfig, envConfigOverride")), "ncclConfig_t gains graphStreamOrdering; NCCL_NUM_RMA_CTX=0 overrides")
	rs.Replace(nvlsEarly307, "ranks sharing a GPU turn NVLS off (2.30.7)")
	rs.Replace(devDup307, "GPU UUIDs compared in the AllGather1 loop: \"Multiple Ranks are using the same GPU/Partition\" (2.30.7)")
	rs.Replace(gin307, "window v14, v13; GIN/Plugin lines (2.30.7)")
	rs.Replace(rma307, "the RMA plugin's own loader: NCCL_RMA_PLUGIN, libnccl-rma.so, then the net plugin's library (2.30.7)")
	rs.Add(ibPlaneRule(ref("src/transport/net_ib/init.cc", "ncclIbGetPlaneIndex, ncclIbInitDevices")), "G-NET-IB-1", "plane ids of NCCL_IB_HCA indexed; a 13th id or one with the virtual bit fails the IB's init (2.30.7)")
	rs.Replace(ginConnRule(ref("src/sym_kernels.cc", "ncclSymkInitOnce; src/gin/gin_host.cc ncclGinConnectOnce")), "NCCL_GIN_ENABLE=0 keeps the GIN type; the symmetric kernels' GIN request meets \"GIN is disabled.\" (2.30.7)")
	rs.Move("G-RMA-1", "G-NET-LIB-3", ref("src/init.cc", "commAlloc"), "ncclRmaInit runs between ncclNetInit and ncclGinInit")
	rs.Replace(ruleAt(sideRule29, ref("src/ce_coll.cc", "ncclHierCeAvailable"), sideDoc303+sideDocHierCE), "hierarchical copy-engine AllGather/AlltoAll across LSA teams under CTA policy ZERO (2.30.7)")
	rs.Replace(devCommRule(ref("src/dev_runtime.cc", "ncclDevrCommCreateInternal"), devCommDoc307), "no world GIN barrier on a rail GIN connection (2.30.7)")
	rs.Replace(devCommGinTypeRule(ref("src/plugin/gin.cc", "ncclGinPluginAssignToComm"), ginTypeDoc307), "a GIN plugin of another type than NCCL_GIN_TYPE is skipped at assignment (2.30.7)")
	rs.Add(devCommSignalRule(ref("src/gin/gin_host.cc", "ncclGinDevCommSetup; src/plugin/gin.cc ncclGinPluginAssignToComm")), "G-DEVCOMM-QUEUE-1", "ginStrongSignalsRequired and ginVaSignalsRequired against the GIN plugin's getGinProperties (2.30.7)")
	rs.Replace(devCommQueueRule(ref("src/gin/gin_host_proxy.cc", "ncclGinProxyCreateContext; src/transport/net_ib/gdaki/gin_host_gdaki.cc ncclGinGdakiCreateContext"), queueDoc307), "the GIN proxy over the RMA plugin ignores ginQueueDepth (2.30.7)")
}

// sideDocHierCE: 2.30.7's hierarchical copy-engine collectives.
const sideDocHierCE = ` From 2.30.7 an AllGather or AlltoAll on windows of a communicator of several nodes whose LSA team is not every rank, under CTA policy ZERO, with symmetric support, an LSA team covering the node and comm->hostRmaSupport with config.numRmaCtx > 0, runs as a hierarchical copy-engine collective ("[Hierarchical CE]: %ld Bytes -> RMA proxy + CE"): the copy engines inside the team, the RMA proxy between teams; a window with host-memory segments never does.`
