package spec

// The release side of the tuning model (package tuning): the recorder the
// release files' tuning deltas write through, 2.28.3's delta, and the
// model of a release as Load builds it.

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

// tuningApply2_28_3 turns the 2.27.7 model into NCCL 2.28.3's (tag
// v2.28.3-1), the system library of the project's GPU machine: the tuner
// constants with a PAT row (the base latency moves into the table), the
// retuned Blackwell Tree rows, the NVLS efficiency model, constants a v5
// tuner may edit, CollNetChain's arity prune, multi-node NVLS on
// min(nvlsChannels, nChannels), symmetric kernels for the window buffers
// of any group and the copy-engine collectives. The earlier releases' deltas are in their
// release files (release_2_23_4.go …).
func tuningApply2_28_3(t *Tuning) ([]TuningChange, error) {
	d := &tuningDelta{t: t, tag: "v2.28.3-1"}
	const defaults = "ncclTunerConstantsDefaults"
	const model = "ncclTopoTuneModel"

	tuningSet(d, &t.BaseLat[PAT][LL], 8.0, tuningCC, defaults)
	tuningSet(d, &t.BaseLat[PAT][LL128], 8.0, tuningCC, defaults)
	tuningSet(d, &t.BaseLat[PAT][Simple], 8.0, tuningCC, defaults)
	tuningSet(d, &t.PATBaseLat, 0, tuningCC, model)
	tuningSet(d, &t.HwLat[TuningHwNVLink][PAT][Simple], 4.0, tuningCC, defaults)
	tuningSet(d, &t.HwLat[TuningHwPCI][PAT][Simple], 4.0, tuningCC, defaults)
	tuningSet(d, &t.HwLat[TuningHwNet][PAT][Simple], 14, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN1], 55.6, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN2], 31.67, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeLL128Bw[TuningBlackwell][TuningN4], 20.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN1], 70.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN2], 42.8, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxTreeBw[TuningBlackwell][TuningN4], 24.0, tuningCC, defaults)
	// perChMaxNVLSTreeBws (new with the efficiency model)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningVolta][TuningN1], 26.5, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningVolta][TuningN2], 18.5, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningVolta][TuningN4], 10.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningAmpere][TuningN1], 24.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningAmpere][TuningN2], 23.6, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningAmpere][TuningN4], 17.8, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningHopper][TuningN2], 57.7, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningHopper][TuningN4], 45.5, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningBlackwell][TuningN2], 96.0, tuningCC, defaults)
	tuningSet(d, &t.PerChMaxNVLSTreeBw[TuningBlackwell][TuningN4], 43.1, tuningCC, defaults)
	tuningSet(d, &t.NVLSEfficiency[TuningHopper], 0.85, tuningCC, "nvlsEfficiency")
	tuningSet(d, &t.NVLSEfficiency[TuningBlackwell], 0.74, tuningCC, "nvlsEfficiency")

	tuningSet(d, &t.NVLSRatioR22, 0, tuningCC, model)
	tuningSet(d, &t.NVLSBw, TuningNVLSBwEfficiency, tuningCC, model)
	tuningSet(d, &t.TunerConstants, true, "src/init.cc", "initTransportsRank")
	tuningSet(d, &t.PruneCollNetChainArity, true, enqueueCC, "updateCollCostTable")
	tuningSet(d, &t.NVLSMultiNodeMinChannels, true, enqueueCC, "topoGetAlgoInfo")
	tuningSet(d, &t.SymGrouped, true, "src/scheduler/symmetric_sched.cc", "ncclMakeSymmetricTaskList")
	tuningSet(d, &t.CECollectives, true, "src/ce_coll.cc", "ncclCeImplemented")
	return d.changes, tuningJoinErrs(d.errs)
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
