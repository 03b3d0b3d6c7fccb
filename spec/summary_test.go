package spec

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	cases := []struct {
		name    string
		preset  string
		o       PresetOptions
		env     Env
		network string   // Summary.Network prefix
		offload []string // CapabilityState strings that must appear
		changes []string // substrings of some Changes entry
	}{
		{"v100x4: no NVSwitch", "v100x4", PresetOptions{}, Env{"NCCL_NVLS_ENABLE": "1"}, "Socket (NCCL's internal TCP transport)",
			[]string{"NVLS stopped at G-NVLS-GRAPH-1: no NVSwitch"}, []string{"runner-up Ring/Simple"}},
		{"SHARP plugin over IB", "dgx-h100", PresetOptions{Nodes: 16, SHARP: true}, Env{"NCCL_COLLNET_ENABLE": "1"}, "IB via the SHARP plugin",
			[]string{"NVLS selected", "CollNet: communicator candidate (G-COLLNET-SETUP-1); this operation: candidate, not chosen (best CollNetDirect/Simple"},
			[]string{"runner-up CollNetDirect/Simple"}},
		// init sets NVLS up, but across nodes without CollNet the
		// AllReduce prunes it (P5): the summary says so, as the table does

		{"internal IB", "dgx-h100", PresetOptions{Nodes: 2}, nil, "IB (NCCL's internal verbs transport)",
			[]string{"CollNet stopped at G-COLLNET-ENV-1", "NVLS: communicator candidate (G-NVLS-SETUP-1); this operation: pruned by G-SEL-PRUNE-1 (P5:"}, nil},
		{"NVLS off by the environment", "h200x2", PresetOptions{}, Env{"NCCL_NVLS_ENABLE": "0"}, "Socket",
			[]string{"NVLS stopped at G-NVLS-ENV-1"}, []string{"NCCL_NVLS_ENABLE (now 0): stops NVLS at G-NVLS-ENV-1", "NCCL_COLLNET_ENABLE (now unset)"}},
		{"forced NVLS fails", "v100x4", PresetOptions{}, Env{"NCCL_ALGO": "NVLS", "NCCL_NVLS_ENABLE": "1"}, "Socket",
			nil, []string{"NCCL_ALGO (now NVLS): makes NCCL return ncclInvalidUsage at G-SEL-ERR-1"}},
	}
	for _, c := range cases {
		sys, err := Preset(c.preset, c.o)
		if err != nil {
			t.Fatal(err)
		}
		comm, err := Init(MustLoad(V2_28_9), sys, c.env)
		if err != nil {
			t.Fatal(err)
		}
		op, _ := OpFromBytes(AllReduce, 1<<20, Float32, Sum, 0)
		d, tr, err := comm.Select(op)
		if err != nil {
			t.Fatal(err)
		}
		s := Summarize(d, tr.Trace(), c.env)
		if !strings.HasPrefix(s.Network, c.network) {
			t.Errorf("%s: network %q, want %q…", c.name, s.Network, c.network)
		}
		if s.DecidedBy.Rule != d.DecidedBy {
			t.Errorf("%s: deciding verdict %s, decision says %s", c.name, s.DecidedBy.Rule, d.DecidedBy)
		}
		var offs []string
		for _, o := range s.Offloads {
			offs = append(offs, o.String())
			if o.Stopped != nil && o.Stopped.Outcome != Fail {
				t.Errorf("%s: %s stopped by a verdict that did not fail", c.name, o.Cap)
			}
		}
		all := strings.Join(offs, "\n")
		for _, w := range c.offload {
			if !strings.Contains(all, w) {
				t.Errorf("%s: offloads lack %q:\n%s", c.name, w, all)
			}
		}
		ch := strings.Join(s.Changes, "\n")
		for _, w := range c.changes {
			if !strings.Contains(ch, w) {
				t.Errorf("%s: changes lack %q:\n%s", c.name, w, ch)
			}
		}
		if strings.Contains(ch, "NCCL_PAT_ENABLE") {
			t.Errorf("%s: PAT's gate stops on the GPUs per node, not on NCCL_PAT_ENABLE:\n%s", c.name, ch)
		}
	}
}

// TestCapabilityStateString: below selected the level is the
// communicator's, and the operation's verdict follows it; algorithms of
// one offload pruned for different reasons are named with theirs.
func TestCapabilityStateString(t *testing.T) {
	setup := &Verdict{Rule: "G-COLLNET-SETUP-1"}
	p1 := func(a Algo) CellCost { return CellCost{Algo: a, Proto: Simple, Rule: "G-SEL-PRUNE-1", Why: "P1: no"} }
	for _, tc := range []struct {
		s    CapabilityState
		want string
	}{
		{CapabilityState{Cap: CapCollNet, Level: LevelSelected}, "CollNet selected"},
		{CapabilityState{Cap: CapCollNet, Level: LevelCandidate, By: setup}, "CollNet: communicator candidate (G-COLLNET-SETUP-1)"},
		{CapabilityState{Cap: CapCollNet, Level: LevelCandidate, By: setup, Op: capabilityOp(CapCollNet, []CellCost{
			{Algo: Ring, Proto: Simple, TimeUs: 1, Usable: true}, {Algo: CollNetDirect, Proto: LL, TimeUs: 9, Usable: true},
			{Algo: CollNetDirect, Proto: Simple, TimeUs: 5, Usable: true}, p1(CollNetChain)})},
			"CollNet: communicator candidate (G-COLLNET-SETUP-1); this operation: candidate, not chosen (best CollNetDirect/Simple 5.00 µs)"},
		{CapabilityState{Cap: CapCollNet, Level: LevelCandidate, Op: capabilityOp(CapCollNet, []CellCost{
			{Algo: CollNetDirect, Proto: LL, Rule: "G-TUNE-PROTO-1"}, p1(CollNetDirect), p1(CollNetChain)})},
			"CollNet: communicator candidate; this operation: pruned by G-SEL-PRUNE-1 (P1: no)"},
		{CapabilityState{Cap: CapCollNet, Level: LevelUsable, Op: capabilityOp(CapCollNet, []CellCost{
			p1(CollNetDirect), {Algo: CollNetChain, Proto: Simple, Rule: "G-TUNE-IMPL-1", Why: "none"}})},
			"CollNet: communicator usable; this operation: CollNetDirect pruned by G-SEL-PRUNE-1 (P1: no); CollNetChain pruned by G-TUNE-IMPL-1 (none)"},
	} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
	if op := capabilityOp(CapPAT, []CellCost{{Algo: Ring, Proto: Simple, Usable: true}}); op != nil {
		t.Errorf("a table without PAT's row says %+v of PAT", op)
	}
}
