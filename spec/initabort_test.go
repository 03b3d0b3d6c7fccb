package spec

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
)

// TestInitAbortPerRelease: two ranks on one GPU, made by ncclCommInitRank
// outside a group, per modelled release. Before 2.24.3 the fail path frees
// no job (no G-INIT-ABORT-1 verdict, the error returns); 2.24.3 and 2.25.1
// free the failed job a second time (the error carries the abort, the gate
// fails with glibc's line); from 2.26.2 launchedJob guards the free (the
// gate passes, the error returns). The deciding gate stays the one that
// failed init, and a communicator that inits adds no verdict anywhere.
// Ref: v2.24.3-1 src/init.cc ncclCommInitRankDev, ncclCommInitJobFree;
// v2.26.2-1 src/init.cc ncclCommInitRankDev
func TestInitAbortPerRelease(t *testing.T) {
	aborts := []Version{V2_24_3, V2_25_1}
	for _, v := range Releases {
		rs := MustLoad(v)
		_, hasRule := rs.Rule("G-INIT-ABORT-1")
		wantRule := v >= V2_24_3
		if hasRule != wantRule {
			t.Errorf("%s: G-INIT-ABORT-1 in the ruleset %v, want %v", v, hasRule, wantRule)
		}
		ok, err := Preset("dgx-b200", PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		comm, err := Init(rs, ok, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if _, found := comm.Trace.Find("G-INIT-ABORT-1"); found || comm.Err != nil {
			t.Errorf("%s: a communicator that inits has error %v and a G-INIT-ABORT-1 verdict %v", v, comm.Err, found)
		}

		dup, err := Preset("dgx-b200", PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		dup.Nodes[0].GPUs[1].Dev = 0
		comm, err = Init(rs, dup, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if comm.Err == nil {
			t.Fatalf("%s: two ranks on one GPU init", v)
		}
		wantAbort := slices.Contains(aborts, v)
		// evaluated last, its verdict still stands where the rule does
		var order []RuleID
		for _, x := range comm.Trace {
			if n := len(order); x.Scope == "" && (n == 0 || order[n-1] != x.Rule) {
				order = append(order, x.Rule)
			}
		}
		if !slices.Equal(order, rs.Init) {
			t.Errorf("%s: a failed init's trace runs %v, the ruleset %v", v, order, rs.Init)
		}
		vd, found := comm.Trace.Find("G-INIT-ABORT-1")
		switch {
		case !wantRule && found:
			t.Errorf("%s: a G-INIT-ABORT-1 verdict before the fail path frees any job: %s", v, vd.WhyText())
		case wantRule && !found:
			t.Errorf("%s: no G-INIT-ABORT-1 verdict for a failed init", v)
		case wantAbort && (vd.Outcome != Fail || !slices.Contains(vd.Log, initAbortMsg)):
			t.Errorf("%s: G-INIT-ABORT-1 %s %q: want fail printing %q", v, vd.Outcome, vd.Log, initAbortMsg)
		case wantRule && !wantAbort && vd.Outcome != Pass:
			t.Errorf("%s: G-INIT-ABORT-1 %s (%s): want pass", v, vd.Outcome, vd.WhyText())
		}
		if got := comm.Err.Abort != nil; got != wantAbort {
			t.Errorf("%s: the init error %s aborts %v, want %v", v, comm.Err, got, wantAbort)
		}
		if wantAbort && (comm.Err.Abort.Rule != "G-INIT-ABORT-1" || !strings.Contains(comm.Err.String(), "never returns it: the process aborts ("+initAbortMsg)) {
			t.Errorf("%s: the init error reads %q, abort %+v", v, comm.Err, comm.Err.Abort)
		}
		if by, _ := comm.FailedBy(); by.Rule != "G-DEV-DUP-1" {
			t.Errorf("%s: init failed by %s, want G-DEV-DUP-1", v, by.Rule)
		}
		op, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
		d, _, err := comm.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		if d.DecidedBy != "G-DEV-DUP-1" || (d.Err.Abort != nil) != wantAbort {
			t.Errorf("%s: decision decided by %s with error %s: want G-DEV-DUP-1, abort %v", v, d.DecidedBy, d.Err, wantAbort)
		}
	}
}

// fnBody is the text of C function name defined in src (a line starting
// with its return type and name), up to the first closing brace at the
// start of a line; "" when absent.
func fnBody(src, name string) string {
	loc := regexp.MustCompile(`(?m)^(?:static )?(?:ncclResult_t|void) ` + regexp.QuoteMeta(name) + `\(`).FindStringIndex(src)
	if loc == nil {
		return ""
	}
	body := src[loc[0]:]
	if k := strings.Index(body, "\n}\n"); k >= 0 {
		body = body[:k]
	}
	return body
}

// TestInitAbortAtTags reads, at every modelled release's tag, whether
// ncclCommInitRankDev's fail path frees the init job (ncclCommInitJobFree)
// and whether launchedJob guards it, that ncclAsyncLaunch outside a group
// runs the job's destructor, and that ncclCommInitRank opens no group while
// ncclCommInitRankConfig does; the model's two ranks on one GPU, made by
// ncclCommInitRank, abort exactly where the free is unguarded, and
// G-INIT-ABORT-1 exists exactly where the fail path frees the job.
func TestInitAbortAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	show := func(v Version, f string) string {
		out, err := exec.Command("git", "-C", repo, "show", v.Tag()+":"+f).Output()
		if err != nil {
			t.Fatalf("%s:%s: %v", v.Tag(), f, err)
		}
		return string(out)
	}
	dup, err := Preset("dgx-b200", PresetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dup.Nodes[0].GPUs[1].Dev = 0
	var aborting []Version
	for _, v := range Releases {
		init := show(v, "src/init.cc")
		dev := fnBody(init, "ncclCommInitRankDev")
		at := strings.LastIndex(dev, "\nfail:")
		if at < 0 || !strings.Contains(dev, "ncclAsyncLaunch(") {
			t.Fatalf("%s: no ncclCommInitRankDev launching its job and with a fail path", v)
		}
		fail := dev[at:]
		frees := strings.Contains(fail, "ncclCommInitJobFree(job)")
		guarded := strings.Contains(fail, "!launchedJob")
		if !strings.Contains(fnBody(show(v, "src/group.cc"), "ncclAsyncLaunch"), "destructor(job)") {
			t.Errorf("%s: ncclAsyncLaunch runs no destructor", v)
		}
		if strings.Contains(fnBody(init, "ncclCommInitRank"), "GroupStart") || !strings.Contains(fnBody(init, "ncclCommInitRankConfig"), "ncclGroupStartInternal") {
			t.Errorf("%s: ncclCommInitRank opens a group, or ncclCommInitRankConfig none", v)
		}
		_, hasRule := MustLoad(v).Rule("G-INIT-ABORT-1")
		if hasRule != frees {
			t.Errorf("%s: G-INIT-ABORT-1 in the ruleset %v; the fail path frees the job: %v", v, hasRule, frees)
		}
		comm, err := Init(MustLoad(v), dup, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := comm.Err != nil && comm.Err.Abort != nil, frees && !guarded; got != want {
			t.Errorf("%s: the model aborts %v; the fail path frees a launched job: %v", v, got, want)
		}
		if frees && !guarded {
			aborting = append(aborting, v)
		}
	}
	if !slices.Equal(aborting, []Version{V2_24_3, V2_25_1}) {
		t.Errorf("the tags that free a launched job twice: %v, want 2.24.3 and 2.25.1", aborting)
	}
}

// TestGroupMixAbortPerRelease: a group whose second init mixes blocking
// modes. ncclAsyncLaunch refuses the job and frees it; at 2.24.3-2.25.1
// ncclCommInitRankDev's fail path frees it again, so the call aborts the
// process and nothing after it runs; before and after, the call returns
// ncclInvalidArgument and the group goes on.
// Ref: v2.24.3-1 src/group.cc ncclAsyncLaunch, src/init.cc
// ncclCommInitRankDev; v2.26.2-1 src/init.cc ncclCommInitRankDev
func TestGroupMixAbortPerRelease(t *testing.T) {
	calls, err := ParseCalls("t", []byte("groupStart\ninit c0\ninit c1 nonblocking\ngroupEnd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v     Version
		abort bool
	}{{V2_22_3, false}, {V2_23_4, false}, {V2_24_3, true}, {V2_25_1, true}, {V2_26_2, false}, {V2_28_9, false}, {V2_30_7, false}} {
		res, tr, err := CheckGroup(MustLoad(c.v), calls)
		if err != nil {
			t.Fatal(err)
		}
		mix, ok := tr.Find("G-GROUP-MIX-1")
		if !ok || mix.Outcome != Fail || res[2].Result != InvalidArgument {
			t.Fatalf("%s: G-GROUP-MIX-1 %v %s, the mixed init %s", c.v, ok, mix.Outcome, res[2].Result)
		}
		aborts := strings.Contains(res[2].Effect, "the process aborts") && slices.Contains(mix.Log, initAbortMsg)
		reached := !strings.HasPrefix(res[3].Effect, "not reached")
		if aborts != c.abort || reached == c.abort {
			t.Errorf("%s: the mixed init %q (log %q), the group end %q: want abort %v", c.v, res[2].Effect, mix.Log, res[3].Effect, c.abort)
		}
	}
}

// TestPlaceVerdicts: verdicts of a rule evaluated after the others move
// before the first verdict of a rule that follows it in the order.
func TestPlaceVerdicts(t *testing.T) {
	tr := func(ids ...RuleID) Trace {
		var out Trace
		for _, id := range ids {
			out = append(out, Verdict{Rule: id})
		}
		return out
	}
	for _, c := range []struct {
		in    Trace
		n     int
		after []RuleID
		want  Trace
	}{
		{tr("A", "B", "X"), 2, nil, tr("A", "B", "X")},
		{tr("A", "B", "X"), 2, []RuleID{"B"}, tr("A", "X", "B")},
		{tr("A", "B", "C", "X", "X"), 3, []RuleID{"B", "C"}, tr("A", "X", "X", "B", "C")},
		{tr("A", "X"), 1, []RuleID{"Z"}, tr("A", "X")},
	} {
		got := placeVerdicts(slices.Clone(c.in), c.n, c.after)
		var g, w []RuleID
		for i := range got {
			g = append(g, got[i].Rule)
		}
		for i := range c.want {
			w = append(w, c.want[i].Rule)
		}
		if !slices.Equal(g, w) {
			t.Errorf("placeVerdicts(%v, %d, %v) = %v, want %v", c.in, c.n, c.after, g, w)
		}
	}
}
