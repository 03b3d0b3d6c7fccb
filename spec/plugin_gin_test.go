package spec

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestGinRmaWindows checks the GIN and RMA windows per release and where
// their rules run: GIN in the net loader (2.28.7–2.29.3), its own loader
// after the network (2.29.7+); RMA beside GIN (2.30.3–2.30.4), its own
// loader before GIN (2.30.7).
func TestGinRmaWindows(t *testing.T) {
	for _, c := range []struct {
		v             Version
		gin, rma      []int
		ginAfter      RuleID
		rmaAfter      RuleID
		ginRef, rmaFn string
	}{
		{v: V2_28_3},
		{v: V2_28_7, gin: []int{11}, ginAfter: "G-NET-SEL-1", ginRef: "ncclNetPluginLoad, ncclNetPluginAssignToComm"},
		{v: V2_29_3, gin: []int{11}, ginAfter: "G-NET-SEL-1", ginRef: "ncclNetPluginLoad, ncclNetPluginAssignToComm"},
		{v: V2_29_7, gin: []int{12, 11}, ginAfter: "G-NET-LIB-3", ginRef: "ncclGinInit"},
		{v: V2_30_3, gin: []int{13, 12, 11}, rma: []int{13}, ginAfter: "G-NET-LIB-3", rmaAfter: "G-GIN-1", ginRef: "ncclGinInit", rmaFn: "ncclGinPluginLoad"},
		{v: V2_30_4, gin: []int{13, 12, 11}, rma: []int{13}, ginAfter: "G-NET-LIB-3", rmaAfter: "G-GIN-1", ginRef: "ncclGinInit", rmaFn: "ncclGinPluginLoad"},
		{v: V2_30_7, gin: []int{14, 13}, rma: []int{14, 13}, ginAfter: "G-RMA-1", rmaAfter: "G-NET-LIB-3", ginRef: "ncclGinInit", rmaFn: "ncclRmaInit"},
	} {
		rs := MustLoad(c.v)
		if !slices.Equal(rs.Consts.GinABI, c.gin) || !slices.Equal(rs.Consts.RmaABI, c.rma) {
			t.Errorf("%s: GinABI %v RmaABI %v, want %v %v", c.v, rs.Consts.GinABI, rs.Consts.RmaABI, c.gin, c.rma)
		}
		for _, w := range []struct {
			id    RuleID
			after RuleID
			fn    string
		}{{"G-GIN-1", c.ginAfter, c.ginRef}, {"G-RMA-1", c.rmaAfter, c.rmaFn}} {
			i := slices.Index(rs.Init, w.id)
			if (i >= 0) != (w.after != "") {
				t.Errorf("%s: %s at %d, want after %q", c.v, w.id, i, w.after)
				continue
			}
			if i < 0 {
				continue
			}
			if rs.Init[i-1] != w.after {
				t.Errorf("%s: %s after %s, want after %s", c.v, w.id, rs.Init[i-1], w.after)
			}
			if r, _ := rs.Rule(w.id); r.Ref.Func != w.fn {
				t.Errorf("%s: %s cites %s, want %s", c.v, w.id, r.Ref, w.fn)
			}
		}
	}
}

var (
	netGin   = Library{Path: "/opt/net/libnccl-net.so", InLoaderPath: true, NetSymbols: []int{8}, Net: &NetBackend{Name: "N8", Devices: 1}, GinSymbols: []int{11}, GinName: "NetGin"}
	ginLib13 = Library{Path: "/opt/g/libnccl-gin.so", InLoaderPath: true, GinSymbols: []int{13}, GinName: "G13", RmaSymbols: []int{13}, RmaName: "R13"}
	ginLib12 = Library{Path: "/opt/g/libnccl-gin-x.so", InLoaderPath: true, GinSymbols: []int{12}, GinName: "G12"}
	rmaLib   = Library{Path: "/opt/r/libnccl-rma.so", InLoaderPath: true, RmaSymbols: []int{14}, RmaName: "R14"}
	noSyms   = Library{Path: "/opt/g/libnccl-gin.so", InLoaderPath: true}
)

type ginCase struct {
	name string
	rule RuleID
	libs []Library
	env  Env
	want map[Version]loaderWant
}

