package nccl

import (
	"fmt"
	"math"
	"strings"
)

// EditDistance is the optimal string alignment distance (Levenshtein plus
// adjacent transpositions) between a and b, byte-wise.
func EditDistance(a, b string) int {
	la, lb := len(a), len(b)
	prev2 := make([]int, lb+1)
	prev := make([]int, lb+1)
	cur := make([]int, lb+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[lb]
}

// NearestName returns the candidate closest to name by EditDistance and
// its distance (the first of equals; "" and MaxInt without candidates).
func NearestName(name string, candidates []string) (string, int) {
	best, bestD := "", math.MaxInt
	for _, c := range candidates {
		// the lengths' difference is a lower bound of the distance, so most
		// candidates are dismissed without the quadratic table
		if diff := len(name) - len(c); diff >= bestD || -diff >= bestD {
			continue
		}
		if d := EditDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD
}

// Closest is the valid name a mistyped one most likely meant: the nearest
// (case-insensitively) when the distance is at most a third of its length
// (at least 2), or one that starts with what was typed.
func Closest(s string, valid []string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return "", false
	}
	lower := make([]string, len(valid))
	for i, v := range valid {
		lower[i] = strings.ToLower(v)
	}
	best, d := NearestName(t, lower)
	if best != "" && d <= max(2, len(best)/3) {
		for i := range lower {
			if lower[i] == best {
				return valid[i], true
			}
		}
	}
	for i, v := range lower {
		if strings.HasPrefix(v, t) {
			return valid[i], true
		}
	}
	return "", false
}

// UnknownName is the error for a value outside a fixed list: the list,
// and the closest entry when one is close enough to be a typo.
func UnknownName(kind, s string, valid []string) error {
	if c, ok := Closest(s, valid); ok {
		return fmt.Errorf("unknown %s %q: did you mean %s? expected one of %s", kind, s, c, strings.Join(valid, ", "))
	}
	return fmt.Errorf("unknown %s %q: expected one of %s", kind, s, strings.Join(valid, ", "))
}

// FuncNames are the lower-case names of fs, as the CLI takes them.
func FuncNames(fs []Func) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = strings.ToLower(f.String())
	}
	return out
}

// ParseFuncIn parses a collective and accepts only those of accepted (what
// one command can run); the error lists exactly those.
func ParseFuncIn(s string, accepted []Func) (Func, error) {
	f, err := ParseFunc(s)
	if err != nil {
		return 0, UnknownName("collective", s, FuncNames(accepted))
	}
	for _, a := range accepted {
		if a == f {
			return f, nil
		}
	}
	return 0, fmt.Errorf("collective %q is not accepted here: expected one of %s", s, strings.Join(FuncNames(accepted), ", "))
}

// AllFuncs are every function ParseFunc names: the cost table's five,
// SendRecv and AllToAll.
var AllFuncs = []Func{AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv, AllToAll}

// CostTableFuncs are the cost table's five in the order the CLI lists them.
var CostTableFuncs = []Func{AllReduce, AllGather, ReduceScatter, Broadcast, Reduce}

// DataTypeNames are the canonical names ParseDataType takes, one per type.
func DataTypeNames() []string {
	return []string{"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2"}
}

// RedOpNames are the names ParseRedOp takes.
func RedOpNames() []string { return append([]string(nil), redopShort[:]...) }

// AlgoNames are NCCL's algorithm names, in NCCL_ALGO index order.
func AlgoNames() []string { return append([]string(nil), algoNames[:]...) }

// ProtoNames are NCCL's protocol names, in NCCL_PROTO index order.
func ProtoNames() []string { return append([]string(nil), protoNames[:]...) }

// ParseList reads a comma-separated list of names with parse; "all" or
// nothing is all. An error quotes the whole list.
func ParseList[T any](s string, all []T, parse func(string) (T, error)) ([]T, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") || s == "" {
		return all, nil
	}
	var out []T
	for _, x := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(x))
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}
