package spec

import (
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
			res, tr := CheckGroup(calls)
			found := false
			for _, v := range tr {
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
	// the table above names every group rule; TestSelectGroupVerdicts the
	// planning ones
	named := map[RuleID]bool{"G-GROUP-END-1": true, "G-GROUP-ENQUEUE-1": true, "G-GROUP-SYNC-1": true, "G-GROUP-INIT-1": true, "G-GROUP-MIX-1": true, "G-GROUP-NONBLOCK-1": true}
	for _, r := range GroupCallRules() {
		if !named[r.ID] {
			t.Errorf("group rule %s has no case", r.ID)
		}
		if r.Ref.Tag == "" || r.Doc == "" || !ruleIDPattern.MatchString(string(r.ID)) {
			t.Errorf("group rule %s is incomplete", r.ID)
		}
	}
}

func TestParseCallsErrors(t *testing.T) {
	for _, s := range []string{"", "init", "allreduce c0", "allreduce c0 3 float32", "gather c0 1MiB", "init c0 sometimes", "sync"} {
		if _, err := ParseCalls("calls.txt", []byte(s)); err == nil {
			t.Errorf("%q accepted", s)
		} else if !strings.HasPrefix(err.Error(), "calls.txt") {
			t.Errorf("%q: error %q does not name the file", s, err)
		}
	}
}

func FuzzParseCalls(f *testing.F) {
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
		res, _ := CheckGroup(calls)
		if len(res) != len(calls) {
			t.Fatalf("%d results for %d calls", len(res), len(calls))
		}
	})
}