var ginCases = []ginCase{
	{name: "GIN in the net plugin", rule: "G-GIN-1", libs: []Library{netGin},
		want: map[Version]loaderWant{
			V2_28_7: {Pass, []string{"NET/Plugin: Loaded gin plugin NetGin (v11)"}},
			V2_29_7: {Pass, []string{"NET/Plugin: Loaded gin plugin NetGin (v11)", "Successfully loaded external gin plugin /opt/net/libnccl-net.so"}},
			// v11 is out of 2.30.7's window
			V2_30_7: {Info, []string{"GIN/Plugin: Could not find: libnccl-gin.so", "GIN/Plugin: Failed to load external plugin libnccl-gin.so, dlHandle: (nil), ncclGin: (nil)"}},
		}},
	{name: "no plugin at all", rule: "G-GIN-1",
		want: map[Version]loaderWant{
			V2_28_7: {Info, nil},
			V2_29_7: {Info, []string{"GIN/Plugin: Could not find: libnccl-gin.so"}},
		}},
	{name: "libnccl-gin.so v13 with RMA", rule: "G-GIN-1", libs: []Library{ginLib13},
		want: map[Version]loaderWant{
			V2_29_7: {Info, []string{"Successfully loaded external gin plugin /opt/g/libnccl-gin.so"}},
			V2_30_3: {Pass, []string{"NET/Plugin: Loaded gin plugin G13 (v13)", "Successfully loaded external gin plugin /opt/g/libnccl-gin.so"}},
			V2_30_7: {Pass, []string{"GIN/Plugin: Loaded gin plugin G13 (v13)", "GIN/Plugin: Successfully loaded external plugin /opt/g/libnccl-gin.so"}},
		}},
	{name: "RMA beside a v13 GIN", rule: "G-RMA-1", libs: []Library{ginLib13},
		want: map[Version]loaderWant{
			// taken but never initialised (left LoadReady): no RMA
			V2_30_3: {Info, []string{"NET/Plugin: Loaded rma plugin R13 (v13)"}},
			// 2.30.7's RMA loader looks for libnccl-rma.so, not the GIN library
			V2_30_7: {Info, []string{"RMA/Plugin: Could not find: libnccl-rma.so"}},
		}},
	{name: "NCCL_GIN_PLUGIN=x, a v12 GIN", rule: "G-GIN-1", libs: []Library{ginLib12}, env: Env{"NCCL_GIN_PLUGIN": "x"},
		want: map[Version]loaderWant{
			V2_28_9: {Info, nil},
			V2_29_7: {Pass, []string{"NCCL_GIN_PLUGIN set by environment to x", "NET/Plugin: Loaded gin plugin G12 (v12)"}},
		}},
	{name: "v12 GIN is its own RMA, never initialised", rule: "G-RMA-1", libs: []Library{ginLib12}, env: Env{"NCCL_GIN_PLUGIN": "x"},
		want: map[Version]loaderWant{V2_30_3: {Info, nil}}},
	{name: "NCCL_GIN_PLUGIN=none", rule: "G-GIN-1", libs: []Library{ginLib13}, env: Env{"NCCL_GIN_PLUGIN": "none"},
		want: map[Version]loaderWant{V2_30_3: {Info, []string{"NCCL_GIN_PLUGIN set by environment to none"}}}},
	{name: "a GIN library without symbols", rule: "G-GIN-1", libs: []Library{noSyms},
		want: map[Version]loaderWant{
			// the success line is printed whatever the symbol look-up found
			V2_29_7: {Info, []string{"Successfully loaded external gin plugin /opt/g/libnccl-gin.so"}},
			V2_30_7: {Info, []string{"GIN/Plugin: Failed to load external plugin /opt/g/libnccl-gin.so, dlHandle: 0x…, ncclGin: (nil)"}},
		}},
	// ncclGinPluginAssignToComm skips a plugin of another type than
	// NCCL_GIN_TYPE (an external one's taken as GDAKI) from 2.30.7
	{name: "NCCL_GIN_TYPE=2 and an external GIN", rule: "G-GIN-1", libs: []Library{ginLib13}, env: Env{"NCCL_GIN_TYPE": "2"},
		want: map[Version]loaderWant{
			V2_30_3: {Pass, []string{"NET/Plugin: Loaded gin plugin G13 (v13)", "Assigned GIN plugin G13 to comm"}},
			V2_30_7: {Info, []string{"GIN/Plugin: Loaded gin plugin G13 (v13)", "GIN/Plugin: Skipping plugin G13 index 0 type 3: NCCL_GIN_TYPE=2 requested"}},
		}},
	{name: "NCCL_GIN_TYPE=3 and an external GIN", rule: "G-GIN-1", libs: []Library{ginLib13}, env: Env{"NCCL_GIN_TYPE": "3"},
		want: map[Version]loaderWant{
			V2_30_7: {Pass, []string{"GIN/Plugin: Assigned plugin G13 type 3 to comm"}},
		}},
	{name: "libnccl-rma.so v14", rule: "G-RMA-1", libs: []Library{rmaLib},
		want: map[Version]loaderWant{
			V2_30_3: {Skip, nil},
			V2_30_7: {Pass, []string{"RMA/Plugin: Loaded rma plugin R14 (v14)", "RMA/Plugin: Successfully loaded external plugin /opt/r/libnccl-rma.so"}},
		}},
}

