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

// AlgoEnabled is G-TUNE-EN-1: the algorithm flags NCCL_ALGO left after
// ncclTopoTuneModel's support-driven disables and its hard-set CollNet
// rescue.
type AlgoEnabled struct {
	Algo [nccl.NumFuncs][nccl.NumAlgos]int8
	// Why says why each algorithm is off: NCCL_ALGO, or the disable that
	// turned it off.
	Why [nccl.NumFuncs][nccl.NumAlgos]string
	// Rescued: NCCL_ALGO left the function only CollNet, which is off, so
	// Ring and Tree are back on (2.18–2.23).
	Rescued [nccl.NumFuncs]bool
	// ringKept is 2.18.x's "never disable ring for non-allreduce
	// operations".
	ringKept bool
}

// CellsOff says whether algorithm a of function f gets bandwidth 0 for
// every protocol: it is off, unless it is Ring of a function other than
// AllReduce in a release that never disables that.
func (e *AlgoEnabled) CellsOff(f nccl.Func, a nccl.Algo) bool {
	return e.Algo[f][a] == 0 && !e.RingKept(f, a)
}

// RingKept says whether a is Ring of a function other than AllReduce that
// NCCL_ALGO turned off but the release never disables (2.18.x: "never
// disable ring for non-allreduce operations"): its cells stay, and running
// one is not what NCCL_ALGO asked for.
func (e *AlgoEnabled) RingKept(f nccl.Func, a nccl.Algo) bool {
	return e.ringKept && a == nccl.Ring && f != nccl.AllReduce && e.Algo[f][a] == 0
}

// AlgoEnable is the release's G-TUNE-EN-1 over the communicator in
// describes (in.Enable, NNodes, MNNVL, CollNetEnable, CollNetChainSupport,
// NVSwitch).
// Ref: v2.28.9-1 src/graph/tuning.cc ncclTopoTuneModel; v2.22.3-1 likewise
// (the hard-set CollNet rescue); v2.18.6-1 likewise (Ring kept).
func (c *Consts) AlgoEnable(in *Input) AlgoEnabled {
	e := AlgoEnabled{Algo: in.Enable.Algo, ringKept: c.RingKeptNonAllReduce}
	for f := range nccl.NumFuncs {
		for a := range nccl.NumAlgos {
			if e.Algo[f][a] == 0 {
				e.Why[f][a] = "NCCL_ALGO disables " + nccl.Algo(a).String()
			}
		}
	}
	for f := range nccl.NumFuncs {
		en, why := &e.Algo[f], &e.Why[f]
		off := func(a nccl.Algo, reason string) {
			if en[a] != 0 {
				en[a], why[a] = 0, reason
			}
		}
		mnnvl := c.MNNVLOneNode && in.MNNVL
		if in.NNodes == 1 {
			off(nccl.NVLSTree, "NVLSTree is disabled on a single node")
		}
		if mnnvl {
			off(nccl.NVLSTree, "NVLSTree is not supported on MNNVL")
		}
		if !in.CollNetEnable {
			off(nccl.CollNetDirect, "CollNet is disabled")
			off(nccl.CollNetChain, "CollNet is disabled")
			if in.NNodes > 1 {
				off(nccl.NVLS, "multi-node NVLS needs CollNet, which is disabled")
			}
			if mnnvl {
				off(nccl.NVLS, "NVLS is not supported on MNNVL (CollNet disabled)")
			}
			if c.HardSetCollNetRescue && en[nccl.Ring] == 0 && en[nccl.Tree] == 0 && en[nccl.NVLS] == 0 && en[nccl.NVLSTree] == 0 {
				// "If user has hard set NCCL_ALGO=COLLNET, ignore it."
				en[nccl.Ring], en[nccl.Tree] = 1, 1
				why[nccl.Ring], why[nccl.Tree] = "", ""
				e.Rescued[f] = true
			}
		} else if c.CollNetChainSupport && !in.CollNetChainSupport {
			off(nccl.CollNetChain, "no CollNet chain head has CollNet resources")
		}
		if !in.NVSwitch {
			off(nccl.CollNetDirect, "CollNetDirect needs an NVSwitch")
		}
	}
	return e
}
