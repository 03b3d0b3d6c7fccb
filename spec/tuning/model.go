package tuning

// NCCL's tuning model, part 2: ncclTopoTuneModel (src/graph/tuning.cc),
// which turns the communicator's graphs into the per-(function, algorithm,
// protocol) bandwidth and latency tables, the thread counts and the thread
// thresholds, then zeroes what the enable rules switch off.
//
// Arithmetic follows the C source operation by operation: float32 where
// NCCL stores or computes in float, float64 where a double literal or a
// double constant promotes the expression, and a float32 conversion at every
// assignment to a float. Products feeding an addition are converted
// explicitly so that the Go compiler cannot fuse them (the Go spec's rule on
// fused multiply-add); NCCL's host code is built without FMA contraction.

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec/topo"
)

// CPUArch is the CPU architecture as NCCL's topology reports it
// (NCCL_TOPO_CPU_ARCH_*; MIXED when the ranks disagree, 2.24+).
type CPUArch int

const (
	ArchUnknown CPUArch = 0
	ArchX86     CPUArch = 1
	ArchPower   CPUArch = 2
	ArchARM     CPUArch = 3
	ArchMixed   CPUArch = 4
)

// CPUVendor is the x86 vendor (NCCL_TOPO_CPU_VENDOR_*).
type CPUVendor int

const (
	VendorOther   CPUVendor = 0
	VendorIntel   CPUVendor = 1
	VendorAMD     CPUVendor = 2
	VendorZhaoxin CPUVendor = 3
	VendorMixed   CPUVendor = 4
)

// CPUOf maps a CPU's strings as spec.CPU holds them (arch
// x86_64/arm64/ppc64, vendor Intel/AMD/Zhaoxin) to NCCL's codes.
func CPUOf(arch, vendor string) (CPUArch, CPUVendor) {
	var a CPUArch
	switch arch {
	case "x86_64", "x86", "amd64":
		a = ArchX86
	case "ppc64", "ppc64le", "power":
		a = ArchPower
	case "arm64", "aarch64", "arm":
		a = ArchARM
	case "mixed":
		a = ArchMixed
	}
	var v CPUVendor
	switch vendor {
	case "Intel", "intel", "GenuineIntel":
		v = VendorIntel
	case "AMD", "amd", "AuthenticAMD":
		v = VendorAMD
	case "Zhaoxin", "zhaoxin", "CentaurHauls", "Shanghai":
		v = VendorZhaoxin
	case "mixed", "Mixed":
		v = VendorMixed
	}
	return a, v
}

// Graphs arranges the searched graphs the way init.cc hands them to
// ncclTopoTuneModel: Tree→tree, Ring→ring, CollNetDirect, CollNetChain,
// NVLS and NVLSTree→nvls, PAT→tree. A nil graph was not searched (all
// zero, as in NCCL).
func Graphs(ring, tree, collNetChain, collNetDirect, nvls *topo.Graph) [nccl.NumAlgos]*topo.Graph {
	return [nccl.NumAlgos]*topo.Graph{
		nccl.Tree: tree, nccl.Ring: ring, nccl.CollNetDirect: collNetDirect, nccl.CollNetChain: collNetChain,
		nccl.NVLS: nvls, nccl.NVLSTree: nvls, nccl.PAT: tree,
	}
}

