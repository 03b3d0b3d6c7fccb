package diagnose

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// Prediction is what spec predicts for the same release, system and
// environment: the input of Compare. Its JSON form is {"trace": [...],
// "decisions": [...]} with spec's own field names, so a prediction written
// by another command (or by hand) can be read with ReadPrediction.
type Prediction struct {
	Trace     spec.Trace      `json:"trace"`
	Decisions []spec.Decision `json:"decisions"`
	// Evidence is the communicator's own capability levels (what init
	// proves, the same whether or not the log printed operations).
	Evidence spec.Evidence `json:"evidence,omitempty"`
	// Conns are the network connector lines of the log, each predicted
	// (PredictConns).
	Conns []ConnRow `json:"conns,omitempty"`
	// Release is the release predicted with (the log's, the given one, or
	// the one InferRelease assumed).
	Release spec.Version `json:"-"`
	// Plugin is the net plugin the log named and the prediction added to a
	// machine given without one (InferPlugin).
	Plugin *PluginGuess `json:"plugin,omitempty"`
	// Notes say how the prediction was made where the log alone does not
	// (a release it predicts with other than the log's, PredictRelease).
	Notes []string `json:"-"`
}

// ReadPrediction decodes a Prediction; name is used in errors.
func ReadPrediction(data []byte, name string) (*Prediction, error) {
	var p Prediction
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v: expected a JSON object {\"trace\": [verdicts], \"decisions\": [decisions]} in spec's format", name, err)
	}
	if len(p.Trace) == 0 && len(p.Decisions) == 0 {
		return nil, fmt.Errorf("%s: empty prediction: expected a trace or decisions", name)
	}
	return &p, nil
}

// Agreement classifies one row of a comparison.
type Agreement string

const (
	Agree        Agreement = "agree"
	Differ       Agreement = "DIFFER"
	NotObserved  Agreement = "not observed"
	NotPredicted Agreement = "not predicted"
	// Consistent: the prediction left several (algorithm, protocol)
	// candidates (Decision.Undecided: spec's tuning model did not pick) and
	// the log's choice is one of them.
	Consistent Agreement = "consistent"
)

// GateRow compares one gate.
type GateRow struct {
	Rule      spec.RuleID     `json:"rule"`
	Cap       spec.Capability `json:"cap,omitempty"`
	Predicted string          `json:"predicted"`
	Observed  string          `json:"observed"`
	Agreement Agreement       `json:"agreement"`
	At        string          `json:"at,omitempty"`
}

// CapRow compares one capability's level.
type CapRow struct {
	Cap       spec.Capability `json:"cap"`
	Predicted spec.Level      `json:"predicted"`
	Observed  spec.Level      `json:"observed"`
	Agreement Agreement       `json:"agreement"`
}

// OpRow compares one operation (collective and size).
type OpRow struct {
	Coll      spec.Func `json:"coll"`
	Bytes     int64     `json:"bytes"`
	Predicted string    `json:"predicted"`
	Observed  string    `json:"observed"`
	Agreement Agreement `json:"agreement"`
	At        string    `json:"at,omitempty"`
}

// Comparison is predicted versus observed, gate by gate, capability by
// capability and operation by operation.
type Comparison struct {
	Gates  []GateRow      `json:"gates"`
	Caps   []CapRow       `json:"caps"`
	Ops    []OpRow        `json:"ops"`
	Conns  []ConnRow      `json:"conns,omitempty"`
	Counts map[string]int `json:"counts"`
	// Notes are the prediction's (Prediction.Notes).
	Notes []string `json:"notes,omitempty"`
}

// Differences counts rows that disagree.
func (c *Comparison) Differences() int { return c.Counts[string(Differ)] }

// outcomeClass is outcomeOf for agreement: info (a rule that only records)
// counts as pass, since neither stopped anything; a log line can prove that
// a gate let the capability through, not whether the gate was a recording
// one.
func outcomeClass(vs []spec.Verdict) string {
	c := make([]spec.Verdict, len(vs))
	for i, v := range vs {
		if v.Outcome == spec.Info {
			v.Outcome = spec.Pass
		}
		c[i] = v
	}
	return outcomeOf(c)
}

