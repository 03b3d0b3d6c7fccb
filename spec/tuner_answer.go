package spec

// A loaded tuner plugin's answers, as data. The plugin itself runs outside
// spec (package tuner, in a child process); what it returned comes back
// here and is applied the way NCCL applies it. Rules: G-TUNER-INIT-1 and
// G-TUNER-CALL-1.

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// TunerTable is an operation's cost table as getCollInfo receives it:
// float collCostTable[NCCL_NUM_ALGORITHMS][NCCL_NUM_PROTOCOLS] in µs, -1.0
// (NCCL_ALGO_PROTO_IGNORE) for a cell that may not be chosen. Rows past the
// release's algorithm count are not part of the table NCCL passes.
type TunerTable [NumAlgos][NumProtos]float32

// MarshalJSON writes the cells as numbers, a non-finite cell as null.
func (t TunerTable) MarshalJSON() ([]byte, error) {
	var rows [NumAlgos][NumProtos]*float64
	for a := range NumAlgos {
		for p := range NumProtos {
			if v := float64(t[a][p]); !math.IsNaN(v) && !math.IsInf(v, 0) {
				rows[a][p] = &v
			}
		}
	}
	return json.Marshal(rows)
}

// TunerCall is what NCCL passes to a loaded tuner's getCollInfo for one
// operation (src/enqueue.cc getAlgoInfo).
type TunerCall struct {
	ABI        int   `json:"abi"`
	Func       Func  `json:"func"`
	NBytes     int64 `json:"nBytes"`
	NumPipeOps int   `json:"numPipeOps"`
	// NumAlgo and NumProto are the table's dimensions in this release.
	NumAlgo  int        `json:"numAlgo"`
	NumProto int        `json:"numProto"`
	RegBuff  bool       `json:"regBuff"`
	Table    TunerTable `json:"table"`
	// CollNetSupport and NVLSSupport are what the v2 adapter passes,
	// read off the table.
	CollNetSupport bool `json:"collNetSupport"`
	NVLSSupport    bool `json:"nvlsSupport"`
}

// TunerAnswer is what the tuner returned for one TunerCall.
type TunerAnswer struct {
	// Result is the ncclResult_t getCollInfo returned.
	Result int `json:"result"`
	// Table is the cost table after the call (v3+; v2 leaves it as given).
	Table TunerTable `json:"table"`
	// Algo and Proto are a v2 tuner's choice (-1: not set).
	Algo  int `json:"algo"`
	Proto int `json:"proto"`
	// NChannels is the tuner's channel count (0: not set).
	NChannels int      `json:"nChannels"`
	Log       []string `json:"log,omitempty"`
	// Fault says the tuner crashed or hung (the call never returned; in
	// NCCL the process would be gone). Nothing else in the answer holds.
	Fault string `json:"fault,omitempty"`
}

// TunerEffect is what a loaded tuner did to one operation: the call, the
// answer, the table NCCL picked from, and the choice without the plugin.
type TunerEffect struct {
	Call   TunerCall   `json:"call"`
	Answer TunerAnswer `json:"answer"`
	// After is the table topoGetAlgoInfo scans.
	After TunerTable `json:"after"`
	// Edits lists the cells the answer changed.
	Edits []string `json:"edits,omitempty"`
	// Ignored says which part of the answer NCCL ignored (a v2 choice of
	// an IGNORE cell or one outside the table).
	Ignored string `json:"ignored,omitempty"`
	// Without is NCCL's choice on the same communicator without the
	// plugin's answer (filled by the caller that ran both).
	Without AlgoProto `json:"without"`
	// WithoutErr is the error NCCL returns without the answer, if any.
	WithoutErr *NCCLError `json:"withoutError,omitempty"`
	// WithoutNChannels is the channel count without the answer.
	WithoutNChannels int `json:"withoutNChannels,omitempty"`
}

// clone is a copy of e that shares no slice or pointer with it.
func (e *TunerEffect) clone() TunerEffect {
	c := *e
	c.Edits = slices.Clone(e.Edits)
	c.Answer.Log = slices.Clone(e.Answer.Log)
	if e.WithoutErr != nil {
		w := *e.WithoutErr
		c.WithoutErr = &w
	}
	return c
}

