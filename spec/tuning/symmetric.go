package tuning

import (
	"fmt"
	"math"

	"github.com/gatesim/gatesim/nccl"
)

// NCCL's symmetric kernels (2.27.3+): collectives on buffers registered as
// symmetric windows leave the cost table for one of a fixed set of kernels
// built on the device API. Which kernels exist for an operation is a mask
// (function, reduction and type, multimem support, size, NCCL_SYM_KERNEL);
// the pick runs a small analytic model per kernel and takes the fastest,
// charging 2.5 % per block used; the plan then spreads the bin's elements
// in 1 KiB cells over the kernel's blocks.
//
// Ref: v2.28.9-1 src/sym_kernels.cc ncclSymkAvailable, ncclSymkMask,
// ncclSymkPickKernel, queryModel; src/scheduler/symmetric_sched.cc
// ncclMakeSymmetricTaskList, ncclSymmetricTaskScheduler (v2.28.3-1 the
// same but for the multi-node mask, which a one-node communicator never
// reaches; v2.27.3-1..v2.27.7-1 src/symmetric.cc ncclSymPickKernel has the
// same mask and model without the network kernel, for one collective at a
// time: Consts.SymGrouped and symmetricAlone).

// SymKernel is a symmetric kernel (ncclSymkKernelId). The pick walks the
// kernels in this order and keeps the first of equal cost: 2.30.3 put each
// TMA kernel before the kernel whose model it shares, so it wins where it
// is available; the other kernels keep their relative order in every
// release (a kernel a release lacks is never in its masks).
type SymKernel int

const (
	SymAllReduceAGxLLR SymKernel = iota
	SymAllReduceAGxLLMCR
	SymAllReduceRSxTmaLDAGxTmaST
	SymAllReduceRSxLDAGxST
	SymAllReduceRSxLDMCAGxSTMC
	SymAllReduceRSxNetARxMCAGxNet
	SymAllGatherLL
	SymAllGatherLLMC
	SymAllGatherTmaST
	SymAllGatherST
	SymAllGatherTmaSTMC
	SymAllGatherSTMC
	SymReduceScatterLL
	SymReduceScatterTmaLD
	SymReduceScatterLD
	SymReduceScatterLDMC
	SymAllGatherGinHierMCRing
	SymAllGatherRailRingLsaSTMC
	SymReduceScatterRailA2ALsaLD
	SymReduceScatterRailA2ALsaLDMC
	NumSymKernels
)

// Forms of the GIN kernels (Consts.SymGin).
const (
	SymGinHier = 1 + iota
	SymGinRail
)

// String is NCCL's kernel name, as NCCL_SYM_KERNEL takes it and the
// [Symmetric] line prints it.
func (k SymKernel) String() string {
	switch k {
	case SymAllReduceAGxLLR:
		return "AllReduce_AGxLL_R"
	case SymAllReduceAGxLLMCR:
		return "AllReduce_AGxLLMC_R"
	case SymAllReduceRSxTmaLDAGxTmaST:
		return "AllReduce_RSxTmaLD_AGxTmaST"
	case SymAllReduceRSxLDAGxST:
		return "AllReduce_RSxLD_AGxST"
	case SymAllReduceRSxLDMCAGxSTMC:
		return "AllReduce_RSxLDMC_AGxSTMC"
	case SymAllReduceRSxNetARxMCAGxNet:
		return "AllReduce_RSxNet_ARxMC_AGxNet"
	case SymAllGatherLL:
		return "AllGather_LL"
	case SymAllGatherLLMC:
		return "AllGather_LLMC"
	case SymAllGatherTmaST:
		return "AllGather_TmaST"
	case SymAllGatherST:
		return "AllGather_ST"
	case SymAllGatherTmaSTMC:
		return "AllGather_TmaSTMC"
	case SymAllGatherSTMC:
		return "AllGather_STMC"
	case SymReduceScatterLL:
		return "ReduceScatter_LL"
	case SymReduceScatterTmaLD:
		return "ReduceScatter_TmaLD"
	case SymReduceScatterLD:
		return "ReduceScatter_LD"
	case SymReduceScatterLDMC:
		return "ReduceScatter_LDMC"
	case SymAllGatherGinHierMCRing:
		return "AllGather_GinHier_MCRing"
	case SymAllGatherRailRingLsaSTMC:
		return "AllGather_RailRing_LsaSTMC"
	case SymReduceScatterRailA2ALsaLD:
		return "ReduceScatter_RailA2A_LsaLD"
	case SymReduceScatterRailA2ALsaLDMC:
		return "ReduceScatter_RailA2A_LsaLDMC"
	}
	return "Unknown"
}

