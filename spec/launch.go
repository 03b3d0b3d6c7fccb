package spec

import (
	"errors"
	"fmt"
	"strings"
)

// How operations reach NCCL: one call alone on a stream, several in one
// ncclGroupStart/End, captured into a CUDA graph, with user, registered or
// window buffers. NCCL plans the whole group at once (ncclPrepareTasks,
// scheduleCollTasksToPlan), so the same operation decides differently
// with company; a captured group is "persistent" and may register its
// buffers at capture (NCCL_GRAPH_REGISTER).

// LaunchMode is how the group's kernels are launched.
type LaunchMode int

const (
	// LaunchStream: launched on the stream at ncclGroupEnd.
	LaunchStream LaunchMode = iota
	// LaunchGraph: captured into a CUDA graph (the planner is persistent).
	LaunchGraph
	numLaunchModes
)

var launchNames = [numLaunchModes]string{"stream", "graph"}

func (m LaunchMode) String() string {
	if m >= 0 && m < numLaunchModes {
		return launchNames[m]
	}
	return fmt.Sprintf("LaunchMode(%d)", int(m))
}

// ParseLaunchMode reads "stream" or "graph".
func ParseLaunchMode(s string) (LaunchMode, error) {
	for i, n := range launchNames {
		if strings.EqualFold(s, n) {
			return LaunchMode(i), nil
		}
	}
	return 0, fmt.Errorf("launch %q: expected stream or graph", s)
}

// LaunchModeOf is LaunchGraph for a captured launch, LaunchStream otherwise.
func LaunchModeOf(graph bool) LaunchMode {
	if graph {
		return LaunchGraph
	}
	return LaunchStream
}

