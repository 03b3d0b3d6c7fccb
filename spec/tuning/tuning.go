package tuning

// NCCL's tuning model, part 1: the versioned constants and behaviour switches.
//
// A Consts value holds every constant table of src/graph/tuning.cc (the
// ncclTunerConstants of 2.24+, the static arrays of 2.22.3), the literal
// factors of ncclTopoTuneModel / ncclTopoGetAlgoTime, the thread and channel
// constants of src/include/device.h and comm.h, and one switch per behaviour
// that differs between releases. Releases are built as a base plus deltas:
// Base2_22_3, then one delta per release (spec's release files, through
// Set). Every delta line is a one-cell change that records its path, old
// and new value and the NCCL source reference, so "what changed in the
// tuning model between 2.22.3 and 2.28.9" is data (Diff, and the
// "tuning." changes of spec.Load's Ruleset.Changes).
//
// The model code (model.go, select.go, sched.go) reads the switches; it
// never compares versions.

import "github.com/gatesim/gatesim/nccl"
import "fmt"

// Hw is the hardware class of the latency tables (NCCL_HW_NVLINK,
// NCCL_HW_PCI, NCCL_HW_NET of src/include/plugin/nccl_tuner.h).
type Hw int

const (
	HwNVLink Hw = iota
	HwPCI
	HwNet
	NumHw = 3
)

var tuningHwNames = [NumHw]string{"NVLINK", "PCI", "NET"}

func (h Hw) String() string { return tuningEnumName(tuningHwNames[:], int(h), "Hw") }

// CompCap is the compute-capability row of the bandwidth caps
// (NCCL_VOLTA_COMPCAP_IDX … NCCL_BLACKWELL_COMPCAP_IDX). 2.22.3 has no
// Blackwell row: sm100 uses the Hopper row there (Consts.NumCompCaps = 3).
type CompCap int

const (
	Volta CompCap = iota
	Ampere
	Hopper
	Blackwell
	NumCompCaps = 4
)

var tuningCCNames = [NumCompCaps]string{"Volta", "Ampere", "Hopper", "Blackwell"}

func (c CompCap) String() string {
	return tuningEnumName(tuningCCNames[:], int(c), "CompCap")
}

// Scale is the node-count column of the bandwidth caps: one node, two
// nodes, four or more (index2 of ncclTopoTuneModel). For the LL cap of a
// multi-node communicator the row is the CPU vendor instead (see LLMaxBw).
type Scale int

const (
	N1 Scale = iota
	N2
	N4
	NumScales = 3
)

var tuningScaleNames = [NumScales]string{"N1", "N2", "N4"}

func (s Scale) String() string {
	return tuningEnumName(tuningScaleNames[:], int(s), "Scale")
}

// TreeCorrections is the length of the largest tree correction table
// (24 entries in 2.30.7; 23 before, the 24th cell is then 0 and never read).
const TreeCorrections = 24

// tuningEnumName prints an enum value by its name, or Type(n) out of range.
func tuningEnumName(names []string, i int, typ string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", typ, i)
}

// NVLSBw selects the NVLS / NVLSTree bandwidth formula of
// ncclTopoTuneModel.
type NVLSBw int

const (
	// NVLSBwMin (2.22.3): bw = min(bwIntra, bwInter) (NVLSTree: bwInter/2
	// beyond two nodes), algorithm bandwidth ×5/6, computed even with 0 channels.
	NVLSBwMin NVLSBw = iota
	// NVLSBwEfficiency (2.28.3+): bwIntra × nvlsEfficiency × (nCh−1)/nCh,
	// ×2 for AllReduce else ×(ppn−1)/ppn, capped by bwInter (×2 for NVLSTree on
	// ≤ 2 nodes) and perChMaxNVLSTreeBw; skipped below 2 channels; ratio
	// nRanks/nsteps.
	NVLSBwEfficiency
	// NVLSBwGraph (2.18.x): the graph bandwidth every algorithm reads
	// (bwIntra up to two nodes, else bwInter); algorithm bandwidth ×
	// NVLSRatioR22 for NVLS and × NVLSTreeRatioR18·nNodes/(2(nNodes−1)) for
	// NVLSTree.
	NVLSBwGraph
)

func (m NVLSBw) String() string {
	return tuningEnumName([]string{"min-intra-inter", "efficiency", "graph"}, int(m), "NVLSBw")
}

// CollNetAGRS selects the CollNetDirect AllGather/ReduceScatter formula.
type CollNetAGRS int

const (
	// CollNetAGRSInterpolated (2.22.3): ppn × bwIntra × (w×0.85 + (1−w)×0.95),
	// w = (ppn−1)/7; 0 on several nodes if the plugin lacks iallgather /
	// ireducescatter or ppn > CollNet heads.
	CollNetAGRSInterpolated CollNetAGRS = iota
	// CollNetAGRSMin (2.27.3+): ppn × min(bwIntra, 0.9 × bwInter); the
	// multi-node checks are the common NVLS+CollNetDirect rule (G-TUNE-BW-2).
	CollNetAGRSMin
	// CollNetAGRSNone (before 2.20.3): CollNetDirect serves AllReduce
	// only; its AllGather and ReduceScatter cells are not modelled
	// (ncclTopoTuneModel skips them like Tree's).
	CollNetAGRSNone
)

func (m CollNetAGRS) String() string {
	return tuningEnumName([]string{"interpolated", "min-intra-inter", "none"}, int(m), "CollNetAGRS")
}

// RegNVLS selects how many channels an NVLS or NVLSTree task runs on once
// NVLS registered its user buffers (ncclCommRegister'ed, or captured into
// a CUDA graph): "4/5 channels saturate the bandwidth".
type RegNVLS int

const (
	// RegNVLSNodes (2.20.3–2.24.3): one node 5 for ReduceScatter, else 4;
	// several nodes 6; within the config's CTA bounds.
	RegNVLSNodes RegNVLS = iota
	// RegNVLSCompCap (2.25.1–2.26.x): as RegNVLSNodes, and on sm100+ one
	// node 6 for ReduceScatter, else 8; several nodes 7.
	RegNVLSCompCap
	// RegNVLSHeads (2.27.3+): ncclNvlsRegResourcesQuery, a per-function
	// block count over the node's NVLS heads, within the CTA bounds.
	RegNVLSHeads
	// RegNVLSPool (2.19.3–2.19.4): 5 for ReduceScatter, else 4, at most
	// nvlsChannels, on any number of nodes.
	RegNVLSPool
	// RegNVLSCTAs (2.19.1): 5 for ReduceScatter, else 4, within the CTA
	// bounds, on any number of nodes.
	RegNVLSCTAs
	// RegNVLSNone (2.18.x): NCCL registers no NVLS buffer.
	RegNVLSNone
)

func (m RegNVLS) String() string {
	return tuningEnumName([]string{"nodes", "compcap", "heads", "nvls-channels", "ctas", "none"}, int(m), "RegNVLS")
}

// RegCollNet selects what CollNet's registration of user buffers does to a
// CollNetDirect or CollNetChain task: only on a communicator of one rank
// per node (collNetRegSupport, isOneRPN) it runs on one channel.
type RegCollNet int

const (
	// RegCollNetCTAs (2.21.5–2.22.3): one channel within the config's CTA
	// bounds (registerIntraNodeBuffers).
	RegCollNetCTAs RegCollNet = iota
	// RegCollNetOne (2.23.4+): one channel (2.23.4 registerCollBuffers,
	// from 2.24.3 ncclRegisterCollBuffers).
	RegCollNetOne
	// RegCollNetNone (before 2.21.5): CollNet buffers are not registered.
	RegCollNetNone
)

func (m RegCollNet) String() string {
	return tuningEnumName([]string{"ctas", "one", "none"}, int(m), "RegCollNet")
}

// RegCollNetRanks selects which CollNetDirect tasks the CollNet plugin
// registers on a communicator of several ranks per node (not isOneRPN),
// where the task keeps its channels: only with one rank per node does a
// registered task run on one channel (RegCollNet).
type RegCollNetRanks int