// LL reports an LL kernel (kernelMask_LL): it moves LL lines, 8 data bytes
// and their flag in 16.
func (k SymKernel) LL() bool { return k < NumSymKernels && symMaskLL>>k&1 == 1 }

// The kernel masks of sym_kernels.cc (kernelMask_STMC, ...).
const (
	symMaskSTMC uint32 = 1<<SymAllGatherLLMC | 1<<SymAllGatherSTMC | 1<<SymAllGatherTmaSTMC | 1<<SymAllReduceAGxLLMCR | 1<<SymAllReduceRSxLDMCAGxSTMC | 1<<SymReduceScatterLDMC |
		1<<SymAllGatherGinHierMCRing | 1<<SymAllGatherRailRingLsaSTMC
	symMaskLDMC uint32 = 1<<SymAllReduceRSxLDMCAGxSTMC | 1<<SymReduceScatterLDMC | 1<<SymReduceScatterRailA2ALsaLDMC
	symMaskLL   uint32 = 1<<SymAllReduceAGxLLR | 1<<SymAllReduceAGxLLMCR | 1<<SymAllGatherLL | 1<<SymAllGatherLLMC | 1<<SymReduceScatterLL
	symMaskAG   uint32 = 1<<SymAllGatherLL | 1<<SymAllGatherLLMC | 1<<SymAllGatherTmaST | 1<<SymAllGatherST | 1<<SymAllGatherTmaSTMC | 1<<SymAllGatherSTMC |
		1<<SymAllGatherGinHierMCRing | 1<<SymAllGatherRailRingLsaSTMC
	symMaskAR uint32 = 1<<SymAllReduceAGxLLMCR | 1<<SymAllReduceAGxLLR | 1<<SymAllReduceRSxLDMCAGxSTMC | 1<<SymAllReduceRSxLDAGxST | 1<<SymAllReduceRSxTmaLDAGxTmaST
	symMaskRS uint32 = 1<<SymReduceScatterLD | 1<<SymReduceScatterTmaLD | 1<<SymReduceScatterLDMC | 1<<SymReduceScatterLL |
		1<<SymReduceScatterRailA2ALsaLD | 1<<SymReduceScatterRailA2ALsaLDMC
	// symMaskTMA: the TMA kernels (kernelMask_Tma, 2.30.3+), which need
	// sm100 and NCCL_SYM_TMA_ENABLE=1.
	symMaskTMA uint32 = 1<<SymAllGatherTmaST | 1<<SymAllGatherTmaSTMC | 1<<SymAllReduceRSxTmaLDAGxTmaST | 1<<SymReduceScatterTmaLD
	// symMaskGin: the GIN kernels of either form (kernelMask_Gin), which
	// run across LSA teams; symMaskGinHier and symMaskGinRail each form's.
	symMaskGinHier uint32 = 1 << SymAllGatherGinHierMCRing
	symMaskGinRail uint32 = 1<<SymAllGatherRailRingLsaSTMC | 1<<SymReduceScatterRailA2ALsaLD | 1<<SymReduceScatterRailA2ALsaLDMC
	symMaskGin            = symMaskGinHier | symMaskGinRail
	// symMaskLSA: every kernel that stays inside the NVLink domain (all
	// but the GIN kernels and the network AllReduce, which no function
	// mask includes).
	symMaskLSA = (symMaskAG | symMaskAR | symMaskRS) &^ symMaskGin
)

