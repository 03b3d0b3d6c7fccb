// Package oracle answers one question per JSON line: "what does NCCL do
// here?". It is gatesim's reference oracle for other implementations,
// tuners and simulators: a request names a release, a machine, NCCL_*
// variables and one collective; the answer carries NCCL's decision (or its
// error), the evidence level of every capability and the gate trace.
//
// Place in the data flow: JSON request → spec.Init + Comm.Select → JSON
// answer. The package is pure apart from an injected file reader for
// requests that name a system file and the per-request time budget of a
// stream (a timer around each request, never inside the model); the CLI
// (gatesim oracle) streams stdin to stdout.
package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gatesim/gatesim/internal/jsonout"
	"github.com/gatesim/gatesim/internal/lru"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// SchemaVersion is the version of the request and answer format. It changes
// when a field changes meaning or disappears; added fields do not bump it.
//
// Changelog:
//
//	1: first version.
//	2: a request may give "group": [op, ...] (call order) instead of "op",
//	   each op may set "inplace" and "buffers" ("user", "registered",
//	   "window"), and the request may set "launch" ("stream", "graph");
//	   every answer carries "ops", one entry per operation in order (the
//	   top-level decision fields describe the first). Added since, without
//	   a bump: an op's "alloc" ("cumem", the default, or "cudamalloc");
//	   the request's "procs" ("per-gpu", the default, "per-node" or "init-all").
//	3: "plans" counts a group's RMA plans too (ncclLaunchPrepare's nPlans)
//	   and "ops"[].plan numbers the plans in launch order, the RMA plans
//	   first, so both changed for a group with one-sided calls, which
//	   version 2 accepted ("putSignal", "signal", "waitSignal"); a one-sided
//	   call's entry gains "plan". Every other answer is as in version 2.
//	   Added since, without a bump: "before" (earlier devCommCreate and
//	   devCommDestroy calls), coll "devCommDestroy" with "dev_comm_nth",
//	   the entries' "dev_comm_release" and dev_comm's "strong_signals".
const SchemaVersion = 3

// Request is one line of input.
type Request struct {
	// ID is echoed back unchanged (any JSON value).
	ID json.RawMessage `json:"id,omitempty"`
	// NCCL is the release: "2.28.9", "v2.28.9-1" or 22809.
	NCCL json.RawMessage `json:"nccl"`
	// System is a preset name, a path to a system file (JSON/YAML), a path
	// to NCCL's topology XML of one host (".xml"), or an inline system
	// object.
	System json.RawMessage `json:"system"`
	// Nodes and SHARP vary a preset (Nodes also copies a topology XML).
	Nodes int  `json:"nodes,omitempty"`
	SHARP bool `json:"sharp,omitempty"`
	// Procs is how the ranks are spread over processes: "per-gpu" (the
	// default: mpirun, srun, torchrun), "per-node" (one process drives
	// every GPU of its node: ncclCommInitRank per GPU in a group) or
	// "init-all" (per-node through ncclCommInitAll, one node).
	Procs string `json:"procs,omitempty"`
	// Plugins are libraries added to every node (spec.Library objects).
	Plugins []spec.Library `json:"plugins,omitempty"`
	// PluginNames are plugins gatesim knows by name, added to every node
	// as their libraries: "aws-ofi-nccl@VERSION:PLATFORM".
	PluginNames []string `json:"plugin_names,omitempty"`
	// Env are NCCL_* variables; a value may be "" (set but empty).
	Env map[string]string `json:"env,omitempty"`
	// Config is the communicator's ncclConfig_t (ncclCommInitRankConfig):
	// NCCL's field names, a number or (netName, commName) a string each.
	Config json.RawMessage `json:"config,omitempty"`
	Op     *OpRequest      `json:"op"`
	// Group lists the operations of one ncclGroupStart/End in call order
	// (instead of Op); Launch is "stream" (default) or "graph" (captured
	// into a CUDA graph).
	Group  []*OpRequest `json:"group,omitempty"`
	Launch string       `json:"launch,omitempty"`
	// Before are calls the communicator made before op or group, each
	// outside a group, in order: devCommCreate and devCommDestroy only
	// (at most MaxBefore), so that a request can destroy a device
	// communicator and make another.
	Before []*OpRequest `json:"before,omitempty"`
	// Tuner is a tuner plugin (.so) to load as NCCL would, under one of
	// the directories the oracle was started with (--tuner-dir).
	Tuner string `json:"tuner,omitempty"`
}

// OpRequest is the collective.
type OpRequest struct {
	Coll string `json:"coll"`
	// Bytes is a number or a size string ("1MiB"); Count is the element
	// count instead. Bytes is count × element size, as NCCL logs it.
	Bytes json.RawMessage `json:"bytes,omitempty"`
	Count *int64          `json:"count,omitempty"`
	DType string          `json:"dtype,omitempty"` // default float32
	RedOp string          `json:"redop,omitempty"` // default sum
	Root  int             `json:"root,omitempty"`
	// Peer makes coll "send" or "recv" one ncclSend or ncclRecv of rank
	// 0 to or from this rank (without it, nccl-tests' SendRecv ring).
	Peer *int `json:"peer,omitempty"`
	// InPlace: the receive buffer is the send buffer. Buffers: "user"
	// (default), "registered" (ncclCommRegister) or "window"
	// (ncclCommWindowRegister). Alloc: how the buffers were allocated,
	// "cumem" (default: ncclMemAlloc, as nccl-tests does) or "cudamalloc",
	// which NCCL registers neither with NVLS nor, from 2.24.3 unless
	// NCCL_LEGACY_CUDA_REGISTER=1, over IPC; windows are always cumem.
	InPlace bool   `json:"inplace,omitempty"`
	Buffers string `json:"buffers,omitempty"`
	Alloc   string `json:"alloc,omitempty"`
	// A one-sided call (2.29.2+): coll "putSignal" (bytes, peer; buffers
	// "window" for a source in a symmetric window; no_peer_win for a NULL
	// peerWin), "signal" (peer) or "waitSignal" (peers, one descriptor
	// each, op_cnt signals each, default 1); ctx, sig_idx and flags as
	// the call passes them.
	Peers     []int  `json:"peers,omitempty"`
	OpCnt     *int   `json:"op_cnt,omitempty"`
	Ctx       int    `json:"ctx,omitempty"`
	SigIdx    int    `json:"sig_idx,omitempty"`
	Flags     uint32 `json:"flags,omitempty"`
	NoPeerWin bool   `json:"no_peer_win,omitempty"`
	// DevComm: coll "devCommCreate" (2.28.3+) makes a device communicator
	// with these ncclDevCommRequirements_t fields, by NCCL's names
	// ("ginContextCount"; absent: NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER).
	DevComm *spec.DevCommReqs `json:"dev_comm,omitempty"`
	// DevCommNth: coll "devCommDestroy" (2.28.3+) destroys the
	// communicator's nth device communicator (1-based: the nth
	// devCommCreate of the request, before's first).
	DevCommNth int `json:"dev_comm_nth,omitempty"`
}

// MaxBefore bounds a request's before calls.
const MaxBefore = 64

