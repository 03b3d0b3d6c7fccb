package spec

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Rule is one gate of NCCL's chain, written as a value (x/tools' Analyzer
// style): an ID that never changes, its layer, a doc that states the
// condition in the order NCCL checks it, the log lines NCCL prints for it,
// and where it lives in NCCL's source at the tag it was written against.
//
// A rule that changes between releases is a new value with the same ID and
// a new Ref; the release delta installs it (Ruleset.Replace). The releases a
// rule holds for are derived from the chain (Timeline), never hand-kept.
type Rule struct {
	ID    RuleID
	Layer Layer
	// Cap is the capability the rule gates ("" for rules that only record).
	Cap   Capability
	Title string
	Doc   string
	Ref   Ref
	// Logs are NCCL's format strings for this rule, verbatim (printf
	// placeholders kept), so that a log parser can match them.
	Logs []string

	// Exactly one of these evaluates the rule: once at communicator init,
	// for every operation (Select), for every operation of a planned
	// group after its per-operation rules (SelectGroup), or while one
	// thread's API calls are replayed through ncclGroupStart/ncclGroupEnd
	// (CheckGroup, which emits the rule's verdicts at the call that
	// triggers it; groupCall marks such a rule).
	init      func(*initRun)
	perOp     func(*opRun)
	group     func(*groupRun)
	groupCall bool
	// p2p marks a group rule of the send/recv tasks: SelectGroup runs it
	// for the group's p2p operations only, the other group rules for its
	// collectives only.
	p2p bool
	// onDemand marks a group rule SelectGroup runs only for the operations
	// it is about (the one-sided calls, windows in host memory).
	onDemand bool
	// node marks an init rule that every rank evaluates on its own node's
	// facts (before the ranks exchange anything); the others run once.
	node bool
	// onFail marks an init rule about what a failed init does on its way
	// out: it runs after every other init rule, only when init failed,
	// and adds nothing to the trace of an init that succeeded.
	onFail bool
}

// withRef returns a copy of r that documents a new source location: the
// same behaviour, moved or renamed upstream at a later tag.
func (r *Rule) withRef(ref Ref) *Rule {
	c := *r
	c.Ref = ref
	return &c
}

// PerOp reports whether the rule is evaluated for every operation rather than
// once at communicator init.
func (r *Rule) PerOp() bool { return r.perOp != nil }

// InGroup reports whether the rule is evaluated for every operation of a
// planned group (ncclGroupEnd's planning) rather than at init or by Select.
func (r *Rule) InGroup() bool { return r.group != nil }

// AtCall reports whether the rule is a group-call rule: evaluated while a
// thread's API calls are replayed (CheckGroup), not for a communicator or
// an operation.
func (r *Rule) AtCall() bool { return r.groupCall }

// AtFailure reports an init rule evaluated only once communicator init
// has failed (what the failure does next): a trace of an init that
// succeeded has no verdict of it.
func (r *Rule) AtFailure() bool { return r.onFail }

var ruleIDPattern = regexp.MustCompile(`^G-[A-Z0-9]+(-[A-Z0-9]+)*-[0-9]+$`)

// ChangeKind is the verb of a release delta.
type ChangeKind string

const (
	ChangeAdd     ChangeKind = "add"
	ChangeReplace ChangeKind = "replace"
	ChangeRemove  ChangeKind = "remove"
	ChangeMove    ChangeKind = "move"
	ChangeValue   ChangeKind = "value" // a constant or default
)

// Change is one entry of a release's changelog, recorded by the delta verbs.
type Change struct {
	Kind  ChangeKind `json:"kind"`
	Rule  RuleID     `json:"rule,omitempty"`
	Path  string     `json:"path,omitempty"` // for values: "tuning.hwLat[NET][NVLSTree][Simple]"
	Old   string     `json:"old,omitempty"`
	New   string     `json:"new,omitempty"`
	Ref   Ref        `json:"ref"`
	Note  string     `json:"note,omitempty"`
	Since Version    `json:"since"`
}

// Ruleset is everything one NCCL release does: its rules in evaluation
// order and its constants. Build one with Load; it is not modified after.
type Ruleset struct {
	Version Version
	rules   map[RuleID]*Rule
	// Init is the order of the communicator-init rules, Op the order of the
	// per-operation rules, Group the order of the group-planning rules and
	// Call the order of the group-call rules (CheckGroup).
	Init  []RuleID
	Op    []RuleID
	Group []RuleID
	Call  []RuleID
	// Consts are the release's constants the gates read.
	Consts Consts
	// TopoParams are the topology stage's rules (spec/topo) and Tuning the
	// tuning model's constants; the deltas change them through TopoDelta
	// and TuningDelta, which record every changed field.
	TopoParams topo.Params
	Tuning     *tuning.Consts
	// Changes is this release's delta against the previous one (empty for
	// the base release).
	Changes []Change
	// errs collects the delta's errors while the release is built.
	errs []error
}

