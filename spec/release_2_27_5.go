package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.27.5 (tag v2.27.5-1), a delta against 2.27.3: NCCL_COLLNET_ENABLE is
// read again as a string for every communicator ((int)strtol), PATH_P2C
// moves below PXN, NETs record their local GPU and MNNVL scatters NETs GPU
// by GPU, SM100_NVLINK_BW 40.1; with P2C below PXN, LL128 without
// NCCL_LL128_C2C stops at PXB (2.27.3 allowed PXN); a net plugin entry is
// opened as given before its prefixed name.

var tag275 = "v2.27.5-1"

var release2_27_5 = Release{
	Version: V2_27_5,
	Tag:     tag275,
	Topo:    topo.Apply2_27_5,
	Tuning:  tuningApply2_27_5,
	Rules:   apply2_27_5,
}

func tuningApply2_27_5(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag275}
	tuningSet(d, &t.LL128Rule, TuningLL128C2C, tuningCC, "ncclTopoTuneModel")
	return d.changes, tuningJoinErrs(d.errs)
}

// netLib275 is G-NET-LIB-1 of 2.27.5-2.27.7: every entry opened as given
// first, then prefixed when it is neither a path nor of the form lib*.so;
// still no "none" keyword (2.28.3).
var netLib275 = netLibList(Ref{Tag: tag275, File: "src/plugin/plugin_open.cc", Func: "openPluginLib"},
	`NCCL_NET_PLUGIN unset: one entry, libnccl-net.so. Set: logged; a comma-separated list (empty items skipped, at most 14 entries, names of 255+ characters ignored; "none" is an entry like any other). For each entry dlopen the name; then, only if it has no '/' and is not of the form lib*.so, dlopen libnccl-net-<name>.so. A non-ENOENT failure is logged with the name and dlerror's text; the ENOENT names are listed in "Could not find".`,
	netLibOpts{})

// profiler275 tries the value, then libnccl-profiler-<value>.so unless
// the value is a path or a lib*.so name.
var profiler275 = profilerPlugin(Ref{Tag: tag275, File: "src/plugin/plugin_open.cc", Func: "openPluginLib"},
	`The common loader opens NCCL_PROFILER_PLUGIN's value, then libnccl-profiler-<value>.so unless the value has a '/' or is lib*.so; unset or empty, libnccl-profiler.so. Probe ncclProfiler_v4, _v3, _v2, _v1 (ProfilerABI) through per-version shims. No library, no symbol or a failed init (WARN, the profiler is dropped): no profiler, communicator init goes on.`,
	profilerOpts{names: namesCond, setByEnvLine: true, notFoundEnd: ". ", symLines: profSymName, initFail: profInitWarnOff})

func apply2_27_5(rs *Ruleset) {
	rs.Replace(netLib275, "each entry opened as given first, then prefixed only when it is neither a path nor lib*.so")
	rs.Replace(tunerLib28(Ref{Tag: tag275, File: "src/plugin/plugin_open.cc", Func: "openPluginLib"}, tunerLibOpts{form: namesCond, fallback: "Using internal tuner plugin."}), "the value as given, then the prefixed name unless a path or lib*.so")
	rs.Replace(profiler275, "the value as given, then the prefixed name unless a path or lib*.so")
	rs.Replace(collNetEnv28.withRef(Ref{Tag: tag275, File: "src/init.cc", Func: "envConfigOverride"}), "ncclGetEnv and strtol into config.collnetEnable for every communicator")
	rs.Replace(protoRule(Ref{Tag: tag275, File: "src/graph/tuning.cc", Func: "ncclTopoTuneModel"}, proto28.Doc, ll128Auto28), "PATH_P2C below PXN: sm90+ allows PXN only with NCCL_LL128_C2C, else PXB")
}