// OpAnswer is one operation's decision in a group, in call order.
type OpAnswer struct {
	Coll      string       `json:"coll"`
	Bytes     int64        `json:"bytes"`
	Status    string       `json:"status"`
	Error     *AnswerError `json:"error,omitempty"`
	Discarded bool         `json:"discarded,omitempty"`
	Algo      *string      `json:"algo"`
	Proto     *string      `json:"proto"`
	NChannels *int         `json:"nchannels,omitempty"`
	ChannelLo *int         `json:"channel_lo,omitempty"`
	ChannelHi *int         `json:"channel_hi,omitempty"`
	NThreads  *int         `json:"nthreads,omitempty"`
	TimeUs    *float64     `json:"time_us,omitempty"`
	// Chunk is calcCollChunking's chunk of the operation's channels
	// (G-SEL-CHUNK-1); absent where no cost-table collective runs.
	Chunk ChunkAnswer `json:"chunk,omitzero"`
	// Kernel names the path outside the cost table that runs the
	// operation: the symmetric kernel NCCL picked on window buffers
	// ("AllGather_ST"; nchannels are its blocks), "copy-engine" (a CE
	// collective; "hierarchical-ce" across LSA teams, 2.30.7+) or, for a
	// one-sided call, its RMA path ("rma-ce", "rma-proxy" or
	// "rma-ce+proxy"; 2.29.2+, with rma); empty on the cost-table path.
	Kernel string `json:"kernel,omitempty"`
	// CTABytes: with a symmetric kernel, the most bytes one of its blocks
	// works on; CTAParts the pieces of this operation's bytes and the
	// blocks that move each (G-SCHED-SYMRANGE-1: blocks cta_lo..cta_hi
	// share bytes offset..offset+bytes evenly).
	CTABytes int64            `json:"cta_bytes,omitempty"`
	CTAParts []tuning.SymPart `json:"cta_parts,omitempty"`
	// Aggregate is how many operations were decided together with this one
	// (itself included); Registered the buffer registration NCCL made.
	Aggregate  int    `json:"aggregate,omitempty"`
	Registered string `json:"registered,omitempty"`
	// Plan is the plan (0-based launch) of the group that runs the
	// operation and ArgsBytes that plan's kernel argument bytes
	// (G-SCHED-BUDGET-1 from 2.22.3; a symmetric kernel's or a
	// copy-engine collective's plan from 2.28.3, launched before the cost
	// table's; a one-sided call's RMA plan from 2.29.2, launched before
	// all of them); absent where the model gives none.
	Plan      *int `json:"plan,omitempty"`
	ArgsBytes int  `json:"args_bytes,omitempty"`
	// P2P: the operation (a SendRecv or an AllToAll) runs as send/recv
	// tasks on NCCL's point-to-point channels, outside the cost table.
	// P2PTasks are rank 0's tasks as the group's plan placed them
	// (G-SCHED-P2P-1); nchannels, channel_lo and channel_hi then give the
	// distinct channels the tasks use and the lowest and highest of them
	// (a task's own channels need not be a range: see its channels).
	P2P      bool            `json:"p2p,omitempty"`
	P2PTasks []P2PTaskAnswer `json:"p2p_tasks,omitempty"`
	// RMA is a one-sided call's path (kernel names it): its tasks, each
	// to its peers on the copy engines ("CE") or the RMA proxy ("proxy"),
	// and its RMA plan (plan gives it too: the group's RMA plans launch
	// first, and its other plans are numbered after them).
	RMA *spec.RMAPath `json:"rma,omitempty"`
	// DevComm is the device communicator ncclDevCommCreate built: its GIN
	// connection, connections and contexts (G-DEVCOMM-1, 2.28.3+).
	DevComm *spec.DevCommResult `json:"dev_comm,omitempty"`
	// DevCommRelease is what ncclDevCommDestroy gave back
	// (G-DEVCOMM-DESTROY-1, 2.28.3+).
	DevCommRelease *spec.DevCommRelease `json:"dev_comm_release,omitempty"`
	DecidedBy      string               `json:"decided_by,omitempty"`
}

// P2PTaskAnswer is one ncclSend or ncclRecv of rank 0: its peer,
// direction ("send" or "recv"), bytes, protocol, round of
// comm->p2pSchedule (-1 before 2.22.3), channel count, channels in part
// order (a run up modulo p2pnChannels from 2.28.3, spread by bit reversal
// before) and plan.
type P2PTaskAnswer struct {
	Peer      int    `json:"peer"`
	Dir       string `json:"dir"`
	Bytes     int64  `json:"bytes"`
	Proto     string `json:"proto"`
	Round     int    `json:"round"`
	NChannels int    `json:"nchannels"`
	Channels  []int  `json:"channels"`
	Plan      int    `json:"plan"`
	// Registered: the buffer registration addP2pToPlan made ("IPC" or
	// "NET", G-REG-P2P-1); absent when none.
	Registered string `json:"registered,omitempty"`
	// Skipped: a send to self or its receive on one buffer, which NCCL
	// drops without a work (G-SCHED-P2P-3, 2.22.3+): no channels, plan -1.
	Skipped bool `json:"skipped,omitempty"`
}

// ChunkAnswer is the chunk in bytes of the task's first channel (lo), of
// each channel between (mid, absent without one) and of its last (hi,
// absent on one channel); a CollNet task, and NVLS across nodes, has one
// chunk (lo) for all its channels. step_bytes is the protocol's FIFO step
// (buffer / NCCL_STEPS); chunk_steps and slice_steps the steps per chunk
// and per slice (Ring/Simple: the function's, otherwise 1); tuner: a
// declarative v6 tuner rule's chunk_size set the chunk (a loaded plugin's
// getChunkSize is not asked for the answer). proxy_reg and proxy_nsteps
// appear only when the network or CollNet registered the buffers
// (G-REG-PROXY-1): the proxy op's reg and the FIFO steps it drives for
// the first channel's part, proxy_fifo_nsteps what it would drive
// unregistered (absent where not modelled, before 2.22.3).
type ChunkAnswer struct {
	Lo              int64 `json:"lo"`
	Mid             int64 `json:"mid,omitempty"`
	Hi              int64 `json:"hi,omitempty"`
	StepBytes       int   `json:"step_bytes"`
	ChunkSteps      int   `json:"chunk_steps"`
	SliceSteps      int   `json:"slice_steps"`
	Tuner           bool  `json:"tuner,omitempty"`
	ProxyReg        bool  `json:"proxy_reg,omitempty"`
	ProxyNSteps     int64 `json:"proxy_nsteps,omitempty"`
	ProxyFIFONSteps int64 `json:"proxy_fifo_nsteps,omitempty"`
}

