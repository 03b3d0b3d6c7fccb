package params

import (
	"testing"
	"time"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec"
)

// notationalForeign are the Foreigns references that name no identifier
// of an NCCL file, each with why.
var notationalForeign = map[spec.Ref]string{
	{Tag: "v2.28.9-1", File: "src", Func: "(no read)"}:                                                            "it cites an absence: NCCL's source at the tag reads no such name, which the generated table of that tag already shows (TestCuratedAgainstTables)",
	{Tag: "pytorch", File: "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp", Func: "NCCL_ASYNC_ERROR_HANDLING"}: "PyTorch's source, not NCCL's",
	{Tag: "pytorch", File: "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp", Func: "NCCL_BLOCKING_WAIT"}:        "PyTorch's source, not NCCL's",
	{Tag: "pytorch", File: "torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp", Func: "NCCL_DESYNC_DEBUG"}:         "PyTorch's source, not NCCL's",
}

// TestCuratedRefsAtTags checks the source reference of every curated
// entry (Deprecations, Foreigns, Gates) against NCCL's source at its tag:
// the file exists there and each identifier named occurs in it as a word.
// It reads NCCL's git mirror (ncclmirror.ForTest), which is not committed
// data: like the generator's test, it skips and says why without it.
func TestCuratedRefsAtTags(t *testing.T) {
	src := ncclmirror.OpenSource(t, ncclmirror.ForTest(t))
	start := time.Now()
	type entry struct {
		name string
		ref  spec.Ref
	}
	var refs []entry
	for _, d := range Deprecations {
		refs = append(refs, entry{"Deprecations " + d.Name, d.Ref})
	}
	for _, f := range Foreigns {
		if reason, ok := notationalForeign[f.Ref]; ok {
			t.Logf("Foreigns %s %q not checked: %s", f.Name, f.Ref.String(), reason)
			continue
		}
		refs = append(refs, entry{"Foreigns " + f.Name, f.Ref})
	}
	for _, g := range Gates {
		refs = append(refs, entry{"Gates " + g.Name, g.Ref})
	}
	for _, e := range refs {
		if e.ref == (spec.Ref{}) {
			continue // an entry without a reference: TestCuratedAgainstTables decides whether it may
		}
		bad, err := src.CheckRef(e.ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Errorf("%s %q: %s", e.name, e.ref.String(), b)
		}
	}
	t.Logf("%d references checked in %v", len(refs), time.Since(start).Round(time.Millisecond))
}
