package explain

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestReports: the table, its difference between releases, the rules and
// a call script each print what they hold.
func TestReports(t *testing.T) {
	sys, err := spec.Preset("h200x2", spec.PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	comm := func(v spec.Version) *spec.Comm {
		c, err := spec.Init(spec.MustLoad(v), sys, spec.Env{})
		if err != nil || c.Err != nil {
			t.Fatalf("%s: %v %v", v, err, c.Err)
		}
		return c
	}
	a, b := comm(spec.V2_22_3), comm(spec.V2_28_9)
	var buf bytes.Buffer
	check := func(name string, err error, want ...string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s lacks %q:\n%s", name, w, buf.String())
			}
		}
		buf.Reset()
	}
	check("table", WriteTable(&buf, "h200x2", b, true, true), "NCCL 2.28.9, h200x2, 2 rank(s) on 1 node(s)", "threadThresholds", "cells with bandwidth 0:")
	if tb := NewTable(b, false); tb.NCCL != "2.28.9" || len(tb.Table) == 0 || tb.Graphs != nil {
		t.Errorf("NewTable: %+v", tb)
	}
	d := DiffTables(a, b)
	if d.From != "2.22.3" || len(d.Changes) == 0 || len(DiffTables(b, b).Changes) != 0 {
		t.Errorf("DiffTables: %d changes, itself %d", len(d.Changes), len(DiffTables(b, b).Changes))
	}
	check("table diff", d.WriteText(&buf, "h200x2", 2), "NCCL 2.22.3 → 2.28.9")
	rs := spec.MustLoad(spec.V2_28_9)
	r, err := NewRules(rs)
	if err != nil || len(r.Rules) != len(rs.Rules()) || r.Rules[0].Holds == "" {
		t.Fatalf("NewRules: %v", err)
	}
	check("rules", r.WriteText(&buf, rs, true), "NCCL 2.28.9:", "holds for", "doc")
	changes, err := spec.Diff(spec.V2_22_3, spec.V2_28_9)
	check("rules diff", err)
	check("rules diff", WriteRulesDiff(&buf, spec.V2_22_3, spec.V2_28_9, changes), "changes from NCCL 2.22.3 to 2.28.9")
	calls, err := spec.ParseCalls("calls.txt", []byte("init c\ngroupStart\nallreduce c 1MiB\ngroupEnd\n"))
	check("calls", err)
	res, tr, err := spec.CheckGroup(rs, calls)
	check("check group", err)
	dec, err := b.DecideCalls(calls, res, spec.Launch{})
	check("decide", err)
	check("group", WriteGroupScript(&buf, res, tr, dec), "groupStart", "AllReduce c 1 MiB", "decision")
	if g := NewGroupScript(calls, res, tr, dec); len(g.Decisions) != 1 || g.Decisions["3"] == nil {
		t.Errorf("NewGroupScript decisions %v", g.Decisions)
	}
}
