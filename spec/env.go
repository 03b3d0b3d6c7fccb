package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Env is a set of NCCL_* assignments as a job script writes them. A variable
// that is present with an empty value is "set but empty", which several
// releases treat differently from unset.
type Env map[string]string

// Lookup returns the value and whether the variable is set.
func (e Env) Lookup(name string) (string, bool) {
	v, ok := e[name]
	return v, ok
}

// Get returns the value or "".
func (e Env) Get(name string) string { return e[name] }

// Names returns the variable names in sorted order.
func (e Env) Names() []string {
	out := make([]string, 0, len(e))
	for k := range e {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Clone copies the environment.
func (e Env) Clone() Env {
	out := make(Env, len(e))
	for k, v := range e {
		out[k] = v
	}
	return out
}

// With returns a copy with one more assignment.
func (e Env) With(name, value string) Env {
	out := e.Clone()
	out[name] = value
	return out
}

// String prints the assignments in sorted order, space separated.
func (e Env) String() string {
	var b strings.Builder
	for i, k := range e.Names() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + e[k])
	}
	return b.String()
}

// Line is String for a report: "(none)" for no assignment.
func (e Env) Line() string {
	if len(e) == 0 {
		return "(none)"
	}
	return e.String()
}

// ParseAssignments reads "NAME=VALUE" strings (as given to --env). A value
// may be empty ("NCCL_ALGO="); the name must be a valid shell identifier.
func ParseAssignments(list []string) (Env, error) {
	e := Env{}
	if len(list) > MaxEnvVars {
		return nil, fmt.Errorf("%d assignments: expected at most %d (gatesim's limit)", len(list), MaxEnvVars)
	}
	for _, a := range list {
		i := strings.IndexByte(a, '=')
		if i <= 0 {
			return nil, fmt.Errorf("bad environment assignment %.80q: expected NAME=VALUE", a)
		}
		name := a[:i]
		if !validEnvName(name) || len(name) > MaxEnvName {
			return nil, fmt.Errorf("bad environment variable name %.80q: expected up to %d letters, digits and _", name, MaxEnvName)
		}
		if len(a)-i-1 > MaxValueBytes {
			return nil, fmt.Errorf("%s: a value of %d bytes: expected at most %d (gatesim's limit)", name, len(a)-i-1, MaxValueBytes)
		}
		e[name] = a[i+1:]
	}
	return e, nil
}

func validEnvName(s string) bool {
	for i, c := range s {
		switch {
		case c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'):
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}