const (
	// RegCollNetRanksNone (2.21.5–2.23.4): collNetRegSupport is
	// isOneRPN; nothing is registered with several ranks per node.
	RegCollNetRanksNone RegCollNetRanks = iota
	// RegCollNetRanksAGRS (2.24.3–2.28.9): an AllGather or a ReduceScatter
	// (both buffers registered), never an AllReduce.
	RegCollNetRanksAGRS
	// RegCollNetRanksAG (2.29.2+): an AllGather (its send buffer is
	// enough); ReduceScatter and AllReduce need one rank per node.
	RegCollNetRanksAG
)

func (m RegCollNetRanks) String() string {
	return tuningEnumName([]string{"none", "allgather-reducescatter", "allgather"}, int(m), "RegCollNetRanks")
}

// RegCollNetIPC selects which CollNetDirect tasks NCCL registers over IPC
// with the node's peers (the up and down ranks of the first channel that
// connect over P2P), beside CollNet's own registration of the network
// side (G-REG-COLLNET-IPC-1). The kernel then reads and writes the
// peers' user buffers directly (regUsed); the channels do not change.
type RegCollNetIPC int

const (
	// RegCollNetIPCNone (before 2.23.4): registerIntraNodeBuffers keeps
	// its CollNetDirect IPC branch switched off.
	RegCollNetIPCNone RegCollNetIPC = iota
	// RegCollNetIPCNotRS (2.23.4–2.28.9): any function but ReduceScatter,
	// both buffers (the send buffer first, the receive buffer only once
	// it succeeded).
	RegCollNetIPCNotRS
	// RegCollNetIPCAG (2.29.2+): an AllGather alone, on its receive
	// buffer.
	RegCollNetIPCAG
)

func (m RegCollNetIPC) String() string {
	return tuningEnumName([]string{"none", "not-reducescatter", "allgather"}, int(m), "RegCollNetIPC")
}

// RegNetRing selects what the network registration of user buffers does
// to a Ring task on Simple (ncclRegisterCollBuffers): on a communicator of
// one rank per node whose ring connections use GPU Direct RDMA, an
// AllGather or a Broadcast runs on fewer channels.
type RegNetRing int

const (
	// RegNetRingNone (before 2.24.3): Ring's network peers are not
	// registered.
	RegNetRingNone RegNetRing = iota
	// RegNetRingOne (2.24.3–2.30.3): one channel.
	RegNetRingOne
	// RegNetRingNICs (2.30.7+): comm->minNetCount channels (the NICs a
	// rank takes to match its GPU's bandwidth), within the config's CTA
	// bounds.
	RegNetRingNICs
)

func (m RegNetRing) String() string {
	return tuningEnumName([]string{"none", "one", "nics"}, int(m), "RegNetRing")
}

// RegWindowRecord selects when ncclCommWindowRegister leaves the
// registration record ncclRegFind reads (the one ncclCommRegister keeps),
// so that a window buffer whose operation the cost table decides registers
// and counts for regBuff as a ncclCommRegister'ed one (G-REG-IPC-1).
type RegWindowRecord int

const (
	// RegWindowRecordNone (before 2.27.3): no windows.
	RegWindowRecordNone RegWindowRecord = iota
	// RegWindowRecordCuMem (2.27.x): ncclRegister of the window's
	// allocation, under NCCL_LOCAL_REGISTER with NCCL's cuMem on.
	RegWindowRecordCuMem
	// RegWindowRecordAll (2.28.x): ncclCommRegister for every window,
	// with or without symmetric support.
	RegWindowRecordAll
	// RegWindowRecordSymmetric (2.29.2+): ncclCommRegister only on a
	// communicator with symmetric support; without, no window is made.
	RegWindowRecordSymmetric
)

func (m RegWindowRecord) String() string {
	return tuningEnumName([]string{"none", "cumem", "all", "symmetric"}, int(m), "RegWindowRecord")
}

// LL128Rule selects the LL128 "auto" rule (G-TUNE-PROTO-1).
type LL128Rule int

const (
	// LL128R22 (2.22.3): typeInter ≤ PXB (or ≤ PXN on sm90+), typeIntra ≤ NVB,
	// equal compute capabilities, and the capability is exactly 70, 80 or 90.
	LL128R22 LL128Rule = iota
	// LL128C2C (2.27.3+): NCCL_LL128_C2C (default 1) on sm90+ allows typeInter
	// ≤ PXN, else ≤ PXB; typeIntra ≤ NVB; equal capabilities; capability ≥ 70.
	LL128C2C
	// LL128C2CMixed (2.30.3+): as LL128C2C, but different capabilities
	// are allowed when the smallest is ≥ 90.
	LL128C2CMixed
	// LL128R18 (2.18.1): as LL128R22 with typeIntra ≤ NVL (2.18.3 relaxed
	// it to NVB).
	LL128R18
	// LL128R25 (2.25.1–2.26.6): as LL128R22, and the capability may also be
	// 100 or 120 (Blackwell).
	LL128R25
	// LL128C2CPXN (2.27.3): as LL128C2C, but 2.27.3 numbers PATH_P2C above
	// PATH_PXN and bounds typeInter on sm90+ by P2C with NCCL_LL128_C2C and
	// by PXN without it: PXN is allowed either way, P2C only with it.
	LL128C2CPXN
)

func (m LL128Rule) String() string {
	return tuningEnumName([]string{"r22", "c2c", "c2c-mixed-hopper", "r18", "r25", "c2c-pxn"}, int(m), "LL128Rule")
}

// NVLSPrune selects the per-operation NVLS pruning rule of
// updateCollCostTable (G-SEL-PRUNE-1 P4 / P4').
type NVLSPrune int

const (
	// NVLSPruneR22 (P4, 2.22–2.26): NVLS/NVLSTree need nvlsSupport, except
	// AllGather, which falls through to the bandwidth.
	NVLSPruneR22 NVLSPrune = iota
	// NVLSPruneArity (P4', 2.27.3+): NVLS/NVLSTree need nvlsSupport, and a
	// function other than AllReduce needs localRanks ≤ NCCL_MAX_NVLS_ARITY.
	NVLSPruneArity
	// NVLSPruneR20 (P4, 2.20.3–2.21.5): NVLS/NVLSTree need nvlsSupport,
	// AllGather included (topoGetAlgoInfo has no AllGather exemption).
	NVLSPruneR20
)

func (m NVLSPrune) String() string {
	return tuningEnumName([]string{"p4", "p4-arity", "p4-r20"}, int(m), "NVLSPrune")
}

// NoAlgo selects what happens when no cost-table cell is usable.
type NoAlgo int

const (
	// NoAlgoR22 (≤ 2.23.4): the Ring backup is used (RingBackup); without
	// one, WARN "Error : no algorithm/protocol available" and ncclInternalError.
	NoAlgoR22 NoAlgo = iota
	// NoAlgoR24 (2.24.3–2.29): WARN "Error : no algorithm/protocol available
	// for function %s with datatype %s.%s%s"; ncclInvalidUsage if NCCL_ALGO or
	// NCCL_PROTO is set, else ncclInternalError.
	NoAlgoR24
	// NoAlgoR30 (2.30.3+): as R24 with the text "No algorithm/protocol
	// available for function …".
	NoAlgoR30
)

func (m NoAlgo) String() string {
	return tuningEnumName([]string{"r22-backup", "r24-error", "r30-error"}, int(m), "NoAlgo")
}

// OpLine selects the per-operation [TUNING] line NCCL prints on rank 0.
type OpLine int

const (
	// OpLineR22 (≤ 2.23.3): "%ld Bytes -> Algo %d proto %d time %f", printed
	// by topoGetAlgoInfo once per aggregate with the tuning size.
	OpLineR22 OpLine = iota
	// OpLineR23 (2.23.4): as R22 with a "%s: " function prefix.
	OpLineR23
	// OpLineR24 (2.24.3+): "%s: %ld Bytes -> Algo %s proto %s
	// channel{Lo..Hi}={%d..%d}", printed by scheduleCollTasksToPlan per task
	// with the task's own byte count.
	OpLineR24
	// OpLineTrace (before 2.20.3): the "%ld Bytes -> Algo %d proto %d
	// time %f" line is TRACE only (its INFO is commented out in
	// topoGetAlgoInfo), so nothing is printed at NCCL_DEBUG=INFO.
	OpLineTrace
)

