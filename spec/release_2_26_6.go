package spec

// NCCL 2.26.6 (tag v2.26.6-1), a delta against 2.26.5 that changes nothing
// gatesim decides: a fix of the profiler v2 shim
// (src/plugin/profiler/profiler_v2.cc). The release exists so that its logs
// and answers name it.

var release2_26_6 = Release{
	Version:   V2_26_6,
	Tag:       "v2.26.6-1",
	Unchanged: "the profiler v2 shim (src/plugin/profiler/profiler_v2.cc)"}
