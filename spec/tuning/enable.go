package tuning

import "github.com/gatesim/gatesim/nccl"

// EnableMatrix is NCCL's per-function enable flags for algorithms and
// protocols (algoEnable/protoEnable of src/graph/tuning.cc) as NCCL_ALGO and
// NCCL_PROTO leave them, before the support-driven disables of
// ncclTopoTuneModel. 0 is off, 1 on, 2 "auto" (LL128's default, resolved by
// the LL128 rule). 2.22.3 has one row for all functions; it is stored
// replicated.
type EnableMatrix struct {
	Algo  [nccl.NumFuncs][nccl.NumAlgos]int8
	Proto [nccl.NumFuncs][nccl.NumProtos]int8
}

// DefaultEnable is the matrix with nothing set: every algorithm on, LL and
// Simple on, LL128 auto.
func DefaultEnable() EnableMatrix {
	var m EnableMatrix
	for f := range nccl.NumFuncs {
		for a := range nccl.NumAlgos {
			m.Algo[f][a] = 1
		}
		m.Proto[f][nccl.LL] = 1
		m.Proto[f][nccl.LL128] = 2
		m.Proto[f][nccl.Simple] = 1
	}
	return m
}
