package ncclog

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// Proof is one log line that proves a capability reached a level, or one
// that shows a gate stopping it (then Level is the level it failed to
// reach).
type Proof struct {
	Level spec.Level  `json:"level"`
	Rule  spec.RuleID `json:"rule,omitempty"`
	At    Loc         `json:"at"`
	Msg   string      `json:"msg"`
	// Why says in words what the line proves.
	Why string `json:"why"`
	// Count is how many lines of this kind the log has.
	Count int `json:"count,omitempty"`
}

// CapEvidence is the evidence ladder of one capability.
type CapEvidence struct {
	Cap spec.Capability `json:"cap"`
	// Level is the highest level a line proves (lower levels are implied).
	Level spec.Level `json:"level"`
	// Proofs are the lines behind the levels reached, lowest first.
	Proofs []Proof `json:"proofs,omitempty"`
	// Blocks are gates the log shows failing for this capability.
	Blocks []Proof `json:"blocks,omitempty"`
	// Off is set when an environment variable switched the capability off.
	Off *Proof `json:"off,omitempty"`
	// Next says what the log lacks for the next level.
	Next string `json:"next,omitempty"`
}

// Top returns the proof of the highest level reached, if any.
func (c *CapEvidence) Top() (Proof, bool) {
	var best Proof
	ok := false
	for _, p := range c.Proofs {
		if !ok || p.Level > best.Level {
			best, ok = p, true
		}
	}
	return best, ok
}

// Observation is what a log proves, in spec's terms.
type Observation struct {
	Release spec.Version `json:"release,omitempty"`
	// Env is every NCCL_* variable NCCL reported, plus the ones the caller
	// says were set (ObserveWith).
	Env spec.Env `json:"env,omitempty"`
	// Trace holds one verdict per (rule, outcome) the log shows, in NCCL's
	// evaluation order; per-operation verdicts have Scope "op".
	Trace spec.Trace `json:"trace"`
	// Decisions are the per-operation choices and errors NCCL printed.
	Decisions []spec.Decision `json:"decisions,omitempty"`
	// DecisionsAt is where each decision's first line is (parallel to
	// Decisions: spec.Decision has no place for a log location).
	DecisionsAt []Loc `json:"decisions_at,omitempty"`
	// UnnamedOps counts decision lines that name no collective (2.22 INFO
	// lines without a [COLL] call line before them); they are in Log.Ops but
	// not in Decisions.
	UnnamedOps int `json:"unnamed_ops,omitempty"`
	// SymDecisions are the symmetric kernels the [Symmetric] lines name,
	// one per task (Kernel, NChannels blocks on channels 0..NChannels-1,
	// NThreads; no algorithm or protocol), and SymDecisionsAt their lines.
	SymDecisions   []spec.Decision `json:"sym_decisions,omitempty"`
	SymDecisionsAt []Loc           `json:"sym_decisions_at,omitempty"`
	// NVLSRegCuda are the "Cuda failure" WARNs whose source line is a CUDA
	// call of an NVLS user-buffer registration (tryRegisterBuffer) at the
	// log's release(s): not a setup failure (G-REG-UB-1).
	NVLSRegCuda []LogError    `json:"nvls_register_cuda_failures,omitempty"`
	Evidence    spec.Evidence `json:"evidence"`
	Caps        []CapEvidence `json:"caps"`
	// Algo and Proto are NCCL_ALGO and NCCL_PROTO as this release reads
	// them, when set.
	Algo     *AlgoRequest  `json:"-"`
	AlgoErr  string        `json:"algo_error,omitempty"`
	Proto    *ProtoRequest `json:"-"`
	ProtoErr string        `json:"proto_error,omitempty"`
}

// Cap returns the evidence of one capability.
func (o *Observation) Cap(c spec.Capability) *CapEvidence {
	for i := range o.Caps {
		if o.Caps[i].Cap == c {
			return &o.Caps[i]
		}
	}
	return nil
}

// Observe turns a log into an observation.
func Observe(l *Log) *Observation { return ObserveWith(l, nil) }

// ObserveWith is Observe with variables the caller knows were set but NCCL
// did not print (string parameters it reads silently, or a log without the
// ENV subsystem). Values NCCL printed win.
func ObserveWith(l *Log, extra spec.Env) *Observation {
	o := &Observation{Release: l.Release, Env: spec.Env{}, Evidence: spec.Evidence{}}
	for k, v := range extra {
		o.Env[k] = v
	}
	for _, e := range l.Env {
		if e.How != "invalid" {
			o.Env[e.Name] = e.Value
		}
	}
	if v, ok := o.Env.Lookup("NCCL_ALGO"); ok {
		r, err := ReadAlgoEnv(v, l.Release)
		o.Algo = &r
		if err != nil && l.Release != 0 {
			o.AlgoErr = err.Error()
		}
	}
	if v, ok := o.Env.Lookup("NCCL_PROTO"); ok {
		r, err := ReadProtoEnv(v, l.Release)
		o.Proto = &r
		if err != nil && l.Release != 0 {
			o.ProtoErr = err.Error()
		}
	}
	o.NVLSRegCuda = nvlsRegCudaFailures(l)
	ob := observer{l: l, o: o}
	o.Caps = []CapEvidence{
		ob.netPlugin(), ob.ib(), ob.gdr(), ob.collnet(), ob.nvls(), ob.nvlsTree(), ob.pat(),
		ob.transport(spec.CapP2P, "P2P", "G-TRANSPORT-1", "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL"),
		ob.transport(spec.CapSHM, "SHM", "G-TRANSPORT-1", "NCCL_SHM_DISABLE", ""),
		ob.tuner(),
	}
	for i := range o.Caps {
		c := &o.Caps[i]
		sort.SliceStable(c.Proofs, func(a, b int) bool { return c.Proofs[a].Level < c.Proofs[b].Level })
		for _, p := range c.Proofs {
			if p.Level > c.Level {
				c.Level = p.Level
			}
		}
		o.Evidence[c.Cap] = c.Level
	}
	o.Decisions, o.DecisionsAt, o.UnnamedOps = ob.decisions()
	o.SymDecisions, o.SymDecisionsAt = ob.symDecisions()
	o.Trace = ob.trace()
	return o
}

type observer struct {
	l *Log
	o *Observation
}

// proof builds a Proof from the first sample of a kind.
func (ob *observer) proof(k Kind, lvl spec.Level, rule spec.RuleID, why string) (Proof, bool) {
	s, ok := ob.l.First(k)
	if !ok {
		return Proof{}, false
	}
	return Proof{Level: lvl, Rule: rule, At: s.At, Msg: s.Msg, Why: why, Count: ob.l.Count(k)}, true
}

// sampleWhere returns the first sample of a kind whose message satisfies f.
func (ob *observer) sampleWhere(k Kind, f func(string) bool) (Sample, bool) {
	for _, s := range ob.l.SamplesOf(k) {
		if f(s.Msg) {
			return s, true
		}
	}
	return Sample{}, false
}

func (ob *observer) envProof(name string, lvl spec.Level, rule spec.RuleID, why string) (Proof, bool) {
	if e, ok := ob.l.EnvValue(name); ok {
		return Proof{Level: lvl, Rule: rule, At: e.At, Msg: e.Name + " set by environment to " + e.Value, Why: why}, true
	}
	if v, ok := ob.o.Env.Lookup(name); ok {
		return Proof{Level: lvl, Rule: rule, Msg: name + "=" + v + " (given, not in the log)", Why: why}, true
	}
	return Proof{}, false
}

func (ob *observer) env(name string) (string, bool) { return ob.o.Env.Lookup(name) }

// envInt reads an integer parameter the way ncclLoadParam does (strtoll
// base 0); ok is false when unset or not a number.

// runtimeConnect reports a log whose release connects NVLS, CollNet and
// the trees lazily: 2.22+ with neither NCCL_RUNTIME_CONNECT=0 nor
// NCCL_CUMEM_ENABLE=0 (runtime connect needs cuMem).
func (ob *observer) runtimeConnect() bool {
	if ob.l.Release == 0 || runtimeConnectSince.before(ob.l.Release) {
		return false
	}
	for _, name := range []string{"NCCL_RUNTIME_CONNECT", "NCCL_CUMEM_ENABLE"} {
		if n, ok := ob.envInt(name); ok && n == 0 {
			return false
		}
	}
	return true
}

func (ob *observer) envInt(name string) (int64, bool) {
	v, ok := ob.env(name)
	if !ok || strings.TrimSpace(v) == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

func isInternalNet(name string) bool { return name == "IB" || name == "Socket" }

// isIBNet reports a network that drives IB/RoCE verbs: the internal IB
// transport or the SHARP plugin's IB transport (IBext, IBext_v8, ...).
func (ob *observer) isIBNet(name string) bool {
	if name == "IB" || strings.HasPrefix(name, "IBext") {
		return true
	}
	return ob.l.Plugin.P2PPlugin != "" && name == ob.l.Plugin.P2PPlugin
}

// externalNets lists the non-internal network names the log uses.
func (ob *observer) externalNets() []NameCount {
	var out []NameCount
	for _, n := range ob.l.Networks {
		if !isInternalNet(n.Name) {
			out = append(out, n)
		}
	}
	return out
}

func maxLevel(ps []Proof) spec.Level {
	m := spec.LevelNone
	for _, p := range ps {
		if p.Level > m {
			m = p.Level
		}
	}
	return m
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string{}, s[:n]...), "…")
}

