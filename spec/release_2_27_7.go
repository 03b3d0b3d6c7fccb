package spec

// NCCL 2.27.7 (tag v2.27.7-1), a delta against 2.27.6 that changes nothing
// gatesim decides: kernel attribute failures are ignored at init
// (src/enqueue.cc ncclInitKernelsForDevice). The release exists so that its
// logs and answers name it.

var release2_27_7 = Release{
	Version:   V2_27_7,
	Tag:       "v2.27.7-1",
	Unchanged: "kernel attribute failures ignored at init (src/enqueue.cc ncclInitKernelsForDevice)"}
