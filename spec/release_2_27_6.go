package spec

import "github.com/gatesim/gatesim/spec/topo"

// NCCL 2.27.6 (tag v2.27.6-1), a delta against 2.27.5: PXN rewiring applies
// when a GPU's own path to the NIC is worse than PATH_PXN
// (src/graph/paths.cc ncclTopoComputePaths; topo.Params.PXNAvoidsPXN).

var release2_27_6 = Release{
	Version: V2_27_6,
	Tag:     "v2.27.6-1",
	Topo:    topo.Apply2_27_6,
}
