package spec

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gatesim/gatesim/spec/tuning"
)

// OpFromBytes builds an Op for a byte size; the size must be a multiple of
// the element size.
func OpFromBytes(f Func, bytes int64, dt DataType, op RedOp, root int) (Op, error) {
	sz := int64(dt.Size())
	if sz == 0 {
		return Op{}, fmt.Errorf("unknown datatype %d", dt)
	}
	if bytes < 0 {
		return Op{}, fmt.Errorf("negative size %d bytes", bytes)
	}
	if bytes > MaxOpBytes {
		return Op{}, fmt.Errorf("%d bytes: expected at most %s per operation (gatesim's limit)", bytes, FormatBytes(MaxOpBytes))
	}
	if bytes%sz != 0 {
		return Op{}, fmt.Errorf("%d bytes is not a whole number of %s elements (%d bytes each)", bytes, dt, sz)
	}
	return Op{Func: f, Count: bytes / sz, DataType: dt, RedOp: op, Root: root}, nil
}

// AlgoProto is one cell of the cost table.
type AlgoProto struct {
	Algo  Algo  `json:"algo"`
	Proto Proto `json:"proto"`
}

func (a AlgoProto) String() string { return a.Algo.String() + "/" + a.Proto.String() }

// ChannelRange writes the channels lo..hi (both run) as NCCL's
// per-operation line prints them inside its braces,
// channel{Lo..Hi}={lo..hi}: "2..5".
func ChannelRange(lo, hi int) string { return strconv.Itoa(lo) + ".." + strconv.Itoa(hi) }

