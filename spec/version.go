package spec

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/nccl"
)

// ParseVersion is nccl.ParseVersion, naming the modelled releases when the
// input is not major.minor.patch (the near ones when it names a series).
func ParseVersion(s string) (Version, error) {
	v, err := nccl.ParseVersion(s)
	var nd *nccl.NotDottedError
	if !errors.As(err, &nd) {
		return v, err
	}
	var near []string
	for _, r := range ReleaseNames() {
		if strings.HasPrefix(r, nd.Stem+".") {
			near = append(near, r)
		}
	}
	if len(near) > 0 {
		return 0, fmt.Errorf("bad NCCL version %q: expected major.minor.patch; the modelled %s releases are %s", nd.Input, nd.Stem, strings.Join(near, ", "))
	}
	return 0, fmt.Errorf("bad NCCL version %q: expected major.minor.patch such as 2.28.9 (modelled: %s)", nd.Input, strings.Join(ReleaseNames(), ", "))
}

// Supported reports whether v has a ruleset.
func Supported(v Version) bool {
	for _, r := range Releases {
		if r == v {
			return true
		}
	}
	return false
}

// UnsupportedError is returned for a release that has no ruleset.
type UnsupportedError struct{ Version Version }

func (e *UnsupportedError) Error() string {
	names := make([]string, len(Releases))
	for i, r := range Releases {
		names[i] = r.String()
	}
	return fmt.Sprintf("NCCL %s is not modelled: supported releases are %s", e.Version, strings.Join(names, ", "))
}

// Nearest returns the newest modelled release that is not newer than v, for
// mapping a library's ncclGetVersion to a ruleset; ok is false when v is
// older than every modelled release.
func Nearest(v Version) (r Version, ok bool) {
	for _, x := range Releases {
		if x <= v {
			r, ok = x, true
		}
	}
	return r, ok
}

// ReleaseNames are the modelled releases, oldest first.
func ReleaseNames() []string {
	out := make([]string, len(Releases))
	for i, r := range Releases {
		out[i] = r.String()
	}
	return out
}

// ValueNames are the values a command-line value of this kind takes, for
// completion and suggestions: system presets, releases, collectives (coll,
// colls), algorithms, protocols, datatypes (dtype) and reductions (redop);
// nil for any other kind.
func ValueNames(kind string) []string {
	switch kind {
	case "system":
		return PresetNames()
	case "nccl":
		return ReleaseNames()
	case "coll", "colls":
		return FuncNames(SelectFuncs)
	case "algo":
		return AlgoNames()
	case "proto":
		return ProtoNames()
	case "dtype":
		return DataTypeNames()
	case "redop":
		return RedOpNames()
	}
	return nil
}
