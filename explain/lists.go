package explain

import (
	"fmt"
	"io"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// Release is one modelled NCCL release as gatesim releases lists it.
type Release struct {
	Version string `json:"version"`
	Tag     string `json:"tag"`
	Code    int    `json:"code"`
}

// Releases lists the modelled releases, oldest first.
type Releases struct {
	Releases []Release `json:"releases"`
}

// NewReleases is every modelled release.
func NewReleases() Releases {
	var out Releases
	for _, v := range spec.Releases {
		out.Releases = append(out.Releases, Release{Version: v.String(), Tag: v.Tag(), Code: v.Code()})
	}
	return out
}

// WriteText prints one release a line: version, tag and code, tab separated.
func (r Releases) WriteText(w io.Writer) {
	for _, x := range r.Releases {
		fmt.Fprintf(w, "%s\t%s\t%d\n", x.Version, x.Tag, x.Code)
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

// NewHostPresets is every host preset of spec/topo.
func NewHostPresets() HostPresets {
	var out HostPresets
	for _, name := range topo.PresetNames() {
		p := topo.Presets()[name]
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
