package spec

// NCCL 2.26.3 (tag v2.26.3-1), a delta against 2.26.2 that changes nothing
// gatesim decides: profiler counters per send/receive pair and the NET id
// passed to ncclTopoNeedFlush (src/enqueue.cc, src/graph/paths.cc). The
// release exists so that its logs and answers name it.

var release2_26_3 = Release{
	Version:   V2_26_3,
	Tag:       "v2.26.3-1",
	Unchanged: "profiler counters and ncclTopoNeedFlush taking the NET id (src/enqueue.cc, src/graph/paths.cc)"}
