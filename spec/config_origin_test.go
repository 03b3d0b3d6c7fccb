package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestConfigOriginCited: every ncclConfig_t field the gates read changes a
// decision, and the gate that reads it cites where the value came from:
// the field ("config netName"="Socket") when the communicator's config set
// it, the variable ("NCCL_NET"="Socket") when the environment did. No
// verdict of the config's communicator names the variable in a fact or a
// sentence: the job never set it.
// Ref: v2.30.7-1 src/init.cc envConfigOverride
func TestConfigOriginCited(t *testing.T) {
	ag := func(bytes int64) Op { return Op{Func: AllGather, Count: bytes / 4, DataType: Float32, RedOp: Sum} }
	ar := func(bytes int64) Op { return Op{Func: AllReduce, Count: bytes / 4, DataType: Float32, RedOp: Sum} }
	a2a := Op{Func: AllToAll, Count: 1 << 18, DataType: Float32, RedOp: Sum}
	type originCase struct {
		field string // the config field the row is about
		v     Version
		nodes int
		sharp bool
		cfg   string // the config; minCTAs needs maxCTAs set too
		value string // the field's value as its gate cites it
		env   Env    // the same settings through their variables
		op    GroupOp
		rule  RuleID // the gate that reads the field and cites it
		// common: variables every run sets (the base run included)
		common Env
	}
	cases := []originCase{
		{"minCTAs", V2_28_9, 1, false, "minCTAs=30,maxCTAs=30", "30", Env{"NCCL_MIN_CTAS": "30", "NCCL_MAX_CTAS": "30"}, GroupOp{Op: ar(64 << 20)}, "G-GRAPH-CHANNELS-1", nil},
		{"maxCTAs", V2_28_9, 1, false, "maxCTAs=4", "4", Env{"NCCL_MAX_CTAS": "4"}, GroupOp{Op: ar(64 << 20)}, "G-GRAPH-CHANNELS-1", nil},
		{"maxCTAs", V2_18_1, 1, false, "maxCTAs=4", "4", Env{"NCCL_MAX_CTAS": "4"}, GroupOp{Op: ar(64 << 20)}, "G-NVLS-CHAN-1", nil},
		{"netName", V2_28_9, 2, false, "netName=Socket", "Socket", Env{"NCCL_NET": "Socket"}, GroupOp{Op: ar(64 << 20)}, "G-NET-SEL-1", nil},
		{"netName", V2_30_7, 2, false, "netName=Socket", "Socket", Env{"NCCL_NET": "Socket"}, GroupOp{Op: ar(64 << 20)}, "G-NET-SEL-1", nil},
		{"collnetEnable", V2_27_3, 2, true, "collnetEnable=1", "1", Env{"NCCL_COLLNET_ENABLE": "1"}, GroupOp{Op: ar(64 << 20)}, "G-COLLNET-ENV-1", nil},
		{"collnetEnable", V2_28_9, 2, true, "collnetEnable=1", "1", Env{"NCCL_COLLNET_ENABLE": "1"}, GroupOp{Op: ar(64 << 20)}, "G-COLLNET-ENV-1", nil},
		{"CTAPolicy", V2_30_7, 1, false, "CTAPolicy=1", "1", Env{"NCCL_CTA_POLICY": "1"}, GroupOp{Op: ag(64 << 20), Buffers: BuffersRegistered}, "G-SEL-CTAPOL-1", nil},
		{"CTAPolicy", V2_28_9, 1, false, "CTAPolicy=2", "2", Env{"NCCL_CTA_POLICY": "2"}, GroupOp{Op: ag(64 << 20), Buffers: BuffersWindow}, "G-SEL-SIDE-1", nil},
		{"nvlsCTAs", V2_28_9, 1, false, "nvlsCTAs=8", "8", Env{"NCCL_NVLS_NCHANNELS": "8"}, GroupOp{Op: ar(64 << 20)}, "G-NVLS-CHAN-1", nil},
		{"nChannelsPerNetPeer", V2_30_7, 8, false, "nChannelsPerNetPeer=8", "8", Env{"NCCL_NCHANNELS_PER_NET_PEER": "8"}, GroupOp{Op: a2a}, "G-GRAPH-CHANNELS-1", nil},
		{"maxP2pPeers", V2_30_7, 8, false, "maxP2pPeers=16", "16", Env{"NCCL_P2P_MAX_PEERS": "16"}, GroupOp{Op: a2a}, "G-GRAPH-CHANNELS-1", nil},
		{"numRmaCtx", V2_30_7, 2, false, "numRmaCtx=0", "0", Env{"NCCL_NUM_RMA_CTX": "0"}, GroupOp{Op: ag(64 << 20), Buffers: BuffersWindow}, "G-SEL-SIDE-1", Env{"NCCL_CTA_POLICY": "2"}},
	}
	// every field the gates read has a row
	for _, f := range configFields {
		if f.model && !slices.ContainsFunc(cases, func(c originCase) bool { return c.field == f.name }) {
			t.Errorf("config field %s is read by the gates but has no row", f.name)
		}
	}
	// shape is the decision and the communicator's settings the fields
	// change
	shape := func(c *Comm, g *GroupDecision) string {
		d := g.Ops[0]
		return fmt.Sprintf("%s/%s kernel %q ch %d net %s collnet %v nvls %d perPeer %d",
			d.Algo, d.Proto, d.Kernel, d.NChannels, c.Net, c.CollNetSupport, c.NVLSChannels, c.Topo.P2PNChannelsPerPeer)
	}
	build := func(t *testing.T, v Version, nodes int, sharp bool, cfg string, env Env, op GroupOp) (*Comm, *GroupDecision, Trace) {
		t.Helper()
		c, err := initConfig(t, v, "dgx-h100", nodes, sharp, cfg, env)
		if err != nil || c.Err != nil {
			t.Fatal(err, c.Err)
		}
		g, err := c.SelectGroup([]GroupOp{op}, Launch{})
		if err != nil || g.Err != nil {
			t.Fatal(err, g.Err)
		}
		return c, g, append(slices.Clone(c.Trace), g.Traces[0]...)
	}
	cites := func(tr Trace, rule RuleID, want Fact) bool {
		for _, v := range tr {
			if v.Rule == rule && slices.Contains(v.Facts, want) {
				return true
			}
		}
		return false
	}
	for _, tc := range cases {
		f, _ := fieldOf(tc.field)
		t.Run(tc.v.String()+" "+tc.cfg, func(t *testing.T) {
			with := func(e Env) Env {
				out := Env{}
				maps.Copy(out, tc.common)
				maps.Copy(out, e)
				return out
			}
			cb, gb, _ := build(t, tc.v, tc.nodes, tc.sharp, "", with(nil), tc.op)
			cc, gc, trc := build(t, tc.v, tc.nodes, tc.sharp, tc.cfg, with(nil), tc.op)
			ce, ge, tre := build(t, tc.v, tc.nodes, tc.sharp, "", with(tc.env), tc.op)
			base, fromCfg, fromEnv := shape(cb, gb), shape(cc, gc), shape(ce, ge)
			if base == fromCfg {
				t.Errorf("config %s changes nothing: %s", tc.cfg, base)
			}
			if fromCfg != fromEnv {
				t.Errorf("config %s: %s\nvariables %s: %s", tc.cfg, fromCfg, tc.env, fromEnv)
			}
			if want := (Fact{Name: "config " + tc.field, Value: tc.value}); !cites(trc, tc.rule, want) {
				t.Errorf("config %s: %s does not cite %s:\n%s", tc.cfg, tc.rule, want, factsOf(trc, tc.rule))
			}
			if want := F(f.env, tc.value); !cites(tre, tc.rule, want) {
				t.Errorf("%s: %s does not cite %s:\n%s", tc.env, tc.rule, want, factsOf(tre, tc.rule))
			}
			// the variable is unset in the config's run: nothing names it
			named := regexp.MustCompile(regexp.QuoteMeta(f.env) + `([^A-Z0-9_]|$)`)
			for _, v := range trc {
				for _, x := range v.Facts {
					if x.Name == f.env {
						t.Errorf("config %s: %s cites %s, which the job did not set", tc.cfg, v.Rule, x)
					}
				}
				if named.MatchString(v.WhyText()) {
					t.Errorf("config %s: %s's why names %s, which the job did not set: %s", tc.cfg, v.Rule, f.env, v.WhyText())
				}
				for _, l := range v.Log {
					if l == "" || strings.HasPrefix(l, f.env+" set by environment") {
						t.Errorf("config %s: %s predicts the log line %q", tc.cfg, v.Rule, l)
					}
				}
			}
			// and the environment's run cites no config field
			for _, v := range tre {
				for _, x := range v.Facts {
					if strings.HasPrefix(x.Name, "config ") {
						t.Errorf("%s: %s cites %s without a config", tc.env, v.Rule, x)
					}
				}
			}
		})
	}
}