// algoNamed reports whether NCCL_ALGO names one of the algorithms.
func (ob *observer) algoNamed(as ...spec.Algo) bool {
	if ob.o.Algo == nil {
		return false
	}
	for _, a := range as {
		if ob.o.Algo.Named[a] {
			return true
		}
	}
	return false
}

func (ob *observer) algoEnvProof(why string) (Proof, bool) {
	return ob.envProof("NCCL_ALGO", spec.LevelRequested, ob.o.Algo.Rule, why)
}

// selectedProof returns the first decision line choosing one of algos.
func (ob *observer) selectedProof(as ...spec.Algo) (Proof, bool) {
	n := 0
	var first *OpChoice
	for i := range ob.l.Ops {
		op := &ob.l.Ops[i]
		for _, a := range as {
			if op.Algo == a {
				n += op.Count
				if first == nil {
					first = op
				}
			}
		}
	}
	if first == nil {
		return Proof{}, false
	}
	return Proof{Level: spec.LevelSelected, Rule: "G-SEL-PICK-1", At: first.First.At, Msg: first.First.Msg,
		Why: fmt.Sprintf("%d operation line(s) chose %s", n, first.Algo), Count: n}, true
}

func (ob *observer) tableHas(as []spec.Algo, funcs []spec.Func) (bw bool, present bool, at Loc) {
	for _, t := range ob.l.Tables {
		for _, a := range as {
			for _, f := range funcs {
				for _, p := range spec.Protos {
					if c, ok := t.Cell(f, a, p); ok {
						present, at = true, t.At
						if c.Bw > 0 {
							return true, true, t.At
						}
					}
				}
			}
		}
	}
	return false, present, at
}

// symDecisions turns [Symmetric] lines into spec.Decisions, one per task
// (SymOp.TaskBytes of the function's FuncDataType). A line whose nWorks
// tasks' bytes do not divide evenly names no task's size: its decision
// carries the line's whole bytes and says in Undecided that it is not
// comparable.
func (ob *observer) symDecisions() ([]spec.Decision, []Loc) {
	var out []spec.Decision
	var at []Loc
	for _, s := range ob.l.SymOps {
		if !s.FuncKnown {
			continue
		}
		bytes, even := s.TaskBytes()
		dt, why := ob.l.FuncDataType(s.Func), ""
		if !even {
			bytes, dt, why = s.Bytes, spec.Int8, fmt.Sprintf("not comparable: %d bytes over %d tasks name no one task's size", s.Bytes, s.NWorks)
		}
		o, err := spec.OpFromBytes(s.Func, bytes, dt, spec.Sum, 0)
		if err != nil {
			continue
		}
		d := spec.Decision{Release: ob.l.Release, Op: o, Algo: spec.AlgoNone, Proto: spec.ProtoNone, DecidedBy: "G-SEL-SIDE-1", Undecided: why,
			Kernel: s.Kernel, NChannels: s.NChannels, SymChannels: s.NChannels, NThreads: s.NThreads, ChannelLo: 0, ChannelHi: s.NChannels - 1, Evidence: ob.o.Evidence}
		out = append(out, d)
		at = append(at, s.First.At)
	}
	return out, at
}

// decisions turns per-operation lines into spec.Decisions.
func (ob *observer) decisions() ([]spec.Decision, []Loc, int) {
	l := ob.l
	var out []spec.Decision
	var at []Loc
	unnamed := 0
	net := l.Network()
	for _, op := range l.Ops {
		if !op.FuncKnown {
			unnamed++
			continue
		}
		dt := spec.Int8
		if op.DTypeKnow {
			dt = op.DType
		}
		o, err := spec.OpFromBytes(op.Func, op.Bytes, dt, op.RedOp, 0)
		if err != nil {
			o = spec.Op{Func: op.Func, Count: op.Bytes, DataType: spec.Int8, RedOp: op.RedOp}
		}
		d := spec.Decision{Release: l.Release, Op: o, Algo: op.Algo, Proto: op.Proto, DecidedBy: "G-SEL-PICK-1",
			Net: net, ChannelLo: op.ChannelLo, ChannelHi: op.ChannelHi, Evidence: ob.o.Evidence}
		if op.ChannelLo >= 0 && op.ChannelHi >= op.ChannelLo {
			d.NChannels = op.ChannelHi - op.ChannelLo + 1
		}
		if op.TimeUs >= 0 {
			d.TimeUs = op.TimeUs
		}
		d.CollNetSupport = ob.o.Evidence[spec.CapCollNet] >= spec.LevelCandidate
		d.NVLSSupport = ob.o.Evidence[spec.CapNVLS] >= spec.LevelCandidate
		// Before 2.24.3 an NCCL_ALGO the function cannot run falls back to
		// Ring without an error: the Ring backup or restore from 2.19.1
		// (G-SEL-BACKUP-1), before it the Ring NCCL_ALGO never disables
		// for a function other than AllReduce (G-TUNE-EN-1).
		if ob.o.Algo != nil && perFunctionGrammar.before(l.Release) && op.Func < spec.NumFuncs &&
			op.Algo >= 0 && !ob.o.Algo.Enabled[op.Func][op.Algo] {
			d.Fallback, d.DecidedBy = true, "G-SEL-BACKUP-1"
			if ringBackupSince.before(l.Release) {
				d.DecidedBy = "G-TUNE-EN-1"
			}
		}
		out = append(out, d)
		at = append(at, op.First.At)
	}
	for _, na := range l.NoAlgo {
		f, err := spec.ParseFunc(na.Func)
		if err != nil {
			continue
		}
		dt, err := spec.ParseDataType(na.DType)
		if err != nil {
			dt = spec.Int8
		}
		res := spec.InternalError
		if na.AlgoEnv != "" || na.ProtoEnv != "" {
			res = spec.InvalidUsage
		}
		rule := spec.RuleID("G-SEL-ERR-1")
		if perFunctionGrammar.before(l.Release) && !ringBackupSince.before(l.Release) {
			rule = "G-SEL-BACKUP-1" // no Ring backup either; before 2.19.1 there is none
		}
		out = append(out, spec.Decision{Release: l.Release, Op: spec.Op{Func: f, DataType: dt}, Algo: spec.AlgoNone, Proto: spec.ProtoNone,
			Err: &spec.NCCLError{Result: res, Message: na.First.Msg, Call: "ncclGroupEnd"}, DecidedBy: rule, Net: net, Evidence: ob.o.Evidence})
		at = append(at, na.First.At)
	}
	return out, at, unnamed
}