// Consts are release constants read by the gates (ABI windows, limits).
type Consts struct {
	// CollNetNVLSHeads: with NVLS support ncclCollNetSetup takes the CollNet
	// heads from the NVLS graph (comm->nvlsHeads), so their CollNet
	// connectors sit on its NETs (2.28.3+); before, always the CollNetDirect
	// graph's (G-COLLNET-FLUSH-1).
	CollNetNVLSHeads bool
	// GdrFlushAnyArch: off x86_64 the gdrcopy flush reads the mapped word
	// through ncclGdrCudaRead (2.30.7+); before, the first flushed receive
	// WARNs "NET: GDR Flush only supported on x86_64" and fails
	// (G-COLLNET-FLUSH-1).
	GdrFlushAnyArch bool
	// GdcPinForcePCIe: with gdrcopy, a receive whose flush is
	// ncclTopoFlushC2c pins its sync word over PCIe (ncclGdcPinFlag:
	// GDR_PIN_FLAG_FORCE_PCIE) when libgdrapi has gdr_pin_buffer_v2
	// (GDRCopy 2.5+), and under NCCL_GDRCOPY_SYNC_ENABLE (default 1) needs
	// no flush at all (2.30.3+, G-COLLNET-FLUSH-1). A system file does not
	// say which GDRCopy a node has; gatesim takes it as older, so no
	// modelled system skips the flush.
	GdcPinForcePCIe bool
	// NetABI lists the ncclNetPlugin_vN versions probed, newest first; the
	// same window applies to ncclCollNetPlugin_vN.
	NetABI []int
	// TunerABI lists the ncclTunerPlugin_vN versions probed, newest first.
	TunerABI []int
	// EnvABI lists the ncclEnvPlugin_vN versions probed, newest first
	// (empty before the environment plugin, 2.28.7).
	EnvABI []int
	// ProfilerABI lists the ncclProfiler_vN versions probed, newest first
	// (empty before the profiler plugin, 2.23.4).
	ProfilerABI []int
	// GinABI lists the ncclGinPlugin_vN versions probed, newest first
	// (empty before GIN, 2.28.7); RmaABI the ncclRmaPlugin_vN versions
	// (empty before 2.30.3).
	GinABI, RmaABI []int
	// GinInternal is how the internal IB GIN and RMA initialise
	// (GinInternalNet ... GinInternalGdakiRma; 0 before GIN). GinSymSupport
	// is how comm->symmetricSupport reads the GIN state across nodes:
	// 0 not at all (up to 2.29.1), 1 ginSupport (2.29.2–2.29.3), 2
	// globalGinSupport (2.29.7+).
	GinInternal, GinSymSupport int
	// DevCommForm is what ncclDevCommCreate reads and checks (devComm283
	// ... devComm307; 0 before 2.28.3, which has no device API).
	DevCommForm devCommForm
	// GinPools are the signal and counter pools every device communicator
	// of a communicator allocates from (2.28.7–2.29.7; zero from 2.30.3,
	// whose contexts carry their own).
	GinPools GinPools
	// GinQueue is the GIN queues' depths a device communicator's contexts
	// get (2.28.7+; zero before).
	GinQueue GinQueue
	// WinSegments is what ncclCommWindowRegister does with memory of
	// several cuMem segments: 0 not modelled (before 2.29.2: 2.27.x finds
	// the buffer beyond its first segment and makes no window, 2.28.x maps
	// the first segment alone), 1 refused (2.29.2–2.29.7), 2 registered,
	// every segment mapped (2.30.3+).
	WinSegments int
	// MaxChannels is MAXCHANNELS.
	MaxChannels int
	// NVLSChannelsSM90, NVLSChannelsSM100 (single node / NVL) and
	// NVLSChannelsSM100Multi are the NVLS channel defaults.
	NVLSChannelsSM90, NVLSChannelsSM100, NVLSChannelsSM100Multi int
	// MaxDirectArity+1 is the most GPUs per node CollNet supports.
	MaxDirectArity int
	// MaxNVLSArity is NCCL_MAX_NVLS_ARITY (0 when the release has none).
	MaxNVLSArity int
	// HasPAT is true from 2.23.4.
	HasPAT bool
	// NetNameAtLoad: a plugin loaded through an older-ABI shim keeps the
	// name its struct had at load (2.26+).
	NetNameAtLoad bool
	// HasFP8 is true from 2.24 (ncclFloat8e4m3/e5m2 exist).
	HasFP8 bool
	// RingBackup is 2.19.1-2.23.4's per-operation Ring backup.
	RingBackup bool
	// InitJobFreedTwice: ncclCommInitRankDev's fail path frees an init job
	// ncclAsyncLaunch already freed (2.24.3-2.25.1): a failed
	// ncclCommInitRank outside a group (G-INIT-ABORT-1), or an init job a
	// group refuses for mixing blocking modes (G-GROUP-MIX-1), aborts the
	// process.
	InitJobFreedTwice bool
	// NVLSSupportAllGather: an AllGather's nvlsSupport is the
	// communicator's whatever its datatype (2.22.3+, src/enqueue.cc
	// scheduleCollTasksToPlan); before, it also needs ncclNvlsSupported of
	// the ncclSum ncclAllGather passes and its datatype.
	NVLSSupportAllGather bool
	// IntParams are the compiled defaults of the integer NCCL_PARAMs the
	// gates read, by variable name.
	IntParams map[string]int64
	// ConfigFields are the ncclConfig_t fields the release's nccl.h
	// declares, in the struct's order (G-ENV-CONFIG-1).
	ConfigFields []string
	// ConfigCTAEnvPositive: envConfigOverride lets NCCL_MIN_CTAS and
	// NCCL_MAX_CTAS override the config only when positive (2.25.1+);
	// before, any value set overrides it.
	ConfigCTAEnvPositive bool
	// ConfigRmaCtxEnvMin is the least NCCL_NUM_RMA_CTX that overrides
	// config.numRmaCtx (1 from 2.29.2, 0 from 2.30.7).
	ConfigRmaCtxEnvMin int
	// ConfigResetLog: envConfigOverride prints "Comm config <field> reset
	// to <VAR>=<value>" when a variable overrides a field that has a value
	// (2.28.7+; config_log.go).
	ConfigResetLog bool
	// ConfigCheckModeLine: envConfigOverride reads NCCL_CHECK_MODE last
	// and prints "NCCL_CHECK_MODE set by environment to %s" for any value
	// set (2.29.7+; DEBUG_LOCAL and DEBUG_GLOBAL check pointers and
	// arguments per call, which decides nothing the model holds).
	ConfigCheckModeLine bool

	// The schedule facts no gate reads; algos builds its schedules from
	// them (algos.Params).

	// NVLSLastChunkAlign is the byte alignment of the last (shrunk) chunk
	// of a one-node NVLS AllReduce loop: 16 in 2.22.3, 16 KiB from 2.23.4
	// (src/device/all_reduce.h, the NVLS runWorkColl's lastChunkSize).
	NVLSLastChunkAlign int
	// P2PChannelBaseReversed: the channel of a p2p round's first part is
	// the round's base with its low log2(p2pnChannels) bits reversed
	// (2.28.3+, src/include/channel.h ncclP2pChannelBaseForRound).
	P2PChannelBaseReversed bool
	// P2PGroupSchedule: the p2p schedule walks groups of
	// NCCL_P2P_SCHEDULE_GROUP_SIZE local ranks and the channel base counts
	// rounds in groups (2.28.7+, src/init.cc initTransportsRank p2pSchedule).
	P2PGroupSchedule bool
	// P2PGroupWholeNode: on one node the p2p schedule's group is all local
	// ranks, NCCL_P2P_SCHEDULE_GROUP_SIZE only across nodes (2.28.9+,
	// src/init.cc ncclP2pSchedule).
	P2PGroupWholeNode bool
	// P2PBatchEpoch: a p2p work batch holds only rounds of one epoch of
	// NCCL_MAX_DEV_WORK_P2P_PER_BATCH rounds (2.28.7+, src/enqueue.cc
	// addWorkBatchToPlan).
	P2PBatchEpoch bool
	// P2PBatchPassEpoch: a p2p work batch holds works of one pass over the
	// schedule only (p2pEpoch; NCCL_P2P_EPOCH_ENABLE=0 lifts it) (2.29.2+,
	// src/enqueue.cc ncclAddWorkBatchToPlan, G-SCHED-P2P-1).
	P2PBatchPassEpoch bool
	// P2PResumeRound: when a plan's budget is full the next plan resumes
	// the p2p schedule at the round that did not fit (ncclLaunchPrepare's
	// p2pRound, reset per group); before, each plan walks from round 0
	// (2.29.7+, src/enqueue.cc scheduleP2pTasksToPlan, G-SCHED-P2P-1).
	P2PResumeRound bool
	// P2PMaxHalved: scheduleP2pTasksToPlan also halves nChannelsMax while
	// nChannelsMax × nRanks > 4 × p2pnChannels (up to 2.19.4); from 2.20.3
	// only nChannelsMin is halved (src/enqueue.cc).
	P2PMaxHalved bool
	// P2PHalveOneNodeOnly: both p2p halvings apply on one node only
	// (2.18.3–2.19.4, src/enqueue.cc scheduleP2pTasksToPlan).
	P2PHalveOneNodeOnly bool
	// P2PRoundSchedule: send/recv tasks are planned one work per round of
	// comm->p2pSchedule on ncclP2pChannelForPart (2.22.3+); before, a
	// peer's bytes are cut into chunks on ncclChannelCompute's channels
	// (src/enqueue.cc scheduleP2pTasksToPlan, G-SCHED-P2P-1).
	P2PRoundSchedule bool
	// P2PSkipSelfInPlace: a send to self and the receive it pairs with on
	// one buffer are dropped without a work (2.22.3+, src/enqueue.cc
	// scheduleP2pTasksToPlan "Skip send to self in-place"); before, they
	// stay tasks and the kernel skips the copy (src/device/sendrecv.h
	// runSend, G-SCHED-P2P-3).
	P2PSkipSelfInPlace bool
	// P2PMinPartHalfStepNet: across nodes a p2p part (a chunk before
	// 2.22.3) is at least half a step, not an eighth (2.20.3+,
	// src/enqueue.cc scheduleP2pTasksToPlan, G-SCHED-P2P-2).
	P2PMinPartHalfStepNet bool
	// P2PChannelsBeforeProto: addP2pToPlan counts a direction's channels
	// on the Simple step, then picks LL by bytes per channel (2.29.2+,
	// src/enqueue.cc addP2pToPlan, G-SCHED-P2P-2).
	P2PChannelsBeforeProto bool
	// P2PReg is what addP2pToPlan registers of a send/recv buffer
	// (G-REG-P2P-1): nothing up to 2.19.4, a ncclCommRegister buffer over
	// the network from 2.20.3, graph or local over the network and IPC
	// from 2.24.3, the PXN test on used PXN from 2.26.2 (src/enqueue.cc
	// addP2pToPlan, src/register/sendrecv_reg.cc).
	P2PReg tuning.P2PReg
	// SimpleBuffSizeARM is DEFAULT_BUFFSIZE_ARM, the Simple buffer when the
	// CPU is ARM (1 MiB up to 2.18.6; 0 from 2.19.1: 4 MiB everywhere)
	// (src/init.cc computeBuffSizes).
	SimpleBuffSizeARM int
	// NVLSNetChunkCap: NVLS across nodes whose NVLS AllReduce bandwidth is
	// below 150 GB/s moves 32 KiB chunks (2.19.3+, src/enqueue.cc
	// computeColl, later computeCollChunkInfo).
	NVLSNetChunkCap bool
	// NVLSTreeChunkFromStep: NVLSTree's chunk starts from the Simple step
	// size, not from the NVLS chunk size (2.18.1-2.20.5, src/enqueue.cc
	// computeCollChunkInfo).
	NVLSTreeChunkFromStep bool
	// NVLSTreeChunkCap4Nodes: NVLSTree's chunk is at most 64 KiB from 4
	// nodes on (2.19.3+, src/enqueue.cc computeColl).
	NVLSTreeChunkCap4Nodes bool
	// NVLSChunkSizeEnv: NCCL_NVLS_CHUNKSIZE (an int64 parameter, default
	// 128 KiB) sets comm->nvlsChunkSize, NVLS's largest chunk and
	// NVLSTree's first (2.21.5+, src/transport/nvls.cc ncclNvlsSetup;
	// ncclNvlsTuning from 2.30.3); before, NVLS's 128 KiB is a constant.
	NVLSChunkSizeEnv bool
	// NVLSTreeMaxChunkSizeEnv: NCCL_NVLSTREE_MAX_CHUNKSIZE (default -2)
	// caps NVLSTree's chunk when set (2.20.3+, src/enqueue.cc
	// computeCollChunkInfo, later calcCollChunking; ncclNvlsTuning from
	// 2.30.3).
	NVLSTreeMaxChunkSizeEnv bool
	// TreeSimpleChunkByDepth: a Tree/Simple AllReduce halves its chunk
	// while the bytes per channel and chunk fall below 8, 4 and 1 times
	// the tree depth (2.18.1–2.19.4, src/enqueue.cc computeColl; gone with
	// computeCollChunkInfo in 2.20.3).
	TreeSimpleChunkByDepth bool
	// NVLSRegStepChunk: an NVLS AllGather or ReduceScatter on
	// NVLS-registered buffers moves Simple-step chunks (2.27.3+,
	// src/enqueue.cc calcCollChunking, G-SEL-CHUNK-2).
	NVLSRegStepChunk bool
	// NetRegRingAllGather: a Ring AllGather whose buffers the network
	// registered on one rank per node moves NCCL_MAX_NET_SIZE chunks
	// (2.24.3+, src/enqueue.cc calcCollChunking, G-SEL-CHUNK-2).
	NetRegRingAllGather bool
	// ProxyReg is what calcCollChunking writes into the proxy op of a task
	// whose buffers the network or CollNet registered (G-REG-PROXY-1):
	// nothing before 2.21.5, CollNet's 512 MiB pieces 2.21.5–2.23.4, the
	// network registration's steps from 2.24.3 (src/enqueue.cc
	// calcCollChunking, computeColl before 2.22.3).
	ProxyReg tuning.ProxyReg

	// P2PDirectCuMem: two ranks of one process connect P2P by direct
	// pointer with NCCL's cuMem on too (2.19.3+, src/transport/p2p.cc
	// p2pSendSetup); up to 2.19.1 cuMem makes them export a handle.
	P2PDirectCuMem bool
	// P2PLogBusID: a P2P connection line names each GPU by its bus id
	// ("%d[%lx]", up to 2.18.6), not its NVML index (src/transport/p2p.cc
	// p2pSendSetup).
	P2PLogBusID bool
	// P2PTypeLog is the "Check P2P Type" line ncclTransportCheckP2pType
	// prints (src/transport.cc): 0 none (up to 2.23.4), 1
	// "intraNodeP2pSupport %d directMode %d" (2.24.3), 2 "isAllDirectP2p
	// %d directMode %d" (2.27.3), 3 the same with "isAllCudaP2p %d"
	// (2.28.7+, every rank prints it; before, rank 0 only).
	P2PTypeLog int
	// SHMDirectOnly: the SHM connection line is "via SHM/direct", the
	// copy-engine SHM variables gone (2.30.7+, src/transport/shm.cc
	// shmSendSetup).
	SHMDirectOnly bool

	// GDRPeermem: the IB transport recognises the nvidia-peermem module
	// (/sys/module/nvidia_peermem) as well as nv_peer_mem (2.23.4+,
	// src/transport/net_ib.cc ncclIbGdrSupport). No gate reads it; diagnose
	// names it when GPUDirect RDMA is off.
	GDRPeermem bool

	// CollNetFail is where a refused CollNet group prints its lines
	// (G-COLLNET-SETUP-1; collnet_log.go); LogLocFunc: NCCLCHECK's
	// "-> N" trace and the WARN prefix print the function after
	// file:line (2.30.7+, src/include/debug.h INFO_LOC_FN,
	// src/debug.cc ncclDebugLogInternal).
	CollNetFail CollNetFailSites
	LogLocFunc  bool
}

