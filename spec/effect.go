package spec

import (
	"fmt"
	"strings"
)

// EffectOf says what one variable does to the gates on a system: the gates
// run with the whole environment and again without the variable, and the
// verdicts that differ and the decision's change are described in a line.
// It is what `gatesim env --system` prints per variable.
func EffectOf(rs *Ruleset, sys *System, env Env, name string, op Op) (string, error) {
	without := env.Clone()
	delete(without, name)
	dWith, tWith, err := decideOnce(rs, sys, env, op)
	if err != nil {
		return "", err
	}
	dWithout, tWithout, err := decideOnce(rs, sys, without, op)
	if err != nil {
		return "", err
	}
	var changes []string
	before := map[string]Verdict{}
	for _, v := range tWithout.All() {
		before[string(v.Rule)+"|"+v.Scope] = v
	}
	for _, v := range tWith.All() {
		b, ok := before[string(v.Rule)+"|"+v.Scope]
		switch {
		case !ok:
			changes = append(changes, fmt.Sprintf("%s %s", v.Rule, v.Outcome))
		case b.Outcome != v.Outcome:
			changes = append(changes, fmt.Sprintf("%s %s→%s", v.Rule, b.Outcome, v.Outcome))
		}
	}
	dec := func(d *Decision) string {
		switch {
		case d.Err != nil:
			return d.Err.Result.String()
		case d.Algo != AlgoNone && d.Proto != ProtoNone:
			return d.Algo.String() + "/" + d.Proto.String()
		case d.Algo != AlgoNone:
			return d.Algo.String()
		}
		var c []string
		for _, ap := range d.Candidates {
			c = append(c, ap.String())
		}
		return "{" + strings.Join(c, " ") + "}"
	}
	a, b := dec(dWithout), dec(dWith)
	out := ""
	if a != b {
		out = fmt.Sprintf("%s %s: %s → %s", op.Func, FormatBytes(op.Bytes()), a, b)
	}
	if len(changes) == 0 {
		if out == "" {
			return "no gate changes on this system", nil
		}
		return out, nil
	}
	if len(changes) > 6 {
		changes = append(changes[:6], fmt.Sprintf("and %d more", len(changes)-6))
	}
	if out != "" {
		out += "; "
	}
	return out + strings.Join(changes, ", "), nil
}

func decideOnce(rs *Ruleset, sys *System, env Env, op Op) (*Decision, SelectTrace, error) {
	c, err := Init(rs, sys, env)
	if err != nil {
		return nil, SelectTrace{}, err
	}
	return c.Select(op)
}

// CheckAlgoProto reports NCCL's complaint about an NCCL_ALGO or NCCL_PROTO
// value under a release ("" when NCCL accepts it; 2.22.3 accepts anything).
func CheckAlgoProto(rs *Ruleset, name, value string) string {
	nA := NumAlgos
	if !rs.Consts.HasPAT {
		nA = int(PAT)
	}
	perFunction := !rs.Consts.RingBackup
	if !perFunction {
		return legacyListWarning(name, value, nA)
	}
	_, _, warn := ParseAlgoProto(Env{name: value}, true, nA)
	return warn
}

// legacyListWarning describes what 2.22.3's silent parse does with a value
// it does not fully understand: unknown tokens are ignored, and a value that
// names nothing known disables everything (rescued later by Ring/Tree).
func legacyListWarning(name, value string, nA int) string {
	names := protoNames[:]
	if name == "NCCL_ALGO" {
		names = algoNames[:nA]
	}
	body := strings.TrimPrefix(value, "^")
	var unknown []string
	known := 0
	for _, tok := range strings.Split(body, ",") {
		if tok == "" {
			continue
		}
		ok := false
		for _, n := range names {
			if strings.EqualFold(tok, n) {
				ok = true
			}
		}
		if ok {
			known++
		} else {
			unknown = append(unknown, fmt.Sprintf("%q", tok))
		}
	}
	switch {
	case len(unknown) > 0 && known == 0 && !strings.HasPrefix(value, "^"):
		return fmt.Sprintf("%s=%q: NCCL 2.22.3 silently ignores %s and so disables every %s (a per-function value needs 2.24+)", name, value, strings.Join(unknown, ", "), kind(name))
	case len(unknown) > 0:
		return fmt.Sprintf("%s=%q: NCCL 2.22.3 silently ignores %s", name, value, strings.Join(unknown, ", "))
	case value == "":
		return fmt.Sprintf("%s is set but empty: NCCL 2.22.3 disables every %s", name, kind(name))
	}
	return ""
}

func kind(name string) string {
	if name == "NCCL_ALGO" {
		return "algorithm"
	}
	return "protocol"
}

// EffectAt is EffectOf at several operations: one line when the variable
// does the same at every one, else the operations where it differs, each
// named ("AllReduce 4 KiB: no change; AllReduce 1 GiB: NVLSTree/Simple →
// Tree/Simple").
func EffectAt(rs *Ruleset, sys *System, env Env, name string, ops []Op) (string, error) {
	var effects []string
	same := true
	for _, op := range ops {
		e, err := EffectOf(rs, sys, env, name, op)
		if err != nil {
			return "", err
		}
		effects = append(effects, e)
		same = same && e == effects[0]
	}
	if len(ops) == 0 {
		return "", fmt.Errorf("no operation to judge %s at", name)
	}
	if same {
		return effects[0], nil
	}
	var parts []string
	for i, op := range ops {
		e := effects[i]
		if e == "no gate changes on this system" {
			e = "no change"
		}
		prefix := fmt.Sprintf("%s %s: ", op.Func, FormatBytes(op.Bytes()))
		parts = append(parts, prefix+strings.TrimPrefix(e, prefix))
	}
	return strings.Join(parts, "; "), nil
}

// DescribeOps names the operations a judgement was made at ("AllReduce
// 4 KiB and 1 GiB").
func DescribeOps(ops []Op) string {
	byFunc := map[Func][]string{}
	var order []Func
	for _, op := range ops {
		if _, ok := byFunc[op.Func]; !ok {
			order = append(order, op.Func)
		}
		byFunc[op.Func] = append(byFunc[op.Func], FormatBytes(op.Bytes()))
	}
	var parts []string
	for _, f := range order {
		sizes := byFunc[f]
		s := sizes[len(sizes)-1]
		if len(sizes) > 1 {
			s = strings.Join(sizes[:len(sizes)-1], ", ") + " and " + s
		}
		parts = append(parts, f.String()+" "+s)
	}
	return strings.Join(parts, "; ")
}