// TestGinRmaLoaders walks G-GIN-1 and G-RMA-1 through their lines per
// release; neither ever fails communicator init.
func TestGinRmaLoaders(t *testing.T) {
	for _, c := range ginCases {
		for v, w := range c.want {
			t.Run(fmt.Sprintf("%s/%s/%s", v, c.rule, c.name), func(t *testing.T) {
				comm := initWithLibs(t, v, c.libs, c.env)
				if comm.Err != nil {
					t.Fatalf("communicator init failed: %v", comm.Err)
				}
				i := slices.IndexFunc(comm.Trace, func(x Verdict) bool { return x.Rule == c.rule })
				if i < 0 {
					t.Fatalf("%s is not in the %s trace", c.rule, v)
				}
				got := comm.Trace[i]
				if got.Outcome != w.out {
					t.Errorf("%s (%s), want %s", got.Outcome, got.Why, w.out)
				}
				for _, l := range w.logs {
					if !slices.Contains(got.Log, l) {
						t.Errorf("no line %q in\n%s", l, strings.Join(got.Log, "\n"))
					}
				}
			})
		}
	}
}

// TestGinRmaInitFails: a GIN or RMA plugin whose init fails or whose
// devices() reports 0 is disabled without a line of its own, the next
// library is tried, and communicator init still succeeds.
func TestGinRmaInitFails(t *testing.T) {
	initFails := &GinBackend{InitError: "ncclSystemError"}
	noDevices := &GinBackend{Devices: 0}
	withGin := func(l Library, b *GinBackend) Library { l.Gin = b; return l }
	withRma := func(l Library, b *GinBackend) Library { l.Rma = b; return l }
	netGin13 := netGin
	netGin13.Path, netGin13.GinSymbols, netGin13.GinName = "/opt/net/libnccl-net.so", []int{13}, "NetGin13"
	cases := []struct {
		name string
		v    Version
		rule RuleID
		libs []Library
		out  Outcome
		why  string
		logs []string
	}{
		{name: "GIN in the net plugin, init fails", v: V2_28_7, rule: "G-GIN-1", libs: []Library{withGin(netGin, initFails)}, out: Info,
			why: "init() fails: ncclSystemError, so GIN is disabled", logs: []string{"NET/Plugin: Loaded gin plugin NetGin (v11)"}},
		{name: "GIN in the net plugin, no devices", v: V2_29_2, rule: "G-GIN-1", libs: []Library{withGin(netGin, noDevices)}, out: Info,
			why: "devices() reports 0, so GIN is disabled", logs: []string{"NET/Plugin: Loaded gin plugin NetGin (v11)"}},
		{name: "the net plugin's GIN, init fails", v: V2_29_7, rule: "G-GIN-1", libs: []Library{withGin(netGin, initFails)}, out: Info,
			why:  "no external GIN plugin initialises (/opt/net/libnccl-net.so: init() fails: ncclSystemError; each is disabled): the internal IB GIN is tried",
			logs: []string{"GIN/Plugin: Could not find: libnccl-gin.so", "NET/Plugin: Loaded gin plugin NetGin (v11)", "Successfully loaded external gin plugin /opt/net/libnccl-net.so", "Failed to initialize any GIN plugin"}},
		{name: "libnccl-gin.so without devices, the net plugin's GIN next", v: V2_30_3, rule: "G-GIN-1", libs: []Library{withGin(ginLib13, noDevices), netGin}, out: Pass,
			why: "ncclGinPlugin_v11 in /opt/net/libnccl-net.so (the net plugin's library)",
			logs: []string{"NET/Plugin: Loaded gin plugin G13 (v13)", "Successfully loaded external gin plugin /opt/g/libnccl-gin.so",
				"NET/Plugin: Loaded gin plugin NetGin (v11)", "Successfully loaded external gin plugin /opt/net/libnccl-net.so", "Assigned GIN plugin NetGin to comm"}},
		{name: "RMA beside a v13 GIN is never initialised, its init error unseen", v: V2_30_3, rule: "G-RMA-1", libs: []Library{withRma(ginLib13, initFails)}, out: Info,
			why: "ncclRmaPlugin_v13 beside the GIN plugin, which ncclGinPluginLoad leaves LoadReady: never initialised nor assigned", logs: []string{"NET/Plugin: Loaded rma plugin R13 (v13)"}},
		{name: "libnccl-gin.so and the net plugin's GIN both fail", v: V2_30_7, rule: "G-GIN-1", libs: []Library{withGin(ginLib13, initFails), withGin(netGin13, noDevices)}, out: Info,
			why: "(/opt/g/libnccl-gin.so: init() fails: ncclSystemError; /opt/net/libnccl-net.so: devices() reports 0; each is disabled)",
			logs: []string{"GIN/Plugin: Loaded gin plugin G13 (v13)", "GIN/Plugin: Successfully loaded external plugin /opt/g/libnccl-gin.so",
				"GIN/Plugin: Loaded gin plugin NetGin13 (v13)", "GIN/Plugin: Successfully loaded external plugin /opt/net/libnccl-net.so", "GIN/Plugin: Failed to initialize any GIN plugin"}},
		{name: "libnccl-rma.so, init fails", v: V2_30_7, rule: "G-RMA-1", libs: []Library{withRma(rmaLib, initFails)}, out: Info,
			why:  "no external RMA plugin initialises (/opt/r/libnccl-rma.so: init() fails: ncclSystemError; each is disabled): the internal IB proxy RMA is tried",
			logs: []string{"RMA/Plugin: Loaded rma plugin R14 (v14)", "RMA/Plugin: Successfully loaded external plugin /opt/r/libnccl-rma.so", "RMA/Plugin: Failed to initialize any plugin"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s", c.v, c.name), func(t *testing.T) {
			comm := initWithLibs(t, c.v, c.libs, nil)
			if comm.Err != nil {
				t.Fatalf("communicator init failed: %v", comm.Err)
			}
			i := slices.IndexFunc(comm.Trace, func(x Verdict) bool { return x.Rule == c.rule })
			if i < 0 {
				t.Fatalf("%s is not in the %s trace", c.rule, c.v)
			}
			got := comm.Trace[i]
			if got.Outcome != c.out || !strings.Contains(got.Why, c.why) {
				t.Errorf("%s (%s), want %s (%s)", got.Outcome, got.Why, c.out, c.why)
			}
			if c.out == Info && !pluginReported(got) {
				t.Errorf("a disabled %s is not in explain's summary: %v", c.rule, got.Facts)
			}
			if !slices.Equal(got.Log, c.logs) {
				t.Errorf("lines\n%s\nwant\n%s", strings.Join(got.Log, "\n"), strings.Join(c.logs, "\n"))
			}
		})
	}
}