// trace lays the proofs and blocks out as verdicts in rule order. A gate
// the log shows failing for a capability is one Fail verdict, even where a
// lower rung of the same gate passed (libibverbs loaded, no port found);
// a line proving the same rule for two capabilities (NVLS support for
// NVLS and NVLSTree) is one verdict.
func (ob *observer) trace() spec.Trace {
	type vk struct {
		rule spec.RuleID
		out  spec.Outcome
		cp   spec.Capability
	}
	type lk struct {
		rule spec.RuleID
		out  spec.Outcome
		at   Loc
	}
	seen := map[vk]bool{}
	seenLine := map[lk]bool{}
	failed := map[vk]bool{}
	for _, c := range ob.o.Caps {
		for _, p := range c.Blocks {
			failed[vk{p.Rule, spec.Fail, c.Cap}] = true
		}
		if c.Off != nil {
			failed[vk{c.Off.Rule, spec.Fail, c.Cap}] = true
		}
	}
	var t spec.Trace
	add := func(p Proof, cp spec.Capability, out spec.Outcome) {
		if p.Rule == "" {
			return
		}
		k := vk{p.Rule, out, cp}
		if seen[k] || (out == spec.Pass && failed[vk{p.Rule, spec.Fail, cp}]) {
			return
		}
		// A user naming a plugin library is a request, not the library
		// gate passing: spec's G-NET-LIB-1 passes only when a library
		// opens, and so does the log's.
		if out == spec.Pass && p.Rule == "G-NET-LIB-1" && p.Level == spec.LevelRequested {
			return
		}
		if p.At.File != "" {
			l := lk{p.Rule, out, p.At}
			if seenLine[l] {
				return
			}
			seenLine[l] = true
		}
		seen[k] = true
		r, _ := RuleByID(p.Rule)
		facts := []spec.Fact{}
		if p.At.File != "" {
			facts = append(facts, spec.F("at", p.At))
		}
		if p.Count > 1 {
			facts = append(facts, spec.F("count", p.Count))
		}
		v := spec.Verdict{Rule: p.Rule, Layer: r.Layer, Outcome: out, Cap: cp, Facts: facts, Why: p.Why, Ref: ruleRef(r)}
		if out == spec.Pass {
			v.Level = p.Level
		}
		if p.Msg != "" {
			v.Log = []string{p.Msg}
		}
		t = append(t, v)
	}
	for _, e := range ob.l.Env {
		r, _ := RuleByID("G-ENV-PARAM-1")
		out, why := spec.Info, "NCCL reported reading "+e.Name
		line := e.Name + " set by environment to " + e.Value
		switch e.How {
		case "invalid":
			out = spec.Fail
		case "ignored":
			out, why = spec.Fail, "NCCL reported "+e.Name+"="+e.Value+" too low and kept the config value"
			line = e.Name + " " + e.Value + " is too low, leaving it set at " + e.Kept
		}
		t = append(t, spec.Verdict{Rule: "G-ENV-PARAM-1", Layer: r.Layer, Outcome: out, Facts: []spec.Fact{spec.F(e.Name, e.Value), spec.F("at", e.At)},
			Log: []string{line}, Ref: ruleRef(r), Why: why})
	}
	// The "Comm config" lines: the fields a config set (Pass, as spec
	// predicts a config parseCommConfig accepts) and the variables that
	// overrode one (Info without a config).
	if len(ob.l.CommConfig) > 0 {
		r, _ := RuleByID("G-ENV-CONFIG-1")
		v := spec.Verdict{Rule: r.ID, Layer: r.Layer, Outcome: spec.Info, Ref: ruleRef(r), Facts: []spec.Fact{spec.F("at", ob.l.CommConfig[0].At)}}
		var set, reset, checked []string
		for _, c := range ob.l.CommConfig {
			v.Log = append(v.Log, c.Msg)
			switch c.How {
			case "set":
				set = append(set, c.Field+"="+c.Value)
			case "checked":
				name := c.Var
				if name == "" {
					name = c.Field
				}
				checked = append(checked, name+"="+c.Value)
			default:
				reset = append(reset, c.Var+"="+c.Value)
			}
		}
		v.Why = "no config field reported set"
		if len(set) > 0 {
			v.Outcome, v.Why = spec.Pass, "the config sets "+strings.Join(set, ", ")
		}
		if len(reset) > 0 {
			v.Why += "; the environment overrides with " + strings.Join(reset, ", ")
		}
		if len(checked) > 0 {
			v.Why += "; envConfigOverride refused or corrected " + strings.Join(checked, ", ")
		}
		t = append(t, v)
	}
	for _, c := range ob.o.Caps {
		for _, p := range c.Proofs {
			add(p, c.Cap, spec.Pass)
		}
		if c.Off != nil {
			add(*c.Off, c.Cap, spec.Fail)
		}
		for _, p := range c.Blocks {
			add(p, c.Cap, spec.Fail)
		}
	}
	ob.collNetFailTrace(t)
	if ob.o.AlgoErr != "" && ob.o.Algo != nil {
		r, _ := RuleByID(ob.o.Algo.Rule)
		t = append(t, spec.Verdict{Rule: ob.o.Algo.Rule, Layer: r.Layer, Outcome: spec.Fail, Why: ob.o.AlgoErr, Ref: ruleRef(r)})
	}
	if s, ok := ob.l.First(KindAlgoParseError); ok {
		r, _ := RuleByID("G-SEL-PARSE-2")
		t = append(t, spec.Verdict{Rule: "G-SEL-PARSE-2", Layer: r.Layer, Outcome: spec.Fail, Facts: []spec.Fact{spec.F("at", s.At)},
			Log: []string{s.Msg}, Why: "NCCL rejected NCCL_ALGO/NCCL_PROTO: communicator init fails", Ref: ruleRef(r)})
	}
	// No GIN or RMA plugin initialising, the internal IB one included,
	// leaves the communicator without it; init still succeeds.
	// One NCCL assigned to the communicator (2.29.7+) is a candidate, as
	// an assigned network is (spec's G-GIN-1/G-RMA-1 level).
	for _, x := range []struct {
		k    Kind
		rule spec.RuleID
		out  spec.Outcome
		why  string
	}{{KindGinAnyFail, "G-GIN-1", spec.Info, "no GIN plugin initialised, the internal IB GIN included: the communicator has no GIN"},
		{KindRmaAnyFail, "G-RMA-1", spec.Info, "no RMA plugin initialised, the internal IB proxy RMA included: the communicator has no RMA"},
		{KindGinAssigned, "G-GIN-1", spec.Pass, "NCCL assigned a GIN plugin to the communicator"},
		{KindIBPlane, "G-NET-IB-PLANE-1", spec.Fail, "NCCL_IB_HCA gave a plane id NCCL refuses: the IB's init failed (ncclInvalidUsage) and the network fell back"},
		{KindGinDisabled, "G-GIN-CONN-1", spec.Fail, "NCCL_GIN_ENABLE=0 and a GIN connection was asked for (a symmetric window across nodes): ncclInternalError"},
		{KindRmaAssigned, "G-RMA-1", spec.Pass, "NCCL assigned an RMA plugin to the communicator"}} {
		if s, ok := ob.l.First(x.k); ok {
			r, _ := RuleByID(x.rule)
			v := spec.Verdict{Rule: x.rule, Layer: r.Layer, Outcome: x.out, Facts: []spec.Fact{spec.F("at", s.At)},
				Log: []string{s.Msg}, Why: x.why, Ref: ruleRef(r)}
			if x.out == spec.Pass {
				v.Level = spec.LevelCandidate
			}
			t = append(t, v)
		}
	}
	// A WARN of two ranks on one GPU is the init check failing; the
	// release's text says which check (G-DEV-DUP-1's variants).
	for _, e := range ob.l.Errors {
		if IsDupGPUWarn(e) {
			r, _ := RuleByID("G-DEV-DUP-1")
			t = append(t, spec.Verdict{Rule: r.ID, Layer: r.Layer, Outcome: spec.Fail, Facts: []spec.Fact{spec.F("at", e.First.At)},
				Log: []string{e.First.Msg}, Why: "NCCL found two ranks on one GPU: communicator init fails", Ref: ruleRef(r)})
			break
		}
	}
	if s, ok := ob.l.InitAbort(); ok {
		r, _ := RuleByID("G-INIT-ABORT-1")
		t = append(t, spec.Verdict{Rule: r.ID, Layer: r.Layer, Outcome: spec.Fail, Facts: []spec.Fact{spec.F("at", s.At)},
			Log: []string{s.Msg}, Why: "the process aborted (" + s.Msg + ") after NCCL's init error: the init call never returned it", Ref: ruleRef(r)})
	}
	for i, d := range ob.o.Decisions {
		r, _ := RuleByID(d.DecidedBy)
		v := spec.Verdict{Rule: d.DecidedBy, Layer: r.Layer, Outcome: spec.Pass, Scope: "op", Ref: ruleRef(r),
			Facts: []spec.Fact{spec.F("coll", d.Op.Func), spec.F("bytes", d.Op.Bytes()), spec.F("at", ob.o.DecisionsAt[i])}}
		if d.Err != nil {
			v.Outcome = spec.Fail
			v.Why = d.Err.String()
			v.Log = []string{d.Err.Message}
		} else {
			v.Facts = append(v.Facts, spec.F("algo", d.Algo), spec.F("proto", d.Proto))
			switch {
			case d.Fallback && d.DecidedBy == "G-TUNE-EN-1":
				v.Why = "NCCL_ALGO excluded " + d.Algo.String() + " for " + d.Op.Func.String() + " yet it ran: NCCL_ALGO never disables Ring for a function other than AllReduce"
			case d.Fallback:
				v.Why = "NCCL_ALGO excluded " + d.Algo.String() + " for " + d.Op.Func.String() + " yet it ran: silent Ring backup"
			}
		}
		t = append(t, v)
	}
	sort.SliceStable(t, func(i, j int) bool {
		si, sj := t[i].Scope == "op", t[j].Scope == "op"
		if si != sj {
			return !si
		}
		return ruleIndex(t[i].Rule) < ruleIndex(t[j].Rule)
	})
	return t
}

// InitAbort is the C library's double-free line that stopped a process
// after an error return in init.cc earlier in the same file: the init
// error never reached the caller (G-INIT-ABORT-1).
func (l *Log) InitAbort() (Sample, bool) {
	for _, s := range l.SamplesOf(KindDoubleFree) {
		for _, e := range l.Errors {
			at := e.First.At
			// a trace prints its file:line in its message
			if e.Kind == errTraceKind && e.HasResult && strings.Contains(e.Msg, "init.cc:") && at.File == s.At.File && at.Line < s.At.Line {
				return s, true
			}
		}
	}
	return Sample{}, false
}