// symCellBytes is NCCL_SYM_KERNEL_CELL_SIZE; symMaxBlocks ncclSymkMaxBlocks.
const (
	symCellBytes = 1024
	symMaxBlocks = 64
	symNWarps    = 16
)

// symComm is what the symmetric kernels read of the communicator.
type symComm struct {
	nRanks int
	// oneLsa: the LSA team is every rank (Input.OneLSATeam)
	oneLsa  bool
	compCap int // the smallest compute capability, 90 for sm90
	nvls    bool
	// minCTAs, maxCTAs: the communicator config after NCCL_MIN_CTAS and
	// NCCL_MAX_CTAS (1 and MAXCHANNELS by default).
	minCTAs, maxCTAs int
	// symCTAs is NCCL_SYM_CTAS (0: unset); userMask the kernels
	// NCCL_SYM_KERNEL allows (every kernel when unset or "^").
	symCTAs  int64
	userMask uint32
	// tma: the TMA kernels are available (Consts.SymTMA, sm100+,
	// NCCL_SYM_TMA_ENABLE=1); noNVLink: the release needs every GPU pair
	// one NVLink hop for any kernel (Consts.SymAllNVLink) and the node
	// has another path.
	tma, noNVLink bool
	// gin: the GIN kernels the release and NCCL_SYM_GIN_KERNELS_ENABLE
	// allow (symMaskGinHier, symMaskGinRail or 0); lsaRanks and railRanks
	// the LSA team's and the rail team's sizes; minNetBw comm->minNetBw,
	// netLat hwLatencies[NET][Ring][Simple], nvlsHeads
	// nvlsResources->nHeads; rsSmBw and rsChunk the RailA2A model's
	// per-block SM bandwidth [ldmc] and chunk.
	gin                 uint32
	lsaRanks, railRanks int
	minNetBw, netLat    float64
	nvlsHeads           int
	rsSmBw              [2]float64
	rsChunk             int64
}

// symUserMask reads NCCL_SYM_KERNEL: one kernel's exact name, "^" or unset
// for every kernel, anything else for none.
func symUserMask(v *string) uint32 {
	if v == nil || *v == "^" {
		return 1<<NumSymKernels - 1
	}
	for k := range NumSymKernels {
		if k.String() == *v {
			return 1 << k
		}
	}
	return 0
}

// symImplemented is ncclSymkImplemented: AllGather of anything; AllReduce
// and ReduceScatter summing a float type other than double (2.30.3+ also
// SumPostDiv, which a float task carries only from then: Consts.SymAvg).
func symImplemented(f nccl.Func, op tuningDevOp, dt nccl.DataType) bool {
	switch f {
	case nccl.AllGather:
		return true
	case nccl.AllReduce, nccl.ReduceScatter:
		switch dt {
		case nccl.Float32, nccl.Float16, nccl.Bfloat16, nccl.Float8e4m3, nccl.Float8e5m2:
			return op == tuningDevSum || op == tuningDevSumPostDiv
		}
	}
	return false
}

