package spec

// NCCL 2.26.5 (tag v2.26.5-1), a delta against 2.26.3: NCCL_WORK_FIFO_BYTES
// defaults to -1, which devCommSetup reads as no work FIFO on an MNNVL
// communicator of sm100 GPUs (a workaround for an AllToAll hang) and 1 MiB
// elsewhere; an explicit value is kept as given (at most 1 GiB), even one
// that is not a power of 2. 2.27.3 restores the 1 MiB default and the
// power-of-2 test.

var release2_26_5 = Release{
	Version: V2_26_5,
	Tag:     "v2.26.5-1",
	Consts:  consts2_26_5,
	Tuning:  tuningApply2_26_5,
}

func consts2_26_5(rs *Ruleset) {
	rs.SetParamDefault("NCCL_WORK_FIFO_BYTES", -1, Ref{Tag: "v2.26.5-1", File: "src/init.cc", Func: "WorkFifoBytes, devCommSetup"})
}

func tuningApply2_26_5(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: "v2.26.5-1"}
	tuningSet(d, &t.WorkFifoBytesAuto, true, "src/init.cc", "devCommSetup")
	return d.changes, tuningJoinErrs(d.errs)
}