// Answer is one line of output.
type Answer struct {
	Schema int             `json:"schema"`
	ID     json.RawMessage `json:"id,omitempty"`
	// Status is "ok" (NCCL runs the operation), "error" (NCCL returns an
	// error: see Error) or "invalid" (the request itself is malformed: see
	// Invalid).
	Status  string        `json:"status"`
	Error   *AnswerError  `json:"error,omitempty"`
	Invalid *InvalidError `json:"invalid,omitempty"`
	// Internal is set with status "internal": a bug in gatesim, not in the
	// request; the message names the request.
	Internal string `json:"internal,omitempty"`

	NCCL       string   `json:"nccl,omitempty"`
	Algo       *string  `json:"algo"`
	Proto      *string  `json:"proto"`
	Candidates []string `json:"candidates,omitempty"`
	Undecided  string   `json:"undecided,omitempty"`
	// Discarded: NCCL drops the call (count 0); nothing runs.
	Discarded bool   `json:"discarded,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
	Fallback  bool   `json:"fallback"`

	Net            string        `json:"net,omitempty"`
	CollNetSupport bool          `json:"collnet_support"`
	NVLSSupport    bool          `json:"nvls_support"`
	Evidence       spec.Evidence `json:"evidence,omitempty"`

	NChannels *int     `json:"nchannels,omitempty"`
	ChannelLo *int     `json:"channel_lo,omitempty"`
	ChannelHi *int     `json:"channel_hi,omitempty"`
	NThreads  *int     `json:"nthreads,omitempty"`
	TimeUs    *float64 `json:"time_us,omitempty"`
	// Kernel is the first operation's kernel outside the cost table (as
	// its "ops" entry gives it), where it has one.
	Kernel string `json:"kernel,omitempty"`
	// P2P is set for SendRecv and AllToAll: NCCL's point-to-point path
	// (no cost table; algo and proto are null, the protocol is chosen per
	// peer by size when the work is planned).
	P2P *spec.P2PPath `json:"p2p,omitempty"`

	// Ops is every operation's decision in call order (one entry for a
	// lone "op").
	Ops []OpAnswer `json:"ops,omitempty"`
	// Before is every call of the request's before, in order.
	Before []OpAnswer `json:"before,omitempty"`
	// Plans is how many plans a group (or a captured or registered
	// operation) launches: its RMA, copy-engine, symmetric and kernel
	// plans (ncclLaunchPrepare's nPlans).
	Plans int `json:"plans,omitempty"`

	// Tuner is what a request's tuner plugin did.
	Tuner *TunerReport `json:"tuner,omitempty"`

	Trace []TraceEntry `json:"trace,omitempty"`

	// budget: the oracle's budget refused the request (its answer names
	// the line in a stream).
	budget bool
}

// TunerReport is what a tuner plugin did: the ABI NCCL accepted, init,
// the getCollInfo call (cost table before and after) and whether it
// changed NCCL's choice. Fault is a crash or hang, contained.
type TunerReport struct {
	Path       string            `json:"path"`
	Symbols    []int             `json:"symbols"`
	ABI        int               `json:"abi"`
	Name       string            `json:"name,omitempty"`
	InitResult string            `json:"init_result,omitempty"`
	InitLog    []string          `json:"init_log,omitempty"`
	Fault      string            `json:"fault,omitempty"`
	Call       *spec.TunerEffect `json:"call,omitempty"`
	Without    string            `json:"without,omitempty"`
	Changed    bool              `json:"changed"`
}

// TunerFunc builds the communicator with the plugin at path loaded and
// decides op; the CLI provides it (it runs the plugin in a child process
// and checks path against the allowed directories).
type TunerFunc func(path string, rs *spec.Ruleset, sys *spec.System, env spec.Env, op spec.Op) (*spec.Decision, spec.Trace, *TunerReport, error)

// AnswerError is NCCL's error.
type AnswerError struct {
	Result  string `json:"result"`
	Message string `json:"message"`
	Call    string `json:"call,omitempty"`
	// Abort is set when the call never returns the error: the process
	// aborts after NCCL logged it (G-INIT-ABORT-1).
	Abort *spec.Abort `json:"abort,omitempty"`
}

// InvalidError names the request field that is wrong.
type InvalidError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// TraceEntry is one gate verdict.
type TraceEntry struct {
	Rule    string   `json:"rule"`
	Verdict string   `json:"verdict"`
	Why     string   `json:"why,omitempty"`
	Log     []string `json:"log,omitempty"`
	Scope   string   `json:"scope,omitempty"`
}

// Oracle answers requests; it keeps the rulesets it has loaded and the
// communicators it has built. HandleLine is safe for concurrent use.
type Oracle struct {
	readFile func(string) ([]byte, error)
	mu       sync.Mutex // guards rulesets
	rulesets map[spec.Version]*spec.Ruleset
	// topo keeps topology searches across the requests of a batch.
	topo *spec.Cache
	// comms keeps communicators by the request's release, machine and
	// environment, before any system is built: a batch names few machines,
	// and a communicator answers any number of operations.
	comms *lru.Cache[string, *commEntry]
	// answers keeps answers by the request's fingerprint (answercache.go).
	answers *lru.Cache[string, *keptAnswer]
	// Trace controls whether answers carry the gate trace (default true).
	Trace bool
	// Tuner serves requests that name a tuner (nil: such requests are
	// invalid).
	Tuner TunerFunc
	// MaxRanks is the per-request budget: a request on a machine of more
	// ranks is invalid (0: spec.MaxRanks). Time and memory grow with the
	// ranks; docs/limits.md gives both at the default.
	MaxRanks int
	// MaxMemory is the per-request memory budget in bytes (0:
	// DefaultMaxMemory): a request whose estimate exceeds it is invalid
	// before any work is done for it.
	MaxMemory int64
	// Timeout is the per-request time budget when Serve answers a stream
	// (0: DefaultTimeout); HandleLine alone has none.
	Timeout time.Duration
	// Workers is how many requests Serve answers at once (answers keep the
	// input's order); 0 or 1 answers one at a time.
	Workers int
}

// DefaultMaxRanks is the oracle's per-request budget unless the operator
// sets one: a request of 4,096 ranks (512 DGX H100 nodes) is answered in
// 0.3 s and 23 MB (docs/limits.md).
const DefaultMaxRanks = 4096

func (o *Oracle) maxRanks() int {
	if o.MaxRanks > 0 {
		return o.MaxRanks
	}
	return spec.MaxRanks
}

// New returns an oracle; readFile serves requests whose "system" is a path
// (nil: such requests are invalid).
func New(readFile func(string) ([]byte, error)) *Oracle {
	return &Oracle{readFile: readFile, rulesets: map[spec.Version]*spec.Ruleset{}, topo: spec.NewCache(0),
		comms: lru.New[string, *commEntry](CommCacheSize), answers: lru.New[string, *keptAnswer](AnswerCacheSize), Trace: true}
}

// CommCacheSize is how many communicators an oracle keeps (least recently
// used forgotten first).
const CommCacheSize = 4096

// commEntry is what a request's machine, release and environment lead to:
// a communicator, or the answer that the system is invalid.
type commEntry struct {
	comm *spec.Comm
	// initJSON is the init trace's entries encoded once (comma-separated,
	// as they appear in every answer's "trace" array on this communicator).
	initOnce sync.Once
	initJSON []byte
	// field and err make the request invalid; beforeOp: the system or
	// environment is wrong (reported before the operation is looked at),
	// otherwise Init refused the system (reported after).
	field    string
	err      error
	beforeOp bool
}

// prepare checks and builds a request's system and environment: the
// system, the environment, the per-request budget, then NCCL_GRAPH_FILE.
func (o *Oracle) prepare(req *Request) (*spec.System, spec.Env, string, error) {
	sys, field, err := o.system(*req)
	if err != nil {
		return nil, nil, field, err
	}
	if req.Procs != "" {
		if sys.Procs, err = spec.ParseProcs(req.Procs); err != nil {
			return nil, nil, "procs", err
		}
	}
	if len(req.Env) > spec.MaxEnvVars {
		return nil, nil, "env", fmt.Errorf("%d variables: expected at most %d (gatesim's limit)", len(req.Env), spec.MaxEnvVars)
	}
	env := spec.Env{}
	for k, val := range req.Env {
		if _, err := spec.ParseAssignments([]string{k + "=" + val}); err != nil {
			return nil, nil, "env." + k, err
		}
		env[k] = val
	}
	if ranks, budget := sys.NRanks(), o.maxRanks(); ranks > budget {
		return nil, nil, "system", overBudget("%d ranks: this oracle answers requests of at most %d ranks (its per-request budget, --max-ranks)", ranks, budget)
	}
	if err := o.checkMemory(sys.NRanks(), 1); err != nil {
		return nil, nil, "system", err
	}
	if len(req.Config) > 0 {
		sys.CommConfig = &spec.Config{}
		if err := json.Unmarshal(req.Config, sys.CommConfig); err != nil {
			return nil, nil, "config", err
		}
	}
	if path, ok := env.Lookup("NCCL_GRAPH_FILE"); ok && path != "" {
		if o.readFile == nil {
			return nil, nil, "env.NCCL_GRAPH_FILE", fmt.Errorf("this oracle reads no files: give the system inline, or ask the operator for --allow-dir")
		}
		if err := spec.ReadGraphFile(sys, env, o.readFile); err != nil {
			return nil, nil, "env.NCCL_GRAPH_FILE", err
		}
	}
	return sys, env, "", nil
}

// build makes the communicator of a request.
func (o *Oracle) build(rs *spec.Ruleset, req *Request) *commEntry {
	sys, env, field, err := o.prepare(req)
	if err == nil {
		field, err = "config", rs.CheckConfig(sys.CommConfig)
	}
	if err != nil {
		return &commEntry{field: field, err: err, beforeOp: true}
	}
	comm, err := o.topo.Init(rs, sys, env)
	if err != nil {
		return &commEntry{field: "system", err: err}
	}
	return &commEntry{comm: comm}
}

// maxPluginNames bounds a request's plugin_names.
const maxPluginNames = 8

// commKey names a request's communicator without building its system:
// the release, the system as written (preset name or inline object; a
// file's contents may change, so file systems and graph files are not
// kept), nodes, SHARP, procs, plugins and the environment in name order. "" when
// it cannot be kept (a tuner plugin's communicator is its own).
func commKey(v spec.Version, req *Request) string {
	raw := bytes.TrimSpace(req.System)
	if len(raw) == 0 || req.Tuner != "" || req.Env["NCCL_GRAPH_FILE"] != "" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || !spec.IsPreset(s) {
			return ""
		}
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(v)))
	b.WriteByte(0)
	b.Write(raw)
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(req.Nodes))
	b.WriteByte(0)
	b.WriteString(strconv.FormatBool(req.SHARP))
	b.WriteByte(0)
	b.WriteString(req.Procs)
	b.WriteByte(0)
	if len(req.Plugins) > 0 {
		p, err := json.Marshal(req.Plugins)
		if err != nil {
			return ""
		}
		b.Write(p)
	}
	b.WriteByte(0)
	for _, n := range req.PluginNames {
		b.WriteString(n)
		b.WriteByte(1)
	}
	b.WriteByte(0)
	b.Write(req.Config)
	keys := make([]string, 0, len(req.Env))
	for k := range req.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(req.Env[k])
	}
	return b.String()
}

// HandleLine answers one JSON line; it never fails: a malformed request
// gets an "invalid" answer naming the field, and a bug of gatesim's (a
// panic) an "internal" answer with the request, so the stream goes on.
func (o *Oracle) HandleLine(line []byte) (out []byte) {
	return o.handle(0, line)
}

// handle is HandleLine for line n of a stream (0: unknown): an answer
// refused by the budget names the line.
func (o *Oracle) handle(n int, line []byte) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			req := string(line)
			if len(req) > 1000 {
				req = req[:1000] + "…"
			}
			out = marshal(&Answer{Schema: SchemaVersion, Status: "internal", Internal: fmt.Sprintf("internal error: %v; request: %s", r, req)})
		}
	}()
	key, id, keyed := requestFingerprint(line)
	keyed = keyed && o.answers != nil
	settings := o.answerSettings()
	if keyed {
		if k, ok := o.answers.Get(key); ok && k.settings == settings {
			return k.write(id)
		}
	}
	a, ce, opTrace, stable := o.answer(line)
	if a.Invalid != nil && n > 0 { // a stream's request: name its line
		a.Invalid.Message = fmt.Sprintf("line %d: %s", n, a.Invalid.Message)
	}
	withTrace := a.Status != "invalid" && o.Trace && ce != nil
	// the answer is encoded without its id, which goes after the schema
	reqID := a.ID
	a.ID = nil
	rest, ok := appendAnswer(make([]byte, 0, 1024), a)
	a.ID = reqID
	var idJSON []byte
	if ok && len(reqID) > 0 {
		var err error
		idJSON, err = json.Marshal(reqID) // compacted and checked as json.Marshal does
		ok = err == nil
	}
	if !ok || !bytes.HasPrefix(rest, schemaPrefix) {
		// json.Marshal writes it; the trace follows as above
		out := marshal(a)
		if !withTrace {
			return out
		}
		ce.initOnce.Do(func() { ce.initJSON = traceJSON(nil, ce.comm.Trace) })
		if len(ce.initJSON) == 0 && len(opTrace) == 0 {
			return out
		}
		return assembleAnswer(nil, nil, out[len(schemaPrefix):len(out)-1], true, ce.initJSON, traceJSON(nil, opTrace))
	}
	k := &keptAnswer{rest: rest[len(schemaPrefix) : len(rest)-1], withTrace: withTrace, settings: settings}
	if withTrace {
		// "trace" is the answer's last field: the communicator's init
		// entries, encoded once, then this operation's, as json.Marshal
		// writes a slice.
		ce.initOnce.Do(func() { ce.initJSON = traceJSON(nil, ce.comm.Trace) })
		k.initJSON = ce.initJSON
		k.opJSON = traceJSON(make([]byte, 0, 512*len(opTrace)), opTrace)
	}
	if keyed && stable && a.Status != "invalid" && a.Status != "internal" && len(key)+len(k.rest)+len(k.opJSON) <= maxKeptAnswer {
		o.answers.Put(key, k)
	}
	return k.write(idJSON)
}

func marshal(a *Answer) []byte {
	var v any = a
	switch a.Status {
	case "internal":
		v = struct {
			Schema   int    `json:"schema"`
			Status   string `json:"status"`
			Internal string `json:"internal"`
		}{a.Schema, a.Status, a.Internal}
	case "invalid": // only the fields that mean something
		v = struct {
			Schema  int             `json:"schema"`
			ID      json.RawMessage `json:"id,omitempty"`
			Status  string          `json:"status"`
			Invalid *InvalidError   `json:"invalid"`
		}{a.Schema, a.ID, a.Status, a.Invalid}
	}
	b, err := json.Marshal(v)
	if err != nil { // cannot happen for these types; say so rather than panic
		return []byte(fmt.Sprintf(`{"schema":%d,"status":"invalid","invalid":{"field":"","message":%q}}`, SchemaVersion, err.Error()))
	}
	return b
}

// traceJSON appends the trace's entries as the answer encodes them,
// comma-separated.
func traceJSON(dst []byte, t spec.Trace) []byte {
	for i, v := range t {
		if i > 0 {
			dst = append(dst, ',')
		}
		e := traceEntry(v)
		dst = appendTraceEntry(dst, &e)
	}
	return dst
}

func traceEntry(v spec.Verdict) TraceEntry {
	return TraceEntry{Rule: string(v.Rule), Verdict: v.Outcome.String(), Why: v.WhyText(), Log: v.Log, Scope: v.Scope}
}

func invalid(id json.RawMessage, field, format string, args ...any) *Answer {
	return &Answer{Schema: SchemaVersion, ID: id, Status: "invalid", Invalid: &InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}}
}

// answer decides a request; stable is true when the answer depends on the
// request's text and the oracle's settings only (the answer cache may keep
// it).
func (o *Oracle) answer(line []byte) (_ *Answer, _ *commEntry, _ spec.Trace, stable bool) {
	var req Request
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		field := ""
		var ute *json.UnmarshalTypeError
		if ok := asType(err, &ute); ok {
			field = ute.Field
		} else if s := err.Error(); strings.HasPrefix(s, "json: unknown field ") {
			field = strings.Trim(strings.TrimPrefix(s, "json: unknown field "), `"`)
		}
		return invalid(probe.ID, field, "%v: expected one JSON object per line with nccl, system, env and op", err), nil, nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalid(req.ID, "", "data after the request object (at byte %d): expected one JSON object per line", dec.InputOffset()), nil, nil, false
	}
	v, err := parseRelease(req.NCCL)
	if err != nil {
		return invalid(req.ID, "nccl", "%v", err), nil, nil, false
	}
	rs, err := o.ruleset(v)
	if err != nil {
		return invalid(req.ID, "nccl", "%v", err), nil, nil, false
	}
	if req.Tuner != "" {
		return o.answerTuned(rs, &req), nil, nil, false
	}
	key := commKey(v, &req)
	ce, ok := o.comms.Get(key)
	if !ok || key == "" {
		ce = o.build(rs, &req)
		if key != "" {
			o.comms.Put(key, ce)
		}
	}
	if ce.err != nil && ce.beforeOp {
		return refuse(req.ID, ce.field, ce.err), nil, nil, false
	}
	gops, launch, plain, bad := parseOps(&req)
	if bad != nil {
		return bad, nil, nil, false
	}
	before, bad := parseBefore(&req)
	if bad != nil {
		return bad, nil, nil, false
	}
	plain = plain && len(before) == 0
	if ce.err != nil {
		return invalid(req.ID, ce.field, "%v", ce.err), nil, nil, false
	}
	for i, g := range gops {
		if g.P2P != nil && g.P2P.Peer >= ce.comm.NRanks {
			prefix := ""
			if len(req.Group) > 0 {
				prefix = "group."
			}
			return invalid(req.ID, fieldAt(prefix, i)+"peer", "%s peer %d: expected a rank in 0..%d (the communicator has %d ranks)", g.P2P.Dir(), g.P2P.Peer, ce.comm.NRanks-1, ce.comm.NRanks), nil, nil, false
		}
		if g.RMA != nil {
			for _, p := range g.RMA.Peers {
				if p >= ce.comm.NRanks {
					prefix := ""
					if len(req.Group) > 0 {
						prefix = "group."
					}
					return invalid(req.ID, fieldAt(prefix, i)+"peer", "nccl%s peer %d: expected a rank in 0..%d (the communicator has %d ranks)", g.RMA.Kind, p, ce.comm.NRanks-1, ce.comm.NRanks), nil, nil, false
				}
			}
		}
	}
	if err := o.checkMemory(ce.comm.NRanks, len(gops)); err != nil {
		field := "op"
		if len(req.Group) > 0 {
			field = "group"
		}
		return refuse(req.ID, field, err), nil, nil, false
	}
	// IssuedAlone sends a SendRecv or AllToAll to the group planner
	// (G-SCHED-P2P-1), alone as in a group
	if !plain || !ce.comm.IssuedAlone(gops[0].Op, spec.Issue{}) {
		return o.answerGroup(&req, ce.comm, before, gops, launch), nil, nil, key != ""
	}
	d, trace, err := ce.comm.SelectOp(gops[0].Op, o.Trace)
	if err != nil {
		return invalidAt(&req, err), nil, nil, false
	}
	return o.fill(req.ID, d), ce, trace, key != ""
}

