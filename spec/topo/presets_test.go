package topo

import (
	"maps"
	"slices"
)

// Presets are the layouts this package's tests run on, by the names their
// golden cases carry; spec owns the names commands take and the layout
// each names (spec.PresetLayout), and TestPresetsAreSpecs holds these to
// them.
func Presets() map[string]NodeSpec {
	return map[string]NodeSpec{
		"v100x4":   PresetV100x4(),
		"dgx-a100": PresetDGXA100(),
		"dgx-h100": PresetDGXH100(),
		"hgx-h200": PresetHGXH200(),
		"h200x2":   PresetH200x2(),
		"gb200":    PresetGB200(),
	}
}

// PresetNames lists Presets in a stable (sorted) order.
func PresetNames() []string {
	return slices.Sorted(maps.Keys(Presets()))
}
