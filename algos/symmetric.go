package algos

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// SymSchedule is what a symmetric kernel (window buffers, G-SEL-SIDE-1)
// or a copy-engine collective moves, per rank. These paths have no
// connections, FIFOs or steps: every rank loads from or stores to its
// peers' windows directly (LD/ST), or through the NVSwitch's multicast
// object (LDMC: multimem.ld_reduce, STMC: multimem.st), with the
// kernel's blocks as the parallelism, and synchronises at LSA barriers
// (or, in the LL kernels, through the flag carried with each 8 bytes).
// The copy engines copy the same bytes with cudaMemcpyBatchAsync between
// two memory-op barriers. All ranks do the same, so one rank stands for
// all.
type SymSchedule struct {
	Func     spec.Func
	DataType spec.DataType
	// Kernel is NCCL's name of the kernel, or "copy-engine".
	Kernel string
	// SymKernel is the kernel (tuning.NumSymKernels for the copy engines).
	SymKernel tuning.SymKernel
	Ranks     int
	// Blocks are the kernel's blocks (the decision's channels); 0 for the
	// copy engines.
	Blocks int
	// LL: the kernel moves LL lines (8 data bytes and their flag in 16
	// bytes on the wire); the byte counts below include the doubling.
	LL bool
	// CopyEngine: the bytes move by cudaMemcpyBatchAsync, not by blocks.
	CopyEngine bool
	// Bytes is nccl-tests' size of the operation (the per-rank buffer of
	// an AllReduce, the gathered or scattered buffer otherwise).
	Bytes int64
	// P2POut and P2PIn are the wire bytes one rank's NVLink carries out
	// and in for loads and stores to peers' windows; MCOut and MCIn those
	// through the multicast object (multimem; a store to it comes back on
	// every GPU's NVLink, a reducing load takes every GPU's copy).
	P2POut, P2PIn int64
	MCOut, MCIn   int64
	// Local is the bytes one rank copies within its own memory (its own
	// block of an out-of-place AllGather or AllToAll on the copy engines).
	Local int64
	// BlockBusBytes is the busiest block's bus bytes in NCCL's model of
	// the kernel (tuning.SymBlockBusBytes of its share of the operation):
	// what bounds the time at NCCL's per-block rate (tuning.SymBlockBw).
	BlockBusBytes float64
	// Syncs is the synchronisations on the critical path: LSA barriers
	// (a kernel's arrive/wait and final sync, a copy-engine collective's
	// two ncclMemOpSync) or, for an LL kernel, the one flag-carrying hop.
	Syncs int
}

