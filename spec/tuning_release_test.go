package spec

import (
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// The release side of the tuning model: the deltas of the release files
// and the copy of a choice into a Decision. The model itself is tested in
// spec/tuning, on the constants Load builds.

// TestTuningDeltas checks that every delta applies cleanly, changes what it
// says, and names the release it belongs to.
func TestTuningDeltas(t *testing.T) {
	base := tuningBase2_22_3()
	type step struct {
		tag   string
		apply func(*tuning.Consts) ([]tuning.Change, error)
		// fromAnchor: the first backward delta starts again from the anchor.
		fromAnchor bool
	}
	// The deltas after the anchor apply to it forward, the backward deltas
	// before it apply to it one after the other, newest first.
	var steps []step
	sawBack := false
	for _, i := range chainOrder() {
		if rel := releaseList[i]; !rel.Anchor && rel.Tuning != nil {
			back := i < anchorIndex()
			steps = append(steps, step{rel.Tag, rel.Tuning, back && !sawBack})
			sawBack = sawBack || back
		}
	}
	cur := base
	for _, s := range steps {
		if s.fromAnchor {
			cur = base
		}
		prev := cur
		changes, err := s.apply(&cur)
		if err != nil {
			t.Fatalf("%s: %v", s.tag, err)
		}
		if len(changes) == 0 {
			t.Errorf("%s: empty delta", s.tag)
		}
		seen := map[string]bool{}
		for _, c := range changes {
			if c.Ref.Tag != s.tag || c.Ref.File == "" || c.Ref.Func == "" {
				t.Errorf("%s: change %s has ref %+v", s.tag, c.Path, c.Ref)
			}
			if c.Old == c.New {
				t.Errorf("%s: change %s does not change anything (%s)", s.tag, c.Path, c.Old)
			}
			if seen[c.Path] {
				t.Errorf("%s: %s changed twice", s.tag, c.Path)
			}
			seen[c.Path] = true
			if v, err := cur.GetPath(c.Path); err != nil || v != c.New {
				t.Errorf("%s: %s reads %q after the delta (%v), want %q", s.tag, c.Path, v, err, c.New)
			}
		}
		// The recorded changes are exactly the difference.
		diff := tuning.Diff(&prev, &cur)
		if len(diff) != len(changes) {
			t.Errorf("%s: %d recorded changes, %d differences", s.tag, len(changes), len(diff))
		}
		for _, d := range diff {
			if !seen[d.Path] {
				t.Errorf("%s: %s differs but is not recorded", s.tag, d.Path)
			}
		}
	}
}

// TestFillDecision: the Decision carries the tuning model's choice as the
// model made it, with the usable cells as candidates.
func TestFillDecision(t *testing.T) {
	c, err := Init(MustLoad(V2_28_9), mustPreset("h200x2", PresetOptions{}), Env{})
	if err != nil || c.Err != nil || c.Model == nil {
		t.Fatal(err, c.Err)
	}
	ch, err := tuning.ChooseOp(c.Model, tuning.Call{Op: Op{Func: AllReduce, Count: 1 << 18, DataType: Float32}})
	if err != nil {
		t.Fatal(err)
	}
	var d Decision
	fillDecision(&ch, &d)
	n := 0
	for a := range NumAlgos {
		for p := range NumProtos {
			if x := ch.Cost[a][p]; x != tuning.Ignore && x >= 0 {
				n++
			}
		}
	}
	if d.Algo != ch.Algo || d.Proto != ch.Proto || d.NChannels != ch.NChannels || d.ChannelHi != ch.ChannelHi ||
		d.DecidedBy != tuning.RuleSelPick || len(d.Candidates) != n || n == 0 {
		t.Errorf("decision %+v from choice %+v (%d usable cells)", d, ch, n)
	}
}
