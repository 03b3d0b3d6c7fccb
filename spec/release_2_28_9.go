package spec

// NCCL 2.28.9 (tag v2.28.9-1), the library in PyTorch's wheel on the
// project's GPU machine, as a delta against 2.28.7: two tuner constants.
// Its other change (the one-node p2p schedule group is maxLocalRanks,
// src/init.cc ncclP2pSchedule) is not a gate.

var tag289 = "v2.28.9-1"

var release2_28_9 = Release{
	Version: V2_28_9,
	Tag:     tag289,
	Tuning:  tuningApply2_28_9,
}

// tuningApply2_28_9: hwLatencies[NET][NVLSTree][Simple] and
// perChMaxNVLSTreeBws[Blackwell][N4].
func tuningApply2_28_9(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag289}
	const defaults = "ncclTunerConstantsDefaults"
	tuningSet(d, &t.HwLat[TuningHwNet][NVLSTree][Simple], 20.9, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningBlackwell][TuningN4], 43.8, tuningCC, defaults)
	return d.changes, tuningJoinErrs(d.errs)
}