func outcomeOf(vs []spec.Verdict) string {
	seen := map[spec.Outcome]bool{}
	var parts []string
	for _, v := range vs {
		if !seen[v.Outcome] {
			seen[v.Outcome] = true
			parts = append(parts, v.Outcome.String())
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "+")
}

// Compare puts a prediction beside an observation. A gate or operation the
// log does not show is "not observed", never a disagreement; a gate the
// log shows that the prediction lacks is "not predicted".
func Compare(pred *Prediction, obs *ncclog.Observation) *Comparison {
	c := &Comparison{Counts: map[string]int{}, Notes: pred.Notes}
	type key struct {
		rule spec.RuleID
		cp   spec.Capability
	}
	group := func(t spec.Trace) (map[key][]spec.Verdict, []key) {
		m := map[key][]spec.Verdict{}
		var order []key
		for _, v := range t {
			if v.Scope == "op" || v.Rule == "G-ENV-PARAM-1" {
				continue
			}
			k := key{v.Rule, v.Cap}
			if _, ok := m[k]; !ok {
				order = append(order, k)
			}
			m[k] = append(m[k], v)
		}
		return m, order
	}
	pm, porder := group(pred.Trace)
	om, oorder := group(obs.Trace)
	matchObs := func(k key) ([]spec.Verdict, bool) {
		if vs, ok := om[k]; ok {
			return vs, true
		}
		if k.cp == "" { // a prediction without a capability matches any observed one of the rule
			var all []spec.Verdict
			for ok2, vs := range om {
				if ok2.rule == k.rule {
					all = append(all, vs...)
				}
			}
			return all, len(all) > 0
		}
		return nil, false
	}
	used := map[key]bool{}
	for _, k := range porder {
		row := GateRow{Rule: k.rule, Cap: k.cp, Predicted: outcomeOf(pm[k])}
		if ovs, ok := matchObs(k); ok {
			row.Observed = outcomeOf(ovs)
			row.Agreement = Agree
			if outcomeClass(ovs) != outcomeClass(pm[k]) {
				row.Agreement = Differ
			}
			for _, f := range ovs[0].Facts {
				if f.Name == "at" {
					row.At = f.Value
				}
			}
			for ok2 := range om {
				if ok2.rule == k.rule && (k.cp == "" || ok2.cp == k.cp) {
					used[ok2] = true
				}
			}
		} else {
			row.Observed, row.Agreement = "-", NotObserved
		}
		c.Gates = append(c.Gates, row)
	}
	for _, k := range oorder {
		if used[k] {
			continue
		}
		row := GateRow{Rule: k.rule, Cap: k.cp, Predicted: "-", Observed: outcomeOf(om[k]), Agreement: NotPredicted}
		for _, f := range om[k][0].Facts {
			if f.Name == "at" {
				row.At = f.Value
			}
		}
		c.Gates = append(c.Gates, row)
	}
	// Capability levels: the prediction's Evidence (first decision), else
	// the highest level of its passing verdicts.
	pe := spec.Evidence{}
	for cp, l := range pred.Evidence {
		pe.Raise(cp, l)
	}
	for _, v := range pred.Trace {
		if v.Outcome == spec.Pass && v.Cap != "" {
			pe.Raise(v.Cap, v.Level)
		}
	}
	for _, d := range pred.Decisions {
		for cp, l := range d.Evidence {
			pe.Raise(cp, l)
		}
	}
	// The log proving more than predicted is a disagreement only when it
	// passes a gate the prediction failed for that capability, or shows a
	// capability the prediction stopped being chosen or used (PAT chosen
	// although spec's G-PAT-1 said no). Otherwise the prediction merely does
	// not follow the capability that far (spec claims no "executed", for
	// instance): "not predicted".
	stopped := map[spec.Capability]bool{}
	contradicted := map[spec.Capability]bool{}
	for _, v := range pred.Trace {
		if v.Outcome != spec.Fail || v.Cap == "" || v.Scope == "op" {
			continue
		}
		stopped[v.Cap] = true
		for _, o := range obs.Trace {
			if o.Rule == v.Rule && o.Cap == v.Cap && o.Outcome == spec.Pass {
				contradicted[v.Cap] = true
			}
		}
	}
	for _, cp := range spec.Capabilities {
		p, pok := pe[cp]
		o := obs.Evidence[cp]
		if !pok && !stopped[cp] {
			continue
		}
		row := CapRow{Cap: cp, Predicted: p, Observed: o, Agreement: Agree}
		switch {
		case o == p:
		case o < p:
			// The log may simply not print the lines that prove more.
			row.Agreement = NotObserved
		case contradicted[cp], stopped[cp] && o >= spec.LevelSelected:
			row.Agreement = Differ
		default:
			row.Agreement = NotPredicted
		}
		c.Caps = append(c.Caps, row)
	}
	// Operations: every distinct operation line of the log (algorithm,
	// protocol, channel range) against the predictions of the same
	// (collective, bytes). A group of operations of one size prints one
	// line per operation, each on its own channel range; a logged line
	// agrees when one of the predicted operations printed it.
	type opk struct {
		f spec.Func
		b int64
	}
	predOps := map[opk][]int{}
	var keys []opk
	for i, d := range pred.Decisions {
		k := opk{d.Op.Func, d.Op.Bytes()}
		if _, ok := predOps[k]; !ok {
			keys = append(keys, k)
		}
		predOps[k] = append(predOps[k], i)
	}
	matched := make([]bool, len(pred.Decisions))
	observed, agreed := map[opk]bool{}, map[opk]bool{}
	// the cost table's lines, then the symmetric kernels' lines
	obsDecs := append(obs.Decisions[:len(obs.Decisions):len(obs.Decisions)], obs.SymDecisions...)
	obsAt := append(obs.DecisionsAt[:len(obs.DecisionsAt):len(obs.DecisionsAt)], obs.SymDecisionsAt...)
	if len(obs.DecisionsAt) != len(obs.Decisions) {
		obsAt = nil // no locations rather than the wrong ones
	}
	for i, od := range obsDecs {
		k := opk{od.Op.Func, od.Op.Bytes()}
		observed[k] = true
		row := OpRow{Coll: od.Op.Func, Bytes: od.Op.Bytes(), Observed: decisionText(od)}
		if i < len(obsAt) && obsAt[i].File != "" {
			row.At = obsAt[i].String()
		}
		if od.Kernel != "" && od.Undecided != "" {
			// a [Symmetric] line that names no task's size
			row.Predicted, row.Agreement = od.Undecided, NotPredicted
			c.Ops = append(c.Ops, row)
			continue
		}
		idx := predOps[k]
		if len(idx) == 0 {
			row.Predicted, row.Agreement = "-", NotPredicted
			c.Ops = append(c.Ops, row)
			continue
		}
		rank := map[Agreement]int{Agree: 4, Consistent: 3, NotPredicted: 2, Differ: 1}
		best, bestA := -1, Agreement("")
		for _, j := range idx {
			if a := opAgreement(pred.Decisions[j], od); rank[a] > rank[bestA] {
				best, bestA = j, a
			}
		}
		row.Agreement = bestA
		if bestA == Differ {
			row.Predicted = predictedText(pred.Decisions, idx)
		} else {
			row.Predicted = decisionText(pred.Decisions[best])
		}
		if bestA == Agree || bestA == Consistent {
			matched[best] = true
			agreed[k] = true
		}
		c.Ops = append(c.Ops, row)
	}
	// Predicted lines of a size whose other lines the log showed (a
	// group's operation the log lacks), and sizes the log never printed.
	for _, k := range keys {
		idx := predOps[k]
		if observed[k] && !agreed[k] {
			continue // the differing rows name what was predicted
		}
		if observed[k] {
			for _, j := range idx {
				if !matched[j] && !anyMatched(pred.Decisions, idx, matched, j) {
					d := pred.Decisions[j]
					c.Ops = append(c.Ops, OpRow{Coll: d.Op.Func, Bytes: d.Op.Bytes(), Predicted: decisionText(d), Observed: "-", Agreement: NotObserved})
				}
			}
			continue
		}
		d := pred.Decisions[idx[0]]
		c.Ops = append(c.Ops, OpRow{Coll: d.Op.Func, Bytes: d.Op.Bytes(), Predicted: predictedText(pred.Decisions, idx), Observed: "-", Agreement: NotObserved})
	}
	for _, r := range c.Gates {
		c.Counts[string(r.Agreement)]++
	}
	for _, r := range c.Caps {
		c.Counts[string(r.Agreement)]++
	}
	for _, r := range c.Ops {
		c.Counts[string(r.Agreement)]++
	}
	c.Conns = pred.Conns
	for _, r := range c.Conns {
		c.Counts[string(r.Agreement)]++
	}
	return c
}

// predictedText lists the distinct predicted lines of one size.
func predictedText(ds []spec.Decision, idx []int) string {
	var out []string
	seen := map[string]bool{}
	for _, j := range idx {
		t := decisionText(ds[j])
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, " | ")
}

// anyMatched reports whether another predicted decision of the size with
// the same line was matched or comes first (identical lines count once).
func anyMatched(ds []spec.Decision, idx []int, matched []bool, j int) bool {
	t := decisionText(ds[j])
	for _, i := range idx {
		if i != j && (matched[i] || i < j) && decisionText(ds[i]) == t {
			return true
		}
	}
	return false
}

// undecided reports a prediction that names no single (algorithm,
// protocol) and no error: spec's decision left candidates.
func undecided(d spec.Decision) bool {
	return d.Err == nil && (d.Algo == spec.AlgoNone || d.Proto == spec.ProtoNone)
}

// opAgreement compares one operation. An undecided prediction agrees
// ("consistent") when the observed choice is among its candidates and
// matches whatever half (algorithm or protocol) it did fix.
func opAgreement(p, o spec.Decision) Agreement {
	if p.Err == nil && o.Err == nil && (p.Kernel != "" || o.Kernel != "") {
		// a symmetric kernel: the same kernel filling the same channels
		// (a prediction without a count leaves the channels unchecked)
		if p.Kernel == o.Kernel && (p.SymChannels == 0 || p.SymChannels == o.SymChannels) {
			return Agree
		}
		return Differ
	}
	if !undecided(p) || o.Err != nil {
		if sameChoice(p, o) {
			return Agree
		}
		return Differ
	}
	if (p.Algo != spec.AlgoNone && p.Algo != o.Algo) || (p.Proto != spec.ProtoNone && p.Proto != o.Proto) {
		return Differ
	}
	if len(p.Candidates) == 0 {
		return NotPredicted
	}
	for _, c := range p.Candidates {
		if c.Algo == o.Algo && c.Proto == o.Proto {
			return Consistent
		}
	}
	return Differ
}

func decisionText(d spec.Decision) string {
	if d.Err != nil {
		return "error " + d.Err.Result.String()
	}
	if d.Kernel != "" {
		return SymString(d.Kernel, d.SymChannels)
	}
	if undecided(d) && len(d.Candidates) > 0 {
		names := make([]string, len(d.Candidates))
		for i, c := range d.Candidates {
			names[i] = c.String()
		}
		return "one of " + strings.Join(names, ",")
	}
	s := d.Algo.String() + "/" + d.Proto.String()
	if d.NChannels > 0 {
		// the channel range the operation ran on, as NCCL's line prints it
		s += " ch=" + spec.ChannelRange(d.ChannelLo, d.ChannelHi)
	}
	return s
}

func sameChoice(a, b spec.Decision) bool {
	if (a.Err == nil) != (b.Err == nil) {
		return false
	}
	if a.Err != nil {
		return a.Err.Result == b.Err.Result
	}
	if a.Algo != b.Algo || a.Proto != b.Proto {
		return false
	}
	return a.NChannels == 0 || b.NChannels == 0 || (a.ChannelLo == b.ChannelLo && a.ChannelHi == b.ChannelHi)
}

// WriteText prints the comparison as three tables.
func (c *Comparison) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "Predicted versus observed: %d agree, %d consistent, %d differ, %d not observed, %d not predicted\n",
		c.Counts[string(Agree)], c.Counts[string(Consistent)], c.Counts[string(Differ)], c.Counts[string(NotObserved)], c.Counts[string(NotPredicted)])
	for _, n := range c.Notes {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	b.WriteString("\nGates\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  rule\tcap\tpredicted\tobserved\tagreement\tat\n")
	for _, r := range c.Gates {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.Rule, dash(string(r.Cap)), r.Predicted, r.Observed, r.Agreement, r.At)
	}
	tw.Flush()
	if len(c.Caps) > 0 {
		b.WriteString("\nCapabilities\n")
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  cap\tpredicted\tobserved\tagreement\n")
		for _, r := range c.Caps {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Cap, r.Predicted, r.Observed, r.Agreement)
		}
		tw.Flush()
	}
	if len(c.Ops) > 0 {
		b.WriteString("\nOperations\n")
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  coll\tbytes\tpredicted\tobserved\tagreement\tat\n")
		for _, r := range c.Ops {
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\n", r.Coll, r.Bytes, r.Predicted, r.Observed, r.Agreement, r.At)
		}
		tw.Flush()
	}
	if len(c.Conns) > 0 {
		b.WriteString("\nNetwork connectors (G-NET-CONN-PXN-1, G-NET-CONN-GDR-1, G-NET-CONN-SHARED-1; flush predicted, G-NET-CONN-FLUSH-1)\n")
		tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  connection\tkind\tpredicted\tobserved\tagreement\tflush\tat\n")
		for _, r := range c.Conns {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Conn, r.Kind, r.Predicted, r.Observed, r.Agreement, dash(r.Flush), r.At)
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