// invalidAt is the invalid answer for spec's error err about req: its
// field is the object err is about (before[i] for a spec.BeforeError, op
// for a request's lone operation, group[i] for a spec.GroupOpError, else
// group) and, where a spec.ArgError names the argument, the member that
// wrote it (op.root, group[2].buffers, before[0].coll).
func invalidAt(req *Request, err error) *Answer {
	var be *spec.BeforeError
	var ge *spec.GroupOpError
	field, r, msg := "group", (*OpRequest)(nil), err
	switch {
	case errors.As(err, &be) && be.Call >= 0 && be.Call < len(req.Before):
		field, r = fmt.Sprintf("before[%d]", be.Call), req.Before[be.Call]
	case req.Op != nil: // the user wrote no group: the error names none
		field, r, msg = "op", req.Op, spec.AloneError(err)
	case errors.As(err, &ge) && ge.Op >= 0 && ge.Op < len(req.Group):
		field, r = fmt.Sprintf("group[%d]", ge.Op), req.Group[ge.Op]
	}
	var ae *spec.ArgError
	if r != nil && errors.As(err, &ae) {
		field += "." + member(ae.Arg, r)
	}
	return invalid(req.ID, field, "%v", msg)
}

// member is the request member that wrote argument a of r: bytes or
// count, whichever r gave; peer or peers likewise.
func member(a spec.OpArg, r *OpRequest) string {
	switch a {
	case spec.ArgFunc:
		return "coll"
	case spec.ArgCount:
		if r.Count == nil && len(r.Bytes) > 0 {
			return "bytes"
		}
		return "count"
	case spec.ArgDataType:
		return "dtype"
	case spec.ArgPeer:
		if len(r.Peers) > 0 {
			return "peers"
		}
		return "peer"
	}
	return a.String() // redop, root, buffers, alloc, dev_comm, dev_comm_nth: the request's own names
}

