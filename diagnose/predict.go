package diagnose

import (
	"errors"
	"fmt"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// Predict runs spec on the machine a log came from, for the same release,
// environment and operations: the release the log names (rel when it names
// none; InferRelease's assumption when rel is 0 too), the NCCL_* variables the log reports reading with extra on top,
// and every distinct operation line it printed (the datatype from the
// operation's call line when the log has one, else float32). The result is
// Compare's input. cache may be nil.
func Predict(l *ncclog.Log, rel spec.Version, sys *spec.System, extra spec.Env, cache *spec.Cache) (*Prediction, error) {
	return PredictLaunch(l, rel, sys, extra, cache, spec.Launch{})
}

// PredictLaunch is Predict for operations issued as launch says: each
// logged size repeated launch.Agg times in one group (nccl-tests -m; 0
// when the caller does not know, which decides as 1 but lets a
// [Symmetric] line name its group),
// captured into a CUDA graph or not. Every operation of the group is a
// decision, so each line the group prints (one per operation, each on its
// channel range) is predicted. Captured, a size is predicted both out of
// place and in place: registration at capture depends on it (G-REG-IPC-1),
// nccl-tests runs both, and the logged line does not say which it was.
// With launch.Agg 0 (not known), a group size the operation lines reveal
// unambiguously (InferGroup) is predicted, and a note says so.
// A log older than every modelled release, given no release, is predicted
// as nothing: a Prediction whose only content is the note saying so.
func PredictLaunch(l *ncclog.Log, given spec.Version, sys *spec.System, extra spec.Env, cache *spec.Cache, launch spec.Launch) (*Prediction, error) {
	rel, note, err := PredictRelease(l, given)
	if old := (*UnmodelledError)(nil); errors.As(err, &old) {
		return &Prediction{Notes: []string{err.Error()}}, nil
	} else if err != nil {
		return nil, err
	}
	rs, err := spec.Load(rel)
	if err != nil {
		return nil, err
	}
	env := spec.Env{}
	for _, e := range l.Env {
		switch e.How {
		// "config": "Comm config collnetEnable reset to NCCL_COLLNET_ENABLE=1"
		// (2.28); "ignored": "... is too low", which spec derives again
		case "env", "set", "invalid", "config", "ignored":
			env[e.Name] = e.Value
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	// a machine given without a net plugin takes the one the log names
	var plugin *PluginGuess
	if g := InferPlugin(l); g != nil && len(g.Libs) > 0 {
		if withPlugin := withLoggedPlugin(sys, g); withPlugin != sys {
			sys, plugin = withPlugin, g
		}
	}
	comm, err := cache.Init(rs, configOf(l, procsOf(l, sys)), env)
	if err != nil {
		return nil, err
	}
	p := &Prediction{Trace: comm.Trace, Evidence: spec.Evidence{}, Release: rel, Conns: PredictConns(comm, l), Plugin: plugin}
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	if g := InferGroup(l); launch.Agg == 0 && g != nil && g.Ops > 1 {
		launch.Agg = g.Ops // unambiguous: every tiling (collective, size) says it
		p.Notes = append(p.Notes, g.Note())
	}
	for cp, l := range comm.Evidence {
		p.Evidence[cp] = l
	}
	seen := map[spec.Op]bool{}
	for _, lo := range LoggedOps(l, nil) {
		if seen[lo.Op] {
			continue
		}
		seen[lo.Op] = true
		placements := []bool{false}
		if launch.Mode == spec.LaunchGraph {
			placements = append(placements, true)
		}
		for _, inPlace := range placements {
			g, err := comm.SelectGroup([]spec.GroupOp{{Op: lo.Op, InPlace: inPlace}}, launch)
			if err != nil {
				return nil, fmt.Errorf("%s of %d bytes: %w", lo.Op.Func, lo.Line.Bytes, err)
			}
			if len(p.Decisions) == 0 {
				p.Trace = g.Traces[0] // init plus the first operation's gates
			}
			for _, d := range g.Ops {
				p.Decisions = append(p.Decisions, *d)
			}
		}
	}
	// a [Symmetric] line is a plan of nWorks tasks on window buffers:
	// predicted as its group (symLaunch), each task the same operation
	seenSym := map[ncclog.SymOp]bool{}
	for _, so := range LoggedSymOps(l, nil) {
		if !so.Even || seenSym[symKey(so.Line)] {
			continue // a line that names no task's size is not comparable
		}
		seenSym[symKey(so.Line)] = true
		g, err := comm.SelectGroup([]spec.GroupOp{{Op: so.Op, Buffers: spec.BuffersWindow}}, symLaunch(launch, so.Line))
		if err != nil {
			return nil, fmt.Errorf("%s [Symmetric] of %d bytes: %w", so.Op.Func, so.Line.Bytes, err)
		}
		for _, d := range g.Ops {
			p.Decisions = append(p.Decisions, *d)
		}
	}
	return p, nil
}

// PredictRelease is the release a prediction for l uses, with a note
// when that is not the release the log names: given (--nccl) when not 0,
// which wins over the log's; else the log's when modelled; for a release
// gatesim does not model (a patch between two, or one newer than all) the
// nearest older modelled one, as Diagnose's report says, since its rules
// are the latest gatesim knows to hold for the log; for a log naming none,
// InferRelease's assumption. A log older than every modelled release,
// given none, is an *UnmodelledError: nothing can be predicted for it.
func PredictRelease(l *ncclog.Log, given spec.Version) (rel spec.Version, note string, err error) {
	switch {
	case given != 0 && l.Release != 0 && given != l.Release:
		return given, fmt.Sprintf("the log names NCCL %s; predicting with NCCL %s as --nccl gives", l.Release, given), nil
	case given != 0:
		return given, "", nil
	case l.Release == 0:
		g, err := InferRelease(l)
		if err != nil {
			return 0, "", err
		}
		return g.Assumed, "", nil
	case spec.Supported(l.Release):
		return l.Release, "", nil
	}
	n, ok := spec.Nearest(l.Release)
	if !ok {
		return 0, "", &UnmodelledError{Log: l.Release}
	}
	return n, fmt.Sprintf("the log's NCCL %s is not modelled (modelled: %s to %s): predicting with NCCL %s, the nearest older modelled release, whose rules are the latest gatesim has for it (--nccl chooses another)",
		l.Release, spec.Releases[0], spec.Releases[len(spec.Releases)-1], n), nil
}

// UnmodelledError is a log whose release is older than every modelled
// one: no ruleset predicts it.
type UnmodelledError struct{ Log spec.Version }

func (e *UnmodelledError) Error() string {
	return fmt.Sprintf("the log's NCCL %s is older than %s, the oldest modelled release: nothing is predicted, so every observed row is \"not predicted\" and the findings above stand on the log's own lines (--nccl RELEASE predicts with a modelled release anyway)",
		e.Log, spec.Releases[0])
}

// procsOf is sys with the process layout the log shows (G-PROC-1): one
// process per node when ranks share a process (directMode, or a P2P
// connection by direct pointer), one per GPU when a "Check P2P Type" line
// says no two do; sys itself when the log does not say.
func procsOf(l *ncclog.Log, sys *spec.System) *spec.System {
	shared, _, known := l.SharedProcess()
	procs := spec.ProcsPerGPU
	if shared {
		procs = spec.ProcsPerNode
	}
	if !known || sys == nil || sys.Procs == procs {
		return sys
	}
	s := *sys
	s.Procs = procs
	return &s
}

// configOf is sys with the ncclConfig_t the log's "Comm config <label>
// set to" lines report (G-ENV-CONFIG-1), when the caller gave none; a
// value spec cannot read (a field of another release) is left out.
func configOf(l *ncclog.Log, sys *spec.System) *spec.System {
	if sys == nil || sys.CommConfig.Len() > 0 {
		return sys
	}
	cfg := &spec.Config{}
	for _, c := range l.CommConfig {
		if c.How == "set" {
			_ = cfg.Set(c.Field, c.Value) // NCCL printed it; a value it could not hold is left out
		}
	}
	if cfg.Len() == 0 {
		return sys
	}
	s := *sys
	s.CommConfig = cfg
	return &s
}

// symKey is a [Symmetric] line's operation and group, what its
// prediction depends on: the same bytes over a different nWorks is
// another group.
func symKey(s ncclog.SymOp) ncclog.SymOp {
	return ncclog.SymOp{Func: s.Func, FuncKnown: s.FuncKnown, Bytes: s.Bytes, NWorks: s.NWorks}
}

// symLaunch is the launch a [Symmetric] line's plan came from: the
// caller's, whose Agg is the group when it names one (--agg, a capture's
// -m; an explicit 1 too), else (Agg 0: not given) a group of the line's
// nWorks tasks, since the kernel and its channels depend on the whole
// group.
func symLaunch(launch spec.Launch, s ncclog.SymOp) spec.Launch {
	if launch.Agg == 0 {
		launch.Agg = s.Tasks()
	}
	return launch
}

// logDataTypes answers the datatype of a function's logged operation
// where the line does not say: dtypes[function] (what the caller knows,
// such as a capture's results), else the log's FuncDataType.
func logDataTypes(l *ncclog.Log, dtypes map[spec.Func]spec.DataType) func(spec.Func) spec.DataType {
	return func(f spec.Func) spec.DataType {
		if dt, ok := dtypes[f]; ok {
			return dt
		}
		return l.FuncDataType(f)
	}
}

// LoggedSymOp is one distinct [Symmetric] line of a log and the operation
// of one of its tasks. Even is false when the line's nWorks tasks' bytes
// do not divide evenly: it names no task's size, Op is the zero Op, and
// the line is not comparable.
type LoggedSymOp struct {
	Op   spec.Op
	Line ncclog.SymOp
	Even bool
}

// LoggedSymOps turns the log's [Symmetric] lines into operations, one task
// each: the line's SymOp.TaskBytes, the datatype dtypes[function], else the
// log's FuncDataType; sum, root 0. Lines that name no collective, or whose
// task bytes are no whole number of elements, are left out.
func LoggedSymOps(l *ncclog.Log, dtypes map[spec.Func]spec.DataType) []LoggedSymOp {
	dtypeOf := logDataTypes(l, dtypes)
	var out []LoggedSymOp
	for _, s := range l.SymOps {
		if !s.FuncKnown || s.Func < 0 || s.Func >= spec.NumFuncs {
			continue
		}
		bytes, even := s.TaskBytes()
		if !even {
			out = append(out, LoggedSymOp{Line: s})
			continue
		}
		op, err := spec.OpFromBytes(s.Func, bytes, dtypeOf(s.Func), spec.Sum, 0)
		if err != nil {
			continue
		}
		out = append(out, LoggedSymOp{Op: op, Line: s, Even: true})
	}
	return out
}

// LoggedOp is one distinct per-operation line of a log and the operation
// NCCL was asked for.
type LoggedOp struct {
	Op   spec.Op
	Line ncclog.OpChoice
}

// LoggedOps turns the log's per-operation lines into operations: the
// datatype of the line's own call line, else dtypes[function] (what the
// caller knows, such as a capture's results), else the log's first call
// line of that function, else float32; sum, root 0. Lines that name no
// collective of the cost table, or whose byte count is no whole number of
// elements, are left out.
func LoggedOps(l *ncclog.Log, dtypes map[spec.Func]spec.DataType) []LoggedOp {
	dtypeOf := logDataTypes(l, dtypes)
	var out []LoggedOp
	for _, o := range l.Ops {
		if !o.FuncKnown || o.Func < 0 || o.Func >= spec.NumFuncs {
			continue
		}
		dt := dtypeOf(o.Func)
		if o.DTypeKnow {
			dt = o.DType
		}
		op, err := spec.OpFromBytes(o.Func, o.Bytes, dt, spec.Sum, 0)
		if err != nil {
			continue
		}
		out = append(out, LoggedOp{Op: op, Line: o})
	}
	return out
}
