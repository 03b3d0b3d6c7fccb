package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// Group semantics: what ncclGroupStart/ncclGroupEnd do with a sequence of
// API calls from one thread. These rules are NCCL's documented contract
// (docs/userguide/source/usage/groups.rst) and what src/group.cc enforces;
// they decide when operations are enqueued, which calls return errors, and
// which sequences are undefined.

// CallKind is an NCCL API call (or a CUDA stream synchronisation).
type CallKind int

const (
	CallGroupStart CallKind = iota
	CallGroupEnd
	CallCommInit      // ncclCommInitRank / ncclCommInitRankConfig
	CallCollective    // any collective or send/recv
	CallStreamSync    // cudaStreamSynchronize on the communicator's stream
	CallGetAsyncError // ncclCommGetAsyncError
	CallCommFinalize  // ncclCommFinalize
	numCallKinds
)

var callNames = [numCallKinds]string{"groupStart", "groupEnd", "init", "collective", "sync", "asyncError", "finalize"}

func (k CallKind) String() string {
	if k >= 0 && k < numCallKinds {
		return callNames[k]
	}
	return fmt.Sprintf("CallKind(%d)", int(k))
}

// Call is one API call in a thread's program order.
type Call struct {
	Kind CallKind `json:"kind"`
	// Comm names the communicator ("c0").
	Comm string `json:"comm,omitempty"`
	// Nonblocking marks a CommInit with ncclConfig_t.blocking = 0.
	Nonblocking bool `json:"nonblocking,omitempty"`
	// Op is a collective's operation; P2P the peer of a send or recv
	// that names one (peer=N).
	Op  *Op      `json:"op,omitempty"`
	P2P *P2PCall `json:"p2p,omitempty"`
	// RMA is a one-sided call (putSignal, signal, waitSignal; its Op a
	// SendRecv of the put's bytes); Buffers and Alloc the operation's
	// buffers (buffers=, alloc=).
	RMA *RMACall `json:"rma,omitempty"`
	// DevComm is an ncclDevCommCreate's requirements (devCommCreate).
	DevComm *DevCommReqs `json:"devComm,omitempty"`
	// DevCommDestroy is an ncclDevCommDestroy of the communicator's nth
	// device communicator (devCommDestroy COMM N).
	DevCommDestroy int     `json:"devCommDestroy,omitempty"`
	Buffers        Buffers `json:"buffers,omitempty"`
	Alloc          Alloc   `json:"alloc,omitempty"`
	// InPlace: the receive buffer is the send buffer (inplace), as the
	// oracle's "inplace": true.
	InPlace bool `json:"inplace,omitempty"`
	// Line is the source line of the call in a script (for messages).
	Line int `json:"line,omitempty"`
}

// CallResult is what one call returns and does.
type CallResult struct {
	Call   Call
	Result Result
	// Warn is the WARN line NCCL prints, if any.
	Warn string
	// Effect says what the call does ("enqueued 2 operations", "nothing:
	// not the outermost group end", "undefined: ...").
	Effect string
	// Launched lists the collectives (indices into the calls) this call
	// enqueues: the group's at its outermost ncclGroupEnd, the call itself
	// outside a group.
	Launched []int `json:"launched,omitempty"`
}