// Input is everything ncclTopoTuneModel and the per-operation
// selection read from the communicator and the environment. The lead's gate
// engine fills it from the system, the graphs (spec/topo) and the parsed
// environment; nothing here is parsed from strings except the raw values
// NCCL itself prints or scans.
type Input struct {
	NRanks int `json:"nRanks"`
	NNodes int `json:"nNodes"`
	// MaxLocalRanks is comm->maxLocalRanks (largest GPUs per node): the
	// CollNet heads rule and the CollNet arity pruning read it.
	MaxLocalRanks int `json:"maxLocalRanks"`
	// LocalRanks is comm->localRanks of the rank being modelled (NVLS arity
	// pruning, P4').
	LocalRanks int       `json:"localRanks"`
	MinCompCap int       `json:"minCompCap"` // e.g. 90
	MaxCompCap int       `json:"maxCompCap"`
	CPUArch    CPUArch   `json:"cpuArch"`
	CPUVendor  CPUVendor `json:"cpuVendor"`

	// Graphs per algorithm (Graphs), after the cross-rank consensus
	// (min nChannels and bandwidths, max types).
	Graphs [nccl.NumAlgos]*topo.Graph `json:"graphs"`
	// MaxTreePattern is comm->maxTreePattern (max tree pattern over ranks;
	// 2.24+). Zero means "the tree graph's pattern".
	MaxTreePattern topo.Pattern `json:"maxTreePattern,omitempty"`

	// CollNetEnable is comm->config.collnetEnable (comm->collNetSupport in
	// 2.22.3) after every init gate.
	CollNetEnable bool `json:"collNetEnable"`
	// CollNetChainSupport is comm->collNetChainSupport (2.30.3+).
	CollNetChainSupport bool `json:"collNetChainSupport"`
	// CollNetHeads is comm->collNetHeadsNum.
	CollNetHeads int `json:"collNetHeads"`
	// CollNetAllGather / CollNetReduceScatter: the CollNet plugin exists and
	// has iallgather / ireducescatter.
	CollNetAllGather     bool `json:"collNetAllGather"`
	CollNetReduceScatter bool `json:"collNetReduceScatter"`
	// NVSwitch: the topology has an NVS node (ncclTopoGetNvsCount > 0).
	NVSwitch bool `json:"nvswitch"`
	// NetDeviceUnpack: the network device type is not HOST (PAT needs HOST).
	NetDeviceUnpack bool `json:"netDeviceUnpack,omitempty"`

	// Enable is the matrix NCCL_ALGO / NCCL_PROTO left (parsed by the gate
	// engine; 2.22.3's single row replicated).
	Enable EnableMatrix `json:"enable"`
	// Algo and Proto are the raw NCCL_ALGO / NCCL_PROTO values, nil when
	// unset: NCCL prints them and the 2.24+ "no algorithm" error depends on
	// whether they are set.
	Algo  *string `json:"NCCL_ALGO,omitempty"`
	Proto *string `json:"NCCL_PROTO,omitempty"`
	// Integer parameters (NCCL_PARAM, int64), nil when unset.
	NThreads      *int64 `json:"NCCL_NTHREADS,omitempty"`
	LL128NThreads *int64 `json:"NCCL_LL128_NTHREADS,omitempty"`
	NetOverhead   *int64 `json:"NCCL_NET_OVERHEAD,omitempty"`
	LL128C2C      *int64 `json:"NCCL_LL128_C2C,omitempty"`
	PATEnable     *int64 `json:"NCCL_PAT_ENABLE,omitempty"`
	// ThreadThresholds is the raw NCCL_THREAD_THRESHOLDS string (NCCL scans
	// it with sscanf "%ld %ld %ld %ld %ld %ld"), nil when unset.
	ThreadThresholds *string `json:"NCCL_THREAD_THRESHOLDS,omitempty"`
	// CUDARuntime is CUDART_VERSION of the NCCL build (12080, 13000 ...); only
	// 11080 changes anything (the sm90 LL128 exception).
	CUDARuntime int `json:"cudaRuntime"`
	// TunerConstants are a v5 tuner's init edits (2.28+).
	TunerConstants []ConstantEdit `json:"tunerConstants,omitempty"`

	// Communicator facts the per-operation path reads.
	NChannels    int `json:"nChannels"`    // comm->nChannels after ncclTopoPostset
	NVLSChannels int `json:"nvlsChannels"` // comm->nvlsChannels
	// NVLSSupport is comm->nvlsSupport after init. The model does not read
	// it (per-operation support arrives in Call.NVLSOK); it completes the
	// description of the communicator for callers computing NVLSOK.
	NVLSSupport bool `json:"nvlsSupport"`
	// CollNetDirectHeads is comm->channels[0].collnetDirect.nHeads.
	CollNetDirectHeads int `json:"collNetDirectHeads,omitempty"`
	// Tuner is the tuner plugin's per-operation behaviour, nil without one.
	Tuner *TunerBehaviour `json:"tuner,omitempty"`
	// Chunk is what calcCollChunking reads of the communicator beyond the
	// fields above (buffers, NVLS chunk and cap, CollNetDirect depth, the
	// release's chunk switches); zero: NCCL's defaults (Model.ChunkComm).
	Chunk ChunkComm `json:"chunk,omitzero"`
	// Rank is the modelled rank; only rank 0 prints the table and per-op lines.
	Rank int `json:"rank"`
	// DirectP2P is comm->isAllDirectP2p with the node's ring and tree
	// peers connected over P2P read/write: what IPC registration of user
	// buffers needs (ncclRegisterCollBuffers).
	DirectP2P bool `json:"directP2P,omitempty"`
	// RingNetGDR is comm->useGdr after the rings connected: every ring
	// connection through the network uses GPU Direct RDMA (with one rank
	// per node none goes through a PXN peer, so useNetPXN is 0).
	// MinNetCount is comm->minNetCount (2.30.7). Ring's network
	// registration of user buffers reads both (netRingChannels).
	RingNetGDR bool `json:"ringNetGdr,omitempty"`
	// CollNetGDR: every CollNet connector of the heads uses GPU Direct
	// RDMA (NCCL_DIRECT_NIC), what CollNet's registration of user buffers
	// needs from 2.24.3 (RegCollNetGDR).
	CollNetGDR  bool `json:"collNetGdr,omitempty"`
	MinNetCount int  `json:"minNetCount,omitempty"`
	// GraphRegister and LocalRegister are NCCL_GRAPH_REGISTER and
	// NCCL_LOCAL_REGISTER (NCCL_PARAM, default 1), nil when unset.
	GraphRegister *int64 `json:"NCCL_GRAPH_REGISTER,omitempty"`
	LocalRegister *int64 `json:"NCCL_LOCAL_REGISTER,omitempty"`
	// LegacyCudaRegister is NCCL_LEGACY_CUDA_REGISTER (NCCL_PARAM, default
	// 0, 2.24.3+), nil when unset. CuMem is ncclCuMemEnable()
	// (NCCL_CUMEM_ENABLE, or the driver's support when it is -2);
	// P2PUseMemcpy is NCCL_P2P_USE_CUDA_MEMCPY set non-zero.
	LegacyCudaRegister *int64 `json:"NCCL_LEGACY_CUDA_REGISTER,omitempty"`
	CuMem              bool   `json:"cuMem,omitempty"`
	P2PUseMemcpy       bool   `json:"p2pUseMemcpy,omitempty"`
	// SharedProcess: two ranks of one node run in one process (hostHash
	// and pidHash equal; comm->directMode from 2.23.4, what turns
	// nvlsRegSupport off from 2.19.1, comm->intraRanks > 1).
	// SingleProcMemReg is NCCL_SINGLE_PROC_MEM_REG_ENABLE set non-zero.
	SharedProcess    bool `json:"sharedProcess,omitempty"`
	SingleProcMemReg bool `json:"singleProcMemReg,omitempty"`
	// MLOPart is comm->hasMloPart: a rank of the communicator is an MLOPart
	// partition (2.30.7's peer info); MLOPartRDMA is
	// NCCL_MLOPART_RDMA_ENABLE set non-zero.
	MLOPart     bool `json:"mloPart,omitempty"`
	MLOPartRDMA bool `json:"mloPartRdma,omitempty"`
	// SymmetricSupport is comm->symmetricSupport: one node (or, 2.30.3+,
	// cross-clique MNNVL over an NVL domain of every rank: one LSA team),
	// direct P2P between its GPUs, NCCL_WIN_ENABLE and cuMem on.
	// CTAPolicyZero is CTA policy ZERO (NCCL_CTA_POLICY=2); CEDriver a
	// CUDA 12.5+ driver (the copy-engine collectives need it).
	SymmetricSupport bool `json:"symmetricSupport,omitempty"`
	// RMAProxySupport is the RMA proxy across nodes: comm->rmaProxySupport
	// (2.29.2–2.29.3: the net plugin's RMA object, NCCL_CROSS_NIC not 0, no
	// fused NIC) or comm->globalRmaProxySupport (2.29.7+: an RMA plugin on
	// every rank, cross-NIC, no fused NIC, cuMem GPUDirect RDMA).
	// NumRMACtx is comm->config.numRmaCtx (default 1).
	// ElasticBufferRegister is NCCL_ELASTIC_BUFFER_REGISTER (nil: unset,
	// default 1; 2.30.3+).
	// CUDADriver is the CUDA driver version (12050 for 12.5).
	CUDADriver            int    `json:"cudaDriver,omitempty"`
	RMAProxySupport       bool   `json:"rmaProxySupport,omitempty"`
	NumRMACtx             int    `json:"numRmaCtx,omitempty"`
	ElasticBufferRegister *int64 `json:"NCCL_ELASTIC_BUFFER_REGISTER,omitempty"`
	CTAPolicyZero         bool   `json:"ctaPolicyZero,omitempty"`
	CEDriver              bool   `json:"ceDriver,omitempty"`
	// CTAPolicyEfficiency is CTA policy EFFICIENCY (NCCL_CTA_POLICY=1):
	// registered AllGather/ReduceScatter may move to NVLS (G-SEL-CTAPOL-1).
	CTAPolicyEfficiency bool `json:"ctaPolicyEfficiency,omitempty"`
	// MinCTAs and MaxCTAs are comm->config.minCTAs/maxCTAs after
	// NCCL_MIN_CTAS and NCCL_MAX_CTAS (0: the defaults 1 and MAXCHANNELS).
	MinCTAs int `json:"minCTAs,omitempty"`
	MaxCTAs int `json:"maxCTAs,omitempty"`
	// SymKernel is NCCL_SYM_KERNEL (nil: unset), SymCTAs NCCL_SYM_CTAS,
	// SymNoWinEnable NCCL_SYM_NOWIN_ENABLE and SymTMAEnable
	// NCCL_SYM_TMA_ENABLE (nil: unset, default 0 where read).
	SymKernel      *string `json:"NCCL_SYM_KERNEL,omitempty"`
	SymCTAs        *int64  `json:"NCCL_SYM_CTAS,omitempty"`
	SymNoWinEnable *int64  `json:"NCCL_SYM_NOWIN_ENABLE,omitempty"`
	SymTMAEnable   *int64  `json:"NCCL_SYM_TMA_ENABLE,omitempty"`
	// NVLSHeads is nvlsResources->nHeads (the NVLS heads of a node); MNNVL
	// comm->MNNVL; CrossClique comm->p2pCrossClique (2.30.3+: ncclPrepareTasks
	// makes no symmetric task list) and NVLDomainSize comm->nvlDomainSize.
	NVLSHeads     int  `json:"nvlsHeads,omitempty"`
	MNNVL         bool `json:"mnnvl,omitempty"`
	CrossClique   bool `json:"crossClique,omitempty"`
	NVLDomainSize int  `json:"nvlDomainSize,omitempty"`
	// MinNetBw is comm->minNetBw (GB/s, multi-node communicators; the GIN
	// symmetric kernels' model). SymGinKernelsEnable is
	// NCCL_SYM_GIN_KERNELS_ENABLE and SymRsGinChunkSize
	// NCCL_SYM_RS_GIN_CHUNK_SIZE (nil: unset).
	MinNetBw            float32 `json:"minNetBw,omitempty"`
	SymGinKernelsEnable *int64  `json:"NCCL_SYM_GIN_KERNELS_ENABLE,omitempty"`
	SymRsGinChunkSize   *int64  `json:"NCCL_SYM_RS_GIN_CHUNK_SIZE,omitempty"`
	// AllDirectNVLink: every GPU pair of the node is one NVLink hop
	// (comm->isAllDirectNvlink, ncclTopoPathAllDirectNVLink on the rank's
	// own node: no NVB or C2C path).
	// SymCEThreshold is NCCL_SYM_CE_THRESHOLD, nil when unset.
	AllDirectNVLink bool   `json:"allDirectNvlink,omitempty"`
	SymCEThreshold  *int64 `json:"NCCL_SYM_CE_THRESHOLD,omitempty"`
	// AllGatherVEnable is NCCL_ALLGATHERV_ENABLE, nil when unset.
	AllGatherVEnable *int64 `json:"NCCL_ALLGATHERV_ENABLE,omitempty"`
	// AggChannelSize and WorkFifoDepth are NCCL_AGG_CHANNEL_SIZE and
	// NCCL_WORK_FIFO_DEPTH (NCCL_PARAM), nil when unset; only the
	// schedules before 2.22.3 read them.
	AggChannelSize *int64 `json:"NCCL_AGG_CHANNEL_SIZE,omitempty"`
	WorkFifoDepth  *int64 `json:"NCCL_WORK_FIFO_DEPTH,omitempty"`
	// WorkArgsBytes and WorkFifoBytes are NCCL_WORK_ARGS_BYTES and
	// NCCL_WORK_FIFO_BYTES (NCCL_PARAM), nil when unset: the kernel-plan
	// budget of 2.22.3+ (G-SCHED-BUDGET-1).
	WorkArgsBytes *int64 `json:"NCCL_WORK_ARGS_BYTES,omitempty"`
	WorkFifoBytes *int64 `json:"NCCL_WORK_FIFO_BYTES,omitempty"`
}