// MarshalText writes the name.
func (m LaunchMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the name.
func (m *LaunchMode) UnmarshalText(p []byte) error {
	v, err := ParseLaunchMode(string(p))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// MaxGroupOps bounds the operations of one group wherever gatesim takes
// one: nccl-tests' -m (--agg, the timing's launch, hw runs), a group
// script's group on one communicator, a log's group and an oracle's
// "group". NCCL itself has no such limit (ncclGroupEnd plans any number
// of tasks), so this is gatesim's input limit: the larger of the two it
// had, as logs of -m runs and oracle groups needed 4096.
const MaxGroupOps = 4096

// CheckGroupSize checks n operations in one group against MaxGroupOps;
// every limit check says it in these words.
func CheckGroupSize(n int) error {
	if n < 1 || n > MaxGroupOps {
		return fmt.Errorf("%d operations in one group: expected 1..%d", n, MaxGroupOps)
	}
	return nil
}

// GroupOp is one operation of a group as the application calls it.
// Alloc says how its buffers were allocated (cuMem, the zero value, or
// cudaMalloc), which decides whether NCCL can register them
// (G-REG-SKIP-1); window buffers are always cuMem.
type GroupOp struct {
	Op      Op      `json:"op"`
	InPlace bool    `json:"inPlace,omitempty"`
	Buffers Buffers `json:"buffers,omitempty"`
	Alloc   Alloc   `json:"alloc,omitempty"`
	// P2P makes a SendRecv one ncclSend or ncclRecv of the caller's own
	// (nil: nccl-tests' ring; an AllToAll is always every rank).
	P2P *P2PCall `json:"p2p,omitempty"`
	// RMA makes a SendRecv one one-sided call (2.29.2+): its Op the bytes
	// of a put, 0 for a signal or a wait.
	RMA *RMACall `json:"rma,omitempty"`
	// DevComm makes the operation an ncclDevCommCreate with these
	// requirements (2.28.3+; its Op a SendRecv of no bytes).
	DevComm *DevCommReqs `json:"devComm,omitempty"`
	// DevCommDestroy makes the operation an ncclDevCommDestroy of the
	// communicator's nth device communicator (1-based, in creation order;
	// 2.28.3+; its Op a SendRecv of no bytes). It runs at its call, not
	// at ncclGroupEnd.
	DevCommDestroy int `json:"devCommDestroy,omitempty"`
}

// P2PCall is one ncclSend or ncclRecv stated by its caller: the direction
// and the peer, a rank of the communicator as rank 0 (the modelled rank)
// numbers them; its bytes are the operation's.
type P2PCall struct {
	Send bool `json:"send"`
	Peer int  `json:"peer"`
}

// Dir is "send" or "recv".
func (p P2PCall) Dir() string {
	if p.Send {
		return "send"
	}
	return "recv"
}

// Launch describes how a group of operations is issued: the launch mode and
// how many times each listed operation is repeated inside the one group
// (nccl-tests' -m, "aggregation"). It is the decision side of a workload;
// the timing side reads the same value.
type Launch struct {
	Mode LaunchMode `json:"mode"`
	// Agg repeats the operation list Agg times in one group, in order
	// (0 and 1 mean once; 0 also says the group was not given, where a
	// log line may name it: diagnose's [Symmetric] lines).
	Agg int `json:"agg,omitempty"`
}

// Expand returns the group's operations in call order: ops repeated Agg
// times. It checks the limits.
func (l Launch) Expand(ops []GroupOp) ([]GroupOp, error) {
	if l.Mode < 0 || l.Mode >= numLaunchModes {
		return nil, fmt.Errorf("launch mode %d: expected stream or graph", int(l.Mode))
	}
	agg := max(1, l.Agg)
	if l.Agg < 0 {
		return nil, fmt.Errorf("agg %d: expected ≥ 1", l.Agg)
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("group: no operation: expected at least one")
	}
	if err := CheckGroupSize(agg); err != nil {
		return nil, fmt.Errorf("agg: %w", err)
	}
	if err := CheckGroupSize(len(ops) * agg); err != nil {
		return nil, fmt.Errorf("group of %d operations × agg %d: %w", len(ops), agg, err)
	}
	out := make([]GroupOp, 0, len(ops)*agg)
	for range agg {
		out = append(out, ops...)
	}
	for i, o := range out {
		if o.Buffers < 0 || o.Buffers >= NumBuffers {
			return nil, opArgErr(i, ArgBuffers, "buffers %d: expected user, registered or window", int(o.Buffers))
		}
		if err := checkAlloc(o.Buffers, o.Alloc); err != nil {
			return nil, &GroupOpError{Op: i, Err: &ArgError{Arg: ArgAlloc, Err: err}}
		}
		if r := o.RMA; r != nil && (o.Op.Func != SendRecv || o.P2P != nil || r.Kind != RMAPutSignal && o.Op.Count != 0) {
			return nil, opErr(i, "nccl%s as a %s of %d elements: expected a SendRecv without a send/recv peer (count 0 but for a put)", r.Kind, o.Op.Func, o.Op.Count)
		}
		if p := o.P2P; p != nil && (o.Op.Func != SendRecv || p.Peer < 0 || p.Peer >= MaxRanks) {
			return nil, opArgErr(i, ArgPeer, "%s peer %d of a %s: expected a send or recv to a peer in 0..%d", p.Dir(), p.Peer, o.Op.Func, MaxRanks-1)
		}
	}
	return out, nil
}

// Issue is how a workload issues one operation: its buffers, in place or
// not, and the launch of its group (the operation repeated Launch.Agg
// times, on a stream or captured). The zero value is the operation alone
// on a stream with user buffers, which Select decides; every command that
// takes --agg, --cudagraph, --buffers or --inplace builds one Issue and
// hands it to both the decision (SelectIssue) and the timing.
type Issue struct {
	Launch  Launch  `json:"launch"`
	Buffers Buffers `json:"buffers,omitempty"`
	Alloc   Alloc   `json:"alloc,omitempty"`
	InPlace bool    `json:"inplace,omitempty"`
}

// checkAlloc refuses an allocation the buffers cannot have: windows
// (ncclCommWindowRegister) are ncclMemAlloc'ed cuMem memory.
func checkAlloc(b Buffers, a Alloc) error {
	if a < 0 || a >= NumAllocs {
		return fmt.Errorf("alloc %d: expected cumem, cudamalloc, cumem-host or cumem-segments", int(a))
	}
	if b != BuffersWindow && a == AllocCuMemSegments {
		return fmt.Errorf("alloc %s with %s buffers: memory of several cuMem segments is modelled in windows only; expected buffers window", a, b)
	}
	if b == BuffersWindow && a == AllocCudaMalloc {
		return fmt.Errorf("alloc %s with window buffers: a window is cuMem memory; expected alloc cumem or cumem-host", a)
	}
	if b != BuffersWindow && a == AllocCuMemHost {
		return fmt.Errorf("alloc %s with %s buffers: host cuMem memory is modelled in windows only; expected buffers window", a, b)
	}
	return nil
}

// Check refuses an issue whose buffers cannot have its allocation.
func (is Issue) Check() error { return checkAlloc(is.Buffers, is.Alloc) }

// ParseBuffersAlloc reads how an operation's buffers reach NCCL and how
// they were allocated ("user", "registered" or "window"; "cumem" or
// "cudamalloc"; "" keeps the default), refusing a pair they cannot be;
// the error names the field ("buffers" or "alloc").
func ParseBuffersAlloc(buffers, alloc string) (Buffers, Alloc, error) {
	var b Buffers
	var a Alloc
	var err error
	if buffers != "" {
		if b, err = ParseBuffers(buffers); err != nil {
			return 0, 0, err
		}
	}
	if alloc != "" {
		if a, err = ParseAlloc(alloc); err != nil {
			return 0, 0, err
		}
	}
	return b, a, checkAlloc(b, a)
}

// Alone reports the zero issue: one operation, stream, user buffers, out
// of place (however allocated: nothing registers them).
func (is Issue) Alone() bool {
	return is.Launch.Mode == LaunchStream && is.Launch.Agg <= 1 && is.Buffers == BuffersUser && !is.InPlace
}

// Op is the group operation of op issued this way.
func (is Issue) Op(op Op) GroupOp {
	return GroupOp{Op: op, InPlace: is.InPlace, Buffers: is.Buffers, Alloc: is.Alloc}
}

// SelectIssue decides op issued as is says: the whole group planned
// together (SelectGroup), every repetition an operation of it. Without
// repetitions the user wrote no group, so an error names none.
func (c *Comm) SelectIssue(op Op, is Issue) (*GroupDecision, error) {
	g, err := c.SelectGroup([]GroupOp{is.Op(op)}, is.Launch)
	if err != nil && is.Launch.Agg <= 1 {
		err = AloneError(err)
	}
	return g, err
}

// GroupOpError is an error of one operation of a group: Op is its index
// in call order.
type GroupOpError struct {
	Op  int
	Err error
}

func (e *GroupOpError) Error() string { return fmt.Sprintf("group op %d: %v", e.Op, e.Err) }

func (e *GroupOpError) Unwrap() error { return e.Err }

func opErr(i int, format string, args ...any) error {
	return &GroupOpError{Op: i, Err: fmt.Errorf(format, args...)}
}

// OpArg names the argument of an operation an ArgError is about: its
// Op field, or how the operation is issued (GroupOp's).
type OpArg int

const (
	ArgFunc OpArg = iota
	ArgCount
	ArgDataType
	ArgRedOp
	ArgRoot
	ArgPeer
	ArgBuffers
	ArgAlloc
	ArgDevComm    // ncclDevCommCreate's requirements
	ArgDevCommNth // which device communicator ncclDevCommDestroy destroys
)

var opArgNames = [...]string{"func", "count", "datatype", "redop", "root", "peer", "buffers", "alloc", "dev_comm", "dev_comm_nth"}

func (a OpArg) String() string {
	if a < 0 || int(a) >= len(opArgNames) {
		return fmt.Sprintf("OpArg(%d)", int(a))
	}
	return opArgNames[a]
}

// ArgError is an error of one argument of an operation: a caller that
// knows how the user wrote the operation names that member. It reads as
// Err alone.
type ArgError struct {
	Arg OpArg
	Err error
}

func (e *ArgError) Error() string { return e.Err.Error() }

func (e *ArgError) Unwrap() error { return e.Err }

// argErr is an ArgError of arg.
func argErr(arg OpArg, format string, args ...any) error {
	return &ArgError{Arg: arg, Err: fmt.Errorf(format, args...)}
}

// opArgErr is a GroupOpError of operation i whose argument arg is wrong.
func opArgErr(i int, arg OpArg, format string, args ...any) error {
	return &GroupOpError{Op: i, Err: argErr(arg, format, args...)}
}

// BeforeError is an error of call Call (0-based) of the calls a
// communicator made before the group SelectAfter decides.
type BeforeError struct {
	Call int
	Err  error
}

func (e *BeforeError) Error() string {
	return fmt.Sprintf("call %d before the group: %v", e.Call, e.Err)
}

func (e *BeforeError) Unwrap() error { return e.Err }

// AloneError is err as said of an operation issued alone (no group the
// user wrote): without the "group op 0" its GroupOpError would name.
func AloneError(err error) error {
	var g *GroupOpError
	if errors.As(err, &g) && g.Op == 0 {
		return g.Err
	}
	return err
}
