package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/gatesim/gatesim", Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T20:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			"v1.2.3 (commit 0123456789ab, 2026-12-01T20:00:00Z) go1.26.8"},
		{"checkout with edits", debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"(devel) (commit abc, modified)"},
		{"nothing recorded", debug.BuildInfo{}, "(devel)"},
	}
	for _, c := range cases {
		if got := FromBuildInfo(&c.bi).String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestReadInATest(t *testing.T) {
	in, ok := Read()
	if !ok {
		t.Fatal("a test binary carries build information")
	}
	if in.Version == "" || in.GoVersion == "" {
		t.Errorf("Read() = %+v: version and toolchain missing", in)
	}
}
