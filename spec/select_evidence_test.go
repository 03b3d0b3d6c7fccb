package spec

import (
	"maps"
	"testing"

	"pgregory.net/rapid"
)

// TestEvidenceWithIsRaise: the evidence Select hands out (a key of raised
// levels, a shared map per key) is the communicator's evidence with every
// raise applied by Evidence.Raise, for any base, any raises (capabilities
// outside Capabilities included) and asked twice.
func TestEvidenceWithIsRaise(t *testing.T) {
	caps := append([]Capability{"not_tracked"}, Capabilities...)
	rapid.Check(t, func(t *rapid.T) {
		base := Evidence{}
		for _, c := range Capabilities {
			if rapid.Bool().Draw(t, "has_"+string(c)) {
				base[c] = Level(rapid.IntRange(int(LevelNone), int(LevelExecuted)).Draw(t, "base_"+string(c)))
			}
		}
		comm := &Comm{Evidence: base, evMemo: &evidenceMemo{}}
		want := maps.Clone(base)
		var k evidenceKey
		var odd []capLevel
		for range rapid.IntRange(0, 12).Draw(t, "raises") {
			c := rapid.SampledFrom(caps).Draw(t, "cap")
			l := Level(rapid.IntRange(int(LevelNone), int(LevelExecuted)).Draw(t, "level"))
			want.Raise(c, l)
			if !k.raise(c, l) {
				odd = append(odd, capLevel{c, l})
			}
		}
		for range 2 {
			got := comm.evidenceWith(k, odd)
			if !maps.Equal(got, want) {
				t.Fatalf("evidence %v, want %v (key %x, odd %v)", got, want, k, odd)
			}
		}
		if !maps.Equal(comm.Evidence, base) {
			t.Fatalf("the communicator's evidence changed: %v, was %v", comm.Evidence, base)
		}
	})
}

// TestEvidenceKeyBounds: a raise the key cannot hold is refused, never
// folded into another capability.
func TestEvidenceKeyBounds(t *testing.T) {
	for _, c := range []struct {
		cap   Capability
		level Level
		ok    bool
	}{
		{CapIB, LevelSelected, true},
		{CapTuner, LevelExecuted, true},
		{CapNVLS, LevelNone, true},
		{"not_tracked", LevelSelected, false},
		{CapIB, 16, false},
	} {
		var k evidenceKey
		if got := k.raise(c.cap, c.level); got != c.ok {
			t.Errorf("raise(%s, %d) = %v, want %v", c.cap, c.level, got, c.ok)
		}
		if !c.ok && k != 0 {
			t.Errorf("raise(%s, %d) refused but changed the key to %x", c.cap, c.level, k)
		}
	}
}
