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
	// Kernel is NCCL's name of the kernel, "copy-engine" or
	// "hierarchical-ce".
	Kernel string
	// SymKernel is the kernel (tuning.NumSymKernels for the copy engines).
	SymKernel tuning.SymKernel
	Ranks     int
	// LSARanks are the ranks of one LSA team (Ranks on one node; a GIN
	// kernel's NVLink domain otherwise); Works the tasks of the plan the
	// kernel runs in one launch.
	LSARanks, Works int
	// Blocks are the kernel's blocks (the decision's channels); 0 for the
	// copy engines.
	Blocks int
	// LL: the kernel moves LL lines (8 data bytes and their flag in 16
	// bytes on the wire); the byte counts below include the doubling.
	LL bool
	// CopyEngine: the bytes move by cudaMemcpyBatchAsync, not by blocks
	// (across teams also by the RMA proxy's puts).
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
	// A GIN kernel's network side: NetOut and NetIn the bytes one rank's
	// NIC carries out and in; NetSyncs the barriers that also cross the
	// network; NetHops the GIN puts its last chunk waits on; NetFill the
	// bytes the pipeline moves over the network before it flows (a
	// ring's chunks hop by hop, the RailA2A's first round) and LSAFill
	// those it moves over NVLink first.
	NetOut, NetIn     int64
	NetSyncs, NetHops int
	NetFill, LSAFill  int64
}

// SymTeams is how a communicator's ranks sit for its symmetric kernels:
// Ranks in all, LSA of them in each LSA team (the ranks one NVLink
// domain joins: Ranks on one node), and GinChunk what one block of the
// decision's GIN kernel moves per network step (tuning's
// SymGinChunkBytes; 0 where no GIN kernel runs).
type SymTeams struct {
	Ranks, LSA int
	GinChunk   int64
}

// BuildSym is the schedule of decision d, which NCCL runs alone (one
// task in its plan) on a symmetric kernel or the copy engines, on ranks
// GPUs of one node. size is nccl-tests' size of the operation.
func BuildSym(d *spec.Decision, ranks int, size int64, inPlace bool) (*SymSchedule, error) {
	return BuildSymPlan([]*spec.Decision{d}, SymTeams{Ranks: ranks, LSA: ranks}, size, inPlace)
}