func (m OpLine) String() string {
	return tuningEnumName([]string{"r22-time", "r23-func-time", "r24-channels", "trace-only"}, int(m), "OpLine")
}

// Schedule selects how an operation's channels and threads are counted
// and how the tasks of a group are aggregated and spread over channels.
type Schedule int

const (
	// ScheduleR22 (2.22.3+): ncclPrepareTasks bins and aggregates tasks
	// within 4× of each other; scheduleCollTasksToPlan spreads each task's
	// traffic over its kind's channels (CBDPart).
	ScheduleR22 Schedule = iota
	// ScheduleR20 (2.20.3–2.21.5): the queue is sorted by function,
	// datatype, reduction and count, and every run of one function,
	// reduction and datatype is one aggregate decided with numPipeOps 1;
	// getChannnelThreadInfo counts each task's channels from collChannels;
	// the plain tasks are cut at maxBytesPerChannel over the usable
	// channels, CollNet tasks take channels 0..n-1 and a tuner-set task
	// the least loaded.
	ScheduleR20
	// ScheduleR18 (2.18.1–2.19.4): consecutive calls of one function,
	// reduction and datatype are aggregated; the aggregate starts its
	// channel loop from the channels its members want at
	// NCCL_AGG_CHANNEL_SIZE each and scales its bandwidth by them;
	// every task runs on its nChannels least loaded channels, each
	// walking the whole buffer.
	ScheduleR18
)

func (m Schedule) String() string {
	return tuningEnumName([]string{"r22-traffic", "r20-maxbytes", "r18-least-loaded"}, int(m), "Schedule")
}