// Changed reports whether the plugin changed NCCL's choice (algorithm,
// protocol, channel count, or whether it fails).
func (e *TunerEffect) Changed(d *Decision) bool {
	return e.Without.Algo != d.Algo || e.Without.Proto != d.Proto || e.WithoutNChannels != d.NChannels || (e.WithoutErr == nil) != (d.Err == nil)
}

// TunerCallFor is the getCollInfo call NCCL makes for the operation d was
// decided for: the table before the plugin, from d's cost table. ok is
// false when NCCL makes no call (no tuner accepted, init failed, a
// discarded or one-rank call, no tuning model).
func (c *Comm) TunerCallFor(d *Decision) (call TunerCall, ok bool) {
	if c.TunerABI == 0 || c.Err != nil || c.Model == nil || d.Discarded || c.NRanks == 1 || len(d.CostTable()) == 0 {
		return call, false
	}
	for a := range NumAlgos {
		for p := range NumProtos {
			call.Table[a][p] = tuning.Ignore
		}
	}
	for _, cc := range d.CostTable() {
		call.Table[cc.Algo][cc.Proto] = float32(cc.TimeUs)
	}
	op := d.Op
	call.ABI, call.Func = c.TunerABI, op.Func
	call.NBytes = int64(op.DataType.Size()) * tuning.MaxSendRecvCount(op.Func, c.NRanks, op.Count)
	call.NumPipeOps = 1 // one operation per channel
	call.NumAlgo, call.NumProto = c.Model.Tuning.NumAlgos, NumProtos
	call.CollNetSupport, call.NVLSSupport = tunerV2Support(&call.Table)
	return call, true
}

// tunerV2Support is what the v2 adapter tells a v2 tuner: NVLS support
// when the NVLS or NVLSTree Simple cell is not IGNORE, CollNet support
// when the CollNetChain Simple cell is not IGNORE.
//
// Ref: v2.22.3-1 src/misc/tuner.cc hasNvlsSupport, hasCollNetSupport
// (v2.28.9-1 src/plugin/tuner/tuner_v2.cc likewise)
func tunerV2Support(t *TunerTable) (collNet, nvls bool) {
	nvls = t[NVLS][Simple] != tuning.Ignore || t[NVLSTree][Simple] != tuning.Ignore
	collNet = t[CollNetChain][Simple] != tuning.Ignore
	return collNet, nvls
}

// applyTunerAnswer is what NCCL does with getCollInfo's answer. From v3
// the tuner edited the table in place and NCCL scans it as it is (no
// re-validation). A v2 tuner names a cell; the adapter writes 0.0 into it
// only if the cell is inside the table and not IGNORE, otherwise the
// choice is ignored.
//
// Ref: v2.22.3-1 src/misc/tuner.cc ncclTuner_v2_as_v3_getCollInfo;
// v2.28.9-1 src/plugin/tuner/tuner_v2.cc ncclTuner_getCollInfo
func applyTunerAnswer(call *TunerCall, ans *TunerAnswer) (after TunerTable, edits []string, ignored string) {
	after = call.Table
	if call.ABI >= 3 {
		for a := range call.NumAlgo {
			for p := range call.NumProto {
				after[a][p] = ans.Table[a][p]
			}
		}
	} else if a, p := ans.Algo, ans.Proto; a != -1 || p != -1 {
		switch {
		case a < 0 || a >= call.NumAlgo || p < 0 || p >= call.NumProto:
			ignored = fmt.Sprintf("v2 choice algorithm %d protocol %d is outside the %d×%d table", a, p, call.NumAlgo, call.NumProto)
		case after[a][p] == tuning.Ignore:
			ignored = fmt.Sprintf("v2 choice %s is IGNORE: the adapter leaves it", AlgoProto{Algo(a), Proto(p)})
		default:
			after[a][p] = 0
		}
	}
	for a := range call.NumAlgo {
		for p := range call.NumProto {
			b, x := call.Table[a][p], after[a][p]
			if b != x && !(b != b && x != x) {
				edits = append(edits, fmt.Sprintf("%s %s→%s", AlgoProto{Algo(a), Proto(p)}, tunerCell(b), tunerCell(x)))
			}
		}
	}
	return after, edits, ignored
}