func (ob *observer) netPlugin() CapEvidence {
	const lib, abi, state, sel = spec.RuleID("G-NET-LIB-1"), spec.RuleID("G-NET-ABI-1"), spec.RuleID("G-NET-STATE-1"), spec.RuleID("G-NET-SEL-1")
	opened, accepted := "NCCL opened the library and probed its symbols", "the plugin's init ran (NCCL accepted its ABI)"
	dlopenFailed := "the library exists but dlopen failed"
	hasLoadErrors := func(ob *observer) bool { return len(ob.l.Plugin.LoadErrors) > 0 }
	return ob.climb(ladder{cap: spec.CapNetPlugin, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			ob.envOffOrRequest(c, "NCCL_NET_PLUGIN", lib, func(v string) bool { return strings.EqualFold(v, "none") },
				"NCCL_NET_PLUGIN=none: no external net plugin is searched", "the user names a net plugin library")
		}},
		{level: spec.LevelDiscovered, rule: lib, kinds: kinds(KindPluginNameEnv), why: "the library NCCL_NET_PLUGIN names was opened"},
		{level: spec.LevelDiscovered, rule: lib, lines: []line{
			{k: KindPluginPath, why: "the plugin reports the library it was loaded from"},
			{k: KindPluginSymbolMissing, why: opened},
			{k: KindPluginNoSymbol, why: opened},
			{k: KindPluginUnsupported, why: "NCCL opened the library"},
			{k: KindPluginLoadError, why: dlopenFailed, when: hasLoadErrors},
			{k: KindPluginOpenError, why: dlopenFailed},
		}},
		{level: spec.LevelAccepted, rule: abi, lines: []line{
			{k: KindPluginLoaded, why: "a ncclNetPlugin_vN symbol was accepted"},
			{k: KindPluginSuccess, why: "NCCL accepted the external plugin"},
			{k: KindP2PPlugin, why: accepted},
			{k: KindOFIProvider, why: accepted},
			{k: KindOFI, why: accepted},
		}},
		{do: func(ob *observer, c *CapEvidence) {
			for _, n := range ob.l.Initialized {
				if !isInternalNet(n.Name) {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: state, At: n.At, Msg: "Initialized NET plugin " + n.Name,
						Why: "the external network initialised with devices > 0", Count: n.Count})
					break
				}
			}
			if pl := ob.l.Plugin; pl.OFIProvider != "" && pl.OFINICs > 0 {
				if p, ok := ob.proof(KindOFIProvider, spec.LevelUsable, state, fmt.Sprintf("the plugin found %d NICs through provider %s", pl.OFINICs, pl.OFIProvider)); ok {
					c.Proofs = append(c.Proofs, p)
				}
			}
		}},
		{level: spec.LevelUsable, rule: state, kinds: kinds(KindIBUsing), why: "the plugin's IB transport lists devices",
			when: func(ob *observer) bool { return ob.l.Plugin.P2PPlugin != "" && len(ob.l.IB.Devices) > 0 }},
		{do: func(ob *observer, c *CapEvidence) {
			for _, n := range ob.externalNets() {
				c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: sel, At: n.At, Msg: "Using network " + n.Name,
					Why: "the communicator uses the external network " + n.Name, Count: n.Count})
				break
			}
			for _, t := range ob.l.Transports {
				if t.Class == "NET" && !isInternalNet(t.Net) {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: sel, At: t.First.At, Msg: t.First.Msg,
						Why: "channels are connected through the external network " + t.Net, Count: t.Count})
					break
				}
			}
		}},
		// Blocks.
		{below: spec.LevelDiscovered, do: func(ob *observer, c *CapEvidence) {
			if p, ok := ob.proof(KindPluginNotFound, spec.LevelDiscovered, "G-NET-LIB-2", "no external net plugin library was found: "+strings.Join(ob.l.Plugin.NotFound, ", ")); ok {
				c.Blocks = append(c.Blocks, p)
			}
		}},
		{below: spec.LevelAccepted, block: true, level: spec.LevelAccepted, rule: abi, every: true,
			kinds: kinds(KindPluginNoSymbol, KindPluginUnsupported), why: "the library exports no ncclNetPlugin symbol this release accepts"},
		{below: spec.LevelAccepted, when: hasLoadErrors, do: func(ob *observer, c *CapEvidence) {
			for _, k := range []Kind{KindPluginLoadError, KindPluginOpenError} {
				if p, ok := ob.proof(k, spec.LevelAccepted, lib, "dlopen failed: "+ob.l.Plugin.LoadErrors[0]); ok {
					c.Blocks = append(c.Blocks, p)
					break
				}
			}
		}},
		{do: func(ob *observer, c *CapEvidence) {
			for _, n := range ob.l.InitFailed {
				if !isInternalNet(n.Name) {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: state, At: n.At, Msg: "Failed to initialize NET plugin " + n.Name,
						Why: "the external network's init failed or it reported no device", Count: n.Count})
				}
			}
		}},
		{block: true, level: spec.LevelUsable, rule: state, kinds: kinds(KindIBNoDevice), why: "the plugin's IB transport found no device",
			when: func(ob *observer) bool { return ob.l.Plugin.P2PPlugin != "" && len(ob.l.IB.Devices) == 0 }},
	}, hints: []hint{
		{below: spec.LevelDiscovered, when: func(ob *observer, _ *CapEvidence) bool {
			return ob.l.Count(KindPluginNotFound) == 0 && ob.l.Count(KindUsingNetwork) == 0
		}, text: "no plugin discovery line: run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET"},
		{below: spec.LevelDiscovered, text: "a library NCCL can dlopen (libnccl-net.so on the loader path, or NCCL_NET_PLUGIN)"},
		{below: spec.LevelAccepted, text: "a ncclNetPlugin_vN symbol this release accepts (a plugin built for this NCCL ABI)"},
		{below: spec.LevelUsable, text: "the plugin's init succeeding with at least one device"},
		{below: spec.LevelCandidate, text: "the communicator choosing this network (\"Using network\" naming it; check NCCL_NET)"},
		{below: spec.LevelExecuted, text: "a channel connection line \"via NET/<plugin>/...\" (NCCL_DEBUG_SUBSYS=INIT; only multi-node communicators use the network)"},
	}})
}

// envTristate reads an enable parameter NCCL takes as 0 (off), 2 (the
// default: decide by support) or anything else (forced on).
func (ob *observer) envTristate(c *CapEvidence, name string, rule spec.RuleID, offWhy, forcedWhy string) {
	n, ok := ob.envInt(name)
	switch {
	case !ok || n == 2:
	case n == 0:
		p, _ := ob.envProof(name, spec.LevelRequested, rule, offWhy)
		c.Off = &p
	default:
		p, _ := ob.envProof(name, spec.LevelRequested, rule, forcedWhy)
		c.Proofs = append(c.Proofs, p)
	}
}

// envOffOrRequest reads a variable that either switches a capability off
// (off(v)) or asks for it: the first is c.Off, the second a requested proof.
func (ob *observer) envOffOrRequest(c *CapEvidence, name string, rule spec.RuleID, off func(string) bool, offWhy, onWhy string) {
	v, ok := ob.env(name)
	if !ok {
		return
	}
	if off(v) {
		p, _ := ob.envProof(name, spec.LevelRequested, rule, offWhy)
		c.Off = &p
	} else if p, ok := ob.envProof(name, spec.LevelRequested, rule, onWhy); ok {
		c.Proofs = append(c.Proofs, p)
	}
}

