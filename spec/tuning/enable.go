package tuning

// EnableMatrix is NCCL's per-function enable flags for algorithms and
// protocols (algoEnable/protoEnable of src/graph/tuning.cc) as NCCL_ALGO and
// NCCL_PROTO leave them, before the support-driven disables of
// ncclTopoTuneModel. 0 is off, 1 on, 2 "auto" (LL128's default, resolved by
// the LL128 rule). 2.22.3 has one row for all functions; it is stored
// replicated.
type EnableMatrix struct {
	Algo  [NumFuncs][NumAlgos]int8
	Proto [NumFuncs][NumProtos]int8
}

// DefaultEnable is the matrix with nothing set: every algorithm on, LL and
// Simple on, LL128 auto.
func DefaultEnable() EnableMatrix {
	var m EnableMatrix
	for f := range NumFuncs {
		for a := range NumAlgos {
			m.Algo[f][a] = 1
		}
		m.Proto[f][LL] = 1
		m.Proto[f][LL128] = 2
		m.Proto[f][Simple] = 1
	}
	return m
}