// fieldAt names operation i's fields: "op." alone, "group[i]." in a group.
func fieldAt(prefix string, i int) string {
	if prefix == "" {
		return "op."
	}
	return fmt.Sprintf("group[%d].", i)
}

// parseOps reads the request's operation or group and its launch; plain is
// one operation on user buffers launched on a stream, which decides as
// Select alone does. A malformed one gives the invalid answer.
func parseOps(req *Request) (gops []spec.GroupOp, launch spec.Launch, plain bool, bad *Answer) {
	if req.Op != nil && len(req.Group) > 0 {
		return nil, launch, false, invalid(req.ID, "group", "give op or group, not both")
	}
	if req.Op == nil && req.Group != nil && len(req.Group) == 0 {
		return nil, launch, false, invalid(req.ID, "group", "%v", spec.CheckGroupSize(0))
	}
	if req.Op == nil && len(req.Group) == 0 {
		return nil, launch, false, invalid(req.ID, "op", "missing: expected {\"coll\": ..., \"bytes\": ...} or \"group\": [op, ...]")
	}
	reqOps, prefix := req.Group, "group."
	if req.Op != nil {
		reqOps, prefix = []*OpRequest{req.Op}, ""
	}
	if len(reqOps) > spec.MaxGroupOps {
		return nil, launch, false, invalid(req.ID, "group", "%v", spec.CheckGroupSize(len(reqOps)))
	}
	if req.Launch != "" {
		m, err := spec.ParseLaunchMode(req.Launch)
		if err != nil {
			return nil, launch, false, invalid(req.ID, "launch", "%v", err)
		}
		launch.Mode = m
	}
	gops = make([]spec.GroupOp, len(reqOps))
	plain = len(reqOps) == 1 && launch.Mode == spec.LaunchStream
	for i, r := range reqOps {
		at := prefix
		if prefix != "" {
			at = fmt.Sprintf("group[%d].", i)
		}
		if r == nil {
			return nil, launch, false, invalid(req.ID, strings.TrimSuffix(at, "."), "missing: expected an op object")
		}
		name := strings.TrimPrefix(strings.ToLower(r.Coll), "nccl")
		devComm, destroy := name == "devcommcreate", name == "devcommdestroy"
		op, field, err := buildOp(r)
		if kind, ok := spec.ParseRMAKind(r.Coll); ok {
			op, field, err = buildRMA(r, kind)
		} else if destroy {
			op, field, err = spec.Op{Func: spec.SendRecv}, "", nil
			switch {
			case len(r.Bytes) > 0 || r.Count != nil || r.Peer != nil || r.Buffers != "" || r.Alloc != "" || r.InPlace || r.DevComm != nil:
				field, err = "op.coll", fmt.Errorf("devCommDestroy takes dev_comm_nth only (no bytes, count, peer, buffers, alloc, inplace or dev_comm)")
			case r.DevCommNth < 1 || r.DevCommNth > spec.MaxGroupOps+MaxBefore:
				field, err = "op.dev_comm_nth", fmt.Errorf("devCommDestroy of device communicator %d: expected dev_comm_nth, the nth devCommCreate of the request (1-based, before's first), in 1..%d", r.DevCommNth, spec.MaxGroupOps+MaxBefore)
			}
		} else if r.DevCommNth != 0 {
			field, err = "op.dev_comm_nth", fmt.Errorf("dev_comm_nth belongs to coll devCommDestroy, not to %q", r.Coll)
		} else if devComm {
			op, field, err = spec.Op{Func: spec.SendRecv}, "", nil
			if len(r.Bytes) > 0 || r.Count != nil || r.Peer != nil || r.Buffers != "" || r.Alloc != "" || r.InPlace {
				field, err = "op.coll", fmt.Errorf("devCommCreate takes dev_comm only (no bytes, count, peer, buffers, alloc or inplace)")
			}
		} else if r.DevComm != nil {
			field, err = "op.dev_comm", fmt.Errorf("dev_comm belongs to coll devCommCreate, not to %q", r.Coll)
		}
		if err != nil {
			if prefix != "" {
				field = at + strings.TrimPrefix(field, "op.")
			}
			return nil, launch, false, invalid(req.ID, field, "%v", err)
		}
		gops[i] = spec.GroupOp{Op: op, InPlace: r.InPlace}
		if destroy {
			gops[i].DevCommDestroy, plain = r.DevCommNth, false
		}
		if devComm {
			gops[i].DevComm, plain = &spec.DevCommReqs{}, false
			if r.DevComm != nil {
				gops[i].DevComm = r.DevComm
			}
		}
		if kind, ok := spec.ParseRMAKind(r.Coll); ok {
			gops[i].RMA = &spec.RMACall{Kind: kind, Peers: r.Peers, Ctx: r.Ctx, SigIdx: r.SigIdx, Flags: r.Flags, NoPeerWin: r.NoPeerWin}
			if r.Peer != nil {
				gops[i].RMA.Peers = []int{*r.Peer}
			}
			if kind == spec.RMAWaitSignal {
				gops[i].RMA.OpCnt = 1
			}
			if r.OpCnt != nil {
				gops[i].RMA.OpCnt = *r.OpCnt
			}
			plain = false
		} else if len(r.Peers) > 0 || r.OpCnt != nil || r.Ctx != 0 || r.SigIdx != 0 || r.Flags != 0 || r.NoPeerWin {
			return nil, launch, false, invalid(req.ID, fieldAt(prefix, i)+"coll", "peers, op_cnt, ctx, sig_idx, flags and no_peer_win belong to a one-sided call (putSignal, signal, waitSignal), not to %q", r.Coll)
		}
		if r.Peer != nil && gops[i].RMA == nil {
			dir := strings.TrimPrefix(strings.ToLower(r.Coll), "nccl")
			if dir != "send" && dir != "recv" || *r.Peer < 0 || *r.Peer >= spec.MaxRanks {
				return nil, launch, false, invalid(req.ID, fieldAt(prefix, i)+"peer", "peer %d of coll %q: expected a send or recv to a rank in 0..%d", *r.Peer, r.Coll, spec.MaxRanks-1)
			}
			gops[i].P2P = &spec.P2PCall{Send: dir == "send", Peer: *r.Peer}
		}
		if r.Buffers != "" {
			if gops[i].Buffers, err = spec.ParseBuffers(r.Buffers); err != nil {
				if prefix == "" {
					at = "op."
				}
				return nil, launch, false, invalid(req.ID, at+"buffers", "%v", err)
			}
		}
		if r.Alloc != "" {
			if prefix == "" {
				at = "op."
			}
			if gops[i].Alloc, err = spec.ParseAlloc(r.Alloc); err == nil {
				err = spec.Issue{Buffers: gops[i].Buffers, Alloc: gops[i].Alloc}.Check()
			}
			if err != nil {
				return nil, launch, false, invalid(req.ID, at+"alloc", "%v", err)
			}
		}
		if r.InPlace || gops[i].Buffers != spec.BuffersUser {
			plain = false
		}
	}
	return gops, launch, plain, nil
}