// symComm is the symmetric kernels' view of the communicator.
func (in *Input) symComm(maxChannels int) *symComm {
	s := &symComm{nRanks: in.NRanks, oneLsa: in.OneLSATeam(), compCap: in.MinCompCap, nvls: in.NVLSSupport,
		minCTAs: 1, maxCTAs: maxChannels, userMask: symUserMask(in.SymKernel)}
	if in.MinCTAs > 0 {
		s.minCTAs = in.MinCTAs
	}
	if in.MaxCTAs > 0 {
		s.maxCTAs = in.MaxCTAs
	}
	if in.SymCTAs != nil {
		s.symCTAs = *in.SymCTAs
	}
	return s
}

// OneLSATeam says ncclTeamLsa spans every rank: one node, or (2.30.3+)
// cross-clique MNNVL over an NVL domain that is the whole communicator.
// Without it comm->symmetricSupport needs GIN (2.29.2+), and ncclSymkMask
// keeps the GIN kernels instead of the LSA ones.
//
// Ref: v2.30.3-1 src/dev_runtime.cc computeLsaSize; src/init.cc
// initTransportsRank; src/sym_kernels.cc ncclSymkMask
func (in *Input) OneLSATeam() bool {
	return in.NNodes == 1 || in.CrossClique && in.NVLDomainSize == in.NRanks
}

// HostRMASupport is comm->hostRmaSupport (2.29.7+): symmetric support,
// and one LSA team or the RMA proxy across nodes; with numCtx (2.30.7+,
// Consts.HostRMANumCtx) also config.numRmaCtx > 0. The one-sided calls
// and the hierarchical copy-engine collectives need it.
//
// Ref: v2.29.7-1 src/init.cc initTransportsRank (v2.30.7-1 with
// config.numRmaCtx)
func (in *Input) HostRMASupport(numCtx bool) bool {
	return in.SymmetricSupport && (in.OneLSATeam() || in.RMAProxySupport) && (!numCtx || in.NumRMACtx > 0)
}

// Reason says why a bandwidth cell is 0 (or, for a restored Ring
// cell, why it is not).
type Reason struct {
	Rule nccl.RuleID `json:"rule"`
	Why  string      `json:"why"`
}

// LogLine is one line ncclTopoTuneModel prints, message part only.
type LogLine struct {
	Level  string `json:"level"`  // INFO or WARN
	Subsys string `json:"subsys"` // TUNING, ENV, INIT, GRAPH, GRAPH|ENV
	Text   string `json:"text"`
}

// Model is the communicator's model as ncclTopoTuneModel leaves it.
type Model struct {
	// Tuning holds the constants actually used (tuner edits and the POWER
	// patch applied).
	Tuning *Consts `json:"-"`
	In     Input   `json:"input"`
	// Bandwidths (GB/s, algorithm bandwidth) and Latencies (µs).
	Bandwidths [nccl.NumFuncs][nccl.NumAlgos][nccl.NumProtos]float32 `json:"bandwidths"`
	Latencies  [nccl.NumFuncs][nccl.NumAlgos][nccl.NumProtos]float32 `json:"latencies"`
	// Computed marks the cells the model wrote (others print 0.0/0.0).
	Computed [nccl.NumFuncs][nccl.NumAlgos][nccl.NumProtos]bool `json:"computed"`
	// Zeroed gives, for every cell whose bandwidth is 0, the first rule that
	// made it so; Restored marks 2.22.3 Ring cells brought back.
	Zeroed   [nccl.NumFuncs][nccl.NumAlgos][nccl.NumProtos]Reason `json:"zeroed"`
	Restored [nccl.NumFuncs][nccl.NumProtos]bool                  `json:"restored,omitempty"`
	// RingKept marks the functions whose Ring NCCL_ALGO turned off and
	// 2.18.x kept (AlgoEnabled.RingKept).
	RingKept [nccl.NumFuncs]bool `json:"-"`
	// RingBackupBw is 2.22.3's comm->ringbdw (Ring bandwidth before the
	// algorithm disables), read by the Ring backup at enqueue.
	RingBackupBw [nccl.NumFuncs][nccl.NumProtos]float32 `json:"ringBackupBw,omitempty"`
	// AlgoEnable and ProtoEnable are the final flags (support disables and
	// the LL128 rule applied).
	AlgoEnable  [nccl.NumFuncs][nccl.NumAlgos]int8                 `json:"algoEnable"`
	ProtoEnable [nccl.NumFuncs][nccl.NumAlgos][nccl.NumProtos]int8 `json:"protoEnable"`
	MaxThreads  [nccl.NumAlgos][nccl.NumProtos]int                 `json:"maxThreads"`
	// ThreadThresholds are comm->threadThresholds (zero when nRanks ≤ 1,
	// where NCCL returns before setting them).
	ThreadThresholds [nccl.NumAlgos][nccl.NumProtos]int64 `json:"threadThresholds"`
	// SingleRank is true when nRanks ≤ 1: NCCL stops after the thread counts.
	SingleRank bool `json:"singleRank,omitempty"`
	// Log holds the lines NCCL prints while building the model, in order
	// (the table and the threadThresholds line included; rank 0 only for the
	// rank-0 lines).
	Log []LogLine `json:"log"`
}

// Release rule IDs of the model (nccl-gates.md §7).
const (
	RuleImpl         nccl.RuleID = "G-TUNE-IMPL-1"
	RuleBwNVLS       nccl.RuleID = "G-TUNE-BW-1"
	RuleBwCollNet    nccl.RuleID = "G-TUNE-BW-2"
	RuleEnable       nccl.RuleID = "G-TUNE-EN-1"
	RuleProto        nccl.RuleID = "G-TUNE-PROTO-1"
	RuleRingRestore  nccl.RuleID = "G-TUNE-RINGRESTORE-1"
	RulePAT          nccl.RuleID = "G-PAT-1"
	RuleCollNetGraph nccl.RuleID = "G-COLLNET-GRAPH-1"
)

