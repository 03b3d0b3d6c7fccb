package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.18.3 (tag v2.18.3-1, commit ea38312), a backward delta from
// 2.18.5. What 2.18.5 changed is in the topology search alone: a GPU's
// local NET for a channel (ncclTopoGetLocalNet: a round robin over the
// GPUs sharing the same set of closest NETs, where 2.18.5 mirrors the
// device number over the closest NICs), a NET's local GPU
// (ncclTopoGetLocalGpu, which picks PXN relays) and the preferred NETs of
// ncclTopoSelectNets (every NET by path type rotated by the GPU's device
// number, where 2.18.5 lists the local NETs first): topo.Params.LocalNetMask.
//
// Read at the tag and not modelled here: the GPU an NVLS channel starts
// from in ncclTopoSearchRecNet (2.18.3 passes the NET index as a GPU index;
// gatesim keeps 2.18.5's local GPU of the NET).

var release2_18_3 = Release{
	Version: V2_18_3,
	Tag:     "v2.18.3-1",
	Topo:    topo.Apply2_18_3,
}