// Decision is what NCCL finally does for one operation on one
// communicator: the algorithm and protocol, or the error it returns.
type Decision struct {
	Release Version `json:"nccl"`
	Op      Op      `json:"op"`
	// Err is set when NCCL returns an error (from communicator init or from
	// the collective); Algo and Proto are then AlgoNone/ProtoNone.
	Err   *NCCLError `json:"error,omitempty"`
	Algo  Algo       `json:"algo"`
	Proto Proto      `json:"proto"`
	// Candidates are the legal (algorithm, protocol) pairs after every gate,
	// in NCCL's index order. When the tuning model cannot run, Algo/Proto
	// are set only if one candidate (or one algorithm) remains, and
	// Undecided says why.
	Candidates []AlgoProto `json:"candidates,omitempty"`
	Undecided  string      `json:"undecided,omitempty"`
	// Discarded is true when NCCL drops the call without running anything
	// (a count of 0: "Empty collectives can be discarded").
	Discarded bool `json:"discarded,omitempty"`
	// DecidedBy names the gate that settled the outcome: the failing rule
	// for an error, the fallback rule for a backup choice, G-SEL-PICK-1
	// for a cost-table argmin.
	DecidedBy RuleID `json:"decided_by,omitempty"`
	// Fallback is true when NCCL ran something other than what NCCL_ALGO /
	// NCCL_PROTO asked for without an error: 2.22.3's Ring backup, a Ring
	// cell 2.19.1–2.23.4 restored for a function left with none
	// (G-TUNE-RINGRESTORE-1), or a Ring 2.18.x never disables for a
	// function other than AllReduce (G-TUNE-EN-1).
	Fallback bool `json:"fallback,omitempty"`

	Net string `json:"net,omitempty"`
	// NetVia is Comm.NetVia: the transport and the plugin.
	NetVia string `json:"net_via,omitempty"`
	// Transport is how ranks of one node reach each other: P2P, SHM or NET.
	Transport      string `json:"transport,omitempty"`
	CollNetSupport bool   `json:"collnet_support"`
	NVLSSupport    bool   `json:"nvls_support"`

	// Costs is the operation's cost table after pruning and the tuner: one
	// entry per cell of the release's algorithms, in NCCL's scan order.
	// Select leaves it nil and Lazy makes it when read: read it with
	// CostTable (JSON carries it as "costs").
	Costs []CellCost `json:"costs,omitempty"`
	// Lazy, when Costs is nil, makes the cost table (and the operation's
	// verdicts) when first read; nil where there is no table to make.
	Lazy *LazyOp `json:"-"`

	// From the tuning model (zero when it did not run).
	NChannels int     `json:"nchannels,omitempty"`
	ChannelLo int     `json:"channel_lo"`
	ChannelHi int     `json:"channel_hi"`
	NThreads  int     `json:"nthreads,omitempty"`
	TimeUs    float64 `json:"time_us,omitempty"`
	// Kernel is the path outside the cost table that runs the operation
	// (G-SEL-SIDE-1): a symmetric kernel's name (NChannels its blocks,
	// NThreads its threads, TimeUs NCCL's estimate), "copy-engine" or
	// "hierarchical-ce" (2.30.7+: across LSA teams).
	Kernel string `json:"kernel,omitempty"`
	// RMA is a one-sided call's path (G-RMA-OP-1, 2.29.2+): its tasks,
	// copy engines or RMA proxy, and its RMA plan; Kernel then names it
	// ("rma-ce", "rma-proxy", "rma-ce+proxy").
	RMA *RMAPath `json:"rma,omitempty"`
	// DevComm is the device communicator ncclDevCommCreate built
	// (G-DEVCOMM-1, 2.28.3+), nil for any other call or on its error.
	DevComm *DevCommResult `json:"devComm,omitempty"`
	// DevCommRelease is what ncclDevCommDestroy gave back
	// (G-DEVCOMM-DESTROY-1).
	DevCommRelease *DevCommRelease `json:"devCommRelease,omitempty"`
	// SymChannels is the nchannels the kernel's [Symmetric] line prints:
	// 2.28.3+ the channels its plan's cells fill, which can be fewer than
	// NChannels; 2.27 NChannels.
	SymChannels int `json:"sym_nchannels,omitempty"`
	// CTABytes is the most bytes one block of the symmetric kernel works
	// on (2.28.3+: its share of its plan's pieces, G-SCHED-SYMRANGE-1;
	// 2.27: the even share). SymParts are the pieces of this operation's
	// bytes and the blocks that move each.
	CTABytes int64            `json:"cta_bytes,omitempty"`
	SymParts []tuning.SymPart `json:"sym_parts,omitempty"`
	// Part is the channel split a group plan gave the operation
	// (scheduleCollTasksToPlan beside others); nil when the operation is
	// planned alone, or on CollNet, whose channels all walk the buffer.
	// The schedule builders read it; ChannelLo..ChannelHi print it.
	Part *tuning.CBDPart `json:"-"`
	// Plan is the plan (0-based launch) of its group that runs the
	// operation (tuning.OpChoice.Plan; a send/recv operation's first
	// task's; a one-sided call's RMA plan, launched before the others),
	// 0 for an operation planned alone. A group's plans launch
	// one after another, and the simulator times them so
	// (sim.GroupOpTime).
	Plan int `json:"-"`
	// Chunk is calcCollChunking's chunk of each channel part
	// (G-SEL-CHUNK-1), with a declarative v6 tuner's getChunkSize; zero
	// where no cost-table collective runs. It is not part of the JSON
	// decision: explain prints it, the oracle answers it per operation.
	Chunk tuning.OpChunk `json:"-"`
	// ChunkArgs is what that chunk read beyond the channel split: the
	// registration of the buffers and, before 2.22.3, the bytes and
	// channels of the task's one call; the schedule builders read it.
	ChunkArgs tuning.ChunkArgs `json:"-"`

	// Evidence is shared by the decisions of one communicator that
	// raised the same levels: read only.
	Evidence Evidence `json:"evidence"`

	// Tuner is what a loaded tuner plugin did to this operation (nil
	// without one; see SelectTuned).
	Tuner *TunerEffect `json:"tuner,omitempty"`
	// P2P is set for SendRecv and AllToAll: NCCL runs them on its
	// point-to-point path, not through the cost table, so Algo and Proto
	// stay unset (the protocol is chosen per peer by size when the work is
	// planned) and Costs is empty.
	P2P *P2PPath `json:"p2p,omitempty"`
}