// tuningCMin and tuningCMax are std::min / std::max: (b < a) ? b : a and
// (a < b) ? b : a, which matters only for NaN.
func tuningCMin[T float32 | float64](a, b T) T {
	if b < a {
		return b
	}
	return a
}

func tuningCMax[T float32 | float64](a, b T) T {
	if a < b {
		return b
	}
	return a
}

// tuningLog2i is log2i of src/include/utils.h: floor(log2(n)), −1 for n ≤ 0.
func tuningLog2i(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return int64(bits.Len64(uint64(n))) - 1 // floor(log2 n)
}

// tuningGetNthreads is getNthreads of tuning.cc: an env value > 0 must be a
// multiple of the warp size and lies in [min, max]; else the default. The
// message (if any) is what NCCL prints.
func tuningGetNthreads(name string, env int32, min, max, def, warp int) (int, string) {
	nt := int(env)
	if nt > 0 {
		switch {
		case nt%warp != 0:
			return max, fmt.Sprintf("Invalid %s %d (must be a multiple of %d)", name, nt, warp)
		case nt > max:
			return max, fmt.Sprintf("Invalid %s %d (maximum %d).", name, nt, max)
		case nt < min:
			return min, fmt.Sprintf("Invalid %s %d (minimum %d).", name, nt, min)
		}
		return nt, ""
	}
	return def, ""
}

// tuningParam returns an NCCL_PARAM's value or its default.
func tuningParam(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}

// PATEnable is ncclPatEnable: no PAT below minCompCap (sm60 from 2.26.2);
// NCCL_PAT_ENABLE other than 2 decides; under 2 (auto) PAT needs one GPU per
// node and a HOST network device.
//
// Ref: v2.28.9-1 src/graph/tuning.cc ncclPatEnable
func PATEnable(in *Input, minCompCap int) (bool, string) {
	pat := tuningParam(in.PATEnable, 2)
	if in.MinCompCap < minCompCap {
		return false, fmt.Sprintf("minCompCap %d < %d (PAT needs sm60 atomics)", in.MinCompCap, minCompCap)
	}
	if pat != 2 {
		if pat == 0 {
			return false, "NCCL_PAT_ENABLE=0"
		}
		return true, fmt.Sprintf("NCCL_PAT_ENABLE=%d forces PAT on", pat)
	}
	if in.NNodes != in.NRanks {
		return false, fmt.Sprintf("nNodes %d != nRanks %d (PAT needs one GPU per node)", in.NNodes, in.NRanks)
	}
	if in.NetDeviceUnpack {
		return false, "the network device is not HOST (PAT does not support device offload)"
	}
	return true, "one GPU per node and a HOST network"
}

// tuningNetOverhead is getNetOverhead: NCCL_NET_OVERHEAD (ns) or the CPU's
// default, as a float.
func tuningNetOverhead(in *Input, t *Consts) float32 {
	if p := tuningParam(in.NetOverhead, -2); p != -2 {
		return float32(float64(p) * .001)
	}
	switch {
	case in.CPUArch == ArchX86 && in.CPUVendor == VendorIntel:
		return float32(t.NetOverheadIntel)
	case in.CPUArch == ArchX86 && in.CPUVendor == VendorAMD:
		return float32(t.NetOverheadAMD)
	}
	return float32(t.NetOverheadOther)
}

// tuningCompCapIndex maps the smallest compute capability to a row.
func tuningCompCapIndex(minCC int, t *Consts) CompCap {
	switch {
	case minCC >= 100 && t.NumCompCaps > int(Blackwell):
		return Blackwell
	case minCC >= 90:
		return Hopper
	case minCC >= 80:
		return Ampere
	}
	return Volta
}

// tuningNsteps is the ring step count per function.
func tuningNsteps(f nccl.Func, nRanks int) int {
	switch f {
	case nccl.AllReduce:
		return 2 * (nRanks - 1)
	case nccl.AllGather, nccl.ReduceScatter:
		return nRanks - 1
	}
	return nRanks
}

var tuningZeroGraph = topo.Graph{}

func (in *Input) graph(a nccl.Algo) *topo.Graph {
	if g := in.Graphs[a]; g != nil {
		return g
	}
	return &tuningZeroGraph
}

// validate checks the input for values NCCL could never produce.
func (in *Input) validate(t *Consts) error {
	if t == nil {
		return fmt.Errorf("tuning model: no constants: expected a release's (spec.Load(version).Tuning)")
	}
	if in.NRanks < 1 {
		return fmt.Errorf("tuning input: nRanks %d: expected at least 1", in.NRanks)
	}
	if in.NNodes < 1 || in.NNodes > in.NRanks {
		return fmt.Errorf("tuning input: nNodes %d: expected 1..nRanks (%d)", in.NNodes, in.NRanks)
	}
	if in.MinCompCap <= 0 || in.MaxCompCap < in.MinCompCap {
		return fmt.Errorf("tuning input: compute capabilities min %d max %d: expected 0 < min ≤ max, e.g. 90/90", in.MinCompCap, in.MaxCompCap)
	}
	if in.NRanks > 1 {
		for _, a := range []nccl.Algo{nccl.Ring, nccl.Tree} {
			g := in.Graphs[a]
			if g == nil || g.NChannels < 1 {
				return fmt.Errorf("tuning input: the %s graph has no channel: expected nChannels ≥ 1 (NCCL's search always returns at least one when nRanks > 1)", a)
			}
		}
	}
	for a := range nccl.NumAlgos {
		if g := in.Graphs[a]; g != nil {
			if g.NChannels < 0 || g.NChannels > t.MaxChannels {
				return fmt.Errorf("tuning input: %s graph nChannels %d: expected 0..%d (MAXCHANNELS)", nccl.Algo(a), g.NChannels, t.MaxChannels)
			}
			if g.BwIntra < 0 || g.BwInter < 0 || math.IsNaN(float64(g.BwIntra)) || math.IsNaN(float64(g.BwInter)) {
				return fmt.Errorf("tuning input: %s graph bandwidth %v/%v: expected non-negative numbers", nccl.Algo(a), g.BwIntra, g.BwInter)
			}
		}
	}
	if len(in.TunerConstants) > 0 && !t.TunerConstants {
		return fmt.Errorf("tuning input: tuner constant edits given, but this release's tuner cannot edit constants (tuner v5, NCCL 2.28+)")
	}
	if in.NChannels < 0 || in.NChannels > t.MaxChannels {
		return fmt.Errorf("tuning input: nChannels %d: expected 0..%d (MAXCHANNELS)", in.NChannels, t.MaxChannels)
	}
	if in.NVLSChannels < 0 || in.NVLSChannels > t.MaxChannels {
		return fmt.Errorf("tuning input: nvlsChannels %d: expected 0..%d (MAXCHANNELS)", in.NVLSChannels, t.MaxChannels)
	}
	return nil
}

// BuildModel runs ncclTopoTuneModel for one communicator: thread
// counts, bandwidth and latency tables per function, algorithm and protocol,
// the enable stage (with the reason for every zero), 2.22.3's Ring
// restoration, and the thread thresholds. NCCL's refusals are not errors
// here (they are zero cells with a reason); error is for input NCCL could
// not have produced.
//
// Ref: v2.28.9-1 src/graph/tuning.cc ncclTopoTuneModel (v2.22.3-1 for the
// 2.22.3 switches).
func BuildModel(in Input, t *Consts) (*Model, error) {
	if err := in.validate(t); err != nil {
		return nil, err
	}
	c := t
	if len(in.TunerConstants) > 0 {
		var err error
		if c, err = t.ApplyConstantEdits(in.TunerConstants); err != nil {
			return nil, err
		}
	} else {
		c = t.Clone()
	}
	m := &Model{Tuning: c, In: in}
	m.buildThreads()
	if in.NRanks <= 1 {
		m.SingleRank = true
		return m, nil
	}
	m.buildTables()
	m.enableStage()
	if in.Rank == 0 {
		for _, l := range m.TableLines() {
			m.Log = append(m.Log, LogLine{Level: "INFO", Subsys: "TUNING", Text: l})
		}
	}
	m.buildThresholds()
	return m, nil
}

