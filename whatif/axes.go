package whatif

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// Axes are a sweep's axes as gatesim whatif's flags give them: lists comma
// separated, sizes FROM:TO[:xFACTOR] (spec.SizeRange) or a list, environments NAME=VALUE
// for every point and named sets NAME:A=1,B=2.
type Axes struct {
	NCCL, Systems                       []string
	Nodes, GPUs, NICs, NICGbps, NVLinks string
	// SHARP is off, on or both.
	SHARP        string
	Env, EnvSets []string
	Colls, Sizes string
	DType, RedOp string
	// Config is the communicator config, name=value items (spec.ParseConfig).
	Config string
	// Procs is --procs: per-gpu, per-node or init-all ("" keeps the file's).
	Procs string
	// FromFile says the sweep came from a file, whose collectives the
	// default --coll does not replace.
	FromFile bool
}

// Apply adds the axes to sw (a sweep file's, or empty) and fills the
// defaults: release 2.28.9, sizes 4KiB to 16GiB by 4.
func (a Axes) Apply(sw *Sweep) error {
	if a.Config != "" {
		c, err := spec.ParseConfig(a.Config)
		if err != nil {
			return fmt.Errorf("--config: %v", err)
		}
		sw.Config = c
	}
	sw.NCCL = append(sw.NCCL, a.NCCL...)
	if a.Procs != "" {
		sw.Procs = a.Procs
	}
	if len(sw.NCCL) == 0 {
		sw.NCCL = []string{spec.DefaultRelease.String()}
	}
	var sharps []bool
	switch a.SHARP {
	case "off":
		sharps = []bool{false}
	case "on":
		sharps = []bool{true}
	case "both":
		sharps = []bool{false, true}
	default:
		return fmt.Errorf("--sharp %q: expected off, on or both", a.SHARP)
	}
	lists := map[string]*[]int{}
	var nodes, gpus, nics, gbps, nvl []int
	for name, p := range map[string]struct {
		s   string
		dst *[]int
	}{"nodes": {a.Nodes, &nodes}, "gpus": {a.GPUs, &gpus}, "nics": {a.NICs, &nics}, "nic-gbps": {a.NICGbps, &gbps}, "nvlinks": {a.NVLinks, &nvl}} {
		l, err := intList(name, p.s)
		if err != nil {
			return err
		}
		*p.dst = l
		lists[name] = p.dst
	}
	for _, s := range a.Systems {
		sw.Systems = append(sw.Systems, SystemAxis{Preset: s, Nodes: nodes, GPUs: gpus, SHARP: sharps, NICs: nics, NICGbps: gbps, NVLinks: nvl})
	}
	common, err := spec.ParseAssignments(a.Env)
	if err != nil {
		return err
	}
	for _, es := range a.EnvSets {
		name, vars, ok := strings.Cut(es, ":")
		if !ok || name == "" {
			return fmt.Errorf("--env-set %q: expected NAME:A=1,B=2", es)
		}
		set := EnvSet{Name: name, Vars: map[string]string{}}
		if vars != "" {
			e, err := spec.ParseAssignments(strings.Split(vars, ","))
			if err != nil {
				return fmt.Errorf("--env-set %s: %v", name, err)
			}
			for k, v := range e {
				set.Vars[k] = v
			}
		}
		sw.Env = append(sw.Env, set)
	}
	if len(sw.Env) == 0 && len(common) > 0 {
		sw.Env = []EnvSet{{Name: "env", Vars: map[string]string{}}}
	}
	for i := range sw.Env {
		if sw.Env[i].Vars == nil {
			sw.Env[i].Vars = map[string]string{}
		}
		for k, v := range common {
			sw.Env[i].Vars[k] = v
		}
	}
	if a.Colls != "" && (!a.FromFile || len(sw.Colls) == 0) {
		sw.Colls = strings.Split(a.Colls, ",")
	}
	if a.Sizes != "" {
		if strings.Contains(a.Sizes, ":") {
			r, err := spec.SplitSizeRange(a.Sizes)
			if err != nil {
				return fmt.Errorf("--sizes %v", err)
			}
			sw.Sizes = SizeAxis{From: r.From, To: r.To, Factor: r.Factor}
		} else {
			sw.Sizes = SizeAxis{List: strings.Split(a.Sizes, ",")}
		}
	}
	if sw.Sizes.From == "" && len(sw.Sizes.List) == 0 {
		sw.Sizes = SizeAxis{From: "4KiB", To: "16GiB", Factor: 4}
	}
	if a.DType != "" {
		sw.DType = a.DType
	}
	if a.RedOp != "" {
		sw.RedOp = a.RedOp
	}
	return nil
}

// intList reads a comma list of non-negative integers (empty: none).
func intList(flag, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("--%s %q: expected a comma list of non-negative integers", flag, s)
		}
		out = append(out, n)
	}
	return out, nil
}
