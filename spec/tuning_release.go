package spec

// The release side of the tuning model (package tuning): the recorder the
// release files' tuning deltas write through. A release's model is
// Load(v).Tuning, its changes the "tuning." entries of Load(v).Changes.

import (
	"errors"

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
	t       *tuning.Consts
	tag     string
	changes []tuning.Change
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

func tuningJoinErrs(errs []error) error {
	return errors.Join(errs...)
}
