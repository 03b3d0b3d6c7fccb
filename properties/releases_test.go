package properties

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// TestPropUntouchedBoundaryAgrees: for every adjacent pair of modelled
// releases, a request whose traces under both reach no changed rule (and no
// rule reading a changed value) gets the same decision under both. The
// boundaries are built once; the request is drawn for the older release.
func TestPropUntouchedBoundaryAgrees(t *testing.T) {
	var bds []*spec.Boundary
	for i := 1; i < len(spec.Releases); i++ {
		bd, err := spec.NewBoundary(spec.Releases[i-1], spec.Releases[i])
		if err != nil {
			t.Fatal(err)
		}
		bds = append(bds, bd)
	}
	rapid.Check(t, func(t *rapid.T) {
		bd := rapid.SampledFrom(bds).Draw(t, "boundary")
		sys := System().Draw(t, "system")
		env := Env().Draw(t, "env")
		op := Op(bd.From.Version, sys.NRanks()).Draw(t, "op")
		var sig [2]string
		var tr [2]spec.Trace
		for i, rs := range []*spec.Ruleset{bd.From, bd.To} {
			c, err := topoCache.Init(rs, sys, env)
			if err != nil {
				t.Skip(err) // a machine the model refuses: nothing to compare
			}
			d, trace, err := c.Select(op)
			if err != nil {
				t.Skip(err)
			}
			sig[i], tr[i] = spec.Signature(d), trace.Trace()
		}
		if bd.Touches(tr[0], tr[1]) {
			return
		}
		if sig[0] != sig[1] {
			t.Fatalf("NCCL %s -> %s: the request touches no change but decides %q, then %q", bd.From.Version, bd.To.Version, sig[0], sig[1])
		}
	})
}