// BuildSym is the schedule of decision d, which NCCL runs on a symmetric
// kernel or the copy engines, on ranks GPUs of one node. size is
// nccl-tests' size of the operation.
//
// Per kernel, on n ranks, B the operation's count × element size (the
// per-rank input of an AllGather, the per-rank output of a
// ReduceScatter), each rank's NVLink carries (v2.28.9-1
// src/device/symmetric/*.cuh; the same kernels in v2.27.3-1 and
// v2.30.7-1, whose TMA variants move what their LD/ST kernels move):
//
//   - AllReduce_RSxLD_AGxST (all_reduce.cuh allreduceDeep): each rank
//     owns 1/n of every chunk, loads it from the n-1 peers, reduces and
//     stores the sum to the n-1 peers: (n-1)/n·B in and out.
//   - AllReduce_RSxLDMC_AGxSTMC (allreduceMultimem): multimem.ld_reduce of
//     its 1/n (every GPU gives its copy of every piece: B out, B/n in),
//     then multimem.st of the sum (B/n out, B in).
//   - AllReduce_AGxLL_R, AllReduce_AGxLLMC_R (ncclSymkRun_AllReduce_AGxLL_R_impl):
//     every rank's whole input to every peer in LL lines, reduced by
//     each: 2(n-1)·B in and out; multimem stores it once (2B out, 2nB in).
//   - AllGather_ST (all_gather.cuh ncclSymkRun_AllGather_ST): its block to
//     the n-1 peers, (n-1)·B out and in; AllGather_STMC one multimem.st
//     (B out, nB in); AllGather_LL and AllGather_LLMC the same in LL lines.
//   - ReduceScatter_LD (reduce_scatter.cuh ncclSymkRun_ReduceScatter_LD):
//     its block loaded from the n-1 peers, (n-1)·B in and out;
//     ReduceScatter_LDMC one multimem.ld_reduce (nB out, B in);
//     ReduceScatter_LL each peer's block stored to it in LL lines.
//   - copy engines (src/ce_coll.cc ncclCeAllGather, ncclCeAlltoAll, from
//     v2.28.3-1): ncclMemOpSync, one copy per peer into its window (and
//     the own block locally when out of place), ncclMemOpSync.
//
// The kernels across LSA teams (the GIN kernels, the network AllReduce)
// and the hierarchical copy engines cross nodes and are not modelled.
func BuildSym(d *spec.Decision, ranks int, size int64, inPlace bool) (*SymSchedule, error) {
	if d == nil || d.Kernel == "" {
		return nil, fmt.Errorf("symmetric schedule: the decision runs no symmetric kernel or copy-engine collective")
	}
	if ranks < 1 {
		return nil, fmt.Errorf("symmetric schedule: %d ranks", ranks)
	}
	n := int64(ranks)
	b := d.Op.Count * int64(d.Op.DataType.Size())
	s := &SymSchedule{Func: d.Op.Func, DataType: d.Op.DataType, Kernel: d.Kernel, Ranks: ranks, Bytes: size, SymKernel: tuning.NumSymKernels}
	if d.Kernel == "copy-engine" {
		if d.Op.Func != spec.AllGather && d.Op.Func != spec.AllToAll {
			return nil, fmt.Errorf("symmetric schedule: copy-engine %s: NCCL's copy engines run AllGather and AllToAll", d.Op.Func)
		}
		// AllGather's count is the rank's block, AllToAll's the block for
		// each peer: either goes to every peer
		per := b
		s.CopyEngine, s.Syncs = true, 2
		s.P2POut, s.P2PIn = (n-1)*per, (n-1)*per
		if !inPlace {
			s.Local = per
		}
		return s, nil
	}
	k, ok := tuning.ParseSymKernel(d.Kernel)
	if !ok {
		return nil, fmt.Errorf("symmetric schedule: %s is not modelled (it runs across nodes or is unknown)", d.Kernel)
	}
	if d.NChannels < 1 {
		return nil, fmt.Errorf("symmetric schedule: %s on %d blocks", d.Kernel, d.NChannels)
	}
	s.SymKernel, s.Blocks, s.Syncs = k, d.NChannels, 2
	// cta is the busiest block's share of B: the plan's pieces as the
	// kernel decodes them (G-SCHED-SYMRANGE-1), else an even share
	cta := d.CTABytes
	if cta <= 0 {
		cta = (b + int64(s.Blocks) - 1) / int64(s.Blocks)
	}
	var in, out int64 // per rank, data bytes
	switch k {
	case tuning.SymAllReduceRSxLDAGxST, tuning.SymAllReduceRSxTmaLDAGxTmaST:
		in, out = (n-1)*b/n, (n-1)*b/n
	case tuning.SymAllReduceRSxLDMCAGxSTMC:
		s.MCOut, s.MCIn = b+b/n, b/n+b
	case tuning.SymAllReduceAGxLLR, tuning.SymAllGatherST, tuning.SymAllGatherTmaST, tuning.SymAllGatherLL,
		tuning.SymReduceScatterLD, tuning.SymReduceScatterTmaLD, tuning.SymReduceScatterLL:
		in, out = (n-1)*b, (n-1)*b
	case tuning.SymAllReduceAGxLLMCR, tuning.SymAllGatherSTMC, tuning.SymAllGatherTmaSTMC, tuning.SymAllGatherLLMC:
		s.MCOut, s.MCIn = b, n*b
	case tuning.SymReduceScatterLDMC:
		s.MCOut, s.MCIn = n*b, b
	default:
		return nil, fmt.Errorf("symmetric schedule: %s runs across LSA teams (GIN or the network); not modelled", d.Kernel)
	}
	s.LL = k.LL()
	s.P2POut, s.P2PIn = out, in
	// the busiest block's share, in NCCL's bus bytes (its LL factor
	// included), which its rate in NCCL's model moves
	s.BlockBusBytes = tuning.SymBlockBusBytes(k, ranks, cta)
	if s.LL {
		// LL lines: 8 data bytes and their flag in 16 (no barrier: the
		// flag is the synchronisation, one hop)
		s.P2POut, s.P2PIn, s.MCOut, s.MCIn = 2*s.P2POut, 2*s.P2PIn, 2*s.MCOut, 2*s.MCIn
		s.Syncs = 1
	}
	return s, nil
}

// String is the schedule in one line.
func (s *SymSchedule) String() string {
	if s.CopyEngine {
		return fmt.Sprintf("%s copy-engine on %d ranks", s.Func, s.Ranks)
	}
	return fmt.Sprintf("%s %s on %d blocks, %d ranks", s.Func, s.Kernel, s.Blocks, s.Ranks)
}