// Rule returns the rule with the given ID.
func (rs *Ruleset) Rule(id RuleID) (*Rule, bool) {
	r, ok := rs.rules[id]
	return r, ok
}

// Rules returns every rule in evaluation order (init rules, then per-op,
// then group planning, then the group-call rules).
func (rs *Ruleset) Rules() []*Rule {
	out := make([]*Rule, 0, len(rs.Init)+len(rs.Op)+len(rs.Group)+len(rs.Call))
	for _, ids := range [][]RuleID{rs.Init, rs.Op, rs.Group, rs.Call} {
		for _, id := range ids {
			out = append(out, rs.rules[id])
		}
	}
	return out
}

func (rs *Ruleset) clone(v Version) *Ruleset {
	out := &Ruleset{
		Version: v,
		rules:   make(map[RuleID]*Rule, len(rs.rules)),
		Init:    slices.Clone(rs.Init),
		Op:      slices.Clone(rs.Op),
		Group:   slices.Clone(rs.Group),
		Call:    slices.Clone(rs.Call),
		Consts:  rs.Consts,
		// topo's Apply functions assign fresh slices, never write into them.
		TopoParams: rs.TopoParams,
	}
	if rs.Tuning != nil {
		out.Tuning = rs.Tuning.Clone()
	}
	out.Consts.NetABI = slices.Clone(rs.Consts.NetABI)
	out.Consts.TunerABI = slices.Clone(rs.Consts.TunerABI)
	out.Consts.EnvABI = slices.Clone(rs.Consts.EnvABI)
	out.Consts.ProfilerABI = slices.Clone(rs.Consts.ProfilerABI)
	out.Consts.GinABI = slices.Clone(rs.Consts.GinABI)
	out.Consts.RmaABI = slices.Clone(rs.Consts.RmaABI)
	out.Consts.IntParams = make(map[string]int64, len(rs.Consts.IntParams))
	for k, v := range rs.Consts.IntParams {
		out.Consts.IntParams[k] = v
	}
	for k, r := range rs.rules {
		out.rules[k] = r
	}
	return out
}