func (m *Model) logf(level, subsys, format string, args ...any) {
	m.Log = append(m.Log, LogLine{Level: level, Subsys: subsys, Text: fmt.Sprintf(format, args...)})
}

// buildThreads sets maxThreads (the "Max NThreads" row).
func (m *Model) buildThreads() {
	c, in := m.Tuning, &m.In
	ring := in.graph(nccl.Ring)
	// float bwIntra × int nChannels (float) compared with the double PCI_BW.
	simpleDef := c.SimpleMaxNThreads
	if float64(ring.BwIntra*float32(ring.NChannels)) <= c.PCIBw {
		simpleDef = c.SimpleLowBwNThreads
	}
	nthreads := int32(tuningParam(in.NThreads, -2)) // NCCL_PARAM int64 passed as int
	ll128 := int32(tuningParam(in.LL128NThreads, -2))
	level, subsys := "INFO", "GRAPH|ENV"
	if c.NThreadsWarn {
		level, subsys = "WARN", ""
	}
	get := func(name string, env int32, min, max, def int) int {
		n, msg := tuningGetNthreads(name, env, min, max, def, c.WarpSize)
		if msg != "" {
			m.Log = append(m.Log, LogLine{Level: level, Subsys: subsys, Text: msg})
		}
		return n
	}
	m.MaxThreads[nccl.Ring][nccl.Simple] = get("NCCL_NTHREADS", nthreads, 2*c.WarpSize, c.SimpleMaxNThreads, simpleDef)
	m.MaxThreads[nccl.Tree][nccl.Simple] = get("NCCL_NTHREADS", nthreads, 2*c.WarpSize, c.SimpleMaxNThreads, c.SimpleMaxNThreads)
	for _, a := range []nccl.Algo{nccl.CollNetDirect, nccl.CollNetChain, nccl.NVLS, nccl.NVLSTree} {
		m.MaxThreads[a][nccl.Simple] = c.MaxNThreads
	}
	ll := get("NCCL_NTHREADS", nthreads, 2*c.WarpSize, c.LLMaxNThreads, c.LLMaxNThreads)
	m.MaxThreads[nccl.Ring][nccl.LL], m.MaxThreads[nccl.Tree][nccl.LL] = ll, ll
	l128 := get("NCCL_LL128_NTHREADS", ll128, c.LL128MaxNThreads/4, c.LL128MaxNThreads, c.LL128MaxNThreads)
	m.MaxThreads[nccl.Ring][nccl.LL128], m.MaxThreads[nccl.Tree][nccl.LL128] = l128, l128
}

// zero records why a cell's bandwidth is 0, keeping the first reason.
// fixedWhys are buildTables' sentences that name only a cell's algorithm
// and function, made once rather than for every model: a new machine
// builds a model, and these were a tenth of its cost.
var fixedWhys = func() (w struct {
	notModelled [nccl.NumAlgos][nccl.NumFuncs]string // "F has no A algorithm in this release"
	simpleOnly  [nccl.NumAlgos]string                // "NCCL runs A with Simple only"
	noChannel   [nccl.NumAlgos]string                // "the A graph has no channel"
}) {
	for a := range nccl.NumAlgos {
		A := nccl.Algo(a)
		for f := range nccl.NumFuncs {
			w.notModelled[a][f] = fmt.Sprintf("%s has no %s algorithm in this release", nccl.Func(f), A)
		}
		w.simpleOnly[a] = fmt.Sprintf("NCCL runs %s with Simple only", A)
		w.noChannel[a] = fmt.Sprintf("the %s graph has no channel", A)
	}
	return w
}()

func (m *Model) zero(f nccl.Func, a nccl.Algo, p nccl.Proto, rule nccl.RuleID, why string) {
	if m.Zeroed[f][a][p].Rule == "" {
		m.Zeroed[f][a][p] = Reason{Rule: rule, Why: why}
	}
}

