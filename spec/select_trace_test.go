package spec

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestSelectTraceShared: Select's trace reads as the communicator's init
// verdicts followed by SelectOp's, and writing into what one result hands
// out alters neither another result nor the communicator.
func TestSelectTraceShared(t *testing.T) {
	rs := MustLoad(V2_28_9)
	comm, err := Init(rs, mustPreset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true}), Env{"NCCL_COLLNET_ENABLE": "1"})
	if err != nil {
		t.Fatal(err)
	}
	initBefore := slicesCloneTrace(comm.Trace)
	ar, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
	ag, _ := OpFromBytes(AllGather, 1<<10, Float32, Sum, 0)
	_, a, err := comm.Select(ar)
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := comm.Select(ag)
	if err != nil {
		t.Fatal(err)
	}
	_, aOp, err := comm.SelectOp(ar, true)
	if err != nil {
		t.Fatal(err)
	}
	want := append(slicesCloneTrace(comm.Trace), aOp...)
	got := a.Trace()
	if a.Len() != len(want) || !reflect.DeepEqual(got, want) {
		t.Fatalf("Select's trace has %d verdicts, want the %d init verdicts and SelectOp's %d", a.Len(), len(comm.Trace), len(aOp))
	}
	n := 0
	for i, v := range a.All() {
		if i != n || !reflect.DeepEqual(v, want[i]) || !reflect.DeepEqual(a.At(i), want[i]) {
			t.Fatalf("verdict %d (yielded as %d): %+v, want %+v", n, i, v, want[n])
		}
		n++
	}
	if n != len(want) {
		t.Fatalf("All yields %d verdicts, want %d", n, len(want))
	}
	for _, id := range []RuleID{want[0].Rule, want[len(want)-1].Rule, "G-NO-SUCH-RULE"} {
		v1, ok1 := a.Find(id)
		v2, ok2 := want.Find(id)
		if ok1 != ok2 || !reflect.DeepEqual(v1, v2) {
			t.Errorf("Find(%s): %v %+v, want %v %+v", id, ok1, v1, ok2, v2)
		}
	}
	for _, c := range Capabilities {
		v1, ok1 := a.Stopper(c)
		v2, ok2 := want.Stopper(c)
		if ok1 != ok2 || !reflect.DeepEqual(v1, v2) {
			t.Errorf("Stopper(%s): %v %+v, want %v %+v", c, ok1, v1, ok2, v2)
		}
	}
	aj, err1 := json.Marshal(a)
	wj, err2 := json.Marshal(want)
	if err1 != nil || err2 != nil || string(aj) != string(wj) {
		t.Errorf("JSON differs from the Trace's (%v, %v)", err1, err2)
	}

	// write into everything a result hands out
	bBefore := b.Trace()
	mine := a.Trace()
	for i := range mine {
		mine[i].Why, mine[i].Outcome, mine[i].Rule = "written", Fail, "G-WRITTEN-1"
	}
	op := a.Op()
	for i := range op {
		op[i].Why, op[i].Rule = "written", "G-WRITTEN-1"
	}
	_ = append(op[:0], Verdict{Rule: "G-WRITTEN-3"})
	v := a.At(0)
	v.Why, v.Rule = "written", "G-WRITTEN-1"
	for _, v := range a.All() {
		v.Why = "written"
	}
	if !reflect.DeepEqual(comm.Trace, initBefore) {
		t.Fatal("writing into a result's verdicts changed the communicator's init trace")
	}
	if !reflect.DeepEqual(b.Trace(), bBefore) {
		t.Fatal("writing into one result's verdicts changed another's")
	}
	if got := a.Trace()[:len(initBefore)]; !reflect.DeepEqual(got, initBefore) {
		t.Fatal("writing into a copy of the trace changed the result's init verdicts")
	}
}

func slicesCloneTrace(t Trace) Trace { return append(Trace(nil), t...) }

// TestEmitCopiesEveryField: a walk writes each verdict into its slot field
// by field, so a Verdict field emit does not copy would be lost from every
// recorded per-operation verdict; and JSON writes a verdict without a
// reference as it always did.
func TestEmitCopiesEveryField(t *testing.T) {
	if n := reflect.TypeFor[Verdict]().NumField(); n != 12 {
		t.Fatalf("Verdict has %d fields: emit copies 12; copy the new ones there and count them here", n)
	}
	rule := &Rule{ID: "G-SEL-PICK-1", Layer: LayerSelect, Cap: "rule-cap", Ref: Ref{Tag: "v2.28.9-1", File: "src/enqueue.cc", Func: "topoGetAlgoInfo"}}
	o := &opRun{record: true, id: rule.ID, rule: rule, out: make(Trace, 0, 1)}
	v := Verdict{Outcome: Info, Cap: "verdict-cap", Level: 2, Facts: []Fact{F("a", 1)}, Why: "why", Log: []string{"log"},
		Debug: []string{"debug"}, Lazy: &LazyWhy{Kind: LazyWin}}
	o.emit(v)
	want := v
	want.Rule, want.Layer, want.Ref, want.Scope = rule.ID, rule.Layer, &rule.Ref, "op"
	if len(o.out) != 1 {
		t.Fatalf("emit wrote %d verdicts, want 1", len(o.out))
	}
	gv, wv := reflect.ValueOf(o.out[0]), reflect.ValueOf(want)
	for i := range gv.NumField() {
		if !reflect.DeepEqual(gv.Field(i).Interface(), wv.Field(i).Interface()) {
			t.Errorf("emit wrote %s %v, want %v", gv.Type().Field(i).Name, gv.Field(i), wv.Field(i))
		}
	}
	got, err := json.Marshal(Verdict{Rule: "G-X-1", Outcome: Pass})
	if err != nil {
		t.Fatal(err)
	}
	if w := `{"rule":"G-X-1","layer":"env","verdict":"pass","ref":{"tag":"","file":"","func":""}}`; string(got) != w {
		t.Errorf("a verdict without a reference writes %s, want %s", got, w)
	}
}