// BuildSymPlan is the schedule of one symmetric kernel plan: the tasks ds
// that NCCL's symmetric scheduler put in one plan (G-SCHED-SYMRANGE-1:
// one bin of function, reduction and type, as many as the kernel
// arguments hold), launched once on the plan's blocks, or one copy-engine
// collective (a plan of its own). size is nccl-tests' size of the plan's
// operations together.
//
// The fused kernels walk the plan's works block by block (forEachWork):
// one barrier arrive before the first work and one sync after the last,
// whatever the works, so the plan moves the sum of its tasks' bytes in
// one launch and two synchronisations, and its busiest block is the one
// the scheduler's layout loads most (Decision.CTABytes: every task of a
// plan carries the plan's). An LL kernel runs one work alone
// (singleWork: NCCL never groups LL kernels).
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
// The GIN kernels (2.29.2+) run across r = n/l LSA teams of l ranks, one
// rail (the ranks of one local index) at a time, each block on its own
// ranges (forEachWorkNoFusion):
//
//   - AllGather_GinHier_MCRing (v2.29.2-1 all_gather_gin.cuh) and
//     AllGather_RailRing_LsaSTMC (v2.29.7-1..v2.30.7-1): one warp passes
//     the blocks round the rail ring, a GIN put per chunk (4 MiB, 1 MiB)
//     after the previous peer's signal, (r-1)·B out and in over the
//     network; the other warps multimem.st each of the r blocks into the
//     team as it lands (rB out, lrB in); a world barrier (LSA and rail,
//     over GIN) before and after.
//   - ReduceScatter_RailA2A_LsaLD and _LsaLDMC (v2.29.7-1..v2.30.7-1
//     reduce_scatter_gin.cuh rsAlgoHier): stage 0 reduces, inside the
//     team, the block of each of the r-1 rail peers and sends it to that
//     peer's inbox; stage 1 reduces its own block inside the team and
//     adds the r-1 received ones, chunk by chunk. Inside the team each of
//     the r blocks is loaded from the l-1 peers ((l-1)·rB in and out), or
//     one multimem.ld_reduce (lrB out, rB in); (r-1)·B out and in over
//     the network; an LSA barrier before and after.
//
// The hierarchical copy engines (2.30.7, CTA policy ZERO across LSA
// teams; buildHierCE) put each rank's bytes to its rail peers through the
// RMA proxy and copy inside the team with the copy engines. The network
// AllReduce kernel is in no release's masks and is not modelled.
func BuildSymPlan(ds []*spec.Decision, t SymTeams, size int64, inPlace bool) (*SymSchedule, error) {
	if len(ds) == 0 || ds[0] == nil || ds[0].Kernel == "" {
		return nil, fmt.Errorf("symmetric schedule: the decision runs no symmetric kernel or copy-engine collective")
	}
	if t.Ranks < 1 || t.LSA < 1 || t.Ranks%t.LSA != 0 {
		return nil, fmt.Errorf("symmetric schedule: %d ranks in LSA teams of %d: expected a whole number of teams", t.Ranks, t.LSA)
	}
	d0 := ds[0]
	s := &SymSchedule{Func: d0.Op.Func, DataType: d0.Op.DataType, Kernel: d0.Kernel, Ranks: t.Ranks, LSARanks: t.LSA, Bytes: size, SymKernel: tuning.NumSymKernels, Works: len(ds)}
	// an AllGather is queued as bytes (ncclInt8), whatever the caller's type
	t0, _ := d0.Op.Queued()
	for i, d := range ds {
		if d == nil {
			return nil, fmt.Errorf("symmetric schedule: task %d has no decision", i)
		}
		if ti, _ := d.Op.Queued(); d.Kernel != d0.Kernel || d.Op.Func != d0.Op.Func || ti != t0 || d.Plan != d0.Plan {
			return nil, fmt.Errorf("symmetric schedule: task %d is not in the plan of task 0 (%s %s, plan %d): a plan runs one kernel on one function and type", i, d0.Op.Func, d0.Kernel, d0.Plan)
		}
	}
	if (d0.Kernel == "copy-engine" || d0.Kernel == "hierarchical-ce") && len(ds) > 1 {
		return nil, fmt.Errorf("symmetric schedule: %d %s collectives in one plan: NCCL launches each alone", len(ds), d0.Kernel)
	}
	if d0.Kernel == "hierarchical-ce" {
		return buildHierCE(s, d0, t, inPlace)
	}
	if d0.Kernel == "copy-engine" {
		if t.LSA != t.Ranks {
			return nil, fmt.Errorf("symmetric schedule: copy-engine across %d LSA teams: NCCL runs the copy engines inside one", t.Ranks/t.LSA)
		}
		if d0.Op.Func != spec.AllGather && d0.Op.Func != spec.AllToAll {
			return nil, fmt.Errorf("symmetric schedule: copy-engine %s: NCCL's copy engines run AllGather and AllToAll", d0.Op.Func)
		}
		// AllGather's count is the rank's block, AllToAll's the block for
		// each peer: either goes to every peer
		n, per := int64(t.Ranks), d0.Op.Count*int64(d0.Op.DataType.Size())
		s.CopyEngine, s.Syncs = true, 2
		s.P2POut, s.P2PIn = (n-1)*per, (n-1)*per
		if !inPlace {
			s.Local = per
		}
		return s, nil
	}
	k, ok := tuning.ParseSymKernel(d0.Kernel)
	if !ok {
		return nil, fmt.Errorf("symmetric schedule: %s is not modelled (it runs across nodes or is unknown)", d0.Kernel)
	}
	if d0.NChannels < 1 {
		return nil, fmt.Errorf("symmetric schedule: %s on %d blocks", d0.Kernel, d0.NChannels)
	}
	if k == tuning.SymAllReduceRSxNetARxMCAGxNet {
		return nil, fmt.Errorf("symmetric schedule: %s (the network AllReduce, which no release's masks offer) is not modelled", d0.Kernel)
	}
	if k.Gin() == (t.LSA == t.Ranks) {
		return nil, fmt.Errorf("symmetric schedule: %s on %d ranks in LSA teams of %d: the GIN kernels run across teams, the others inside one", d0.Kernel, t.Ranks, t.LSA)
	}
	if k.LL() && len(ds) > 1 {
		return nil, fmt.Errorf("symmetric schedule: %s with %d works: NCCL never groups the LL kernels", d0.Kernel, len(ds))
	}
	s.SymKernel, s.Blocks, s.Syncs = k, d0.NChannels, 2
	if d0.SymChannels > 0 {
		s.Blocks = d0.SymChannels // the blocks the plan's cells reach (curChannel)
	}
	var total int64
	for _, d := range ds {
		v, err := symVolumes(k, t, d.Op.Count*int64(d.Op.DataType.Size()))
		if err != nil {
			return nil, err
		}
		s.P2POut, s.P2PIn, s.MCOut, s.MCIn = s.P2POut+v.p2pOut, s.P2PIn+v.p2pIn, s.MCOut+v.mcOut, s.MCIn+v.mcIn
		s.NetOut, s.NetIn = s.NetOut+v.netOut, s.NetIn+v.netIn
		total += d.Op.Count * int64(d.Op.DataType.Size())
	}
	// cta is the busiest block's share of the plan: the pieces as the
	// kernel decodes them (G-SCHED-SYMRANGE-1), else an even share
	cta := d0.CTABytes
	if cta <= 0 {
		cta = (total + int64(s.Blocks) - 1) / int64(s.Blocks)
	}
	s.LL = k.LL()
	if k.Gin() {
		s.symGin(k, t, cta)
		return s, nil
	}
	// the busiest block's share, in NCCL's bus bytes (its LL factor
	// included), which its rate in NCCL's model moves
	s.BlockBusBytes = tuning.SymBlockBusBytes(k, t.Ranks, cta)
	if s.LL {
		// LL lines: 8 data bytes and their flag in 16 (no barrier: the
		// flag is the synchronisation, one hop)
		s.P2POut, s.P2PIn, s.MCOut, s.MCIn = 2*s.P2POut, 2*s.P2PIn, 2*s.MCOut, 2*s.MCIn
		s.Syncs = 1
	}
	return s, nil
}