func (rs *Ruleset) order(r *Rule) *[]RuleID {
	switch {
	case r.perOp != nil:
		return &rs.Op
	case r.group != nil:
		return &rs.Group
	case r.groupCall:
		return &rs.Call
	}
	return &rs.Init
}

// Add installs a new rule after the rule named after ("" = at the start).
func (rs *Ruleset) Add(r *Rule, after RuleID, note string) {
	if _, dup := rs.rules[r.ID]; dup {
		rs.errs = append(rs.errs, fmt.Errorf("Add of existing rule %s", r.ID))
		return
	}
	ord := rs.order(r)
	if after != "" && !slices.Contains(*ord, after) {
		rs.errs = append(rs.errs, fmt.Errorf("Add of %s after unknown rule %s", r.ID, after))
		return
	}
	rs.rules[r.ID] = r
	*ord = insertAfter(*ord, r.ID, after)
	rs.Changes = append(rs.Changes, Change{Kind: ChangeAdd, Rule: r.ID, Ref: r.Ref, Note: note, Since: rs.Version})
}

// Replace installs a new variant of an existing rule.
func (rs *Ruleset) Replace(r *Rule, note string) {
	old, ok := rs.rules[r.ID]
	if !ok {
		rs.errs = append(rs.errs, fmt.Errorf("Replace of unknown rule %s", r.ID))
		return
	}
	rs.rules[r.ID] = r
	rs.Changes = append(rs.Changes, Change{Kind: ChangeReplace, Rule: r.ID, Old: old.Ref.String(), New: r.Ref.String(), Ref: r.Ref, Note: note, Since: rs.Version})
}

