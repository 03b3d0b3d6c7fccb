package tuning

// What the model takes of a tuner plugin: the declarative behaviour a
// system file describes, a loaded plugin's answer for one operation, and
// the constants a v5+ tuner may edit at init. The plugin itself runs
// outside the core (package tuner); spec turns its answers into these
// values (spec/tuner_answer.go).

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/nccl"
)

// TunerBehaviour is what a tuner plugin does to the cost table.
type TunerBehaviour struct {
	Name string `json:"name"`
	// InitError makes the tuner's init fail (communicator init fails).
	InitError string `json:"init_error,omitempty"`
	// Rules are applied in order per operation; the first matching one wins.
	Rules []TunerRule `json:"rules,omitempty"`
	// InitLog is what a loaded tuner logged during init.
	InitLog []string `json:"init_log,omitempty"`
	// Constants are a v5+ tuner's init edits of the tuning constants.
	Constants []ConstantEdit `json:"constants,omitempty"`
	// Model names a plugin whose init and getCollInfo gatesim models in
	// code ("aws-ofi-nccl@1.18.0:p5en.48xlarge"); spec answers for it as
	// the plugin would, through the loaded-plugin path.
	Model string `json:"-"`
}

// TunerRule sets one cost-table cell for operations of a function within a
// size range, as the example tuner of NCCL's plugins/tuner does: cost 0.0
// prefers the cell, -1 (IGNORE) forbids it. ChunkSize (v6, 2.30.3+) is
// the rule's getChunkSize answer for calcCollChunking calls of the same
// function, algorithm and protocol whose bytes are in the range (each
// channel part is one call, on its own bytes); such a rule answers
// getChunkSize only and leaves the cost table (getCollInfo) alone.
type TunerRule struct {
	Func      string  `json:"func"`
	MinBytes  int64   `json:"min_bytes"`
	MaxBytes  int64   `json:"max_bytes"` // 0: no upper bound
	Algo      string  `json:"algo"`
	Proto     string  `json:"proto"`
	Cost      float64 `json:"cost"`
	NChannels int     `json:"nchannels,omitempty"`
	ChunkSize int64   `json:"chunk_size,omitempty"`
	// Result is the ncclResult_t getCollInfo returns for a call the rule
	// matches ("ncclInvalidUsage"; empty: ncclSuccess). A failing rule
	// writes no cell; NCCL returns the result through NCCLCHECK.
	Result string `json:"result,omitempty"`
}

// TunerCallErr is the error NCCL returns when getCollInfo fails: NCCLCHECK
// passes the tuner's result up to ncclGroupEnd, printing only its INFO
// trace (G-TUNER-CALL-1).
//
// Ref: v2.28.9-1 src/enqueue.cc getAlgoInfo (v2.29.2-1..v2.30.7-1
// ncclGetAlgoInfo); src/include/checks.h NCCLCHECK
func TunerCallErr(res nccl.Result) *nccl.NCCLError {
	return &nccl.NCCLError{Result: res, Message: "tuner getCollInfo returned " + res.String(), Call: "ncclGroupEnd"}
}

// ParseTunerResult checks a rule's result: empty, or an error result
// (neither ncclSuccess nor ncclInProgress, which NCCLCHECK lets pass).
func ParseTunerResult(s string) (nccl.Result, error) {
	if s == "" {
		return nccl.Success, nil
	}
	r, err := nccl.ParseResult(s)
	if err == nil && (r == nccl.Success || r == nccl.InProgress) {
		err = fmt.Errorf("result %q: expected an error result (ncclUnhandledCudaError..ncclRemoteError) or none", s)
	}
	return r, err
}

// MaxTunerChunkSize bounds a rule's chunk_size: NCCL keeps the answer in
// a size_t and clamps it to the protocol's step-sized chunk, an int.
const MaxTunerChunkSize = 1<<31 - 1

// HasChunkRules reports whether a rule answers getChunkSize (the tuner is
// a v6 one with the callback; nil: no tuner).
func (b *TunerBehaviour) HasChunkRules() bool {
	if b == nil {
		return false
	}
	for _, r := range b.Rules {
		if r.ChunkSize > 0 {
			return true
		}
	}
	return false
}