// Consts is one release's tuning constants and behaviour switches. spec
// builds it per release (Base2_22_3 and the release files' deltas; its
// spec.Load(v).Tuning); a tuner
// plugin's constant edits are applied on a copy with SetPath. Constants keep
// the C literal as a float64 (the tuner ABI passes them as doubles); the
// model converts to float32 where NCCL does.
type Consts struct {
	// NumAlgos is NCCL_NUM_ALGORITHMS: 6 before PAT (2.22.3), 7 from 2.23.4.
	NumAlgos int `tuning:"numAlgorithms"`
	// NumCompCaps is the number of compute-capability rows: 3 in 2.22.3 (sm100
	// falls back to Hopper), 4 from 2.25.
	NumCompCaps int `tuning:"numCompCaps"`

	// BaseLat is baseLatencies (µs) per algorithm and protocol.
	BaseLat [nccl.NumAlgos][nccl.NumProtos]float64 `tuning:"baseLatencies,algo,proto"`
	// HwLat is hwLatencies (µs per step) per hardware class.
	HwLat [NumHw][nccl.NumAlgos][nccl.NumProtos]float64 `tuning:"hwLatencies,hw,algo,proto"`
	// LLMaxBw is llMaxBws (GB/s). Row: the compute capability on one node; on
	// several nodes row 0 (Intel/other CPU) or 1 (AMD CPU). Column: the scale.
	LLMaxBw [NumCompCaps][NumScales]float64 `tuning:"llMaxBws,cc,scale"`
	// PerChMaxRingLL128Bw is perChMaxRingLL128Bws (GB/s per channel).
	PerChMaxRingLL128Bw [NumCompCaps][NumScales]float64 `tuning:"perChMaxRingLL128Bws,cc,scale"`
	// PerChMaxTreeLL128Bw is perChMaxTreeLL128Bws (GB/s per channel).
	PerChMaxTreeLL128Bw [NumCompCaps][NumScales]float64 `tuning:"perChMaxTreeLL128Bws,cc,scale"`
	// PerChMaxTreeBw is perChMaxTreeBws (GB/s per channel).
	PerChMaxTreeBw [NumCompCaps][NumScales]float64 `tuning:"perChMaxTreeBws,cc,scale"`
	// PerChMaxNVLSTreeBw is perChMaxNVLSTreeBws (GB/s per channel; 2.28.3+).
	PerChMaxNVLSTreeBw [NumCompCaps][NumScales]float64 `tuning:"perChMaxNVLSTreeBws,cc,scale"`
	// NVLSEfficiency is nvlsEfficiency per compute capability (2.28.3+, a float
	// array in tuning.cc, not part of the tuner constants).
	NVLSEfficiency [NumCompCaps]float32 `tuning:"nvlsEfficiency,cc"`
	// TreeCorrection is treeCorrectionFactor, indexed by log2(nBytes/64).
	TreeCorrection [nccl.NumProtos][TreeCorrections]float32 `tuning:"treeCorrectionFactor,proto,n"`
	// TreeCorrectionLen is how many entries Tree AllReduce reads (23).
	TreeCorrectionLen int `tuning:"treeCorrectionLen"`
	// TreeCorrectionAllReduceOnly limits the Tree correction to AllReduce
	// (2.24+); 2.22.3 applies it to every function (only AllReduce has a
	// Tree bandwidth, so the two agree unless a tuner writes Tree cells).
	TreeCorrectionAllReduceOnly bool `tuning:"treeCorrectionAllReduceOnly"`
	// NVLSTreeCorrection (2.30.3+) also applies the table to NVLSTree AllReduce
	// on sm100 x86 systems, over all TreeCorrections entries.
	NVLSTreeCorrection bool `tuning:"nvlsTreeCorrection"`

	// NetOverhead* are getNetOverhead's defaults (µs) when NCCL_NET_OVERHEAD is
	// unset: x86 Intel, x86 AMD, anything else.
	NetOverheadIntel float64 `tuning:"netOverheadIntel"`
	NetOverheadAMD   float64 `tuning:"netOverheadAMD"`
	NetOverheadOther float64 `tuning:"netOverheadOther"`

	// Literal factors of ncclTopoTuneModel and ncclTopoGetAlgoTime (double
	// literals in C).
	RingLLFactor          float64 `tuning:"factor.ringLL"`               // Ring/LL busBw × 0.5
	RingLL128Factor       float64 `tuning:"factor.ringLL128"`            // Ring/LL128 × 0.92
	RingLLQuarter         float64 `tuning:"factor.ringLLQuarter"`        // before 2.21.5: Ring/LL × 1/4 on several nodes or for AllReduce/Reduce, else × ringLL (1/3); 0: no such rule
	RingLL128LowPPNFactor float64 `tuning:"factor.ringLL128LowPPN"`      // 2.22.3: × 0.7 when ppn < 2 (0: no such rule)
	TreeFactor            float64 `tuning:"factor.tree"`                 // Tree × 0.92 (capped by perChMaxTreeBw)
	TreeLLDivisor         float64 `tuning:"factor.treeLLDivisor"`        // Tree/LL busBw / 3.8
	TreeLL128IntraFactor  float64 `tuning:"factor.treeLL128Intra"`       // Tree/LL128 × 7/9 on one node
	TreeLL128InterFactor  float64 `tuning:"factor.treeLL128Inter"`       // Tree/LL128 × 120/128 on several nodes
	TreePatternFactor     float64 `tuning:"factor.treePattern"`          // Tree × 0.85 for the TREE pattern (0: no such rule, 2.18.1)
	PATFactor             float64 `tuning:"factor.pat"`                  // PAT × 0.75
	CollNetDirectSM90     float64 `tuning:"factor.collNetDirectSM90"`    // CollNetDirect × 0.85 on sm90+
	CollNetDirectInter    float64 `tuning:"factor.collNetDirectInter"`   // AG/RS bwInter × 0.9 (2.27.3+)
	CollNetDirectPPN1     float64 `tuning:"factor.collNetDirectPPN1"`    // 2.22.3 AG/RS interpolation at 1 ppn (0.95)
	CollNetDirectPPN8     float64 `tuning:"factor.collNetDirectPPN8"`    // 2.22.3 AG/RS interpolation at 8 ppn (0.85)
	NVLSRatioR22          float64 `tuning:"factor.nvlsRatioR22"`         // 2.22.3 NVLS algorithm bandwidth × 5/6
	NVLSTreeRatioR18      float64 `tuning:"factor.nvlsTreeRatioR18"`     // 2.18.x NVLSTree algorithm bandwidth × 0.70·nNodes/(2(nNodes−1)) (read with NVLSBw graph)
	NonRingRatio          float64 `tuning:"factor.nonRingRatio"`         // Tree/CollNet algorithm bandwidth × 0.5
	CollNetArityLat       float64 `tuning:"factor.collNetArityLatency"`  // CollNetDirect 0.4 µs per extra local rank
	PATLogLatDivisor      float64 `tuning:"factor.patLogLatencyDivisor"` // PAT interLat / 3.5
	PATLinearLat          float64 `tuning:"factor.patLinearLatency"`     // PAT nRanks × 2.8 µs
	PATBaseLat            float64 `tuning:"factor.patBaseLatency"`       // PAT's 8 µs written in the formula (2.23.4–2.27.7; from 2.28.3 baseLatencies[PAT])
	NetOverheadSimple     float64 `tuning:"factor.netOverheadSimple"`    // ring net overhead × 3 for Simple
	RingPlateau           float64 `tuning:"factor.ringPlateau"`          // ring Simple latency × 1.4 (sm80+)
	RingPlateauPreAmpere  float64 `tuning:"factor.ringPlateauPreAmpere"` // × 1.9 below sm80
	FP8RingPenalty        float64 `tuning:"factor.fp8RingPenalty"`       // fp8 Ring time × 1024 (2.24.3+)

	// Thread and channel constants (src/include/device.h, comm.h, graph/topo.h).
	WarpSize               int     `tuning:"WARP_SIZE"`
	MaxNThreads            int     `tuning:"NCCL_MAX_NTHREADS"`
	SimpleMaxNThreads      int     `tuning:"NCCL_SIMPLE_MAX_NTHREADS"`
	LLMaxNThreads          int     `tuning:"NCCL_LL_MAX_NTHREADS"`
	LL128MaxNThreads       int     `tuning:"NCCL_LL128_MAX_NTHREADS"`
	SimpleLowBwNThreads    int     `tuning:"simpleLowBwThreads"` // Ring/Simple default when ring bw ≤ PCI_BW (256)
	LLThreadThreshold      int64   `tuning:"NCCL_LL_THREAD_THRESHOLD"`
	LL128ThreadThreshold   int64   `tuning:"NCCL_LL128_THREAD_THRESHOLD"`
	SimpleThreadThreshold  int64   `tuning:"NCCL_SIMPLE_THREAD_THRESHOLD"`
	CollNetThreadThreshold int64   `tuning:"collNetThreadThreshold"` // CollNet Simple threshold (512)
	PCIBw                  float64 `tuning:"PCI_BW"`
	MaxChannels            int     `tuning:"MAXCHANNELS"`
	MaxDevWorkBatchColls   int     `tuning:"NCCL_MAX_DEV_WORK_BATCH_COLLS"`
	MaxDirectArity         int     `tuning:"NCCL_MAX_DIRECT_ARITY"`
	MaxNVLSArity           int     `tuning:"NCCL_MAX_NVLS_ARITY"`
	CollNetDirectSwitch    int     `tuning:"collNetDirectChannelSwitch"` // ncSwitch start of the CollNetDirect channel loop (16)

	// Behaviour switches of ncclTopoTuneModel.
	LLRowMixedAsAMD        bool        `tuning:"switch.llRowMixedAsAMD"`      // a MIXED CPU vendor reads the AMD LL row (2.24+)
	TreeCapAllReduceOnly   bool        `tuning:"switch.treeCapAllReduceOnly"` // Tree 0.92 / perChMaxTreeBw only for AllReduce
	TreePatternFromComm    bool        `tuning:"switch.treePatternFromComm"`  // the 0.85 TREE penalty reads comm->maxTreePattern (else the graph's pattern)
	NVLSBw                 NVLSBw      `tuning:"switch.nvlsBw"`
	CollNetAGRS            CollNetAGRS `tuning:"switch.collNetDirectAGRS"`
	AGRSRatioRingOnly      bool        `tuning:"switch.agrsRatioRingOnly"`      // AG/RS keep bus bandwidth for every non-Ring algorithm (else only CollNetDirect)
	RingARInterStepsMinus1 bool        `tuning:"switch.ringARInterStepsMinus1"` // AllReduce ring inter-node steps 2(nNodes−1) (else 2·nNodes)
	InterLatTreeAtPPN1     bool        `tuning:"switch.interLatTreeAtPPN1"`     // with one rank per node every algorithm uses the Tree NET latency
	HardSetCollNetRescue   bool        `tuning:"switch.hardSetCollNetRescue"`   // 2.18–2.23: collnet off and Ring/Tree/NVLS/NVLSTree all off ⇒ Ring and Tree back on
	MNNVLOneNode           bool        `tuning:"switch.mnnvlOneNode"`           // 2.20.x: an MNNVL communicator is one node to the model, NVLSTree and (CollNet off) NVLS are disabled for it, and its Ring/Simple has no plateau
	CollNetChainSupport    bool        `tuning:"switch.collNetChainSupport"`    // 2.30.3+: CollNetChain off when the chain heads lack CollNet
	LL128Rule              LL128Rule   `tuning:"switch.ll128Rule"`
	RingRestore            bool        `tuning:"switch.ringRestore"`       // G-TUNE-RINGRESTORE-1 (2.19.1–2.23.4)
	RingBdwKeepsProto      bool        `tuning:"switch.ringBdwKeepsProto"` // ≤ 2.21.5: ringbdw keeps a protocol NCCL_PROTO or the LL128 rule disables
	EnableMatrixPrint      bool        `tuning:"switch.enableMatrixPrint"` // print "Enabled NCCL Func/Proto/Algo Matrix" (2.24.3+)
	NThreadsWarn           bool        `tuning:"switch.nthreadsWarn"`      // invalid NCCL_NTHREADS is a WARN (2.22.3) rather than an INFO
	TunerConstants         bool        `tuning:"switch.tunerConstants"`    // a v5 tuner's init may edit the constants before the model runs (2.28.3+)
	PATMinCompCap          int         `tuning:"switch.patMinCompCap"`     // ncclPatEnable: no PAT below this compute capability (60 from 2.26.2; 0: no floor)

	// Switches of ncclTopoTuneModel whose value differs only in the 2.18 releases.
	RingKeptNonAllReduce bool `tuning:"switch.ringKeptNonAllReduce"` // 2.18.x: NCCL_ALGO never disables Ring for a function other than AllReduce
	NVLSAGRS             bool `tuning:"switch.nvlsAGRS"`             // NVLS serves AllGather and ReduceScatter (2.19.1+; 2.18.x: Ring only)
	NVLSLatNetOnly       bool `tuning:"switch.nvlsLatNetOnly"`       // 2.18.x: NVLS latency baseLat (+ hwLat[NET] across nodes), NVLSTree baseLat + 2(nNodes−1)·hwLat[NET]

	// Behaviour switches of the per-operation path (src/enqueue.cc).
	RingBackup               bool      `tuning:"switch.ringBackup"`               // G-SEL-BACKUP-1 (2.19.1–2.23.4)
	NoAlgo                   NoAlgo    `tuning:"switch.noAlgo"`                   // G-SEL-ERR-1 variant
	PruneCollNetArity        bool      `tuning:"switch.pruneCollNetDirectArity"`  // P2: CollNetDirect needs maxLocalRanks ≤ 8 (2.23.4+)
	PruneCollNetChainArity   bool      `tuning:"switch.pruneCollNetChainArity"`   // P3: CollNetChain too (2.28.3+)
	PruneNVLS                NVLSPrune `tuning:"switch.pruneNVLS"`                // P4 / P4'
	PruneNVLSMultiNodeAGRS   bool      `tuning:"switch.pruneNVLSMultiNodeAGRS"`   // P6: NVLS AG/RS single node only (≤ 2.26)
	PruneNVLSAGRSRanks       bool      `tuning:"switch.pruneNVLSAGRSRanks"`       // P6 also with nRanks > NCCL_MAX_NVLS_ARITY (2.25.1–2.26.6)
	PrunePATScaling          bool      `tuning:"switch.prunePATScaling"`          // P7: PAT ReduceScatter not with PreMulSum/SumPostDiv (2.23.4+)
	FP8RingPenaltyOn         bool      `tuning:"switch.fp8RingPenalty"`           // P8 (2.24.3+)
	NVLSMultiNodeMinChannels bool      `tuning:"switch.nvlsMultiNodeMinChannels"` // multi-node NVLS uses min(nvlsChannels, nChannels) (2.28.3+; 2.27.7 uses nvlsChannels)
	OpLine                   OpLine    `tuning:"switch.opLine"`
	FP8                      bool      `tuning:"switch.fp8"`  // ncclFloat8e4m3/e5m2 exist; reductions need sm90 (2.24.3+)
	PickMaxTime              float32   `tuning:"pickMaxTime"` // topoGetAlgoInfo's starting minTime: 3600000000.0, FLT_MAX from 2.29

	// Scheduler (scheduleCollTasksToPlan) switches and constants.
	MinTrafficPerChannel   int64 `tuning:"sched.minTrafficPerChannel"`       // 512 B (2.22.3), 16 KiB (2.24+), 32 KiB (2.30)
	CellFromMinTraffic     bool  `tuning:"sched.cellFromMinTraffic"`         // cell = roundUp16(ceil(min traffic / traffic per byte)) (else 16 B)
	TaskTrafficFloor       bool  `tuning:"sched.taskTrafficFloor"`           // a task counts at least the min traffic in the plan total
	TrafficPerChannelRound bool  `tuning:"sched.trafficPerChannelRoundUp16"` // 2.30: roundUp16(total/nc) instead of max(min, total/nc)
	CellsLoRoundUp         bool  `tuning:"sched.cellsLoRoundUp"`             // the partial first channel takes ceil (else floor) of the free traffic
	LLTrafficX4            bool  `tuning:"sched.llTrafficX4"`                // an LL task's traffic counts 4× after the choice
	WorkCollBytes          int   `tuning:"sched.workCollBytes"`              // sizeof(struct ncclDevWorkColl)
	WorkBatchBytes         int   `tuning:"sched.workBatchBytes"`             // sizeof(struct ncclDevWorkBatch)
	KernelArgsBytes        int   `tuning:"sched.kernelArgsBytes"`            // sizeof(struct ncclDevKernelArgs)
	MaxKernelArgsBytes     int   `tuning:"sched.maxKernelArgsBytes"`         // ncclMaxKernelArgsSize (4 KiB)
	MaxDevWorkBatchBytes   int   `tuning:"sched.maxDevWorkBatchBytes"`       // NCCL_MAX_DEV_WORK_BATCH_BYTES
	WorkFifoBytes          int64 `tuning:"sched.workFifoBytes"`              // NCCL_WORK_FIFO_BYTES_DEFAULT
	// WorkFifoBytesAuto (2.26.5–2.26.6): NCCL_WORK_FIFO_BYTES defaults to
	// -1, which leaves MNNVL communicators of sm100 GPUs without a work
	// FIFO (0 bytes) and gives the others WorkFifoBytes; any other value
	// is kept, at most MaxWorkFifoBytes, even one that is not a power of 2
	// (the WARN's default is overwritten).
	WorkFifoBytesAuto bool `tuning:"sched.workFifoBytesAuto"`
	// The kernel-plan budget (G-SCHED-BUDGET-1, 2.22.3+): a task whose
	// buffers NVLS registered carries an ncclDevWorkCollReg (the
	// peers' buffer pointers after the ncclDevWorkColl) of
	// WorkCollRegBytes; a persistent plan (captured into a CUDA graph)
	// may hold PersistentWorkBytes of work outside its arguments; NCCL
	// clamps NCCL_WORK_FIFO_BYTES to MaxWorkFifoBytes.
	WorkCollRegBytes    int   `tuning:"sched.workCollRegBytes"`    // sizeof(struct ncclDevWorkCollReg)
	WorkP2PBytes        int   `tuning:"sched.workP2pBytes"`        // sizeof(struct ncclDevWorkP2p): one send/recv work
	PersistentWorkBytes int64 `tuning:"sched.persistentWorkBytes"` // budget.outArgsBytes of a persistent plan (1 GiB)
	MaxWorkFifoBytes    int64 `tuning:"sched.maxWorkFifoBytes"`    // the clamp of comm->workFifoBytes (1 GiB)
	// The schedules before 2.22.3 (Schedule R18 and R20).
	Schedule          Schedule `tuning:"sched.schedule"`
	TreeAllThreads    bool     `tuning:"sched.treeAllThreads"`    // Tree (and PAT) always run NCCL_MAX_NTHREADS threads (2.22.3+)
	AggChannelSize    int64    `tuning:"NCCL_AGG_CHANNEL_SIZE"`   // R18: bytes per channel of an aggregate member (2 MiB × min(16, nRanks))
	AggCollNetBytes   int64    `tuning:"sched.aggCollNetBytes"`   // R18: bytes per channel when CollNet supports the bin (256 KiB)
	MinChannelSize    int64    `tuning:"NCCL_MIN_CHANNEL_SIZE"`   // R18: the halving of the bytes per channel stops at this (512)
	AggTotalFromCount bool     `tuning:"sched.aggTotalFromCount"` // R18: the group's byte total is count × type size (2.18.1); else 0 (2.18.3–2.19.4 sum an unset nBytes)
	// R18: NCCL_AGG_CHANNEL_SIZE (comm->channelSize) unset reads as the
	// parameter's default; a positive value replaces both bytes per
	// channel. In 2.18.x channelSize is unsigned, so the default −2 and
	// any negative value are a set size of 2^64 − |v| (only 0 keeps the
	// defaults); from 2.19.1 it is signed.
	AggChannelSizeDefault  int64 `tuning:"sched.aggChannelSizeDefault"`
	AggChannelSizeUnsigned bool  `tuning:"sched.aggChannelSizeUnsigned"`
	// R20: a task cut at maxBytesPerChannel counts its channels (for the
	// plan's budget and computeCollChunkInfo) as its aggregate's nBytes
	// (×nRanks for AllGather and ReduceScatter) over the plan's byte total
	// (2.20.3–2.20.5); else its own count × type size (2.21.5).
	CBDChannelsAggBytes bool `tuning:"sched.cbdChannelsAggBytes"`
	// R18/R20: NCCL_WORK_FIFO_DEPTH's default (ncclWork structs of the
	// work FIFO, a power of 2); a plan that is not persistent takes at
	// most half of them, and a group needing more is split into several
	// plans (ncclLaunchPrepare). 0: the 2.22.3+ byte budget instead.
	WorkFifoDepth int64 `tuning:"sched.workFifoDepth"`
	// R18/R20: a registered collective (ncclWorkElemReg, its buffers
	// registered for NVLS or CollNet) fills an ncclWork of its own kind
	// with at most this many elements (2), where a plain one takes
	// NCCL_MAX_WORK_ELEMENTS (9, MaxDevWorkBatchColls); 0: 2.22.3+.
	MaxWorkElementsReg int   `tuning:"NCCL_MAX_WORK_ELEMENTS_REG"`
	SimpleAlignment    int64 `tuning:"NCCL_SIMPLE_ALIGNMENT"` // R20: a Simple channel's bytes are a multiple of this
	LL128AlignPerWarp  int64 `tuning:"NCCL_LL128_ALIGNMENT_PER_WARP"`
	LLAlignPerThread   int64 `tuning:"NCCL_LL_ALIGNMENT_PER_THREAD"`
	BytesAlignment     int64 `tuning:"NCCL_BYTES_ALIGNMENT"` // R20: maxBytesPerChannel is a multiple of this

	// Buffer registration between the choice and the scheduler
	// (ncclRegisterCollBuffers, src/register/coll_reg.cc).
	RegIPC         bool `tuning:"reg.ipcRingTree"`    // Ring/Tree Simple user buffers registered over IPC (2.23.4+; 2.22.3 registers NVLS and CollNet only)
	RegIPCGraph    bool `tuning:"reg.ipcGraph"`       // RegIPC also for buffers only captured into a CUDA graph (2.24.3+; 2.23.4 needs a ncclCommRegister record)
	RegIPCChannels int  `tuning:"reg.ipcMaxChannels"` // a one-node IPC-registered task with 16 < nMaxChannels ≤ 24 runs on this many (16; 0: no cap)
	// RegIPCLegacyParam: cudaMalloc buffers are exported over legacy CUDA
	// IPC only under NCCL_LEGACY_CUDA_REGISTER=1 (2.24.3+; 2.23.4 always
	// does, one process per GPU).
	RegIPCLegacyParam bool `tuning:"reg.ipcLegacyParam"`
	// RegIPCDirectMode: with ranks sharing a process (comm->directMode) a
	// buffer that only legacy CUDA IPC could export is not registered
	// (2.23.4+).
	RegIPCDirectMode bool `tuning:"reg.ipcDirectMode"`
	// RegIPCFailLine, RegNVLSFailLine: an IPC or NVLS registration NCCL
	// calls and that fails prints "failed to IPC register"
	// (ipcRegisterBuffer) or "failed to NVLS register" (nvlsRegisterBuffer),
	// WARNs then REG INFOs (2.24.3+); before, the IPC export fails silently
	// and the NVLS bind prints only its "Cuda failure".
	RegIPCFailLine  bool `tuning:"reg.ipcFailLine"`
	RegNVLSFailLine bool `tuning:"reg.nvlsFailLine"`
	// RegSingleProcParam: NCCL_SINGLE_PROC_MEM_REG_ENABLE keeps NVLS
	// registration (nvlsRegSupport) for ranks sharing a process (2.28.3+;
	// 2.29.2+ also keeps the symmetric LL kernels for them).
	RegSingleProcParam bool `tuning:"reg.singleProcMemReg"`
	// RegRecordLocalParam: ncclCommRegister keeps no record under
	// NCCL_LOCAL_REGISTER=0, so the registered buffers count as plain for
	// regBuff (2.24.3+).
	RegRecordLocalParam bool `tuning:"reg.recordLocalParam"`
	// RegNoneP2PMemcpy: under NCCL_P2P_USE_CUDA_MEMCPY=1 ncclCommRegister
	// and ncclCommGraphRegister keep no record (ncclP2pUsesMemcpy), so
	// nothing is registered (2.28.9+).
	RegNoneP2PMemcpy bool `tuning:"reg.noneP2PMemcpy"`
	// RegWindowRecord: which windows carry a ncclCommRegister record.
	RegWindowRecord RegWindowRecord `tuning:"reg.windowRecord"`
	RegNVLS         RegNVLS         `tuning:"reg.nvlsChannels"`  // the channels of an NVLS/NVLSTree task on NVLS-registered buffers
	RegCollNet      RegCollNet      `tuning:"reg.collNet"`       // a CollNet task on CollNet-registered buffers, one rank per node
	RegNetRing      RegNetRing      `tuning:"reg.netRing"`       // a Ring AllGather/Broadcast on network-registered buffers, one rank per node with GDR
	Symmetric       bool            `tuning:"reg.symmetric"`     // window buffers may leave the cost table for a symmetric kernel (2.27.3+)
	CTAPolicyNVLS   bool            `tuning:"reg.ctaPolicyNVLS"` // CTA policy EFFICIENCY moves registered AllGather/ReduceScatter to NVLS (2.27.3+)
	// RegMLOPartRDMA: on a communicator with an MLOPart rank (hasMloPart)
	// a buffer is RDMA-capable only under NCCL_MLOPART_RDMA_ENABLE=1
	// (isMloPartBufRdmaCapable), so CollNet and the network register none
	// without it (2.30.7+).
	RegMLOPartRDMA bool `tuning:"reg.mloPartRdma"`
	// RegCollNetRanks: the CollNetDirect tasks CollNet registers with
	// several ranks per node, on their unregistered channels
	// (G-REG-COLLNET-1).
	RegCollNetRanks RegCollNetRanks `tuning:"reg.collNetRanks"`
	// RegCollNetIPC: the CollNetDirect tasks whose buffers NCCL registers
	// over IPC with the node's P2P peers (G-REG-COLLNET-IPC-1).
	RegCollNetIPC RegCollNetIPC `tuning:"reg.collNetIPC"`
	// RegCollNetGDR: CollNet registers a buffer only through a CollNet
	// connector with GPU Direct RDMA (collnetRegisterBuffer reads
	// NCCL_DIRECT_NIC; 2.24.3+).
	RegCollNetGDR bool `tuning:"reg.collNetGdr"`
	// SymGrouped: the symmetric tasks of any group are taken out and binned
	// (ncclMakeSymmetricTaskList), picked on cell-aligned counts, and a bin
	// without a kernel fails the group (2.28.3+). Before (2.27.x) only a
	// group of exactly one collective and no p2p on one node tries a
	// kernel, on its exact count, and falls back to the cost table when
	// none is left.
	SymGrouped bool `tuning:"reg.symmetricGrouped"`
	// The symmetric kernel's arguments: a grouped plan (2.28.3+) passes a
	// header, one work range per channel of MAXCHANNELS and one work per
	// task in at most MaxKernelArgsBytes, so a bin holds at most
	// (MaxKernelArgsBytes − SymArgsBytes − roundUp16(MAXCHANNELS ×
	// SymRangeBytes)) / SymWorkBytes tasks and a longer bin is split into
	// several picks and plans. SymArgsBytes grows with the device
	// communicator NCCL copies into the header; 2.27's kernel takes one
	// collective (SymWorkBytes 0) in a SymArgsBytes argument block.
	SymArgsBytes  int `tuning:"sched.symArgsBytes"`  // roundUp16(sizeof(struct ncclSymkDevWorkArgs)); 2.27: sizeof(struct ncclSymDevArgs)
	SymWorkBytes  int `tuning:"sched.symWorkBytes"`  // sizeof(struct ncclSymkDevWork) (0: one collective per kernel)
	SymRangeBytes int `tuning:"sched.symRangeBytes"` // sizeof(struct ncclSymkChannelWorkRange)
	// SymRangeOwnEnds: the kernel decodes each end of a block's work
	// range from that end's own task, and a task's owned blocks start
	// after the block before them only when that block ends inside the
	// same task (2.28.7+). 2.28.3 reads both ends from the first task and
	// always starts after the predecessor's fraction, so a task that
	// follows another's tail in one block, or a block that spans tasks of
	// different sizes, moves the wrong bytes (G-SCHED-SYMRANGE-1).
	SymRangeOwnEnds bool `tuning:"sched.symRangeOwnEnds"`
	// SymFallback: a symmetric piece no kernel can run goes back to the
	// cost table instead of failing the group (2.29.2+). SymLLLegacy: an
	// LL kernel NCCL_SYM_KERNEL did not force is kept only when the cost
	// table alone would run the piece's first task with LL (2.29.2,
	// 2.29.3; from 2.29.7 buffers in windows on both sides keep it).
	// SymLLLegacy also places that ncclGetAlgoInfo (the probe): before
	// anything else for every LL kernel pick of every listed piece, forced
	// or not, on buffers in windows or not (NCCL_SYM_NOWIN_ENABLE unset
	// too), when set;
	// otherwise only for an unforced pick that may still go back.
	// SymProbeErr: the probe's failure (a tuner's getCollInfo, or no
	// algorithm left) is returned from ncclGroupEnd (NCCLCHECK, 2.29.2–
	// 2.29.7); unset, it is discarded (NOWARN) and the piece goes back.
	SymFallback bool `tuning:"reg.symmetricFallback"`
	SymLLLegacy bool `tuning:"reg.symmetricLLLegacy"`
	SymProbeErr bool `tuning:"reg.symmetricProbeErr"`
	// SymNoWin: a task whose buffers are not in symmetric windows enters
	// ncclMakeSymmetricTaskList too (ncclSymkAvailable alone decides), is
	// binned apart from window tasks (winRegType) and may take only an LL
	// kernel; the kernel stays when NCCL_SYM_KERNEL forced it, or under
	// NCCL_SYM_NOWIN_ENABLE=1 when the cost table alone would run the task
	// with LL, and never when one thread drives several GPUs (2.29.2+).
	// A task that goes back rejoins the cost table's walk after the tasks
	// never listed, so its bin is no longer the sorter's LIFO.
	SymNoWin bool `tuning:"reg.symmetricNoWin"`
	// SymAllNVLink: ncclSymkAvailable needs every GPU pair of the node one
	// NVLink hop (comm->isAllDirectNvlink, 2.29.2+).
	SymAllNVLink bool `tuning:"reg.symmetricAllNvlink"`
	// SymMultimemRanks: the multimem kernels need an LSA team of more
	// ranks than this (symkState.hasLsaMultimem: 2 from 2.29.7; 0 before,
	// where NVLS support alone decides).
	SymMultimemRanks int `tuning:"reg.symmetricMultimemRanks"`
	// SymGin: the GIN kernels of communicators whose LSA team is not every
	// rank (symmetric memory across nodes over GIN): 0 none, SymGinHier
	// (AllGather_GinHier_MCRing, 2.29.2–2.29.3), SymGinRail
	// (AllGather_RailRing_LsaSTMC, ReduceScatter_RailA2A_LsaLD/LDMC, with
	// NCCL_SYM_GIN_KERNELS_ENABLE, 2.29.7+). SymGinRsSmBw is the RailA2A
	// model's per-block SM bandwidth in bytes/s, [sm100][ldmc];
	// SymGinRsChunkEnv: its chunk is NCCL_SYM_RS_GIN_CHUNK_SIZE (default
	// 128 KiB, 2.30.7+), 64 KiB before.
	SymGin           int           `tuning:"reg.symmetricGin"`
	SymGinRsSmBw     [2][2]float64 `tuning:"reg.symmetricGinRsSmBw"`
	SymGinRsChunkEnv bool          `tuning:"reg.symmetricGinRsChunkEnv"`
	// SymTMA: the TMA kernels exist (AllReduce_RSxTmaLD_AGxTmaST,
	// AllGather_TmaST, AllGather_TmaSTMC, ReduceScatter_TmaLD; 2.30.3+),
	// available on sm100+ under NCCL_SYM_TMA_ENABLE=1.
	SymTMA bool `tuning:"reg.symmetricTMA"`
	// SymAvg: the symmetric task list reads an Avg as SumPostDiv whatever
	// the type (symkRedOp), so an Avg AllReduce or ReduceScatter of a float
	// type other than double is listed, binned and picked there, and the
	// LDMC kernels take it (2.30.3+; before, a float Avg is PreMulSum, which
	// no symmetric kernel implements).
	SymAvg bool `tuning:"reg.symmetricAvg"`
	// CECollectives: copy-engine collectives exist (ncclCeImplemented:
	// AllGather, AlltoAll, Gather, Scatter; 2.28.3+).
	CECollectives bool `tuning:"reg.copyEngine"`
	// HierCE: a multi-node AllGather or AlltoAll on windows under CTA
	// policy ZERO runs as a hierarchical copy-engine collective, CE inside
	// the LSA team and the RMA proxy between teams (ncclHierCeAvailable,
	// 2.30.7+); HostRMANumCtx: comm->hostRmaSupport also needs
	// config.numRmaCtx > 0 (2.30.7+).
	HierCE        bool `tuning:"switch.hierCE"`
	HostRMANumCtx bool `tuning:"switch.hostRmaNumCtx"`
	// WinSysmem: ncclCommWindowRegister takes cuMem memory with host
	// (CPU-backed) segments, and such a window takes neither the copy
	// engines nor a symmetric kernel (ncclDevrWindowHasSysmemSegment,
	// 2.30.3+; before, gatesim does not model host memory in windows).
	WinSysmem bool `tuning:"switch.windowSysmem"`

	// CTA policy and copy-engine collectives (taskAppend).
	CTAPolicyMask    bool  `tuning:"switch.ctaPolicyMask"`    // NCCL_CTA_POLICY is a bit mask: a digit 0/1/2 or names joined by '|' (2.29.2+); before, the integer must be 2 for ZERO
	CEAllGatherSM100 bool  `tuning:"switch.ceAllGatherSM100"` // an AllGather into a symmetric window goes to the copy engines on sm100+ all-NVLink nodes above NCCL_SYM_CE_THRESHOLD elements without the CTA policy (2.29.2+)
	SymCEThreshold   int64 `tuning:"NCCL_SYM_CE_THRESHOLD"`   // default of NCCL_SYM_CE_THRESHOLD (8 Mi elements; 2.29.2+)
	CTAPolicyMax     int   `tuning:"switch.ctaPolicyMax"`     // the largest NCCL_CTA_POLICY accepted: 1 EFFICIENCY (2.27.x), 2 ZERO (2.28.3+); above it INFO and DEFAULT
	// AllGatherV: a group's broadcasts from two roots or more run as one
	// AllGatherV outside the cost table (2.29.2+, NCCL_ALLGATHERV_ENABLE).
	AllGatherV bool `tuning:"switch.allGatherV"`
	// BcastWorkBytes is sizeof(struct ncclDevWorkBcast), one broadcast's
	// work in an AllGatherV batch (2.29.2+).
	BcastWorkBytes int `tuning:"sched.bcastWorkBytes"`
	// MaxDevWorkBatchBytesCC is ncclMaxDevWorkBatchBytes(cudaArch) per
	// compute-capability row (the same sm80 and sm90 bounds): the work
	// storage of one batch, which caps an AllGatherV plan's broadcasts at
	// this / BcastWorkBytes (2.29.2+; 0 before, where nothing reads it).
	MaxDevWorkBatchBytesCC [NumCompCaps]int `tuning:"ncclMaxDevWorkBatchBytes,cc"`

	// TunerChunkSize: a v6 tuner's getChunkSize may override the chunk
	// size calcCollChunking computed, clamped to the buffer's (2.30.3+).
	TunerChunkSize bool `tuning:"switch.tunerChunkSize"`
}