// The group-call rules: NCCL's API contract for one thread's calls
// (docs/userguide/source/usage/groups.rst), enforced in src/group.cc and
// src/init.cc. They are the base release's (Ruleset.Call) and CheckGroup
// emits their verdicts at the call that triggers each; the file and
// function of every one is the same at every modelled tag.
var (
	groupEnd1 = &Rule{ID: "G-GROUP-END-1", Layer: LayerGroup, Title: "ncclGroupEnd outside a group",
		Doc:  `ncclGroupEnd with no open ncclGroupStart warns and returns ncclInvalidUsage.`,
		Ref:  Ref{Tag: "v2.22.3-1", File: "src/group.cc", Func: "ncclGroupEndInternal"},
		Logs: []string{"ncclGroupEnd: not in a group call."}, groupCall: true}
	groupEnqueue1 = &Rule{ID: "G-GROUP-ENQUEUE-1", Layer: LayerGroup, Title: "operations start at the outermost ncclGroupEnd",
		Doc: `Calls inside a group are only recorded; the whole group is launched by the last, outermost ncclGroupEnd. Inner ncclGroupStart/ncclGroupEnd pairs do nothing. A group left open launches nothing.`,
		Ref: Ref{Tag: "v2.22.3-1", File: "src/group.cc", Func: "ncclGroupEndInternal"}, groupCall: true}
	groupSync1 = &Rule{ID: "G-GROUP-SYNC-1", Layer: LayerGroup, Title: "stream synchronisation inside a group",
		Doc: `Inside a group a collective can return before its operation is enqueued on the stream, so cudaStreamSynchronize on that stream is only meaningful after ncclGroupEnd returns; before, it waits for nothing (and a wait on the result deadlocks).`,
		Ref: Ref{Tag: "v2.22.3-1", File: "src/group.cc", Func: "ncclGroupEndInternal"}, groupCall: true}
	groupInit1 = &Rule{ID: "G-GROUP-INIT-1", Layer: LayerGroup, Title: "init calls are not aggregated with communication",
		Doc: `ncclCommInitRank calls may be grouped with each other to create communicators for several devices from one thread, but not with communication calls: a collective on a communicator whose init is still queued in the same group uses an uninitialised communicator (NCCL does not check this for blocking communicators).`,
		Ref: Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "ncclCommInitRankDev"}, groupCall: true}
	groupMix1 = &Rule{ID: "G-GROUP-MIX-1", Layer: LayerGroup, Title: "blocking and nonblocking communicators in one group",
		Doc:  `Async jobs (communicator init) of blocking and nonblocking communicators in the same group: WARN and ncclInvalidArgument.`,
		Ref:  Ref{Tag: "v2.22.3-1", File: "src/group.cc", Func: "ncclAsyncLaunch"},
		Logs: []string{"Blocking and nonblocking communicators are not allowed in the same group."}, groupCall: true}
	groupNonblock1 = &Rule{ID: "G-GROUP-NONBLOCK-1", Layer: LayerGroup, Title: "nonblocking communicators return ncclInProgress",
		Doc:  `A group holding a nonblocking communicator's work returns ncclInProgress from its outermost ncclGroupEnd; the application must poll ncclCommGetAsyncError until ncclSuccess before using the communicator again, or the next call warns and returns ncclInvalidArgument.`,
		Ref:  Ref{Tag: "v2.22.3-1", File: "src/init.cc", Func: "ncclCommEnsureReady"},
		Logs: []string{"Attempt to use communicator before the previous operation returned ncclSuccess"}, groupCall: true}
)

// groupCallRules22 are the group-call rules in the order the base release
// lists them.
var groupCallRules22 = []*Rule{groupEnd1, groupEnqueue1, groupSync1, groupInit1, groupMix1, groupNonblock1}