// TestGinRmaAssigned: a GIN or RMA plugin NCCL assigns to the
// communicator prints that it did ("Assigned GIN plugin %s to comm"
// 2.29.7–2.30.4, "GIN/Plugin: Assigned plugin %s type 3 to comm" and
// "RMA/Plugin: Assigned plugin %s to comm" 2.30.7) and is a candidate, as
// an assigned network is; 2.28.7–2.29.3's GIN inside the net plugin is
// assigned with it ("Assigned GIN plugin %s to comm") when that plugin is
// the communicator's network, and only usable otherwise. 2.30.3–2.30.4
// never assign an external plugin's RMA.
func TestGinRmaAssigned(t *testing.T) {
	for _, tc := range []struct {
		v     Version
		rule  RuleID
		libs  []Library
		env   Env
		level Level
		line  string
	}{
		{V2_28_7, "G-GIN-1", []Library{netGin}, nil, LevelCandidate, "Assigned GIN plugin NetGin to comm"},
		// NCCL_NET=Socket: the net plugin is not the communicator's
		{V2_29_2, "G-GIN-1", []Library{netGin}, Env{"NCCL_NET": "Socket"}, LevelUsable, ""},
		{V2_29_7, "G-GIN-1", []Library{ginLib12}, Env{"NCCL_GIN_PLUGIN": "x"}, LevelCandidate, "Assigned GIN plugin G12 to comm"},
		{V2_30_3, "G-GIN-1", []Library{ginLib13}, nil, LevelCandidate, "Assigned GIN plugin G13 to comm"},
		{V2_30_3, "G-RMA-1", []Library{ginLib13}, nil, LevelNone, ""},
		{V2_30_7, "G-GIN-1", []Library{ginLib13}, nil, LevelCandidate, "GIN/Plugin: Assigned plugin G13 type 3 to comm"},
		{V2_30_7, "G-RMA-1", []Library{rmaLib}, nil, LevelCandidate, "RMA/Plugin: Assigned plugin R14 to comm"},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.v, tc.rule), func(t *testing.T) {
			comm := initWithLibs(t, tc.v, tc.libs, tc.env)
			got, ok := comm.Trace.Find(tc.rule)
			if !ok {
				t.Fatalf("no %s", tc.rule)
			}
			if got.Level != tc.level {
				t.Errorf("level %s (%s %s), want %s", got.Level, got.Outcome, got.Why, tc.level)
			}
			var assigned []string
			for _, l := range got.Log {
				if strings.Contains(l, "Assigned ") {
					assigned = append(assigned, l)
				}
			}
			if want := []string{tc.line}; tc.line == "" && len(assigned) > 0 || tc.line != "" && !slices.Equal(assigned, want) {
				t.Errorf("assignment lines %q, want %q", assigned, tc.line)
			}
		})
	}
}
