package spec

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Summary is a decision in a few lines: what NCCL runs, the gate that
// settled it, how the network is reached, how far each offload got and
// where it stopped, and what would change the outcome. It reads only the
// Decision and its Trace.
type Summary struct {
	Decision  *Decision
	DecidedBy Verdict // the deciding rule's verdict (zero when none)
	Network   string
	// Offloads are CollNet, NVLS, NVLSTree and PAT: the level each reached
	// and the gate that stopped it.
	Offloads []CapabilityState
	// Changes are what would change the outcome: the runner-up of the cost
	// table and the NCCL_* variables the deciding and stopping gates read.
	Changes []string
	// Plugins are the verdicts of the loaders of plugins that decide
	// nothing gatesim models (profiler, GIN, RMA), when one accepted or
	// refused a library or a variable asked for a plugin.
	Plugins []PluginState
}

// PluginState is one such loader's verdict under the plugin's name.
type PluginState struct {
	Name    string
	Verdict Verdict
}

// reportedPlugins are the loaders a summary reports, by the plugin's name.
var reportedPlugins = map[RuleID]string{"G-PROF-1": "profiler plugin", "G-GIN-1": "GIN plugin", "G-RMA-1": "RMA plugin"}

// pluginReported says a loader's verdict is worth a summary line: it
// accepted, refused or disabled a library, or the user's variable asked
// for a plugin (a loader that found nothing to load is not news).
func pluginReported(v Verdict) bool {
	if v.Outcome == Pass || v.Outcome == Fail {
		return true
	}
	for _, f := range v.Facts {
		if f.Name == "disabled" || strings.HasPrefix(f.Name, "NCCL_") && f.Value != "(unset)" {
			return true
		}
	}
	return false
}

// CapabilityState is one capability's level and, when a gate stopped it,
// that gate's verdict. Below selected the level is the communicator's (what
// init set up), which says nothing of one operation: Op then says what the
// operation's cost table made of the capability's algorithms, so that the
// summary never calls an offload a candidate the table prunes.
type CapabilityState struct {
	Cap     Capability
	Level   Level
	Stopped *Verdict
	// By is the verdict that raised the capability to Level (nil when the
	// level was raised without one naming the capability).
	By *Verdict
	// Op is the operation's own verdict; nil when the capability was
	// selected or stopped, or the operation has no cost table.
	Op *CapabilityOp
}

// CapabilityOp is what one operation's cost table made of a capability's
// algorithms: the cheapest usable cell, or, when none is usable, the cell
// that says why of each (its Simple cell, as the table's notes give it).
type CapabilityOp struct {
	Usable bool
	Best   CellCost
	Pruned []CellCost
}

// capNames are the names a summary prints for each capability.
var capNames = map[Capability]string{CapNetPlugin: "net plugin", CapIB: "IB", CapGDR: "GDR", CapCollNet: "CollNet",
	CapNVLS: "NVLS", CapNVLSTree: "NVLSTree", CapPAT: "PAT", CapP2P: "P2P", CapSHM: "SHM", CapTuner: "tuner plugin"}

// Name is the capability as a summary prints it ("NVLS", "CollNet").
func (c Capability) Name() string {
	if n, ok := capNames[c]; ok {
		return n
	}
	return string(c)
}

// offloadOf is the offload whose own algorithm a is (CapNVLSTree for
// NVLSTree, which also runs on NVLS), or "" for Tree and Ring.
func offloadOf(a Algo) Capability {
	switch a {
	case CollNetDirect, CollNetChain:
		return CapCollNet
	case NVLS:
		return CapNVLS
	case NVLSTree:
		return CapNVLSTree
	case PAT:
		return CapPAT
	}
	return ""
}

