// Package whatif plans clusters before they exist: it expands a sweep
// (releases × machines × environment sets × collectives × sizes) into
// points, asks spec what NCCL decides at each point and how long NCCL's own
// cost model says it takes, asks the simulator (when one is given) how long
// the schedule really runs on the modelled fabric, and derives algbw and
// busbw as nccl-tests defines them.
//
// Place in the data flow: sweep file or flags → Expand → Points → Evaluate
// (spec.Init + Comm.Select, optional simulator) → Results → tables, CSV,
// JSON, plots (in the CLI). Expand and Evaluate are pure; Run spreads
// Evaluate over cores and returns results in the sweep's order.
package whatif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"sigs.k8s.io/yaml"
)

// Sweep is what a sweep file (YAML or JSON) or the command line holds.
type Sweep struct {
	// NCCL lists releases ("2.22.3", "2.28.9").
	NCCL []string `json:"nccl"`
	// Systems are machine axes; each expands to one machine per
	// combination of its lists.
	Systems []SystemAxis `json:"systems"`
	// Env are named environment sets; every point runs under each.
	Env []EnvSet `json:"env,omitempty"`
	// Colls lists collectives (default allreduce).
	Colls []string `json:"colls,omitempty"`
	// Sizes are nccl-tests sizes: the whole buffer (for AllGather the
	// receive buffer, for ReduceScatter the send buffer), as nccl-tests'
	// -b/-e mean it.
	Sizes SizeAxis `json:"sizes"`
	DType string   `json:"dtype,omitempty"` // default float32
	RedOp string   `json:"redop,omitempty"` // default sum
	// Config is the communicator's ncclConfig_t at every point (NCCL's
	// field names); nil: ncclCommInitRank.
	Config *spec.Config `json:"config,omitempty"`
	// Procs spreads every machine's ranks over processes: "per-gpu" (the
	// default), "per-node" (one process drives a node's GPUs) or
	// "init-all" (per-node through ncclCommInitAll, one node).
	Procs string `json:"procs,omitempty"`
}

// SystemAxis varies one preset.
type SystemAxis struct {
	Preset string `json:"preset"`
	// Nodes lists node counts (default 1).
	Nodes []int `json:"nodes,omitempty"`
	// GPUs lists GPUs per node (0 or empty: the preset's).
	GPUs []int `json:"gpus,omitempty"`
	// SHARP lists whether the SHARP plugin (a SHARP-capable switch) is there.
	SHARP []bool `json:"sharp,omitempty"`
	// NICs lists IB NICs per node (0 or empty: the preset's).
	NICs []int `json:"nics,omitempty"`
	// NICGbps lists NIC speeds in Gb/s (0 or empty: the preset's).
	NICGbps []int `json:"nic_gbps,omitempty"`
	// NVLinks lists NVLink links per GPU (0 or empty: the preset's); with
	// the GPU generation this is the NVLink bandwidth per GPU.
	NVLinks []int `json:"nvlinks,omitempty"`
}

// EnvSet is one named set of NCCL_* variables.
type EnvSet struct {
	Name string            `json:"name"`
	Vars map[string]string `json:"vars"`
}

// SizeAxis is a list of sizes, or a geometric range From..To by Factor.
type SizeAxis struct {
	List   []string `json:"list,omitempty"`
	From   string   `json:"from,omitempty"`
	To     string   `json:"to,omitempty"`
	Factor int      `json:"factor,omitempty"`
}

// Machine is one expanded system.
type Machine struct {
	Label string
	// Family is the Label without the node count: the machines of one
	// family differ only in how many nodes they have.
	Family                              string
	Axis                                int // index into Sweep.Systems
	Nodes, GPUs, NICs, NICGbps, NVLinks int
	SHARP                               bool
	Sys                                 *spec.System
}

// Point is one evaluation: a release, a machine, an environment set, a
// collective and a size.
type Point struct {
	Index   int
	Release spec.Version
	Machine *Machine
	Env     EnvSet
	Op      spec.Op
	// Size is the nccl-tests size in bytes.
	Size int64
}

