package params

import (
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/nccl"
)

// ParamOutcome says how ncclLoadParam treated a value.
type ParamOutcome int

const (
	ParamUnset   ParamOutcome = iota // unset: the default
	ParamEmpty                       // set but empty: the default, silently
	ParamSet                         // parsed: "%s set by environment to %lld."
	ParamInvalid                     // errno set: "Invalid value %s for %s, using default %lld."
)

// LoadParam is what an NCCL_PARAM accessor returns for a variable: unset or
// empty gives the default; otherwise strtoll base 0 with no end-pointer
// check, so "0x10" is 16, "012" is 10, "4k" is 4 and "yes" is 0; only
// ERANGE (out of int64 range) falls back to the default. It also returns the
// INFO line NCCL prints for it.
//
// Ref: v2.28.9-1 src/misc/param.cc ncclLoadParam (same code at v2.22.3-1,
// v2.28.3-1; v2.30.7-1 adds the NCCL_NO_CACHE policy around it).
func LoadParam(name, value string, set bool, def int64) (int64, ParamOutcome, string) {
	if !set {
		return def, ParamUnset, ""
	}
	if value == "" || value[0] == 0 {
		return def, ParamEmpty, ""
	}
	p := nccl.Strtoll(value, 0)
	if p.Range {
		return def, ParamInvalid, "Invalid value " + cString(value) + " for " + name + ", using default " + strconv.FormatInt(def, 10) + "."
	}
	return p.Value, ParamSet, name + " set by environment to " + strconv.FormatInt(p.Value, 10) + "."
}

// cString is what C sees of a Go string: up to the first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