// String says what happened, at the level it happened: "NVLS selected",
// "NVLS stopped at G-NVLS-GRAPH-1: no NVSwitch (level discovered)", "NVLS:
// communicator candidate (G-NVLS-SETUP-1); this operation: pruned by
// G-SEL-PRUNE-1 (P5: ...)".
func (s CapabilityState) String() string {
	switch {
	case s.Stopped != nil:
		return fmt.Sprintf("%s stopped at %s: %s (level %s)", s.Cap.Name(), s.Stopped.Rule, strings.TrimSpace(s.Stopped.WhyText()), s.Level)
	case s.Level >= LevelSelected:
		return fmt.Sprintf("%s %s", s.Cap.Name(), s.Level)
	}
	out := fmt.Sprintf("%s: communicator %s", s.Cap.Name(), s.Level)
	if s.By != nil {
		out += " (" + string(s.By.Rule) + ")"
	}
	if s.Op == nil {
		return out
	}
	out += "; this operation: "
	if s.Op.Usable {
		b := s.Op.Best
		out += fmt.Sprintf("candidate, not chosen (best %s/%s", b.Algo, b.Proto)
		if b.TimeUs >= 0 {
			out += fmt.Sprintf(" %.2f µs", b.TimeUs)
		}
		return out + ")"
	}
	// algorithms pruned for the same reason share it
	var why []string
	for i := 0; i < len(s.Op.Pruned); {
		c, algos := s.Op.Pruned[i], []string{s.Op.Pruned[i].Algo.String()}
		for i++; i < len(s.Op.Pruned) && s.Op.Pruned[i].Rule == c.Rule && s.Op.Pruned[i].Why == c.Why; i++ {
			algos = append(algos, s.Op.Pruned[i].Algo.String())
		}
		w := "pruned"
		if c.Rule != "" {
			w += " by " + string(c.Rule)
		}
		if c.Why != "" {
			w += " (" + c.Why + ")"
		}
		if len(algos) < len(s.Op.Pruned) {
			w = strings.Join(algos, ", ") + " " + w
		}
		why = append(why, w)
	}
	return out + strings.Join(why, "; ")
}

// capabilityOp reads the cost table for c's algorithms; nil when the table
// has no row of them.
func capabilityOp(c Capability, costs []CellCost) *CapabilityOp {
	var op CapabilityOp
	seen := false
	for _, cell := range costs {
		if offloadOf(cell.Algo) != c {
			continue
		}
		seen = true
		if cell.Usable && (!op.Usable || cell.TimeUs < op.Best.TimeUs) {
			op.Usable, op.Best = true, cell
		}
	}
	if !seen {
		return nil
	}
	if op.Usable {
		return &op
	}
	// another protocol's cell when the table has no Simple one
	at := map[Algo]int{}
	for _, cell := range costs {
		if offloadOf(cell.Algo) != c {
			continue
		}
		if i, ok := at[cell.Algo]; !ok {
			at[cell.Algo] = len(op.Pruned)
			op.Pruned = append(op.Pruned, cell)
		} else if cell.Proto == Simple {
			op.Pruned[i] = cell
		}
	}
	return &op
}

// ncclVar finds the NCCL_* names in a text.
var ncclVar = regexp.MustCompile(`NCCL_[A-Z0-9_]+`)