// CheckGroup replays one thread's calls through NCCL's group semantics as
// release rs has them and returns each call's result and a Trace of the
// group-call rules (rs.Call) that fired. An error is a ruleset that lacks
// one of them (a build that is not a modelled release).
func CheckGroup(rs *Ruleset, calls []Call) ([]CallResult, Trace, error) {
	if rs == nil {
		return nil, nil, fmt.Errorf("check group: no ruleset")
	}
	for _, r := range groupCallRules22 {
		if g, ok := rs.rules[r.ID]; !ok || !g.groupCall {
			return nil, nil, fmt.Errorf("check group: NCCL %s has no group-call rule %s", rs.Version, r.ID)
		}
	}
	var tr Trace
	verdict := func(id RuleID, out Outcome, why string, log ...string) {
		r := rs.rules[id]
		tr = append(tr, Verdict{Rule: id, Layer: r.Layer, Outcome: out, Why: why, Log: log, Ref: &r.Ref})
	}
	type commState struct {
		nonblocking bool
		initQueued  bool // init recorded in the open group
		initialised bool
		inProgress  bool // a nonblocking group ended with ncclInProgress
		pending     int  // collectives recorded in the open group
	}
	comms := map[string]*commState{}
	get := func(name string) *commState {
		c := comms[name]
		if c == nil {
			c = &commState{}
			comms[name] = c
		}
		return c
	}
	depth := 0
	var queued []string    // comm names with recorded work, in order
	var pendingCalls []int // collectives recorded in the open group
	blockingMode := -1     // of async jobs in the open group
	var groupErr Result
	results := make([]CallResult, 0, len(calls))
	at := func(c Call) string {
		if c.Line > 0 {
			return fmt.Sprintf("line %d: ", c.Line)
		}
		return ""
	}
	launch := func() (Result, string) {
		if len(queued) == 0 {
			return Success, "nothing to launch"
		}
		anyNB := false
		for _, n := range queued {
			c := comms[n]
			if c.nonblocking {
				anyNB = true
			}
		}
		var parts []string
		for _, n := range uniq(queued) {
			c := comms[n]
			if c.initQueued {
				c.initQueued, c.initialised = false, true
				parts = append(parts, "init "+n)
			}
			if c.pending > 0 {
				parts = append(parts, fmt.Sprintf("%d operation(s) on %s", c.pending, n))
				c.pending = 0
			}
			if c.nonblocking {
				c.inProgress = true
			}
		}
		queued = nil
		if anyNB {
			return InProgress, "launched " + strings.Join(parts, ", ") + " in the background: ncclInProgress"
		}
		return Success, "launched " + strings.Join(parts, ", ")
	}
	aborted := false // the process died in an earlier call
	for ci, call := range calls {
		res := CallResult{Call: call, Result: Success}
		if aborted {
			res.Effect = "not reached: the process aborted in an earlier call"
			results = append(results, res)
			continue
		}
		switch call.Kind {
		case CallGroupStart:
			depth++
			res.Effect = fmt.Sprintf("group depth %d", depth)
		case CallGroupEnd:
			if depth == 0 {
				res.Result, res.Warn = InvalidUsage, "ncclGroupEnd: not in a group call."
				res.Effect = "error"
				verdict("G-GROUP-END-1", Fail, at(call)+"ncclGroupEnd without ncclGroupStart: ncclInvalidUsage", res.Warn)
				break
			}
			depth--
			if depth > 0 {
				res.Effect = "nothing: not the outermost ncclGroupEnd"
				verdict("G-GROUP-ENQUEUE-1", Info, at(call)+"inner ncclGroupEnd: nothing is launched yet")
				break
			}
			if groupErr != Success {
				res.Result, res.Effect = groupErr, "the group's recorded error is returned; its work is discarded"
				groupErr, queued, blockingMode, pendingCalls = Success, nil, -1, nil
				for _, c := range comms {
					c.pending, c.initQueued = 0, false
				}
				break
			}
			res.Result, res.Effect = launch()
			res.Launched, pendingCalls = pendingCalls, nil
			blockingMode = -1
			verdict("G-GROUP-ENQUEUE-1", Pass, at(call)+"outermost ncclGroupEnd: "+res.Effect)
			if res.Result == InProgress {
				verdict("G-GROUP-NONBLOCK-1", Info, at(call)+"a nonblocking communicator's group returns ncclInProgress: poll ncclCommGetAsyncError")
			}
		case CallCommInit:
			c := get(call.Comm)
			c.nonblocking = call.Nonblocking
			if depth == 0 {
				c.initialised = true
				if c.nonblocking {
					c.inProgress = true
					res.Result, res.Effect = InProgress, "init runs in the background: ncclInProgress"
					verdict("G-GROUP-NONBLOCK-1", Info, at(call)+"nonblocking init returns ncclInProgress")
				} else {
					res.Effect = "initialised"
				}
				break
			}
			mode := 1
			if c.nonblocking {
				mode = 0
			}
			if blockingMode >= 0 && blockingMode != mode {
				res.Result, res.Warn = InvalidArgument, "Blocking and nonblocking communicators are not allowed in the same group."
				res.Effect = "error"
				why := at(call) + "init of a " + blockWord(c.nonblocking) + " communicator in a group with " + blockWord(mode == 1) + " ones"
				if rs.Consts.InitJobFreedTwice {
					// ncclAsyncLaunch freed the refused job; the fail path
					// frees it again (G-INIT-ABORT-1)
					res.Effect = "the process aborts (" + initAbortMsg + "): ncclAsyncLaunch freed the refused init job and ncclCommInitRankDev's fail path frees it again; the call never returns"
					verdict("G-GROUP-MIX-1", Fail, why+"; "+res.Effect, res.Warn, initAbortMsg)
					aborted = true
					break
				}
				verdict("G-GROUP-MIX-1", Fail, why, res.Warn)
				break
			}
			blockingMode = mode
			c.initQueued = true
			queued = append(queued, call.Comm)
			res.Effect = "init recorded; it runs at the outermost ncclGroupEnd"
		case CallCollective:
			c, ok := comms[call.Comm]
			if !ok {
				res.Result, res.Effect = InvalidArgument, "error: unknown communicator"
				break
			}
			if c.inProgress {
				res.Result = InvalidArgument
				res.Warn = "Attempt to use communicator before the previous operation returned ncclSuccess"
				res.Effect = "error"
				verdict("G-GROUP-NONBLOCK-1", Fail, at(call)+call.Comm+" used while its previous operation is in progress", res.Warn)
				if depth > 0 {
					groupErr = InvalidArgument
				}
				break
			}
			if c.initQueued {
				res.Effect = "undefined: the communicator's init is queued in the same group"
				verdict("G-GROUP-INIT-1", Fail, at(call)+"collective on "+call.Comm+" in the group that initialises it: it uses an uninitialised communicator")
			}
			if depth == 0 {
				if res.Effect == "" {
					res.Effect = "enqueued on the stream"
				}
				res.Launched = []int{ci}
				if c.nonblocking {
					c.inProgress = true
					res.Result = InProgress
				}
				break
			}
			c.pending++
			queued = append(queued, call.Comm)
			pendingCalls = append(pendingCalls, ci)
			if res.Effect == "" {
				res.Effect = "recorded; enqueued at the outermost ncclGroupEnd"
			}
		case CallStreamSync:
			c := comms[call.Comm]
			if depth > 0 && c != nil && c.pending > 0 {
				res.Effect = "waits for nothing: the group's operations are not enqueued yet"
				verdict("G-GROUP-SYNC-1", Fail, at(call)+"cudaStreamSynchronize inside the group: "+res.Effect)
			} else {
				res.Effect = "waits for the enqueued work"
			}
		case CallGetAsyncError:
			c := get(call.Comm)
			if c.inProgress {
				c.inProgress = false
				res.Effect = "ncclInProgress until the background work ends, then ncclSuccess"
			} else {
				res.Effect = "ncclSuccess"
			}
		case CallCommFinalize:
			res.Effect = "finalize"
		}
		results = append(results, res)
	}
	if depth > 0 && !aborted {
		verdict("G-GROUP-ENQUEUE-1", Fail, fmt.Sprintf("the sequence ends with %d group(s) open: nothing recorded is ever launched", depth))
	}
	return results, tr, nil
}

