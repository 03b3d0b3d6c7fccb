package spec

import (
	"strings"
	"testing"
)

// createOp and destroyOp are an ncclDevCommCreate and an
// ncclDevCommDestroy of the communicator's nth device communicator.
func createOp(q DevCommReqs) GroupOp { return GroupOp{Op: Op{Func: SendRecv}, DevComm: &q} }
func destroyOp(n int) GroupOp        { return GroupOp{Op: Op{Func: SendRecv}, DevCommDestroy: n} }

// destroyCase is calls outside a group (before), then one group (ops),
// on one communicator: per call of both, in order, a prefix of its
// result's Cell, of its release's Cell or of its error's message, and
// the rule that decided it; whyHas must appear in some verdict's why.
type destroyCase struct {
	devCommCase
	before, ops []GroupOp
	whyHas      string
}

func (tc destroyCase) run(t *testing.T) {
	c := tc.comm(t)
	before, g, err := c.SelectAfter(tc.before, tc.ops, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	var ops []*Decision
	var traces []Trace
	for _, b := range before {
		ops, traces = append(ops, b.Ops...), append(traces, b.Traces...)
	}
	ops, traces = append(ops, g.Ops...), append(traces, g.Traces...)
	by := tc.by
	for i, d := range ops {
		if d.DevCommRelease == nil {
			continue
		}
		if got := d.DevCommRelease.Cell(); !strings.HasPrefix(got, tc.want[i]) {
			t.Errorf("call %d: got %q, want %q…", i, got, tc.want[i])
		}
		if d.DecidedBy != "G-DEVCOMM-DESTROY-1" {
			t.Errorf("call %d: decided by %s", i, d.DecidedBy)
		}
		// checkDevComms reads results and errors only
		ops[i] = &Decision{DevComm: &DevCommResult{}, DecidedBy: "G-DEVCOMM-1"}
		tc.want[i] = "devComm"
		for len(by) <= i {
			by = append(by, "")
		}
		by[i] = ""
	}
	checkDevComms(t, ops, traces, tc.want, by, tc.log)
	if tc.whyHas == "" {
		return
	}
	for _, tr := range traces {
		for _, v := range tr {
			if strings.Contains(v.Why, tc.whyHas) {
				return
			}
		}
	}
	t.Errorf("no verdict says %q", tc.whyHas)
}

// TestDevCommDestroy: G-DEVCOMM-DESTROY-1 per release: what
// ncclDevCommDestroy gives back, and what a later ncclDevCommCreate on
// the communicator takes of it.
// Ref: v2.28.3-1 src/dev_runtime.cc ncclDevCommDestroy; v2.28.7-1 the
// same, src/gin/gin_host.cc ncclGinFreeSignalsCounters, src/allocator.cc
// ncclSpaceAlloc; v2.29.7-1 src/dev_runtime.cc ncclDevCommDestroy;
// v2.30.3-1 src/gin/gin_host.cc ncclGinDevCommFree
func TestDevCommDestroy(t *testing.T) {
	sig := func(n int) DevCommReqs { return DevCommReqs{GinSignalCount: n} }
	excl := func(n int) DevCommReqs {
		return DevCommReqs{GinConnectionType: GinConnFull, GinContextCount: &n, GinExclusiveContexts: true}
	}
	pool100 := Env{"NCCL_GIN_SIGNAL_POOL_SIZE": "100"}
	ctr10 := Env{"NCCL_GIN_COUNTER_POOL_SIZE": "10"}
	// at is the communicator: v on nodes DGX H100 nodes under env, and
	// per call of before and ops in order what it gives
	at := func(name string, v Version, nodes int, env Env, want ...string) devCommCase {
		return devCommCase{name: name, v: v, preset: "dgx-h100", nodes: nodes, env: env, want: want}
	}
	allocFail := "Allocation failed. No suitable space found to accommodate size=0x3c within limit=0x64"
	full := DevCommReqs{GinConnectionType: GinConnFull}
	rail := DevCommReqs{GinConnectionType: GinConnRail}
	unallocated0 := "Requested number of exclusive GIN contexts (1) exceeds the unallocated count (0)"
	withBy := func(c devCommCase, by ...RuleID) devCommCase { c.by = by; return c }
	for _, tc := range []destroyCase{
		{devCommCase: at("2.28.3: the resource window only", V2_28_3, 1, nil, "devComm: GIN none", "devComm 1 destroyed", "devComm: GIN none"),
			before: []GroupOp{createOp(DevCommReqs{LSABarrierCount: 1}), destroyOp(1)}, ops: []GroupOp{createOp(DevCommReqs{LSABarrierCount: 1})},
			whyHas: "no GIN in this release"},
		{devCommCase: at("2.28.7: freed signals are taken again", V2_28_7, 1, pool100,
			"devComm: GIN full", "devComm 1 destroyed, 60 signal(s), 0 counter(s) freed", "devComm: GIN full, 4 connection(s), 4 context(s), GDAKI queues of 128, connection reused"),
			before: []GroupOp{createOp(sig(60)), destroyOp(1)}, ops: []GroupOp{createOp(sig(60))}, whyHas: "signals 0..60 of a pool of 100"},
		{devCommCase: withBy(at("2.28.7: without the destroy they do not fit", V2_28_7, 1, pool100, "devComm: GIN full", allocFail), "", "G-DEVCOMM-SHARE-1"),
			before: []GroupOp{createOp(sig(60))}, ops: []GroupOp{createOp(sig(60))}},
		{devCommCase: at("2.28.9: first fit: the lowest free range that fits", V2_28_9, 1, pool100,
			"devComm: GIN full", "devComm: GIN full", "devComm 1 destroyed, 30 signal(s)", "devComm: GIN full", "devComm: GIN full"),
			before: []GroupOp{createOp(sig(30)), createOp(sig(30)), destroyOp(1)}, ops: []GroupOp{createOp(sig(40)), createOp(sig(30))},
			whyHas: "signals 60..100 of a pool of 100"},
		{devCommCase: at("2.29.2: counters freed, not reset", V2_29_2, 2, ctr10, "devComm: GIN full", "devComm 1 destroyed, 0 signal(s), 8 counter(s) freed", "devComm: GIN full"),
			before: []GroupOp{createOp(DevCommReqs{GinCounterCount: 8}), destroyOp(1)}, ops: []GroupOp{createOp(DevCommReqs{GinCounterCount: 8})}, whyHas: "not reset"},
		{devCommCase: at("2.29.3: a destroy in a group runs before the group's creations", V2_29_3, 2, ctr10,
			"devComm: GIN full", "devComm: GIN full", "devComm 1 destroyed, 0 signal(s), 8 counter(s) freed"),
			before: []GroupOp{createOp(DevCommReqs{GinCounterCount: 8})}, ops: []GroupOp{createOp(DevCommReqs{GinCounterCount: 8}), destroyOp(1)}},
		{devCommCase: at("2.29.7: the last exclusive contexts go back", V2_29_7, 2, nil,
			"devComm: GIN full, 1 connection(s), 2 context(s) exclusive", "devComm: GIN full, 1 connection(s), 2 context(s) exclusive",
			"devComm 2 destroyed, 2 exclusive context(s) returned", "devComm: GIN full, 1 connection(s), 2 context(s) exclusive"),
			before: []GroupOp{createOp(excl(2)), createOp(excl(2)), destroyOp(2)}, ops: []GroupOp{createOp(excl(2))}, whyHas: "were the last taken"},
		{devCommCase: at("2.29.7: earlier exclusive contexts stay taken", V2_29_7, 2, nil,
			"devComm: GIN full", "devComm: GIN full", "devComm 1 destroyed, 2 context(s) not returned", unallocated0),
			before: []GroupOp{createOp(excl(2)), createOp(excl(2)), destroyOp(1)}, ops: []GroupOp{createOp(excl(1))}, whyHas: "stay taken"},
		{devCommCase: at("2.29.7: shared contexts are not given back", V2_29_7, 2, nil,
			"devComm: GIN full, 1 connection(s), 4 context(s)", "devComm 1 destroyed, 4 context(s) not returned", unallocated0),
			before: []GroupOp{createOp(full), destroyOp(1)}, ops: []GroupOp{createOp(excl(1))}, whyHas: "shared context(s) are not given back"},
		{devCommCase: at("2.29.7: signals reset and freed", V2_29_7, 2, nil,
			"devComm: GIN full", "devComm 1 destroyed, 307200 signal(s), 0 counter(s) freed after a reset", "devComm: GIN full"),
			before: []GroupOp{createOp(DevCommReqs{GinConnectionType: GinConnFull, GinSignalCount: 307200}), destroyOp(1)},
			ops:    []GroupOp{createOp(DevCommReqs{GinConnectionType: GinConnFull, GinSignalCount: 307200})}, whyHas: "reset to 0"},
		{devCommCase: at("2.30.3: its own contexts destroyed", V2_30_3, 2, nil,
			"devComm: GIN full, 1 connection(s), 4 context(s)", "devComm 1 destroyed, 4 context(s) destroyed", "devComm: GIN full, 1 connection(s), 4 context(s)"),
			before: []GroupOp{createOp(excl(4)), destroyOp(1)}, ops: []GroupOp{createOp(excl(4))}, whyHas: "ncclGinDevCommFree"},
		{devCommCase: at("2.30.4: the connection stays for one that asks no GIN", V2_30_4, 2, nil,
			"devComm: GIN full", "devComm 1 destroyed, 4 context(s) destroyed", "devComm: GIN full, 1 connection(s), 4 context(s), GDAKI queues of 128, connection reused"),
			before: []GroupOp{createOp(full), destroyOp(1)}, ops: []GroupOp{createOp(DevCommReqs{})}, whyHas: "the GIN connection stays"},
		{devCommCase: at("2.30.7: its own contexts destroyed", V2_30_7, 2, nil,
			"devComm: GIN full, 1 connection(s), 4 context(s) on the rail team", "devComm 1 destroyed, 4 context(s) destroyed", "devComm: GIN full, 1 connection(s), 4 context(s) on the rail team"),
			before: []GroupOp{createOp(rail), destroyOp(1)}, ops: []GroupOp{createOp(rail)}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestDevCommDestroyNotLive: a destroy of a device communicator that is
// not live is NCCL's undefined behaviour (ncclDevCommDestroy trusts the
// ncclDevComm it is given), answered on the call's release at every
// release that has the call; before 2.28.3 there is no call, refused.
func TestDevCommDestroyNotLive(t *testing.T) {
	for _, tc := range []struct {
		name        string
		v           Version
		before, ops []GroupOp
		want        string // in the last operation's Undefined; "" with err
		err         string
	}{
		{"none made", V2_28_3, nil, []GroupOp{destroyOp(1)}, "made 0 device communicator(s) before", ""},
		{"made in the same group", V2_28_7, nil, []GroupOp{createOp(DevCommReqs{}), destroyOp(1)}, "made only at ncclGroupEnd", ""},
		{"destroyed twice 2.28.7", V2_28_7, []GroupOp{createOp(DevCommReqs{}), destroyOp(1)}, []GroupOp{destroyOp(1)}, "destroyed already", ""},
		{"destroyed twice 2.29.7", V2_29_7, []GroupOp{createOp(DevCommReqs{}), destroyOp(1)}, []GroupOp{destroyOp(1)}, "use after free", ""},
		{"destroyed twice 2.30.7", V2_30_7, []GroupOp{createOp(DevCommReqs{}), destroyOp(1)}, []GroupOp{destroyOp(1)}, "No allocation found", ""},
		{"its creation failed", V2_28_3, []GroupOp{createOp(DevCommReqs{LSAMultimem: true})}, []GroupOp{destroyOp(1)}, "its ncclDevCommCreate failed", ""},
		{"no such call before 2.28.3", V2_27_7, nil, []GroupOp{destroyOp(1)}, "", "has no ncclDevCommDestroy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// 2 GPUs have no NVLS: lsaMultimem fails
			preset := "dgx-h100"
			if tc.name == "its creation failed" {
				preset = "h200x2"
			}
			c := devCommCase{v: tc.v, preset: preset, nodes: 1}.comm(t)
			_, g, err := c.SelectAfter(tc.before, tc.ops, Launch{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("got %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want the call answered", err)
			}
			d := g.Ops[len(g.Ops)-1]
			if d.DevCommRelease == nil || !strings.Contains(d.DevCommRelease.Undefined, tc.want) || d.Err != nil || d.DecidedBy != "G-DEVCOMM-DESTROY-1" {
				t.Errorf("got %+v (err %v), want an undefined release saying %q", d.DevCommRelease, d.Err, tc.want)
			}
			if rel := d.DevCommRelease; rel != nil && (rel.Signals != 0 || rel.Counters != 0 || rel.ContextsReturned != 0 || rel.ContextsDestroyed != 0) {
				t.Errorf("release %+v: an undefined destroy gives nothing back in the model", rel)
			}
		})
	}
}

// TestDevCommSignals: G-DEVCOMM-SIGNAL-1 (2.30.7): the strong and VA
// signals a device communicator requires (both by default) against what
// the assigned GIN's getGinProperties reports; before 2.30.7 the fields
// do not exist.
// Ref: v2.30.7-1 src/gin/gin_host.cc ncclGinDevCommSetup, src/plugin/gin.cc
// ncclGinPluginAssignToComm, src/plugin/gin/gin_v13.cc
// ncclGin_getGinProperties
func TestDevCommSignals(t *testing.T) {
	no := false
	gin := func(abi int, b GinBackend) []Library {
		return []Library{{Path: "/opt/g/libnccl-gin.so", InLoaderPath: true, GinSymbols: []int{abi}, GinName: "G" + map[int]string{13: "13", 14: "14"}[abi], Gin: &b}}
	}
	full := DevCommReqs{GinConnectionType: GinConnFull}
	weak := DevCommReqs{GinConnectionType: GinConnFull, GinStrongSignalsRequired: &no}
	noVA := DevCommReqs{GinConnectionType: GinConnFull, GinVaSignalsRequired: &no}
	sigRule := RuleID("G-DEVCOMM-SIGNAL-1")
	for _, tc := range []devCommCase{
		{name: "the internal GDAKI GIN has both", v: V2_30_7, preset: "dgx-h100", nodes: 2,
			reqs: []DevCommReqs{full}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), GDAKI queues of 128"}},
		{name: "the GIN proxy over RMA has both", v: V2_30_7, preset: "dgx-h100", nodes: 2, env: Env{"NCCL_GIN_TYPE": "2"},
			reqs: []DevCommReqs{full}, want: []string{"devComm: GIN full, 1 connection(s), 4 context(s), proxy queues of 256"}},
		{name: "a v14 plugin without strong signals", v: V2_30_7, preset: "dgx-h100", nodes: 2, libs: gin(14, GinBackend{Devices: 1, NoStrongSignals: true}),
			reqs: []DevCommReqs{full}, want: []string{strongSignalsWarn}, by: []RuleID{sigRule}},
		{name: "weak legacy signals need no strong ones", v: V2_30_7, preset: "dgx-h100", nodes: 2, libs: gin(14, GinBackend{Devices: 1, NoStrongSignals: true}),
			reqs: []DevCommReqs{weak}, want: []string{"devComm: GIN full"}},
		{name: "a v14 plugin without VA signals", v: V2_30_7, preset: "dgx-h100", nodes: 2, libs: gin(14, GinBackend{Devices: 1, NoVASignals: true}),
			reqs: []DevCommReqs{weak}, want: []string{vaSignalsWarn}, by: []RuleID{sigRule}},
		{name: "no VA signals required", v: V2_30_7, preset: "dgx-h100", nodes: 2, libs: gin(14, GinBackend{Devices: 1, NoVASignals: true}),
			reqs: []DevCommReqs{noVA}, want: []string{"devComm: GIN full"}},
		{name: "symTeamObtain's multimem refusal comes first", v: V2_30_7, preset: "dgx-h100", nodes: 2, libs: gin(14, GinBackend{Devices: 1, NoStrongSignals: true}), env: Env{"NCCL_NVLS_ENABLE": "0"},
			reqs: []DevCommReqs{{GinConnectionType: GinConnFull, LSAMultimem: true}}, want: []string{"Multicast support requested for team but none available on system."}},
		{name: "the v13 adapter reports both", v: V2_30_7, preset: "dgx-h100", nodes: 2, libs: gin(13, GinBackend{Devices: 1, NoStrongSignals: true, NoVASignals: true}),
			reqs: []DevCommReqs{full}, want: []string{"devComm: GIN full"}},
	} {
		t.Run(tc.name, tc.run)
	}
	c := devCommCase{v: V2_30_7, preset: "dgx-h100", nodes: 2}.comm(t)
	g, err := c.SelectGroup([]GroupOp{createOp(full), createOp(weak)}, Launch{})
	if err != nil {
		t.Fatal(err)
	}
	if d0, d1 := g.Ops[0].DevComm, g.Ops[1].DevComm; d0 == nil || d1 == nil || !d0.StrongSignals || d1.StrongSignals {
		t.Errorf("legacy signals: got %+v and %+v, want strong, then weak", d0, d1)
	}
	for _, v := range []Version{V2_28_7, V2_29_7, V2_30_4} {
		c := devCommCase{v: v, preset: "dgx-h100", nodes: 2}.comm(t)
		if _, err := c.SelectGroup([]GroupOp{createOp(DevCommReqs{GinStrongSignalsRequired: &no})}, Launch{}); err == nil || !strings.Contains(err.Error(), "it appears in 2.30.7") {
			t.Errorf("%s: ginStrongSignalsRequired: got %v, want the field refused", v, err)
		}
	}
}