// buildHierCE is the schedule of a hierarchical copy-engine collective
// on r LSA teams of l ranks, B the operation's count × element size
// (v2.30.7-1 src/ce_coll.cc):
//
//   - AllGather (ncclHierCeAllGather): a rail barrier across nodes
//     (ncclRailSync), the RMA proxy puts the rank's block to its r-1 rail
//     peers in pieces of at most HierCEChunkBytes ((r-1)·B out and in over
//     the network), ncclMemOpSync, the copy engines broadcast the block to
//     the l-1 team peers (and copy it locally out of place), then each
//     remote block to the team as its pieces' signals land (r(l-1)·B out
//     and in over NVLink), ncclMemOpSync. The last piece's broadcast
//     follows its arrival: the pipeline's fill.
//   - AlltoAll (ncclHierCeAlltoAll): the rail barrier, ncclMemOpSync, the
//     RMA proxy puts a block to each of the n-l remote ranks ((n-l)·B out
//     and in), the copy engines move the team's blocks ((l-1)·B over
//     NVLink, B locally), the waits on every remote peer's signal,
//     ncclMemOpSync; nothing waits on the network to copy.
func buildHierCE(s *SymSchedule, d *spec.Decision, t SymTeams, inPlace bool) (*SymSchedule, error) {
	if t.LSA == t.Ranks {
		return nil, fmt.Errorf("symmetric schedule: hierarchical-ce inside one LSA team: NCCL runs the flat copy engines there")
	}
	n, l := int64(t.Ranks), int64(t.LSA)
	r, b := n/l, d.Op.Count*int64(d.Op.DataType.Size())
	s.CopyEngine, s.Syncs, s.NetSyncs, s.NetHops = true, 2, 1, 1
	switch d.Op.Func {
	case spec.AllGather:
		s.NetOut, s.NetIn = (r-1)*b, (r-1)*b
		s.P2POut, s.P2PIn = r*(l-1)*b, r*(l-1)*b
		if !inPlace {
			s.Local = b
		}
		if r > 1 {
			s.LSAFill = (l - 1) * min(b, tuning.HierCEChunkBytes)
		}
	case spec.AllToAll:
		s.NetOut, s.NetIn = (n-l)*b, (n-l)*b
		s.P2POut, s.P2PIn = (l-1)*b, (l-1)*b
		s.Local = b
	default:
		return nil, fmt.Errorf("symmetric schedule: hierarchical-ce %s: NCCL's hierarchical copy engines run AllGather and AllToAll", d.Op.Func)
	}
	return s, nil
}

