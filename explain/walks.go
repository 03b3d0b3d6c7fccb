package explain

import (
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/tuner"
)

// Walks walks op under every release; with group the operation is issued
// as group says (in a group, a CUDA graph, with registered buffers) and
// each walk holds every operation's decision, Decision the first's.
func Walks(vs []spec.Version, sys *spec.System, env spec.Env, op spec.Op, lib *tuner.Library, issue spec.Issue) ([]Walk, error) {
	var runs []Walk
	for _, v := range vs {
		e, err := One(v, sys, env, op, lib)
		if err != nil {
			return nil, err
		}
		if !e.Comm().IssuedAlone(op, issue) {
			g, err := e.Comm().SelectIssue(op, issue)
			if err != nil {
				return nil, err
			}
			e.Group, e.Decision, e.Trace = g, g.Ops[0], g.Traces[0]
		}
		runs = append(runs, e)
	}
	return runs, nil
}

// Refused is the first release's refusal among the walks, as plan words
// it (a plan.RefusedError): the communicator NCCL does not create, or the
// operation it returns an error for; nil when every release runs it.
func Refused(runs []Walk) error {
	for _, r := range runs {
		switch {
		case r.Comm().Err != nil:
			return plan.Refused(r.Version(), r.Comm())
		case r.Decision.Err != nil:
			return plan.RefusedOp(r.Release, r.Decision)
		}
	}
	return nil
}