// buildTables computes every modelled (function, algorithm, protocol) cell.
func (m *Model) buildTables() {
	c, in := m.Tuning, &m.In
	nNodes, nRanks := in.NNodes, in.NRanks
	if c.MNNVLOneNode && in.MNNVL {
		// 2.20.x: an MNNVL communicator is one NVLink node to the model
		nNodes = 1
	}
	cc := tuningCompCapIndex(in.MinCompCap, c)
	scale := Scale(nNodes - 1)
	if nNodes > 2 {
		scale = N4
	}
	llRow := cc
	if nNodes > 1 {
		llRow = Volta // row 0: Intel/other CPUs
		if in.CPUVendor == VendorAMD || (c.LLRowMixedAsAMD && in.CPUVendor == VendorMixed) {
			llRow = Ampere // row 1: AMD CPUs
		}
	}
	llMaxBw := c.LLMaxBw[llRow][scale]
	perChMaxTreeBw := c.PerChMaxTreeBw[cc][scale]
	perChMaxRingLL128Bw := c.PerChMaxRingLL128Bw[cc][scale]
	perChMaxTreeLL128Bw := c.PerChMaxTreeLL128Bw[cc][scale]
	perChMaxNVLSTreeBw := c.PerChMaxNVLSTreeBw[cc][scale]
	if in.CPUArch == ArchPower {
		// De-penalize Tree/Simple latency on POWER (a write into the constants).
		c.HwLat[HwPCI][nccl.Tree][nccl.Simple] = c.HwLat[HwPCI][nccl.Ring][nccl.Simple]
	}
	ppn := float32(nRanks) / float32(nNodes)
	ppnInt := nRanks / nNodes
	var intraHw, hw [nccl.NumAlgos]Hw
	for a := range nccl.NumAlgos {
		intraHw[a] = HwPCI
		if in.graph(nccl.Algo(a)).TypeIntra == topo.PathNVL { // compared with LINK_NVL (1 = PATH_NVL)
			intraHw[a] = HwNVLink
		}
		hw[a] = intraHw[a]
		if nNodes > 1 {
			hw[a] = HwNet
		}
	}
	patOn, patWhy := PATEnable(in, c.PATMinCompCap)
	maxTreePattern := in.MaxTreePattern
	if maxTreePattern == 0 {
		maxTreePattern = in.graph(nccl.Tree).Pattern
	}

	for _, f := range nccl.Funcs {
		for a := c.NumAlgos; a < nccl.NumAlgos; a++ {
			for p := range nccl.NumProtos {
				m.zero(f, nccl.Algo(a), nccl.Proto(p), RuleImpl, fmt.Sprintf("%s does not exist in this release", nccl.Algo(a)))
			}
		}
	}
	for _, f := range nccl.Funcs {
		nsteps := tuningNsteps(f, nRanks)
		agrs := f == nccl.AllGather || f == nccl.ReduceScatter
		for ai := range c.NumAlgos {
			a := nccl.Algo(ai)
			// G-TUNE-IMPL-1: which (function, algorithm) pairs NCCL implements.
			implemented := true
			switch {
			case (f == nccl.Broadcast || f == nccl.Reduce) && a != nccl.Ring:
				implemented = false
			case agrs && a != nccl.PAT && a != nccl.Ring && a != nccl.NVLS && a != nccl.CollNetDirect:
				implemented = false
			case agrs && a == nccl.NVLS && !c.NVLSAGRS:
				implemented = false
			case agrs && a == nccl.CollNetDirect && c.CollNetAGRS == CollNetAGRSNone:
				implemented = false
			case f == nccl.AllReduce && a == nccl.PAT:
				implemented = false
			}
			if !implemented {
				for p := range nccl.NumProtos {
					m.zero(f, a, nccl.Proto(p), RuleImpl, fixedWhys.notModelled[a][f])
				}
				continue
			}
			G := in.graph(a)
			nCh := G.NChannels
			for pi := range nccl.NumProtos {
				p := nccl.Proto(pi)
				if (a == nccl.NVLS || a == nccl.NVLSTree) && p != nccl.Simple {
					m.zero(f, a, p, RuleImpl, fixedWhys.simpleOnly[a])
					continue
				}
				if agrs && a == nccl.PAT {
					if p != nccl.Simple {
						m.zero(f, a, p, RuleImpl, "NCCL runs PAT with Simple only")
						continue
					}
					if !patOn {
						m.zero(f, a, p, RulePAT, "PAT disabled: "+patWhy)
						continue
					}
				}
				collnet := a == nccl.CollNetDirect || a == nccl.CollNetChain
				bw := G.BwInter
				if nNodes <= 2 || collnet {
					bw = G.BwIntra
				}
				if a == nccl.NVLS || a == nccl.NVLSTree {
					switch c.NVLSBw {
					case NVLSBwMin:
						if a == nccl.NVLS {
							bw = tuningCMin(G.BwIntra, G.BwInter)
						} else {
							inter := G.BwInter
							if nNodes > 2 {
								inter = G.BwInter / 2
							}
							bw = tuningCMin(G.BwIntra, inter)
						}
					case NVLSBwEfficiency:
						if nCh < 2 {
							m.zero(f, a, p, RuleBwNVLS, fmt.Sprintf("the NVLS graph has %d channel(s); %s needs at least 2", nCh, a))
							continue
						}
						intraBw := G.BwIntra * c.NVLSEfficiency[cc]
						intraBw = intraBw * float32(nCh-1)
						intraBw = intraBw / float32(nCh)
						if f == nccl.AllReduce {
							intraBw *= 2.0
						} else {
							intraBw = intraBw * ((ppn - 1) / ppn)
						}
						k := float32(1)
						if nNodes <= 2 && a == nccl.NVLSTree {
							k = 2
						}
						interBw := G.BwInter * k
						capBw := float32(math.MaxFloat32)
						if a == nccl.NVLSTree {
							capBw = float32(perChMaxNVLSTreeBw)
						}
						// std::min({a, b, c}) keeps the first smallest.
						bw = intraBw
						if interBw < bw {
							bw = interBw
						}
						if capBw < bw {
							bw = capBw
						}
					case NVLSBwGraph:
						// the graph bandwidth read above, as for Ring and Tree
					}
				}
				m.Computed[f][a][p] = true
				busBw := float32(nCh) * bw

				// Model refinements, in NCCL's order.
				if a == nccl.Ring && p == nccl.LL {
					k := c.RingLLFactor
					if c.RingLLQuarter != 0 && (nNodes > 1 || nccl.Func(f) == nccl.AllReduce || nccl.Func(f) == nccl.Reduce) {
						k = c.RingLLQuarter
					}
					busBw = float32(tuningCMin(llMaxBw, float64(busBw)*k))
				}
				if a == nccl.Ring && p == nccl.LL128 {
					k := c.RingLL128Factor
					if c.RingLL128LowPPNFactor != 0 && ppn < 2 {
						k = c.RingLL128LowPPNFactor
					}
					busBw = float32(tuningCMin(float64(busBw)*k, float64(nCh)*perChMaxRingLL128Bw))
				}
				if a == nccl.Tree && (f == nccl.AllReduce || !c.TreeCapAllReduceOnly) {
					busBw = float32(tuningCMin(float64(busBw)*c.TreeFactor, float64(nCh)*perChMaxTreeBw))
				}
				if a == nccl.Tree && p == nccl.LL {
					busBw = float32(tuningCMin(float64(busBw)*1.0/c.TreeLLDivisor, llMaxBw))
				}
				if a == nccl.Tree && p == nccl.LL128 {
					k := c.TreeLL128InterFactor
					if nNodes == 1 {
						k = c.TreeLL128IntraFactor
					}
					busBw = float32(tuningCMin(float64(busBw)*k, float64(nCh)*perChMaxTreeLL128Bw))
				}
				if a == nccl.Tree && c.TreePatternFactor != 0 {
					pattern := G.Pattern
					if c.TreePatternFromComm {
						pattern = maxTreePattern
					}
					if pattern == topo.PatternTree {
						busBw = float32(float64(busBw) * c.TreePatternFactor)
					}
				}
				if a == nccl.PAT {
					busBw = float32(float64(busBw) * c.PATFactor)
				}
				if collnet && p != nccl.Simple {
					busBw = 0
					m.zero(f, a, p, RuleImpl, fixedWhys.simpleOnly[a])
				}
				if a == nccl.CollNetDirect && p == nccl.Simple {
					if agrs {
						switch c.CollNetAGRS {
						case CollNetAGRSMin:
							busBw = ppn * tuningCMin(G.BwIntra, G.BwInter*float32(c.CollNetDirectInter))
						case CollNetAGRSInterpolated:
							busBw = ppn * bw
							if in.NNodes > 1 { // comm->nNodes, not the MNNVL one-node view
								has := in.CollNetAllGather
								if f == nccl.ReduceScatter {
									has = in.CollNetReduceScatter
								}
								if !has || ppn > float32(in.CollNetHeads) {
									busBw = 0
									m.zero(f, a, p, RuleBwCollNet, tuningCollNetAGRSWhy(f, has, fmt.Sprintf("ppn %g > %d CollNet heads", ppn, in.CollNetHeads)))
								}
							}
							w := (ppn - 1) / (8 - 1)
							k := float64(float64(w)*c.CollNetDirectPPN8) + float64(float64(1-w)*c.CollNetDirectPPN1)
							busBw = float32(float64(busBw) * k)
						}
					} else {
						// float factor = ppn / (1.0*nChannels): a double quotient
						// stored in a float; the rest is float arithmetic.
						factor := float32(float64(ppn) / (1.0 * float64(nCh))) // GPU/NIC ratio
						factor -= (factor - 1) / 2
						busBw /= factor
						if in.MinCompCap >= 90 {
							busBw = float32(float64(busBw) * c.CollNetDirectSM90)
						}
					}
				}
				if c.CollNetAGRS == CollNetAGRSMin && (a == nccl.NVLS || a == nccl.CollNetDirect) && p == nccl.Simple && agrs && nNodes > 1 {
					if f == nccl.AllGather && !in.CollNetAllGather {
						busBw = 0
						m.zero(f, a, p, RuleBwCollNet, tuningCollNetAGRSWhy(f, false, ""))
					}
					if f == nccl.ReduceScatter && !in.CollNetReduceScatter {
						busBw = 0
						m.zero(f, a, p, RuleBwCollNet, tuningCollNetAGRSWhy(f, false, ""))
					}
					nHeads := 0
					if in.CollNetEnable {
						nHeads = in.CollNetHeads
					} else {
						busBw = 0
						m.zero(f, a, p, RuleBwCollNet, fmt.Sprintf("multi-node %s %s needs CollNet, which is disabled", a, f))
					}
					if busBw > 0 && in.MaxLocalRanks > nHeads {
						busBw = 0
						m.zero(f, a, p, RuleBwCollNet, fmt.Sprintf("a node has %d local ranks > %d CollNet heads", in.MaxLocalRanks, nHeads))
					}
				}

				// Bus bandwidth to algorithm bandwidth.
				keepBus := agrs && a == nccl.CollNetDirect
				if c.AGRSRatioRingOnly {
					keepBus = agrs && a != nccl.Ring
				}
				if !keepBus {
					ratio := float32(1.0)
					switch {
					case a == nccl.Ring || (c.NVLSBw == NVLSBwEfficiency && (a == nccl.NVLS || a == nccl.NVLSTree)):
						ratio = float32(float64(ratio) * (1.0 * float64(nRanks) / float64(nsteps)))
					case a == nccl.NVLSTree && c.NVLSBw == NVLSBwGraph:
						// .70 * nNodes / (2*(nNodes-1)) in double: +Inf on one
						// node, where NVLSTree is disabled later anyway.
						ratio = float32(c.NVLSTreeRatioR18 * float64(nNodes) / float64(2*(nNodes-1)))
					case a == nccl.NVLS || a == nccl.NVLSTree:
						ratio = float32(float64(ratio) * c.NVLSRatioR22)
					default:
						ratio = float32(float64(ratio) * c.NonRingRatio)
					}
					busBw *= ratio
				}
				m.Bandwidths[f][a][p] = busBw
				if a == nccl.Ring {
					m.RingBackupBw[f][p] = busBw
				}
				if busBw == 0 {
					// A zero that no rule above explained comes from the inputs.
					rule := RuleImpl
					switch {
					case collnet:
						rule = RuleCollNetGraph
					case a == nccl.NVLS || a == nccl.NVLSTree:
						rule = RuleBwNVLS
					}
					why := fixedWhys.noChannel[a]
					if nCh > 0 {
						why = fmt.Sprintf("the model gives 0 GB/s (%s graph %d × %v/%v GB/s", a, nCh, G.BwIntra, G.BwInter)
						if a == nccl.NVLS || a == nccl.NVLSTree {
							why += fmt.Sprintf(", nvlsEfficiency %v for %s", c.NVLSEfficiency[cc], cc)
						}
						why += ")"
					}
					m.zero(f, a, p, rule, why)
				}

				// Latencies.
				lat := float32(c.BaseLat[a][p])
				intraLat := float32(c.HwLat[intraHw[a]][a][p])
				interLat := float32(c.HwLat[HwNet][a][p])
				if c.InterLatTreeAtPPN1 && ppn == 1 {
					interLat = float32(c.HwLat[HwNet][nccl.Tree][p])
				}
				interLat += G.LatencyInter
				if p == nccl.Simple {
					interLat += G.LatencyInter // flush
				}
				switch a {
				case nccl.Ring:
					l := float32(c.HwLat[hw[a]][a][p])
					if f == nccl.Reduce || f == nccl.Broadcast {
						if G.SameChannels {
							lat += l
						} else {
							if p == nccl.Simple {
								l = float32(c.HwLat[hw[a]][nccl.Tree][p])
							}
							lat += float32(nsteps) * l
						}
					} else {
						netOverhead := float32(0.0)
						if nNodes > 1 {
							netOverhead = tuningNetOverhead(in, c)
							if p == nccl.Simple {
								netOverhead = netOverhead * float32(c.NetOverheadSimple)
							}
						}
						intraLat = tuningCMax(intraLat, netOverhead)
						nInter := 0
						if nNodes > 1 {
							switch {
							case f == nccl.AllReduce && c.RingARInterStepsMinus1:
								nInter = 2 * (nNodes - 1)
							case f == nccl.AllReduce:
								nInter = 2 * nNodes
							default:
								nInter = nNodes - 1
							}
						}
						lat += float32(float32(nsteps-nInter)*intraLat) + float32(float32(nInter)*interLat)
					}
				case nccl.Tree:
					if f == nccl.AllReduce {
						lat += 2 * (float32(float32(ppnInt-1)*intraLat) + float32(float32(tuningLog2i(int64(nNodes)))*interLat))
					}
				case nccl.CollNetDirect:
					x := float64(float32(min(1, ppnInt-1))*intraLat) + float64(float64(ppnInt-1)*c.CollNetArityLat)
					lat = float32(float64(lat) + (float64(2*x) + float64(interLat)))
				case nccl.CollNetChain:
					lat += float32(float32(2*(ppnInt-1))*intraLat) + interLat
				case nccl.NVLS:
					if c.NVLSLatNetOnly {
						if nNodes > 1 {
							lat += float32(c.HwLat[HwNet][a][p])
						}
						break
					}
					lat = intraLat
					if nNodes > 1 {
						lat += interLat
					}
				case nccl.NVLSTree:
					if c.NVLSLatNetOnly {
						lat += float32(2*(nNodes-1)) * float32(c.HwLat[HwNet][a][p])
						break
					}
					lat += intraLat + float32(float32(2*tuningLog2i(int64(nNodes)))*interLat)
				case nccl.PAT:
					if agrs {
						x := float64(c.PATBaseLat+float64(float64(tuningLog2i(int64(nNodes)))*(float64(interLat)/c.PATLogLatDivisor))) + float64(float64(nRanks)*c.PATLinearLat)
						lat = float32(float64(lat) + x)
					}
				}
				m.Latencies[f][a][p] = lat
			}
		}
	}
}