// symGin fills a GIN kernel's network steps: its barriers, the hops its
// last chunk waits on and the pipeline's fill, from the busiest block's
// share cta and the kernel's chunk.
func (s *SymSchedule) symGin(k tuning.SymKernel, t SymTeams, cta int64) {
	r := t.Ranks / t.LSA
	chunk := cta
	if t.GinChunk > 0 {
		chunk = min(chunk, t.GinChunk)
	}
	switch k {
	case tuning.SymReduceScatterRailA2ALsaLD, tuning.SymReduceScatterRailA2ALsaLDMC:
		// all to all over the rail: the first round of chunks is reduced
		// in the team and crosses the network before the pipeline flows
		s.NetHops = 1
		s.NetFill = chunk * int64(s.Blocks)
		s.LSAFill = chunk * int64(s.Blocks) * int64(t.LSA)
	default:
		// a ring: the last chunk reaches the farthest peer r-1 puts
		// after it left, each after its predecessor landed; the world
		// barriers cross the network
		s.NetHops, s.NetSyncs = r-1, 2
		s.NetFill = chunk * int64(s.Blocks) * int64(max(0, r-2))
	}
}

// symVol is what one task of B bytes moves per rank (data bytes).
type symVol struct {
	p2pOut, p2pIn, mcOut, mcIn, netOut, netIn int64
}

// symVolumes is one task's bytes per rank on kernel k (BuildSymPlan's
// table), b its count × element size.
func symVolumes(k tuning.SymKernel, t SymTeams, b int64) (symVol, error) {
	n, l := int64(t.Ranks), int64(t.LSA)
	r := n / l
	var v symVol
	switch k {
	case tuning.SymAllReduceRSxLDAGxST, tuning.SymAllReduceRSxTmaLDAGxTmaST:
		// reduce-scatter by loads, all-gather by stores: a rank loads its
		// slice from n-1 peers (in) while they load theirs from it (out),
		// then stores its reduced slice to n-1 peers (out) while they store
		// theirs to it (in): 2(n-1)/n of the buffer each way, a ring's
		v.p2pIn, v.p2pOut = 2*(n-1)*b/n, 2*(n-1)*b/n
	case tuning.SymAllReduceRSxLDMCAGxSTMC:
		v.mcOut, v.mcIn = b+b/n, b/n+b
	case tuning.SymAllReduceAGxLLR, tuning.SymAllGatherST, tuning.SymAllGatherTmaST, tuning.SymAllGatherLL,
		tuning.SymReduceScatterLD, tuning.SymReduceScatterTmaLD, tuning.SymReduceScatterLL:
		v.p2pIn, v.p2pOut = (n-1)*b, (n-1)*b
	case tuning.SymAllReduceAGxLLMCR, tuning.SymAllGatherSTMC, tuning.SymAllGatherTmaSTMC, tuning.SymAllGatherLLMC:
		v.mcOut, v.mcIn = b, n*b
	case tuning.SymReduceScatterLDMC:
		v.mcOut, v.mcIn = n*b, b
	case tuning.SymAllGatherGinHierMCRing, tuning.SymAllGatherRailRingLsaSTMC:
		v.mcOut, v.mcIn = r*b, l*r*b
		v.netOut, v.netIn = (r-1)*b, (r-1)*b
	case tuning.SymReduceScatterRailA2ALsaLD:
		v.p2pOut, v.p2pIn = (l-1)*r*b, (l-1)*r*b
		v.netOut, v.netIn = (r-1)*b, (r-1)*b
	case tuning.SymReduceScatterRailA2ALsaLDMC:
		v.mcOut, v.mcIn = l*r*b, r*b
		v.netOut, v.netIn = (r-1)*b, (r-1)*b
	default:
		return v, fmt.Errorf("symmetric schedule: %s is not modelled", k)
	}
	return v, nil
}

// String is the schedule in one line.
func (s *SymSchedule) String() string {
	if s.CopyEngine {
		if s.LSARanks > 0 && s.LSARanks != s.Ranks {
			return fmt.Sprintf("%s %s on %d ranks in LSA teams of %d", s.Func, s.Kernel, s.Ranks, s.LSARanks)
		}
		return fmt.Sprintf("%s %s on %d ranks", s.Func, s.Kernel, s.Ranks)
	}
	works := ""
	if s.Works > 1 {
		works = fmt.Sprintf(", %d works", s.Works)
	}
	if s.LSARanks > 0 && s.LSARanks != s.Ranks {
		return fmt.Sprintf("%s %s on %d blocks, %d ranks in LSA teams of %d%s", s.Func, s.Kernel, s.Blocks, s.Ranks, s.LSARanks, works)
	}
	return fmt.Sprintf("%s %s on %d blocks, %d ranks%s", s.Func, s.Kernel, s.Blocks, s.Ranks, works)
}
