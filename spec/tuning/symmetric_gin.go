package tuning

import (
	"math"
	"math/bits"

	"github.com/gatesim/gatesim/nccl"
)

// The GIN symmetric kernels: a communicator whose LSA team is not every
// rank (several nodes with GIN, comm->symmetricSupport) runs its symmetric
// collectives on kernels that move data inside the NVLink domain and
// across nodes over GIN, one rail at a time. Their models read the NVLink
// bandwidth of the architecture, comm->minNetBw and the network's Ring
// Simple latency.
//
// Ref: v2.29.2-1 src/sym_kernels.cc queryModel_gin (AllGather_GinHier_MCRing);
// v2.29.7-1 src/sym_kernels.cc queryModel_gin, getBusMul_ReduceScatter_RailA2A,
// calcSatBlocks_ReduceScatter_RailA2A, getRequirements_gin, ncclSymkInitOnce,
// ncclSymkMask (v2.30.3-1 the same; v2.30.7-1 ncclSymkRsGinChunkBytes and
// getSmBw_ReduceScatter_RailA2A's constants)

// symNVLinkBw is nvlinkBws: Hopper's and Blackwell's NVLS bandwidth, GB/s.
func symNVLinkBw(compCap int) float64 {
	if compCap >= 100 {
		return 720
	}
	return 360
}

const (
	symGinHierRailBuf  = 4 << 20 // ncclSymkGinRailBufSize
	symRailRingChunk   = 1 << 20 // ncclSymkAllGather_RailRing_ChunkSize
	symRsGinChunk      = 64 << 10
	symRsGinChunkDef   = 128 << 10 // ncclSymkRsGinDefaultChunkBytes
	symRsGinChunkFloor = 128
	symRsGinChunkCeil  = 1 << 30
)

// symGin fills the GIN kernels' facts of a communicator of several LSA
// teams.
func (s *symComm) symGin(c *Consts, in *Input) {
	switch c.SymGin {
	case SymGinHier:
		s.gin = symMaskGinHier
	case SymGinRail:
		if in.SymGinKernelsEnable == nil || *in.SymGinKernelsEnable != 0 {
			s.gin = symMaskGinRail
		}
	}
	s.railRanks = max(1, in.NRanks/max(1, s.lsaRanks))
	s.minNetBw, s.netLat, s.nvlsHeads = float64(in.MinNetBw), c.HwLat[HwNet][nccl.Ring][nccl.Simple], max(1, in.NVLSHeads)
	sm100 := 0
	if s.compCap >= 100 {
		sm100 = 1
	}
	s.rsSmBw = c.SymGinRsSmBw[sm100]
	s.rsChunk = symRsGinChunk
	if c.SymGinRsChunkEnv {
		ch := int64(symRsGinChunkDef)
		if in.SymRsGinChunkSize != nil && *in.SymRsGinChunkSize > 0 {
			ch = *in.SymRsGinChunkSize
		}
		ch = max(symRsGinChunkFloor, min(ch, symRsGinChunkCeil))
		s.rsChunk = int64(1) << (63 - bits.LeadingZeros64(uint64(ch))) // pow2Down
	}
}