func tuningCollNetAGRSWhy(f nccl.Func, has bool, other string) string {
	entry := "iallgather"
	if f == nccl.ReduceScatter {
		entry = "ireducescatter"
	}
	if !has {
		return fmt.Sprintf("multi-node %s over CollNet needs the plugin's %s", f, entry)
	}
	return fmt.Sprintf("multi-node %s over CollNet: %s", f, other)
}

// enableStage applies NCCL_ALGO / NCCL_PROTO (as parsed), the support-driven
// disables and the LL128 rule, zeroing bandwidths (never latencies).
func (m *Model) enableStage() {
	c, in := m.Tuning, &m.In
	if in.Proto != nil {
		m.logf("INFO", "ENV", "NCCL_PROTO set by environment to %s", *in.Proto)
	}
	if in.Algo != nil {
		m.logf("INFO", "ENV", "NCCL_ALGO set by environment to %s", *in.Algo)
	}
	if c.EnableMatrixPrint && in.Rank == 0 && (in.Algo != nil || in.Proto != nil) {
		m.logf("INFO", "ENV", "%s", EnableMatrixMessage(c, in.Enable))
	}
	en := c.AlgoEnable(in)
	protoEn := in.Enable.Proto
	m.AlgoEnable = en.Algo

	for fi := range nccl.NumFuncs {
		f := nccl.Func(fi)
		m.RingKept[f] = en.RingKept(f, nccl.Ring)
		for ai := range nccl.NumAlgos {
			a := nccl.Algo(ai)
			G := in.graph(a)
			for pi := range nccl.NumProtos {
				p := nccl.Proto(pi)
				pEnable := protoEn[f][p]
				why := "" // said only for a cell it disables
				if pEnable == 2 && p == nccl.LL128 {
					pEnable, why = m.ll128Auto(f, a, G)
				} else if pEnable == 0 {
					why = "NCCL_PROTO disables " + p.String()
				}
				m.ProtoEnable[f][a][p] = pEnable
				if pEnable == 0 {
					m.zero(f, a, p, RuleProto, why)
					m.Bandwidths[f][a][p] = 0
					if a == nccl.Ring && !c.RingBdwKeepsProto {
						m.RingBackupBw[f][p] = 0
					}
				}
				if en.CellsOff(f, a) {
					m.zero(f, a, p, RuleEnable, en.Why[f][a])
					m.Bandwidths[f][a][p] = 0
				}
			}
		}
	}
	if c.RingRestore {
		for _, f := range nccl.Funcs {
			available := false
			for a := range nccl.NumAlgos {
				for p := range nccl.NumProtos {
					if m.Bandwidths[f][a][p] != 0 {
						available = true
					}
				}
			}
			if available {
				continue
			}
			for p := range nccl.NumProtos {
				m.Bandwidths[f][nccl.Ring][p] = m.RingBackupBw[f][p]
				if m.RingBackupBw[f][p] != 0 {
					m.Restored[f][p] = true
					m.Zeroed[f][nccl.Ring][p] = Reason{}
				}
			}
		}
	}
	if !c.RingRestore && !c.RingBackup {
		m.RingBackupBw = [nccl.NumFuncs][nccl.NumProtos]float32{}
	}
}

