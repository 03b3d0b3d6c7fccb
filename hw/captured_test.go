package hw

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/spec"
)

// committedCaptures reads the committed capture set of a release on the
// 2 × H200 and fails when it is missing or incomplete.
func committedCaptures(t *testing.T, v spec.Version) []*conformance.Capture {
	t.Helper()
	root := filepath.Join("..", "golden", "testdata", "captured", "h200x2-"+v.String())
	set, err := ReadCaptureSet(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != len(StandardMatrix) {
		t.Fatalf("%s: %d captures, want %d", root, len(set), len(StandardMatrix))
	}
	return set
}

// The captures committed under golden/testdata/captured are complete and
// read back: what `gatesim hw check --from DIR` will replay in CI.
func TestCommittedCaptures(t *testing.T) {
	for _, v := range []spec.Version{spec.V2_28_9, spec.V2_28_3} {
		set := committedCaptures(t, v)
		for _, c := range set {
			name := fmt.Sprintf("%s/%s", v, c.Config.Name)
			r := c.Result
			if r == nil || r.Version != v || r.NRanks != 2 || r.Check != "device" || len(r.Rows) != 5*16 {
				t.Errorf("%s: result %+v", name, r)
				continue
			}
			if len(c.Topo) == 0 || len(c.Graph) == 0 || len(c.Logs[conformance.CaptureLog]) == 0 {
				t.Errorf("%s: missing dumps or log", name)
			}
			if !strings.Contains(string(c.Logs[conformance.CaptureLog]), "NCCL version "+v.String()+"+cuda") {
				t.Errorf("%s: the log does not come from NCCL %s", name, v)
			}
			if r.Env["NCCL_NVLS_ENABLE"] != "0" {
				t.Errorf("%s: captured without NCCL_NVLS_ENABLE=0", name)
			}
			for k, want := range c.Config.Env {
				if r.Env[k] != want {
					t.Errorf("%s: ran with %s=%q, configured %q", name, k, r.Env[k], want)
				}
			}
			for _, row := range r.Rows {
				if row.Wrong > 0 {
					t.Errorf("%s: %s %d bytes: %d wrong", name, row.Coll, row.Size, row.Wrong)
				}
			}
		}
	}
}
