// Package buildinfo reads what the Go toolchain recorded about the running
// binary (module version, VCS revision and time, whether the tree was
// modified) into one value the CLI prints.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Info is the build's identity. Fields the build did not record are empty.
type Info struct {
	Module    string `json:"module"`
	Version   string `json:"version"`              // "(devel)" for a build from a checkout
	Revision  string `json:"revision,omitempty"`   // vcs.revision
	Time      string `json:"time,omitempty"`       // vcs.time
	Modified  bool   `json:"modified,omitempty"`   // vcs.modified: uncommitted changes were built
	GoVersion string `json:"go_version,omitempty"` // the toolchain
}

// Read returns the running binary's Info; ok is false when the binary
// carries no build information (built without module support).
func Read() (Info, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}, false
	}
	return FromBuildInfo(bi), true
}

// FromBuildInfo picks the fields Info keeps out of a debug.BuildInfo.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, GoVersion: bi.GoVersion}
	if in.Version == "" {
		in.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is one line: "v1.2.3 (commit 0123abcd4567, 2026-12-01T20:00:00Z,
// modified) go1.26.8".
func (in Info) String() string {
	s := in.Version
	if in.Revision != "" {
		rev := in.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		s += " (commit " + rev
		if in.Time != "" {
			s += ", " + in.Time
		}
		if in.Modified {
			s += ", modified"
		}
		s += ")"
	}
	if in.GoVersion != "" {
		s += fmt.Sprintf(" %s", in.GoVersion)
	}
	return s
}