// restoredCell reports whether (a, p) of f is a Ring cell the restore
// brought back: running it is not what NCCL_ALGO/NCCL_PROTO asked for.
func (m *Model) restoredCell(f nccl.Func, a nccl.Algo, p nccl.Proto) bool {
	return a == nccl.Ring && f >= 0 && f < nccl.NumFuncs && p >= 0 && p < nccl.NumProtos && m.Restored[f][p]
}

// keptCell reports whether (a, p) of f is a Ring cell 2.18.x kept although
// NCCL_ALGO turned Ring off: running it is not what NCCL_ALGO asked for.
func (m *Model) keptCell(f nccl.Func, a nccl.Algo) bool {
	return a == nccl.Ring && f >= 0 && f < nccl.NumFuncs && m.RingKept[f]
}

// ll128Auto resolves LL128's "auto" (2) for one cell: 1 or 0 and why.
func (m *Model) ll128Auto(f nccl.Func, a nccl.Algo, G *topo.Graph) (int8, string) {
	c, in := m.Tuning, &m.In
	ok := true
	var why string
	// the reason is written only for the first condition that fails
	fail := func(cond bool, reason func() string) {
		if ok && !cond {
			ok, why = false, reason()
		}
	}
	minCC, maxCC := in.MinCompCap, in.MaxCompCap
	exception := minCC == 90 && in.CUDARuntime == 11080 && f == nccl.AllReduce && a == nccl.Ring && in.NRanks == 2
	switch c.LL128Rule {
	case LL128R22, LL128R18, LL128R25:
		fail(G.TypeInter <= topo.PathPXB || (minCC >= 90 && G.TypeInter <= topo.PathPXN), func() string {
			return fmt.Sprintf("LL128 auto: %s graph typeInter %s is beyond PXB (PXN on sm90)", a, G.TypeInter)
		})
		intraMax := topo.PathNVB
		if c.LL128Rule == LL128R18 {
			intraMax = topo.PathNVL
		}
		fail(G.TypeIntra <= intraMax, func() string {
			return fmt.Sprintf("LL128 auto: %s graph typeIntra %s is beyond %s", a, G.TypeIntra, intraMax)
		})
		fail(minCC == maxCC, func() string { return fmt.Sprintf("LL128 auto: mixed compute capabilities %d/%d", minCC, maxCC) })
		switch {
		case minCC == 70 || minCC == 80:
		case minCC == 90:
			fail(!exception, func() string { return "LL128 auto: CUDA 11.8 sm90 Ring AllReduce on 2 ranks" })
		case c.LL128Rule == LL128R25 && (minCC == 100 || minCC == 120):
		case c.LL128Rule == LL128R25:
			fail(false, func() string {
				return fmt.Sprintf("LL128 auto: compute capability %d is not 70, 80, 90, 100 or 120", minCC)
			})
		default:
			fail(false, func() string { return fmt.Sprintf("LL128 auto: compute capability %d is not 70, 80 or 90", minCC) })
		}
	default:
		c2c := tuningParam(in.LL128C2C, 1)
		if c.LL128Rule == LL128C2CPXN {
			ok := G.TypeInter <= topo.PathPXB || (minCC >= 90 && (G.TypeInter == topo.PathPXN || c2c != 0 && G.TypeInter == topo.PathP2C))
			fail(ok, func() string {
				return fmt.Sprintf("LL128 auto: %s graph typeInter %s is beyond PXB (sm90: PXN, P2C with NCCL_LL128_C2C)", a, G.TypeInter)
			})
		} else if c2c != 0 && minCC >= 90 {
			fail(G.TypeInter <= topo.PathPXN, func() string { return fmt.Sprintf("LL128 auto: %s graph typeInter %s is beyond PXN", a, G.TypeInter) })
		} else {
			fail(G.TypeInter <= topo.PathPXB, func() string { return fmt.Sprintf("LL128 auto: %s graph typeInter %s is beyond PXB", a, G.TypeInter) })
			if c2c == 0 && minCC >= 90 {
				m.logf("INFO", "GRAPH", "Disabling LL128 over all PxN connections (PXB and C2C). This ensures that no C2C link will be used by LL128.")
			}
		}
		fail(G.TypeIntra <= topo.PathNVB, func() string { return fmt.Sprintf("LL128 auto: %s graph typeIntra %s is beyond NVB", a, G.TypeIntra) })
		if c.LL128Rule == LL128C2CMixed {
			fail(minCC == maxCC || minCC >= 90, func() string {
				return fmt.Sprintf("LL128 auto: mixed compute capabilities %d/%d below sm90", minCC, maxCC)
			})
		} else {
			fail(minCC == maxCC, func() string { return fmt.Sprintf("LL128 auto: mixed compute capabilities %d/%d", minCC, maxCC) })
		}
		fail(!(minCC < 70 || exception), func() string {
			return fmt.Sprintf("LL128 auto: compute capability %d below 70, or the CUDA 11.8 sm90 2-rank Ring AllReduce exception", minCC)
		})
	}
	if ok {
		return 1, ""
	}
	return 0, why
}

// buildThresholds sets threadThresholds (NCCL_THREAD_THRESHOLDS applied to
// Tree and Ring) and logs the "threadThresholds" line.
func (m *Model) buildThresholds() {
	c, in := m.Tuning, &m.In
	for a := range nccl.NumAlgos {
		m.ThreadThresholds[a][nccl.LL] = c.LLThreadThreshold
		m.ThreadThresholds[a][nccl.LL128] = c.LL128ThreadThreshold
		m.ThreadThresholds[a][nccl.Simple] = c.SimpleThreadThreshold
	}
	m.ThreadThresholds[nccl.Ring][nccl.LL] *= int64(in.NRanks)
	m.ThreadThresholds[nccl.CollNetDirect][nccl.Simple] = c.CollNetThreadThreshold
	m.ThreadThresholds[nccl.CollNetChain][nccl.Simple] = c.CollNetThreadThreshold
	if in.ThreadThresholds != nil {
		m.logf("INFO", "ENV", "NCCL_THREAD_THRESHOLDS set by environment to %s", *in.ThreadThresholds)
		v := ParseThreadThresholds(*in.ThreadThresholds)
		for a := range 2 {
			for p := range nccl.NumProtos {
				if v[a][p] >= 0 {
					m.ThreadThresholds[a][p] = v[a][p]
				}
			}
		}
	}
	m.Log = append(m.Log, LogLine{Level: "INFO", Subsys: "INIT", Text: m.ThreadThresholdsLine()})
}

// Zero is one cell whose bandwidth the model left at 0, and why.
type Zero struct {
	Func  nccl.Func   `json:"func"`
	Algo  nccl.Algo   `json:"algo"`
	Proto nccl.Proto  `json:"proto"`
	Rule  nccl.RuleID `json:"rule"`
	Why   string      `json:"why"`
}

// Zeros lists every zero-bandwidth cell of the release's algorithms in
// NCCL's (function, algorithm, protocol) order with the rule that zeroed
// it: what the gate engine turns into model-level verdicts (a 0.0 cell is
// the log's evidence for G-TUNE-IMPL-1, -BW-1, -BW-2, -EN-1, -PROTO-1 and
// G-PAT-1). 2.22.3's restored Ring cells are not zero; Restored marks them.
func (m *Model) Zeros() []Zero {
	var out []Zero
	for _, f := range nccl.Funcs {
		for a := 0; a < m.Tuning.NumAlgos; a++ {
			for p := range nccl.NumProtos {
				if m.Bandwidths[f][a][p] == 0 {
					z := m.Zeroed[f][a][p]
					out = append(out, Zero{Func: f, Algo: nccl.Algo(a), Proto: nccl.Proto(p), Rule: z.Rule, Why: z.Why})
				}
			}
		}
	}
	return out
}
