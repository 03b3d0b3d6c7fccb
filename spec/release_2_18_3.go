package spec

// NCCL 2.18.3 (tag v2.18.3-1, commit ea38312), a backward delta from
// 2.18.5. What 2.18.5 changed is in the topology search alone: a GPU's
// local NET for a channel (ncclTopoGetLocalNet: device number mirrored
// over the closest NICs, instead of a round robin over the GPUs sharing
// the same set of closest NICs), the preferred NETs of ncclTopoSelectNets
// (the local NETs first, instead of every NET by path type rotated by the
// GPU's device number) and the GPU an NVLS channel starts from in
// ncclTopoSearchRecNet. spec/topo implements 2.18.5's selection; 2.18.3's
// is not modelled (docs/releases.md), so no gate, constant or rule of
// gatesim differs.

var release2_18_3 = Release{
	Version: V2_18_3,
	Tag:     "v2.18.3-1",
	Unchanged: "2.18.5 rewrites the local NET choice of the graph search (src/graph/topo.cc ncclTopoGetLocalNet, " +
		"src/graph/search.cc ncclTopoSelectNets, ncclTopoSearchRecNet); gatesim's search has 2.18.5's, 2.18.3's is not modelled",
}