func (ob *observer) ib() CapEvidence {
	const ibRule, sel = spec.RuleID("G-NET-IB-1"), spec.RuleID("G-NET-SEL-1")
	l := ob.l
	noDevices := func(ob *observer) bool { return len(ob.l.IB.Devices) == 0 }
	return ob.climb(ladder{cap: spec.CapIB, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			if n, ok := ob.envInt("NCCL_IB_DISABLE"); ok && n != 0 {
				p, _ := ob.envProof("NCCL_IB_DISABLE", spec.LevelRequested, ibRule, "NCCL_IB_DISABLE switches NCCL's internal IB transport off (not a plugin's)")
				c.Off = &p
			} else if ok {
				if p, ok := ob.envProof("NCCL_IB_DISABLE", spec.LevelRequested, ibRule, "IB explicitly left enabled"); ok {
					c.Proofs = append(c.Proofs, p)
				}
			}
			if p, ok := ob.envProof("NCCL_IB_HCA", spec.LevelRequested, ibRule, "the user selects HCAs"); ok {
				c.Proofs = append(c.Proofs, p)
			}
			if v, ok := ob.env("NCCL_NET"); ok && ob.isIBNet(v) {
				if p, ok := ob.envProof("NCCL_NET", spec.LevelRequested, sel, "NCCL_NET asks for an IB network"); ok {
					c.Proofs = append(c.Proofs, p)
				}
			}
		}},
		{level: spec.LevelAccepted, rule: ibRule, kinds: kinds(KindIBNoDevice), why: "libibverbs loaded and was queried (no port passed the filters)", when: noDevices},
		{when: func(ob *observer) bool { return len(ob.l.IB.Devices) > 0 }, do: func(ob *observer, c *CapEvidence) {
			why := fmt.Sprintf("%d IB/RoCE port(s) active: %s", len(l.IB.Devices), strings.Join(firstN(l.IB.Devices, 8), " "))
			if p, ok := ob.proof(KindIBUsing, spec.LevelUsable, ibRule, why); ok {
				c.Proofs = append(c.Proofs, p)
			}
		}},
		// NIC fusion: the ports NCCL fused into one device (which ports the
		// IB's line names; "Made vNic" alone gives the device numbers)
		{when: func(ob *observer) bool { return len(l.IB.VirtualDevices)+len(l.IB.VNicsMade) > 0 }, do: func(ob *observer, c *CapEvidence) {
			const fusion = spec.RuleID("G-TOPO-VNIC-1")
			if len(l.IB.VirtualDevices) > 0 {
				why := fmt.Sprintf("NCCL fused NIC ports into %d virtual device(s): %s", len(l.IB.VirtualDevices), strings.Join(firstN(l.IB.VirtualDevices, 8), ", "))
				if p, ok := ob.proof(KindIBVirtualDevice, spec.LevelUsable, fusion, why); ok {
					c.Proofs = append(c.Proofs, p)
				}
				return
			}
			devs := make([]string, 0, len(l.IB.VNicsMade))
			for _, d := range l.IB.VNicsMade[:min(len(l.IB.VNicsMade), 8)] {
				devs = append(devs, strconv.Itoa(d))
			}
			why := fmt.Sprintf("NCCL made %d virtual NIC(s) (device %s); the NET subsystem's \"Made virtual device\" lines name their ports", len(l.IB.VNicsMade), strings.Join(devs, ", "))
			if p, ok := ob.proof(KindVNicMade, spec.LevelUsable, fusion, why); ok {
				c.Proofs = append(c.Proofs, p)
			}
		}},
		{do: func(ob *observer, c *CapEvidence) {
			for _, n := range l.Networks {
				if ob.isIBNet(n.Name) {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: sel, At: n.At, Msg: "Using network " + n.Name,
						Why: "the communicator uses an IB network (" + n.Name + ")", Count: n.Count})
					break
				}
			}
			for _, t := range l.Transports {
				if (t.Class == "NET" && ob.isIBNet(t.Net)) || t.Class == "COLLNET" {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: sel, At: t.First.At, Msg: t.First.Msg,
						Why: "channels are connected over IB verbs (" + t.Detail + ")", Count: t.Count})
					break
				}
			}
		}},
		{level: spec.LevelExecuted, rule: "G-EXEC-ERR-1", kinds: kinds(KindIBDataError), why: "an IB work completion came back: data moved over IB verbs (with an error)"},
		// Blocks.
		{below: spec.LevelDiscovered, block: true, level: spec.LevelDiscovered, rule: ibRule, kinds: kinds(KindVerbsMissing), why: "libibverbs could not be loaded"},
		{below: spec.LevelUsable, block: true, level: spec.LevelUsable, rule: ibRule, every: true, lines: []line{
			{k: KindIBNoDevice, why: "no active IB/RoCE port passed NCCL_IB_HCA"},
			{k: KindIBNoIP, why: "no IP interface for IB's out-of-band connection"},
		}},
		{below: spec.LevelUsable, do: func(ob *observer, c *CapEvidence) {
			for _, n := range l.InitFailed {
				if n.Name == "IB" {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: "G-NET-STATE-1", At: n.At, Msg: "Failed to initialize NET plugin IB",
						Why: "the internal IB network failed to initialise or found no device", Count: n.Count})
				}
			}
		}},
		{below: spec.LevelCandidate, do: func(ob *observer, c *CapEvidence) {
			if maxLevel(c.Proofs) < spec.LevelUsable {
				return
			}
			if n := ob.l.Network(); n != "" && !ob.isIBNet(n) {
				for _, x := range l.Networks {
					if x.Name == n {
						c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: sel, At: x.At, Msg: "Using network " + n,
							Why: "the communicator chose " + n + " before IB (external plugins come first; NCCL_NET filters)", Count: x.Count})
					}
				}
			}
		}},
	}, hints: []hint{
		{below: spec.LevelUsable, when: func(ob *observer, c *CapEvidence) bool {
			ibLines := l.Count(KindIBUsing) + l.Count(KindIBNoDevice) + l.Count(KindIBNoIP) + l.Count(KindVerbsMissing) + len(l.Networks)
			return c.Off == nil && ibLines == 0
		}, text: "no NET/IB or network line in the log (NCCL_DEBUG_SUBSYS=INIT,NET shows IB discovery)"},
		{below: spec.LevelUsable, when: func(_ *observer, c *CapEvidence) bool { return c.Off == nil },
			text: "an active IB/RoCE port NCCL can use: libibverbs, /dev/infiniband, the HCA visible in the container, NCCL_IB_HCA"},
		{below: spec.LevelCandidate, text: "the communicator choosing an IB network (\"Using network IB\")"},
		{below: spec.LevelExecuted, text: "a channel connection \"via NET/IB/...\" (only ranks on different nodes use the network; NCCL_DEBUG_SUBSYS=INIT)"},
	}})
}

func (ob *observer) gdr() CapEvidence {
	const nic, path = spec.RuleID("G-NET-GDR-1"), spec.RuleID("G-NET-GDR-2")
	l := ob.l
	contains := func(s string) func(string) bool { return func(m string) bool { return strings.Contains(m, s) } }
	hasNet := func(*observer, *CapEvidence) bool {
		for _, t := range l.Transports {
			if t.Class == "NET" || t.Class == "COLLNET" {
				return true
			}
		}
		return false
	}
	return ob.climb(ladder{cap: spec.CapGDR, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			ob.envOffOrRequest(c, "NCCL_NET_GDR_LEVEL", path, func(v string) bool { return strings.EqualFold(v, "LOC") || v == "0" },
				"", "the user sets how far GPUDirect RDMA may reach")
			if c.Off != nil {
				v, _ := ob.env("NCCL_NET_GDR_LEVEL")
				c.Off.Why = "NCCL_NET_GDR_LEVEL=" + v + " disables GPUDirect RDMA"
			}
		}},
		{when: func(ob *observer) bool { return len(l.GDR.HCAEnabled) > 0 }, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindGDRHCA, contains("Enabled")); ok {
				c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: nic, At: s.At, Msg: s.Msg, Why: "the NIC supports GPUDirect RDMA"})
			}
		}},
		{when: func(ob *observer) bool { return l.GDR.GPUEnabled > 0 }, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindGDRGPU, contains("Enabled")); ok {
				c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: path, At: s.At, Msg: s.Msg, Why: "the GPU-NIC path allows GPUDirect RDMA", Count: l.GDR.GPUEnabled})
			}
		}},
		{do: func(ob *observer, c *CapEvidence) {
			for _, t := range l.Transports {
				if t.GDR {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: path, At: t.First.At, Msg: t.First.Msg,
						Why: "a network connector moves data GPU-to-NIC directly (" + t.Detail + ")", Count: t.Count})
					break
				}
			}
		}},
		// Blocks.
		{below: spec.LevelUsable, when: func(ob *observer) bool { return len(l.GDR.HCADisabled) > 0 }, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindGDRHCA, contains("Disabled")); ok {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: nic, At: s.At, Msg: s.Msg,
					Why: "NCCL found no GPUDirect RDMA support for the NIC (nvidia-peermem / nv_peer_mem not loaded, or no DMA-BUF)"})
			}
		}},
		{below: spec.LevelCandidate, when: func(ob *observer) bool { return l.GDR.GPUDisabled > 0 && l.GDR.GPUEnabled == 0 }, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindGDRGPU, contains("Disabled")); ok {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: path, At: s.At, Msg: s.Msg,
					Why: "the GPU is too far from the NIC for NCCL_NET_GDR_LEVEL", Count: l.GDR.GPUDisabled})
			}
		}},
		{below: spec.LevelExecuted, do: func(ob *observer, c *CapEvidence) {
			if maxLevel(c.Proofs) < spec.LevelUsable {
				return
			}
			for _, t := range l.Transports {
				if (t.Class == "NET" || t.Class == "COLLNET") && !t.GDR {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelExecuted, Rule: path, At: t.First.At, Msg: t.First.Msg,
						Why: "this network connector does not use GPUDirect RDMA (no /GDRDMA)", Count: t.Count})
					break
				}
			}
		}},
	}, hints: []hint{
		{below: spec.LevelUsable, when: func(*observer, *CapEvidence) bool { return len(l.GDR.HCADisabled) == 0 && len(l.GDR.HCAEnabled) == 0 },
			text: "the NIC's GPUDirect RDMA verdict (\"GPU Direct RDMA Enabled/Disabled for HCA\", NCCL_DEBUG_SUBSYS=NET)"},
		{below: spec.LevelExecuted, when: func(ob *observer, c *CapEvidence) bool { return !hasNet(ob, c) },
			text: "a network connector \"via NET/.../GDRDMA\" (only inter-node channels use the NIC; NCCL_DEBUG_SUBSYS=INIT,NET)"},
		{below: spec.LevelExecuted, text: "a network connector with /GDRDMA"},
	}})
}

