package spec

// NCCL 2.26.5 (tag v2.26.5-1), a delta against 2.26.3 that changes nothing
// gatesim decides: NCCL_WORK_FIFO_BYTES defaults to -1, which disables the
// work FIFO on MNNVL sm100 and keeps 1 MiB elsewhere (src/init.cc
// devCommSetup). The release exists so that its logs and answers name it.

var release2_26_5 = Release{
	Version:   V2_26_5,
	Tag:       "v2.26.5-1",
	Unchanged: "NCCL_WORK_FIFO_BYTES -1: no work FIFO on MNNVL sm100, 1 MiB elsewhere (src/init.cc devCommSetup)"}
