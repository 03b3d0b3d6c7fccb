package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.30.7 (tag v2.30.7-1) as a delta against 2.30.4: CollNetChain only
// when its heads have CollNet resources, NVLS off when ranks share a GPU,
// the environment plugin ABI v2, the typed parameter registry
// (spec/params), and MLOPart partitions in the topology, which gatesim
// refuses (topo.MLOPartAttr).

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
}

func tuningApply2_30_7(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2307}
	tuningSet(d, &t.CollNetChainSupport, true, tuningCC, "ncclTopoTuneModel")
	return d.changes, tuningJoinErrs(d.errs)
}

var nvlsEarly307 = nvlsEarly(Ref{Tag: tag2307, File: "src/transport/nvls.cc", Func: "ncclNvlsInit"},
	`NVLS is turned off when several ranks of the communicator share one GPU (hasMultiRankNvml; with NCCL_NVLS_ENABLE=1 a WARN and ncclInvalidUsage; modelled systems have one rank per GPU), then silently when the topology has fewer than 2 GPUs, or when the driver entry point cuDeviceGet is missing.`,
	nvlsOffBelow2)

func apply2_30_7(rs *Ruleset) {
	ref := func(file, fn string) Ref { return Ref{Tag: tag2307, File: file, Func: fn} }
	rs.Replace(envPlugin.withRef(ref("src/plugin/env.cc", "ncclEnvPluginLoad")), "ncclEnvPlugin_v2, then v1 (2.30.7)")
	rs.Replace(nvlsEarly307, "ranks sharing a GPU turn NVLS off (2.30.7)")
}