// Remove drops a rule that the release no longer has.
func (rs *Ruleset) Remove(id RuleID, ref Ref, note string) {
	r, ok := rs.rules[id]
	if !ok {
		rs.errs = append(rs.errs, fmt.Errorf("Remove of unknown rule %s", id))
		return
	}
	delete(rs.rules, id)
	ord := rs.order(r)
	*ord = slices.DeleteFunc(*ord, func(x RuleID) bool { return x == id })
	rs.Changes = append(rs.Changes, Change{Kind: ChangeRemove, Rule: id, Old: r.Ref.String(), Ref: ref, Note: note, Since: rs.Version})
}

// Move places an existing rule after another (evaluation order changed).
func (rs *Ruleset) Move(id, after RuleID, ref Ref, note string) {
	r, ok := rs.rules[id]
	if !ok {
		rs.errs = append(rs.errs, fmt.Errorf("Move of unknown rule %s", id))
		return
	}
	ord := rs.order(r)
	if after != "" && (after == id || !slices.Contains(*ord, after)) {
		rs.errs = append(rs.errs, fmt.Errorf("Move of %s after unknown rule %s", id, after))
		return
	}
	*ord = slices.DeleteFunc(*ord, func(x RuleID) bool { return x == id })
	*ord = insertAfter(*ord, id, after)
	rs.Changes = append(rs.Changes, Change{Kind: ChangeMove, Rule: id, New: "after " + string(after), Ref: ref, Note: note, Since: rs.Version})
}

