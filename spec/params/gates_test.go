package params

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestGatesForLoadsOnce: a registry derives its gate links from the
// release's ruleset once; each later GatesFor is a lookup that allocates
// only the copy it returns (loading the ruleset per call, as the linter
// once did per variable, copied the whole ruleset every time).
func TestGatesForLoadsOnce(t *testing.T) {
	reg, err := Load(spec.V2_28_9)
	if err != nil {
		t.Fatal(err)
	}
	first := reg.GatesFor("NCCL_ALGO")
	if len(first) == 0 {
		t.Fatal("NCCL_ALGO feeds no gate at 2.28.9")
	}
	allocs := testing.AllocsPerRun(50, func() {
		if got := reg.GatesFor("NCCL_ALGO"); len(got) != len(first) {
			t.Fatalf("GatesFor changed: %v, then %v", first, got)
		}
	})
	if allocs > 1 {
		t.Errorf("GatesFor allocates %.0f times a call: want at most 1 (the returned copy), the ruleset loaded once", allocs)
	}
	got := reg.GatesFor("NCCL_ALGO")
	got[0] = "G-MUTATED"
	if reg.GatesFor("NCCL_ALGO")[0] == "G-MUTATED" {
		t.Error("GatesFor returns the registry's own slice")
	}
}

// BenchmarkGatesFor is one variable's gate links on a loaded registry, as
// the linter asks them once per assignment.
func BenchmarkGatesFor(b *testing.B) {
	reg, err := Load(spec.V2_28_9)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		reg.GatesFor("NCCL_ALGO")
	}
}