// P2PPath is the communicator's point-to-point channels
// (ncclTopoComputeP2pChannels): how many channels p2p work spreads over
// and at most how many one peer's operation uses.
type P2PPath struct {
	NChannels        int `json:"p2p_nchannels"`
	NChannelsPerPeer int `json:"p2p_nchannels_per_peer"`
	// Tasks are rank 0's send/recv tasks of the operation as its group's
	// plan placed them (SelectGroup, G-SCHED-P2P-1): peer, direction,
	// protocol, channels in part order and plan; nil outside a group.
	Tasks []tuning.P2PPlaced `json:"tasks,omitempty"`
}

// CellCost is one cell of an operation's cost table: NCCL's time estimate,
// or why the cell cannot be chosen.
type CellCost struct {
	Algo   Algo    `json:"algo"`
	Proto  Proto   `json:"proto"`
	TimeUs float64 `json:"time_us"` // negative: not selectable
	Usable bool    `json:"usable"`
	Rule   RuleID  `json:"rule,omitempty"`
	Why    string  `json:"why,omitempty"`
}

// CostTable is the operation's cost table: Costs, or the one Lazy makes
// (shared: read only).
func (d *Decision) CostTable() []CellCost {
	if d.Costs == nil && d.Lazy != nil {
		return d.Lazy.Costs()
	}
	return d.Costs
}

// decisionFields is Decision without its methods: its JSON is the
// standard encoding of the fields.
type decisionFields Decision

// MarshalJSON writes the decision's fields with a lazy cost table written
// out as "costs": the same bytes as when it was made eagerly.
func (d Decision) MarshalJSON() ([]byte, error) {
	d.Costs = d.CostTable()
	return json.Marshal(decisionFields(d))
}

// JSONFields tells schema generators that a decision's JSON is its
// fields' (MarshalJSON only writes a lazy cost table out).
func (Decision) JSONFields() {}

// OK reports a decision without an error.
func (d *Decision) OK() bool { return d.Err == nil }

// fillDecision copies the tuning model's choice into the gate engine's Decision: the
// algorithm and protocol (or the error), the usable cells as candidates in
// index order, the deciding rule, 2.22.3's fallback, channels, threads and
// NCCL's time estimate. Support bits, evidence and the release are the
// engine's to set.
func fillDecision(c *tuning.OpChoice, d *Decision) {
	d.Op = c.Op
	d.Algo, d.Proto = c.Algo, c.Proto
	d.Err = c.Err
	d.Candidates = d.Candidates[:0]
	for a := range NumAlgos {
		for p := range NumProtos {
			if x := c.Cost[a][p]; x != tuning.Ignore && x >= 0 {
				d.Candidates = append(d.Candidates, AlgoProto{Algo: Algo(a), Proto: Proto(p)})
			}
		}
	}
	if len(d.Candidates) == 0 {
		d.Candidates = nil
	}
	d.DecidedBy = c.DecidedBy
	d.Fallback = c.Backup || c.Restored || c.RingKept
	if d.DecidedBy == tuning.RuleSelPick {
		// the gate that kept or restored a Ring NCCL_ALGO turned off runs
		// it, as opRun.ringFallback names it
		switch {
		case c.RingKept:
			d.DecidedBy = tuning.RuleEnable
		case c.Restored:
			d.DecidedBy = tuning.RuleRingRestore
		}
	}
	d.NChannels, d.NThreads = c.NChannels, c.NThreads
	d.ChannelLo, d.ChannelHi = c.ChannelLo, c.ChannelHi
	d.TimeUs = float64(c.TimeUs)
	d.Part = nil
	if c.Part.Hi >= c.Part.Lo && c.Part.CountLo > 0 {
		p := c.Part
		d.Part = &p
	}
}

// PlanPhrase names the kernel plan that runs an operation for printing:
// "in plan N", or, for a send/recv operation whose every task NCCL
// dropped (an in-place send/recv to self, G-SCHED-P2P-3), that no kernel
// runs it.
func PlanPhrase(plan int) string {
	if plan < 0 {
		return "in no plan (every task dropped by G-SCHED-P2P-3: no kernel runs it)"
	}
	return fmt.Sprintf("in plan %d", plan)
}