func blockWord(nonblocking bool) string {
	if nonblocking {
		return "nonblocking"
	}
	return "blocking"
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// ParseCalls reads a call script, one call per line:
//
//	groupStart | groupEnd
//	init COMM [nonblocking]
//	COLL COMM SIZE [DTYPE] [REDOP] [root=N] [inplace] (allreduce c0 1MiB float32 sum)
//	send|recv COMM SIZE [DTYPE] peer=N (without peer=: nccl-tests' ring)
//	putSignal COMM SIZE [DTYPE] peer=N [nopeerwin] [ctx=N] [sigidx=N] [flags=N]
//	signal COMM peer=N [ctx=N] [sigidx=N] [flags=N]
//	waitSignal COMM peer=N[,N...] [opcnt=N] [ctx=N] [sigidx=N]
//	devCommCreate COMM [FIELD=VALUE...] (ncclDevCommRequirements_t fields
//	by NCCL's names: lsaMultimem=1 ginConnectionType=full ginContextCount=8)
//	devCommDestroy COMM N (the communicator's Nth devCommCreate, 1-based)
//	(any collective may add buffers=user|registered|window and
//	alloc=cumem|cudamalloc|cumem-host)
//	sync COMM | asyncError COMM | finalize COMM
//
// '#' starts a comment. name is used in errors.
// maxCommName bounds a communicator name of a call script.
const maxCommName = 256

// maxRoot bounds a call's root=N: no communicator has more ranks.
const maxRoot = MaxRanks - 1

func ParseCalls(name string, data []byte) ([]Call, error) {
	var out []Call
	depth := 0
	// Operations per communicator in the open outermost group: each is
	// one group (MaxGroupOps), checked here so the error names the line.
	groupOps := map[string]int{}
	for i, raw := range strings.Split(string(data), "\n") {
		if len(raw) > MaxLineBytes {
			return nil, fmt.Errorf("%s:%d: %d bytes: expected a line of at most %d bytes", name, i+1, len(raw), MaxLineBytes)
		}
		line := raw
		if k := strings.IndexByte(line, '#'); k >= 0 {
			line = line[:k]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n := i + 1
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
		}
		if len(out) == MaxGroupCalls {
			return nil, bad("more than %d calls: expected at most %d (gatesim's limit)", MaxGroupCalls, MaxGroupCalls)
		}
		if len(f) > 1 && len(f[1]) > maxCommName {
			return nil, bad("communicator name of %d bytes: expected at most %d", len(f[1]), maxCommName)
		}
		c := Call{Line: n}
		switch strings.ToLower(f[0]) {
		case "groupstart", "ncclgroupstart":
			c.Kind = CallGroupStart
			if depth++; depth > MaxGroupDepth {
				return nil, bad("groupStart nested %d deep: expected at most %d (gatesim's limit)", depth, MaxGroupDepth)
			}
		case "groupend", "ncclgroupend":
			c.Kind = CallGroupEnd
			if depth = max(0, depth-1); depth == 0 {
				clear(groupOps)
			}
		case "init", "ncclcomminitrank":
			if len(f) < 2 {
				return nil, bad("init needs a communicator name: expected init COMM [nonblocking]")
			}
			c.Kind, c.Comm = CallCommInit, f[1]
			if len(f) > 2 {
				if f[2] != "nonblocking" && f[2] != "blocking" {
					return nil, bad("%q: expected blocking or nonblocking", f[2])
				}
				c.Nonblocking = f[2] == "nonblocking"
			}
		case "sync", "cudastreamsynchronize":
			if len(f) < 2 {
				return nil, bad("sync needs a communicator name")
			}
			c.Kind, c.Comm = CallStreamSync, f[1]
		case "asyncerror", "ncclcommgetasyncerror":
			if len(f) < 2 {
				return nil, bad("asyncError needs a communicator name")
			}
			c.Kind, c.Comm = CallGetAsyncError, f[1]
		case "finalize", "ncclcommfinalize":
			if len(f) < 2 {
				return nil, bad("finalize needs a communicator name")
			}
			c.Kind, c.Comm = CallCommFinalize, f[1]
		case "devcommcreate", "nccldevcommcreate":
			if len(f) < 2 {
				return nil, bad("devCommCreate needs a communicator: expected devCommCreate COMM [FIELD=VALUE...]")
			}
			q, err := ParseDevCommReqs(f[2:])
			if err != nil {
				return nil, bad("%v", err)
			}
			c.Kind, c.Comm, c.Op, c.DevComm = CallCollective, f[1], &Op{Func: SendRecv}, q
		case "devcommdestroy", "nccldevcommdestroy":
			n := 0
			if len(f) == 3 {
				n, _ = strconv.Atoi(f[2])
			}
			if n < 1 || n > MaxGroupCalls {
				return nil, bad("expected devCommDestroy COMM N, N the communicator's Nth devCommCreate in 1..%d", MaxGroupCalls)
			}
			c.Kind, c.Comm, c.Op, c.DevCommDestroy = CallCollective, f[1], &Op{Func: SendRecv}, n
		default:
			op, err := parseCallOp(f, &c)
			if err != nil {
				return nil, bad("%v", err)
			}
			c.Kind, c.Comm, c.Op = CallCollective, f[1], &op
		}
		if c.Op != nil && depth > 0 {
			groupOps[c.Comm]++
			if err := CheckGroupSize(groupOps[c.Comm]); err != nil {
				return nil, bad("group on %s: %v", c.Comm, err)
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no calls: expected lines such as groupStart, allreduce c0 1MiB, groupEnd", name)
	}
	return out, nil
}

// parseCallOp reads a collective, send/recv or one-sided call's fields
// (f[0] the call, f[1] the communicator), setting c's P2P, RMA, Buffers,
// Alloc and InPlace; the error says what was expected.
func parseCallOp(f []string, c *Call) (Op, error) {
	kind, isRMA := ParseRMAKind(f[0])
	fn, err := ParseFunc(f[0])
	if isRMA {
		fn, err = SendRecv, nil
	}
	if err != nil {
		return Op{}, fmt.Errorf("unknown call %q: expected groupStart, groupEnd, init, sync, asyncError, finalize, a collective or a one-sided call", f[0])
	}
	sized := !isRMA || kind == RMAPutSignal
	if len(f) < 3 && sized || len(f) < 2 {
		if !sized {
			return Op{}, fmt.Errorf("%s needs a communicator: expected %s COMM peer=N", f[0], f[0])
		}
		return Op{}, fmt.Errorf("%s needs a communicator and a size: expected %s COMM SIZE [DTYPE] [REDOP] [root=N] [inplace]", f[0], f[0])
	}
	var size int64
	rest := f[2:]
	if sized {
		if size, err = ParseBytes(f[2]); err != nil {
			return Op{}, err
		}
		rest = f[3:]
	}
	if isRMA {
		c.RMA = &RMACall{Kind: kind}
		if kind == RMAWaitSignal {
			c.RMA.OpCnt = 1
		}
	}
	// key=value fields may follow the size anywhere; the rest are the
	// datatype and the reduction, in that order
	root := 0
	var pos []string
	var buffers, alloc string
	for _, a := range rest {
		key, v, ok := strings.Cut(strings.ToLower(a), "=")
		switch {
		case !ok && isRMA && key == "nopeerwin" && kind == RMAPutSignal:
			c.RMA.NoPeerWin = true
			continue
		case !ok && key == "inplace":
			if isRMA {
				return Op{}, fmt.Errorf("%q: a one-sided call has no in-place form; expected inplace on a collective, send or recv", a)
			}
			c.InPlace = true
			continue
		case !ok:
			pos = append(pos, a)
			continue
		case key == "inplace":
			return Op{}, fmt.Errorf("%q: expected inplace, a word without a value (the operation is in place when it is there)", a)
		case key == "buffers":
			buffers = v
			continue
		case key == "alloc":
			alloc = v
			continue
		case key == "peer" && isRMA:
			for _, p := range strings.Split(v, ",") {
				n, err := strconv.Atoi(p)
				if err != nil || n < 0 || n > maxRoot || len(c.RMA.Peers) == MaxRMADescs {
					return Op{}, fmt.Errorf("%q: expected peer=N[,N...] with 0 <= N <= %d, at most %d peers", a, maxRoot, MaxRMADescs)
				}
				c.RMA.Peers = append(c.RMA.Peers, n)
			}
			if kind != RMAWaitSignal && len(c.RMA.Peers) != 1 {
				return Op{}, fmt.Errorf("%q: %s takes one peer", a, f[0])
			}
			continue
		}
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 && (key == "root" || key == "peer") {
			return Op{}, fmt.Errorf("%q: expected %s=N with N a 32-bit integer", a, key)
		}
		switch {
		case key == "root" || key == "peer":
			if n > maxRoot {
				return Op{}, fmt.Errorf("%q: expected %s=N with 0 <= N <= %d", a, key, maxRoot)
			}
			if key == "root" {
				root = int(n)
				continue
			}
			dir := strings.TrimPrefix(strings.ToLower(f[0]), "nccl")
			if dir != "send" && dir != "recv" {
				return Op{}, fmt.Errorf("%q: peer=N names the peer of a send, recv or one-sided call, not of %s", a, f[0])
			}
			c.P2P = &P2PCall{Send: dir == "send", Peer: int(n)}
		case isRMA && key == "ctx":
			c.RMA.Ctx = int(n)
		case isRMA && key == "sigidx":
			c.RMA.SigIdx = int(n)
		case isRMA && key == "flags" && kind != RMAWaitSignal:
			if n < 0 {
				return Op{}, fmt.Errorf("%q: expected flags=N with N >= 0", a)
			}
			c.RMA.Flags = uint32(n)
		case isRMA && key == "opcnt" && kind == RMAWaitSignal:
			c.RMA.OpCnt = int(n)
		default:
			return Op{}, fmt.Errorf("%q: %s takes no %s=", a, f[0], key)
		}
	}
	if isRMA && len(c.RMA.Peers) == 0 {
		return Op{}, fmt.Errorf("%s needs peer=N", f[0])
	}
	if c.Buffers, c.Alloc, err = ParseBuffersAlloc(buffers, alloc); err != nil {
		return Op{}, err
	}
	dt, rop := Float32, Sum
	if len(pos) > 0 {
		if dt, err = ParseDataType(pos[0]); err != nil {
			return Op{}, err
		}
	}
	if len(pos) > 1 {
		if rop, err = ParseRedOp(pos[1]); err != nil {
			return Op{}, err
		}
	}
	if len(pos) > 2 || isRMA && len(pos) > 1 || !sized && len(pos) > 0 {
		return Op{}, fmt.Errorf("%q: unexpected field", pos[len(pos)-1])
	}
	return OpFromBytes(fn, size, dt, rop, root)
}
