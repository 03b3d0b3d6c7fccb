package properties

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// CheckDecision lists every way a decision and its trace contradict each
// other or the ruleset they came from; nil when consistent. It is a contract
// any NCCL decision model can be held to.
func CheckDecision(rs *spec.Ruleset, d *spec.Decision, tr spec.Trace) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if d.Release != rs.Version {
		bad("decision for %s from ruleset %s", d.Release, rs.Version)
	}
	// every rule appears, in the ruleset's order (per-node repeats
	// allowed); a rule about what a failed init does next only when init
	// failed
	initFailed := d.Err != nil && strings.HasPrefix(d.Err.Call, "ncclCommInit")
	var want []spec.RuleID
	for _, id := range rs.Init {
		if r, _ := rs.Rule(id); !r.AtFailure() || initFailed {
			want = append(want, id)
		}
	}
	want = append(want, rs.Op...)
	var got []spec.RuleID
	for _, v := range tr {
		if v.Scope != "" && v.Scope != "op" {
			continue
		}
		if n := len(got); n == 0 || got[n-1] != v.Rule {
			got = append(got, v.Rule)
		}
	}
	if !slices.Equal(want, got) {
		bad("trace rules %v, want the ruleset's order %v", got, want)
	}
	if d.Discarded {
		if d.Err != nil || d.Algo != spec.AlgoNone || d.Op.Count != 0 || d.DecidedBy == "" {
			bad("a discarded call has count %d, error %v, %s, gate %q", d.Op.Count, d.Err, d.Algo, d.DecidedBy)
		}
		return errors.Join(errs...)
	}
	if d.Err != nil {
		if d.Algo != spec.AlgoNone || d.Proto != spec.ProtoNone {
			bad("an error decision names %s/%s", d.Algo, d.Proto)
		}
		if d.DecidedBy == "" {
			bad("an error decision names no gate")
		}
	} else {
		if d.Algo == spec.AlgoNone && len(d.Candidates) == 0 {
			bad("no error and no candidate")
		}
		if d.Algo != spec.AlgoNone {
			found := false
			for _, c := range d.Candidates {
				if c.Algo == d.Algo && (d.Proto == spec.ProtoNone || c.Proto == d.Proto) {
					found = true
				}
			}
			if !found {
				bad("decided %s/%s is not among the candidates %v", d.Algo, d.Proto, d.Candidates)
			}
		}
		if d.Algo == spec.AlgoNone && d.Undecided == "" && d.Kernel == "" {
			bad("no algorithm and no reason")
		}
	}
	for c, l := range d.Evidence {
		if l >= spec.LevelExecuted {
			bad("a prediction claims %s was executed", c)
		}
	}
	if d.Algo.IsCollNet() && !d.CollNetSupport {
		if v, ok := tr.Find("G-TUNER-CALL-1"); !ok || v.Outcome != spec.Fail {
			bad("CollNet chosen without communicator support")
		}
	}
	return errors.Join(errs...)
}

// OffloadCandidates are the CollNet and NVLS algorithms a decision leaves
// legal (or chose).
func OffloadCandidates(d *spec.Decision) map[spec.Algo]bool {
	out := map[spec.Algo]bool{}
	for _, c := range d.Candidates {
		if c.Algo.IsCollNet() || c.Algo.IsNVLS() {
			out[c.Algo] = true
		}
	}
	if d.Algo.IsCollNet() || d.Algo.IsNVLS() {
		out[d.Algo] = true
	}
	return out
}
