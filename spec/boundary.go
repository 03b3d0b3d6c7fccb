package spec

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// What changes between two modelled releases, and which requests can see it.
// Everything here is derived from releaseList (the deltas and the rulesets
// Load builds), so a release added to the list is covered without an edit.

// ReleaseDelta is one release's changes, split into rule changes (add,
// replace, remove, move) and value changes (constants, parameter defaults,
// topology parameters, tuning cells).
type ReleaseDelta struct {
	Version Version
	Tag     string
	// Unchanged is Release.Unchanged: why the delta is empty.
	Unchanged string
	Rules     []Change
	Values    []Change
}

// RangeDeltas returns the deltas of the releases after from up to and
// including to, oldest first.
func RangeDeltas(from, to Version) ([]ReleaseDelta, error) {
	changes, err := Diff(from, to)
	if err != nil {
		return nil, err
	}
	var out []ReleaseDelta
	for _, rel := range releaseList {
		if rel.Version == from || !rel.Version.Within(from, to) {
			continue
		}
		d := ReleaseDelta{Version: rel.Version, Tag: rel.Tag, Unchanged: rel.Unchanged}
		for _, c := range changes {
			if c.Since != rel.Version {
				continue
			}
			if c.Kind == ChangeValue {
				d.Values = append(d.Values, c)
			} else {
				d.Rules = append(d.Rules, c)
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// RuleChanged lists the rules whose variant, presence or evaluation order
// differs between two releases: the rules a request can see change.
func RuleChanged(a, b *Ruleset) map[RuleID]bool {
	out := map[RuleID]bool{}
	for _, id := range slices.Concat(a.Init, a.Op, b.Init, b.Op) {
		ra, okA := a.rules[id]
		rb, okB := b.rules[id]
		if okA != okB || (okA && (ra.Ref != rb.Ref || ra.Doc != rb.Doc)) {
			out[id] = true
		}
	}
	// a move changes the rules between the old and the new place
	for _, pair := range [][2][]RuleID{{a.Init, b.Init}, {a.Op, b.Op}} {
		x := slices.DeleteFunc(slices.Clone(pair[0]), func(id RuleID) bool { return out[id] })
		y := slices.DeleteFunc(slices.Clone(pair[1]), func(id RuleID) bool { return out[id] })
		if slices.Equal(x, y) {
			continue
		}
		for i := range min(len(x), len(y)) {
			if x[i] != y[i] {
				out[x[i]], out[y[i]] = true, true
			}
		}
	}
	return out
}

// valueReaders names, per value that changes between releases, the rules
// whose verdicts read it; a value not listed here is read by every rule.
// The tuning model's cells are read by the cost table (G-SEL-PICK-1 and the
// model rules), the topology parameters by the topology stage.
var valueReaders = map[string][]RuleID{
	"NetABI":                 {"G-NET-ABI-1", "G-COLLNET-ABI-1", "G-COLLNET-ABI-2"},
	"ConfigCheckModeLine":    {"G-ENV-CONFIG-1"},
	"TunerABI":               {"G-TUNER-ABI-1", "G-TUNER-CALL-1"},
	"NVLSChannelsSM90":       {"G-NVLS-CHAN-1"},
	"NVLSChannelsSM100":      {"G-NVLS-CHAN-1"},
	"NVLSChannelsSM100Multi": {"G-NVLS-CHAN-1"},
	"MaxNVLSArity":           {"G-SEL-PRUNE-1"},
	"HasPAT":                 {"G-PAT-1", "G-SEL-PRUNE-1"},
	"NetNameAtLoad":          {"G-NET-ABI-1"},
	"HasFP8":                 {"G-SEL-APPEND-1"},
	"RingBackup":             {"G-SEL-PICK-1"},
	"NVLSSupportAllGather":   {"G-SEL-OPSUP-1"},
	"param.NCCL_PAT_ENABLE":  {"G-PAT-1"},
	"param.NCCL_LL128_C2C":   {"G-TUNE-PROTO-1"},
	// the send/recv planner's facts (algos schedules by them too)
	"P2PRoundSchedule":       {"G-SCHED-P2P-1", "G-SCHED-P2P-2"},
	"P2PChannelBaseReversed": {"G-SCHED-P2P-1"},
	"P2PGroupSchedule":       {"G-SCHED-P2P-1"},
	"P2PGroupWholeNode":      {"G-SCHED-P2P-1"},
	"P2PMaxHalved":           {"G-SCHED-P2P-2"},
	"P2PHalveOneNodeOnly":    {"G-SCHED-P2P-2"},
	"P2PMinPartHalfStepNet":  {"G-SCHED-P2P-2"},
	"P2PChannelsBeforeProto": {"G-SCHED-P2P-2"},
	"P2PBatchPassEpoch":      {"G-SCHED-P2P-1"},
	"P2PResumeRound":         {"G-SCHED-P2P-1"},
	"P2PSkipSelfInPlace":     {"G-SCHED-P2P-3"},
	"P2PReg":                 {"G-REG-P2P-1"},
	// the schedule facts: no gate reads them (algos does)
	"NVLSLastChunkAlign":      {},
	"P2PBatchEpoch":           {"G-SCHED-P2P-1"},
	"SimpleBuffSizeARM":       {},
	"NVLSNetChunkCap":         {},
	"NVLSTreeChunkFromStep":   {},
	"NVLSTreeChunkCap4Nodes":  {},
	"NVLSChunkSizeEnv":        {},
	"NVLSTreeMaxChunkSizeEnv": {},
	"TreeSimpleChunkByDepth":  {},
	"NVLSRegStepChunk":        {},
	"NetRegRingAllGather":     {},
	"ProxyReg":                {"G-REG-PROXY-1"},
	// read by diagnose only
	"GDRPeermem": {},
}

// costTableRules read the tuning model's cells.
var costTableRules = []RuleID{"G-TUNE-BW-1", "G-TUNE-BW-2", "G-TUNE-PROTO-1", "G-SEL-PICK-1"}

// topologyRules read spec/topo's parameters.
var topologyRules = []RuleID{"G-TOPO-1", "G-GRAPH-SEARCH-1"}

// Boundary is what changes from one modelled release to the next (or to any
// later one): the rules whose variant differs and the rules that read a
// value that differs.
type Boundary struct {
	From, To *Ruleset
	// Rules are the rules that changed; Readers the rules that read a
	// changed value (nil with All when a changed value is read everywhere).
	Rules   map[RuleID]bool
	Readers map[RuleID]bool
	All     bool
}

// NewBoundary compares two modelled releases.
func NewBoundary(from, to Version) (*Boundary, error) {
	a, err := Load(from)
	if err != nil {
		return nil, err
	}
	b, err := Load(to)
	if err != nil {
		return nil, err
	}
	bd := &Boundary{From: a, To: b, Rules: RuleChanged(a, b), Readers: map[RuleID]bool{}}
	for _, path := range valueDiff(a, b) {
		var readers []RuleID
		switch {
		case strings.HasPrefix(path, "tuning."):
			readers = costTableRules
		case strings.HasPrefix(path, "topo."):
			readers = topologyRules
		default:
			var ok bool
			if readers, ok = valueReaders[path]; !ok {
				bd.All = true
			}
		}
		for _, id := range readers {
			bd.Readers[id] = true
		}
	}
	return bd, nil
}

// valueDiff lists the values that differ between two rulesets: the Consts
// fields, the parameter defaults, the topology parameters and the tuning
// cells, by the paths the changelog uses.
func valueDiff(a, b *Ruleset) []string {
	var out []string
	ca, cb := reflect.ValueOf(a.Consts), reflect.ValueOf(b.Consts)
	for i := range ca.NumField() {
		name := ca.Type().Field(i).Name
		if name == "IntParams" {
			continue
		}
		if !reflect.DeepEqual(ca.Field(i).Interface(), cb.Field(i).Interface()) {
			out = append(out, name)
		}
	}
	for _, k := range mapKeys(a.Consts.IntParams, b.Consts.IntParams) {
		va, okA := a.Consts.IntParams[k]
		vb, okB := b.Consts.IntParams[k]
		if va != vb || okA != okB {
			out = append(out, "param."+k)
		}
	}
	ta, tb := reflect.ValueOf(a.TopoParams), reflect.ValueOf(b.TopoParams)
	for i := range ta.NumField() {
		name := ta.Type().Field(i).Name
		if name != "Release" && !reflect.DeepEqual(ta.Field(i).Interface(), tb.Field(i).Interface()) {
			out = append(out, "topo."+name)
		}
	}
	for _, c := range tuning.Diff(a.Tuning, b.Tuning) {
		out = append(out, "tuning."+c.Path)
	}
	return out
}

func mapKeys(ms ...map[string]int64) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Touches reports whether a request whose traces under the two releases are
// ta and tb could see the boundary: a changed rule, or a rule reading a
// changed value, gave a verdict other than Skip in either trace. A request
// that touches nothing must get the same decision under both releases.
func (bd *Boundary) Touches(ta, tb Trace) bool {
	if bd.All {
		return true
	}
	for _, tr := range []Trace{ta, tb} {
		for _, v := range tr {
			if v.Outcome != Skip && (bd.Rules[v.Rule] || bd.Readers[v.Rule]) {
				return true
			}
		}
	}
	return false
}

// Signature is a decision in one line: what runs (algorithm, protocol,
// channels) or the error, the gate that settled it, whether NCCL fell back,
// and the candidates that were legal. Two releases decide a request the same
// way when the signatures are equal.
func Signature(d *Decision) string {
	var b strings.Builder
	switch {
	case d.Discarded:
		b.WriteString("discarded")
	case d.Err != nil:
		fmt.Fprintf(&b, "error %s", d.Err.Result)
	default:
		fmt.Fprintf(&b, "%s/%s nChannels %d", d.Algo, d.Proto, d.NChannels)
	}
	if d.Fallback {
		b.WriteString(" (fallback)")
	}
	fmt.Fprintf(&b, " [%s]", d.DecidedBy)
	if len(d.Candidates) > 0 {
		names := make([]string, len(d.Candidates))
		for i, c := range d.Candidates {
			names[i] = c.String()
		}
		fmt.Fprintf(&b, " of %s", strings.Join(names, " "))
	}
	return b.String()
}

// Probe is one machine and environment of the fixed request set that tells
// releases apart, with the operations asked on it.
type Probe struct {
	Name   string
	Preset string
	Nodes  int
	// GPUs and NICs keep the first n of each node's (0: all); a trimmed
	// node is built from its facts, without the preset's layout.
	GPUs, NICs int
	// SHARP adds the SHARP plugin (PresetOptions.SHARP); Cliques splits
	// an NVLink fabric's racks (PresetOptions.Cliques).
	SHARP   bool
	Cliques int
	Env     Env
	Ops     []ProbeOp
}

// ProbeOp is one collective of a probe.
type ProbeOp struct {
	Func  Func
	Bytes int64
}

// System builds the probe's machine.
func (p Probe) System() (*System, error) {
	sys, err := Preset(p.Preset, PresetOptions{Nodes: p.Nodes, SHARP: p.SHARP, Cliques: p.Cliques})
	if err != nil {
		return nil, err
	}
	if p.GPUs == 0 && p.NICs == 0 {
		return sys, nil
	}
	for i := range sys.Nodes {
		n := &sys.Nodes[i]
		if p.GPUs > 0 && p.GPUs < len(n.GPUs) {
			n.GPUs = n.GPUs[:p.GPUs]
			if p.GPUs == 1 {
				n.NVSwitch = false
			}
		}
		if p.NICs > 0 && p.NICs < len(n.NICs) {
			n.NICs = n.NICs[:p.NICs]
		}
		n.Layout = nil
	}
	return sys, nil
}

// Probes is the fixed request set of the release boundaries: the machines,
// environments and operations where NCCL's releases are known to decide
// differently (PAT on one GPU per node, NCCL_ALGO with and without the Ring
// backup, the path-bounded search on four A100s with four NICs, Blackwell,
// NVLS on two GPUs, CollNet) and ordinary ones where they should not.
var Probes = []Probe{
	{Name: "dgx-h100", Preset: "dgx-h100", Nodes: 1, Ops: []ProbeOp{
		{AllReduce, 64 << 10}, {AllReduce, 16 << 20}, {AllReduce, 256 << 20}, {AllGather, 1 << 20}, {ReduceScatter, 1 << 20}, {Broadcast, 1 << 20}}},
	{Name: "dgx-h100 x2", Preset: "dgx-h100", Nodes: 2, Ops: []ProbeOp{
		{AllReduce, 64 << 10}, {AllReduce, 256 << 20}, {AllGather, 1 << 20}}},
	{Name: "dgx-h100 NCCL_ALGO=Tree", Preset: "dgx-h100", Nodes: 1, Env: Env{"NCCL_ALGO": "Tree"}, Ops: []ProbeOp{
		{AllGather, 1 << 20}, {AllReduce, 1 << 20}}},
	{Name: "dgx-h100 NCCL_ALGO=allreduce:tree;allgather:ring", Preset: "dgx-h100", Nodes: 1,
		Env: Env{"NCCL_ALGO": "allreduce:tree;allgather:ring"}, Ops: []ProbeOp{{AllReduce, 1 << 20}, {AllGather, 1 << 20}}},
	{Name: "dgx-h100 1 GPU per node x32", Preset: "dgx-h100", Nodes: 32, GPUs: 1, NICs: 1, Ops: []ProbeOp{
		{AllGather, 64 << 10}, {AllGather, 1 << 20}, {ReduceScatter, 64 << 10}}},
	{Name: "dgx-a100 4 GPUs 4 NICs x2", Preset: "dgx-a100", Nodes: 2, GPUs: 4, NICs: 4, Ops: []ProbeOp{
		{AllReduce, 64 << 10}, {AllReduce, 256 << 20}}},
	{Name: "dgx-b200 x2", Preset: "dgx-b200", Nodes: 2, Ops: []ProbeOp{
		{AllReduce, 1 << 20}, {AllReduce, 256 << 20}, {AllGather, 16 << 20}}},
	{Name: "h200x2", Preset: "h200x2", Nodes: 1, Ops: []ProbeOp{
		{AllReduce, 1 << 20}, {AllGather, 1 << 20}}},
	// NVLS never wins the cost table on two GPUs (its bandwidth there is
	// below Ring's), so only a forced NVLS shows 2.28.7's two-GPU NVLS.
	{Name: "h200x2 NCCL_ALGO=NVLS", Preset: "h200x2", Nodes: 1, Env: Env{"NCCL_ALGO": "NVLS"}, Ops: []ProbeOp{
		{AllReduce, 16 << 20}}},
	{Name: "dgx-h100 x2 SHARP NCCL_COLLNET_ENABLE=1", Preset: "dgx-h100", Nodes: 2, SHARP: true,
		Env: Env{"NCCL_COLLNET_ENABLE": "1"}, Ops: []ProbeOp{{AllReduce, 256 << 20}, {AllGather, 16 << 20}}},
	{Name: "v100x4 x2", Preset: "v100x4", Nodes: 2, Ops: []ProbeOp{{AllReduce, 256 << 20}}},
}

// ProbeAnswer is one probe operation's decision under one release.
type ProbeAnswer struct {
	Probe     string
	Op        ProbeOp
	Signature string
	Trace     Trace
}

// AnswerProbes runs every probe under a release, in Probes order.
func AnswerProbes(v Version) ([]ProbeAnswer, error) {
	rs, err := Load(v)
	if err != nil {
		return nil, err
	}
	var out []ProbeAnswer
	for _, p := range Probes {
		sys, err := p.System()
		if err != nil {
			return nil, fmt.Errorf("probe %s: %w", p.Name, err)
		}
		c, err := Init(rs, sys, p.Env)
		if err != nil {
			return nil, fmt.Errorf("probe %s: %w", p.Name, err)
		}
		for _, po := range p.Ops {
			op, err := OpFromBytes(po.Func, po.Bytes, Float32, Sum, 0)
			if err != nil {
				return nil, fmt.Errorf("probe %s: %w", p.Name, err)
			}
			d, tr, err := c.Select(op)
			if err != nil {
				return nil, fmt.Errorf("probe %s %s: %w", p.Name, po.Func, err)
			}
			out = append(out, ProbeAnswer{Probe: p.Name, Op: po, Signature: Signature(d), Trace: tr.Trace()})
		}
	}
	return out, nil
}

// BoundaryReport prints what changes between two releases: every change of
// the deltas between them with its source, and the probe decisions that
// differ (a and b are AnswerProbes of the two releases).
func BoundaryReport(from, to Version, a, b []ProbeAnswer) (string, error) {
	deltas, err := RangeDeltas(from, to)
	if err != nil {
		return "", err
	}
	var w strings.Builder
	fmt.Fprintf(&w, "NCCL %s -> %s (%s -> %s)\n", from, to, from.Tag(), to.Tag())
	for _, d := range deltas {
		fmt.Fprintf(&w, "\n%s: %d rule changes, %d value changes\n", d.Version, len(d.Rules), len(d.Values))
		if d.Unchanged != "" {
			fmt.Fprintf(&w, "  no decision changes: %s\n", d.Unchanged)
		}
		for _, c := range d.Rules {
			what := string(c.Kind) + " " + string(c.Rule)
			if c.Kind == ChangeMove {
				what += " " + c.New
			}
			fmt.Fprintf(&w, "  %-34s %s\n      %s %s\n", what, c.Note, c.Ref.File, c.Ref.Func)
		}
		for _, c := range d.Values {
			fmt.Fprintf(&w, "  %s: %s -> %s\n      %s %s\n", c.Path, c.Old, c.New, c.Ref.File, c.Ref.Func)
		}
	}
	if len(a) != len(b) {
		return "", fmt.Errorf("%d answers for %s, %d for %s", len(a), from, len(b), to)
	}
	var diff []string
	for i := range a {
		if a[i].Signature != b[i].Signature {
			diff = append(diff, fmt.Sprintf("  %s, %s %d B\n    %s: %s\n    %s: %s\n", a[i].Probe, a[i].Op.Func, a[i].Op.Bytes,
				from, a[i].Signature, to, b[i].Signature))
		}
	}
	fmt.Fprintf(&w, "\ndecisions that differ over the fixed request set (spec.Probes): %d of %d\n", len(diff), len(a))
	for _, s := range diff {
		w.WriteString(s)
	}
	return w.String(), nil
}