// symMask is ncclSymkMask: the kernels that can run the operation.
func (s *symComm) symMask(f nccl.Func, op tuningDevOp, dt nccl.DataType, nElts int64) uint32 {
	var m uint32
	switch f {
	case nccl.AllGather:
		m = symMaskAG
	case nccl.AllReduce:
		m = symMaskAR
	case nccl.ReduceScatter:
		m = symMaskRS
	}
	m &= s.userMask
	ldmc := false
	if s.nvls {
		switch dt {
		case nccl.Int32, nccl.Uint32, nccl.Int64, nccl.Uint64, nccl.Float16, nccl.Bfloat16:
			ldmc = op == tuningDevSum || op == tuningDevMinMax || op == tuningDevSumPostDiv
		case nccl.Float8e4m3, nccl.Float8e5m2:
			ldmc = (op == tuningDevSum || op == tuningDevMinMax || op == tuningDevSumPostDiv) && s.compCap >= 100
		case nccl.Float32, nccl.Float64:
			ldmc = op == tuningDevSum || op == tuningDevSumPostDiv
		}
	}
	if !s.nvls {
		m &^= symMaskSTMC
	}
	if !ldmc {
		m &^= symMaskLDMC
	}
	bus := nElts * int64(dt.Size())
	if f != nccl.AllReduce {
		bus *= int64(s.nRanks)
	}
	if bus >= 2<<30 { // LL kernels count elements in 32 bits
		m &^= symMaskLL
	}
	if bus >= 32*(2<<30) {
		m = 0
	}
	if !s.tma {
		m &^= symMaskTMA
	}
	if s.oneLsa {
		m &^= symMaskGin
	} else {
		m &= s.gin
	}
	return m
}

// symAvailable is ncclSymkAvailable.
func (s *symComm) symAvailable(f nccl.Func, op tuningDevOp, dt nccl.DataType, nElts int64) bool {
	return !s.noNVLink && symImplemented(f, op, dt) && s.symMask(f, op, dt, nElts) != 0
}

// symModelOf is the kernel whose model a TMA kernel shares (queryModel_lsa
// gives both the same bus bytes, multiplier and blocks).
func symModelOf(k SymKernel) SymKernel {
	switch k {
	case SymAllReduceRSxTmaLDAGxTmaST:
		return SymAllReduceRSxLDAGxST
	case SymAllGatherTmaST:
		return SymAllGatherST
	case SymAllGatherTmaSTMC:
		return SymAllGatherSTMC
	case SymReduceScatterTmaLD:
		return SymReduceScatterLD
	}
	return k
}

func symSoftmin(x, ceiling, softness float64) float64 {
	return ceiling - softness*math.Log1p((math.Exp(ceiling/softness)-1)*math.Exp(-x/softness))
}

func symSoftplus(x, softness float64) float64 {
	z := x / softness
	if z >= 100 {
		return x
	}
	return softness * math.Log1p(math.Exp(z))
}

func symModel(busBytes, baseLat float64, nSMs int, smBw, busMult, peakBw float64) float64 {
	bw := symSoftmin(float64(nSMs)*smBw*busMult, peakBw, smBw)
	return baseLat + symSoftplus(busBytes/bw-1, 1)
}

// symQuery is queryModel: kernel k's time for nBytes on the fewest blocks
// within 2.5 % of its time on the most.
func (s *symComm) symQuery(k SymKernel, nBytes int64) (timeUs float64, nBlocks int) {
	if symMaskGin>>k&1 == 1 {
		return s.symQueryGin(k, nBytes)
	}
	k = symModelOf(k)
	maxBlocks := symMaxBlocks
	arch := 16
	if s.compCap >= 100 {
		arch = 32
	}
	busBytes, mult, nvlsBlocks := symBus(k, s.nRanks, nBytes)
	if nvlsBlocks {
		maxBlocks = nccl.DivUp(arch, s.nRanks)
	}
	maxBlocks = min(maxBlocks, s.maxCTAs)
	minBlocks := s.minCTAs
	if u := min(int64(symMaxBlocks), s.symCTAs); u > 0 {
		minBlocks, maxBlocks = int(u), int(u)
	}
	const gbps = float64(1<<30) / 1e6
	baseLat := SymBaseLatency(k, s.compCap)
	smBw := symSmBw(k, s.compCap) * gbps
	var peakBw float64
	if s.compCap < 100 {
		peakBw = 320 * gbps
		if k == SymAllReduceRSxLDMCAGxSTMC {
			peakBw = 480 * gbps
		}
	} else {
		peakBw = 600 * gbps
		if k == SymAllReduceRSxLDMCAGxSTMC {
			peakBw = 1000 * gbps
		}
	}
	// NCCL keeps the time in a float and compares the doubles with it
	best := float32(symModel(busBytes, baseLat, maxBlocks, smBw, mult, peakBw))
	for bn := minBlocks; bn < maxBlocks; bn++ {
		if t := symModel(busBytes, baseLat, bn, smBw, mult, peakBw); t <= 1.025*float64(best) {
			return float64(float32(t)), bn
		}
	}
	return float64(best), maxBlocks
}

