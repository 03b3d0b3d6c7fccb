package spec

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Release is one modelled NCCL release as one value: its identity and every
// block of its delta against the previous release. The release files
// (release_2_xx_y.go) each define one; releaseList orders them, and
// Releases, Load, Timeline and Diff all derive from that list.
//
// The anchor release (Anchor set, 2.22.3, the reference release of the
// design material) is built from nothing: its Rules sets the base rules and
// constants, Topo and Tuning fill empty values and record no change. Every
// release after it is a delta from the one before. Every release before it
// is a backward delta: its blocks turn its successor into it (what the
// older tag had instead), and the changes it records are turned round into
// its successor's changelog, so Diff, Timeline and the boundaries read the
// whole list oldest first whichever way a delta was written.
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
	Tuning func(*tuning.Consts) ([]tuning.Change, error)
	// Unchanged says, for a release whose changelog against the release
	// before it is empty, what its tag changed instead and why no gate,
	// constant or rule follows from it; empty for every release with a
	// change. (A backward delta may have blocks and still an empty
	// changelog: 2.19.4 against 2.19.3.)
	Unchanged string
	// Anchor marks the one release built from nothing; the releases
	// before it in releaseList are backward deltas.
	Anchor bool
}

// releaseList is every modelled release, oldest first. Adding a release is
// one entry here and its delta file.
var releaseList = []Release{
	// -- add older releases here (backward deltas) --
	release2_18_1,
	release2_18_3,
	release2_18_5,
	release2_18_6,
	release2_19_1,
	release2_19_3,
	release2_19_4,
	release2_20_3,
	release2_20_5,
	release2_21_5,
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

// DefaultRelease is the release a command reads when none is named: what
// the project's GPUs run (PyTorch's wheel), the newest release gatesim
// holds captured runs of, rather than the newest modelled from source alone.
const DefaultRelease = V2_28_9

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
		rs.Tuning = &tuning.Consts{}
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

// buildBack turns its successor's ruleset (next) into this older release's
// and returns the changes from this release to next, as next's changelog
// records them: old and new swapped, cited at next's tag, since next.
func (rel Release) buildBack(next *Ruleset) (*Ruleset, []Change, error) {
	if rel.Tag != rel.Version.Tag() {
		return nil, nil, fmt.Errorf("release %s: tag %q, expected %q", rel.Version, rel.Tag, rel.Version.Tag())
	}
	rs := next.clone(rel.Version)
	rs.Changes = nil
	rs.errs = nil
	if rel.Consts != nil {
		rel.Consts(rs)
	}
	if rel.Topo != nil {
		rs.TopoDelta(rel.Topo, rel.Tag, "topology stage (spec/topo Params)")
	}
	if rel.Tuning != nil {
		rs.TuningDelta(rel.Tuning)
	}
	rs.TopoParams.Release = rel.Version
	if rel.Rules != nil {
		rel.Rules(rs)
	}
	if len(rs.errs) > 0 {
		return nil, nil, fmt.Errorf("release %s backward delta: %w", rel.Version, errors.Join(rs.errs...))
	}
	fwd := make([]Change, 0, len(rs.Changes))
	for _, c := range rs.Changes {
		fwd = append(fwd, forwardChange(c, rs, next))
	}
	rs.Changes = nil
	return rs, fwd, nil
}

// forwardChange is a change a backward delta recorded (from next back to
// older) as next's changelog holds it.
func forwardChange(c Change, older, next *Ruleset) Change {
	at := func(r Ref) Ref { return Ref{Tag: next.Version.Tag(), File: r.File, Func: r.Func} }
	f := Change{Kind: c.Kind, Rule: c.Rule, Path: c.Path, Old: c.New, New: c.Old, Ref: at(c.Ref), Note: c.Note, Since: next.Version}
	switch c.Kind {
	case ChangeReplace:
		f.Ref = at(next.rules[c.Rule].Ref)
	case ChangeAdd: // older has a rule next lacks: next removed it
		f.Kind, f.Old, f.New = ChangeRemove, older.rules[c.Rule].Ref.String(), ""
	case ChangeRemove: // older lacks a rule next has: next added it
		r := next.rules[c.Rule]
		f.Kind, f.Old, f.New, f.Ref = ChangeAdd, "", "", at(r.Ref)
	case ChangeMove:
		ord := *next.order(next.rules[c.Rule])
		after := RuleID("")
		if i := slices.Index(ord, c.Rule); i > 0 {
			after = ord[i-1]
		}
		f.Old, f.New = "", "after "+string(after)
	}
	return f
}

// anchorIndex is the index in releaseList of the release built from
// nothing.
func anchorIndex() int {
	for i, rel := range releaseList {
		if rel.Anchor {
			return i
		}
	}
	return 0
}

// AnchorRelease is the release the chain is built from: every rule not
// changed by a delta cites its source at this release's tag, the releases
// before it included.
func AnchorRelease() Version { return releaseList[anchorIndex()].Version }

// ConstsFor returns the gate constants of a modelled release by applying
// only the Consts blocks of the list: the cheap way for code that asks a
// release one fact (Load also builds every rule and the tuning model).
func ConstsFor(v Version) (Consts, error) {
	rs := &Ruleset{}
	var anchor *Ruleset
	for _, i := range chainOrder() {
		rel := releaseList[i]
		if i == anchorIndex()-1 { // the backward deltas start from the anchor
			rs = anchor
		}
		rs.Version = rel.Version
		if rel.Consts != nil {
			rel.Consts(rs)
		}
		if len(rs.errs) > 0 {
			return Consts{}, fmt.Errorf("release %s delta: %w", rel.Version, errors.Join(rs.errs...))
		}
		if rel.Anchor {
			anchor = rs.clone(rel.Version)
		}
		if rel.Version == v {
			return rs.Consts, nil
		}
	}
	return Consts{}, &UnsupportedError{Version: v}
}

// chainOrder is the order the deltas apply in: from the anchor forward to
// the newest release, then from the anchor backward to the oldest.
func chainOrder() []int {
	a := anchorIndex()
	var out []int
	for i := a; i < len(releaseList); i++ {
		out = append(out, i)
	}
	for i := a - 1; i >= 0; i-- {
		out = append(out, i)
	}
	return out
}

// TopoParamsFor returns the topology stage's parameters of a modelled
// release by applying only the Topo blocks of the list; Load's
// Ruleset.TopoParams is the same value.
func TopoParamsFor(v Version) (topo.Params, error) {
	var p, anchor topo.Params
	for _, i := range chainOrder() {
		rel := releaseList[i]
		if i == anchorIndex()-1 { // the backward deltas start from the anchor
			p = anchor
		}
		if rel.Topo != nil {
			rel.Topo(&p)
		}
		p.Release = rel.Version
		if rel.Anchor {
			anchor = p
			anchor.PathOrder = slices.Clone(p.PathOrder)
		}
		if rel.Version == v {
			return p, nil
		}
	}
	return topo.Params{}, &UnsupportedError{Version: v}
}
