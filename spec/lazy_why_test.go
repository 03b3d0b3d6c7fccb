package spec

import (
	"encoding/json"
	"math"
	"testing"
)

// TestLazyWhySentences: each lazy sentence reads as the one Select wrote
// eagerly before (the texts are the old formats' outputs).
func TestLazyWhySentences(t *testing.T) {
	cell := func(a Algo, p Proto) uint8 { return lazyCell(AlgoProto{a, p}) }
	bit := func(a Algo, p Proto) uint32 { return 1 << cell(a, p) }
	for _, c := range []struct {
		l    LazyWhy
		want string
	}{
		{LazyWhy{Kind: LazyElements, Count: 524288}, "524288 element(s): the call becomes a task"},
		{LazyWhy{Kind: LazyElements, Count: 1}, "1 element(s): the call becomes a task"},
		{LazyWhy{Kind: LazyLegal, Cells: bit(Tree, LL) | bit(Ring, Simple) | bit(NVLS, Simple)}, "legal: Tree/LL Ring/Simple NVLS/Simple"},
		{LazyWhy{Kind: LazyLegal, Cells: bit(Ring, LL128), Notes: "CollNetDirect: collNetOK is false (P1); CollNetChain: collNetOK is false (P1)"},
			"legal: Ring/LL128 (pruned CollNetDirect: collNetOK is false (P1); CollNetChain: collNetOK is false (P1))"},
		{LazyWhy{Kind: LazyLegal}, "no cell left"},
		{LazyWhy{Kind: LazyLegal, Notes: "PAT: PAT ReduceScatter cannot scale (P7)"}, "no cell left (pruned PAT: PAT ReduceScatter cannot scale (P7))"},
		{LazyWhy{Kind: LazyWin, Best: cell(NVLS, Simple), BestUs: 48.119998931884766, HasNext: true, Next: cell(CollNetDirect, Simple), NextUs: 50.42509841918945},
			"NVLS/Simple wins with time 48.12 µs (next: CollNetDirect/Simple 50.43 µs)"},
		{LazyWhy{Kind: LazyWin, Best: cell(Ring, LL), BestUs: 0.005}, "Ring/LL wins with time 0.01 µs"},
		{LazyWhy{Kind: LazyWin, Best: cell(Ring, LL), BestUs: 1, HasNext: true, Next: cell(Tree, LL), NextUs: math.Inf(1)}, "Ring/LL wins with time 1.00 µs (next: Tree/LL +Inf µs)"},
		{LazyWhy{Kind: LazyArity, Count: 8, Limit: 8}, "8 local ranks ≤ 8"},
	} {
		if got := c.l.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.l, got, c.want)
		}
		// a lazy verdict reads and marshals as the eager one
		l := c.l
		lazy := Verdict{Rule: "G-SEL-PICK-1", Layer: LayerSelect, Outcome: Pass, Lazy: &l, Scope: "op"}
		eager := Verdict{Rule: "G-SEL-PICK-1", Layer: LayerSelect, Outcome: Pass, Why: c.want, Scope: "op"}
		if got := lazy.WhyText(); got != c.want {
			t.Errorf("WhyText %q, want %q", got, c.want)
		}
		lj, err1 := json.Marshal(Trace{lazy})
		ej, err2 := json.Marshal(Trace{eager})
		if err1 != nil || err2 != nil || string(lj) != string(ej) {
			t.Errorf("lazy verdict's JSON %s (%v), want %s (%v)", lj, err1, ej, err2)
		}
	}
}

// TestSelectLazyVerdictsMarshal: on a real decision, every verdict with
// numbers instead of a sentence has a sentence, and its JSON carries it.
func TestSelectLazyVerdictsMarshal(t *testing.T) {
	rs := MustLoad(V2_28_9)
	comm, err := Init(rs, mustPreset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true}), Env{"NCCL_COLLNET_ENABLE": "1"})
	if err != nil {
		t.Fatal(err)
	}
	lazy := 0
	for _, f := range []Func{AllReduce, AllGather, ReduceScatter, Broadcast} {
		op, _ := OpFromBytes(f, 1<<20, Float32, Sum, 0)
		_, tr, err := comm.SelectOp(op, true)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var back []struct {
			Why string `json:"why"`
		}
		if err := json.Unmarshal(b, &back); err != nil || len(back) != len(tr) {
			t.Fatalf("%s: %v", b, err)
		}
		for i, v := range tr {
			if v.Lazy != nil {
				lazy++
				if v.WhyText() == "" || back[i].Why != v.WhyText() {
					t.Errorf("%s %s: JSON why %q, WhyText %q", f, v.Rule, back[i].Why, v.WhyText())
				}
			}
		}
	}
	if lazy == 0 {
		t.Fatal("no lazy verdict: the test checks nothing")
	}
}