func (ob *observer) collnet() CapEvidence {
	l := ob.l
	return ob.climb(ladder{cap: spec.CapCollNet, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			v, ok := ob.env("NCCL_COLLNET_ENABLE")
			if !ok {
				return
			}
			on := v == "1"
			if !collNetEnableNumeric.before(ob.o.Release) {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64)
				on = err == nil && n == 1
			}
			if on {
				p, _ := ob.envProof("NCCL_COLLNET_ENABLE", spec.LevelRequested, "G-COLLNET-ENV-1", "CollNet enabled by the user")
				c.Proofs = append(c.Proofs, p)
			} else {
				p, _ := ob.envProof("NCCL_COLLNET_ENABLE", spec.LevelRequested, "G-COLLNET-ENV-1", "NCCL_COLLNET_ENABLE="+v+" leaves CollNet disabled")
				c.Off = &p
			}
		}},
		ob.algoEnvRung("NCCL_ALGO names a CollNet algorithm", spec.CollNetDirect, spec.CollNetChain),
		{level: spec.LevelDiscovered, rule: "G-COLLNET-ABI-1", kinds: kinds(KindCollNetSymbolMissing), why: "NCCL probed the plugin library for CollNet symbols"},
		{level: spec.LevelAccepted, rule: "G-COLLNET-ABI-1", kinds: kinds(KindCollNetLoaded), why: "a ncclCollNetPlugin_vN symbol was accepted"},
		{do: func(ob *observer, c *CapEvidence) {
			for _, n := range l.NetDevices {
				if strings.HasPrefix(n.Name, "CollNet ") && !strings.HasSuffix(n.Name, " 0") {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-COLLNET-PLUGIN-1", At: n.At, Msg: "Rank: " + n.Name + " devices", Why: "the CollNet plugin reports devices"})
					break
				}
			}
			if l.IB.SHARPDevices > 0 {
				if p, ok := ob.proof(KindIBUsing, spec.LevelUsable, "G-COLLNET-PLUGIN-1",
					fmt.Sprintf("the SHARP plugin marks %d port(s) /SHARP (SHARP-capable HCAs)", l.IB.SHARPDevices)); ok {
					c.Proofs = append(c.Proofs, p)
				}
			}
			for _, g := range l.Graphs {
				if g.Pattern == 6 && g.NChannels > 0 {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-COLLNET-GRAPH-1", At: g.At,
						Msg: fmt.Sprintf("Pattern 6, crossNic %d, nChannels %d, ...", g.CrossNic, g.NChannels), Why: "the CollNetDirect graph found channels", Count: g.Count})
					break
				}
			}
		}},
		{level: spec.LevelCandidate, rule: "G-COLLNET-SETUP-1", kinds: kinds(KindCollNetConn, KindCollNetConnected, KindCollNetChains),
			why: "CollNet connectors were set up for the communicator"},
		ob.tableRung("G-TUNE-EN-1", "tuning table: CollNet AllReduce bandwidth > 0", "CollNet is enabled in the communicator's model",
			[]spec.Algo{spec.CollNetDirect, spec.CollNetChain}, []spec.Func{spec.AllReduce}),
		ob.selectedRung(kinds(KindCollNetConn), "operations chose CollNet and CollNet connectors exist", spec.CollNetDirect, spec.CollNetChain),
		// Blocks.
		{below: spec.LevelAccepted, block: true, level: spec.LevelAccepted, rule: "G-COLLNET-ABI-1", kinds: kinds(KindCollNetNoSymbol),
			why: "the net plugin has no CollNet symbols this release accepts"},
		{below: spec.LevelDiscovered, do: func(ob *observer, c *CapEvidence) {
			pluginSeen := l.Plugin.Name != "" || l.Plugin.Path != "" || l.Plugin.Success || len(ob.externalNets()) > 0
			if maxLevel(c.Proofs) < spec.LevelRequested || pluginSeen || c.Off != nil {
				return
			}
			if p, ok := ob.proof(KindPluginNotFound, spec.LevelDiscovered, "G-COLLNET-PLUGIN-1", "CollNet needs an external net plugin (the SHARP plugin); none was found"); ok {
				c.Blocks = append(c.Blocks, p)
			}
		}},
		{below: spec.LevelCandidate, do: func(ob *observer, c *CapEvidence) {
			if n := l.Network(); n != "" && isInternalNet(n) {
				for _, x := range l.Networks {
					if x.Name == n {
						c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NET-SEL-2", At: x.At, Msg: "Using network " + n,
							Why: "CollNet attaches only to an external plugin's network; the communicator uses the internal " + n, Count: x.Count})
					}
				}
			}
		}},
		{block: true, level: spec.LevelCandidate, every: true, lines: []line{
			{k: KindCollNetThreshold, rule: "G-COLLNET-THRESH-1", why: "fewer nodes than NCCL_COLLNET_NODE_THRESHOLD (default 2): CollNet is never used on one node"},
			{k: KindCollNetArity, rule: "G-COLLNET-ARITY-1", why: "more than 8 GPUs per node"},
			{k: KindCollNetInitFail, rule: "G-COLLNET-SETUP-1", why: "CollNet transport setup failed on a node; NCCL fell back to the point-to-point network"},
			{k: KindCollNetChild, rule: "G-COLLNET-SETUP-1", why: "a child communicator could not share its parent's SHARP resources"},
			{k: KindCollNetAlgoIgnored, rule: "G-TUNE-EN-1", why: "NCCL_ALGO asked for CollNet on a communicator without CollNet support"},
		}},
		{do: func(ob *observer, c *CapEvidence) {
			for _, g := range l.Graphs {
				if g.Pattern == 6 && g.NChannels == 0 {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-COLLNET-GRAPH-1", At: g.At,
						Msg: "Pattern 6, crossNic " + strconv.Itoa(g.CrossNic) + ", nChannels 0, ...", Why: "the CollNetDirect graph found no channel (no CollNet NIC reachable)"})
					break
				}
			}
		}},
	}, hints: []hint{
		{below: spec.LevelRequested, when: func(_ *observer, c *CapEvidence) bool { return c.Off == nil },
			text: "NCCL_COLLNET_ENABLE=1 and the SHARP net plugin (libnccl-net.so from nccl-rdma-sharp-plugins/HPC-X)"},
		{below: spec.LevelAccepted, text: "the net plugin's CollNet symbols accepted (\"Loaded collnet plugin SHARP (vN)\")"},
		{below: spec.LevelCandidate, text: "communicator support: at least NCCL_COLLNET_NODE_THRESHOLD nodes, CollNet setup succeeding on every node (\"CollNet 00/0 : ... via COLLNET/...\")"},
		{below: spec.LevelSelected, text: "an operation choosing CollNetDirect/CollNetChain (per-operation lines need NCCL_DEBUG_SUBSYS=TUNING; AllReduce with a supported redop/datatype)"},
		{below: spec.LevelExecuted, text: "CollNet connector lines together with the selecting operations"},
	}})
}

