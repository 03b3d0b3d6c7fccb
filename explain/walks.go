package explain

import (
	"cmp"

	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/tuner"
)

// Walks walks op under every release; with group the operation is issued
// as group says (in a group, a CUDA graph, with registered buffers) and
// each walk holds every operation's decision, Decision the first's. A
// release that refuses the request as input (window buffers before
// ncclCommWindowRegister, an fp8 type before 2.24) gets a walk that says
// why (Invalid) while the others are walked, as whatif reports such a
// point; the error is returned only when every release refuses it.
func Walks(vs []spec.Version, sys *spec.System, env spec.Env, op spec.Op, lib *tuner.Library, issue spec.Issue) ([]Walk, error) {
	var runs []Walk
	var first error
	for _, v := range vs {
		e, err := walkIssued(v, sys, env, op, lib, issue)
		if err != nil {
			first = cmp.Or(first, err)
			e = Walk{Release: v.String(), Invalid: err.Error(), version: v, env: env}
		}
		runs = append(runs, e)
	}
	if len(Valid(runs)) == 0 {
		return nil, first
	}
	return runs, nil
}

// walkIssued is one release's walk of Walks.
func walkIssued(v spec.Version, sys *spec.System, env spec.Env, op spec.Op, lib *tuner.Library, issue spec.Issue) (Walk, error) {
	e, err := One(v, sys, env, op, lib)
	if err != nil {
		return Walk{}, err
	}
	if !e.Comm().IssuedAlone(op, issue) {
		g, err := e.Comm().SelectIssue(op, issue)
		if err != nil {
			return Walk{}, err
		}
		e.Group, e.Decision, e.Trace = g, g.Ops[0], g.Traces[0]
	}
	return e, nil
}

// Valid is the walks of the releases that took the request (Invalid "").
func Valid(runs []Walk) []Walk {
	var out []Walk
	for _, r := range runs {
		if r.Invalid == "" {
			out = append(out, r)
		}
	}
	return out
}

// Refused is the first release's refusal among the walks, as plan words
// it (a plan.RefusedError): the communicator NCCL does not create, or the
// operation it returns an error for; nil when every release runs it.
func Refused(runs []Walk) error {
	for _, r := range Valid(runs) {
		switch {
		case r.Comm().Err != nil:
			return plan.Refused(r.Version(), r.Comm())
		case r.Decision.Err != nil:
			return plan.RefusedOp(r.Release, r.Decision)
		}
	}
	return nil
}