// MaxPoints bounds a sweep (a typo in a range should not eat the machine):
// 100,000 points print as JSON in under 1 GB (docs/limits.md).
const MaxPoints = 100_000

// Expand turns a sweep into points in a fixed order: release, machine,
// environment set, collective, size.
func Expand(sw Sweep) ([]Point, error) {
	if len(sw.NCCL) == 0 {
		return nil, fmt.Errorf("sweep: no release: expected nccl: [2.28.9, ...]")
	}
	var rels []spec.Version
	for _, s := range sw.NCCL {
		v, err := spec.ParseVersion(s)
		if err != nil {
			return nil, fmt.Errorf("sweep: nccl: %v", err)
		}
		if !spec.Supported(v) {
			return nil, fmt.Errorf("sweep: nccl: %v", &spec.UnsupportedError{Version: v})
		}
		rels = append(rels, v)
	}
	if len(sw.Systems) == 0 {
		return nil, fmt.Errorf("sweep: no system: expected systems: [{preset: dgx-h100, nodes: [1, 2]}]")
	}
	procs := spec.ProcsPerGPU
	if sw.Procs != "" {
		p, err := spec.ParseProcs(sw.Procs)
		if err != nil {
			return nil, fmt.Errorf("sweep: %v", err)
		}
		procs = p
	}
	// The product saturates at MaxPoints+1 so that long axis lists cannot
	// overflow it.
	mul := func(a, b int) int {
		if b > 0 && a > (MaxPoints+1)/b {
			return MaxPoints + 1
		}
		return min(a*b, MaxPoints+1)
	}
	nMachines := 0
	for _, a := range sw.Systems {
		k := 1
		for _, n := range []int{len(a.Nodes), len(a.SHARP), len(a.GPUs), len(a.NICs), len(a.NICGbps), len(a.NVLinks)} {
			k = mul(k, max(1, n))
		}
		nMachines = min(nMachines+k, MaxPoints+1)
	}
	sizes, err := expandSizes(sw.Sizes)
	if err != nil {
		return nil, err
	}
	n := nMachines
	for _, k := range []int{len(sw.NCCL), len(sw.Env), len(sw.Colls), len(sizes)} {
		n = mul(n, max(1, k))
	}
	if n > MaxPoints {
		return nil, fmt.Errorf("sweep: more than %d points; narrow a range", MaxPoints)
	}
	machines, err := expandMachines(sw.Systems, procs)
	if err != nil {
		return nil, err
	}
	envs := sw.Env
	if len(envs) == 0 {
		envs = []EnvSet{{Name: "default"}}
	}
	for i, e := range envs {
		if e.Name == "" {
			return nil, fmt.Errorf("sweep: env set %d has no name", i)
		}
		for k, v := range e.Vars {
			if _, err := spec.ParseAssignments([]string{k + "=" + v}); err != nil {
				return nil, fmt.Errorf("sweep: env set %s: %v", e.Name, err)
			}
		}
	}
	colls := sw.Colls
	if len(colls) == 0 {
		colls = []string{"allreduce"}
	}
	var funcs []spec.Func
	for _, c := range colls {
		f, err := spec.ParseFuncIn(c, spec.SelectFuncs)
		if err != nil {
			return nil, fmt.Errorf("sweep: colls: %v", err)
		}
		funcs = append(funcs, f)
	}
	dtS, rS := orDefault(sw.DType, "float32"), orDefault(sw.RedOp, "sum")
	dt, err := spec.ParseDataType(dtS)
	if err != nil {
		return nil, fmt.Errorf("sweep: dtype: %v", err)
	}
	rop, err := spec.ParseRedOp(rS)
	if err != nil {
		return nil, fmt.Errorf("sweep: redop: %v", err)
	}
	total := len(rels) * len(machines) * len(envs) * len(funcs) * len(sizes)
	if total > MaxPoints {
		return nil, fmt.Errorf("sweep: %d points: more than %d; narrow a range", total, MaxPoints)
	}
	pts := make([]Point, 0, total)
	for _, m := range machines {
		m.Sys.CommConfig = sw.Config // each Expand builds its own machines
	}
	for _, v := range rels {
		if dt.IsFP8() && !spec.MustLoad(v).Consts.HasFP8 {
			return nil, fmt.Errorf("sweep: dtype %s does not exist in NCCL %s", dt, v)
		}
		if err := spec.MustLoad(v).CheckConfig(sw.Config); err != nil {
			return nil, fmt.Errorf("sweep: %v", err)
		}
		for _, m := range machines {
			n := m.Sys.NRanks()
			for _, e := range envs {
				for _, f := range funcs {
					for _, size := range sizes {
						op, err := opFor(f, size, n, dt, rop)
						if err != nil {
							return nil, err
						}
						pts = append(pts, Point{Index: len(pts), Release: v, Machine: m, Env: e, Op: op, Size: size})
					}
				}
			}
		}
	}
	return pts, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// opFor converts an nccl-tests size into the API's per-rank count.
func opFor(f spec.Func, size int64, nRanks int, dt spec.DataType, rop spec.RedOp) (spec.Op, error) {
	count := size / int64(dt.Size())
	if f == spec.AllGather || f == spec.ReduceScatter || f == spec.AllToAll {
		count /= int64(nRanks) // nccl-tests' size is the whole buffer
	}
	return spec.Op{Func: f, Count: count, DataType: dt, RedOp: rop}, nil
}

func expandSizes(a SizeAxis) ([]int64, error) {
	if len(a.List) > 0 {
		if a.From != "" || a.To != "" {
			return nil, fmt.Errorf("sweep: sizes: give a list or a from/to range, not both")
		}
		out, err := spec.ParseSizeList(a.List, MaxPoints)
		if err != nil {
			return nil, fmt.Errorf("sweep: sizes: %v", err)
		}
		return out, nil
	}
	if a.From == "" || a.To == "" {
		return nil, fmt.Errorf("sweep: sizes: expected a list or from, to (and factor), such as 4KiB:16GiB:x2")
	}
	out, err := spec.SizeRange{From: a.From, To: a.To, Factor: a.Factor}.Sizes()
	if err != nil {
		return nil, fmt.Errorf("sweep: sizes: %v", err)
	}
	return out, nil
}

// MaxSweepNodes bounds the nodes of all a sweep's machines together: each
// machine is built in memory before the first point is evaluated.
const MaxSweepNodes = 4 * spec.MaxNodes

func expandMachines(axes []SystemAxis, procs spec.Procs) ([]*Machine, error) {
	var out []*Machine
	total := 0
	for ai, a := range axes {
		combos := max(1, len(a.SHARP)) * max(1, len(a.GPUs)) * max(1, len(a.NICs)) * max(1, len(a.NICGbps)) * max(1, len(a.NVLinks))
		for _, n := range orOne(a.Nodes) {
			if n > 0 && n <= spec.MaxNodes {
				total += n * combos
			}
			if total > MaxSweepNodes {
				return nil, fmt.Errorf("sweep: the machines hold more than %d nodes in all: expected at most %d (gatesim's limit; each machine is built in memory)", MaxSweepNodes, MaxSweepNodes)
			}
			for _, g := range a.GPUs {
				if g > 0 && g <= spec.MaxGPUsPerNode && n > 0 && n <= spec.MaxNodes {
					if err := spec.CheckShape(n, g); err != nil {
						return nil, fmt.Errorf("sweep: systems[%d]: %v", ai, err)
					}
				}
			}
		}
	}
	for ai, a := range axes {
		if _, err := spec.Preset(a.Preset, spec.PresetOptions{}); err != nil {
			return nil, fmt.Errorf("sweep: systems[%d]: %v", ai, err)
		}
		nodes := a.Nodes
		if len(nodes) == 0 {
			nodes = []int{1}
		}
		sharps := a.SHARP
		if len(sharps) == 0 {
			sharps = []bool{false}
		}
		for _, n := range nodes {
			if n < 1 || n > spec.MaxNodes {
				return nil, fmt.Errorf("sweep: systems[%d]: nodes %d: expected 1 to %d (gatesim's limit)", ai, n, spec.MaxNodes)
			}
		}
		for _, g := range a.GPUs {
			if g < 0 || g > spec.MaxGPUsPerNode {
				return nil, fmt.Errorf("sweep: systems[%d]: gpus %d: expected 1 to %d (0: the preset's)", ai, g, spec.MaxGPUsPerNode)
			}
		}
		for _, l := range [][]int{a.NICs, a.NICGbps, a.NVLinks} {
			for _, x := range l {
				if x < 0 || x > 1<<16 {
					return nil, fmt.Errorf("sweep: systems[%d]: value %d out of range", ai, x)
				}
			}
		}
		for _, n := range nodes {
			for _, sharp := range sharps {
				for _, g := range orZero(a.GPUs) {
					for _, nic := range orZero(a.NICs) {
						for _, gbps := range orZero(a.NICGbps) {
							for _, nvl := range orZero(a.NVLinks) {
								m, err := buildMachine(ai, a.Preset, n, sharp, g, nic, gbps, nvl, procs)
								if err != nil {
									return nil, err
								}
								out = append(out, m)
							}
						}
					}
				}
			}
		}
	}
	return out, nil
}

func orZero(l []int) []int {
	if len(l) == 0 {
		return []int{0}
	}
	return l
}

func orOne(l []int) []int {
	if len(l) == 0 {
		return []int{1}
	}
	return l
}

func buildMachine(axis int, preset string, nodes int, sharp bool, gpus, nics, gbps, nvlinks int, procs spec.Procs) (*Machine, error) {
	if key, ok := spec.PresetKey(preset); ok {
		preset = key // labels name the preset, not the spelling typed
	}
	sys, err := spec.Preset(preset, spec.PresetOptions{Nodes: nodes, SHARP: sharp})
	if err != nil {
		return nil, err
	}
	sys.Procs = procs
	// Reshape changes the hardware layout and the gate facts together, so
	// the topology search sees the machine the gates see.
	for i := range sys.Nodes {
		sys.Nodes[i].Reshape(gpus, nics, gbps, nvlinks)
	}
	m := &Machine{Axis: axis, Nodes: nodes, SHARP: sharp, Sys: sys, GPUs: len(sys.Nodes[0].GPUs), NICs: len(sys.Nodes[0].NICs), NVLinks: sys.Nodes[0].GPUs[0].NVLinks}
	if len(sys.Nodes[0].NICs) > 0 {
		m.NICGbps = sys.Nodes[0].NICs[0].SpeedMbps / 1000
	}
	parts := []string{fmt.Sprintf("%s %d×%d", preset, nodes, m.GPUs)}
	if m.NICs > 0 {
		parts = append(parts, fmt.Sprintf("%d×%dG", m.NICs, m.NICGbps))
	}
	if gpus > 0 || nvlinks > 0 {
		parts = append(parts, fmt.Sprintf("NVL×%d", m.NVLinks))
	}
	if sharp {
		parts = append(parts, "SHARP")
	}
	if procs != spec.ProcsPerGPU {
		parts = append(parts, "procs "+procs.String())
	}
	m.Label = strings.Join(parts, " ")
	m.Family = strings.Join(append([]string{fmt.Sprintf("%s ×%d", preset, m.GPUs)}, parts[1:]...), " ")
	return m, nil
}

// Result is what one point gives.
type Result struct {
	Point
	// Issue is how the point's operation was issued (launch, buffers,
	// allocation, in place), so a record says which of a sweep's modes it is.
	Issue spec.Issue
	// Outcome is "Ring/Simple", "error ncclInvalidUsage", or the candidate
	// list when the choice could not be made.
	Outcome string
	Algo    spec.Algo
	Proto   spec.Proto
	Err     *spec.NCCLError
	// NChannels is the channels the operation runs on: alone (or in a
	// group of one) NCCL's count for it (a send/recv operation's distinct
	// p2p channels); in a group of several the first operation's own
	// range (Channels has every operation's).
	NChannels int
	Channels  Channels
	// Gates names, per offload, the rule that kept it out (empty: it was a
	// candidate or was chosen).
	CollNetGate, NVLSGate string
	// ModelUs is NCCL's own cost-model estimate (0: not available).
	ModelUs float64
	// SimUs is the simulated time (0: no simulator, or not simulated).
	SimUs float64
	// AlgBw and BusBw (GB/s, 1e9 B/s as nccl-tests prints) from SimUs when
	// present, else from ModelUs, of the bytes of the count the operation
	// runs (sim.TestBytes), which are below Size where the ranks do not
	// divide it; Size stays the size the sweep asked for.
	AlgBw, BusBw float64
	TimeSource   string // "sim", "model" or ""
	// TunerWithout is NCCL's choice at the point without the tuner
	// plugin's answer ("" without a plugin call); TunerChanged marks the
	// points where the plugin changed it.
	TunerWithout string
	TunerChanged bool
	// TunerEdits lists the cost-table cells the plugin changed.
	TunerEdits string
}

// TunerHost loads a tuner plugin for a communicator (the CLI's --tuner;
// the plugin runs outside this package).
type TunerHost interface {
	Attach(rs *spec.Ruleset, sys *spec.System, env spec.Env, init func(*spec.Ruleset, *spec.System, spec.Env) (*spec.Comm, error)) (TunedComm, error)
}

// TunedComm is a communicator with a tuner plugin loaded.
type TunedComm interface {
	Communicator() *spec.Comm
	Select(op spec.Op) (*spec.Decision, spec.SelectTrace, error)
	Close()
}

// Simulator gives a simulated time for a point's decisions (nil: none):
// the operation's, or every operation of the group it was issued in.
type Simulator func(p Point, comm *spec.Comm, ds []*spec.Decision) (us float64, err error)

// Evaluator evaluates points; it keeps loaded rulesets and is not safe
// for concurrent use (Run gives each worker its own).
type Evaluator struct {
	Sim      Simulator
	rulesets map[spec.Version]*spec.Ruleset
	// comms caches built communicators: points that share a release, a
	// machine and an environment set share one (collectives and sizes vary
	// fastest in a sweep).
	comms map[commKey]*spec.Comm
	// Topo shares topology searches between evaluators (nil: none).
	Topo *spec.Cache
	// Tuner, when set, loads a tuner plugin into every communicator.
	Tuner TunerHost
	tuned map[commKey]TunedComm
	// Issue is how each point's operation is issued; a point issued in a
	// group is decided by the group plan and reports its first operation.
	Issue spec.Issue
}

// Close releases the tuner plugins the evaluator loaded.
func (e *Evaluator) Close() {
	for k, t := range e.tuned {
		t.Close()
		delete(e.tuned, k)
	}
}

type commKey struct {
	rel spec.Version
	m   *Machine
	env string
}

const maxCachedComms = 1024

// Evaluate runs the gates (and the simulator) at one point.
func (e *Evaluator) Evaluate(p Point) Result {
	if e.rulesets == nil {
		e.rulesets = map[spec.Version]*spec.Ruleset{}
	}
	rs := e.rulesets[p.Release]
	if rs == nil {
		rs = spec.MustLoad(p.Release)
		e.rulesets[p.Release] = rs
	}
	r := Result{Point: p, Issue: e.Issue, Algo: spec.AlgoNone, Proto: spec.ProtoNone}
	env := spec.Env{}
	for k, v := range p.Env.Vars {
		env[k] = v
	}
	k := commKey{p.Release, p.Machine, p.Env.Name}
	if e.Tuner != nil {
		return e.evaluateTuned(p, rs, env, k, r)
	}
	comm := e.comms[k]
	if comm == nil {
		var err error
		comm, err = e.Topo.Init(rs, p.Machine.Sys, env)
		if err != nil {
			r.Outcome = "invalid: " + err.Error()
			return r
		}
		if e.comms == nil || len(e.comms) >= maxCachedComms {
			e.comms = map[commKey]*spec.Comm{}
		}
		e.comms[k] = comm
	}
	if !comm.IssuedAlone(p.Op, e.Issue) {
		g, err := comm.SelectIssue(p.Op, e.Issue)
		if err != nil {
			r.Outcome = "invalid: " + err.Error()
			return r
		}
		return e.fill(p, comm, g.Ops, g.Traces[0], r)
	}
	d, tr, err := comm.Select(p.Op)
	if err != nil {
		r.Outcome = "invalid: " + err.Error()
		return r
	}
	return e.fill(p, comm, []*spec.Decision{d}, tr, r)
}

// evaluateTuned is Evaluate with the tuner plugin loaded into the point's
// communicator (one plugin instance per communicator, as in NCCL).
func (e *Evaluator) evaluateTuned(p Point, rs *spec.Ruleset, env spec.Env, k commKey, r Result) Result {
	tc := e.tuned[k]
	if tc == nil {
		var err error
		tc, err = e.Tuner.Attach(rs, p.Machine.Sys, env, e.Topo.Init)
		if err != nil {
			r.Outcome = "invalid: " + err.Error()
			return r
		}
		if e.tuned == nil || len(e.tuned) >= maxCachedComms {
			e.Close()
			e.tuned = map[commKey]TunedComm{}
		}
		e.tuned[k] = tc
	}
	d, tr, err := tc.Select(p.Op)
	if err != nil {
		r.Outcome = "invalid: " + err.Error()
		return r
	}
	if t := d.Tuner; t != nil {
		r.TunerWithout, r.TunerChanged, r.TunerEdits = t.Without.String(), t.Changed(d), strings.Join(t.Edits, "; ")
		if t.WithoutErr != nil {
			r.TunerWithout = "error " + t.WithoutErr.Result.String()
		}
	}
	return e.fill(p, tc.Communicator(), []*spec.Decision{d}, tr, r)
}

// stopper is a trace that names the gate keeping a capability out: a
// group's Trace or Select's SelectTrace.
type stopper interface {
	Stopper(spec.Capability) (spec.Verdict, bool)
}

// fill is the result of a decision at a point: the first of ds (the
// operation, or the first of its group), simulated with all of them.
func (e *Evaluator) fill(p Point, comm *spec.Comm, ds []*spec.Decision, tr stopper, r Result) Result {
	d := ds[0]
	r.Algo, r.Proto, r.Err, r.NChannels, r.ModelUs = d.Algo, d.Proto, d.Err, d.NChannels, d.TimeUs
	r.Channels = channelsOf(ds)
	if r.Channels.Grouped() || d.NChannels == 0 {
		// a send/recv operation has no nMaxChannels: its p2p channels
		r.NChannels, _, _, _ = opRange(d)
	}
	switch {
	case d.Discarded:
		r.Outcome = "discarded (count 0)"
	case d.Err != nil:
		r.Outcome = "error " + d.Err.Result.String()
	case d.P2P != nil:
		r.Outcome = "p2p"
	case d.Kernel != "":
		r.Outcome = d.Kernel
	case d.Algo != spec.AlgoNone && d.Proto != spec.ProtoNone:
		r.Outcome = d.Algo.String() + "/" + d.Proto.String()
	case d.Algo != spec.AlgoNone:
		r.Outcome = d.Algo.String() + "/?"
	default:
		var c []string
		for _, ap := range d.Candidates {
			c = append(c, ap.String())
		}
		r.Outcome = "{" + strings.Join(c, " ") + "}"
	}
	if v, ok := tr.Stopper(spec.CapCollNet); ok && !d.Algo.IsCollNet() {
		r.CollNetGate = string(v.Rule)
	}
	if v, ok := tr.Stopper(spec.CapNVLS); ok && !d.Algo.IsNVLS() {
		r.NVLSGate = string(v.Rule)
	}
	if e.Sim != nil && d.Err == nil && (d.P2P != nil || d.Kernel != "" || d.Algo != spec.AlgoNone && d.Proto != spec.ProtoNone) {
		if us, err := e.Sim(p, comm, ds); err == nil {
			r.SimUs = us
		}
	}
	t := r.SimUs
	r.TimeSource = "sim"
	if t == 0 {
		t, r.TimeSource = r.ModelUs, "model"
	}
	if t > 0 {
		// nccl-tests divides the bytes of the count it runs, not the size
		// asked for: a size the ranks do not divide runs fewer bytes
		n := p.Machine.Sys.NRanks()
		r.AlgBw, r.BusBw = sim.Bandwidth(p.Op.Func, sim.TestBytes(p.Op.Func, p.Op.Count, p.Op.DataType, n), n, t*1e-6)
	} else {
		r.TimeSource = ""
	}
	return r
}

// ReleaseDiff pairs points that differ only in the release and reports
// those whose outcome or time changed.
type ReleaseDiff struct {
	Key      string
	Releases []string
	Outcomes []string
	Times    []float64 // µs, from the result's time source
	// TimeOnly: every release decides alike; only the time moves (by
	// more than 1 %).
	TimeOnly bool
}

// DiffReleases finds, among results of several releases, the coordinates
// where the releases decide differently or the time changes by more than
// 1%.
func DiffReleases(rs []Result) []ReleaseDiff {
	type group struct {
		rels  []string
		outs  []string
		times []float64
	}
	groups := map[string]*group{}
	var order []string
	for _, r := range rs {
		k := fmt.Sprintf("%s | %s | %s | %s", r.Machine.Label, r.Env.Name, r.Op.Func, spec.FormatBytes(r.Size))
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
			order = append(order, k)
		}
		t := r.SimUs
		if t == 0 {
			t = r.ModelUs
		}
		g.rels = append(g.rels, r.Release.String())
		g.outs = append(g.outs, r.Decided())
		g.times = append(g.times, t)
	}
	var out []ReleaseDiff
	for _, k := range order {
		g := groups[k]
		if len(g.rels) < 2 {
			continue
		}
		decides, times := false, false
		for i := 1; i < len(g.outs); i++ {
			if g.outs[i] != g.outs[0] {
				decides = true
			}
			if g.times[0] > 0 && math.Abs(g.times[i]-g.times[0])/g.times[0] > 0.01 {
				times = true
			}
		}
		if decides || times {
			out = append(out, ReleaseDiff{Key: k, Releases: g.rels, Outcomes: g.outs, Times: g.times, TimeOnly: !decides})
		}
	}
	return out
}