func (ob *observer) nvls() CapEvidence {
	l := ob.l
	available := func(m string) bool { return !strings.Contains(m, "not available") }
	return ob.climb(ladder{cap: spec.CapNVLS, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			ob.envTristate(c, "NCCL_NVLS_ENABLE", "G-NVLS-ENV-1", "NCCL_NVLS_ENABLE=0 switches NVLS off", "NVLS forced on (the multicast attribute is not checked)")
		}},
		ob.algoEnvRung("NCCL_ALGO names NVLS", spec.NVLS),
		{when: func(*observer) bool { return l.NVLS.AvailableDevs > 0 }, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindNVLSSupport, available); ok {
				why := fmt.Sprintf("the driver reports multicast support (%d device(s))", l.NVLS.AvailableDevs)
				c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-NVLS-CAP-1", At: s.At, Msg: s.Msg, Why: why, Count: l.NVLS.AvailableDevs})
			}
		}},
		{do: func(ob *observer, c *CapEvidence) {
			for _, cs := range l.Channels {
				if cs.HasNVLS && cs.NVLS > 0 {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-CONS-1", At: cs.At,
						Msg: fmt.Sprintf("%d coll channels, ... %d nvls channels, ...", cs.Coll, cs.NVLS), Why: "all ranks agreed on NVLS channels", Count: cs.Count})
					break
				}
			}
			for _, g := range l.Graphs {
				if g.Pattern == 5 && g.NChannels > 0 {
					c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-GRAPH-1", At: g.At,
						Msg: fmt.Sprintf("Pattern 5, crossNic %d, nChannels %d, ...", g.CrossNic, g.NChannels), Why: "the NVLS graph found channels", Count: g.Count})
					break
				}
			}
			if p, ok := ob.proof(KindNVLSTuning, spec.LevelCandidate, "G-NVLS-CHAN-1", "NVLS channels tuned after consensus"); ok && !strings.HasPrefix(p.Msg, "NVLS tuning: nChannels 0 ") {
				c.Proofs = append(c.Proofs, p)
			}
		}},
		ob.tableRung("G-TUNE-EN-1", "tuning table: NVLS bandwidth > 0", "NVLS is enabled in the communicator's model",
			[]spec.Algo{spec.NVLS}, []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter}),
		{level: spec.LevelCandidate, rule: "G-NVLS-SETUP-1", kinds: kinds(KindNVLSComm), why: "NVLS buffers were set up"},
		// With runtime connect NCCL sets NVLS up only for an operation that
		// chose NVLS or NVLSTree, so the setup lines prove a selection even
		// when no per-operation line was printed.
		{level: spec.LevelSelected, rule: "G-EXEC-RTCONN-1", kinds: kinds(KindNVLSComm, KindNVLSTreeConnected),
			why:  "runtime connect (2.22+, NCCL_RUNTIME_CONNECT=1 with cuMem) sets NVLS up only when an operation chooses NVLS or NVLSTree",
			when: (*observer).runtimeConnect},
		ob.selectedRung(kinds(KindNVLSComm, KindNVLSGroup), "operations chose NVLS and its multicast buffers exist", spec.NVLS),
		// NCCL registers an operation's buffers with NVLS only once the
		// operation chose NVLS or NVLSTree, so even a failed registration
		// proves the selection.
		{level: spec.LevelSelected, rule: "G-REG-UB-1", kinds: kinds(KindNVLSRegFail),
			why: "NCCL tries to register an operation's buffers with NVLS only when the operation chose NVLS or NVLSTree"},
		// Without the REG subsystem (2.26.2+) the registration's failed CUDA
		// call is the only line of the attempt, told by its source line.
		{when: func(ob *observer) bool { return len(ob.o.NVLSRegCuda) > 0 && l.NVLS.RegFailures == 0 }, do: func(ob *observer, c *CapEvidence) {
			e := ob.o.NVLSRegCuda[0]
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelSelected, Rule: "G-REG-UB-1", At: e.First.At, Msg: e.Msg, Count: e.Count,
				Why: "a CUDA call of the NVLS user-buffer registration (" + e.SrcFile + " tryRegisterBuffer) failed: NCCL registers only for an operation that chose NVLS or NVLSTree"})
		}},
		// Blocks.
		{below: spec.LevelUsable, when: func(*observer) bool { return l.NVLS.UnavailableDevs > 0 }, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindNVLSSupport, func(m string) bool { return !available(m) }); ok {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelUsable, Rule: "G-NVLS-CAP-1", At: s.At, Msg: s.Msg,
					Why: "CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED is 0 (no NVSwitch multicast, driver/Fabric Manager, or a CUDA < 12.1 build)", Count: l.NVLS.UnavailableDevs})
			}
		}},
		{below: spec.LevelCandidate, do: func(ob *observer, c *CapEvidence) {
			// Only when no summary shows NVLS channels.
			zero := -1
			for i, cs := range l.Channels {
				if cs.HasNVLS && cs.NVLS > 0 {
					return
				}
				if cs.HasNVLS && zero < 0 {
					zero = i
				}
			}
			if zero >= 0 {
				cs := l.Channels[zero]
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-CONS-1", At: cs.At,
					Msg: fmt.Sprintf("%d coll channels, ... 0 nvls channels, ...", cs.Coll), Why: "NVLS has 0 channels: no NVSwitch in the topology, sm < 90, fewer than 2 GPUs, or one rank without support", Count: cs.Count})
			}
		}},
		{do: func(ob *observer, c *CapEvidence) {
			for _, g := range l.Graphs {
				if g.Pattern == 5 && g.NChannels == 0 {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-GRAPH-1", At: g.At, Msg: "Pattern 5, ... nChannels 0, ...",
						Why: "the NVLS graph search found no channel (no NVSwitch node or sm < 90)", Count: g.Count})
					break
				}
			}
		}},
		{block: true, level: spec.LevelCandidate, rule: "G-NVLS-SETUP-1", every: true, lines: []line{
			{k: KindNVLSBindSoft, why: "binding multicast memory failed; NCCL continued without NVLS (2.27-2.28 soft failure)"},
			{k: KindNVLSBindFail, why: "binding multicast memory failed (Fabric Manager / NVSwitch state); communicator init fails"},
			{k: KindNVLSNoNIC, why: "no NIC for a rank in the NVLS graph"},
		}},
		// A failed CUDA call of an operation's buffer registration (its
		// source line, or a "failed to NVLS register" line after it) is not
		// fatal (v2.24.3-1
		// src/transport/nvls.cc nvlsRegisterBuffer returns ncclSuccess with
		// regBufUsed 0): only failures the registration lines do not account
		// for block the setup.
		{when: func(ob *observer) bool { return l.NVLS.CudaFailures > max(l.NVLS.RegFailures, ob.o.nvlsRegCudaCount()) }, do: func(ob *observer, c *CapEvidence) {
			for _, e := range l.Errors {
				if e.Kind == "cuda.failure" && strings.Contains(e.SrcFile, "nvls") && !ob.o.NVLSRegCudaWarn(e) {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLS-SETUP-1", At: e.First.At, Msg: e.Msg,
						Why: "a CUDA multicast call failed in " + e.SrcFile + " (the multicast object could not be created or bound): init fails", Count: e.Count})
					break
				}
			}
		}},
	}, hints: []hint{
		{below: spec.LevelUsable, when: func(_ *observer, c *CapEvidence) bool { return c.Off == nil && l.Count(KindNVLSSupport) == 0 },
			text: "\"NVLS multicast support is available\" (needs sm90+ GPUs on an NVSwitch, a CUDA 12.1+ build and driver, NCCL 2.17+; absent with NCCL_NVLS_ENABLE=0 or <= 2 GPUs before 2.28.7)"},
		{below: spec.LevelUsable, when: func(_ *observer, c *CapEvidence) bool { return c.Off == nil },
			text: "multicast support on the device (NVSwitch system with Fabric Manager running, driver exporting cuMulticastCreate)"},
		{below: spec.LevelCandidate, text: "NVLS channels > 0 on every rank (\"N nvls channels\" with N > 0)"},
		{below: spec.LevelSelected, text: "an operation choosing NVLS (per-operation lines need NCCL_DEBUG_SUBSYS=TUNING; float/half/bf16 sums and int min/max are eligible)"},
		{below: spec.LevelExecuted, text: "NVLS buffer setup lines (\"NVLS comm ... headRank\", NCCL_DEBUG_SUBSYS=INIT,NVLS) with the selecting operations"},
	}})
}

func (ob *observer) nvlsTree() CapEvidence {
	l := ob.l
	return ob.climb(ladder{cap: spec.CapNVLSTree, rungs: []rung{
		ob.algoEnvRung("NCCL_ALGO names NVLSTree", spec.NVLSTree),
		{when: func(*observer) bool { return l.NVLS.AvailableDevs > 0 }, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindNVLSSupport, func(m string) bool { return !strings.Contains(m, "not available") }); ok {
				c.Proofs = append(c.Proofs, Proof{Level: spec.LevelUsable, Rule: "G-NVLS-CAP-1", At: s.At, Msg: s.Msg, Why: "NVLSTree needs NVLS support, which the device has"})
			}
		}},
		{level: spec.LevelCandidate, rule: "G-NVLSTREE-1", kinds: kinds(KindNVLSTreeConnected, KindNVLSTrees), why: "NVLS trees were built (NVLS support and more than one node)"},
		ob.selectedRung(kinds(KindNVLSTreeConnected), "operations chose NVLSTree and NVLS trees are connected", spec.NVLSTree),
		{below: spec.LevelCandidate, when: func(*observer) bool { return l.NNodes() == 1 }, do: func(ob *observer, c *CapEvidence) {
			for _, cm := range l.Comms {
				if cm.NNodes == 1 {
					c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-NVLSTREE-1", At: cm.At,
						Msg: fmt.Sprintf("comm %s rank %d nRanks %d nNodes 1 ...", cm.Ptr, cm.Rank, cm.NRanks), Why: "NVLSTree is disabled on a single node"})
					break
				}
			}
		}},
	}, hints: []hint{
		{below: spec.LevelUsable, text: "NVLS support (see nvls)"},
		{below: spec.LevelCandidate, text: "more than one node with NVLS (\"Connected NVLS tree\")"},
		{below: spec.LevelSelected, text: "an AllReduce choosing NVLS_TREE (NCCL_DEBUG_SUBSYS=TUNING)"},
		{below: spec.LevelExecuted, text: "\"Connected NVLS tree\" together with the selecting operations"},
	}})
}

