package topo_test

import (
	"reflect"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

// TestPresetsAreSpecs: every layout this package's tests run on is the one
// spec's preset of that name (or alias) describes, so the tests' list
// cannot drift from the one commands take.
func TestPresetsAreSpecs(t *testing.T) {
	for name, layout := range topo.Presets() {
		want, err := spec.PresetLayout(name)
		if err != nil {
			t.Errorf("%s: not a preset commands take: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(layout, want) {
			t.Errorf("%s: the tests' layout differs from spec's", name)
		}
	}
}
