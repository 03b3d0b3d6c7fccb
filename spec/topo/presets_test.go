package topo

// Presets are the layouts this package's tests run on, by the names their
// golden cases carry (spec owns the names commands take: spec.PresetNames).
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

// PresetNames lists Presets in a stable order.
func PresetNames() []string {
	return []string{"v100x4", "dgx-a100", "dgx-h100", "hgx-h200", "h200x2", "gb200"}
}