// buildRMA is a one-sided call's operation: a SendRecv of a put's bytes
// (count 0 for signal and wait, which take none), and its peers bounded.
func buildRMA(r *OpRequest, kind spec.RMAKind) (spec.Op, string, error) {
	switch {
	case r.Peer != nil && len(r.Peers) > 0:
		return spec.Op{}, "op.peers", fmt.Errorf("give peer or peers, not both")
	case r.Peer == nil && len(r.Peers) == 0:
		return spec.Op{}, "op.peer", fmt.Errorf("missing: a one-sided call needs peer (waitSignal: peers)")
	case len(r.Peers) > spec.MaxRMADescs:
		return spec.Op{}, "op.peers", fmt.Errorf("%d peers: at most %d", len(r.Peers), spec.MaxRMADescs)
	case kind != spec.RMAWaitSignal && len(r.Peers) > 1:
		return spec.Op{}, "op.peers", fmt.Errorf("%d peers: nccl%s takes one peer", len(r.Peers), kind)
	case kind != spec.RMAPutSignal && (len(r.Bytes) > 0 || r.Count != nil):
		return spec.Op{}, "op.bytes", fmt.Errorf("nccl%s moves no data: expected no bytes or count", kind)
	}
	peers := r.Peers
	if r.Peer != nil {
		peers = []int{*r.Peer}
	}
	for _, p := range peers {
		if p < 0 || p >= spec.MaxRanks {
			return spec.Op{}, "op.peer", fmt.Errorf("peer %d: expected a rank in 0..%d", p, spec.MaxRanks-1)
		}
	}
	q := *r
	q.Coll = "sendrecv"
	if kind != spec.RMAPutSignal {
		var zero int64
		q.Count = &zero
	}
	return buildOp(&q)
}

