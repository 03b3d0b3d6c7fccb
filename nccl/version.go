package nccl

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is an NCCL release, stored as NCCL's own NCCL_VERSION_CODE
// (major*10000 + minor*100 + patch for 2.9 and later), so 2.28.9 is 22809 and
// compares directly with what ncclGetVersion returns.
type Version uint32

// The releases gatesim knows by name. Released entries are never renumbered
// or edited. A release is modelled by its delta file (spec/release_2_xx_y.go,
// whose Release carries the version) and its entry in spec's releaseList; a
// constant here only names it, for code that must.
const (
	// V2_21_5 … V2_18_1 are the releases before the reference release,
	// each a backward delta from the release after it (docs/releases.md).
	V2_18_1 Version = 21801
	V2_18_3 Version = 21803
	V2_18_5 Version = 21805
	V2_18_6 Version = 21806
	V2_19_1 Version = 21901
	V2_19_3 Version = 21903
	V2_19_4 Version = 21904
	V2_20_3 Version = 22003
	V2_20_5 Version = 22005
	V2_21_5 Version = 22105
	// V2_22_3 is the reference release of the design material
	// (tag v2.22.3-1, commit 178b6b7).
	V2_22_3 Version = 22203
	// V2_23_4 … V2_27_7 lie between the reference release and the system
	// library, each a delta read from its tag (docs/releases.md).
	V2_23_4 Version = 22304
	V2_24_3 Version = 22403
	V2_25_1 Version = 22501
	V2_26_2 Version = 22602
	V2_26_3 Version = 22603
	V2_26_5 Version = 22605
	V2_26_6 Version = 22606
	V2_27_3 Version = 22703
	V2_27_5 Version = 22705
	V2_27_6 Version = 22706
	V2_27_7 Version = 22707
	// V2_28_3 is the system libnccl.so.2 on the project's GPU machine.
	V2_28_3 Version = 22803
	// V2_28_7 first tries NVLS on two GPUs (tag v2.28.7-1).
	V2_28_7 Version = 22807
	// V2_28_9 is the library in PyTorch's wheel on the project's GPU machine.
	V2_28_9 Version = 22809
	// V2_29_2 .. V2_30_7 are the releases after 2.28.9 (tags v2.29.2-1 ..
	// v2.30.7-1).
	V2_29_2 Version = 22902
	V2_29_3 Version = 22903
	V2_29_7 Version = 22907
	V2_30_3 Version = 23003
	V2_30_4 Version = 23004
	V2_30_7 Version = 23007
	// -- add new releases here --
)

// Major, Minor and Patch split the version code.
func (v Version) Major() int { return int(v) / 10000 }
func (v Version) Minor() int { return int(v) / 100 % 100 }
func (v Version) Patch() int { return int(v) % 100 }

// Within reports whether v lies in the window [from, until] of releases,
// either end 0 for open: the one place a window of releases (a log form's,
// a table's first release) is tested.
func (v Version) Within(from, until Version) bool {
	return (from == 0 || v >= from) && (until == 0 || v <= until)
}

// Code is NCCL_VERSION_CODE.
func (v Version) Code() int { return int(v) }

// String prints 2.28.9.
func (v Version) String() string {
	return fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch())
}

// Tag is the NVIDIA/nccl git tag of the release, v2.28.9-1.
func (v Version) Tag() string { return "v" + v.String() + "-1" }

// MakeVersion builds a version code from its parts.
func MakeVersion(major, minor, patch int) Version {
	return Version(major*10000 + minor*100 + patch)
}

// ParseVersion accepts "2.28.9", "v2.28.9-1", "2.28.9-1", "2.28.9+cuda13.0"
// and a bare version code "22809". It does not check that the release is
// modelled (spec.Load does that; spec.ParseVersion adds the modelled
// releases to the error).
func ParseVersion(s string) (Version, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty NCCL version: expected a release such as 2.28.9 or v2.28.9-1")
	}
	if n, err := strconv.Atoi(s); err == nil {
		// only NCCL 2.x is modelled, as in the dotted form, so that every
		// code prints and parses back to itself
		if n < 20000 || n > 29999 {
			return 0, fmt.Errorf("NCCL version code %q out of range: expected a code of NCCL 2 such as 22809 (20000-29999)", orig)
		}
		return Version(n), nil
	}
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexByte(s, '+'); i >= 0 { // 2.28.9+cuda13.0, as NCCL prints it
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 { // git tag suffix -1
		if _, err := strconv.Atoi(s[i+1:]); err != nil {
			return 0, fmt.Errorf("bad NCCL version %q: expected a tag suffix such as -1", orig)
		}
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return 0, &NotDottedError{Input: orig, Stem: s}
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || x > 99 || (i == 0 && x == 0) {
			return 0, fmt.Errorf("bad NCCL version %q: %q: expected a number 0-99", orig, p)
		}
		n[i] = x
	}
	if n[0] != 2 {
		return 0, fmt.Errorf("bad NCCL version %q: only NCCL 2.x is modelled", orig)
	}
	return MakeVersion(n[0], n[1], n[2]), nil
}

// NotDottedError is ParseVersion's error for a version that is not
// major.minor.patch ("2.28", "2.28.9.1"); Stem is what was left after the
// "v", "-1" and "+cuda" parts were dropped, for naming near releases.
type NotDottedError struct{ Input, Stem string }

func (e *NotDottedError) Error() string {
	return fmt.Sprintf("bad NCCL version %q: expected major.minor.patch such as 2.28.9", e.Input)
}
