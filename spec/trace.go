package spec

import (
	"encoding/json"
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// Level is a rung of the evidence ladder (DESIGN.md): how far a capability
// provably got. A log line saying "available" reaches Usable at most; only a
// per-operation choice reaches Selected and only a connector or channel line
// reaches Executed.
type Level int

const (
	LevelNone       Level = iota // nothing asked for it, nothing found
	LevelRequested               // an environment variable asks for it
	LevelDiscovered              // a library or device was found
	LevelAccepted                // its ABI was accepted
	LevelUsable                  // init succeeded with devices > 0 / the capability is present
	LevelCandidate               // the communicator supports it after graph, threshold, arity, matrix
	LevelSelected                // it won the cost table for an operation
	LevelExecuted                // a connector, channel or counter proves data went that way
)

var levelNames = [...]string{"none", "requested", "discovered", "accepted", "usable", "candidate", "selected", "executed"}

func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// ParseLevel is the inverse of String.
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if s == n {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("unknown evidence level %q: expected one of %s", s, strings.Join(levelNames[:], ", "))
}

func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	*l = v
	return err
}

// Capability is something whose evidence level gatesim tracks.
type Capability string

const (
	CapNetPlugin Capability = "net_plugin" // an external network plugin library
	CapIB        Capability = "ib"         // IB/RoCE verbs (internal or through the plugin)
	CapGDR       Capability = "gdr"        // GPUDirect RDMA
	CapCollNet   Capability = "collnet"    // CollNet / SHARP (either CollNet algorithm)
	CapNVLS      Capability = "nvls"       // NVLink SHARP
	CapNVLSTree  Capability = "nvlstree"
	CapPAT       Capability = "pat"
	CapP2P       Capability = "p2p"
	CapSHM       Capability = "shm"
	CapTuner     Capability = "tuner_plugin"
)

// Capabilities lists every tracked capability in report order.
var Capabilities = []Capability{CapNetPlugin, CapIB, CapGDR, CapCollNet, CapNVLS, CapNVLSTree, CapPAT, CapP2P, CapSHM, CapTuner}

// Outcome is what a gate did. It and Layer are bytes, so that a Verdict
// keeps them in one word.
type Outcome int8

const (
	Pass Outcome = iota // the gate let the capability through
	Fail                // the gate stopped it
	Skip                // the gate was not reached or does not apply
	Info                // a rule that only records a fact or a value (no yes/no)
)

var outcomeNames = [...]string{"pass", "fail", "skip", "info"}

func (o Outcome) String() string {
	if o >= 0 && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// ParseOutcome is the inverse of String.
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if s == n {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("unknown verdict %q: expected pass, fail, skip or info", s)
}

func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := ParseOutcome(string(b))
	*o = v
	return err
}

// Layer is the stage of NCCL's chain a rule belongs to (DESIGN.md).
type Layer int8

const (
	LayerEnv     Layer = iota // 0: how NCCL reads its environment
	LayerLibrary              // 1: plugin library discovery
	LayerABI                  // 2: ABI symbol acceptance
	LayerDevice               // 3: backend device and capability discovery
	LayerGraph                // 4: communicator graphs, consensus, connection setup
	LayerModel                // 4/5: the tuning model built at init
	LayerSelect               // 5: per-operation eligibility and choice
	LayerExec                 // 6: execution
	LayerGroup                // API sequencing (ncclGroupStart/End)
)

var layerNames = [...]string{"env", "library", "abi", "device", "graph", "model", "select", "exec", "group"}

func (l Layer) String() string {
	if l >= 0 && int(l) < len(layerNames) {
		return layerNames[l]
	}
	return fmt.Sprintf("Layer(%d)", int(l))
}

func (l Layer) MarshalText() ([]byte, error) { return []byte(l.String()), nil }
func (l *Layer) UnmarshalText(b []byte) error {
	for i, n := range layerNames {
		if string(b) == n {
			*l = Layer(i)
			return nil
		}
	}
	return fmt.Errorf("unknown layer %q", b)
}

// Fact is one input a gate read, as name=value.
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func (f Fact) String() string { return f.Name + "=" + f.Value }

// F builds a Fact from any printable value. Booleans, ints and strings,
// most facts, are written without fmt (the same text fmt.Sprint gives).
func F(name string, v any) Fact {
	switch x := v.(type) {
	case bool:
		return Fact{Name: name, Value: strconv.FormatBool(x)}
	case int:
		return Fact{Name: name, Value: strconv.Itoa(x)}
	case string:
		return Fact{Name: name, Value: x}
	}
	return Fact{Name: name, Value: fmt.Sprint(v)}
}

// Verdict is one gate's result in one walk down NCCL's chain.
type Verdict struct {
	Rule    RuleID  `json:"rule"`
	Layer   Layer   `json:"layer"`
	Outcome Outcome `json:"verdict"`
	// Cap is the capability this verdict moves, if any; Level is the level it
	// proves when the outcome is Pass.
	Cap   Capability `json:"cap,omitempty"`
	Level Level      `json:"level,omitempty"`
	Facts []Fact     `json:"facts,omitempty"`
	// Why says in a sentence what decided.
	Why string `json:"why,omitempty"`
	// Log holds the lines NCCL prints for this verdict (message part only, no
	// host:pid:tid prefix), already formatted.
	Log []string `json:"log,omitempty"`
	// Debug holds the lines NCCL prints for this verdict only when
	// NCCL_DEBUG_SUBSYS names their subsystem (GRAPH, TUNING): the searched
	// graphs channel by channel and the tuning table. The default subsystems
	// (INIT, BOOTSTRAP, ENV) print Log only.
	Debug []string `json:"debug,omitempty"`
	// Ref is the rule's source reference: it points at the rule's own
	// (read only), so a verdict carries one word rather than three
	// strings. JSON writes nil as an empty reference.
	Ref *Ref `json:"ref" schema:"nonnull"`
	// Scope says whose verdict this is when it is not the whole
	// communicator's: "op" for a per-operation gate, "rank 3", "node 1".
	Scope string `json:"scope,omitempty"`
	// Lazy, when Why is empty, holds the numbers Why is made from: Select
	// leaves a few per-operation sentences (the winner's times, the legal
	// cells, the element count) to be written when they are read. Read
	// the sentence with WhyText; JSON carries it as "why".
	Lazy *LazyWhy `json:"-"`
}

