package properties

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// devCommReqs draws device communicator requirements; a field the
// release's struct lacks makes the call an input error, which the
// properties skip.
func devCommReqs(t *rapid.T) spec.DevCommReqs {
	q := spec.DevCommReqs{LSAMultimem: rapid.Bool().Draw(t, "lsaMultimem"), LSABarrierCount: rapid.IntRange(0, 4).Draw(t, "lsaBarriers")}
	switch rapid.IntRange(0, 2).Draw(t, "gin") {
	case 1: // 2.28.7+
		q.GinSignalCount = rapid.IntRange(0, 1<<17).Draw(t, "signals")
		q.GinCounterCount = rapid.IntRange(0, 1<<17).Draw(t, "counters")
		q.GinForceEnable = rapid.Bool().Draw(t, "force")
	case 2: // 2.29.7+
		q.GinConnectionType = rapid.SampledFrom([]string{spec.GinConnFull, spec.GinConnRail}).Draw(t, "conn")
		n := rapid.IntRange(1, 8).Draw(t, "contexts")
		q.GinContextCount = &n
		q.GinExclusiveContexts = rapid.Bool().Draw(t, "exclusive")
		q.GinSignalCount = rapid.IntRange(0, 1<<20).Draw(t, "signals")
	}
	return q
}

// A device communicator destroyed (ncclDevCommDestroy) gives back what a
// new one with the same requirements needs: made again, it decides as the
// first did (but for reusing the GIN connection the first made, which
// ncclDevCommDestroy keeps). G-DEVCOMM-DESTROY-1 at every release.
func TestDevCommDestroyGivesBack(t *testing.T) {
	var releases []spec.Version
	for _, v := range spec.Releases {
		for _, r := range ruleset(v).Rules() {
			if r.ID == "G-DEVCOMM-DESTROY-1" {
				releases = append(releases, v)
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.SampledFrom(releases).Draw(t, "release")
		preset := rapid.SampledFrom([]string{"dgx-h100", "h200x2", "dgx-b200"}).Draw(t, "preset")
		sys, err := spec.Preset(preset, spec.PresetOptions{Nodes: rapid.IntRange(1, 2).Draw(t, "nodes")})
		if err != nil {
			t.Fatal(err)
		}
		env := spec.Env{}
		if ty := rapid.IntRange(0, 2).Draw(t, "ginType"); ty > 0 {
			env["NCCL_GIN_TYPE"] = []string{"", "2", "3"}[ty]
		}
		c := Case{Release: v, System: sys, Env: env}
		comm, err := topoCache.Init(ruleset(c.Release), c.System, c.Env)
		if err != nil {
			t.Fatalf("%s: init: %v", c, err)
		}
		q := devCommReqs(t)
		create := spec.GroupOp{Op: spec.Op{Func: spec.SendRecv}, DevComm: &q}
		_, g1, err := comm.SelectAfter(nil, []spec.GroupOp{create}, spec.Launch{})
		if err != nil || g1.Ops[0].Err != nil {
			return // no such call at this release, or no device communicator to destroy
		}
		_, g2, err := comm.SelectAfter([]spec.GroupOp{create, {Op: spec.Op{Func: spec.SendRecv}, DevCommDestroy: 1}}, []spec.GroupOp{create}, spec.Launch{})
		if err != nil {
			t.Fatalf("%s %+v: made, destroyed and made again: %v", c, q, err)
		}
		d1, d2 := g1.Ops[0], g2.Ops[0]
		if d2.Err != nil {
			t.Fatalf("%s %+v: made again after its destroy: %v", c, q, d2.Err)
		}
		again := *d2.DevComm
		again.Reused = false
		if diff := cmp.Diff(*d1.DevComm, again); diff != "" {
			t.Fatalf("%s %+v: made again after its destroy (-first +again):\n%s", c, q, diff)
		}
	})
}
