package spec

// NCCL 2.28.9 (tag v2.28.9-1), the library in PyTorch's wheel on the
// project's GPU machine, as a delta against 2.28.7: two tuner constants,
// no registration under NCCL_P2P_USE_CUDA_MEMCPY=1, and the one-node p2p
// schedule group of all local ranks (src/init.cc ncclP2pSchedule,
// G-SCHED-P2P-1).

var tag289 = "v2.28.9-1"

var release2_28_9 = Release{
	Version: V2_28_9,
	Tag:     tag289,
	Rules:   apply2_28_9,
	Tuning:  tuningApply2_28_9,
	Consts:  consts2_28_9,
}

func consts2_28_9(rs *Ruleset) {
	rs.SetConst("P2PGroupWholeNode", true, Ref{Tag: tag289, File: "src/init.cc", Func: "ncclP2pSchedule"})
}

// tuningApply2_28_9: hwLatencies[NET][NVLSTree][Simple],
// perChMaxNVLSTreeBws[Blackwell][N4], and ncclP2pUsesMemcpy turning
// registration off.
func tuningApply2_28_9(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag289}
	const defaults = "ncclTunerConstantsDefaults"
	tuningSet(d, &t.HwLat[TuningHwNet][NVLSTree][Simple], 20.9, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningBlackwell][TuningN4], 43.8, tuningCC, defaults)
	tuningSet(d, &t.RegNoneP2PMemcpy, true, "src/register/register.cc", "ncclCommRegister")
	return d.changes, tuningJoinErrs(d.errs)
}

func apply2_28_9(rs *Ruleset) {
	rs.Replace(ruleAt(regSkipRule, Ref{Tag: tag289, File: "src/register/register.cc", Func: "ncclCommRegister, ncclCommGraphRegister"},
		regSkipDoc24+` Under NCCL_P2P_USE_CUDA_MEMCPY=1 (P2P through the copy engines) ncclCommRegister and ncclCommGraphRegister keep no record (ncclP2pUsesMemcpy), so nothing is registered and regBuff is false for registered buffers.`),
		"no registration with P2P through the copy engines")
}