// symBus is queryModel's bus bytes of kernel k (its model kernel's) for
// nBytes on n ranks, the multiplier of its per-block rate, and whether its
// blocks are capped as the multimem kernels' are.
func symBus(k SymKernel, n int, nBytes int64) (busBytes, mult float64, nvlsBlocks bool) {
	const llBusFactor = 9
	nf, b := float64(n), float64(nBytes)
	switch symModelOf(k) {
	case SymAllReduceAGxLLR, SymAllGatherLL, SymReduceScatterLL:
		return nf * b * llBusFactor, 1, false
	case SymAllReduceAGxLLMCR, SymAllGatherLLMC:
		return nf * b * llBusFactor, 1.1, false
	case SymAllReduceRSxLDAGxST:
		return float64(2 * nBytes * int64(n-1) / int64(n)), 1, false
	case SymAllReduceRSxLDMCAGxSTMC:
		return float64(nBytes/int64(n) + nBytes), nf, true
	case SymAllGatherST, SymReduceScatterLD:
		return float64(int64(n-1) * nBytes), 1, false
	case SymAllGatherSTMC, SymReduceScatterLDMC:
		return float64(int64(n-1) * nBytes), 0.55 * nf, true
	}
	return math.Ldexp(1, 50), 1, false
}

// symSmBw is queryModel's smBw, GiB/s: what one block moves.
func symSmBw(k SymKernel, compCap int) float64 {
	switch {
	case compCap >= 100:
		return 55
	case symMaskAR>>symModelOf(k)&1 == 1:
		return 65
	}
	return 44
}

// SymBlockBusBytes and SymBlockBw are NCCL's model of what one block of
// symmetric kernel k does on n ranks of compute capability compCap: the
// bus bytes it moves for the nBytes it works on, and the rate (bytes/s)
// at which it moves them (smBw × the kernel's bus multiplier).
// Ref: v2.28.9-1 src/sym_kernels.cc queryModel (busBytes, busMultiplier,
// smBw; the same in v2.27.3-1 src/symmetric.cc and v2.30.7-1
// src/sym_kernels.cc queryModel_lsa).
func SymBlockBusBytes(k SymKernel, n int, nBytes int64) float64 {
	b, _, _ := symBus(k, n, nBytes)
	return b
}

func SymBlockBw(k SymKernel, n, compCap int) float64 {
	_, mult, _ := symBus(k, n, 1)
	return symSmBw(k, compCap) * float64(1<<30) * mult
}

// SymBaseLatency is the fixed cost (µs) NCCL's model of symmetric kernel
// k charges on GPUs of compute capability compCap (90 for sm90): the
// kernel's launch and its first synchronisation, before any byte moves.
// Ref: v2.28.9-1 src/sym_kernels.cc queryModel (baseLat; the same
// constants in v2.27.3-1 src/symmetric.cc and v2.30.7-1
// src/sym_kernels.cc queryModel_lsa).
func SymBaseLatency(k SymKernel, compCap int) float64 {
	k = symModelOf(k)
	isLL := symMaskLL>>k&1 == 1
	if compCap < 100 {
		if isLL {
			return 4.5
		}
		return 7.8
	}
	switch {
	case isLL && symMaskAG>>k&1 == 1:
		return 8.5
	case isLL:
		return 11
	case symMaskAR>>k&1 == 1:
		return 19.5
	}
	return 13
}

