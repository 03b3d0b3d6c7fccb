package spec

import (
	"fmt"
	"strings"
	"testing"
)

func TestGroupSemantics(t *testing.T) {
	cases := []struct {
		name, script string
		rule         RuleID
		want         Outcome
		results      []Result // per call, when given
	}{
		{"end without start", "groupEnd", "G-GROUP-END-1", Fail, []Result{InvalidUsage}},
		{"outermost end launches", "init c0\ngroupStart\nallreduce c0 1MiB\nallreduce c0 4KiB\ngroupEnd", "G-GROUP-ENQUEUE-1", Pass, []Result{Success, Success, Success, Success, Success}},
		{"inner end launches nothing", "init c0\ngroupStart\ngroupStart\nallreduce c0 1MiB\ngroupEnd\ngroupEnd", "G-GROUP-ENQUEUE-1", Info, nil},
		{"open group never launches", "init c0\ngroupStart\nallreduce c0 1MiB", "G-GROUP-ENQUEUE-1", Fail, nil},
		{"sync inside the group", "init c0\ngroupStart\nallreduce c0 1MiB\nsync c0\ngroupEnd", "G-GROUP-SYNC-1", Fail, nil},
		{"init and collective in one group", "groupStart\ninit c0\nallreduce c0 1MiB\ngroupEnd", "G-GROUP-INIT-1", Fail, nil},
		{"mixed blocking modes", "groupStart\ninit c0\ninit c1 nonblocking\ngroupEnd", "G-GROUP-MIX-1", Fail, []Result{Success, Success, InvalidArgument, Success}},
		{"nonblocking returns in progress", "init c0 nonblocking\nasyncError c0\ngroupStart\nallreduce c0 1MiB\ngroupEnd", "G-GROUP-NONBLOCK-1", Info,
			[]Result{InProgress, Success, Success, Success, InProgress}},
		{"nonblocking used too early", "init c0 nonblocking\nallreduce c0 1MiB", "G-GROUP-NONBLOCK-1", Fail, []Result{InProgress, InvalidArgument}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls, err := ParseCalls("t", []byte(c.script))
			if err != nil {
				t.Fatal(err)
			}
			rs := MustLoad(V2_28_9)
			res, tr, err := CheckGroup(rs, calls)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, v := range tr {
				if r, ok := rs.Rule(v.Rule); !ok || !r.AtCall() || v.Ref == nil || *v.Ref != r.Ref || v.Ref.Func == "" {
					t.Errorf("verdict %s cites %v: want its group-call rule's reference in the release", v.Rule, v.Ref)
				}
				if v.Rule == c.rule && v.Outcome == c.want {
					found = true
				}
			}
			if !found {
				t.Errorf("no %s %s verdict in %v", c.rule, c.want, tr)
			}
			for i, want := range c.results {
				if res[i].Result != want {
					t.Errorf("call %d (%s): %s, want %s", i+1, res[i].Call.Kind, res[i].Result, want)
				}
			}
		})
	}
}

func TestEveryGroupRuleIsExercised(t *testing.T) {
	// the table above names every group-call rule; TestSelectGroupVerdicts
	// the planning ones. Every release lists them in its registry (Validate
	// checks their IDs, docs and references; Timeline gives their releases).
	named := map[RuleID]bool{"G-GROUP-END-1": true, "G-GROUP-ENQUEUE-1": true, "G-GROUP-SYNC-1": true, "G-GROUP-INIT-1": true, "G-GROUP-MIX-1": true, "G-GROUP-NONBLOCK-1": true}
	for _, v := range Releases {
		rs := MustLoad(v)
		if len(rs.Call) != len(named) {
			t.Errorf("%s: %d group-call rules %v, want %d", v, len(rs.Call), rs.Call, len(named))
		}
		for _, id := range rs.Call {
			r, _ := rs.Rule(id)
			if !named[id] || !r.AtCall() {
				t.Errorf("%s: group-call rule %s has no case or is not evaluated at calls", v, id)
			}
		}
		if err := Validate(rs); err != nil {
			t.Error(err)
		}
	}
	tl, err := Timeline()
	if err != nil {
		t.Fatal(err)
	}
	for id := range named {
		sp := tl[id]
		if len(sp) != 1 || sp[0].From != Releases[0] || !sp[0].Open {
			t.Errorf("%s holds for %v, want every modelled release", id, sp)
		}
	}
}