func factsOf(tr Trace, rule RuleID) string {
	var b strings.Builder
	for _, v := range tr {
		if v.Rule == rule {
			fmt.Fprintf(&b, "  %s %s: %v\n", v.Outcome, v.WhyText(), v.Facts)
		}
	}
	return b.String()
}

// TestConfigOriginSummary: what would change an outcome a config field
// decided names the variable that overrides the field, with the field as
// its present value, not the variable as if it were set.
func TestConfigOriginSummary(t *testing.T) {
	for _, tc := range []struct {
		cfg  string
		env  Env
		want string
	}{
		{"netName=Foo", nil, "NCCL_NET (now config netName=Foo): makes NCCL return ncclInvalidUsage at G-NET-SEL-1"},
		{"", Env{"NCCL_NET": "Foo"}, "NCCL_NET (now Foo): makes NCCL return ncclInvalidUsage at G-NET-SEL-1"},
	} {
		c, err := initConfig(t, V2_28_9, "dgx-h100", 2, false, tc.cfg, tc.env)
		if err != nil {
			t.Fatal(err)
		}
		d, tr, err := c.Select(Op{Func: AllReduce, Count: 1 << 20, DataType: Float32, RedOp: Sum})
		if err != nil {
			t.Fatal(err)
		}
		s := Summarize(d, tr.Trace(), c.Env)
		if !slices.Contains(s.Changes, tc.want) {
			t.Errorf("config %q env %v: changes %q, want %q", tc.cfg, tc.env, s.Changes, tc.want)
		}
	}
}