// ParseSymKernel is the kernel NCCL names name (SymKernel.String).
func ParseSymKernel(name string) (SymKernel, bool) {
	for k := range NumSymKernels {
		if k.String() == name {
			return k, true
		}
	}
	return NumSymKernels, false
}

// symPick is ncclSymkPickKernel for nWorks operations of one bin whose
// cell-aligned counts add up to countTotal (the largest countMax): the
// kernel, NCCL's time estimate and the blocks. win says both buffers are
// in symmetric windows (ncclSymSendRegRecvReg); buffers outside windows
// (ncclSymSendNonregRecvNonreg, 2.29.2+) leave only the LL kernels. ok is
// false when no kernel is left (NCCL's "no symmetric kernel available"
// error).
func (s *symComm) symPick(f nccl.Func, op tuningDevOp, dt nccl.DataType, countTotal, countMax int64, nWorks int, win bool) (k SymKernel, timeUs float64, nBlocks int, ok bool) {
	m := s.symMask(f, op, dt, countMax)
	if nWorks > 1 { // grouped LL kernels are not supported
		m &^= symMaskLL
	}
	if !win {
		m &= symMaskLL
	}
	const smPenalty = 0.025
	best, bestTime, bestBlocks := NumSymKernels, float32(1e30), 999
	nBytes := countTotal * int64(dt.Size())
	for k := range NumSymKernels {
		if m>>k&1 == 0 {
			continue
		}
		t, b := s.symQuery(k, nBytes)
		kt := float32(t)
		if kt*(1+smPenalty*float32(b)) < bestTime*(1+smPenalty*float32(bestBlocks)) {
			best, bestTime, bestBlocks = k, kt, b
		}
	}
	return best, float64(bestTime), bestBlocks, best != NumSymKernels
}

// symCells is the number of 1 KiB cells count elements of dt fill.
func symCells(count int64, dt nccl.DataType) int64 {
	cell := int64(symCellBytes / dt.Size())
	return nccl.DivUp(count, cell)
}

// symLine is the [Symmetric] line rank 0 prints for one plan.
func symLine(f nccl.Func, bytes int64, k SymKernel, nChannels, nThreads, nWorks int) string {
	return fmt.Sprintf("%s [Symmetric]: %d Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d", f, bytes, k, nChannels, nThreads, nWorks)
}

// symLine27 is 2.27's [Symmetric] line: one collective, no nWorks.
func symLine27(f nccl.Func, bytes int64, k SymKernel, nChannels, nThreads int) string {
	return fmt.Sprintf("%s [Symmetric]: %d Bytes -> Kernel %s nchannels %d nthreads %d", f, bytes, k, nChannels, nThreads)
}

// symNoKernel is the WARN and error when a bin has no kernel left.
func symNoKernel(f nccl.Func, userKernel *string) (string, nccl.Result) {
	w := "Error: no symmetric kernel available for function " + f.String() + "."
	if userKernel != nil {
		return w + " NCCL_SYM_KERNEL was set to " + *userKernel, nccl.InvalidUsage
	}
	return w, nccl.InternalError
}

