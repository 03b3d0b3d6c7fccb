package spec

import (
	"slices"
	"testing"
	"time"

	"github.com/gatesim/gatesim/internal/ncclmirror"
)

// notationalRefs are references whose Func is notation, not an
// identifier of the file, each with why it still points at the source.
var notationalRefs = map[Ref]string{
	{Tag: "v2.26.2-1", File: "src/graph/topo.h", Func: "PATH_*"}: "the whole family of path-type constants (PATH_LOC … PATH_DIS) whose order changed",
	{Tag: "v2.27.3-1", File: "src/graph/topo.h", Func: "PATH_*"}: "the whole family of path-type constants (PATH_LOC … PATH_DIS) whose order changed",
	{Tag: "v2.27.5-1", File: "src/graph/topo.h", Func: "PATH_*"}: "the whole family of path-type constants (PATH_LOC … PATH_DIS) whose order changed",
}

// TestRefsAtTags checks every source reference of every modelled release
// (each rule's, and each change's of its delta: rule verbs, constants,
// parameter defaults, topology and tuning values) against NCCL's source at
// its tag: the file exists there and each identifier the reference names
// occurs in it as a word. It reads NCCL's git mirror (ncclmirror.ForTest),
// which is not committed data: like the generators' tests, it skips and says
// why where the mirror is absent.
func TestRefsAtTags(t *testing.T) {
	src := ncclmirror.OpenSource(t, ncclmirror.ForTest(t))
	start := time.Now()
	type use struct{ what string }
	refs := map[Ref][]string{}
	for _, v := range Releases {
		rs, err := Load(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs.Rules() {
			refs[r.Ref] = append(refs[r.Ref], v.String()+" rule "+string(r.ID))
		}
		for _, c := range rs.Changes {
			what := string(c.Rule)
			if what == "" {
				what = c.Path
			}
			refs[c.Ref] = append(refs[c.Ref], v.String()+" change "+what)
		}
	}
	used := map[Ref]bool{}
	keys := make([]Ref, 0, len(refs))
	for r := range refs {
		keys = append(keys, r)
	}
	slices.SortFunc(keys, func(a, b Ref) int {
		if c := cmpStr(a.Tag, b.Tag); c != 0 {
			return c
		}
		if c := cmpStr(a.File, b.File); c != 0 {
			return c
		}
		return cmpStr(a.Func, b.Func)
	})
	for _, r := range keys {
		if _, ok := notationalRefs[r]; ok {
			used[r] = true
			if _, ok, err := src.File(r.Tag, r.File); err != nil || !ok {
				t.Errorf("%q (%s): %s has no %s (%v)", r.String(), refs[r][0], r.Tag, r.File, err)
			}
			continue
		}
		bad, err := src.CheckRef(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("%q (%s): %s", r.String(), refs[r][0], b)
		}
	}
	for r := range notationalRefs {
		if !used[r] {
			t.Errorf("notationalRefs: %q is no release's reference any more: drop it", r.String())
		}
	}
	t.Logf("%d distinct references of %d releases checked in %v", len(refs), len(Releases), time.Since(start).Round(time.Millisecond))
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
