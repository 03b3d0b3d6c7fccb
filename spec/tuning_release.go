package spec

// The release side of the tuning model (package tuning): the recorder the
// release files' tuning deltas write through, and the model of a release
// as Load builds it.

import (
	"errors"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// tuningBase2_22_3 is the 2.22.3 model every release's tuning starts from
// (release_2_22_3.go).
var tuningBase2_22_3 = tuning.Base2_22_3

// The source files the tuning deltas cite.
const (
	tuningCC  = "src/graph/tuning.cc"
	enqueueCC = "src/enqueue.cc"
	deviceH   = "src/include/device.h"
	// symKernelsH declares the symmetric kernels' argument layout.
	symKernelsH = "src/include/sym_kernels.h"
)

// tuningDelta records the edits of one release delta.
type tuningDelta struct {
	t       *Tuning
	tag     string
	changes []TuningChange
	errs    []error
}

// tuningSet assigns *p = v inside d.t and records the change with the path
// of p and a reference (tuning.Set).
func tuningSet[T comparable](d *tuningDelta, p *T, v T, file, fn string) {
	c, err := tuning.Set(d.t, p, v, Ref{Tag: d.tag, File: file, Func: fn})
	if err != nil {
		d.errs = append(d.errs, err)
		return
	}
	d.changes = append(d.changes, c)
}

// TuningForRelease is the tuning model of a modelled release and the tuning
// changes of every delta up to it, oldest first: a view of the ruleset Load
// builds, so there is one chain.
func TuningForRelease(v Version) (*Tuning, []TuningChange, error) {
	var all []TuningChange
	for _, r := range Releases {
		if r > v {
			break
		}
		rs, err := Load(r)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range rs.Changes {
			if p, ok := strings.CutPrefix(c.Path, "tuning."); ok && c.Kind == ChangeValue {
				all = append(all, TuningChange{Path: p, Old: c.Old, New: c.New, Ref: c.Ref})
			}
		}
		if r == v {
			return rs.Tuning.Clone(), all, nil
		}
	}
	return nil, nil, &UnsupportedError{Version: v}
}

func tuningJoinErrs(errs []error) error {
	return errors.Join(errs...)
}
