package spec

import (
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// NCCL 2.26.2 (tag v2.26.2-1), a delta against 2.25.1: the plugin code moves
// to src/plugin/ with one loader for every plugin kind (net ABI v10-v6, v5
// dropped; a plugin loaded through an older-ABI shim keeps its own name;
// gatesim's net loader rules change with 2.27.3's list of plugins, which
// they model together),
// C2C links and paths, the Tree pattern penalty read from the communicator
// and LL traffic counted four times by the scheduler.

var tag262 = "v2.26.2-1"

var release2_26_2 = Release{
	Version: V2_26_2,
	Tag:     tag262,
	Consts:  consts2_26_2,
	Topo:    topo.Apply2_26_2,
	Tuning:  tuningApply2_26_2,
	Rules:   apply2_26_2,
}

// profiler26 is the common plugin loader's profiler: the value, then
// libnccl-profiler-<value>.so; per-version shims log the look-ups.
var profiler26 = profilerPlugin(Ref{Tag: tag262, File: "src/plugin/profiler.cc", Func: "ncclProfilerPluginLoad"},
	`The common loader (src/plugin/plugin_open.cc openPluginLib): NCCL_PROFILER_PLUGIN set and non-empty opens the value, then libnccl-profiler-<value>.so; otherwise libnccl-profiler.so; the missing names end in "Could not find:%s. " (an empty fallback sentence). Probe ncclProfiler_v3, _v2, _v1 (ProfilerABI) through per-version shims ("failed to find ncclProfiler_vN", "loaded <name>"); the v1 adapter now returns v1's init error. No library, no symbol or a failed init (WARN, the profiler is dropped): no profiler, communicator init goes on.`,
	profilerOpts{names: namesBoth, setByEnvLine: true, notFoundEnd: ". ", symLines: profSymName, initFail: profInitWarnOff})

func consts2_26_2(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag262, File: file, Func: fn} }
	rs.SetConst("NetABI", []int{10, 9, 8, 7, 6}, ref("src/plugin/net.cc", "ncclNetPluginLoad"))
	rs.SetConst("InitJobFreedTwice", false, ref("src/init.cc", "ncclCommInitRankDev"))
	rs.SetConst("NetNameAtLoad", true, ref("src/plugin/net/net_v8.cc", "getNcclNet_v8"))
	rs.SetConst("ConfigFields", configFieldsThrough("trafficClass"), ref("src/nccl.h.in", "ncclConfig_t"))
	rs.SetConst("ProfilerABI", []int{3, 2, 1}, ref("src/plugin/profiler.cc", "ncclProfilerPluginLoad"))
	rs.SetParamDefault("NCCL_NET_GDR_C2C", 0, ref("src/graph/paths.cc", "NetGdrC2c"))
	rs.SetConst("P2PReg", tuning.P2PRegNoPXN, ref("src/enqueue.cc", "addP2pToPlan"))
	setCollNetFail(rs, tag262, collNetFailSetup(356, 384, 1580))
}

func tuningApply2_26_2(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag262}
	tuningSet(d, &t.TreePatternFromComm, true, tuningCC, "ncclTopoTuneModel")
	tuningSet(d, &t.LLTrafficX4, true, enqueueCC, "ncclPrepareTasks")
	tuningSet(d, &t.PATMinCompCap, 60, tuningCC, "ncclPatEnable")
	return d.changes, tuningJoinErrs(d.errs)
}

func apply2_26_2(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag262, File: file, Func: fn} }
	rs.Replace(ruleAt(tunerABI24, ref("src/plugin/tuner.cc", "ncclTunerPluginLoad"), ""), "per-version shims print the same lines")
	rs.Replace(configRule(ref("src/init.cc", "parseCommConfig, envConfigOverride")), "ncclConfig_t gains trafficClass")
	rs.Replace(ruleAt(patRule, ref("src/graph/tuning.cc", "ncclPatEnable"), ""), "no PAT below compute capability 6.0 (CUDA atomics)")
	rs.Replace(p2pRegRule(ref("src/enqueue.cc", "addP2pToPlan"), p2pRegDoc26), "the network registers a send/recv buffer unless PXN is in use (one GPU per node no longer counts)")
	rs.Replace(initAbort26, "the fail path frees the init job only when it was never launched (launchedJob): the error is returned again")
	rs.Replace(profiler26, "common loader (value, then libnccl-profiler-<value>.so), window v3-v1, per-version shims")
	rs.Replace(ruleAt(collNetFlushRule, ref("src/transport/coll_net.cc", "recvSetup, recvProxyProgress, collNetRecvFlush; src/graph/paths.cc ncclTopoNeedFlush"), ""),
		"the CollNet receive's needFlush is also set with PCIe data and C2C completions")
	rs.Replace(tunerLib28(ref("src/plugin/plugin_open.cc", "openPluginLib"), tunerLibOpts{form: namesBoth, fallback: "Using internal tuner plugin."}), "common loader: the value, then libnccl-tuner-<value>.so; none is a name like any other, after which the net plugin's library is still searched")
}
