package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

func TestVersion(t *testing.T) {
	_, sub, _ := runCLI(t, "version")
	_, flag, _ := runCLI(t, "--version")
	if sub != flag {
		t.Errorf("gatesim version and gatesim --version differ:\n%s\n%s", sub, flag)
	}
	if !strings.HasPrefix(sub, "gatesim ") {
		t.Errorf("version output %q does not start with gatesim's version", sub)
	}
	for _, v := range spec.Releases {
		if !strings.Contains(sub, v.String()) {
			t.Errorf("version output lacks modelled release %s:\n%s", v, sub)
		}
	}
	code, out, stderr := runCLI(t, "version", "--json")
	if code != 0 {
		t.Fatalf("version --json: exit %d: %s", code, stderr)
	}
	var v struct {
		Schema int `json:"schema"`
		versionJSON
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.Schema != 1 || v.Gatesim.Version == "" || len(v.NCCLReleases) != len(spec.Releases) {
		t.Errorf("version JSON %+v", v)
	}
}