// TestConfigOriginSelectAllocs: citing where the CTA policy came from
// costs the per-operation path nothing: a communicator whose policy came
// from the config decides with as many allocations as one whose policy
// came from the variable (the cited facts are made at init).
func TestConfigOriginSelectAllocs(t *testing.T) {
	fromCfg, err := initConfig(t, V2_30_7, "dgx-h100", 1, false, "CTAPolicy=1,maxCTAs=16", nil)
	if err != nil || fromCfg.Err != nil {
		t.Fatal(err, fromCfg.Err)
	}
	fromEnv, err := initConfig(t, V2_30_7, "dgx-h100", 1, false, "", Env{"NCCL_CTA_POLICY": "1", "NCCL_MAX_CTAS": "16"})
	if err != nil || fromEnv.Err != nil {
		t.Fatal(err, fromEnv.Err)
	}
	op := Op{Func: AllGather, Count: 1 << 20, DataType: Float32, RedOp: Sum}
	allocs := func(c *Comm) float64 {
		return testing.AllocsPerRun(20, func() {
			if _, _, err := c.SelectOp(op, true); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(fromCfg), allocs(fromEnv); a != b {
		t.Errorf("SelectOp allocates %.0f times with the config, %.0f with the variables", a, b)
	}
	_, tr, err := fromCfg.SelectOp(op, true)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tr.Find("G-SEL-CTAPOL-1"); !ok || !slices.Contains(v.Facts, Fact{Name: "config CTAPolicy", Value: "1"}) {
		t.Errorf("G-SEL-CTAPOL-1 of the traced SelectOp: %v, want it to cite config CTAPolicy=1", v)
	}
}