// symRsBusMul is getBusMul_ReduceScatter_RailA2A: how often the data
// crosses the SMs, NVLink and GIN.
func (s *symComm) symRsBusMul(ldmc bool) (sm, lsa, gin float64) {
	l, r := float64(s.lsaRanks), float64(s.railRanks)
	in := l - 1
	if ldmc {
		in = l
	}
	lsa = max(in*r, (l-1)*r)
	gin = r - 1
	stage := l
	if ldmc {
		stage = 1
	}
	if s.lsaRanks > 1 {
		sm = stage * (r - 1)
	}
	sm += stage + (r - 1)
	return sm, lsa, gin
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// symRsSatBlocks is calcSatBlocks_ReduceScatter_RailA2A.
func (s *symComm) symRsSatBlocks(ldmc bool) int {
	lsaBw, ginBw := 1e9*symNVLinkBw(s.compCap), 1e9*s.minNetBw
	sm, lsa, gin := s.symRsBusMul(ldmc)
	eff := min(lsaBw/lsa, ginBw/gin)
	return int(math.Ceil(min(float64(1<<30), eff/(s.rsSmBw[b2i(ldmc)]/sm))))
}

// symGinInboxBlocks is symkState.maxGinInboxBlocks (ncclSymkInitOnce
// from getRequirements_gin).
func (s *symComm) symGinInboxBlocks() int {
	b := max(s.symRsSatBlocks(false), s.symRsSatBlocks(true))
	b = min(max(b, s.minCTAs), s.maxCTAs)
	if s.symCTAs >= 1 {
		b = int(min(s.symCTAs, math.MaxInt32))
	}
	return min(b, symMaxBlocks)
}

// symQueryGin is queryModel_gin.
func (s *symComm) symQueryGin(k SymKernel, nBytes int64) (timeUs float64, nBlocks int) {
	nMax, nMin := min(s.maxCTAs, symMaxBlocks), s.minCTAs
	arch := 16
	if s.compCap >= 100 {
		arch = 32
	}
	rail := int64(s.railRanks)
	switch k {
	case SymAllGatherGinHierMCRing:
		req := int(min(nccl.DivUp(nBytes, symGinHierRailBuf), symMaxBlocks))
		intra := float32(nBytes*int64(s.nRanks)) / float32(symNVLinkBw(s.compCap))
		inter := float32(nBytes*(rail-1)) / float32(s.minNetBw)
		steps := uint32(nccl.DivUp(nBytes, symGinHierRailBuf) * (rail - 1))
		t := float32(steps)*float32(s.netLat) + max(intra, inter)
		return float64(t), max(s.minCTAs, min(s.maxCTAs, min(req, int(nccl.DivUp(int64(arch), int64(s.nvlsHeads))))))
	}
	if u := min(int64(symMaxBlocks), s.symCTAs); u > 0 {
		nMin, nMax = int(u), int(u)
	}
	lsaBw, ginBw, ginLat := 1e9*symNVLinkBw(s.compCap), 1e9*s.minNetBw, 1e-6*s.netLat
	switch k {
	case SymAllGatherRailRingLsaSTMC:
		if s.symCTAs <= 0 {
			nMax = min(nMax, int(nccl.DivUp(int64(arch), int64(s.nvlsHeads))))
		}
		intra := float32(nBytes*int64(s.nRanks)) / float32(lsaBw)
		inter := float32(nBytes*(rail-1)) / float32(ginBw)
		steps := uint32(nccl.DivUp(nBytes, symRailRingChunk) * (rail - 1))
		t := float64(steps)*ginLat + float64(max(intra, inter))
		return float64(float32(t)), max(nMin, min(nMax, int(nccl.DivUp(nBytes, symRailRingChunk))))
	case SymReduceScatterRailA2ALsaLD, SymReduceScatterRailA2ALsaLDMC:
		ldmc := k == SymReduceScatterRailA2ALsaLDMC
		nMax = min(nMax, s.symGinInboxBlocks(), s.symRsSatBlocks(ldmc))
		sm, lsa, gin := s.symRsBusMul(ldmc)
		// the larger of nMin and nMax last: nMax may be below nMin
		nBlocks = max(nMin, min(nMax, int(nccl.DivUp(nBytes, s.rsChunk))))
		eff := min(float64(nBlocks)*(s.rsSmBw[b2i(ldmc)]/sm), lsaBw/lsa, ginBw/gin)
		t := float64(nBytes)/eff + float64(min(nBytes, s.rsChunk*int64(nBlocks)))*(lsa/lsaBw+gin/ginBw) + ginLat
		return float64(float32(1e6 * t)), nBlocks
	}
	return math.MaxFloat32, 0
}

// Gin reports a GIN kernel (kernelMask_Gin): it runs across LSA teams,
// inside each over NVLink and between them over GIN, one rail at a time.
func (k SymKernel) Gin() bool { return k < NumSymKernels && symMaskGin>>k&1 == 1 }

// SymGinChunkBytes is what one block of GIN kernel k moves per network
// step on the communicator: the rail ring's chunk (AllGather_GinHier_MCRing
// ncclSymkGinRailBufSize, AllGather_RailRing_LsaSTMC
// ncclSymkAllGather_RailRing_ChunkSize) or the RailA2A ReduceScatter's
// (ncclSymkRsGinChunkBytes, the chunk its model charges); 0 for a kernel
// inside one LSA team.
//
// Ref: v2.29.2-1 src/device/symmetric/all_gather_gin.cuh
// ncclSymkRun_AllGather_GinHier_MCRing; v2.30.7-1
// src/device/symmetric/all_gather_gin.cuh
// ncclSymkRun_AllGather_RailRing_LsaSTMC, src/sym_kernels.cc
// queryModel_gin (v2.29.7-1 the same with the chunk fixed at 64 KiB)
func (m *Model) SymGinChunkBytes(k SymKernel) int64 {
	switch k {
	case SymAllGatherGinHierMCRing:
		return symGinHierRailBuf
	case SymAllGatherRailRingLsaSTMC:
		return symRailRingChunk
	case SymReduceScatterRailA2ALsaLD, SymReduceScatterRailA2ALsaLDMC:
		if m == nil || m.Tuning == nil {
			return symRsGinChunk
		}
		s := m.symk()
		if s.oneLsa {
			return symRsGinChunk
		}
		return s.rsChunk
	}
	return 0
}

// HierCEChunkBytes is HIER_COLL_MAX_CHUNK_SIZE: the largest piece the
// hierarchical copy-engine collectives put to one remote peer at a time
// (ncclHierCollBuildChunk cuts a peer's bytes into that many near-equal
// 8 KiB-aligned pieces, each signalled on arrival).
//
// Ref: v2.30.7-1 src/ce_coll.cc HIER_COLL_MAX_CHUNK_SIZE, ncclHierCollBuildChunk
const HierCEChunkBytes = 64 << 20