// SetParamDefault changes (or adds, with old "absent") an integer
// parameter's compiled default.
func (rs *Ruleset) SetParamDefault(name string, def int64, ref Ref) {
	old, ok := rs.Consts.IntParams[name]
	oldS := ParamDefaultString(old)
	if !ok {
		oldS = "absent"
	}
	rs.Consts.IntParams[name] = def
	rs.Changes = append(rs.Changes, Change{Kind: ChangeValue, Path: "param." + name, Old: oldS, New: ParamDefaultString(def), Ref: ref, Since: rs.Version})
}

// DropParam removes an integer parameter a release does not read: a
// backward delta's way to say the older tag lacks it.
func (rs *Ruleset) DropParam(name string, ref Ref) {
	old, ok := rs.Consts.IntParams[name]
	if !ok {
		rs.errs = append(rs.errs, fmt.Errorf("DropParam of unknown parameter %s", name))
		return
	}
	delete(rs.Consts.IntParams, name)
	rs.Changes = append(rs.Changes, Change{Kind: ChangeValue, Path: "param." + name, Old: ParamDefaultString(old), New: "absent", Ref: ref, Since: rs.Version})
}

// citesLater says a rule of release v cites a tag (tv) v cannot have read:
// one newer than v. A release before the anchor keeps the anchor's (or a
// later backward delta's) citation of every rule its own backward delta
// does not change, so for it only a tag newer than the anchor is.
func citesLater(v, tv Version) bool {
	if v < AnchorRelease() {
		return tv > AnchorRelease()
	}
	return tv > v
}

// UndefInt is NCCL_CONFIG_UNDEF_INT (INT_MIN): the default of a parameter
// NCCL decides itself when it is unset (src/include/nccl_common.h).
const UndefInt = math.MinInt32

// ParamDefaultString prints a parameter default as a person reads it:
// the UndefInt sentinel as what it means, not as -2147483648.
func ParamDefaultString(v int64) string {
	if v == UndefInt {
		return "unset (NCCL decides)"
	}
	return fmt.Sprint(v)
}

// TopoDelta applies a release's change to the topology stage's rules
// (topo.Apply2_28_3, ...) and records every field it changed as
// "topo.<Field>", citing the field's place in NCCL's source at tag.
func (rs *Ruleset) TopoDelta(apply func(*topo.Params), tag, note string) {
	old := rs.TopoParams
	old.PathOrder = slices.Clone(old.PathOrder)
	apply(&rs.TopoParams)
	ov, nv := reflect.ValueOf(old), reflect.ValueOf(rs.TopoParams)
	for i := range ov.NumField() {
		name := ov.Type().Field(i).Name
		if name == "Release" || reflect.DeepEqual(ov.Field(i).Interface(), nv.Field(i).Interface()) {
			continue
		}
		file, fn := topo.ParamSource(name, tag)
		rs.Changes = append(rs.Changes, Change{Kind: ChangeValue, Path: "topo." + name,
			Old: fmt.Sprint(ov.Field(i).Interface()), New: fmt.Sprint(nv.Field(i).Interface()), Ref: Ref{Tag: tag, File: file, Func: fn}, Note: note, Since: rs.Version})
	}
}