// Decided is the point's decision as releases are compared on it: the
// outcome and where it runs (the channel count alone, every operation's
// range in a group), since a release that moves an operation to other
// channels decides differently even on the same algorithm and protocol.
func (r Result) Decided() string {
	switch {
	case r.Channels.Grouped() && r.Channels.Ranges != "":
		return r.Outcome + " on " + r.Channels.Ranges
	case r.NChannels > 0:
		return r.Outcome + " × " + strconv.Itoa(r.NChannels) + " ch"
	}
	return r.Outcome
}

// SortedLabels returns the distinct machine labels of results in order.
func SortedLabels(rs []Result) []string {
	seen := map[string]int{}
	for _, r := range rs {
		if _, ok := seen[r.Machine.Label]; !ok {
			seen[r.Machine.Label] = r.Index
		}
	}
	out := make([]string, 0, len(seen))
	for l := range seen {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return seen[out[i]] < seen[out[j]] })
	return out
}

// ParseSweep reads a sweep file (YAML or JSON); name is used in errors.
func ParseSweep(name string, data []byte) (Sweep, error) {
	var sw Sweep
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return sw, fmt.Errorf("%s: %v", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sw); err != nil {
		return sw, fmt.Errorf("%s: %v: expected nccl, systems, env, colls, sizes, dtype, redop", name, err)
	}
	return sw, nil
}
