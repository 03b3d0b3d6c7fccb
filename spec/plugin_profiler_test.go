package spec

import (
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
)

// profilerWindows is the ncclProfiler_vN look-up order of every modelled
// release, newest first, read from the loaders at each tag (nil: no
// profiler plugin).
var profilerWindows = map[Version][]int{
	V2_22_3: nil,
	V2_23_4: {1},
	V2_24_3: {2, 1}, V2_25_1: {2, 1},
	V2_26_2: {3, 2, 1}, V2_26_6: {3, 2, 1},
	V2_27_3: {4, 3, 2, 1}, V2_27_7: {4, 3, 2, 1},
	V2_28_3: {5, 4, 3, 2, 1}, V2_28_9: {5, 4, 3, 2, 1},
	V2_29_2: {6, 5, 4, 3, 2, 1}, V2_30_7: {6, 5, 4, 3, 2, 1},
}

// TestProfilerWindows checks the window per release and that G-PROF-1 is
// in a release's rules exactly when the window is not empty, in the
// position its loader runs (after the network, or inside
// initTransportsRank from 2.28.3).
func TestProfilerWindows(t *testing.T) {
	for _, v := range Releases {
		rs := MustLoad(v)
		if w, ok := profilerWindows[v]; ok && !slices.Equal(rs.Consts.ProfilerABI, w) {
			t.Errorf("%s: ProfilerABI %v, want %v", v, rs.Consts.ProfilerABI, w)
		}
		i := slices.Index(rs.Init, "G-PROF-1")
		if (i >= 0) != (len(rs.Consts.ProfilerABI) > 0) {
			t.Errorf("%s: G-PROF-1 at %d with window %v", v, i, rs.Consts.ProfilerABI)
		}
		if i < 0 {
			continue
		}
		after := rs.Init[i-1]
		if v.Within(V2_28_3, V2_30_7) {
			if after != "G-COLLNET-THRESH-1" {
				t.Errorf("%s: G-PROF-1 after %s, want G-COLLNET-THRESH-1", v, after)
			}
		} else if after != "G-NET-SEL-1" && after != "G-NET-LIB-3" {
			t.Errorf("%s: G-PROF-1 after %s, want the net choice", v, after)
		}
	}
}

// TestPluginWindowsAtTags reads every "<symbol>N" literal of the
// profiler, GIN and RMA loaders at each tag (NCCL's git mirror; skipped
// without it): the release's window is exactly those versions.
func TestPluginWindowsAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	for _, c := range []struct {
		symbol string
		paths  []string
		window func(Consts) []int
	}{
		{"ncclProfiler_v", []string{"src/misc/profiler.cc", "src/plugin/profiler.cc", "src/plugin/profiler"}, func(c Consts) []int { return c.ProfilerABI }},
		{"ncclGinPlugin_v", []string{"src/plugin"}, func(c Consts) []int { return c.GinABI }},
		{"ncclRmaPlugin_v", []string{"src/plugin"}, func(c Consts) []int { return c.RmaABI }},
	} {
		sym := regexp.MustCompile(`"` + c.symbol + `([0-9]+)"`)
		for _, v := range Releases {
			var found []int
			for _, path := range c.paths {
				out, err := exec.Command("git", "-C", repo, "grep", "-h", c.symbol, v.Tag(), "--", path).Output()
				if err != nil {
					continue // git grep exits 1 when nothing matches
				}
				for _, m := range sym.FindAllStringSubmatch(string(out), -1) {
					n, _ := strconv.Atoi(m[1])
					if !slices.Contains(found, n) {
						found = append(found, n)
					}
				}
			}
			sort.Sort(sort.Reverse(sort.IntSlice(found)))
			if got := c.window(MustLoad(v).Consts); !slices.Equal(got, found) && !(len(got) == 0 && len(found) == 0) {
				t.Errorf("%s: %sN window %v, the source at %s names %v", v, c.symbol, got, v.Tag(), found)
			}
		}
	}
}

// profilerCase is one library set-up and the G-PROF-1 outcome and lines
// per release (whole lines, worked from each tag's loader).
type profilerCase struct {
	name string
	libs []Library
	env  Env
	want map[Version]loaderWant
	// absent are lines that must not be printed
	absent map[Version][]string
}