// TuningDelta applies a release's change to the tuning model's constants
// (tuningApply2_28_3, ...) and records each change as "tuning.<path>"; an
// error of the delta fails the release's build.
func (rs *Ruleset) TuningDelta(apply func(*tuning.Consts) ([]tuning.Change, error)) {
	changes, err := apply(rs.Tuning)
	if err != nil {
		rs.errs = append(rs.errs, err)
	}
	for _, ch := range changes {
		rs.Changes = append(rs.Changes, Change{Kind: ChangeValue, Path: "tuning." + ch.Path, Old: ch.Old, New: ch.New, Ref: ch.Ref, Since: rs.Version})
	}
}

// SetConst sets the field of Consts named by path to value and records the
// change with the old value read from the field itself, so the changelog
// cannot disagree with the constants. A path that names no field, or a value
// of another type, fails the release's build.
func (rs *Ruleset) SetConst(path string, value any, ref Ref) {
	f := reflect.ValueOf(&rs.Consts).Elem().FieldByName(path)
	if !f.IsValid() || !f.CanSet() {
		rs.errs = append(rs.errs, fmt.Errorf("SetConst %s: Consts has no such field", path))
		return
	}
	nv := reflect.ValueOf(value)
	if !nv.IsValid() || nv.Type() != f.Type() {
		rs.errs = append(rs.errs, fmt.Errorf("SetConst %s: value %v is a %T, the field is a %s", path, value, value, f.Type()))
		return
	}
	old := fmt.Sprint(f.Interface())
	if nv.Kind() == reflect.Slice { // never share a slice with the previous release
		c := reflect.MakeSlice(nv.Type(), nv.Len(), nv.Len())
		reflect.Copy(c, nv)
		nv = c
	}
	f.Set(nv)
	rs.Changes = append(rs.Changes, Change{Kind: ChangeValue, Path: path, Old: old, New: fmt.Sprint(f.Interface()), Ref: ref, Since: rs.Version})
}

func insertAfter(list []RuleID, id, after RuleID) []RuleID {
	if after == "" {
		return append([]RuleID{id}, list...)
	}
	i := slices.Index(list, after) // the callers checked that it is there
	return slices.Insert(list, i+1, id)
}

// Load returns the ruleset of a release: the chain of deltas applied to a
// fresh base. The chain is built once (every caller asks for the same
// values) and each call gets its own copy, so nothing shared is mutated.
func Load(v Version) (*Ruleset, error) {
	if !Supported(v) {
		return nil, &UnsupportedError{Version: v}
	}
	c := builtChain()
	for i, rel := range releaseList {
		if i == len(c.sets) {
			return nil, c.err
		}
		if rel.Version == v {
			return c.sets[i].copy(), nil
		}
	}
	return nil, &UnsupportedError{Version: v}
}

// releaseChain is every release's ruleset in releaseList order, up to the
// first release whose delta fails (err).
type releaseChain struct {
	sets []*Ruleset
	err  error
}

var builtChain = sync.OnceValue(func() releaseChain {
	var c releaseChain
	a := anchorIndex()
	sets := make([]*Ruleset, len(releaseList))
	rs := &Ruleset{rules: map[RuleID]*Rule{}}
	for i := a; i < len(releaseList); i++ {
		var err error
		if rs, err = releaseList[i].build(rs, i == a); err != nil {
			c.err = err
			return c
		}
		sets[i] = rs
	}
	for i := a - 1; i >= 0; i-- {
		older, fwd, err := releaseList[i].buildBack(sets[i+1])
		if err != nil {
			c.err = err
			return c
		}
		sets[i+1].Changes = fwd
		sets[i] = older
	}
	c.sets = sets
	return c
})

// copy is a ruleset that shares nothing mutable with rs.
func (rs *Ruleset) copy() *Ruleset {
	out := rs.clone(rs.Version)
	out.Changes = slices.Clone(rs.Changes)
	return out
}

// MustLoad is Load for modelled releases known at compile time.
func MustLoad(v Version) *Ruleset {
	rs, err := Load(v)
	if err != nil {
		panic(err)
	}
	return rs
}

