package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.29.7 (tag v2.29.7-1) as a delta against 2.29.3: Blackwell
// Ring/LL128 per-channel caps to 40 GB/s and 80 GB/s in the sm100
// inter-node speeds. The GIN plugin ABI (v12, v11) and the GIN topology
// node are outside the gates.

var tag2297 = "v2.29.7-1"

var release2_29_7 = Release{
	Version: V2_29_7,
	Tag:     tag2297,
	Topo:    topo.Apply2_29_7,
	Tuning:  tuningApply2_29_7,
}

func tuningApply2_29_7(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: tag2297}
	const defaults = "ncclTunerConstantsDefaults"
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN1], 40.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN2], 40.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxRingLL128Bw[TuningBlackwell][TuningN4], 40.0, tuningCC, defaults)
	// ncclSymkDevComm gains the GIN outbox, counter and rail inbox, the
	// header maxDynamicSmem: 55 symmetric tasks per bin
	tuningSet(d, &t.SymArgsBytes, 288, symKernelsH, "struct ncclSymkDevWorkArgs")
	tuningSet(d, &t.SymLLLegacy, false, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	return d.changes, tuningJoinErrs(d.errs)
}