// WhyText is the verdict's sentence: Why, or the one its Lazy numbers
// make.
func (v Verdict) WhyText() string {
	if v.Why == "" && v.Lazy != nil {
		return v.Lazy.String()
	}
	return v.Why
}

// verdictFields is Verdict without its methods: its JSON is the standard
// encoding of the fields.
type verdictFields Verdict

// MarshalJSON writes the verdict's fields with a lazy sentence written out
// as "why" (the same bytes as when it was made eagerly) and a nil Ref as
// an empty one.
func (v Verdict) MarshalJSON() ([]byte, error) {
	v.Why = v.WhyText()
	if v.Ref == nil {
		v.Ref = &Ref{}
	}
	return json.Marshal(verdictFields(v))
}

// RefText is the verdict's source reference as text ("" for none).
func (v Verdict) RefText() string {
	if v.Ref == nil {
		return ""
	}
	return v.Ref.String()
}

// JSONFields tells schema generators that a verdict's JSON is its fields'
// (MarshalJSON only writes a lazy sentence out).
func (Verdict) JSONFields() {}

// Trace is an ordered walk down NCCL's gates. Predictions (spec) and
// observations (ncclog) have this same shape, so a cross-check is a diff.
type Trace []Verdict

// Find returns the first verdict of a rule.
func (t Trace) Find(id RuleID) (Verdict, bool) {
	for _, v := range t {
		if v.Rule == id {
			return v, true
		}
	}
	return Verdict{}, false
}

// Stopper returns the first failing verdict for a capability: the gate
// that kept it out (later failures for the same capability are its
// consequences). ok is false when no gate failed for it.
func (t Trace) Stopper(c Capability) (Verdict, bool) {
	for _, v := range t {
		if v.Cap == c && v.Outcome == Fail {
			return v, true
		}
	}
	return Verdict{}, false
}

// SelectTrace is Select's trace: the communicator's init verdicts followed
// by the operation's own. The init part is the communicator's Trace itself,
// shared by every operation's SelectTrace rather than copied for each: it is
// reachable only through methods that hand out Verdict values (At, All,
// Trace), so no holder can replace or reorder it. Those copies are
// shallow: a verdict's Facts, Log and Debug slices and its Lazy why are
// still the communicator's (as a Trace copied by append always shared
// them), so they are read only by convention, as everywhere in spec. Op is
// the operation's part, which belongs to this result alone: its decision's
// LazyOp writes it when it is first read.
type SelectTrace struct {
	init Trace   // the communicator's init verdicts: shared, read only
	lazy *LazyOp // makes the operation's verdicts
}

// ops is the operation's verdicts.
func (t SelectTrace) ops() Trace {
	if t.lazy == nil {
		return nil
	}
	return t.lazy.Trace()
}

// Len is the number of verdicts, init and operation.
func (t SelectTrace) Len() int { return len(t.init) + len(t.ops()) }

// At is verdict i of the whole trace.
func (t SelectTrace) At(i int) Verdict {
	if i < len(t.init) {
		return t.init[i]
	}
	return t.ops()[i-len(t.init)]
}

// All yields the verdicts in order with their index in the whole trace.
func (t SelectTrace) All() iter.Seq2[int, Verdict] {
	return func(yield func(int, Verdict) bool) {
		for i, v := range t.init {
			if !yield(i, v) {
				return
			}
		}
		for i, v := range t.ops() {
			if !yield(len(t.init)+i, v) {
				return
			}
		}
	}
}

// Op is the operation's verdicts (the part after the init verdicts): this
// result's alone.
func (t SelectTrace) Op() Trace { return t.ops() }

// Trace is the whole trace as a Trace the caller owns (a copy: the init
// verdicts are the communicator's).
func (t SelectTrace) Trace() Trace {
	if t.Len() == 0 {
		return nil
	}
	out := make(Trace, 0, t.Len())
	return append(append(out, t.init...), t.ops()...)
}

// Find returns the first verdict of a rule (Trace.Find).
func (t SelectTrace) Find(id RuleID) (Verdict, bool) {
	if v, ok := t.init.Find(id); ok {
		return v, true
	}
	return t.ops().Find(id)
}

// Stopper returns the first failing verdict for a capability
// (Trace.Stopper).
func (t SelectTrace) Stopper(c Capability) (Verdict, bool) {
	if v, ok := t.init.Stopper(c); ok {
		return v, true
	}
	return t.ops().Stopper(c)
}

// MarshalJSON writes the trace as the Trace of its verdicts.
func (t SelectTrace) MarshalJSON() ([]byte, error) { return json.Marshal(t.Trace()) }

// Evidence is the highest level reached per capability.
type Evidence map[Capability]Level

// Raise sets c to l if l is higher.
func (e Evidence) Raise(c Capability, l Level) {
	if l > e[c] {
		e[c] = l
	}
}

// MarshalJSON writes capabilities in report order, so output is stable.
func (e Evidence) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	n := 0
	for _, c := range Capabilities {
		l, ok := e[c]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(string(c))
		b.Write(k)
		b.WriteString(`:"` + l.String() + `"`)
		n++
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}
