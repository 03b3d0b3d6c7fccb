package spec

// NCCL 2.29.3 (tag v2.29.3-1) as a delta against 2.29.2: the proxy's
// free-list fix (src/proxy.cc) only; no gate, constant or parameter
// changes.

var release2_29_3 = Release{
	Version:   V2_29_3,
	Tag:       "v2.29.3-1",
	Unchanged: "the proxy free-list fix (src/proxy.cc progressOps): no gate reads it",
}