// Summarize builds the Summary of one decision; env is the request's
// environment (for the variables an error message names).
func Summarize(d *Decision, t Trace, env Env) Summary {
	s := Summary{Decision: d, Network: d.NetVia}
	if s.Network == "" {
		s.Network = d.Net
	}
	if d.DecidedBy != "" {
		for i := len(t) - 1; i >= 0; i-- {
			if t[i].Rule == d.DecidedBy {
				s.DecidedBy = t[i]
				break
			}
		}
	}
	seen := map[string]bool{}
	// a variable the gate read is named when the gate is the environment's
	// own or its reason names the variable: reading it is not enough (PAT's
	// gate reads NCCL_PAT_ENABLE and stops on the GPUs per node); a config
	// field the gate cites ("config collnetEnable=0") is changed through
	// the variable that overrides it, named with the field as its value
	addVars := func(v Verdict, what string) {
		for _, f := range v.Facts {
			name, val := f.Name, f.Value
			if env, ok := configVar(f.Name); ok {
				name, val = env, f.String()
			} else if !strings.HasPrefix(f.Name, "NCCL_") {
				continue
			}
			if seen[name] {
				continue
			}
			if v.Layer != LayerEnv && !strings.Contains(v.WhyText(), f.Name) && !strings.Contains(strings.Join(v.Log, " "), f.Name) {
				continue
			}
			seen[name] = true
			if val == "(unset)" || val == "" {
				val = "unset"
			}
			s.Changes = append(s.Changes, fmt.Sprintf("%s (now %s): %s at %s", name, val, what, v.Rule))
		}
	}
	for _, c := range []Capability{CapCollNet, CapNVLS, CapNVLSTree, CapPAT} {
		st := CapabilityState{Cap: c, Level: d.Evidence[c]}
		if v, ok := t.Stopper(c); ok {
			st.Stopped = &v
			addVars(v, "stops "+c.Name())
		} else if st.Level == LevelNone {
			continue // nothing asked for it and no gate looked at it (PAT before 2.23)
		} else if st.Level < LevelSelected {
			for _, v := range t {
				if v.Cap == c && v.Outcome == Pass && v.Level == st.Level {
					st.By = &v
					break
				}
			}
			st.Op = capabilityOp(c, d.CostTable())
		}
		s.Offloads = append(s.Offloads, st)
	}
	if d.Err != nil && s.DecidedBy.Rule != "" {
		addVars(s.DecidedBy, "makes NCCL return "+d.Err.Result.String())
		for _, name := range ncclVar.FindAllString(d.Err.Message, -1) {
			if val, ok := env.Lookup(name); ok && !seen[name] {
				seen[name] = true
				s.Changes = append(s.Changes, fmt.Sprintf("%s (now %s): makes NCCL return %s at %s", name, val, d.Err.Result, s.DecidedBy.Rule))
			}
		}
	}
	for _, v := range t {
		if name, ok := reportedPlugins[v.Rule]; ok && v.Scope == "" && pluginReported(v) {
			s.Plugins = append(s.Plugins, PluginState{Name: name, Verdict: v})
		}
	}
	if ru, ok := d.RunnerUp(); ok {
		s.Changes = append([]string{fmt.Sprintf("runner-up %s/%s at %.1f µs (NCCL_ALGO=%s NCCL_PROTO=%s forces it)",
			ru.Algo, ru.Proto, ru.TimeUs, ru.Algo, ru.Proto)}, s.Changes...)
	}
	return s
}

// RunnerUp is the cheapest usable cell other than the choice.
func (d *Decision) RunnerUp() (CellCost, bool) {
	var cells []CellCost
	for _, c := range d.CostTable() {
		if c.Usable && !(c.Algo == d.Algo && c.Proto == d.Proto) {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 || d.Err != nil {
		return CellCost{}, false
	}
	sort.SliceStable(cells, func(i, j int) bool { return cells[i].TimeUs < cells[j].TimeUs })
	return cells[0], true
}

// netVia says how a communicator reaches other nodes: the transport and,
// for an external plugin, which plugin ("IB via the SHARP plugin").
func netVia(name string, lib *Library) string {
	switch {
	case lib == nil && name == "IB":
		return "IB (NCCL's internal verbs transport)"
	case lib == nil && name == "Socket":
		return "Socket (NCCL's internal TCP transport)"
	case lib == nil:
		return name
	}
	plugin := "the plugin " + path.Base(lib.Path)
	if lib.CollNet != nil && strings.Contains(strings.ToUpper(lib.CollNet.Name), "SHARP") {
		plugin = "the SHARP plugin"
	}
	if lib.Net != nil && lib.Net.IBBased {
		return fmt.Sprintf("IB via %s (%s)", plugin, name)
	}
	return fmt.Sprintf("%s via %s", name, plugin)
}
