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

// ProtoRequest is the same reading of NCCL_PROTO.
type ProtoRequest struct {
	Enabled [spec.NumFuncs][spec.NumProtos]bool
	Named   [spec.NumProtos]bool
	Rule    spec.RuleID
}

// algoByName matches NCCL's ncclAlgoStr names case-insensitively; 2.6-2.13
// called CollNetDirect "CollNet".
func algoByName(s string) ([]int, bool) {
	for _, a := range spec.Algos {
		if strings.EqualFold(s, a.String()) {
			return []int{int(a)}, true
		}
	}
	if strings.EqualFold(s, "CollNet") {
		return []int{int(spec.CollNetDirect), int(spec.CollNetChain)}, true
	}
	return nil, false
}

func protoByName(s string) ([]int, bool) {
	for _, p := range spec.Protos {
		if strings.EqualFold(s, p.String()) {
			return []int{int(p)}, true
		}
	}
	return nil, false
}

// ReadAlgoEnv reads NCCL_ALGO for a release (0: the newest grammar).
// The legacy grammar never fails (unknown names are ignored, as NCCL
// ignores them); the per-function grammar returns the error NCCL's WARN
// would name.
func ReadAlgoEnv(value string, rel spec.Version) (AlgoRequest, error) {
	var r AlgoRequest
	en, named, rule, err := readList(value, rel, spec.NumAlgos, algoByName)
	for f := range en {
		copy(r.Enabled[f][:], en[f])
	}
	copy(r.Named[:], named)
	r.Rule = rule
	return r, err
}

// ReadProtoEnv reads NCCL_PROTO like ReadAlgoEnv.
func ReadProtoEnv(value string, rel spec.Version) (ProtoRequest, error) {
	var r ProtoRequest
	en, named, rule, err := readList(value, rel, spec.NumProtos, protoByName)
	for f := range en {
		copy(r.Enabled[f][:], en[f])
	}
	copy(r.Named[:], named)
	r.Rule = rule
	return r, err
}

// readList is NCCL's parseList in its two grammars (v2.22.3-1 and
// v2.28.9-1 src/graph/tuning.cc parseList), for n names.
func readList(value string, rel spec.Version, n int, byName func(string) ([]int, bool)) ([][]bool, []bool, spec.RuleID, error) {
	en := make([][]bool, spec.NumFuncs)
	for f := range en {
		en[f] = make([]bool, n)
	}
	named := make([]bool, n)
	// An unknown release reads a value without ':' or ';' the legacy way,
	// which accepts everything the per-function grammar accepts and more.
	if perFunctionGrammar.before(rel) || (rel == 0 && !strings.ContainsAny(value, ":;")) {
		neg := strings.HasPrefix(value, "^")
		v := strings.TrimPrefix(value, "^")
		row := make([]bool, n)
		for i := range row {
			row[i] = neg
		}
		for _, tok := range strings.Split(v, ",") {
			if is, ok := byName(tok); ok {
				for _, i := range is {
					row[i] = !neg
					if !neg {
						named[i] = true
					}
				}
			}
		}
		for f := range en {
			copy(en[f], row)
		}
		return en, named, "G-SEL-PARSE-1", nil
	}
	for f := range en {
		for i := range en[f] {
			en[f][i] = true
		}
	}
	first := true
	for _, entry := range strings.Split(value, ";") {
		if entry == "" {
			continue
		}
		var funcs []spec.Func
		list := entry
		if i := strings.IndexByte(entry, ':'); i >= 0 {
			fn := entry[:i]
			list = entry[i+1:]
			if j := strings.IndexByte(list, ':'); j >= 0 {
				list = list[:j] // a third field is ignored
			}
			f, err := spec.ParseFunc(fn)
			if err != nil || f >= spec.NumFuncs || strings.HasPrefix(strings.ToLower(fn), "nccl") {
				return en, named, "G-SEL-PARSE-2", fmt.Errorf("Unrecognized prefix token %q when parsing %q", fn, value)
			}
			funcs = append(funcs, f)
		} else {
			if !first {
				return en, named, "G-SEL-PARSE-2", fmt.Errorf("All entries except the first must have a prefix: %q", value)
			}
			funcs = append(funcs, spec.Funcs[:]...)
		}
		first = false
		neg := strings.HasPrefix(list, "^")
		list = strings.TrimPrefix(list, "^")
		for _, f := range funcs {
			for i := range en[f] {
				en[f][i] = neg
			}
		}
		for _, tok := range strings.Split(list, ",") {
			if tok == "" {
				continue
			}
			is, ok := byName(tok)
			if !ok || len(is) != 1 {
				return en, named, "G-SEL-PARSE-2", fmt.Errorf("Unrecognized element token %q when parsing %q", tok, value)
			}
			for _, f := range funcs {
				en[f][is[0]] = !neg
			}
			if !neg {
				named[is[0]] = true
			}
		}
	}
	return en, named, "G-SEL-PARSE-2", nil
}