var (
	profV1   = Library{Path: "/opt/p/libnccl-profiler.so", InLoaderPath: true, ProfilerSymbols: []int{1}, Profiler: &ProfilerBackend{Name: "Example-v1"}}
	profV5   = Library{Path: "/opt/p/libnccl-profiler-mine.so", InLoaderPath: true, ProfilerSymbols: []int{5, 4, 3, 2, 1}, Profiler: &ProfilerBackend{Name: "Mine"}}
	profBad  = Library{Path: "/opt/p/libnccl-profiler.so", InLoaderPath: true, ProfilerSymbols: []int{2}, Profiler: &ProfilerBackend{Name: "Bad", InitError: 3}}
	profNone = Library{Path: "/opt/p/libnccl-profiler.so", InLoaderPath: true}
	netProf  = Library{Path: "/opt/net/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{8}, Net: &NetBackend{Name: "N8", Devices: 1}, ProfilerSymbols: []int{4}, Profiler: &ProfilerBackend{Name: "InNet"}}
)

var profilerCases = []profilerCase{
	{name: "no library",
		want: map[Version]loaderWant{
			V2_23_4: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler.so."}},
			V2_25_1: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler.so."}},
			V2_26_2: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler.so. "}},
			V2_27_7: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler.so. "}},
			V2_28_3: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler.so"}},
			V2_30_7: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler.so"}},
		}},
	// 2.23.4–2.25.1 try the value twice; 2.26.2 adds the prefixed name;
	// 2.27.3 tries only the prefixed name of a value that is not lib*.so.
	{name: "NCCL_PROFILER_PLUGIN=foo opens nothing", env: Env{"NCCL_PROFILER_PLUGIN": "foo"},
		want: map[Version]loaderWant{
			V2_23_4: {Skip, []string{"PROFILER/Plugin: Could not find: foo foo."}},
			V2_26_6: {Skip, []string{"PROFILER/Plugin: Could not find: foo libnccl-profiler-foo.so. "}},
			V2_27_3: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler-foo.so. "}},
			V2_27_5: {Skip, []string{"PROFILER/Plugin: Could not find: foo libnccl-profiler-foo.so. "}},
			V2_28_3: {Skip, []string{"NCCL_PROFILER_PLUGIN set by environment to foo", "PROFILER/Plugin: Could not find: foo libnccl-profiler-foo.so"}},
		}},
	{name: "v1 profiler by its default name", libs: []Library{profV1},
		want: map[Version]loaderWant{
			V2_23_4: {Pass, nil},
			V2_24_3: {Pass, []string{"PROFILER/Plugin: failed to find ncclProfiler_v2.", "PROFILER/Plugin: loaded ncclProfiler_v1."}},
			V2_26_2: {Pass, []string{"PROFILER/Plugin: failed to find ncclProfiler_v3", "PROFILER/Plugin: failed to find ncclProfiler_v2", "PROFILER/Plugin: loaded Example-v1"}},
			V2_27_3: {Pass, []string{"PROFILER/Plugin: failed to find ncclProfiler_v4", "PROFILER/Plugin: loaded Example-v1"}},
			V2_28_3: {Pass, []string{"PROFILER/Plugin: Loaded Example-v1 (v1)", "Successfully loaded external profiler plugin /opt/p/libnccl-profiler.so"}},
			V2_30_7: {Pass, []string{"PROFILER/Plugin: Loaded Example-v1 (v1)"}},
		},
		absent: map[Version][]string{V2_28_3: {"PROFILER/Plugin: failed to find ncclProfiler_v5"}}},
	{name: "a library without profiler symbols", libs: []Library{profNone},
		want: map[Version]loaderWant{
			V2_23_4: {Fail, []string{"PROFILER/Plugin: failed to find ncclProfiler_v1."}},
			V2_24_3: {Fail, []string{"PROFILER/Plugin: failed to find ncclProfiler_v2.", "PROFILER/Plugin: failed to find ncclProfiler_v1."}},
			V2_26_2: {Fail, []string{"PROFILER/Plugin: failed to find ncclProfiler_v1."}},
			V2_29_2: {Fail, []string{"External profiler plugin /opt/p/libnccl-profiler.so is unsupported"}},
		}},
	{name: "NCCL_PROFILER_PLUGIN=mine, a v5 profiler", libs: []Library{profV5}, env: Env{"NCCL_PROFILER_PLUGIN": "mine"},
		want: map[Version]loaderWant{
			V2_25_1: {Skip, []string{"PROFILER/Plugin: Could not find: mine mine."}},
			V2_26_2: {Pass, []string{"PROFILER/Plugin: Plugin name set by env to libnccl-profiler-mine.so", "PROFILER/Plugin: loaded Mine"}},
			V2_27_7: {Pass, []string{"PROFILER/Plugin: Plugin name set by env to libnccl-profiler-mine.so", "PROFILER/Plugin: loaded Mine"}},
			V2_28_3: {Pass, []string{"PROFILER/Plugin: Loaded Mine (v5)", "Successfully loaded external profiler plugin /opt/p/libnccl-profiler-mine.so"}},
			// v6 first from 2.29.2: silent when absent
			V2_29_2: {Pass, []string{"PROFILER/Plugin: Loaded Mine (v5)"}},
		},
		absent: map[Version][]string{V2_28_3: {"PROFILER/Plugin: Plugin name set by env to libnccl-profiler-mine.so"}}},
	{name: "NCCL_PROFILER_PLUGIN=none", libs: []Library{profV1}, env: Env{"NCCL_PROFILER_PLUGIN": "none"},
		want: map[Version]loaderWant{
			V2_27_7: {Skip, []string{"PROFILER/Plugin: Could not find: none libnccl-profiler-none.so. "}},
			V2_28_3: {Skip, []string{"NCCL_PROFILER_PLUGIN set by environment to none"}},
		}},
	{name: "init fails", libs: []Library{profBad},
		want: map[Version]loaderWant{
			V2_24_3: {Fail, []string{"Profiler init failed with error (3). Continue without profiler."}},
			V2_27_7: {Fail, []string{"Profiler init failed with error (3). Continue without profiler."}},
			V2_28_3: {Fail, []string{"Profiler init failed with error '3': …. Continue without profiler."}},
			V2_29_7: {Fail, nil},
			V2_30_3: {Fail, []string{"Profiler init failed with error '3': …. Continue without profiler."}},
		}},
	// the v1-as-v2 adapter of 2.24.3–2.25.1 drops v1's init result
	{name: "v1 init fails", libs: []Library{{Path: "/opt/p/libnccl-profiler.so", InLoaderPath: true, ProfilerSymbols: []int{1}, Profiler: &ProfilerBackend{Name: "Old", InitError: 1}}},
		want: map[Version]loaderWant{
			V2_23_4: {Fail, []string{"Profiler init failed with error (1). Continue without profiler."}},
			V2_24_3: {Pass, nil},
			V2_26_2: {Fail, nil},
		}},
	// from 2.28.3 the net plugin's library is searched when nothing opens
	{name: "profiler in the net plugin", libs: []Library{netProf},
		want: map[Version]loaderWant{
			V2_27_7: {Skip, nil},
			V2_28_3: {Pass, []string{"PROFILER/Plugin: Loaded InNet (v4)"}},
		},
		absent: map[Version][]string{V2_28_3: {"Successfully loaded external profiler plugin /opt/net/libnccl-net.so"}}},
	// 2.27.3 never opens a path as given
	{name: "a path", libs: []Library{{Path: "/x/libp.so", ProfilerSymbols: []int{3}}}, env: Env{"NCCL_PROFILER_PLUGIN": "/x/libp.so"},
		want: map[Version]loaderWant{
			V2_26_2: {Pass, []string{"PROFILER/Plugin: Plugin name set by env to /x/libp.so", "PROFILER/Plugin: loaded libp.so"}},
			V2_27_3: {Skip, []string{"PROFILER/Plugin: Could not find: libnccl-profiler-/x/libp.so.so. "}},
			V2_27_5: {Pass, nil},
		}},
}

// TestProfilerLoader walks G-PROF-1 through its lines per release; the
// profiler never fails communicator init.
func TestProfilerLoader(t *testing.T) {
	for _, c := range profilerCases {
		for v, w := range c.want {
			t.Run(fmt.Sprintf("%s/%s", v, c.name), func(t *testing.T) {
				comm := initWithLibs(t, v, c.libs, c.env)
				if comm.Err != nil {
					t.Fatalf("communicator init failed: %v", comm.Err)
				}
				var got *Verdict
				for i := range comm.Trace {
					if comm.Trace[i].Rule == "G-PROF-1" {
						got = &comm.Trace[i]
						break
					}
				}
				if got == nil {
					t.Fatalf("G-PROF-1 is not in the %s trace", v)
				}
				if got.Outcome != w.out {
					t.Errorf("%s (%s), want %s", got.Outcome, got.Why, w.out)
				}
				for _, l := range w.logs {
					if !slices.Contains(got.Log, l) {
						t.Errorf("no line %q in\n%s", l, strings.Join(got.Log, "\n"))
					}
				}
				for _, l := range c.absent[v] {
					if slices.Contains(got.Log, l) {
						t.Errorf("line %q printed", l)
					}
				}
			})
		}
	}
}
