// Package tuner loads a real NCCL tuner plugin (a .so) and runs it against
// gatesim's model of NCCL: the ABI NCCL's loader accepts at the modelled
// release, init with the communicator's ranks and nodes, getCollInfo with
// NCCL's own cost table for each operation, finalize at the end. The
// plugin runs in a child process (this executable re-run with ChildArg,
// speaking JSON lines over pipes) with a time limit per call, so a tuner
// that crashes or hangs is reported, never fatal. What the plugin answers
// goes back into spec as data (spec.TunerAnswer, TunerBehaviour's init
// results), and spec applies it as NCCL does.
package tuner

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Library is a tuner .so as probed: the versioned symbols it exports and
// the name each one gives.
type Library struct {
	Path    string
	Symbols []int
	Names   map[int]string
	opt     Options
}

// Load opens the library once in a child to list its symbols. An error
// means the file cannot be loaded at all (dlopen's text), or the child
// could not run.
func Load(path string, opt Options) (*Library, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c, err := startChild(opt)
	if err != nil {
		return nil, err
	}
	defer c.close()
	r, err := c.call("open", request{Cmd: "open", Path: abs})
	if err != nil {
		return nil, err
	}
	if r.Err != "" {
		return nil, fmt.Errorf("tuner %s: %s", path, r.Err)
	}
	return &Library{Path: abs, Symbols: r.Symbols, Names: r.Names, opt: opt}, nil
}

// specLibrary is the library as spec's loader gates see it.
func (l *Library) specLibrary(name string, beh *tuning.TunerBehaviour) spec.Library {
	b := tuning.TunerBehaviour{Name: name}
	if beh != nil {
		b = *beh
	}
	return spec.Library{Path: l.Path, InLoaderPath: true, TunerSymbols: slices.Clone(l.Symbols), Tuner: &b}
}

// WithLibrary returns sys with the tuner library on every node and env
// with NCCL_TUNER_PLUGIN naming it, as a job that loads the plugin has:
// the library's directory in the loader's path and its file name, which
// every release opens when it is lib*.so (2.27.3 opens any other name,
// and a path, only as libnccl-tuner-<name>.so), else its path.
func (l *Library) withLibrary(sys *spec.System, env spec.Env, lib spec.Library) (*spec.System, spec.Env) {
	s := *sys
	s.Nodes = slices.Clone(sys.Nodes)
	for i := range s.Nodes {
		s.Nodes[i].Libs = append([]spec.Library{lib}, s.Nodes[i].Libs...)
	}
	e := env.Clone()
	if e == nil {
		e = spec.Env{}
	}
	e["NCCL_TUNER_PLUGIN"] = l.Path
	if b := lib.Base(); strings.HasPrefix(b, "lib") && strings.HasSuffix(b, ".so") && len(b) >= len("libX.so") {
		e["NCCL_TUNER_PLUGIN"] = b
	}
	return &s, e
}

// InitFunc builds a communicator (spec.Init or a cache's Init).
type InitFunc func(rs *spec.Ruleset, sys *spec.System, env spec.Env) (*spec.Comm, error)

// Report is what happened to the plugin over one communicator's life.
type Report struct {
	Path    string `json:"path"`
	Symbols []int  `json:"symbols"`
	// ABI is the version NCCL's loader accepted (0: refused).
	ABI  int    `json:"abi"`
	Name string `json:"name,omitempty"`
	// InitResult is init's ncclResult_t; InitLog what it logged.
	InitResult int                   `json:"initResult"`
	InitLog    []string              `json:"initLog,omitempty"`
	Constants  []tuning.ConstantEdit `json:"constants,omitempty"`
	// Finalized says finalize was called; FinalizeResult is its result.
	Finalized      bool     `json:"finalized"`
	FinalizeResult int      `json:"finalizeResult"`
	FinalizeLog    []string `json:"finalizeLog,omitempty"`
	// Fault is a crash or hang, contained in the child.
	Fault string `json:"fault,omitempty"`
	// HasChunk: a v6 tuner set getChunkSize; Chunks are its calls, in the
	// order calcCollChunking made them (at most maxChunkRecords).
	HasChunk bool          `json:"hasChunkSize,omitempty"`
	Chunks   []ChunkRecord `json:"chunkSize,omitempty"`
}

// ChunkRecord is one getChunkSize call and what NCCL made of it.
type ChunkRecord struct {
	Func      spec.Func  `json:"coll"`
	NBytes    int64      `json:"nBytes"`
	Algo      spec.Algo  `json:"algo"`
	Proto     spec.Proto `json:"proto"`
	NChannels int        `json:"nChannels"`
	// NCCL is the chunk calcCollChunking computed, Asked the tuner's
	// answer, BufferMax NCCL's ceiling; Clamped says NCCL cut the answer
	// to it (INFO "%s: tuner chunk size %zu exceeds buffer max %d,
	// clamping").
	NCCL      int64    `json:"ncclChunk"`
	Asked     uint64   `json:"tunerChunk"`
	BufferMax int64    `json:"bufferMax"`
	Clamped   bool     `json:"clamped,omitempty"`
	Result    int      `json:"result"`
	Log       []string `json:"log,omitempty"`
}