func tunerCell(v float32) string {
	if v == tuning.Ignore {
		return "IGNORE"
	}
	return strconv.FormatFloat(float64(v), 'g', -1, 32)
}

// SelectTuned is Select with a loaded tuner's answer for this operation:
// call is what NCCL passed (TunerCallFor), ans what came back.
func (c *Comm) SelectTuned(op Op, call TunerCall, ans TunerAnswer) (*Decision, SelectTrace, error) {
	if call.NumAlgo <= 0 || call.NumAlgo > NumAlgos || call.NumProto != NumProtos || call.ABI < 1 {
		return nil, SelectTrace{}, fmt.Errorf("tuner call with a %d×%d table and ABI %d: expected the table of TunerCallFor", call.NumAlgo, call.NumProto, call.ABI)
	}
	e := &TunerEffect{Call: call, Answer: ans}
	if ans.Fault == "" {
		e.After, e.Edits, e.Ignored = applyTunerAnswer(&call, &ans)
	} else {
		e.After = call.Table
	}
	d, err := c.decideOp(op, e)
	if err != nil {
		return nil, SelectTrace{}, err
	}
	d.Tuner = e
	return d, c.lazyTrace(d.Lazy), nil
}

// tunedCall is G-TUNER-CALL-1 with a real tuner's answer: the cells take
// the answer's values (a cell below 0 cannot be chosen), the channel count
// replaces NCCL's, and a non-success return fails the collective.
func (o *opRun) tunedCall(e *TunerEffect) {
	ans := &e.Answer
	facts := []Fact{F("abi", e.Call.ABI), F("nBytes", e.Call.NBytes)}
	if ans.Fault != "" {
		o.dec.DecidedBy, o.stop = "G-TUNER-CALL-1", true
		o.dec.Undecided = "the tuner plugin " + ans.Fault + ": NCCL's process would not survive the call"
		o.emit(Verdict{Outcome: Fail, Why: o.dec.Undecided, Facts: facts, Log: ans.Log})
		return
	}
	if ans.Result != 0 {
		o.dec.Err = tuning.TunerCallErr(Result(ans.Result))
		o.dec.DecidedBy, o.stop = "G-TUNER-CALL-1", true
		o.emit(Verdict{Outcome: Fail, Why: o.dec.Err.Message + ": NCCLCHECK returns it and the collective fails", Facts: facts, Log: ans.Log})
		return
	}
	best := float32(-1)
	for a := range e.Call.NumAlgo {
		for p := range e.Call.NumProto {
			v := e.After[a][p]
			o.cell[a][p] = v >= 0
			if v >= 0 {
				o.cost[a][p], o.costSet[a][p] = float64(v), true
			} else if o.prunedBy[a][p] == "" {
				o.prunedBy[a][p] = "G-TUNER-CALL-1"
			}
			if v >= 0 && v != e.Call.Table[a][p] && (best < 0 || v < best) {
				o.tunerCell, best = AlgoProto{Algo(a), Proto(p)}, v
			}
		}
	}
	if ans.NChannels != 0 {
		facts = append(facts, F("nChannels", ans.NChannels))
	}
	why := "the tuner leaves the table as it is"
	if len(e.Edits) > 0 {
		why = "the tuner edits " + strings.Join(e.Edits, ", ") + " (not re-validated)"
	}
	if e.Ignored != "" {
		why += "; ignored: " + e.Ignored
	}
	o.emit(Verdict{Outcome: Info, Why: why, Facts: facts, Log: ans.Log})
}

// modelEdit is what the tuning model takes of the answer: the table and
// the channel count (nil when the answer holds nothing: a fault or an
// error return).
func (e *TunerEffect) modelEdit() *tuning.TunerEdit {
	if e == nil || e.Answer.Fault != "" || e.Answer.Result != 0 {
		return nil
	}
	return &tuning.TunerEdit{NumAlgo: e.Call.NumAlgo, After: e.After, NChannels: e.Answer.NChannels}
}