// ChunkSize is the declarative tuner's getChunkSize: the first rule with a
// chunk size whose function, algorithm, protocol and byte range match the
// call sets the chunk; otherwise NCCL's stays. NCCL then clamps the
// answer to the buffer's chunk and aligns it to the protocol's grain.
//
// Ref: v2.30.3-1 src/include/plugin/tuner/tuner_v6.h getChunkSize;
// src/enqueue.cc calcCollChunking (G-TUNER-CHUNK-1; v2.30.7-1 likewise)
func (b *TunerBehaviour) ChunkSize(c ChunkCall) (uint64, error) {
	for _, r := range b.Rules {
		if r.ChunkSize <= 0 || c.NBytes < r.MinBytes || (r.MaxBytes != 0 && c.NBytes > r.MaxBytes) {
			continue
		}
		f, err := nccl.ParseFunc(r.Func)
		if err != nil || f != c.Func {
			continue
		}
		a, err1 := nccl.ParseAlgo(r.Algo)
		p, err2 := nccl.ParseProto(r.Proto)
		if err1 != nil || err2 != nil || a != c.Algo || p != c.Proto {
			continue
		}
		return uint64(r.ChunkSize), nil
	}
	return uint64(max(0, c.Chunk)), nil
}

// TunerEdit is what the model takes of a loaded tuner's answer for one
// operation: the table after the call (getCollInfo's collCostTable, -1.0
// for IGNORE), the number of algorithm rows NCCL passed, and the channel
// count the tuner set (0: not set).
type TunerEdit struct {
	NumAlgo   int
	After     [nccl.NumAlgos][nccl.NumProtos]float32
	NChannels int
}

// applyToModel writes the answer's table into the aggregate's cost table
// (cells it changed are marked as the tuner's) and sets the channel count.
func (e *TunerEdit) applyToModel(m *Model, g *tuningAgg) {
	for a := range min(e.NumAlgo, m.Tuning.NumAlgos) {
		for p := range nccl.NumProtos {
			if v := e.After[a][p]; v != g.cost[a][p] && !(v != v && g.cost[a][p] != g.cost[a][p]) {
				g.cost[a][p], g.reason[a][p] = v, CostTuner
				g.setLive(nccl.Algo(a), nccl.Proto(p))
			}
		}
	}
	g.tunerNCh = e.NChannels
}

// TunerConstantsV5 lays the release's tuning constants out as
// ncclTunerConstants_v5_t: baseLatencies[7][3], hwLatencies[3][7][3],
// then llMaxBws, perChMaxRingLL128Bws, perChMaxTreeLL128Bws,
// perChMaxTreeBws and perChMaxNVLSTreeBws, each [4][3] (144 doubles).
//
// Ref: v2.28.9-1 src/include/plugin/tuner/tuner_v5.h
func (t *Consts) TunerConstantsV5() []float64 {
	out := make([]float64, 0, 144)
	t.walkConstants(func(_ string, v float64) { out = append(out, v) })
	return out
}

// TunerConstantEditsV5 turns the constants a v5+ tuner's init left into
// edits of the release's constants (the cells that changed).
func (t *Consts) TunerConstantEditsV5(after []float64) ([]ConstantEdit, error) {
	before := t.TunerConstantsV5()
	if len(after) != len(before) {
		return nil, fmt.Errorf("tuner constants: %d values, expected %d", len(after), len(before))
	}
	var edits []ConstantEdit
	i := 0
	t.walkConstants(func(path string, v float64) {
		if w := after[i]; w != v && !(w != w && v != v) {
			edits = append(edits, ConstantEdit{Path: path, Value: w})
		}
		i++
	})
	return edits, nil
}

// walkConstants visits the fields of ncclTunerConstants_v5_t in C order.
func (t *Consts) walkConstants(fn func(path string, v float64)) {
	names := []string{"baseLatencies", "hwLatencies", "llMaxBws", "perChMaxRingLL128Bws", "perChMaxTreeLL128Bws", "perChMaxTreeBws", "perChMaxNVLSTreeBws"}
	for _, name := range names {
		t.walk(func(l tuningLeaf) bool {
			if strings.HasPrefix(l.path, name+"[") {
				fn(l.path, l.v.Float())
			}
			return true
		})
	}
}