const maxChunkRecords = 256

// Session is the plugin loaded for one communicator.
type Session struct {
	lib    *Library
	c      *child
	Comm   *spec.Comm
	Report *Report
	inited bool
}

// Attach builds the communicator with the plugin loaded as NCCL would
// load it: the library on every node, NCCL_TUNER_PLUGIN naming it, the
// ABI spec's loader gates accept for the release, then init (in the
// child) with nRanks, nNodes and, from v5, the NVLink domains and the
// tuning constants. An init failure, a constant edit or a fault goes back
// into spec as the tuner's behaviour and the communicator is rebuilt.
func (l *Library) Attach(init InitFunc, rs *spec.Ruleset, sys *spec.System, env spec.Env) (*Session, error) {
	s := &Session{lib: l, Report: &Report{Path: l.Path, Symbols: slices.Clone(l.Symbols)}}
	name := ""
	for _, v := range rs.Consts.TunerABI { // the name NCCL's log prints is the accepted symbol's
		if slices.Contains(l.Symbols, v) {
			name = l.Names[v]
			break
		}
	}
	lib := l.specLibrary(name, nil)
	sys1, env1 := l.withLibrary(sys, env, lib)
	comm, err := init(rs, sys1, env1)
	if err != nil {
		return nil, err
	}
	s.Comm, s.Report.ABI, s.Report.Name = comm, comm.TunerABI, name
	if comm.TunerABI == 0 || comm.Tuner == nil {
		return s, nil // refused (the trace has NCCL's log), or init never reached the tuner
	}
	c, err := startChild(l.opt)
	if err != nil {
		return nil, err
	}
	s.c = c
	beh := tuning.TunerBehaviour{Name: name}
	r, err := c.call("open", request{Cmd: "open", Path: l.Path})
	if err == nil && r.Err != "" {
		err = fmt.Errorf("tuner %s: %s", l.Path, r.Err)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	req := request{Cmd: "init", ABI: comm.TunerABI, NRanks: comm.NRanks, NNodes: comm.NNodes, CommID: commID}
	var before []float64
	if comm.TunerABI >= 5 && comm.Model != nil {
		minL, maxL := localRanks(sys)
		req.NVL = [3]int{comm.NNodes, minL, maxL}
		before = comm.Model.Tuning.TunerConstantsV5()
		for _, v := range before {
			req.Constants = append(req.Constants, math.Float64bits(v))
		}
	}
	r, err = c.call("init", req)
	switch {
	case err != nil:
		s.Report.Fault = err.Error()
		beh.InitError = err.Error()
	case r.Err != "":
		s.Close()
		return nil, fmt.Errorf("tuner %s: %s", l.Path, r.Err)
	default:
		s.inited = true
		s.Report.InitResult, s.Report.InitLog = r.Result, r.Log
		s.Report.HasChunk = r.HasChunk
		beh.InitLog = r.Log
		if r.Result != 0 {
			beh.InitError = fmt.Sprintf("init returned %s", spec.Result(r.Result))
		} else if before != nil && len(r.Constants) == len(before) {
			after := make([]float64, len(r.Constants))
			for i, b := range r.Constants {
				after[i] = math.Float64frombits(b)
			}
			edits, err := comm.Model.Tuning.TunerConstantEditsV5(after)
			if err != nil {
				s.Close()
				return nil, err
			}
			beh.Constants, s.Report.Constants = edits, edits
		}
	}
	if beh.InitError != "" || len(beh.InitLog) > 0 || len(beh.Constants) > 0 {
		sys2, env2 := l.withLibrary(sys, env, l.specLibrary(name, &beh))
		if comm, err = init(rs, sys2, env2); err != nil {
			s.Close()
			return nil, err
		}
		s.Comm = comm
	}
	return s, nil
}

// commID is the commHash passed to a v5+ init: gatesim has no unique id,
// so every communicator gets the same fixed value.
const commID = 0x6761746573696d // "gatesim"

func localRanks(sys *spec.System) (lo, hi int) {
	for i, nd := range sys.Nodes {
		n := len(nd.GPUs)
		if i == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return lo, hi
}

// Communicator is the communicator the plugin was loaded into.
func (s *Session) Communicator() *spec.Comm { return s.Comm }

// Select decides op on the session's communicator: NCCL's choice without
// the plugin, then the plugin's getCollInfo on that cost table, then the
// choice with its answer. Without a call (no tuner accepted, init failed,
// nothing to tune) it is plain Select.
func (s *Session) Select(op spec.Op) (*spec.Decision, spec.SelectTrace, error) {
	d0, tr0, err := s.Comm.Select(op)
	if err != nil || s.c == nil || !s.inited || s.Report.Fault != "" {
		return d0, tr0, err
	}
	call, ok := s.Comm.TunerCallFor(d0)
	if !ok {
		return d0, tr0, nil
	}
	ans := s.getCollInfo(call)
	d, tr, err := s.Comm.SelectTuned(op, call, ans)
	if err != nil {
		return nil, spec.SelectTrace{}, err
	}
	d.Tuner.Without, d.Tuner.WithoutErr, d.Tuner.WithoutNChannels = spec.AlgoProto{Algo: d0.Algo, Proto: d0.Proto}, d0.Err, d0.NChannels
	return d, tr, nil
}

func (s *Session) getCollInfo(call spec.TunerCall) spec.TunerAnswer {
	req := request{Cmd: "coll", Func: int(call.Func), NBytes: uint64(call.NBytes), NumPipeOps: call.NumPipeOps,
		NumAlgo: call.NumAlgo, NumProto: call.NumProto, CollNetSupport: b2i(call.CollNetSupport), NVLSSupport: b2i(call.NVLSSupport), RegBuff: b2i(call.RegBuff)}
	for a := range call.NumAlgo {
		for p := range call.NumProto {
			req.Table = append(req.Table, math.Float32bits(call.Table[a][p]))
		}
	}
	ans := spec.TunerAnswer{Algo: -1, Proto: -1}
	r, err := s.c.call("getCollInfo", req)
	if err != nil {
		s.Report.Fault = err.Error()
		ans.Fault = err.Error()
		return ans
	}
	if r.Err != "" {
		ans.Fault = "refused the call: " + r.Err
		return ans
	}
	ans.Result, ans.Algo, ans.Proto, ans.NChannels, ans.Log = r.Result, r.Algo, r.Proto, r.NChannels, r.Log
	ans.Table = call.Table
	for i, b := range r.Table {
		if i < call.NumAlgo*call.NumProto {
			ans.Table[i/call.NumProto][i%call.NumProto] = math.Float32frombits(b)
		}
	}
	return ans
}

// ChunkSizer is the plugin's getChunkSize for the schedule builder
// (algos.Options.ChunkSize): nil unless NCCL would call it, a v6 tuner
// that set it, accepted by a release whose calcCollChunking asks it
// (Tuning.TunerChunkSize), whose init succeeded and that has not faulted.
func (s *Session) ChunkSizer() algos.ChunkSizer {
	if s == nil || s.c == nil || !s.inited || s.Report.Fault != "" || !s.Report.HasChunk || s.Report.InitResult != 0 {
		return nil
	}
	if m := s.Comm.Model; m == nil || !m.Tuning.TunerChunkSize {
		return nil
	}
	return sessionChunk{s}
}

type sessionChunk struct{ s *Session }

// ChunkSize calls getChunkSize in the child with NCCL's chunk. A crash or
// hang is the session's fault (no later call is made); a non-success
// result fails the collective, as NCCLCHECK does in calcCollChunking.
func (c sessionChunk) ChunkSize(call algos.ChunkCall) (uint64, error) {
	s := c.s
	if s.Report.Fault != "" {
		return 0, fmt.Errorf("tuner plugin faulted earlier: %s", s.Report.Fault)
	}
	r, err := s.c.call("getChunkSize", request{Cmd: "chunk", Func: int(call.Func), NBytes: uint64(call.NBytes),
		Algo: int(call.Algo), Proto: int(call.Proto), NChannels: call.NChannels, ChunkSize: uint64(call.Chunk)})
	if err != nil {
		s.Report.Fault = err.Error()
		return 0, fmt.Errorf("tuner plugin %s: NCCL's process would not survive the call", err)
	}
	if r.Err != "" {
		return 0, fmt.Errorf("tuner plugin refused getChunkSize: %s", r.Err)
	}
	rec := ChunkRecord{Func: call.Func, NBytes: call.NBytes, Algo: call.Algo, Proto: call.Proto, NChannels: call.NChannels,
		NCCL: call.Chunk, Asked: r.ChunkSize, BufferMax: call.BufferMax, Clamped: r.ChunkSize > uint64(call.BufferMax),
		Result: r.Result, Log: r.Log}
	if len(s.Report.Chunks) < maxChunkRecords {
		s.Report.Chunks = append(s.Report.Chunks, rec)
	}
	if r.Result != 0 {
		return 0, fmt.Errorf("tuner getChunkSize returned %s: the collective fails", spec.Result(r.Result))
	}
	return r.ChunkSize, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Close calls finalize (whenever init was called, as NCCL's commCleanup
// does for a communicator that has a tuner) and ends the child.
func (s *Session) Close() {
	if s == nil || s.c == nil {
		return
	}
	if s.inited && s.Report.Fault == "" {
		r, err := s.c.call("finalize", request{Cmd: "finalize"})
		if err != nil {
			s.Report.Fault = err.Error()
		} else {
			s.Report.Finalized, s.Report.FinalizeResult, s.Report.FinalizeLog = true, r.Result, r.Log
		}
	}
	s.c.close()
	s.c = nil
}
