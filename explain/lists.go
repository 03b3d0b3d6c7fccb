package explain

import (
	"fmt"
	"io"

	"github.com/gatesim/gatesim/spec"
)

// Release is one modelled NCCL release as gatesim releases lists it.
type Release struct {
	Version string `json:"version"`
	Tag     string `json:"tag"`
	Code    int    `json:"code"`
	// RuleChanges and ValueChanges count the changes from the release
	// before (0 for the oldest).
	RuleChanges  int    `json:"rule_changes"`
	ValueChanges int    `json:"value_changes"`
	Delta        string `json:"delta"`
	// Unchanged says why a release records no change.
	Unchanged string `json:"unchanged,omitempty"`
}

// Releases lists the modelled releases, oldest first.
type Releases struct {
	// Anchor is the release built from nothing; releases before it are
	// backward deltas.
	Anchor   string    `json:"anchor"`
	Releases []Release `json:"releases"`
}

// NewReleases is every modelled release with the size of its delta:
// "anchor" (built from nothing), "forward" (from the release before) or
// "backward" (from the release after).
func NewReleases() (Releases, error) {
	anchor := spec.AnchorRelease()
	out := Releases{Anchor: anchor.String()}
	backward := true
	for _, v := range spec.Releases {
		rs, err := spec.Load(v)
		if err != nil {
			return out, err
		}
		rel, _ := spec.ReleaseOf(v)
		row := Release{Version: v.String(), Tag: v.Tag(), Code: v.Code(), Unchanged: rel.Unchanged, Delta: "forward"}
		switch {
		case rel.Anchor:
			row.Delta, backward = "anchor", false
		case backward:
			row.Delta = "backward"
		}
		for _, ch := range rs.Changes {
			if ch.Kind == spec.ChangeValue {
				row.ValueChanges++
			} else {
				row.RuleChanges++
			}
		}
		out.Releases = append(out.Releases, row)
	}
	return out, nil
}

// WriteText prints one release a line, tab separated: version, tag, code,
// the changes from the release before and how its delta is written.
func (r Releases) WriteText(w io.Writer) {
	for _, x := range r.Releases {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d rules\t%d values\t%s\n", x.Version, x.Tag, x.Code, x.RuleChanges, x.ValueChanges, x.Delta)
	}
}

// HostPreset is one host preset of the topology stage.
type HostPreset struct {
	Name    string `json:"name"`
	GPUs    int    `json:"gpus"`
	SM      int    `json:"sm"`
	NICs    int    `json:"nics"`
	Sockets int    `json:"sockets"`
	CPUArch string `json:"cpu_arch"`
}

// HostPresets lists the host presets by name.
type HostPresets struct {
	Presets []HostPreset `json:"presets"`
}

// NewHostPresets is every preset's host layout, by the names every
// command takes (spec.PresetNames).
func NewHostPresets() HostPresets {
	var out HostPresets
	for _, name := range spec.PresetNames() {
		p, _ := spec.PresetLayout(name) // a listed name always resolves
		out.Presets = append(out.Presets, HostPreset{Name: name, GPUs: len(p.GPUs), SM: p.GPUs[0].SM, NICs: len(p.NICs), Sockets: p.Sockets, CPUArch: p.CPUArch})
	}
	return out
}

// WriteText prints one preset a line, as gatesim topo presets does.
func (p HostPresets) WriteText(w io.Writer) {
	for _, x := range p.Presets {
		fmt.Fprintf(w, "%s\t%d GPUs sm%d, %d NICs, %d %s sockets\n", x.Name, x.GPUs, x.SM, x.NICs, x.Sockets, x.CPUArch)
	}
}
