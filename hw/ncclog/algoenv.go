package ncclog

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// AlgoRequest is what an NCCL_ALGO value asks for, read the way the release
// that printed the log reads it. It is a light reading for diagnosis (which
// algorithms the user named, which a function left enabled); spec owns the
// full grammar and its errors (G-SEL-PARSE-1/2).
type AlgoRequest struct {
	// Enabled[f][a] is the user's enable flag before support disables.
	Enabled [spec.NumFuncs][spec.NumAlgos]bool
	// Named[a] is true when a positive list names the algorithm.
	Named [spec.NumAlgos]bool
	// Rule is G-SEL-PARSE-1 (legacy, before 2.24.3) or G-SEL-PARSE-2.
	Rule spec.RuleID
}

// perFunctionGrammar is the release that introduced "func:list;..."
// (v2.24.3-1 src/graph/tuning.cc parseList).
var perFunctionGrammar = spec.MakeVersion(2, 24, 3)

// algoByName matches NCCL's ncclAlgoStr names case-insensitively; 2.6-2.13
// called CollNetDirect "CollNet".
func algoByName(s string) ([]spec.Algo, bool) {
	for _, a := range spec.Algos {
		if strings.EqualFold(s, a.String()) {
			return []spec.Algo{a}, true
		}
	}
	if strings.EqualFold(s, "CollNet") {
		return []spec.Algo{spec.CollNetDirect, spec.CollNetChain}, true
	}
	return nil, false
}

// ReadAlgoEnv reads NCCL_ALGO for a release (0: the newest grammar).
// The legacy grammar never fails (unknown names are ignored, as NCCL
// ignores them); the per-function grammar returns the error NCCL's WARN
// would name.
func ReadAlgoEnv(value string, rel spec.Version) (AlgoRequest, error) {
	var r AlgoRequest
	if rel != 0 && rel < perFunctionGrammar {
		r.Rule = "G-SEL-PARSE-1"
		neg := strings.HasPrefix(value, "^")
		v := strings.TrimPrefix(value, "^")
		var row [spec.NumAlgos]bool
		for a := range row {
			row[a] = neg
		}
		for _, tok := range strings.Split(v, ",") {
			if as, ok := algoByName(tok); ok {
				for _, a := range as {
					row[a] = !neg
					if !neg {
						r.Named[a] = true
					}
				}
			}
		}
		for f := range r.Enabled {
			r.Enabled[f] = row
		}
		return r, nil
	}
	r.Rule = "G-SEL-PARSE-2"
	for f := range r.Enabled {
		for a := range r.Enabled[f] {
			r.Enabled[f][a] = true
		}
	}
	first := true
	for _, entry := range strings.Split(value, ";") {
		if entry == "" {
			continue
		}
		funcs := []spec.Func{}
		list := entry
		if i := strings.IndexByte(entry, ':'); i >= 0 {
			fn := entry[:i]
			list = entry[i+1:]
			if j := strings.IndexByte(list, ':'); j >= 0 {
				list = list[:j] // a third field is ignored
			}
			f, err := spec.ParseFunc(fn)
			if err != nil || f >= spec.NumFuncs || strings.HasPrefix(strings.ToLower(fn), "nccl") {
				return r, fmt.Errorf("Unrecognized prefix token %q when parsing %q", fn, value)
			}
			funcs = append(funcs, f)
		} else {
			if !first {
				return r, fmt.Errorf("All entries except the first must have a prefix: %q", value)
			}
			funcs = append(funcs, spec.Funcs[:]...)
		}
		first = false
		neg := strings.HasPrefix(list, "^")
		list = strings.TrimPrefix(list, "^")
		for _, f := range funcs {
			for a := range r.Enabled[f] {
				r.Enabled[f][a] = neg
			}
		}
		for _, tok := range strings.Split(list, ",") {
			if tok == "" {
				continue
			}
			as, ok := algoByName(tok)
			if !ok || len(as) != 1 {
				return r, fmt.Errorf("Unrecognized element token %q when parsing %q", tok, value)
			}
			for _, f := range funcs {
				r.Enabled[f][as[0]] = !neg
			}
			if !neg {
				r.Named[as[0]] = true
			}
		}
	}
	return r, nil
}
