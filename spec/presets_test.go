package spec

import (
	"reflect"
	"strings"
	"testing"
)

// TestPresetNames: every command resolves a machine name through one
// list. An alias builds the same system as the preset it names (under the
// preset's name), a preset's hosts carry the layout the topology stage
// searches, and an unknown name is refused with the list of presets.
func TestPresetNames(t *testing.T) {
	for _, name := range PresetNames() {
		sys, err := Preset(name, PresetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ns, err := PresetLayout(strings.ToUpper(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := sys.Nodes[0].Layout; got == nil || !reflect.DeepEqual(*got, ns) {
			t.Errorf("%s: the system's layout is not PresetLayout's", name)
		}
		if !IsPreset(name) || PresetDoc(name) == "" {
			t.Errorf("%s: IsPreset %v, doc %q", name, IsPreset(name), PresetDoc(name))
		}
	}
	aliases := PresetAliases()
	if len(aliases) == 0 {
		t.Fatal("no aliases: the topology stage's gb200 must still be taken")
	}
	for old, now := range aliases {
		a, err := Preset(old, PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatalf("%s: %v", old, err)
		}
		b, err := Preset(now, PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatalf("%s: %v", now, err)
		}
		if !reflect.DeepEqual(a, b) || !strings.HasPrefix(a.Name, now) {
			t.Errorf("alias %s: %s differs from %s", old, a.Name, b.Name)
		}
		if !IsPreset(old) || PresetDoc(old) != PresetDoc(now) {
			t.Errorf("alias %s: IsPreset %v", old, IsPreset(old))
		}
		if _, isName := presets[old]; isName {
			t.Errorf("alias %s is also a preset's name", old)
		}
	}
	for _, f := range []func(string) error{
		func(s string) error { _, err := Preset(s, PresetOptions{}); return err },
		func(s string) error { _, err := PresetLayout(s); return err },
	} {
		err := f("dgx-z")
		if err == nil || !strings.Contains(err.Error(), "expected one of "+strings.Join(PresetNames(), ", ")) {
			t.Errorf("dgx-z: %v", err)
		}
	}
	if IsPreset("dgx-z") {
		t.Error("IsPreset(dgx-z)")
	}
}