// TestCheckGroupNeedsTheRules: a ruleset without the group-call rules is
// refused, not replayed with empty references.
func TestCheckGroupNeedsTheRules(t *testing.T) {
	calls, err := ParseCalls("t", []byte("groupEnd"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := CheckGroup(&Ruleset{Version: V2_28_9, rules: map[RuleID]*Rule{}}, calls); err == nil || !strings.Contains(err.Error(), "G-GROUP-END-1") {
		t.Errorf("a ruleset without group-call rules: %v", err)
	}
	if _, _, err := CheckGroup(nil, calls); err == nil {
		t.Error("nil ruleset accepted")
	}
}

func TestParseCallsErrors(t *testing.T) {
	for _, s := range []string{"", "init", "allreduce c0", "allreduce c0 3 float32", "gather c0 1MiB", "init c0 sometimes", "sync",
		"broadcast c0 1MiB root=-1", "broadcast c0 1MiB root=x", "broadcast c0 1MiB int8 root=131072",
		"devCommDestroy c0", "devCommDestroy c0 0", "devCommDestroy c0 x", "devCommDestroy c0 1 2"} {
		if _, err := ParseCalls("calls.txt", []byte(s)); err == nil {
			t.Errorf("%q accepted", s)
		} else if !strings.HasPrefix(err.Error(), "calls.txt") {
			t.Errorf("%q: error %q does not name the file", s, err)
		}
	}
}

// TestParseCallsRoot: root=N may follow a collective's size, before or
// after the datatype; without it the root is 0.
func TestParseCallsRoot(t *testing.T) {
	calls, err := ParseCalls("calls.txt", []byte("broadcast c0 1MiB root=3\nbroadcast c0 1MiB int8 ROOT=5\nreduce c0 1KiB root=1 int8 max\nbroadcast c0 1MiB\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3 ncclFloat32 ncclSum", "5 ncclInt8 ncclSum", "1 ncclInt8 ncclMax", "0 ncclFloat32 ncclSum"}
	for i, c := range calls {
		if got := fmt.Sprintf("%d %s %s", c.Op.Root, c.Op.DataType, c.Op.RedOp); got != want[i] {
			t.Errorf("call %d: root, datatype, redop %s, want %s", i, got, want[i])
		}
	}
}

func FuzzParseCalls(f *testing.F) {
	f.Add("init c0\ngroupStart\nbroadcast c0 1MiB int8 root=1\nbroadcast c0 1MiB root=0\ngroupEnd\n")
	f.Add("groupStart\ninit c0 nonblocking\nallreduce c0 1MiB bf16 max\ngroupEnd\nsync c0\n")
	f.Add("groupEnd\n# nothing\n")
	// hostile inputs: nesting past the limit, a long communicator name, an
	// unknown communicator
	f.Add(strings.Repeat("groupStart\n", MaxGroupDepth+1))
	f.Add("init c0\nallreduce " + strings.Repeat("c", 300) + " 1MiB\n")
	f.Add("allreduce nope 1MiB\n")
	f.Add("init c0\nallreduce c0 9223372036854775807\nallreduce c0 2TiB\n")
	f.Fuzz(func(t *testing.T, s string) {
		calls, err := ParseCalls("fuzz", []byte(s))
		if err != nil {
			return
		}
		res, _, err := CheckGroup(MustLoad(V2_22_3), calls)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != len(calls) {
			t.Fatalf("%d results for %d calls", len(res), len(calls))
		}
	})
}