// Validate checks a ruleset the way analysis.Validate checks analyzers:
// every ID well formed and unique, every rule documented with a source
// reference at a tag not newer than the release, exactly one evaluator, and
// every rule reachable in an order list. It returns every problem at once.
func Validate(rs *Ruleset) error {
	var errs []string
	seen := map[RuleID]bool{}
	check := func(ids []RuleID, kind int) {
		for _, id := range ids {
			if seen[id] {
				errs = append(errs, fmt.Sprintf("%s: listed twice", id))
			}
			seen[id] = true
			r, ok := rs.rules[id]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: in the order but not defined", id))
				continue
			}
			if r.ID != id {
				errs = append(errs, fmt.Sprintf("%s: registered under a different ID %s", r.ID, id))
			}
			if !ruleIDPattern.MatchString(string(id)) {
				errs = append(errs, fmt.Sprintf("%s: ID not of the form G-LAYER-NAME-N", id))
			}
			if strings.TrimSpace(r.Doc) == "" || strings.TrimSpace(r.Title) == "" {
				errs = append(errs, fmt.Sprintf("%s: no title or doc", id))
			}
			if r.Ref.Tag == "" || r.Ref.File == "" || r.Ref.Func == "" {
				errs = append(errs, fmt.Sprintf("%s: incomplete source reference %q", id, r.Ref.String()))
			} else if tv, err := ParseVersion(r.Ref.Tag); err != nil {
				errs = append(errs, fmt.Sprintf("%s: bad tag %q", id, r.Ref.Tag))
			} else if citesLater(rs.Version, tv) {
				errs = append(errs, fmt.Sprintf("%s: reference tag %s is newer than release %s", id, r.Ref.Tag, rs.Version))
			}
			evals := 0
			for _, set := range []bool{r.init != nil, r.perOp != nil, r.group != nil, r.groupCall} {
				if set {
					evals++
				}
			}
			if evals != 1 {
				errs = append(errs, fmt.Sprintf("%s: needs exactly one evaluator", id))
			}
			if ord := rs.order(r); ord != [...]*[]RuleID{&rs.Init, &rs.Op, &rs.Group, &rs.Call}[kind] {
				errs = append(errs, fmt.Sprintf("%s: in the wrong order list", id))
			}
		}
	}
	check(rs.Init, 0)
	check(rs.Op, 1)
	check(rs.Group, 2)
	check(rs.Call, 3)
	for id := range rs.rules {
		if !seen[id] {
			errs = append(errs, fmt.Sprintf("%s: defined but never evaluated", id))
		}
	}
	for _, c := range rs.Changes {
		if c.Ref.Tag == "" {
			errs = append(errs, fmt.Sprintf("change %s %s%s: no reference", c.Kind, c.Rule, c.Path))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	sort.Strings(errs)
	return fmt.Errorf("ruleset %s: %d problems:\n  %s", rs.Version, len(errs), strings.Join(errs, "\n  "))
}

// Span is a run of consecutive modelled releases over which a rule keeps the
// same variant.
type Span struct {
	From, To Version // inclusive; To is the newest modelled release when open
	Open     bool    // true when the span reaches the newest modelled release
	Ref      Ref
}

func (s Span) String() string {
	switch {
	case s.Open && s.From == s.To:
		return s.From.String() + "-"
	case s.Open:
		return s.From.String() + "-"
	case s.From == s.To:
		return s.From.String()
	}
	return s.From.String() + ".." + s.To.String()
}

// Timeline returns, per rule ID, the spans of releases each variant holds
// for. It is the single source of "the releases a rule holds for".
func Timeline() (map[RuleID][]Span, error) {
	out := map[RuleID][]Span{}
	newest := Releases[len(Releases)-1]
	for _, v := range Releases {
		rs, err := Load(v)
		if err != nil {
			return nil, err
		}
		for _, r := range rs.Rules() {
			spans := out[r.ID]
			if n := len(spans); n > 0 && spans[n-1].Ref == r.Ref && spans[n-1].To == prevRelease(v) {
				spans[n-1].To = v
			} else {
				spans = append(spans, Span{From: v, To: v, Ref: r.Ref})
			}
			out[r.ID] = spans
		}
	}
	for id, spans := range out {
		if n := len(spans); n > 0 && spans[n-1].To == newest {
			spans[n-1].Open = true
			out[id] = spans
		}
	}
	return out, nil
}

func prevRelease(v Version) Version {
	for i, r := range Releases {
		if r == v && i > 0 {
			return Releases[i-1]
		}
	}
	return 0
}

// Holds returns the releases the rule's variant in rs holds for.
func Holds(id RuleID, ref Ref) []Version {
	var out []Version
	for _, v := range Releases {
		rs, err := Load(v)
		if err != nil {
			continue
		}
		if r, ok := rs.rules[id]; ok && r.Ref == ref {
			out = append(out, v)
		}
	}
	return out
}

// Diff returns every change of the releases after from up to and including
// to, in chain order: the deltas a reviewer reads to go from one to the
// other.
func Diff(from, to Version) ([]Change, error) {
	if !Supported(from) {
		return nil, &UnsupportedError{Version: from}
	}
	if !Supported(to) {
		return nil, &UnsupportedError{Version: to}
	}
	var out []Change
	for _, v := range Releases {
		if v <= from || v > to {
			continue
		}
		rs, err := Load(v)
		if err != nil {
			return nil, err
		}
		out = append(out, rs.Changes...)
	}
	return out, nil
}