// Change is one edit of a Consts value: a constant cell or a switch,
// with the NCCL source that sets it. Old and New are printed values.
type Change struct {
	Path string   `json:"path"`
	Old  string   `json:"old"`
	New  string   `json:"new"`
	Ref  nccl.Ref `json:"ref,omitempty"`
}

func (c Change) String() string {
	s := c.Path + ": " + c.Old + " -> " + c.New
	if r := c.Ref.String(); r != "" {
		s += "  (" + r + ")"
	}
	return s
}

// Clone returns an independent copy (Consts holds only arrays and scalars).
func (t *Consts) Clone() *Consts {
	c := *t
	return &c
}

// Base2_22_3 is the tuning model of NCCL 2.22.3 (tag v2.22.3-1,
// commit 178b6b7): the static tables baseLat, hwLat, llMaxBws,
// perChMax*Bws and treeCorrectionFactor of src/graph/tuning.cc, the literals
// of ncclTopoTuneModel and ncclTopoGetAlgoTime, and the constants of
// src/include/device.h and comm.h. There is no PAT and no Blackwell row.
func Base2_22_3() Consts {
	return Consts{
		NumAlgos:    6,
		NumCompCaps: 3,
		// Ref: v2.22.3-1 src/graph/tuning.cc baseLat
		BaseLat: [nccl.NumAlgos][nccl.NumProtos]float64{
			nccl.Tree: {nccl.LL: 6.8, nccl.LL128: 14.0, nccl.Simple: 0},
			nccl.Ring: {nccl.LL: 6.6, nccl.LL128: 14.0, nccl.Simple: 8.4},
		},
		// Ref: v2.22.3-1 src/graph/tuning.cc hwLat
		HwLat: [NumHw][nccl.NumAlgos][nccl.NumProtos]float64{
			HwNVLink: {
				nccl.Tree:          {nccl.LL: .6, nccl.LL128: 1.25, nccl.Simple: 28},
				nccl.Ring:          {nccl.LL: .6, nccl.LL128: 1.9, nccl.Simple: 3.4},
				nccl.CollNetDirect: {nccl.Simple: 3.7},
				nccl.CollNetChain:  {nccl.Simple: 2.8},
				nccl.NVLS:          {nccl.Simple: 25},
				nccl.NVLSTree:      {nccl.Simple: 25},
			},
			HwPCI: {
				nccl.Tree:          {nccl.LL: 1.0, nccl.LL128: 1.9, nccl.Simple: 28},
				nccl.Ring:          {nccl.LL: 1.0, nccl.LL128: 2.5, nccl.Simple: 5.7},
				nccl.CollNetDirect: {nccl.Simple: 3.7},
				nccl.CollNetChain:  {nccl.Simple: 2.8},
			},
			HwNet: {
				nccl.Tree:          {nccl.LL: 5.0, nccl.LL128: 8.5, nccl.Simple: 28},
				nccl.Ring:          {nccl.LL: 2.7, nccl.LL128: 4.0, nccl.Simple: 14.0},
				nccl.CollNetDirect: {nccl.Simple: 31},
				nccl.CollNetChain:  {nccl.Simple: 30},
				nccl.NVLS:          {nccl.Simple: 18},
				nccl.NVLSTree:      {nccl.Simple: 14},
			},
		},
		// Ref: v2.22.3-1 src/graph/tuning.cc llMaxBws
		LLMaxBw: [NumCompCaps][NumScales]float64{
			Volta:  {N1: 39.0, N2: 39.0, N4: 20.4},
			Ampere: {N1: 87.7, N2: 22.5, N4: 19.0},
			Hopper: {N1: 141.0, N2: 45.0, N4: 35.0},
		},
		// Ref: v2.22.3-1 src/graph/tuning.cc perChMaxRingLL128Bws
		PerChMaxRingLL128Bw: [NumCompCaps][NumScales]float64{
			Volta:  {N1: 20.0, N2: 20.0, N4: 20.0},
			Ampere: {N1: 20.0, N2: 20.0, N4: 20.0},
			Hopper: {N1: 36.7, N2: 36.7, N4: 36.7},
		},
		// Ref: v2.22.3-1 src/graph/tuning.cc perChMaxTreeLL128Bws
		PerChMaxTreeLL128Bw: [NumCompCaps][NumScales]float64{
			Volta:  {N1: 20.0, N2: 20.0, N4: 20.0},
			Ampere: {N1: 20.0, N2: 20.0, N4: 20.0},
			Hopper: {N1: 36.7, N2: 36.7, N4: 29.0},
		},
		// Ref: v2.22.3-1 src/graph/tuning.cc perChMaxTreeBws
		PerChMaxTreeBw: [NumCompCaps][NumScales]float64{
			Volta:  {N1: 26.5, N2: 18.5, N4: 10.0},
			Ampere: {N1: 24.0, N2: 23.6, N4: 17.8},
			Hopper: {N1: 38.7, N2: 41.4, N4: 36.0},
		},
		// Ref: v2.22.3-1 src/graph/tuning.cc treeCorrectionFactor
		TreeCorrection: [nccl.NumProtos][TreeCorrections]float32{
			nccl.LL:     {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
			nccl.LL128:  {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
			nccl.Simple: {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
		},
		TreeCorrectionLen: 23,
		// Ref: v2.22.3-1 src/graph/tuning.cc ncclTopoGetAlgoTime
		TreeCorrectionAllReduceOnly: false,

		// Ref: v2.22.3-1 src/graph/tuning.cc getNetOverhead
		NetOverheadIntel: 1.0,
		NetOverheadAMD:   2.0,
		NetOverheadOther: 1.0,

		// Ref: v2.22.3-1 src/graph/tuning.cc ncclTopoTuneModel
		RingLLFactor:          .5,
		RingLL128Factor:       0.92,
		RingLL128LowPPNFactor: 0.7,
		TreeFactor:            .92,
		TreeLLDivisor:         3.8,
		TreeLL128IntraFactor:  7.0 / 9.0,
		TreeLL128InterFactor:  120.0 / 128.0,
		TreePatternFactor:     .85,
		PATFactor:             0, // no PAT in 2.22.3
		CollNetDirectSM90:     .85,
		CollNetDirectInter:    0, // 2.27.3+ only
		CollNetDirectPPN1:     0.95,
		CollNetDirectPPN8:     0.85,
		NVLSRatioR22:          5.0 / 6.0,
		NonRingRatio:          .5,
		CollNetArityLat:       0.4,
		PATLogLatDivisor:      0,
		PATLinearLat:          0,
		NetOverheadSimple:     3,
		// Ref: v2.22.3-1 src/graph/tuning.cc ncclTopoGetAlgoTime
		RingPlateau:          1.4,
		RingPlateauPreAmpere: 1.9,
		FP8RingPenalty:       0, // 2.24.3+

		// Ref: v2.22.3-1 src/include/device.h, src/include/comm.h, src/graph/topo.h
		WarpSize:               32,
		MaxNThreads:            640,
		SimpleMaxNThreads:      512,
		LLMaxNThreads:          512,
		LL128MaxNThreads:       640,
		SimpleLowBwNThreads:    256,
		LLThreadThreshold:      8,
		LL128ThreadThreshold:   8,
		SimpleThreadThreshold:  64,
		CollNetThreadThreshold: 512,
		PCIBw:                  12.0,
		MaxChannels:            32,
		MaxDevWorkBatchColls:   16, // 1024 / sizeof(struct ncclDevWorkColl) = 1024/64
		MaxDirectArity:         7,
		MaxNVLSArity:           32, // not read by 2.22.3
		CollNetDirectSwitch:    16,

		LLRowMixedAsAMD:        false,
		TreeCapAllReduceOnly:   false,
		TreePatternFromComm:    false,
		NVLSBw:                 NVLSBwMin,
		CollNetAGRS:            CollNetAGRSInterpolated,
		AGRSRatioRingOnly:      false,
		RingARInterStepsMinus1: false,
		InterLatTreeAtPPN1:     false,
		HardSetCollNetRescue:   true,
		MNNVLOneNode:           false,
		CollNetChainSupport:    false,
		LL128Rule:              LL128R22,
		RingRestore:            true,
		RingKeptNonAllReduce:   false,
		NVLSAGRS:               true,
		NVLSLatNetOnly:         false,
		EnableMatrixPrint:      false,
		NThreadsWarn:           true,
		TunerConstants:         false,

		// Ref: v2.22.3-1 src/enqueue.cc updateCollCostTable, topoGetAlgoInfo
		RingBackup:               true,
		NoAlgo:                   NoAlgoR22,
		PruneCollNetArity:        false,
		PruneCollNetChainArity:   false,
		PruneNVLS:                NVLSPruneR22,
		PruneNVLSMultiNodeAGRS:   true,
		PrunePATScaling:          false,
		FP8RingPenaltyOn:         false,
		NVLSMultiNodeMinChannels: false,
		OpLine:                   OpLineR22,
		PickMaxTime:              3600000000.0,
		FP8:                      false,

		// Ref: v2.22.3-1 src/enqueue.cc scheduleCollTasksToPlan, testBudget
		MinTrafficPerChannel:   512,
		CellFromMinTraffic:     false,
		TaskTrafficFloor:       false,
		TrafficPerChannelRound: false,
		CellsLoRoundUp:         false,
		LLTrafficX4:            false,
		WorkCollBytes:          64,
		WorkBatchBytes:         16,
		KernelArgsBytes:        32,
		MaxKernelArgsBytes:     4096,
		MaxDevWorkBatchBytes:   1024,
		WorkFifoBytes:          1 << 20,
		WorkCollRegBytes:       256,
		WorkP2PBytes:           48,
		PersistentWorkBytes:    1 << 30,
		MaxWorkFifoBytes:       1 << 30,
		// Ref: v2.22.3-1 src/enqueue.cc topoGetAlgoInfo ("Tree now uses all
		// threads always"); the older schedules' constants are the deltas'.
		Schedule: ScheduleR22,
		// Ref: v2.22.3-1 src/enqueue.cc registerIntraNodeBuffers
		RegNVLS:        RegNVLSNodes,
		RegCollNet:     RegCollNetCTAs,
		TreeAllThreads: true,
		// Ref: v2.22.3-1 src/include/enqueue.h (2.20.3 and 2.21.5 cut their
		// channels with them)
		SimpleAlignment:   32 * 8 * 16,
		LL128AlignPerWarp: 480,
		LLAlignPerThread:  8,
		BytesAlignment:    16,
	}
}

// Set assigns *p = v inside t and returns the change with the path of p
// (found by walking the Consts value) and ref, where the release's source
// says it. A pointer outside t is an error: the delta names a cell the
// model does not have.
func Set[T comparable](t *Consts, p *T, v T, ref nccl.Ref) (Change, error) {
	path, ok := tuningPathOf(t, p)
	if !ok {
		return Change{}, fmt.Errorf("tuning delta %s: a pointer outside the Tuning value (%s %s)", ref.Tag, ref.File, ref.Func)
	}
	old := tuningFormatValue(*p)
	*p = v
	return Change{Path: path, Old: old, New: tuningFormatValue(v), Ref: ref}, nil
}
