package spec

import (
	"errors"
	"fmt"

	"github.com/gatesim/gatesim/spec/topo"
)

// Release is one modelled NCCL release as one value: its identity and every
// block of its delta against the previous release. The release files
// (release_2_xx_y.go) each define one; releaseList orders them, and
// Releases, Load, Timeline and Diff all derive from that list.
//
// The first release is built from nothing: its Rules sets the base rules
// and constants, Topo and Tuning fill empty values and record no change.
type Release struct {
	Version Version
	// Tag is the NVIDIA/nccl tag the delta was read at (v2.28.9-1).
	Tag string
	// Consts is the gate-constant delta (Ruleset.SetConst,
	// SetParamDefault); nil when unchanged.
	Consts func(*Ruleset)
	// Rules is the rule delta (Ruleset.Add, Replace, Remove, Move).
	Rules func(*Ruleset)
	// Topo changes the topology stage's parameters (spec/topo); nil when
	// they are unchanged.
	Topo func(*topo.Params)
	// Tuning changes the tuning model's constants; nil when unchanged.
	Tuning func(*Tuning) ([]TuningChange, error)
	// Unchanged says, for a release whose delta is empty, what its tag
	// changed instead and why no gate, constant or rule follows from it;
	// empty for every release with a delta.
	Unchanged string
}

// releaseList is every modelled release, oldest first. Adding a release is
// one entry here and its delta file.
var releaseList = []Release{
	release2_22_3,
	release2_23_4,
	release2_24_3,
	release2_25_1,
	release2_26_2,
	release2_26_3,
	release2_26_5,
	release2_26_6,
	release2_27_3,
	release2_27_5,
	release2_27_6,
	release2_27_7,
	release2_28_3,
	release2_28_7,
	release2_28_9,
	release2_29_2,
	release2_29_3,
	release2_29_7,
	release2_30_3,
	release2_30_4,
	release2_30_7,
	// -- add new releases here --
}

// Releases lists the modelled releases, oldest first. Each one's ruleset is
// built from the previous one plus its delta.
var Releases = releaseVersions(releaseList)

func releaseVersions(list []Release) []Version {
	out := make([]Version, len(list))
	for i, r := range list {
		out[i] = r.Version
	}
	return out
}

// ReleaseOf returns the release value of a modelled version.
func ReleaseOf(v Version) (Release, bool) {
	for _, r := range releaseList {
		if r.Version == v {
			return r, true
		}
	}
	return Release{}, false
}

// build turns the previous release's ruleset into this one's. Every error a
// block reports is returned together; nothing is discarded.
func (rel Release) build(prev *Ruleset, base bool) (*Ruleset, error) {
	if rel.Tag != rel.Version.Tag() {
		return nil, fmt.Errorf("release %s: tag %q, expected %q", rel.Version, rel.Tag, rel.Version.Tag())
	}
	rs := prev.clone(rel.Version)
	rs.Changes = nil
	rs.errs = nil
	if rel.Consts != nil {
		rel.Consts(rs)
	}
	if base {
		rs.Tuning = &Tuning{}
		if rel.Topo != nil {
			rel.Topo(&rs.TopoParams)
		}
		if rel.Tuning != nil {
			if _, err := rel.Tuning(rs.Tuning); err != nil {
				rs.errs = append(rs.errs, err)
			}
		}
	} else {
		if rel.Topo != nil {
			rs.TopoDelta(rel.Topo, rel.Tag, "topology stage (spec/topo Params)")
		}
		if rel.Tuning != nil {
			rs.TuningDelta(rel.Tuning)
		}
	}
	rs.TopoParams.Release = rel.Version
	if rel.Rules != nil {
		rel.Rules(rs)
	}
	if len(rs.errs) > 0 {
		return nil, fmt.Errorf("release %s delta: %w", rel.Version, errors.Join(rs.errs...))
	}
	return rs, nil
}

// ConstsFor returns the gate constants of a modelled release by applying
// only the Consts blocks of the list: the cheap way for code that asks a
// release one fact (Load also builds every rule and the tuning model).
func ConstsFor(v Version) (Consts, error) {
	rs := &Ruleset{}
	for _, rel := range releaseList {
		rs.Version = rel.Version
		if rel.Consts != nil {
			rel.Consts(rs)
		}
		if len(rs.errs) > 0 {
			return Consts{}, fmt.Errorf("release %s delta: %w", rel.Version, errors.Join(rs.errs...))
		}
		if rel.Version == v {
			return rs.Consts, nil
		}
	}
	return Consts{}, &UnsupportedError{Version: v}
}

// TopoParamsFor returns the topology stage's parameters of a modelled
// release by applying only the Topo blocks of the list; Load's
// Ruleset.TopoParams is the same value.
func TopoParamsFor(v Version) (topo.Params, error) {
	var p topo.Params
	for _, rel := range releaseList {
		if rel.Topo != nil {
			rel.Topo(&p)
		}
		p.Release = rel.Version
		if rel.Version == v {
			return p, nil
		}
	}
	return topo.Params{}, &UnsupportedError{Version: v}
}