// answerGroup plans a group (or a graph-captured or registered operation)
// as NCCL plans its ncclGroupEnd: the top level describes the first
// operation, ops every one in call order.
func (o *Oracle) answerGroup(req *Request, comm *spec.Comm, before, gops []spec.GroupOp, launch spec.Launch) *Answer {
	id := req.ID
	bs, g, err := comm.SelectAfter(before, gops, launch)
	if err != nil {
		return invalidAt(req, err)
	}
	a := o.fill(id, g.Ops[0])
	if o.Trace {
		for _, v := range g.Traces[0] {
			a.Trace = append(a.Trace, traceEntry(v))
		}
	}
	if g.Err != nil && !(len(gops) == 1 && (gops[0].RMA != nil || gops[0].DevComm != nil)) { // the group's first failing bin fails ncclGroupEnd (a lone one-sided or device communicator call fails itself)
		a.Status = "error"
		a.Error = &AnswerError{Result: g.Err.Result.String(), Message: g.Err.Message, Call: "ncclGroupEnd"}
	}
	a.Ops, a.Plans = a.Ops[:0], g.Plans
	for i, d := range g.Ops {
		oa := opAnswer(d)
		if i < len(g.Choices) {
			if n := len(g.Choices[i].Aggregate); n > 1 {
				oa.Aggregate = n
			}
			ch := &g.Choices[i]
			oa.Registered = ch.Registered
			if ch.WorkStorage != "" || (ch.Kernel != "" && ch.ArgsBytes > 0) || ((ch.SidePath == "copy-engine" || ch.SidePath == "hierarchical-ce") && ch.Plan >= 0) {
				p := ch.Plan
				oa.Plan, oa.ArgsBytes = &p, ch.ArgsBytes
			}
		}
		if i < len(gops) && gops[i].RMA != nil {
			oa.Coll, oa.RMA = gops[i].RMA.Kind.String(), d.RMA
			if d.RMA != nil {
				p := d.RMA.Plan // the group's plans are numbered as they launch, the RMA plans first
				oa.Plan = &p
			}
		}
		if i < len(gops) {
			devCommAnswer(&oa, gops[i], d)
		}
		if i < len(gops) && gops[i].P2P != nil {
			oa.Coll = "Send"
			if !gops[i].P2P.Send {
				oa.Coll = "Recv"
			}
		}
		if oa.Plan == nil && len(oa.P2PTasks) > 0 && d.Plan >= 0 {
			p := d.Plan // the plan the operation's send/recv tasks start in
			oa.Plan = &p
		}
		a.Ops = append(a.Ops, oa)
	}
	for i, b := range bs {
		oa := opAnswer(b.Ops[0])
		devCommAnswer(&oa, before[i], b.Ops[0])
		a.Before = append(a.Before, oa)
	}
	return a
}

// devCommAnswer names a device communicator call's entry and gives its
// result.
func devCommAnswer(oa *OpAnswer, g spec.GroupOp, d *spec.Decision) {
	switch {
	case g.DevComm != nil:
		oa.Coll, oa.DevComm = "DevCommCreate", d.DevComm
	case g.DevCommDestroy != 0:
		oa.Coll, oa.DevCommRelease = "DevCommDestroy", d.DevCommRelease
	}
}

// answerTuned answers a request that names a tuner plugin: its
// communicator is built with the plugin loaded, never shared.
func (o *Oracle) answerTuned(rs *spec.Ruleset, req *Request) *Answer {
	if o.Tuner == nil {
		return invalid(req.ID, "tuner", "this oracle loads no tuner plugins: start it with --tuner-dir DIR")
	}
	sys, env, field, err := o.prepare(req)
	if err == nil {
		field, err = "config", rs.CheckConfig(sys.CommConfig)
	}
	if err != nil {
		return refuse(req.ID, field, err)
	}
	if len(req.Before) > 0 {
		return invalid(req.ID, "before", "a request with a tuner takes no before calls (device communicators make no tuner call)")
	}
	gops, _, plain, bad := parseOps(req)
	if bad != nil {
		return bad
	}
	if !plain {
		return invalid(req.ID, "tuner", "a tuner's answer for a group, a graph or registered buffers is not modelled")
	}
	d, trace, rep, err := o.Tuner(req.Tuner, rs, sys, env, gops[0].Op)
	var ae *spec.ArgError
	if errors.As(err, &ae) {
		return invalidAt(req, err)
	}
	if err != nil {
		return invalid(req.ID, "tuner", "%v", err)
	}
	a := o.fill(req.ID, d)
	if o.Trace {
		for _, v := range trace {
			a.Trace = append(a.Trace, traceEntry(v))
		}
	}
	if rep != nil && d.Tuner != nil {
		rep.Call, rep.Changed = d.Tuner, d.Tuner.Changed(d)
		rep.Without = d.Tuner.Without.String()
		if d.Tuner.WithoutErr != nil {
			rep.Without = "error " + d.Tuner.WithoutErr.Result.String()
		}
	}
	if rep != nil && rep.Fault != "" {
		a.Status = "error"
		a.Error = &AnswerError{Result: "tunerFault", Message: "the tuner plugin " + rep.Fault + " (contained in its child process; NCCL's own process would not survive)"}
	}
	a.Tuner = rep
	return a
}

// ruleset loads a release's rules once; HandleLine may run on several
// goroutines.
func (o *Oracle) ruleset(v spec.Version) (*spec.Ruleset, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if rs, ok := o.rulesets[v]; ok {
		return rs, nil
	}
	rs, err := spec.Load(v)
	if err != nil {
		return nil, err
	}
	o.rulesets[v] = rs
	return rs, nil
}

// fill is the answer without its trace (HandleLine appends it): the
// communicator's facts, and the operation's decision as its "ops" entry
// gives it.
func (o *Oracle) fill(id json.RawMessage, d *spec.Decision) *Answer {
	op := opAnswer(d)
	a := &Answer{Schema: SchemaVersion, ID: id, Status: op.Status, NCCL: d.Release.String(),
		Undecided: d.Undecided, Discarded: d.Discarded, DecidedBy: string(d.DecidedBy), Fallback: d.Fallback,
		Net: d.Net, CollNetSupport: d.CollNetSupport, NVLSSupport: d.NVLSSupport, Evidence: d.Evidence, P2P: p2pChannels(d.P2P),
		Error: op.Error, Algo: op.Algo, Proto: op.Proto,
		NChannels: op.NChannels, ChannelLo: op.ChannelLo, ChannelHi: op.ChannelHi, NThreads: op.NThreads, TimeUs: op.TimeUs, Kernel: op.Kernel}
	for _, c := range d.Candidates {
		a.Candidates = append(a.Candidates, c.String())
	}
	a.Ops = []OpAnswer{op}
	return a
}

// p2pChannels is the top level's "p2p": the communicator's p2p channels;
// the operation's send/recv tasks are in its "ops" entry.
func p2pChannels(p *spec.P2PPath) *spec.P2PPath {
	if p == nil || p.Tasks == nil {
		return p
	}
	return &spec.P2PPath{NChannels: p.NChannels, NChannelsPerPeer: p.NChannelsPerPeer}
}

// opAnswer is one operation's entry of "ops".
func opAnswer(d *spec.Decision) OpAnswer {
	a := OpAnswer{Coll: d.Op.Func.String(), Bytes: d.Op.Bytes(), Status: "ok", Discarded: d.Discarded, DecidedBy: string(d.DecidedBy), Kernel: d.Kernel, CTABytes: d.CTABytes, CTAParts: d.SymParts, P2P: d.P2P != nil}
	if d.Err != nil {
		a.Status = "error"
		a.Error = &AnswerError{Result: d.Err.Result.String(), Message: d.Err.Message, Call: d.Err.Call, Abort: d.Err.Abort}
	}
	if d.Algo != spec.AlgoNone {
		s := d.Algo.String()
		a.Algo = &s
	}
	if d.Proto != spec.ProtoNone {
		s := d.Proto.String()
		a.Proto = &s
	}
	if d.P2P != nil && len(d.P2P.Tasks) > 0 {
		n, lo, hi := d.P2P.P2PHull()
		a.NChannels, a.ChannelLo, a.ChannelHi = &n, &lo, &hi
		a.P2PTasks = make([]P2PTaskAnswer, len(d.P2P.Tasks))
		for k, t := range d.P2P.Tasks {
			a.P2PTasks[k] = P2PTaskAnswer{Peer: t.Peer, Dir: t.Dir, Bytes: t.Bytes, Proto: t.Proto.String(), Round: t.Round, NChannels: t.NChannels, Channels: t.Channels, Plan: t.Plan, Registered: t.Registered, Skipped: t.Skipped}
		}
	}
	if d.NChannels > 0 {
		// NCCL's float32 arithmetic: keep the digits that mean something
		nc, lo, hi, nt, t := d.NChannels, d.ChannelLo, d.ChannelHi, d.NThreads, jsonout.Round(d.TimeUs)
		a.NChannels, a.ChannelLo, a.ChannelHi, a.NThreads, a.TimeUs = &nc, &lo, &hi, &nt, &t
	}
	if c := d.Chunk; c.Set() {
		a.Chunk = ChunkAnswer{Lo: c.Lo, Mid: c.Mid, Hi: c.Hi, StepBytes: c.StepSize, ChunkSteps: c.ChunkSteps, SliceSteps: c.SliceSteps, Tuner: c.Tuned}
		if p := c.Proxy; p.Reg {
			a.Chunk.ProxyReg, a.Chunk.ProxyNSteps, a.Chunk.ProxyFIFONSteps = true, p.NSteps, p.FIFOSteps
		}
	}
	return a
}

