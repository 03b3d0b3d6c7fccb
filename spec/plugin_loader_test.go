package spec

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// loaderCase is one plugin library set-up and, per release, the outcome of
// one loader rule and log lines it must print (whole lines, worked from
// the loader at each tag).
type loaderCase struct {
	name string
	rule RuleID
	libs []Library // replace every node's libraries
	env  Env
	want map[Version]loaderWant
}

type loaderWant struct {
	out  Outcome
	logs []string
}

const enoentNet = "libnccl-net.so: cannot open shared object file: No such file or directory"

var (
	plainFoo   = Library{Path: "/opt/net/foo", InLoaderPath: true, NetSymbols: []int{7}, Net: &NetBackend{Name: "Foo", Devices: 1}}
	ofiAt      = Library{Path: "/opt/aws-ofi-nccl/lib/libnccl-net.so", NetSymbols: []int{8}, Net: &NetBackend{Name: "AWS Libfabric", Devices: 1}}
	ofiInPath  = Library{Path: "/usr/lib/libnccl-net-ofi.so", InLoaderPath: true, NetSymbols: []int{8}, Net: &NetBackend{Name: "AWS Libfabric", Devices: 1}}
	coll7      = Library{Path: "/opt/c7/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{7}, CollNetSymbols: []int{7}, Net: &NetBackend{Name: "C7", Devices: 1}, CollNet: &CollNetBackend{Name: "C7coll"}}
	tunerDef   = Library{Path: "/opt/t/libnccl-tuner.so", InLoaderPath: true, TunerSymbols: []int{1, 2, 3}, Tuner: &tuning.TunerBehaviour{Name: "deft"}}
	tunerNamed = Library{Path: "/opt/t/libnccl-tuner-mine.so", InLoaderPath: true, TunerSymbols: []int{1, 2, 3}, Tuner: &tuning.TunerBehaviour{Name: "mine"}}
	tunerV1    = Library{Path: "/opt/t/libt1.so", TunerSymbols: []int{1}, Tuner: &tuning.TunerBehaviour{Name: "t1"}}
	tunerV2    = Library{Path: "/opt/t/libt2.so", TunerSymbols: []int{2}, Tuner: &tuning.TunerBehaviour{Name: "t2"}}
)

var loaderCases = []loaderCase{
	// The value itself is tried from 2.21.5 (openNetPluginLib); up to
	// 2.20.5 ncclNetPluginInit opens libnccl-net-<value>.so only.
	{name: "NCCL_NET_PLUGIN names the file", rule: "G-NET-LIB-1", libs: []Library{plainFoo}, env: Env{"NCCL_NET_PLUGIN": "foo"},
		want: map[Version]loaderWant{
			V2_18_6: {Fail, []string{"Plugin name set by env to libnccl-net-foo.so"}},
			V2_19_1: {Fail, []string{"Plugin name set by env to libnccl-net-foo.so"}},
			V2_19_4: {Fail, nil}, V2_20_3: {Fail, nil}, V2_20_5: {Fail, nil},
			V2_21_5: {Pass, []string{"NET/Plugin: Plugin name set by env to foo"}},
			V2_22_3: {Pass, []string{"NET/Plugin: Plugin name set by env to foo"}},
		}},
	// openPluginLib of 2.27.3 tries one name by the entry's form: "foo"
	// only as libnccl-net-foo.so, and a path not starting with "lib" only
	// prefixed, so neither opens; 2.26.6 (the value, then the prefixed
	// name) and 2.27.5 (the value first) open both. "libnccl-net-ofi.so"
	// is opened as given everywhere.
	{name: "NCCL_NET_PLUGIN names the file (2.27.3: prefixed only)", rule: "G-NET-LIB-1", libs: []Library{plainFoo}, env: Env{"NCCL_NET_PLUGIN": "foo"},
		want: map[Version]loaderWant{V2_26_6: {Pass, nil}, V2_27_3: {Fail, nil}, V2_27_5: {Pass, nil}, V2_28_9: {Pass, nil}}},
	{name: "NCCL_NET_PLUGIN is a path", rule: "G-NET-LIB-1", libs: []Library{ofiAt}, env: Env{"NCCL_NET_PLUGIN": ofiAt.Path},
		want: map[Version]loaderWant{V2_26_6: {Pass, nil}, V2_27_3: {Fail, nil}, V2_27_5: {Pass, nil}, V2_28_9: {Pass, nil}}},
	{name: "NCCL_NET_PLUGIN is a lib*.so name", rule: "G-NET-LIB-1", libs: []Library{ofiInPath}, env: Env{"NCCL_NET_PLUGIN": "libnccl-net-ofi.so"},
		want: map[Version]loaderWant{V2_26_6: {Pass, nil}, V2_27_3: {Pass, nil}, V2_27_5: {Pass, nil}, V2_28_9: {Pass, nil}}},
	// "none" names no plugin from 2.28.3; before it is an entry, which
	// opens nothing here either but is tried.
	{name: "NCCL_NET_PLUGIN=none", rule: "G-NET-LIB-1", libs: []Library{coll7}, env: Env{"NCCL_NET_PLUGIN": "none"},
		want: map[Version]loaderWant{V2_27_3: {Fail, []string{"NET/Plugin: Could not find: libnccl-net-none.so"}},
			V2_27_5: {Fail, []string{"NET/Plugin: Could not find: none libnccl-net-none.so"}}, V2_28_9: {Fail, nil}}},
	{name: "no libnccl-net.so: the failure lines", rule: "G-NET-LIB-2",
		want: map[Version]loaderWant{
			V2_18_6: {Fail, []string{"NET/Plugin : Plugin load (libnccl-net.so) returned 2 : " + enoentNet, "NET/Plugin : No plugin found, using internal implementation"}},
			V2_19_1: {Fail, []string{"NET/Plugin : dlerror=" + enoentNet + " No plugin found (libnccl-net.so), using internal implementation"}},
			V2_20_5: {Fail, []string{"NET/Plugin : dlerror=" + enoentNet + " No plugin found (libnccl-net.so), using internal implementation"}},
			// The sglang-4289 public log of 2.21.5 prints these two lines.
			V2_21_5: {Fail, []string{"NET/Plugin: Plugin load returned 2 : " + enoentNet + " : when loading libnccl-net.so", "NET/Plugin: Using internal network plugin."}},
			V2_22_3: {Fail, []string{"NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."}},
		}},
	{name: "no libnccl-net.so: one line per name (2.21.5)", rule: "G-NET-LIB-1",
		want: map[Version]loaderWant{V2_21_5: {Fail, []string{"NET/Plugin: No plugin found (libnccl-net.so)"}}}},
	// summarizeOpenNetPluginErrors cuts the last name off a list of two.
	{name: "NCCL_NET_PLUGIN=bar opens nothing", rule: "G-NET-LIB-2", env: Env{"NCCL_NET_PLUGIN": "bar"},
		want: map[Version]loaderWant{
			V2_20_5: {Fail, []string{"NET/Plugin : dlerror=libnccl-net-bar.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net-bar.so), using internal implementation"}},
			V2_21_5: {Fail, []string{"NET/Plugin: Plugin load returned 2 : libnccl-net-bar.so: cannot open shared object file: No such file or directory : when loading bar"}},
		}},
	{name: "CollNet v7 loaded", rule: "G-COLLNET-ABI-1", libs: []Library{coll7},
		want: map[Version]loaderWant{
			V2_20_5: {Pass, []string{"NET/Plugin: Loaded coll plugin C7coll (v7)"}},
			V2_21_5: {Pass, []string{"NET/Plugin: Loaded coll plugin C7coll (v7)"}},
			V2_22_3: {Pass, []string{"NET/Plugin: Loaded collnet plugin C7coll (v7)"}},
		}},
	{name: "CollNet v6 loaded", rule: "G-COLLNET-ABI-1", libs: []Library{{Path: "/opt/c6/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{6}, CollNetSymbols: []int{6},
		Net: &NetBackend{Name: "C6", Devices: 1}, CollNet: &CollNetBackend{Name: "C6coll"}}},
		want: map[Version]loaderWant{V2_19_4: {Pass, []string{"NET/Plugin: Loaded coll plugin C6coll (v6)"}}}},

	// ncclLoadTunerPlugin (2.19.1–2.20.5) opens NCCL_TUNER_PLUGIN's value
	// only; 2.21.5 adds libnccl-tuner.so and the net plugin's names.
	{name: "tuner unset, libnccl-tuner.so present", rule: "G-TUNER-LIB-1", libs: []Library{tunerDef},
		want: map[Version]loaderWant{
			V2_19_1: {Fail, []string{"Tuner: no plugin found '(null)', using default tuner instead."}},
			V2_19_4: {Fail, []string{"Tuner: no plugin found '(null)', using default tuner instead."}},
			V2_20_3: {Fail, nil}, V2_20_5: {Fail, nil},
			V2_21_5: {Pass, nil}, V2_22_3: {Pass, nil},
		}},
	{name: "NCCL_TUNER_PLUGIN=mine", rule: "G-TUNER-LIB-1", libs: []Library{tunerNamed}, env: Env{"NCCL_TUNER_PLUGIN": "mine"},
		want: map[Version]loaderWant{
			V2_20_5: {Fail, []string{"NCCL_TUNER_PLUGIN set to mine", "Tuner: no plugin found 'mine', using default tuner instead."}},
			V2_21_5: {Pass, []string{"TUNER/Plugin: NCCL_TUNER_PLUGIN set to mine", "TUNER/Plugin: No plugin found (mine)", "TUNER/Plugin: Plugin name set by env to libnccl-tuner-mine.so"}},
			V2_22_3: {Pass, []string{"TUNER/Plugin: NCCL_TUNER_PLUGIN set to mine", "TUNER/Plugin: Plugin name set by env to libnccl-tuner-mine.so"}},
		}},
	{name: "no tuner anywhere, one name each", rule: "G-TUNER-LIB-1",
		want: map[Version]loaderWant{
			V2_21_5: {Fail, []string{"TUNER/Plugin: No plugin found (libnccl-tuner.so)", "TUNER/Plugin: No plugin found (libnccl-net.so)",
				"TUNER/Plugin: Plugin load returned 2 : " + enoentNet + " : when loading libnccl-tuner.so", "TUNER/Plugin: Using internal tuner plugin."}},
			V2_22_3: {Fail, []string{"TUNER/Plugin: Could not find: libnccl-tuner.so libnccl-net.so. Using internal tuner plugin."}},
		}},
	{name: "no tuner anywhere, four names", rule: "G-TUNER-LIB-1", env: Env{"NCCL_TUNER_PLUGIN": "x", "NCCL_NET_PLUGIN": "y"},
		want: map[Version]loaderWant{
			V2_21_5: {Fail, []string{"TUNER/Plugin: Most recent plugin load returned 2 : libnccl-net-y.so: cannot open shared object file: No such file or directory. All attempts to load 'x libnccl-tuner-x.so y' also failed."}},
		}},
	// The tuner goes through the same openPluginLib as the net plugin:
	// 2.27.3 opens a path not starting with "lib" only prefixed, 2.26.6
	// tries the prefixed name even after a lib*.so path.
	{name: "NCCL_TUNER_PLUGIN is a path", rule: "G-TUNER-LIB-1", libs: []Library{tunerV1}, env: Env{"NCCL_TUNER_PLUGIN": tunerV1.Path},
		want: map[Version]loaderWant{V2_26_6: {Pass, nil}, V2_27_3: {Fail, []string{"TUNER/Plugin: Could not find: libnccl-tuner-/opt/t/libt1.so.so. Using internal tuner plugin."}},
			V2_27_5: {Pass, nil}, V2_28_9: {Pass, nil}}},
	{name: "NCCL_TUNER_PLUGIN is a missing lib*.so path", rule: "G-TUNER-LIB-1", env: Env{"NCCL_TUNER_PLUGIN": "/opt/t/libnone.so"},
		want: map[Version]loaderWant{
			V2_26_6: {Fail, []string{"TUNER/Plugin: Could not find: /opt/t/libnone.so libnccl-tuner-/opt/t/libnone.so.so. Using internal tuner plugin."}},
			V2_27_5: {Fail, []string{"TUNER/Plugin: Could not find: /opt/t/libnone.so. Using internal tuner plugin."}},
			V2_28_9: {Fail, []string{"TUNER/Plugin: Could not find: /opt/t/libnone.so"}}}},
	{name: "v1 tuner by path", rule: "G-TUNER-ABI-1", libs: []Library{tunerV1}, env: Env{"NCCL_TUNER_PLUGIN": tunerV1.Path},
		want: map[Version]loaderWant{
			V2_19_4: {Pass, []string{"Opened tuner: 't1'", "Using tuner plugin: 't1'"}},
			V2_20_5: {Pass, []string{"Opened tuner: 't1'", "Using tuner plugin: 't1'"}},
		}},
	{name: "v2-only tuner by path", rule: "G-TUNER-ABI-1", libs: []Library{tunerV2}, env: Env{"NCCL_TUNER_PLUGIN": tunerV2.Path},
		want: map[Version]loaderWant{
			V2_20_5: {Fail, []string{"Tuner: failed to find ncclTunerPlugin_v1 in plugin (/opt/t/libt2.so), using default tuner instead."}},
			V2_21_5: {Pass, []string{"TUNER/Plugin: Using tuner plugin t2"}},
		}},
}

// initWithLibs initialises release v on a v100x4 whose every node holds
// libs, under env.
func initWithLibs(t *testing.T, v Version, libs []Library, env Env) *Comm {
	t.Helper()
	sys, err := Preset("v100x4", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range sys.Nodes {
		sys.Nodes[i].Libs = slices.Clone(libs)
	}
	comm, err := Init(MustLoad(v), sys, env)
	if err != nil {
		t.Fatal(err)
	}
	return comm
}

// TestPluginLoadersBefore2_22 walks the net, CollNet and tuner loaders of
// 2.18.6–2.22.3 through their lines.
func TestPluginLoadersBefore2_22(t *testing.T) {
	for _, c := range loaderCases {
		for v, w := range c.want {
			t.Run(fmt.Sprintf("%s/%s/%s", v, c.rule, c.name), func(t *testing.T) {
				comm := initWithLibs(t, v, c.libs, c.env)
				var got *Verdict
				for i := range comm.Trace {
					if comm.Trace[i].Rule == c.rule {
						got = &comm.Trace[i]
						break
					}
				}
				if got == nil {
					t.Fatalf("rule %s is not in the %s trace", c.rule, v)
				}
				if got.Outcome != w.out {
					t.Errorf("%s: %s (%s), want %s", c.rule, got.Outcome, got.Why, w.out)
				}
				for _, l := range w.logs {
					if !slices.Contains(got.Log, l) {
						t.Errorf("%s: no line %q in\n%s", c.rule, l, strings.Join(got.Log, "\n"))
					}
				}
			})
		}
	}
}

// TestLibNameForms holds each loader form's file names, worked from
// openPluginLib (openProfilerPluginLib for namesTwice) at its tags.
func TestLibNameForms(t *testing.T) {
	for _, c := range []struct {
		form       libNameForm
		name, want string
	}{
		{namesCond, "", "libnccl-net.so"},
		{namesCond, "ofi", "ofi libnccl-net-ofi.so"},
		{namesCond, "libfoo.so", "libfoo.so"},
		{namesCond, "lib.so", "lib.so"},
		{namesCond, "/opt/foo", "/opt/foo"},
		{namesCond, "libso", "libso libnccl-net-libso.so"},
		{namesOne, "libfoo.so", "libfoo.so"},
		{namesOne, "lib.so", "libnccl-net-lib.so.so"},
		{namesOne, "/opt/libfoo.so", "libnccl-net-/opt/libfoo.so.so"},
		{namesOne, "ofi", "libnccl-net-ofi.so"},
		{namesBoth, "/opt/foo", "/opt/foo libnccl-net-/opt/foo.so"},
		{namesBoth, "libfoo.so", "libfoo.so libnccl-net-libfoo.so.so"},
		{namesTwice, "ofi", "ofi ofi"},
		{namesTwice, "", "libnccl-net.so"},
	} {
		if got := strings.Join(c.form.libNames("libnccl-net", c.name), " "); got != c.want {
			t.Errorf("form %d, %q: got %q, want %q", c.form, c.name, got, c.want)
		}
	}
}

func TestPluginList(t *testing.T) {
	long := strings.Repeat("x", 255)
	for _, c := range []struct {
		val, entries, logs string
	}{
		{"a,,b", "a b", ""},
		{",", "", ""},
		{"a," + long + ",b", "a b", "NCCL_X list contains a plugin name " + long + " longer than 255 characters, ignoring it."},
		{"a," + long[1:], "a " + long[1:], ""},
		{"a,b,c,d", "a b", "NCCL_X list contains more than 1 plugins, ignoring the rest"},
	} {
		entries, logs := pluginList("NCCL_X", c.val, 2, 1)
		if got := strings.Join(entries, " "); got != c.entries {
			t.Errorf("%q: entries %q, want %q", c.val, got, c.entries)
		}
		if got := strings.Join(logs, "|"); got != c.logs {
			t.Errorf("%q: logs %q, want %q", c.val, got, c.logs)
		}
	}
}

// TestTunerLoaderLines2_26 holds the tuner loader's whole log, line for
// line, at every tag of the common loader before 2.28.3 (openPluginLib's
// "Plugin name set by env", dlerror alone, the lone fallback sentence,
// "none" as a name), with 2.28.3 and 2.28.9 beside them.
func TestTunerLoaderLines2_26(t *testing.T) {
	badDef := Library{Path: "/opt/t/libnccl-tuner.so", InLoaderPath: true, LoadError: "libnccl-tuner.so: undefined symbol: ncclDebugLog"}
	netTuner := Library{Path: "/opt/n/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{8}, TunerSymbols: []int{2},
		Net: &NetBackend{Name: "N", Devices: 1}, Tuner: &tuning.TunerBehaviour{Name: "nt"}}
	pre28 := []Version{V2_26_2, V2_26_3, V2_26_5, V2_26_6, V2_27_3, V2_27_5, V2_27_6, V2_27_7}
	type want struct {
		lib    Outcome
		libLog []string
		abiLog []string // nil: G-TUNER-ABI-1 not checked
	}
	each := func(w want, extra map[Version]want) map[Version]want {
		m := map[Version]want{}
		for _, v := range pre28 {
			m[v] = w
		}
		for v, x := range extra {
			m[v] = x
		}
		return m
	}
	named := []string{"TUNER/Plugin: Plugin name set by env to libnccl-tuner-mine.so"}
	v4v3 := []string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v4 symbol.", "TUNER/Plugin: Failed to find ncclTunerPlugin_v3 symbol."}
	for _, c := range []struct {
		name string
		libs []Library
		env  Env
		want map[Version]want
	}{
		{"NCCL_TUNER_PLUGIN=mine opens the prefixed name", []Library{tunerNamed}, Env{"NCCL_TUNER_PLUGIN": "mine"},
			each(want{Pass, named, []string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v4 symbol.", "TUNER/Plugin: Using tuner plugin mine"}},
				map[Version]want{V2_28_3: {Pass, []string{"NCCL_TUNER_PLUGIN set by environment to mine"}, nil}})},
		{"libnccl-tuner.so does not load", []Library{badDef}, nil,
			each(want{Fail, []string{"TUNER/Plugin: " + badDef.LoadError, "TUNER/Plugin: Using internal tuner plugin."}, nil},
				map[Version]want{V2_28_3: {Fail, []string{"TUNER/Plugin: libnccl-tuner.so: " + badDef.LoadError, "TUNER/Plugin: Using internal tuner plugin."}, nil},
					V2_28_9: {Fail, []string{"TUNER/Plugin: libnccl-tuner.so: " + badDef.LoadError}, nil}})},
		// "none" is a keyword from 2.28.3; before it the net plugin's
		// library is still searched and its tuner loads.
		{"NCCL_TUNER_PLUGIN=none beside a net plugin with a tuner", []Library{netTuner}, Env{"NCCL_TUNER_PLUGIN": "none"},
			each(want{Info, []string{"TUNER/Plugin: Could not find: none libnccl-tuner-none.so. Using internal tuner plugin."}, append(v4v3, "TUNER/Plugin: Using tuner plugin nt")},
				map[Version]want{V2_27_3: {Info, []string{"TUNER/Plugin: Could not find: libnccl-tuner-none.so. Using internal tuner plugin."}, append(v4v3, "TUNER/Plugin: Using tuner plugin nt")},
					V2_28_3: {Fail, []string{"NCCL_TUNER_PLUGIN set by environment to none"}, nil}})},
	} {
		for v, w := range c.want {
			t.Run(fmt.Sprintf("%s/%s", v, c.name), func(t *testing.T) {
				comm := initWithLibs(t, v, c.libs, c.env)
				lib, abi := traceVerdict(comm, "G-TUNER-LIB-1"), traceVerdict(comm, "G-TUNER-ABI-1")
				if lib == nil || abi == nil {
					t.Fatalf("G-TUNER-LIB-1 or G-TUNER-ABI-1 is not in the %s trace", v)
				}
				if lib.Outcome != w.lib || !slices.Equal(lib.Log, w.libLog) {
					t.Errorf("G-TUNER-LIB-1: %s %q (%s), want %s %q", lib.Outcome, lib.Log, lib.Why, w.lib, w.libLog)
				}
				if w.abiLog != nil && !slices.Equal(abi.Log, w.abiLog) {
					t.Errorf("G-TUNER-ABI-1: %q, want %q", abi.Log, w.abiLog)
				}
			})
		}
	}
}

// traceVerdict is rule's first verdict in comm's trace, nil without one.
func traceVerdict(comm *Comm, rule RuleID) *Verdict {
	for i := range comm.Trace {
		if comm.Trace[i].Rule == rule {
			return &comm.Trace[i]
		}
	}
	return nil
}