func (ob *observer) pat() CapEvidence {
	l := ob.l
	patFuncs := []spec.Func{spec.AllGather, spec.ReduceScatter}
	return ob.climb(ladder{cap: spec.CapPAT, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			ob.envTristate(c, "NCCL_PAT_ENABLE", "G-PAT-1", "NCCL_PAT_ENABLE=0 switches PAT off", "PAT forced on")
		}},
		ob.algoEnvRung("NCCL_ALGO names PAT", spec.PAT),
		ob.tableRung("G-PAT-1", "tuning table: PAT AllGather/ReduceScatter bandwidth > 0", "PAT is enabled in the model (one GPU per node, host network)",
			[]spec.Algo{spec.PAT}, patFuncs),
		ob.selectedRung(nil, "", spec.PAT),
		{below: spec.LevelCandidate, do: func(ob *observer, c *CapEvidence) {
			if bw, present, at := ob.tableHas([]spec.Algo{spec.PAT}, patFuncs); present && !bw {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelCandidate, Rule: "G-PAT-1", At: at, Msg: "tuning table: PAT bandwidth 0",
					Why: "PAT is off: it needs one GPU per node (nNodes == nRanks), a host network and sm60+ unless NCCL_PAT_ENABLE forces it"})
			}
		}},
	}, hints: []hint{
		{below: spec.LevelExecuted + 1, when: func(*observer, *CapEvidence) bool { return patSince.before(l.Release) },
			text: "PAT does not exist before NCCL 2.23.4"},
		{below: spec.LevelCandidate, text: "PAT in the tuning table (NCCL_DEBUG_SUBSYS=TUNING; one GPU per node)"},
		{below: spec.LevelSelected, text: "an AllGather/ReduceScatter choosing PAT (NCCL_DEBUG_SUBSYS=TUNING)"},
		{below: spec.LevelExecuted, text: "nothing further can be shown: NCCL prints no PAT-specific connection line, selected is the highest level a log proves"},
	}})
}

func (ob *observer) transport(cp spec.Capability, class string, rule spec.RuleID, disable, level string) CapEvidence {
	return ob.climb(ladder{cap: cp, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			if n, ok := ob.envInt(disable); ok && n != 0 {
				p, _ := ob.envProof(disable, spec.LevelRequested, rule, disable+"=1 switches this transport off")
				c.Off = &p
			}
		}},
		{when: func(*observer) bool { return level != "" }, do: func(ob *observer, c *CapEvidence) {
			ob.envOffOrRequest(c, level, rule, func(v string) bool { return strings.EqualFold(v, "LOC") },
				level+"=LOC disables P2P", "the user sets how far P2P may reach")
		}},
		{do: func(ob *observer, c *CapEvidence) {
			n := 0
			var first *TransportUse
			for i := range ob.l.Transports {
				t := &ob.l.Transports[i]
				if t.Class == class {
					n += t.Count
					if first == nil {
						first = t
					}
				}
			}
			if first != nil {
				c.Proofs = append(c.Proofs, Proof{Level: spec.LevelExecuted, Rule: rule, At: first.First.At, Msg: first.First.Msg,
					Why: fmt.Sprintf("%d connector line(s) via %s (first %s)", n, class, first.Detail), Count: n})
			}
		}},
	}, hints: []hint{
		// Only a connector line proves a transport; without one the hint
		// names it, whatever the environment said.
		{below: spec.LevelExecuted + 1, when: func(_ *observer, c *CapEvidence) bool { return maxLevel(c.Proofs) < spec.LevelExecuted },
			text: "a channel connection line \"via " + class + "/...\" (NCCL_DEBUG_SUBSYS=INIT; only peers on the same node)"},
	}})
}

func (ob *observer) tuner() CapEvidence {
	return ob.climb(ladder{cap: spec.CapTuner, rungs: []rung{
		{do: func(ob *observer, c *CapEvidence) {
			ob.envOffOrRequest(c, "NCCL_TUNER_PLUGIN", "G-TUNER-LIB-1", func(v string) bool { return strings.EqualFold(v, "none") },
				"NCCL_TUNER_PLUGIN=none", "the user names a tuner plugin")
		}},
		{level: spec.LevelDiscovered, rule: "G-TUNER-LIB-1", kinds: kinds(KindTunerOpened), why: "the library NCCL_TUNER_PLUGIN names was opened"},
		{level: spec.LevelAccepted, rule: "G-TUNER-ABI-1", kinds: kinds(KindTunerUsing), why: "a tuner plugin was loaded and its symbol accepted"},
		{below: spec.LevelDiscovered, do: func(ob *observer, c *CapEvidence) {
			if s, ok := ob.sampleWhere(KindTunerNotFound, func(m string) bool { return strings.Contains(m, "Could not find") }); ok {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelDiscovered, Rule: "G-TUNER-LIB-1", At: s.At, Msg: s.Msg, Why: "no tuner plugin library found: the internal model decides"})
			}
			if s, ok := ob.sampleWhere(KindTunerOpenError, func(string) bool { return true }); ok {
				c.Blocks = append(c.Blocks, Proof{Level: spec.LevelDiscovered, Rule: "G-TUNER-LIB-1", At: s.At, Msg: s.Msg, Why: "a tuner library exists but dlopen failed"})
			}
		}},
	}, hints: []hint{
		{below: spec.LevelDiscovered, text: "a tuner plugin library (NCCL_TUNER_PLUGIN) — none is needed for NCCL's own model"},
	}})
}

// algoEnvRung: NCCL_ALGO naming one of the algorithms is a request.
func (ob *observer) algoEnvRung(why string, as ...spec.Algo) rung {
	return rung{when: func(ob *observer) bool { return ob.algoNamed(as...) }, do: func(ob *observer, c *CapEvidence) {
		if p, ok := ob.algoEnvProof(why); ok {
			c.Proofs = append(c.Proofs, p)
		}
	}}
}

// tableRung: a positive bandwidth for the algorithms in the printed
// tuning table makes them candidates (enabled in the communicator's model).
func (ob *observer) tableRung(rule spec.RuleID, msg, why string, as []spec.Algo, funcs []spec.Func) rung {
	return rung{do: func(ob *observer, c *CapEvidence) {
		if bw, _, at := ob.tableHas(as, funcs); bw {
			c.Proofs = append(c.Proofs, Proof{Level: spec.LevelCandidate, Rule: rule, At: at, Msg: msg, Why: why})
		}
	}}
}

// selectedRung: an operation line choosing one of the algorithms proves
// selected; with it, the first of conns (the algorithm's own connection
// or buffer lines) proves executed.
func (ob *observer) selectedRung(conns []Kind, why string, as ...spec.Algo) rung {
	return rung{do: func(ob *observer, c *CapEvidence) {
		sel, ok := ob.selectedProof(as...)
		if !ok {
			return
		}
		c.Proofs = append(c.Proofs, sel)
		for _, k := range conns {
			if p, ok := ob.proof(k, spec.LevelExecuted, "G-EXEC-RTCONN-1", why); ok {
				c.Proofs = append(c.Proofs, p)
				break
			}
		}
	}}
}

// ruleRef is a copy of the rule's source reference for a verdict (the
// verdict points at it).
func ruleRef(r Rule) *spec.Ref {
	ref := r.Ref
	return &ref
}

// collNetFailTrace adds to the observed G-COLLNET-SETUP-1 failure the
// error-return lines a refused CollNet group prints at the log's release
// (spec's Consts.CollNetFailLog, the one owner of those sites): the
// heads' connect trace before the WARN, every rank's check trace after
// it, and where the WARN was printed. A log without a release keeps the
// WARN alone: the sites move from tag to tag.
func (ob *observer) collNetFailTrace(t spec.Trace) {
	i := slices.IndexFunc(t, func(v spec.Verdict) bool { return v.Rule == "G-COLLNET-SETUP-1" && v.Outcome == spec.Fail })
	if i < 0 || ob.l.Release == 0 {
		return
	}
	c, err := spec.ConstsFor(ob.l.Release)
	if err != nil {
		return
	}
	connect, _, check, ok := c.CollNetFailLog()
	if !ok {
		return
	}
	var seenConnect, seenCheck bool
	var warnAt string
	for _, e := range ob.l.Errors {
		switch {
		case e.Kind == errTraceKind && e.Msg == connect:
			seenConnect = true
		case e.Kind == errTraceKind && e.Msg == check:
			seenCheck = true
		case e.Kind == "collnet.initfail" && e.SrcFile != "":
			warnAt = fmt.Sprintf("%s:%d", e.SrcFile, e.SrcLine)
			if e.SrcFunc != "" {
				warnAt += " (" + e.SrcFunc + ")"
			}
		}
	}
	v := &t[i]
	if seenConnect {
		v.Log = append([]string{connect}, v.Log...)
	}
	if seenCheck {
		v.Log = append(v.Log, check)
	}
	if warnAt != "" {
		v.Facts = append(v.Facts, spec.F("warn_at", warnAt))
	}
}