func parseRelease(raw json.RawMessage) (spec.Version, error) {
	if len(raw) == 0 {
		return 0, fmt.Errorf("missing: expected a release such as \"2.28.9\"")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var n int
		if err2 := json.Unmarshal(raw, &n); err2 != nil {
			return 0, fmt.Errorf("expected a string such as \"2.28.9\" or a code such as 22809")
		}
		s = strconv.Itoa(n)
	}
	v, err := spec.ParseVersion(s)
	if err != nil {
		return 0, err
	}
	if !spec.Supported(v) {
		return 0, &spec.UnsupportedError{Version: v}
	}
	return v, nil
}

func (o *Oracle) system(req Request) (*spec.System, string, error) {
	raw := bytes.TrimSpace(req.System)
	if len(raw) == 0 {
		return nil, "system", fmt.Errorf("missing: expected a preset name (%s), a file path or an inline object", strings.Join(spec.PresetNames(), ", "))
	}
	var sys *spec.System
	var err error
	switch raw[0] {
	case '{':
		sys, err = spec.ParseSystem("system", raw)
		if err == nil && (req.Nodes != 0 || req.SHARP) {
			return nil, "nodes", fmt.Errorf("nodes and sharp apply to presets only")
		}
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, "system", err
		}
		if spec.IsPreset(s) {
			sys, err = spec.Preset(s, spec.PresetOptions{Nodes: req.Nodes, SHARP: req.SHARP, Shared: true})
			break
		}
		if !strings.ContainsAny(s, "/.") {
			return nil, "system", fmt.Errorf("unknown system %q: expected a preset (%s) or a file path", s, strings.Join(spec.PresetNames(), ", "))
		}
		if o.readFile == nil {
			return nil, "system", fmt.Errorf("%q: this oracle reads no files: give a preset or an inline system, or ask the operator for --allow-dir", s)
		}
		data, rerr := o.readFile(s)
		if rerr != nil {
			return nil, "system", rerr
		}
		if strings.HasSuffix(strings.ToLower(s), ".xml") { // NCCL's topology dump of one host
			if req.SHARP {
				return nil, "sharp", fmt.Errorf("sharp applies to presets only; add the plugin under \"plugins\"")
			}
			sys, err = spec.SystemFromTopology(s, data, max(1, req.Nodes))
			break
		}
		sys, err = spec.ParseSystem(s, data)
	default:
		return nil, "system", fmt.Errorf("expected a preset name, a file path or an object")
	}
	if err != nil {
		return nil, "system", err
	}
	for _, l := range req.Plugins {
		probe := spec.System{Nodes: []spec.Node{{GPUs: []spec.GPU{{SM: 90}}, Libs: []spec.Library{l}}}}
		if err := probe.Validate(); err != nil || l.Path == "" {
			if err == nil {
				err = fmt.Errorf("plugin without path")
			}
			return nil, "plugins", err
		}
		for i := range sys.Nodes {
			sys.Nodes[i].Libs = append([]spec.Library{l}, sys.Nodes[i].Libs...)
		}
	}
	if len(req.PluginNames) > maxPluginNames {
		return nil, "plugin_names", fmt.Errorf("%d names: expected at most %d", len(req.PluginNames), maxPluginNames)
	}
	for _, n := range req.PluginNames {
		libs, named, err := spec.NamedPlugin(n)
		if err == nil && !named {
			err = fmt.Errorf("%q: expected %s@VERSION:PLATFORM", n, spec.OFIPluginName)
		}
		if err != nil {
			return nil, "plugin_names", err
		}
		for i := range sys.Nodes {
			sys.Nodes[i].Libs = append(slices.Clone(libs), sys.Nodes[i].Libs...)
		}
	}
	return sys, "", nil
}

func buildOp(r *OpRequest) (spec.Op, string, error) {
	fn, err := spec.ParseFuncIn(r.Coll, spec.SelectFuncs)
	if err != nil {
		return spec.Op{}, "op.coll", err
	}
	dtS := r.DType
	if dtS == "" {
		dtS = "float32"
	}
	dt, err := spec.ParseDataType(dtS)
	if err != nil {
		return spec.Op{}, "op.dtype", err
	}
	rS := r.RedOp
	if rS == "" {
		rS = "sum"
	}
	rop, err := spec.ParseRedOp(rS)
	if err != nil {
		return spec.Op{}, "op.redop", err
	}
	switch {
	case r.Count != nil && len(r.Bytes) > 0:
		return spec.Op{}, "op.bytes", fmt.Errorf("give bytes or count, not both")
	case r.Count != nil:
		if *r.Count < 0 {
			return spec.Op{}, "op.count", fmt.Errorf("negative count %d", *r.Count)
		}
		return spec.Op{Func: fn, Count: *r.Count, DataType: dt, RedOp: rop, Root: r.Root}, "", nil
	case len(r.Bytes) == 0:
		return spec.Op{}, "op.bytes", fmt.Errorf("missing: expected bytes (a number or \"1MiB\") or count")
	}
	var n int64
	if err := json.Unmarshal(r.Bytes, &n); err != nil {
		var s string
		if err := json.Unmarshal(r.Bytes, &s); err != nil {
			return spec.Op{}, "op.bytes", fmt.Errorf("expected a number or a size string such as \"1MiB\"")
		}
		if n, err = spec.ParseBytes(s); err != nil {
			return spec.Op{}, "op.bytes", err
		}
	}
	op, err := spec.OpFromBytes(fn, n, dt, rop, r.Root)
	if err != nil {
		return spec.Op{}, "op.bytes", err
	}
	return op, "", nil
}

// asType is errors.As for the one error type the decoder returns by value
// or pointer.
func asType(err error, target **json.UnmarshalTypeError) bool {
	if e, ok := err.(*json.UnmarshalTypeError); ok {
		*target = e
		return true
	}
	return false
}

// parseBefore reads a request's before calls: devCommCreate and
// devCommDestroy only, each decided as a call outside a group.
func parseBefore(req *Request) ([]spec.GroupOp, *Answer) {
	if len(req.Before) == 0 {
		return nil, nil
	}
	if len(req.Before) > MaxBefore {
		return nil, invalid(req.ID, "before", "%d calls: at most %d", len(req.Before), MaxBefore)
	}
	ops, _, _, bad := parseOps(&Request{ID: req.ID, Group: req.Before})
	if bad != nil {
		bad.Invalid.Field = "before" + strings.TrimPrefix(bad.Invalid.Field, "group")
		return nil, bad
	}
	for i, g := range ops {
		if g.DevComm == nil && g.DevCommDestroy == 0 {
			return nil, invalid(req.ID, fmt.Sprintf("before[%d].coll", i), "%q: before takes devCommCreate and devCommDestroy calls only", req.Before[i].Coll)
		}
	}
	return ops, nil
}
