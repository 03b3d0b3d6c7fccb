package params

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// SpecGrammar checks NCCL_ALGO/NCCL_PROTO with spec's parser of the
// release (AlgoProtoGrammar).
func SpecGrammar(v spec.Version, name, value string) error {
	rs, err := spec.Load(v)
	if err != nil {
		return nil // a release spec does not model: the linter's light check stands
	}
	w := spec.CheckAlgoProto(rs, name, value)
	switch {
	case w == "":
		return nil
	case rs.Consts.RingBackup: // 2.22.3: a silent misreading, not an error
		return errors.New(w)
	}
	return fmt.Errorf("NCCL WARNs %q and communicator creation fails (ncclInvalidUsage)", w)
}

// SpecEffect runs the gates on a system with and without each variable
// (GateEffect); nil when no system is given.
func SpecEffect(sys *spec.System, ops []spec.Op) GateEffect {
	if sys == nil {
		return nil
	}
	return func(v spec.Version, env spec.Env, name string) (string, error) {
		rs, err := spec.Load(v)
		if err != nil {
			return "", err
		}
		return spec.EffectAt(rs, sys, env, name, ops)
	}
}

// ReleaseList lists the releases whose parameters the registry holds.
func ReleaseList() string {
	var s []string
	for _, v := range Versions {
		s = append(s, v.String())
	}
	return strings.Join(s, ", ")
}

// ArgAssignments are NAME=VALUE arguments (gatesim env's), each exported
// as a command line would.
func ArgAssignments(args []string) ([]Assignment, error) {
	var assigns []Assignment
	for i, arg := range args {
		name, value, ok := strings.Cut(arg, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("argument %d %q: expected NAME=VALUE", i+1, arg)
		}
		if _, err := spec.ParseAssignments([]string{arg}); err != nil {
			return nil, fmt.Errorf("argument %d: %v", i+1, err)
		}
		assigns = append(assigns, Assignment{Name: name, Value: value, Source: SourceArgument, Exported: true})
	}
	return assigns, nil
}