// symk is the symmetric kernels' view of the communicator with the
// release's facts: the TMA kernels, the all-NVLink condition and the
// multimem kernels' smallest LSA team. The multimem condition is
// symkState.hasLsaMultimem once ncclSymkInitOnce ran (the first window
// registered with NCCL_WIN_COLL_SYMMETRIC, or the first LL kernel kept on
// buffers outside windows): a process's very first pick on buffers
// outside windows sees no multimem kernel from 2.29.7.
//
// Ref: v2.30.3-1 src/sym_kernels.cc ncclSymkMask, ncclSymkAvailable,
// ncclSymkInitOnce (v2.29.2-1 ncclSymkAvailable checks
// comm->isAllDirectNvlink; v2.29.7-1 hasLsaMultimem needs more than 2 LSA
// ranks)
func (m *Model) symk() *symComm {
	c, in := m.Tuning, &m.In
	s := in.symComm(c.MaxChannels)
	s.tma = c.SymTMA && in.MinCompCap >= 100 && in.SymTMAEnable != nil && *in.SymTMAEnable != 0
	s.noNVLink = c.SymAllNVLink && !in.AllDirectNVLink
	s.lsaRanks = in.NRanks
	if !s.oneLsa {
		s.lsaRanks = in.LocalRanks
	}
	if c.SymMultimemRanks > 0 && s.lsaRanks <= c.SymMultimemRanks {
		s.nvls = false
	}
	if !s.oneLsa {
		s.symGin(c, in)
	}
	return s
}

// SymForced says NCCL_SYM_KERNEL names one kernel (ncclSymkPickKernel's
// forced: the user mask is not every kernel).
func (in *Input) SymForced() bool {
	return in.SymKernel != nil && symUserMask(in.SymKernel) != 1<<NumSymKernels-1
}

// symOutsideWindow sends a group's task whose buffers are not in symmetric
// windows to the symmetric task list where the release does (2.29.2+):
// ncclSymkAvailable alone decides. A kernel can keep it only when
// NCCL_SYM_KERNEL forces one or under NCCL_SYM_NOWIN_ENABLE=1; otherwise
// NCCL finds only LL kernels for unregistered buffers and sends the task
// straight back (symBack): the decision is the cost table's, but the task
// rejoins the cost table's walk after the tasks never listed (symmetric);
// 2.29.2–2.29.3 still pick its piece's kernel and probe an LL pick first
// (symmetricBack).
//
// Ref: v2.29.2-1 src/scheduler/symmetric_sched.cc ncclMakeSymmetricTaskList
// (v2.29.7-1, v2.30.3-1 and v2.30.7-1 the same for these buffers)
func (m *Model) symOutsideWindow(t *tuningTask) {
	in := &m.In
	if t.sym || !m.Tuning.SymNoWin || !m.Tuning.Symmetric || !in.SymmetricSupport || in.CrossClique || t.op.Buffers == nccl.BuffersWindow {
		return
	}
	if !m.symk().symAvailable(t.fn, t.symOp, t.dtype, t.count) {
		return
	}
	if !in.SymForced() && (in.SymNoWinEnable == nil || *in.SymNoWinEnable == 0) {
		t.symBack = true
		return
	}
	t.sym, t.choice.SidePath = true, "symmetric"
}

// symLegacyChoice is the cost table's choice for op alone, as
// ncclMakeSymmetricTaskList asks ncclGetAlgoInfo (2.29.2+) before it keeps
// an LL kernel; it never takes a symmetric path itself. The call reads the
// task's regBuff as every ncclGetAlgoInfo does (buffers registered with
// ncclCommRegister, or any buffer under a capture with
// NCCL_GRAPH_REGISTER), so CTA policy EFFICIENCY can turn a registered
// AllGather or ReduceScatter to NVLS/Simple here and send the piece back
// (G-SEL-SIDE-1); the registration itself happens only in the plan.
//
// Ref: v2.29.2-1 src/scheduler/symmetric_sched.cc ncclMakeSymmetricTaskList;
// src/enqueue.cc ncclGetAlgoInfo (v2.29.7-1..v2.30.7-1 the same call)
func (m *Model) symLegacyChoice(o Call) OpChoice {
	o.RegBuff = m.RegBuff(o)
	o.Buffers, o.Graph, o.InPlace = nccl.BuffersUser, false, false
	var ch OpChoice
	t := tuningTask{choice: &ch}
	if err := m.chooseOp(o, &t); err != nil && ch.Err == nil {
		ch.Err = &nccl.NCCLError{Result: nccl.InternalError, Message: err.Error()}
	}
	return ch
}
